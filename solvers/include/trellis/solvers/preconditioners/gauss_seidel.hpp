#pragma once
// Gauss-Seidel sweeps as a preconditioner.
#include <Kokkos_Core.hpp>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/gauss_seidel/gauss_seidel.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

/// Gauss-Seidel sweeps from z = 0 (forward, backward or symmetric; the
/// symmetric one keeps M symmetric for CG) on any triangular-solve algorithm.
template <class Scalar = double, class Device = DefaultDevice>
class GaussSeidelPreconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  GaussSeidelPreconditioner(const CsrMatrix<Scalar, Device>& A, SweepDirection direction,
                            TrsvAlgorithm algorithm = TrsvAlgorithm::automatic, int sweeps = 1)
      : gs_(A, algorithm), direction_(direction), sweeps_(sweeps) {}

 protected:
  // GaussSeidel::apply takes no instance yet: the sweeps run on the default
  // instance, after the fill on space (see preconditioner.hpp).
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    Kokkos::deep_copy(space, z, Scalar(0));
    gs_.apply(space, r, z, direction_, sweeps_);
  }

 private:
  GaussSeidel<Scalar, Device> gs_;
  SweepDirection direction_;
  int sweeps_;
};

}  // namespace trellis
