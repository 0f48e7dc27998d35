// Multi-rank ILDU0 application (seed 000, section 4.5), run under mpiexec:
// each rank applies ILDU0 to its share with no communication; gathered, the
// shares must equal the single-process application. Inconsistent layouts end
// with named errors on every rank, never a hang.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <limits>

#include "test_support.hpp"
#include "trellis/dd/distributed_ilu.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/distributed_bsr_operator.hpp"
#include "trellis/solvers/preconditioners/distributed_dd.hpp"

namespace trellis {
namespace {

using Device = DefaultDevice;
using Vec = std::vector<double>;

int comm_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// The local parts of all ranks, in rank order (= the reordered numbering).
Vec gather(const Vec& local) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = int(local.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int k = 1; k < size; ++k) displs[k] = displs[k - 1] + counts[k - 1];
  Vec all(displs.back() + counts.back());
  MPI_Allgatherv(local.data(), n, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}

TEST(DistributedIldu, SharesTogetherEqualTheSingleProcessApplication) {
  const HostBsr A = gallery::block_laplace3d(18, 16, 14, 3);
  DdOptions opt;
  opt.grid = {18, 16, 14};
  opt.subdomain_rows = 300;
  DistributedDdIlu<double, Device> M(MPI_COMM_WORLD, A, opt);
  std::uint64_t seed = test::fresh_seed();
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);  // the same r on every rank
  SCOPED_TRACE("seed " + std::to_string(seed) + ", rank " + std::to_string(M.rank()));
  const Vec r = test::random_vector(size_t(A.num_rows()), seed);
  const Vec r_local(r.begin() + M.local_offset(), r.begin() + M.local_offset() + M.local_rows());
  for (DdApply v : values<DdApply>()) {
    auto z_local = test::device_vector<Device>(Vec(r_local.size(), std::numeric_limits<double>::quiet_NaN()));
    M.apply(test::device_vector<Device>(r_local), z_local, v);
    const Vec z = gather(test::host_vector(z_local));
    auto whole = test::device_vector<Device>(Vec(r.size(), 0.0));
    M.local_factors().apply_reordered(test::device_vector<Device>(r), whole, v);
    EXPECT_LT(test::relative_error(z, test::host_vector(whole)), 1e-14) << to_string(v);
  }
}

TEST(DistributedIldu, BicgstabOnRanksMatchesOneProcess) {
  // The distributed operator on the reordered matrix with the rank-local
  // ILDU0: the same iteration as one process, up to the order of the sums.
  const HostBsr A = gallery::block_laplace3d(14, 12, 10, 3);
  DdOptions opt;
  opt.grid = {14, 12, 10};
  opt.subdomain_rows = 200;
  const auto dd = std::make_shared<const DistributedDdIlu<double, Device>>(MPI_COMM_WORLD, A, opt);
  const HostBsr Ar = copy_to<HostDevice>(dd->local_factors().reordered_matrix());
  const auto offsets = dd->block_row_offsets();
  const ordinal_t first = offsets[size_t(dd->rank())], end = offsets[size_t(dd->rank()) + 1];
  EXPECT_EQ(first * 3, dd->local_offset());
  EXPECT_EQ((end - first) * 3, dd->local_rows());
  const DistributedBsrOperator<double, Device> op(distributed::Communicator(MPI_COMM_WORLD),
                                                  distributed::block_row_slice(Ar, first, end), offsets);
  const DistributedDdPreconditioner<double, Device> M(dd, DdApply::dag_ec_ILDUO_fused);
  std::uint64_t seed = test::fresh_seed();
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec b = test::random_vector(size_t(A.num_rows()), seed);  // in the reordered numbering
  const Vec b_local(b.begin() + dd->local_offset(), b.begin() + dd->local_offset() + dd->local_rows());
  KrylovOptions o;
  o.rel_tol = 1e-10;
  auto x_local = test::device_vector<Device>(Vec(b_local.size(), 0.0));
  const auto r = bicgstab<double, Device>(op, M, test::device_vector<Device>(b_local), x_local, o, BicgstabForm::right);
  EXPECT_TRUE(r.converged());
  EXPECT_LT(r.true_relative_residual, 1e-9);

  // One process: the whole reordered matrix, the whole ILDU0.
  const BsrOperator<double, Device> whole(dd->local_factors().reordered_matrix());
  struct WholeDd : Preconditioner<double, Device> {
    const DomainDecompositionIlu<double, Device>* dd;
    void apply_on(const Device::execution_space&, Kokkos::View<const double*, Device> r,
                  Kokkos::View<double*, Device> z) const override {
      dd->apply_reordered(r, z, DdApply::dag_ec_ILDUO_fused);
    }
  } one;
  one.dd = &dd->local_factors();
  auto x1 = test::device_vector<Device>(Vec(b.size(), 0.0));
  const auto r1 = bicgstab<double, Device>(whole, one, test::device_vector<Device>(b), x1, o, BicgstabForm::right);
  EXPECT_NEAR(r.iterations, r1.iterations, 1) << "ranks " << r.iterations << ", one process " << r1.iterations;
  EXPECT_LT(test::relative_error(gather(test::host_vector(x_local)), test::host_vector(x1)), 1e-8);
}

TEST(DistributedIldu, WrongLocalSizeIsNamed) {
  const HostBsr A = gallery::block_laplace3d(8, 8, 8, 2);
  DistributedDdIlu<double, Device> M(MPI_COMM_WORLD, A);
  auto wrong = test::device_vector<Device>(Vec(size_t(M.local_rows()) + 1, 1.0));
  auto z = test::device_vector<Device>(Vec(size_t(M.local_rows()) + 1, 1.0));
  try {
    M.apply(wrong, z, DdApply::dag_ec_ILDUO_fused);
    FAIL() << "no error";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(M.rank())), std::string::npos) << e.what();
  }
}

TEST(DistributedIldu, RanksWithDifferentMatricesAllThrow) {
  // Rank 0 holds a bigger grid: every rank must throw, none may hang.
  const HostBsr A = gallery::block_laplace3d(comm_rank() == 0 ? 9 : 8, 8, 8, 2);
  try {
    DistributedDdIlu<double, Device> M(MPI_COMM_WORLD, A);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) FAIL() << "no error for an inconsistent layout";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("inconsistent MPI layout"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace trellis
