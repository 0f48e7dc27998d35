#include "trellis/distributed/agreement.hpp"

#include <vector>

#include "trellis/core/errors.hpp"

namespace trellis::distributed {

std::string disagreement(const Communicator& comm, const std::string& what, long long value) {
  long long lo = value, hi = value;
#if TRELLIS_ENABLE_MPI
  if (!comm.single_process()) {
    MPI_Allreduce(&value, &lo, 1, MPI_LONG_LONG, MPI_MIN, comm.mpi_comm());
    MPI_Allreduce(&value, &hi, 1, MPI_LONG_LONG, MPI_MAX, comm.mpi_comm());
  }
#else
  (void)comm;
#endif
  if (lo == hi) return "";
  return "inconsistent MPI layout: ranks disagree on " + what + " (from " + std::to_string(lo) + " to " +
         std::to_string(hi) + "; this rank: " + std::to_string(value) + ")";
}

void throw_if_any_rank_failed(const Communicator& comm, const std::string& error) {
  if (comm.single_process()) {
    if (!error.empty()) throw InputError(error);
    return;
  }
#if TRELLIS_ENABLE_MPI
  // The lowest failing rank broadcasts its text: length first, then the bytes.
  const int mine = error.empty() ? comm.size() : comm.rank();
  int first = mine;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.mpi_comm());
  if (first == comm.size()) return;
  int length = first == comm.rank() ? int(error.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm.mpi_comm());
  std::vector<char> text(error.begin(), error.end());
  text.resize(size_t(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm.mpi_comm());
  throw InputError("rank " + std::to_string(first) + ": " + std::string(text.begin(), text.end()));
#endif
}

}  // namespace trellis::distributed
