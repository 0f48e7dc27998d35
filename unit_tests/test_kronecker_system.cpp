// Kronecker-form systems (seed 001): validate()'s message for each bad input;
// the generated Stokes-like system's sizes, pattern, symmetry, time matrices,
// determinism, and that unpreconditioned GMRES(30) solves it (checked against
// a dense solve); the random systems; reading a system back from files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "dense_solve.hpp"
#include "test_support.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/kronecker_system.hpp"
#include "trellis/gallery/kronecker_problems.hpp"
#include "trellis/io/kronecker_io.hpp"
#include "trellis/io/matrix_market.hpp"

namespace trellis {
namespace {

using gallery::radau_iia_matrix;
using gallery::random_kronecker;
using gallery::stokes_kronecker;

// ------------------------------------------------------------------ helpers

/// The InputError message f throws (a test failure if it throws nothing or something else).
template <class F>
std::string input_error_of(F f) {
  return test::error_of<InputError>(f);
}

/// Value of X(row, col) (point indices), 0 when its block is not stored.
double entry(const HostBsr& X, ordinal_t row, ordinal_t col) {
  const int b = X.block_size;
  const ordinal_t bi = row / b, bj = col / b;
  for (offset_t k = X.row_map(bi); k < X.row_map(bi + 1); ++k)
    if (X.entries(k) == bj) return X.values(size_t(k) * b * b + (row % b) * b + col % b);
  return 0.0;
}

bool same_pattern(const HostBsr& X, const HostBsr& Y) {
  if (X.block_size != Y.block_size || X.num_block_rows != Y.num_block_rows || X.nnz_blocks() != Y.nnz_blocks())
    return false;
  for (ordinal_t i = 0; i <= X.num_block_rows; ++i)
    if (X.row_map(i) != Y.row_map(i)) return false;
  for (offset_t k = 0; k < X.nnz_blocks(); ++k)
    if (X.entries(k) != Y.entries(k)) return false;
  return true;
}

bool identical(const HostBsr& X, const HostBsr& Y) {
  if (!same_pattern(X, Y) || X.values.extent(0) != Y.values.extent(0)) return false;
  for (size_t k = 0; k < X.values.extent(0); ++k)
    if (!(X.values(k) == Y.values(k))) return false;
  return true;
}

bool identical(const KroneckerSystem& x, const KroneckerSystem& y) {
  return x.stages == y.stages && x.A == y.A && x.B == y.B && x.tau == y.tau && x.description == y.description &&
         identical(x.M, y.M) && identical(x.L, y.L);
}

/// y = X x on the host (serial reference).
void bsr_apply(const HostBsr& X, const double* x, double* y) {
  const int b = X.block_size;
  for (ordinal_t bi = 0; bi < X.num_block_rows; ++bi)
    for (int r = 0; r < b; ++r) {
      double sum = 0;
      for (offset_t k = X.row_map(bi); k < X.row_map(bi + 1); ++k) {
        const double* block = X.values.data() + size_t(k) * b * b + size_t(r) * b;
        const double* xj = x + size_t(X.entries(k)) * b;
        for (int c = 0; c < b; ++c) sum += block[c] * xj[c];
      }
      y[size_t(bi) * b + r] = sum;
    }
}

/// y = (A ⊗ M + tau B ⊗ L) x, vectors stored stage after stage.
std::vector<double> kronecker_apply(const KroneckerSystem& sys, const std::vector<double>& x) {
  const size_t n = size_t(sys.space_rows());
  const int s = sys.stages;
  std::vector<double> Mx(n * s), Lx(n * s), y(n * s, 0.0);
  for (int j = 0; j < s; ++j) {
    bsr_apply(sys.M, x.data() + j * n, Mx.data() + j * n);
    bsr_apply(sys.L, x.data() + j * n, Lx.data() + j * n);
  }
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j) {
      const double a = sys.a(i, j), tb = sys.tau * sys.b(i, j);
      for (size_t r = 0; r < n; ++r) y[i * n + r] += a * Mx[j * n + r] + tb * Lx[j * n + r];
    }
  return y;
}

/// The operator as a dense row-major matrix (small systems only).
std::vector<double> kronecker_dense(const KroneckerSystem& sys) {
  const size_t n = size_t(sys.num_rows());
  std::vector<double> dense(n * n), e(n, 0.0);
  for (size_t c = 0; c < n; ++c) {
    e[c] = 1;
    const std::vector<double> column = kronecker_apply(sys, e);
    e[c] = 0;
    for (size_t r = 0; r < n; ++r) dense[r * n + c] = column[r];
  }
  return dense;
}

double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

struct GmresResult {
  int iterations = 0;
  bool converged = false;
  double true_relative_residual = INFINITY;
  std::vector<double> x;
};

/// Unpreconditioned GMRES(m) from x = 0 (modified Gram-Schmidt, Givens
/// rotations), as seed 001's Algorithm 1: a plain reference that tells how
/// hard the generated system is for the paper's solver.
GmresResult host_gmres(const KroneckerSystem& sys, const std::vector<double>& f, int m, double tol, int max_iters) {
  const size_t n = f.size();
  GmresResult out;
  out.x.assign(n, 0.0);
  const double fnorm = norm(f);
  std::vector<std::vector<double>> V(m + 1, std::vector<double>(n));
  std::vector<double> H(size_t(m + 1) * m), cs(m), sn(m), g(m + 1);
  auto h = [&](int i, int j) -> double& { return H[size_t(i) * m + j]; };
  while (out.iterations < max_iters) {
    std::vector<double> r = kronecker_apply(sys, out.x);
    for (size_t k = 0; k < n; ++k) r[k] = f[k] - r[k];
    const double beta = norm(r);
    if (beta <= tol * fnorm) {
      out.converged = true;
      break;
    }
    for (size_t k = 0; k < n; ++k) V[0][k] = r[k] / beta;
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int j = 0;
    for (; j < m && out.iterations < max_iters; ++j) {
      std::vector<double> w = kronecker_apply(sys, V[j]);
      for (int i = 0; i <= j; ++i) {
        double d = 0;
        for (size_t k = 0; k < n; ++k) d += w[k] * V[i][k];
        h(i, j) = d;
        for (size_t k = 0; k < n; ++k) w[k] -= d * V[i][k];
      }
      h(j + 1, j) = norm(w);
      for (size_t k = 0; k < n; ++k) V[j + 1][k] = w[k] / h(j + 1, j);
      for (int i = 0; i < j; ++i) {
        const double t = cs[i] * h(i, j) + sn[i] * h(i + 1, j);
        h(i + 1, j) = -sn[i] * h(i, j) + cs[i] * h(i + 1, j);
        h(i, j) = t;
      }
      const double rho = std::hypot(h(j, j), h(j + 1, j));
      cs[j] = h(j, j) / rho;
      sn[j] = h(j + 1, j) / rho;
      h(j, j) = rho;
      h(j + 1, j) = 0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      ++out.iterations;
      if (std::abs(g[j + 1]) <= tol * fnorm) {
        ++j;
        break;
      }
    }
    // x += V y with H y = g (upper triangular, j x j).
    std::vector<double> y(j);
    for (int i = j - 1; i >= 0; --i) {
      double s = g[i];
      for (int l = i + 1; l < j; ++l) s -= h(i, l) * y[l];
      y[i] = s / h(i, i);
    }
    for (int i = 0; i < j; ++i)
      for (size_t k = 0; k < n; ++k) out.x[k] += y[i] * V[i][k];
  }
  std::vector<double> r = kronecker_apply(sys, out.x);
  for (size_t k = 0; k < n; ++k) r[k] = f[k] - r[k];
  out.true_relative_residual = norm(r) / fnorm;
  out.converged = out.true_relative_residual <= 1.01 * tol;
  return out;
}

// A path in GoogleTest's temp folder, unique to this process and test.
std::string temp_path(const std::string& stem) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "trellis_kron_" + std::to_string(::getpid()) + "_" + info->name() + "_" + stem;
}

