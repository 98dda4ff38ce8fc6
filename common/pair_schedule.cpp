#include "common/pair_schedule.hpp"

#include "common/errors.hpp"
#include "common/input_error.hpp"
#include "common/text_scan.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fb {

PairEndpoints parse_pair_endpoints(std::string_view text) {
  if (text == "hosts") return PairEndpoints::hosts;
  if (text == "ranks") return PairEndpoints::ranks;
  throw UsageError(fmt::format("--pair-endpoints '{}' is not one of hosts, ranks", text));
}

CutKind parse_cut(std::string_view text) {
  if (text == "halves") return CutKind::halves;
  if (text == "random") return CutKind::random;
  throw UsageError(fmt::format("--cut '{}' is not one of halves, random", text));
}

bool natural_less(std::string_view a, std::string_view b) {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t end_a = i, end_b = j;
      while (end_a < a.size() && is_digit(a[end_a])) ++end_a;
      while (end_b < b.size() && is_digit(b[end_b])) ++end_b;
      // The number without its leading zeros: the longer one is larger, else the digits decide.
      std::string_view number_a = a.substr(i, end_a - i), number_b = b.substr(j, end_b - j);
      number_a.remove_prefix(std::min(number_a.find_first_not_of('0'), number_a.size()));
      number_b.remove_prefix(std::min(number_b.find_first_not_of('0'), number_b.size()));
      if (number_a.size() != number_b.size()) return number_a.size() < number_b.size();
      if (number_a != number_b) return number_a < number_b;
      i = end_a;
      j = end_b;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if ((i < a.size()) != (j < b.size())) return j < b.size();
  return a < b;
}

std::vector<int> pair_endpoint_ranks(const RankPlacement& placement, PairEndpoints endpoints) {
  std::vector<int> ranks;
  std::unordered_set<std::string> hosts_seen;
  for (int rank = 0; rank < placement.nranks; ++rank)
    if (endpoints == PairEndpoints::ranks ||
        hosts_seen.insert(placement.rank_hosts.at(static_cast<std::size_t>(rank))).second)
      ranks.push_back(rank);
  return ranks;
}

std::vector<PairRound> pairwise_rounds(std::span<const int> endpoint_ranks, std::size_t max_pairings) {
  // The circle method: fix the first seat, rotate the others one step per round; seat i plays
  // seat n-1-i. An odd count gets an empty seat, whose partner sits the round out.
  constexpr int empty_seat = -1;
  std::vector<int> seats(endpoint_ranks.begin(), endpoint_ranks.end());
  if (seats.size() % 2 == 1) seats.push_back(empty_seat);
  const std::size_t n = seats.size();
  std::vector<PairRound> rounds;
  for (std::size_t pairing = 0; pairing + 1 < n && pairing < max_pairings; ++pairing) {
    PairRound forward{{}, static_cast<int>(2 * pairing + 1)};
    PairRound backward{{}, static_cast<int>(2 * pairing + 2)};
    for (std::size_t i = 0; i < n / 2; ++i) {
      const int a = seats[i];
      const int b = seats[n - 1 - i];
      if (a == empty_seat || b == empty_seat) continue;
      forward.pairs.push_back({a, b});
      backward.pairs.push_back({b, a});
    }
    rounds.push_back(std::move(forward));
    rounds.push_back(std::move(backward));
    std::rotate(seats.begin() + 1, seats.end() - 1, seats.end());
  }
  return rounds;
}

std::vector<PairRound> concurrent_rounds(std::span<const int> endpoint_ranks, CutKind cut, std::uint64_t seed) {
  std::vector<int> order(endpoint_ranks.begin(), endpoint_ranks.end());
  if (cut == CutKind::random) std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  const std::size_t half = order.size() / 2;
  PairRound together;
  for (std::size_t i = 0; i < half; ++i) together.pairs.push_back({order[i], order[i + half]});
  std::vector<PairRound> rounds;
  for (const RankPair& pair : together.pairs) rounds.push_back({{pair}, static_cast<int>(rounds.size() + 1)});
  together.round = static_cast<int>(rounds.size() + 1);
  rounds.push_back(std::move(together));
  return rounds;
}

std::vector<HostPairRound> parse_host_pair_rounds(std::string_view path, std::string_view text) {
  std::vector<HostPairRound> rounds(1);
  std::set<std::string> in_round;
  for (const NumberedLine& line : split_lines(text)) {
    const std::string_view content = trim(line.text.substr(0, line.text.find('#')));
    if (content.empty()) {
      // A comment line keeps the round going; only a blank line ends it.
      if (trim(line.text).empty() && !rounds.back().empty()) {
        rounds.emplace_back();
        in_round.clear();
      }
      continue;
    }
    const std::vector<std::string_view> hosts = split_whitespace(content);
    if (hosts.size() != 2) throw_input_error(path, line.number, "two host names \"SRC DST\"", quote_input(content));
    if (hosts[0] == hosts[1]) throw_input_error(path, line.number, "two different hosts", quote_input(content));
    for (const std::string_view host : hosts)
      if (!in_round.insert(std::string(host)).second)
        throw_input_error(path, line.number, "each host at most once in a round (a blank line starts the next)",
                          quote_input(host));
    rounds.back().emplace_back(std::string(hosts[0]), std::string(hosts[1]));
  }
  if (rounds.back().empty()) rounds.pop_back();
  if (rounds.empty()) throw_input_error(path, 1, "at least one pair \"SRC DST\"", "none");
  return rounds;
}

std::optional<std::vector<std::string>> notes_of_pairless_file(std::string_view text) {
  std::vector<std::string> notes;
  for (const NumberedLine& line : split_lines(text)) {
    const std::size_t hash = line.text.find('#');
    if (!trim(line.text.substr(0, hash)).empty()) return std::nullopt;
    if (hash != std::string_view::npos) {
      const std::string_view note = trim(line.text.substr(hash + 1));
      if (!note.empty()) notes.emplace_back(note);
    }
  }
  return notes;
}

std::vector<PairRound> host_pair_rounds(const RankPlacement& placement, std::span<const HostPairRound> rounds) {
  std::unordered_map<std::string, int> first_rank;
  for (int rank = 0; rank < placement.nranks; ++rank)
    first_rank.try_emplace(placement.rank_hosts.at(static_cast<std::size_t>(rank)), rank);
  const auto rank_of = [&](const std::string& host) {
    const auto found = first_rank.find(host);
    if (found == first_rank.end())
      throw UsageError(fmt::format("--pairs names host {}, which has no rank in this run", host));
    return found->second;
  };
  std::vector<PairRound> planned;
  for (const HostPairRound& round : rounds) {
    PairRound pair_round{{}, static_cast<int>(planned.size()) + 1};
    for (const auto& [src, dst] : round) pair_round.pairs.push_back({rank_of(src), rank_of(dst)});
    planned.push_back(std::move(pair_round));
  }
  return planned;
}

}  // namespace fb
