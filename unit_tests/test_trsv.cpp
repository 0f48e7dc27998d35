// Triangular solves: every algorithm on every backend against a serial
// double-precision substitution, on random triangular shapes, generated PDE
// problems and the real matrices; lower and upper, diagonal in the matrix,
// unit, or separate; pivots reported by row; deterministic variants are
// bit-reproducible; sync-free kernels never deadlock (watchdog).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "test_support.hpp"
#include "trellis/core/transpose.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/trsv/triangular_solver.hpp"
#include "triangular_solve.hpp"  // reference/

namespace trellis {
namespace {

using reference::DiagonalForm;
using test::device_vector;
using test::host_vector;

using test::random_vector;

/// Solves with `algorithm` on Device and compares with the reference; x is
/// poisoned with NaN first so that an unwritten entry fails.
template <class Device>
void check_solve(const HostCsr& A, Triangle tri, TrsvAlgorithm algorithm, DiagonalForm form, std::uint64_t seed,
                 double tol = 1e-10, int block_rows = 0, int team_rows = 0) {
  SCOPED_TRACE(std::string(to_string(algorithm)) + " " + to_string(tri) + " diag form " + std::to_string(int(form)) +
               " n=" + std::to_string(A.num_rows) + " block rows " + std::to_string(block_rows) + " team rows " +
               std::to_string(team_rows));
  const auto b = random_vector(A.num_rows, seed);
  std::vector<double> d_sep = random_vector(A.num_rows, seed + 1);
  for (auto& d : d_sep) d = 2 + std::abs(d) * 4;  // well away from zero
  const auto expected = reference::triangular_solve(A, tri, b, form, d_sep);

  const auto dA = to_device<Device>(A);
  TrsvOptions opt;
  opt.triangle = tri;
  opt.algorithm = algorithm;
  opt.unit_diagonal = form == DiagonalForm::unit;
  opt.block_rows = block_rows;
  opt.team_rows = team_rows;
  TriangularSolver<double, Device> solver(dA, opt);
  if (form == DiagonalForm::separate) solver.numeric(dA, device_vector<Device>(d_sep));
  EXPECT_EQ(solver.algorithm(), algorithm);
  auto bd = device_vector<Device>(b);
  Kokkos::View<double*, Device> x("x", A.num_rows);
  Kokkos::deep_copy(x, std::nan(""));
  test::run_with_watchdog(std::string("solve ") + to_string(algorithm), 120, [&] { solver.solve(bd, x); });
  EXPECT_LT(test::relative_error(host_vector(x), expected), tol);
  // A second solve with the same solver (flags, counters, tickets reused).
  Kokkos::deep_copy(x, std::nan(""));
  test::run_with_watchdog(std::string("second solve ") + to_string(algorithm), 120, [&] { solver.solve(bd, x); });
  EXPECT_LT(test::relative_error(host_vector(x), expected), tol);
}

template <class Device>
class TrsvOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(TrsvOnBackend, test::Backends, test::BackendNames);

TYPED_TEST(TrsvOnBackend, EveryAlgorithmMatchesReferenceOnRandomShapes) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  using gallery::TriangularShape;
  for (auto shape : {TriangularShape::dense_rows, TriangularShape::sparse_rows, TriangularShape::empty_offdiagonal,
                     TriangularShape::long_chain, TriangularShape::diagonal_only}) {
    SCOPED_TRACE("shape " + std::to_string(int(shape)));
    const HostCsr L = gallery::random_lower_triangular(1500, shape, seed);
    const HostCsr U = transpose(L);
    for (TrsvAlgorithm a : all_trsv_algorithms) {
      check_solve<TypeParam>(L, Triangle::lower, a, DiagonalForm::stored, seed);
      check_solve<TypeParam>(U, Triangle::upper, a, DiagonalForm::stored, seed + 7);
    }
  }
}

// block-syncfree's blocks from one row (every dependency crosses blocks)
// to sizes that cut levels and leave a short last block.
TYPED_TEST(TrsvOnBackend, BlockSyncfreeMatchesReferenceForEveryBlockSize) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  using gallery::TriangularShape;
  for (auto shape : {TriangularShape::dense_rows, TriangularShape::sparse_rows, TriangularShape::long_chain}) {
    SCOPED_TRACE("shape " + std::to_string(int(shape)));
    const HostCsr L = gallery::random_lower_triangular(700, shape, seed);
    const HostCsr U = transpose(L);
    for (int rows : {1, 3, 16, 100, 699, 700, 1000}) {
      check_solve<TypeParam>(L, Triangle::lower, TrsvAlgorithm::block_syncfree, DiagonalForm::stored, seed, 1e-10,
                             rows);
      check_solve<TypeParam>(U, Triangle::upper, TrsvAlgorithm::block_syncfree, DiagonalForm::separate, seed + 3, 1e-10,
                             rows);
    }
  }
  const HostCsr A = gallery::load_problem("lap2d5:40x30").matrix;
  for (int rows : {7, 40, 64})
    for (Triangle tri : {Triangle::lower, Triangle::upper})
      check_solve<TypeParam>(A, tri, TrsvAlgorithm::block_syncfree, DiagonalForm::unit, seed, 1e-10, rows);
}

