#pragma once
// GaussSeidel: both triangles analysed once; sweeps dispatch to the
// triangular-solve kernels (fused CSR form or the CSC residual form).
#include <KokkosBlas1_axpby.hpp>
#include <KokkosSparse_spmv.hpp>

#include "trellis/core/transpose.hpp"

namespace trellis {

namespace detail {

/// True when A's pattern equals its transpose's (values may differ).
template <class Scalar, class Device>
bool pattern_is_symmetric(const CsrMatrix<Scalar, Device>& A) {
  const auto T = transpose(A);
  if (T.nnz() != A.nnz()) return false;
  using policy = Kokkos::RangePolicy<typename Device::execution_space>;
  auto a_map = A.row_map, t_map = T.row_map;
  auto a_ent = A.entries, t_ent = T.entries;
  int mismatches = 0;
  Kokkos::parallel_reduce(
      "trellis::gs::pattern_symmetric", policy(0, A.num_rows),
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
  return a == TrsvAlgorithm::levelset_csr || a == TrsvAlgorithm::elmr ||
         a == TrsvAlgorithm::elmr_value || a == TrsvAlgorithm::automatic;
}

}  // namespace detail

template <class Scalar, class Device>
GaussSeidel<Scalar, Device>::GaussSeidel(const matrix_type& A, TrsvAlgorithm algorithm)
    : A_(A), fused_(detail::is_csr_algorithm(algorithm)) {
  using exec = typename Device::execution_space;
  for (Triangle tri : {Triangle::lower, Triangle::upper}) {
    auto& d = tri == Triangle::lower ? lower_ : upper_;
    auto& alg = tri == Triangle::lower ? lower_alg_ : upper_alg_;
    detail::analyze_factor(d, A, tri, false, !fused_, /*keep_other=*/fused_);
    std::string reason;
    alg = algorithm == TrsvAlgorithm::automatic ? detail::choose_algorithm<exec>(d.levels, reason)
                                                : algorithm;
  }
  in_place_ = fused_ && detail::pattern_is_symmetric(A);
  work_ = vector_type("gs_work", A.num_rows);
  if (!in_place_) previous_ = vector_type("gs_previous", A.num_rows);
  numeric(A);
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::numeric(const matrix_type& A) {
  detail::load_factor_values(lower_, A, const_vector_type());
  detail::load_factor_values(upper_, A, const_vector_type());
  A_ = A;
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::sweep(const_vector_type b, vector_type x, Triangle tri) const {
  auto& d = tri == Triangle::lower ? lower_ : upper_;
  const TrsvAlgorithm alg = algorithm(tri);
  if (fused_) {
    // (L + D) x_{k+1} = b - U x_k in one kernel: in place when the pattern is
    // symmetric (every x(j) of the opposite triangle is still x_k(j) when row
    // i reads it), else reading a saved copy of x_k.
    if (in_place_) {
      detail::run_solve(alg, d, b, x, const_vector_type(x));
    } else {
      Kokkos::deep_copy(previous_, x);
      detail::run_solve(alg, d, b, x, const_vector_type(previous_));
    }
  } else {
    // Eq. 5.3: r = b - A x_k; x_{k+1} = x_k + (L + D)^{-1} r.
    Kokkos::deep_copy(work_, b);
    KokkosSparse::spmv("N", Scalar(-1), to_kokkos(A_), x, Scalar(1), work_);
    detail::run_solve(alg, d, const_vector_type(work_), work_, const_vector_type(work_));
    KokkosBlas::axpy(Scalar(1), work_, x);
  }
}

template <class Scalar, class Device>
void GaussSeidel<Scalar, Device>::apply(const_vector_type b, vector_type x,
                                        SweepDirection direction, int sweeps) const {
  if (b.extent(0) != size_t(A_.num_rows) || x.extent(0) != size_t(A_.num_rows))
    throw StructureError("Gauss-Seidel: vectors of length " + std::to_string(b.extent(0)) +
                         " and " + std::to_string(x.extent(0)) + " for " +
                         std::to_string(A_.num_rows) + " rows");
  if (b.data() == x.data()) throw StructureError("Gauss-Seidel: b and x must be different Views");
  for (int s = 0; s < sweeps; ++s) {
    if (direction != SweepDirection::backward) sweep(b, x, Triangle::lower);
    if (direction != SweepDirection::forward) sweep(b, x, Triangle::upper);
  }
}

}  // namespace trellis
