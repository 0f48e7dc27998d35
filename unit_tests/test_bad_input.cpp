// The bad-input table's own tests (unit_tests/BAD_INPUT.md, issue 20): the
// inputs a user can give that no other test covered, each checked for the
// error type and the words of its message (or, for numerical extremes, for
// an honest status and a correct answer). Kernels run on every backend.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spmv.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/dd/domain_decomposition_ilu.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/gauss_seidel/gauss_seidel.hpp"
#include "trellis/ilu/global_ilu0.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/linear_operator.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/solvers/preconditioners/domain_decomposition.hpp"
#include "trellis/solvers/preconditioners/global_ilu0.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"
#include "trellis/trsv/triangular_solver.hpp"

namespace trellis {
namespace {

using HostVec = std::vector<double>;
using test::device_vector;
using test::host_vector;
using Method = test::KrylovMethod;

using test::error_of;

/// A path in GoogleTest's temp folder, unique to this test.
std::string temp_path(const std::string& stem) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  return ::testing::TempDir() + "trellis_bad_input_" + name + "_" + stem;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// A 0x0 matrix.
HostCsr empty_matrix() {
  return HostCsr(0, 0, Kokkos::View<offset_t*, HostDevice>("rm", 1), HostCsr::index_type("e", 0),
                 HostCsr::values_type("v", 0));
}

/// The 5-point Laplacian of a 5x5 grid without row 7's diagonal entry.
HostCsr laplacian_without_diagonal(ordinal_t row) {
  const HostCsr A = gallery::laplace2d_5pt(5, 5);
  std::vector<ordinal_t> ti, tj;
  HostVec tv;
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)
      if (!(i == row && A.entries(q) == row)) ti.push_back(i), tj.push_back(A.entries(q)), tv.push_back(A.values(q));
  return csr_from_triplets(A.num_rows, A.num_cols, ti, tj, tv);
}

/// A copy of A with every value multiplied by s.
HostCsr scaled(const HostCsr& A, double s) {
  HostCsr B = copy_to<HostDevice>(A);
  for (size_t k = 0; k < B.values.extent(0); ++k) B.values(k) *= s;
  return B;
}

/// Runs `method` on A x = b with preconditioner M from x0; x holds the answer.
template <class Device>
KrylovResult run(Method method, const CsrMatrix<double, Device>& A, const Preconditioner<double, Device>& M,
                 const HostVec& b, const HostVec& x0, HostVec& x, const KrylovOptions& o = {}) {
  CsrOperator<double, Device> op(A);
  auto db = device_vector<Device>(b);
  auto dx = device_vector<Device>(x0);
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

constexpr Method all_methods[] = {Method::cg, Method::bicgstab_split, Method::bicgstab_right, Method::gmres};

// ------------------------------------------------------- Matrix Market files

TEST(BadInputFiles, BannerOnlyHasNoSizeLine) {
  for (const std::string text :
       {"%%MatrixMarket matrix coordinate real general\n", "%%MatrixMarket matrix coordinate real general"}) {
    try {
      io::parse_matrix_market(text, "mem");
      ADD_FAILURE() << "a banner alone was read";
    } catch (const MatrixMarketError& e) {
      EXPECT_EQ(e.line(), 2) << e.what();
      EXPECT_HAS(e.problem(), "missing size line");
    }
  }
}

TEST(BadInputFiles, ZeroSizedMatrixIsReadAndRefusedByTheSolvers) {
  // "0 0 0" is a valid file; what needs rows says so by name.
  const HostCsr A = io::parse_matrix_market("%%MatrixMarket matrix coordinate real general\n0 0 0\n", "mem");
  EXPECT_EQ(A.num_rows, 0);
  EXPECT_HAS(error_of<StructureError>([&] { make_preconditioner("ilu0", A); }), "ILU0: empty matrix");
  EXPECT_HAS(error_of<StructureError>([&] { make_preconditioner("dd", A); }), "empty matrix");
}

TEST(BadInputFiles, FileWithoutEntriesHasNoDiagonal) {
  // "3 3 0": a matrix with no entries at all, read; its missing diagonal is named.
  const HostCsr A = io::parse_matrix_market("%%MatrixMarket matrix coordinate real general\n3 3 0\n", "mem");
  EXPECT_EQ(A.nnz(), 0);
  EXPECT_HAS(error_of<PivotError>([&] { make_preconditioner("jacobi", A); }), "at row 0");
  EXPECT_HAS(error_of<StructureError>([&] { make_preconditioner("ilu0", A); }), "row 0");
}

TEST(BadInputFiles, RectangularFileIsReadAndRefusedByTheSolvers) {
  const HostCsr A =
      io::parse_matrix_market("%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1\n2 2 1\n2 3 1\n", "mem");
  EXPECT_EQ(A.num_cols, 3);
  EXPECT_HAS(error_of<StructureError>([&] { make_preconditioner("ilu0", A); }), "ILU0: matrix is not square");
  EXPECT_HAS(error_of<StructureError>([&] { CsrOperator<double>(to_device<DefaultDevice>(A)); }),
             "CsrOperator: matrix is 2x3, not square");
}

TEST(BadInputFiles, ArrayFileSizeBeyondIndexLimitIsNamed) {
  // A dense file whose rows x columns overflow: named at the size line, nothing allocated.
  try {
    io::parse_matrix_market_vector("%%MatrixMarket matrix array real general\n4000000000 4000000000\n", "mem");
    ADD_FAILURE() << "accepted";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.line(), 2) << e.what();
    EXPECT_HAS(e.problem(), "size line: rows x columns is too large");
  }
}

TEST(BadInputFiles, IntegerValueBeyond64BitsIsNamed) {
  try {
    io::parse_matrix_market("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 99999999999999999999\n",
                            "mem");
    ADD_FAILURE() << "accepted";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.line(), 3) << e.what();
    EXPECT_HAS(e.problem(), "value '99999999999999999999' overflows a 64-bit integer");
  }
}

