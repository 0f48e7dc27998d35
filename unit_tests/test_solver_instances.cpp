// The solver layer on an explicit execution-space instance, on every backend:
// a Krylov solve queued on an instance (its own stream on CUDA and HIP) gives
// the same iterations, history and solution bits as on the default instance,
// for every driver and operator; and the vector operations written in place
// of KokkosBlas (which takes no instance in Kokkos Kernels 3.4) reproduce it.
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_scal.hpp>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "test_support.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"

namespace trellis {
namespace {

using HostVec = std::vector<double>;
using test::device_vector;
using test::host_vector;
using test::random_vector;

using test::OwnInstance;

bool same_bits(const HostVec& a, const HostVec& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

using Method = test::KrylovMethod;

/// One solve of A x = b from x0, on the default instance (space == nullptr)
/// or on *space; x returned in x.
template <class Device>
KrylovResult solve(const typename Device::execution_space* space, Method method,
                   const LinearOperator<double, Device>& A, const Preconditioner<double, Device>& M, const HostVec& b,
                   const HostVec& x0, HostVec& x) {
  KrylovOptions o;
  o.rel_tol = 1e-10;
  o.restart = 20;
  const auto db = device_vector<Device>(b);
  const auto dx = device_vector<Device>(x0);
  KrylovResult r;
  const auto form = method == Method::bicgstab_split ? BicgstabForm::split : BicgstabForm::right;
  if (space) {
    switch (method) {
      case Method::cg: r = cg<double, Device>(*space, A, M, db, dx, o); break;
      case Method::bicgstab_split:
      case Method::bicgstab_right: r = bicgstab<double, Device>(*space, A, M, db, dx, o, form); break;
      case Method::gmres: r = gmres<double, Device>(*space, A, M, db, dx, o); break;
    }
    space->fence();
  } else {
    switch (method) {
      case Method::cg: r = cg<double, Device>(A, M, db, dx, o); break;
      case Method::bicgstab_split:
      case Method::bicgstab_right: r = bicgstab<double, Device>(A, M, db, dx, o, form); break;
      case Method::gmres: r = gmres<double, Device>(A, M, db, dx, o); break;
    }
  }
  x = host_vector(dx);
  return r;
}

template <class Device>
void expect_same_solve(const LinearOperator<double, Device>& A, const Preconditioner<double, Device>& M, Method method,
                       const HostVec& b, const HostVec& x0) {
  SCOPED_TRACE(name(method));
  const OwnInstance<typename Device::execution_space> own;
  HostVec x_default, x_instance;
  const KrylovResult on_default = solve<Device>(nullptr, method, A, M, b, x0, x_default);
  const KrylovResult on_instance = solve<Device>(&own.get(), method, A, M, b, x0, x_instance);
  EXPECT_EQ(on_default.status, KrylovStatus::converged) << to_string(on_default.status);
  EXPECT_EQ(on_instance.status, on_default.status) << to_string(on_instance.status);
  EXPECT_EQ(on_instance.iterations, on_default.iterations);
  EXPECT_TRUE(same_bits(on_instance.history, on_default.history)) << "residual histories differ";
  EXPECT_TRUE(same_bits(x_instance, x_default)) << "solutions differ in their bits";
  EXPECT_EQ(on_instance.true_relative_residual, on_default.true_relative_residual);
}

template <class Device>
class SolverInstances : public ::testing::Test {};
TYPED_TEST_SUITE(SolverInstances, test::Backends, test::BackendNames);

TYPED_TEST(SolverInstances, KrylovSolveOnAnInstanceMatchesTheDefaultInstanceBitForBit) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr spd = gallery::laplace3d_7pt(12, 11, 10);
  const HostCsr nonsym = gallery::convection_diffusion3d(12, 11, 10, 20.0);
  for (const HostCsr* H : {&spd, &nonsym}) {
    const auto A = to_device<Device>(*H);
    const CsrOperator<double, Device> op(A);
    const JacobiPreconditioner<double, Device> jacobi(A);
    const HostVec b = random_vector(H->num_rows, seed);
    const HostVec x0 = random_vector(H->num_rows, seed + 1);
    for (Method m : {Method::cg, Method::bicgstab_split, Method::bicgstab_right, Method::gmres})
      if (m != Method::cg || H == &spd) expect_same_solve<Device>(op, jacobi, m, b, x0);
  }
}

TYPED_TEST(SolverInstances, BsrOperatorSolveOnAnInstanceMatchesTheDefaultInstanceBitForBit) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostBsr H = gallery::block_laplace3d(8, 7, 6, 3);
  const BsrOperator<double, Device> op(copy_to<Device>(H));
  const IdentityPreconditioner<double, Device> identity;
  const HostVec b = random_vector(H.num_rows(), seed);
  const HostVec x0(H.num_rows(), 0.0);
  expect_same_solve<Device>(op, identity, Method::bicgstab_split, b, x0);
  expect_same_solve<Device>(op, identity, Method::cg, b, x0);
}

TYPED_TEST(SolverInstances, ImplementationsKeepBothApplyOverloadsVisible) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCsr H = gallery::laplace3d_7pt(6, 5, 4);
  const auto A = to_device<Device>(H);
  const CsrOperator<double, Device> op(A);
  const JacobiPreconditioner<double, Device> jacobi(A);
  const OwnInstance<typename Device::execution_space> own;
  const auto r = device_vector<Device>(random_vector(H.num_rows, seed));
  const auto z1 = device_vector<Device>(HostVec(H.num_rows, 0.0));
  const auto z2 = device_vector<Device>(HostVec(H.num_rows, 0.0));
  // Called on the derived types: apply_on overrides hide no apply overload.
  op.apply(own.get(), r, z1);
  own.get().fence();
  op.apply(r, z2);
  EXPECT_TRUE(same_bits(host_vector(z1), host_vector(z2)));
  jacobi.apply(own.get(), r, z1);
  own.get().fence();
  jacobi.apply(r, z2);
  EXPECT_TRUE(same_bits(host_vector(z1), host_vector(z2)));
  jacobi.apply_left(own.get(), r, z1);  // K1 = M
  own.get().fence();
  EXPECT_TRUE(same_bits(host_vector(z1), host_vector(z2)));
  jacobi.apply_right(own.get(), r, z1);  // K2 = I
  own.get().fence();
  EXPECT_TRUE(same_bits(host_vector(z1), host_vector(r)));
}

