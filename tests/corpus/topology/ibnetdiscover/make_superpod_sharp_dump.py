#!/usr/bin/env python3
"""Writes ibnetdiscover_ndr_superpod_32leaf_16spine_sharp_synthesised.txt (SYNTHESISED, see SOURCES.md).

No public ibnetdiscover dump of a whole NDR SuperPOD exists; this one is assembled from the line
formats of real dumps (block layout, key lines, port lines of switches and CAs, and the SHARP
aggregation node's CA block and switch port) on the published DGX H100 SuperPOD compute fabric:
4 scalable units of 32 nodes, one Quantum-2 leaf per rail per unit (32 hosts down, 32 up),
16 spines with 2 ports to every leaf, every switch with its aggregation node on port 65.
Rerun it to regenerate the file byte for byte: nothing in it is random.
"""
import sys

SCALABLE_UNITS = 4
NODES_PER_SU = 32
RAILS = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]  # DGX H100 compute ports
SPINES = 16
UPLINKS_PER_SPINE = 2
SWITCH_PORTS = 64
RATE = "4xNDR"

lids = iter(range(1, 1 << 16))


def guid(prefix, n):
    return f"{prefix}0300{n:06x}"


class Switch:
    def __init__(self, n, name):
        self.guid = guid("fc6a1c", n)
        self.an_guid = guid("fc6a1c", 0x800000 + n)
        self.name = f"MF0;{name}:MQM9700/U1"
        self.lid = next(lids)
        self.an_lid = next(lids)
        self.ports = {}  # port -> (peer id, peer port, peer port guid or None, peer description, peer lid)


class Ca:
    def __init__(self, n, description):
        self.guid = guid("946dae", n)
        self.description = description
        self.lid = next(lids)
        self.peer = None  # (switch, port)


leaves = [[Switch(su * 16 + r + 1, f"su{su + 1}-leaf{r + 1:02d}") for r in range(len(RAILS))] for su in range(SCALABLE_UNITS)]
spines = [Switch(0x100 + s, f"spine{s + 1:02d}") for s in range(SPINES)]
cas = []
for su in range(SCALABLE_UNITS):
    for node in range(NODES_PER_SU):
        host = f"dgx{su * NODES_PER_SU + node + 1:03d}"
        for rail, nic in enumerate(RAILS):
            ca = Ca(len(cas) + 1, f"{host} {nic}")
            leaf = leaves[su][rail]
            port = node + 1
            leaf.ports[port] = (f"H-{ca.guid}", 1, ca.guid, ca.description, ca.lid)
            ca.peer = (leaf, port)
            cas.append(ca)
all_leaves = [leaf for su in leaves for leaf in su]
for li, leaf in enumerate(all_leaves):
    for s, spine in enumerate(spines):
        for k in range(UPLINKS_PER_SPINE):
            leaf_port = NODES_PER_SU + 1 + s * UPLINKS_PER_SPINE + k
            spine_port = li * UPLINKS_PER_SPINE + k + 1
            leaf.ports[leaf_port] = (f"S-{spine.guid}", spine_port, None, spine.name, spine.lid)
            spine.ports[spine_port] = (f"S-{leaf.guid}", leaf_port, None, leaf.name, leaf.lid)

out = []
out.append("#")
out.append("# Topology file: generated on Thu Nov 26 18:00:00 2026")
out.append("#")
out.append(f"# Initiated from node {cas[0].guid} port {cas[0].guid}")
out.append("")
for sw in spines + all_leaves:
    out += ["vendid=0x2c9", "devid=0xd2f2", f"sysimgguid=0x{sw.guid.lstrip('0')}", f"switchguid=0x{sw.guid.lstrip('0')}({sw.guid})"]
    out.append(f'Switch\t{SWITCH_PORTS + 1} "S-{sw.guid}"\t\t# "{sw.name}" enhanced port 0 lid {sw.lid} lmc 0')
    for port in sorted(sw.ports):
        peer, peer_port, peer_guid, desc, lid = sw.ports[port]
        guid_text = f"({peer_guid}) " if peer_guid else ""
        out.append(f'[{port}]\t"{peer}"[{peer_port}]{guid_text}\t\t# "{desc}" lid {lid} {RATE}')
    out.append(f'[{SWITCH_PORTS + 1}]\t"H-{sw.an_guid}"[1]({sw.an_guid}) \t\t# "Mellanox Technologies Aggregation Node" lid {sw.an_lid} {RATE}')
    out.append("")
for ca in cas:
    leaf, port = ca.peer
    out += ["vendid=0x2c9", "devid=0x1021", f"sysimgguid=0x{ca.guid.lstrip('0')}", f"caguid=0x{ca.guid.lstrip('0')}"]
    out.append(f'Ca\t1 "H-{ca.guid}"\t\t# "{ca.description}"')
    out.append(f'[1]({ca.guid}) \t"S-{leaf.guid}"[{port}]\t\t# lid {ca.lid} lmc 0 "{leaf.name}" lid {leaf.lid} {RATE}')
    out.append("")
for sw in spines + all_leaves:
    # The aggregation node's system image is its own (as in the real HDR sample), so only its
    # description says what it is.
    out += ["vendid=0x2c9", "devid=0xcf09", f"sysimgguid=0x{sw.an_guid.lstrip('0')}", f"caguid=0x{sw.an_guid.lstrip('0')}"]
    out.append(f'Ca\t1 "H-{sw.an_guid}"\t\t# "Mellanox Technologies Aggregation Node"')
    out.append(f'[1]({sw.an_guid}) \t"S-{sw.guid}"[{SWITCH_PORTS + 1}]\t\t# lid {sw.an_lid} lmc 0 "{sw.name}" lid {sw.lid} {RATE}')
    out.append("")
sys.stdout.write("\n".join(out))
