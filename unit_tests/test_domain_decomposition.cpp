// Domain-decomposition ILU0/ILDU0 (seed 000): partitioning, reordering and
// dropping on the host; factorization, analysis and every solve variant on
// each backend against a serial block-ILU0 reference of the same
// block-diagonal matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <thread>

#include "domain_decomposition.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/core/shared_workspace.hpp"
#include "trellis/dd/detail/host_setup.hpp"
#include "trellis/dd/domain_decomposition_ilu.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/partition/detail/adjacency.hpp"
#include "trellis/partition/node_graph.hpp"
#include "trellis/partition/subdomain_layout.hpp"

namespace trellis {
namespace {

// ---- host-side pieces -------------------------------------------------------

TEST(Partition, GeometricCutsFollowAlgorithm31) {
  const Partition p = geometric_partition({6, 4, 3}, {2, 3, 2});
  EXPECT_EQ(p.num_parts, 3 * 2 * 2);
  for (ordinal_t k = 0; k < 3; ++k)
    for (ordinal_t j = 0; j < 4; ++j)
      for (ordinal_t i = 0; i < 6; ++i) EXPECT_EQ(p.part[i + 6 * (j + 4 * k)], i / 2 + 3 * (j / 3 + 2 * (k / 2)));
  EXPECT_EQ(p.largest_part(), 12);
}

TEST(Partition, GeometricLayoutIsTheGroupedGeometricPartition) {
  // Boxes that divide the grid, boxes that do not (smaller boxes at the far
  // faces), a box larger than the grid, a single point.
  const std::vector<std::pair<GridDims, GridDims>> cases{{{6, 4, 3}, {2, 3, 2}}, {{5, 4, 3}, {2, 2, 3}},
                                                         {{7, 5, 3}, {3, 2, 2}}, {{16, 16, 16}, {8, 8, 16}},
                                                         {{3, 3, 3}, {8, 8, 8}}, {{1, 1, 1}, {1, 1, 1}}};
  for (const auto& [grid, box] : cases) {
    SCOPED_TRACE(std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]) + " box " +
                 std::to_string(box[0]) + "x" + std::to_string(box[1]) + "x" + std::to_string(box[2]));
    const SubdomainLayout expected = group_rows_by_part(geometric_partition(grid, box));
    const SubdomainLayout got = geometric_layout(grid, box);
    EXPECT_EQ(got.new_to_old, expected.new_to_old);
    EXPECT_EQ(got.sub_start, expected.sub_start);
  }
  EXPECT_THROW(geometric_layout({4, 0, 4}, {2, 2, 2}), InputError);
  EXPECT_THROW(geometric_layout({4, 4, 4}, {2, -1, 2}), InputError);
}

TEST(Partition, GeometricBoxDividesTheGridFitsAndIsNearCubic) {
  GridDims box = geometric_box({64, 64, 64}, 2048);
  EXPECT_EQ(box[0] * box[1] * box[2], 2048);
  EXPECT_LE(std::max({box[0], box[1], box[2]}), 2 * std::min({box[0], box[1], box[2]}));
  box = geometric_box({96, 96, 96}, 1706);  // b = 3 on CUDA with 40 KB of scratch
  EXPECT_LE(box[0] * box[1] * box[2], 1706);
  EXPECT_GE(box[0] * box[1] * box[2], 1536);  // e.g. 16x12x8, not the 1024 of doubling
  for (int d = 0; d < 3; ++d) EXPECT_EQ(96 % box[d], 0);
  box = geometric_box({127, 127, 127}, 1706);  // prime sides: a near-cube that does not divide
  EXPECT_LE(box[0] * box[1] * box[2], 1706);
  EXPECT_GE(box[0] * box[1] * box[2], 1400);
}

TEST(Partition, MetisGivesUniformSubdomains) {
  if (!have_metis()) GTEST_SKIP() << "built without METIS";
  const HostCsr A = gallery::laplace3d_7pt(12, 11, 10);
  const Partition p = metis_partition(A, 100);
  EXPECT_EQ(p.num_parts, 14);
  std::vector<int> size(p.num_parts, 0);
  for (ordinal_t q : p.part) ++size[q];
  for (ordinal_t q = 0; q + 1 < p.num_parts; ++q) EXPECT_EQ(size[q], 100);
  EXPECT_EQ(size.back(), 1320 - 13 * 100);
}

/// Entries (i, j), i != j, of A's pattern whose rows lie in different parts.
long long cut_entries(const HostCsr& A, const Partition& p) {
  long long cut = 0;
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) cut += p.part[i] != p.part[A.entries(q)];
  return cut;
}

TEST(Partition, CouplingStrengthsAreScaledBlockNorms) {
  // 2 block rows of b = 2: |A_01| = 3 (max-abs), |A_00| = 4, |A_11| = 9.
  HostBsr::row_map_type::non_const_type map("map", 3);
  HostBsr::index_type col("col", 4);
  HostBsr::values_type val("val", 16);
  map(1) = 2, map(2) = 4;
  col(0) = 0, col(1) = 1, col(2) = 0, col(3) = 1;
  const double blocks[4][4] = {{4, 1, 0, -2}, {0, -3, 1, 0}, {0.5, 0, 0, 0}, {9, 0, 0, 1}};
  for (int q = 0; q < 4; ++q)
    for (int t = 0; t < 4; ++t) val(q * 4 + t) = blocks[q][t];
  const std::vector<double> w = coupling_strengths(HostBsr(2, 2, 2, map, col, val));
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_DOUBLE_EQ(w[1], 3.0 / 6.0);
  EXPECT_DOUBLE_EQ(w[2], 0.5 / 6.0);
  EXPECT_EQ(w[3], 0.0);
}

/// A 40 x 40 grid with couplings 1 along x and 1e-4 along y.
HostCsr anisotropic_grid() {
  HostCsr A = gallery::laplace2d_5pt(40, 40);
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t j = A.entries(q);
      A.values(q) = j == i ? 2.0002 : (std::abs(j - i) == 1 ? -1.0 : -1e-4);
    }
  return A;
}

TEST(Partition, CouplingWeightsKeepStrongCouplingsInside) {
  // Weighted, METIS cuts far fewer strong couplings (here 23 against 88
  // after the rebalance to equal sizes, which cuts some wherever METIS put
  // its parts).
  if (!have_metis()) GTEST_SKIP() << "built without METIS";
  const HostCsr A = anisotropic_grid();
  const std::vector<double> w = coupling_strengths(csr_to_bsr(A, 1));
  const double plain = dropped_weight(A, metis_partition(A, 200), w);
  const double weighted = dropped_weight(A, metis_partition(A, 200, w), w);
  EXPECT_LT(weighted, 0.5 * plain) << "weighted cut " << weighted << ", unweighted " << plain;
  EXPECT_THROW(metis_partition(A, 200, std::vector<double>(3, 1.0)), StructureError);
}

/// A with rows and columns renumbered: row i becomes new_of[i].
HostCsr renumbered(const HostCsr& A, const std::vector<ordinal_t>& new_of) {
  const ordinal_t n = A.num_rows;
  std::vector<ordinal_t> old_of(n);
  for (ordinal_t i = 0; i < n; ++i) old_of[new_of[i]] = i;
  HostCsr::row_map_type::non_const_type map("map", size_t(n) + 1);
  HostCsr::index_type::non_const_type col("col", A.entries.extent(0));
  HostCsr::values_type val("val", A.entries.extent(0));
  for (ordinal_t r = 0; r < n; ++r) {
    const ordinal_t i = old_of[r];
    map(r + 1) = map(r) + (A.row_map(i + 1) - A.row_map(i));
    for (offset_t q = A.row_map(i), t = map(r); q < A.row_map(i + 1); ++q, ++t)
      col(t) = new_of[A.entries(q)], val(t) = A.values(q);
  }
  return HostCsr(n, n, map, col, val);
}

