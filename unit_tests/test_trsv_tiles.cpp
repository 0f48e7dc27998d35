// The tiled triangular solves (seed 004): every tile format forced in turn,
// in both SpMV mappings, and the default selection tree hitting each
// format, against the serial reference; tile-levelset in one and two phases
// (bit-reproducible either way); tiles at the matrix's edges (n not a
// multiple of 16, empty tile rows, a stored zero above the diagonal);
// thread- and warp-level diagonal tiles; float values summed in double; the
// analysis report; bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "test_support.hpp"
#include "trellis/core/transpose.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/trsv/triangular_solver.hpp"
#include "triangular_solve.hpp"  // reference/

namespace trellis {
namespace {

using reference::DiagonalForm;
using test::device_vector;
using test::host_vector;
using test::random_vector;

constexpr TrsvAlgorithm tiled[] = {TrsvAlgorithm::tile_levelset, TrsvAlgorithm::tile_syncfree};

/// Solves twice (counters and tickets reused) with a poisoned x and
/// compares with the reference (tile-levelset: the second solve bit for bit
/// with the first); returns the solver's tile report.
template <class Device>
TileReport check_tiled(const HostCsr& A, Triangle tri, TrsvAlgorithm a, const TileOptions& tile, std::uint64_t seed) {
  SCOPED_TRACE(std::string(to_string(a)) + " " + to_string(tri) + " n=" + std::to_string(A.num_rows));
  const auto b = random_vector(A.num_rows, seed);
  const auto expected = reference::triangular_solve(A, tri, b, DiagonalForm::stored, {});
  TrsvOptions opt;
  opt.triangle = tri;
  opt.algorithm = a;
  opt.tile = tile;
  TriangularSolver<double, Device> solver(to_device<Device>(A), opt);
  EXPECT_EQ(solver.algorithm(), a);
  const auto bd = device_vector<Device>(b);
  Kokkos::View<double*, Device> x("x", A.num_rows);
  std::vector<double> first;
  for (int rep = 0; rep < 2; ++rep) {
    Kokkos::deep_copy(x, std::nan(""));
    test::run_with_watchdog(std::string("tiled solve ") + to_string(a), 120, [&] { solver.solve(bd, x); });
    const auto xh = host_vector(x);
    EXPECT_LT(test::relative_error(xh, expected), 1e-10) << "solve " << rep;
    if (rep == 0) first = xh;
  }
  if (a == TrsvAlgorithm::tile_levelset)
    EXPECT_EQ(0, std::memcmp(first.data(), host_vector(x).data(), first.size() * sizeof(double)))
        << "tile-levelset is not bit-reproducible";
  const TileReport rep = solver.tile_report();
  EXPECT_EQ(rep.spmv, tile.spmv);
  EXPECT_EQ(rep.two_phase, tile.two_phase);
  return rep;
}

/// Tile row I (I >= 1) is one level: row r of it depends on row r of tile
/// row I-1 (an ell tile), and tile rows 2..8 also on tile row 0 through a
/// tile shaped for one format each; n = 16 * 9 + 5 leaves a partial last
/// tile row, and row 1 stores an explicit zero above the diagonal.
HostCsr one_tile_per_format() {
  const ordinal_t n = tile_size * 9 + 5;
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> val(-0.5, 0.5);
  const auto add = [&](ordinal_t i, ordinal_t j) { r.push_back(i), c.push_back(j), v.push_back(val(gen)); };
  for (ordinal_t i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(4.0 + std::abs(val(gen)));
    if (i >= tile_size) add(i, i - tile_size);
  }
  r.push_back(1), c.push_back(2), v.push_back(0.0);  // a stored zero above the diagonal
  const auto row0 = [](int I) { return I * tile_size; };
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b) add(row0(2) + a, b);                                // dns
  for (int b = 0; b < 16; ++b) add(row0(3) + 3, b), add(row0(3) + 7, b);             // dns-row
  for (int a = 0; a < 16; ++a) add(row0(4) + a, 2), add(row0(4) + a, 5);             // dns-col
  for (int k = 0; k < 5; ++k) add(row0(5) + 3 * k, 2 * k + 1);                       // coo
  for (int a = 0; a < 16; ++a) add(row0(6) + a, a), add(row0(6) + a, (a + 3) % 16);  // ell
  for (int a = 0; a < 15; ++a) add(row0(7) + a, a), add(row0(7) + a, (a + 5) % 16);  // hyb: ...
  for (int b = 0; b < 6; ++b) add(row0(7) + 15, 2 * b);                              // ... one long row
  for (int b = 0; b < 14; ++b) add(row0(8), b + 1);                                  // csr: one long row
  for (int a = 1; a < 4; ++a) add(row0(8) + a, a);                                   // and three short ones
  return csr_from_triplets(n, n, r, c, v);
}

template <class Device>
class TiledTrsv : public ::testing::Test {};
TYPED_TEST_SUITE(TiledTrsv, test::Backends, test::BackendNames);

TYPED_TEST(TiledTrsv, DefaultSelectionTreeMeetsEveryFormat) {
  const HostCsr L = one_tile_per_format();
  for (TrsvAlgorithm a : tiled) {
    const TileReport rep = check_tiled<TypeParam>(L, Triangle::lower, a, TileOptions{}, 21);
    SCOPED_TRACE(rep.describe());
    EXPECT_EQ(rep.tile_rows, 10);
    for (TileFormat f : {TileFormat::dns, TileFormat::dns_row, TileFormat::dns_col, TileFormat::hyb, TileFormat::csr})
      EXPECT_EQ(rep.format_count[int(f)], 1) << to_string(f);
    // ell: the eight full tiles (I, I-1) and tile row 6's; coo: tile row 5's
    // and the partial (9, 8) with 5 entries; dia: every diagonal tile.
    EXPECT_EQ(rep.format_count[int(TileFormat::ell)], 9);
    EXPECT_EQ(rep.format_count[int(TileFormat::coo)], 2);
    EXPECT_EQ(rep.format_count[int(TileFormat::dia)], 10);
    EXPECT_EQ(rep.offdiag_tiles, 16);
    EXPECT_EQ(rep.tile_levels, 10);
    EXPECT_GT(rep.tile_bytes, 0u);
    EXPECT_GT(rep.csr_bytes, 0u);
  }
}

TYPED_TEST(TiledTrsv, EveryForcedFormatMatchesTheReference) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::pair<std::string, HostCsr>> cases;
  cases.emplace_back("per-format tiles", one_tile_per_format());
  cases.emplace_back("dense rows", gallery::random_lower_triangular(700, gallery::TriangularShape::dense_rows, seed));
  cases.emplace_back("long chain", gallery::random_lower_triangular(333, gallery::TriangularShape::long_chain, seed));
  cases.emplace_back("lap3d27", gallery::laplace3d_27pt(7, 6, 5));
  for (auto& [name, A] : cases) {
    SCOPED_TRACE(name);
    for (int f = 0; f < num_tile_formats; ++f)
      for (TileSpmv spmv : values<TileSpmv>()) {
        if (TileFormat(f) == TileFormat::dia) continue;  // diagonal tiles only
        TileOptions opt;
        opt.force_format = true;
        opt.force = TileFormat(f);
        opt.order = f % 2 ? TileOrder::levels : TileOrder::natural;
        opt.spmv = spmv;
        // On host backends also the lanes a GPU gives each mapping (16 for
        // tiles, 32 for rows): the lanes then run one after another.
        if (detail::is_host_space<typename TypeParam::execution_space>() && f % 3 == 0)
          opt.lanes = spmv == TileSpmv::rows ? 32 : 16;
        SCOPED_TRACE(std::string(to_string(opt.force)) + " " + to_string(opt.order) + " " + to_string(spmv) + " " +
                     std::to_string(opt.lanes) + " lanes");
        for (TrsvAlgorithm a : tiled)
          for (Triangle tri : {Triangle::lower, Triangle::upper}) {
            const TileReport rep = check_tiled<TypeParam>(A, tri, a, opt, seed + f);
            EXPECT_EQ(
                rep.format_count[f] - (TileFormat(f) == TileFormat::csr ? rep.tile_rows - rep.format_count[7] : 0),
                rep.offdiag_tiles);
          }
      }
  }
}

