#pragma once
// ILU0 of a whole CSR matrix (no subdomains), applied with any of the
// triangular-solve algorithms: the global-ILU0 preconditioner the
// domain-decomposition one is measured against, and a preconditioner in its
// own right. The factorization is the engine's row update (factorization.hpp),
// on GPUs in one sync-free launch, rows in level order of the lower triangle
// (sync_free_factorization.hpp), on host backends a level at a time; its factors are
// A ~ L D U' with unit L and U', applied as z = U'^{-1} D^{-1} L^{-1} r.
// Calls that run work take an execution-space instance first (the default
// instance where it is left out); double is compiled once in the library.
// numeric(A_new) factors new values of the same pattern again (no analysis,
// no device allocation after the first call from host values).
// Applications with one object must not overlap (threads or instances):
// they share its triangular solvers' flags and its work vector. Build one
// object per concurrent caller (DomainDecompositionIlu has no such limit).
#include <Kokkos_Core.hpp>

#include <memory>

#include "trellis/core/backend.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_check.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/device_copy.hpp"
#include "trellis/core/eti.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/core/view_arena.hpp"
#include "trellis/ilu/block_factors.hpp"
#include "trellis/ilu/block_split.hpp"
#include "trellis/ilu/factorization.hpp"
#include "trellis/ilu/pivot_options.hpp"
#include "trellis/ilu/sync_free_factorization.hpp"
#include "trellis/trsv/triangular_solver.hpp"

namespace trellis {

namespace detail {

/// A strict triangle plus one diagonal entry per row: 1 after the row
/// (lower) or D_i = 1 / inv_diag_i before it, the row scaled by D_i (upper).
/// (A free function: CUDA lambdas may not live in private members.)
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> with_diagonal(const typename Device::execution_space& space,
                                        Kokkos::View<offset_t*, Device> map, Kokkos::View<ordinal_t*, Device> col,
                                        Kokkos::View<Scalar*, Device> val, Kokkos::View<Scalar*, Device> inv,
                                        bool upper) {
  const ordinal_t n = ordinal_t(map.extent(0)) - 1;
  Kokkos::View<offset_t*, Device> out_map("trellis::ilu0::map", size_t(n) + 1);
  Kokkos::View<ordinal_t*, Device> out_col("trellis::ilu0::col", col.extent(0) + n);
  Kokkos::View<Scalar*, Device> out_val("trellis::ilu0::val", col.extent(0) + n);
  Kokkos::parallel_for(
      "trellis::ilu0::with_diagonal", trellis::RangePolicy<typename Device::execution_space>(space, 0, n),
      KOKKOS_LAMBDA(ordinal_t i) {
        const Scalar d = upper ? Scalar(1) / inv(i) : Scalar(1);
        offset_t p = map(i) + i;
        out_map(i + 1) = map(i + 1) + i + 1;
        if (upper) out_col(p) = i, out_val(p++) = d;
        for (offset_t k = map(i); k < map(i + 1); ++k) out_col(p) = col(k), out_val(p++) = upper ? d * val(k) : val(k);
        if (!upper) out_col(p) = i, out_val(p) = d;
      });
  return CsrMatrix<Scalar, Device>(n, n, out_map, out_col, out_val);
}

/// The first row whose pattern (entry count or columns) differs between A
/// and P (same sizes), or P's row count if none. Row extents and columns
/// are compared position by position (coalesced): where the extents first
/// differ, at row r's end, the columns' mismatches further on belong to
/// rows from r on, so the first bad row is still r's or an earlier one.
template <class Scalar, class Device>
ordinal_t first_row_with_other_pattern(const typename Device::execution_space& space,
                                       const BsrMatrix<Scalar, Device>& A, const BsrMatrix<Scalar, Device>& P) {
  const auto a_map = A.row_map, p_map = P.row_map;
  const auto a_ent = A.entries, p_ent = P.entries;
  const ordinal_t n = P.num_block_rows;
  const offset_t nnz = offset_t(P.entries.extent(0));
  ordinal_t first = n;
  Kokkos::parallel_reduce(
      "trellis::ilu0::numeric_pattern",
      trellis::RangePolicy<typename Device::execution_space>(space, 0, nnz > offset_t(n) ? nnz : offset_t(n)),
      KOKKOS_LAMBDA(offset_t t, ordinal_t & bad) {
        if (t < offset_t(n) && (a_map(t + 1) != p_map(t + 1) || (t == 0 && a_map(0) != p_map(0))) && ordinal_t(t) < bad)
          bad = ordinal_t(t);
        if (t < nnz && a_ent(t) != p_ent(t)) {
          ordinal_t lo = 0, hi = n - 1;  // the row of position t in P: the last r with p_map(r) <= t
          while (lo < hi) {
            const ordinal_t mid = (lo + hi + 1) / 2;
            if (p_map(mid) <= t)
              lo = mid;
            else
              hi = mid - 1;
          }
          if (lo < bad) bad = lo;
        }
      },
      Kokkos::Min<ordinal_t>(first));
  return first;
}

}  // namespace detail

template <class Scalar = double, class Device = DefaultDevice>
class GlobalIlu0 {
 public:
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  using execution_space = typename Device::execution_space;

