#include "benchmarks/mpi/mpi_job.hpp"

#include "benchmarks/mpi/launcher_environment.hpp"
#include "benchmarks/mpi/mpi_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace fb {

MpiJob::MpiJob(int& argc, char**& argv) {
  FB_MPI_CHECK(MPI_Init(&argc, &argv));
  // Failed calls must come back to FB_MPI_CHECK, not kill the job without a word.
  FB_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  FB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  FB_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));

  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_length = 0;
  FB_MPI_CHECK(MPI_Get_processor_name(host, &host_length));
  std::vector<char> all_hosts(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  FB_MPI_CHECK(MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all_hosts.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                             MPI_COMM_WORLD));
  for (int rank = 0; rank < size_; ++rank) {
    const char* name = all_hosts.data() + static_cast<std::size_t>(rank) * MPI_MAX_PROCESSOR_NAME;
    process_hosts_.emplace_back(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
  }

  // The ranks sharing memory share a host; keyed by world rank, local rank 0 is the lowest world
  // rank there.
  MPI_Comm host_comm = MPI_COMM_NULL;
  FB_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_comm));
  FB_MPI_CHECK(MPI_Comm_rank(host_comm, &local_rank_));
  FB_MPI_CHECK(MPI_Comm_size(host_comm, &local_size_));
  FB_MPI_CHECK(MPI_Comm_free(&host_comm));
}

MpiJob::~MpiJob() {
  // Unchecked: a destructor cannot throw, and the job is over either way.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string mpi_library_version_line() {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  FB_MPI_CHECK(MPI_Get_library_version(library, &length));
  // The reported length counts a terminating NUL in Open MPI; later lines are build details.
  const std::string text(library, strnlen(library, static_cast<std::size_t>(length)));
  return text.substr(0, text.find_first_of("\r\n"));
}

std::map<std::string, std::string> MpiJob::library_versions() const {
  int major = 0;
  int minor = 0;
  FB_MPI_CHECK(MPI_Get_version(&major, &minor));
  return {{"mpi_library", mpi_library_version_line()}, {"mpi_standard", fmt::format("{}.{}", major, minor)}};
}

void MpiJob::barrier() const { FB_MPI_CHECK(MPI_Barrier(comm())); }

void MpiJob::broadcast_from_rank_zero(std::span<std::byte> blob) const {
  FB_MPI_CHECK(MPI_Bcast(blob.data(), static_cast<int>(blob.size()), MPI_BYTE, 0, comm()));
}

BroadcastFromRankZero MpiJob::broadcaster() const {
  return [this](std::span<std::byte> blob) { broadcast_from_rank_zero(blob); };
}

bool MpiJob::all_agree(bool local_ok) const {
  const int ok = local_ok ? 1 : 0;
  int all_ok = 0;
  FB_MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm()));
  return all_ok != 0;
}

int MpiJob::rank_zero_value(int value) const {
  FB_MPI_CHECK(MPI_Bcast(&value, 1, MPI_INT, 0, comm()));
  return value;
}

std::optional<int> MpiJob::first_rank_not_ok(bool local_ok) const {
  const int ok = local_ok ? 1 : 0;
  std::vector<int> ok_by_rank(static_cast<std::size_t>(size_));
  FB_MPI_CHECK(MPI_Allgather(&ok, 1, MPI_INT, ok_by_rank.data(), 1, MPI_INT, comm()));
  const auto failed = std::find(ok_by_rank.begin(), ok_by_rank.end(), 0);
  if (failed == ok_by_rank.end()) return std::nullopt;
  return static_cast<int>(failed - ok_by_rank.begin());
}

double MpiJob::max_over_ranks(double local) const {
  double largest = 0;
  FB_MPI_CHECK(MPI_Allreduce(&local, &largest, 1, MPI_DOUBLE, MPI_MAX, comm()));
  return largest;
}

Measurement MpiJob::slowest_rank_measurement(std::span<const double> local_unit_seconds,
                                             std::optional<std::uint64_t> local_wrong) const {
  Measurement measurement;
  if (rank_ == 0) measurement.unit_seconds.resize(local_unit_seconds.size());
  FB_MPI_CHECK(MPI_Reduce(local_unit_seconds.data(), measurement.unit_seconds.data(),
                          static_cast<int>(local_unit_seconds.size()), MPI_DOUBLE, MPI_MAX, 0, comm()));
  if (local_wrong) {
    std::uint64_t total_wrong = 0;
    FB_MPI_CHECK(MPI_Allreduce(&*local_wrong, &total_wrong, 1, MPI_UINT64_T, MPI_SUM, comm()));
    measurement.wrong = total_wrong;
  }
  return measurement;
}

MpiJob::RankResults MpiJob::gather_rank_results(std::span<const double> local_unit_seconds,
                                                std::span<const std::uint64_t> local_wrong) const {
  RankResults all;
  const int seconds_count = static_cast<int>(local_unit_seconds.size());
  if (rank_ == 0) all.unit_seconds.resize(local_unit_seconds.size() * static_cast<std::size_t>(size_));
  FB_MPI_CHECK(MPI_Gather(local_unit_seconds.data(), seconds_count, MPI_DOUBLE, all.unit_seconds.data(), seconds_count,
                          MPI_DOUBLE, 0, comm()));
  const int wrong_count = static_cast<int>(local_wrong.size());
  all.wrong.resize(local_wrong.size() * static_cast<std::size_t>(size_));
  FB_MPI_CHECK(MPI_Allgather(local_wrong.data(), wrong_count, MPI_UINT64_T, all.wrong.data(), wrong_count, MPI_UINT64_T,
                             comm()));
  return all;
}

std::vector<std::string> MpiJob::gather_strings_at_rank_zero(const std::string& local) const {
  const int length = static_cast<int>(local.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  FB_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm()));
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string joined(static_cast<std::size_t>(total), '\0');
  FB_MPI_CHECK(
      MPI_Gatherv(local.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, comm()));
  std::vector<std::string> strings;
  for (std::size_t i = 0; i < lengths.size(); ++i)
    strings.push_back(joined.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  return strings;
}

void MpiJob::abort_all(int exit_code) const {
  // The launcher learns from this file which rank ended the job and with what code: a step that
  // MPI_Abort ends leaves it no other trace of either.
  record_rank_exit(rank_, process_hosts_.at(static_cast<std::size_t>(rank_)), exit_code);
  // Unchecked: there is nothing left to report a failure to.
  MPI_Abort(comm(), exit_code);
  std::abort();  // MPI_Abort does not return; this satisfies [[noreturn]] if it ever did.
}

MpiJobControl::MpiJobControl(const MpiJob& job, Watchdog& watchdog, int ranks_per_process,
                             std::function<void()> before_abort)
    : job_(job), watchdog_(watchdog), ranks_per_process_(ranks_per_process), before_abort_(std::move(before_abort)) {}

std::vector<std::string> MpiJobControl::gather_at_reporting_rank(const std::string& local) {
  return per_device_rank(job_.gather_strings_at_rank_zero(local), ranks_per_process_);
}

void MpiJobControl::abort_all(int exit_code) {
  if (before_abort_) before_abort_();
  job_.abort_all(exit_code);
}

void MpiJobControl::set_stall_handler(StallHandler handler) {
  // The watchdog watches processes.
  watchdog_.set_stall_handler([handler = std::move(handler), ranks = ranks_per_process_](const StallReport& report) {
    handler(per_device_rank(report, ranks));
  });
}

}  // namespace fb
