#!/usr/bin/env bash
# An emulated two-tier cluster fabric on one Linux machine, for running fabricbench across
# "hosts" without a cluster (see docs/emulated-fabric.md).
#
#   host   = a network namespace PREFIX-h00001 holding eth0, an address in one IPv4 subnet
#   switch = a Linux bridge br0 in a namespace of its own: PREFIX-leaf0001, PREFIX-spine0001
#   link   = a veth pair, shaped by a tbf qdisc on BOTH ends so that both directions have the
#            link's rate (a qdisc shapes only what leaves through its end)
#   management network = a bridge of its own (PREFIX-mgmt) with an unshaped mgmt0 on every host,
#            in its own subnet: mpirun's control traffic, as a cluster's Ethernet management
#            network carries it, so that a fabric link that goes down does not cut off the launcher
#
# Every leaf has ONE cable to the spine whose rate is the sum of the uplinks it models: two
# cables between the same two bridges would be a loop, and bridges without STP would flood it.
# Names follow the topology model's cluster spec (hosts h00001.. in leaf order, leaf0001..,
# spine0001), so diagnose findings name the emulated parts directly.
#
# A routed fabric (`up --ibnetdiscover FILE --lfts FILE`) is built from a fabric's own dumps
# instead: every switch and host of the ibnetdiscover output a namespace, every cable its own veth
# pair named by its port (switch end pN, host end eth0), so parallel cables between two switches
# are separate links; the switches route (IPv4 forwarding, proxy ARP on every port, no bridge), and
# each switch sends each host's /32 out of the port its linear forwarding table (dump_fts, ibroute
# or opensm-lfts.dump) names. A pair's packets take the path the tables say, cable for cable, so
# `diagnose --routes` on the same two files knows the route of every measured pair.
#
# Usage:
#   emulated-fabric.sh up [--prefix P] [--leaves L] [--hosts-per-leaf H] [--subnet CIDR]
#                         [--management-subnet CIDR] [--host-mbit R] [--uplink-mbit R]
#                         [--throttle HOST:MBIT]...
#   emulated-fabric.sh up --ibnetdiscover FILE --lfts FILE [--prefix P] [--subnet CIDR]
#                         [--management-subnet CIDR] [--host-mbit R] [--throttle-cable SWITCH:PORT:MBIT]...
#                         # a routed fabric; R is the host cables' rate, the others in proportion
#   emulated-fabric.sh down [--prefix P]        # safe to repeat, and after a partial up
#   emulated-fabric.sh status [--prefix P]
#   emulated-fabric.sh link-down [--prefix P] HOST  # HOST's cable goes down at its leaf port
#   emulated-fabric.sh throttle [--prefix P] HOST MBIT  # HOST's cable now runs at MBIT both ways
#   emulated-fabric.sh throttle-cable [--prefix P] SWITCH PORT MBIT  # routed fabric: that cable, both ways
#   emulated-fabric.sh mpirun [--prefix P] MPIRUN_ARGS...   # runs mpirun across the hosts
#   emulated-fabric.sh mpirun-prefix [--prefix P]           # prints that command line
set -Eeuo pipefail # -E: the ERR trap of `up` must also fire inside the functions it calls

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

prefix=fb
leaves=2
hosts_per_leaf=4
subnet=10.77.0.0/24
management_subnet=10.78.0.0/24
host_mbit=40
uplink_mbit=""  # default: hosts_per_leaf * host_mbit, a non-blocking leaf
throttles=()
ibnetdiscover_file=""
lfts_file=""
cable_throttles=()

# tbf parameters, measured in docs/emulated-fabric.md. The burst is what passes at line rate after
# an idle moment: small against the 1 MiB a bandwidth iteration sends (256 KiB x window 4), so
# that it inflates the measured rate by under 2%, yet ten 1500-byte packets so that the token
# bucket does not stall between timer ticks. The latency bounds the queue: long enough that TCP is not dropped
# below the rate, short enough that a sender does not build seconds of backlog.
tbf_burst=16kb
tbf_latency=100ms