/// An nx x ny 5-point grid with its rows in a random order.
HostCsr shuffled_grid(ordinal_t nx, ordinal_t ny, decltype(test::fresh_seed()) seed) {
  std::vector<ordinal_t> new_of(size_t(nx) * ny);
  std::iota(new_of.begin(), new_of.end(), 0);
  std::shuffle(new_of.begin(), new_of.end(), std::mt19937(seed));
  return renumbered(gallery::laplace2d_5pt(nx, ny), new_of);
}

TEST(Partition, SlabsOfAShuffledGridCutLikeParallelPlanes) {
  const ordinal_t nx = 40, ny = 30, n = nx * ny;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr A = shuffled_grid(nx, ny, seed);
  const Partition p = slab_partition(A, 300);
  ASSERT_EQ(p.num_parts, 4);
  std::vector<int> size(p.num_parts, 0);
  for (ordinal_t q : p.part) ++size.at(q);
  for (int s : size) EXPECT_EQ(s, 300);
  // Three boundaries, each a breadth-first wavefront (an anti-diagonal from a
  // corner: at most ny points, each with two neighbours beyond it), entries
  // counted in both directions.
  const long long cut = cut_entries(A, p);
  EXPECT_LE(cut, 3 * 2 * 2 * ny + 12);
  EXPECT_GT(cut_entries(A, contiguous_partition(n, 300)), 10 * cut);  // the shuffled order cuts most entries
}

/// Two 9x7 grids side by side (no entry between them) and a row with no
/// off-diagonal entry: 127 rows.
HostCsr two_grids_and_a_lone_row() {
  const HostCsr g = gallery::laplace2d_5pt(9, 7);
  const ordinal_t m = g.num_rows, n = 2 * m + 1;
  HostCsr::row_map_type::non_const_type map("map", size_t(n) + 1);
  HostCsr::index_type::non_const_type col("col", 2 * g.entries.extent(0) + 1);
  HostCsr::values_type val("val", col.extent(0));
  offset_t t = 0;
  for (ordinal_t r = 0; r < n; ++r) {
    if (r == 2 * m)
      col(t) = r, val(t++) = 1;
    else {
      const ordinal_t i = r % m, shift = r < m ? 0 : m;
      for (offset_t q = g.row_map(i); q < g.row_map(i + 1); ++q) col(t) = g.entries(q) + shift, val(t++) = g.values(q);
    }
    map(r + 1) = t;
  }
  return HostCsr(n, n, map, col, val);
}

/// Every row in exactly one part, parts full but the last.
void expect_full_parts(const Partition& p, ordinal_t n, ordinal_t rows_per_part) {
  ASSERT_EQ(p.num_parts, (n + rows_per_part - 1) / rows_per_part);
  ASSERT_EQ(p.part.size(), size_t(n));
  std::vector<int> size(p.num_parts, 0);
  for (ordinal_t q : p.part) ++size.at(q);
  for (ordinal_t q = 0; q + 1 < p.num_parts; ++q) EXPECT_EQ(size[q], rows_per_part);
  EXPECT_EQ(size.back(), n - (p.num_parts - 1) * rows_per_part);
}

TEST(Partition, SlabsCoverEveryComponentOnce) {
  const HostCsr A = two_grids_and_a_lone_row();
  expect_full_parts(slab_partition(A, 20), A.num_rows, 20);
  EXPECT_EQ(slab_partition(gallery::laplace2d_5pt(9, 7), 1000).num_parts, 1);
}

TEST(Partition, RegionsCoverEveryComponentOnce) {
  const HostCsr A = two_grids_and_a_lone_row();
  expect_full_parts(region_partition(A, 20), A.num_rows, 20);
  expect_full_parts(region_partition(A, 20, coupling_strengths(csr_to_bsr(A, 1))), A.num_rows, 20);
  expect_full_parts(region_partition(A, 1), A.num_rows, 1);
  EXPECT_EQ(region_partition(gallery::laplace2d_5pt(9, 7), 1000).num_parts, 1);
}

TEST(Partition, RegionsOfAShuffledGridAreCompact) {
  // 12 regions of 100 rows on a 40 x 30 grid in a random order: 10 x 10
  // squares would cut 2 (3 x 30 + 2 x 40) = 340 entries, slabs of 100 rows
  // (anti-diagonal wavefronts) cut about 1020; regions cut 550-630 in 100
  // orders.
  const ordinal_t nx = 40, ny = 30, n = nx * ny;
  for (int trial = 0; trial < 4; ++trial) {
    const auto seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    const HostCsr A = shuffled_grid(nx, ny, seed);
    const Partition p = region_partition(A, 100);
    expect_full_parts(p, n, 100);
    const long long cut = cut_entries(A, p), slabs = cut_entries(A, slab_partition(A, 100));
    EXPECT_LE(cut, 720) << "slabs cut " << slabs;
    EXPECT_LT(cut, slabs);
  }
}

TEST(Partition, WeightedRegionsKeepStrongCouplingsInside) {
  // Weighted, regions take whole grid lines along the strong couplings
  // (here 0.028 against 128).
  const HostCsr A = anisotropic_grid();
  const std::vector<double> w = coupling_strengths(csr_to_bsr(A, 1));
  const Partition weighted = region_partition(A, 200, w);
  expect_full_parts(weighted, A.num_rows, 200);
  const double plain = dropped_weight(A, region_partition(A, 200), w), strong = dropped_weight(A, weighted, w);
  EXPECT_LT(strong, 0.01 * plain) << "weighted cut " << strong << ", unweighted " << plain;
  EXPECT_THROW(region_partition(A, 200, std::vector<double>(3, 1.0)), StructureError);
}

TEST(Partition, AutomaticTakesSlabsUnlessTheyDropFarMore) {
  // A shuffled 40 x 30 grid: two parts are one wavefront either way (slabs);
  // twelve regions cut about 600 entries, twelve slabs about 1020 (regions).
  const ordinal_t nx = 40, ny = 30, n = nx * ny;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr A = shuffled_grid(nx, ny, seed);
  for (const ordinal_t rows : {600, 100}) {
    const AutomaticPartition a = slabs_or_regions(A, rows);
    const Partition slabs = slab_partition(A, rows), regions = region_partition(A, rows);
    EXPECT_EQ(a.slabs_dropped, double(cut_entries(A, slabs)));
    EXPECT_EQ(a.regions_dropped, dropped_weight(A, regions));
    EXPECT_EQ(a.chose_regions, rows == 100) << a.slabs_dropped << " against " << a.regions_dropped;
    EXPECT_EQ(a.partition.part, a.chose_regions ? regions.part : slabs.part);
  }
  const AutomaticPartition one = slabs_or_regions(A, n);
  EXPECT_EQ(one.partition.num_parts, 1);
  EXPECT_THROW(slabs_or_regions(A, 100, std::vector<double>(5, 1.0)), StructureError);
}