  /// Throws PivotError naming the row of a zero, tiny or non-finite pivot
  /// (unless pivots.boost is set), StructureError for a missing diagonal.
  GlobalIlu0(const execution_space& space, const HostCsr& A, ilu::PivotOptions pivots = {},
             TrsvAlgorithm algorithm = TrsvAlgorithm::automatic);
  GlobalIlu0(const HostCsr& A, ilu::PivotOptions pivots = {}, TrsvAlgorithm algorithm = TrsvAlgorithm::automatic)
      : GlobalIlu0(execution_space(), A, pivots, algorithm) {}
  /// From a matrix already on the device (as an application keeps it for
  /// its SpMV): nothing is copied. A's pattern arrays are kept for
  /// numeric()'s check and must not change (new values may come in new or
  /// the same values arrays; numeric() with these pattern arrays compares
  /// nothing). Checked on the device.
  template <class D, class = std::enable_if_t<std::is_same<D, Device>::value>>
  GlobalIlu0(const execution_space& space, const CsrMatrix<Scalar, D>& A, ilu::PivotOptions pivots = {},
             TrsvAlgorithm algorithm = TrsvAlgorithm::automatic) {
    const ProfilingRegion region("trellis::ilu0::setup");
    check_square(A.num_rows, A.num_cols);
    check_canonical(A, "ILU0");
    setup(space, as_point_bsr(A), pivots, algorithm);
  }

  /// New values for the pattern given at construction, from the device or
  /// the host (copied to a device matrix kept for the next call), factored
  /// again on `space` with the levels and the triangular solvers' analysis
  /// of the construction. A different pattern is a StructureError before
  /// anything changes; a failed pivot a PivotError, after which the solves
  /// refuse to run until a numeric() succeeds. Returns when ready on every
  /// instance.
  template <class D, class = std::enable_if_t<std::is_same<D, Device>::value>>
  void numeric(const execution_space& space, const CsrMatrix<Scalar, D>& A) {
    numeric_on_device(space, as_point_bsr(A));
  }
  void numeric(const execution_space& space, const HostCsr& A);
  template <class D, class = std::enable_if_t<std::is_same<D, Device>::value>>
  void numeric(const CsrMatrix<Scalar, D>& A) {
    numeric(execution_space(), A);
  }
  void numeric(const HostCsr& A) { numeric(execution_space(), A); }

