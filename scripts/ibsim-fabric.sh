#!/usr/bin/env bash
# Genuine InfiniBand fabric dumps for a fat tree of our choosing, from the real tools: Debian's
# ibsim simulates the fabric in user space (no kernel module, no /dev/infiniband), the real OpenSM
# routes it with the named routing engine, and the real infiniband-diags read it back.
#
#   scripts/ibsim-fabric.sh OUT_DIR LEAVES SPINES HOSTS_PER_LEAF CABLES ENGINE [tracert]
#
# CABLES is the number of parallel cables between each leaf and each spine. Hosts are h001,
# h002, ... with one HCA each ("hNNN mlx5_0"), leaves leaf01.., spines spine01... OUT_DIR gets:
#   fabric.net          the ibsim fabric description this script generated
#   ibnetdiscover.txt   ibnetdiscover
#   dump_fts.txt        dump_fts (every switch's linear forwarding table, as infiniband-diags reads it)
#   opensm-lfts.dump    OpenSM's own dump of the tables it programmed (-D 0x43)
#   ibtracert.txt       with `tracert`: ibtracert between every ordered pair of hosts
#   versions.txt        the package versions that produced the files
# Needs: ibsim-utils opensm infiniband-diags (scripts/setup.sh installs them).
set -euo pipefail

if [[ $# -lt 6 ]]; then
  echo "usage: $0 OUT_DIR LEAVES SPINES HOSTS_PER_LEAF CABLES ENGINE [tracert]" >&2
  exit 2
fi
out=$1 leaves=$2 spines=$3 per_leaf=$4 cables=$5 engine=$6 tracert=${7:-}
preload=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for tool in ibsim opensm ibnetdiscover dump_fts ibtracert; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is missing (apt-get install ibsim-utils opensm infiniband-diags)" >&2; exit 3; }
done
[[ -f $preload ]] || { echo "$0: $preload is missing (apt-get install libumad2sim0)" >&2; exit 3; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
sim_pid=""
cleanup() {
  if [[ -n $sim_pid ]]; then kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

host_name() { printf 'h%03d mlx5_0' "$1"; }
leaf_ports=$((per_leaf + spines * cables))
hosts=$((leaves * per_leaf))
{
  echo "# $leaves leaves x $per_leaf hosts, $spines spines, $cables cables per leaf-spine pair"
  for ((l = 0; l < leaves; ++l)); do
    printf 'Switch\t%d "leaf%02d"\n' "$leaf_ports" $((l + 1))
    for ((h = 0; h < per_leaf; ++h)); do printf '[%d]\t"%s"[1]\n' $((h + 1)) "$(host_name $((l * per_leaf + h + 1)))"; done
    for ((s = 0; s < spines; ++s)); do
      for ((c = 0; c < cables; ++c)); do
        printf '[%d]\t"spine%02d"[%d]\n' $((per_leaf + s * cables + c + 1)) $((s + 1)) $((l * cables + c + 1))
      done
    done
    echo
  done
  for ((s = 0; s < spines; ++s)); do
    printf 'Switch\t%d "spine%02d"\n' $((leaves * cables)) $((s + 1))
    for ((l = 0; l < leaves; ++l)); do
      for ((c = 0; c < cables; ++c)); do
        printf '[%d]\t"leaf%02d"[%d]\n' $((l * cables + c + 1)) $((l + 1)) $((per_leaf + s * cables + c + 1))
      done
    done
    echo
  done
  for ((h = 1; h <= hosts; ++h)); do
    l=$(((h - 1) / per_leaf))
    printf 'Hca\t1\t"%s"\n[1]\t"leaf%02d"[%d]\n\n' "$(host_name "$h")" $((l + 1)) $(((h - 1) % per_leaf + 1))
  done
} > "$out/fabric.net"

# ibsim's limits are compiled-in defaults unless raised: nodes, switches and ports of this fabric.
ibsim -s -n -N $((hosts + leaves + spines + 16)) -S $((leaves + spines + 16)) \
  -P $(((hosts + leaves * leaf_ports + spines * leaves * cables) * 2 + 64)) "$out/fabric.net" > "$work/ibsim.log" 2>&1 &
sim_pid=$!
export LD_PRELOAD=$preload SIM_HOST="$(host_name 1)" OSM_TMP_DIR=$work OSM_CACHE_DIR=$work
# Discovery works before routing (directed routes): ftree needs the root switches' GUIDs first.
for _ in $(seq 1 50); do
  ibnetdiscover > "$work/unrouted.txt" 2> "$work/ibnetdiscover.err" && break
  sleep 0.2
done
[[ -s $work/unrouted.txt ]] || { cat "$work/ibsim.log" "$work/ibnetdiscover.err" >&2; exit 1; }

engine_flags=(-R "$engine")
if [[ $engine == ftree ]]; then
  grep -E '^Switch.*# "spine' "$work/unrouted.txt" | sed -E 's/.*"S-([0-9a-f]+)".*/0x\1/' > "$work/roots.txt"
  engine_flags+=(-a "$work/roots.txt")
fi
opensm -o "${engine_flags[@]}" -D 0x43 -f "$work/osm.log" --dump_files_dir "$work" > "$work/opensm.out" 2>&1 ||
  { cat "$work/opensm.out" >&2; exit 1; }
# OpenSM falls back to another engine when the named one fails: keep the line that says which routed.
used=$(grep -oE '[a-z0-9_]+ tables configured on all switches' "$work/osm.log" | tail -1 || true)
[[ $used == "$engine tables configured on all switches" ]] ||
  { echo "$0: OpenSM did not route with $engine: ${used:-no tables configured}" >&2; exit 1; }
# Read back after routing, so every port shows the LID OpenSM assigned.
ibnetdiscover > "$out/ibnetdiscover.txt"
cp "$work/opensm-lfts.dump" "$out/opensm-lfts.dump"
dump_fts > "$out/dump_fts.txt"
if [[ -n $tracert ]]; then
  : > "$out/ibtracert.txt"
  # LIDs of the hosts' ports, from ibnetdiscover's Ca blocks: '[1](guid) "S-..."[p] # lid 13 lmc 0 ...'.
  mapfile -t lids < <(awk '/^Ca/ {ca=1; next} ca && /^\[/ {for (i = 1; i <= NF; ++i) if ($i == "lid") {print $(i + 1); break}; ca=0}' \
    "$out/ibnetdiscover.txt")
  for src in "${lids[@]}"; do
    for dst in "${lids[@]}"; do
      [[ $src == "$dst" ]] && continue
      ibtracert "$src" "$dst" >> "$out/ibtracert.txt"
      echo >> "$out/ibtracert.txt"
    done
  done
fi
{
  echo "OpenSM: $used"
  dpkg-query -W -f '${Package} ${Version}\n' ibsim-utils libumad2sim0 opensm infiniband-diags
} > "$out/versions.txt"
