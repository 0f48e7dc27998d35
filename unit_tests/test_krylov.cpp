// Krylov drivers (CG, BiCGSTAB split and right, GMRES(m)) with the identity,
// Jacobi and Gauss-Seidel preconditioners, on every backend: against known
// solutions, against a dense reference solve, iteration counts as theory
// says, and every breakdown / bad-input status.
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "dense_solve.hpp"  // reference/
#include "spmv.hpp"         // reference/
#include "test_support.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/preconditioners/gauss_seidel.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"

namespace trellis {
namespace {

using HostVec = std::vector<double>;
using reference::dense_solve;
using reference::multiply;
using test::device_vector;
using test::host_vector;
using test::random_vector;

using Method = test::KrylovMethod;

/// Runs `method` on A x = b from a random (nonzero) start, or from 0.
template <class Device>
KrylovResult run(Method method, const CsrMatrix<double, Device>& A, const Preconditioner<double, Device>& M,
                 const HostVec& b, HostVec& x, const KrylovOptions& o, std::uint64_t seed, bool zero_start = false) {
  CsrOperator<double, Device> op(A);
  auto db = device_vector<Device>(b);
  auto dx = device_vector<Device>(zero_start ? HostVec(b.size(), 0.0) : random_vector(b.size(), seed));
  KrylovResult r;
  switch (method) {
    case Method::cg: r = cg<double, Device>(op, M, db, dx, o); break;
    case Method::bicgstab_split: r = bicgstab<double, Device>(op, M, db, dx, o, BicgstabForm::split); break;
    case Method::bicgstab_right: r = bicgstab<double, Device>(op, M, db, dx, o, BicgstabForm::right); break;
    case Method::gmres: r = gmres<double, Device>(op, M, db, dx, o); break;
  }
  x = host_vector(dx);
  return r;
}

template <class Device>
class KrylovOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(KrylovOnBackend, test::Backends, test::BackendNames);

TYPED_TEST(KrylovOnBackend, EveryMethodFindsTheKnownSolution) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr spd = gallery::laplace3d_7pt(10, 9, 8);
  const HostCsr nonsym = gallery::convection_diffusion3d(10, 9, 8, 20.0);
  for (Method method : {Method::cg, Method::bicgstab_split, Method::bicgstab_right, Method::gmres}) {
    SCOPED_TRACE(name(method));
    const HostCsr& H = method == Method::cg ? spd : nonsym;
    const auto A = to_device<Device>(H);
    const HostVec x_true = random_vector(H.num_rows, seed);
    const HostVec b = multiply(H, x_true);
    IdentityPreconditioner<double, Device> identity;
    JacobiPreconditioner<double, Device> jacobi(A);
    GaussSeidelPreconditioner<double, Device> sgs(A, SweepDirection::symmetric);
    for (const Preconditioner<double, Device>* M : {static_cast<const Preconditioner<double, Device>*>(&identity),
                                                    static_cast<const Preconditioner<double, Device>*>(&jacobi),
                                                    static_cast<const Preconditioner<double, Device>*>(&sgs)}) {
      KrylovOptions o;
      o.rel_tol = 1e-10;
      o.max_iterations = 2000;
      HostVec x;
      const KrylovResult r = run(method, A, *M, b, x, o, seed + 1);
      EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status);
      EXPECT_LT(r.true_relative_residual, 1e-8);
      EXPECT_LT(test::relative_error(x, x_true), 1e-6);
      EXPECT_EQ(r.history.size(), size_t(r.iterations) + 1);
    }
  }
}

TYPED_TEST(KrylovOnBackend, TinyAndHugeRightHandSidesAreSolvedNotFaked) {
  // ||b|| near 1e-170: sqrt((b, b)) underflows to 0, which made every method
  // report "converged, 0 iterations" with x = 0. Near 1e+200 it overflowed.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr spd = gallery::laplace3d_7pt(8, 7, 6);
  const HostCsr nonsym = gallery::convection_diffusion3d(8, 7, 6, 10.0);
  // 1e-310: b subnormal, whose scale 2^1030 is past the largest double
  // (the options' check then met a NaN tolerance and said so wrongly).
  for (const double magnitude : {1e-170, 1e-300, 1e-310, 1e+200}) {
    for (Method method : {Method::cg, Method::bicgstab_split, Method::bicgstab_right, Method::gmres}) {
      SCOPED_TRACE(std::string(name(method)) + " at " + std::to_string(std::log10(magnitude)));
      const HostCsr& H = method == Method::cg ? spd : nonsym;
      const auto A = to_device<Device>(H);
      HostVec x_true = random_vector(H.num_rows, seed);
      for (double& v : x_true) v *= magnitude;
      const HostVec b = multiply(H, x_true);
      JacobiPreconditioner<double, Device> jacobi(A);
      KrylovOptions o;
      o.rel_tol = 1e-10;
      o.max_iterations = 2000;
      HostVec x;
      const KrylovResult r = run(method, A, jacobi, b, x, o, seed, /*zero_start=*/true);  // x0 = 0: scale-free
      EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status);
      EXPECT_GT(r.iterations, 0);
      EXPECT_LT(r.true_relative_residual, 1e-8);
      HostVec x_ref = x_true;  // compared at scale 1 (the error's squares would not fit)
      for (size_t i = 0; i < x.size(); ++i) x[i] /= magnitude, x_ref[i] /= magnitude;
      EXPECT_LT(test::relative_error(x, x_ref), 1e-6);
    }
  }
}

