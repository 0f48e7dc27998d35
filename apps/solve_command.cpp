// `trellis solve`: a Krylov solve of a generated problem or a Matrix Market
// file with a chosen preconditioner; --compare runs the baselines in the same
// process and prints a speedup table; --history writes the convergence
// history as CSV and an SVG plot beside it; --json writes what the run
// printed as one JSON document.
#include <Kokkos_Core.hpp>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "convergence_plot.hpp"
#include "output_files.hpp"
#include "solve_args.hpp"
#include "trellis/config.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/gallery/kronecker_problems.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/io/kronecker_io.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/detail/vector_ops.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/kronecker_operator.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/kronecker_stages.hpp"
#include "trellis/solvers/solver.hpp"

namespace trellis::cli {
namespace {

using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;
using ConstVector = Kokkos::View<const double*, Device>;

struct Run {
  std::string label;
  double setup_seconds = 0, solve_seconds = 0;
  std::string setup_detail;
  KrylovResult result;
  Json preconditioner = Json::object();  // --json: asked, built, why (auto), setup report
  Json attempts = Json::array();         // --json: the Solver's attempts
  Json settings;                         // --json: the settings as run (the solve asked for)
  int repeat = 1;                        // runs whose median times these are
  /// Wall seconds since the solve began at which each entry of
  /// result.history was known (empty if the count did not match).
  std::vector<double> history_seconds;
};

/// The median of a few times (the upper middle of an even count).
double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Progress during a solve: on a terminal one line rewritten at most five
/// times a second; elsewhere (a log) a line every TRELLIS_PROGRESS_SECONDS
/// seconds (default 5), so that a long solve shows it is alive.
std::function<void(int, double)> progress_line() {
  const bool terminal = isatty(fileno(stdout));
  double every = terminal ? 0.2 : 5.0;
  if (const char* e = std::getenv("TRELLIS_PROGRESS_SECONDS"); e && !terminal) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && *end == '\0' && v >= 0 && std::isfinite(v)) every = v;
  }
  auto last = std::make_shared<time_point>(now());
  return [last, every, terminal](int it, double rel) {
    if (seconds_since(*last) < every) return;
    *last = now();
    if (terminal)
      std::printf("\r  iteration %6d  relative residual %.3e ", it, rel);
    else
      std::printf("  iteration %6d  relative residual %.3e\n", it, rel);
    std::fflush(stdout);
  };
}

/// The wall time of every entry of a solve's residual history. The drivers
/// call KrylovOptions::on_iteration once each time the history grows (and
/// the Solver runs its attempts one after another, their histories joined),
/// so the n-th call's time is the n-th entry's; the history itself records
/// no times. start() before each solve.
struct IterationClock {
  time_point began = now();
  std::vector<double> seconds;
  void start() {
    seconds.clear();
    began = now();
  }
  /// The times, when there is one per entry of `history`; else none.
  std::vector<double> times_of(const std::vector<double>& history) const {
    return seconds.size() == history.size() ? seconds : std::vector<double>{};
  }
};

/// The drivers' on_iteration hook: the time of the new history entry to
/// `clock`, then the progress display.
std::function<void(int, double)> timed_progress(const std::shared_ptr<IterationClock>& clock) {
  return [clock, show = progress_line()](int it, double rel) {
    clock->seconds.push_back(seconds_since(clock->began));
    show(it, rel);
  };
}

/// Clears the terminal's progress line after a solve.
void end_progress_line() {
  if (isatty(fileno(stdout))) std::printf("\r%60s\r", "");
}

KrylovResult run_solver(const SolveArgs& a, const LinearOperator<double, Device>& A,
                        const Preconditioner<double, Device>& M, ConstVector b, Vector x,
                        const std::shared_ptr<IterationClock>& clock) {
  KrylovOptions o = a.krylov;
  o.on_iteration = timed_progress(clock);
  KrylovResult r;
  if (a.solver == "cg")
    r = cg(A, M, b, x, o);
  else if (a.solver == "gmres")
    r = gmres(A, M, b, x, o);
  else
    r = bicgstab(A, M, b, x, o, a.form);
  end_progress_line();
  return r;
}

