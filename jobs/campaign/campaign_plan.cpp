#include "jobs/campaign/campaign_plan.hpp"

#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/sizes.hpp"
#include "common/text_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

namespace fb::jobs {

namespace {

constexpr std::array<std::pair<StageKind, std::string_view>, 5> stage_kinds{{
    {StageKind::doctor, "doctor"},
    {StageKind::pairwise, "pairwise"},
    {StageKind::concurrent, "concurrent"},
    {StageKind::collectives, "collectives"},
    {StageKind::soak, "soak"},
}};

// One YAML mapping read key by key: every error names its line, and a key nobody asked for (a
// typo that would silently drop a stage's setting) is an error too.
class MapReader {
 public:
  MapReader(YAML::Node node, std::string origin, std::string_view what)
      : node_(std::move(node)), origin_(std::move(origin)) {
    if (!node_.IsMap()) fail(node_, fmt::format("{} must be a mapping", what));
  }

  [[noreturn]] void fail(const YAML::Node& at, std::string_view what) const {
    throw input_error_at(origin_, static_cast<std::size_t>(at.Mark().line) + 1, what);
  }

  YAML::Node node(const std::string& key) {
    used_.insert(key);
    return node_[key];
  }

  template <class T>
  std::optional<T> scalar(const std::string& key) {
    const YAML::Node value = node(key);
    if (!value) return std::nullopt;
    if (!value.IsScalar()) fail(value, fmt::format("'{}' must be a single value", key));
    try {
      return value.as<T>();
    } catch (const YAML::Exception&) {
      fail(value, fmt::format("'{}': cannot read '{}' as {}", key, value.Scalar(),
                              std::is_same_v<T, std::string> ? "text" : "a number"));
    }
  }

  std::optional<std::uint64_t> size(const std::string& key) {
    const std::optional<std::string> text = scalar<std::string>(key);
    if (!text) return std::nullopt;
    try {
      return parse_size_bytes(*text);
    } catch (const UsageError& e) { fail(node_[key], fmt::format("'{}': {}", key, e.what())); }
  }

  std::vector<std::string> strings(const std::string& key) {
    const YAML::Node list = node(key);
    std::vector<std::string> values;
    if (!list) return values;
    if (list.IsScalar()) return {list.Scalar()};
    if (!list.IsSequence()) fail(list, fmt::format("'{}' must be a list", key));
    for (const YAML::Node& item : list) {
      if (!item.IsScalar()) fail(item, fmt::format("each entry of '{}' must be a single value", key));
      values.push_back(item.Scalar());
    }
    return values;
  }

  void reject_unknown_keys() const {
    std::set<std::string> seen;
    for (const auto& entry : node_) {
      const std::string key = entry.first.as<std::string>();
      if (!used_.contains(key)) fail(entry.first, fmt::format("unknown key '{}'", key));
      if (!seen.insert(key).second) fail(entry.first, fmt::format("key '{}' appears twice", key));
    }
  }

  const YAML::Node& self() const { return node_; }

