// Structural operations on every backend against serial references: triangle
// extraction and L+D+U split, transpose, permutations, level-set analysis.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <random>

#include "test_support.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/core/permutation.hpp"
#include "trellis/core/transpose.hpp"
#include "trellis/core/triangle.hpp"
#include "trellis/core/view_arena.hpp"
#include "trellis/gallery/gallery.hpp"

namespace trellis {
namespace {

using Entries = std::map<std::pair<ordinal_t, ordinal_t>, double>;

Entries entries_of(const HostCsr& A) {
  Entries e;
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) e[{i, A.entries(k)}] = A.values(k);
  return e;
}

/// Random square matrix with the diagonal in most rows and `per_row` entries
/// per row spread over the whole matrix.
HostCsr random_matrix(ordinal_t n, int per_row, std::uint64_t seed, bool full_diagonal = true) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<ordinal_t> col(0, n - 1);
  std::uniform_real_distribution<double> val(-1, 1);
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (ordinal_t i = 0; i < n; ++i) {
    if (full_diagonal || i % 7 != 3) r.push_back(i), c.push_back(i), v.push_back(4.0);
    for (int k = 0; k < per_row; ++k) r.push_back(i), c.push_back(col(rng)), v.push_back(val(rng));
  }
  return csr_from_triplets(n, n, r, c, v);
}

HostCsr laplace2d(ordinal_t nx, ordinal_t ny) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (ordinal_t y = 0; y < ny; ++y)
    for (ordinal_t x = 0; x < nx; ++x) {
      const ordinal_t i = x + nx * y;
      auto add = [&](ordinal_t j, double a) { r.push_back(i), c.push_back(j), v.push_back(a); };
      add(i, 4);
      if (x > 0) add(i - 1, -1);
      if (x < nx - 1) add(i + 1, -1);
      if (y > 0) add(i - nx, -1);
      if (y < ny - 1) add(i + nx, -1);
    }
  return csr_from_triplets(nx * ny, nx * ny, r, c, v);
}

template <class Device>
class StructureOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(StructureOnBackend, test::Backends, test::BackendNames);

TYPED_TEST(StructureOnBackend, LduSplitReassemblesTheMatrix) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr A = random_matrix(300, 5, seed);
  auto split = split_ldu(to_device<TypeParam>(A));
  auto L = to_host(split.L), U = to_host(split.U);
  validate_csr(L, "L");
  validate_csr(U, "U");
  auto D = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), split.D);
  Entries sum = entries_of(L);
  for (auto& [ij, a] : entries_of(U)) {
    EXPECT_GT(ij.second, ij.first);
    sum[ij] = a;
  }
  for (auto& [ij, a] : entries_of(L)) EXPECT_LT(ij.second, ij.first);
  for (ordinal_t i = 0; i < A.num_rows; ++i) sum[{i, i}] = D(i);
  EXPECT_EQ(sum, entries_of(A));
}

TYPED_TEST(StructureOnBackend, FindsFirstRowMissingDiagonal) {
  const HostCsr full = random_matrix(50, 3, 7, true);
  EXPECT_EQ(first_row_missing_diagonal(to_device<TypeParam>(full)), -1);
  const HostCsr gappy = random_matrix(50, 0, 7, false);  // rows 3, 10, ... lack it
  EXPECT_EQ(first_row_missing_diagonal(to_device<TypeParam>(gappy)), 3);
}

TYPED_TEST(StructureOnBackend, TransposeMatchesReferenceAndIsCanonical) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr A = random_matrix(400, 6, seed);
  const HostCsr T = to_host(transpose(to_device<TypeParam>(A)));
  validate_csr(T, "transpose");
  Entries expected;
  for (auto& [ij, a] : entries_of(A)) expected[{ij.second, ij.first}] = a;
  EXPECT_EQ(entries_of(T), expected);
}

