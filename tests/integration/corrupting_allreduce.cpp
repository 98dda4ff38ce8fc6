// Fault injection for the test build only: linked into fabricbench_fault_injected, never into
// fabricbench. It proves that a wrong result reaches the results files, the summary and the exit
// code, through the same validator as a real fault.
//
// Design: rather than adding a test hook to the backend (a virtual on every MpiOpCase, or a
// byte flip in MpiBackend::measure(), which cannot see the buffers), this file interposes on
// MPI_Allreduce through the MPI profiling interface (PMPI): the real call runs, then, on the rank
// named by FABRICBENCH_CORRUPT_RANK, the first element of a float result is changed, as a
// faulty NIC or library would. The product's sources carry no test code, and the corruption
// happens where real corruption happens: in the data MPI hands back.
//
// Only MPI_FLOAT calls are corrupted: the integration test runs all_reduce on float, while the
// harness's own all-reduces (the wrong-element count, all_agree) use integer types and must stay
// correct for the count to be reported.

#include <mpi.h>

#include <cstdlib>
#include <string>

extern "C" int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const int result = PMPI_Allreduce(send, recv, count, type, op, comm);
  const char* corrupt_rank = std::getenv("FABRICBENCH_CORRUPT_RANK");
  if (result != MPI_SUCCESS || corrupt_rank == nullptr || type != MPI_FLOAT || count < 1) return result;
  int rank = -1;
  PMPI_Comm_rank(comm, &rank);
  if (std::to_string(rank) == corrupt_rank) static_cast<float*>(recv)[0] += 1.0f;
  return result;
}