/// --view: the settings of the solve as run.
void print_settings(const SolveArgs& a, const SolverOptions& o, const BuiltPreconditioner& M, const std::string& spec) {
  const PreconditionerOptions& po = o.preconditioner_options;
  const std::string form = a.solver == "bicgstab" ? std::string(" (") + to_string(o.form) + " form)" : "";
  const std::string cycle = a.solver == "gmres" ? ", restart " + std::to_string(o.krylov.restart) + ", " +
                                                      to_string(o.krylov.orthogonalization)
                                                : "";
  std::printf("settings:\n  solver           %s%s, rel_tol %.3g, abs_tol %.3g, max %d iterations%s\n", a.solver.c_str(),
              form.c_str(), o.krylov.rel_tol, o.krylov.abs_tol, o.krylov.max_iterations, cycle.c_str());
  if (a.solver == "bicgstab")
    std::printf("  restarts         up to %d after a breakdown or %d iterations without progress\n",
                o.krylov.max_breakdown_restarts, o.krylov.stagnation_window);
  std::printf("  fallback         %s\n  preconditioner   %s (asked: %s)\n", to_string(o.fallback), M.name.c_str(),
              spec.c_str());
  std::printf("  pivots           tolerance %.3g, boost %.3g\n", po.pivots.tolerance, po.pivots.boost);
  if (M.kind == PreconditionerKind::dd)
    std::printf("  dd               partitioner %s, subdomain rows %d%s, node size %d%s, coupling weights %s\n",
                to_string(po.partitioner), int(po.subdomain_rows), po.subdomain_rows ? "" : " (automatic)",
                int(po.node_size), po.node_size ? "" : " (detected)", po.coupling_weights ? "on" : "off");
  if (po.grid[0] > 0) std::printf("  grid             %dx%dx%d\n", po.grid[0], po.grid[1], po.grid[2]);
}

/// --json: the settings of the solve as run (print_settings's), and where it ran.
Json settings_json(const SolveArgs& a, const SolverOptions& o, const BuiltPreconditioner& M) {
  const PreconditionerOptions& po = o.preconditioner_options;
  Json s;
  s["solver"] = a.solver;
  if (a.solver == "bicgstab") s["form"] = to_string(o.form);
  s["tolerance"] = o.krylov.rel_tol;
  s["absolute_tolerance"] = o.krylov.abs_tol;
  s["max_iterations"] = o.krylov.max_iterations;
  if (a.solver == "gmres") {
    s["restart"] = o.krylov.restart;
    s["orthogonalization"] = to_string(o.krylov.orthogonalization);
  }
  if (a.solver == "bicgstab") {
    s["breakdown_restarts"] = o.krylov.max_breakdown_restarts;
    s["stagnation_window"] = o.krylov.stagnation_window;
  }
  s["fallback"] = to_string(o.fallback);
  s["pivots"] = {{"tolerance", po.pivots.tolerance}, {"boost", po.pivots.boost}};
  if (M.kind == PreconditionerKind::dd)
    s["dd"] = {{"partitioner", to_string(po.partitioner)},
               {"subdomain_rows", int(po.subdomain_rows)},  // 0: automatic
               {"node_size", int(po.node_size)},            // 0: detected
               {"coupling_weights", po.coupling_weights}};
  if (po.grid[0] > 0) s["grid"] = Json::array({po.grid[0], po.grid[1], po.grid[2]});
  s["backend"] = Kokkos::DefaultExecutionSpace::name();
  s["host_threads"] = Kokkos::DefaultHostExecutionSpace().concurrency();
  return s;
}