// elmr-value's teams of one row (a warp) up to 32 rows, and the automatic
// choice, on random shapes and a grid; team sizes outside 1..32 are named.
TYPED_TEST(TrsvOnBackend, ElmrValueMatchesReferenceForEveryTeamSize) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  using gallery::TriangularShape;
  for (auto shape : {TriangularShape::dense_rows, TriangularShape::sparse_rows, TriangularShape::long_chain}) {
    SCOPED_TRACE("shape " + std::to_string(int(shape)));
    const HostCsr L = gallery::random_lower_triangular(1100, shape, seed);
    const HostCsr U = transpose(L);
    for (int rows : {0, 1, 3, 8, 32}) {
      check_solve<Device>(L, Triangle::lower, TrsvAlgorithm::elmr_value, DiagonalForm::stored, seed, 1e-10, 0, rows);
      check_solve<Device>(U, Triangle::upper, TrsvAlgorithm::elmr_value, DiagonalForm::separate, seed + 3, 1e-10, 0,
                          rows);
    }
  }
  const auto dA = to_device<Device>(gallery::load_problem("lap2d5:8x8").matrix);
  for (int rows : {-1, 33}) {
    TrsvOptions opt;
    opt.algorithm = TrsvAlgorithm::elmr_value;
    opt.team_rows = rows;
    try {
      TriangularSolver<double, Device> solver(dA, opt);
      ADD_FAILURE() << "team_rows " << rows << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("team_rows " + std::to_string(rows)), std::string::npos) << e.what();
    }
  }
}

// Blocks whose entries do not fit team scratch read them from global
// memory: with the scratch budget cut to the median block, some blocks take
// each path.
TYPED_TEST(TrsvOnBackend, BlockSyncfreeBlocksOutsideScratchMatchReference) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr L = gallery::random_lower_triangular(900, gallery::TriangularShape::sparse_rows, seed);
  const auto dL = to_device<Device>(L);
  const auto b = random_vector(L.num_rows, seed + 5);
  const auto expected = reference::triangular_solve(L, Triangle::lower, b, DiagonalForm::stored, {});
  typename Device::execution_space space;
  std::string reason;
  auto plans = detail::analyze(space, dL, Triangle::lower, false, TrsvAlgorithm::block_syncfree, false, reason,
                               TileOptions(), 50);
  ASSERT_TRUE(plans.block);
  // The cap: the median of the blocks' entry counts, so that blocks on both
  // sides of it exist.
  const auto map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plans.block->row_map);
  const int R = plans.block->rows_per_block, B = plans.block->num_blocks;
  std::vector<int> entries(B);
  for (int t = 0; t < B; ++t) entries[t] = int(map(std::min((t + 1) * R, L.num_rows)) - map(t * R));
  std::vector<int> sorted = entries;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_LT(sorted.front(), sorted.back()) << "every block has " << sorted.front() << " entries";
  const int cap =
      std::min(plans.block->staged_entries, sorted[B / 2] < sorted.back() ? sorted[B / 2] : sorted.back() - 1);
  const auto fitting = std::count_if(entries.begin(), entries.end(), [&](int e) { return e <= cap; });
  ASSERT_GT(fitting, 0);
  ASSERT_LT(fitting, B);
  plans.block->staged_entries = cap;
  detail::load_values(space, plans, dL, Kokkos::View<const double*, Device>());
  auto bd = device_vector<Device>(b);
  Kokkos::View<double*, Device> x("x", L.num_rows);
  Kokkos::deep_copy(x, std::nan(""));
  test::run_with_watchdog("block-syncfree, some blocks staged", 120, [&] {
    detail::run_solve(space, plans, Kokkos::View<const double*, Device>(bd), x, Kokkos::View<const double*, Device>(x));
  });
  EXPECT_LT(test::relative_error(host_vector(x), expected), 1e-10);
}

