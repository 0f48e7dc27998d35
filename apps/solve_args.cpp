// `trellis solve` options: every value checked (finite, in range, whole
// where it counts) and named in the error otherwise.
#include "solve_args.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <set>
#include <string>

#include "trellis/core/errors.hpp"

namespace trellis::cli {

const std::string solve_usage =
    "usage: trellis solve [PROBLEM] [options]\n"
    "  --solver bicgstab|gmres|cg      (default bicgstab)\n"
    "  --precond NAME[:VARIANT]        (default auto: jacobi, dd or ilu0, docs/api.md) one of\n" +
    preconditioner_usage(34) +
    "                                  (names in any case, '_' for '-': the papers' dag_ec_ILDUO_fused works)\n"
    "  --form " +
    names<BicgstabForm>("|") +
    "              BiCGSTAB preconditioning (the DD paper's Alg. 2.1; default right,\n"
    "                                  K2 = M whole; split applies K1 = L D and K2 = U' apart)\n"
    "  --tol T  --max-iter N  --restart M\n"
    "  --orthogonalization " +
    names<GmresOrthogonalization>("|") +
    "  GMRES's Gram-Schmidt (default automatic: cgs2 over MPI, else mgs)\n"
    "  --subdomain-rows N  --partitioner " +
    names<Partitioner>("|") +
    "\n  --coupling-weights on|off       dd: the graph partitions keep strong couplings inside (on)\n"
    "  --node-size G                   dd: G consecutive rows (a mesh node's unknowns) kept in one\n"
    "                                  subdomain; 0 detects G from the pattern (default), 1 none\n"
    "  --pivot-tolerance T              ILU pivots with |p| <= T x their row's largest entry fail\n"
    "                                  (default 0: exact zeros only, as cuSPARSE)\n"
    "  --pivot-boost B                 failing pivots replaced by B x the row's largest entry\n"
    "  --fallback " +
    names<FallbackPolicy>("|") +
    "       when a preconditioner fails (setup pivot, breakdown, stagnation),\n"
    "                                  go on with ilu0, then ilu0 with boosted pivots: after auto\n"
    "                                  only (default), after any, or never\n"
    "  --strict                        the same as --fallback strict\n"
    "  --breakdown-restarts N          BiCGSTAB restarts after a breakdown or stagnation (default 3)\n"
    "  --stagnation-window N           BiCGSTAB: N iterations without a 10% drop is a stagnation\n"
    "                                  (default 300; 0: never)\n"
    "  --compare                       also run global ILU0 (Kokkos Kernels sptrsv, our level-set\n"
    "                                  and auto solves) and Jacobi, each timed as the median of\n"
    "                                  --repeat runs\n"
    "  --repeat N                      set up and solve each method N times (1 to 100; default 3\n"
    "                                  with --compare, else 1): times are the medians\n"
    "  --history FILE.csv              residual history of every run with the wall time of each,\n"
    "                                  and FILE.svg: residual against iteration and wall time\n"
    "  --rhs FILE  --x0 FILE           b and the start as Matrix Market vectors (default b = A 1,\n"
    "                                  whose solution is x = 1, from x0 = 0)\n"
    "  --write-solution FILE           x of the solve asked for, as a Matrix Market vector\n"
    "  --json FILE                     what the run printed as one JSON document: the problem, the\n"
    "                                  settings as run, what auto built and why, status, iterations,\n"
    "                                  true residual, times, every run's residual history, --compare's\n"
    "                                  table\n"
    "  --view                          print the settings of the solve as run (solver, stopping,\n"
    "                                  restarts, fallback, the preconditioner and its options)\n"
    "Kronecker systems (A (x) M + tau B (x) L) U = F, solved with GMRES:\n"
    "  trellis solve --kron M.mtx L.mtx A.mtx B.mtx --tau T [--block-size B]\n"
    "  trellis solve kron-stokes:NXxNYxNZ[:s=S][:tau=T]   (generated Stokes-like b=4, Radau IIA)\n"
    "                                  --precond none (default) or a stage preconditioner\n"
    "                                  I_s (x) P0(M + tau gamma L), P0 e.g. ilu0 or jacobi\n";

SolveArgs parse_solve_args(const std::vector<std::string>& given) {
  SolveArgs a;
  bool have_problem = false, tau_given = false, form_given = false;
  std::set<std::string> given_options;
  // --opt=value is --opt value.
  std::vector<std::string> args;
  std::vector<bool> attached;  // the value came after '='
  for (const std::string& g : given) {
    const size_t eq = g.find('=');
    if (g.rfind("--", 0) == 0 && eq != std::string::npos) {
      args.push_back(g.substr(0, eq));
      attached.push_back(false);
      args.push_back(g.substr(eq + 1));
      attached.push_back(true);
    } else {
      args.push_back(g);
      attached.push_back(false);
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& k = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw InputError("missing value after " + k);
      return args[++i];
    };
    // A file's path: an empty one (--rhs '') is an error, not silence.
    auto path = [&]() -> const std::string& {
      const std::string& v = value();
      if (v.empty()) throw InputError(k + " needs a file's path (got an empty one)");
      return v;
    };
    // An option without a value: --view=yes is an error, not a problem 'yes'.
    auto flag = [&] {
      if (i + 1 < args.size() && attached[i + 1]) throw InputError(k + " takes no value (got '" + args[i + 1] + "')");
      return true;
    };
    // A finite number within [lo, hi], named in the error otherwise.
    auto number = [&](const std::string& v, double lo, double hi, const char* range) {
      // strtod, not stod: a subnormal (1e-310) is a number, out of range
      // below; only what overflows to Inf or is no number is refused here.
      char* end = nullptr;
      const double d = v.empty() || std::isspace((unsigned char)v[0]) ? std::nan("") : std::strtod(v.c_str(), &end);
      if (!end || *end != '\0' || !std::isfinite(d)) throw InputError(k + ": '" + v + "' is not a finite number");
      if (d < lo || d > hi) throw InputError(k + ": " + v + " is out of range (" + range + ")");
      // A value that underflows (1e-400 reads as 0) or is subnormal would act
      // as 0 or lose its digits without a word.
      const size_t digits = v.find_first_of("123456789"), exponent = v.find_first_of("eEpP");
      if (d == 0 && digits != std::string::npos && digits < exponent)
        throw InputError(k + ": " + v + " underflows to 0 in double precision");
      if (d != 0 && std::fabs(d) < std::numeric_limits<double>::min())
        throw InputError(k + ": " + v + " is subnormal (below 2.2e-308, the smallest normal double)");
      return d;
    };
    // A whole number within [lo, hi].
    auto whole = [&](const std::string& v, double lo, double hi, const char* range) {
      const double d = number(v, lo, hi, range);
      if (d != std::floor(d)) throw InputError(k + ": '" + v + "' is not a whole number");
      return int(d);
    };
    // An option given twice took its last value without a word: an error.
    if (k.rfind("--", 0) == 0 && !given_options.insert(k).second) throw InputError(k + " given twice");
    if (k == "--solver")
      a.solver = value();
    else if (k == "--precond")
      a.precond = canonical_preconditioner(value()), a.precond_given = true;
    else if (k == "--kron") {
      if (!a.kron_files.empty()) throw InputError("--kron given twice");
      for (int f = 0; f < 4; ++f) a.kron_files.push_back(value());
    } else if (k == "--tau")
      a.tau = number(value(), 0, 1e300, "0 to 1e300"), tau_given = true;
    else if (k == "--block-size")
      a.block_size = whole(value(), 1, 8, "1 to 8");
    else if (k == "--form")
      a.form = parse<BicgstabForm>(value()), form_given = true;
    else if (k == "--tol")
      a.krylov.rel_tol = number(value(), 1e-300, 0.5, "a relative tolerance in (0, 0.5]");
    else if (k == "--max-iter")
      a.krylov.max_iterations = whole(value(), 0, 1e9, "0 to 10^9");
    else if (k == "--restart")
      a.krylov.restart = whole(value(), 1, 1000, "1 to 1000 vectors");
    else if (k == "--orthogonalization")
      a.krylov.orthogonalization = parse<GmresOrthogonalization>(value());
    else if (k == "--subdomain-rows")
      a.options.subdomain_rows = ordinal_t(whole(value(), 1, 2147483647, "1 to 2147483647"));
    else if (k == "--node-size")
      a.options.node_size = ordinal_t(whole(value(), 0, 8, "0 (detect) to 8"));
    else if (k == "--partitioner")
      a.options.partitioner = parse<Partitioner>(value());
    else if (k == "--coupling-weights") {
      const std::string v = value();
      if (v != "on" && v != "off") throw InputError("--coupling-weights: '" + v + "' is not on or off");
      a.options.coupling_weights = v == "on";
    } else if (k == "--pivot-tolerance")
      a.options.pivots.tolerance = number(value(), 0, 1, "0 to 1");
    else if (k == "--pivot-boost")
      a.options.pivots.boost = number(value(), 0, 1e300, "0 to 1e300");
    else if (k == "--fallback")
      a.fallback = parse<FallbackPolicy>(value());
    else if (k == "--strict")
      a.fallback = flag() ? FallbackPolicy::strict : a.fallback;
    else if (k == "--breakdown-restarts")
      a.krylov.max_breakdown_restarts = whole(value(), 0, 1000, "0 to 1000");
    else if (k == "--stagnation-window")
      a.krylov.stagnation_window = whole(value(), 0, 1e9, "0 to 10^9");
    else if (k == "--compare")
      a.compare = flag();
    else if (k == "--repeat")
      a.repeat = whole(value(), 1, 100, "1 to 100 runs");
    else if (k == "--view")
      a.view = flag();
    else if (k == "--history")
      a.history = path();
    else if (k == "--rhs")
      a.rhs = path();
    else if (k == "--x0")
      a.x0 = path();
    else if (k == "--write-solution")
      a.solution = path();
    else if (k == "--json")
      a.json = path();
    else if (k.rfind("--", 0) == 0)
      throw InputError("unknown option '" + k + "'\n" + solve_usage);
    else if (k.size() > 1 && k[0] == '-')  // -ksp_type: an option, not a problem
      throw InputError("unknown option '" + k + "' (options start with --)\n" + solve_usage);
    else if (!have_problem)
      a.problem = k, have_problem = true;
    else
      throw InputError("more than one problem given ('" + a.problem + "', '" + k + "')");
  }
  if (a.solver != "bicgstab" && a.solver != "gmres" && a.solver != "cg")
    throw InputError("unknown solver '" + a.solver + "' (expected bicgstab, gmres or cg)");
  // Options that would have no effect are errors, not silence.
  if (tau_given && a.kron_files.empty())
    throw InputError("--tau is for --kron systems (a kron-stokes: spec takes tau=T in the spec)");
  if (form_given && a.solver != "bicgstab") throw InputError("--form is BiCGSTAB's; the solver is " + a.solver);
  if (a.kronecker()) {
    if (!a.kron_files.empty() && have_problem)
      throw InputError("--kron reads the system from its four files; a problem '" + a.problem + "' was given too");
    if (!a.kron_files.empty() && std::isnan(a.tau)) throw InputError("--kron needs --tau T");
    if (a.compare) throw InputError("--compare is not available for Kronecker systems (perf_tests/kron_bench is)");
    if (form_given) throw InputError("--form is BiCGSTAB's; Kronecker systems are solved with GMRES");
    if (!a.rhs.empty() || !a.x0.empty() || !a.solution.empty())
      throw InputError(
          "--rhs, --x0 and --write-solution are for matrix problems (a Kronecker system solves K U = K 1)");
    if (given_options.count("--solver") && a.solver != "gmres")
      throw InputError("Kronecker systems are solved with GMRES; --solver " + a.solver + " cannot run them");
    a.solver = "gmres";
    if (!a.precond_given) a.precond = "none";
  }
  if (given_options.count("--strict") && given_options.count("--fallback"))
    throw InputError("--strict and --fallback both set the fallback policy; give one");
  // Options of a method or preconditioner that this solve does not run.
  auto refuse_unless = [&](bool applies, std::initializer_list<const char*> names, const std::string& why) {
    for (const char* n : names)
      if (!applies && given_options.count(n)) throw InputError(std::string(n) + " " + why);
  };
  refuse_unless(a.solver == "gmres", {"--restart", "--orthogonalization"}, "is GMRES's; the solver is " + a.solver);
  refuse_unless(a.solver == "bicgstab", {"--breakdown-restarts", "--stagnation-window"},
                "is BiCGSTAB's; the solver is " + a.solver);
  refuse_unless(!a.kron_files.empty(), {"--block-size"}, "is for --kron systems");
  refuse_unless(!a.kronecker(), {"--fallback", "--view", "--repeat"},
                "has no effect on a Kronecker system (GMRES with its stage preconditioner, run once: no fallback, no "
                "settings view, no repeated runs)");
  const std::string family = a.precond.substr(0, a.precond.find(':'));
  refuse_unless(a.compare || family == "dd" || family == "auto",
                {"--subdomain-rows", "--node-size", "--partitioner", "--coupling-weights"},
                "is dd's (or auto's, which may build dd); the preconditioner is " + a.precond);
  // METIS's options: the geometric, contiguous, slab and region cuts ignore them.
  const bool metis_may_run = !given_options.count("--partitioner") || a.options.partitioner == Partitioner::metis ||
                             a.options.partitioner == Partitioner::automatic;
  refuse_unless(metis_may_run, {"--node-size", "--coupling-weights"},
                std::string("is METIS's (dd's graph partition); the partitioner ") + to_string(a.options.partitioner) +
                    " does not read it");
  const bool pivots_apply = a.compare || a.fallback == FallbackPolicy::always ||
                            !(family == "none" || family == "jacobi" || family == "gs" || family == "sgs");
  refuse_unless(
      pivots_apply, {"--pivot-tolerance", "--pivot-boost"},
      "has no effect: the preconditioner " + a.precond + " has no pivots (ilu0, ilu0-kk, dd and structilu do)");
  return a;
}

}  // namespace trellis::cli