/// Solves A x = A 1 from x = 0 with the preconditioner named by spec,
/// through the Solver (the fallback as --fallback says; baselines strict).
Run solve_with(const gallery::Problem& p, const std::string& spec, const SolveArgs& a, bool baseline) {
  const size_t n = size_t(p.matrix.num_rows);
  Vector ones("ones", n), b("b", n), x("x", n);
  Kokkos::deep_copy(ones, 1.0);
  const HostBsr blocks = p.block_matrix ? *p.block_matrix : csr_to_bsr(p.matrix, 1);
  const BsrOperator<double, Device> A(copy_to<Device>(blocks));  // checks that A is square
  // A vector file of n entries, to the device.
  auto read_vector = [&](const std::string& path, const char* what, Vector into) {
    const std::vector<double> v = io::read_matrix_market_vector(path);
    if (v.size() != n)
      throw InputError(std::string(what) + " '" + path + "' has " + std::to_string(v.size()) +
                       " entries; the matrix has " + std::to_string(n) + " rows");
    Kokkos::deep_copy(into, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), n));
  };
  if (a.rhs.empty())
    A.apply(ones, b);
  else
    read_vector(a.rhs, "--rhs", b);
  Vector x_start("x_start", n);  // x0, each run's start
  if (!a.x0.empty()) {
    // The solvers balance an extreme b (with_balanced_rhs), not x0: an x0
    // whose norm overflows, or whose r0 = b - A x0 does, ends every method
    // "non-finite" at its first step without naming the start.
    read_vector(a.x0, "--x0", x_start);
    const Kokkos::DefaultExecutionSpace space;
    if (!std::isfinite(detail::norm2(space, x_start))) {  // the library's norm: scaled, so only a true overflow
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", detail::max_abs(space, x_start));
      throw InputError("--x0 '" + a.x0 + "': its 2-norm overflows a double (largest entry " + text +
                       "); start from a smaller x0, or scale the system");
    }
    Vector ax("ax", n);
    A.apply(x_start, ax);
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ax);
    for (size_t i = 0; i < n; ++i)
      if (!std::isfinite(h(i)))
        throw InputError("--x0 '" + a.x0 + "': A x0 overflows a double (row " + std::to_string(i + 1) +
                         "); start from a smaller x0, or scale the system");
  }
  SolverOptions o;
  o.preconditioner = spec;
  o.method = parse<KrylovMethod>(a.solver);
  o.form = a.form;
  o.krylov = a.krylov;
  const auto clock = std::make_shared<IterationClock>();
  o.krylov.on_iteration = timed_progress(clock);
  o.preconditioner_options = a.options;
  if (p.grid[0] > 0 && o.preconditioner_options.grid[0] == 0)
    o.preconditioner_options.grid = {p.grid[0], std::max(1, p.grid[1]), std::max(1, p.grid[2])};
  o.fallback = baseline ? FallbackPolicy::strict : a.fallback;
  // Each of the runs sets up and solves anew (a fallback's state does not
  // carry over); the times are the medians, the rest is the last run's.
  const int runs = a.repeat > 0 ? a.repeat : a.compare ? 3 : 1;
  std::vector<double> setup_s, solve_s;
  std::optional<Solver> kept;
  SolveReport report;
  for (int r = 0; r < runs; ++r) {
    kept.reset();  // the previous run's device memory, freed before the next setup
    const auto t0 = now();
    kept.emplace(p.matrix, A.matrix(), o);
    Kokkos::fence();
    setup_s.push_back(seconds_since(t0));
    Kokkos::deep_copy(x, x_start);
    clock->start();
    const auto t1 = clock->began;
    report = kept->solve(b, x);
    Kokkos::fence();
    solve_s.push_back(seconds_since(t1));
    end_progress_line();
  }
  const Solver& solver = *kept;
  Run run;
  run.setup_seconds = median(setup_s);
  run.solve_seconds = median(solve_s);
  run.repeat = runs;
  const BuiltPreconditioner& M = solver.preconditioner();
  if (a.view && !baseline) print_settings(a, o, M, spec);
  run.label = M.auto_reason.empty() ? M.name : "auto=" + M.name;
  run.setup_detail = M.setup_report;
  run.preconditioner = {{"asked", spec}, {"built", M.name}};
  if (!M.auto_reason.empty()) run.preconditioner["auto_reason"] = M.auto_reason;
  if (!M.setup_report.empty()) run.preconditioner["setup_report"] = M.setup_report;
  if (!baseline) run.settings = settings_json(a, o, M);
  run.result = report.result;
  run.history_seconds = clock->times_of(run.result.history);
  for (const SolveAttempt& t : report.attempts) {
    Json attempt = {{"preconditioner", t.preconditioner}};
    if (!t.setup_error.empty()) {
      attempt["setup_error"] = t.setup_error;
    } else {
      attempt["status"] = to_string(t.result.status);
      attempt["iterations"] = t.result.iterations;
      attempt["setup_seconds"] = t.setup_seconds;
      attempt["solve_seconds"] = t.solve_seconds;
    }
    attempt["boosted_pivots"] = t.boosted_pivots;
    run.attempts.push_back(std::move(attempt));
  }
  if (!report.preconditioner.empty()) run.preconditioner["solved_by"] = report.preconditioner;
  if (!baseline && !a.solution.empty()) {
    std::vector<double> hx(n);
    Kokkos::deep_copy(Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(hx.data(), n), x);
    io::write_matrix_market_vector(a.solution, hx);
    std::printf("solution: %s\n", a.solution.c_str());
  }
  if (report.attempts.size() > 1 || !report.result.restarts.empty()) {
    run.setup_detail += (run.setup_detail.empty() ? "" : "\n") + std::string("attempts:\n") + report.describe();
    if (!report.preconditioner.empty() && report.preconditioner != M.name) run.label += "->" + report.preconditioner;
  }
  return run;
}

