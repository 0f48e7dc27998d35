// The one solve entry point (Solver): the program a new user writes first
// converges with every preconditioner the factory names, in the caller's
// numbering; the fallback takes over where a preconditioner fails; numeric()
// takes new values for every preconditioner. Runs on the default device
// (the factory builds there): CUDA on a GPU build, OpenMP on the host.
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

#include "spmv.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"
#include "trellis/solvers/solver.hpp"

namespace trellis {
namespace {

using Device = DefaultDevice;
using HostVec = std::vector<double>;
using Vec = Kokkos::View<double*, Device>;
using reference::multiply;

/// ||b - A x|| / ||b|| on the host, in double: the reference the solver's
/// own report is checked against.
double host_relative_residual(const HostCsr& A, const HostVec& b, const HostVec& x) {
  const HostVec Ax = multiply(A, x);
  double rr = 0, bb = 0;
  for (size_t i = 0; i < b.size(); ++i) rr += (b[i] - Ax[i]) * (b[i] - Ax[i]), bb += b[i] * b[i];
  return std::sqrt(rr / bb);
}

/// The program a user writes first: read A, b = A 1, solve from x = 0.
/// Returns the report; x in `x_out`.
SolveReport twenty_lines(const HostCsr& A, const SolverOptions& options, HostVec& x_out) {
  Solver solver(A, options);
  const HostVec b = multiply(A, HostVec(size_t(A.num_rows), 1.0));
  Kokkos::View<double*> db = test::device_vector<Device>(b);
  Kokkos::View<double*> x("x", b.size());
  const SolveReport r = solver.solve(db, x);
  x_out = test::host_vector(x);
  return r;
}

void expect_solved(const HostCsr& A, const SolveReport& r, const HostVec& x, double tol) {
  EXPECT_TRUE(r.converged()) << to_string(r.result.status) << "\n" << r.describe();
  const HostVec b = multiply(A, HostVec(size_t(A.num_rows), 1.0));
  const double res = host_relative_residual(A, b, x);
  EXPECT_LE(res, tol * 1.0001) << r.describe();
  EXPECT_NEAR(res, r.result.true_relative_residual, 1e-3 * tol + 1e-14) << "the report is not the x returned";
}

TEST(Solver, TheFirstProgramConvergesWithEveryFactoryName) {
  const std::string dir = test::matrices_dir();
  ASSERT_FALSE(dir.empty()) << "the real matrices (../shared/matrices) are needed";
  const HostCsr A = io::read_matrix_market(dir + "/BentPipe2D100.mtx");
  const gallery::Problem grid = gallery::load_problem("lap3d7:12x10x8");
  int solved = 0;
  for (const std::string& name : preconditioner_names()) {
    SCOPED_TRACE(name);
    SolverOptions o;
    o.preconditioner = name;
    o.fallback = FallbackPolicy::strict;  // each name's own solve
    o.krylov.max_iterations = 3000;
    const bool structured = name.rfind("structilu", 0) == 0;
    const HostCsr& M = structured ? grid.matrix : A;
    if (structured) o.preconditioner_options.grid = grid.grid;
    HostVec x;
    const SolveReport r = twenty_lines(M, o, x);
    expect_solved(M, r, x, o.krylov.rel_tol);
    ASSERT_EQ(r.attempts.size(), 1u);
    ++solved;
  }
  EXPECT_GT(solved, 20);
}

TEST(Solver, EveryKrylovMethodInTheCallersNumbering) {
  const gallery::Problem p = gallery::load_problem("lap3d7:14x12x10");
  for (KrylovMethod method : {KrylovMethod::bicgstab, KrylovMethod::gmres, KrylovMethod::cg}) {
    for (BicgstabForm form : {BicgstabForm::right, BicgstabForm::split}) {
      for (const char* name : {"dd", "dd:dag-vc-ilduo-fused", "dd:dag-ec-ild-uo", "ilu0", "auto"}) {
        SCOPED_TRACE(std::string(to_string(method)) + " " + to_string(form) + " " + name);
        SolverOptions o;
        o.preconditioner = name;
        o.method = method;
        o.form = form;
        o.preconditioner_options.subdomain_rows = 128;  // several subdomains
        HostVec x;
        expect_solved(p.matrix, twenty_lines(p.matrix, o, x), x, o.krylov.rel_tol);
      }
      if (method != KrylovMethod::bicgstab) break;
    }
  }
}

TEST(Solver, ChecksItsVectors) {
  const gallery::Problem p = gallery::load_problem("lap2d5:10x10");
  Solver solver(p.matrix);
  Vec b("b", 100), x("x", 99);
  EXPECT_THROW(solver.solve(b, x), StructureError);
  EXPECT_THROW(solver.solve(b, b), StructureError);
  SolverOptions bad;
  bad.preconditioner = "ilu7";
  EXPECT_THROW(Solver(p.matrix, bad), InputError);
}

/// A Stokes-like saddle point on an m x m grid, unknowns interleaved per
/// node ([p, u, v], or [u, v, p]): two Laplacians for the velocity, a
/// divergence B and its transpose, and a pressure block whose diagonal is
/// stored but zero (as FEM assemblers store it). Pressure first, row 0 has
/// no earlier column: ILU(0) in this order meets a zero pivot at once.
HostCsr saddle_point(int m, bool pressure_first = true) {
  const int P = pressure_first ? 0 : 2, U = pressure_first ? 1 : 0;
  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  auto add = [&](int r, int c, double v) { rows.push_back(r), cols.push_back(c), vals.push_back(v); };
  auto node = [&](int i, int j) { return 3 * (i * m + j); };
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      const int n = node(i, j) + P;
      add(n, n, 0.0);                     // the pressure block: stored zeros
      for (int f = U; f <= U + 1; ++f) {  // -Laplace u, -Laplace v
        const int r = node(i, j) + f;
        add(r, r, 4.0);
        if (i > 0) add(r, node(i - 1, j) + f, -1.0);
        if (i + 1 < m) add(r, node(i + 1, j) + f, -1.0);
        if (j > 0) add(r, node(i, j - 1) + f, -1.0);
        if (j + 1 < m) add(r, node(i, j + 1) + f, -1.0);
      }
      // B: p(i,j) couples to u, v of its node and of its forward neighbours; B^T likewise.
      auto couple = [&](int other, int f, double w) {
        add(n, other + f, w);
        add(other + f, n, w);
      };
      couple(node(i, j), U, -1.0);
      couple(node(i, j), U + 1, -1.0);
      if (i + 1 < m) couple(node(i + 1, j), U, 1.0);
      if (j + 1 < m) couple(node(i, j + 1), U + 1, 1.0);
    }
  return csr_from_triplets(3 * m * m, 3 * m * m, rows, cols, vals);
}

TEST(Solver, FallsBackOnASaddlePointAndSaysWhy) {
  const HostCsr A = saddle_point(12);
  // Strict: the default's first choice fails, and says so.
  SolverOptions strict;
  strict.fallback = FallbackPolicy::strict;
  EXPECT_THROW(Solver(A, strict), PivotError);
  // The default goes on to a preconditioner that works and reports each step.
  HostVec x;
  SolverOptions o;
  o.krylov.max_iterations = 3000;
  const SolveReport r = twenty_lines(A, o, x);
  expect_solved(A, r, x, 1e-8);
  ASSERT_GE(r.attempts.size(), 2u) << r.describe();
  EXPECT_FALSE(r.attempts.front().setup_error.empty()) << r.describe();
  EXPECT_TRUE(r.attempts.back().boosted_pivots) << r.describe();
  EXPECT_NE(r.describe().find("setup failed"), std::string::npos);
}

TEST(Solver, AutoTakesIlu0ForStoredZeroDiagonals) {
  // Velocity first: global ILU0's pressure pivots come from fill; dd drops
  // the couplings that leave a subdomain and meets zero pivots.
  const HostCsr A = saddle_point(48, false);
  const PreconditionerChoice choice = choose_preconditioner(A, {});
  EXPECT_EQ(choice.kind, PreconditionerKind::ilu0);
  EXPECT_EQ(choice.zero_diagonals, 48 * 48);
  EXPECT_NE(choice.reason.find("zero diagonal"), std::string::npos) << choice.reason;
  // Counted on the device from the blocks, as Solver does: the same count
  // for point rows, and each point of a b = 2 block's diagonal counted.
  const auto blocks = copy_to<DefaultDevice>(csr_to_bsr(A, 1));
  EXPECT_EQ(count_zero_diagonals(blocks), 48 * 48);
  const PreconditionerChoice on_device = choose_preconditioner(A, blocks, {});
  EXPECT_EQ(on_device.kind, choice.kind);
  EXPECT_EQ(on_device.reason, choice.reason);
  HostCsr pairs = gallery::laplace2d_5pt(6, 6);  // 36 rows: 18 blocks of 2
  for (ordinal_t i : {3, 4, 17})
    for (offset_t q = pairs.row_map(i); q < pairs.row_map(i + 1); ++q)
      if (pairs.entries(q) == i) pairs.values(q) = 0;
  EXPECT_EQ(count_zero_diagonals(pairs), 3);
  EXPECT_EQ(count_zero_diagonals(copy_to<DefaultDevice>(csr_to_bsr(pairs, 2))), 3);
  EXPECT_HAS(test::error_of<StructureError>([&] { choose_preconditioner(pairs, blocks, {}); }), "the block matrix has");
  PreconditionerOptions o;
  o.subdomain_rows = 512;
  EXPECT_THROW(make_preconditioner("dd", A, o), PivotError);
  EXPECT_NO_THROW(make_preconditioner("auto", A, o));
}

TEST(Solver, FallsBackFromTheBestIterateAfterABreakdown) {
  // diag(1, -1, 2, -2, ...) with b = 1: (A r0, r0) = 0, BiCGSTAB's first
  // step breaks down. With no restart allowed, the fallback takes over from
  // the start (the iterate the failed attempt left is no better).
  const int n = 40;
  std::vector<ordinal_t> idx(n);
  HostVec d(n);
  for (int i = 0; i < n; ++i) idx[i] = i, d[i] = (i % 2 ? -1.0 : 1.0) * (1 + i / 2);
  const HostCsr A = csr_from_triplets(n, n, idx, idx, d);
  SolverOptions o;
  o.preconditioner = "none";
  o.fallback = FallbackPolicy::always;
  o.krylov.max_breakdown_restarts = 0;
  Solver solver(A, o);
  Vec b("b", n), x("x", n);
  Kokkos::deep_copy(b, 1.0);
  const SolveReport r = solver.solve(b, x);
  ASSERT_GE(r.attempts.size(), 2u) << r.describe();
  EXPECT_EQ(r.attempts[0].result.status, KrylovStatus::breakdown_vr);
  EXPECT_TRUE(r.converged()) << r.describe();
  // The solver starts its next solve with the candidate that converged.
  EXPECT_EQ(solver.preconditioner().name, r.preconditioner);
}

TEST(Solver, AFailedNumericIsTriedAgainWithTheNextValues) {
  // A Newton step whose values fail ilu0's first pivot, then one whose
  // values factor: the second solve is ilu0's own again, not the boosted
  // fallback's for the rest of the loop.
  const HostCsr A = gallery::laplace2d_5pt(12, 12);
  HostCsr bad = A;
  bad.values = decltype(A.values)("values", A.values.extent(0));
  Kokkos::deep_copy(bad.values, A.values);
  for (offset_t q = bad.row_map(0); q < bad.row_map(1); ++q)
    if (bad.entries(q) == 0) bad.values(q) = 0;  // row 0's pivot
  SolverOptions o;
  o.preconditioner = "ilu0";
  o.fallback = FallbackPolicy::always;
  Solver solver(A, o);
  const HostVec hb = multiply(A, HostVec(size_t(A.num_rows), 1.0));
  Kokkos::View<double*> b = test::device_vector<Device>(hb);
  Kokkos::View<double*> x("x", hb.size());

  solver.numeric(bad);
  SolveReport r = solver.solve(b, x);
  EXPECT_TRUE(r.converged()) << r.describe();
  ASSERT_GE(r.attempts.size(), 2u) << r.describe();
  EXPECT_FALSE(r.attempts.front().setup_error.empty()) << r.describe();
  EXPECT_TRUE(r.attempts.back().boosted_pivots) << r.describe();

  solver.numeric(A);
  EXPECT_FALSE(solver.preconditioner().name.empty());
  Kokkos::deep_copy(x, 0.0);
  r = solver.solve(b, x);
  EXPECT_TRUE(r.converged()) << r.describe();
  ASSERT_EQ(r.attempts.size(), 1u) << r.describe();
  EXPECT_FALSE(r.attempts.front().boosted_pivots) << r.describe();
  EXPECT_TRUE(r.attempts.front().setup_error.empty()) << r.describe();
  expect_solved(A, r, test::host_vector(x), 1e-8);
}

/// D A D with D = diag(1 + (i mod 7) / 10): same pattern, new values, still
/// symmetric where A is (IC needs that).
HostCsr rescaled(const HostCsr& A) {
  HostCsr B = A;
  B.values = decltype(A.values)("values", A.values.extent(0));
  auto d = [](ordinal_t i) { return 1.0 + (i % 7) / 10.0; };
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) B.values(k) = A.values(k) * d(i) * d(A.entries(k));
  return B;
}

