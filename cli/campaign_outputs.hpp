#pragma once
// What a campaign leaves in its results folder once its stages ran: the checks judged over every
// stage's rows, the record (record.html, record-a4.pdf, record-letter.pdf), summary.json,
// junit.xml and drain-list.txt. Rank 0 only.

#include "cli/campaign_plan.hpp"
#include "cli/campaign_state.hpp"
#include "cli/store_baseline.hpp"
#include "diagnosis/thresholds.hpp"

#include <optional>
#include <ostream>
#include <string>

namespace fb::cli {

class CampaignOutputs {
 public:
  // Reads the thresholds file and hashes the plan and thresholds, so that a bad thresholds file
  // stops the campaign before anything is measured. Throws InputError.
  // `baseline`: --baseline adds one check per op against the run store's history; --store records
  // every stage's runs and the campaign's verdict there. A baseline store that does not exist:
  // InputError.
  CampaignOutputs(const CampaignPlan& plan, bool pdf, std::string json_path, BaselineOptions baseline = {});

  const std::string& plan_sha256() const { return plan_sha256_; }
  std::size_t check_count() const { return thresholds_ ? thresholds_->checks.size() : 0; }

  // Judges, writes every output, prints the checks; returns the exit code: 0 when every check
  // passed, 6 when one failed or was INCONCLUSIVE.
  int write(const CampaignState& state, std::ostream& out) const;

 private:
  const CampaignPlan& plan_;
  bool pdf_;
  std::string json_path_;
  std::string plan_sha256_;
  std::optional<diagnosis::Thresholds> thresholds_;
  std::string thresholds_text_;
  BaselineOptions baseline_;
};

// Lowercase hex SHA-256 of `bytes` (OpenSSL).
std::string sha256_hex(std::string_view bytes);

}  // namespace fb::cli
