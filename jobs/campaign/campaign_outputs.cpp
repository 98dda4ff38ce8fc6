#include "jobs/campaign/campaign_outputs.hpp"

#include "benchmarks/core/result_builder.hpp"
#include "diagnosis/baseline.hpp"
#include "diagnosis/expectation_columns.hpp"
#include "jobs/topology_input.hpp"
#include "common/build_info.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "common/text_file.hpp"
#include "doctor/inventory_json.hpp"
#include "doctor/inventory_summary.hpp"
#include "diagnosis/acceptance_judgement.hpp"
#include "reports/acceptance/check_verdicts_output.hpp"
#include "results/result_loading.hpp"
#include "reports/campaign/campaign_record.hpp"
#include "reports/html/svg_program.hpp"
#include "results/atomic_file.hpp"

#include <fmt/format.h>

#include <array>
#include <set>
#include <span>
#include <sstream>

namespace fb::jobs {

using diagnosis::ExpectationColumns;
using diagnosis::parse_thresholds;
using diagnosis::name_of;
namespace {

// A stage's rows, or none when its attempt left no results (a failed or interrupted stage).
std::vector<LoadedResults> stage_results(const std::filesystem::path& folder) {
  if (!std::filesystem::is_directory(folder)) return {};
  bool any = false;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    any = any || entry.path().extension() == ".json" || entry.path().extension() == ".csv";
  if (!any || std::filesystem::exists(folder / "doctor.json")) return {};
  return load_results({folder});
}

// The doctor stage's hosts and flags, as the record shows them.
void add_inventory(const std::filesystem::path& doctor_json, CampaignRecord& record,
                   std::vector<diagnosis::HostReason>& host_errors) {
  const std::optional<std::string> text = read_text(doctor_json);
  if (!text) return;
  const nlohmann::json json = nlohmann::json::parse(*text);
  for (const nlohmann::json& host : json.at("hosts")) {
    const auto inventory = host.get<doctor::HostInventory>();
    record.hosts.push_back({inventory.host, doctor::summarize_inventory(inventory)});
  }
  for (const nlohmann::json& flag : json.at("findings")) {
    RecordFlag f{flag.at("severity").get<std::string>(), flag.at("host").get<std::string>(),
                 flag.at("subject").get<std::string>(), flag.at("message").get<std::string>()};
    // A host is drained for its own error flags; a disagreement without a majority blames none.
    if (f.severity == "error" && !f.host.empty())
      host_errors.push_back({f.host, "doctor: " + f.subject + ": " + f.message});
    record.host_flags.push_back(std::move(f));
  }
}

std::vector<std::string> model_notes(const ModelChecks& checks, const topo::Graph& graph, const std::string& warnings) {
  std::vector<std::string> notes;
  std::string files;
  for (const auto& file : checks.topology) files += (files.empty() ? "" : ", ") + file.string();
  notes.push_back(fmt::format("model: fabricbench {} (git {}) topology model and collective model "
                              "(topology/collective_model.cpp, docs/model.md), built from {}",
                              tool_version(), git_revision(), files));
  notes.push_back(fmt::format("check: every collective row at or above {} reaches {:.0f}% of the busbw the model "
                              "predicts for its op, size and ranks",
                              format_size_bytes(checks.min_bytes), 100 * checks.fraction));
  for (const std::string& assumption : graph.assumptions()) notes.push_back("assumed: " + assumption);
  std::istringstream lines(warnings);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) notes.push_back("model: " + line);
  return notes;
}

// What the plan asked of a measuring stage that its rows do not show: the stage not run or not
// completed, or fewer repetitions than planned. A verdict cannot be PASS on less than was planned.
std::optional<std::string> missing_work_of(const CampaignStage& stage, const StageState* state,
                                           std::span<const LoadedResults> sets) {
  if (!state) return fmt::format("stage {} was not run", stage.name);
  if (state->status != StageStatus::completed)
    return fmt::format("stage {} is {}{}: its checks rest on less than was planned", stage.name, name_of(state->status),
                       state->message.empty() ? "" : " (" + state->message + ")");
  if (stage.kind == StageKind::doctor || stage.duration_s > 0) return std::nullopt;
  std::set<int> repetitions;
  for (const LoadedResults& set : sets)
    for (const ResultRow& row : set.results.rows) repetitions.insert(row.repetition.value_or(0));
  if (static_cast<int>(repetitions.size()) < stage.repetitions)
    return fmt::format("stage {} holds {} of {} planned repetitions", stage.name, repetitions.size(),
                       stage.repetitions);
  return std::nullopt;
}

// What the record rests on, as one hash: the plan's, the judged thresholds' ("" without) and every
// stage's result files' in the plan's order, one "path sha256" line each. Its first 12 hex digits
// (48 bits) name the record on every page.
std::string record_id_of(const CampaignRecord& record) {
  std::string bound =
      fmt::format("plan {}\nthresholds {}\n", record.plan.sha256, record.thresholds ? record.thresholds->sha256 : "");
  for (const RecordStage& stage : record.stages)
    for (const auto& [path, sha256] : stage.files) bound += fmt::format("{} {}\n", path, sha256);
  return sha256_hex(bound).substr(0, 12);
}

}  // namespace

