// refactor_bench: numeric refactorization (issue 16). An application in a
// Newton or time loop factors new values of one pattern many times; this
// measures, on each problem,
//   - the refactorization alone: DomainDecompositionIlu::numeric and
//     GlobalIlu0::numeric from device-resident values, against cuSPARSE
//     csrilu02's numeric phase (its analysis kept), median over the steps;
//   - a 10-step sequence end to end: the setup, then for each step new
//     values (the diagonal scaled by 1 + 0.02 k, as a time-step or mass term
//     changes it), numeric() and a BiCGSTAB solve of A_k x = b from x = 0;
//     cuSPARSE's step is csrilu02's numeric phase and cusparseSpSV_updateMatrix;
//   - the global ILU0's factorization alone in its two schedules, a launch
//     per level and one sync-free launch, with a check that they agree.
// Every step's values are in device memory before the clock (as an
// application assembling on the device has them). A method that fails on a
// problem (pivot, breakdown) is reported with its reason; the run goes on.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "cusparse_support.hpp"
#include "trellis/dd/domain_decomposition_ilu.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/ilu/global_ilu0.hpp"
#include "trellis/ilu/sync_free_factorization.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"
#include "trellis/solvers/preconditioners/domain_decomposition.hpp"
#include "trellis/solvers/preconditioners/global_ilu0.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"

namespace {

using namespace trellis;
using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;
using bench::JsonArray;
using bench::JsonObject;

constexpr int steps = 10;

/// A copy of A with its diagonal entries (block matrices: the diagonal of
/// each diagonal block) scaled by s.
HostBsr scaled_diagonal(const HostBsr& A, double s) {
  HostBsr B = copy_to<HostDevice>(A);
  const int b = A.block_size;
  for (ordinal_t i = 0; i < A.num_block_rows; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)
      if (A.entries(q) == i)
        for (int r = 0; r < b; ++r) B.values(size_t(q) * b * b + r * b + r) *= s;
  return B;
}

/// What one method did on one problem.
struct Run {
  std::string method, failure;
  double setup_s = 0, numeric_s = 0, sequence_s = 0;  // numeric: median of the steps
  int iterations = 0;                                 // summed over the steps
  bool converged = true;
};

/// The sequence: setup, then each step's numeric() and solve, end to end.
/// numeric(k) refactors for step k and returns the operator and the
/// preconditioner to solve with; b_solver is b in their numbering.
template <class Setup, class Numeric>
Run run_sequence(const std::string& method, const Setup& setup, const Numeric& numeric, size_t n,
                 const KrylovOptions& o) {
  Run out;
  out.method = method;
  try {
    BicgstabWorkspace<double, Device> ws;
    Vector x("x", n);
    std::vector<double> numeric_s;
    Kokkos::fence();
    Kokkos::Timer total;
    out.setup_s = bench::fenced_seconds([&] { setup(); });
    for (int k = 1; k <= steps; ++k) {
      Kokkos::Timer t;
      const auto step = numeric(k);
      Kokkos::fence();
      numeric_s.push_back(t.seconds());
      Kokkos::deep_copy(x, 0.0);
      const KrylovResult r = bicgstab(*step.A, *step.M, step.b, x, o, BicgstabForm::right, &ws);
      out.iterations += r.iterations;
      out.converged = out.converged && r.converged();
    }
    Kokkos::fence();
    out.sequence_s = total.seconds();
    std::sort(numeric_s.begin(), numeric_s.end());
    out.numeric_s = numeric_s[numeric_s.size() / 2];
    std::printf("  %-24s setup %8.4f s  numeric %8.5f s (median)  %d steps %8.4f s  %5d it%s\n", method.c_str(),
                out.setup_s, out.numeric_s, steps, out.sequence_s, out.iterations,
                out.converged ? "" : "  (not all converged)");
  } catch (const std::exception& e) {
    out.failure = e.what();
    std::printf("  %-24s failed: %s\n", method.c_str(), e.what());
  }
  std::fflush(stdout);
  return out;
}

struct Step {
  const LinearOperator<double, Device>* A;
  const Preconditioner<double, Device>* M;
  Kokkos::View<const double*, Device> b;
};

}  // namespace

/// The global ILU0's factorization alone, A's values split as GlobalIlu0
/// splits them: median seconds of a launch per level (factor_by_levels) and
/// of the sync-free launch (factor_sync_free), and whether their factors
/// agree bit for bit. failure: a pivot either schedule reported.
struct Schedules {
  double by_levels_s = 0, sync_free_s = 0;
  bool same = false;
  std::string failure;
};

