// Trellis inside a Trilinos application: reads a Matrix Market file into a
// Tpetra matrix (rows spread evenly over the ranks), solves A x = A 1 from
// x = 0 with Belos GMRES and BiCGSTAB, right-preconditioned by Trellis and by
// Ifpack2, and prints iterations, setup and solve times and the true residual
// ||b - A x|| / ||b|| of each. Preconditioners (--precs):
//
//   SPEC                     a Trellis factory spec (dd, ilu0, auto, ...) on each rank's
//                            diagonal block (trellis::trilinos::TpetraPreconditioner)
//   schwarz:SPEC             Ifpack2::AdditiveSchwarz with Trellis's SPEC as its inner
//                            solver (Ifpack2Preconditioner), overlap --overlap
//   ifpack2-riluk0           Ifpack2's RILUK(0) on each rank's diagonal block
//   ifpack2-schwarz-riluk0   AdditiveSchwarz with RILUK(0) inside, overlap --overlap
//
//   trellis_belos MATRIX.mtx [--solvers gmres,bicgstab] [--precs dd,ilu0,ifpack2-riluk0]
//                  [--overlap L] [--tol T] [--max-iter N] [--restart M] [--agreement K]
//
// Exit status: 0 when every solve reached the tolerance in the true residual,
// 3 when one did not, 4 when --agreement K is given and Trellis's ilu0 and
// Ifpack2's RILUK(0) disagree (ilu0 against ifpack2-riluk0, schwarz:ilu0
// against ifpack2-schwarz-riluk0, each pair present): two independent ILU(0)s
// of the same blocks must give the same M^{-1} b up to rounding (relative
// 1e-10) and iteration counts within K (GMRES) or within max(K, 10%)
// (BiCGSTAB, whose short recurrences amplify rounding: ani4 on one rank takes
// 47 and 45), 1 on bad input.
#include <BelosLinearProblem.hpp>
#include <BelosSolverFactory.hpp>
#include <BelosSolverFactory_Tpetra.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_AdditiveSchwarz.hpp>
#include <Ifpack2_Factory.hpp>
#include <MatrixMarket_Tpetra.hpp>
#include <Teuchos_CommHelpers.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <trellis/core/errors.hpp>
#include <trellis/trilinos/ifpack2_preconditioner.hpp>
#include <trellis/trilinos/tpetra_preconditioner.hpp>

namespace {

using crs_type = Tpetra::CrsMatrix<double>;
using LO = crs_type::local_ordinal_type;
using GO = crs_type::global_ordinal_type;
using Node = crs_type::node_type;
using mv_type = Tpetra::MultiVector<double, LO, GO, Node>;
using op_type = Tpetra::Operator<double, LO, GO, Node>;
using row_matrix_type = Tpetra::RowMatrix<double, LO, GO, Node>;

struct Options {
  std::string matrix;
  std::vector<std::string> solvers{"gmres", "bicgstab"};
  std::vector<std::string> precs{"dd", "ilu0", "ifpack2-riluk0"};
  double tol = 1e-8;
  int max_iter = 1000;
  int restart = 50;
  int overlap = 1;     // AdditiveSchwarz's
  int agreement = -1;  // off
};

const std::string schwarz_prefix = "schwarz:";
bool is_schwarz(const std::string& name) { return name.rfind(schwarz_prefix, 0) == 0; }

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

double number(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
    throw trellis::InputError(option + ": '" + text + "' is not a positive number");
  return v;
}

int whole(const std::string& option, const std::string& text, int at_least) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < at_least || v > 1000000000)
    throw trellis::InputError(option + ": '" + text + "' is not a whole number >= " + std::to_string(at_least));
  return int(v);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw trellis::InputError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--solvers")
      o.solvers = split(value());
    else if (a == "--precs")
      o.precs = split(value());
    else if (a == "--tol")
      o.tol = number(a, value());
    else if (a == "--max-iter")
      o.max_iter = whole(a, value(), 1);
    else if (a == "--restart")
      o.restart = whole(a, value(), 1);
    else if (a == "--overlap")
      o.overlap = whole(a, value(), 0);
    else if (a == "--agreement")
      o.agreement = whole(a, value(), 0);
    else if (a.rfind("--", 0) == 0)
      throw trellis::InputError("unknown option " + a);
    else if (o.matrix.empty())
      o.matrix = a;
    else
      throw trellis::InputError("more than one matrix given: " + o.matrix + ", " + a);
  }
  if (o.matrix.empty())
    throw trellis::InputError(
        "usage: trellis_belos MATRIX.mtx [--solvers gmres,bicgstab] [--precs dd,ilu0,ifpack2-riluk0] "
        "[--overlap L] [--tol T] [--max-iter N] [--restart M] [--agreement K]");
  for (const auto& s : o.solvers)
    if (s != "gmres" && s != "bicgstab") throw trellis::InputError("--solvers: unknown solver '" + s + "'");
  for (const auto& p : o.precs)  // an unknown Trellis spec is an error naming the accepted ones
    if (p != "ifpack2-riluk0" && p != "ifpack2-schwarz-riluk0")
      trellis::canonical_preconditioner(is_schwarz(p) ? p.substr(schwarz_prefix.size()) : p);
  return o;
}

