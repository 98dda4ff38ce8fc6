#include "reports/console/run_parameters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <utility>

namespace fb {
namespace {

// The value of one flag over the ops that take it: the value when they share it, else each value
// followed by its ops, "8(all_reduce) 32(all_gather,reduce_scatter)". Empty when no op takes it.
std::optional<std::string> across_ops(std::span<const OpParameters> ops,
                                      const std::function<std::optional<std::string>(const OpParameters&)>& value_of) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // value, its ops; first seen first
  for (const OpParameters& op : ops) {
    const std::optional<std::string> value = value_of(op);
    if (!value) continue;
    const auto group =
        std::find_if(groups.begin(), groups.end(), [&](const auto& candidate) { return candidate.first == *value; });
    if (group == groups.end())
      groups.push_back({*value, {op.op}});
    else
      group->second.push_back(op.op);
  }
  if (groups.empty()) return std::nullopt;
  if (groups.size() == 1) return groups.front().first;
  std::vector<std::string> parts;
  parts.reserve(groups.size());
  for (const auto& [value, names] : groups) parts.push_back(fmt::format("{}({})", value, fmt::join(names, ",")));
  return fmt::format("{}", fmt::join(parts, " "));
}

// " name value" for every flag some op takes, in the order given.
using Field = std::pair<std::string_view, std::function<std::optional<std::string>(const OpParameters&)>>;
std::string fields_text(std::span<const OpParameters> ops, std::span<const Field> fields) {
  std::string text;
  for (const auto& [name, value_of] : fields)
    if (const std::optional<std::string> value = across_ops(ops, value_of)) text += fmt::format(" {} {}", name, *value);
  return text;
}

template <typename T>
std::optional<std::string> text_of(const std::optional<T>& value) {
  return value ? std::optional<std::string>(fmt::format("{}", *value)) : std::nullopt;
}

}  // namespace

std::string describe_iterations(const OpParameters& parameters) {
  if (!parameters.automatic) return fmt::format("{}", parameters.iterations);
  return fmt::format("auto({}s,{}..{})", parameters.automatic->min_time_s, parameters.iterations,
                     parameters.automatic->max_iterations);
}

void print_run_parameters(std::ostream& out, std::span<const OpParameters> ops) {
  if (ops.empty()) return;
  const Field sweep[] = {
      {"nRanks", [](const OpParameters& p) { return fmt::format("{}", p.nranks); }},
      {"minBytes", [](const OpParameters& p) { return fmt::format("{}", p.min_bytes); }},
      {"maxBytes", [](const OpParameters& p) { return fmt::format("{}", p.max_bytes); }},
      {"step:",
       [](const OpParameters& p) {
         return p.step_bytes ? fmt::format("{}(bytes)", *p.step_bytes) : fmt::format("{}(factor)", p.step_factor);
       }},
      {"warmup iters:", [](const OpParameters& p) { return fmt::format("{}", p.warmup_iterations); }},
      {"iters:", [](const OpParameters& p) { return describe_iterations(p); }},
      {"validation:", [](const OpParameters& p) { return fmt::format("{}", p.check ? 1 : 0); }},
      {"graph:", [](const OpParameters& p) { return fmt::format("{}", p.graph_launches); }},
  };
  const Field data[] = {
      {"datatype:", [](const OpParameters& p) { return p.dtype; }},
      {"redop:", [](const OpParameters& p) { return p.redop; }},
      {"root:", [](const OpParameters& p) { return text_of(p.root); }},
      {"placement:", [](const OpParameters& p) { return fmt::format("{}", fmt::join(p.placements, ",")); }},
      {"src:", [](const OpParameters& p) { return text_of(p.src_rank); }},
      {"dst:", [](const OpParameters& p) { return text_of(p.dst_rank); }},
      {"window:", [](const OpParameters& p) { return text_of(p.window); }},
  };
  std::vector<std::string> names;
  for (const OpParameters& op : ops) names.push_back(op.op);
  out << '#' << fields_text(ops, sweep) << '\n';
  out << fmt::format("# ops: {}", fmt::join(names, ",")) << fields_text(ops, data) << '\n';
}

}  // namespace fb
