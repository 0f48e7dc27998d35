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
