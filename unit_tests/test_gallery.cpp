// Problem generators and problem specs: exact sizes and nonzero counts,
// canonical CSR, symmetry, signs and diagonal dominance, determinism of the
// random generators, and the spec parser's forms and error messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/problem_spec.hpp"

namespace trellis {
namespace {

using namespace trellis::gallery;

// ------------------------------------------------------------------ helpers

/// Value of A(i, j), or NaN when it is not stored.
double entry(const HostCsr& A, ordinal_t i, ordinal_t j) {
  for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k)
    if (A.entries(k) == j) return A.values(k);
  return std::nan("");
}

bool exactly_symmetric(const HostCsr& A) {
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      const double t = entry(A, A.entries(k), i);
      if (!(t == A.values(k))) return false;  // NaN (missing) fails too
    }
  return true;
}

bool identical(const HostCsr& A, const HostCsr& B) {
  if (A.num_rows != B.num_rows || A.num_cols != B.num_cols || A.nnz() != B.nnz()) return false;
  for (ordinal_t i = 0; i <= A.num_rows; ++i)
    if (A.row_map(i) != B.row_map(i)) return false;
  for (offset_t k = 0; k < A.nnz(); ++k)
    if (A.entries(k) != B.entries(k) || A.values(k) != B.values(k)) return false;
  return true;
}

/// Canonical, square, with a positive diagonal in every row.
void expect_canonical_with_positive_diagonal(const HostCsr& A) {
  ASSERT_NO_THROW(validate_csr(A, "generated"));
  ASSERT_TRUE(A.is_square());
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    const double d = entry(A, i, i);
    ASSERT_TRUE(d > 0) << "row " << i << " diagonal " << d;
  }
}

/// M-matrix sign pattern and weak diagonal dominance: off-diagonals <= 0 and
/// row sums >= 0 (up to rounding relative to the diagonal).
void expect_weakly_dominant_m_matrix(const HostCsr& A) {
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    double sum = 0, diag = 0;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      sum += A.values(k);
      if (A.entries(k) == i)
        diag = A.values(k);
      else
        ASSERT_LE(A.values(k), 0.0) << "row " << i << " column " << A.entries(k);
    }
    ASSERT_GE(sum, -1e-12 * diag) << "row " << i;
  }
}

/// Random grid sizes in [1, hi], ones included, from the seed.
std::vector<std::array<ordinal_t, 3>> random_grids(std::uint64_t seed, int count, int hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> size(1, hi);
  std::vector<std::array<ordinal_t, 3>> out{{1, 1, 1}, {1, 5, 2}, {4, 1, 3}};
  for (int c = 0; c < count; ++c) out.push_back({size(rng), size(rng), size(rng)});
  return out;
}

std::string grid_name(const std::array<ordinal_t, 3>& g) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
}

long long nnz_5pt(long long nx, long long ny) { return 5 * nx * ny - 2 * nx - 2 * ny; }
long long nnz_7pt(long long nx, long long ny, long long nz) {
  return 7 * nx * ny * nz - 2 * (nx * ny + ny * nz + nx * nz);
}
// Box stencils: along each axis 3n - 2 (i, i') pairs with |i - i'| <= 1.
long long nnz_9pt(long long nx, long long ny) { return (3 * nx - 2) * (3 * ny - 2); }
long long nnz_27pt(long long nx, long long ny, long long nz) { return (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2); }

/// The InputError message f throws (a test failure if it throws nothing or something else).
template <class F>
std::string input_error_of(F f) {
  return test::error_of<InputError>(f);
}

// ------------------------------------------------------------ Laplacians

TEST(Laplace2d, FivePointSizesSymmetryAndValues) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& g : random_grids(seed, 6, 12)) {
    SCOPED_TRACE(grid_name(g));
    const auto A = laplace2d_5pt(g[0], g[1]);
    ASSERT_EQ(A.num_rows, g[0] * g[1]);
    EXPECT_EQ(A.nnz(), nnz_5pt(g[0], g[1]));
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    EXPECT_TRUE(exactly_symmetric(A));
    for (ordinal_t i = 0; i < A.num_rows; ++i) EXPECT_EQ(entry(A, i, i), 4.0);
  }
}