/// Writes a row-major rows x cols matrix as an `array` real general file
/// (column-major, as the Matrix Market standard stores it).
void write_array(const std::string& path, const std::vector<double>& row_major, int rows, int cols) {
  std::ofstream out(path);
  out.precision(17);
  out << "%%MatrixMarket matrix array real general\n% column-major\n" << rows << " " << cols << "\n";
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) out << row_major[size_t(i) * cols + j] << "\n";
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// --------------------------------------------------------------- validate

TEST(KroneckerValidate, AcceptsAGoodSystem) {
  EXPECT_NO_THROW(validate(random_kronecker(10, 3, 2, 5, false)));
  EXPECT_NO_THROW(validate(stokes_kronecker(3, 2, 2)));
}

// Each case starts from a fresh system (copies share their Views).
KroneckerSystem fresh() { return random_kronecker(6, 2, 2, 11, true); }

TEST(KroneckerValidate, NamesEachBadInput) {
  {
    auto sys = fresh();
    sys.stages = 0;
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "stages s = 0");
  }
  {
    auto sys = fresh();
    sys.A.pop_back();
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "A has 3 entries, expected s*s = 4");
  }
  {
    auto sys = fresh();
    sys.B.push_back(1.0);
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "B has 5 entries, expected s*s = 4");
  }
  {
    auto sys = fresh();
    sys.M.num_block_cols += 1;
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "M is 12x14, not square");
  }
  {
    auto sys = fresh();
    sys.L.num_block_cols -= 1;
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "L is 12x10, not square");
  }
  {
    auto sys = fresh();
    sys.L = random_kronecker(7, 2, 2, 11, true).L;
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "M is 12x12 but L is 14x14");
  }
  {
    auto sys = fresh();
    sys.L = random_kronecker(3, 4, 2, 11, true).L;  // 12 rows too, in 4x4 blocks
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "block sizes differ: M has b = 2, L has b = 4");
  }
  {
    auto sys = fresh();
    sys.M = HostBsr();
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "M has no rows");
  }
  {
    auto sys = fresh();
    sys.tau = std::numeric_limits<double>::quiet_NaN();
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "tau = nan is not finite");
  }
  {
    auto sys = fresh();
    sys.A[1] = INFINITY;
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "A(0, 1) = inf is not finite");
  }
  {
    auto sys = fresh();
    sys.B[2] = -INFINITY;
    EXPECT_HAS(input_error_of([&] { validate(sys); }), "B(1, 0) = -inf is not finite");
  }
  {
    auto sys = fresh();
    // The last stored block's entry (1, 0): point row 11, column 2 * (its block column).
    const offset_t last = sys.M.nnz_blocks() - 1;
    sys.M.values(size_t(last) * 4 + 2) = std::numeric_limits<double>::quiet_NaN();
    const std::string where = "M(11, " + std::to_string(2 * sys.M.entries(last)) + ") = nan";
    EXPECT_HAS(input_error_of([&] { validate(sys); }), where);
  }
  {
    auto sys = fresh();
    sys.L.values(1) = INFINITY;  // block row 0's first block, entry (0, 1)
    const std::string where = "L(0, " + std::to_string(2 * sys.L.entries(0) + 1) + ") = inf";
    EXPECT_HAS(input_error_of([&] { validate(sys); }), where);
  }
}

