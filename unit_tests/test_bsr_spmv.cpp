// Block SpMV (bsr_spmv) and the BSR Krylov operator, on every backend: against
// a serial double reference on the point form of the matrix for every block
// size 1..8 (random matrices with fresh seeds, block Laplacians), alpha/beta
// combinations over poisoned outputs, rejected bad input, and CG / BiCGSTAB
// with BsrOperator agreeing with CsrOperator on the point matrix.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "spmv.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"
#include "trellis/spmv/bsr_spmv.hpp"

namespace trellis {
namespace {

using HostVec = std::vector<double>;
using test::device_vector;
using test::host_vector;
using test::random_vector;

const double poison = std::numeric_limits<double>::quiet_NaN();

/// Random rectangular BSR matrix built block by block: block rows hold 0 to
/// max_blocks blocks (empty rows, and rows longer than a warp of lanes).
HostBsr random_bsr(ordinal_t block_rows, ordinal_t block_cols, int b, int max_blocks, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ordinal_t> all_cols(block_cols), cols;
  std::iota(all_cols.begin(), all_cols.end(), 0);
  Kokkos::View<offset_t*, HostDevice> rm("row_map", size_t(block_rows) + 1);
  for (ordinal_t i = 0; i < block_rows; ++i) {
    const int count = std::uniform_int_distribution<int>(0, std::min(max_blocks, int(block_cols)))(rng);
    std::sample(all_cols.begin(), all_cols.end(), std::back_inserter(cols), count, rng);  // sorted
    rm(i + 1) = offset_t(cols.size());
  }
  HostBsr::index_type ent("entries", cols.size());
  std::copy(cols.begin(), cols.end(), ent.data());
  const HostVec vals = random_vector(cols.size() * b * b, seed + 1);
  HostBsr::values_type val("values", vals.size());
  std::copy(vals.begin(), vals.end(), val.data());
  return HostBsr(b, block_rows, block_cols, rm, ent, val);
}

struct AlphaBeta {
  double alpha, beta;
};
// beta == 0 runs over a NaN-filled y: any unwritten or read entry shows.
const AlphaBeta alpha_betas[] = {{1, 0}, {-0.75, 0}, {1, 1}, {2.5, -0.5}, {0, 2}, {0, 0}};

/// bsr_spmv on the device against the serial reference (alpha A x + beta y0,
/// y0 unread when beta == 0) on the point form of H.
template <class Device>
void expect_matches_reference(const HostBsr& H, std::uint64_t seed) {
  const HostCsr P = bsr_to_csr(H);
  const auto A = copy_to<Device>(H);
  const HostVec x = random_vector(H.num_cols(), seed);
  for (const AlphaBeta ab : alpha_betas) {
    SCOPED_TRACE("alpha " + std::to_string(ab.alpha) + " beta " + std::to_string(ab.beta));
    const HostVec y0 = ab.beta == 0 ? HostVec(H.num_rows(), poison) : random_vector(H.num_rows(), seed + 1);
    const HostVec expected = reference::spmv(ab.alpha, P, x, ab.beta, y0);
    auto dy = device_vector<Device>(y0);
    bsr_spmv<double, Device>(ab.alpha, A, device_vector<Device>(x), ab.beta, dy);
    EXPECT_LT(test::relative_error(host_vector(dy), expected), 1e-13);
  }
}

template <class Device>
class BsrSpmvOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(BsrSpmvOnBackend, test::Backends, test::BackendNames);

TYPED_TEST(BsrSpmvOnBackend, MatchesPointReferenceOnRandomMatricesForEveryBlockSize) {
  using Device = TypeParam;
  for (int b = 1; b <= 8; ++b) {
    const auto seed = test::fresh_seed();
    SCOPED_TRACE("b " + std::to_string(b) + " seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const ordinal_t block_rows = std::uniform_int_distribution<ordinal_t>(1, 300)(rng);
    gallery::RandomOptions ro;
    ro.seed = seed;
    expect_matches_reference<Device>(csr_to_bsr(gallery::random_sparse(block_rows * b, ro), b), seed + 2);
    const ordinal_t block_cols = std::uniform_int_distribution<ordinal_t>(1, 300)(rng);
    expect_matches_reference<Device>(random_bsr(block_rows, block_cols, b, 40, seed + 3), seed + 4);
  }
}

TYPED_TEST(BsrSpmvOnBackend, MatchesPointReferenceOnBlockLaplace3d) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int b = 1; b <= 8; ++b) {
    SCOPED_TRACE("b " + std::to_string(b));
    expect_matches_reference<Device>(gallery::block_laplace3d(7, 6, 5, b), seed + b);
  }
}

TYPED_TEST(BsrSpmvOnBackend, BetaZeroOverwritesNanAndAlphaZeroReadsNeitherAnorX) {
  using Device = TypeParam;
  const auto A = copy_to<Device>(gallery::block_laplace3d(4, 4, 4, 3));
  const size_t n = size_t(A.num_rows());
  auto x_nan = device_vector<Device>(HostVec(n, poison));
  auto y = device_vector<Device>(HostVec(n, poison));
  bsr_spmv<double, Device>(1.0, A, device_vector<Device>(HostVec(n, 1.0)), 0.0, y);
  for (double v : host_vector(y)) ASSERT_TRUE(std::isfinite(v)) << "beta = 0 kept a NaN of y";
  const HostVec y0 = random_vector(n, 5);
  y = device_vector<Device>(y0);
  bsr_spmv<double, Device>(0.0, A, x_nan, 2.0, y);
  const HostVec scaled = host_vector(y);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(scaled[i], 2.0 * y0[i]) << "row " << i;
  y = device_vector<Device>(HostVec(n, poison));
  bsr_spmv<double, Device>(0.0, A, x_nan, 0.0, y);
  for (double v : host_vector(y)) ASSERT_EQ(v, 0.0);
}

/// Runs f, expecting a StructureError whose message holds every one of `parts`.
template <class F>
void expect_structure_error(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no StructureError";
  } catch (const StructureError& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

TYPED_TEST(BsrSpmvOnBackend, BadArgumentsAreRejectedWithNames) {
  using Device = TypeParam;
  using vec = Kokkos::View<double*, Device>;
  const auto A = copy_to<Device>(random_bsr(5, 4, 3, 4, 1));  // 15 x 12
  vec x12("x", 12), x13("x", 13), y15("y", 15), y14("y", 14);
  expect_structure_error([&] { bsr_spmv<double, Device>(1.0, A, x13, 0.0, y15); }, {"13", "12"});
  expect_structure_error([&] { bsr_spmv<double, Device>(1.0, A, x12, 0.0, y14); }, {"14", "15x12"});
  const auto square = copy_to<Device>(gallery::block_laplace3d(2, 2, 2, 2));
  vec v("v", 16);
  expect_structure_error([&] { bsr_spmv<double, Device>(1.0, square, v, 0.0, v); }, {"distinct"});
  expect_structure_error([&] { BsrOperator<double, Device> op(A); }, {"15x12", "not square"});

  // b = 9 has no kernel: one block row holding one 9x9 block, built by hand.
  Kokkos::View<offset_t*, HostDevice> rm("row_map", 2);
  rm(1) = 1;
  HostBsr::index_type ent("entries", 1);
  HostBsr::values_type val("values", 81);
  const auto big = copy_to<Device>(HostBsr(9, 1, 1, rm, ent, val));
  vec x9("x", 9), y9("y", 9);
  expect_structure_error([&] { bsr_spmv<double, Device>(1.0, big, x9, 0.0, y9); }, {"b = 9"});
  expect_structure_error([&] { BsrOperator<double, Device> op(big); }, {"b = 9"});
}

enum class Method { cg, bicgstab };

/// Solves A x = rhs from x = 0 with `op`; returns the result, x in `x`.
template <class Device>
KrylovResult solve(Method method, const LinearOperator<double, Device>& op, const Preconditioner<double, Device>& M,
                   const HostVec& rhs, HostVec& x) {
  KrylovOptions o;
  o.rel_tol = 1e-10;
  auto db = device_vector<Device>(rhs);
  auto dx = device_vector<Device>(HostVec(rhs.size(), 0.0));
  const KrylovResult r =
      method == Method::cg ? cg<double, Device>(op, M, db, dx, o) : bicgstab<double, Device>(op, M, db, dx, o);
  x = host_vector(dx);
  return r;
}

TYPED_TEST(BsrSpmvOnBackend, BsrOperatorSolvesBlockLaplaceLikeCsrOperator) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int b = 1; b <= 8; ++b) {
    SCOPED_TRACE("b " + std::to_string(b));
    const HostBsr H = gallery::block_laplace3d(7, 6, 5, b);
    const HostCsr P = bsr_to_csr(H);
    const HostVec x_true = random_vector(H.num_rows(), seed + b);
    const HostVec rhs = reference::multiply(P, x_true);
    const BsrOperator<double, Device> bsr_op(copy_to<Device>(H));
    const auto point = to_device<Device>(P);
    const CsrOperator<double, Device> csr_op(point);
    IdentityPreconditioner<double, Device> identity;
    JacobiPreconditioner<double, Device> jacobi(point);
    for (Method method : {Method::cg, Method::bicgstab}) {
      SCOPED_TRACE(method == Method::cg ? "cg" : "bicgstab+jacobi");
      const Preconditioner<double, Device>& M =
          method == Method::cg ? static_cast<const Preconditioner<double, Device>&>(identity) : jacobi;
      HostVec x_bsr, x_csr;
      const KrylovResult r_bsr = solve(method, bsr_op, M, rhs, x_bsr);
      const KrylovResult r_csr = solve(method, csr_op, M, rhs, x_csr);
      EXPECT_EQ(r_bsr.status, KrylovStatus::converged) << to_string(r_bsr.status);
      EXPECT_LT(r_bsr.true_relative_residual, 1e-8);
      EXPECT_LT(test::relative_error(x_bsr, x_true), 1e-7);
      EXPECT_LE(std::abs(r_bsr.iterations - r_csr.iterations), 1)
          << "BSR " << r_bsr.iterations << " vs CSR " << r_csr.iterations << " iterations";
    }
  }
}

}  // namespace
}  // namespace trellis