TYPED_TEST(StructureOnBackend, SymmetricPermutationRenumbersRowsAndColumns) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ordinal_t n = 257;
  const HostCsr A = random_matrix(n, 4, seed);
  std::vector<ordinal_t> n2o(n);
  std::iota(n2o.begin(), n2o.end(), 0);
  std::shuffle(n2o.begin(), n2o.end(), std::mt19937_64(seed + 1));
  auto p = make_permutation<Device>(n2o);
  const HostCsr B = to_host(permute_symmetric(to_device<Device>(A), p));
  validate_csr(B, "PAP^T");
  std::vector<ordinal_t> o2n(n);
  for (ordinal_t i = 0; i < n; ++i) o2n[n2o[i]] = i;
  Entries expected;
  for (auto& [ij, a] : entries_of(A)) expected[{o2n[ij.first], o2n[ij.second]}] = a;
  EXPECT_EQ(entries_of(B), expected);

  const HostCsr R = to_host(permute_rows(to_device<Device>(A), p));
  for (ordinal_t i = 0; i < n; ++i)
    ASSERT_EQ(R.row_map(i + 1) - R.row_map(i), A.row_map(n2o[i] + 1) - A.row_map(n2o[i]));

  Kokkos::View<double*, Device> x("x", n), y("y", n), z("z", n);
  auto xh = Kokkos::create_mirror_view(x);
  for (ordinal_t i = 0; i < n; ++i) xh(i) = 0.5 * i + 1;
  Kokkos::deep_copy(x, xh);
  Kokkos::deep_copy(z, std::nan(""));
  permute_vector<double, Device>(p, x, y);
  unpermute_vector<double, Device>(p, y, z);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  auto zh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), z);
  for (ordinal_t i = 0; i < n; ++i) {
    ASSERT_EQ(yh(i), xh(n2o[i]));
    ASSERT_EQ(zh(i), xh(i));
  }
}

TYPED_TEST(StructureOnBackend, PermutationIsCheckedWhereItIsMade) {
  // The inverse is built and checked on the device; a failure is named from the host.
  using Device = TypeParam;
  EXPECT_THROW(make_permutation<Device>({0, 2, 2}), InputError);
  EXPECT_THROW(make_permutation<Device>({0, -1, 1}), InputError);
  try {
    make_permutation<Device>({3, 1, 0, 2, 1});
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("index 1 appears twice (at 1 and 4)"), std::string::npos) << e.what();
  }
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<ordinal_t> n2o(10007);
  std::iota(n2o.begin(), n2o.end(), 0);
  std::shuffle(n2o.begin(), n2o.end(), std::mt19937_64(seed));
  const auto p = make_permutation<Device>(n2o);
  auto o2n = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.old_to_new);
  for (ordinal_t i = 0; i < ordinal_t(n2o.size()); ++i) ASSERT_EQ(o2n(n2o[i]), i) << "new row " << i;
}

TYPED_TEST(StructureOnBackend, ArenaArraysAreDisjointAlignedAndOutliveTheArena) {
  using Device = TypeParam;
  using exec = typename Device::execution_space;
  const size_t chunk = 4096;  // bytes: arrays of more than 1 KB get their own allocation
  std::vector<Kokkos::View<int*, Device>> ints;
  std::vector<Kokkos::View<double*, Device>> doubles;
  Kokkos::View<double*, Device> large;
  {
    ViewArena<Device> arena(chunk);
    for (size_t n : {1, 7, 32, 100, 0, 250, 3}) ints.push_back(arena.template take<int>("i", n));
    for (size_t n : {5, 16, 60, 1}) doubles.push_back(arena.template take<double>("d", n));
    large = arena.template take<double>("large", 1000);
  }  // the arena is gone; the chunks live on in the views
  // All of them fit one chunk per type: each starts a multiple of 128 bytes
  // after the first (the chunk itself is aligned as Kokkos aligns allocations).
  for (const auto& v : ints) EXPECT_EQ((v.data() - ints[0].data()) * sizeof(int) % 128, 0u);
  for (const auto& v : doubles) EXPECT_EQ((v.data() - doubles[0].data()) * sizeof(double) % 128, 0u);
  EXPECT_EQ(ints[3].extent(0), 100u);
  EXPECT_EQ(large.extent(0), 1000u);
  // Each array filled with its own number, then every one read back: an
  // overlap would show up as another array's number.
  for (size_t a = 0; a < ints.size(); ++a) Kokkos::deep_copy(ints[a], int(a) + 1);
  for (size_t a = 0; a < doubles.size(); ++a) Kokkos::deep_copy(doubles[a], 0.5 + double(a));
  Kokkos::deep_copy(large, -1.0);
  exec().fence();
  for (size_t a = 0; a < ints.size(); ++a) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ints[a]);
    for (size_t i = 0; i < h.extent(0); ++i) ASSERT_EQ(h(i), int(a) + 1) << "int array " << a << " entry " << i;
  }
  for (size_t a = 0; a < doubles.size(); ++a) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), doubles[a]);
    for (size_t i = 0; i < h.extent(0); ++i) ASSERT_EQ(h(i), 0.5 + double(a)) << "double array " << a << " entry " << i;
  }
  // The small int pieces follow each other in 128-byte steps.
  EXPECT_EQ(ints[1].data() - ints[0].data(), 32);
  EXPECT_EQ(ints[2].data() - ints[1].data(), 32);
}