TYPED_TEST(SolverInstances, VectorOpsOnAnInstanceMatchKokkosBlas) {
  using Device = TypeParam;
  using Exec = typename Device::execution_space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const size_t n = 10007;
  const HostVec hx = random_vector(n, seed), hy = random_vector(n, seed + 1);
  const auto x = device_vector<Device>(hx);
  const OwnInstance<Exec> own;
  // dot: the same Kokkos reduction as KokkosBlas::dot; on the host backends
  // Kokkos partitions and joins both alike, on GPUs the block size may differ.
  const double ours = detail::dot(own.get(), x, device_vector<Device>(hy));
  const double theirs = KokkosBlas::dot(x, device_vector<Device>(hy));
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible)
    EXPECT_EQ(ours, theirs);
  else
    EXPECT_NEAR(ours, theirs, 1e-12 * std::sqrt(double(n)));
  // axpby: KokkosBlas's expression for each coefficient class; scale: a * x.
  for (double a : {0.0, 1.0, -1.0, 0.37})
    for (double b : {0.0, 1.0, -1.0, -2.5}) {
      SCOPED_TRACE("a " + std::to_string(a) + ", b " + std::to_string(b));
      const auto y_ours = device_vector<Device>(hy), y_theirs = device_vector<Device>(hy);
      detail::axpby(own.get(), a, x, b, y_ours);
      own.get().fence();
      KokkosBlas::axpby(a, x, b, y_theirs);
      // Host backends: bit for bit. GPUs: nvcc contracts x + b * y into an
      // FMA in one kernel and not always in the other (b read from a View
      // there), so results may differ in the last bit.
      if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible)
        EXPECT_TRUE(same_bits(host_vector(y_ours), host_vector(y_theirs)));
      else {  // each entry within the rounding of one product and one sum
        const auto o = host_vector(y_ours), t = host_vector(y_theirs);
        for (size_t i = 0; i < n; ++i)
          ASSERT_LE(std::abs(o[i] - t[i]), 4.5e-16 * (std::abs(a * hx[i]) + std::abs(b * hy[i]))) << "entry " << i;
      }
    }
  for (double a : {0.0, 1.0, -1.0, 0.37}) {
    SCOPED_TRACE("scale a " + std::to_string(a));
    const auto y_ours = device_vector<Device>(hy), y_theirs = device_vector<Device>(hy);
    detail::scale(own.get(), a, x, y_ours);
    own.get().fence();
    KokkosBlas::scal(y_theirs, a, x);
    EXPECT_TRUE(same_bits(host_vector(y_ours), host_vector(y_theirs)));
  }
}

}  // namespace
}  // namespace trellis
