// The NCCL backend's wait for non-blocking communicators, on a fake communicator that answers
// ncclInProgress a given number of times: inside a case (the timed window) the wait must never
// sleep, only yield; it must poll every communicator to the end, and stop on an error, a passed
// deadline or the watchdog's request.
#include "benchmarks/nccl/nccl_completion.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace fb {
namespace {

// Communicator i answers ncclInProgress `in_progress[i]` times, then `final_state[i]`.
struct FakeCommunicators {
  std::vector<int> in_progress;
  std::vector<ncclResult_t> final_state;
  std::vector<int> polls = std::vector<int>(in_progress.size(), 0);
  int yields = 0;
  int sleeps = 0;
  int deadline_checks = 0;
  int deadline_after_checks = -1;  // -1: never passes
  bool stop = false;

  CommunicatorPolling polling() {
    CommunicatorPolling result;
    result.state = [this](std::size_t i) { return polls[i]++ < in_progress[i] ? ncclInProgress : final_state[i]; };
    result.past_deadline = [this] {
      ++deadline_checks;
      return deadline_after_checks >= 0 && deadline_checks > deadline_after_checks;
    };
    result.yield = [this] { ++yields; };
    result.sleep = [this] { ++sleeps; };
    result.stop_requested = [this] { return stop; };
    return result;
  }
};

TEST(NcclCompletion, WaitsInsideACaseSpinWithoutSleeping) {
  // Every phase of a case (warm-up, timed iterations, check) waits at the spinning pace.
  EXPECT_EQ(pace_of(true), PollPace::spin);
  EXPECT_EQ(pace_of(false), PollPace::sleep);

  FakeCommunicators fake{{1000, 3}, {ncclSuccess, ncclSuccess}};
  const SettleOutcome outcome = settle_communicators(2, pace_of(true), fake.polling());
  EXPECT_EQ(outcome.kind, SettleOutcome::Kind::settled);
  EXPECT_EQ(fake.sleeps, 0);
  // One yield per in-progress answer, and each communicator polled until it settled.
  EXPECT_EQ(fake.yields, 1003);
  EXPECT_EQ(fake.polls, (std::vector<int>{1001, 4}));
}

TEST(NcclCompletion, CommunicatorCreationSleepsBetweenPolls) {
  FakeCommunicators fake{{5}, {ncclSuccess}};
  EXPECT_EQ(settle_communicators(1, PollPace::sleep, fake.polling()).kind, SettleOutcome::Kind::settled);
  EXPECT_EQ(fake.sleeps, 5);
  EXPECT_EQ(fake.yields, 0);
}

TEST(NcclCompletion, AnAsynchronousErrorNamesItsCommunicator) {
  FakeCommunicators fake{{0, 2, 0}, {ncclSuccess, ncclRemoteError, ncclSuccess}};
  const SettleOutcome outcome = settle_communicators(3, PollPace::spin, fake.polling());
  EXPECT_EQ(outcome.kind, SettleOutcome::Kind::failed);
  EXPECT_EQ(outcome.communicator, 1U);
  EXPECT_EQ(outcome.state, ncclRemoteError);
  EXPECT_EQ(fake.polls[2], 0);  // nothing after the failed one is polled
}

TEST(NcclCompletion, APassedDeadlineNamesTheCommunicatorStillInProgress) {
  FakeCommunicators fake{{0, 1'000'000}, {ncclSuccess, ncclSuccess}};
  fake.deadline_after_checks = 7;
  const SettleOutcome outcome = settle_communicators(2, PollPace::spin, fake.polling());
  EXPECT_EQ(outcome.kind, SettleOutcome::Kind::timed_out);
  EXPECT_EQ(outcome.communicator, 1U);
  EXPECT_EQ(fake.polls[1], 8);
}

TEST(NcclCompletion, TheWatchdogsRequestStopsTheWait) {
  FakeCommunicators fake{{1'000'000}, {ncclSuccess}};
  fake.stop = true;
  const SettleOutcome outcome = settle_communicators(1, PollPace::spin, fake.polling());
  EXPECT_EQ(outcome.kind, SettleOutcome::Kind::stopped);
  EXPECT_EQ(fake.polls[0], 1);
}

}  // namespace
}  // namespace fb