// team-levelset's four layouts, sized from this backend's fast team scratch:
// every row's offsets and entries staged; the offsets and the leading rows'
// entries (x takes half of it); x alone (x takes 4/5 of it); x in level-1
// scratch (x alone does not fit). Lower and upper against the reference, on
// the plan the solver builds.
TYPED_TEST(TrsvOnBackend, TeamLevelsetMatchesReferenceInEveryScratchLayout) {
  using Device = TypeParam;
  using Exec = typename Device::execution_space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const size_t fast = Kokkos::TeamPolicy<Exec>::scratch_size_max(0);
  if (fast > (size_t(1) << 24)) GTEST_SKIP() << "team scratch of " << fast << " bytes: every layout is the first";
  enum class Layout { all_staged, some_entries, x_only, level_one };
  const std::pair<Layout, ordinal_t> cases[] = {{Layout::all_staged, ordinal_t(fast / 200)},
                                                {Layout::some_entries, ordinal_t(fast / 16)},
                                                {Layout::x_only, ordinal_t(fast / 10)},
                                                {Layout::level_one, ordinal_t(fast / 8 + 64)}};
  typename Device::execution_space space;
  for (const auto& [layout, n] : cases) {
    SCOPED_TRACE("layout " + std::to_string(int(layout)) + ", n = " + std::to_string(n));
    const HostCsr L = gallery::random_lower_triangular(n, gallery::TriangularShape::sparse_rows, seed);
    for (Triangle tri : {Triangle::lower, Triangle::upper}) {
      const HostCsr T = tri == Triangle::lower ? L : transpose(L);
      const auto dT = to_device<Device>(T);
      std::string reason;
      auto plans = detail::analyze(space, dT, tri, false, TrsvAlgorithm::team_levelset, false, reason);
      ASSERT_TRUE(plans.team);
      const auto& p = *plans.team;
      EXPECT_EQ(p.scratch_level, layout == Layout::level_one ? 1 : 0);
      EXPECT_EQ(p.offsets_staged, layout == Layout::all_staged || layout == Layout::some_entries);
      if (layout == Layout::all_staged) EXPECT_EQ(p.staged_rows, n);
      if (layout == Layout::some_entries) {
        EXPECT_GT(p.staged_rows, 0);
        EXPECT_LT(p.staged_rows, n);
      }
      if (layout == Layout::x_only || layout == Layout::level_one) EXPECT_EQ(p.staged_rows, 0);
      check_solve<Device>(T, tri, TrsvAlgorithm::team_levelset, DiagonalForm::stored, seed + 11);
    }
  }
}

TYPED_TEST(TrsvOnBackend, BlockSyncfreeRejectsBlockSizesThatDoNotFit) {
  const auto dA = to_device<TypeParam>(gallery::laplace2d_5pt(10, 10));
  TrsvOptions opt;
  opt.algorithm = TrsvAlgorithm::block_syncfree;
  opt.block_rows = -4;
  EXPECT_THROW((TriangularSolver<double, TypeParam>(dA, opt)), InputError);
  using Exec = typename TypeParam::execution_space;
  const size_t most = Kokkos::TeamPolicy<Exec>::scratch_size_max(0);
  if (most < (size_t(1) << 30)) {  // bounded team scratch: a row takes more than 12 bytes
    opt.block_rows = int(most / 12) + 64;
    try {
      TriangularSolver<double, TypeParam> solver(dA, opt);
      ADD_FAILURE() << "no error for " << opt.block_rows << " rows per block";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("team scratch"), std::string::npos) << e.what();
    }
  }
}