TEST(Solver, NumericTakesNewValuesForEveryPreconditioner) {
  const gallery::Problem p = gallery::load_problem("lap3d7:10x9x8");
  const HostCsr A2 = rescaled(p.matrix);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostVec r = test::random_vector(size_t(p.matrix.num_rows), seed);
  for (const char* name : {"none", "jacobi", "gs", "sgs", "ilu0", "ilu0-kk", "dd:dag-vc-ilduo-fused", "auto",
                           "structilu", "structilu:ic0"}) {
    SCOPED_TRACE(name);
    PreconditionerOptions po;
    po.grid = p.grid;
    po.subdomain_rows = 128;
    BuiltPreconditioner M = make_preconditioner(name, p.matrix, po);
    M.numeric(A2);
    const BuiltPreconditioner fresh = make_preconditioner(name, A2, po);
    Vec zr("zr", r.size()), z("z", r.size()), rr("rr", r.size()), expected("expected", r.size());
    M.to_reordered(test::device_vector<Device>(r), rr);
    M.preconditioner->apply(rr, zr);
    M.from_reordered(zr, z);
    fresh.to_reordered(test::device_vector<Device>(r), rr);
    fresh.preconditioner->apply(rr, zr);
    fresh.from_reordered(zr, expected);
    EXPECT_LT(test::relative_error(test::host_vector(z), test::host_vector(expected)), 1e-12);
    // A changed pattern is refused.
    const HostCsr other = gallery::load_problem("lap3d7:10x9x7").matrix;
    EXPECT_THROW(M.numeric(other), Error);
    // And through the solver: the solve after numeric() solves the new system.
    SolverOptions so;
    so.preconditioner = name;
    so.preconditioner_options = po;
    so.krylov.max_iterations = 3000;
    Solver solver(p.matrix, so);
    const std::vector<double> before(p.matrix.values.data(), p.matrix.values.data() + p.matrix.nnz());
    solver.numeric(A2);
    EXPECT_EQ(std::vector<double>(p.matrix.values.data(), p.matrix.values.data() + p.matrix.nnz()), before)
        << "numeric() wrote into the caller's first matrix";
    const HostVec b = multiply(A2, HostVec(r.size(), 1.0));
    Vec x("x", r.size());
    const SolveReport rep = solver.solve(test::device_vector<Device>(b), x);
    EXPECT_TRUE(rep.converged()) << rep.describe();
    EXPECT_LE(host_relative_residual(A2, b, test::host_vector(x)), 1.0001e-8);
  }
}