Schedules factorization_schedules(const CsrMatrix<double, Device>& A) {
  const Device::execution_space space;
  const ordinal_t n = A.num_rows;
  ilu::BlockFactors<double, Device> f;
  ViewArena<Device> arena;
  const auto R = as_point_bsr(A);
  const auto diag = ilu::split_whole(space, R, f, arena).diag;
  const auto levels = analyze_levels(CsrMatrix<double, Device>(n, n, f.L_map, f.L_col, f.L_val), Triangle::lower);
  const Kokkos::View<const ordinal_t*, Device> level_rows = levels.level_rows;
  const Kokkos::View<const offset_t*, Kokkos::HostSpace> level_ptr = levels.level_ptr_host;
  const auto extent = ilu::detail::row_extent(space, f);
  const auto status = ilu::detail::make_pivot_status<Device>(space, n, arena, ViewArena<Device>::kept);
  ilu::SyncFreeState<double, Device> state(n, 0);  // u_start: made by factor_sync_free where needed
  std::vector<double> t_levels, t_free;
  ilu::FactorizationOutcome by_levels, sync_free;
  auto factors = [&] {
    std::vector<double> all;
    for (const auto& v : {f.L_val, f.U_val, f.inv_diag, f.LD_val}) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
      all.insert(all.end(), h.data(), h.data() + h.extent(0));
    }
    return all;
  };
  std::vector<double> levels_factors;
  Schedules out;
  for (int r = 0; r <= steps; ++r) {  // run 0 warms up
    ilu::split_values(space, R, f, diag);
    const double a = bench::fenced_seconds(
        [&] { by_levels = ilu::factor_by_levels<1>(space, f, extent, diag, {}, level_rows, level_ptr, status); });
    if (r == steps) levels_factors = factors();
    ilu::split_values(space, R, f, diag);
    const double b = bench::fenced_seconds(
        [&] { sync_free = ilu::factor_sync_free<1>(space, f, extent, diag, {}, level_rows, state, status); });
    if (r > 0) t_levels.push_back(a), t_free.push_back(b);
  }
  if (by_levels.tiny_row >= 0 || by_levels.non_finite_row >= 0 || sync_free.tiny_row >= 0 ||
      sync_free.non_finite_row >= 0)
    out.failure = "pivot failed (rows " + std::to_string(std::max(by_levels.tiny_row, by_levels.non_finite_row)) +
                  " by levels, " + std::to_string(std::max(sync_free.tiny_row, sync_free.non_finite_row)) +
                  " sync-free)";
  else
    out.same = factors() == levels_factors;
  std::sort(t_levels.begin(), t_levels.end());
  std::sort(t_free.begin(), t_free.end());
  out.by_levels_s = t_levels[t_levels.size() / 2];
  out.sync_free_s = t_free[t_free.size() / 2];
  return out;
}

