#pragma once
// The global ILU0 as a preconditioner, with any triangular-solve algorithm;
// splits as K1 = L D, K2 = U' (seed 000, Algorithm 2.1).
#include <Kokkos_Core.hpp>
#include <memory>

#include "trellis/ilu/global_ilu0.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

/// The global ILU0.
template <class Scalar = double, class Device = DefaultDevice>
class GlobalIlu0Preconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  explicit GlobalIlu0Preconditioner(std::shared_ptr<const GlobalIlu0<Scalar, Device>> ilu) : ilu_(std::move(ilu)) {}
  const GlobalIlu0<Scalar, Device>& factors() const { return *ilu_; }

 protected:
  // GlobalIlu0 takes no instance yet: its solves run on the default instance.
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
  std::shared_ptr<const GlobalIlu0<Scalar, Device>> ilu_;
};

}  // namespace trellis