usage() {
  # The "Usage:" block of the header comment.
  sed -n '/^# Usage:/,/^[^#]/p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

die() {
  echo "emulated-fabric: $*" >&2
  exit 1
}

# The prefix becomes part of namespace names and is matched exactly by `down`; letters and digits
# only, so that the prefix "fb" can never match the namespaces of a fabric called "fb-2".
check_prefix() {
  [[ $prefix =~ ^[A-Za-z0-9]{1,32}$ ]] || die "--prefix must be 1 to 32 letters or digits, got '$prefix'"
}

state_dir() { echo "/run/fabricbench-emulated-fabric/$prefix"; }

host_name() { printf 'h%05d' "$1"; }
leaf_name() { printf 'leaf%04d' "$1"; }

parse_options() {
  while (($#)); do
    case $1 in
      --prefix) prefix=${2:?--prefix needs a value}; shift 2 ;;
      --leaves) leaves=${2:?--leaves needs a value}; shift 2 ;;
      --hosts-per-leaf) hosts_per_leaf=${2:?--hosts-per-leaf needs a value}; shift 2 ;;
      --subnet) subnet=${2:?--subnet needs a value}; shift 2 ;;
      --management-subnet) management_subnet=${2:?--management-subnet needs a value}; shift 2 ;;
      --host-mbit) host_mbit=${2:?--host-mbit needs a value}; shift 2 ;;
      --uplink-mbit) uplink_mbit=${2:?--uplink-mbit needs a value}; shift 2 ;;
      --throttle) throttles+=("${2:?--throttle needs HOST:MBIT}"); shift 2 ;;
      --ibnetdiscover) ibnetdiscover_file=${2:?--ibnetdiscover needs a file}; shift 2 ;;
      --lfts) lfts_file=${2:?--lfts needs a file}; shift 2 ;;
      --throttle-cable) cable_throttles+=("${2:?--throttle-cable needs SWITCH:PORT:MBIT}"); shift 2 ;;
      -h | --help) usage ;;
      *) die "unknown option '$1' (try --help)" ;;
    esac
  done
  check_prefix
}

is_count() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }

# Prints the dotted address `offset` addresses after the network address of subnet $2 (default
# $subnet).
address_in_subnet() {
  local network=${2:-$subnet} a b c d
  network=${network%/*}
  IFS=. read -r a b c d <<<"$network"
  local value=$(((a << 24 | b << 16 | c << 8 | d) + $1))
  echo "$((value >> 24 & 255)).$((value >> 16 & 255)).$((value >> 8 & 255)).$((value & 255))"
}

# Records a namespace in the state directory BEFORE creating it, so that `down` finds it even
# when `up` is killed between the two steps.
add_namespace() {
  echo "$1" >>"$(state_dir)/namespaces"
  ip netns add "$1"
  ip -n "$1" link set lo up
}

# Shapes the egress of one veth end to `mbit`.
shape() {
  tc -n "$1" qdisc add dev "$2" root tbf rate "${3}mbit" burst "$tbf_burst" latency "$tbf_latency"
}

# A cable: veth end `dev_a` in namespace `ns_a`, `dev_b` in `ns_b`, both shaped to `mbit`. The
# pair is created directly inside the namespaces, so nothing is ever left in the root namespace.
cable() {
  local ns_a=$1 dev_a=$2 ns_b=$3 dev_b=$4 mbit=$5
  ip -n "$ns_a" link add name "$dev_a" type veth peer name "$dev_b" netns "$ns_b"
  shape "$ns_a" "$dev_a" "$mbit"
  shape "$ns_b" "$dev_b" "$mbit"
}

add_bridge() {
  ip -n "$1" link add br0 type bridge stp_state 0
  ip -n "$1" link set br0 up
}

attach_to_bridge() {
  ip -n "$1" link set "$2" master br0
  ip -n "$1" link set "$2" up
}

# Host $1, the $2-th, gets its unshaped port on the management network (prefix length $3). Called before the host's
# fabric port is made, as a server's onboard Ethernet comes before its fabric NIC: it is the
# address a host lists first, and so the one the watchdog's side channel takes.
management_port() {
  local host=$1 n=$2 length=$3
  ip -n "$prefix-$host" link add name mgmt0 type veth peer name "$host" netns "$prefix-mgmt"
  ip -n "$prefix-$host" addr add "$(address_in_subnet "$n" "$management_subnet")/$length" dev mgmt0
  ip -n "$prefix-$host" link set mgmt0 up
  attach_to_bridge "$prefix-mgmt" "$host"
}

# Checks a CIDR option and prints its prefix length.
prefix_length_of() {
  [[ $2 =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/([0-9]{1,2})$ ]] || die "$1 must be a CIDR like 10.77.0.0/24, got '$2'"
  echo "${BASH_REMATCH[2]}"
}

# Creates the first namespace, which tells whether this machine lets us create any (root,
# CAP_SYS_ADMIN, a kernel with network namespaces). If not, exit 77, the conventional "skipped"
# status, so that tests skip instead of failing.
first_namespace_or_skip() {
  echo "$1" >>"$(state_dir)/namespaces"
  if ! ip netns add "$1"; then
    rm -rf "$(state_dir)"
    echo "emulated-fabric: cannot create network namespaces here (root and CAP_SYS_ADMIN needed)" >&2
    exit 77
  fi
  ip -n "$1" link set lo up
}

# A namespace that routes like a switch: forwards IPv4, answers ARP for what it routes out of
# another port (proxy ARP), and never drops a packet for arriving on another port than its reply
# would leave by (the tables route each direction of a pair on its own, so routes are often
# asymmetric). Set before its ports exist, which inherit the defaults.
make_router() {
  ip netns exec "$1" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.default.proxy_arp=1
  # An address of its own: the source of its ARP requests (proxy ARP answers none from 0.0.0.0).
  ip -n "$1" addr add "$2/32" dev lo
}

# A switch's port up, answering proxy ARP at once rather than after the random delay of up to
# 0.8 s the kernel gives broadcast requests (a per-port setting: a namespace has no neigh default).
router_port() {
  ip netns exec "$1" sysctl -qw "net.ipv4.neigh.$2.proxy_delay=0"
  ip -n "$1" link set "$2" up
}

# The routed fabric of --ibnetdiscover and --lfts (see the header).
# Everything is checked before the first namespace is made.
cmd_up_routed() {
  [[ -r $ibnetdiscover_file && -r $lfts_file ]] ||
    die "a routed fabric needs both --ibnetdiscover FILE and --lfts FILE, readable"
  ((${#throttles[@]} == 0)) || die "--throttle HOST:MBIT is for the bridged fabric; use --throttle-cable SWITCH:PORT:MBIT"
  [[ -z $uplink_mbit ]] || die "--uplink-mbit is for the bridged fabric; a routed fabric takes its rates from the file"
  is_count "$host_mbit" || die "--host-mbit must be a positive integer"
  local prefix_length management_prefix_length plan
  prefix_length=$(prefix_length_of --subnet "$subnet")
  management_prefix_length=$(prefix_length_of --management-subnet "$management_subnet")
  [[ ${subnet%/*} != "${management_subnet%/*}" ]] || die "--subnet and --management-subnet must differ"
  plan=$(awk -f "$script_dir/emulated-fabric-plan.awk" "$ibnetdiscover_file" "$lfts_file") ||
    die "$ibnetdiscover_file: $(sed -n 's/^error //p' <<<"$plan")"

  local -a switches hosts
  mapfile -t switches < <(awk '$1 == "switch" {print $2}' <<<"$plan" | sort -u)
  mapfile -t hosts < <(awk '$1 == "host" {print $2}' <<<"$plan" | sort -V -u)
  ((${#switches[@]} > 0 && ${#hosts[@]} > 1)) || die "$ibnetdiscover_file: no switches, or fewer than two hosts"
  local node_count=$((${#switches[@]} + ${#hosts[@]}))
  ((prefix_length <= 30 && node_count < (1 << (32 - prefix_length)) - 1)) ||
    die "${#hosts[@]} hosts and ${#switches[@]} switches do not fit in $subnet"
  ((management_prefix_length <= 30 && ${#hosts[@]} < (1 << (32 - management_prefix_length)) - 1)) ||
    die "${#hosts[@]} hosts do not fit in $management_subnet"
  declare -A number_of=() address_of=() is_host=() cable_at=() rate_of=()
  local n=0 name
  for name in "${hosts[@]}"; do
    number_of[$name]=$((n += 1))
    address_of[$name]=$(address_in_subnet "$n")
    is_host[$name]=1
  done
  for name in "${switches[@]}"; do
    n=$((n + 1)) # here, not inside $(...): a subshell's change to n would be lost
    address_of[$name]=$(address_in_subnet "$n")
  done

  # Cables: "SWITCH PORT PEER PEER_PORT GBPS". Rates in proportion, the slowest host cable at
  # --host-mbit. A host with no cable, or with two, is a dump this emulation cannot build.
  local -a cables
  mapfile -t cables < <(awk '$1 == "cable" {print $2, $3, $4, $5, $6}' <<<"$plan")
  local slowest_host_gbps
  slowest_host_gbps=$(printf '%s\n' "${cables[@]}" | awk -v hosts=" ${hosts[*]} " \
    'index(hosts, " " $3 " ") && (min == "" || $5 < min) {min = $5} END {print min}')
  declare -A host_cables=()
  local line sw port peer peer_port gbps
  for line in "${cables[@]}"; do
    read -r sw port peer peer_port gbps <<<"$line"
    cable_at[$sw:$port]=$line
    [[ -z ${is_host[$peer]:-} ]] || host_cables[$peer]=$((${host_cables[$peer]:-0} + 1))
    [[ -n ${is_host[$peer]:-} ]] || cable_at[$peer:$peer_port]=$line
    rate_of[$line]=$(awk -v g="$gbps" -v s="$slowest_host_gbps" -v r="$host_mbit" 'BEGIN {printf "%g", r * g / s}')
  done
  for name in "${hosts[@]}"; do
    [[ ${host_cables[$name]:-0} == 1 ]] || die "$ibnetdiscover_file: host $name has ${host_cables[$name]:-0} cables; the emulation builds hosts of one port"
  done

  # Throttles name a cable by either switch end: SWITCH:PORT:MBIT.
  local spec
  for spec in "${cable_throttles[@]}"; do
    [[ $spec =~ ^([A-Za-z0-9_.-]+):([0-9]+):([1-9][0-9]*)$ ]] ||
      die "--throttle-cable wants SWITCH:PORT:MBIT like leaf01:4:10, got '$spec'"
    line=${cable_at[${BASH_REMATCH[1]}:${BASH_REMATCH[2]}]:-}
    [[ -n $line ]] || die "--throttle-cable: no cable at ${BASH_REMATCH[1]} port ${BASH_REMATCH[2]} in $ibnetdiscover_file"
    rate_of[$line]=${BASH_REMATCH[3]}
  done

  # Routes: every switch must send every host somewhere it has a cable, or pairs would vanish.
  declare -A route_port=()
  local host
  while read -r sw host port; do
    [[ -n ${is_host[$host]:-} ]] || die "$lfts_file: switch $sw routes host $host, which $ibnetdiscover_file does not have: are both from the same fabric?"
    [[ -n ${cable_at[$sw:$port]:-} ]] || die "$lfts_file: switch $sw sends $host out of port $port, which has no cable"
    route_port[$sw:$host]=$port
  done < <(awk '$1 == "route" {print $2, $3, $4}' <<<"$plan")
  for sw in "${switches[@]}"; do
    for host in "${hosts[@]}"; do
      [[ -n ${route_port[$sw:$host]:-} ]] || die "$lfts_file: switch $sw has no entry for host $host: are both from the same fabric?"
    done
  done

  [[ ! -e "$(state_dir)" && -z "$(fabric_namespaces)" ]] ||
    die "a fabric with prefix '$prefix' exists; run: $0 down --prefix $prefix"
  mkdir -p "$(state_dir)"
  : >"$(state_dir)/namespaces"
  first_namespace_or_skip "$prefix-mgmt"
  trap 'echo "emulated-fabric: up failed, removing what it created" >&2; cmd_down --prefix "$prefix"' ERR
  add_bridge "$prefix-mgmt"
  for sw in "${switches[@]}"; do
    add_namespace "$prefix-$sw"
    make_router "$prefix-$sw" "${address_of[$sw]}"
  done
  : >"$(state_dir)/hostfile"
  for host in "${hosts[@]}"; do
    add_namespace "$prefix-$host"
    management_port "$host" "${number_of[$host]}" "$management_prefix_length"
    echo "$host slots=1" >>"$(state_dir)/hostfile"
  done
  # The cables, each recorded as "SWITCH PORT PEER PEER_DEVICE" for throttle-cable.
  : >"$(state_dir)/cables"
  local peer_dev
  for line in "${cables[@]}"; do
    read -r sw port peer peer_port gbps <<<"$line"
    peer_dev=p$peer_port
    [[ -z ${is_host[$peer]:-} ]] || peer_dev=eth0
    cable "$prefix-$sw" "p$port" "$prefix-$peer" "$peer_dev" "${rate_of[$line]}"
    router_port "$prefix-$sw" "p$port"
    [[ -n ${is_host[$peer]:-} ]] || router_port "$prefix-$peer" "$peer_dev"
    ip -n "$prefix-$peer" link set "$peer_dev" up
    echo "$sw $port $peer $peer_dev" >>"$(state_dir)/cables"
    # A host's whole subnet is on its one port: it asks its switch for every peer (proxy ARP).
    [[ -z ${is_host[$peer]:-} ]] || ip -n "$prefix-$peer" addr add "${address_of[$peer]}/$prefix_length" dev eth0
  done
  for sw in "${switches[@]}"; do
    for host in "${hosts[@]}"; do
      ip -n "$prefix-$sw" route add "${address_of[$host]}/32" dev "p${route_port[$sw:$host]}"
    done
  done
  echo "$subnet" >"$(state_dir)/subnet"
  echo "$management_subnet" >"$(state_dir)/management_subnet"
  trap - ERR
  echo "emulated-fabric: routed fabric of $ibnetdiscover_file and $lfts_file: ${#switches[@]} switches," \
    "${#hosts[@]} hosts, ${#cables[@]} cables, host cables ${host_mbit} Mbit/s${cable_throttles[*]:+," \
    "throttled ${cable_throttles[*]}}, prefix $prefix, subnet $subnet, management subnet $management_subnet"
}

cmd_up() {
  parse_options "$@"
  if [[ -n $ibnetdiscover_file || -n $lfts_file ]]; then
    cmd_up_routed
    return
  fi
  ((${#cable_throttles[@]} == 0)) || die "--throttle-cable is for a routed fabric (--ibnetdiscover, --lfts)"
  if ! is_count "$leaves" || ! is_count "$hosts_per_leaf" || ! is_count "$host_mbit"; then
    die "--leaves, --hosts-per-leaf and --host-mbit must be positive integers"
  fi
  [[ -n $uplink_mbit ]] || uplink_mbit=$((hosts_per_leaf * host_mbit))
  is_count "$uplink_mbit" || die "--uplink-mbit must be a positive integer"
  [[ $management_subnet =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/([0-9]{1,2})$ ]] ||
    die "--management-subnet must be a CIDR like 10.78.0.0/24"
  local management_prefix_length=${BASH_REMATCH[2]}
  [[ $subnet =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/([0-9]{1,2})$ ]] || die "--subnet must be a CIDR like 10.77.0.0/24"
  local prefix_length=${BASH_REMATCH[2]}
  local host_count=$((leaves * hosts_per_leaf))
  ((prefix_length <= 30 && host_count < (1 << (32 - prefix_length)) - 1)) ||
    die "$host_count hosts do not fit in $subnet"
  ((management_prefix_length <= 30 && host_count < (1 << (32 - management_prefix_length)) - 1)) ||
    die "$host_count hosts do not fit in $management_subnet"
  [[ ${subnet%/*} != "${management_subnet%/*}" ]] || die "--subnet and --management-subnet must differ"

  # The throttles, checked before anything is created: HOST:MBIT with HOST in this fabric.
  declare -A host_rate=()
  local spec name rate n
  for spec in "${throttles[@]}"; do
    [[ $spec =~ ^(h[0-9]{5}):([1-9][0-9]*)$ ]] || die "--throttle wants HOST:MBIT like h00003:10, got '$spec'"
    name=${BASH_REMATCH[1]} rate=${BASH_REMATCH[2]}
    n=$((10#${name#h}))
    ((n >= 1 && n <= host_count)) || die "--throttle names $name, but the hosts are h00001..$(host_name "$host_count")"
    host_rate[$name]=$rate
  done

  [[ ! -e "$(state_dir)" && -z "$(fabric_namespaces)" ]] ||
    die "a fabric with prefix '$prefix' exists; run: $0 down --prefix $prefix"
  mkdir -p "$(state_dir)"
  : >"$(state_dir)/namespaces"

  local spine_ns="$prefix-spine0001"
  first_namespace_or_skip "$spine_ns"
  # A failure from here on leaves a half-built fabric; take it down rather than leave it behind.
  trap 'echo "emulated-fabric: up failed, removing what it created" >&2; cmd_down --prefix "$prefix"' ERR
  add_bridge "$spine_ns"
  local management_ns="$prefix-mgmt"
  add_namespace "$management_ns"
  add_bridge "$management_ns"

  local leaf leaf_ns host host_ns
  : >"$(state_dir)/hostfile"
  for ((leaf = 1; leaf <= leaves; ++leaf)); do
    leaf_ns="$prefix-$(leaf_name "$leaf")"
    add_namespace "$leaf_ns"
    add_bridge "$leaf_ns"
    cable "$leaf_ns" uplink "$spine_ns" "$(leaf_name "$leaf")" "$uplink_mbit"
    attach_to_bridge "$leaf_ns" uplink
    attach_to_bridge "$spine_ns" "$(leaf_name "$leaf")"
    for ((n = (leaf - 1) * hosts_per_leaf + 1; n <= leaf * hosts_per_leaf; ++n)); do
      host=$(host_name "$n")
      host_ns="$prefix-$host"
      add_namespace "$host_ns"
      management_port "$host" "$n" "$management_prefix_length"
      cable "$host_ns" eth0 "$leaf_ns" "$host" "${host_rate[$host]:-$host_mbit}"
      ip -n "$host_ns" addr add "$(address_in_subnet "$n")/$prefix_length" dev eth0
      ip -n "$host_ns" link set eth0 up
      attach_to_bridge "$leaf_ns" "$host"
      echo "$host slots=1" >>"$(state_dir)/hostfile"
    done
  done
  echo "$subnet" >"$(state_dir)/subnet"
  echo "$management_subnet" >"$(state_dir)/management_subnet"
  trap - ERR
  echo "emulated-fabric: $leaves leaves x $hosts_per_leaf hosts, hosts ${host_mbit} Mbit/s," \
    "uplinks ${uplink_mbit} Mbit/s${throttles[*]:+, throttled ${throttles[*]}}, prefix $prefix, subnet $subnet," \
    "management subnet $management_subnet"
}

# The fabric's namespaces: those `up` recorded, plus any that match the naming scheme exactly
# (a fabric whose state directory was removed by hand, e.g. by a reboot-less /run cleanup).
fabric_namespaces() {
  {
    [[ ! -f "$(state_dir)/namespaces" ]] || cat "$(state_dir)/namespaces"
    ip netns list | awk '{print $1}' | grep -E "^$prefix-(h[0-9]{3,}|leaf[0-9]{2,}|spine[0-9]{2,}|mgmt)\$" || true
  } | sort -u
}

cmd_down() {
  parse_options "$@"
  local ns pid
  # What still runs on the fabric goes first: a deleted namespace does not end its processes, and
  # the ranks of a killed run (mpirun runs in h00001) would hang on the vanished links for ever.
  # Deleting a namespace then deletes the veth ends in it, and with them their peers and qdiscs.
  for ns in $(fabric_namespaces); do
    [[ -e "/run/netns/$ns" ]] || continue
    for pid in $(ip netns pids "$ns"); do
      kill -KILL "$pid" 2>/dev/null || true # it may have ended since the listing
    done
    ip netns delete "$ns"
  done
  rm -rf "$(state_dir)"
}

cmd_status() {
  parse_options "$@"
  local namespaces
  namespaces=$(fabric_namespaces)
  if [[ -z $namespaces ]]; then
    echo "no fabric with prefix '$prefix'"
    return
  fi
  [[ -f "$(state_dir)/subnet" ]] || echo "incomplete fabric (up did not finish): run down --prefix $prefix"
  local ns dev
  for ns in $namespaces; do
    [[ -e "/run/netns/$ns" ]] || continue
    echo "$ns"
    # One line per shaped port: device, state, address, rate.
    for dev in $(ip -n "$ns" -o link show type veth | awk -F': ' '{sub(/@.*/, "", $2); print $2}'); do
      printf '  %-10s %-5s %-18s %s\n' "$dev" \
        "$(ip -n "$ns" -o link show dev "$dev" | grep -o 'state [A-Z]*' | cut -d' ' -f2)" \
        "$(ip -n "$ns" -o -4 addr show dev "$dev" | awk '{print $4}')" \
        "$(tc -n "$ns" qdisc show dev "$dev" | grep -o 'rate [^ ]*' || echo unshaped)"
    done
  done
}