/// Launches of the kernel whose label a callback is counting.
std::atomic<int>& permutations() {
  static std::atomic<int> count{0};
  return count;
}
void count_permutations(const char* name, const uint32_t, uint64_t*) {
  if (std::strcmp(name, "trellis::structilu::to_layout") == 0 ||
      std::strcmp(name, "trellis::structilu::from_layout") == 0)
    ++permutations();
}

TEST(Solver, StructIluSolvesInItsLayoutOrderWithOnePermutationEachWay) {
  // CG, GMRES and BiCGSTAB with structilu:ic0 converge with the vectors
  // permuted into the layout order at the start (b and x) and out at the
  // end (x): three permutations a solve, none per iteration; with
  // structilu_layout off, two per preconditioner application.
  const gallery::Problem p = gallery::load_problem("lap3d7:12x11x10");
  const HostVec b = multiply(p.matrix, HostVec(size_t(p.matrix.num_rows), 1.0));
  for (const bool layout : {true, false})
    for (const KrylovMethod method : {KrylovMethod::cg, KrylovMethod::gmres, KrylovMethod::bicgstab}) {
      SCOPED_TRACE(std::string(to_string(method)) + (layout ? " in the layout order" : " in the grid's numbering"));
      SolverOptions so;
      so.preconditioner = "structilu:ic0";
      so.method = method;
      so.preconditioner_options.grid = p.grid;
      so.preconditioner_options.structilu_layout = layout;
      so.krylov.rel_tol = 1e-9;
      Solver solver(p.matrix, so);
      EXPECT_EQ(solver.preconditioner().reordered(), layout);
      Vec x("x", b.size());
      permutations() = 0;
      Kokkos::Tools::Experimental::set_begin_parallel_for_callback(count_permutations);
      const SolveReport r = solver.solve(test::device_vector<Device>(b), x);
      Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
      ASSERT_TRUE(r.converged()) << r.describe();
      EXPECT_GT(r.result.iterations, 3);
      if (layout)
        EXPECT_EQ(permutations(), 3);
      else
        EXPECT_GE(permutations(), 2 * r.result.iterations);
      EXPECT_LT(test::relative_error(multiply(p.matrix, test::host_vector(x)), b), 1e-8);
    }
}

}  // namespace
}  // namespace trellis