TYPED_TEST(KrylovOnBackend, RightHandSideWhoseNormOverflowsIsSolved) {
  // Entries of 2e307, finite, whose 2-norm (3.7e308) overflows a double:
  // the solve is scaled by the largest entry (with_balanced_rhs), and its x
  // is the x of the same b scaled down to 2e307 * 2^-1000, scaled back.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr H = gallery::laplace3d_7pt(8, 7, 6);
  const auto A = to_device<Device>(H);
  std::mt19937_64 rng(seed);
  HostVec b(H.num_rows), b_small(H.num_rows);
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = (rng() % 2 ? 2e307 : -2e307) * (0.5 + 0.5 * double(rng() % 1000) / 1000);
    b_small[i] = std::ldexp(b[i], -1000);
  }
  ASSERT_TRUE(std::isinf(std::sqrt(std::inner_product(b.begin(), b.end(), b.begin(), 0.0))));
  JacobiPreconditioner<double, Device> jacobi(A);
  KrylovOptions o;
  o.rel_tol = 1e-10;
  o.max_iterations = 2000;
  for (Method method : {Method::cg, Method::bicgstab_split, Method::bicgstab_right, Method::gmres}) {
    SCOPED_TRACE(name(method));
    HostVec x, x_small;
    const KrylovResult r = run(method, A, jacobi, b, x, o, seed, /*zero_start=*/true);
    run(method, A, jacobi, b_small, x_small, o, seed, /*zero_start=*/true);
    EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status);
    EXPECT_GT(r.iterations, 0);
    EXPECT_LT(r.true_relative_residual, 1e-8);
    for (double& v : x) v = std::ldexp(v, -1000);
    EXPECT_LT(test::relative_error(x, x_small), 1e-6);
  }
}

TYPED_TEST(KrylovOnBackend, Norm2NeitherUnderflowsNorOverflows) {
  using Device = TypeParam;
  const typename Device::execution_space space;
  for (const double magnitude : {1e-170, 1e-310, 1.0, 1e+200}) {
    const HostVec v(1000, -magnitude);
    const double n = detail::norm2(space, device_vector<Device>(v));
    EXPECT_NEAR(n / (magnitude * std::sqrt(1000.0)), 1.0, 1e-13) << magnitude;
  }
  EXPECT_EQ(detail::norm2(space, device_vector<Device>(HostVec(10, 0.0))), 0.0);
  EXPECT_TRUE(std::isnan(detail::norm2(space, device_vector<Device>(HostVec{1.0, std::nan(""), 1e-200}))));
}

/// K1^{-1} = diag(1, ..., 1, 1e-13), K2 = I: the split form's K1-residual
/// hides the last equation's residual.
template <class Device>
class BlindLeftPreconditioner : public Preconditioner<double, Device> {
 public:
  using typename Preconditioner<double, Device>::execution_space;
  using typename Preconditioner<double, Device>::vector_type;
  using typename Preconditioner<double, Device>::const_vector_type;

 protected:
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    apply_left_on(space, r, z);
  }
  void apply_left_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    Kokkos::deep_copy(space, z, r);
    const auto last = Kokkos::subview(z, std::make_pair(z.extent(0) - 1, z.extent(0)));
    detail::scale(space, 1e-13, Kokkos::subview(r, std::make_pair(r.extent(0) - 1, r.extent(0))), last);
  }
  void apply_right_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    Kokkos::deep_copy(space, z, r);
  }
};