# The mpirun command line for the fabric, one word per array element. mpirun runs inside the first
# host with hostname h00001, so Open MPI sees itself on that host and starts the daemons of the
# others through the launch agent. The MCA flags (docs/emulated-fabric.md says why each):
#   rtc ^hwloc          every "host" shares one machine's cores: binding would collide and crash
#   routed direct       daemons talk to mpirun directly; the default tree routing cannot route here
#   btl tcp,self        shared memory would bypass the emulated links between hosts
#   btl_tcp_if_include  MPI's traffic on the fabric's subnet, never loopback or the real network
#   oob_tcp_if_include  mpirun's control traffic on the management subnet: a fabric link that goes
#                       down must not cut mpirun off from a daemon, or it waits for it for ever
#   mpi_yield_when_idle eight busy-polling ranks on two cores would starve the ones sending
mpirun_command() {
  [[ -f "$(state_dir)/subnet" ]] || die "no fabric with prefix '$prefix' is up; run: $0 up --prefix $prefix"
  local first_host fabric_subnet management_subnet
  # shellcheck disable=SC2016 # $0 and $@ belong to the inner shell
  local set_hostname_and_exec='hostname "$0" && exec "$@"'
  first_host=$(head -n1 "$(state_dir)/hostfile" | cut -d' ' -f1)
  fabric_subnet=$(cat "$(state_dir)/subnet")
  management_subnet=$(cat "$(state_dir)/management_subnet")
  command_words=(
    ip netns exec "$prefix-$first_host" unshare --uts
    env FABRICBENCH_FABRIC_PREFIX="$prefix" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    sh -c "$set_hostname_and_exec" "$first_host"
    mpirun --hostfile "$(state_dir)/hostfile" --mca plm_rsh_agent "$script_dir/netns-launch-agent"
    --mca rtc ^hwloc --mca routed direct --mca btl "tcp,self"
    --mca btl_tcp_if_include "$fabric_subnet" --mca oob_tcp_if_include "$management_subnet"
    --mca mpi_yield_when_idle 1
  )
}