/// A's pattern without the entries above the diagonal where (i + j) % 5 == 0
/// (their mirrors stay): a pattern that is not structurally symmetric.
HostCsr one_way_entries(const HostCsr& A) {
  std::vector<ordinal_t> cols;
  std::vector<double> vals;
  HostCsr::row_map_type::non_const_type map("map", size_t(A.num_rows) + 1);
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)
      if (!(A.entries(q) > i && (i + A.entries(q)) % 5 == 0)) cols.push_back(A.entries(q)), vals.push_back(A.values(q));
    map(i + 1) = offset_t(cols.size());
  }
  HostCsr::index_type::non_const_type col("col", cols.size());
  HostCsr::values_type val("val", cols.size());
  for (size_t q = 0; q < cols.size(); ++q) col(q) = cols[q], val(q) = vals[q];
  return HostCsr(A.num_rows, A.num_cols, map, col, val);
}

void expect_same_graph(const HostCsr& A, const std::vector<double>& w, const std::string& what) {
  SCOPED_TRACE(what);
  for (const bool weighted : {false, true}) {
    const std::vector<double>& weights = weighted ? w : std::vector<double>();
    const detail::Adjacency scatter = detail::symmetrized_by_scatter(A, weights),
                            parallel = detail::symmetrized_in_parallel(A, weights);
    EXPECT_EQ(parallel.ptr, scatter.ptr) << "weighted " << weighted;
    EXPECT_EQ(parallel.adj, scatter.adj) << "weighted " << weighted;
    EXPECT_EQ(parallel.strength, scatter.strength) << "weighted " << weighted;
    EXPECT_EQ(parallel.links, scatter.links) << "weighted " << weighted;
    EXPECT_EQ(scatter.strength.size(), weighted ? scatter.adj.size() : 0);
  }
}

TEST(Partition, ParallelGraphEqualsTheScatteredOne) {
  // Random values on a symmetric pattern: the two listings of a neighbour
  // fall in different classes, and the parallel build must keep both, in
  // the scatter's order. Then patterns it must hand to the scatter.
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> exponent(-3.0, 0.0);
  // Weights over four powers of ten, one of them zero (the last class).
  auto random_weights = [&](const HostCsr& A) {
    std::vector<double> w(A.entries.extent(0));
    for (double& x : w) x = std::pow(10.0, exponent(rng));
    w.at(w.size() / 3) = 0.0;
    return w;
  };
  const HostCsr grid = gallery::laplace2d_5pt(30, 20), one_way = one_way_entries(grid),
                unsorted = shuffled_grid(12, 9, seed), components = two_grids_and_a_lone_row();
  expect_same_graph(grid, random_weights(grid), "symmetric pattern");
  expect_same_graph(one_way, random_weights(one_way), "one-way entries");
  expect_same_graph(unsorted, random_weights(unsorted), "unsorted rows");
  expect_same_graph(components, random_weights(components), "two components and a lone row");
  for (const auto& m : test::real_matrices())
    if (m.rows == m.cols) {
      const HostCsr A = io::read_matrix_market(m.path);
      expect_same_graph(A, coupling_strengths(csr_to_bsr(A, 1)), m.file);
    }
}

TEST(Partition, NodeSizeIsDetectedFromThePattern) {
  // A point matrix whose b x b blocks are dense: nodes of b rows, and not
  // 2b (two neighbouring nodes do not share their neighbours). Below b, the
  // largest divisor of b: equal parts of a node share its neighbours too.
  for (int b : {2, 3, 4, 5, 6, 8}) {
    const HostCsr A = bsr_to_csr(gallery::block_laplace3d(6, 5, 4, b));
    EXPECT_EQ(detect_node_size(A), b) << "b=" << b;
    int part = 1;
    for (int d = 2; d < b; ++d)
      if (b % d == 0) part = d;
    EXPECT_EQ(detect_node_size(A, b - 1), part) << "b=" << b << ", largest " << b - 1;
  }
  // Scalar matrices: grid points and random rows share few neighbours.
  EXPECT_EQ(detect_node_size(gallery::laplace2d_5pt(30, 20)), 1);
  EXPECT_EQ(detect_node_size(gallery::laplace3d_7pt(10, 9, 8)), 1);
  gallery::RandomOptions o;
  o.seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(o.seed));
  EXPECT_EQ(detect_node_size(gallery::random_sparse(600, o)), 1);
  // Nodes whose middle rows keep only their own node: each row touches 5/7
  // of its node's neighbours on average, below the 0.95 default, above 0.7.
  const HostCsr A = bsr_to_csr(gallery::block_laplace3d(10, 10, 10, 3));
  std::vector<ordinal_t> cols;
  std::vector<double> vals;
  HostCsr::row_map_type::non_const_type map("map", size_t(A.num_rows) + 1);
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)  // row 3k+1 of every node keeps its own node only
      if (i % 3 != 1 || A.entries(q) / 3 == i / 3) cols.push_back(A.entries(q)), vals.push_back(A.values(q));
    map(i + 1) = offset_t(cols.size());
  }
  HostCsr::index_type::non_const_type col("col", cols.size());
  HostCsr::values_type val("val", cols.size());
  for (size_t q = 0; q < cols.size(); ++q) col(q) = cols[q], val(q) = vals[q];
  const HostCsr thinned(A.num_rows, A.num_cols, map, col, val);
  EXPECT_EQ(detect_node_size(thinned), 1);
  EXPECT_EQ(detect_node_size(thinned, 8, 0.7), 3);
}

TEST(Partition, NodesOfRealMatrices) {
  // training/MANIFEST.tsv: dg_transport2d's discontinuous elements are dense
  // 3 x 3 blocks (each row touches all its node's neighbours); sherman5's
  // three unknowns per cell share 88% of them, under the default 0.95; the
  // small matrices of the manifest are scalar.
  const auto list = test::real_matrices();
  TRELLIS_REQUIRE_REAL_MATRICES(list);
  for (const auto& m : list)
    if (m.rows == m.cols) EXPECT_EQ(detect_node_size(io::read_matrix_market(m.path)), 1) << m.file;
  const std::string training = test::matrices_dir() + "/training/";
  if (!TRELLIS_ENABLE_ZLIB || !std::ifstream(training + "ff_dg_transport2d.mtx.gz"))
    GTEST_SKIP() << "no gzip reader or no " << training << "ff_dg_transport2d.mtx.gz";
  const HostCsr dg = io::read_matrix_market(training + "ff_dg_transport2d.mtx.gz");
  EXPECT_EQ(detect_node_size(dg), 3);
  const HostCsr sherman = io::read_matrix_market(training + "debian_trilinos_sherman5.mtx.gz");
  EXPECT_EQ(detect_node_size(sherman), 1);
  EXPECT_EQ(detect_node_size(sherman, 8, 0.85), 3);
  // DD's own detection on it: every element in one subdomain.
  DdOptions opt;
  opt.subdomain_rows = 300;
  const DomainDecompositionIlu<double, test::DeviceOf<Kokkos::Serial>> dd(csr_to_bsr(dg, 1), opt);
  EXPECT_EQ(dd.report().node_size, 3);
  std::vector<ordinal_t> sub_of(size_t(dg.num_rows));
  for (ordinal_t s = 0; s < dd.layout().num_subdomains(); ++s)
    for (ordinal_t r = dd.layout().sub_start[s]; r < dd.layout().sub_start[s + 1]; ++r)
      sub_of[dd.layout().new_to_old[r]] = s;
  for (ordinal_t i = 0; i < dg.num_rows; ++i) ASSERT_EQ(sub_of[i], sub_of[i / 3 * 3]) << "row " << i;
}