CampaignOutputs::CampaignOutputs(const CampaignPlan& plan, bool pdf, std::string json_path, BaselineOptions baseline)
    : plan_(plan),
      pdf_(pdf),
      json_path_(std::move(json_path)),
      plan_sha256_(sha256_hex(plan.text)),
      baseline_(std::move(baseline)) {
  // A baseline store that is not there stops the campaign before anything is measured.
  if (!baseline_.spec.empty()) history::open_store(baseline_, false);
  if (plan.thresholds) {
    const std::optional<std::string> text = read_text(*plan.thresholds);
    if (!text)
      throw InputError(fmt::format("{}: cannot read the thresholds file the plan names", plan.thresholds->string()));
    thresholds_text_ = *text;
    thresholds_sha256_ = sha256_hex(thresholds_text_);
    thresholds_ = parse_thresholds(thresholds_text_, plan.thresholds->string());
    thresholds_->source = *plan.thresholds;
  }
  if (plan.model_checks)
    for (const auto& file : plan.model_checks->topology)
      if (!std::filesystem::exists(file))
        throw InputError(fmt::format("{}: the topology file of model_checks does not exist", file.string()));
}

// A stage's rows, read back for the record; the doctor stage's inventory into `record`.
std::vector<LoadedResults> CampaignOutputs::read_stages(const CampaignState& state, CampaignRecord& record,
                                                        diagnosis::AcceptanceInputs& inputs) const {
  const std::filesystem::path& dir = plan_.results_dir;
  std::vector<LoadedResults> sets;
  for (const CampaignStage& stage : plan_.stages) {
    const StageState* s = state.stage(stage.name);
    RecordStage row;
    row.name = stage.name;
    row.kind = name_of(stage.kind);
    row.status = s ? std::string(name_of(s->status)) : "not run";
    std::vector<LoadedResults> loaded;
    if (s) {
      row.attempts = s->attempts;
      row.started = s->started;
      row.finished = s->finished;
      row.message = s->message;
      row.results = s->results;
      state.verify_files(stage.name);
      if (s->files) row.files.assign(s->files->begin(), s->files->end());
      if (s->finished > record.finished_at) record.finished_at = s->finished;
      if (stage.kind == StageKind::doctor) add_inventory(dir / s->results / "doctor.json", record, inputs.host_errors);
      loaded = stage_results(dir / s->results);
      for (const LoadedResults& set : loaded) {
        row.rows += set.results.rows.size();
        row.measured.insert(row.measured.end(), set.results.rows.begin(), set.results.rows.end());
      }
    }
    if (std::optional<std::string> missing = missing_work_of(stage, s, loaded)) inputs.missing_work.push_back(*missing);
    sets.insert(sets.end(), std::make_move_iterator(loaded.begin()), std::make_move_iterator(loaded.end()));
    record.stages.push_back(std::move(row));
  }
  return sets;
}

