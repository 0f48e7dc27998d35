#pragma once
// What the Krylov drivers see of a preconditioner M = K1 K2: z = M^{-1} r,
// and the two factors apart for split preconditioning (seed 000, Algorithm
// 2.1). A preconditioner that does not split has K1 = M, K2 = I. The
// preconditioners themselves are in preconditioners/, one per header, and
// preconditioner_factory.hpp builds them by name.
#include <Kokkos_Core.hpp>

#include "trellis/core/types.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class Preconditioner {
 public:
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  virtual ~Preconditioner() = default;
  /// z = M^{-1} r (r and z distinct).
  virtual void apply(const_vector_type r, vector_type z) const = 0;
  /// z = K1^{-1} r.
  virtual void apply_left(const_vector_type r, vector_type z) const { apply(r, z); }
  /// z = K2^{-1} r.
  virtual void apply_right(const_vector_type r, vector_type z) const { Kokkos::deep_copy(z, r); }
};

}  // namespace trellis
