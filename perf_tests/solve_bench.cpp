// solve_bench: seed 000's Tables 5.5-5.6 on this machine. BiCGSTAB (Algorithm
// 2.1 with K1 = I, K2 = M: right preconditioning, M^{-1} applied whole, as the
// fused DD kernels need and as OPM's solver does) to a relative tolerance with
//   dd:dag-ec-ilduo-fused, dd:dag-vc-ilduo-fused   (subdomain ILDU0, reordered system)
//   ilu0:elmr-value, ilu0:levelset-csr             (Trellis global ILU0)
//   cusparse-ilu0                                  (csrilu02 + SpSV; CUDA builds)
// on the same right-hand side b = A 1, same SpMV kernel (BSR). Reported:
// iterations, solve time (median of timed solves after a warm-up), setup
// time, true residual, and time-to-solution ratios against cuSPARSE ILU0
// with setup excluded and included. Setup starts from the matrix in device
// memory for DD (BSR) and cuSPARSE (point CSR), as in an application that
// keeps it there for its SpMV, and is timed as METHOD.md asks: one warm-up
// construction, then the median of five (an application that refactors in
// a Newton or time loop sets up warm). The global ILU0 setups (seconds: Kokkos
// Kernels' host-side symbolic analysis) are timed once, from the host matrix.
// Trellis's preconditioners come from the preconditioner factory, by name.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "cusparse_support.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/solvers/solver.hpp"

namespace {

using namespace trellis;
using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;
using ConstVector = Kokkos::View<const double*, Device>;
using bench::JsonArray;
using bench::JsonObject;

/// The method the speedups are about.
constexpr const char* fused_method = "dd:dag-ec-ilduo-fused";

struct Outcome {
  std::string method;
  double setup_s = 0, solve_s = 0;
  KrylovResult result;                         // the last timed run's
  int iterations_min = 0, iterations_max = 0;  // over the timed runs (result.iterations: their median)
};

/// Warm-up solve, then the median of timed solves; `prepare` (untimed)
/// resets x before each. The iterations reported are those of the timed
/// runs: their median, min and max.
Outcome time_run(const std::string& method, double setup_s, const std::function<KrylovResult()>& solve,
                 const std::function<void()>& prepare) {
  Outcome out;
  out.method = method;
  out.setup_s = setup_s;
  bench::TimingPolicy policy;
  policy.warmups = 1;
  policy.reps = 3;
  policy.min_reps = 1;
  policy.max_seconds = 30;
  std::vector<int> its;
  const bench::Timing t = bench::time_case(
      [&] {
        out.result = solve();
        its.push_back(out.result.iterations);
      },
      policy, prepare);
  out.solve_s = t.median;
  its.erase(its.begin(), its.end() - std::min<long>(t.reps, long(its.size())));  // the timed runs only
  std::sort(its.begin(), its.end());
  out.result.iterations = its[its.size() / 2];
  out.iterations_min = its.front();
  out.iterations_max = its.back();
  std::printf("  %-22s %-14s %5d it (%d-%d)  solve %8.4f s  setup %8.4f s  true residual %.2e\n", method.c_str(),
              to_string(out.result.status), out.result.iterations, out.iterations_min, out.iterations_max, out.solve_s,
              setup_s, out.result.true_relative_residual);
  std::fflush(stdout);
  return out;
}

/// time_run of one preconditioned BiCGSTAB from x = 0, in one workspace (as a
/// solver called repeatedly would be).
Outcome time_solve(const std::string& method, double setup_s, const LinearOperator<double, Device>& A,
                   const Preconditioner<double, Device>& M, ConstVector b, const KrylovOptions& o,
                   BicgstabWorkspace<double, Device>& ws) {
  Vector x("x", b.extent(0));
  return time_run(
      method, setup_s, [&] { return bicgstab(A, M, b, x, o, BicgstabForm::right, &ws); },
      [&] { Kokkos::deep_copy(x, 0.0); });
}

/// How setups are timed: a warm-up construction (module loads, first
/// allocations), then the median of five (of three, setups 2-3 ms apart on
/// the same problem were seen).
bench::TimingPolicy setup_policy() {
  bench::TimingPolicy policy;
  policy.warmups = 1;
  policy.reps = 5;
  policy.min_reps = 1;
  policy.max_seconds = 30;
  return policy;
}

/// A setup timed so; `made` keeps the last. The previous one is released untimed.
template <class T, class Make>
double time_setup(std::shared_ptr<T>& made, const Make& make) {
  return bench::time_case([&] { made = make(); }, setup_policy(), [&] { made.reset(); }).median;
}

}  // namespace