TYPED_TEST(TiledTrsv, TwoPhaseLevelsetMatchesTheReference) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::pair<std::string, HostCsr>> cases;
  cases.emplace_back("per-format tiles", one_tile_per_format());
  // Tile rows of up to 40 off-diagonal tiles: several chunks each.
  cases.emplace_back("dense rows", gallery::random_lower_triangular(700, gallery::TriangularShape::dense_rows, seed));
  cases.emplace_back("long chain", gallery::random_lower_triangular(333, gallery::TriangularShape::long_chain, seed));
  cases.emplace_back("convdiff3d", gallery::convection_diffusion3d(9, 7, 6, 3.0));
  for (auto& [name, A] : cases) {
    SCOPED_TRACE(name);
    const HostCsr U = transpose(A);
    for (int chunk : {1, 3, 16})
      for (TileSpmv spmv : values<TileSpmv>())
        for (TileOrder order : values<TileOrder>()) {
          TileOptions opt;
          opt.two_phase = true;
          opt.chunk_tiles = chunk;
          opt.spmv = spmv;
          opt.order = order;
          if (detail::is_host_space<typename TypeParam::execution_space>() && order == TileOrder::levels)
            opt.lanes = 32;  // the GPU's lanes, run one after another
          SCOPED_TRACE("chunks of " + std::to_string(chunk) + " " + to_string(spmv) + " " + to_string(order) + " " +
                       std::to_string(opt.lanes) + " lanes");
          const TileReport rep = check_tiled<TypeParam>(A, Triangle::lower, TrsvAlgorithm::tile_levelset, opt, seed);
          EXPECT_GE(rep.chunks * chunk, rep.offdiag_tiles);
          EXPECT_LE(rep.chunks, rep.offdiag_tiles);
          if (chunk == 1) EXPECT_EQ(rep.chunks, rep.offdiag_tiles);
          check_tiled<TypeParam>(U, Triangle::upper, TrsvAlgorithm::tile_levelset, opt, seed + 1);
        }
  }
}

