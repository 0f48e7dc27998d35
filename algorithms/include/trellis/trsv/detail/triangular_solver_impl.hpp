#pragma once
// TriangularSolver: analysis, numeric update, and the dispatch from an
// algorithm to its family's plan and kernel. A new family adds an
// enumerator, a plan in SolvePlans, and one case to each switch below.
#include <Kokkos_Timer.hpp>
#include <cstdio>

#include "trellis/core/csr_check.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/trsv/detail/block_kernels.hpp"
#include "trellis/trsv/detail/element_kernels.hpp"
#include "trellis/trsv/detail/levelset_kernels.hpp"
#include "trellis/trsv/detail/team_kernels.hpp"
#include "trellis/trsv/detail/tile_kernels.hpp"
#include "trellis/trsv/detail/value_flag_kernels.hpp"
#include "trellis/trsv/triangular_solver.hpp"

namespace trellis {

namespace detail {

/// `automatic`'s conditions for block-syncfree on GPUs (choose_algorithm).
struct BlockRule {
  static constexpr int min_levels = 150;               // enough steps for blocks to pipeline
  static constexpr double max_entries_per_row = 4.0;   // strict triangle: one thread sums a row
  static constexpr double min_inside_fraction = 0.45;  // entries read from team scratch,
  static constexpr int chain_levels = 1000;            // unless the levels are this many
  // Global reads a level of the wavefront makes: block steps a level times
  // the entries per row outside the row's block. Beyond it the blocks lose
  // to elmr-value (wide 2D grids: one row a block a step; H100 grid sweep,
  // perf_tests/journal/RESULTS.md, fifty-first session).
  static constexpr double max_outside_reads_per_level = 900;
};

enum class TrsvFamily { levelset, element, tile, block, team };

inline TrsvFamily family_of(TrsvAlgorithm a) {
  switch (a) {
    case TrsvAlgorithm::levelset_csr:
    case TrsvAlgorithm::levelset_csc: return TrsvFamily::levelset;
    case TrsvAlgorithm::elmr:
    case TrsvAlgorithm::elmr_lanes:
    case TrsvAlgorithm::elmr_value:
    case TrsvAlgorithm::elmc:
    case TrsvAlgorithm::syncfree_naive: return TrsvFamily::element;
    case TrsvAlgorithm::tile_levelset:
    case TrsvAlgorithm::tile_syncfree: return TrsvFamily::tile;
    case TrsvAlgorithm::block_syncfree: return TrsvFamily::block;
    case TrsvAlgorithm::team_levelset: return TrsvFamily::team;
    case TrsvAlgorithm::automatic: break;
  }
  throw Error("trsv: algorithm not resolved to a family");
}

inline bool needs_csc(TrsvAlgorithm a) {
  return a == TrsvAlgorithm::levelset_csc || a == TrsvAlgorithm::elmc || a == TrsvAlgorithm::syncfree_naive;
}

/// `automatic`: on host backends the level-set CSR solve (threads are few,
/// spinning wastes them). On GPUs team-levelset where x fits team scratch
/// and TeamModel puts one team ahead of a solve spread over the GPU (thin
/// levels: a chain of barriers beats a chain of hand-offs); else
/// block-syncfree where its blocks pay off:
/// many levels, short rows (one thread sums a row), and a numbering that
/// keeps 45% of the entries inside their row's block or else very many
/// levels (the chain then dominates), and not so many blocks at once that
/// their reads outside their blocks swamp a level (wide 2D grids, where a
/// block holds one row a level); elsewhere elmr-value. The conditions
/// were read from the H200 sweeps in perf_tests/journal/RESULTS.md (issue 17: a third inside
/// until elmr-value's one-warp teams made it 1.2x cuSPARSE on ff_rhd3t_2d,
/// 0.44 inside, where block-syncfree is 0.96x); the tiled family is chosen
/// by name only (slower than elmr-value on every problem measured).
template <class Scalar, class Device>
TrsvAlgorithm choose_algorithm(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& f,
                               const LevelSets<Device>& levels, int block_rows, std::string& reason) {
  using exec = typename Device::execution_space;
  char buf[400];
  if (is_host_space<exec>()) {
    std::snprintf(buf, sizeof buf, "auto: host backend, %d levels, %.1f rows/level on average: levelset-csr",
                  levels.num_levels, levels.avg_parallelism());
    reason = buf;
    return TrsvAlgorithm::levelset_csr;
  }
  const double per_row = f.n ? double(f.nnz_strict) / f.n : 0;
  if (team_fits_fast_scratch<exec, Scalar>(f.n, levels.num_levels)) {
    int lanes = 1, team_rows = 1;
    team_shape<exec>(per_row, lanes, team_rows);
    double team_us = 0, spread_us = 0;
    TeamModel().estimate<Scalar>(levels, team_rows, f.nnz_strict, team_us, spread_us);
    if (team_us < spread_us) {
      std::snprintf(buf, sizeof buf,
                    "auto: GPU backend, %d levels, %.1f rows/level, x fits team scratch; one team of %d rows x %d "
                    "lanes estimated at %.0f us against %.0f us spread over the GPU: team-levelset",
                    levels.num_levels, levels.avg_parallelism(), team_rows, lanes, team_us, spread_us);
      reason = buf;
      return TrsvAlgorithm::team_levelset;
    }
  }
  const int R = block_rows > 0 ? block_rows : default_block_rows<exec>(levels);
  const double inside = inside_block_fraction(space, f, R);
  const double steps = block_steps_per_level(space, levels, f.n, f.triangle == Triangle::lower, R);
  const double outside_reads = steps * per_row * (1 - inside);
  const bool blocks = levels.num_levels >= BlockRule::min_levels && per_row <= BlockRule::max_entries_per_row &&
                      (inside >= BlockRule::min_inside_fraction || levels.num_levels >= BlockRule::chain_levels) &&
                      outside_reads <= BlockRule::max_outside_reads_per_level;
  std::snprintf(buf, sizeof buf,
                "auto: GPU backend, %d levels (block-syncfree from %d), %.1f rows/level, %.2f entries per row (up to "
                "%.1f), %.2f of them inside blocks of %d rows (from %.2f, or any from %d levels), %.0f block steps "
                "and %.0f reads outside blocks a level (up to %.0f): %s",
                levels.num_levels, BlockRule::min_levels, levels.avg_parallelism(), per_row,
                BlockRule::max_entries_per_row, inside, R, BlockRule::min_inside_fraction, BlockRule::chain_levels,
                steps, outside_reads, BlockRule::max_outside_reads_per_level, blocks ? "block-syncfree" : "elmr-value");
  reason = buf;
  return blocks ? TrsvAlgorithm::block_syncfree : TrsvAlgorithm::elmr_value;
}

/// Symbolic phase for `requested` (automatic: chosen from the levels, the
/// reason written to `reason`). The CSC copy is built when the requested
/// algorithm needs it; `automatic` only ever picks algorithms without it.
/// keep_other: keep the opposite triangle (Gauss-Seidel).
template <class Scalar, class Device>
SolvePlans<Scalar, Device> analyze(const typename Device::execution_space& space, const CsrMatrix<Scalar, Device>& T,
                                   Triangle tri, bool unit_diagonal, TrsvAlgorithm requested, bool keep_other,
                                   std::string& reason, const TileOptions& tile_options = TileOptions(),
                                   int block_rows = 0, int team_rows = 0) {
  SolvePlans<Scalar, Device> s;
  s.factor = analyze_factor(space, T, tri, unit_diagonal, needs_csc(requested), keep_other);
  s.levels = factor_levels(space, s.factor);
  if (requested == TrsvAlgorithm::automatic) {
    s.algorithm = choose_algorithm(space, s.factor, s.levels, block_rows, reason);
  } else {
    s.algorithm = requested;
    reason = std::string("requested ") + to_string(requested);
  }
  switch (family_of(s.algorithm)) {
    case TrsvFamily::levelset: s.levelset = build_levelset_plan(space, s.factor, s.levels); break;
    case TrsvFamily::element:
      s.element = build_element_plan(space, s.factor, s.levels);
      if (s.algorithm == TrsvAlgorithm::elmr_value) {
        s.element->team_rows = element_team_rows(space, team_rows, s.levels.avg_parallelism());
        if (!is_host_space<typename Device::execution_space>())
          reason +=
              "; " + std::to_string(s.element->team_rows) + (s.element->team_rows == 1 ? " row" : " rows") + " a team";
      }
      break;
    case TrsvFamily::tile:
      if (s.algorithm == TrsvAlgorithm::tile_syncfree && tile_options.lanes != 0 &&
          !is_host_space<typename Device::execution_space>() &&
          tile_options.lanes != max_vector_width<typename Device::execution_space>())
        throw InputError("tile-syncfree: lanes is " + std::to_string(tile_options.lanes) +
                         "; on this backend it takes a whole warp of " +
                         std::to_string(max_vector_width<typename Device::execution_space>()) + " lanes (0 takes it)");
      s.tile = build_tile_plan(space, s.factor, s.levels, tile_options);
      break;
    case TrsvFamily::block: s.block = build_block_plan(space, s.factor, s.levels, block_rows); break;
    case TrsvFamily::team: s.team = build_team_plan(space, s.factor, s.levels); break;
  }
  return s;
}

/// Numeric phase of every plan: the factor's values (D from `diagonal` when
/// given), then the tiles' and the blocks' copies of them.
template <class Scalar, class Device>
void load_values(const typename Device::execution_space& space, SolvePlans<Scalar, Device>& s,
                 const CsrMatrix<Scalar, Device>& T, Kokkos::View<const Scalar*, Device> diagonal) {
  load_factor_values(space, s.factor, T, diagonal);
  if (s.tile) load_tile_values(space, *s.tile, s.factor);
  if (s.block) load_slot_values(space, *s.block, s.factor);
  if (s.team) load_slot_values(space, *s.team, s.factor);
}

/// Runs one solve. x_old is Gauss-Seidel's x_k for factors that keep the
/// opposite triangle (CSR algorithms only).
template <class Scalar, class Device>
void run_solve(const typename Device::execution_space& space, SolvePlans<Scalar, Device>& s,
               Kokkos::View<const Scalar*, Device> b, Kokkos::View<Scalar*, Device> x,
               Kokkos::View<const Scalar*, Device> x_old) {
  const auto& f = s.factor;
  switch (s.algorithm) {
    case TrsvAlgorithm::levelset_csr: levelset_csr_solve(space, f, *s.levelset, b, x, x_old); break;
    case TrsvAlgorithm::levelset_csc: levelset_csc_solve(space, f, *s.levelset, b, x); break;
    case TrsvAlgorithm::elmr: elmr_solve<ElmrWait::lane_zero>(space, f, *s.element, b, x, x_old); break;
    case TrsvAlgorithm::elmr_lanes: elmr_solve<ElmrWait::every_lane>(space, f, *s.element, b, x, x_old); break;
    case TrsvAlgorithm::elmr_value: elmr_value_solve(space, f, *s.element, b, x, x_old); break;
    case TrsvAlgorithm::elmc: elmc_solve(space, f, *s.element, b, x); break;
    case TrsvAlgorithm::syncfree_naive: syncfree_naive_solve(space, f, *s.element, b, x); break;
    case TrsvAlgorithm::tile_levelset: tile_levelset_solve(space, f, *s.tile, b, x, x_old); break;
    case TrsvAlgorithm::tile_syncfree: tile_syncfree_solve(space, f, *s.tile, b, x, x_old); break;
    case TrsvAlgorithm::block_syncfree: block_syncfree_solve(space, f, *s.block, b, x, x_old); break;
    case TrsvAlgorithm::team_levelset: team_levelset_solve(space, f, *s.team, b, x, x_old); break;
    case TrsvAlgorithm::automatic: throw Error("run_solve: algorithm not resolved");
  }
}

}  // namespace detail

template <class Scalar, class Device>
TriangularSolver<Scalar, Device>::TriangularSolver(const matrix_type& T, TrsvOptions options)
    : TriangularSolver(execution_space(), T, options) {}

template <class Scalar, class Device>
TriangularSolver<Scalar, Device>::TriangularSolver(const execution_space& space, const matrix_type& T,
                                                   TrsvOptions options)
    : options_(options) {
  check_canonical(T, "TriangularSolver");
  pattern_ = pattern_fingerprint(T);
  space.fence();  // the timer counts the analysis only
  Kokkos::Timer timer;
  plans_ = detail::analyze(space, T, options.triangle, options.unit_diagonal, options.algorithm,
                           /*keep_other=*/false, reason_, options.tile, options.block_rows, options.team_rows);
  space.fence();
  analysis_seconds_ = timer.seconds();
  detail::load_values(space, plans_, T, const_vector_type());  // numeric() without re-fingerprinting T
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::numeric(const matrix_type& T) {
  numeric(execution_space(), T);
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::numeric(const execution_space& space, const matrix_type& T) {
  check_pattern(T);
  detail::load_values(space, plans_, T, const_vector_type());
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::check_pattern(const matrix_type& T) const {
  if (detail::input_checks_skipped()) return;  // a TrustedInput: the caller built T on this pattern
  if (pattern_fingerprint(T) != pattern_)
    throw StructureError("TriangularSolver::numeric: the matrix's pattern (" + std::to_string(T.num_rows) + " rows, " +
                         std::to_string(T.nnz()) +
                         " entries) is not the one analysed at construction; build a new solver for it");
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::numeric(const matrix_type& T, const_vector_type diagonal) {
  numeric(execution_space(), T, diagonal);
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::numeric(const execution_space& space, const matrix_type& T,
                                               const_vector_type diagonal) {
  if (!diagonal.data() && plans_.factor.n > 0)
    throw StructureError("triangular solve: numeric() got an empty diagonal");
  check_pattern(T);
  detail::load_values(space, plans_, T, diagonal);
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::solve(const_vector_type b, vector_type x) const {
  solve(execution_space(), b, x);
}

template <class Scalar, class Device>
void TriangularSolver<Scalar, Device>::solve(const execution_space& space, const_vector_type b, vector_type x) const {
  const ordinal_t n = plans_.factor.n;
  if (b.extent(0) != size_t(n) || x.extent(0) != size_t(n))
    throw StructureError("triangular solve: vectors of length " + std::to_string(b.extent(0)) + " and " +
                         std::to_string(x.extent(0)) + " for " + std::to_string(n) + " rows");
  detail::run_solve(space, plans_, b, x, const_vector_type(x));
}

}  // namespace trellis
