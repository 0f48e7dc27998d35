#pragma once
// TriangularSolver: analysis, numeric update, dispatch to the kernels.
#include <Kokkos_Timer.hpp>
#include <cstdio>

#include "trellis/trsv/detail/element_kernels.hpp"
#include "trellis/trsv/detail/levelset_kernels.hpp"
#include "trellis/trsv/detail/value_flag_kernels.hpp"
#include "trellis/trsv/triangular_solver.hpp"

namespace trellis {

namespace detail {

inline bool needs_csc(TrsvAlgorithm a) {
  return a == TrsvAlgorithm::levelset_csc || a == TrsvAlgorithm::elmc ||
         a == TrsvAlgorithm::syncfree_naive;
}

/// `automatic`: on host backends the level-set CSR solve (threads are few,
/// spinning wastes them); on GPUs elmr-value, the fastest Trellis algorithm
/// on every problem of the H100 suite, few-level ones included
/// (perf_tests/RESULTS.md).
template <class Exec, class Levels>
TrsvAlgorithm choose_algorithm(const Levels& levels, std::string& reason) {
  char buf[160];
  const bool host = is_host_space<Exec>();
  std::snprintf(buf, sizeof buf, "auto: %s backend, %d levels, %.1f rows/level on average",
                host ? "host" : "GPU", levels.num_levels, levels.avg_parallelism());
  reason = buf;
  return host ? TrsvAlgorithm::levelset_csr : TrsvAlgorithm::elmr_value;
}

/// Runs one solve with a concrete algorithm. x_old is Gauss-Seidel's x_k for
/// factors that keep the opposite triangle (CSR algorithms only).
template <class Scalar, class Device>
void run_solve(TrsvAlgorithm algorithm, FactorData<Scalar, Device>& d,
               Kokkos::View<const Scalar*, Device> b, Kokkos::View<Scalar*, Device> x,
               Kokkos::View<const Scalar*, Device> x_old) {
  switch (algorithm) {
    case TrsvAlgorithm::levelset_csr: levelset_csr_solve(d, b, x, x_old); break;
    case TrsvAlgorithm::levelset_csc: levelset_csc_solve(d, b, x); break;
    case TrsvAlgorithm::elmr: elmr_solve(d, b, x, x_old); break;
    case TrsvAlgorithm::elmr_value: elmr_value_solve(d, b, x, x_old); break;
    case TrsvAlgorithm::elmc: elmc_solve(d, b, x); break;
    case TrsvAlgorithm::syncfree_naive: syncfree_naive_solve(d, b, x); break;
    case TrsvAlgorithm::automatic: throw Error("run_solve: algorithm not resolved");
  }
}

}  // namespace detail

template <class Scalar, class Device>
TriangularSolver<Scalar, Device>::TriangularSolver(const matrix_type& T, TrsvOptions options)
    : options_(options), algorithm_(options.algorithm) {
  using exec = typename Device::execution_space;
  Kokkos::fence();
  Kokkos::Timer timer;
  // The CSC copy is built when the requested algorithm needs it; `automatic`
  // only ever picks CSR algorithms.
  detail::analyze_factor(data_, T, options.triangle, options.unit_diagonal,
                         detail::needs_csc(options.algorithm));
  if (algorithm_ == TrsvAlgorithm::automatic)
    algorithm_ = detail::choose_algorithm<exec>(data_.levels, reason_);
  else
    reason_ = std::string("requested ") + to_string(algorithm_);
  Kokkos::fence();
  analysis_seconds_ = timer.seconds();
  numeric(T);
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::numeric(const matrix_type& T) {
  detail::load_factor_values(data_, T, const_vector_type());
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::numeric(const matrix_type& T, const_vector_type diagonal) {
  if (!diagonal.data() && data_.n > 0)
    throw StructureError("triangular solve: numeric() got an empty diagonal");
  detail::load_factor_values(data_, T, diagonal);
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::solve(const_vector_type b, vector_type x) const {
  if (b.extent(0) != size_t(data_.n) || x.extent(0) != size_t(data_.n))
    throw StructureError("triangular solve: vectors of length " + std::to_string(b.extent(0)) +
                         " and " + std::to_string(x.extent(0)) + " for " +
                         std::to_string(data_.n) + " rows");
  detail::run_solve(algorithm_, data_, b, x, const_vector_type(x));
}

}  // namespace trellis