TEST(Partition, NodeGraphIsTheBlockPatternWithTheLargestWeights) {
  const HostBsr blocks = gallery::block_laplace3d(7, 6, 5, 3);
  const HostCsr A = bsr_to_csr(blocks);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::vector<double> w(A.entries.extent(0));
  for (double& x : w) x = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  const NodeGraph g = node_graph(A, 3, w);
  ASSERT_EQ(g.graph.num_rows, blocks.num_block_rows);
  ASSERT_EQ(g.weights.size(), g.graph.entries.extent(0));
  for (ordinal_t I = 0; I <= blocks.num_block_rows; ++I) ASSERT_EQ(g.graph.row_map(I), blocks.row_map(I));
  for (size_t q = 0; q < blocks.entries.extent(0); ++q) ASSERT_EQ(g.graph.entries(q), blocks.entries(q));
  std::vector<double> largest(g.weights.size(), 0.0);
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t I = i / 3, J = A.entries(q) / 3;
      offset_t at = g.graph.row_map(I);
      while (g.graph.entries(at) != J) ++at;
      largest[size_t(at)] = std::max(largest[size_t(at)], w[size_t(q)]);
    }
  EXPECT_EQ(g.weights, largest);
  EXPECT_TRUE(node_graph(A, 3).weights.empty());
  EXPECT_THROW(node_graph(A, 4), InputError);  // 630 rows
  EXPECT_THROW(node_graph(A, 3, std::vector<double>(5, 1.0)), StructureError);
  const Partition rows = rows_of_nodes(contiguous_partition(g.graph.num_rows, 40), 3);
  ASSERT_EQ(rows.part.size(), size_t(A.num_rows));
  for (ordinal_t i = 0; i < A.num_rows; ++i) ASSERT_EQ(rows.part[i], i / 3 / 40);
}

TEST(Partition, BadInputIsNamed) {
  EXPECT_THROW(geometric_partition({4, 4, 0}, {2, 2, 2}), InputError);
  EXPECT_THROW(contiguous_partition(10, 0), InputError);
  EXPECT_THROW(parse<Partitioner>("kway"), InputError);
  EXPECT_EQ(parse<Partitioner>("slabs"), Partitioner::slabs);
  EXPECT_THROW(slab_partition(gallery::laplace2d_5pt(4, 4), 0), InputError);
  EXPECT_THROW(region_partition(gallery::laplace2d_5pt(4, 4), 0), InputError);
  EXPECT_EQ(parse<Partitioner>("regions"), Partitioner::regions);
  Partition p = contiguous_partition(4, 2);
  p.part[1] = 7;
  EXPECT_THROW(group_rows_by_part(p), InputError);
}

TEST(SubdomainSize, AutomaticSizeAimsAtTheSubdomainsWanted) {
  using dd::detail::subdomain_rows;
  const DdOptions automatic;
  // No wish (CPUs): the paper's 2048, or what fits.
  EXPECT_EQ(subdomain_rows(automatic, 100000, {5120, 0}), 2048);
  EXPECT_EQ(subdomain_rows(automatic, 100000, {1706, 0}), 1706);
  // 264 wanted (an H200): n / 264 rows, between 96 and 2048.
  EXPECT_EQ(subdomain_rows(automatic, 26481, {5120, 264}), 101);
  EXPECT_EQ(subdomain_rows(automatic, 3000, {5120, 264}), 96);
  EXPECT_EQ(subdomain_rows(automatic, 2048, {5120, 264}), 2048);  // fits one subdomain: stays whole
  EXPECT_EQ(subdomain_rows(automatic, 1000, {5120, 264}), 2048);
  EXPECT_EQ(subdomain_rows(automatic, 2049, {5120, 264}), 96);
  EXPECT_EQ(subdomain_rows(automatic, 1000, {600, 264}), 96);  // does not fit one: the rule applies
  EXPECT_EQ(subdomain_rows(automatic, 2000000, {5120, 264}), 2048);
  EXPECT_EQ(subdomain_rows(automatic, 300000, {1706, 264}), 1137);
  // A size given is kept, up to what fits.
  DdOptions given;
  given.subdomain_rows = 500;
  EXPECT_EQ(subdomain_rows(given, 26481, {5120, 264}), 500);
  EXPECT_EQ(subdomain_rows(given, 26481, {300, 264}), 300);
}

TEST(SubdomainLayout, ReorderMapsEveryBlockAndDropCountsWhatLeaves) {
  const HostBsr A = gallery::block_laplace3d(5, 4, 3, 2);
  const SubdomainLayout layout = group_rows_by_part(geometric_partition({5, 4, 3}, {2, 2, 3}));
  const HostBsr R = permute_symmetric(A, make_permutation<HostDevice>(layout.new_to_old));
  ASSERT_EQ(R.nnz_blocks(), A.nnz_blocks());
  std::vector<ordinal_t> old_to_new(A.num_block_rows);
  for (ordinal_t i = 0; i < A.num_block_rows; ++i) old_to_new[layout.new_to_old[i]] = i;
  std::vector<ordinal_t> sub(A.num_block_rows);
  for (ordinal_t s = 0; s < layout.num_subdomains(); ++s)
    for (ordinal_t i = layout.sub_start[s]; i < layout.sub_start[s + 1]; ++i) sub[i] = s;
  offset_t between = 0;
  for (ordinal_t i = 0; i < A.num_block_rows; ++i) {
    const ordinal_t m = layout.new_to_old[i];
    for (offset_t q = A.row_map(m); q < A.row_map(m + 1); ++q) {
      const ordinal_t j = old_to_new[A.entries(q)];
      if (sub[j] != sub[i]) ++between;
      bool found = false;
      for (offset_t t = R.row_map(i); t < R.row_map(i + 1); ++t)
        if (R.entries(t) == j) {
          found = true;
          for (int e = 0; e < 4; ++e) EXPECT_EQ(R.values(t * 4 + e), A.values(q * 4 + e));
        }
      EXPECT_TRUE(found) << "block (" << m << ", " << A.entries(q) << ") lost";
    }
    for (offset_t t = R.row_map(i) + 1; t < R.row_map(i + 1); ++t) EXPECT_LT(R.entries(t - 1), R.entries(t));
  }
  EXPECT_GT(between, 0);
  // The preconditioner built on the same boxes drops exactly those blocks.
  DdOptions opt;
  opt.grid = {5, 4, 3};
  opt.box = {2, 2, 3};
  const DomainDecompositionIlu<double, HostDevice> dd(A, opt);
  EXPECT_EQ(dd.layout().new_to_old, layout.new_to_old);
  EXPECT_EQ(dd.report().blocks_dropped, between);
  EXPECT_EQ(reference::drop_between_subdomains(R, layout.sub_start).nnz_blocks() + between, A.nnz_blocks());
}

// ---- device kernels against the reference ------------------------------------

template <class Device>
class DomainDecomposition : public ::testing::Test {};
TYPED_TEST_SUITE(DomainDecomposition, test::Backends, test::BackendNames);

using Vec = std::vector<double>;

/// Reference of the preconditioner M built: the same layout (permutation
/// and subdomains), the serial block ILU0 of the dropped matrix.
template <class M>
reference::Ilu0Factors reference_for(const HostBsr& A, const M& dd) {
  return reference::dd_ilu0(A, dd.layout().new_to_old, dd.layout().sub_start);
}

