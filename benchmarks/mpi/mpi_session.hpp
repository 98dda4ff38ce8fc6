#pragma once
// MPI for the life of a backend: initialized with errors returned (not fatal), and where every
// process runs. The MPI backend measures with it; the NCCL backend bootstraps over it.

#include "benchmarks/core/watchdog.hpp"

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

namespace fb {

class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // The host name of every process, by rank.
  const std::vector<std::string>& process_hosts() const { return process_hosts_; }
  // This process's index among the processes on its host, and how many there are.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  // The watchdog's rendezvous, over MPI_Bcast on the session's communicator.
  BroadcastFromRankZero broadcast_from_rank_zero() const;

  // "mpi_library" and "mpi_standard", for provenance.
  std::map<std::string, std::string> library_versions() const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::vector<std::string> process_hosts_;
};

// Every rank's `mine` at rank 0 of `comm`, by rank; empty on the other ranks. Collective.
std::vector<std::string> gather_strings_at_rank_zero(MPI_Comm comm, const std::string& mine);

}  // namespace fb
