#pragma once
// StructILU (seed 003) as a preconditioner; splits as K1 = L, K2 = U.
// Numbering::natural takes and returns vectors in the grid's numbering (each
// application permutes in and out); Numbering::layout works in the
// StructIlu's layout order, as a StencilOperator does, so that a Krylov
// solve in that order permutes only at its start and end.
#include <Kokkos_Core.hpp>
#include <memory>

#include "trellis/solvers/preconditioner.hpp"
#include "trellis/structured/struct_ilu.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class StructIluPreconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  enum class Numbering { natural, layout };
  explicit StructIluPreconditioner(std::shared_ptr<const StructIlu<Scalar, Device>> ilu,
                                   Numbering numbering = Numbering::natural)
      : ilu_(std::move(ilu)), numbering_(numbering) {}
  const StructIlu<Scalar, Device>& factors() const { return *ilu_; }
  Numbering numbering() const { return numbering_; }

 protected:
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    if (numbering_ == Numbering::natural) return ilu_->apply(space, r, z);
    copy_in(space, r, z);
    ilu_->apply_layout(space, z);
  }
  void apply_left_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    if (numbering_ == Numbering::natural) return ilu_->lower_solve(space, r, z);
    copy_in(space, r, z);
    ilu_->lower_solve_layout(space, z);
  }
  void apply_right_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    if (numbering_ == Numbering::natural) return ilu_->upper_solve(space, r, z);
    copy_in(space, r, z);
    ilu_->upper_solve_layout(space, z);
  }

 private:
  // The layout solves work in place: z = r first (sizes checked).
  void copy_in(const execution_space& space, const_vector_type r, vector_type z) const {
    ilu_->check_sizes(r, z);
    Kokkos::deep_copy(space, z, r);
  }
  std::shared_ptr<const StructIlu<Scalar, Device>> ilu_;
  Numbering numbering_;
};

}  // namespace trellis