TYPED_TEST(KrylovOnBackend, ConvergedMeansTheTrueResidualMeetsTheTolerance) {
  // The split form stops on ||K1^{-1} r||; a K1 blind to one equation let it
  // report "converged" with ||b - A x|| / ||b|| far above the tolerance.
  // (Also the Jacobi split solves of NonsymmetricSolveMatchesDenseReference
  // at 1e-12 need the restarts: their K1-residual meets it first.)
  using Device = TypeParam;
  const HostCsr H = gallery::convection_diffusion3d(6, 5, 4, 10.0);
  const auto A = to_device<Device>(H);
  HostVec b(size_t(H.num_rows), 0.0);
  b.back() = 1.0;  // only the hidden equation has a right-hand side...
  b.front() = 1e-6;
  const BlindLeftPreconditioner<Device> M;
  CsrOperator<double, Device> op(A);
  auto dx = device_vector<Device>(HostVec(b.size(), 0.0));
  KrylovOptions o;
  o.rel_tol = 1e-8;
  const KrylovResult r = bicgstab<double, Device>(op, M, device_vector<Device>(b), dx, o, BicgstabForm::split);
  // It was "converged" with a true residual of 2.2e-3; restarted from the true
  // residual with a tighter test for its own, it now gets there.
  EXPECT_TRUE(r.status != KrylovStatus::converged || r.true_relative_residual <= 1e-8)
      << "converged with a true residual of " << r.true_relative_residual;
  EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status);
  EXPECT_LE(r.true_relative_residual, 1e-8);
  // The unbiased forms reach the tolerance in the true residual.
  for (Method method : {Method::bicgstab_right, Method::gmres}) {
    HostVec x;
    const IdentityPreconditioner<double, Device> none;
    const KrylovResult q = run(method, A, none, b, x, o, 5);
    EXPECT_EQ(q.status, KrylovStatus::converged) << name(method);
    EXPECT_LE(q.true_relative_residual, 1e-8) << name(method);
  }
}

TYPED_TEST(KrylovOnBackend, BicgstabWorkspaceIsReusedAndResized) {
  // One workspace across solves of two sizes and both forms: every solve must
  // give what a solve with its own fresh vectors gives, bit for bit (same
  // kernels, same order), so nothing left in the workspace leaks into the next.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  BicgstabWorkspace<double, Device> ws;
  for (int side : {9, 7, 9}) {
    const HostCsr H = gallery::convection_diffusion3d(side, side, side, 20.0);
    const auto A = to_device<Device>(H);
    CsrOperator<double, Device> op(A);
    JacobiPreconditioner<double, Device> jacobi(A);
    const auto db = device_vector<Device>(random_vector(H.num_rows, seed + side));
    for (BicgstabForm form : {BicgstabForm::split, BicgstabForm::right}) {
      KrylovOptions o;
      o.rel_tol = 1e-10;
      auto x_own = device_vector<Device>(HostVec(H.num_rows, 0.0));
      auto x_ws = device_vector<Device>(HostVec(H.num_rows, 0.0));
      const KrylovResult own = bicgstab<double, Device>(op, jacobi, db, x_own, o, form);
      const KrylovResult reused = bicgstab<double, Device>(op, jacobi, db, x_ws, o, form, &ws);
      EXPECT_EQ(ws.r.extent(0), size_t(H.num_rows));
      EXPECT_EQ(own.status, KrylovStatus::converged);
      EXPECT_EQ(reused.iterations, own.iterations);
      EXPECT_EQ(reused.history, own.history);
      EXPECT_EQ(host_vector(x_ws), host_vector(x_own));
    }
  }
}

TYPED_TEST(KrylovOnBackend, NonsymmetricSolveMatchesDenseReference) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  gallery::RandomOptions ro;
  ro.min_per_row = 3;
  ro.max_per_row = 8;
  ro.seed = seed;
  const HostCsr H = gallery::random_sparse(120, ro);
  const HostVec b = random_vector(H.num_rows, seed + 3);
  const HostVec x_ref = dense_solve(H, b);
  const auto A = to_device<Device>(H);
  JacobiPreconditioner<double, Device> jacobi(A);
  for (Method method : {Method::bicgstab_split, Method::bicgstab_right, Method::gmres}) {
    SCOPED_TRACE(name(method));
    KrylovOptions o;
    o.rel_tol = 1e-12;
    HostVec x;
    const KrylovResult r = run(method, A, jacobi, b, x, o, seed + 5);
    EXPECT_TRUE(r.converged()) << to_string(r.status);
    EXPECT_LT(test::relative_error(x, x_ref), 1e-9);
  }
}

/// An n x width GMRES-style basis (LayoutLeft) on Device, column j from
/// v[j n, (j + 1) n).
template <class Device>
Kokkos::View<double**, Kokkos::LayoutLeft, Device> device_basis(const HostVec& v, size_t n, size_t width) {
  Kokkos::View<double**, Kokkos::LayoutLeft, Device> V("V", n, width);
  const auto Vh = Kokkos::create_mirror_view(V);
  for (size_t j = 0; j < width; ++j)
    for (size_t r = 0; r < n; ++r) Vh(r, j) = v[j * n + r];
  Kokkos::deep_copy(V, Vh);
  return V;
}