TEST(Laplace2d, FivePointInteriorRow) {
  const ordinal_t nx = 5, ny = 4;
  const auto A = laplace2d_5pt(nx, ny);
  const ordinal_t r = 2 + nx * 1;  // cell (2, 1)
  ASSERT_EQ(A.row_map(r + 1) - A.row_map(r), 5);
  const ordinal_t cols[] = {r - nx, r - 1, r, r + 1, r + nx};
  const double vals[] = {-1, -1, 4, -1, -1};
  for (int m = 0; m < 5; ++m) {
    EXPECT_EQ(A.entries(A.row_map(r) + m), cols[m]);
    EXPECT_EQ(A.values(A.row_map(r) + m), vals[m]);
  }
  // Corner cell (0, 0): itself, east and north only.
  EXPECT_EQ(A.row_map(1) - A.row_map(0), 3);
}

TEST(Laplace2d, NinePointSizesSymmetryAndValues) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& g : random_grids(seed, 6, 12)) {
    SCOPED_TRACE(grid_name(g));
    const auto A = laplace2d_9pt(g[0], g[1]);
    ASSERT_EQ(A.num_rows, g[0] * g[1]);
    EXPECT_EQ(A.nnz(), nnz_9pt(g[0], g[1]));
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    EXPECT_TRUE(exactly_symmetric(A));
  }
  const auto A = laplace2d_9pt(4, 4);
  const ordinal_t r = 1 + 4 * 1;
  ASSERT_EQ(A.row_map(r + 1) - A.row_map(r), 9);
  for (offset_t k = A.row_map(r); k < A.row_map(r + 1); ++k) EXPECT_EQ(A.values(k), A.entries(k) == r ? 8.0 : -1.0);
}

TEST(Laplace3d, SevenPointSizesSymmetryAndValues) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& g : random_grids(seed, 6, 9)) {
    SCOPED_TRACE(grid_name(g));
    const auto A = laplace3d_7pt(g[0], g[1], g[2]);
    ASSERT_EQ(A.num_rows, g[0] * g[1] * g[2]);
    EXPECT_EQ(A.nnz(), nnz_7pt(g[0], g[1], g[2]));
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    EXPECT_TRUE(exactly_symmetric(A));
  }
  const ordinal_t nx = 4, ny = 3, nz = 5;
  const auto A = laplace3d_7pt(nx, ny, nz);
  const ordinal_t r = 1 + nx * (1 + ny * 2);  // interior cell (1, 1, 2)
  const ordinal_t cols[] = {r - nx * ny, r - nx, r - 1, r, r + 1, r + nx, r + nx * ny};
  ASSERT_EQ(A.row_map(r + 1) - A.row_map(r), 7);
  for (int m = 0; m < 7; ++m) {
    EXPECT_EQ(A.entries(A.row_map(r) + m), cols[m]);
    EXPECT_EQ(A.values(A.row_map(r) + m), cols[m] == r ? 6.0 : -1.0);
  }
}

TEST(Laplace3d, TwentySevenPointSizesSymmetryAndValues) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& g : random_grids(seed, 6, 7)) {
    SCOPED_TRACE(grid_name(g));
    const auto A = laplace3d_27pt(g[0], g[1], g[2]);
    ASSERT_EQ(A.num_rows, g[0] * g[1] * g[2]);
    EXPECT_EQ(A.nnz(), nnz_27pt(g[0], g[1], g[2]));
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    EXPECT_TRUE(exactly_symmetric(A));
    for (ordinal_t i = 0; i < A.num_rows; ++i) EXPECT_EQ(entry(A, i, i), 26.0);
  }
  const auto A = laplace3d_27pt(3, 3, 3);
  EXPECT_EQ(A.row_map(14) - A.row_map(13), 27);  // the centre cell sees the whole box
}

TEST(Laplace3d, LargeGridIsBuiltDirectly) {
  const auto start = std::chrono::steady_clock::now();
  const auto A = laplace3d_7pt(128, 128, 128);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(A.num_rows, 128 * 128 * 128);
  EXPECT_EQ(A.nnz(), nnz_7pt(128, 128, 128));
  EXPECT_LT(seconds, 5.0);  // well under a second unloaded; generous for busy machines
  std::printf("laplace3d_7pt(128^3): %.3f s\n", seconds);
}