TEST(KroneckerValidate, ReportsTheFirstProblem) {
  auto sys = fresh();
  sys.tau = INFINITY;
  sys.A[0] = INFINITY;
  EXPECT_HAS(input_error_of([&] { validate(sys); }), "tau = inf");
}

// ------------------------------------------------------------ Radau IIA

TEST(RadauIIA, Coefficients) {
  EXPECT_EQ(radau_iia_matrix(1), std::vector<double>{1.0});
  EXPECT_EQ(radau_iia_matrix(2), (std::vector<double>{5.0 / 12.0, -1.0 / 12.0, 3.0 / 4.0, 1.0 / 4.0}));
  // s = 3: row sums are the nodes c = ((4 - √6)/10, (4 + √6)/10, 1), the last
  // row is the weights (stiffly accurate), and it integrates t^q exactly up
  // to q = s - 1 on each row: sum_j a_ij c_j^(q-1) = c_i^q / q.
  const auto a = radau_iia_matrix(3);
  const double r6 = std::sqrt(6.0);
  const double c[3] = {(4 - r6) / 10, (4 + r6) / 10, 1.0};
  for (int i = 0; i < 3; ++i)
    for (int q = 1; q <= 3; ++q) {
      double sum = 0;
      for (int j = 0; j < 3; ++j) sum += a[i * 3 + j] * std::pow(c[j], q - 1);
      EXPECT_NEAR(sum, std::pow(c[i], q) / q, 1e-15) << "row " << i << " q " << q;
    }
  EXPECT_NEAR(a[6], (16 - r6) / 36, 1e-16);
  EXPECT_NEAR(a[8], 1.0 / 9.0, 1e-16);
  EXPECT_HAS(input_error_of([] { radau_iia_matrix(4); }), "s = 4");
  EXPECT_HAS(input_error_of([] { radau_iia_matrix(0); }), "s = 0");
}

