#pragma once
// The processes a distributed solve runs on: rank(), size() and the one
// collective the Krylov drivers need, a sum over all processes of a few
// doubles (solvers/detail/vector_ops.hpp, global_sum, is its only caller in
// the drivers). Default-constructed it is the single process and never calls
// MPI, so serial code needs neither MPI_Init nor an MPI build.
#include "trellis/config.hpp"
#if TRELLIS_ENABLE_MPI
#include <mpi.h>
#endif

namespace trellis::distributed {

class Communicator {
 public:
  /// The single process: rank 0 of 1; allreduce_sum is the identity.
  Communicator() = default;
#if TRELLIS_ENABLE_MPI
  /// The processes of comm (MPI initialized by the caller). comm is neither
  /// duplicated nor freed: it must outlive this object. Collective calls are
  /// made only when comm has more than one process.
  explicit Communicator(MPI_Comm comm);
  /// The MPI communicator (MPI_COMM_SELF for the single process).
  MPI_Comm mpi_comm() const { return comm_; }
#endif

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool single_process() const { return size_ == 1; }

  /// values[0..n) (host memory) = their sums over all processes, in place.
  /// Collective: every process calls it with the same n. One process: returns
  /// at once. The sum order is MPI's (fixed for a fixed process count with
  /// the usual MPI_Allreduce algorithms, but not specified by the standard).
  void allreduce_sum(double* values, int n) const;
  /// values[0..n) = their maxima over all processes, in place (as allreduce_sum).
  void allreduce_max(double* values, int n) const;

 private:
  int rank_ = 0;
  int size_ = 1;
#if TRELLIS_ENABLE_MPI
  MPI_Comm comm_ = MPI_COMM_SELF;
#endif
};

}  // namespace trellis::distributed