TYPED_TEST(TiledTrsv, AutomaticOrderFollowsItsRule) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::pair<std::string, HostCsr>> cases;
  cases.emplace_back("lap2d5", gallery::laplace2d_5pt(40, 40));
  cases.emplace_back("lap3d27", gallery::laplace3d_27pt(12, 12, 12));
  cases.emplace_back("sparse rows", gallery::random_lower_triangular(900, gallery::TriangularShape::sparse_rows, seed));
  cases.emplace_back("long chain", gallery::random_lower_triangular(333, gallery::TriangularShape::long_chain, seed));
  // Entries near the diagonal: level order scatters them (4x the tiles),
  // natural order chains almost every tile row to the one before (3.6x the
  // levels, over the root of 4).
  gallery::RandomOptions banded;
  banded.min_per_row = 1, banded.max_per_row = 3, banded.bandwidth = 8, banded.seed = seed;
  cases.emplace_back("banded", gallery::random_sparse(3000, banded));
  int took[2] = {0, 0}, chain_refused = 0;
  for (auto& [name, A] : cases)
    for (Triangle tri : {Triangle::lower, Triangle::upper}) {
      SCOPED_TRACE(name + " " + to_string(tri));
      const HostCsr& M = tri == Triangle::lower ? A : transpose(A);
      long long tiles[2];
      int tile_levels[2];
      for (TileOrder order : {TileOrder::natural, TileOrder::levels}) {
        TileOptions opt;
        opt.order = order;
        const TileReport cut = check_tiled<TypeParam>(M, tri, TrsvAlgorithm::tile_levelset, opt, seed);
        tiles[int(order)] = cut.offdiag_tiles;
        tile_levels[int(order)] = cut.tile_levels;
      }
      const int levels = int(count_levels_host(M, tri));
      const TileReport rep = check_tiled<TypeParam>(M, tri, TrsvAlgorithm::tile_levelset, TileOptions{}, seed);
      const bool few_tiles = double(tiles[1]) <= TileOptions{}.level_order_max_tile_ratio * double(tiles[0]);
      const double chain_limit = std::sqrt(double(tiles[1]) / double(tiles[0])) * levels;
      const TileOrder expected =
          few_tiles || tile_levels[int(TileOrder::natural)] > chain_limit ? TileOrder::levels : TileOrder::natural;
      EXPECT_EQ(rep.order, expected) << rep.describe();
      EXPECT_EQ(rep.natural_tile_levels, few_tiles ? -1 : tile_levels[int(TileOrder::natural)]);
      EXPECT_EQ(rep.offdiag_tiles, tiles[int(expected)]);
      EXPECT_EQ(rep.order_alternative_tiles, tiles[1 - int(expected)]);
      ++took[int(rep.order)];
      if (!few_tiles && rep.order == TileOrder::levels) ++chain_refused;
    }
  EXPECT_GT(took[0], 0) << "no case kept the natural order";
  EXPECT_GT(took[1], 0) << "no case took the level order";
  EXPECT_GT(chain_refused, 0) << "no case refused natural order for its tile levels";
}