TEST(Laplace, RejectsNonPositiveSizesNamingThem) {
  EXPECT_HAS(input_error_of([] { laplace2d_5pt(0, 4); }), "nx = 0");
  EXPECT_HAS(input_error_of([] { laplace2d_9pt(3, -2); }), "ny = -2");
  EXPECT_HAS(input_error_of([] { laplace3d_7pt(3, 3, 0); }), "nz = 0");
  EXPECT_HAS(input_error_of([] { laplace3d_27pt(-1, 3, 3); }), "nx = -1");
  EXPECT_HAS(input_error_of([] { laplace3d_7pt(2000, 2000, 2000); }), "32-bit");
}

// --------------------------------------------------------- block Laplacian

TEST(BlockLaplace3d, PatternBlocksAndExpansion) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto grids = random_grids(seed, 3, 6);
  for (int b = 1; b <= 8; ++b) {
    const auto& g = grids[b % grids.size()];
    SCOPED_TRACE("b " + std::to_string(b) + " grid " + grid_name(g));
    const auto B = block_laplace3d(g[0], g[1], g[2], b);
    const auto P = laplace3d_7pt(g[0], g[1], g[2]);
    ASSERT_EQ(B.block_size, b);
    ASSERT_EQ(B.num_block_rows, P.num_rows);
    ASSERT_EQ(B.nnz_blocks(), nnz_7pt(g[0], g[1], g[2]));
    ASSERT_EQ(B.values.extent(0), size_t(B.nnz_blocks()) * b * b);
    for (offset_t k = 0; k < P.nnz(); ++k) ASSERT_EQ(B.entries(k), P.entries(k));
    for (ordinal_t bi = 0; bi < B.num_block_rows; ++bi)
      for (offset_t k = B.row_map(bi); k < B.row_map(bi + 1); ++k)
        for (int r = 0; r < b; ++r)
          for (int c = 0; c < b; ++c) {
            const double v = B.values(size_t(k) * b * b + r * b + c);
            const double want = B.entries(k) != bi ? (r == c ? -1.0 : 0.0) : (r == c ? 7.0 : -1.0 / b);
            ASSERT_EQ(v, want) << "block (" << bi << ", " << B.entries(k) << ") entry " << r << "," << c;
          }
    const auto A = bsr_to_csr(B);
    EXPECT_EQ(A.num_rows, P.num_rows * b);
    EXPECT_EQ(A.nnz(), B.nnz_blocks() * b * b);
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    EXPECT_TRUE(exactly_symmetric(A));
  }
}

TEST(BlockLaplace3d, RejectsBadBlockSizeAndGrid) {
  EXPECT_HAS(input_error_of([] { block_laplace3d(2, 2, 2, 0); }), "b = 0");
  EXPECT_HAS(input_error_of([] { block_laplace3d(2, 2, 2, 9); }), "b = 9");
  EXPECT_HAS(input_error_of([] { block_laplace3d(2, 0, 2, 3); }), "ny = 0");
  EXPECT_HAS(input_error_of([] { block_laplace3d(1024, 1024, 1024, 3); }), "32-bit");
}

// ------------------------------------------------------- layered diffusion

TEST(LayeredDiffusion3d, SymmetricWeaklyDominantMMatrix) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& g : random_grids(seed, 4, 8)) {
    SCOPED_TRACE(grid_name(g));
    const auto A = layered_diffusion3d(g[0], g[1], g[2], 6.0, seed);
    ASSERT_EQ(A.num_rows, g[0] * g[1] * g[2]);
    EXPECT_EQ(A.nnz(), nnz_7pt(g[0], g[1], g[2]));
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    EXPECT_TRUE(exactly_symmetric(A));
    // Every row touches the boundary or not; boundary rows are strictly dominant.
    double sum0 = 0;
    for (offset_t k = A.row_map(0); k < A.row_map(1); ++k) sum0 += A.values(k);
    EXPECT_GT(sum0, 0.0);
    for (offset_t k = 0; k < A.nnz(); ++k) ASSERT_TRUE(std::isfinite(A.values(k)));
  }
}

TEST(LayeredDiffusion3d, DeterministicPerSeed) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto A = layered_diffusion3d(6, 5, 4, 6.0, seed);
  EXPECT_TRUE(identical(A, layered_diffusion3d(6, 5, 4, 6.0, seed)));
  EXPECT_FALSE(identical(A, layered_diffusion3d(6, 5, 4, 6.0, seed + 1)));
}

