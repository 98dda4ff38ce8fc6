#include "reports/metrics/openmetrics.hpp"

#include "results/atomic_file.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fb {
namespace {

// Label values escape backslash, double quote and newline (the exposition format's three).
std::string escaped_label_value(const std::string& value) {
  std::string escaped;
  for (const char c : value) {
    if (c == '\\')
      escaped += "\\\\";
    else if (c == '"')
      escaped += "\\\"";
    else if (c == '\n')
      escaped += "\\n";
    else
      escaped += c;
  }
  return escaped;
}

std::string sample_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

}  // namespace

std::string render_openmetrics(const std::vector<GaugeFamily>& families) {
  std::string text;
  for (const GaugeFamily& family : families) {
    if (family.samples.empty()) continue;
    std::string help;
    for (const char c : family.help) help += c == '\n' ? ' ' : c;
    text += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", family.name, help, family.name);
    for (const GaugeSample& sample : family.samples) {
      text += family.name;
      if (!sample.labels.empty()) {
        text += '{';
        for (std::size_t i = 0; i < sample.labels.size(); ++i)
          text += fmt::format("{}{}=\"{}\"", i == 0 ? "" : ",", sample.labels[i].first,
                              escaped_label_value(sample.labels[i].second));
        text += '}';
      }
      text += fmt::format(" {}\n", sample_value(sample.value));
    }
  }
  return text + "# EOF\n";
}

std::filesystem::path write_prometheus_textfile(const std::filesystem::path& dir,
                                                const std::vector<GaugeFamily>& families) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / "fabricbench.prom";
  write_file_atomically(path, render_openmetrics(families));
  return path;
}

}  // namespace fb
