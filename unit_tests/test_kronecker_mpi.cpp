// The distributed Kronecker operator and GMRES (seed 001) under mpiexec, on
// 1 to 4 ranks: each rank's rows of y = K x against the explicitly formed
// product, distributed GMRES against a dense solve and the single-process
// run, ranks without rows, and inconsistent layouts named on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <limits>
#include <string>
#include <vector>

#include "dense_solve.hpp"
#include "kronecker.hpp"
#include "spmv.hpp"
#include "test_support.hpp"
#include "trellis/distributed/block_rows.hpp"
#include "trellis/gallery/kronecker_problems.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/kronecker_operator.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/kronecker_stages.hpp"

namespace trellis {
namespace {

using distributed::Communicator;
using Device = DefaultDevice;
using Vec = std::vector<double>;

/// One seed for all ranks (rank 0's fresh one).
std::uint64_t shared_seed() {
  unsigned long long seed = test::fresh_seed();
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  return seed;
}

/// This rank's share of a global system.
struct Share {
  KroneckerSystem local;
  std::vector<ordinal_t> offsets;
  ordinal_t first = 0;
};

Share share_of(const KroneckerSystem& global, const Communicator& comm, std::vector<ordinal_t> offsets = {}) {
  if (offsets.empty()) offsets = distributed::block_row_offsets_by_work(global.M, comm.size());
  Share s{global, offsets, offsets[size_t(comm.rank())]};
  const ordinal_t end = offsets[size_t(comm.rank()) + 1];
  s.local.M = distributed::block_row_slice(global.M, s.first, end);
  s.local.L = distributed::block_row_slice(global.L, s.first, end);
  return s;
}

/// This rank's rows of each of the s columns of a global vector.
Vec local_part(const Vec& global, const KroneckerSystem& sys, const Share& sh) {
  const size_t N = size_t(sys.space_rows()), b = size_t(sys.M.block_size);
  const size_t q = size_t(sh.local.M.num_block_rows) * b, first = size_t(sh.first) * b;
  Vec out(q * size_t(sys.stages));
  for (int j = 0; j < sys.stages; ++j)
    for (size_t r = 0; r < q; ++r) out[size_t(j) * q + r] = global[size_t(j) * N + first + r];
  return out;
}

/// Whether the block rows [offsets[rank], offsets[rank + 1]) and another
/// rank's are coupled in M or L (a column of theirs in these rows, or one of
/// these in theirs): the rank's halo is empty exactly when they are not,
/// which random patterns give some ranks on some seeds.
bool couples_with_other_ranks(const KroneckerSystem& sys, const std::vector<ordinal_t>& offsets, int rank) {
  const ordinal_t first = offsets[size_t(rank)], end = offsets[size_t(rank) + 1];
  const auto mine = [&](ordinal_t j) { return j >= first && j < end; };
  for (const HostBsr* X : {&sys.M, &sys.L})
    for (ordinal_t i = 0; i < X->num_block_rows; ++i)
      for (offset_t k = X->row_map(i); k < X->row_map(i + 1); ++k)
        if (mine(i) != mine(X->entries(k))) return true;
  return false;
}

Vec apply_operator(const KroneckerOperator<double, Device>& K, const Vec& x) {
  const auto xd = test::device_vector<Device>(x);
  Kokkos::View<double*, Device> y("y", x.size());
  Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());  // every entry must be written
  K.apply(xd, y);
  return test::host_vector(y);
}

TEST(KroneckerMpi, EachRanksRowsMatchTheFormedProduct) {
  const Communicator comm(MPI_COMM_WORLD);
  const auto seed = shared_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(comm.size()) + " ranks");
  int id = 0;
  for (const bool shared : {true, false})
    for (const int s : {1, 2, 3, 5})
      for (const int b : {1, 3, 4}) {
        const auto sys = gallery::random_kronecker(9 + ordinal_t((seed + id) % 17), b, s, seed + id++, shared);
        const Share sh = share_of(sys, comm);
        const auto x = test::random_vector(size_t(sys.num_rows()), seed + 3 * id);
        const auto y_ref = local_part(reference::multiply(reference::kronecker_product(sys), x), sys, sh);
        for (const auto buffers : {distributed::HaloBuffers::automatic, distributed::HaloBuffers::mpi,
                                   distributed::HaloBuffers::host_staged}) {
          SCOPED_TRACE("shared " + std::to_string(shared) + " s " + std::to_string(s) + " b " + std::to_string(b));
          KroneckerOptions o;
          o.halo_buffers = buffers;
          const KroneckerOperator<double, Device> K(comm, sh.local, sh.offsets, o);
          EXPECT_EQ(K.halo().empty(), !couples_with_other_ranks(sys, sh.offsets, comm.rank()));
          EXPECT_LT(test::relative_error(apply_operator(K, local_part(x, sys, sh)), y_ref), 1e-13);
          K.set_profiling(true);  // the profiled path computes the same product
          EXPECT_LT(test::relative_error(apply_operator(K, local_part(x, sys, sh)), y_ref), 1e-13);
          EXPECT_EQ(K.timings().applies, 1);
        }
      }
}