// ---------------------------------------------------------- problem specs

TEST(BadInputSpecs, EmptyAndPunctuationSpecsAreNamed) {
  // Neither a generator nor a file: the reader names the path it could not open.
  EXPECT_HAS(error_of<InputError>([] { gallery::load_problem(""); }), "cannot open");
  EXPECT_HAS(error_of<InputError>([] { gallery::load_problem("lap2d5:8x8:"); }), "lap2d5:8x8:");
  EXPECT_HAS(error_of<InputError>([] { gallery::load_problem("random:-5"); }), "random:-5");
  EXPECT_HAS(error_of<InputError>([] { gallery::load_problem("random:0"); }), "random:0");
  EXPECT_HAS(error_of<InputError>([] { gallery::load_problem("lap2d5:8x8x"); }), "lap2d5:8x8x");
}

// ------------------------------------------------------------- API calls

template <class Device>
class BadInputApi : public ::testing::Test {};
TYPED_TEST_SUITE(BadInputApi, test::Backends, test::BackendNames);

TYPED_TEST(BadInputApi, NonSquareMatrixIsRefusedByEveryConsumer) {
  using Device = TypeParam;
  const HostCsr H = csr_from_triplets(3, 4, {0, 1, 2, 2}, {0, 1, 2, 3}, {1.0, 1.0, 1.0, 1.0});
  const auto A = to_device<Device>(H);
  EXPECT_HAS(error_of<StructureError>([&] { TriangularSolver<double, Device>(A, TrsvOptions{}); }), "3x4");
  EXPECT_HAS(error_of<StructureError>([&] { GaussSeidel<double, Device>{A}; }), "3x4");
  EXPECT_HAS(error_of<StructureError>([&] { CsrOperator<double, Device>{A}; }), "3x4, not square");
  EXPECT_HAS(error_of<StructureError>([&] { GlobalIlu0<double, Device>{H}; }), "ILU0: matrix is not square");
  EXPECT_HAS(error_of<StructureError>([&] { DomainDecompositionIlu<double, Device>{H}; }), "not square");
}