TYPED_TEST(KrylovOnBackend, ColumnDotsAndSubtractColumnsMatchTheSerialReference) {
  // CGS2's two kernels against plain loops, on every column count up to the
  // basis width; the results start as NaN so an unwritten one fails.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const typename Device::execution_space space;
  const size_t n = 1237, width = 31;
  const HostVec v = random_vector(n * width, seed), w0 = random_vector(n, seed + 1);
  const auto V = device_basis<Device>(v, n, width);
  for (const int ncols : {1, 2, 7, 8, 9, 17, 31}) {
    SCOPED_TRACE("columns " + std::to_string(ncols));
    const auto w = device_vector<Device>(w0);
    const int room = detail::column_dots_room(ncols);
    const auto out = device_vector<Device>(HostVec(size_t(room) + 1, std::nan("")));
    detail::column_dots(space, V, ncols, w, out.data());
    detail::subtract_columns(space, V, ncols, static_cast<const double*>(out.data()), w, out.data() + room);
    const HostVec got = host_vector(out), w_got = host_vector(w);
    HostVec w_ref = w0;
    double sumsq = 0;
    for (int j = 0; j < ncols; ++j) {
      double d = 0;
      for (size_t r = 0; r < n; ++r) d += v[size_t(j) * n + r] * w0[r];
      EXPECT_NEAR(got[size_t(j)], d, 1e-12 * n) << "column " << j;
      for (size_t r = 0; r < n; ++r) w_ref[r] -= v[size_t(j) * n + r] * d;
    }
    for (size_t r = 0; r < n; ++r) sumsq += w_ref[r] * w_ref[r];
    EXPECT_LT(test::relative_error(w_got, w_ref), 1e-12);
    EXPECT_NEAR(got[size_t(room)], sumsq, 1e-12 * sumsq);
  }
  {  // the fused form: w -= V h first, then the products with the new w
    const int ncols = 9;
    const HostVec coefficients = random_vector(size_t(ncols), seed + 2);
    const auto h = device_vector<Device>(coefficients);
    const auto w = device_vector<Device>(w0);
    const auto out = device_vector<Device>(HostVec(size_t(detail::column_dots_room(ncols)), std::nan("")));
    detail::column_dots(space, V, ncols, w, out.data(), distributed::Communicator(),
                        static_cast<const double*>(h.data()));
    HostVec w_ref = w0;
    for (int j = 0; j < ncols; ++j)
      for (size_t r = 0; r < n; ++r) w_ref[r] -= v[size_t(j) * n + r] * coefficients[size_t(j)];
    EXPECT_LT(test::relative_error(host_vector(w), w_ref), 1e-12);
    const HostVec got = host_vector(out);
    for (int j = 0; j < ncols; ++j) {
      double d = 0;
      for (size_t r = 0; r < n; ++r) d += v[size_t(j) * n + r] * w_ref[r];
      EXPECT_NEAR(got[size_t(j)], d, 1e-12 * n) << "fused, column " << j;
    }
  }
  const auto w = device_vector<Device>(w0);
  const auto out = device_vector<Device>(HostVec(40, 0.0));
  EXPECT_THROW(detail::column_dots(space, V, 32, w, out.data()), StructureError);
  EXPECT_THROW(detail::column_dots(space, V, 0, w, out.data()), StructureError);
}

