# The plan of a routed emulated fabric (scripts/emulated-fabric.sh up --ibnetdiscover ... --lfts ...),
# read from a fabric's own dumps: ibnetdiscover output (first file) for the switches, hosts and
# cables with their ports and rates, and its linear forwarding tables (second file: dump_fts,
# ibroute or OpenSM's opensm-lfts.dump) for the port each switch sends each host's traffic out of.
# Prints one item per line:
#   switch NAME
#   host NAME
#   cable SWITCH PORT PEER PEER_PORT GBPS     (every cable once; a host's port is its NIC's)
#   route SWITCH HOST PORT
#   error MESSAGE                             (then exits 1)
# Names are the topology reader's: a host is the first word of its adapter's description
# ("h001 mlx5_0"), a switch its description, or the NAME of "MF0;NAME:MQM9700/U1".
function node_name(description,    name) {
  name = description
  sub(/^"/, "", name); sub(/".*$/, "", name)
  if (name ~ /;[^:]*:/) { sub(/^[^;]*;/, "", name); sub(/:.*$/, "", name) }  # "MF0;spine01:MQM9700/U1"
  sub(/ .*$/, "", name)                                                     # "h001 mlx5_0": the host
  gsub(/[^A-Za-z0-9_.-]/, "_", name)
  return name
}
function lane_gbps(speed) {
  if (speed == "SDR") return 2.5
  if (speed == "DDR") return 5
  if (speed == "QDR" || speed == "FDR10") return 10
  if (speed == "FDR") return 14.0625
  if (speed == "EDR") return 25
  if (speed == "HDR") return 50
  if (speed == "NDR") return 100
  if (speed == "XDR") return 200
  return 0
}
FNR == 1 { file++ }
file == 1 && /^(Switch|Ca)[ \t]/ {
  kind = $1
  description = substr($0, index($0, "#") + 1)
  sub(/^[ \t]*/, "", description)
  current = node_name(description)
  print (kind == "Switch" ? "switch " : "host ") current
  next
}
file == 1 && kind == "Switch" && /^\[[0-9]+\]/ {
  port = $0; sub(/^\[/, "", port); sub(/\].*$/, "", port)
  peer_port = $0; sub(/^[^"]*"[^"]*"\[/, "", peer_port); sub(/\].*$/, "", peer_port)
  peer_is_switch = $0 ~ /^\[[0-9]+\][ \t]*"S-/
  comment = substr($0, index($0, "#") + 1)
  sub(/^[ \t]*/, "", comment)
  peer = node_name(comment)
  rate = $NF
  width = rate; sub(/x.*$/, "", width)
  speed = rate; sub(/^[0-9]+x/, "", speed)
  gbps = width * lane_gbps(speed)
  if (gbps <= 0) { print "error the port line has no link rate like 4xNDR: " $0; exit 1 }
  # A cable between two switches is listed at both ends: keep it once.
  if (!peer_is_switch || current < peer) print "cable " current " " port " " peer " " peer_port " " gbps
  next
}
file == 2 && /^Unicast lids/ {
  table = $0; sub(/\):?[ \t]*$/, "", table); sub(/^.*\(/, "", table); gsub(/'/, "", table)
  table = node_name("\"" table "\"")
  next
}
file == 2 && /Channel Adapter/ && table != "" {
  host = $0; sub(/^[^']*'/, "", host)
  print "route " table " " node_name("\"" host) " " ($2 + 0)
}