 private:
  YAML::Node node_;
  std::string origin_;
  std::set<std::string> used_;
};

// "90s", "30m", "2h" or plain seconds.
double duration_seconds(MapReader& reader, const std::string& key) {
  const std::optional<std::string> text = reader.scalar<std::string>(key);
  if (!text) return 0;
  std::size_t parsed = 0;
  double value = 0;
  try {
    value = std::stod(*text, &parsed);
  } catch (const std::exception&) { parsed = 0; }
  const std::string unit = parsed == 0 ? "" : text->substr(parsed);
  const double scale = unit == "h" ? 3600 : unit == "m" ? 60 : unit == "s" || unit.empty() ? 1 : 0;
  if (parsed == 0 || scale == 0 || !(value > 0) || !std::isfinite(value))
    reader.fail(reader.self()[key], fmt::format("'{}': {} is not a positive time such as 90s, 30m or 2h", key, *text));
  return value * scale;
}

std::vector<std::string> default_ops(StageKind kind) {
  switch (kind) {
    case StageKind::pairwise: return {"pairwise"};
    case StageKind::concurrent: return {"concurrent"};
    case StageKind::collectives:
    case StageKind::soak: return {"all_reduce"};
    case StageKind::doctor: break;
  }
  return {};
}

void read_run_options(MapReader& reader, CampaignStage& stage) {
  RunOptions& run = stage.run;
  run.op_names = reader.strings("ops");
  if (run.op_names.empty()) run.op_names = default_ops(stage.kind);
  if (const auto min_bytes = reader.scalar<std::string>("min_bytes")) run.min_bytes = *min_bytes;
  if (const auto max_bytes = reader.scalar<std::string>("max_bytes")) run.max_bytes = *max_bytes;
  for (const std::string& key : {std::string("min_bytes"), std::string("max_bytes")})
    if (const YAML::Node at = reader.self()[key]) {
      try {
        parse_size_bytes(at.Scalar());
      } catch (const UsageError& e) { reader.fail(at, fmt::format("'{}': {}", key, e.what())); }
    }
  run.step_factor = reader.scalar<std::uint64_t>("step_factor").value_or(run.step_factor);
  if (const auto iterations = reader.scalar<std::string>("iterations")) {
    if (*iterations == "auto") {
      run.auto_iterations = true;
    } else {
      run.iterations = reader.scalar<int>("iterations").value_or(run.iterations);
      run.auto_iterations = false;
    }
  }
  run.warmup_iterations = reader.scalar<int>("warmup").value_or(run.warmup_iterations);
  run.min_time_s = reader.scalar<double>("min_time_s").value_or(run.min_time_s);
  run.timeout_s = reader.scalar<double>("timeout_s").value_or(run.timeout_s);
  run.dtype = reader.scalar<std::string>("dtype").value_or(run.dtype);
  run.placement = reader.scalar<std::string>("placement")
                      .value_or(stage.kind == StageKind::collectives || stage.kind == StageKind::soak ? "out-of-place"
                                                                                                      : run.placement);
  run.pair_endpoints = reader.scalar<std::string>("pair_endpoints").value_or(run.pair_endpoints);
  run.cut = reader.scalar<std::string>("cut").value_or(run.cut);
  stage.repetitions = reader.scalar<int>("repetitions").value_or(stage.repetitions);
  if (stage.repetitions < 1) reader.fail(reader.self()["repetitions"], "'repetitions' must be at least 1");
  stage.duration_s = duration_seconds(reader, "duration");
  if (stage.duration_s > 0 && stage.kind != StageKind::soak)
    reader.fail(reader.self()["duration"], "'duration' is for soak stages");
  try {
    validate_run_options(run);
  } catch (const UsageError& e) { reader.fail(reader.self(), fmt::format("stage '{}': {}", stage.name, e.what())); }
}

CampaignStage read_stage(const YAML::Node& node, const std::string& origin) {
  MapReader reader(node, origin, "each stage");
  CampaignStage stage;
  stage.line = node.Mark().line + 1;
  const std::optional<std::string> kind = reader.scalar<std::string>("kind");
  if (!kind) reader.fail(node, "each stage needs 'kind' (doctor, pairwise, concurrent, collectives, soak)");
  const auto known =
      std::find_if(stage_kinds.begin(), stage_kinds.end(), [&](const auto& k) { return k.second == *kind; });
  if (known == stage_kinds.end())
    reader.fail(node["kind"],
                fmt::format("unknown stage kind '{}' (doctor, pairwise, concurrent, collectives, soak)", *kind));
  stage.kind = known->first;
  stage.name = reader.scalar<std::string>("name").value_or(*kind);
  // The name is a folder in the results directory: no path tricks.
  if (stage.name.empty() ||
      stage.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
          std::string::npos)
    reader.fail(node, fmt::format("stage name '{}' may hold only letters, digits, '-' and '_'", stage.name));
  if (stage.kind != StageKind::doctor) read_run_options(reader, stage);
  reader.reject_unknown_keys();
  return stage;
}

ModelChecks read_model_checks(const YAML::Node& node, const std::string& origin, const std::filesystem::path& base) {
  MapReader reader(node, origin, "'model_checks'");
  ModelChecks checks;
  checks.line = node.Mark().line + 1;
  for (const std::string& file : reader.strings("topology")) checks.topology.push_back(base / file);
  if (checks.topology.empty()) reader.fail(node, "'model_checks' needs 'topology': the files the model is built from");
  checks.fraction = reader.scalar<double>("fraction").value_or(checks.fraction);
  if (!(checks.fraction > 0 && checks.fraction <= 1)) reader.fail(node["fraction"], "'fraction' must be in (0, 1]");
  checks.min_bytes = reader.size("min_bytes").value_or(0);
  reader.reject_unknown_keys();
  return checks;
}

}  // namespace

std::string_view name_of(StageKind kind) {
  for (const auto& [k, name] : stage_kinds)
    if (k == kind) return name;
  return "unknown";
}

CampaignPlan parse_campaign_plan(const std::string& text, const std::filesystem::path& origin) {
  const std::string where = origin.string();
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) { throw input_error_at(where, static_cast<std::size_t>(e.mark.line) + 1, e.msg); }
  MapReader reader(root, where, "a campaign plan");
  CampaignPlan plan;
  plan.source = origin;
  plan.text = text;
  const std::filesystem::path base = origin.parent_path();
  plan.system = reader.scalar<std::string>("system").value_or("");
  plan.customer = reader.scalar<std::string>("customer").value_or("");
  if (plan.system.empty() || plan.customer.empty())
    reader.fail(root, "a plan names its 'system' and its 'customer': the record says whose cluster it accepts");
  plan.backend = reader.scalar<std::string>("backend").value_or(plan.backend);
  plan.results_dir = reader.scalar<std::string>("results_dir").value_or("campaign-" + plan.system);
  plan.confidence = reader.scalar<double>("confidence").value_or(plan.confidence);
  if (!(plan.confidence >= 0.5 && plan.confidence < 1))
    reader.fail(root["confidence"], "'confidence' must be in [0.5, 1), such as 0.95");
  plan.launch.gpus_per_process = reader.scalar<int>("gpus_per_process").value_or(plan.launch.gpus_per_process);
  if (const auto thresholds = reader.scalar<std::string>("thresholds")) plan.thresholds = base / *thresholds;
  if (const YAML::Node model = reader.node("model_checks")) plan.model_checks = read_model_checks(model, where, base);
  const YAML::Node stages = reader.node("stages");
  if (!stages || !stages.IsSequence() || stages.size() == 0)
    reader.fail(stages ? stages : root,
                "a plan needs 'stages': a list of doctor, pairwise, concurrent, collectives, soak");
  std::set<std::string> names;
  for (const YAML::Node& node : stages) {
    CampaignStage stage = read_stage(node, where);
    if (!names.insert(stage.name).second)
      reader.fail(node, fmt::format("two stages are named '{}': give one a 'name'", stage.name));
    plan.stages.push_back(std::move(stage));
  }
  if (!plan.thresholds && !plan.model_checks)
    reader.fail(root, "a plan needs 'thresholds' (a thresholds file) or 'model_checks': a campaign judges its results");
  reader.reject_unknown_keys();
  return plan;
}

CampaignPlan read_campaign_plan(const std::filesystem::path& path) {
  const std::optional<std::string> text = read_text_file(path);
  if (!text) throw InputError(fmt::format("{}: cannot read the campaign plan", path.string()));
  return parse_campaign_plan(*text, path);
}

}  // namespace fb::jobs
