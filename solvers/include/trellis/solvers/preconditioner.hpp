#pragma once
// What the Krylov drivers see of a preconditioner M = K1 K2: z = M^{-1} r,
// and the two factors apart for split preconditioning (seed 000, Algorithm
// 2.1). A preconditioner that does not split has K1 = M, K2 = I. The
// preconditioners themselves are in preconditioners/, one per header, and
// preconditioner_factory.hpp builds them by name.
//
// Non-virtual interface, as LinearOperator: apply, apply_left and apply_right
// each take the execution-space instance first (or run on the default one);
// implementations override the protected apply_on, apply_left_on and
// apply_right_on. Kokkos Kernels' sptrsv (the ilu0-kk baseline) takes no
// instance: it runs on the default instance, which Kokkos 3.4 orders with
// the instances it creates (on CUDA the legacy default stream, against
// streams created blocking, the cudaStreamCreate default).
#include <Kokkos_Core.hpp>

#include "trellis/core/types.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class Preconditioner {
 public:
  using execution_space = typename Device::execution_space;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  virtual ~Preconditioner() = default;
  /// z = M^{-1} r (r and z distinct), queued on space.
  void apply(const execution_space& space, const_vector_type r, vector_type z) const { apply_on(space, r, z); }
  void apply(const_vector_type r, vector_type z) const { apply_on(execution_space(), r, z); }
  /// z = K1^{-1} r.
  void apply_left(const execution_space& space, const_vector_type r, vector_type z) const {
    apply_left_on(space, r, z);
  }
  void apply_left(const_vector_type r, vector_type z) const { apply_left_on(execution_space(), r, z); }
  /// z = K2^{-1} r.
  void apply_right(const execution_space& space, const_vector_type r, vector_type z) const {
    apply_right_on(space, r, z);
  }
  void apply_right(const_vector_type r, vector_type z) const { apply_right_on(execution_space(), r, z); }
  /// True when M = I: a driver may then use r where it would use z and skip
  /// the copy.
  virtual bool is_identity() const { return false; }

 protected:
  virtual void apply_on(const execution_space& space, const_vector_type r, vector_type z) const = 0;
  /// K1 = M unless overridden.
  virtual void apply_left_on(const execution_space& space, const_vector_type r, vector_type z) const {
    apply_on(space, r, z);
  }
  /// K2 = I unless overridden.
  virtual void apply_right_on(const execution_space& space, const_vector_type r, vector_type z) const {
    Kokkos::deep_copy(space, z, r);
  }
};

}  // namespace trellis