# Takes HOST's cable down at its leaf port, as a pulled cable, a dead transceiver or a port shut
# on the switch does: both ends lose carrier, and what either sends is lost.
cmd_link_down() {
  local options=() host=""
  while (($#)); do
    case $1 in
      --prefix) options+=("$1" "${2:?--prefix needs a value}"); shift 2 ;;
      -*) die "unknown option '$1' (try --help)" ;;
      *) [[ -z $host ]] || die "link-down takes one host"; host=$1; shift ;;
    esac
  done
  parse_options "${options[@]}"
  [[ $host =~ ^h[0-9]{5}$ ]] || die "link-down wants a host like h00003, got '$host'"
  local ns
  for ns in $(fabric_namespaces); do
    [[ $ns == "$prefix"-leaf* && -e "/run/netns/$ns" ]] || continue
    if ip -n "$ns" link show dev "$host" >/dev/null 2>&1; then
      ip -n "$ns" link set dev "$host" down
      echo "emulated-fabric: the cable of $host is down at ${ns#"$prefix"-}"
      return
    fi
  done
  die "no host $host in the fabric with prefix '$prefix'"
}

# Changes the rate of HOST's cable, both ends, while the fabric runs: a link that falls back to a
# lower speed (or recovers) in the middle of a soak run.
cmd_throttle() {
  local options=() words=()
  while (($#)); do
    case $1 in
      --prefix) options+=("$1" "${2:?--prefix needs a value}"); shift 2 ;;
      -*) die "unknown option '$1' (try --help)" ;;
      *) words+=("$1"); shift ;;
    esac
  done
  parse_options "${options[@]}"
  ((${#words[@]} == 2)) || die "throttle takes a host and a rate: throttle h00003 10"
  local host=${words[0]} mbit=${words[1]} ns
  [[ $host =~ ^h[0-9]{5}$ ]] || die "throttle wants a host like h00003, got '$host'"
  is_count "$mbit" || die "throttle wants a rate in Mbit/s, got '$mbit'"
  for ns in $(fabric_namespaces); do
    [[ $ns == "$prefix"-leaf* && -e "/run/netns/$ns" ]] || continue
    if ip -n "$ns" link show dev "$host" >/dev/null 2>&1; then
      tc -n "$ns" qdisc change dev "$host" root tbf rate "${mbit}mbit" burst "$tbf_burst" latency "$tbf_latency"
      tc -n "$prefix-$host" qdisc change dev eth0 root tbf rate "${mbit}mbit" burst "$tbf_burst" latency "$tbf_latency"
      echo "emulated-fabric: the cable of $host runs at $mbit Mbit/s"
      return
    fi
  done
  die "no host $host in the fabric with prefix '$prefix'"
}

# Changes the rate of one cable of a routed fabric, both ends, while it runs: named by a switch end
# (SWITCH PORT), as a technician reads it off the switch.
cmd_throttle_cable() {
  local options=() words=()
  while (($#)); do
    case $1 in
      --prefix) options+=("$1" "${2:?--prefix needs a value}"); shift 2 ;;
      -*) die "unknown option '$1' (try --help)" ;;
      *) words+=("$1"); shift ;;
    esac
  done
  parse_options "${options[@]}"
  ((${#words[@]} == 3)) || die "throttle-cable takes a switch, a port and a rate: throttle-cable leaf01 4 10"
  local sw=${words[0]} port=${words[1]} mbit=${words[2]}
  is_count "$mbit" || die "throttle-cable wants a rate in Mbit/s, got '$mbit'"
  [[ -f "$(state_dir)/cables" ]] || die "no routed fabric with prefix '$prefix' is up"
  local a a_port b b_dev
  while read -r a a_port b b_dev; do
    [[ ($a == "$sw" && $a_port == "$port") || ($b == "$sw" && $b_dev == "p$port") ]] || continue
    tc -n "$prefix-$a" qdisc change dev "p$a_port" root tbf rate "${mbit}mbit" burst "$tbf_burst" latency "$tbf_latency"
    tc -n "$prefix-$b" qdisc change dev "$b_dev" root tbf rate "${mbit}mbit" burst "$tbf_burst" latency "$tbf_latency"
    echo "emulated-fabric: the cable $a port $a_port <-> $b ${b_dev#p} runs at $mbit Mbit/s"
    return
  done <"$(state_dir)/cables"
  die "no cable at $sw port $port in the fabric with prefix '$prefix'"
}

cmd_mpirun() {
  local options=()
  while (($#)) && [[ $1 == --prefix ]]; do
    options+=("$1" "${2:?--prefix needs a value}")
    shift 2
  done
  parse_options "${options[@]}"
  mpirun_command
  exec "${command_words[@]}" "$@"
}

cmd_mpirun_prefix() {
  parse_options "$@"
  mpirun_command
  printf '%q ' "${command_words[@]}"
  echo
}

(($#)) || usage
command=$1
shift
case $command in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  status) cmd_status "$@" ;;
  link-down) cmd_link_down "$@" ;;
  throttle) cmd_throttle "$@" ;;
  throttle-cable) cmd_throttle_cable "$@" ;;
  mpirun) cmd_mpirun "$@" ;;
  mpirun-prefix) cmd_mpirun_prefix "$@" ;;
  -h | --help) usage ;;
  *) die "unknown command '$command' (try --help)" ;;
esac