TYPED_TEST(BadInputApi, EmptyMatrixIsNamedWhereRowsAreNeeded) {
  using Device = TypeParam;
  const HostCsr E = empty_matrix();
  EXPECT_HAS(error_of<StructureError>([&] { GlobalIlu0<double, Device>{E}; }), "ILU0: empty matrix");
  EXPECT_HAS(error_of<StructureError>([&] { DomainDecompositionIlu<double, Device>{E}; }), "empty matrix");
}

TYPED_TEST(BadInputApi, Ilu0NamesAMissingDiagonal) {
  using Device = TypeParam;
  const HostCsr A = laplacian_without_diagonal(7);
  EXPECT_HAS(error_of<StructureError>([&] { GlobalIlu0<double, Device>{A}; }), "row 7");
  EXPECT_HAS(error_of<PivotError>([&] { JacobiPreconditioner<double, Device>{to_device<Device>(A)}; }), "at row 7");
  EXPECT_HAS(error_of<PivotError>([&] { GaussSeidel<double, Device>{to_device<Device>(A)}; }), "row 7");
}

TYPED_TEST(BadInputApi, NonFiniteValuesAreNamedPivotErrors) {
  using Device = TypeParam;
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(bad);
    HostCsr A = gallery::laplace2d_5pt(6, 6);
    for (offset_t q = A.row_map(20); q < A.row_map(21); ++q)
      if (A.entries(q) == 20) A.values(q) = bad;
    try {
      GlobalIlu0<double, Device> ilu(A);
      ADD_FAILURE() << "factored";
    } catch (const PivotError& e) {
      EXPECT_EQ(e.row(), 20) << e.what();
      EXPECT_HAS(std::string(e.what()), "ILU0: NaN or Inf");
    }
    try {
      JacobiPreconditioner<double, Device> jacobi(to_device<Device>(A));
      ADD_FAILURE() << "Jacobi accepted";
    } catch (const PivotError& e) {
      EXPECT_EQ(e.row(), 20) << e.what();
    }
  }
}

TYPED_TEST(BadInputApi, BlockSizeOutOfRangeIsNamed) {
  using Device = TypeParam;
  const HostCsr A = gallery::laplace2d_5pt(6, 3);  // 18 rows: divisible by 9
  EXPECT_HAS(error_of<StructureError>([&] { csr_to_bsr(A, 0); }), "block size 0 < 1");
  const HostBsr B9 = csr_to_bsr(A, 9);
  EXPECT_HAS(error_of<StructureError>([&] { DomainDecompositionIlu<double, Device>{B9}; }), "b = 9");
  EXPECT_HAS(error_of<StructureError>([&] { BsrOperator<double, Device>{copy_to<Device>(B9)}; }), "b = 9");
}

TYPED_TEST(BadInputApi, VectorsOfTheWrongLengthAreNamed) {
  using Device = TypeParam;
  using Vec = Kokkos::View<double*, Device>;
  const HostCsr H = gallery::laplace2d_5pt(5, 5);
  const auto A = to_device<Device>(H);
  Vec b25("b", 25), x25("x", 25), x24("x", 24);
  TrsvOptions lower;
  lower.triangle = Triangle::lower;
  const TriangularSolver<double, Device> L(A, lower);
  EXPECT_HAS(error_of<StructureError>([&] { L.solve(b25, x24); }), "triangular solve: vectors of length 25 and 24");
  const GaussSeidel<double, Device> gs(A);
  EXPECT_HAS(error_of<StructureError>([&] { gs.apply(b25, x24, SweepDirection::forward); }),
             "Gauss-Seidel: vectors of length");
  EXPECT_HAS(error_of<StructureError>([&] { gs.apply(b25, b25, SweepDirection::forward); }),
             "b and x must be different Views");
  const CsrOperator<double, Device> op(A);
  const IdentityPreconditioner<double, Device> none;
  EXPECT_HAS(error_of<StructureError>([&] { cg<double, Device>(op, none, b25, x24); }),
             "cg: vectors of length 25 and 24 for an operator of 25 rows");
  EXPECT_HAS(error_of<StructureError>([&] { bicgstab<double, Device>(op, none, b25, x24); }), "vectors of length");
  EXPECT_HAS(error_of<StructureError>([&] { gmres<double, Device>(op, none, b25, b25); }), "b and x must differ");
}

