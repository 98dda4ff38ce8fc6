#pragma once
// Progress on stderr: through the rounds of one pair-pattern size, and through the sizes of a
// collective sweep. A pairwise size on many hosts, or a sweep up to gigabytes, runs for minutes,
// and a silent console looks hung.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace fb {

// "# pairwise 4194304 bytes: round 3 of 14, 12.1 s elapsed, ETA 44.4 s" (the ETA assumes the
// remaining rounds take as long as the finished ones did on average).
std::string describe_round_progress(const std::string& what, std::size_t rounds_done, std::size_t rounds,
                                    double elapsed_s);

// The seconds the sizes still to run will take, from the seconds each finished size took: a
// straight line t = a + b * bytes through the finished sizes by least squares (small sizes cost
// their latency a, large ones b per byte), each remaining size costing its point on the line and
// never less than nothing. With one size finished, or all finished at one size, every remaining
// size costs as much as the finished ones did on average. Empty before the first size finishes.
std::optional<double> sweep_eta_s(std::span<const std::uint64_t> bytes_done, std::span<const double> seconds_done,
                                  std::span<const std::uint64_t> bytes_left);

// "# all_reduce: size 7 of 28 (64 KiB) done, 3.2 s elapsed, ETA 41.0 s".
std::string describe_sweep_progress(const std::string& op, std::size_t sizes_done, std::size_t sizes,
                                    std::uint64_t last_bytes, double elapsed_s, std::optional<double> eta_s);

// One progress line: on a terminal each report overwrites the last one (and the line is cleared at
// the end); elsewhere (`--progress` into a log) each is a line of its own.
class ProgressLine {
 public:
  ProgressLine(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}
  void show(const std::string& text);
  // Takes the line off a terminal, so that a table row printed next starts at its beginning.
  void clear();
  ~ProgressLine();

  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  std::ostream& out_;
  bool terminal_;
  bool printed_ = false;
};

class RoundProgress {
 public:
  RoundProgress(std::ostream& out, bool terminal, std::string what, std::size_t rounds);
  void round_done(std::size_t rounds_done);

 private:
  ProgressLine line_;
  std::string what_;
  std::size_t rounds_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Through the sizes of one op's sweep, in the order they run.
class SweepProgress {
 public:
  SweepProgress(std::ostream& out, bool terminal, std::string op, std::vector<std::uint64_t> sizes_bytes);
  void size_done();
  void clear() { line_.clear(); }

 private:
  ProgressLine line_;
  std::string op_;
  std::vector<std::uint64_t> sizes_bytes_;
  std::vector<double> seconds_done_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
};

}  // namespace fb