TYPED_TEST(TrsvOnBackend, UnitAndSeparateDiagonalForms) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr A = gallery::convection_diffusion3d(9, 8, 7, 5.0);  // nonsymmetric
  for (TrsvAlgorithm a : all_trsv_algorithms)
    for (Triangle tri : {Triangle::lower, Triangle::upper})
      for (DiagonalForm f : {DiagonalForm::unit, DiagonalForm::separate}) check_solve<TypeParam>(A, tri, a, f, seed);
}

TYPED_TEST(TrsvOnBackend, EveryAlgorithmMatchesReferenceOnGalleryProblems) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const char* spec : {"lap2d5:40x30", "lap2d9:17x33", "lap3d7:12x10x9", "lap3d27:8x8x8", "blocklap3d:6x5x4:b=3",
                           "layered3d:10x9x8", "convdiff2d:30x20"}) {
    SCOPED_TRACE(spec);
    const HostCsr A = gallery::load_problem(spec).matrix;
    for (TrsvAlgorithm a : all_trsv_algorithms)
      for (Triangle tri : {Triangle::lower, Triangle::upper})
        check_solve<TypeParam>(A, tri, a, DiagonalForm::stored, seed);
  }
}

TYPED_TEST(TrsvOnBackend, EveryAlgorithmMatchesReferenceOnRealMatrices) {
  const auto list = test::real_matrices();
  TRELLIS_REQUIRE_REAL_MATRICES(list);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : list) {
    SCOPED_TRACE(m.file);
    const HostCsr A = io::read_matrix_market(m.path);
    // Real matrices are not diagonally dominant: compare against the
    // reference relative to its own conditioning, and skip triangles whose
    // substitution blows up in double (none in the current set).
    for (TrsvAlgorithm a : all_trsv_algorithms)
      for (Triangle tri : {Triangle::lower, Triangle::upper})
        check_solve<TypeParam>(A, tri, a, DiagonalForm::stored, seed, 1e-9);
  }
}

TYPED_TEST(TrsvOnBackend, AutomaticPicksAndReportsAnAlgorithm) {
  const HostCsr A = gallery::laplace2d_5pt(30, 30);
  TriangularSolver<double, TypeParam> solver(to_device<TypeParam>(A), TrsvOptions{});
  EXPECT_NE(solver.algorithm(), TrsvAlgorithm::automatic);
  EXPECT_NE(solver.choice_reason().find("auto"), std::string::npos) << solver.choice_reason();
  EXPECT_EQ(solver.levels().num_levels, 59);
  EXPECT_GE(solver.analysis_seconds(), 0.0);
}

