// Core containers: CSR construction from triplets, validation, zero-copy
// interop with KokkosSparse::CrsMatrix, host/device copies, BSR conversion.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>  // before Kokkos Kernels headers, which assume it
#include <KokkosSparse_spmv.hpp>
#include <random>

#include "spmv.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"

namespace trellis {
namespace {

HostCsr small_matrix() {
  // [ 4 -1  0 ]
  // [ 0  5  2 ]
  // [ 1  0  6 ]
  return csr_from_triplets(3, 3, {0, 0, 1, 1, 2, 2}, {0, 1, 1, 2, 0, 2}, {4, -1, 5, 2, 1, 6});
}

TEST(CsrFromTriplets, SortsColumnsAndSumsDuplicates) {
  auto A = csr_from_triplets(2, 3, {1, 0, 1, 0, 1}, {2, 1, 0, 1, 2}, {1.0, 2.0, 3.0, 4.0, 5.0});
  ASSERT_EQ(A.nnz(), 3);
  EXPECT_EQ(A.row_map(0), 0);
  EXPECT_EQ(A.row_map(1), 1);
  EXPECT_EQ(A.row_map(2), 3);
  EXPECT_EQ(A.entries(0), 1);
  EXPECT_DOUBLE_EQ(A.values(0), 6.0);  // 2 + 4
  EXPECT_EQ(A.entries(1), 0);
  EXPECT_DOUBLE_EQ(A.values(1), 3.0);
  EXPECT_EQ(A.entries(2), 2);
  EXPECT_DOUBLE_EQ(A.values(2), 6.0);  // 1 + 5
  EXPECT_NO_THROW(validate_csr(A));
}

TEST(CsrFromTriplets, RejectsOutOfRangeIndexNamingIt) {
  try {
    csr_from_triplets(2, 2, {0, 2}, {0, 0}, {1.0, 1.0});
    FAIL() << "expected StructureError";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("(2, 0)"), std::string::npos) << e.what();
  }
}

TEST(ValidateCsr, NamesUnsortedRow) {
  auto A = small_matrix();
  std::swap(A.entries(2), A.entries(3));  // row 1 now has columns 2, 1
  try {
    validate_csr(A, "A");
    FAIL() << "expected StructureError";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
  }
}

template <class Device>
class CsrOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(CsrOnBackend, test::Backends, test::BackendNames);

TYPED_TEST(CsrOnBackend, KokkosInteropSharesMemoryBothWays) {
  using Device = TypeParam;
  auto A = to_device<Device>(small_matrix());
  auto K = to_kokkos(A);
  EXPECT_EQ(K.values.data(), A.values.data());
  EXPECT_EQ(K.graph.entries.data(), A.entries.data());
  EXPECT_EQ(K.graph.row_map.data(), A.row_map.data());
  EXPECT_EQ(K.numRows(), 3);
  auto B = from_kokkos(K);
  EXPECT_EQ(B.values.data(), A.values.data());
  EXPECT_EQ(B.row_map.data(), A.row_map.data());
  EXPECT_EQ(B.num_cols, 3);
}

TYPED_TEST(CsrOnBackend, SpmvThroughKokkosKernelsMatchesSerialReference) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> col(0, 199);
  std::uniform_real_distribution<double> val(-1, 1);
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (int i = 0; i < 200; ++i)
    for (int k = 0; k < 6; ++k) r.push_back(i), c.push_back(col(rng)), v.push_back(val(rng));
  auto Ah = csr_from_triplets(200, 200, r, c, v);
  std::vector<double> x(200);
  for (auto& xi : x) xi = val(rng);
  const std::vector<double> ref = reference::multiply(Ah, x);

  auto A = to_device<Device>(Ah);
  Kokkos::View<double*, Device> xd("x", 200), yd("y", 200);
  Kokkos::deep_copy(yd, std::nan(""));  // poisoned: unwritten entries fail
  auto xh = Kokkos::create_mirror_view(xd);
  for (int i = 0; i < 200; ++i) xh(i) = x[i];
  Kokkos::deep_copy(xd, xh);
  KokkosSparse::spmv("N", 1.0, to_kokkos(A), xd, 0.0, yd);
  auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yd);
  std::vector<double> y(yh.data(), yh.data() + 200);
  EXPECT_LT(test::relative_error(y, ref), 1e-14);
}

TEST(Bsr, CsrRoundTripKeepsEveryEntry) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> col(0, 11);
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (int i = 0; i < 12; ++i)
    for (int k = 0; k < 4; ++k) r.push_back(i), c.push_back(col(rng)), v.push_back(k + i + 1.0);
  auto A = csr_from_triplets(12, 12, r, c, v);
  auto B = csr_to_bsr(A, 3);
  EXPECT_EQ(B.num_block_rows, 4);
  auto C = bsr_to_csr(B);
  validate_csr(C);
  // C holds A's entries plus explicit zeros filling the blocks.
  for (ordinal_t i = 0; i < 12; ++i) {
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      bool found = false;
      for (offset_t m = C.row_map(i); m < C.row_map(i + 1); ++m)
        if (C.entries(m) == A.entries(k)) {
          EXPECT_EQ(C.values(m), A.values(k));
          found = true;
        }
      EXPECT_TRUE(found) << "entry (" << i << ", " << A.entries(k) << ") lost";
    }
  }
  EXPECT_EQ(C.nnz(), B.nnz_blocks() * 9);
}

TEST(Bsr, RejectsSizeNotMultipleOfBlock) { EXPECT_THROW(csr_to_bsr(small_matrix(), 2), StructureError); }

TEST(Bsr, PointViewsShareTheArraysBothWays) {
  const HostCsr A = small_matrix();
  const HostBsr B = as_point_bsr(A);
  const HostCsr C = as_point_csr(B);
  EXPECT_EQ(C.num_rows, A.num_rows);
  EXPECT_EQ(C.num_cols, A.num_cols);
  EXPECT_EQ(C.row_map.data(), A.row_map.data());
  EXPECT_EQ(C.entries.data(), A.entries.data());
  EXPECT_EQ(C.values.data(), A.values.data());
  const HostBsr blocks = csr_to_bsr(csr_from_triplets(4, 4, {0, 1, 2, 3}, {0, 1, 2, 3}, {1, 1, 1, 1}), 2);
  EXPECT_HAS(test::error_of<StructureError>([&] { as_point_csr(blocks); }), "blocks of size 2, not 1x1");
}

}  // namespace
}  // namespace trellis