TYPED_TEST(KrylovOnBackend, MgsColumnsMatchesTheSerialReference) {
  // MGS with device-resident coefficients against the textbook loop (a dot,
  // then an axpy, per column) on every column count up to the basis width;
  // the results start as NaN so an unwritten one fails.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const typename Device::execution_space space;
  const size_t n = 1237, width = 31;
  // Unit columns, as GMRES's basis has, but not orthogonal. (With raw random
  // columns w grew to 1e10 over 31 projections, and the rounding carried
  // from earlier columns outgrew any per-column bound: a flaky test.)
  HostVec v = random_vector(n * width, seed);
  for (size_t j = 0; j < width; ++j) {
    double norm = 0;
    for (size_t r = 0; r < n; ++r) norm += v[j * n + r] * v[j * n + r];
    for (size_t r = 0; r < n; ++r) v[j * n + r] /= std::sqrt(norm);
  }
  const HostVec w0 = random_vector(n, seed + 1);
  const auto V = device_basis<Device>(v, n, width);
  for (const int ncols : {1, 2, 9, 31}) {
    SCOPED_TRACE("columns " + std::to_string(ncols));
    const auto w = device_vector<Device>(w0);
    const auto out = device_vector<Device>(HostVec(size_t(ncols) + 2, std::nan("")));
    detail::mgs_columns(space, V, ncols, w, out.data());
    const HostVec got = host_vector(out), w_got = host_vector(w);
    HostVec w_ref = w0;
    for (int j = 0; j < ncols; ++j) {  // errors relative to sum |v w|, the scale of the dot's rounding
      double d = 0, magnitude = 0;
      for (size_t r = 0; r < n; ++r) {
        d += v[size_t(j) * n + r] * w_ref[r];
        magnitude += std::abs(v[size_t(j) * n + r] * w_ref[r]);
      }
      EXPECT_NEAR(got[size_t(j)], d, 1e-13 * magnitude) << "column " << j;
      for (size_t r = 0; r < n; ++r) w_ref[r] -= v[size_t(j) * n + r] * d;
    }
    double sumsq = 0, sumsq_got = 0;
    for (size_t r = 0; r < n; ++r) sumsq += w_ref[r] * w_ref[r], sumsq_got += w_got[r] * w_got[r];
    EXPECT_LT(test::relative_error(w_got, w_ref), 1e-12);
    // (w, w) of the vector the kernel wrote, to the rounding of a positive
    // sum; against the reference as far as w itself agrees (2 x 1e-12).
    EXPECT_NEAR(got[size_t(ncols)], sumsq_got, 1e-12 * sumsq_got);
    EXPECT_NEAR(got[size_t(ncols)], sumsq, 2.5e-12 * sumsq);
    EXPECT_TRUE(std::isnan(got[size_t(ncols) + 1])) << "written past the (w, w) slot";
  }
  const auto w = device_vector<Device>(w0);
  const auto out = device_vector<Device>(HostVec(40, 0.0));
  EXPECT_THROW(detail::mgs_columns(space, V, 32, w, out.data()), StructureError);
  EXPECT_THROW(detail::mgs_columns(space, V, 0, w, out.data()), StructureError);
}

TYPED_TEST(KrylovOnBackend, CombineColumnsMatchesTheSerialReference) {
  // GMRES's solution update w = V(:, 0:k) y against a plain loop; w starts
  // as NaN so an unwritten row fails, and k = 0 gives zeros.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const typename Device::execution_space space;
  const size_t n = 1031, width = 31;
  const HostVec v = random_vector(n * width, seed), y = random_vector(width, seed + 1);
  const auto V = device_basis<Device>(v, n, width);
  const auto c = device_vector<Device>(y);
  for (const int ncols : {0, 1, 13, 31}) {
    SCOPED_TRACE("columns " + std::to_string(ncols));
    const auto w = device_vector<Device>(HostVec(n, std::nan("")));
    detail::combine_columns(space, V, ncols, static_cast<const double*>(c.data()), w);
    HostVec w_ref(n, 0.0);
    for (int j = 0; j < ncols; ++j)
      for (size_t r = 0; r < n; ++r) w_ref[r] += y[size_t(j)] * v[size_t(j) * n + r];
    const HostVec got = host_vector(w);
    for (size_t r = 0; r < n; ++r) ASSERT_NEAR(got[r], w_ref[r], 1e-13 * (1 + std::abs(w_ref[r]))) << "row " << r;
  }
  const auto w = device_vector<Device>(HostVec(n, 0.0));
  EXPECT_THROW(detail::combine_columns(space, V, 32, static_cast<const double*>(c.data()), w), StructureError);
}

TYPED_TEST(KrylovOnBackend, GmresOrthogonalizationsAgree) {
  // CGS2, MGS and the BLAS-style MGS span the same Krylov space: the same
  // iterations (within one, rounding) and the same solution, restarted or not, on a
  // nonsymmetric problem; with a restart longer than the basis can stay
  // orthogonal in one pass of classical Gram-Schmidt.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr H = gallery::convection_diffusion2d(40, 40, 20.0);
  const auto A = to_device<Device>(H);
  const HostVec x_true = random_vector(H.num_rows, seed);
  const HostVec b = multiply(H, x_true);
  IdentityPreconditioner<double, Device> identity;
  for (const int restart : {10, 120}) {
    SCOPED_TRACE("restart " + std::to_string(restart));
    KrylovOptions o;
    o.restart = restart;
    o.max_iterations = 5000;
    o.rel_tol = 1e-10;
    HostVec x_mgs;
    o.orthogonalization = GmresOrthogonalization::mgs;
    const KrylovResult mgs = run(Method::gmres, A, identity, b, x_mgs, o, seed + 1);
    EXPECT_TRUE(mgs.converged()) << to_string(mgs.status);
    EXPECT_LT(test::relative_error(x_mgs, x_true), 1e-6);
    for (const auto other : {GmresOrthogonalization::cgs2, GmresOrthogonalization::mgs_blas}) {
      SCOPED_TRACE(to_string(other));
      HostVec x;
      o.orthogonalization = other;
      const KrylovResult r = run(Method::gmres, A, identity, b, x, o, seed + 1);
      EXPECT_TRUE(r.converged()) << to_string(r.status);
      EXPECT_NEAR(r.iterations, mgs.iterations, 1 + mgs.iterations / 100);
      EXPECT_LT(r.true_relative_residual, 1e-9);
      EXPECT_LT(test::relative_error(x, x_mgs), 1e-6);
    }
  }
}