// ----------------------------------------------------------- Stokes-like

TEST(StokesKronecker, SizesPatternAndTimeMatrices) {
  const ordinal_t nx = 4, ny = 3, nz = 5;
  const auto sys = stokes_kronecker(nx, ny, nz);
  EXPECT_EQ(sys.stages, 2);
  EXPECT_EQ(sys.tau, 0.125);
  EXPECT_EQ(sys.A, (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(sys.B, radau_iia_matrix(2));
  for (const HostBsr* X : {&sys.M, &sys.L}) {
    EXPECT_EQ(X->block_size, 4);
    EXPECT_EQ(X->num_block_rows, nx * ny * nz);
    EXPECT_EQ(X->num_rows(), 4 * nx * ny * nz);
    EXPECT_EQ(X->nnz_blocks(), (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));  // 27-point box
  }
  EXPECT_TRUE(same_pattern(sys.M, sys.L));
  const ordinal_t interior = 1 + nx * (1 + ny * 1), corner = 0;
  EXPECT_EQ(sys.M.row_map(interior + 1) - sys.M.row_map(interior), 27);
  EXPECT_EQ(sys.M.row_map(corner + 1) - sys.M.row_map(corner), 8);
  const ordinal_t last = nx * ny * nz - 1;
  EXPECT_EQ(sys.M.row_map(last + 1) - sys.M.row_map(last), 8);
  EXPECT_EQ(sys.description, "Stokes-like b=4 27-point 4x3x5, Radau IIA s=2, tau=0.125");
  EXPECT_EQ(stokes_kronecker(2, 2, 2, 3, 0.5).B, radau_iia_matrix(3));
  EXPECT_EQ(stokes_kronecker(2, 2, 2, 1, 0.5).A, std::vector<double>{1.0});
}

TEST(StokesKronecker, SizesAreCheckedIn64BitsBeforeAnythingIsBuilt) {
  // 600^3 points x 4 unknowns fit 32 bits; x 3 stages they do not: refused
  // before the 216-million-point pattern is generated.
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_HAS(test::error_of<InputError>([] { stokes_kronecker(600, 600, 600, 3, 0.1); }),
             "2592000000 unknowns, more than 32-bit indices hold");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  EXPECT_HAS(test::error_of<InputError>([] { stokes_kronecker(-3, 3, 3); }), "nx = -3 must be positive");
}

TEST(KroneckerSystemChecks, RowsTimesStagesThatOverflowAreNamed) {
  // A 2^21 + 1-row M with 1024 stages: 2,147,484,672 unknowns (was: computed
  // in int, 1024 reported).
  const ordinal_t n = (1 << 21) + 1;
  const int s = 1024;
  std::vector<ordinal_t> idx(n);
  for (ordinal_t i = 0; i < n; ++i) idx[i] = i;
  KroneckerSystem sys;
  sys.M = csr_to_bsr(csr_from_triplets(n, n, idx, idx, std::vector<double>(n, 1.0)), 1);
  sys.L = sys.M;
  sys.stages = s;
  sys.A.assign(size_t(s) * s, 0.0);
  sys.B.assign(size_t(s) * s, 0.0);
  for (int i = 0; i < s; ++i) sys.A[size_t(i) * s + i] = sys.B[size_t(i) * s + i] = 1.0;
  sys.tau = 0.1;
  EXPECT_HAS(test::error_of<InputError>([&] { validate(sys); }),
             "2097153 rows x s = 1024 stages = 2147484672 unknowns, more than 32-bit indices hold");
}

TEST(StokesKronecker, SymmetryAndSigns) {
  const auto sys = stokes_kronecker(4, 5, 3);
  const ordinal_t n = sys.space_rows();
  for (ordinal_t r = 0; r < n; ++r) {
    EXPECT_GT(entry(sys.M, r, r), 0.0) << "row " << r;
    EXPECT_GT(entry(sys.L, r, r), 0.0) << "row " << r;
    double off = 0;  // the velocity and pressure stiffness: diagonally dominant
    for (ordinal_t c = r % 4; c < n; c += 4)
      if (c != r) off += std::abs(entry(sys.L, r, c));
    EXPECT_GE(entry(sys.L, r, r), off * (1 - 1e-14)) << "row " << r;
  }
  for (ordinal_t r = 0; r < n; ++r)
    for (ordinal_t c = 0; c < n; ++c) {
      ASSERT_EQ(entry(sys.M, r, c), entry(sys.M, c, r)) << "M not symmetric at (" << r << ", " << c << ")";
      if (r % 4 != c % 4) {
        ASSERT_EQ(entry(sys.M, r, c), 0.0) << "M couples fields at (" << r << ", " << c << ")";
      }
      // L: symmetric within a field; the velocity-pressure pair skew (G, -G^T);
      // no velocity-velocity coupling between components.
      const bool velocity_r = r % 4 < 3, velocity_c = c % 4 < 3;
      if (r % 4 == c % 4)
        ASSERT_EQ(entry(sys.L, r, c), entry(sys.L, c, r)) << "(" << r << ", " << c << ")";
      else if (velocity_r != velocity_c)
        ASSERT_EQ(entry(sys.L, r, c), -entry(sys.L, c, r)) << "(" << r << ", " << c << ")";
      else
        ASSERT_EQ(entry(sys.L, r, c), 0.0) << "(" << r << ", " << c << ")";
    }
}

TEST(StokesKronecker, Deterministic) {
  EXPECT_TRUE(identical(stokes_kronecker(5, 4, 3), stokes_kronecker(5, 4, 3)));
  EXPECT_FALSE(identical(stokes_kronecker(5, 4, 3), stokes_kronecker(5, 4, 3, 2, 0.25)));
}

TEST(StokesKronecker, BadArguments) {
  EXPECT_HAS(input_error_of([] { stokes_kronecker(0, 3, 3); }), "nx = 0");
  EXPECT_HAS(input_error_of([] { stokes_kronecker(3, -1, 3); }), "ny = -1");
  EXPECT_HAS(input_error_of([] { stokes_kronecker(3, 3, 3, 4); }), "s = 4");
  EXPECT_HAS(input_error_of([] { stokes_kronecker(3, 3, 3, 2, 0.0); }), "tau = 0");
  EXPECT_HAS(input_error_of([] { stokes_kronecker(3, 3, 3, 2, NAN); }), "tau = nan");
  EXPECT_HAS(input_error_of([] { stokes_kronecker(2000, 2000, 2000); }), "32-bit");
}

// Every diagonal block of L, and of M + tau b_ii L, is nonsingular, and the
// whole operator too: a dense LU of the 3x3x3, s = 2 system (216 unknowns)
// meets no small pivot, and GMRES(30) reaches the dense solution.
TEST(StokesKronecker, NonsingularAndGmresMatchesDenseSolve) {
  const auto sys = stokes_kronecker(3, 3, 3);
  for (ordinal_t bi = 0; bi < sys.M.num_block_rows; ++bi)
    for (offset_t k = sys.M.row_map(bi); k < sys.M.row_map(bi + 1); ++k) {
      if (sys.M.entries(k) != bi) continue;
      std::vector<double> Lb(sys.L.values.data() + k * 16, sys.L.values.data() + k * 16 + 16), Sb = Lb;
      for (int q = 0; q < 16; ++q) Sb[q] = sys.M.values(k * 16 + q) + sys.tau * sys.b(0, 0) * Lb[q];
      EXPECT_LT(reference::dense_lu(Lb, 4, 1e-12 * std::abs(Lb[0])).singular_column, 0) << "L block " << bi;
      EXPECT_LT(reference::dense_lu(Sb, 4, 1e-12 * std::abs(Sb[0])).singular_column, 0) << "stage block " << bi;
    }
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<double> f = reference::random_vector(size_t(sys.num_rows()), seed);
  const int n = sys.num_rows();
  const std::vector<double> dense = kronecker_dense(sys);
  double largest = 0;
  for (double v : dense) largest = std::max(largest, std::abs(v));
  const auto lu = reference::dense_lu(dense, n, 1e-10 * largest);
  ASSERT_LT(lu.singular_column, 0) << "tiny pivot in column " << lu.singular_column;
  const std::vector<double> exact = reference::lu_solve(lu, f);
  const GmresResult gmres = host_gmres(sys, f, 30, 1e-10, 2000);
  EXPECT_TRUE(gmres.converged) << gmres.iterations << " iterations, residual " << gmres.true_relative_residual;
  EXPECT_LT(reference::relative_error(gmres.x, exact), 1e-7);
}

// The property the generator is built for: unpreconditioned GMRES(30) to a
// 1e-6 relative residual in a few hundred iterations at tau = 0.125 (seed
// 001's solver; its case took 117). A 12^3 grid here (the conditioning grows
// with n; about 50^3 was checked by hand, see the generator's comments).
TEST(StokesKronecker, UnpreconditionedGmresConverges) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int s : {1, 2, 3}) {
    const auto sys = stokes_kronecker(12, 12, 12, s);
    SCOPED_TRACE(sys.description);
    const std::vector<double> f = reference::random_vector(size_t(sys.num_rows()), seed + s);
    const GmresResult gmres = host_gmres(sys, f, 30, 1e-6, 1000);
    EXPECT_TRUE(gmres.converged) << "residual " << gmres.true_relative_residual;
    EXPECT_LE(gmres.iterations, 300);
    std::printf("[ info     ] %s: GMRES(30) %d iterations, residual %.2e\n", sys.description.c_str(), gmres.iterations,
                gmres.true_relative_residual);
  }
}