/// Every application and lower-solve variant against the reference, outputs
/// poisoned with NaN first.
template <class Device>
void expect_all_variants_match(const HostBsr& A, const DdOptions& options, const std::string& what) {
  SCOPED_TRACE(what);
  DomainDecompositionIlu<double, Device> dd(A, options);
  const reference::Ilu0Factors ref = reference_for(A, dd);
  ASSERT_EQ(ref.bad_row, -1) << "reference ILU0 hit a singular pivot";
  const int b = A.block_size;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec r = test::random_vector(size_t(A.num_rows()), seed);
  const auto& n2o = dd.layout().new_to_old;
  const Vec r_new = reference::to_new_numbering(r, n2o, b);
  const Vec apply_ref = reference::to_old_numbering(reference::ilu0_apply(ref, r_new), n2o, b);
  const Vec lower_ref = reference::ilu0_lower_solve(ref, r_new);
  const double nan = std::numeric_limits<double>::quiet_NaN();

  auto rd = test::device_vector<Device>(r);
  auto rd_new = test::device_vector<Device>(r_new);
  for (DdApply v : values<DdApply>()) {
    auto z = test::device_vector<Device>(Vec(r.size(), nan));
    dd.apply(rd, z, v);
    EXPECT_LT(test::relative_error(test::host_vector(z), apply_ref), 1e-11) << to_string(v);
  }
  for (DdLowerSolve v : values<DdLowerSolve>()) {
    auto y = test::device_vector<Device>(Vec(r.size(), nan));
    test::run_with_watchdog(to_string(v), 60, [&] { dd.lower_solve_reordered(rd_new, y, v); });
    EXPECT_LT(test::relative_error(test::host_vector(y), lower_ref), 1e-11) << to_string(v);
  }
}

TYPED_TEST(DomainDecomposition, RandomBlockMatricesEveryBlockSize) {
  for (int b : {1, 2, 3, 4, 5, 6, 7, 8}) {
    gallery::RandomOptions o;
    o.seed = test::fresh_seed();
    o.bandwidth = 60;
    o.max_per_row = 6;
    const HostBsr A = csr_to_bsr(gallery::random_sparse(160 * b, o), b);
    DdOptions opt;
    opt.partitioner = Partitioner::contiguous;
    opt.subdomain_rows = 37;  // many subdomains, a short last one
    expect_all_variants_match<TypeParam>(A, opt, "random b=" + std::to_string(b) + " seed " + std::to_string(o.seed));
  }
}

TYPED_TEST(DomainDecomposition, BlockLaplacianGeometricAndMetis) {
  const HostBsr A = gallery::block_laplace3d(14, 12, 10, 3);
  DdOptions geo;
  geo.grid = {14, 12, 10};
  geo.box = {6, 5, 4};
  expect_all_variants_match<TypeParam>(A, geo, "block laplacian, geometric 6x5x4 boxes");
  if (have_metis()) {
    DdOptions metis;
    metis.partitioner = Partitioner::metis;
    metis.subdomain_rows = 250;
    expect_all_variants_match<TypeParam>(A, metis, "block laplacian, METIS 250 rows");
    // Weighted by default: the report gives the coupling weight dropped, the
    // same from a device copy (whose values come to the host for it).
    const DomainDecompositionIlu<double, TypeParam> host(A, metis), device(copy_to<TypeParam>(A), metis);
    EXPECT_GT(host.report().dropped_coupling, 0.0);
    EXPECT_LT(host.report().dropped_coupling, 0.5);
    EXPECT_EQ(host.report().dropped_coupling, device.report().dropped_coupling);
    EXPECT_EQ(host.layout().new_to_old, device.layout().new_to_old);
    metis.coupling_weights = false;
    const DomainDecompositionIlu<double, TypeParam> unweighted(A, metis);
    EXPECT_EQ(unweighted.report().dropped_coupling, -1.0);
  }
  DdOptions slabs;
  slabs.partitioner = Partitioner::slabs;
  slabs.subdomain_rows = 250;
  expect_all_variants_match<TypeParam>(A, slabs, "block laplacian, slabs 250 rows");
  DdOptions automatic;
  automatic.subdomain_rows = 250;
  expect_all_variants_match<TypeParam>(A, automatic, "block laplacian, automatic 250 rows");
  const DomainDecompositionIlu<double, TypeParam> chosen(A, automatic);
  EXPECT_NE(chosen.report().partitioner.find("auto: slabs drop"), std::string::npos) << chosen.report().partitioner;
  DdOptions regions;
  regions.partitioner = Partitioner::regions;
  regions.subdomain_rows = 150;
  expect_all_variants_match<TypeParam>(A, regions, "block laplacian, regions 150 rows");
  // Weighted too by default, with the coupling dropped reported.
  const DomainDecompositionIlu<double, TypeParam> grown(A, regions);
  EXPECT_GT(grown.report().dropped_coupling, 0.0);
  EXPECT_LT(grown.report().dropped_coupling, 0.5);
}

TYPED_TEST(DomainDecomposition, GraphPartitionsKeepNodesWhole) {
  // The block Laplacian given as a point matrix: its nodes of 3 rows are
  // detected and stay whole under every graph partitioner; node_size = 1
  // partitions rows.
  const HostBsr A = csr_to_bsr(bsr_to_csr(gallery::block_laplace3d(10, 9, 8, 3)), 1);
  std::vector<Partitioner> partitioners{Partitioner::automatic, Partitioner::slabs, Partitioner::regions};
  if (have_metis()) partitioners.push_back(Partitioner::metis);
  for (const Partitioner p : partitioners) {
    DdOptions opt;
    opt.partitioner = p;
    opt.subdomain_rows = 100;
    const std::string what = to_string(p);
    expect_all_variants_match<TypeParam>(A, opt, what + ", nodes detected");
    const DomainDecompositionIlu<double, TypeParam> dd(A, opt);
    EXPECT_EQ(dd.report().node_size, 3) << what;
    EXPECT_NE(dd.report().partitioner.find("nodes of 3 rows"), std::string::npos) << dd.report().partitioner;
    EXPECT_LE(dd.report().largest_subdomain, 99) << what;
    const auto& layout = dd.layout();
    std::vector<ordinal_t> sub_of(size_t(A.num_block_rows));
    for (ordinal_t s = 0; s < layout.num_subdomains(); ++s)
      for (ordinal_t r = layout.sub_start[s]; r < layout.sub_start[s + 1]; ++r) sub_of[layout.new_to_old[r]] = s;
    for (ordinal_t i = 0; i < A.num_block_rows; ++i) ASSERT_EQ(sub_of[i], sub_of[i / 3 * 3]) << what << ", row " << i;
    opt.node_size = 1;
    EXPECT_EQ((DomainDecompositionIlu<double, TypeParam>(A, opt).report().node_size), 1) << what;
    opt.node_size = 7;  // 2160 rows
    EXPECT_THROW((DomainDecompositionIlu<double, TypeParam>(A, opt)), InputError) << what;
    opt.node_size = 3;
    opt.subdomain_rows = 2;
    EXPECT_THROW((DomainDecompositionIlu<double, TypeParam>(A, opt)), InputError) << what;
  }
}

TYPED_TEST(DomainDecomposition, AutomaticSizeIsReported) {
  const HostBsr A = csr_to_bsr(gallery::layered_diffusion3d(30, 30, 20, 4.0, test::fresh_seed()), 1);
  const DomainDecompositionIlu<double, TypeParam> dd(A);
  const DdReport& rep = dd.report();
  const auto bounds = DomainDecompositionIlu<double, TypeParam>::bounds(1);
  EXPECT_EQ(rep.subdomains_wanted, bounds.subdomains_wanted);
  EXPECT_EQ(rep.subdomain_rows, dd::detail::subdomain_rows(DdOptions{}, A.num_block_rows, bounds));
  EXPECT_LE(rep.largest_subdomain, rep.subdomain_rows);
  if (bounds.subdomains_wanted > 0)  // a GPU: smaller subdomains, more of them
    EXPECT_GE(rep.subdomains, std::min<ordinal_t>(bounds.subdomains_wanted, A.num_block_rows / 96));
  else
    EXPECT_EQ(rep.subdomain_rows, std::min<ordinal_t>(2048, rep.rows_that_fit));
  EXPECT_NE(rep.describe().find("asked " + std::to_string(rep.subdomain_rows)), std::string::npos) << rep.describe();
}

