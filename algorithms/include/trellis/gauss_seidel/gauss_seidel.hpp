#pragma once
// Gauss-Seidel sweeps built on the triangular solves (seed 002, section 5.2):
// forward (L + D) x_{k+1} = b - U x_k, backward (U + D) x_{k+1} = b - L x_k,
// symmetric = forward then backward. Usable as a smoother or preconditioner.
//
// CSR algorithms run the sweep as one modified triangular solve that reads
// x_k for the other triangle; when A's pattern is symmetric the sweep runs in
// place on one vector (the paper's argument: every x(j), j > i, that row i
// reads is still x_k(j) when row i is solved). CSC algorithms use eq. 5.3:
// r = b - A x_k, x_{k+1} = x_k + (L + D)^{-1} r.
//
// Setup and apply have overloads taking an execution-space instance first;
// the others use the default instance. Applications with one object must
// not overlap (threads or instances): they share its flags and work vectors.
#include <Kokkos_Core.hpp>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/eti.hpp"
#include "trellis/gauss_seidel/sweep_direction.hpp"
#include "trellis/trsv/triangular_solver.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class GaussSeidel {
 public:
  using execution_space = typename Device::execution_space;
  using matrix_type = CsrMatrix<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;

  /// Analysis of both triangles of A with the given triangular-solve
  /// algorithm (automatic: chosen per triangle). A must be square with a
  /// stored, nonzero diagonal (PivotError names the row otherwise).
  GaussSeidel(const execution_space& space, const matrix_type& A, TrsvAlgorithm algorithm = TrsvAlgorithm::automatic);
  GaussSeidel(const matrix_type& A, TrsvAlgorithm algorithm = TrsvAlgorithm::automatic);

  /// New values for the same pattern.
  void numeric(const execution_space& space, const matrix_type& A);
  void numeric(const matrix_type& A);

  /// `sweeps` sweeps on A x = b, starting from and overwriting x.
  void apply(const execution_space& space, const_vector_type b, vector_type x, SweepDirection direction,
             int sweeps = 1) const;
  void apply(const_vector_type b, vector_type x, SweepDirection direction, int sweeps = 1) const;

  /// True when the CSR sweeps run in place (A's pattern is symmetric).
  bool in_place() const { return in_place_; }
  /// True for CSR algorithms (one fused sweep kernel), false for the CSC
  /// form r = b - A x_k, x_{k+1} = x_k + (L + D)^{-1} r.
  bool fused() const { return fused_; }
  TrsvAlgorithm algorithm(Triangle t) const { return t == Triangle::lower ? lower_.algorithm : upper_.algorithm; }

 private:
  void sweep(const execution_space& space, const_vector_type b, vector_type x, Triangle tri) const;

  matrix_type A_;
  bool fused_ = true;
  bool in_place_ = false;
  // Mutable: a sweep advances the element plans' epochs.
  mutable detail::SolvePlans<Scalar, Device> lower_, upper_;
  vector_type work_, previous_;
};

}  // namespace trellis

#include "trellis/gauss_seidel/detail/gauss_seidel_impl.hpp"

#if TRELLIS_ENABLE_ETI  // compiled once per backend for double (core/eti.hpp)
namespace trellis {
#define TRELLIS_GAUSS_SEIDEL_ETI(DEVICE) extern template class GaussSeidel<double, DEVICE>;
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_GAUSS_SEIDEL_ETI)
#undef TRELLIS_GAUSS_SEIDEL_ETI
}  // namespace trellis
#endif