/// --json: what every document starts with.
Json document_head(const std::vector<std::string>& args) {
  return {{"command", "trellis solve"}, {"trellis_version", TRELLIS_VERSION}, {"arguments", args}};
}

/// --json: the preconditioner and the outcome of a run.
void add_outcome(Json& doc, const Run& r) {
  doc["preconditioner"] = r.preconditioner;
  doc["status"] = to_string(r.result.status);
  doc["iterations"] = r.result.iterations;
  doc["true_relative_residual"] = r.result.true_relative_residual;
  doc["setup_seconds"] = r.setup_seconds;
  doc["solve_seconds"] = r.solve_seconds;
}

/// --json: one run as print_run and --history give it.
Json run_json(const Run& r) {
  Json j;
  j["label"] = r.label;
  add_outcome(j, r);
  j["runs"] = r.repeat;  // the times are the medians of these
  Json restarts = Json::array();
  for (const KrylovRestart& k : r.result.restarts)
    restarts.push_back({{"iteration", k.iteration}, {"reason", to_string(k.reason)}});
  j["restarts"] = std::move(restarts);
  if (!r.attempts.empty()) j["attempts"] = r.attempts;
  j["history"] = r.result.history;           // relative residual per iteration, the start first
  j["history_seconds"] = r.history_seconds;  // when each was known, in seconds since the solve began
  return j;
}

void print_run(const Run& r) {
  std::printf("%-28s %-15s %6d it  setup %8.4f s  solve %8.4f s  true residual %.2e\n", r.label.c_str(),
              to_string(r.result.status), r.result.iterations, r.setup_seconds, r.solve_seconds,
              r.result.true_relative_residual);
  std::fflush(stdout);
}

/// The SVG plot's path beside the CSV: its extension (after the last '/')
/// replaced by .svg.
std::string plot_path(const std::string& csv) {
  const size_t slash = csv.rfind('/'), dot = csv.rfind('.');
  const bool extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return csv.substr(0, extension ? dot : csv.size()) + ".svg";
}

/// Whether two paths name one file (the files exist) or one place (not yet).
bool same_file(const std::string& x, const std::string& y) {
  namespace fs = std::filesystem;
  std::error_code e1, e2;
  if (fs::exists(x, e1) && fs::exists(y, e2)) return fs::equivalent(x, y, e1);
  const fs::path cx = fs::weakly_canonical(x, e1), cy = fs::weakly_canonical(y, e2);
  return !e1 && !e2 && cx == cy;  // a path the system refuses (too long) is no other one: its write says why
}

