#pragma once
// Max-min fair sharing of capacity among flows (progressive filling). Flows are grouped into
// classes whose members take the same path spread and get the same rate, which is what lets an
// all-to-all over 100,000 GPUs be solved without 10^10 individual flows.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

namespace fb::topo {

struct ResourceShare {
  std::uint32_t resource = 0;  // index into the capacity vector
  double share = 0;            // fraction of one flow's traffic that crosses this resource
};

struct FlowClass {
  // The resources a flow of the class crosses, in pieces that callers share between classes
  // (the fabric part of a route is common to many classes). Spans must outlive the solve.
  std::vector<std::span<const ResourceShare>> segments;
  double flow_count = 1;  // identical flows in the class
};

struct MaxMinAllocation {
  std::vector<double> rate_gbps;  // per flow of each class
  std::vector<double> load_gbps;  // per resource
  std::vector<bool> saturated;    // per resource: full, and limiting some class
  int rounds = 0;                 // filling rounds, one per distinct bottleneck level
};

// Where a piece's resources are: shares [begin, end), the first one's resource moved by
// `first_offset`, the others' by `offset`. Hosts built alike hold their paths inside as the same
// shares at another place in the link array (every share moved alike), and hosts cabled alike
// climb the fabric as the first such host did past their own port (the first share moved): a
// million GPUs' 6.9 million paths inside hosts read a few hundred templates kept in cache instead
// of 35 million copied shares (0.56 GB), its alltoall's climbs their first climbers' shares.
struct PieceRange {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::uint32_t first_offset = 0;  // added to the first share's resource
  std::uint32_t offset = 0;        // added to each other share's resource
};

// A piece's resources as PieceFlows::shares_of gives them (PieceRange): read them through
// for_each and any_of where it counts, which move the first share outside the loop.
class PieceShares {
 public:
  PieceShares(std::span<const ResourceShare> shares, std::uint32_t first_offset, std::uint32_t offset)
      : shares_(shares), first_offset_(first_offset), offset_(offset) {}

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = ResourceShare;
    using difference_type = std::ptrdiff_t;
    using pointer = const ResourceShare*;
    using reference = ResourceShare;

    Iterator() = default;
    Iterator(const ResourceShare* at, const PieceShares& shares)
        : at_(at), first_(shares.shares_.data()), first_offset_(shares.first_offset_), offset_(shares.offset_) {}
    ResourceShare operator*() const { return {at_->resource + (at_ == first_ ? first_offset_ : offset_), at_->share}; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++at_;
      return before;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    const ResourceShare* at_ = nullptr;
    const ResourceShare* first_ = nullptr;
    std::uint32_t first_offset_ = 0;
    std::uint32_t offset_ = 0;
  };

  Iterator begin() const { return {shares_.data(), *this}; }
  Iterator end() const { return {shares_.data() + shares_.size(), *this}; }
  bool empty() const { return shares_.empty(); }
  std::size_t size() const { return shares_.size(); }

  // Calls f with each share, in order.
  template <typename F>
  void for_each(F&& f) const {
    if (shares_.empty()) return;
    f(ResourceShare{shares_.front().resource + first_offset_, shares_.front().share});
    for (std::size_t k = 1; k < shares_.size(); ++k) f(ResourceShare{shares_[k].resource + offset_, shares_[k].share});
  }
  // Whether some share satisfies `pred`, asked in order.
  template <typename Pred>
  bool any_of(Pred&& pred) const {
    if (shares_.empty()) return false;
    if (pred(ResourceShare{shares_.front().resource + first_offset_, shares_.front().share})) return true;
    for (std::size_t k = 1; k < shares_.size(); ++k)
      if (pred(ResourceShare{shares_[k].resource + offset_, shares_[k].share})) return true;
    return false;
  }