TYPED_TEST(DomainDecomposition, LayeredCoefficientAndDefaults) {
  const HostCsr A = gallery::layered_diffusion3d(16, 16, 12, 6.0, test::fresh_seed());
  expect_all_variants_match<TypeParam>(csr_to_bsr(A, 1), DdOptions{}, "layered, default options");
  DdOptions geo;
  geo.grid = {16, 16, 12};
  expect_all_variants_match<TypeParam>(csr_to_bsr(A, 1), geo, "layered, geometric, box chosen");
}

TYPED_TEST(DomainDecomposition, RealMatrices) {
  const auto list = test::real_matrices();
  TRELLIS_REQUIRE_REAL_MATRICES(list);
  for (const auto& m : list) {
    if (m.rows != m.cols || m.rows > 200000) continue;
    const HostBsr A = csr_to_bsr(io::read_matrix_market(m.path), 1);
    DdOptions opt;
    opt.subdomain_rows = 512;
    try {
      expect_all_variants_match<TypeParam>(A, opt, m.file);
    } catch (const PivotError& e) {
      // Only acceptable when the reference ILU0 of the same matrix fails too.
      DdOptions probe = opt;
      probe.pivots.boost = 1e-8;
      DomainDecompositionIlu<double, TypeParam> dd(A, probe);
      EXPECT_GE(reference_for(A, dd).bad_row, 0) << m.file << ": " << e.what();
    }
  }
}

/// Host copy of a device array.
template <class View>
std::vector<typename View::non_const_value_type> to_std(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.extent(0));
}

/// Every property that defines one triangle's subdomain schedule, against
/// levels computed serially on the host from the same triangle.
template <class Device>
void expect_valid_schedule(const dd::SubdomainSchedule<Device>& sched, Kokkos::View<offset_t*, Device> map_d,
                           Kokkos::View<ordinal_t*, Device> col_d, const std::vector<ordinal_t>& sub_start,
                           bool lower) {
  SCOPED_TRACE(lower ? "lower" : "upper");
  const auto map = to_std(map_d);
  const auto col = to_std(col_d);
  const auto begin = to_std(sched.level_begin), rows = to_std(sched.level_rows);
  const auto ptr = to_std(sched.level_ptr), edge_ptr = to_std(sched.edge_ptr), row_edge = to_std(sched.row_edge_ptr);
  const auto edge_row = to_std(sched.edge_row), edge_pos = to_std(sched.edge_pos);
  const ordinal_t n = ordinal_t(map.size()) - 1, num_sub = ordinal_t(sub_start.size()) - 1;
  // Serial levels: 1 + the deepest dependency (all in the row's subdomain).
  std::vector<ordinal_t> level(n, 0);
  for (ordinal_t k = 0; k < n; ++k) {
    const ordinal_t i = lower ? k : n - 1 - k;
    for (offset_t q = map[i]; q < map[i + 1]; ++q) level[i] = std::max(level[i], level[col[q]] + 1);
  }
  ASSERT_EQ(begin.size(), size_t(num_sub) + 1);
  ASSERT_EQ(begin[0], 0);
  ASSERT_EQ(begin[num_sub], sched.total_levels);
  ASSERT_EQ(ptr.size(), size_t(sched.total_levels) + 1);
  ASSERT_EQ(edge_ptr.size(), ptr.size());
  ordinal_t most = 0;
  std::vector<int> seen(n, 0);
  for (ordinal_t s = 0; s < num_sub; ++s) {
    most = std::max(most, begin[s + 1] - begin[s]);
    ASSERT_EQ(ptr[begin[s]], sub_start[s]) << "subdomain " << s;  // its rows fill its own positions
    ordinal_t deepest = -1;
    for (ordinal_t g = begin[s]; g < begin[s + 1]; ++g) {
      ASSERT_LT(ptr[g], ptr[g + 1]) << "empty level " << g;
      for (offset_t p = ptr[g]; p < ptr[g + 1]; ++p) {
        const ordinal_t i = rows[p];
        ASSERT_TRUE(i >= sub_start[s] && i < sub_start[s + 1]) << "row " << i << " outside subdomain " << s;
        ASSERT_EQ(level[i], g - begin[s]) << "row " << i;
        if (p > ptr[g]) ASSERT_LT(rows[p - 1], i) << "rows of level " << g << " not ascending";
        ++seen[i];
        deepest = std::max(deepest, level[i]);
      }
    }
    if (sub_start[s + 1] > sub_start[s]) ASSERT_EQ(deepest, begin[s + 1] - begin[s] - 1) << "subdomain " << s;
  }
  ASSERT_EQ(ptr[sched.total_levels], n);
  EXPECT_EQ(sched.max_levels, most);
  for (ordinal_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "row " << i;
  // Entries row by row of the schedule, each row's in CSR order.
  ASSERT_EQ(row_edge.size(), size_t(n) + 1);
  ASSERT_EQ(row_edge[0], 0);
  ASSERT_EQ(row_edge[n], map[n]);
  for (ordinal_t p = 0; p < n; ++p) {
    const ordinal_t i = rows[p];
    ASSERT_EQ(row_edge[p + 1] - row_edge[p], map[i + 1] - map[i]) << "position " << p;
    for (offset_t e = row_edge[p]; e < row_edge[p + 1]; ++e) {
      ASSERT_EQ(edge_row[e], i);
      ASSERT_EQ(edge_pos[e], map[i] + (e - row_edge[p]));
    }
  }
  for (ordinal_t g = 0; g <= sched.total_levels; ++g) ASSERT_EQ(edge_ptr[g], row_edge[ptr[g]]) << "level " << g;
}

TYPED_TEST(DomainDecomposition, SchedulesMatchSerialLevels) {
  gallery::RandomOptions o;
  o.seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(o.seed));
  o.bandwidth = 80;
  o.max_per_row = 7;
  const HostBsr A = csr_to_bsr(gallery::random_sparse(1500, o), 1);
  for (ordinal_t rows : {37, 300, 1500}) {  // many subdomains, a short last one; one subdomain
    DdOptions opt;
    opt.partitioner = Partitioner::contiguous;
    opt.subdomain_rows = rows;
    DomainDecompositionIlu<double, TypeParam> dd(A, opt);
    const auto& f = dd.factors();
    SCOPED_TRACE(std::to_string(rows) + " rows per subdomain");
    expect_valid_schedule(f.lower, f.L_map, f.L_col, dd.layout().sub_start, true);
    expect_valid_schedule(f.upper, f.U_map, f.U_col, dd.layout().sub_start, false);
  }
}