/// A preconditioner as Belos sees it, and what its setup cost (slowest rank).
struct Prec {
  std::string name;
  Teuchos::RCP<const op_type> op;
  double setup_seconds = 0;
};

Prec make_prec(const std::string& name, int overlap, const Teuchos::RCP<const crs_type>& A) {
  const auto comm = A->getComm();
  comm->barrier();
  const auto start = std::chrono::steady_clock::now();
  Prec p;
  if (name == "ifpack2-schwarz-riluk0" || is_schwarz(name)) {
    auto schwarz = Teuchos::rcp(new Ifpack2::AdditiveSchwarz<row_matrix_type>(A));
    Teuchos::ParameterList params;
    params.set("schwarz: overlap level", overlap);
    if (is_schwarz(name)) {
      auto inner = Teuchos::rcp(new trellis::trilinos::Ifpack2Preconditioner<double, LO, GO, Node>());
      Teuchos::ParameterList inner_params;
      inner_params.set("trellis: preconditioner", name.substr(schwarz_prefix.size()));
      inner->setParameters(inner_params);
      schwarz->setParameters(params);
      schwarz->setInnerPreconditioner(inner);
      schwarz->initialize();
      schwarz->compute();
      p.name = "schwarz(" + std::to_string(overlap) + "):trellis:" + inner->built().name;
    } else {
      params.set("inner preconditioner name", std::string("RILUK"));
      params.sublist("inner preconditioner parameters").set("fact: iluk level-of-fill", 0);
      schwarz->setParameters(params);
      schwarz->initialize();
      schwarz->compute();
      p.name = "schwarz(" + std::to_string(overlap) + "):ifpack2:riluk(0)";
    }
    p.op = schwarz;
  } else if (name == "ifpack2-riluk0") {
    // On several ranks RILUK factors each rank's diagonal block (Ifpack2's LocalFilter).
    auto riluk = Ifpack2::Factory::create<row_matrix_type>("RILUK", A);
    Teuchos::ParameterList params;
    params.set("fact: iluk level-of-fill", 0);
    riluk->setParameters(params);
    riluk->initialize();
    riluk->compute();
    p.op = riluk;
    p.name = "ifpack2:riluk(0)";
  } else {
    auto trellis_prec = Teuchos::rcp(new trellis::trilinos::TpetraPreconditioner<LO, GO, Node>(A, name));
    p.name = "trellis:" + trellis_prec->built().name;
    p.op = trellis_prec;
  }
  const double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Teuchos::reduceAll(*comm, Teuchos::REDUCE_MAX, mine, Teuchos::outArg(p.setup_seconds));
  return p;
}

struct Result {
  int iterations = 0;
  double solve_seconds = 0;
  double true_residual = 0;
  bool converged = false;
};

Result solve(const std::string& solver_name, const Options& o, const Teuchos::RCP<const crs_type>& A,
             const Teuchos::RCP<const mv_type>& b, const Prec& prec) {
  auto x = Teuchos::rcp(new mv_type(A->getDomainMap(), 1));  // x = 0
  auto problem = Teuchos::rcp(new Belos::LinearProblem<double, mv_type, op_type>(A, x, b));
  problem->setRightPrec(prec.op);
  if (!problem->setProblem()) throw trellis::Error("Belos::LinearProblem::setProblem failed");
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Convergence Tolerance", o.tol);
  params->set("Maximum Iterations", o.max_iter);
  params->set("Implicit Residual Scaling", std::string("Norm of Initial Residual"));
  if (solver_name == "gmres") {
    params->set("Num Blocks", o.restart);
    params->set("Maximum Restarts", o.max_iter / o.restart + 1);
  }
  Belos::SolverFactory<double, mv_type, op_type> factory;
  auto solver = factory.create(solver_name == "gmres" ? "GMRES" : "BICGSTAB", params);
  solver->setProblem(problem);

  A->getComm()->barrier();
  const auto start = std::chrono::steady_clock::now();
  const Belos::ReturnType status = solver->solve();
  A->getComm()->barrier();
  Result r;
  r.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.iterations = solver->getNumIters();

  mv_type residual(b->getMap(), 1);
  A->apply(*x, residual);
  residual.update(1.0, *b, -1.0);  // r = b - A x
  std::vector<double> rn(1), bn(1);
  residual.norm2(rn);
  b->norm2(bn);
  r.true_residual = rn[0] / bn[0];
  r.converged = status == Belos::Converged && r.true_residual <= o.tol;
  return r;
}

