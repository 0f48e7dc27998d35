#pragma once
// One solver object per triangular factor, with the symbolic / numeric / solve
// split of Kokkos Kernels' handles: the analysis (levels, CSC copy, dependency
// counts) is done once per sparsity pattern, numeric() takes new values, and
// solve() runs as often as needed.
//
// Solves (L + D) x = b or (U + D) x = b (seed 002, eq. 2.1). The factor T is
// given in CSR; only its entries in the chosen triangle are used, so T may be
// the whole matrix A. D comes from T's diagonal, or is 1 (unit_diagonal), or
// is given as a separate vector to numeric().
//
// Every call that runs work has an overload taking an execution-space
// instance first (the Kokkos Kernels / ArborX convention); the others use the
// default instance. Solves with one solver must not overlap on different
// instances: they share the solver's flags and work arrays.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/eti.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/core/triangle.hpp"
#include "trellis/trsv/algorithm.hpp"
#include "trellis/trsv/detail/solve_plans.hpp"
#include "trellis/trsv/tile_options.hpp"

namespace trellis {

struct TrsvOptions {
  Triangle triangle = Triangle::lower;
  bool unit_diagonal = false;  // D = I; stored diagonal entries are ignored
  TrsvAlgorithm algorithm = TrsvAlgorithm::automatic;
  TileOptions tile;  // the tiled family's format thresholds (tile_options.hpp)
  // block-syncfree: rows per block (0: the backend's default, 512 on GPUs;
  // at most what team scratch holds: about 1,100 on host backends and 1,400
  // on CUDA with Kokkos 3.4, 28 bytes a row).
  int block_rows = 0;
  // elmr-value on GPUs: rows (warps) a team, 1 to 32 (0: one when a mean
  // level fits the warps resident at one-warp teams, else 8).
  int team_rows = 0;
};

template <class Scalar = double, class Device = DefaultDevice>
class TriangularSolver {
 public:
  using execution_space = typename Device::execution_space;
  using matrix_type = CsrMatrix<Scalar, Device>;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;

  /// Symbolic and numeric phases for T. Throws StructureError for a
  /// non-square T, PivotError naming the row for a missing, zero or
  /// non-finite diagonal (unless unit_diagonal).
  TriangularSolver(const execution_space& space, const matrix_type& T, TrsvOptions options);
  TriangularSolver(const matrix_type& T, TrsvOptions options);

  /// New values for the pattern analysed at construction; StructureError
  /// when T's pattern is not that one (not even the same entries reordered).
  void numeric(const execution_space& space, const matrix_type& T);
  void numeric(const matrix_type& T);
  /// New values, with D given separately (the (L + D) x = b form); T's own
  /// diagonal entries are then ignored.
  void numeric(const execution_space& space, const matrix_type& T, const_vector_type diagonal);
  void numeric(const matrix_type& T, const_vector_type diagonal);

  /// x = (T_triangle + D)^{-1} b. b and x may be the same View.
  void solve(const execution_space& space, const_vector_type b, vector_type x) const;
  void solve(const_vector_type b, vector_type x) const;

  /// The algorithm that runs (for `automatic`, the one it picked).
  TrsvAlgorithm algorithm() const { return plans_.algorithm; }
  /// Why `automatic` picked it, or the requested name.
  const std::string& choice_reason() const { return reason_; }
  const LevelSets<Device>& levels() const { return plans_.levels; }
  const TrsvOptions& options() const { return options_; }
  /// Seconds spent in the analysis (symbolic phase), device fenced.
  double analysis_seconds() const { return analysis_seconds_; }
  ordinal_t num_rows() const { return plans_.factor.n; }
  /// Stored entries of the strict triangle (the work of one solve is
  /// 2 * (nnz_strict + n) flops).
  offset_t nnz_strict() const { return plans_.factor.nnz_strict; }
  /// The tiled family's analysis (tiles, formats, memory); empty for the
  /// other families.
  TileReport tile_report() const { return plans_.tile ? plans_.tile->report : TileReport{}; }

 private:
  TrsvOptions options_;
  std::string reason_;
  double analysis_seconds_ = 0;
  std::uint64_t pattern_ = 0;  // pattern_fingerprint of the analysed matrix
  void check_pattern(const matrix_type& T) const;
  // Mutable: a solve advances the element plan's epoch.
  mutable detail::SolvePlans<Scalar, Device> plans_;
};

}  // namespace trellis

#include "trellis/trsv/detail/triangular_solver_impl.hpp"

#if TRELLIS_ENABLE_ETI  // compiled once per backend for double (core/eti.hpp)
namespace trellis {
#define TRELLIS_TRSV_ETI(DEVICE) extern template class TriangularSolver<double, DEVICE>;
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_TRSV_ETI)
#undef TRELLIS_TRSV_ETI
}  // namespace trellis
#endif
