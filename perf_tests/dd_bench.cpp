// dd_bench: seed 000's Tables 5.2-5.4 on this machine. For each problem the
// domain-decomposition preconditioner is set up (partition report and setup
// times = Table 5.4), its lower solves (Table 5.2) and ILDU0 applications
// (Table 5.3) are timed, and in the same run the global ILU0 of the
// undecomposed point matrix is applied with cuSPARSE SpSV (factors from
// csrilu02) and with Trellis's own global triangular solves (levelset-csr,
// elmr-value) on the same factors. Device fences around each run, medians of
// repeated runs after warm-ups (bench_support.hpp).
//
// Correctness gate: all DD applications must agree with each other and all
// DD lower solves too (relative difference < 1e-10; each is checked against a
// serial reference in unit_tests/test_domain_decomposition.cpp), and the
// global solves with each other; a disagreement is WRONG and exits non-zero.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "cusparse_support.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/dd/domain_decomposition_ilu.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/trsv/triangular_solver.hpp"

namespace {

using namespace trellis;
using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;
using ConstVector = Kokkos::View<const double*, Device>;
using bench::JsonArray;
using bench::JsonObject;

struct Args {
  std::vector<std::string> problems{"blocklap3d:128x128x128:b=3", "blocklap3d:96x96x96:b=3", "layered3d:128x128x128",
                                    "lap3d7:128x128x128"};
  bool real_matrices = true;
  std::string json = "dd_results.json";
  bench::TimingPolicy timing;
};

/// Reads the options into a; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, Args& a) {
  bool quick = false;
  bench::CommandLine cl("dd_bench",
                        "Seed 000's Tables 5.2-5.4: the DD preconditioner's setup, lower solves and ILDU0 "
                        "applications, beside cuSPARSE SpSV of the global ILU0; then the matrices of "
                        "$TRELLIS_MATRICES/MANIFEST.tsv.");
  cl.list("--problems", a.problems, "problem specs or Matrix Market files, comma-separated")
      .flag("--no-real-matrices", a.real_matrices, "leave out the matrices of $TRELLIS_MATRICES", false)
      .text("--json", a.json, "write the results to this file (default dd_results.json)")
      .number("--reps", a.timing.reps, "timed runs per case", 1, 1000000)
      .flag("--quick", quick, "two small generated problems, no real matrices (a CPU smoke check)");
  if (const int rc = cl.parse(argc, argv); rc >= 0) return rc;
  if (quick) {
    if (!cl.given("--problems")) a.problems = {"blocklap3d:24x24x24:b=3", "layered3d:32x32x16"};
    a.real_matrices = false;
  }
  if (a.real_matrices)
    for (const auto& p :
         bench::manifest_matrices(std::getenv("TRELLIS_MATRICES") ? std::getenv("TRELLIS_MATRICES") : ""))
      a.problems.push_back(p);
  return -1;
}

using bench::random_device_vector;
using bench::relative_difference;

/// Times one vector-to-vector operation; records ms in the row and checks its
/// output against a reference output (when given).
struct Recorder {
  const bench::TimingPolicy& timing;
  JsonObject& row;
  bool& wrong;
  double run(const std::string& name, const std::function<void()>& f, Vector out, Vector reference) {
    const bench::Timing t = bench::time_case(f, timing);
    row.set(name + "_ms", 1e3 * t.median);
    if (reference.extent(0)) {
      const double d = relative_difference(out, reference);
      row.set(name + "_diff", d);
      if (!(d < 1e-10)) {
        std::printf("  WRONG: %s differs by %.3g\n", name.c_str(), d);
        wrong = true;
      }
    }
    return 1e3 * t.median;
  }
};

}  // namespace

