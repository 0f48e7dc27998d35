// Global ILU0 against the serial reference, and both ILU0 preconditioners
// (global, domain-decomposition ILDU0) inside the Krylov drivers.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <utility>

#include "ilu0.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/ilu/sync_free_factorization.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/preconditioners/domain_decomposition.hpp"
#include "trellis/solvers/preconditioners/global_ilu0.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"
#include "trellis/solvers/preconditioners/kokkos_kernels_ilu0.hpp"

namespace trellis {
namespace {

template <class Device>
class IluPreconditioners : public ::testing::Test {};
TYPED_TEST_SUITE(IluPreconditioners, test::Backends, test::BackendNames);

using Vec = std::vector<double>;

template <class Device>
void expect_global_ilu0_matches_reference(const HostCsr& A, const std::string& what) {
  SCOPED_TRACE(what);
  const reference::Ilu0Factors ref = reference::ilu0(A);
  const auto on_device = to_device<Device>(A);
  const typename Device::execution_space space;
  if (ref.bad_row >= 0) {
    EXPECT_THROW((GlobalIlu0<double, Device>(A)), PivotError);
    EXPECT_THROW((GlobalIlu0<double, Device>(space, on_device)), PivotError);
    return;
  }
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec r = test::random_vector(size_t(A.num_rows), seed);
  const Vec expected = reference::ilu0_apply(ref, r);
  const auto apply = [&](const GlobalIlu0<double, Device>& ilu) {
    auto z = test::device_vector<Device>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
    ilu.apply(test::device_vector<Device>(r), z);
    return test::host_vector(z);
  };
  for (TrsvAlgorithm a : {TrsvAlgorithm::levelset_csr, TrsvAlgorithm::elmr_value, TrsvAlgorithm::elmc}) {
    const Vec z = apply(GlobalIlu0<double, Device>(A, {}, a));
    EXPECT_LT(test::relative_error(z, expected), 1e-11) << to_string(a);
    // From the matrix on the device: the same factors and solves (elmc's
    // column sums are atomic, in no fixed order).
    const Vec z_device = apply(GlobalIlu0<double, Device>(space, on_device, {}, a));
    if (a == TrsvAlgorithm::elmc)
      EXPECT_LT(test::relative_error(z_device, expected), 1e-11) << to_string(a) << " from the device";
    else
      EXPECT_EQ(z_device, z) << to_string(a) << " from the device";
  }
}

TYPED_TEST(IluPreconditioners, GlobalIlu0MatchesReference) {
  gallery::RandomOptions o;
  o.seed = test::fresh_seed();
  o.max_per_row = 7;
  expect_global_ilu0_matches_reference<TypeParam>(gallery::random_sparse(3000, o),
                                                  "random seed " + std::to_string(o.seed));
  expect_global_ilu0_matches_reference<TypeParam>(gallery::convection_diffusion3d(14, 12, 10), "convdiff3d");
  expect_global_ilu0_matches_reference<TypeParam>(gallery::layered_diffusion3d(12, 12, 12), "layered3d");
  const auto list = test::real_matrices();
  for (const auto& m : list)
    if (m.rows == m.cols && m.rows <= 200000)
      expect_global_ilu0_matches_reference<TypeParam>(io::read_matrix_market(m.path), m.file);
}

TYPED_TEST(IluPreconditioners, KokkosKernelsSolvesOnOurFactorsMatchOurApplication) {
  const HostCsr A = gallery::convection_diffusion3d(12, 11, 10);
  GlobalIlu0<double, TypeParam> ilu(A);
  KokkosKernelsIlu0Preconditioner<double, TypeParam> kk(ilu);
  const Vec r = test::random_vector(size_t(A.num_rows), test::fresh_seed());
  auto rd = test::device_vector<TypeParam>(r);
  auto ours = test::device_vector<TypeParam>(Vec(r.size(), 0.0));
  auto theirs = test::device_vector<TypeParam>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
  ilu.apply(rd, ours);
  kk.apply(rd, theirs);
  EXPECT_LT(test::relative_error(test::host_vector(theirs), test::host_vector(ours)), 1e-12);
  const Vec expected = reference::ilu0_apply(reference::ilu0(A), r);
  EXPECT_LT(test::relative_error(test::host_vector(theirs), expected), 1e-11);
}

/// Tridiagonal, plus a last row and column that couple every row: the last
/// row is longer than a staged row may be.
HostCsr arrow_matrix(ordinal_t n) {
  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  auto add = [&](ordinal_t i, ordinal_t j, double v) { rows.push_back(i), cols.push_back(j), vals.push_back(v); };
  for (ordinal_t i = 0; i < n; ++i) {
    add(i, i, i + 1 < n ? 4.0 : 2.0 * n);
    if (i > 0 && i + 1 < n) add(i, i - 1, -1.0 - 0.001 * i);
    if (i + 2 < n) add(i, i + 1, -1.0);
    if (i + 1 < n) add(i, n - 1, 0.5), add(n - 1, i, -0.25 - 1e-4 * i);
  }
  return csr_from_triplets(n, n, rows, cols, vals);
}

TYPED_TEST(IluPreconditioners, StagedAndLongRowUpdatesMatchTheReference) {
  const HostCsr grid = gallery::convection_diffusion3d(9, 8, 7);
  EXPECT_TRUE((GlobalIlu0<double, TypeParam>(grid).staged_rows()));
  expect_global_ilu0_matches_reference<TypeParam>(grid, "convdiff3d, staged");
  const HostCsr arrow = arrow_matrix(ordinal_t(ilu::detail::staged_row_max) + 100);
  EXPECT_FALSE((GlobalIlu0<double, TypeParam>(arrow).staged_rows()));
  expect_global_ilu0_matches_reference<TypeParam>(arrow, "arrow, a row too long to stage");
}

/// factor_sync_free against factor_by_levels on the same split values: the
/// same factors bit for bit (same row update, same operands; staged or not,
/// on any lane count), twice in a row
/// on one state (the second run waits on the next epoch's flags), outputs
/// poisoned before each run.
template <class Device>
void expect_sync_free_equals_levels(const HostCsr& A, const std::string& what) {
  SCOPED_TRACE(what);
  using Exec = typename Device::execution_space;
  const Exec space;
  ilu::BlockFactors<double, Device> f;
  ViewArena<Device> arena;
  const auto R = copy_to<Device>(as_point_bsr(A));
  const auto diag = ilu::split_whole(space, R, f, arena).diag;
  const ordinal_t n = A.num_rows;
  const auto levels = analyze_levels(CsrMatrix<double, Device>(n, n, f.L_map, f.L_col, f.L_val), Triangle::lower);
  const auto extent = ilu::detail::row_extent(space, f);
  const auto status = ilu::detail::make_pivot_status<Device>(space, n, arena, ViewArena<Device>::kept);
  const Kokkos::View<const ordinal_t*, Device> level_rows = levels.level_rows;
  auto factors = [&] {
    // An explicit list: nvcc cannot iterate a braced list of Views.
    return std::vector<Vec>{test::host_vector(f.L_val), test::host_vector(f.U_val), test::host_vector(f.inv_diag),
                            test::host_vector(f.LD_val)};
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto poison = [&] {
    ilu::split_values(space, R, f, diag);
    Kokkos::deep_copy(f.inv_diag, nan);
    Kokkos::deep_copy(f.LD_val, nan);
  };
  poison();
  const auto by_levels =
      ilu::factor_by_levels<1>(space, f, extent, diag, {}, level_rows,
                               Kokkos::View<const offset_t*, Kokkos::HostSpace>(levels.level_ptr_host), status);
  const auto expected = factors();
  ilu::SyncFreeState<double, Device> state(n, 0);  // u_start: made by factor_sync_free where needed
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    poison();
    ilu::FactorizationOutcome out;
    test::run_with_watchdog("factor_sync_free", 120, [&] {
      out = ilu::factor_sync_free<1>(space, f, extent, diag, {}, level_rows, state, status);
    });
    EXPECT_EQ(out.tiny_row, by_levels.tiny_row);
    EXPECT_EQ(out.non_finite_row, by_levels.non_finite_row);
    if (out.tiny_row >= 0 || out.non_finite_row >= 0) continue;  // no post-processing: the outcomes are the result
    const auto got = factors();
    const char* names[] = {"L", "U'", "D^-1", "L D"};
    for (size_t a = 0; a < got.size(); ++a) {
      ASSERT_EQ(got[a].size(), expected[a].size());
      size_t differ = 0, first = 0;
      for (size_t k = 0; k < got[a].size(); ++k)
        if (!(got[a][k] == expected[a][k]) && differ++ == 0) first = k;
      EXPECT_EQ(differ, 0u) << names[a] << ": first difference at " << first;
    }
  }
}

TYPED_TEST(IluPreconditioners, SyncFreeFactorizationEqualsLevelByLevel) {
  using Exec = typename TypeParam::execution_space;
  const bool gpu = !detail::is_host_space<Exec>();
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  gallery::RandomOptions o;
  o.seed = seed;
  o.max_per_row = 7;
  expect_sync_free_equals_levels<TypeParam>(gallery::random_sparse(3000, o), "random");
  expect_sync_free_equals_levels<TypeParam>(gallery::convection_diffusion3d(14, 12, 10), "convdiff3d");
  expect_sync_free_equals_levels<TypeParam>(arrow_matrix(ordinal_t(ilu::detail::staged_row_max) + 100),
                                            "arrow, a row too long to stage");
  // Rows waiting on rows: a chain (a level a row), and more rows than a GPU
  // holds at once. Smaller on host backends, which factor a level at a time
  // outside this test (their threads spin here, slowly on a loaded machine).
  expect_sync_free_equals_levels<TypeParam>(
      gallery::random_lower_triangular(gpu ? 50000 : 3000, gallery::TriangularShape::long_chain, seed), "long chain");
  expect_sync_free_equals_levels<TypeParam>(
      gallery::random_lower_triangular(gpu ? 200000 : 10000, gallery::TriangularShape::sparse_rows, seed), "many rows");
  for (const auto& m : test::real_matrices())
    if (m.rows == m.cols && m.rows <= (gpu ? 200000 : 5000))
      expect_sync_free_equals_levels<TypeParam>(io::read_matrix_market(m.path), m.file);
  // An input value with the bits of the "unpublished" sentinel, where the
  // values are the rows' ready flags: it is published as a quiet NaN, and
  // the factorization ends (it must not wait on it forever) with the same
  // non-finite pivot as the level-by-level one.
  HostCsr poisoned = gallery::laplace2d_5pt(12, 12);
  const ordinal_t r = 20;
  const offset_t last = poisoned.row_map(r + 1) - 1;  // row r's last entry, in U
  ASSERT_GT(poisoned.entries(last), r);
  detail::ScalarBits<double> sentinel;
  sentinel.bits = detail::Unpublished<double>::bits;
  poisoned.values(last) = sentinel.value;
  expect_sync_free_equals_levels<TypeParam>(poisoned, "a value with the sentinel's bits");
}

/// The split before a sync-free factorization that hands rows over through
/// their values: every U value and every inverse diagonal holds the
/// sentinel (the factorization's ready flags; a stale value there would be
/// read as final), U's starting values are in u_start, also for a matrix
/// without U (a lower triangle) and on a second split of the same factors.
TYPED_TEST(IluPreconditioners, SplitForValueFlagsUnpublishesEveryRow) {
  using Device = TypeParam;
  const typename Device::execution_space space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  gallery::RandomOptions o;
  o.seed = seed;
  o.max_per_row = 5;
  const std::pair<HostCsr, const char*> cases[] = {
      {gallery::random_sparse(400, o), "random"},
      {gallery::random_lower_triangular(400, gallery::TriangularShape::sparse_rows, seed), "lower triangle, no U"}};
  for (const auto& [A, what] : cases) {
    SCOPED_TRACE(what);
    ilu::BlockFactors<double, Device> f;
    ViewArena<Device> arena;
    const auto R = copy_to<Device>(as_point_bsr(A));
    const auto diag = ilu::split_whole(space, R, f, arena).diag;
    const Kokkos::View<double*, Device> u_start("u_start", f.U_val.extent(0));
    ilu::split_values(space, R, f, diag);
    const auto expected_starts = test::host_vector(f.U_val);
    for (int split = 0; split < 2; ++split) {
      Kokkos::deep_copy(f.inv_diag, 1.0);  // a finished factorization's values
      Kokkos::deep_copy(f.U_val, 1.0);
      ilu::split_values(space, R, f, diag, {}, true, u_start);
      for (const auto& values : {test::host_vector(f.U_val), test::host_vector(f.inv_diag)}) {
        size_t published = 0;
        for (double v : values) published += !detail::is_unpublished(v);
        EXPECT_EQ(published, 0u) << "split " << split;
      }
      EXPECT_EQ(test::host_vector(u_start), expected_starts) << "split " << split;
    }
    EXPECT_EQ(f.inv_diag.extent(0), size_t(A.num_rows));
  }
}

TYPED_TEST(IluPreconditioners, GlobalIlu0FromTheDeviceNamesBadInput) {
  const typename TypeParam::execution_space space;
  const HostCsr wide = csr_from_triplets(2, 3, {0, 1}, {0, 2}, {1.0, 1.0});
  EXPECT_HAS(test::error_of<StructureError>(
                 [&] { const GlobalIlu0<double, TypeParam> ilu(space, to_device<TypeParam>(wide)); }),
             "not square");
  const HostCsr empty = csr_from_triplets(0, 0, {}, {}, {});
  EXPECT_HAS(test::error_of<StructureError>(
                 [&] { const GlobalIlu0<double, TypeParam> ilu(space, to_device<TypeParam>(empty)); }),
             "empty matrix");
  HostCsr unsorted = gallery::laplace2d_5pt(4, 4);
  std::swap(unsorted.entries(unsorted.row_map(5)), unsorted.entries(unsorted.row_map(5) + 2));
  EXPECT_HAS(test::error_of<StructureError>(
                 [&] { const GlobalIlu0<double, TypeParam> ilu(space, to_device<TypeParam>(unsorted)); }),
             "ILU0");
}

TYPED_TEST(IluPreconditioners, GlobalIlu0NamesTheZeroPivotRow) {
  HostCsr A = gallery::laplace2d_5pt(10, 10);
  for (offset_t q = A.row_map(42); q < A.row_map(43); ++q) A.values(q) = 0;
  try {
    GlobalIlu0<double, TypeParam> ilu(A);
    FAIL() << "no PivotError";
  } catch (const PivotError& e) {
    EXPECT_EQ(e.row(), 42) << e.what();
  }
  // A subnormal pivot: its reciprocal is Inf (the factors went non-finite
  // and the solve ended "non-finite" naming no row).
  for (offset_t q = A.row_map(42); q < A.row_map(43); ++q) A.values(q) = A.entries(q) == 42 ? 1e-320 : 0;
  try {
    GlobalIlu0<double, TypeParam> ilu(A);
    FAIL() << "no PivotError";
  } catch (const PivotError& e) {
    EXPECT_EQ(e.row(), 42) << e.what();
    EXPECT_NE(std::string(e.what()).find("too small to invert"), std::string::npos) << e.what();
  }
}

/// Solves A x = b (b = A * random) in the DD preconditioner's reordered
/// numbering and returns the iterations; checks the solution in the original one.
template <class Device>
int dd_bicgstab_iterations(const HostBsr& A, const DdOptions& dd_opt, BicgstabForm form, DdApply variant) {
  auto dd = std::make_shared<const DomainDecompositionIlu<double, Device>>(A, dd_opt);
  BsrOperator<double, Device> op(dd->reordered_matrix());
  DdPreconditioner<double, Device> M(dd, variant, true);
  const size_t n = size_t(A.num_rows());
  const Vec x_true = test::random_vector(n, test::fresh_seed());
  BsrOperator<double, Device> original(copy_to<Device>(A));
  auto xt = test::device_vector<Device>(x_true), b = test::device_vector<Device>(Vec(n, 0.0));
  original.apply(xt, b);
  auto br = test::device_vector<Device>(Vec(n, 0.0)), xr = test::device_vector<Device>(Vec(n, 0.0));
  dd->to_reordered(b, br);
  KrylovOptions o;
  o.rel_tol = 1e-10;
  o.max_iterations = 2000;
  const KrylovResult res = bicgstab(op, M, Kokkos::View<const double*, Device>(br), xr, o, form);
  EXPECT_TRUE(res.converged()) << to_string(res.status);
  auto x = test::device_vector<Device>(Vec(n, 0.0));
  dd->from_reordered(xr, x);
  EXPECT_LT(test::relative_error(test::host_vector(x), x_true), 1e-6);
  return res.iterations;
}

TYPED_TEST(IluPreconditioners, DdIlduBicgstabSolvesAndBeatsJacobi) {
  const HostBsr A = gallery::block_laplace3d(20, 20, 20, 3);
  DdOptions opt;
  opt.grid = {20, 20, 20};
  const int split = dd_bicgstab_iterations<TypeParam>(A, opt, BicgstabForm::split, DdApply::dag_ec_ILDUO_fused);
  const int right = dd_bicgstab_iterations<TypeParam>(A, opt, BicgstabForm::right, DdApply::dag_vc_ILDUO_fused);
  // Jacobi on the same system for comparison.
  const HostCsr P = bsr_to_csr(A);
  CsrOperator<double, TypeParam> op(copy_to<TypeParam>(P));
  JacobiPreconditioner<double, TypeParam> jacobi(copy_to<TypeParam>(P));
  auto b = test::device_vector<TypeParam>(test::random_vector(size_t(P.num_rows), 3));
  auto x = test::device_vector<TypeParam>(Vec(size_t(P.num_rows), 0.0));
  KrylovOptions o;
  o.rel_tol = 1e-10;
  const int jac = bicgstab(op, jacobi, Kokkos::View<const double*, TypeParam>(b), x, o).iterations;
  EXPECT_LT(split, jac);
  EXPECT_LT(right, jac);
}

TYPED_TEST(IluPreconditioners, LayeredCaseGlobalIlu0BeatsDdWhichBeatsJacobiInGmres) {
  const HostCsr A = gallery::layered_diffusion3d(24, 24, 16, 4.0, 2);
  const auto Ad = copy_to<TypeParam>(A);
  CsrOperator<double, TypeParam> op(Ad);
  auto b = test::device_vector<TypeParam>(test::random_vector(size_t(A.num_rows), 4));
  KrylovOptions o;
  o.rel_tol = 1e-8;
  o.max_iterations = 3000;
  auto iterations = [&](const Preconditioner<double, TypeParam>& M) {
    auto x = test::device_vector<TypeParam>(Vec(size_t(A.num_rows), 0.0));
    const KrylovResult r = gmres(op, M, Kokkos::View<const double*, TypeParam>(b), x, o);
    EXPECT_TRUE(r.converged()) << to_string(r.status);
    EXPECT_LT(r.true_relative_residual, 1e-7);
    return r.iterations;
  };
  GlobalIlu0Preconditioner<double, TypeParam> global(std::make_shared<const GlobalIlu0<double, TypeParam>>(A));
  DdOptions opt;
  opt.subdomain_rows = 512;
  DdPreconditioner<double, TypeParam> dd(std::make_shared<const DomainDecompositionIlu<double, TypeParam>>(A, opt),
                                         DdApply::dag_ec_ILDUO_fused, false);
  JacobiPreconditioner<double, TypeParam> jacobi(Ad);
  const int g = iterations(global), d = iterations(dd), j = iterations(jacobi);
  EXPECT_LE(g, d);
  EXPECT_LT(d, j);
}

}  // namespace
}  // namespace trellis