TYPED_TEST(KrylovOnBackend, GaussSeidelNeedsFewerIterationsThanJacobi) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr H = gallery::laplace2d_5pt(40, 40);
  const auto A = to_device<Device>(H);
  const HostVec b = random_vector(H.num_rows, seed);
  IdentityPreconditioner<double, Device> identity;
  JacobiPreconditioner<double, Device> jacobi(A);
  GaussSeidelPreconditioner<double, Device> sgs(A, SweepDirection::symmetric);
  KrylovOptions o;
  HostVec x;
  const int none = run(Method::cg, A, identity, b, x, o, seed).iterations;
  const int jac = run(Method::cg, A, jacobi, b, x, o, seed).iterations;
  const int gs = run(Method::cg, A, sgs, b, x, o, seed).iterations;
  EXPECT_LT(gs, jac);
  EXPECT_LE(jac, none);
  EXPECT_LT(gs * 3, none * 2) << "SGS-CG should need clearly fewer iterations than plain CG";
  const int gm_jac = run(Method::gmres, A, jacobi, b, x, o, seed).iterations;
  const int gm_gs = run(Method::gmres, A, sgs, b, x, o, seed).iterations;
  EXPECT_LT(gm_gs, gm_jac);
}

TYPED_TEST(KrylovOnBackend, RestartedGmresStillConverges) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr H = gallery::convection_diffusion2d(30, 30, 5.0);
  const auto A = to_device<Device>(H);
  const HostVec x_true = random_vector(H.num_rows, seed);
  const HostVec b = multiply(H, x_true);
  IdentityPreconditioner<double, Device> identity;
  KrylovOptions o;
  o.restart = 5;
  o.max_iterations = 20000;
  o.rel_tol = 1e-9;
  HostVec x;
  const KrylovResult r = run(Method::gmres, A, identity, b, x, o, seed + 1);
  EXPECT_TRUE(r.converged()) << to_string(r.status);
  EXPECT_GT(r.iterations, 5) << "the test must cross a restart";
  EXPECT_LT(r.true_relative_residual, 1e-8);
}

TYPED_TEST(KrylovOnBackend, IterationLimitIsReportedNotConverged) {
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(30, 30);
  const auto A = to_device<Device>(H);
  const HostVec b = random_vector(H.num_rows, 7);
  IdentityPreconditioner<double, Device> identity;
  KrylovOptions o;
  o.max_iterations = 3;
  for (Method method : {Method::cg, Method::bicgstab_split, Method::gmres}) {
    SCOPED_TRACE(name(method));
    HostVec x;
    const KrylovResult r = run(method, A, identity, b, x, o, 1);
    EXPECT_EQ(r.status, KrylovStatus::max_iterations);
    EXPECT_EQ(r.iterations, 3);
    EXPECT_GT(r.true_relative_residual, 1e-3);
  }
}

TYPED_TEST(KrylovOnBackend, NanInputStopsWithNonFiniteStatus) {
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(12, 12);
  const auto A = to_device<Device>(H);
  HostVec b = random_vector(H.num_rows, 3);
  b[17] = std::numeric_limits<double>::quiet_NaN();
  IdentityPreconditioner<double, Device> identity;
  for (Method method : {Method::cg, Method::bicgstab_split, Method::bicgstab_right, Method::gmres}) {
    SCOPED_TRACE(name(method));
    HostVec x;
    const KrylovResult r = run(method, A, identity, b, x, KrylovOptions{}, 1);
    EXPECT_EQ(r.status, KrylovStatus::non_finite) << to_string(r.status);
  }
}