int main(int argc, char** argv) {
  bench::record_command(argc, argv);  // before Kokkos takes its options out
  Args args;
  if (const int rc = parse_options(argc, argv, args); rc >= 0) return rc;
  Kokkos::ScopeGuard guard(argc, argv);
  bool wrong = false;
  try {
    const double copy_gbs = bench::measure_copy_bandwidth(size_t(1) << 28);
    std::printf("device: %s, copy bandwidth %.0f GB/s\n", bench::device_name().c_str(), copy_gbs);
#if defined(TRELLIS_WITH_CUSPARSE)
    bench::CusparseLibrary cusparse;
#endif
    JsonArray rows;
    std::vector<double> vs_cusparse, vs_global, lower_vs_cusparse;
    std::vector<std::string> table;
    for (const std::string& spec : args.problems) {
      const gallery::Problem p = gallery::load_problem(spec);
      const HostBsr A = p.block_matrix ? *p.block_matrix : csr_to_bsr(p.matrix, 1);
      DdOptions opt;
      if (p.grid[0] > 0) opt.grid = {p.grid[0], std::max(1, p.grid[1]), std::max(1, p.grid[2])};
      JsonObject row;
      row.set("problem", p.name).set("rows", (long long)A.num_rows()).set("block_size", A.block_size);
      Recorder rec{args.timing, row, wrong};
      std::printf("\n%s: %d rows, b=%d\n", p.name.c_str(), A.num_rows(), A.block_size);
      std::fflush(stdout);

      Kokkos::Timer setup_timer;
      DomainDecompositionIlu<double, Device> dd(A, opt);
      Kokkos::fence();
      const DdReport& rep = dd.report();
      std::printf("%s\n", rep.describe().c_str());
      row.set("setup_s", setup_timer.seconds())
          .set("partitioner", rep.partitioner)
          .set("subdomains", rep.subdomains)
          .set("rows_per_subdomain", rep.largest_subdomain)
          .set("blocks", (long long)rep.blocks)
          .set("blocks_dropped", (long long)rep.blocks_dropped)
          .set("dropped_percent", 100 * rep.dropped_fraction())
          .set("partition_s", rep.seconds_partition)
          .set("reorder_s", rep.seconds_reorder)
          .set("analysis_s", rep.seconds_analysis)
          .set("factorization_s", rep.seconds_factorization)
          .set("lower_levels_max", rep.lower_levels_max);

      const size_t n = size_t(A.num_rows());
      Vector r = random_device_vector(n, 7), out("out", n), ref_lower("ref_lower", n), ref_apply("ref_apply", n);
      // Table 5.2: lower solves; the first variant is the reference of the others.
      dd.lower_solve_reordered(r, ref_lower, DdLowerSolve::dag_ec_lds);
      std::map<std::string, double> ms;
      for (DdLowerSolve v : values<DdLowerSolve>())
        ms[to_string(v)] = rec.run(
            to_string(v), [&] { dd.lower_solve_reordered(r, out, v); }, out, ref_lower);
      // Table 5.3: applications.
      dd.apply_reordered(r, ref_apply, DdApply::dag_vc_ILDUO_fused);
      for (DdApply v : values<DdApply>())
        ms[to_string(v)] = rec.run(
            to_string(v), [&] { dd.apply_reordered(r, out, v); }, out, ref_apply);
      const double fused = ms["dag-ec-ilduo-fused"];
      // Section 4.5 simulated: each rank's share of the subdomains timed alone
      // on this device (what that rank would run on its own GPU, with no
      // communication); the parallel time is the slowest share.
      JsonArray ranks_json;
      for (int ranks : {2, 4, 8}) {
        double slowest = 0;
        for (const auto& share : dd.rank_shares(ranks))
          slowest = std::max(
              slowest, 1e3 * bench::time_case([&] { dd.apply_reordered(r, out, DdApply::dag_ec_ILDUO_fused, share); },
                                              args.timing)
                                 .median);
        ranks_json.push(
            JsonObject().set("ranks", ranks).set("slowest_share_ms", slowest).set("speedup", fused / slowest));
        std::printf("  simulated %d ranks: slowest share %.3f ms, speedup %.2fx over one device\n", ranks, slowest,
                    fused / slowest);
      }
      row.set("simulated_ranks", ranks_json);
      // Bytes one fused application must move: factor values, the row and
      // column of each entry, D^{-1}, the vector in and out.
      const auto& f = dd.factors();
      const double bytes = 8.0 * (f.L_edges.val.extent(0) + f.U_edges.val.extent(0) + f.inv_diag.extent(0) + 2 * n) +
                           8.0 * (f.L_edges.col.extent(0) + f.U_edges.col.extent(0));
      row.set("fused_GBs", bytes / fused / 1e6).set("fused_fraction_of_copy", bytes / fused / 1e6 / copy_gbs);

      std::string line;
      char buf[256];
      std::snprintf(buf, sizeof buf, "%-34s %7.3f %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f", p.name.c_str(),
                    ms["spin-loop-lds"], ms["dag-ec-no-lds"], ms["dag-ec-lds"], ms["dag-ec-lds-ud"],
                    ms["dag-ec-ild-uo"], ms["dag-vc-ilduo-fused"], fused);
      line = buf;
#if defined(TRELLIS_WITH_CUSPARSE)
      // Global ILU0 of the undecomposed point matrix, original ordering.
      try {
        const auto P = copy_to<Device>(p.matrix);
        double ilu_s = 0;
        const auto LU = bench::cusparse_ilu0(cusparse.get(), P, ilu_s);
        Vector rp = random_device_vector(n, 11), y("y", n), z("z", n), ref_z("ref_z", n);
        bench::CusparseSpsv lower(cusparse.get(), LU, Triangle::lower, true, rp, y);
        bench::CusparseSpsv upper(cusparse.get(), LU, Triangle::upper, false, y, z);
        lower.solve(rp, y);
        upper.solve(y, ref_z);
        row.set("cusparse_ilu0_s", ilu_s)
            .set("cusparse_analysis_s", lower.analysis_seconds() + upper.analysis_seconds());
        const double cs_lower = rec.run(
            "cusparse_lower", [&] { lower.solve(rp, y); }, y, Vector());
        const double cs_apply = rec.run(
            "cusparse_ILU0",
            [&] {
              lower.solve(rp, y);
              upper.solve(y, z);
            },
            z, ref_z);
        double best_global = INFINITY;
        for (TrsvAlgorithm a : {TrsvAlgorithm::levelset_csr, TrsvAlgorithm::elmr_value}) {
          TrsvOptions lo{Triangle::lower, true, a}, up{Triangle::upper, false, a};
          TriangularSolver<double, Device> L(LU, lo), U(LU, up);
          const std::string name = std::string("global_") + to_string(a);
          best_global = std::min(best_global, rec.run(
                                                  name,
                                                  [&] {
                                                    L.solve(rp, y);
                                                    U.solve(y, z);
                                                  },
                                                  z, ref_z));
        }
        row.set("speedup_fused_vs_cusparse", cs_apply / fused)
            .set("speedup_fused_vs_best_global", best_global / fused)
            .set("speedup_lower_ud_vs_cusparse_lower", cs_lower / ms["dag-ec-lds-ud"]);
        vs_cusparse.push_back(cs_apply / fused);
        vs_global.push_back(best_global / fused);
        lower_vs_cusparse.push_back(cs_lower / ms["dag-ec-lds-ud"]);
        std::snprintf(buf, sizeof buf, " | %7.3f %7.3f %7.3f | %6.2fx %6.2fx", cs_lower, cs_apply, best_global,
                      cs_apply / fused, best_global / fused);
        line += buf;
      } catch (const std::exception& e) {
        std::printf("  baselines skipped: %s\n", e.what());
        row.set("baselines_skipped", std::string(e.what()));
      }
#endif
      table.push_back(line);
      rows.push(row);
      std::fflush(stdout);
    }
    std::printf("\nms per call; lower solves | ILDU0 applications");
#if defined(TRELLIS_WITH_CUSPARSE)
    std::printf(" | cuSPARSE lower, cuSPARSE ILU0, best global Trellis ILU0 | fused-ec speedups");
#endif
    std::printf("\n%-34s %7s %7s %7s %7s | %7s %7s %7s\n", "problem", "spin", "ec_nlds", "ec_lds", "ec_ud", "ILD_UO",
                "vc_fus", "ec_fus");
    for (const auto& l : table) std::printf("%s\n", l.c_str());
    JsonObject doc;
    doc.set("run", bench::run_record())
        .set("device", bench::device_name())
        .set("copy_GBs", copy_gbs)
        .set("results", rows);
    if (!vs_cusparse.empty()) {
      doc.set("geomean_fused_vs_cusparse", bench::geometric_mean(vs_cusparse))
          .set("geomean_fused_vs_best_global", bench::geometric_mean(vs_global))
          .set("geomean_lower_ud_vs_cusparse_lower", bench::geometric_mean(lower_vs_cusparse));
      std::printf(
          "geomean: dag-ec-ilduo-fused vs cuSPARSE ILU0 %.2fx, vs best global Trellis ILU0 %.2fx; "
          "dag-ec-lds-ud vs cuSPARSE lower %.2fx\n",
          bench::geometric_mean(vs_cusparse), bench::geometric_mean(vs_global),
          bench::geometric_mean(lower_vs_cusparse));
    }
    bench::write_text_file(args.json, doc.str() + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dd_bench: %s\n", e.what());
    return 2;
  }
  if (wrong) std::printf("WRONG results above\n");
  return wrong ? 1 : 0;
}