// The iteration count on a larger grid, by hand (a 50^3 grid takes about a
// minute here): TRELLIS_STOKES_GRID=50 [TRELLIS_STOKES_STAGES=2].
TEST(StokesKronecker, GmresIterationsOnAChosenGrid) {
  const char* grid = std::getenv("TRELLIS_STOKES_GRID");
  if (!grid) GTEST_SKIP() << "set TRELLIS_STOKES_GRID=n to measure GMRES(30) on an n^3 grid";
  const char* stages = std::getenv("TRELLIS_STOKES_STAGES");
  const int n = std::atoi(grid), s = stages ? std::atoi(stages) : 2;
  const auto sys = stokes_kronecker(n, n, n, s);
  const std::vector<double> f = reference::random_vector(size_t(sys.num_rows()), 1);
  const GmresResult gmres = host_gmres(sys, f, 30, 1e-6, 3000);
  std::printf("[ info     ] %s: GMRES(30) %d iterations, residual %.2e\n", sys.description.c_str(), gmres.iterations,
              gmres.true_relative_residual);
  EXPECT_TRUE(gmres.converged);
}

// --------------------------------------------------------------- random

TEST(RandomKronecker, DeterministicAndPatterns) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto shared = random_kronecker(40, 3, 2, seed, true);
  EXPECT_TRUE(identical(shared, random_kronecker(40, 3, 2, seed, true)));
  EXPECT_FALSE(identical(shared, random_kronecker(40, 3, 2, seed + 1, true)));
  EXPECT_TRUE(same_pattern(shared.M, shared.L));
  EXPECT_FALSE(identical(shared.M, shared.L));
  const auto separate = random_kronecker(40, 3, 2, seed, false);
  EXPECT_TRUE(identical(separate, random_kronecker(40, 3, 2, seed, false)));
  EXPECT_FALSE(same_pattern(separate.M, separate.L));
  for (const auto* sys : {&shared, &separate}) {
    EXPECT_EQ(sys->stages, 2);
    EXPECT_EQ(sys->M.block_size, 3);
    EXPECT_EQ(sys->space_rows(), 120);
    EXPECT_GE(sys->tau, 0.05);
    EXPECT_LE(sys->tau, 0.5);
    for (ordinal_t bi = 0; bi < 40; ++bi) {
      const offset_t len = sys->M.row_map(bi + 1) - sys->M.row_map(bi);
      EXPECT_GE(len, 1);
      EXPECT_LE(len, 5);
    }
  }
}