TYPED_TEST(TiledTrsv, SingleValuesSumInTheSolvesPrecision) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::pair<std::string, HostCsr>> cases;
  cases.emplace_back("per-format tiles", one_tile_per_format());
  cases.emplace_back("dense rows", gallery::random_lower_triangular(700, gallery::TriangularShape::dense_rows, seed));
  for (auto& [name, A] : cases)
    for (TrsvAlgorithm a : tiled)
      for (TileSpmv spmv : values<TileSpmv>()) {
        SCOPED_TRACE(name + " " + to_string(a) + " " + to_string(spmv));
        const auto b = random_vector(A.num_rows, seed);
        const auto exact = reference::triangular_solve(A, Triangle::lower, b, DiagonalForm::stored, {});
        const auto rounded = reference::triangular_solve(reference::off_diagonal_in_float(A), Triangle::lower, b,
                                                         DiagonalForm::stored, {});
        TrsvOptions opt;
        opt.algorithm = a;
        opt.tile.spmv = spmv;
        opt.tile.single_values = true;
        TriangularSolver<double, TypeParam> solver(to_device<TypeParam>(A), opt);
        EXPECT_TRUE(solver.tile_report().single_values);
        Kokkos::View<double*, TypeParam> x("x", A.num_rows);
        Kokkos::deep_copy(x, std::nan(""));
        solver.solve(device_vector<TypeParam>(b), x);
        const auto xh = host_vector(x);
        // Float values, sums in double: the float-rounded matrix's solution
        // to double accuracy, and not the exact matrix's.
        EXPECT_LT(test::relative_error(xh, rounded), 1e-12);
        EXPECT_GT(test::relative_error(xh, exact), 1e-12);
        EXPECT_LT(test::relative_error(xh, exact), 1e-5);
      }
}

TYPED_TEST(TiledTrsv, RowsMappingNeverDeadlocks) {
  using Exec = typename TypeParam::execution_space;
  const ordinal_t n = detail::is_host_space<Exec>() ? 30000 : 200000;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int lanes : {0, 32}) {
    if (lanes && !detail::is_host_space<Exec>()) continue;  // 0 is the warp there
    TileOptions opt;
    opt.spmv = TileSpmv::rows;
    opt.lanes = lanes;
    SCOPED_TRACE(std::to_string(lanes) + " lanes");
    for (auto shape : {gallery::TriangularShape::sparse_rows, gallery::TriangularShape::long_chain}) {
      const HostCsr L = gallery::random_lower_triangular(n, shape, seed);
      check_tiled<TypeParam>(L, Triangle::lower, TrsvAlgorithm::tile_syncfree, opt, seed);
      check_tiled<TypeParam>(transpose(L), Triangle::upper, TrsvAlgorithm::tile_syncfree, opt, seed);
    }
  }
}