TYPED_TEST(BadInputApi, KrylovOptionsOutOfRangeAreNamed) {
  using Device = TypeParam;
  const auto A = to_device<Device>(gallery::laplace2d_5pt(5, 5));
  const CsrOperator<double, Device> op(A);
  const IdentityPreconditioner<double, Device> none;
  Kokkos::View<double*, Device> b("b", 25), x("x", 25);
  for (const auto& set : std::vector<std::function<void(KrylovOptions&)>>{
           [](KrylovOptions& o) { o.max_iterations = -1; }, [](KrylovOptions& o) { o.restart = 0; },
           [](KrylovOptions& o) { o.rel_tol = std::nan(""); }, [](KrylovOptions& o) { o.abs_tol = -1; }}) {
    KrylovOptions o;
    set(o);
    for (Method m : all_methods) {
      SCOPED_TRACE(test::name(m));
      const std::string msg = error_of<InputError>([&] {
        if (m == Method::cg) cg<double, Device>(op, none, b, x, o);
        if (m == Method::bicgstab_split) bicgstab<double, Device>(op, none, b, x, o, BicgstabForm::split);
        if (m == Method::bicgstab_right) bicgstab<double, Device>(op, none, b, x, o, BicgstabForm::right);
        if (m == Method::gmres) gmres<double, Device>(op, none, b, x, o);
      });
      EXPECT_HAS(msg, "needs max_iterations >= 0, restart >= 1, tolerances >= 0");
    }
  }
}

TEST(BadInputApiHost, MalformedCsrArraysAreNamedWhereTheMatrixIsMade) {
  Kokkos::View<offset_t*, HostDevice> rm3("rm", 3);
  HostCsr::index_type ent("e", 0);
  HostCsr::values_type val("v", 0);
  EXPECT_HAS(error_of<StructureError>([&] { HostCsr(-1, 2, rm3, ent, val); }), "negative dimension -1x2");
  EXPECT_HAS(error_of<StructureError>([&] { HostCsr(4, 4, rm3, ent, val); }), "row_map has 3");
  EXPECT_HAS(error_of<StructureError>([&] {
               csr_from_triplets(2, 2, {0, 1}, {0}, {1.0, 1.0});
             }),
             "row, column and value arrays differ in length");
}

TEST(BadInputApiHost, PreconditionerVariantsAreNamed) {
  const HostCsr A = gallery::laplace2d_5pt(4, 4);
  EXPECT_HAS(error_of<InputError>([&] { make_preconditioner("ilu0:fastest", A); }), "fastest");
  EXPECT_HAS(error_of<InputError>([&] { make_preconditioner("none:x", A); }), "takes no variant");
  EXPECT_HAS(error_of<InputError>([&] { make_preconditioner("", A); }), "unknown preconditioner ''");
}

// ---------------------------------------------------- numerical extremes

template <class Device>
class BadInputNumerics : public ::testing::Test {};
TYPED_TEST_SUITE(BadInputNumerics, test::Backends, test::BackendNames);

TYPED_TEST(BadInputNumerics, ZeroRightHandSideGivesZeroWithoutNaN) {
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(9, 8);
  const auto A = to_device<Device>(H);
  const JacobiPreconditioner<double, Device> jacobi(A);
  const HostVec zero(size_t(H.num_rows), 0.0);
  for (Method m : all_methods) {
    SCOPED_TRACE(test::name(m));
    HostVec x;
    const KrylovResult r = run(m, A, jacobi, zero, zero, x);  // from x0 = 0: already the answer
    EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(r.true_relative_residual, 0.0);
    EXPECT_EQ(x, zero);
  }
}