int run(const Options& o, const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  const bool root = comm->getRank() == 0;
  Teuchos::RCP<const crs_type> A = Tpetra::MatrixMarket::Reader<crs_type>::readSparseFile(o.matrix, comm);
  if (A->getGlobalNumRows() != A->getGlobalNumCols())
    throw trellis::InputError(o.matrix + ": the matrix is " + std::to_string(A->getGlobalNumRows()) + "x" +
                              std::to_string(A->getGlobalNumCols()) + ", not square");
  auto ones = Teuchos::rcp(new mv_type(A->getDomainMap(), 1));
  ones->putScalar(1.0);
  auto b = Teuchos::rcp(new mv_type(A->getRangeMap(), 1));
  A->apply(*ones, *b);  // b = A 1

  if (root)
    std::printf("matrix %s: %lld rows, %lld nonzeros, %d rank(s), Kokkos %s, tol %.1e\n", o.matrix.c_str(),
                (long long)A->getGlobalNumRows(), (long long)A->getGlobalNumEntries(), comm->getSize(),
                Kokkos::DefaultExecutionSpace::name(), o.tol);
  std::vector<Prec> precs;
  for (const auto& name : o.precs) precs.push_back(make_prec(name, o.overlap, A));
  if (root)
    std::printf("%-9s %-40s %6s %10s %10s %11s  %s\n", "solver", "preconditioner", "iters", "setup[s]", "solve[s]",
                "true-resid", "status");
  bool all_converged = true;
  std::map<std::string, std::map<std::string, int>> iterations;  // solver -> preconditioner -> iterations
  for (const auto& s : o.solvers) {
    for (std::size_t i = 0; i < precs.size(); ++i) {
      const Result r = solve(s, o, A, b, precs[i]);
      all_converged = all_converged && r.converged;
      iterations[s][o.precs[i]] = r.iterations;
      if (root)
        std::printf("%-9s %-40s %6d %10.4f %10.4f %11.3e  %s\n", s.c_str(), precs[i].name.c_str(), r.iterations,
                    precs[i].setup_seconds, r.solve_seconds, r.true_residual,
                    r.converged ? "converged" : "NOT CONVERGED");
    }
  }
  bool agree = true;
  if (o.agreement >= 0) {
    const auto index = [&](const std::string& name) -> int {
      for (std::size_t i = 0; i < precs.size(); ++i)
        if (o.precs[i] == name) return int(i);
      return -1;
    };
    int pairs = 0;
    for (const auto& [ours, theirs] : {std::pair<std::string, std::string>{"ilu0", "ifpack2-riluk0"},
                                       {schwarz_prefix + "ilu0", "ifpack2-schwarz-riluk0"}}) {
      const int t = index(ours), f = index(theirs);
      if (t < 0 || f < 0) continue;
      ++pairs;
      // The two ILU(0)s applied to b: the same operator up to rounding.
      mv_type zt(A->getDomainMap(), 1), zi(A->getDomainMap(), 1);
      precs[t].op->apply(*b, zt);
      precs[f].op->apply(*b, zi);
      std::vector<double> zn(1), dn(1);
      zi.norm2(zn);
      zt.update(-1.0, zi, 1.0);
      zt.norm2(dn);
      const double apply_difference = dn[0] / zn[0];
      agree = agree && apply_difference <= 1e-10;
      if (root)
        std::printf("agreement M^-1 b: %s vs %s relative difference %.2e: %s (allowed 1e-10)\n", precs[t].name.c_str(),
                    precs[f].name.c_str(), apply_difference, apply_difference <= 1e-10 ? "agree" : "DISAGREE");
      for (const auto& s : o.solvers) {
        const int ti = iterations[s][ours], fi = iterations[s][theirs];
        // BiCGSTAB's short recurrences amplify the rounding differences of two
        // triangular-solve orders: up to 10% there, K for GMRES.
        const int allowed = s == "bicgstab" ? std::max(o.agreement, (std::max(ti, fi) + 9) / 10) : o.agreement;
        const bool ok = std::abs(ti - fi) <= allowed;
        agree = agree && ok;
        if (root)
          std::printf("agreement %s: %s %d, %s %d iterations: %s (allowed difference %d)\n", s.c_str(),
                      precs[t].name.c_str(), ti, precs[f].name.c_str(), fi, ok ? "agree" : "DISAGREE", allowed);
      }
    }
    if (pairs == 0)
      throw trellis::InputError(
          "--agreement needs ilu0 and ifpack2-riluk0, or schwarz:ilu0 and ifpack2-schwarz-riluk0, in --precs");
  }
  return !all_converged ? 3 : !agree ? 4 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);  // MPI and Kokkos
  const auto comm = Tpetra::getDefaultComm();
  try {
    return run(parse(argc, argv), comm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trellis_belos: error: %s\n", e.what());
    return 1;
  }
}
