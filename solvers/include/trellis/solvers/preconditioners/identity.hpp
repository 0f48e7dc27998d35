#pragma once
// M = I: the unpreconditioned solve.
#include <Kokkos_Core.hpp>

#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class IdentityPreconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  bool is_identity() const override { return true; }

 protected:
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    Kokkos::deep_copy(space, z, r);
  }
};

}  // namespace trellis