// Exchanges back to back, no host read between them: every apply sees its
// own x (a receive buffer reused too early, or a stale one read, shows here),
// and every path gives the same bits (only the transport differs).
TEST(KroneckerMpi, BackToBackAppliesSeeEachNewVectorOnEveryPath) {
  const Communicator comm(MPI_COMM_WORLD);
  const auto seed = shared_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(comm.size()) + " ranks");
  const auto sys = gallery::random_kronecker(30, 4, 2, seed, true);
  const Share sh = share_of(sys, comm);
  constexpr int applies = 6;
  std::vector<Vec> x(applies), y_ref(applies);
  for (int k = 0; k < applies; ++k) {
    const auto xg = test::random_vector(size_t(sys.num_rows()), seed + 11 + k);
    x[size_t(k)] = local_part(xg, sys, sh);
    y_ref[size_t(k)] = local_part(reference::multiply(reference::kronecker_product(sys), xg), sys, sh);
  }
  std::vector<Vec> first_path;
  for (const auto buffers :
       {distributed::HaloBuffers::automatic, distributed::HaloBuffers::mpi, distributed::HaloBuffers::host_staged}) {
    KroneckerOptions o;
    o.halo_buffers = buffers;
    const KroneckerOperator<double, Device> K(comm, sh.local, sh.offsets, o);
    SCOPED_TRACE(std::string("halo path: ") + to_string(K.halo().path()));
    std::vector<Kokkos::View<double*, Device>> xd, yd;
    for (int k = 0; k < applies; ++k) {
      xd.push_back(test::device_vector<Device>(x[size_t(k)]));
      yd.emplace_back("y", x[size_t(k)].size());
      Kokkos::deep_copy(yd.back(), std::numeric_limits<double>::quiet_NaN());
    }
    for (int k = 0; k < applies; ++k) K.apply(xd[size_t(k)], yd[size_t(k)]);
    std::vector<Vec> got;
    for (int k = 0; k < applies; ++k) {
      got.push_back(test::host_vector(yd[size_t(k)]));
      EXPECT_LT(test::relative_error(got.back(), y_ref[size_t(k)]), 1e-13) << "apply " << k;
    }
    if (first_path.empty())
      first_path = got;
    else
      EXPECT_EQ(got, first_path);
  }
}

TEST(KroneckerMpi, RanksDisagreeingOnTheHaloBuffersAreNamed) {
  const Communicator comm(MPI_COMM_WORLD);
  if (comm.size() == 1) GTEST_SKIP() << "needs two ranks";
  const auto sys = gallery::random_kronecker(20, 2, 2, 5, true);
  const Share sh = share_of(sys, comm);
  KroneckerOptions o;
  o.halo_buffers = comm.rank() == 0 ? distributed::HaloBuffers::host_staged : distributed::HaloBuffers::automatic;
  std::string error;
  try {
    const KroneckerOperator<double, Device> K(comm, sh.local, sh.offsets, o);
  } catch (const InputError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("HaloBuffers::automatic"), std::string::npos) << "rank " << comm.rank() << ": '" << error << "'";
}

TEST(KroneckerMpi, RanksWithoutRowsTakePart) {
  const Communicator comm(MPI_COMM_WORLD);
  const auto sys = gallery::random_kronecker(10, 2, 2, 17, false);
  std::vector<ordinal_t> offsets(size_t(comm.size()) + 1, 10);
  offsets[0] = 0;  // rank 0 owns everything, the others nothing
  const Share sh = share_of(sys, comm, offsets);
  const KroneckerOperator<double, Device> K(comm, sh.local, sh.offsets);
  const auto x = test::random_vector(size_t(sys.num_rows()), 5);
  const auto y_ref = local_part(reference::multiply(reference::kronecker_product(sys), x), sys, sh);
  EXPECT_LT(test::relative_error(apply_operator(K, local_part(x, sys, sh)), y_ref), 1e-13);
}