TYPED_TEST(StructureOnBackend, ArenaReservesOneAllocationForAGroupAndKeepsTemporariesApart) {
  using Device = TypeParam;
  using Arena = ViewArena<Device>;
  Kokkos::View<double*, Device> a, b, t, c;
  {
    Arena arena(4096);
    arena.template reserve<double>(Arena::kept, 1000, 3000);  // each far above a quarter chunk
    a = arena.template take<double>("a", 1000);
    t = arena.template take<double>("t", 10, Arena::temporary);
    b = arena.template take<double>("b", 3000);
    c = arena.template take<double>("c", 1000);  // no room left: an allocation of its own
  }
  EXPECT_EQ(b.data() - a.data(), 1008);  // 1000 padded to 128 bytes
  EXPECT_TRUE(t.data() < a.data() || t.data() >= b.data() + 3000) << "a temporary inside the kept group";
  EXPECT_TRUE(c.data() < a.data() || c.data() >= b.data() + 3000) << "c inside the reserved group";
  Kokkos::deep_copy(a, 1.0);
  Kokkos::deep_copy(b, 2.0);
  Kokkos::deep_copy(t, 3.0);
  Kokkos::deep_copy(c, 4.0);
  double sums[4];
  int k = 0;
  for (const auto& v : {a, b, t, c}) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    sums[k++] = std::accumulate(h.data(), h.data() + h.extent(0), 0.0);
  }
  EXPECT_EQ(sums[0], 1000.0);
  EXPECT_EQ(sums[1], 6000.0);
  EXPECT_EQ(sums[2], 30.0);
  EXPECT_EQ(sums[3], 4000.0);
}

TEST(Permutation, RejectsRepeatedAndOutOfRangeIndices) {
  EXPECT_THROW(make_permutation<HostDevice>({0, 2, 2}), InputError);
  EXPECT_THROW(make_permutation<HostDevice>({0, 3, 1}), InputError);
  try {
    make_permutation<HostDevice>({1, 0, 1});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("index 1 appears twice"), std::string::npos) << e.what();
  }
}

/// Checks the properties that define a level set: every row once, rows of a
/// level ascending, each dependency in an earlier level, and each row at level
/// 1 + max(dependencies).
void expect_valid_levels(const HostCsr& A, const LevelSets<HostDevice>& ref, ordinal_t num_levels,
                         const std::vector<offset_t>& ptr, const std::vector<ordinal_t>& rows,
                         const std::vector<ordinal_t>& lev) {
  ASSERT_EQ(num_levels, ref.num_levels);
  ASSERT_EQ(ptr.size(), size_t(num_levels) + 1);
  for (ordinal_t l = 0; l <= num_levels; ++l) ASSERT_EQ(ptr[l], ref.level_ptr(l)) << "level " << l;
  for (size_t p = 0; p < rows.size(); ++p) ASSERT_EQ(rows[p], ref.level_rows(p)) << "position " << p;
  for (ordinal_t i = 0; i < A.num_rows; ++i) ASSERT_EQ(lev[i], ref.row_level(i)) << "row " << i;
  // The reference itself against the definition.
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    ordinal_t expect = 0;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k)
      if (in_strict_triangle(ref.triangle, i, A.entries(k))) expect = std::max(expect, ref.row_level(A.entries(k)) + 1);
    ASSERT_EQ(ref.row_level(i), expect) << "row " << i;
  }
}