int main(int argc, char** argv) {
  bench::record_command(argc, argv);  // before Kokkos takes its options out
  std::vector<std::string> problems = {"blocklap3d:40x40x40:b=3", "convdiff3d:64x64x64", "layered3d:64x64x32"};
  std::string json;
  bool real = true, coupling_weights = true, quick = false, pattern_copies = false;
  bench::CommandLine cl("refactor_bench",
                        "Numeric refactorization against cuSPARSE csrilu02, and 10-step sequences of new values and "
                        "solves; then the matrices of $TRELLIS_MATRICES (MANIFEST.tsv and training/).");
  cl.list("--problems", problems, "problem specs or Matrix Market files, comma-separated")
      .text("--json", json, "write the results to this file")
      .flag("--no-real-matrices", real, "leave out the matrices of $TRELLIS_MATRICES", false)
      .word(
          "--coupling-weights",
          [&](const std::string& w) {
            if (w != "on" && w != "off") throw InputError("expected on or off, got '" + w + "'");
            coupling_weights = w == "on";
          },
          "DdOptions::coupling_weights: on (default) or off")
      .flag("--pattern-copies", pattern_copies,
            "give each step's matrix its own copy of the pattern arrays (numeric() then compares them on the "
            "device); by default the steps share step 0's, as an application's loop does")
      .flag("--quick", quick, "two small generated problems, no real matrices (a CPU smoke check)");
  if (const int rc = cl.parse(argc, argv); rc >= 0) return rc;
  if (quick) {
    if (!cl.given("--problems")) problems = {"blocklap3d:12x12x12:b=3", "convdiff3d:16x16x16"};
    real = false;
  }
  Kokkos::ScopeGuard guard(argc, argv);
  const std::string dir = std::getenv("TRELLIS_MATRICES") ? std::getenv("TRELLIS_MATRICES") : "";
  if (real) {
    for (const auto& p : bench::manifest_matrices(dir)) problems.push_back(p);
    for (const auto& p : bench::training_matrices(dir)) problems.push_back(p);
  }
  try {
#if defined(TRELLIS_WITH_CUSPARSE)
    bench::CusparseLibrary cusparse;
#endif
    JsonArray rows;
    std::vector<double> seq_ratio_dd, seq_ratio_best, numeric_ratio_dd, numeric_ratio_global;
    std::vector<double> seq_ratio_auto, auto_vs_better;
    for (const auto& spec : problems) {
      const gallery::Problem p = gallery::load_problem(spec);
      const HostBsr blocks0 = p.block_matrix ? *p.block_matrix : csr_to_bsr(p.matrix, 1);
      const size_t n = size_t(p.matrix.num_rows);
      KrylovOptions o;
      o.rel_tol = spec.rfind("layered3d", 0) == 0 ? 1e-6 : 1e-8;  // as solve_bench
      o.max_iterations = 2000;
      std::printf("\n%s: %zu rows, block size %d, %d steps, tolerance %.0e\n", p.name.c_str(), n, blocks0.block_size,
                  steps, o.rel_tol);
      // Every step's matrix on the device, as BSR and as point CSR: new values
      // in step 0's pattern arrays (an application's loop), or, with
      // --pattern-copies, arrays of its own that numeric() compares.
      std::vector<BsrMatrix<double, Device>> bsr;
      std::vector<CsrMatrix<double, Device>> csr;
      for (int k = 0; k <= steps; ++k) {
        const double s = 1 + 0.02 * k;
        const auto b_k = copy_to<Device>(scaled_diagonal(blocks0, s));
        const HostBsr point = scaled_diagonal(csr_to_bsr(p.matrix, 1), s);
        const auto c_k =
            copy_to<Device>(HostCsr(p.matrix.num_rows, p.matrix.num_cols, point.row_map, point.entries, point.values));
        const bool own = k == 0 || pattern_copies;
        bsr.push_back(own ? b_k
                          : BsrMatrix<double, Device>(b_k.block_size, b_k.num_block_rows, b_k.num_block_cols,
                                                      bsr[0].row_map, bsr[0].entries, b_k.values));
        csr.push_back(
            own ? c_k
                : CsrMatrix<double, Device>(c_k.num_rows, c_k.num_cols, csr[0].row_map, csr[0].entries, c_k.values));
      }
      Vector ones("ones", n), b("b", n), b_dd("b_dd", n);
      Kokkos::deep_copy(ones, 1.0);
      BsrOperator<double, Device>(bsr[0]).apply(ones, b);
      std::vector<Run> runs;

      DdOptions dd_options;
      dd_options.coupling_weights = coupling_weights;
      if (p.grid[0] > 0) dd_options.grid = {p.grid[0], std::max(1, p.grid[1]), std::max(1, p.grid[2])};
      // What `auto` builds here: dd or ilu0 with their defaults, as timed
      // below (the choice is a host level analysis; its cost is in solve_bench).
      PreconditionerOptions auto_options;
      auto_options.grid = dd_options.grid;
      const PreconditionerChoice choice = choose_preconditioner(p.matrix, auto_options);
      std::printf("  %s\n", choice.reason.c_str());
      std::unique_ptr<DomainDecompositionIlu<double, Device>> dd;
      std::unique_ptr<DdPreconditioner<double, Device>> dd_M;
      std::unique_ptr<BsrOperator<double, Device>> dd_A;
      runs.push_back(run_sequence(
          "dd",
          [&] {
            dd = std::make_unique<DomainDecompositionIlu<double, Device>>(bsr[0], dd_options);
            dd_M = std::make_unique<DdPreconditioner<double, Device>>(
                std::shared_ptr<const DomainDecompositionIlu<double, Device>>(dd.get(), [](auto*) {}),
                dd->default_variant(), true);
            dd_A = std::make_unique<BsrOperator<double, Device>>(dd->reordered_matrix());  // numeric() updates it
            dd->to_reordered(b, b_dd);
          },
          [&](int k) {
            dd->numeric(bsr[k]);
            return Step{dd_A.get(), dd_M.get(), b_dd};
          },
          n, o));

      std::unique_ptr<GlobalIlu0<double, Device>> ilu;
      std::unique_ptr<GlobalIlu0Preconditioner<double, Device>> ilu_M;
      std::vector<BsrOperator<double, Device>> ops;
      for (const auto& m : bsr) ops.emplace_back(m);
      runs.push_back(run_sequence(
          "ilu0",
          [&] {
            ilu = std::make_unique<GlobalIlu0<double, Device>>(p.matrix);
            ilu_M = std::make_unique<GlobalIlu0Preconditioner<double, Device>>(
                std::shared_ptr<const GlobalIlu0<double, Device>>(ilu.get(), [](auto*) {}));
          },
          [&](int k) {
            ilu->numeric(csr[k]);
            return Step{&ops[k], ilu_M.get(), b};
          },
          n, o));
      // auto's third choice, timed only where it is auto's: numeric() is a
      // new inverse diagonal.
      std::unique_ptr<JacobiPreconditioner<double, Device>> jacobi;
      if (choice.kind == PreconditionerKind::jacobi)
        runs.push_back(run_sequence(
            "jacobi", [&] { jacobi = std::make_unique<JacobiPreconditioner<double, Device>>(csr[0]); },
            [&](int k) {
              jacobi = std::make_unique<JacobiPreconditioner<double, Device>>(csr[k]);
              return Step{&ops[k], jacobi.get(), b};
            },
            n, o));
#if defined(TRELLIS_WITH_CUSPARSE)
      std::unique_ptr<bench::CusparseIlu0Preconditioner> cu;
      runs.push_back(run_sequence(
          "cusparse-ilu0", [&] { cu = std::make_unique<bench::CusparseIlu0Preconditioner>(cusparse.get(), csr[0]); },
          [&](int k) {
            cu->numeric(csr[k].values);
            return Step{&ops[k], cu.get(), b};
          },
          n, o));
      // csrilu02's numeric phase alone, as the refactorization baseline.
      try {
        bench::CusparseCsrilu02 factor(cusparse.get(), csr[0]);
        std::vector<double> t;
        for (int k = 1; k <= steps; ++k) t.push_back(bench::fenced_seconds([&] { factor.numeric(csr[k].values); }));
        std::sort(t.begin(), t.end());
        Run only;
        only.method = "cusparse-csrilu02-numeric";
        only.numeric_s = t[t.size() / 2];
        std::printf("  %-24s numeric %8.5f s (median)\n", only.method.c_str(), only.numeric_s);
        runs.push_back(only);
      } catch (const std::exception& e) {
        std::printf("  cusparse-csrilu02-numeric failed: %s\n", e.what());
      }
#endif
      JsonObject row;
      row.set("problem", p.name).set("rows", (long long)n).set("block_size", blocks0.block_size).set("steps", steps);
      try {
        const Schedules sched = factorization_schedules(csr[0]);
        if (sched.failure.empty()) {
          std::printf("  ilu0 factorization alone: by levels %.5f s, sync-free %.5f s (median; %s factors)\n",
                      sched.by_levels_s, sched.sync_free_s, sched.same ? "the same" : "DIFFERENT");
          row.set("ilu0_factor_by_levels_s", sched.by_levels_s)
              .set("ilu0_factor_sync_free_s", sched.sync_free_s)
              .set("ilu0_factor_schedules_agree", sched.same);
        } else {
          std::printf("  ilu0 factorization alone: %s\n", sched.failure.c_str());
          row.set("ilu0_factor_schedules_failure", sched.failure);
        }
      } catch (const std::exception& e) {
        std::printf("  ilu0 factorization alone failed: %s\n", e.what());
        row.set("ilu0_factor_schedules_failure", std::string(e.what()));
      }
      JsonArray methods;
      const Run *base = nullptr, *numeric_base = nullptr, *dd_run = nullptr, *ilu_run = nullptr, *jacobi_run = nullptr;
      for (const auto& r : runs) {
        JsonObject m;
        m.set("method", r.method);
        if (!r.failure.empty()) {
          m.set("failure", r.failure);
        } else {
          m.set("setup_s", r.setup_s).set("numeric_median_s", r.numeric_s);
          if (r.method != "cusparse-csrilu02-numeric")
            m.set("sequence_s", r.sequence_s).set("iterations", r.iterations).set("converged", r.converged);
        }
        methods.push(m);
        const bool ok = r.failure.empty() && r.converged;
        if (r.method == "cusparse-ilu0" && ok) base = &r;
        if (r.method == "cusparse-csrilu02-numeric" && ok) numeric_base = &r;
        if (r.method == "dd" && ok) dd_run = &r;
        if (r.method == "ilu0" && ok) ilu_run = &r;
        if (r.method == "jacobi" && ok) jacobi_run = &r;
      }
      row.set("methods", methods).set("auto_choice", to_string(choice.kind));
      const Run* auto_run = choice.kind == PreconditionerKind::dd       ? dd_run
                            : choice.kind == PreconditionerKind::jacobi ? jacobi_run
                                                                        : ilu_run;
      if (base && auto_run) {
        const double better = std::min(dd_run ? dd_run->sequence_s : 1e300, ilu_run ? ilu_run->sequence_s : 1e300);
        seq_ratio_auto.push_back(base->sequence_s / auto_run->sequence_s);
        auto_vs_better.push_back(better / auto_run->sequence_s);
        row.set("sequence_speedup_auto", seq_ratio_auto.back()).set("auto_vs_better", auto_vs_better.back());
        std::printf("  10-step sequence: auto (%s) %.2fx cusparse-ilu0, %.2f of the better of dd/ilu0\n",
                    to_string(choice.kind), seq_ratio_auto.back(), auto_vs_better.back());
      } else if (base) {
        std::printf("  auto's choice (%s) did not converge or failed\n", to_string(choice.kind));
      }
      if (base && dd_run) {
        const double seq = base->sequence_s / dd_run->sequence_s;
        const double best = base->sequence_s / std::min(dd_run->sequence_s, ilu_run ? ilu_run->sequence_s : 1e300);
        row.set("sequence_speedup_dd", seq).set("sequence_speedup_best_of_dd_ilu0", best);
        seq_ratio_dd.push_back(seq);
        seq_ratio_best.push_back(best);
        std::printf("  10-step sequence vs cusparse-ilu0: dd %.2fx, best of dd/ilu0 %.2fx\n", seq, best);
      }
      if (numeric_base) {
        if (dd_run) {
          numeric_ratio_dd.push_back(numeric_base->numeric_s / dd_run->numeric_s);
          row.set("numeric_speedup_dd", numeric_ratio_dd.back());
        }
        if (ilu_run) {
          numeric_ratio_global.push_back(numeric_base->numeric_s / ilu_run->numeric_s);
          row.set("numeric_speedup_ilu0", numeric_ratio_global.back());
        }
        std::printf("  numeric vs csrilu02's numeric phase: dd %.2fx, ilu0 %.2fx\n",
                    dd_run ? numeric_base->numeric_s / dd_run->numeric_s : 0.0,
                    ilu_run ? numeric_base->numeric_s / ilu_run->numeric_s : 0.0);
      }
      rows.push(row);
    }
    JsonObject doc;
    doc.set("run", bench::run_record()).set("device", bench::device_name()).set("results", rows);
    if (!seq_ratio_dd.empty()) {
      doc.set("geomean_sequence_speedup_dd", bench::geometric_mean(seq_ratio_dd))
          .set("geomean_sequence_speedup_best", bench::geometric_mean(seq_ratio_best));
      std::printf("\ngeomean 10-step sequence vs cuSPARSE ILU0: dd %.2fx, best of dd/ilu0 %.2fx (%zu problems)\n",
                  bench::geometric_mean(seq_ratio_dd), bench::geometric_mean(seq_ratio_best), seq_ratio_dd.size());
    }
    if (!seq_ratio_auto.empty()) {
      const auto within =
          std::count_if(auto_vs_better.begin(), auto_vs_better.end(), [](double r) { return r >= 1 / 1.15; });
      doc.set("geomean_sequence_speedup_auto", bench::geometric_mean(seq_ratio_auto))
          .set("auto_within_15_percent", (long long)within);
      std::printf(
          "geomean 10-step sequence vs cuSPARSE ILU0: auto %.2fx; auto within 15%% of the better on %d of %zu\n",
          bench::geometric_mean(seq_ratio_auto), int(within), auto_vs_better.size());
    }
    if (!numeric_ratio_dd.empty())
      std::printf("geomean numeric vs csrilu02's numeric phase: dd %.2fx (%zu), ilu0 %.2fx (%zu)\n",
                  bench::geometric_mean(numeric_ratio_dd), numeric_ratio_dd.size(),
                  numeric_ratio_global.empty() ? 0.0 : bench::geometric_mean(numeric_ratio_global),
                  numeric_ratio_global.size());
    if (!json.empty()) bench::write_text_file(json, doc.str() + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "refactor_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
