// The NCCL backend's waits with a deadline, on a fake communicator that answers ncclInProgress a
// given number of times (the wait after ncclCommFinalize), and the guard around blocking NCCL
// calls: no GPU, no NCCL library call.
#include "benchmarks/nccl/nccl_completion.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

namespace fb {
namespace {

// Communicator i answers ncclInProgress `in_progress[i]` times, then `final_state[i]`.
struct FakeCommunicators {
  std::vector<int> in_progress;
  std::vector<ncclResult_t> final_state;
  std::vector<int> polls = std::vector<int>(in_progress.size(), 0);
  int sleeps = 0;
  int deadline_checks = 0;
  int deadline_after_checks = -1;  // -1: never passes

  CommunicatorPolling polling() {
    CommunicatorPolling result;
    result.state = [this](std::size_t i) { return polls[i]++ < in_progress[i] ? ncclInProgress : final_state[i]; };
    result.past_deadline = [this] {
      ++deadline_checks;
      return deadline_after_checks >= 0 && deadline_checks > deadline_after_checks;
    };
    result.sleep = [this] { ++sleeps; };
    return result;
  }
};

TEST(NcclCompletion, FinalizeWaitsUntilEveryCommunicatorIsQuiescent) {
  FakeCommunicators fake{{1000, 3}, {ncclSuccess, ncclSuccess}};
  const SettleOutcome outcome = settle_communicators(2, fake.polling());
  EXPECT_EQ(outcome.kind, SettleOutcome::Kind::settled);
  // One sleep per in-progress answer, and each communicator polled until it settled.
  EXPECT_EQ(fake.sleeps, 1003);
  EXPECT_EQ(fake.polls, (std::vector<int>{1001, 4}));
}

TEST(NcclCompletion, AnAsynchronousErrorNamesItsCommunicator) {
  FakeCommunicators fake{{0, 2, 0}, {ncclSuccess, ncclRemoteError, ncclSuccess}};
  const SettleOutcome outcome = settle_communicators(3, fake.polling());
  EXPECT_EQ(outcome.kind, SettleOutcome::Kind::failed);
  EXPECT_EQ(outcome.communicator, 1U);
  EXPECT_EQ(outcome.state, ncclRemoteError);
  EXPECT_EQ(fake.polls[2], 0);  // nothing after the failed one is polled
}

TEST(NcclCompletion, APassedDeadlineNamesTheCommunicatorStillInProgress) {
  FakeCommunicators fake{{0, 1'000'000}, {ncclSuccess, ncclSuccess}};
  fake.deadline_after_checks = 7;
  const SettleOutcome outcome = settle_communicators(2, fake.polling());
  EXPECT_EQ(outcome.kind, SettleOutcome::Kind::timed_out);
  EXPECT_EQ(outcome.communicator, 1U);
  EXPECT_EQ(fake.polls[1], 8);
  EXPECT_EQ(fake.sleeps, 7);
}

TEST(DeadlineGuard, ABlockingCallThatDoesNotReturnInTimeEndsTheProcess) {
  std::atomic<int> expired{0};
  {
    const DeadlineGuard guard(std::chrono::milliseconds(20), [&] { ++expired; });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the call that hangs
    EXPECT_EQ(expired.load(), 1);
  }
  EXPECT_EQ(expired.load(), 1);
}

TEST(DeadlineGuard, ACallThatReturnsInTimeDisarmsIt) {
  std::atomic<int> expired{0};
  const auto started = std::chrono::steady_clock::now();
  {
    const DeadlineGuard guard(std::chrono::seconds(30), [&] { ++expired; });
  }
  EXPECT_EQ(expired.load(), 0);
  // Disarming does not wait for the deadline.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

}  // namespace
}  // namespace fb