TYPED_TEST(KrylovOnBackend, BreakdownsAreNamed) {
  using Device = TypeParam;
  IdentityPreconditioner<double, Device> identity;
  KrylovOptions o;
  o.max_breakdown_restarts = 0;  // the breakdown itself, not its recovery
  HostVec x;
  {
    // CG on an indefinite matrix diag(1, -1) with b = (1, 1), x0 = 0:
    // p = r = b, (p, A p) = 1 - 1 = 0.
    const HostCsr H = csr_from_triplets(2, 2, {0, 1}, {0, 1}, {1.0, -1.0});
    CsrOperator<double, Device> op(to_device<Device>(H));
    auto db = device_vector<Device>({1.0, 1.0});
    auto dx = device_vector<Device>({0.0, 0.0});
    EXPECT_EQ((cg<double, Device>(op, identity, db, dx, o).status), KrylovStatus::breakdown_vr);
  }
  // BiCGSTAB, both forms. The kernels of an iteration run before the host
  // sees its inner products, so each case also checks that the step the
  // breakdown cuts short left x as it was (x0 = (0.5, 0.25), one iteration).
  for (BicgstabForm form : {BicgstabForm::split, BicgstabForm::right}) {
    SCOPED_TRACE(form == BicgstabForm::split ? "split" : "right");
    struct Case {
      const char* what;
      HostCsr A;
      KrylovStatus expected;
    };
    const Case cases[] = {
        // The rotation [[0, 1], [-1, 0]], b = (1, 0): v = A p = (0, -1) is orthogonal to r0^ = (1, 0).
        {"(v, r0^) = 0", csr_from_triplets(2, 2, {0, 1}, {1, 0}, {1.0, -1.0}), KrylovStatus::breakdown_vr},
        // [[1, 1], [-1, 0]], b = (1, 0): alpha = 1, s = (0, 1), t = A s = (1, 0) is orthogonal to s.
        {"(t, s) = 0", csr_from_triplets(2, 2, {0, 0, 1}, {0, 1, 0}, {1.0, 1.0, -1.0}), KrylovStatus::breakdown_omega},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.what);
      CsrOperator<double, Device> op(to_device<Device>(c.A));
      // b = A x0 + (1, 0): the residual at x0 is (1, 0), as in the comments above.
      const HostVec x0{0.5, 0.25};
      HostVec b = multiply(c.A, x0);
      b[0] += 1.0;
      auto db = device_vector<Device>(b);
      auto dx = device_vector<Device>(x0);
      const KrylovResult r = bicgstab<double, Device>(op, identity, db, dx, o, form);
      EXPECT_EQ(r.status, c.expected) << to_string(r.status);
      EXPECT_EQ(host_vector(dx), x0) << "x changed by a step the breakdown rejected";
    }
  }
}

TYPED_TEST(KrylovOnBackend, BicgstabRecoversFromABreakdownByRestarting) {
  // diag(1, -1, 2, -2, ...), b = 1, x0 = 0: (A r0, r0^) = 0 exactly for
  // r0^ = r0, a breakdown at the first step. The restart takes a
  // pseudo-random shadow residual (r0^ = r has just failed) and converges.
  using Device = TypeParam;
  const int n = 40;
  std::vector<ordinal_t> idx(n);
  HostVec d(n);
  for (int i = 0; i < n; ++i) idx[i] = i, d[i] = (i % 2 ? -1.0 : 1.0) * (1 + i / 2);
  const HostCsr H = csr_from_triplets(n, n, idx, idx, d);
  CsrOperator<double, Device> op(to_device<Device>(H));
  IdentityPreconditioner<double, Device> identity;
  const HostVec b(n, 1.0);
  for (BicgstabForm form : {BicgstabForm::split, BicgstabForm::right}) {
    SCOPED_TRACE(form == BicgstabForm::split ? "split" : "right");
    auto db = device_vector<Device>(b);
    auto dx = device_vector<Device>(HostVec(n, 0.0));
    KrylovOptions o;
    o.max_breakdown_restarts = 0;
    EXPECT_EQ((bicgstab<double, Device>(op, identity, db, dx, o, form).status), KrylovStatus::breakdown_vr);
    o.max_breakdown_restarts = 3;
    const KrylovResult r = bicgstab<double, Device>(op, identity, db, dx, o, form);
    ASSERT_TRUE(r.converged()) << to_string(r.status);
    ASSERT_GE(r.restarts.size(), 1u);
    EXPECT_EQ(r.restarts[0].iteration, 0);
    EXPECT_EQ(r.restarts[0].reason, KrylovStatus::breakdown_vr);
    const HostVec x = host_vector(dx);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(x[i], 1.0 / d[i], 1e-7) << i;
  }
}

