// `trellis solve` options, read with CLI11 (command_line.hpp): every value
// checked (finite, in range, whole where it counts) and named in the error
// otherwise; options that would have no effect are errors.
#include "solve_args.hpp"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>

#include "command_line.hpp"
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

namespace {

/// A finite number within [lo, hi], the option named in the error otherwise.
double number(const std::string& k, const std::string& v, double lo, double hi, const char* range) {
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
}

/// A whole number within [lo, hi].
int whole(const std::string& k, const std::string& v, double lo, double hi, const char* range) {
  const double d = number(k, v, lo, hi, range);
  if (d != std::floor(d)) throw InputError(k + ": '" + v + "' is not a whole number");
  return int(d);
}

}  // namespace

SolveArgs parse_solve_args(const std::vector<std::string>& given) {
  SolveArgs a;
  CLI::App app("a Krylov solve with a preconditioner", "trellis solve");
  app.allow_extras();  // unknown options and a second problem are named below
  // What each option sets, from the text of its value(s); run in the order
  // the options are given.
  std::map<const CLI::Option*, std::function<void(const std::string& name, const std::vector<std::string>& v)>> sets;
  auto option = [&](const char* name, std::function<void(const std::string&, const std::string&)> set) {
    sets[app.add_option(name)->take_all()] = [set](const std::string& k, const std::vector<std::string>& v) {
      set(k, v[0]);
    };
  };
  auto flag = [&](const char* name, std::function<void()> set) {
    sets[app.add_flag(name)] = [set](const std::string&, const std::vector<std::string>&) { set(); };
  };
  // A file's path: an empty one (--rhs '') is an error, not silence.
  auto path = [&](const char* name, std::string& to) {
    option(name, [&to](const std::string& k, const std::string& v) {
      if (v.empty()) throw InputError(k + " needs a file's path (got an empty one)");
      to = v;
    });
  };
  CLI::Option* problem = app.add_option("problem")->take_all();
  sets[problem] = [&a](const std::string&, const std::vector<std::string>& v) { a.problem = v[0]; };
  option("--solver", [&](auto&, auto& v) { a.solver = v; });
  option("--precond", [&](auto&, auto& v) { a.precond = canonical_preconditioner(v), a.precond_given = true; });
  sets[app.add_option("--kron")->expected(4)->take_all()] =
      [&a](const std::string&, const std::vector<std::string>& v) { a.kron_files = v; };
  option("--tau", [&](auto& k, auto& v) { a.tau = number(k, v, 0, 1e300, "0 to 1e300"); });
  option("--block-size", [&](auto& k, auto& v) { a.block_size = whole(k, v, 1, 8, "1 to 8"); });
  option("--form", [&](auto&, auto& v) { a.form = parse<BicgstabForm>(v); });
  option("--tol",
         [&](auto& k, auto& v) { a.krylov.rel_tol = number(k, v, 1e-300, 0.5, "a relative tolerance in (0, 0.5]"); });
  option("--max-iter", [&](auto& k, auto& v) { a.krylov.max_iterations = whole(k, v, 0, 1e9, "0 to 10^9"); });
  option("--restart", [&](auto& k, auto& v) { a.krylov.restart = whole(k, v, 1, 1000, "1 to 1000 vectors"); });
  option("--orthogonalization", [&](auto&, auto& v) { a.krylov.orthogonalization = parse<GmresOrthogonalization>(v); });
  option("--subdomain-rows", [&](auto& k, auto& v) {
    a.options.subdomain_rows = ordinal_t(whole(k, v, 1, 2147483647, "1 to 2147483647"));
  });
  option("--node-size",
         [&](auto& k, auto& v) { a.options.node_size = ordinal_t(whole(k, v, 0, 8, "0 (detect) to 8")); });
  option("--partitioner", [&](auto&, auto& v) { a.options.partitioner = parse<Partitioner>(v); });
  option("--coupling-weights", [&](auto& k, auto& v) {
    if (v != "on" && v != "off") throw InputError(k + ": '" + v + "' is not on or off");
    a.options.coupling_weights = v == "on";
  });
  option("--pivot-tolerance", [&](auto& k, auto& v) { a.options.pivots.tolerance = number(k, v, 0, 1, "0 to 1"); });
  option("--pivot-boost", [&](auto& k, auto& v) { a.options.pivots.boost = number(k, v, 0, 1e300, "0 to 1e300"); });
  option("--fallback", [&](auto&, auto& v) { a.fallback = parse<FallbackPolicy>(v); });
  flag("--strict", [&] { a.fallback = FallbackPolicy::strict; });
  option("--breakdown-restarts",
         [&](auto& k, auto& v) { a.krylov.max_breakdown_restarts = whole(k, v, 0, 1000, "0 to 1000"); });
  option("--stagnation-window",
         [&](auto& k, auto& v) { a.krylov.stagnation_window = whole(k, v, 0, 1e9, "0 to 10^9"); });
  flag("--compare", [&] { a.compare = true; });
  option("--repeat", [&](auto& k, auto& v) { a.repeat = whole(k, v, 1, 100, "1 to 100 runs"); });
  flag("--view", [&] { a.view = true; });
  path("--history", a.history);
  path("--rhs", a.rhs);
  path("--x0", a.x0);
  path("--write-solution", a.solution);
  path("--json", a.json);

  if (!read_options(app, given)) {
    a.help = true;
    return a;
  }
  // What CLI11 did not take, and a "problem" it took for one that looks like
  // an option (---tol, -5), named as unknown options.
  auto refuse_option = [](const std::string& k) {
    if (k.rfind("--", 0) == 0) throw InputError("unknown option '" + option_name(k) + "'\n" + solve_usage);
    if (k.size() > 1 && k[0] == '-')  // -ksp_type: an option, not a problem
      throw InputError("unknown option '" + k + "' (options start with --)\n" + solve_usage);
  };
  const std::string first = problem->results().empty() ? std::string() : problem->results().front();
  refuse_option(first);
  if (const std::string k = first_unknown(app); !k.empty()) {
    refuse_option(k);
    throw InputError("more than one problem given ('" + first + "', '" + k + "')");
  }
  for_each_option_given(app, [&](const CLI::Option& o, const std::vector<std::string>& values) {
    const auto& set = sets.at(&o);
    set(o.get_name(), values);
  });
  const bool have_problem = problem->count() > 0;
  auto given_option = [&](const char* name) { return app.count(name) > 0; };
  const bool tau_given = given_option("--tau"), form_given = given_option("--form");
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
    if (given_option("--solver") && a.solver != "gmres")
      throw InputError("Kronecker systems are solved with GMRES; --solver " + a.solver + " cannot run them");
    a.solver = "gmres";
    if (!a.precond_given) a.precond = "none";
  }
  if (given_option("--strict") && given_option("--fallback"))
    throw InputError("--strict and --fallback both set the fallback policy; give one");
  // Options of a method or preconditioner that this solve does not run.
  auto refuse_unless = [&](bool applies, std::initializer_list<const char*> names, const std::string& why) {
    for (const char* n : names)
      if (!applies && given_option(n)) throw InputError(std::string(n) + " " + why);
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
  const bool metis_may_run = !given_option("--partitioner") || a.options.partitioner == Partitioner::metis ||
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
