#pragma once
// What a campaign leaves in its results folder once its stages ran: the checks judged over every
// stage's rows, the record (record.html, record-a4.pdf, record-letter.pdf), summary.json,
// junit.xml and drain-list.txt. Rank 0 only.

#include "jobs/campaign/campaign_plan.hpp"
#include "jobs/campaign/campaign_state.hpp"
#include "history/baseline_store.hpp"
#include "diagnosis/acceptance_judgement.hpp"
#include "diagnosis/thresholds.hpp"
#include "reports/campaign/campaign_record.hpp"
#include "results/result_loading.hpp"

#include <optional>
#include <ostream>
#include <string>

namespace fb::jobs {

using history::BaselineOptions;

class CampaignOutputs {
 public:
  // Reads the thresholds file and hashes the plan and thresholds, so that a bad thresholds file
  // stops the campaign before anything is measured. Throws InputError.
  // `baseline`: --baseline adds one check per op against the run store's history; --store records
  // every stage's runs and the campaign's verdict there. A baseline store that does not exist:
  // InputError.
  CampaignOutputs(const CampaignPlan& plan, bool pdf, std::string json_path, BaselineOptions baseline = {});

  const std::string& plan_sha256() const { return plan_sha256_; }
  // "" without a thresholds file.
  const std::string& thresholds_sha256() const { return thresholds_sha256_; }
  std::size_t check_count() const { return thresholds_ ? thresholds_->checks.size() : 0; }

  // Refuses (InputError) a stage's result file that changed since the stage ended; judges
  // (diagnosis::judge_acceptance), writes every output, prints the checks; returns the exit code: 0 when every check
  // passed on every planned repetition, 6 when one failed or was INCONCLUSIVE (a stage interrupted, failed or short of
  // its repetitions is INCONCLUSIVE).
  int write(const CampaignState& state, std::ostream& out) const;

 private:
  std::vector<LoadedResults> read_stages(const CampaignState& state, CampaignRecord& record,
                                         diagnosis::AcceptanceInputs& inputs) const;

  const CampaignPlan& plan_;
  bool pdf_;
  std::string json_path_;
  std::string plan_sha256_;
  std::optional<diagnosis::Thresholds> thresholds_;
  std::string thresholds_text_;
  std::string thresholds_sha256_;
  BaselineOptions baseline_;
};

}  // namespace fb::jobs
