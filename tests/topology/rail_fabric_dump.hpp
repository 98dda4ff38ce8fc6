#pragma once
// A SYNTHESISED ibnetdiscover dump of a rail-optimized NDR fabric, written in the layout of the real
// dumps under /work/shared/fixtures/real/ibnetdiscover (switchguid/caguid headers, tab-separated
// port lines naming the peer's GUID, description and width/speed; one Ca block per adapter,
// described "HOST DEVICE"). No public dump of a rail-optimized fabric was available.
//
// Two scalable units of 4 DGX-like hosts (dgx01-04, dgx05-08), 8 NICs each (mlx5_0..mlx5_7).
// Leaf su<u>-rail<r> takes NIC r of every host of unit u (4 down ports) and has one cable to each
// of 2 spines: 2:1. As in real fabrics, adapter GUIDs follow no NIC order: each host's GUIDs are a
// different permutation of its NICs, so only the device names say which NIC is which rail.

#include <fmt/format.h>

#include <string>

namespace fb::topo::test {

struct RailFabricShape {
  int units = 2;
  int hosts_per_unit = 4;
  int rails = 8;
  int spines = 2;
};

inline std::string rail_optimized_ibnetdiscover(const RailFabricShape& shape = {}) {
  const auto leaf_guid = [](int unit, int rail) {
    return 0x98039b0300a10000ULL + static_cast<unsigned>(unit * 256 + rail);
  };
  const auto spine_guid = [](int spine) { return 0x98039b0300c00000ULL + static_cast<unsigned>(spine); };
  const auto ca_guid = [&](int host, int rail) {
    return 0xb8cef60300d00000ULL + static_cast<unsigned>(host * 16 + (rail * 3 + host) % shape.rails);
  };
  const auto leaf_name = [](int unit, int rail) { return fmt::format("su{}-rail{}", unit + 1, rail); };
  const auto host_name = [](int host) { return fmt::format("dgx{:02}", host + 1); };
  const int hosts = shape.units * shape.hosts_per_unit;
  std::string text =
      "#\n# Topology file: generated on Mon Nov 23 17:00:00 2026 (synthesised for fabricbench's tests)\n#\n";
  text += fmt::format("# Initiated from node {:016x} port {:016x}\n\n", ca_guid(0, 0), ca_guid(0, 0));
  int lid = 1;
  for (int unit = 0; unit < shape.units; ++unit) {
    for (int rail = 0; rail < shape.rails; ++rail) {
      const unsigned long long guid = leaf_guid(unit, rail);
      text += fmt::format("vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x{0:016x}\nswitchguid=0x{0:016x}({0:x})\n", guid);
      text += fmt::format("Switch\t64 \"S-{:016x}\"\t\t# \"MF0;{}:MQM9700/U1\" enhanced port 0 lid {} lmc 0\n", guid,
                          leaf_name(unit, rail), lid++);
      for (int port = 1; port <= shape.hosts_per_unit; ++port) {
        const int host = unit * shape.hosts_per_unit + port - 1;
        text += fmt::format("[{0}]\t\"H-{1:016x}\"[1]({1:x}) \t\t# \"{2} mlx5_{3}\" lid {4} 4xNDR\n", port,
                            ca_guid(host, rail), host_name(host), rail, 100 + host * shape.rails + rail);
      }
      for (int spine = 0; spine < shape.spines; ++spine) {
        text += fmt::format("[{}]\t\"S-{:016x}\"[{}]\t\t# \"MF0;spine{}:MQM9700/U1\" lid {} 4xNDR\n", 33 + spine,
                            spine_guid(spine), 1 + unit * shape.rails + rail, spine + 1, 60 + spine);
      }
      text += "\n";
    }
  }
  for (int spine = 0; spine < shape.spines; ++spine) {
    const unsigned long long guid = spine_guid(spine);
    text += fmt::format("vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x{0:016x}\nswitchguid=0x{0:016x}({0:x})\n", guid);
    text += fmt::format("Switch\t64 \"S-{:016x}\"\t\t# \"MF0;spine{}:MQM9700/U1\" enhanced port 0 lid {} lmc 0\n", guid,
                        spine + 1, 60 + spine);
    for (int unit = 0; unit < shape.units; ++unit) {
      for (int rail = 0; rail < shape.rails; ++rail) {
        text += fmt::format("[{}]\t\"S-{:016x}\"[{}]\t\t# \"MF0;{}:MQM9700/U1\" lid {} 4xNDR\n",
                            1 + unit * shape.rails + rail, leaf_guid(unit, rail), 33 + spine, leaf_name(unit, rail),
                            1 + unit * shape.rails + rail);
      }
    }
    text += "\n";
  }
  for (int host = 0; host < hosts; ++host) {
    const int unit = host / shape.hosts_per_unit;
    for (int rail = 0; rail < shape.rails; ++rail) {
      const unsigned long long guid = ca_guid(host, rail);
      text += fmt::format("vendid=0x2c9\ndevid=0x1021\nsysimgguid=0x{0:016x}\ncaguid=0x{0:016x}\n", guid);
      text += fmt::format("Ca\t1 \"H-{:016x}\"\t\t# \"{} mlx5_{}\"\n", guid, host_name(host), rail);
      text += fmt::format("[1]({:x}) \t\"S-{:016x}\"[{}]\t\t# lid {} lmc 0 \"MF0;{}:MQM9700/U1\" lid {} 4xNDR\n\n",
                          guid, leaf_guid(unit, rail), host % shape.hosts_per_unit + 1, 100 + host * shape.rails + rail,
                          leaf_name(unit, rail), 1 + unit * shape.rails + rail);
    }
  }
  return text;
}

}  // namespace fb::topo::test