TYPED_TEST(DomainDecomposition, VertexCentricIsBitReproducible) {
  const HostBsr A = gallery::block_laplace3d(16, 16, 16, 3);
  DomainDecompositionIlu<double, TypeParam> dd(A);
  auto r = test::device_vector<TypeParam>(test::random_vector(size_t(A.num_rows()), test::fresh_seed()));
  auto z1 = test::device_vector<TypeParam>(Vec(r.extent(0), 0.0));
  auto z2 = test::device_vector<TypeParam>(Vec(r.extent(0), 1.0));
  for (int run = 0; run < 10; ++run) {  // 20 applications (issue 20)
    dd.apply(r, z1, DdApply::dag_vc_ILDUO_fused);
    dd.apply(r, z2, DdApply::dag_vc_ILDUO_fused);
    EXPECT_EQ(test::host_vector(z1), test::host_vector(z2));
  }
  EXPECT_TRUE(is_bit_reproducible(DdApply::dag_vc_ILDUO_fused));
  EXPECT_FALSE(is_bit_reproducible(DdApply::dag_ec_ILDUO_fused));
}

TYPED_TEST(DomainDecomposition, DeviceMatrixGivesTheSameFactors) {
  // From a matrix already on the device (only its pattern goes to the host):
  // the same partition, drops and factors as from the host copy, so the
  // deterministic application agrees bit for bit; METIS and geometric.
  const HostBsr A = gallery::block_laplace3d(14, 12, 10, 2);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto r = test::device_vector<TypeParam>(test::random_vector(size_t(A.num_rows()), seed));
  for (bool geometric : {false, true}) {
    DdOptions opt;
    opt.subdomain_rows = 200;
    if (geometric) opt.grid = {14, 12, 10};
    DomainDecompositionIlu<double, TypeParam> from_host(A, opt);
    DomainDecompositionIlu<double, TypeParam> from_device(copy_to<TypeParam>(A), opt);
    EXPECT_EQ(from_device.report().subdomains, from_host.report().subdomains);
    EXPECT_EQ(from_device.report().blocks_dropped, from_host.report().blocks_dropped);
    auto z_host = test::device_vector<TypeParam>(Vec(r.extent(0), 0.0));
    auto z_device = test::device_vector<TypeParam>(Vec(r.extent(0), std::numeric_limits<double>::quiet_NaN()));
    from_host.apply(r, z_host, DdApply::dag_vc_ILDUO_fused);
    from_device.apply(r, z_device, DdApply::dag_vc_ILDUO_fused);
    EXPECT_EQ(test::host_vector(z_device), test::host_vector(z_host)) << (geometric ? "geometric" : "metis");
  }
}

// Section 4.5: ranks apply ILDU0 to their own subdomains with no
// communication. Ranks simulated one after another on one device: together
// they must write every row, exactly what the whole application writes.
TYPED_TEST(DomainDecomposition, RankSharesTogetherEqualTheWholeApplication) {
  const HostBsr A = gallery::block_laplace3d(20, 18, 16, 2);
  DdOptions opt;
  opt.subdomain_rows = 300;
  DomainDecompositionIlu<double, TypeParam> dd(A, opt);
  auto r = test::device_vector<TypeParam>(test::random_vector(size_t(A.num_rows()), test::fresh_seed()));
  for (int ranks : {1, 2, 3, 8}) {
    const auto shares = dd.rank_shares(ranks);
    ASSERT_EQ(int(shares.size()), ranks);
    EXPECT_EQ(shares.front().begin, 0);
    EXPECT_EQ(shares.back().end, dd.report().subdomains);
    for (int k = 1; k < ranks; ++k) EXPECT_EQ(shares[k].begin, shares[k - 1].end);
    for (DdApply v : values<DdApply>()) {
      auto whole = test::device_vector<TypeParam>(Vec(r.extent(0), 0.0));
      auto parts = test::device_vector<TypeParam>(Vec(r.extent(0), std::numeric_limits<double>::quiet_NaN()));
      dd.apply_reordered(r, whole, v);
      for (const auto& share : shares) dd.apply_reordered(r, parts, v, share);
      EXPECT_LT(test::relative_error(test::host_vector(parts), test::host_vector(whole)), 1e-14)
          << ranks << " ranks, " << to_string(v);
    }
  }
  EXPECT_THROW(dd.rank_shares(0), InputError);
}

TYPED_TEST(DomainDecomposition, ZeroPivotIsNamedOrBoosted) {
  HostCsr A = gallery::laplace3d_7pt(6, 6, 6);
  // Row 100's diagonal becomes zero: the ILU0 pivot of that row is
  // -sum(l u) != 0 in general, so zero the whole row but the diagonal.
  const ordinal_t row = 100;
  for (offset_t q = A.row_map(row); q < A.row_map(row + 1); ++q) A.values(q) = 0;
  DdOptions opt;
  opt.partitioner = Partitioner::contiguous;
  try {
    DomainDecompositionIlu<double, TypeParam> dd(A, opt);
    FAIL() << "no PivotError for a zero row";
  } catch (const PivotError& e) {
    EXPECT_EQ(e.row(), row) << e.what();
  }
  opt.pivots.boost = 1e-3;
  DomainDecompositionIlu<double, TypeParam> boosted(A, opt);
  EXPECT_EQ(boosted.report().boosted_pivots, 1);
  auto r = test::device_vector<TypeParam>(test::random_vector(size_t(A.num_rows), 5));
  auto z = test::device_vector<TypeParam>(Vec(r.extent(0), 0.0));
  boosted.apply(r, z);
  for (double v : test::host_vector(z)) ASSERT_TRUE(std::isfinite(v));
}

TYPED_TEST(DomainDecomposition, NanAndStructuralErrorsAreNamed) {
  // A NaN on a diagonal, and one off the diagonal inside a subdomain (one
  // subdomain asked for: on a GPU the automatic size cuts this matrix into
  // several, and an entry between subdomains is dropped, never read).
  HostCsr A = gallery::laplace2d_5pt(20, 20);
  for (offset_t q = A.row_map(33); q < A.row_map(34); ++q)
    if (A.entries(q) == 33) A.values(q) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW((DomainDecompositionIlu<double, TypeParam>(A)), PivotError);
  A = gallery::laplace2d_5pt(20, 20);
  A.values(A.row_map(33)) = std::numeric_limits<double>::quiet_NaN();
  DdOptions whole;
  whole.subdomain_rows = 400;
  EXPECT_THROW((DomainDecompositionIlu<double, TypeParam>(A, whole)), PivotError);

  const HostCsr L = gallery::random_lower_triangular(50, gallery::TriangularShape::sparse_rows, 3);
  HostCsr no_diag = gallery::laplace2d_5pt(5, 5);
  // A matrix whose row 7 lacks its diagonal entry.
  std::vector<ordinal_t> ti, tj;
  std::vector<double> tv;
  for (ordinal_t i = 0; i < no_diag.num_rows; ++i)
    for (offset_t q = no_diag.row_map(i); q < no_diag.row_map(i + 1); ++q)
      if (!(i == 7 && no_diag.entries(q) == 7))
        ti.push_back(i), tj.push_back(no_diag.entries(q)), tv.push_back(no_diag.values(q));
  try {
    DomainDecompositionIlu<double, TypeParam> dd(csr_from_triplets(25, 25, ti, tj, tv));
    FAIL() << "no error for a missing diagonal";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("block row 7"), std::string::npos) << e.what();
  }
  DdOptions geo;
  geo.grid = {7, 7, 1};
  EXPECT_THROW((DomainDecompositionIlu<double, TypeParam>(A, geo)), InputError);  // 49 != 400 rows
  DomainDecompositionIlu<double, TypeParam> ok(L);
  auto small = test::device_vector<TypeParam>(Vec(10, 1.0));
  auto z = test::device_vector<TypeParam>(Vec(50, 1.0));
  EXPECT_THROW(ok.apply(small, z), StructureError);
}