// The rule of choose_algorithm: level-set CSR on host backends; on GPUs
// team-levelset for a grid whose x fits team scratch exactly when TeamModel
// puts one team ahead (always for a 10x10 grid's 19 levels), block-syncfree for a grid too large for it (many
// levels, short rows, half the entries inside a row's block), elmr-value
// for long rows reaching into many other blocks and for wide grids.
TYPED_TEST(TrsvOnBackend, AutomaticFollowsItsRule) {
  using Exec = typename TypeParam::execution_space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const size_t fast = Kokkos::TeamPolicy<Exec>::scratch_size_max(0);
  const int side = std::max(8, int(std::sqrt(double(fast) / 10)));  // 8 bytes of x a row, 4 of level starts
  const auto small_grid = to_device<TypeParam>(gallery::laplace2d_5pt(side, side));
  const auto grid = to_device<TypeParam>(gallery::laplace2d_5pt(400, 400));
  const auto scattered =
      to_device<TypeParam>(gallery::random_lower_triangular(30000, gallery::TriangularShape::dense_rows, seed));
  TriangularSolver<double, TypeParam> on_small_grid(small_grid, TrsvOptions{});
  TriangularSolver<double, TypeParam> on_tiny_grid(to_device<TypeParam>(gallery::laplace2d_5pt(10, 10)), TrsvOptions{});
  TriangularSolver<double, TypeParam> on_grid(grid, TrsvOptions{});
  TriangularSolver<double, TypeParam> on_scattered(scattered, TrsvOptions{});
  if (detail::is_host_space<Exec>()) {
    EXPECT_EQ(on_small_grid.algorithm(), TrsvAlgorithm::levelset_csr);
    EXPECT_EQ(on_tiny_grid.algorithm(), TrsvAlgorithm::levelset_csr);
    EXPECT_EQ(on_grid.algorithm(), TrsvAlgorithm::levelset_csr);
    EXPECT_EQ(on_scattered.algorithm(), TrsvAlgorithm::levelset_csr);
  } else {
    double team_us = 0, spread_us = 0;
    const auto& levels = on_small_grid.levels();
    const double per_row = double(on_small_grid.nnz_strict()) / on_small_grid.num_rows();
    int lanes = 1, team_rows = 1;
    detail::team_shape<Exec>(per_row, lanes, team_rows);
    detail::TeamModel().estimate<double>(levels, team_rows, on_small_grid.nnz_strict(), team_us, spread_us);
    EXPECT_EQ(on_small_grid.algorithm() == TrsvAlgorithm::team_levelset, team_us < spread_us)
        << on_small_grid.choice_reason();
    EXPECT_EQ(on_tiny_grid.algorithm(), TrsvAlgorithm::team_levelset) << on_tiny_grid.choice_reason();
    EXPECT_EQ(on_grid.algorithm(), TrsvAlgorithm::block_syncfree) << on_grid.choice_reason();
    EXPECT_EQ(on_scattered.algorithm(), TrsvAlgorithm::elmr_value) << on_scattered.choice_reason();
    // A wide 9-point grid: about 340 rows a level, each its own block's
    // only row at that step, three of its four entries in the block above.
    TriangularSolver<double, TypeParam> on_wide_grid(to_device<TypeParam>(gallery::laplace2d_9pt(1024, 1024)),
                                                     TrsvOptions{});
    EXPECT_EQ(on_wide_grid.algorithm(), TrsvAlgorithm::elmr_value) << on_wide_grid.choice_reason();
  }
}

TYPED_TEST(TrsvOnBackend, NumericUpdateAndAliasedVectors) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  HostCsr A = gallery::laplace3d_7pt(10, 10, 10);
  for (TrsvAlgorithm a : all_trsv_algorithms) {
    SCOPED_TRACE(to_string(a));
    auto dA = to_device<Device>(A);
    TrsvOptions opt;
    opt.algorithm = a;
    TriangularSolver<double, Device> solver(dA, opt);
    // New values, same pattern: scale the matrix by 2, the solution halves.
    HostCsr A2 = to_host(dA);
    for (offset_t k = 0; k < A2.nnz(); ++k) A2.values(k) *= 2;
    solver.numeric(to_device<Device>(A2));
    const auto b = random_vector(A.num_rows, seed);
    const auto expected = reference::triangular_solve(A2, Triangle::lower, b);
    auto x = device_vector<Device>(b);  // b and x are the same View
    solver.solve(x, x);
    EXPECT_LT(test::relative_error(host_vector(x), expected), 1e-12);
  }
}

TYPED_TEST(TrsvOnBackend, DeterministicVariantsAreBitReproducible) {
  using Device = TypeParam;
  const HostCsr A = gallery::load_problem("lap3d27:14x13x12").matrix;
  const auto b = device_vector<Device>(random_vector(A.num_rows, test::fresh_seed()));
  for (TrsvAlgorithm a : all_trsv_algorithms) {
    if (!is_deterministic(a)) continue;
    TrsvOptions opt;
    opt.algorithm = a;
    TriangularSolver<double, Device> solver(to_device<Device>(A), opt);
    Kokkos::View<double*, Device> x1("x1", A.num_rows), x2("x2", A.num_rows);
    solver.solve(b, x1);
    for (int run = 1; run < 20; ++run) {  // 20 runs in all (issue 20)
      solver.solve(b, x2);
      const auto h1 = host_vector(x1), h2 = host_vector(x2);
      ASSERT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(double)))
          << to_string(a) << " differs between runs";
    }
  }
}