template <class Device>
void check_levels_against_reference(const HostCsr& A, Triangle tri) {
  SCOPED_TRACE(std::string("triangle ") + to_string(tri));
  const auto ref = analyze_levels_host(A, tri);
  ASSERT_EQ(count_levels_host(A, tri), ref.num_levels);  // the count-only form
  const auto s = analyze_levels(to_device<Device>(A), tri);
  auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.level_rows);
  auto lev = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.row_level);
  auto ptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.level_ptr);
  expect_valid_levels(A, ref, s.num_levels, std::vector<offset_t>(ptr.data(), ptr.data() + ptr.extent(0)),
                      std::vector<ordinal_t>(rows.data(), rows.data() + rows.extent(0)),
                      std::vector<ordinal_t>(lev.data(), lev.data() + lev.extent(0)));
  for (ordinal_t l = 0; l <= s.num_levels; ++l) ASSERT_EQ(s.level_ptr_host(l), ptr(l));
}

TYPED_TEST(StructureOnBackend, LevelsMatchSerialReferenceOnRandomMatrices) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int per_row : {0, 1, 3, 12}) {
    const HostCsr A = random_matrix(1000 + per_row, per_row, seed + per_row);
    check_levels_against_reference<TypeParam>(A, Triangle::lower);
    check_levels_against_reference<TypeParam>(A, Triangle::upper);
  }
}

TYPED_TEST(StructureOnBackend, Laplacian2dHasWavefrontLevels) {
  const HostCsr A = laplace2d(37, 21);
  for (Triangle tri : {Triangle::lower, Triangle::upper}) {
    const auto s = analyze_levels(to_device<TypeParam>(A), tri);
    EXPECT_EQ(s.num_levels, 37 + 21 - 1);
    EXPECT_EQ(s.max_parallelism(), 21);
    EXPECT_DOUBLE_EQ(s.avg_parallelism(), 37.0 * 21 / (37 + 21 - 1));
    check_levels_against_reference<TypeParam>(A, tri);
  }
}

TYPED_TEST(StructureOnBackend, ChainHasOneRowPerLevel) {
  const ordinal_t n = 5000;
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (ordinal_t i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(2);
    if (i) r.push_back(i), c.push_back(i - 1), v.push_back(-1);
  }
  const HostCsr A = csr_from_triplets(n, n, r, c, v);
  const auto lower = analyze_levels(to_device<TypeParam>(A), Triangle::lower);
  EXPECT_EQ(lower.num_levels, n);
  EXPECT_EQ(lower.max_parallelism(), 1);
  const auto upper = analyze_levels(to_device<TypeParam>(A), Triangle::upper);
  EXPECT_EQ(upper.num_levels, 1);  // no entries above the diagonal
  EXPECT_EQ(upper.max_parallelism(), n);
}

// The device pass waits row on row (core/tickets.hpp): far more rows than a
// GPU holds at once, and a chain of dependent rows, must finish and match.
TYPED_TEST(StructureOnBackend, LevelAnalysisNeverDeadlocks) {
  const bool gpu = !detail::is_host_space<typename TypeParam::execution_space>();
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::pair<gallery::TriangularShape, ordinal_t> cases[] = {
      {gallery::TriangularShape::long_chain, gpu ? 50000 : 20000},
      {gallery::TriangularShape::sparse_rows, gpu ? 200000 : 30000},
      {gallery::TriangularShape::dense_rows, gpu ? 50000 : 5000}};
  for (const auto& [shape, n] : cases) {
    SCOPED_TRACE("rows " + std::to_string(n));
    const HostCsr L = gallery::random_lower_triangular(n, shape, seed);
    const HostCsr U = transpose(L);
    test::run_with_watchdog("analyze_levels", 120, [&] {
      check_levels_against_reference<TypeParam>(L, Triangle::lower);
      check_levels_against_reference<TypeParam>(U, Triangle::upper);
    });
  }
}

TYPED_TEST(StructureOnBackend, EmptyMatrixHasNoLevels) {
  const HostCsr A = csr_from_triplets(0, 0, {}, {}, {});
  const auto s = analyze_levels(to_device<TypeParam>(A), Triangle::lower);
  EXPECT_EQ(s.num_levels, 0);
  EXPECT_EQ(s.max_parallelism(), 0);
}

}  // namespace
}  // namespace trellis