// Issue 20, defect 6: a missing diagonal block is named before the partition
// (METIS took minutes on a 1e8-row file before the factorization said so).
// The grid below does not fit the matrix either: the partition would throw
// an InputError about it, so the StructureError shows which check ran first.
TYPED_TEST(DomainDecomposition, MissingDiagonalIsNamedBeforeThePartition) {
  const HostCsr A = gallery::laplace2d_5pt(6, 6);
  std::vector<ordinal_t> ti, tj;
  std::vector<double> tv;
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)
      if (!(i == 30 && A.entries(q) == 30)) ti.push_back(i), tj.push_back(A.entries(q)), tv.push_back(A.values(q));
  DdOptions bad_grid;
  bad_grid.grid = {5, 5, 1};
  bad_grid.subdomain_rows = 4;
  try {
    DomainDecompositionIlu<double, TypeParam> dd(csr_from_triplets(36, 36, ti, tj, tv), bad_grid);
    FAIL() << "no error";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("block row 30 has no diagonal block"), std::string::npos) << e.what();
  } catch (const InputError& e) {
    FAIL() << "the partition ran first: " << e.what();
  }
}

// Issue 20, defect 5: apply() is const, and callers sharing one object each
// get their own answer. Calls on two instances queued back to back (on a GPU
// both streams run at once), and, where the backend takes concurrent
// dispatch (GPUs), calls from two threads. Before, every call wrote the
// object's one pair of reordered vectors.
TYPED_TEST(DomainDecomposition, ConstApplyServesSeveralCallersAtOnce) {
  using Device = TypeParam;
  using Exec = typename Device::execution_space;
  const HostBsr A = gallery::block_laplace3d(20, 20, 20, 3);
  const DomainDecompositionIlu<double, Device> dd(A);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec r1 = test::random_vector(size_t(A.num_rows()), seed), r2 = test::random_vector(r1.size(), seed + 1);
  auto d1 = test::device_vector<Device>(r1), d2 = test::device_vector<Device>(r2);
  auto z = test::device_vector<Device>(Vec(r1.size(), 0.0));
  dd.apply(d1, z);
  const Vec want1 = test::host_vector(z);
  dd.apply(d2, z);
  const Vec want2 = test::host_vector(z);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto check = [&](const Exec& s1, const Exec& s2, int reps) {
    auto za = test::device_vector<Device>(Vec(r1.size(), nan)), zb = test::device_vector<Device>(Vec(r1.size(), nan));
    for (int rep = 0; rep < reps; ++rep) {
      Kokkos::deep_copy(s1, za, nan);
      Kokkos::deep_copy(s2, zb, nan);
      dd.apply(s1, d1, za);
      dd.apply(s2, d2, zb);
      s1.fence();
      s2.fence();
      ASSERT_LT(test::relative_error(test::host_vector(za), want1), 1e-12) << "first caller, round " << rep;
      ASSERT_LT(test::relative_error(test::host_vector(zb), want2), 1e-12) << "second caller, round " << rep;
    }
  };
  test::OwnInstance<Exec> s1, s2;
  check(s1.get(), s2.get(), 20);
  if (!trellis::detail::is_host_space<Exec>()) {  // host backends of Kokkos 3.4 take one dispatching thread
    // Outputs made here: another thread may not initialize host Views
    // (Kokkos 3.4's OpenMP counts as initialized on its own thread only).
    constexpr int reps = 20;
    std::vector<Kokkos::View<double*, Device>> za, zb;
    for (int rep = 0; rep < reps; ++rep)
      za.push_back(test::device_vector<Device>(Vec(r1.size(), nan))),
          zb.push_back(test::device_vector<Device>(Vec(r1.size(), nan)));
    std::thread other([&] {
      for (int rep = 0; rep < reps; ++rep) dd.apply(s2.get(), d2, zb[rep]);
      s2.get().fence();
    });
    for (int rep = 0; rep < reps; ++rep) dd.apply(s1.get(), d1, za[rep]);
    s1.get().fence();
    other.join();
    for (int rep = 0; rep < reps; ++rep) {
      EXPECT_LT(test::relative_error(test::host_vector(za[rep]), want1), 1e-12) << "thread 1, call " << rep;
      EXPECT_LT(test::relative_error(test::host_vector(zb[rep]), want2), 1e-12) << "thread 2, call " << rep;
    }
  }
}

TEST(SharedWorkspace, ASecondCallerGetsItsOwnArrays) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  using Work = Kokkos::View<double*, Kokkos::HostSpace>;
  int made = 0;
  const SharedWorkspace<Exec, Work> ws(Work("shared", 4));
  auto make = [&] { return ++made, Work("private", 4); };
  {
    auto first = ws.claim(Exec(), make);
    auto second = ws.claim(Exec(), make);  // while the first is held
    EXPECT_FALSE(first.is_private());
    EXPECT_TRUE(second.is_private());
    EXPECT_NE(first->data(), second->data());
    EXPECT_EQ(made, 1);
  }
  auto again = ws.claim(Exec(), make);  // released: the shared arrays again
  EXPECT_FALSE(again.is_private());
  EXPECT_EQ(again->label(), "shared");
  EXPECT_EQ(made, 1);
}

TYPED_TEST(DomainDecomposition, SubdomainsAsLargeAsTheScratchAllows) {
  // The paper's 2048-8192 rows a subdomain, as far as the backend's team
  // scratch allows: on CUDA the opt-in shared memory of a block (227 KB on
  // H100/H200: cmake/deps/patches/kokkos-3.4.01-cuda-large-scratch.patch;
  // 40 KB, 5120 point rows, without it). Against the serial reference.
  using Dd = DomainDecompositionIlu<double, TypeParam>;
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<typename TypeParam::execution_space, Kokkos::Cuda>::value)
    EXPECT_GE(Dd::rows_that_fit(1), 8192) << "this Kokkos gives a team no more than 40 KB of scratch";
#endif
  const HostBsr point = csr_to_bsr(gallery::laplace3d_7pt(32, 32, 16), 1);
  for (ordinal_t rows : {2048, 4096, 8192}) {
    if (rows > Dd::rows_that_fit(1)) continue;
    DdOptions opt;
    opt.partitioner = Partitioner::contiguous;
    opt.subdomain_rows = rows;
    expect_all_variants_match<TypeParam>(point, opt, "b=1, " + std::to_string(rows) + " rows");
    EXPECT_EQ(Dd(point, opt).report().largest_subdomain, rows);
  }
  // b = 3: 2048 block rows are 48 KB of vector, beyond the default limit.
  if (Dd::rows_that_fit(3) >= 2048) {
    DdOptions opt;
    opt.partitioner = Partitioner::contiguous;
    opt.subdomain_rows = 2048;
    expect_all_variants_match<TypeParam>(gallery::block_laplace3d(16, 16, 16, 3), opt, "b=3, 2048 block rows");
  }
}

TYPED_TEST(DomainDecomposition, RequestedSizeThatDoesNotFitIsReported) {
  const HostBsr A = gallery::block_laplace3d(24, 24, 24, 3);
  DdOptions opt;
  opt.subdomain_rows = 1 << 20;
  DomainDecompositionIlu<double, TypeParam> dd(A, opt);
  const DdReport& rep = dd.report();
  EXPECT_LE(rep.largest_subdomain, rep.rows_that_fit);
  EXPECT_NE(rep.note.find("do not fit"), std::string::npos) << rep.describe();
  EXPECT_GT(rep.blocks_dropped, 0);
}

}  // namespace
}  // namespace trellis