TYPED_TEST(TrsvOnBackend, SolveOnAnExplicitInstanceEqualsTheDefaultBitForBit) {
  using Device = TypeParam;
  using Exec = typename Device::execution_space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const test::OwnInstance<Exec> own;                                 // outlives the solvers below
  const HostCsr A = gallery::convection_diffusion3d(11, 9, 8, 5.0);  // nonsymmetric
  const ordinal_t n = A.num_rows;
  const auto dA = to_device<Device>(A);
  const auto b = device_vector<Device>(random_vector(n, seed));
  std::vector<double> d_sep = random_vector(n, seed + 1);
  for (auto& d : d_sep) d = 2 + std::abs(d) * 4;
  const auto diag = device_vector<Device>(d_sep);
  for (TrsvAlgorithm a : all_trsv_algorithms)
    for (Triangle tri : {Triangle::lower, Triangle::upper}) {
      SCOPED_TRACE(std::string(to_string(a)) + " " + to_string(tri));
      TrsvOptions opt;
      opt.triangle = tri;
      opt.algorithm = a;
      TriangularSolver<double, Device> on_default(dA, opt);
      TriangularSolver<double, Device> on_other(own.get(), dA, opt);
      EXPECT_EQ(on_other.algorithm(), a);
      EXPECT_EQ(on_other.levels().num_levels, on_default.levels().num_levels);
      for (bool separate : {false, true}) {
        if (separate) {
          on_default.numeric(dA, diag);
          on_other.numeric(own.get(), dA, diag);
        }
        Kokkos::View<double*, Device> x1("x1", n), x2("x2", n);
        Kokkos::deep_copy(x2, std::nan(""));
        on_default.solve(b, x1);
        test::run_with_watchdog("solve on an instance", 120, [&] {
          on_other.solve(own.get(), b, x2);
          on_other.solve(own.get(), b, x2);  // flags and tickets reused
          own.get().fence();
        });
        // The CSC variants accumulate with atomics: equal to rounding only.
        const auto h1 = host_vector(x1);
        const auto expect_same = [&](const std::vector<double>& h) {
          if (is_deterministic(a))
            EXPECT_EQ(0, std::memcmp(h.data(), h1.data(), h.size() * sizeof(double)));
          else
            EXPECT_LT(test::relative_error(h, h1), 1e-13);
        };
        expect_same(host_vector(x2));
        // In place (b and x the same View) on the instance.
        auto x3 = device_vector<Device>(host_vector(b));
        on_other.solve(own.get(), x3, x3);
        own.get().fence();
        expect_same(host_vector(x3));
      }
    }
}

TYPED_TEST(TrsvOnBackend, MissingDiagonalIsReportedWithItsRowAtAnalysis) {
  const HostCsr A =
      csr_from_triplets(4, 4, {0, 1, 1, 2, 3, 3}, {0, 0, 1, 1, 2, 3}, {1, 1, 1, 1, 1, 1});  // row 2 has no diagonal
  for (TrsvAlgorithm a : all_trsv_algorithms) {
    TrsvOptions opt;
    opt.algorithm = a;
    try {
      TriangularSolver<double, TypeParam> s(to_device<TypeParam>(A), opt);
      FAIL() << "expected PivotError for " << to_string(a);
    } catch (const PivotError& e) {
      EXPECT_EQ(e.row(), 2);
      EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
    }
    opt.unit_diagonal = true;  // a unit-diagonal solve does not need it
    EXPECT_NO_THROW((TriangularSolver<double, TypeParam>(to_device<TypeParam>(A), opt)));
  }
}

