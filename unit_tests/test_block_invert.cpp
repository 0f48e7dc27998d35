// The dense B x B block inversion of the block factorizations (global ILU,
// DD, StructILU), run in a kernel on every backend: inverses of blocks
// whose rows need swapping, and the pivot statuses with the failing column.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "trellis/ilu/detail/block_ops.hpp"

namespace {

using namespace trellis;
using Vec = std::vector<double>;

template <class Device>
class BlockInvert : public ::testing::Test {};
TYPED_TEST_SUITE(BlockInvert, test::Backends, test::BackendNames);

struct Inverted {
  Vec inv;
  std::vector<int> status, column;
};

/// block_invert<B> of each B x B block of `blocks` (row-major, one after
/// another), in a kernel on Device. Outputs start as NaN and -1: unwritten
/// ones show. In place: the output array is the input (as StructILU calls it).
template <int B, class Device>
Inverted invert_on(const Vec& blocks, double tiny, double boost, bool in_place = false) {
  const int count = int(blocks.size() / (B * B));
  auto inv =
      test::device_vector<Device>(in_place ? blocks : Vec(blocks.size(), std::numeric_limits<double>::quiet_NaN()));
  auto a = in_place ? inv : test::device_vector<Device>(blocks);
  Kokkos::View<int*, Device> status("status", count), column("column", count);
  Kokkos::deep_copy(status, -1);
  Kokkos::deep_copy(column, -1);
  Kokkos::parallel_for(
      "test::block_invert", Kokkos::RangePolicy<typename Device::execution_space>(0, count), KOKKOS_LAMBDA(int b) {
        int failed = -1;
        status(b) = ilu::detail::block_invert<B>(&a(b * B * B), &inv(b * B * B), tiny, boost, &failed);
        column(b) = failed;
      });
  Inverted out;
  out.inv = test::host_vector(inv);
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), column);
  out.status.assign(hs.data(), hs.data() + count);
  out.column.assign(hc.data(), hc.data() + count);
  return out;
}

/// Diagonally dominant blocks with their rows shuffled: partial pivoting
/// has to swap rows to find each column's largest entry.
template <int B>
Vec shuffled_blocks(int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Vec out;
  for (int b = 0; b < count; ++b) {
    Vec m(B * B);
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) m[r * B + c] = r == c ? (u(rng) < 0 ? -1 : 1) * (B + 1 + u(rng)) : u(rng);
    std::vector<int> perm(B);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int r = 0; r < B; ++r) out.insert(out.end(), m.begin() + perm[r] * B, m.begin() + perm[r] * B + B);
  }
  return out;
}

template <int B, class Device>
void expect_inverses() {
  SCOPED_TRACE("B = " + std::to_string(B));
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int count = 50;
  const Vec blocks = shuffled_blocks<B>(count, seed);
  const Inverted got = invert_on<B, Device>(blocks, 1e-14, 0);
  for (int b = 0; b < count; ++b) {
    EXPECT_EQ(got.status[b], ilu::detail::pivot_ok);
    double worst = 0;  // |A inv - I|, entrywise
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) {
        double s = r == c ? -1 : 0;
        for (int k = 0; k < B; ++k) s += blocks[b * B * B + r * B + k] * got.inv[b * B * B + k * B + c];
        worst = std::max(worst, std::isnan(s) ? 1e300 : std::abs(s));
      }
    EXPECT_LT(worst, 1e-13) << "block " << b;
  }
  const Inverted in_place = invert_on<B, Device>(blocks, 1e-14, 0, true);
  for (size_t x = 0; x < blocks.size(); ++x) ASSERT_EQ(in_place.inv[x], got.inv[x]) << "in place, entry " << x;
}

TYPED_TEST(BlockInvert, InvertsBlocksThatNeedRowSwapsForEveryBlockSize) {
  expect_inverses<1, TypeParam>();
  expect_inverses<2, TypeParam>();
  expect_inverses<3, TypeParam>();
  expect_inverses<4, TypeParam>();
  expect_inverses<5, TypeParam>();
  expect_inverses<6, TypeParam>();
  expect_inverses<7, TypeParam>();
  expect_inverses<8, TypeParam>();
}

TYPED_TEST(BlockInvert, PivotFailuresNameTheColumnAndLeaveZeros) {
  constexpr int B = 4;
  // rows 2 0 1 3 of diag(2, 3, 0, 5): column 2 has no nonzero left, and
  // its pivot row (the first candidate) is the zero row
  const Vec singular{0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 5};
  Vec nan_block{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  nan_block[1 * B + 1] = std::numeric_limits<double>::quiet_NaN();
  Vec blocks = singular;
  blocks.insert(blocks.end(), nan_block.begin(), nan_block.end());

  const Inverted failed = invert_on<B, TypeParam>(blocks, 1e-14, 0);
  EXPECT_EQ(failed.status[0], ilu::detail::pivot_tiny);
  EXPECT_EQ(failed.column[0], 2);
  EXPECT_EQ(failed.status[1], ilu::detail::pivot_not_finite);
  EXPECT_EQ(failed.column[1], 1);
  for (double v : failed.inv) EXPECT_EQ(v, 0.0);
  for (double v : invert_on<B, TypeParam>(blocks, 1e-14, 0, true).inv) EXPECT_EQ(v, 0.0);

  // with a boost the tiny pivot becomes +boost: the inverse of A with its
  // zero row made (0, 0, 1e-3, 0), diag(2, 3, 1e-3, 5) in A's row order
  const Inverted boosted = invert_on<B, TypeParam>(singular, 1e-14, 1e-3);
  EXPECT_EQ(boosted.status[0], ilu::detail::pivot_boosted);
  const double expected[B] = {0.5, 1.0 / 3, 1e3, 0.2};
  const int row_of[B] = {1, 2, 0, 3};  // A's row holding diagonal entry c: inv(c, row_of[c]) = 1 / d_c
  for (int c = 0; c < B; ++c)
    for (int r = 0; r < B; ++r)
      EXPECT_DOUBLE_EQ(boosted.inv[c * B + r], r == row_of[c] ? expected[c] : 0.0) << c << "," << r;
}

}  // namespace