TYPED_TEST(TiledTrsv, ThreadAndWarpLevelDiagonalTilesAgree) {
  using Exec = typename TypeParam::execution_space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Long chains: every diagonal tile is a csr tile with 16 in-tile levels.
  const HostCsr L = gallery::random_lower_triangular(1000, gallery::TriangularShape::long_chain, seed);
  const HostCsr A = gallery::convection_diffusion3d(9, 7, 6, 3.0);
  for (const HostCsr* M : {&L, &A})
    for (int threshold : {1, 1 << 30})
      for (TileOrder order : values<TileOrder>()) {
        TileOptions opt;
        opt.warp_level_threshold = threshold;
        opt.order = order;
        for (TrsvAlgorithm a : tiled) {
          const TileReport rep = check_tiled<TypeParam>(*M, Triangle::lower, a, opt, seed);
          // Host backends always solve a diagonal tile on one thread.
          EXPECT_EQ(rep.warp_level, !detail::is_host_space<Exec>() && threshold > 1);
          check_tiled<TypeParam>(transpose(*M), Triangle::upper, a, opt, seed + 1);
        }
      }
}

TYPED_TEST(TiledTrsv, EmptyAndTinyMatrices) {
  for (ordinal_t n : {1, 15, 16, 17}) {
    const HostCsr L = gallery::random_lower_triangular(n, gallery::TriangularShape::dense_rows, 5);
    for (TrsvAlgorithm a : tiled) check_tiled<TypeParam>(L, Triangle::lower, a, TileOptions{}, 3);
  }
  // Only the diagonal: every tile row empty, every diagonal tile dia.
  const HostCsr D = gallery::random_lower_triangular(40, gallery::TriangularShape::diagonal_only, 5);
  for (TrsvAlgorithm a : tiled) {
    const TileReport rep = check_tiled<TypeParam>(D, Triangle::lower, a, TileOptions{}, 3);
    EXPECT_EQ(rep.offdiag_tiles, 0);
    EXPECT_EQ(rep.format_count[int(TileFormat::dia)], 3);
  }
}

TEST(TileOptions, DiaCannotBeForcedAndNamesRoundTrip) {
  TrsvOptions opt;
  opt.algorithm = TrsvAlgorithm::tile_levelset;
  opt.tile.force_format = true;
  opt.tile.force = TileFormat::dia;
  const HostCsr L = gallery::random_lower_triangular(40, gallery::TriangularShape::sparse_rows, 5);
  EXPECT_THROW((TriangularSolver<double, HostDevice>(L, opt)), InputError);
  opt.tile.force_format = false;
  opt.tile.two_phase = true;
  opt.tile.chunk_tiles = 0;
  try {
    TriangularSolver<double, HostDevice> s(L, opt);
    ADD_FAILURE() << "chunk_tiles 0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("chunk_tiles"), std::string::npos) << e.what();
  }
  opt.tile.chunk_tiles = 16;
  for (int lanes : {-1, 3, 128}) {
    opt.tile.lanes = lanes;
    try {
      TriangularSolver<double, HostDevice> s(L, opt);
      ADD_FAILURE() << "lanes " << lanes << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("lanes is " + std::to_string(lanes)), std::string::npos) << e.what();
    }
  }
  for (int f = 0; f < num_tile_formats; ++f) EXPECT_EQ(int(parse<TileFormat>(to_string(TileFormat(f)))), f);
  for (TileSpmv m : values<TileSpmv>()) EXPECT_EQ(parse<TileSpmv>(to_string(m)), m);
  EXPECT_THROW(parse<TileSpmv>("columns"), InputError);
}

}  // namespace
}  // namespace trellis
