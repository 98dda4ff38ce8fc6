#include "reports/console/round_progress.hpp"

#include "common/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace fb {

std::string describe_round_progress(const std::string& what, std::size_t rounds_done, std::size_t rounds,
                                    double elapsed_s) {
  std::string text = fmt::format("# {}: round {} of {}, {:.1f} s elapsed", what, rounds_done, rounds, elapsed_s);
  if (rounds_done > 0 && rounds_done < rounds)
    text += fmt::format(", ETA {:.1f} s",
                        elapsed_s / static_cast<double>(rounds_done) * static_cast<double>(rounds - rounds_done));
  return text;
}

std::optional<double> sweep_eta_s(std::span<const std::uint64_t> bytes_done, std::span<const double> seconds_done,
                                  std::span<const std::uint64_t> bytes_left) {
  const std::size_t n = std::min(bytes_done.size(), seconds_done.size());
  if (n == 0) return std::nullopt;
  const double count = static_cast<double>(n);
  const double mean_s = std::accumulate(seconds_done.begin(), seconds_done.begin() + static_cast<long>(n), 0.0) / count;
  double mean_bytes = 0;
  for (std::size_t i = 0; i < n; ++i) mean_bytes += static_cast<double>(bytes_done[i]) / count;
  double covariance = 0;
  double variance = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = static_cast<double>(bytes_done[i]) - mean_bytes;
    covariance += dx * (seconds_done[i] - mean_s);
    variance += dx * dx;
  }
  const double per_byte_s = variance > 0 ? covariance / variance : 0;
  const double intercept_s = mean_s - per_byte_s * mean_bytes;
  double eta_s = 0;
  for (const std::uint64_t bytes : bytes_left)
    eta_s += std::max(0.0, intercept_s + per_byte_s * static_cast<double>(bytes));
  return eta_s;
}

std::string describe_sweep_progress(const std::string& op, std::size_t sizes_done, std::size_t sizes,
                                    std::uint64_t last_bytes, double elapsed_s, std::optional<double> eta_s) {
  std::string text = fmt::format("# {}: size {} of {} ({}) done, {:.1f} s elapsed", op, sizes_done, sizes,
                                 format_size_bytes(last_bytes), elapsed_s);
  if (eta_s && sizes_done < sizes) text += fmt::format(", ETA {:.1f} s", *eta_s);
  return text;
}

void ProgressLine::show(const std::string& text) {
  // "\x1b[K" clears what a longer previous report left on the line.
  if (terminal_)
    out_ << '\r' << text << "\x1b[K" << std::flush;
  else
    out_ << text << '\n' << std::flush;
  printed_ = true;
}

void ProgressLine::clear() {
  if (terminal_ && printed_) out_ << "\r\x1b[K" << std::flush;
  printed_ = false;
}

ProgressLine::~ProgressLine() { clear(); }

RoundProgress::RoundProgress(std::ostream& out, bool terminal, std::string what, std::size_t rounds)
    : line_(out, terminal), what_(std::move(what)), rounds_(rounds) {}

void RoundProgress::round_done(std::size_t rounds_done) {
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  line_.show(describe_round_progress(what_, rounds_done, rounds_, elapsed_s));
}

SweepProgress::SweepProgress(std::ostream& out, bool terminal, std::string op, std::vector<std::uint64_t> sizes_bytes)
    : line_(out, terminal), op_(std::move(op)), sizes_bytes_(std::move(sizes_bytes)) {}

void SweepProgress::size_done() {
  const auto now = std::chrono::steady_clock::now();
  seconds_done_.push_back(std::chrono::duration<double>(now - last_).count());
  last_ = now;
  const std::size_t done = std::min(seconds_done_.size(), sizes_bytes_.size());
  const std::span<const std::uint64_t> sizes(sizes_bytes_);
  line_.show(describe_sweep_progress(op_, done, sizes_bytes_.size(), sizes[done - 1],
                                     std::chrono::duration<double>(now - start_).count(),
                                     sweep_eta_s(sizes.first(done), seconds_done_, sizes.subspan(done))));
}

}  // namespace fb