TYPED_TEST(BadInputNumerics, ZeroRightHandSideFromANonzeroStartIsSolvedOrReported) {
  // b = 0, x0 != 0: ||b|| = 0 so a relative test cannot pass; the drivers
  // must still end with x near 0 or say they did not converge, never NaN.
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(9, 8);
  const auto A = to_device<Device>(H);
  const JacobiPreconditioner<double, Device> jacobi(A);
  const HostVec zero(size_t(H.num_rows), 0.0);
  const HostVec x0 = test::random_vector(zero.size(), 3);
  for (Method m : all_methods) {
    SCOPED_TRACE(test::name(m));
    HostVec x;
    KrylovOptions o;
    o.max_iterations = 500;
    const KrylovResult r = run(m, A, jacobi, zero, x0, x, o);
    EXPECT_TRUE(std::isfinite(r.true_relative_residual)) << r.true_relative_residual;
    for (double v : x) ASSERT_TRUE(std::isfinite(v));
    if (r.status == KrylovStatus::converged) {
      double biggest = 0;
      for (double v : x) biggest = std::max(biggest, std::abs(v));
      EXPECT_LT(biggest, 1e-6) << "converged to a nonzero x for b = 0";
    }
  }
}

// Was a defect (BAD_INPUT.md): with b = 0 the stopping norm is
// max(rel_tol * 0, abs_tol) = 0, so from x0 != 0 every driver ran to a
// breakdown or the iteration limit although ||b - A x|| fell to 1e-15 ..
// 1e-113. x = 0 is the exact answer: the drivers return it, converged.
TYPED_TEST(BadInputNumerics, ZeroRightHandSideFromANonzeroStartConverges) {
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(9, 8);
  const auto A = to_device<Device>(H);
  const JacobiPreconditioner<double, Device> jacobi(A);
  const HostVec zero(size_t(H.num_rows), 0.0);
  const HostVec x0 = test::random_vector(zero.size(), 3);
  for (Method m : all_methods) {
    SCOPED_TRACE(test::name(m));
    HostVec x;
    KrylovOptions o;
    o.max_iterations = 500;
    const KrylovResult r = run(m, A, jacobi, zero, x0, x, o);
    EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status) << " after " << r.iterations;
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(x, zero);
  }
}

// Was a defect (BAD_INPUT.md): detail::norm2 of an empty vector returned
// -1.8e308 (max_abs's reduction identity), so a 0x0 system was "converged"
// with a true residual of -1.80e+308. The norm of nothing is 0.
TYPED_TEST(BadInputNumerics, EmptySystemHasNormAndResidualZero) {
  using Device = TypeParam;
  const typename Device::execution_space space;
  EXPECT_EQ(detail::norm2(space, Kokkos::View<double*, Device>("empty", 0)), 0.0);
  const auto A = to_device<Device>(empty_matrix());
  const IdentityPreconditioner<double, Device> none;
  for (Method m : all_methods) {
    SCOPED_TRACE(test::name(m));
    HostVec x;
    const KrylovResult r = run(m, A, none, HostVec{}, HostVec{}, x);
    EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status);
    EXPECT_EQ(r.true_relative_residual, 0.0);
  }
}

TYPED_TEST(BadInputNumerics, InfiniteRightHandSideStopsWithNonFiniteStatus) {
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(8, 8);
  const auto A = to_device<Device>(H);
  const IdentityPreconditioner<double, Device> none;
  HostVec b = test::random_vector(size_t(H.num_rows), 5);
  b[11] = -std::numeric_limits<double>::infinity();
  for (Method m : all_methods) {
    SCOPED_TRACE(test::name(m));
    HostVec x;
    const KrylovResult r = run(m, A, none, b, HostVec(b.size(), 0.0), x);
    EXPECT_EQ(r.status, KrylovStatus::non_finite) << to_string(r.status);
  }
}