/// Fails before anything is written when an output file (the solution, the
/// history's CSV or plot) is an input (the matrix, b, x0, a Kronecker
/// factor) or another output: either would be lost without a word.
void check_outputs_overwrite_no_input(const SolveArgs& a) {
  std::vector<std::pair<std::string, std::string>> inputs, outputs;
  if (!a.kronecker()) inputs.push_back({"the problem's file", a.problem});
  if (!a.rhs.empty()) inputs.push_back({"--rhs", a.rhs});
  if (!a.x0.empty()) inputs.push_back({"--x0", a.x0});
  for (const auto& f : a.kron_files) inputs.push_back({"a --kron file", f});
  if (!a.solution.empty()) outputs.push_back({"--write-solution", a.solution});
  if (!a.json.empty()) outputs.push_back({"--json", a.json});
  if (!a.history.empty()) {
    outputs.push_back({"--history", a.history});
    if (plot_path(a.history) != a.history)  // else check_history_writable says what --history takes
      outputs.push_back({"--history's plot", plot_path(a.history)});
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    for (const auto& in : inputs)
      if (same_file(outputs[o].second, in.second))
        throw InputError(outputs[o].first + " '" + outputs[o].second + "' is " + in.first +
                         ": writing it would destroy the input; give another path");
    for (size_t p = 0; p < o; ++p)
      if (same_file(outputs[o].second, outputs[p].second))
        throw InputError(outputs[o].first + " and " + outputs[p].first + " are the same file '" + outputs[o].second +
                         "': one would overwrite the other");
  }
}

/// Fails before any solve when the history files cannot be written (a
/// typo in the path should not cost a long solve).
void check_history_writable(const std::string& path) {
  // The plot goes beside the CSV: not into /dev or /proc (/dev/stdout.svg).
  if (const char* system = system_folder_of(path))
    throw InputError("--history '" + path + "' is in " + system + ": the plot is written beside the CSV (" +
                     plot_path(path) + "); give a file in a folder of yours");
  if (io::is_gzip_path(path))
    throw InputError("--history '" + path + "': the history is a plain CSV (and an SVG beside it); give FILE.csv");
  if (exists_not_regular(path))
    throw InputError("--history '" + path + "' is not a regular file; it takes the CSV's path (FILE.csv), and the " +
                     "plot is written beside it (" + plot_path(path) + ")");
  if (plot_path(path) == path)
    throw InputError("--history takes the CSV's path (FILE.csv); the plot is written beside it as FILE.svg, not '" +
                     path + "'");
  for (const std::string& p : {path, plot_path(path)}) probe_writable(p, "--history");
}

/// A double in the shortest form that reads back as the same double (so two
/// runs' CSV columns are equal exactly when their values are).
std::string shortest(double v) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return ec == std::errc() ? std::string(text, end) : std::to_string(v);
}

void write_history(const std::string& path, const std::vector<Run>& runs) {
  std::ofstream csv(path);
  if (!csv) throw InputError("cannot write history file '" + path + "': " + std::strerror(errno));
  // seconds: the wall time since the solve began at which that residual was
  // known (empty when not recorded).
  csv << "method,iteration,relative_residual,seconds\n";
  std::vector<PlotSeries> series;
  for (const Run& r : runs) {
    for (size_t i = 0; i < r.result.history.size(); ++i) {
      csv << r.label << "," << i << "," << shortest(r.result.history[i]) << ",";
      if (i < r.history_seconds.size()) csv << shortest(r.history_seconds[i]);
      csv << "\n";
    }
    series.push_back({r.label, r.result.history, r.history_seconds});
  }
  csv.flush();
  if (!csv) throw InputError("cannot write history file '" + path + "': write failed");
  const std::string svg = plot_path(path);
  write_convergence_svg(svg, series, "relative residual");
  std::printf("history: %s, plot: %s\n", path.c_str(), svg.c_str());
}

