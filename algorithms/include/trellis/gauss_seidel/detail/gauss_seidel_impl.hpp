#pragma once
// GaussSeidel: both triangles analysed once; sweeps dispatch to the
// triangular-solve kernels (fused CSR form or the CSC residual form).
#include <KokkosBlas1_axpby.hpp>
#include <KokkosSparse_spmv.hpp>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr_check.hpp"
#include "trellis/core/transpose.hpp"
#include "trellis/gauss_seidel/gauss_seidel.hpp"

namespace trellis {

namespace detail {

/// True when A's pattern equals its transpose's (values may differ).
template <class Scalar, class Device>
bool pattern_is_symmetric(const typename Device::execution_space& space, const CsrMatrix<Scalar, Device>& A) {
  CsrMatrix<Scalar, Device> T;
  on_default_instance(space, [&] { T = transpose(A); });
  if (T.nnz() != A.nnz()) return false;
  using policy = trellis::RangePolicy<typename Device::execution_space>;
  auto a_map = A.row_map, t_map = T.row_map;
  auto a_ent = A.entries, t_ent = T.entries;
  int mismatches = 0;
  Kokkos::parallel_reduce(
      "trellis::gs::pattern_symmetric", policy(space, 0, A.num_rows),
      KOKKOS_LAMBDA(ordinal_t i, int& bad) {
        if (a_map(i + 1) != t_map(i + 1)) {
          ++bad;
          return;
        }
        for (offset_t k = a_map(i); k < a_map(i + 1); ++k) bad += a_ent(k) != t_ent(k);
      },
      mismatches);
  return mismatches == 0;
}

inline bool is_csr_algorithm(TrsvAlgorithm a) {
  return a == TrsvAlgorithm::levelset_csr || a == TrsvAlgorithm::elmr || a == TrsvAlgorithm::elmr_lanes ||
         a == TrsvAlgorithm::elmr_value || a == TrsvAlgorithm::tile_levelset || a == TrsvAlgorithm::tile_syncfree ||
         a == TrsvAlgorithm::block_syncfree || a == TrsvAlgorithm::team_levelset || a == TrsvAlgorithm::automatic;
}

}  // namespace detail

template <class Scalar, class Device>
GaussSeidel<Scalar, Device>::GaussSeidel(const matrix_type& A, TrsvAlgorithm algorithm)
    : GaussSeidel(execution_space(), A, algorithm) {}

template <class Scalar, class Device>
GaussSeidel<Scalar, Device>::GaussSeidel(const execution_space& space, const matrix_type& A, TrsvAlgorithm algorithm)
    : A_(A), fused_(detail::is_csr_algorithm(algorithm)) {
  check_canonical(A, "GaussSeidel");
  std::string reason;  // automatic chooses per triangle; algorithm(tri) reports it
  lower_ = detail::analyze(space, A, Triangle::lower, /*unit_diagonal=*/false, algorithm,
                           /*keep_other=*/fused_, reason);
  upper_ = detail::analyze(space, A, Triangle::upper, /*unit_diagonal=*/false, algorithm,
                           /*keep_other=*/fused_, reason);
  in_place_ = fused_ && detail::pattern_is_symmetric(space, A);
  const auto n = A.num_rows;
  // Both are filled by a copy before each use.
  work_ = vector_type(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::gs::work"), n);
  if (!in_place_)
    previous_ = vector_type(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::gs::previous"), n);
  numeric(space, A);
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::numeric(const matrix_type& A) {
  numeric(execution_space(), A);
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::numeric(const execution_space& space, const matrix_type& A) {
  detail::load_values(space, lower_, A, const_vector_type());
  detail::load_values(space, upper_, A, const_vector_type());
  A_ = A;
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::sweep(const execution_space& space, const_vector_type b, vector_type x,
                                        Triangle tri) const {
  auto& plans = tri == Triangle::lower ? lower_ : upper_;
  if (fused_) {
    // (L + D) x_{k+1} = b - U x_k in one kernel: in place when the pattern is
    // symmetric (every x(j) of the opposite triangle is still x_k(j) when row
    // i reads it), else reading a saved copy of x_k.
    if (in_place_) {
      detail::run_solve(space, plans, b, x, const_vector_type(x));
    } else {
      Kokkos::deep_copy(space, previous_, x);
      detail::run_solve(space, plans, b, x, const_vector_type(previous_));
    }
  } else {
    // Eq. 5.3: r = b - A x_k; x_{k+1} = x_k + (L + D)^{-1} r.
    Kokkos::deep_copy(space, work_, b);
    detail::on_default_instance(space,
                                [&] { KokkosSparse::spmv("N", Scalar(-1), to_kokkos(A_), x, Scalar(1), work_); });
    detail::run_solve(space, plans, const_vector_type(work_), work_, const_vector_type(work_));
    detail::on_default_instance(space, [&] { KokkosBlas::axpy(Scalar(1), work_, x); });
  }
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::apply(const_vector_type b, vector_type x, SweepDirection direction,
                                        int sweeps) const {
  apply(execution_space(), b, x, direction, sweeps);
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::apply(const execution_space& space, const_vector_type b, vector_type x,
                                        SweepDirection direction, int sweeps) const {
  if (b.extent(0) != size_t(A_.num_rows) || x.extent(0) != size_t(A_.num_rows))
    throw StructureError("Gauss-Seidel: vectors of length " + std::to_string(b.extent(0)) + " and " +
                         std::to_string(x.extent(0)) + " for " + std::to_string(A_.num_rows) + " rows");
  if (b.data() == x.data()) throw StructureError("Gauss-Seidel: b and x must be different Views");
  for (int s = 0; s < sweeps; ++s) {
    if (direction != SweepDirection::backward) sweep(space, b, x, Triangle::lower);
    if (direction != SweepDirection::forward) sweep(space, b, x, Triangle::upper);
  }
}

}  // namespace trellis
