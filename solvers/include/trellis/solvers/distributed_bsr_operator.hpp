#pragma once
// A BSR matrix distributed by block rows over MPI ranks as a Krylov
// operator: each rank's rows split into the diagonal part (own columns) and
// the off-diagonal part (ghost columns); y = A x exchanges the ghosts
// (distributed/halo_exchange.hpp) while the diagonal part's block SpMV runs,
// then adds the off-diagonal part. With distributed preconditioners (the DD
// ILDU0 of seed 000 section 4.5) it makes BiCGSTAB, CG and GMRES run on
// several GPUs with the single-process drivers.
#include <string>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/distributed/agreement.hpp"
#include "trellis/distributed/block_rows.hpp"
#include "trellis/distributed/halo_exchange.hpp"
#include "trellis/solvers/linear_operator.hpp"
#include "trellis/spmv/bsr_spmv.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class DistributedBsrOperator : public LinearOperator<Scalar, Device> {
 public:
  using typename LinearOperator<Scalar, Device>::execution_space;
  using typename LinearOperator<Scalar, Device>::vector_type;
  using typename LinearOperator<Scalar, Device>::const_vector_type;

  /// Collective. local: this rank's block rows [offsets[rank], offsets[rank +
  /// 1]) with global block columns; offsets the same on every rank. Layout
  /// errors (and a block size without kernels) are InputErrors on every rank.
  DistributedBsrOperator(const distributed::Communicator& comm, const HostBsr& local,
                         const std::vector<ordinal_t>& offsets,
                         distributed::HaloBuffers buffers = distributed::HaloBuffers::automatic)
      : comm_(comm) {
    std::string e = distributed::block_row_layout_problem(comm, offsets, local.num_block_rows, local.num_block_cols);
    if (e.empty() && (local.block_size < 1 || local.block_size > detail::max_block_size))
      e = "block size b = " + std::to_string(local.block_size) + " has no kernel (1.." +
          std::to_string(detail::max_block_size) + ")";
    const std::string b_agree = distributed::disagreement(comm, "the block size", local.block_size);
    if (e.empty()) e = b_agree;
    distributed::throw_if_any_rank_failed(comm, e.empty() ? e : "distributed BSR operator: " + e);
    const ordinal_t first = offsets[size_t(comm.rank())];
    const auto ghosts = distributed::ghost_block_columns({&local}, first);
    diagonal_ = copy_to<Device>(distributed::diagonal_part(local, first));
    off_diagonal_ = copy_to<Device>(distributed::off_diagonal_part(local, first, ghosts));
    halo_ = distributed::HaloExchange<Scalar, Device>(comm, distributed::make_halo_plan(comm, offsets, ghosts),
                                                      local.block_size, 1, local.num_block_rows,
                                                      ordinal_t(ghosts.size()), buffers);
  }

  ordinal_t num_rows() const override { return diagonal_.num_rows(); }
  const distributed::Communicator& communicator() const override { return comm_; }
  const distributed::HaloExchange<Scalar, Device>& halo() const { return halo_; }

 protected:
  void apply_on(const execution_space& space, const_vector_type x, vector_type y) const override {
    halo_.start(space, x);
    bsr_spmv(space, Scalar(1), diagonal_, x, Scalar(0), y);
    halo_.finish(space);
    if (off_diagonal_.nnz_blocks() > 0) bsr_spmv(space, Scalar(1), off_diagonal_, halo_.ghosts(), Scalar(1), y);
  }

 private:
  distributed::Communicator comm_;
  BsrMatrix<Scalar, Device> diagonal_, off_diagonal_;
  mutable distributed::HaloExchange<Scalar, Device> halo_;
};

}  // namespace trellis