  ordinal_t num_rows() const { return ordinal_t(work_.extent(0)); }
  /// z = (L D U')^{-1} r; r and z distinct.
  void apply(const execution_space& space, const_vector_type r, vector_type z) const;
  void apply(const_vector_type r, vector_type z) const { apply(execution_space(), r, z); }
  /// y = (L D)^{-1} r: the first factor of a split application.
  void lower_solve(const execution_space& space, const_vector_type r, vector_type y) const;
  void lower_solve(const_vector_type r, vector_type y) const { lower_solve(execution_space(), r, y); }
  /// z = U'^{-1} y: the second factor.
  void upper_solve(const execution_space& space, const_vector_type y, vector_type z) const;
  void upper_solve(const_vector_type y, vector_type z) const { upper_solve(execution_space(), y, z); }

  /// The factors as two CSR triangles with their diagonals stored, for
  /// solvers that want them so (Kokkos Kernels' sptrsv): L with a unit
  /// diagonal last in each row, U = D U' with the diagonal first.
  std::pair<CsrMatrix<Scalar, Device>, CsrMatrix<Scalar, Device>> triangles_with_diagonal(
      const execution_space& space = execution_space()) const {
    return {
        detail::with_diagonal<Scalar, Device>(space, factors_.L_map, factors_.L_col, factors_.L_val, inv_diag_, false),
        detail::with_diagonal<Scalar, Device>(space, factors_.U_map, factors_.U_col, factors_.U_val, inv_diag_, true)};
  }

  TrsvAlgorithm algorithm() const { return lower_->algorithm(); }
  double analysis_seconds() const { return analysis_seconds_; }
  double factorization_seconds() const { return factorization_seconds_; }
  ordinal_t boosted_pivots() const { return boosted_; }
  /// Whether the last factorization updated its rows from scratch (every
  /// row at most ilu::detail::staged_row_max entries, and a team's rows
  /// within the backend's team scratch) or from global memory.
  bool staged_rows() const { return staged_rows_; }

 private:
  static void check_square(ordinal_t rows, ordinal_t cols) {
    if (rows != cols) throw StructureError("ILU0: matrix is not square");
    if (rows < 1) throw StructureError("ILU0: empty matrix");
  }
  /// The setup from A on the device (checked): A's pattern is kept.
  void setup(const execution_space& space, const BsrMatrix<Scalar, Device>& A, ilu::PivotOptions pivots,
             TrsvAlgorithm algorithm);
  void numeric_on_device(const execution_space& space, const BsrMatrix<Scalar, Device>& A);
  /// Factors the split values (L_val, U_val, diag_; the pivot status reset)
  /// and loads the factors into the triangular solvers; PivotError on a
  /// failed pivot, after which the solvers' values are not factors.
  void factor_and_load(const execution_space& space, const BsrMatrix<Scalar, Device>& A);
  void load_solvers(const execution_space& space);
  void check_factored(const char* what) const {
    if (!failed_numeric_.empty())
      throw Error(std::string("GlobalIlu0 ") + what + ": the last numeric() failed (" + failed_numeric_ +
                  "); the factors are unusable until a numeric() succeeds");
  }