TEST(LayeredDiffusion3d, CoefficientsSpanTheDecades) {
  // Fixed seeds: the spread is a property of the draw, not of the code path.
  for (std::uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto A = layered_diffusion3d(4, 4, 16, 6.0, seed);
    double lo = INFINITY, hi = 0;
    for (ordinal_t i = 0; i < A.num_rows; ++i) {
      lo = std::min(lo, entry(A, i, i));
      hi = std::max(hi, entry(A, i, i));
    }
    EXPECT_GT(hi / lo, 1e2);
    // decades = 0: only the in-layer factor 10^[-0.5, 0.5] varies.
    const auto C = layered_diffusion3d(4, 4, 16, 0.0, seed);
    for (ordinal_t i = 0; i < C.num_rows; ++i) {
      ASSERT_LE(entry(C, i, i), 12 * std::sqrt(10.0) * (1 + 1e-12));
      ASSERT_GE(entry(C, i, i), 6 / std::sqrt(10.0) * (1 - 1e-12));
    }
  }
}

TEST(LayeredDiffusion3d, RejectsBadArguments) {
  EXPECT_HAS(input_error_of([] { layered_diffusion3d(4, 4, 4, NAN, 1); }), "decades");
  EXPECT_HAS(input_error_of([] { layered_diffusion3d(4, 4, 4, INFINITY, 1); }), "decades");
  EXPECT_HAS(input_error_of([] { layered_diffusion3d(4, 4, 4, -1.0, 1); }), "decades");
  EXPECT_HAS(input_error_of([] { layered_diffusion3d(4, 0, 4, 6.0, 1); }), "ny = 0");
}

// ----------------------------------------------------- convection-diffusion

TEST(ConvectionDiffusion, ThreeDUpwindMMatrix) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& g : random_grids(seed, 4, 8)) {
    const double pe = std::uniform_real_distribution<double>(-50, 50)(rng);
    SCOPED_TRACE(grid_name(g) + " pe " + std::to_string(pe));
    const auto A = convection_diffusion3d(g[0], g[1], g[2], pe);
    ASSERT_EQ(A.num_rows, g[0] * g[1] * g[2]);
    EXPECT_EQ(A.nnz(), nnz_7pt(g[0], g[1], g[2]));
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    if (A.num_rows > 1) {
      EXPECT_FALSE(exactly_symmetric(A));
    }
    for (ordinal_t i = 0; i < A.num_rows; ++i) ASSERT_DOUBLE_EQ(entry(A, i, i), 6 + 1.75 * std::abs(pe));
  }
}

TEST(ConvectionDiffusion, InteriorRowsFollowTheFlow) {
  const ordinal_t nx = 4, ny = 4, nz = 4;
  const ordinal_t r = 1 + nx * (2 + ny * 1);
  const auto A = convection_diffusion3d(nx, ny, nz, 8.0);  // w = (8, 4, 2)
  EXPECT_EQ(entry(A, r, r), 6 + 14.0);
  EXPECT_EQ(entry(A, r, r - 1), -1 - 8.0);
  EXPECT_EQ(entry(A, r, r + 1), -1.0);
  EXPECT_EQ(entry(A, r, r - nx), -1 - 4.0);
  EXPECT_EQ(entry(A, r, r + nx), -1.0);
  EXPECT_EQ(entry(A, r, r - nx * ny), -1 - 2.0);
  EXPECT_EQ(entry(A, r, r + nx * ny), -1.0);
  const auto B = convection_diffusion3d(nx, ny, nz, -8.0);  // reversed: upstream is east
  EXPECT_EQ(entry(B, r, r - 1), -1.0);
  EXPECT_EQ(entry(B, r, r + 1), -1 - 8.0);
  // No convection: exactly the Laplacian.
  EXPECT_TRUE(identical(convection_diffusion3d(5, 4, 3, 0.0), laplace3d_7pt(5, 4, 3)));
  EXPECT_TRUE(identical(convection_diffusion2d(5, 4, 0.0), laplace2d_5pt(5, 4)));
}