// A ⊗ M + tau B ⊗ L is strictly diagonally dominant by rows, for several
// block and stage counts.
TEST(RandomKronecker, ProductIsDiagonallyDominant) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int b : {1, 2, 4}) {
    for (int s : {1, 2, 3}) {
      const auto sys = random_kronecker(9, b, s, seed + 10 * b + s, (b + s) % 2 == 0);
      SCOPED_TRACE(sys.description);
      const std::vector<double> dense = kronecker_dense(sys);
      const size_t n = size_t(sys.num_rows());
      for (size_t r = 0; r < n; ++r) {
        double off = 0;
        for (size_t c = 0; c < n; ++c)
          if (c != r) off += std::abs(dense[r * n + c]);
        ASSERT_GT(dense[r * n + r], off) << "row " << r;
      }
    }
  }
}

TEST(RandomKronecker, BadArguments) {
  EXPECT_HAS(input_error_of([] { random_kronecker(0, 2, 2, 1, true); }), "block_rows = 0");
  EXPECT_HAS(input_error_of([] { random_kronecker(5, 9, 2, 1, true); }), "b = 9");
  EXPECT_HAS(input_error_of([] { random_kronecker(5, 2, 0, 1, true); }), "stages = 0");
}

// ------------------------------------------------------------------- files

