#include "trellis/distributed/communicator.hpp"

#include <string>

#include "trellis/core/errors.hpp"

namespace trellis::distributed {

#if TRELLIS_ENABLE_MPI
Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  if (comm == MPI_COMM_NULL) throw InputError("Communicator: MPI_COMM_NULL");
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}
#endif

void Communicator::allreduce_sum(double* values, int n) const {
  if (n < 0) throw InputError("Communicator::allreduce_sum: negative count " + std::to_string(n));
  if (size_ == 1 || n == 0) return;  // the single process: no MPI call
#if TRELLIS_ENABLE_MPI
  MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, comm_);
#else
  (void)values;  // size_ > 1 cannot happen without MPI
#endif
}

void Communicator::allreduce_max(double* values, int n) const {
  if (n < 0) throw InputError("Communicator::allreduce_max: negative count " + std::to_string(n));
  if (size_ == 1 || n == 0) return;
#if TRELLIS_ENABLE_MPI
  MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, comm_);
#else
  (void)values;
#endif
}

}  // namespace trellis::distributed