TEST(ConvectionDiffusion, TwoDUpwindMMatrix) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& g : random_grids(seed, 4, 12)) {
    SCOPED_TRACE(grid_name(g));
    const auto A = convection_diffusion2d(g[0], g[1], 5.0);
    ASSERT_EQ(A.num_rows, g[0] * g[1]);
    EXPECT_EQ(A.nnz(), nnz_5pt(g[0], g[1]));
    expect_canonical_with_positive_diagonal(A);
    expect_weakly_dominant_m_matrix(A);
    if (A.num_rows > 1) {
      EXPECT_FALSE(exactly_symmetric(A));
    }
  }
  const auto A = convection_diffusion2d(4, 4, 5.0);  // w = (5, 2.5)
  const ordinal_t r = 1 + 4 * 2;
  EXPECT_EQ(entry(A, r, r), 4 + 7.5);
  EXPECT_EQ(entry(A, r, r - 1), -6.0);
  EXPECT_EQ(entry(A, r, r - 4), -3.5);
  EXPECT_EQ(entry(A, r, r + 4), -1.0);
}

TEST(ConvectionDiffusion, RejectsNonFinitePeclet) {
  EXPECT_HAS(input_error_of([] { convection_diffusion3d(4, 4, 4, NAN); }), "peclet");
  EXPECT_HAS(input_error_of([] { convection_diffusion2d(4, 4, INFINITY); }), "peclet");
  EXPECT_HAS(input_error_of([] { convection_diffusion2d(0, 4, 1.0); }), "nx = 0");
}

// ------------------------------------------------------------ random sparse

TEST(RandomSparse, RowCountsBandwidthAndDominance) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 6; ++trial) {
    RandomOptions opt;
    opt.min_per_row = ordinal_t(rng() % 4);
    opt.max_per_row = opt.min_per_row + ordinal_t(rng() % 12);
    opt.bandwidth = trial % 2 ? ordinal_t(rng() % 20) : 0;
    opt.seed = rng();
    const ordinal_t n = 1 + ordinal_t(rng() % 400);
    SCOPED_TRACE("n " + std::to_string(n) + " per row [" + std::to_string(opt.min_per_row) + ", " +
                 std::to_string(opt.max_per_row) + "] bandwidth " + std::to_string(opt.bandwidth));
    const auto A = random_sparse(n, opt);
    ASSERT_EQ(A.num_rows, n);
    expect_canonical_with_positive_diagonal(A);
    for (ordinal_t i = 0; i < n; ++i) {
      const ordinal_t lo = opt.bandwidth > 0 ? std::max(0, i - opt.bandwidth) : 0;
      const ordinal_t hi = opt.bandwidth > 0 ? std::min(n - 1, i + opt.bandwidth) : n - 1;
      const ordinal_t off = A.row_map(i + 1) - A.row_map(i) - 1;
      ASSERT_LE(off, opt.max_per_row);
      ASSERT_GE(off, std::min(opt.min_per_row, hi - lo));  // fewer only when out of room
      double sum = 0;
      for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
        const ordinal_t j = A.entries(k);
        ASSERT_TRUE(j >= lo && j <= hi) << "row " << i << " column " << j;
        if (j != i) {
          ASSERT_LE(std::abs(A.values(k)), 1.0);
          sum += std::abs(A.values(k));
        }
      }
      ASSERT_NEAR(entry(A, i, i), 1.0 + sum, 1e-12 * (1 + sum));
    }
  }
}

TEST(RandomSparse, DeterministicPerSeed) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  RandomOptions opt;
  opt.seed = seed;
  const auto A = random_sparse(300, opt);
  EXPECT_TRUE(identical(A, random_sparse(300, opt)));
  opt.seed = seed + 1;
  EXPECT_FALSE(identical(A, random_sparse(300, opt)));
  opt.diagonally_dominant = false;
  opt.min_per_row = opt.max_per_row = 299;  // full rows: every column drawn
  const auto F = random_sparse(300, opt);
  ASSERT_NO_THROW(validate_csr(F));
  EXPECT_EQ(F.nnz(), 300 * 300);
}

TEST(RandomSparse, RejectsBadArguments) {
  RandomOptions opt;
  EXPECT_HAS(input_error_of([&] { random_sparse(0, opt); }), "n = 0");
  opt.min_per_row = 5;
  opt.max_per_row = 2;
  EXPECT_HAS(input_error_of([&] { random_sparse(10, opt); }), "min_per_row");
}

// ------------------------------------------------- random lower triangular

struct ShapeCase {
  TriangularShape shape;
  const char* name;
};
const ShapeCase kShapes[] = {{TriangularShape::dense_rows, "dense_rows"},
                             {TriangularShape::sparse_rows, "sparse_rows"},
                             {TriangularShape::empty_offdiagonal, "empty_offdiagonal"},
                             {TriangularShape::long_chain, "long_chain"},
                             {TriangularShape::diagonal_only, "diagonal_only"}};

