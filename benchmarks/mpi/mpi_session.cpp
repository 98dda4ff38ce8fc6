#include "benchmarks/mpi/mpi_session.hpp"

#include "benchmarks/mpi/mpi_check.hpp"

#include <fmt/format.h>

#include <cstring>

namespace fb {

MpiSession::MpiSession(int& argc, char**& argv) {
  FB_MPI_CHECK(MPI_Init(&argc, &argv));
  // Failed calls must come back to FB_MPI_CHECK, not kill the job without a word.
  FB_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  FB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  FB_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));

  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_length = 0;
  FB_MPI_CHECK(MPI_Get_processor_name(host, &host_length));
  std::vector<char> all_hosts(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  FB_MPI_CHECK(MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all_hosts.data(), MPI_MAX_PROCESSOR_NAME,
                             MPI_CHAR, MPI_COMM_WORLD));
  for (int rank = 0; rank < size_; ++rank) {
    const char* name = all_hosts.data() + static_cast<std::size_t>(rank) * MPI_MAX_PROCESSOR_NAME;
    process_hosts_.emplace_back(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
  }

  MPI_Comm host_comm = MPI_COMM_NULL;
  FB_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_comm));
  FB_MPI_CHECK(MPI_Comm_rank(host_comm, &local_rank_));
  FB_MPI_CHECK(MPI_Comm_size(host_comm, &local_size_));
  FB_MPI_CHECK(MPI_Comm_free(&host_comm));
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::map<std::string, std::string> MpiSession::library_versions() const {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  FB_MPI_CHECK(MPI_Get_library_version(library, &length));
  // The reported length counts a terminating NUL in Open MPI; later lines are build details.
  std::string text(library, strnlen(library, static_cast<std::size_t>(length)));
  text = text.substr(0, text.find_first_of("\r\n"));
  int major = 0;
  int minor = 0;
  FB_MPI_CHECK(MPI_Get_version(&major, &minor));
  return {{"mpi_library", text}, {"mpi_standard", fmt::format("{}.{}", major, minor)}};
}

BroadcastFromRankZero MpiSession::broadcast_from_rank_zero() const {
  return [comm = comm()](std::span<std::byte> blob) {
    FB_MPI_CHECK(MPI_Bcast(blob.data(), static_cast<int>(blob.size()), MPI_BYTE, 0, comm));
  };
}

std::vector<std::string> gather_strings_at_rank_zero(MPI_Comm comm, const std::string& mine) {
  int rank = 0;
  int nranks = 0;
  FB_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  FB_MPI_CHECK(MPI_Comm_size(comm, &nranks));
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(nranks) : 0);
  FB_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm));
  std::vector<int> offsets(lengths.size());
  std::string joined;
  if (rank == 0) {
    int total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = total;
      total += lengths[i];
    }
    joined.resize(static_cast<std::size_t>(total));
  }
  FB_MPI_CHECK(MPI_Gatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                           comm));
  std::vector<std::string> strings;
  for (std::size_t i = 0; i < lengths.size(); ++i)
    strings.push_back(joined.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  return strings;
}

}  // namespace fb