struct SystemFiles {
  std::string M, L, A, B;
};

SystemFiles write_system(const KroneckerSystem& sys) {
  SystemFiles files{temp_path("M.mtx"), temp_path("L.mtx"), temp_path("A.mtx"), temp_path("B.mtx")};
  io::write_matrix_market(files.M, bsr_to_csr(sys.M));
  io::write_matrix_market(files.L, bsr_to_csr(sys.L));
  write_array(files.A, sys.A, sys.stages, sys.stages);
  write_array(files.B, sys.B, sys.stages, sys.stages);
  return files;
}

TEST(KroneckerIo, RoundTrip) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (bool shared : {true, false}) {
    const auto sys = random_kronecker(30, 3, 3, seed, shared);
    const SystemFiles files = write_system(sys);
    const auto back = io::read_kronecker_system(files.M, files.L, files.A, files.B, sys.tau, 3);
    EXPECT_TRUE(identical(back.M, sys.M));
    EXPECT_TRUE(identical(back.L, sys.L));
    EXPECT_EQ(back.stages, 3);
    EXPECT_EQ(back.A, sys.A);  // A is not symmetric: the column-major order is checked
    EXPECT_EQ(back.B, sys.B);
    EXPECT_EQ(back.tau, sys.tau);
    EXPECT_HAS(back.description, files.M);
  }
  // The Stokes system, and A, B as coordinate files; block size 1 by default.
  const auto stokes = stokes_kronecker(3, 2, 2);
  const SystemFiles files = write_system(stokes);
  const std::string B_coordinate = temp_path("B_coordinate.mtx");
  {
    std::ofstream out(B_coordinate);
    out.precision(17);
    out << "%%MatrixMarket matrix coordinate real general\n2 2 4\n";
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) out << i + 1 << " " << j + 1 << " " << stokes.b(i, j) << "\n";
  }
  write_array(files.A, stokes.A, 2, 2);
  const auto back = io::read_kronecker_system(files.M, files.L, files.A, B_coordinate, 0.125, 4);
  EXPECT_TRUE(identical(back.M, stokes.M));
  EXPECT_TRUE(identical(back.L, stokes.L));
  EXPECT_EQ(back.B, stokes.B);
  const auto scalar = io::read_kronecker_system(files.M, files.L, files.A, files.B, 0.125);
  EXPECT_EQ(scalar.M.block_size, 1);
  EXPECT_EQ(scalar.space_rows(), stokes.space_rows());
}

