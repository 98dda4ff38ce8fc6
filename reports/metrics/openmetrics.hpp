#pragma once
// Gauges in the Prometheus/OpenMetrics text format, for node_exporter's textfile collector: one
// `# HELP` and `# TYPE` per family, one sample line per label set, label values escaped, `# EOF`
// last (OpenMetrics' end marker; the Prometheus text parser reads it as a comment).

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace fb {

struct GaugeSample {
  std::vector<std::pair<std::string, std::string>> labels;  // name, value; names are [a-z_]+
  double value = 0;
};

struct GaugeFamily {
  std::string name;  // fabricbench_..., unit last (_gbps, _us, _ratio)
  std::string help;
  std::vector<GaugeSample> samples;
};

std::string render_openmetrics(const std::vector<GaugeFamily>& families);

// Writes DIR/fabricbench.prom atomically (a hidden temporary name the collector skips, then a
// rename), so a scrape never reads half a file. Returns the path written.
std::filesystem::path write_prometheus_textfile(const std::filesystem::path& dir,
                                                const std::vector<GaugeFamily>& families);

}  // namespace fb