  std::unique_ptr<TriangularSolver<Scalar, Device>> lower_, upper_;
  vector_type inv_diag_, work_;
  ilu::BlockFactors<Scalar, Device> factors_;
  ilu::PivotOptions pivots_;
  // What numeric() reuses: the matrix's pattern, the split diagonal, the
  // levels of L, the pivot status, a device copy for host input.
  BsrMatrix<Scalar, Device> pattern_;
  vector_type diag_;
  LevelSets<Device> levels_;
  Kokkos::View<ordinal_t*, Device> pivot_status_;
  ilu::detail::RowExtent row_extent_;  // of the factors' pattern, read at setup
  ilu::SyncFreeState<Scalar, Device> sync_free_;
  bool values_flagged_ = false;  // the sync-free launch hands rows over through their values
  DeviceCopy<Scalar, Device> staging_;
  std::string failed_numeric_;
  double analysis_seconds_ = 0, factorization_seconds_ = 0;
  ordinal_t boosted_ = 0;
  bool staged_rows_ = false;
};

// ---- definitions (compiled once per backend for double: see core/eti.hpp) ----

template <class Scalar, class Device>
GlobalIlu0<Scalar, Device>::GlobalIlu0(const execution_space& space, const HostCsr& A, ilu::PivotOptions pivots,
                                       TrsvAlgorithm algorithm) {
  const ProfilingRegion region("trellis::ilu0::setup");
  check_square(A.num_rows, A.num_cols);
  check_canonical(A, "ILU0");  // on the host, before the copy
  setup(space, copy_to<Device>(as_point_bsr(A)), pivots, algorithm);
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::setup(const execution_space& space, const BsrMatrix<Scalar, Device>& A,
                                       ilu::PivotOptions pivots, TrsvAlgorithm algorithm) {
  // The whole matrix as one part (nothing dropped), split on the device.
  const ordinal_t n = A.num_block_rows;
  pivots_ = pivots;
  ilu::BlockFactors<Scalar, Device> f;
  ViewArena<Device> arena;
  pattern_ = A;
  diag_ = ilu::split_whole(space, pattern_, f, arena).diag;
  const CsrMatrix<Scalar, Device> L(n, n, f.L_map, f.L_col, f.L_val);
  const CsrMatrix<Scalar, Device> U(n, n, f.U_map, f.U_col, f.U_val);
  auto t0 = now();
  {
    const TrustedInput trusted;  // L and U were split from the checked A here
    lower_ =
        std::make_unique<TriangularSolver<Scalar, Device>>(space, L, TrsvOptions{Triangle::lower, true, algorithm});
    upper_ =
        std::make_unique<TriangularSolver<Scalar, Device>>(space, U, TrsvOptions{Triangle::upper, true, algorithm});
  }
  levels_ = lower_->levels();  // L's levels order the factorization too: one analysis of L, not two
  space.fence();
  analysis_seconds_ = seconds_since(t0);
  pivot_status_ = ilu::detail::make_pivot_status<Device>(space, n, arena, ViewArena<Device>::kept);
  factors_ = f;
  row_extent_ = ilu::detail::row_extent(space, f);
  if (!trellis::detail::is_host_space<execution_space>()) {
    values_flagged_ = ilu::hands_over_values<1, Scalar, Device>(row_extent_);
    sync_free_ = ilu::SyncFreeState<Scalar, Device>(n, values_flagged_ ? f.U_val.extent(0) : 0);
  }
  inv_diag_ = f.inv_diag;
  t0 = now();
  if (values_flagged_) ilu::unpublish_factors(space, factors_, sync_free_.u_start);
  factor_and_load(space, pattern_);  // the solvers were built on the unfactored values of L and U
  space.fence();
  factorization_seconds_ = seconds_since(t0);
  work_ = vector_type(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::ilu0::work"), n);
  space.fence();  // ready on every instance
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::factor_and_load(const execution_space& space, const BsrMatrix<Scalar, Device>& A) {
  // GPUs: one sync-free launch, then U' and the solvers' loads queued behind
  // it, and one read-back of the pivot status at the end (the loads' values
  // are thrown away if a pivot failed). Host backends: a level at a time,
  // since host threads must not spin (more threads than free cores would
  // burn the time slices of the threads they wait on).
  const Kokkos::View<const ordinal_t*, Device> level_rows = levels_.level_rows;
  const ordinal_t n = A.num_block_rows;
  ilu::FactorizationOutcome out;
  if (trellis::detail::is_host_space<execution_space>()) {
    out = ilu::factor_by_levels<1>(space, factors_, row_extent_, diag_, pivots_, level_rows,
                                   Kokkos::View<const offset_t*, Kokkos::HostSpace>(levels_.level_ptr_host),
                                   pivot_status_, ilu::FactorOutputs::unit_lu);
    if (out.tiny_row < 0 && out.non_finite_row < 0) load_solvers(space);
  } else {
    const bool staged = ilu::launch_factor_sync_free<1>(space, factors_, row_extent_, diag_, pivots_, level_rows,
                                                        sync_free_, pivot_status_);
    ilu::detail::finish_factors<1>(space, factors_, diag_, ilu::FactorOutputs::unit_lu);
    load_solvers(space);
    out = ilu::detail::read_pivot_status(space, pivot_status_, n);
    out.staged_rows = staged;
  }
  ilu::throw_if_pivot_failed(out, {}, const_vector_type(diag_), A, pivots_);
  boosted_ = out.boosted;
  staged_rows_ = out.staged_rows;
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::load_solvers(const execution_space& space) {
  const ordinal_t n = factors_.num_rows;
  const TrustedInput trusted;  // L and U on the pattern the solvers analysed
  lower_->numeric(space, CsrMatrix<Scalar, Device>(n, n, factors_.L_map, factors_.L_col, factors_.L_val));
  upper_->numeric(space, CsrMatrix<Scalar, Device>(n, n, factors_.U_map, factors_.U_col, factors_.U_val));
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::numeric(const execution_space& space, const HostCsr& A) {
  if constexpr (std::is_same<HostCsr, CsrMatrix<Scalar, Device>>::value)
    numeric_on_device(space, as_point_bsr(A));
  else
    numeric_on_device(space, staging_.upload(space, as_point_bsr(A)));
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::numeric_on_device(const execution_space& space, const BsrMatrix<Scalar, Device>& A) {
  const std::string what = "GlobalIlu0::numeric: ";
  const auto& P = pattern_;
  if (A.block_size != 1 || A.num_block_rows != P.num_block_rows || A.num_block_cols != P.num_block_cols ||
      A.entries.extent(0) != P.entries.extent(0))
    throw StructureError(what + "a " + std::to_string(A.num_rows()) + " x " + std::to_string(A.num_cols()) +
                         " matrix of " + std::to_string(A.entries.extent(0)) + " entries for a setup of " +
                         std::to_string(P.num_block_rows) + " x " + std::to_string(P.num_block_cols) + ", " +
                         std::to_string(P.entries.extent(0)) + " entries; a new pattern needs a new setup");
  // The arrays of the setup's pattern again (an application's matrix with
  // new values) need no comparison; other arrays are compared on the device.
  const bool same_arrays = A.row_map.data() == P.row_map.data() && A.entries.data() == P.entries.data();
  const ordinal_t bad = same_arrays ? P.num_block_rows : detail::first_row_with_other_pattern(space, A, P);
  if (bad < P.num_block_rows)
    throw StructureError(what + "row " + std::to_string(bad) +
                         " has another pattern than at setup; a new pattern needs a new setup");
  failed_numeric_ = "interrupted";
  ilu::split_values(space, A, factors_, diag_, pivot_status_,  // the status reset in the same launch
                    values_flagged_, sync_free_.u_start);
  try {
    factor_and_load(space, A);
  } catch (const PivotError& e) {
    failed_numeric_ = e.what();
    throw;
  }
  space.fence();  // ready on every instance
  failed_numeric_.clear();
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::apply(const execution_space& space, const_vector_type r, vector_type z) const {
  lower_solve(space, r, work_);
  upper_solve(space, work_, z);
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::lower_solve(const execution_space& space, const_vector_type r, vector_type y) const {
  check_factored("lower solve");
  lower_->solve(space, r, y);
  auto inv = inv_diag_;
  Kokkos::parallel_for(
      "trellis::ilu0::scale", trellis::RangePolicy<execution_space>(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(size_t i) { y(i) *= inv(i); });
}

template <class Scalar, class Device>
void GlobalIlu0<Scalar, Device>::upper_solve(const execution_space& space, const_vector_type y, vector_type z) const {
  check_factored("upper solve");
  upper_->solve(space, y, z);
}

#if TRELLIS_ENABLE_ETI
#define TRELLIS_GLOBAL_ILU0_ETI(DEVICE) extern template class GlobalIlu0<double, DEVICE>;
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_GLOBAL_ILU0_ETI)
#undef TRELLIS_GLOBAL_ILU0_ETI
#endif

}  // namespace trellis