TYPED_TEST(TrsvOnBackend, ZeroAndNanPivotsAreReportedWithTheirRow) {
  for (double bad : {0.0, std::nan("")}) {
    HostCsr A = gallery::laplace2d_5pt(5, 5);
    for (offset_t k = A.row_map(17); k < A.row_map(18); ++k)
      if (A.entries(k) == 17) A.values(k) = bad;
    try {
      TriangularSolver<double, TypeParam> s(to_device<TypeParam>(A), TrsvOptions{});
      FAIL() << "expected PivotError for diagonal " << bad;
    } catch (const PivotError& e) {
      EXPECT_EQ(e.row(), 17) << e.what();
    }
  }
}

TEST(TrsvNames, RoundTripAndRejectUnknown) {
  for (TrsvAlgorithm a : all_trsv_algorithms) EXPECT_EQ(parse<TrsvAlgorithm>(to_string(a)), a);
  EXPECT_EQ(parse<TrsvAlgorithm>("auto"), TrsvAlgorithm::automatic);
  try {
    parse<TrsvAlgorithm>("elmx");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("elmr"), std::string::npos) << e.what();
  }
}

// --- deadlock suite -----------------------------------------------------------

/// Rows [0, n/2) form a chain (levels 0..n/2-1) while rows [n/2, n) depend only
/// on row 0: level order hands the high rows out first and the low rows last,
/// so dependencies cross launch order in both directions.
HostCsr zigzag(ordinal_t n) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (ordinal_t i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(2.0);
    if (i > 0 && i < n / 2) r.push_back(i), c.push_back(i - 1), v.push_back(-1.0);
    if (i >= n / 2) r.push_back(i), c.push_back(0), v.push_back(-1.0);
    if (i >= n / 2 + 1) r.push_back(i), c.push_back(n / 2 - 1 - (i % (n / 2))), v.push_back(0.5);
  }
  return csr_from_triplets(n, n, r, c, v);
}

TYPED_TEST(TrsvOnBackend, SyncFreeKernelsNeverDeadlock) {
  using Device = TypeParam;
  using Exec = typename Device::execution_space;
  // Far more rows than can be resident at once on a GPU (an H100 holds about
  // 132 * 64 warps); smaller on host backends, where the test is about order.
  const bool gpu = !detail::is_host_space<Exec>();
  const ordinal_t big = gpu ? 200000 : 30000;
  const ordinal_t chain = gpu ? 50000 : 20000;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::pair<std::string, HostCsr>> cases;
  cases.emplace_back("long chain", gallery::random_lower_triangular(chain, gallery::TriangularShape::long_chain, seed));
  cases.emplace_back("zigzag", zigzag(big));
  cases.emplace_back("many rows", gallery::random_lower_triangular(big, gallery::TriangularShape::sparse_rows, seed));
  for (auto& [name, L] : cases) {
    SCOPED_TRACE(name);
    const HostCsr U = transpose(L);
    for (TrsvAlgorithm a :
         {TrsvAlgorithm::elmr, TrsvAlgorithm::elmr_lanes, TrsvAlgorithm::elmr_value, TrsvAlgorithm::elmc,
          TrsvAlgorithm::syncfree_naive, TrsvAlgorithm::tile_syncfree, TrsvAlgorithm::tile_levelset,
          TrsvAlgorithm::block_syncfree, TrsvAlgorithm::team_levelset}) {
      check_solve<Device>(L, Triangle::lower, a, DiagonalForm::stored, seed);
      check_solve<Device>(U, Triangle::upper, a, DiagonalForm::stored, seed);
    }
    for (int rows : {1, 8}) {  // elmr-value's teams of one warp and of eight, whatever the automatic choice
      check_solve<Device>(L, Triangle::lower, TrsvAlgorithm::elmr_value, DiagonalForm::stored, seed, 1e-10, 0, rows);
      check_solve<Device>(U, Triangle::upper, TrsvAlgorithm::elmr_value, DiagonalForm::stored, seed, 1e-10, 0, rows);
    }
  }
}

}  // namespace
}  // namespace trellis