TEST(RandomLowerTriangular, LowerDominantAndShaped) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ordinal_t n = 2000;
  for (const auto& sc : kShapes) {
    SCOPED_TRACE(sc.name);
    const auto L = random_lower_triangular(n, sc.shape, seed);
    ASSERT_EQ(L.num_rows, n);
    expect_canonical_with_positive_diagonal(L);
    ordinal_t max_off = 0, diag_only_rows = 0;
    for (ordinal_t i = 0; i < n; ++i) {
      // The diagonal is the last entry of its row: strictly lower otherwise.
      ASSERT_EQ(L.entries(L.row_map(i + 1) - 1), i) << "row " << i;
      const ordinal_t off = L.row_map(i + 1) - L.row_map(i) - 1;
      max_off = std::max(max_off, off);
      diag_only_rows += off == 0;
      double sum = 0;
      for (offset_t k = L.row_map(i); k < L.row_map(i + 1) - 1; ++k) {
        ASSERT_NE(L.values(k), 0.0);
        sum += std::abs(L.values(k));
      }
      ASSERT_NEAR(entry(L, i, i), 1.0 + sum, 1e-12 * (1 + sum));
      switch (sc.shape) {
        case TriangularShape::dense_rows:
          ASSERT_LE(off, std::min(i, 64));
          ASSERT_GE(off, (std::min(i, 64) + 1) / 2);
          break;
        case TriangularShape::sparse_rows: ASSERT_LE(off, 3); break;
        case TriangularShape::empty_offdiagonal: ASSERT_LE(off, 3); break;
        case TriangularShape::long_chain:
          ASSERT_EQ(off, i > 0 ? 1 : 0);
          if (i > 0) {
            ASSERT_EQ(L.entries(L.row_map(i)), i - 1);
          }
          break;
        case TriangularShape::diagonal_only: ASSERT_EQ(off, 0); break;
      }
    }
    if (sc.shape == TriangularShape::dense_rows) {
      EXPECT_EQ(max_off, 64);
    }
    if (sc.shape == TriangularShape::sparse_rows) {
      EXPECT_EQ(max_off, 3);
    }
    if (sc.shape == TriangularShape::long_chain) {
      EXPECT_EQ(L.nnz(), 2 * n - 1);
    }
    if (sc.shape == TriangularShape::diagonal_only) {
      EXPECT_EQ(L.nnz(), n);
    }
    if (sc.shape == TriangularShape::empty_offdiagonal) {
      // About half the rows (binomial, sd ~ 22 of 2000): far inside [700, 1300].
      EXPECT_GT(diag_only_rows, 700);
      EXPECT_LT(diag_only_rows, 1300);
    }
  }
}

TEST(RandomLowerTriangular, DeterministicPerSeed) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& sc : kShapes) {
    SCOPED_TRACE(sc.name);
    const auto L = random_lower_triangular(500, sc.shape, seed);
    EXPECT_TRUE(identical(L, random_lower_triangular(500, sc.shape, seed)));
    if (sc.shape != TriangularShape::diagonal_only) {  // all ones whatever the seed
      EXPECT_FALSE(identical(L, random_lower_triangular(500, sc.shape, seed + 1)));
    }
  }
  EXPECT_HAS(input_error_of([] { random_lower_triangular(0, TriangularShape::long_chain, 1); }), "n = 0");
}

// ------------------------------------------------------------ problem specs

TEST(ProblemSpec, RecognizesGeneratorNames) {
  EXPECT_TRUE(is_problem_spec("lap3d7:32x32x32"));
  EXPECT_TRUE(is_problem_spec("lap3d7"));
  EXPECT_TRUE(is_problem_spec("random:10:nnz=3"));
  EXPECT_TRUE(is_problem_spec("blocklap3d:bad"));  // a spec, if a bad one
  EXPECT_FALSE(is_problem_spec("lap3d"));
  EXPECT_FALSE(is_problem_spec("matrices/lap3d7.mtx"));
  EXPECT_FALSE(is_problem_spec("/data/lap3d7:3"));
  EXPECT_FALSE(is_problem_spec(""));
}