TYPED_TEST(BadInputNumerics, NaNInTheMatrixStopsWithNonFiniteStatus) {
  // The operator does not look at values; the iteration's scalars catch it.
  using Device = TypeParam;
  HostCsr H = gallery::laplace2d_5pt(8, 8);
  H.values(H.row_map(30) + 1) = std::numeric_limits<double>::quiet_NaN();
  const auto A = to_device<Device>(H);
  const IdentityPreconditioner<double, Device> none;
  const HostVec b = test::random_vector(size_t(H.num_rows), 6);
  for (Method m : all_methods) {
    SCOPED_TRACE(test::name(m));
    HostVec x;
    const KrylovResult r = run(m, A, none, b, HostVec(b.size(), 0.0), x);
    EXPECT_EQ(r.status, KrylovStatus::non_finite) << to_string(r.status);
  }
}

TYPED_TEST(BadInputNumerics, TinyAndHugeMatricesAreFactoredAndSolved) {
  // Pivots are tiny relative to their row, not in absolute terms: a matrix
  // scaled by 1e-300 .. 1e+300 factors and solves as the unscaled one, in
  // every Krylov form and with no preconditioner too (the split form and
  // `none` were a defect: (t, t) underflowed, breakdown-omega at 0-1
  // iterations).
  using Device = TypeParam;
  const HostCsr base = gallery::convection_diffusion3d(6, 5, 4, 5.0);
  const HostVec x_true = test::random_vector(size_t(base.num_rows), 9);
  for (const double s : {1e-300, 1e-200, 1e+200, 1e+300}) {
    SCOPED_TRACE(s);
    const HostCsr H = scaled(base, s);
    const HostVec b = reference::multiply(H, x_true);
    const auto A = to_device<Device>(H);
    KrylovOptions o;
    o.rel_tol = 1e-10;
    const GlobalIlu0Preconditioner<double, Device> ilu(std::make_shared<const GlobalIlu0<double, Device>>(H));
    const JacobiPreconditioner<double, Device> jacobi(A);
    const DdPreconditioner<double, Device> dd(std::make_shared<const DomainDecompositionIlu<double, Device>>(H),
                                              DdApply::dag_vc_ILDUO_fused, false);
    const IdentityPreconditioner<double, Device> none;
    const std::pair<const char*, const Preconditioner<double, Device>*> preconditioners[] = {
        {"ilu0", &ilu}, {"jacobi", &jacobi}, {"dd", &dd}, {"none", &none}};
    for (const auto& [label, M] : preconditioners) {
      for (Method m : {Method::bicgstab_right, Method::bicgstab_split, Method::gmres}) {
        SCOPED_TRACE(std::string(label) + " " + test::name(m));
        HostVec x;
        const KrylovResult r = run(m, A, *M, b, HostVec(b.size(), 0.0), x, o);
        EXPECT_EQ(r.status, KrylovStatus::converged) << to_string(r.status) << " after " << r.iterations;
        EXPECT_LT(r.true_relative_residual, 1e-9);
        EXPECT_LT(test::relative_error(x, x_true), 1e-6);
      }
    }
  }
}

TYPED_TEST(BadInputNumerics, ZeroIterationLimitChangesNothing) {
  using Device = TypeParam;
  const HostCsr H = gallery::laplace2d_5pt(8, 8);
  const auto A = to_device<Device>(H);
  const IdentityPreconditioner<double, Device> none;
  const HostVec b = test::random_vector(size_t(H.num_rows), 1), x0 = test::random_vector(b.size(), 2);
  KrylovOptions o;
  o.max_iterations = 0;
  for (Method m : all_methods) {
    SCOPED_TRACE(test::name(m));
    HostVec x;
    const KrylovResult r = run(m, A, none, b, x0, x, o);
    EXPECT_EQ(r.status, KrylovStatus::max_iterations) << to_string(r.status);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_EQ(x, x0);
  }
}

}  // namespace
}  // namespace trellis
