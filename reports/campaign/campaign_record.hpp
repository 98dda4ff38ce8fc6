#pragma once
// The acceptance record of a campaign: the document a customer keeps and signs (HTML, printed to
// PDF in A4 and Letter), the same facts as a JSON summary for machines, and JUnit XML for CI.
// It renders what the campaign decided; nothing here judges.

#include "diagnosis/acceptance_judgement.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fb {

inline constexpr std::string_view campaign_summary_schema = "fabricbench.campaign.v2";

struct RecordFile {
  std::string path;
  std::string sha256;  // hex, of `text`
  std::string text;
};

struct RecordStage {
  std::string name;
  std::string kind;
  std::string status;  // completed, failed, timed_out, interrupted
  int attempts = 0;
  std::string started;
  std::string finished;
  std::string message;
  std::size_t rows = 0;
  std::string results;  // the folder its rows are in, relative to the campaign's
  // Every file the stage left (relative to the campaign's folder) and its SHA-256 as written.
  std::vector<std::pair<std::string, std::string>> files{};
  // Its rows as read back, for its plots and the findings (record_measured.hpp).
  std::vector<ResultRow> measured{};
};

// One host of the doctor's inventory as attribute and value, in the doctor's order.
struct RecordHost {
  std::string host;
  std::vector<std::pair<std::string, std::string>> facts;
};

struct RecordFlag {
  std::string severity;  // error, warning, info
  std::string host;      // empty: the hosts differ and no single one is to blame
  std::string subject;
  std::string message;
};

struct CampaignRecord {
  std::string system;
  std::string customer;
  std::string started_at;   // ISO 8601 UTC, the first run of the campaign
  std::string written_at;   // when this record was written
  std::string finished_at;  // when the campaign's last stage ended; empty when none ran
  // The first 12 hex digits of a SHA-256 over the plan's, the thresholds' and every result file's
  // hash: the same ID means the same inputs judged (campaign_outputs.cpp, docs/acceptance.md).
  std::string record_id;
  std::string tool_version;
  std::string git_revision;
  std::string results_dir;
  RecordFile plan;
  std::optional<RecordFile> thresholds;  // as judged now
  // The thresholds' SHA-256 when the campaign measured, when it differs from the judged one (edited
  // after measuring: the record is judged again under the new one, and says so).
  std::optional<std::string> measured_thresholds_sha256;
  std::vector<std::string> model_notes;  // the topology model's version and every assumption
  double confidence = 0.95;
  std::vector<RecordStage> stages;
  diagnosis::AcceptanceJudgement judgement{.drain = diagnosis::DrainList("campaign")};
  std::vector<RecordHost> hosts;
  std::vector<RecordFlag> host_flags;
  std::vector<std::pair<std::string, std::string>> files;  // what the folder holds: role, path
};

enum class Paper { screen, a4, letter };

// One self-contained HTML document (inline CSS and SVG, no script). For paper: the page size, a
// 15 mm margin, page numbers "page N of M" at the foot, plots at the full text width with text of
// at least 8 pt, tables that fit the text width without breaking a header's word. Throws
// std::runtime_error when gnuplot cannot draw a plot.
std::string render_record_html(const CampaignRecord& record, Paper paper);

// The number of check plots render_record_html draws: one per limit check with measurements
// (besides them, each stage's own plots: stage_plots in record_measured.hpp).
std::size_t record_plot_count(const CampaignRecord& record);

// docs/schemas/campaign-summary.schema.json describes it.
nlohmann::json record_summary_json(const CampaignRecord& record);

// One test case per check; INCONCLUSIVE is a failure of type "inconclusive" (CI must not pass on it).
std::string record_junit_xml(const CampaignRecord& record);

}  // namespace fb