TYPED_TEST(KrylovOnBackend, BicgstabRestartsAreBounded) {
  // The rotation [[0, 1], [-1, 0]]: omega = (A s, s) / (A s, A s) = 0 at
  // every step whatever the shadow residual. The restarts run out and the
  // breakdown is named, each restart listed.
  using Device = TypeParam;
  const HostCsr H = csr_from_triplets(2, 2, {0, 1}, {1, 0}, {1.0, -1.0});
  CsrOperator<double, Device> op(to_device<Device>(H));
  IdentityPreconditioner<double, Device> identity;
  auto db = device_vector<Device>({1.0, 0.5});
  auto dx = device_vector<Device>({0.0, 0.0});
  KrylovOptions o;
  o.max_breakdown_restarts = 4;
  const KrylovResult r = bicgstab<double, Device>(op, identity, db, dx, o, BicgstabForm::right);
  EXPECT_FALSE(r.converged());
  EXPECT_EQ(r.restarts.size(), 4u);
  for (double v : host_vector(dx)) EXPECT_TRUE(std::isfinite(v));
}

TYPED_TEST(KrylovOnBackend, PlainViewsNeedNoTemplateArguments) {
  // What a user writes: Views of double, no explicit template arguments.
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(8, 8);
  CsrOperator<double, Device> op(to_device<Device>(H));
  IdentityPreconditioner<double, Device> M;
  Kokkos::View<double*, Device> b("b", size_t(H.num_rows)), x("x", size_t(H.num_rows));
  Kokkos::deep_copy(b, 1.0);
  EXPECT_TRUE(bicgstab(op, M, b, x).converged());
  Kokkos::deep_copy(x, 0.0);
  EXPECT_TRUE(gmres(op, M, b, x).converged());
  Kokkos::deep_copy(x, 0.0);
  EXPECT_TRUE(cg(op, M, b, x).converged());
  Kokkos::deep_copy(x, 0.0);
  EXPECT_TRUE(bicgstab(typename Device::execution_space(), op, M, b, x).converged());
}

TYPED_TEST(KrylovOnBackend, BicgstabStopsAtAHalfStepThatConverges) {
  // A = 2 I: alpha = 1/2 makes s = r - alpha A r = 0 in the first half step,
  // so the iteration ends there with x = x0 + r0 / 2 = A^{-1} b.
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int n = 300;
  std::vector<ordinal_t> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  const HostCsr H = csr_from_triplets(n, n, idx, idx, HostVec(n, 2.0));
  CsrOperator<double, Device> op(to_device<Device>(H));
  IdentityPreconditioner<double, Device> identity;
  const HostVec b = random_vector(n, seed);
  for (BicgstabForm form : {BicgstabForm::split, BicgstabForm::right}) {
    SCOPED_TRACE(form == BicgstabForm::split ? "split" : "right");
    auto db = device_vector<Device>(b);
    auto dx = device_vector<Device>(random_vector(n, seed + 1));
    const KrylovResult r = bicgstab<double, Device>(op, identity, db, dx, KrylovOptions{}, form);
    EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status);
    EXPECT_EQ(r.iterations, 1);
    ASSERT_EQ(r.history.size(), 2u);
    EXPECT_LT(r.history[1], 1e-14);
    const HostVec x = host_vector(dx);
    for (int i = 0; i < n; ++i) ASSERT_NEAR(x[i], b[i] / 2, 1e-14 * (1 + std::abs(b[i]))) << "row " << i;
  }
}

TYPED_TEST(KrylovOnBackend, BadArgumentsAreRejectedWithNames) {
  using Device = TypeParam;
  const auto A = to_device<Device>(gallery::laplace2d_5pt(5, 5));
  CsrOperator<double, Device> op(A);
  IdentityPreconditioner<double, Device> identity;
  Kokkos::View<double*, Device> b("b", 25), x("x", 24);
  EXPECT_THROW((gmres<double, Device>(op, identity, b, x)), StructureError);
  EXPECT_THROW((cg<double, Device>(op, identity, b, b)), StructureError);
  Kokkos::View<double*, Device> x25("x", 25);
  KrylovOptions o;
  o.restart = 0;
  EXPECT_THROW((gmres<double, Device>(op, identity, b, x25, o)), InputError);
  const HostCsr zero_diag = csr_from_triplets(2, 2, {0, 1, 1}, {1, 0, 1}, {1.0, 1.0, 0.0});
  try {
    JacobiPreconditioner<double, Device> bad(to_device<Device>(zero_diag));
    FAIL() << "no PivotError";
  } catch (const PivotError& e) {
    EXPECT_NE(std::string(e.what()).find("Jacobi"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace trellis
