// The distributed plumbing on one process: the default Communicator is rank 0
// of 1 and never calls MPI, so allreduce_sum and the drivers' reduction seam
// (detail::global_sum) are the identity; a HaloPlan states its own shape.
// The multi-process behaviour is test_communicator_mpi (under mpiexec).
#include <cstring>
#include <vector>

#include "test_support.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/distributed/communicator.hpp"
#include "trellis/distributed/halo_plan.hpp"
#include "trellis/solvers/detail/vector_ops.hpp"

namespace trellis {
namespace {

using distributed::Communicator;
using distributed::HaloPlan;

TEST(Communicator, DefaultIsTheSingleProcess) {
  const Communicator comm;
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.size(), 1);
  EXPECT_TRUE(comm.single_process());
}

TEST(Communicator, AllreduceSumOnOneProcessLeavesTheValues) {
  const Communicator comm;
  std::vector<double> v = {1.5, -2.0, 0.0, 1e300};
  const std::vector<double> before = v;
  comm.allreduce_sum(v.data(), int(v.size()));
  EXPECT_EQ(v, before);
  comm.allreduce_sum(nullptr, 0);  // nothing to sum
  EXPECT_THROW(comm.allreduce_sum(v.data(), -1), InputError);
}

template <class Device>
class GlobalSumOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(GlobalSumOnBackend, test::Backends, test::BackendNames);

TYPED_TEST(GlobalSumOnBackend, IsTheIdentityOnOneProcess) {
  using Device = TypeParam;
  using Exec = typename Device::execution_space;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<double> h = test::random_vector(5, seed);
  auto d = test::device_vector<Device>(h);
  const Exec space;
  detail::global_sum<typename Device::memory_space>(space, Communicator(), d.data(), int(d.extent(0)));
  const std::vector<double> after = test::host_vector(d);
  EXPECT_EQ(std::memcmp(after.data(), h.data(), h.size() * sizeof(double)), 0);
  // dot through the seam equals the local sum.
  auto x = test::device_vector<Device>(std::vector<double>{1, 2, 3});
  EXPECT_EQ(detail::dot(space, x, x, Communicator()), 14.0);
}

TEST(HaloPlan, EmptyPlanHasNothingToExchange) {
  const HaloPlan plan;
  EXPECT_TRUE(plan.empty());
  EXPECT_TRUE(plan.consistent());
  EXPECT_EQ(plan.send_count(), 0u);
  EXPECT_EQ(plan.recv_count(), 0u);
}

TEST(HaloPlan, OffsetsMustDelimitTheIndexListsPerNeighbour) {
  HaloPlan plan;
  plan.send_ranks = {1, 3};
  plan.send_offsets = {0, 2, 3};
  plan.send_indices = {4, 7, 9};
  plan.recv_ranks = {1};
  plan.recv_offsets = {0, 1};
  plan.recv_indices = {10};
  EXPECT_FALSE(plan.empty());
  EXPECT_TRUE(plan.consistent());
  EXPECT_EQ(plan.send_count(), 3u);
  plan.send_offsets = {0, 2, 4};  // ends past the index list
  EXPECT_FALSE(plan.consistent());
  plan.send_offsets = {0, 3};  // one offset short
  EXPECT_FALSE(plan.consistent());
  plan.send_offsets = {0, 3, 2};  // decreasing
  plan.send_indices = {4, 7};
  EXPECT_FALSE(plan.consistent());
}

}  // namespace
}  // namespace trellis