TEST(ProblemSpec, EachFormBuildsItsProblem) {
  struct Case {
    const char* spec;
    ordinal_t rows;
    long long nnz;
    std::array<ordinal_t, 3> grid;
  };
  const Case cases[] = {
      {"lap2d5:7x5", 35, nnz_5pt(7, 5), {7, 5, 1}},
      {"lap2d9:7x5", 35, nnz_9pt(7, 5), {7, 5, 1}},
      {"lap3d7:4x3x5", 60, nnz_7pt(4, 3, 5), {4, 3, 5}},
      {"lap3d27:4x3x5", 60, nnz_27pt(4, 3, 5), {4, 3, 5}},
      {"blocklap3d:4x3x5", 180, nnz_7pt(4, 3, 5) * 9, {4, 3, 5}},
      {"blocklap3d:4x3x5:b=2", 120, nnz_7pt(4, 3, 5) * 4, {4, 3, 5}},
      {"layered3d:4x3x5:decades=3:seed=7", 60, nnz_7pt(4, 3, 5), {4, 3, 5}},
      {"layered3d:4x3x5", 60, nnz_7pt(4, 3, 5), {4, 3, 5}},
      {"convdiff3d:4x3x5:pe=2.5", 60, nnz_7pt(4, 3, 5), {4, 3, 5}},
      {"convdiff2d:6x6:pe=5", 36, nnz_5pt(6, 6), {6, 6, 1}},
      {"random:100:nnz=6:seed=3", 100, 600, {0, 0, 0}},
      {"random:100", 100, 800, {0, 0, 0}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec);
    const Problem p = load_problem(c.spec);
    EXPECT_EQ(p.name, c.spec);
    EXPECT_FALSE(p.description.empty());
    EXPECT_EQ(p.matrix.num_rows, c.rows);
    EXPECT_EQ(p.matrix.nnz(), c.nnz);
    EXPECT_EQ(p.grid, c.grid);
    EXPECT_NO_THROW(validate_csr(p.matrix));
    EXPECT_EQ(p.block_matrix.has_value(), std::string(c.spec).rfind("blocklap3d", 0) == 0);
  }
  EXPECT_EQ(load_problem("lap3d7:32x32x32").description, "3D 7-point Laplacian on 32x32x32 grid");
  EXPECT_EQ(load_problem("blocklap3d:2x2x2:b=2").block_matrix->block_size, 2);
  // Options reach the generators.
  EXPECT_TRUE(identical(load_problem("convdiff3d:4x3x5:pe=2.5").matrix, convection_diffusion3d(4, 3, 5, 2.5)));
  EXPECT_TRUE(identical(load_problem("layered3d:4x3x5:decades=3:seed=7").matrix, layered_diffusion3d(4, 3, 5, 3.0, 7)));
  EXPECT_TRUE(identical(load_problem("layered3d:4x3x5:seed=7:decades=3").matrix, layered_diffusion3d(4, 3, 5, 3.0, 7)));
  EXPECT_FALSE(identical(load_problem("random:50:seed=1").matrix, load_problem("random:50:seed=2").matrix));
}

TEST(ProblemSpec, DefaultSpecLoads) {
  const Problem p = load_problem(default_problem_spec);
  ASSERT_TRUE(p.block_matrix.has_value());
  EXPECT_EQ(p.block_matrix->block_size, 3);
  EXPECT_EQ(p.matrix.num_rows, 32 * 32 * 32 * 3);
  EXPECT_EQ(p.matrix.nnz(), p.block_matrix->nnz_blocks() * 9);
  EXPECT_EQ(p.grid, (std::array<ordinal_t, 3>{32, 32, 32}));
}