int main(int argc, char** argv) {
  bench::record_command(argc, argv);  // before Kokkos takes its options out
  // 128^3 b=3 is the paper's laplacian1.
  std::vector<std::string> problems{"blocklap3d:128x128x128:b=3", "blocklap3d:96x96x96:b=3", "blocklap3d:64x64x64:b=3",
                                    "layered3d:128x128x64", "convdiff3d:96x96x96"};
  std::string json = "solve_results.json";
  bool real = true, quick = false;
  bool run_dd = true, run_global = true, run_auto = true, run_cusparse = true;
  int subdomain_rows = 0, node_size = 0;
  Partitioner partitioner = Partitioner::automatic;
  bench::CommandLine cl("solve_bench",
                        "BiCGSTAB time to solution with DD, global ILU0, auto and cuSPARSE's ILU0 (seed 000's Tables "
                        "5.5-5.6); then the matrices of $TRELLIS_MATRICES (MANIFEST.tsv and training/).");
  cl.list("--problems", problems, "problem specs or Matrix Market files, comma-separated")
      .word(
          "--methods",
          [&](const std::string& list) {
            const auto m = bench::split_list(list);
            for (const auto& x : m)
              if (x != "dd" && x != "global" && x != "auto" && x != "cusparse")
                throw InputError("'" + x + "' is none of dd, global, auto, cusparse");
            auto has = [&](const char* x) { return std::find(m.begin(), m.end(), x) != m.end(); };
            run_dd = has("dd"), run_global = has("global"), run_auto = has("auto"), run_cusparse = has("cusparse");
          },
          "a subset of dd,global,auto,cusparse (default all)")
      .text("--json", json, "write the results to this file (default solve_results.json)")
      .flag("--no-real-matrices", real, "leave out the matrices of $TRELLIS_MATRICES", false)
      .number("--subdomain-rows", subdomain_rows, "PreconditionerOptions::subdomain_rows (0: the default)", 0, 1 << 30)
      .number("--node-size", node_size, "PreconditionerOptions::node_size (0: the default)", 0, 1 << 20)
      .word(
          "--partitioner", [&](const std::string& w) { partitioner = parse<Partitioner>(w); },
          "PreconditionerOptions::partitioner")
      .flag("--quick", quick, "two small generated problems, no real matrices (a CPU smoke check)");
  if (const int rc = cl.parse(argc, argv); rc >= 0) return rc;
  if (quick) {
    if (!cl.given("--problems")) problems = {"blocklap3d:20x20x20:b=3", "layered3d:24x24x12"};
    real = false;
  }
  Kokkos::ScopeGuard guard(argc, argv);
  if (real) {
    const std::string dir = std::getenv("TRELLIS_MATRICES") ? std::getenv("TRELLIS_MATRICES") : "";
    for (const auto& p : bench::manifest_matrices(dir)) problems.push_back(p);
    for (const auto& p : bench::training_matrices(dir)) problems.push_back(p);
  }
  try {
#if defined(TRELLIS_WITH_CUSPARSE)
    bench::CusparseLibrary cusparse;
#endif
    JsonArray rows;
    std::vector<double> excl, incl, auto_excl, auto_incl, auto_vs_better;
    std::vector<std::string> auto_failed;  // where cuSPARSE converged and auto did not
    for (const auto& spec : problems) {
      gallery::Problem p;
      try {
        p = gallery::load_problem(spec);
      } catch (const Error& e) {
        std::printf("\n%s: skipped: %s\n", spec.c_str(), e.what());
        continue;
      }
      const HostBsr blocks = p.block_matrix ? *p.block_matrix : csr_to_bsr(p.matrix, 1);
      KrylovOptions o;
      o.rel_tol = spec.rfind("layered3d", 0) == 0 ? 1e-6 : 1e-8;  // spe10-like: 1e-6, as the paper
      o.max_iterations = 5000;
      // The features that might predict a DD failure, beside the outcomes.
      long long zero_diagonals = 0, negative_diagonals = 0;
      for (ordinal_t i = 0; i < p.matrix.num_rows; ++i)
        for (offset_t k = p.matrix.row_map(i); k < p.matrix.row_map(i + 1); ++k)
          if (p.matrix.entries(k) == i)
            zero_diagonals += p.matrix.values(k) == 0, negative_diagonals += p.matrix.values(k) < 0;
      std::printf("\n%s: %d rows, tolerance %.0e, %lld zero and %lld negative diagonals\n", p.name.c_str(),
                  p.matrix.num_rows, o.rel_tol, zero_diagonals, negative_diagonals);
      const size_t n = size_t(p.matrix.num_rows);
      BsrOperator<double, Device> A(copy_to<Device>(blocks));
      Vector ones("ones", n), b("b", n);
      Kokkos::deep_copy(ones, 1.0);
      A.apply(ones, b);
      std::vector<Outcome> runs;
      BicgstabWorkspace<double, Device> ws;
      PreconditionerOptions options;
      options.subdomain_rows = subdomain_rows;
      options.node_size = node_size;
      options.partitioner = partitioner;
      if (p.grid[0] > 0) options.grid = {p.grid[0], std::max(1, p.grid[1]), std::max(1, p.grid[2])};
      // A solve in the preconditioner's numbering (dd: the reordered system).
      const auto solve = [&](const BuiltPreconditioner& M, double setup_s) {
        const BsrOperator<double, Device> natural(A.matrix());
        const LinearOperator<double, Device>& op = M.reordered() ? M.reordered_operator() : natural;
        Vector b_solver("b_solver", n);
        M.to_reordered(b, b_solver);
        runs.push_back(time_solve(M.name, setup_s, op, *M.preconditioner, b_solver, o, ws));
      };
      JsonObject dd_setup, choice_times;
      long long auto_attempts = 0;
      for (const char* spec : {fused_method, "dd:dag-vc-ilduo-fused"}) {
        if (run_dd) try {
            std::shared_ptr<const BuiltPreconditioner> M;
            const double setup = time_setup(M, [&] {
              return std::make_shared<const BuiltPreconditioner>(
                  make_preconditioner(spec, p.matrix, A.matrix(), options));
            });
            if (std::string(spec) == fused_method) {
              const DdReport& rep = *M->dd_report;
              dd_setup = JsonObject()
                             .set("partition_s", rep.seconds_partition)
                             .set("reorder_s", rep.seconds_reorder)
                             .set("analysis_s", rep.seconds_analysis)
                             .set("factorization_s", rep.seconds_factorization)
                             .set("subdomains", (long long)rep.subdomains)
                             .set("node_size", (long long)rep.node_size)
                             .set("dropped_coupling", rep.dropped_coupling);
              std::printf(
                  "  dd setup (last of the timed runs): partition %.4f, reorder %.4f, analysis %.4f, "
                  "factorization %.4f s; %d subdomains\n",
                  rep.seconds_partition, rep.seconds_reorder, rep.seconds_analysis, rep.seconds_factorization,
                  int(rep.subdomains));
            }
            solve(*M, setup);
          } catch (const Error& e) {
            std::printf("  dd skipped: %s\n", e.what());
          }
      }
      // auto as an application calls it: a Solver from the device blocks, the
      // choice's level analysis in its setup time. Each timed solve is a new
      // Solver's first (its construction untimed), so that a fallback's
      // attempts and their setups are in the solve time.
      if (run_auto) try {
          SolverOptions so;
          so.krylov = o;
          so.preconditioner_options = options;
          std::shared_ptr<Solver> S;
          const double setup = time_setup(S, [&] { return std::make_shared<Solver>(p.matrix, A.matrix(), so); });
          std::printf("  %s\n", S->preconditioner().auto_reason.c_str());
          // The choice alone, as Solver makes it (zero diagonals counted on
          // the device, levels on the host).
          const double count =
              bench::time_case([&] { choose_preconditioner(p.matrix, A.matrix(), options); }, setup_policy()).median;
          std::printf("  auto's choice: %.3f ms\n", count * 1e3);
          choice_times = JsonObject().set("host_s", count);
          Vector x("x", n);
          SolveReport last;
          runs.push_back(time_run(
              "auto", setup,
              [&] {
                last = S->solve(b, x);
                return last.result;
              },
              [&] {
                S = std::make_shared<Solver>(p.matrix, A.matrix(), so);
                Kokkos::deep_copy(x, 0.0);
              }));
          runs.back().method = "auto=" + (last.preconditioner.empty() ? "none" : last.preconditioner);
          if (last.attempts.size() > 1 || !last.result.restarts.empty()) std::printf("%s", last.describe().c_str());
          auto_attempts = (long long)last.attempts.size();
        } catch (const Error& e) {
          std::printf("  auto skipped: %s\n", e.what());
        }
      for (const char* spec : {"ilu0:elmr-value", "ilu0:levelset-csr"}) {
        if (run_global) try {
            Kokkos::Timer t;
            const BuiltPreconditioner M = make_preconditioner(spec, p.matrix, options);
            Kokkos::fence();
            solve(M, t.seconds());
          } catch (const Error& e) {
            std::printf("  ilu0 skipped: %s\n", e.what());
          }
      }
#if defined(TRELLIS_WITH_CUSPARSE)
      if (run_cusparse) try {
          const auto point = copy_to<Device>(p.matrix);  // on the device before the clock, as the BSR is
          Kokkos::fence();
          std::shared_ptr<bench::CusparseIlu0Preconditioner> M;
          const double setup =
              time_setup(M, [&] { return std::make_shared<bench::CusparseIlu0Preconditioner>(cusparse.get(), point); });
          runs.push_back(time_solve("cusparse-ilu0", setup, A, *M, b, o, ws));
        } catch (const std::exception& e) {
          std::printf("  cusparse skipped: %s\n", e.what());
        }
#endif
      JsonObject row;
      row.set("problem", p.name).set("rows", (long long)n).set("tolerance", o.rel_tol);
      JsonArray methods;
      const Outcome* base = nullptr;
      const Outcome* fused = nullptr;
      for (const auto& r : runs) {
        methods.push(JsonObject()
                         .set("method", r.method)
                         .set("status", to_string(r.result.status))
                         .set("iterations", r.result.iterations)
                         .set("iterations_min", r.iterations_min)
                         .set("iterations_max", r.iterations_max)
                         .set("solve_s", r.solve_s)
                         .set("setup_s", r.setup_s)
                         .set("true_relative_residual", r.result.true_relative_residual));
        if (r.method == "cusparse-ilu0") base = &r;
        if (r.method == fused_method) fused = &r;
      }
      row.set("methods", methods).set("dd_setup", dd_setup).set("auto_choice", choice_times);
      row.set("auto_attempts", auto_attempts)
          .set("zero_diagonals", zero_diagonals)
          .set("negative_diagonals", negative_diagonals);
      // Time-to-solution ratios of cuSPARSE's over r's: setup excluded, included.
      const auto speedups = [&](const Outcome& r) {
        return std::make_pair(base->solve_s / r.solve_s, (base->solve_s + base->setup_s) / (r.solve_s + r.setup_s));
      };
      if (base && fused && base->result.converged() && fused->result.converged()) {
        const auto [e, i] = speedups(*fused);
        row.set("speedup_fused_vs_cusparse_setup_excluded", e).set("speedup_fused_vs_cusparse_setup_included", i);
        excl.push_back(e);
        incl.push_back(i);
        std::printf("  %s vs cusparse-ilu0: %.2fx (setup excluded), %.2fx (included)\n", fused_method, e, i);
      }
      // auto against cuSPARSE and against the better of every dd and ilu0 run.
      const Outcome* chosen = nullptr;
      double better_excl = 1e300, better_incl = 1e300;
      for (const auto& r : runs) {
        if (!r.result.converged()) continue;
        if (r.method.rfind("auto=", 0) == 0) chosen = &r;
        if (r.method.rfind("dd:", 0) == 0 || r.method.rfind("ilu0", 0) == 0)
          better_excl = std::min(better_excl, r.solve_s), better_incl = std::min(better_incl, r.solve_s + r.setup_s);
      }
      if (chosen && better_excl < 1e300) {
        const double vs_excl = better_excl / chosen->solve_s,
                     vs_incl = better_incl / (chosen->solve_s + chosen->setup_s);
        row.set("auto_vs_better_setup_excluded", vs_excl).set("auto_vs_better_setup_included", vs_incl);
        auto_vs_better.push_back(vs_incl);
        std::printf("  %s: %.2f (setup excluded), %.2f (included) of the better dd/ilu0 run's speed\n",
                    chosen->method.c_str(), vs_excl, vs_incl);
      }
      if (chosen && base && base->result.converged()) {
        const auto [e, i] = speedups(*chosen);
        row.set("speedup_auto_vs_cusparse_setup_excluded", e).set("speedup_auto_vs_cusparse_setup_included", i);
        auto_excl.push_back(e);
        auto_incl.push_back(i);
        std::printf("  %s vs cusparse-ilu0: %.2fx (setup excluded), %.2fx (included)\n", chosen->method.c_str(), e, i);
      } else if (run_auto && base && base->result.converged()) {  // not run is not failed
        std::printf("  auto: no converged run where cusparse-ilu0 converged\n");
        auto_failed.push_back(p.name);
      }
      rows.push(row);
    }
    JsonObject doc;
    doc.set("run", bench::run_record()).set("device", bench::device_name()).set("results", rows);
    JsonArray failed;
    for (const auto& f : auto_failed) failed.push(f);
    doc.set("auto_failed_where_cusparse_converged", failed);
    std::printf("\nauto failed where cuSPARSE ILU0 converged: %zu problem(s)\n", auto_failed.size());
    for (const auto& f : auto_failed) std::printf("  %s\n", f.c_str());
    if (!excl.empty()) {
      doc.set("geomean_setup_excluded", bench::geometric_mean(excl))
          .set("geomean_setup_included", bench::geometric_mean(incl));
      std::printf(
          "\ngeomean BiCGSTAB time to solution, %s vs cuSPARSE ILU0: %.2fx setup excluded, "
          "%.2fx included\n",
          fused_method, bench::geometric_mean(excl), bench::geometric_mean(incl));
    }
    if (!auto_excl.empty()) {
      const auto within =
          std::count_if(auto_vs_better.begin(), auto_vs_better.end(), [](double r) { return r >= 1 / 1.15; });
      doc.set("geomean_auto_setup_excluded", bench::geometric_mean(auto_excl))
          .set("geomean_auto_setup_included", bench::geometric_mean(auto_incl))
          .set("auto_within_15_percent", (long long)within);
      std::printf(
          "geomean BiCGSTAB time to solution, auto vs cuSPARSE ILU0: %.2fx setup excluded, %.2fx included (%zu "
          "problems, lowest included %.2fx); auto within 15%% of the better dd/ilu0 (setup included) on %d of %zu\n",
          bench::geometric_mean(auto_excl), bench::geometric_mean(auto_incl), auto_incl.size(),
          *std::min_element(auto_incl.begin(), auto_incl.end()), int(within), auto_vs_better.size());
    }

    bench::write_text_file(json, doc.str() + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "solve_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
