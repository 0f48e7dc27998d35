// Gauss-Seidel sweeps on every backend and every triangular-solve algorithm
// against a serial double-precision sweep; in-place form on symmetric
// patterns, two-vector form otherwise, CSC residual form; convergence.
#include <gtest/gtest.h>

#include <KokkosBlas1_nrm2.hpp>
#include <cstring>

#include "gauss_seidel_sweep.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/gauss_seidel/gauss_seidel.hpp"

namespace trellis {
namespace {

using test::device_vector;
using test::host_vector;
using test::random_vector;

template <class Device>
class GaussSeidelOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(GaussSeidelOnBackend, test::Backends, test::BackendNames);

template <class Device>
void check_sweeps(const HostCsr& A, std::uint64_t seed, bool expect_in_place_for_csr) {
  const auto b = random_vector(A.num_rows, seed);
  const auto x0 = random_vector(A.num_rows, seed + 1);
  const auto dA = to_device<Device>(A);
  std::vector<TrsvAlgorithm> algs(std::begin(all_trsv_algorithms), std::end(all_trsv_algorithms));
  algs.push_back(TrsvAlgorithm::automatic);
  for (TrsvAlgorithm a : algs) {
    SCOPED_TRACE(to_string(a));
    GaussSeidel<double, Device> gs(dA, a);
    EXPECT_EQ(gs.in_place(), gs.fused() && expect_in_place_for_csr);
    for (auto dir : {SweepDirection::forward, SweepDirection::backward, SweepDirection::symmetric}) {
      for (int sweeps : {1, 3}) {
        SCOPED_TRACE(std::string(to_string(dir)) + " x" + std::to_string(sweeps));
        auto x = device_vector<Device>(x0);
        test::run_with_watchdog("gauss-seidel", 120, [&] { gs.apply(device_vector<Device>(b), x, dir, sweeps); });
        EXPECT_LT(test::relative_error(host_vector(x), reference::gauss_seidel(A, b, x0, dir, sweeps)), 1e-11);
      }
    }
  }
}

TYPED_TEST(GaussSeidelOnBackend, SymmetricPatternSweepsMatchReferenceInPlace) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  check_sweeps<TypeParam>(gallery::laplace3d_7pt(9, 8, 7), seed, true);
  // Symmetric pattern, nonsymmetric values: still in place.
  check_sweeps<TypeParam>(gallery::convection_diffusion2d(21, 17, 8.0), seed + 1, true);
}

TYPED_TEST(GaussSeidelOnBackend, NonsymmetricPatternSweepsMatchReferenceWithTwoVectors) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  gallery::RandomOptions opt;
  opt.min_per_row = 1;
  opt.max_per_row = 9;
  opt.seed = seed;
  check_sweeps<TypeParam>(gallery::random_sparse(700, opt), seed, false);
}

TYPED_TEST(GaussSeidelOnBackend, SymmetricSweepsReduceTheLaplacianResidual) {
  using Device = TypeParam;
  const HostCsr A = gallery::laplace2d_5pt(24, 24);
  const auto dA = to_device<Device>(A);
  auto b = device_vector<Device>(random_vector(A.num_rows, test::fresh_seed()));
  Kokkos::View<double*, Device> x("x", A.num_rows), r("r", A.num_rows);
  GaussSeidel<double, Device> gs(dA, TrsvAlgorithm::automatic);
  auto residual = [&] {
    Kokkos::deep_copy(r, b);
    KokkosSparse::spmv("N", -1.0, to_kokkos(dA), x, 1.0, r);
    return KokkosBlas::nrm2(r);
  };
  double previous = residual();
  for (int it = 0; it < 5; ++it) {
    gs.apply(b, x, SweepDirection::symmetric, 1);
    const double now = residual();
    EXPECT_LT(now, previous) << "sweep " << it;
    previous = now;
  }
}

TYPED_TEST(GaussSeidelOnBackend, SweepsOnAnExplicitInstanceEqualTheDefaultBitForBit) {
  using Device = TypeParam;
  using Exec = typename Device::execution_space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const test::OwnInstance<Exec> own;  // outlives the smoothers below
  gallery::RandomOptions ropt;
  ropt.min_per_row = 1;
  ropt.max_per_row = 9;
  ropt.seed = seed;
  // In place (symmetric pattern) and with a saved x_k (nonsymmetric pattern).
  for (const HostCsr& A : {gallery::convection_diffusion2d(21, 17, 8.0), gallery::random_sparse(700, ropt)}) {
    const auto dA = to_device<Device>(A);
    const auto b = device_vector<Device>(random_vector(A.num_rows, seed));
    const auto x0 = random_vector(A.num_rows, seed + 1);
    std::vector<TrsvAlgorithm> algs(std::begin(all_trsv_algorithms), std::end(all_trsv_algorithms));
    algs.push_back(TrsvAlgorithm::automatic);
    for (TrsvAlgorithm a : algs) {
      SCOPED_TRACE(to_string(a));
      GaussSeidel<double, Device> on_default(dA, a);
      GaussSeidel<double, Device> on_other(own.get(), dA, a);
      on_other.numeric(own.get(), dA);
      EXPECT_EQ(on_other.in_place(), on_default.in_place());
      auto x1 = device_vector<Device>(x0), x2 = device_vector<Device>(x0);
      on_default.apply(b, x1, SweepDirection::symmetric, 2);
      test::run_with_watchdog("gauss-seidel on an instance", 120, [&] {
        on_other.apply(own.get(), b, x2, SweepDirection::symmetric, 2);
        own.get().fence();
      });
      const auto h1 = host_vector(x1), h2 = host_vector(x2);
      // The fused (CSR) sweeps are deterministic; the CSC residual form
      // accumulates with atomics: equal to rounding only.
      const bool exact = on_default.fused() && is_deterministic(on_default.algorithm(Triangle::lower)) &&
                         is_deterministic(on_default.algorithm(Triangle::upper));
      if (exact)
        EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(double)));
      else
        EXPECT_LT(test::relative_error(h2, h1), 1e-12);
    }
  }
}

TYPED_TEST(GaussSeidelOnBackend, ZeroDiagonalIsReportedWithItsRow) {
  HostCsr A = gallery::laplace2d_5pt(4, 4);
  for (offset_t k = A.row_map(5); k < A.row_map(6); ++k)
    if (A.entries(k) == 5) A.values(k) = 0.0;
  try {
    GaussSeidel<double, TypeParam> gs(to_device<TypeParam>(A));
    FAIL() << "expected PivotError";
  } catch (const PivotError& e) {
    EXPECT_EQ(e.row(), 5) << e.what();
  }
}

}  // namespace
}  // namespace trellis