/// GMRES on a Kronecker system, F = K 1, with no or a stage preconditioner.
int kronecker_solve(const SolveArgs& a, const std::vector<std::string>& args) {
  const KroneckerSystem sys = a.kron_files.empty()
                                  ? kron_stokes_system(a.problem)
                                  : io::read_kronecker_system(a.kron_files[0], a.kron_files[1], a.kron_files[2],
                                                              a.kron_files[3], a.tau, a.block_size);
  const KroneckerOperator<double, Device> K(sys);
  std::printf("problem: %s\n  N = %d rows x s = %d stages = %d unknowns, block size %d, %s\n", sys.description.c_str(),
              sys.space_rows(), sys.stages, K.num_rows(), sys.M.block_size,
              K.shared_pattern() ? "M and L on one pattern (one pass)" : "M and L on different patterns");
  std::printf("solver: gmres(%d, %s), tolerance %.1e, backend %s\n", a.krylov.restart,
              to_string(a.krylov.orthogonalization), a.krylov.rel_tol, Kokkos::DefaultExecutionSpace::name());
  Vector ones("ones", size_t(K.num_rows())), b("b", size_t(K.num_rows())), x("x", size_t(K.num_rows()));
  Kokkos::deep_copy(ones, 1.0);
  K.apply(ones, b);
  Run run;
  run.preconditioner = {{"asked", a.precond}};
  auto t0 = now();
  std::unique_ptr<Preconditioner<double, Device>> P;
  if (a.precond == "none") {
    P = std::make_unique<IdentityPreconditioner<double, Device>>();
    run.label = "none";
    run.preconditioner["built"] = run.label;
  } else {
    auto stages = std::make_unique<KroneckerStagePreconditioner>(sys, 0, a.precond, a.options);
    run.label = "stages:" + stages->stage().name;
    run.preconditioner["built"] = run.label;
    run.preconditioner["alpha"] = stages->alpha();
    run.preconditioner["gamma"] = stages->gamma();
    std::printf("preconditioner: I_s (x) %s(%g M + %g tau L)\n", stages->stage().name.c_str(), stages->alpha(),
                stages->gamma());
    P = std::move(stages);
  }
  Kokkos::fence();
  run.setup_seconds = seconds_since(t0);
  const auto clock = std::make_shared<IterationClock>();
  clock->start();
  t0 = clock->began;
  run.result = run_solver(a, K, *P, b, x, clock);
  Kokkos::fence();
  run.solve_seconds = seconds_since(t0);
  run.history_seconds = clock->times_of(run.result.history);
  print_run(run);
  if (!a.history.empty()) write_history(a.history, {run});
  if (!a.json.empty()) {
    Json doc = document_head(args);
    Json& problem = doc["problem"];
    if (a.kron_files.empty())
      problem["spec"] = a.problem;
    else
      problem["files"] = a.kron_files, problem["tau"] = a.tau;
    problem["description"] = sys.description;
    problem["space_rows"] = sys.space_rows();
    problem["stages"] = sys.stages;
    problem["unknowns"] = K.num_rows();
    problem["block_size"] = sys.M.block_size;
    problem["shared_pattern"] = K.shared_pattern();
    doc["options"] = {{"solver", "gmres"},
                      {"tolerance", a.krylov.rel_tol},
                      {"absolute_tolerance", a.krylov.abs_tol},
                      {"max_iterations", a.krylov.max_iterations},
                      {"restart", a.krylov.restart},
                      {"orthogonalization", to_string(a.krylov.orthogonalization)},
                      {"backend", Kokkos::DefaultExecutionSpace::name()},
                      {"host_threads", Kokkos::DefaultHostExecutionSpace().concurrency()}};
    add_outcome(doc, run);
    doc["runs"] = Json::array({run_json(run)});
    if (!a.history.empty()) doc["history_file"] = a.history;
    write_json_file(a.json, doc);
  }
  return run.result.converged() ? 0 : 3;
}

}  // namespace

