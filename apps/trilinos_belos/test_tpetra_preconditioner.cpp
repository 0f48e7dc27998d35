// Checks of the Trilinos adapter (ctest label trilinos, 1 and 2 ranks):
// TpetraPreconditioner on a 1D Laplacian spread over the ranks, the
// Ifpack2Preconditioner life cycle (parameters and their round trip,
// initialize / compute with new values of the same pattern, errors), Trellis
// as AdditiveSchwarz's inner solver against RILUK(0) there, and the
// linear-solver registry. Prints one line per failed check and the timings
// of the Newton-like loop, and exits 1 if any check failed.
#include <Ifpack2_AdditiveSchwarz.hpp>
#include <Ifpack2_Factory.hpp>
#include <Teuchos_CommHelpers.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include <trellis/core/errors.hpp>
#include <trellis/trilinos/linear_solver_factory.hpp>
#include <trellis/trilinos/tpetra_compat.hpp>
#include <trellis/trilinos/tpetra_preconditioner.hpp>

namespace {

using crs_type = Tpetra::CrsMatrix<double>;
using map_type = Tpetra::Map<>;
using mv_type = Tpetra::MultiVector<double>;
using row_matrix_type = Tpetra::RowMatrix<double>;
using Prec = trellis::trilinos::TpetraPreconditioner<>;
using Ifpack2Prec = trellis::trilinos::Ifpack2Preconditioner<>;
using trellis::trilinos::compat::local_num_elements;

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

/// Runs f and checks that it throws E with `needle` in its message.
template <class E>
void check_throws(const std::function<void()>& f, const std::string& needle, const std::string& what) {
  try {
    f();
    check(false, what + ": no error");
  } catch (const E& e) {
    check(std::string(e.what()).find(needle) != std::string::npos,
          what + ": the message does not say '" + needle + "': " + e.what());
  }
}

/// tridiag(-1, d, -1) of n global rows, evenly over the ranks.
Teuchos::RCP<crs_type> laplace1d(const Teuchos::RCP<const Teuchos::Comm<int>>& comm, int n, bool fill_complete,
                                 double d = 2.0) {
  auto map = Teuchos::rcp(new map_type(n, 0, comm));
  auto A = Teuchos::rcp(new crs_type(map, 3));
  for (size_t i = 0; i < local_num_elements(*map); ++i) {
    const auto g = map->getGlobalElement(i);
    for (auto c : {g - 1, g, g + 1})
      if (c >= 0 && c < n) A->insertGlobalValues(g, Teuchos::tuple(c), Teuchos::tuple(c == g ? d : -1.0));
  }
  if (fill_complete) A->fillComplete();
  return A;
}

/// The 5-point Laplacian of a k x k grid, rows evenly over the ranks.
Teuchos::RCP<crs_type> laplace2d(const Teuchos::RCP<const Teuchos::Comm<int>>& comm, int k) {
  auto map = Teuchos::rcp(new map_type(k * k, 0, comm));
  auto A = Teuchos::rcp(new crs_type(map, 5));
  for (size_t i = 0; i < local_num_elements(*map); ++i) {
    const auto g = map->getGlobalElement(i);
    const auto x = g % k, y = g / k;
    A->insertGlobalValues(g, Teuchos::tuple(g), Teuchos::tuple(4.0));
    if (x > 0) A->insertGlobalValues(g, Teuchos::tuple(g - 1), Teuchos::tuple(-1.0));
    if (x + 1 < k) A->insertGlobalValues(g, Teuchos::tuple(g + 1), Teuchos::tuple(-1.0));
    if (y > 0) A->insertGlobalValues(g, Teuchos::tuple(g - k), Teuchos::tuple(-1.0));
    if (y + 1 < k) A->insertGlobalValues(g, Teuchos::tuple(g + k), Teuchos::tuple(-1.0));
  }
  A->fillComplete();
  return A;
}

/// ||a - b||_inf / ||b||_inf over all columns.
double relative_difference(const mv_type& a, const mv_type& b) {
  mv_type d(a, Teuchos::Copy);
  d.update(-1.0, b, 1.0);
  std::vector<double> dn(a.getNumVectors()), bn(a.getNumVectors());
  d.normInf(dn);
  b.normInf(bn);
  double worst = 0;
  for (size_t j = 0; j < dn.size(); ++j) worst = std::max(worst, dn[j] / bn[j]);
  return worst;
}

/// x = B v for the rank's block B (what an exact M^{-1} maps back to v).
void block_times(const trellis::HostCsr& block, const mv_type& v, mv_type& x) {
  const auto vh = v.getLocalViewHost(Tpetra::Access::ReadOnly);
  const auto xh = x.getLocalViewHost(Tpetra::Access::OverwriteAll);
  for (size_t j = 0; j < v.getNumVectors(); ++j)
    for (size_t i = 0; i < size_t(block.num_rows); ++i) {
      double s = 0;
      for (auto k = block.row_map(i); k < block.row_map(i + 1); ++k) s += block.values(k) * vh(block.entries(k), j);
      xh(i, j) = s;
    }
}

void check_tpetra_preconditioner(const Teuchos::RCP<const Teuchos::Comm<int>>& comm, int n) {
  const int ranks = comm->getSize();
  // A matrix still open for filling is refused, by name.
  check_throws<trellis::InputError>([&] { Prec M(laplace1d(comm, n, false), "ilu0"); }, "not fillComplete'd",
                                    "a matrix not fillComplete'd");

  const auto A = laplace1d(comm, n, true);
  const size_t rows = local_num_elements(*A->getRowMap());
  Prec M(A, "ilu0");
  // The rank's block: its rows and owned columns only (block Jacobi).
  const auto& block = M.local_block();
  check(size_t(block.num_rows) == rows && size_t(block.nnz()) == 3 * rows - 2,
        "local block is " + std::to_string(block.num_rows) + " rows, " + std::to_string(block.nnz()) +
            " entries; expected " + std::to_string(rows) + " rows, " + std::to_string(3 * rows - 2));
  // One rank: column indices and values are Tpetra's own, not copies.
  if (ranks == 1)
    check(block.values.data() == A->getLocalMatrixHost().values.data(), "one rank: the values were copied");

  // ILU(0) of a tridiagonal block is its exact LU: M^{-1} (B v) = v, and
  // Y = beta Y + alpha M^{-1} X for the other alpha, beta.
  mv_type v(A->getRowMap(), 2), x(A->getRowMap(), 2), y(A->getRowMap(), 2);
  v.randomize();
  block_times(block, v, x);
  M.apply(x, y);
  check(relative_difference(y, v) < 1e-12, "M^{-1} B v != v: error " + std::to_string(relative_difference(y, v)));
  y.putScalar(1.0);
  M.apply(x, y, Teuchos::NO_TRANS, 2.0, 3.0);  // y = 3 + 2 v
  mv_type expected(A->getRowMap(), 2);
  expected.putScalar(3.0);
  expected.update(2.0, v, 1.0);
  check(relative_difference(y, expected) < 1e-12,
        "alpha, beta: error " + std::to_string(relative_difference(y, expected)));
  check_throws<trellis::InputError>([&] { M.apply(x, y, Teuchos::TRANS); }, "NO_TRANS", "a transposed apply");

  // dd (reordered numbering inside the rank) gives a finite, nonzero result.
  Prec D(A, "dd");
  D.apply(x, y);
  std::vector<double> norm(2);
  y.norm2(norm);
  check(D.built().reordered() && std::isfinite(norm[0]) && norm[0] > 0, "dd: bad result");
}

void check_parameters() {
  Ifpack2Prec M;
  Teuchos::ParameterList p;
  p.set("trellis: preconditioner", std::string("ILU0:elmr_value"));
  p.set("trellis: pivot tolerance", 1e-12);
  p.set("trellis: subdomain rows", 256);
  p.set("trellis: coupling weights", false);
  M.setParameters(p);
  // The round trip: what getParameters() gives sets up the same preconditioner.
  const auto out = M.getParameters();
  check(out->get<std::string>("trellis: preconditioner") == "ilu0:elmr-value",
        "round trip: spec " + out->get<std::string>("trellis: preconditioner"));
  Ifpack2Prec N;
  N.setParameters(*out);
  check(*N.getParameters() == *out, "round trip: a second preconditioner set from getParameters() differs");
  check(out->get<int>("trellis: subdomain rows") == 256 && !out->get<bool>("trellis: coupling weights") &&
            out->get<double>("trellis: pivot tolerance") == 1e-12,
        "round trip: an option was lost");
  // Every valid parameter is in getParameters(), and nothing else.
  check(out->numParams() == M.getValidParameters()->numParams(), "getParameters() and getValidParameters() differ");

  // Named errors: unknown parameter, wrong type, out of range, unknown spec, no matrix, apply before compute.
  Teuchos::ParameterList bad;
  bad.set("fact: iluk level-of-fill", 0);
  check_throws<trellis::InputError>([&] { M.setParameters(bad); }, "unknown parameter \"fact: iluk level-of-fill\"",
                                    "an unknown parameter");
  Teuchos::ParameterList typed;
  typed.set("trellis: subdomain rows", 2.5);
  check_throws<trellis::InputError>([&] { M.setParameters(typed); }, "\"trellis: subdomain rows\" is a double",
                                    "a parameter of the wrong type");
  Teuchos::ParameterList range;
  range.set("trellis: pivot tolerance", -1.0);
  check_throws<trellis::InputError>([&] { M.setParameters(range); }, "\"trellis: pivot tolerance\" is",
                                    "a parameter out of range");
  Teuchos::ParameterList spec;
  spec.set("trellis: preconditioner", std::string("riluk"));
  check_throws<trellis::InputError>([&] { M.setParameters(spec); }, "riluk", "an unknown preconditioner");
  check(*M.getParameters() == *out, "a refused setParameters() changed the parameters");
  check_throws<trellis::InputError>([&] { M.initialize(); }, "no matrix", "initialize() without a matrix");
}

/// A Newton-like loop: five compute() calls with new values of the same
/// pattern, each checked (tridiagonal: ILU(0) is exact), each timed against a
/// fresh build of the same values.
void check_refactorization(const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  const int n = 20000 * comm->getSize();
  auto A = laplace1d(comm, n, true, 2.5);
  Ifpack2Prec M(A);
  Teuchos::ParameterList p;
  p.set("trellis: preconditioner", std::string("ilu0"));
  M.setParameters(p);
  check_throws<trellis::InputError>(
      [&] {
        mv_type a(A->getRowMap(), 1), b(A->getRowMap(), 1);
        M.apply(a, b);
      },
      "compute() first", "apply() before compute()");
  M.initialize();
  M.compute();
  mv_type v(A->getRowMap(), 1), x(A->getRowMap(), 1), y(A->getRowMap(), 1);
  v.randomize();
  double compute_total = 0, fresh_total = 0;
  for (int step = 1; step <= 5; ++step) {
    A->resumeFill();
    const double d = 2.5 + 0.5 * step;
    for (size_t i = 0; i < local_num_elements(*A->getRowMap()); ++i) {
      const auto g = A->getRowMap()->getGlobalElement(i);
      A->replaceGlobalValues(g, Teuchos::tuple(g), Teuchos::tuple(d));
    }
    A->fillComplete();
    auto start = std::chrono::steady_clock::now();
    M.compute();
    compute_total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    block_times(M.local_block(), v, x);
    M.apply(x, y);
    check(relative_difference(y, v) < 1e-12, "compute() step " + std::to_string(step) +
                                                 ": M^{-1} B v != v (the new values were not used): error " +
                                                 std::to_string(relative_difference(y, v)));
    start = std::chrono::steady_clock::now();
    Ifpack2Prec fresh(A);
    fresh.setParameters(p);
    fresh.initialize();
    fresh.compute();
    fresh_total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  check(M.getNumInitialize() == 1 && M.getNumCompute() == 6, "counts: " + std::to_string(M.getNumInitialize()) +
                                                                 " initialize, " + std::to_string(M.getNumCompute()) +
                                                                 " compute");
  double slowest_compute = 0, slowest_fresh = 0;
  Teuchos::reduceAll(*comm, Teuchos::REDUCE_MAX, compute_total / 5, Teuchos::outArg(slowest_compute));
  Teuchos::reduceAll(*comm, Teuchos::REDUCE_MAX, fresh_total / 5, Teuchos::outArg(slowest_fresh));
  if (comm->getRank() == 0)
    std::printf("newton loop (ilu0, %d rows): compute() %.3f ms, fresh initialize()+compute() %.3f ms (%.1fx)\n", n,
                1e3 * slowest_compute, 1e3 * slowest_fresh, slowest_fresh / slowest_compute);

  // A zero pivot in compute(): a PivotError, and the preconditioner is not
  // computed (apply refuses) until a compute() of good values.
  auto set_diagonal = [&](double d) {
    A->resumeFill();
    for (size_t i = 0; i < local_num_elements(*A->getRowMap()); ++i) {
      const auto g = A->getRowMap()->getGlobalElement(i);
      A->replaceGlobalValues(g, Teuchos::tuple(g), Teuchos::tuple(d));
    }
    A->fillComplete();
  };
  set_diagonal(0.0);
  check_throws<trellis::PivotError>([&] { M.compute(); }, "pivot", "compute() of a zero diagonal");
  check(!M.isComputed(), "a failed compute() left the preconditioner computed");
  check_throws<trellis::InputError>([&] { M.apply(x, y); }, "compute() first", "apply() after a failed compute()");
  set_diagonal(3.0);
  M.compute();
  block_times(M.local_block(), v, x);
  M.apply(x, y);
  check(relative_difference(y, v) < 1e-12, "compute() after a failed one: M^{-1} B v != v");

  // A new pattern needs initialize(): compute() says so.
  auto B = laplace2d(comm, 40);
  M.setMatrix(B);
  check(!M.isInitialized(), "setMatrix() with another matrix kept the old setup");
  M.initialize();
  M.compute();
  check(M.isComputed(), "compute() after setMatrix() and initialize()");
}

/// Trellis's ilu0 inside AdditiveSchwarz against RILUK(0) inside it: the same
/// local matrices, so M^{-1} b agrees up to rounding, with and without overlap.
void check_additive_schwarz(const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  const auto A = laplace2d(comm, 48);
  mv_type b(A->getRowMap(), 2), zt(A->getRowMap(), 2), zi(A->getRowMap(), 2);
  b.randomize();
  for (int overlap : {0, 1}) {
    Teuchos::ParameterList schwarz;
    schwarz.set("schwarz: overlap level", overlap);
    Ifpack2::AdditiveSchwarz<row_matrix_type> with_trellis(A), with_riluk(A);
    auto inner = Teuchos::rcp(new Ifpack2Prec());
    Teuchos::ParameterList p;
    p.set("trellis: preconditioner", std::string("ilu0"));
    inner->setParameters(p);
    with_trellis.setParameters(schwarz);
    with_trellis.setInnerPreconditioner(inner);
    with_trellis.initialize();
    with_trellis.compute();
    schwarz.set("inner preconditioner name", std::string("RILUK"));
    schwarz.sublist("inner preconditioner parameters").set("fact: iluk level-of-fill", 0);
    with_riluk.setParameters(schwarz);
    with_riluk.initialize();
    with_riluk.compute();
    with_trellis.apply(b, zt);
    with_riluk.apply(b, zi);
    const double diff = relative_difference(zt, zi);
    check(diff < 1e-10, "AdditiveSchwarz overlap " + std::to_string(overlap) +
                            ": trellis ilu0 and RILUK(0) inner solvers differ by " + std::to_string(diff));
    check(inner->isComputed() && inner->getNumApply() > 0, "AdditiveSchwarz did not use the Trellis inner solver");
    // With overlap, the inner matrix holds the neighbours' rows too.
    const size_t owned = local_num_elements(*A->getRowMap()), inner_rows = size_t(inner->local_block().num_rows);
    check(comm->getSize() == 1 || overlap == 0 ? inner_rows == owned : inner_rows > owned,
          "AdditiveSchwarz overlap " + std::to_string(overlap) + ": the inner block has " + std::to_string(inner_rows) +
              " rows, the rank owns " + std::to_string(owned));
    // New values, same pattern: AdditiveSchwarz's compute() reaches Trellis's compute().
    const int computes = inner->getNumCompute();
    with_trellis.compute();
    check(inner->getNumCompute() == computes + 1 && inner->getNumInitialize() == 1,
          "AdditiveSchwarz::compute() did not call the inner compute() alone");
  }
}

void check_registry(const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  using OP = Tpetra::Operator<double>;
  trellis::trilinos::register_linear_solver_factory<>();
  const auto A = laplace2d(comm, 30);
  auto solver = Trilinos::Details::getLinearSolver<mv_type, OP, double>("Trellis", "ilu0");
  check(!solver.is_null(), "registry: no solver for \"Trellis\", \"ilu0\"");
  if (solver.is_null()) return;
  solver->setMatrix(A);
  solver->symbolic();
  solver->numeric();
  mv_type b(A->getRowMap(), 1), z(A->getRowMap(), 1), expected(A->getRowMap(), 1);
  b.randomize();
  solver->solve(z, b);
  Prec M(A, "ilu0");
  M.apply(b, expected);
  check(relative_difference(z, expected) < 1e-12,
        "registry: the solver's M^{-1} b differs from TpetraPreconditioner's");
  check_throws<trellis::InputError>([&] { Trilinos::Details::getLinearSolver<mv_type, OP, double>("Trellis", "ilu9"); },
                                    "ilu9", "registry: an unknown name");
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  const auto comm = Tpetra::getDefaultComm();
  const std::pair<const char*, std::function<void()>> groups[] = {
      {"tpetra_preconditioner", [&] { check_tpetra_preconditioner(comm, 40); }},
      {"parameters", [&] { check_parameters(); }},
      {"refactorization", [&] { check_refactorization(comm); }},
      {"additive_schwarz", [&] { check_additive_schwarz(comm); }},
      {"registry", [&] { check_registry(comm); }},
  };
  for (const auto& [name, run] : groups) {
    try {
      run();
    } catch (const std::exception& e) {
      check(false, std::string(name) + ": unexpected error: " + e.what());
    }
  }
  int all = 0;
  Teuchos::reduceAll(*comm, Teuchos::REDUCE_SUM, failures, Teuchos::outArg(all));
  if (comm->getRank() == 0)
    std::printf("tpetra_preconditioner: %d rank(s), %d failed check(s)\n", comm->getSize(), all);
  return all == 0 ? 0 : 1;
}
