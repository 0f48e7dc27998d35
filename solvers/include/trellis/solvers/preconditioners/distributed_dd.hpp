#pragma once
// The multi-GPU DD ILDU0 (seed 000 section 4.5, DistributedDdIlu) as a
// Preconditioner of the Krylov drivers: each rank applies ILDU0 to its own
// subdomains, vectors being its rows of the reordered numbering (those of a
// DistributedBsrOperator built on the reordered matrix with
// DistributedDdIlu::block_row_offsets()). No communication.
#include "trellis/config.hpp"
#if TRELLIS_ENABLE_MPI
#include <memory>

#include "trellis/dd/distributed_ilu.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class DistributedDdPreconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  DistributedDdPreconditioner(std::shared_ptr<const DistributedDdIlu<Scalar, Device>> dd, DdApply variant)
      : dd_(std::move(dd)), variant_(variant) {}

 protected:
  /// DistributedDdIlu::apply runs on the default instance; a fence orders it
  /// after the work already queued on space.
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    space.fence();
    dd_->apply(r, z, variant_);
  }

 private:
  std::shared_ptr<const DistributedDdIlu<Scalar, Device>> dd_;
  DdApply variant_;
};

}  // namespace trellis
#endif