 private:
  std::span<const ResourceShare> shares_;
  std::uint32_t first_offset_ = 0;
  std::uint32_t offset_ = 0;
};

// One flow per class, each listing by index the pieces of path it crosses, pieces that many
// flows share (a host's way up the fabric, a NIC port, the path between two GPUs). A prediction
// has millions of flows but far fewer distinct pieces: a filling round then counts each flow's
// pieces and adds each piece's resources once, instead of walking every flow's resources.
struct PieceFlows {
  std::span<const ResourceShare> shares;        // piece 0's resources, then piece 1's, ...
  std::span<const std::uint32_t> first_share;   // piece p: [first_share[p], first_share[p + 1])
  std::span<const std::uint32_t> piece_of_use;  // flow 0's pieces, then flow 1's, ...
  std::span<const std::uint32_t> first_use;     // flow f: [first_use[f], first_use[f + 1])
  std::span<const double> weight;               // flow f stands for weight[f] identical flows; empty: all
  double common_weight = 1;                     // ... stand for this many each
  // Where given, piece p's resources are ranges[p] (first_share is then left empty): pieces may
  // read another piece's shares, moved (PieceRange).
  std::span<const PieceRange> ranges{};

  std::size_t size() const { return first_use.empty() ? 0 : first_use.size() - 1; }
  std::size_t piece_count() const {
    if (!ranges.empty()) return ranges.size();
    return first_share.empty() ? 0 : first_share.size() - 1;
  }
  std::span<const std::uint32_t> pieces_of(std::size_t flow) const {
    return piece_of_use.subspan(first_use[flow], first_use[flow + 1] - first_use[flow]);
  }
  double weight_of(std::size_t flow) const { return weight.empty() ? common_weight : weight[flow]; }
  PieceShares shares_of(std::size_t piece) const {
    if (!ranges.empty()) {
      const PieceRange& range = ranges[piece];
      return {shares.subspan(range.begin, range.end - range.begin), range.first_offset, range.offset};
    }
    return {shares.subspan(first_share[piece], first_share[piece + 1] - first_share[piece]), 0, 0};
  }
};

// Every class's flows grow at the same pace until a resource fills; classes crossing a full
// resource stop there and the rest keep growing. Classes with no resources are given rate 0.
MaxMinAllocation solve_max_min(std::span<const double> capacity_gbps, std::span<const FlowClass> classes);

// The same over flows built of shared pieces, for the many solves a model runs over one set of
// resources (its ring, trees, alltoall, ...). The state per resource and per piece is allocated
// once and every solve leaves it as it found it, so that a solve costs what its flows cross, not
// the size of the fabric: allocated afresh, that state was 0.45 GB of zeroed pages per solve at
// a million GPUs, a third of `topo predict`'s time there.
class PieceSolver {
 public:
  // The capacities must outlive the solver.
  explicit PieceSolver(std::span<const double> capacity_gbps);

  // The rate of each flow (a flow of weight w counts as w flows of that rate where it meets
  // others; flows of weight 0 or crossing nothing are given 0). The rates, loads and full
  // resources stay readable until the next solve.
  std::span<const double> solve(const PieceFlows& flows);

  double load_gbps(std::uint32_t resource) const { return load_gbps_[resource]; }
  bool saturated(std::uint32_t resource) const { return saturated_[resource] != 0; }
  int rounds() const { return rounds_; }

 private:
  // Clears what the last solve left: the loads and full marks of the resources it loaded.
  void forget_last_solve();

  std::span<const double> capacity_gbps_;
  std::vector<double> growth_;  // per resource, zero between rounds
  std::vector<double> load_gbps_;
  // Bytes, not std::vector<bool>: the solve reads and writes them at random, and a bit's
  // shift-and-mask cost a fifth of its time at a million GPUs.
  std::vector<std::uint8_t> saturated_;
  std::vector<std::uint32_t> loaded_;  // the resources the last solve loaded or filled (repeats allowed)
  std::vector<double> users_;          // per piece, zero between solves
  std::vector<std::uint8_t> full_;     // per piece, 0 between rounds
  std::vector<double> rate_gbps_;      // per flow of the last solve
  // A solve's working lists (active flows, live pieces, touched resources), kept for the next.
  std::vector<std::uint32_t> active_;
  std::vector<std::uint32_t> live_;
  std::vector<std::uint32_t> next_live_;
  std::vector<std::uint32_t> touched_;
  int rounds_ = 0;
};

// The load each resource carries when class c's flows each send offered_rate_gbps[c].
std::vector<double> offered_load(std::size_t resource_count, std::span<const FlowClass> classes,
                                 std::span<const double> offered_rate_gbps);

}  // namespace fb::topo
