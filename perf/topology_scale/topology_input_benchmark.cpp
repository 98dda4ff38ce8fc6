// Parse time and memory of the topology readers against input size: generated ibnetdiscover
// dumps (a two-tier NDR fat tree), NCCL topology dumps (bridges with a GPU and a NIC each) and
// Slurm topology.conf files (leaves with explicit node lists), from 1 MB to 100 MB. A reader is
// linear when parse_s and peak_rss_MiB grow 10x per 10x of input. Numbers:
// docs/performance-topology.md.

#include "topology/format_registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <string>

namespace {

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

constexpr int hosts_per_leaf = 32;
constexpr int spines = 8;

std::string ibnetdiscover_dump(std::size_t target_bytes) {
  std::string text;
  text.reserve(target_bytes + 65536);
  std::string cas;
  int leaves = 0;
  while (text.size() + cas.size() < target_bytes) {
    const int leaf = leaves++;
    text += fmt::format("switchguid=0x{0:016x}({0:x})\nSwitch\t40 \"S-{0:016x}\"\t\t# \"MF0;leaf{1}:MQM9700/U1\" "
                        "enhanced port 0 lid {1} lmc 0\n",
                        0x10000000 + leaf, leaf);
    for (int port = 1; port <= hosts_per_leaf; ++port) {
      const int host = leaf * hosts_per_leaf + port;
      text += fmt::format("[{0}]\t\"H-{1:016x}\"[1]({1:x})\t\t# \"node{2:07d} mlx5_0\" lid {2} 4xNDR\n", port,
                          0x20000000 + host, host);
      cas += fmt::format(
          "caguid=0x{0:016x}\nCa\t1 \"H-{0:016x}\"\t\t# \"node{1:07d} mlx5_0\"\n[1]({0:x})\t\"S-{2:016x}\"[{3}]\t\t# "
          "lid {1} lmc 0 \"MF0;leaf{4}:MQM9700/U1\" lid {4} 4xNDR\n\n",
          0x20000000 + host, host, 0x10000000 + leaf, port, leaf);
    }
    for (int spine = 0; spine < spines; ++spine) {
      text += fmt::format("[{}]\t\"S-{:016x}\"[{}]\t\t# \"MF0;spine{}:MQM9700/U1\" lid 9 4xNDR\n",
                          hosts_per_leaf + 1 + spine, 0x30000000 + spine, leaf + 1, spine);
    }
    text += "\n";
  }
  for (int spine = 0; spine < spines; ++spine) {
    text += fmt::format("switchguid=0x{0:016x}({0:x})\nSwitch\t64 \"S-{0:016x}\"\t\t# \"MF0;spine{1}:MQM9700/U1\" "
                        "enhanced port 0 lid 9 lmc 0\n",
                        0x30000000 + spine, spine);
    for (int leaf = 0; leaf < leaves; ++leaf) {
      text += fmt::format("[{}]\t\"S-{:016x}\"[{}]\t\t# \"MF0;leaf{}:MQM9700/U1\" lid {} 4xNDR\n", leaf + 1,
                          0x10000000 + leaf, hosts_per_leaf + 1 + spine, leaf, leaf);
    }
    text += "\n";
  }
  return text + cas;
}

std::string nccl_topology_dump(std::size_t target_bytes) {
  std::string text = "<system version=\"1\">\n";
  text.reserve(target_bytes + 4096);
  int bridges = 0;
  for (int cpu = 0; cpu < 2; ++cpu) {
    text +=
        fmt::format("  <cpu numaid=\"{}\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"143\">\n",
                    cpu);
    while (text.size() < target_bytes * static_cast<std::size_t>(cpu + 1) / 2) {
      const int b = bridges++;
      text +=
          fmt::format("    <pci busid=\"{0:04x}:{1:02x}:00.0\" class=\"0x060400\" link_speed=\"32.0 GT/s PCIe\" "
                      "link_width=\"16\">\n"
                      "      <pci busid=\"{0:04x}:{1:02x}:01.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" "
                      "link_width=\"16\">\n"
                      "        <gpu dev=\"{2}\" sm=\"90\" rank=\"{2}\" gdr=\"1\"><nvlink target=\"ffff:ff:00.0\" "
                      "count=\"18\" tclass=\"0x068000\"/></gpu>\n"
                      "      </pci>\n"
                      "      <pci busid=\"{0:04x}:{1:02x}:02.0\" class=\"0x020700\" link_speed=\"32.0 GT/s PCIe\" "
                      "link_width=\"16\">\n"
                      "        <nic><net name=\"mlx5_{2}\" dev=\"{2}\" speed=\"400000\" port=\"1\" gdr=\"1\"/></nic>\n"
                      "      </pci>\n"
                      "    </pci>\n",
                      b / 256, b % 256, b);
    }
    text += "  </cpu>\n";
  }
  return text + "</system>\n";
}

std::string slurm_topology_conf(std::size_t target_bytes) {
  std::string text;
  text.reserve(target_bytes + 4096);
  int leaves = 0;
  while (text.size() < target_bytes) {
    const int leaf = leaves++;
    text += fmt::format("SwitchName=leaf{:07d} Nodes=", leaf);
    for (int port = 0; port < hosts_per_leaf; ++port) {
      text += fmt::format("{}node{:08d}", port == 0 ? "" : ",", leaf * hosts_per_leaf + port);
    }
    text += "\n";
  }
  text += fmt::format("SwitchName=spine Switches=leaf[0000000-{:07d}]\n", leaves - 1);
  return text;
}

void parse_benchmark(benchmark::State& state, std::string (*generate)(std::size_t), const char* format) {
  const std::size_t target_bytes = static_cast<std::size_t>(state.range(0)) * 1'000'000;
  const fb::topo::SourceText source{"scale.input", generate(target_bytes)};
  const double rss_before_parse_mib = peak_rss_mib();
  std::size_t vertices = 0;
  for (auto _ : state) {
    const fb::topo::Graph graph = fb::topo::parse_topology(source, format);
    vertices = graph.vertex_count();
    benchmark::DoNotOptimize(vertices);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * source.text.size()));
  state.counters["input_MB"] = static_cast<double>(source.text.size()) / 1e6;
  state.counters["vertices"] = static_cast<double>(vertices);
  // The parse's own peak: the resident set beyond the generated input and the process itself.
  state.counters["parse_peak_MiB"] = peak_rss_mib() - rss_before_parse_mib;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void BM_ParseIbnetdiscover(benchmark::State& state) { parse_benchmark(state, ibnetdiscover_dump, "ibnetdiscover"); }
void BM_ParseNcclXml(benchmark::State& state) { parse_benchmark(state, nccl_topology_dump, "nccl-xml"); }
void BM_ParseSlurm(benchmark::State& state) { parse_benchmark(state, slurm_topology_conf, "slurm"); }

// One process per size keeps the memory counters meaningful: --benchmark_filter='Ibnet.*/100$'.
BENCHMARK(BM_ParseIbnetdiscover)
    ->Arg(1)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_ParseNcclXml)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_ParseSlurm)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
BENCHMARK_MAIN();
