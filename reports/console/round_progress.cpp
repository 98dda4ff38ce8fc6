#include "reports/console/round_progress.hpp"

#include <fmt/format.h>

namespace fb {

std::string describe_round_progress(const std::string& what, std::size_t rounds_done, std::size_t rounds,
                                    double elapsed_s) {
  std::string text = fmt::format("# {}: round {} of {}, {:.1f} s elapsed", what, rounds_done, rounds, elapsed_s);
  if (rounds_done > 0 && rounds_done < rounds)
    text += fmt::format(", ETA {:.1f} s",
                        elapsed_s / static_cast<double>(rounds_done) * static_cast<double>(rounds - rounds_done));
  return text;
}

RoundProgress::RoundProgress(std::ostream& out, bool terminal, std::string what, std::size_t rounds)
    : out_(out), terminal_(terminal), what_(std::move(what)), rounds_(rounds) {}

void RoundProgress::round_done(std::size_t rounds_done) {
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string text = describe_round_progress(what_, rounds_done, rounds_, elapsed_s);
  // "\x1b[K" clears what a longer previous report left on the line.
  if (terminal_)
    out_ << '\r' << text << "\x1b[K" << std::flush;
  else
    out_ << text << '\n' << std::flush;
  printed_ = true;
}

RoundProgress::~RoundProgress() {
  if (terminal_ && printed_) out_ << "\r\x1b[K" << std::flush;
}

}  // namespace fb