TEST(KroneckerIo, DenseReaderBothFormats) {
  const std::string array = temp_path("array.mtx"), coordinate = temp_path("coordinate.mtx");
  {
    std::ofstream out(array);
    out << "%%MatrixMarket matrix array real general\n2 3\n1\n4\n2\n5\n3\n6\n";  // columns (1 4) (2 5) (3 6)
  }
  {
    std::ofstream out(coordinate);
    out << "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 7\n2 1 -1\n";
  }
  long long rows = 0, cols = 0;
  EXPECT_EQ(io::read_matrix_market_dense(array, rows, cols), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(cols, 3);
  EXPECT_EQ(io::read_matrix_market_dense(coordinate, rows, cols), (std::vector<double>{7, -1, -1, 0}));
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(cols, 2);
  const std::string short_file = temp_path("short.mtx");
  {
    std::ofstream out(short_file);
    out << "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n";
  }
  try {
    io::read_matrix_market_dense(short_file, rows, cols);
    ADD_FAILURE() << "a truncated array file was read";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.file(), short_file);
    EXPECT_HAS(std::string(e.what()), "3 of 4 declared values");
  }
}

TEST(KroneckerIo, ErrorsNameTheFile) {
  const auto sys = random_kronecker(8, 2, 2, 3, false);
  const SystemFiles files = write_system(sys);
  // A of the wrong size: 3x3 while B is 2x2, then A not square.
  const std::string A3 = temp_path("A3.mtx"), A23 = temp_path("A23.mtx");
  write_array(A3, std::vector<double>(9, 1.0), 3, 3);
  write_array(A23, std::vector<double>(6, 1.0), 2, 3);
  std::string msg = input_error_of([&] { io::read_kronecker_system(files.M, files.L, A3, files.B, 0.1, 2); });
  EXPECT_HAS(msg, files.B);
  EXPECT_HAS(msg, A3);
  EXPECT_HAS(msg, "is 2x2 but A");
  msg = input_error_of([&] { io::read_kronecker_system(files.M, files.L, A23, files.B, 0.1, 2); });
  EXPECT_HAS(msg, "A '" + A23 + "' is 2x3, not a square");
  // L of another size than M.
  const std::string L_small = temp_path("L_small.mtx");
  io::write_matrix_market(L_small, bsr_to_csr(random_kronecker(5, 2, 2, 3, false).L));
  msg = input_error_of([&] { io::read_kronecker_system(files.M, L_small, files.A, files.B, 0.1, 2); });
  EXPECT_HAS(msg, "L '" + L_small + "' is 10x10 but M '" + files.M + "' is 16x16");
  // A block size that does not divide the size.
  msg = input_error_of([&] { io::read_kronecker_system(files.M, files.L, files.A, files.B, 0.1, 3); });
  EXPECT_HAS(msg, "M '" + files.M + "' has 16 rows, not a multiple of the block size 3");
  // A missing file, and a non-finite tau (validate()).
  msg = input_error_of([&] { io::read_kronecker_system(temp_path("none.mtx"), files.L, files.A, files.B, 0.1, 2); });
  EXPECT_HAS(msg, "none.mtx");
  msg = input_error_of([&] { io::read_kronecker_system(files.M, files.L, files.A, files.B, INFINITY, 2); });
  EXPECT_HAS(msg, "tau = inf");
}

}  // namespace
}  // namespace trellis