TEST(KroneckerMpi, GmresMatchesADenseSolveAndOneProcess) {
  const Communicator comm(MPI_COMM_WORLD);
  const auto seed = shared_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto sys = gallery::random_kronecker(40, 4, 2, seed, true);
  const Share sh = share_of(sys, comm);
  const auto b = test::random_vector(size_t(sys.num_rows()), seed + 1);
  const auto x_ref = local_part(reference::dense_solve(reference::kronecker_product(sys), b), sys, sh);
  KrylovOptions o;
  o.rel_tol = 1e-11;
  o.restart = 10;  // several restarts: the true residual is recomputed through the halo
  const IdentityPreconditioner<double, Device> none;

  const KroneckerOperator<double, Device> K(comm, sh.local, sh.offsets);
  const auto bd = test::device_vector<Device>(local_part(b, sys, sh));
  Kokkos::View<double*, Device> x("x", bd.extent(0));
  const auto r = gmres<double, Device>(K, none, bd, x, o);
  EXPECT_TRUE(r.converged());
  EXPECT_LT(r.true_relative_residual, 1e-10);
  EXPECT_LT(test::relative_error(test::host_vector(x), x_ref), 1e-8);

  const KroneckerOperator<double, Device> K1(sys);  // the same solve on this process alone
  const auto b1 = test::device_vector<Device>(b);
  Kokkos::View<double*, Device> x1("x1", b.size());
  const auto r1 = gmres<double, Device>(K1, none, b1, x1, o);
  EXPECT_NEAR(r.iterations, r1.iterations, 1) << "distributed " << r.iterations << ", one process " << r1.iterations;
  for (const auto orthogonalization :
       {GmresOrthogonalization::mgs, GmresOrthogonalization::mgs_blas, GmresOrthogonalization::cgs2}) {
    SCOPED_TRACE(to_string(orthogonalization));  // each Gram-Schmidt over MPI (automatic picks cgs2 here)
    KrylovOptions oo = o;
    oo.orthogonalization = orthogonalization;
    Kokkos::View<double*, Device> xo("xo", bd.extent(0));
    const auto ro = gmres<double, Device>(K, none, bd, xo, oo);
    EXPECT_TRUE(ro.converged());
    EXPECT_LT(test::relative_error(test::host_vector(xo), x_ref), 1e-8);
    EXPECT_NEAR(ro.iterations, r1.iterations, 1);
  }

  // The stage preconditioner, block Jacobi across ranks: converges, and to the same x.
  const KroneckerStagePreconditioner P(sh.local, sh.first, "ilu0");
  Kokkos::View<double*, Device> xp("xp", bd.extent(0));
  const auto rp = gmres<double, Device>(K, P, bd, xp, o);
  EXPECT_TRUE(rp.converged());
  EXPECT_LT(test::relative_error(test::host_vector(xp), x_ref), 1e-8);
}

/// The InputError message building the operator throws on this rank ("" if none).
std::string layout_error(const Communicator& comm, const Share& sh) {
  try {
    KroneckerOperator<double, Device> K(comm, sh.local, sh.offsets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KroneckerMpi, InconsistentLayoutsAreNamedOnEveryRank) {
  const Communicator comm(MPI_COMM_WORLD);
  const auto sys = gallery::random_kronecker(24, 2, 2, 3, true);
  const bool last = comm.rank() == comm.size() - 1;
  auto expect_all = [&](const std::string& error, const std::string& what) {
    EXPECT_NE(error.find(what), std::string::npos) << "rank " << comm.rank() << ": '" << error << "'";
  };
  {  // one rank disagrees on s
    Share sh = share_of(sys, comm);
    if (last && comm.size() > 1) {
      sh.local.stages = 3;
      sh.local.A = {1, 0, 0, 0, 1, 0, 0, 0, 1};
      sh.local.B = sh.local.A;
    }
    const auto e = layout_error(comm, sh);
    if (comm.size() > 1)
      expect_all(e, "number of stages");
    else
      EXPECT_EQ(e, "");
  }
  {  // one rank's tau differs
    Share sh = share_of(sys, comm);
    if (last && comm.size() > 1) sh.local.tau *= 2;
    const auto e = layout_error(comm, sh);
    if (comm.size() > 1)
      expect_all(e, "A, B and tau");
    else
      EXPECT_EQ(e, "");
  }
  {  // offsets that do not cover the matrix
    Share sh = share_of(sys, comm);
    sh.offsets.back() += 1;
    expect_all(layout_error(comm, sh), "offsets");
  }
  {  // the last rank given rows other than its offsets say
    Share sh = share_of(sys, comm);
    if (last) sh.local.M = distributed::block_row_slice(sys.M, 0, 1), sh.local.L = sh.local.M;
    expect_all(layout_error(comm, sh), "holds 1 block rows");
  }
  {  // one rank's offsets differ from the others'
    Share sh = share_of(sys, comm);
    if (last && comm.size() > 1) {
      sh.offsets[1] += 1;
    }
    const auto e = layout_error(comm, sh);
    if (comm.size() > 1) EXPECT_NE(e, "") << "rank " << comm.rank();
  }
}

}  // namespace
}  // namespace trellis