TEST(ProblemSpec, ErrorsQuoteTheSpecAndSayWhatIsWrong) {
  struct Case {
    const char* spec;
    const char* phrase;
  };
  const Case cases[] = {
      {"lap3d7", "missing grid size"},
      {"lap3d7:", "missing grid size"},
      {"lap3d7:32x32", "takes 3"},
      {"lap2d5:8x8x8", "takes 2"},
      {"random:4x4", "takes 1"},
      {"lap3d7:32x0x32", "NY = 0 must be positive"},
      {"lap3d7:32x-4x32", "must be positive"},
      {"lap3d7:32x32x", "missing value for NZ"},
      {"lap3d7:32x3a2x32", "'3a2' is not a valid integer"},
      {"lap3d7:32x 32x32", "not a valid integer"},
      {"lap2d5:99999999999999999999x2", "out of range"},
      {"lap3d7:2000x2000x2000", "32-bit"},
      {"blocklap3d:1024x1024x700:b=3", "32-bit"},
      {"lap3d7:4x4x4:b=3", "unknown option 'b'"},
      {"convdiff3d:4x4x4:peclet=3", "unknown option 'peclet'"},
      {"blocklap3d:4x4x4:b=2:b=3", "given twice"},
      {"blocklap3d:4x4x4:b=9", "must be in 1..8"},
      {"blocklap3d:4x4x4:b=0", "must be in 1..8"},
      {"blocklap3d:4x4x4:b=", "missing value for b"},
      {"blocklap3d:4x4x4:b", "key=value"},
      {"convdiff2d:8x8:pe=1.5x", "not a valid number"},
      {"convdiff2d:8x8:pe=inf", "not finite"},
      {"convdiff2d:8x8:pe=nan", "not finite"},
      {"layered3d:4x4x4:decades=-1", "must be in 0..300"},
      // Issue 20, defect 8: parameters that overflowed, entry counts that
      // were refused only after minutes of generation.
      {"layered3d:4x4x4:decades=400", "must be in 0..300"},
      {"convdiff3d:4x4x4:pe=1e308", "|pe| <= 1e+300"},
      {"convdiff2d:4x4:pe=-1e301", "|pe| <= 1e+300"},
      {"lap3d27:1200x1200x1000", "more than the 32-bit offset limit"},
      {"lap3d7:800x800x800", "more than the 32-bit offset limit"},
      {"lap2d9:20000x20000", "more than the 32-bit offset limit"},
      {"stencil:star7:800x800x800", "more than the 32-bit offset limit"},
      {"blocklap3d:200x200x200:b=8", "more than the 32-bit offset limit"},
      {"random:300000000:nnz=8", "more than the 32-bit offset limit"},
      {"layered3d:4x4x4:seed=-1", "not a valid integer"},
      {"random:10:nnz=11", "nnz = 11"},
      {"random:10:nnz=0", "nnz = 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec);
    const auto t0 = std::chrono::steady_clock::now();
    const std::string msg = input_error_of([&] { load_problem(c.spec); });
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0)
        << "refused only after generating";
    EXPECT_HAS(msg, "'" + std::string(c.spec) + "'");
    EXPECT_HAS(msg, c.phrase);
  }
}

TEST(ProblemSpec, UnknownNameListsTheAcceptedForms) {
  const std::string msg = input_error_of([] { load_problem("lap3d:32x32x32"); });
  EXPECT_HAS(msg, "unknown problem 'lap3d'");
  EXPECT_HAS(msg, "'lap3d:32x32x32'");
  EXPECT_HAS(msg, problem_spec_help());
  const std::string help = problem_spec_help();
  for (const char* form : {"lap2d5:NXxNY", "lap2d9:NXxNY", "lap3d7:NXxNYxNZ", "lap3d27:NXxNYxNZ",
                           "blocklap3d:NXxNYxNZ[:b=B]", "layered3d:NXxNYxNZ[:decades=D][:seed=S]",
                           "convdiff3d:NXxNYxNZ[:pe=P]", "convdiff2d:NXxNY[:pe=P]", "random:N[:nnz=K][:seed=S]"})
    EXPECT_HAS(help, form);
}

TEST(ProblemSpec, OtherArgumentsAreMatrixMarketFiles) {
  const std::string path = ::testing::TempDir() + "trellis_gallery_test.mtx";
  {
    std::ofstream out(path);
    out << "%%MatrixMarket matrix coordinate real general\n"
           "3 3 4\n1 1 2.0\n2 2 3.0\n3 1 -1.0\n3 3 4.0\n";
  }
  const Problem p = load_problem(path);
  EXPECT_EQ(p.name, path);
  EXPECT_EQ(p.description, "Matrix Market file");
  EXPECT_EQ(p.matrix.num_rows, 3);
  EXPECT_EQ(p.matrix.nnz(), 4);
  EXPECT_FALSE(p.block_matrix.has_value());
  EXPECT_EQ(p.grid, (std::array<ordinal_t, 3>{0, 0, 0}));
  std::remove(path.c_str());
  EXPECT_THROW(load_problem(path), InputError);  // gone: the reader says so
}

}  // namespace
}  // namespace trellis