KroneckerSystem kron_stokes_system(const std::string& spec) {
  const std::string usage = "expected kron-stokes:NXxNYxNZ[:s=S][:tau=T], got '" + spec + "'";
  auto split = [](const std::string& t, char sep) {
    std::vector<std::string> out;
    for (size_t at = 0, next; at != std::string::npos; at = next == std::string::npos ? next : next + 1)
      out.push_back(t.substr(at, (next = t.find(sep, at)) == std::string::npos ? next : next - at));
    return out;
  };
  // The whole token as an int (no trailing characters, no wrap-around).
  auto integer = [&](const std::string& t, const char* what) {
    long long v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size())
      throw InputError(usage + ": " + what + " '" + t + "' is not a whole number");
    if (v > std::numeric_limits<int>::max() || v < -std::numeric_limits<int>::max())
      throw InputError(usage + ": " + what + " " + t + " is out of range (|" + what +
                       "| <= " + std::to_string(std::numeric_limits<int>::max()) + ")");
    return int(v);
  };
  const std::vector<std::string> parts = split(spec, ':');
  const std::vector<std::string> sizes = parts.size() >= 2 ? split(parts[1], 'x') : std::vector<std::string>{};
  if (sizes.size() != 3) throw InputError(usage);
  const int nx = integer(sizes[0], "NX"), ny = integer(sizes[1], "NY"), nz = integer(sizes[2], "NZ");
  int s = 2;
  double tau = 0.125;
  bool s_given = false, tau_given = false;  // a key given twice took its last value without a word
  for (size_t k = 2; k < parts.size(); ++k)
    if (parts[k].rfind("s=", 0) == 0) {
      if (std::exchange(s_given, true)) throw InputError(usage + ": s given twice");
      s = integer(parts[k].substr(2), "s");
    } else if (parts[k].rfind("tau=", 0) == 0) {
      if (std::exchange(tau_given, true)) throw InputError(usage + ": tau given twice");
      const std::string t = parts[k].substr(4);
      size_t used = 0;
      try {
        tau = std::stod(t, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (t.empty() || used != t.size()) throw InputError(usage + ": tau '" + t + "' is not a number");
    } else {
      throw InputError(usage);
    }
  return gallery::stokes_kronecker(nx, ny, nz, s, tau);
}

int solve_command(const std::vector<std::string>& args) {
  const SolveArgs a = parse_solve_args(args);
  if (a.help) return std::printf("%s", solve_usage.c_str()), 0;
  check_outputs_overwrite_no_input(a);
  if (!a.history.empty()) check_history_writable(a.history);
  if (!a.solution.empty()) probe_writable(a.solution, "--write-solution");
  if (!a.json.empty()) check_json_path(a.json);
  if (a.kronecker()) return kronecker_solve(a, args);
  const gallery::Problem p = gallery::load_problem(a.problem);
  std::printf("problem: %s (%s), %d rows, %d nonzeros%s\n", p.name.c_str(), p.description.c_str(), p.matrix.num_rows,
              p.matrix.nnz(), p.block_matrix ? (", BSR b=" + std::to_string(p.block_matrix->block_size)).c_str() : "");
  std::printf("solver: %s, tolerance %.1e, backend %s\n", a.solver.c_str(), a.krylov.rel_tol,
              Kokkos::DefaultExecutionSpace::name());
  std::printf("right-hand side: %s, start: %s\n", a.rhs.empty() ? "b = A 1 (the solution is x = 1)" : a.rhs.c_str(),
              a.x0.empty() ? "x0 = 0" : a.x0.c_str());
  std::vector<std::string> specs{a.precond};
  if (a.compare)
    for (const char* s : {"dd", "ilu0-kk", "ilu0:levelset-csr", "ilu0:auto", "jacobi"})
      if (specs.front() != s && !(std::string(s) == "dd" && specs.front().rfind("dd:", 0) == 0)) specs.push_back(s);
  std::vector<Run> runs;
  Json skipped = Json::array();  // --json: the baselines that could not run, and why
  for (const auto& spec : specs) {
    try {
      runs.push_back(solve_with(p, spec, a, spec != specs.front()));
    } catch (const Error& e) {
      if (spec == specs.front()) throw;                            // the solve asked for: an error
      std::printf("%-28s skipped: %s\n", spec.c_str(), e.what());  // a baseline: say why, go on
      skipped.push_back({{"preconditioner", spec}, {"error", e.what()}});
      continue;
    }
    if (!runs.back().setup_detail.empty()) std::printf("%s\n", runs.back().setup_detail.c_str());
    print_run(runs.back());
  }
  Json compare;  // --json: the table's rows
  if (a.compare) {
    // Only converged runs that iterated are ranked: a run stopped at the
    // limit has not solved the problem, and a 0-iteration run timed nothing.
    auto rankable = [](const Run& r) { return r.result.converged() && r.result.iterations > 0; };
    const Run* base = nullptr;
    for (const Run& r : runs)
      if (r.label == "ilu0-kk" && rankable(r)) base = &r;
    for (const Run& r : runs)
      if (!base && rankable(r)) base = &r;
    std::printf("\n%-28s %6s %10s %10s %14s %14s\n", "preconditioner", "iters", "solve s", "total s", "speedup(solve)",
                "speedup(total)");
    compare["baseline"] = base ? Json(base->label) : Json(nullptr);
    compare["rows"] = Json::array();
    for (const Run& r : runs) {
      const double total = r.setup_seconds + r.solve_seconds;
      std::printf("%-28s %6d %10.4f %10.4f ", r.label.c_str(), r.result.iterations, r.solve_seconds, total);
      Json row = {{"preconditioner", r.label},
                  {"iterations", r.result.iterations},
                  {"solve_seconds", r.solve_seconds},
                  {"total_seconds", total}};
      if (base && rankable(r)) {
        const double solve_speedup = base->solve_seconds / r.solve_seconds;
        const double total_speedup = (base->setup_seconds + base->solve_seconds) / total;
        std::printf("%13.2fx %13.2fx\n", solve_speedup, total_speedup);
        row["speedup_solve"] = solve_speedup, row["speedup_total"] = total_speedup;
      } else {
        std::printf("%14s %14s\n", "-", r.result.converged() ? "(0 iterations)" : "(not converged)");
        row["speedup_solve"] = row["speedup_total"] = nullptr;  // not ranked
        row["not_ranked"] = r.result.converged() ? "0 iterations" : "not converged";
      }
      compare["rows"].push_back(std::move(row));
    }
    if (base)
      std::printf("speedups against %s, same process; runs that did not converge or did not iterate are not ranked\n",
                  base->label == "ilu0-kk" ? "global ILU0 with Kokkos Kernels triangular solves (ilu0-kk)"
                                           : base->label.c_str());
    else
      std::printf("no run converged after iterating: nothing to rank\n");
    // How every method ran: the baseline on the same backend and threads as the rest.
    std::printf(
        "times: the median of %d runs of each method, setup and solve timed apart; every method on %s, %d "
        "threads or lanes\n",
        runs.front().repeat, Kokkos::DefaultExecutionSpace::name(), int(Kokkos::DefaultExecutionSpace().concurrency()));
    compare["runs_per_method"] = runs.front().repeat;
    compare["backend"] = Kokkos::DefaultExecutionSpace::name();
    compare["threads"] = int(Kokkos::DefaultExecutionSpace().concurrency());
  }
  if (!a.history.empty()) write_history(a.history, runs);
  if (!a.json.empty()) {
    Json doc = document_head(args);
    doc["problem"] = {{"spec", a.problem},
                      {"name", p.name},
                      {"description", p.description},
                      {"rows", p.matrix.num_rows},
                      {"nonzeros", p.matrix.nnz()},
                      {"block_size", p.block_matrix ? p.block_matrix->block_size : 1}};
    doc["right_hand_side"] = a.rhs.empty() ? "A 1" : a.rhs;  // b = A 1: the solution is x = 1
    doc["start"] = a.x0.empty() ? "0" : a.x0;
    doc["options"] = runs.front().settings;
    add_outcome(doc, runs.front());
    if (!a.solution.empty()) doc["solution_file"] = a.solution;
    if (!a.history.empty()) doc["history_file"] = a.history;
    Json all = Json::array();
    for (const Run& r : runs) all.push_back(run_json(r));
    doc["runs"] = std::move(all);
    if (a.compare) doc["skipped"] = std::move(skipped), doc["compare"] = std::move(compare);
    write_json_file(a.json, doc);
  }
  for (const Run& r : runs)
    if (!r.result.converged()) return 3;
  return 0;
}

}  // namespace trellis::cli
