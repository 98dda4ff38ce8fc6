#pragma once
// Progress through the rounds of one pair-pattern size, on stderr: a pairwise size on many hosts
// runs for minutes, and a silent console looks hung.

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace fb {

// "# pairwise 4194304 bytes: round 3 of 14, 12.1 s elapsed, ETA 44.4 s" (the ETA assumes the
// remaining rounds take as long as the finished ones did on average).
std::string describe_round_progress(const std::string& what, std::size_t rounds_done, std::size_t rounds,
                                    double elapsed_s);

class RoundProgress {
 public:
  // On a terminal each report overwrites the last one; elsewhere (`--progress` into a log) each
  // is a line of its own.
  RoundProgress(std::ostream& out, bool terminal, std::string what, std::size_t rounds);
  void round_done(std::size_t rounds_done);
  ~RoundProgress();

  RoundProgress(const RoundProgress&) = delete;
  RoundProgress& operator=(const RoundProgress&) = delete;

 private:
  std::ostream& out_;
  bool terminal_;
  std::string what_;
  std::size_t rounds_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool printed_ = false;
};

}  // namespace fb
