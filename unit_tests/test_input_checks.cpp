// Public constructors check the matrix they are given (issue 20, defect 2):
// a column out of range, a duplicate or unsorted column, or a broken row_map
// is a StructureError naming the row, on every backend, instead of kernels
// reading or writing out of bounds; TrustedInput skips the check.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "trellis/core/csr_check.hpp"
#include "trellis/dd/domain_decomposition_ilu.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gauss_seidel/gauss_seidel.hpp"
#include "trellis/ilu/global_ilu0.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/solvers/linear_operator.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"
#include "trellis/trsv/triangular_solver.hpp"

namespace trellis {
namespace {

/// A deep copy of A (host), so that a corruption does not reach A.
HostCsr clone(const HostCsr& A) { return copy_to<HostDevice>(A); }

/// A.row_map(i) = v (row_map is a view of const offsets: replaced by a copy).
void set_row_map(HostCsr& A, ordinal_t i, offset_t v) {
  Kokkos::View<offset_t*, HostDevice> rm("rm", A.row_map.extent(0));
  Kokkos::deep_copy(rm, A.row_map);
  rm(i) = v;
  A.row_map = rm;
}

/// Each corruption of a good 4x4-grid Laplacian, with the words its error must hold.
struct Corruption {
  const char* name;
  std::function<void(HostCsr&)> apply;
  const char* says;
};

std::vector<Corruption> corruptions() {
  return {
      {"column out of range", [](HostCsr& A) { A.entries(A.row_map(5)) = 99; }, "row 5 has column 99 outside"},
      {"negative column", [](HostCsr& A) { A.entries(A.row_map(2)) = -1; }, "row 2 has column -1"},
      {"duplicate column", [](HostCsr& A) { A.entries(A.row_map(7) + 1) = A.entries(A.row_map(7)); },
       "row 7 has a duplicate column"},
      {"unsorted columns", [](HostCsr& A) { std::swap(A.entries(A.row_map(9)), A.entries(A.row_map(9) + 1)); },
       "row 9 has an unsorted"},
      {"row_map past the end", [](HostCsr& A) { set_row_map(A, 3, A.nnz() + 50); }, "row 2"},
      {"row_map not from 0", [](HostCsr& A) { set_row_map(A, 0, 1); }, "row_map(0) = 1"},
  };
}

template <class Device>
class InputChecks : public ::testing::Test {};
TYPED_TEST_SUITE(InputChecks, test::Backends, test::BackendNames);

TYPED_TEST(InputChecks, ConstructorsNameTheBadRow) {
  using Device = TypeParam;
  const HostCsr good = gallery::laplace2d_5pt(4, 4);
  for (const auto& c : corruptions()) {
    SCOPED_TRACE(c.name);
    HostCsr bad = clone(good);
    c.apply(bad);
    const auto dev = to_device<Device>(bad);
    auto expect_named = [&](const char* who, const std::function<void()>& build) {
      try {
        build();
        ADD_FAILURE() << who << " accepted the matrix";
      } catch (const StructureError& e) {
        EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << who << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find(who), std::string::npos) << e.what();
      }
    };
    expect_named("TriangularSolver", [&] { TriangularSolver<double, Device>(dev, TrsvOptions{}); });
    expect_named("GaussSeidel", [&] { GaussSeidel<double, Device>{dev}; });
    expect_named("CsrOperator", [&] { CsrOperator<double, Device>{dev}; });
    expect_named("Jacobi", [&] { JacobiPreconditioner<double, Device>{dev}; });
    expect_named("ILU0", [&] { GlobalIlu0<double, Device>{bad}; });
    expect_named("make_preconditioner", [&] { make_preconditioner("ilu0", bad); });
    expect_named("domain-decomposition ILU0", [&] { DomainDecompositionIlu<double, Device>{bad}; });
    const HostBsr bad_blocks(1, bad.num_rows, bad.num_cols, bad.row_map, bad.entries, bad.values);
    expect_named("domain-decomposition ILU0", [&] { DomainDecompositionIlu<double, Device>{bad_blocks}; });
  }
}

// One rule for duplicate entries (issue 20, defect 3): the builders sum them,
// every operator refuses a matrix that still holds one. Before, a duplicated
// diagonal entry was summed by SpMV, Jacobi and the ILUs and kept once (the
// last copy) by the triangular solves and Gauss-Seidel.
TYPED_TEST(InputChecks, DuplicateEntriesAreSummedByBuildersRefusedElsewhere) {
  using Device = TypeParam;
  // Lower triangle of 3x3 with the diagonal of row 1 stored twice: 2 + 3.
  const std::vector<ordinal_t> rows{0, 1, 1, 1, 2, 2}, cols{0, 0, 1, 1, 1, 2};
  const std::vector<double> vals{2, 1, 2, 3, 1, 4};
  Kokkos::View<offset_t*, HostDevice> rm("rm", 4);
  HostCsr::index_type ent("ent", 6);
  HostCsr::values_type val("val", 6);
  const offset_t starts[4] = {0, 1, 4, 6};
  for (int i = 0; i < 4; ++i) rm(i) = starts[i];
  for (int k = 0; k < 6; ++k) ent(k) = cols[k], val(k) = vals[k];
  const HostCsr raw(3, 3, rm, ent, val);
  const auto dev = to_device<Device>(raw);
  const std::string says = "row 1 has a duplicate column 1";
  auto refused = [&](const char* who, const std::function<void()>& build) {
    try {
      build();
      ADD_FAILURE() << who << " accepted a duplicate entry";
    } catch (const StructureError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << who << ": " << e.what();
    }
  };
  TrsvOptions lower;
  lower.triangle = Triangle::lower;
  refused("TriangularSolver", [&] { TriangularSolver<double, Device>(dev, lower); });
  refused("GaussSeidel", [&] { GaussSeidel<double, Device>{dev}; });
  refused("CsrOperator", [&] { CsrOperator<double, Device>{dev}; });
  refused("Jacobi", [&] { JacobiPreconditioner<double, Device>{dev}; });
  refused("ILU0", [&] { GlobalIlu0<double, Device>{raw}; });
  refused("DD", [&] { DomainDecompositionIlu<double, Device>{raw}; });

  // Summed by the builders: the triplets and the Matrix Market reader give
  // the same matrix, diagonal 5 in row 1, and the solve inverts its SpMV.
  const HostCsr summed = csr_from_triplets(3, 3, rows, cols, vals);
  const HostCsr read = io::parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 2\n2 1 1\n2 2 2\n2 2 3\n3 2 1\n3 3 4\n", "dup.mtx");
  ASSERT_EQ(summed.nnz(), 5);
  ASSERT_EQ(read.nnz(), 5);
  for (offset_t k = 0; k < 5; ++k) {
    EXPECT_EQ(summed.entries(k), read.entries(k));
    EXPECT_EQ(summed.values(k), read.values(k));
  }
  EXPECT_EQ(summed.values(2), 5.0);
  const auto A = to_device<Device>(summed);
  Kokkos::View<double*, Device> x("x", 3), b("b", 3), y("y", 3);
  auto xh = Kokkos::create_mirror_view(x);
  xh(0) = 1.5, xh(1) = -2.0, xh(2) = 0.25;
  Kokkos::deep_copy(x, xh);
  CsrOperator<double, Device>(A).apply(x, b);
  Kokkos::deep_copy(y, std::nan(""));
  TriangularSolver<double, Device>(A, lower).solve(b, y);
  const auto yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(yh(i), xh(i), 1e-14) << "row " << i;
}

TYPED_TEST(InputChecks, CanonicalMatricesPassAndTrustedInputSkips) {
  using Device = TypeParam;
  const HostCsr good = gallery::laplace2d_5pt(5, 3);
  EXPECT_NO_THROW(check_canonical(to_device<Device>(good), "good"));
  HostCsr bad = clone(good);
  bad.entries(0) = 1000;
  EXPECT_THROW(check_canonical(to_device<Device>(bad), "bad"), StructureError);
  {
    const TrustedInput trusted;  // the caller vouches for its matrices
    EXPECT_NO_THROW(check_canonical(to_device<Device>(bad), "bad"));
  }
  EXPECT_THROW(check_canonical(to_device<Device>(bad), "bad"), StructureError);  // only inside the scope
  const HostCsr empty(0, 0, Kokkos::View<offset_t*, HostDevice>("rm", 1), HostCsr::index_type("e", 0),
                      HostCsr::values_type("v", 0));
  EXPECT_NO_THROW(check_canonical(to_device<Device>(empty), "empty"));
}

TYPED_TEST(InputChecks, NumericTakesOnlyTheAnalysedPattern) {  // issue 20, defect 4
  using Device = TypeParam;
  const HostCsr A = gallery::laplace2d_5pt(5, 4);
  TrsvOptions opt;
  opt.triangle = Triangle::lower;
  TriangularSolver<double, Device> L(to_device<Device>(A), opt);
  EXPECT_NO_THROW(L.numeric(to_device<Device>(A)));  // new values, same pattern
  HostCsr swapped = clone(A);                        // row 6's first two entries in the other order (values with them)
  std::swap(swapped.entries(swapped.row_map(6)), swapped.entries(swapped.row_map(6) + 1));
  std::swap(swapped.values(swapped.row_map(6)), swapped.values(swapped.row_map(6) + 1));
  EXPECT_THROW(L.numeric(to_device<Device>(swapped)), StructureError);  // was: answers off by 4e10
  HostCsr moved = clone(A);                                             // same size and entry count, one column moved
  moved.entries(moved.row_map(10)) += 1;
  EXPECT_THROW(L.numeric(to_device<Device>(moved)), StructureError);
  const HostCsr other = gallery::laplace2d_5pt(4, 5);
  EXPECT_THROW(L.numeric(to_device<Device>(other)), StructureError);
}

TEST(InputChecks, ApplyCallsCheckTheirSizes) {  // issue 20, defect 8
  const HostCsr A = gallery::laplace2d_5pt(6, 6);
  const JacobiPreconditioner<double> J(to_device<DefaultDevice>(A));
  Kokkos::View<double*, DefaultDevice> r("r", size_t(A.num_rows) + 5), z("z", size_t(A.num_rows) + 5);
  EXPECT_THROW(J.apply(r, z), StructureError);  // was: read past its diagonal
  const HostBsr B = gallery::block_laplace3d(8, 8, 8, 2);
  DdOptions opt;
  opt.subdomain_rows = 64;
  const DomainDecompositionIlu<double> dd(B, opt);
  Kokkos::View<double*, DefaultDevice> x("x", size_t(B.num_rows())), y("y", size_t(B.num_rows()));
  const ordinal_t n = dd.layout().num_subdomains();
  for (const dd::SubdomainRange range : {dd::SubdomainRange{0, n + 3}, dd::SubdomainRange{n + 1, n + 2},
                                         dd::SubdomainRange{-1, 2}, dd::SubdomainRange{3, 2}}) {
    try {
      dd.apply_reordered(x, y, DdApply::dag_ec_ILDUO_fused, range);
      ADD_FAILURE() << "range [" << range.begin << ", " << range.end << ") accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("subdomain range"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(dd.apply_reordered(x, y, DdApply::dag_ec_ILDUO_fused, dd::SubdomainRange{0, n}));
}

}  // namespace
}  // namespace trellis
