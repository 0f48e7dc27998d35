#pragma once
// StructILU (seed 003) as a preconditioner in the natural numbering; splits
// as K1 = L, K2 = U.
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
  explicit StructIluPreconditioner(std::shared_ptr<const StructIlu<Scalar, Device>> ilu) : ilu_(std::move(ilu)) {}
  const StructIlu<Scalar, Device>& factors() const { return *ilu_; }

 protected:
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    ilu_->apply(space, r, z);
  }
  void apply_left_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    ilu_->lower_solve(space, r, z);
  }
  void apply_right_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    ilu_->upper_solve(space, r, z);
  }

 private:
  std::shared_ptr<const StructIlu<Scalar, Device>> ilu_;
};

}  // namespace trellis
