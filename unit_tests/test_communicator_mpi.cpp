// The drivers' reduction seam across processes, run under mpiexec (3 ranks):
// Communicator wraps MPI_COMM_WORLD, allreduce_sum adds every rank's values,
// and dot / sums_into given the Communicator return the sums over all ranks'
// rows, in host and in device memory alike.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <vector>

#include "test_support.hpp"
#include "trellis/core/types.hpp"
#include "trellis/distributed/communicator.hpp"
#include "trellis/solvers/detail/vector_ops.hpp"

namespace trellis {
namespace {

using distributed::Communicator;
using Device = DefaultDevice;
using Vec = std::vector<double>;

/// (x, y) and (x, x) over all ranks, left in device memory as the BiCGSTAB
/// steps leave theirs. (A free function: CUDA lambdas may not live in a
/// test body, a private member function.)
Kokkos::View<double*, Device> global_sums(const Device::execution_space& space, const Communicator& comm,
                                          Kokkos::View<double*, Device> x, Kokkos::View<double*, Device> y) {
  Kokkos::View<double*, Device> sums("trellis::test::sums", 2);
  detail::sums_into<double, 2>(
      space, "trellis::test::sums_into", x.extent(0), sums.data(),
      KOKKOS_LAMBDA(size_t i, double* acc) {
        acc[0] += x(i) * y(i);
        acc[1] += x(i) * x(i);
      },
      comm);
  return sums;
}

TEST(CommunicatorMpi, WrapsTheWorld) {
  const Communicator comm(MPI_COMM_WORLD);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(comm.rank(), rank);
  EXPECT_EQ(comm.size(), size);
  EXPECT_EQ(comm.single_process(), size == 1);
}

TEST(CommunicatorMpi, AllreduceSumAddsEveryRanksValues) {
  const Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size();
  Vec v = {double(comm.rank()), 1.0, 0.5 * comm.rank()};
  comm.allreduce_sum(v.data(), int(v.size()));
  const double ranks = p * (p - 1) / 2.0;  // 0 + 1 + ... + p-1
  EXPECT_EQ(v, (Vec{ranks, double(p), 0.5 * ranks}));
}

TEST(CommunicatorMpi, DotAndSumsThroughTheSeamAreGlobal) {
  const Communicator comm(MPI_COMM_WORLD);
  std::uint64_t seed = test::fresh_seed();
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);  // the same vectors on every rank
  SCOPED_TRACE("seed " + std::to_string(seed) + ", rank " + std::to_string(comm.rank()));
  const size_t n = 1000;
  const Vec x = test::random_vector(n, seed), y = test::random_vector(n, seed + 1);
  double whole = 0, whole_xx = 0;
  for (size_t i = 0; i < n; ++i) whole += x[i] * y[i], whole_xx += x[i] * x[i];
  // This rank's rows: a contiguous share.
  const size_t lo = n * size_t(comm.rank()) / size_t(comm.size());
  const size_t hi = n * size_t(comm.rank() + 1) / size_t(comm.size());
  const auto dx = test::device_vector<Device>(Vec(x.begin() + lo, x.begin() + hi));
  const auto dy = test::device_vector<Device>(Vec(y.begin() + lo, y.begin() + hi));
  const Device::execution_space space;
  EXPECT_NEAR(detail::dot(space, dx, dy, comm), whole, 1e-12 * n);
  const Vec got = test::host_vector(global_sums(space, comm, dx, dy));
  EXPECT_NEAR(got[0], whole, 1e-12 * n);
  EXPECT_NEAR(got[1], whole_xx, 1e-12 * n);
}

}  // namespace
}  // namespace trellis