int CampaignOutputs::write(const CampaignState& state, std::ostream& out) const {
  const std::filesystem::path& dir = plan_.results_dir;
  CampaignRecord record;
  record.system = plan_.system;
  record.customer = plan_.customer;
  record.started_at = state.started_at();
  record.written_at = utc_timestamp_now();
  record.tool_version = tool_version();
  record.git_revision = git_revision();
  record.results_dir = dir.string();
  record.confidence = plan_.confidence;
  record.plan = {plan_.source.string(), plan_sha256_, plan_.text};
  if (thresholds_) record.thresholds = RecordFile{plan_.thresholds->string(), thresholds_sha256_, thresholds_text_};
  if (state.measured_thresholds_sha256() && *state.measured_thresholds_sha256() != thresholds_sha256_)
    record.measured_thresholds_sha256 = *state.measured_thresholds_sha256();

  diagnosis::AcceptanceInputs inputs{.thresholds = thresholds_ ? &*thresholds_ : nullptr,
                                     .confidence = plan_.confidence};
  std::vector<LoadedResults> sets = read_stages(state, record, inputs);
  record.record_id = record_id_of(record);
  if (plan_.model_checks) {
    std::vector<std::string> files;
    for (const auto& file : plan_.model_checks->topology) files.push_back(file.string());
    const topo::Graph graph = load_topology_with_warnings(files);
    std::ostringstream warnings;
    ExpectationColumns(graph, warnings).add(sets);
    record.model_notes = model_notes(*plan_.model_checks, graph, warnings.str());
    inputs.model_checks = diagnosis::ModelCheckSpec{plan_.model_checks->fraction, plan_.model_checks->min_bytes};
  }
  const std::vector<ResultRow> rows = all_rows(sets);
  inputs.rows = rows;
  std::optional<store::RunStore> store;
  if (!baseline_.spec.empty() || !baseline_.store.empty())
    store.emplace(history::open_store(baseline_, baseline_.spec.empty()));
  std::optional<diagnosis::BaselineVerdict> baseline;
  if (!baseline_.spec.empty()) {
    std::string description;
    baseline = history::judge_baseline(*store, baseline_, sets, description);
    inputs.baseline = diagnosis::BaselineInput{&*baseline, description};
  }
  record.judgement = diagnosis::judge_acceptance(inputs, "campaign");
  record.model_notes.insert(record.model_notes.end(), record.judgement.notes.begin(), record.judgement.notes.end());

  record.files = {{"record (HTML)", "record.html"},
                  {"summary (JSON)", "summary.json"},
                  {"JUnit XML", "junit.xml"},
                  {"drain list", "drain-list.txt"},
                  {"state", "campaign-state.json"}};
  if (pdf_) {
    record.files.emplace_back("record (PDF, A4)", "record-a4.pdf");
    record.files.emplace_back("record (PDF, Letter)", "record-letter.pdf");
  }
  const std::string html = render_record_html(record, Paper::screen);
  write_file_atomically(dir / "record.html", html);
  if (pdf_) {
    write_file_atomically(dir / "record-a4.pdf", print_html_to_pdf(render_record_html(record, Paper::a4)));
    write_file_atomically(dir / "record-letter.pdf", print_html_to_pdf(render_record_html(record, Paper::letter)));
  }
  const std::string summary = record_summary_json(record).dump(2) + "\n";
  write_file_atomically(dir / "summary.json", summary);
  write_file_atomically(dir / "junit.xml", record_junit_xml(record));
  record.judgement.drain.write(dir / "drain-list.txt", out);
  print_check_verdicts(out, record.judgement);
  out << fmt::format("# record: {}{}\n", (dir / "record.html").string(),
                     pdf_ ? fmt::format(", {} and {}", (dir / "record-a4.pdf").string(),
                                        (dir / "record-letter.pdf").string())
                          : "");
  if (!json_path_.empty()) write_file_atomically(json_path_, summary);
  const diagnosis::Decision decision = record.judgement.decision;
  if (!baseline_.store.empty())
    history::record_judged(*store, sets, "campaign", decision,
                           fmt::format("campaign {} ({})", plan_.system, plan_.source.string()), out);
  return static_cast<int>(decision == diagnosis::Decision::pass ? ExitCode::ok : ExitCode::acceptance_failed);
}

}  // namespace fb::jobs
