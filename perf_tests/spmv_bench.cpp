// spmv_bench: the block SpMV y = A x (trellis/spmv/bsr_spmv.hpp, automatic
// launch shape) against KokkosSparse::spmv on the same matrix in point CSR
// form and, on CUDA builds, cuSPARSE bsrmv on the same BSR arrays. Reported
// per problem: time (median of fenced runs after warm-ups, bench_support.hpp),
// GB/s of the minimal traffic of each format and its fraction of the
// device's copy bandwidth, speedups of bsr_spmv over KK and cuSPARSE, and on
// GPUs the times of every vector length (lanes per block row) of the kernel.
//
// Correctness gate: every result must agree with KokkosSparse::spmv's
// (relative difference < 1e-12); a disagreement is WRONG and exits 1.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "cusparse_support.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/spmv/bsr_spmv.hpp"

namespace {

using namespace trellis;
using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;
using ConstVector = Kokkos::View<const double*, Device>;
using bench::JsonArray;
using bench::JsonObject;

struct Args {
  std::vector<std::string> problems{"blocklap3d:128x128x128:b=3", "blocklap3d:96x96x96:b=4", "blocklap3d:64x64x64:b=8",
                                    "blocklap3d:128x128x128:b=1"};
  std::string json = "spmv_results.json";
  bench::TimingPolicy timing;
};

/// Reads the options into a; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, Args& a) {
  bool quick = false;
  bench::CommandLine cl("spmv_bench", "Block SpMV (BSR) against Kokkos Kernels and cuSPARSE bsrmv.");
  cl.list("--problems", a.problems, "problem specs or Matrix Market files, comma-separated")
      .text("--json", a.json, "write the results to this file (default spmv_results.json)")
      .number("--reps", a.timing.reps, "timed runs per case", 1, 1000000)
      .flag("--quick", quick, "four small generated problems (a CPU smoke check)");
  if (const int rc = cl.parse(argc, argv); rc >= 0) return rc;
  if (quick && !cl.given("--problems"))
    a.problems = {"blocklap3d:24x24x24:b=3", "blocklap3d:16x16x16:b=4", "blocklap3d:10x10x10:b=8",
                  "blocklap3d:32x32x32:b=1"};
  return -1;
}

using bench::random_device_vector;
using bench::relative_difference;

#if defined(TRELLIS_WITH_CUSPARSE)
using bench::CusparseBsrmv;
#endif

/// Times y = A x runs against the KK reference: records ms, GB/s for `bytes`
/// and the difference in the row; sets `wrong` on a mismatch.
struct Recorder {
  const bench::TimingPolicy& timing;
  Vector y, reference;
  JsonObject& row;
  bool& wrong;
  double run(const std::string& name, double bytes, const std::function<void()>& f) {
    Kokkos::deep_copy(y, 0.0);
    const double ms = 1e3 * bench::time_case(f, timing).median;
    const double d = relative_difference(y, reference);
    row.set(name + "_ms", ms).set(name + "_GBs", bytes / ms / 1e6).set(name + "_diff", d);
    if (!(d < 1e-12)) {
      std::printf("  WRONG: %s differs from KokkosSparse::spmv by %.3g\n", name.c_str(), d);
      wrong = true;
    }
    return ms;
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
    std::vector<double> vs_kk, vs_cusparse;
    std::vector<std::string> table;
    for (const std::string& spec : args.problems) {
      const gallery::Problem p = gallery::load_problem(spec);
      const auto A = copy_to<Device>(p.block_matrix ? *p.block_matrix : csr_to_bsr(p.matrix, 1));
      const auto P = copy_to<Device>(p.matrix);
      const auto K = to_kokkos(P);
      const int b = A.block_size;
      const auto shape = detail::bsr_spmv_shape<Device::execution_space>(A.num_block_rows, A.nnz_blocks());
      std::printf("%s: %d rows, b=%d, %d blocks, vector length %d\n", p.name.c_str(), A.num_rows(), b, A.nnz_blocks(),
                  shape.vector_length);
      std::fflush(stdout);

      const Vector x = random_device_vector(size_t(A.num_cols()), 7);
      const ConstVector xc = x;
      Vector y("y", A.num_rows()), reference("reference", A.num_rows());
      KokkosSparse::spmv("N", 1.0, K, x, 0.0, reference);
      // Minimal traffic: values and indices once, x once, y written once.
      const double vectors = 8.0 * (A.num_cols() + A.num_rows());
      const double bsr_bytes = A.nnz_blocks() * (8.0 * b * b + 4) + 4.0 * (A.num_block_rows + 1) + vectors;
      const double csr_bytes = P.nnz() * 12.0 + 4.0 * (P.num_rows + 1) + vectors;

      JsonObject row;
      row.set("problem", p.name)
          .set("rows", (long long)A.num_rows())
          .set("block_size", b)
          .set("nnz_blocks", (long long)A.nnz_blocks())
          .set("nnz", (long long)P.nnz())
          .set("vector_length", shape.vector_length);
      Recorder rec{args.timing, y, reference, row, wrong};
      const double bsr = rec.run("bsr_spmv", bsr_bytes, [&] { bsr_spmv(1.0, A, xc, 0.0, y); });
      const double kk = rec.run("kk_csr", csr_bytes, [&] { KokkosSparse::spmv("N", 1.0, K, x, 0.0, y); });
      const double gbs = bsr_bytes / bsr / 1e6;
      row.set("bsr_spmv_fraction_of_copy", gbs / copy_gbs).set("speedup_vs_kk", kk / bsr);
      vs_kk.push_back(kk / bsr);
      char buf[256];
      std::snprintf(buf, sizeof buf, "%-28s %d %10lld %3d %9.1f %9.1f", p.name.c_str(), b, (long long)P.nnz(),
                    shape.vector_length, 1e3 * bsr, 1e3 * kk);
      std::string line = buf;
#if defined(TRELLIS_WITH_CUSPARSE)
      double vs_cu = NAN;
      try {
        const CusparseBsrmv cs(cusparse.get(), A);
        const double cu = rec.run("cusparse_bsrmv", bsr_bytes, [&] { cs.apply(xc, y); });
        vs_cu = cu / bsr;
        row.set("speedup_vs_cusparse", vs_cu);
        vs_cusparse.push_back(vs_cu);
        std::snprintf(buf, sizeof buf, " %9.1f", 1e3 * cu);
      } catch (const std::exception& e) {
        std::printf("  cusparse skipped: %s\n", e.what());
        row.set("cusparse_skipped", std::string(e.what()));
        std::snprintf(buf, sizeof buf, " %9s", "-");
      }
      line += buf;
#endif
      // Lane sweep (GPU only: host backends always run one lane per row).
      if (!detail::is_host_space<Device::execution_space>()) {
        JsonArray lanes;
        for (int v = 1; v <= detail::max_vector_width<Device::execution_space>(); v *= 2) {
          const std::string name = "lanes" + std::to_string(v);
          const double ms = rec.run(name, bsr_bytes, [&] {
            detail::bsr_spmv_shaped(1.0, A, xc, 0.0, y, detail::BsrSpmvShape{v, 256 / v, 1});
          });
          lanes.push(JsonObject().set("vector_length", v).set("ms", ms).set("GBs", bsr_bytes / ms / 1e6));
        }
        row.set("lane_sweep", lanes);
      }
      std::snprintf(buf, sizeof buf, " %7.0f %5.0f%% %6.2fx", gbs, 100 * gbs / copy_gbs, kk / bsr);
      line += buf;
#if defined(TRELLIS_WITH_CUSPARSE)
      std::snprintf(buf, sizeof buf, " %6.2fx", vs_cu);
      line += buf;
#endif
      table.push_back(line);
      rows.push(row);
    }

    std::printf("\ny = A x, microseconds per call (median); GB/s of bsr_spmv's minimal traffic\n");
    std::printf("%-28s %s %10s %3s %9s %9s", "problem", "b", "nnz", "V", "bsr_spmv", "KK-CSR");
#if defined(TRELLIS_WITH_CUSPARSE)
    std::printf(" %9s", "cuSPARSE");
#endif
    std::printf(" %7s %6s %7s", "GB/s", "copy", "vs KK");
#if defined(TRELLIS_WITH_CUSPARSE)
    std::printf(" %7s", "vs cuSP");
#endif
    std::printf("\n");
    for (const auto& l : table) std::printf("%s\n", l.c_str());
    JsonObject doc;
    doc.set("run", bench::run_record())
        .set("device", bench::device_name())
        .set("copy_GBs", copy_gbs)
        .set("results", rows);
    doc.set("geomean_speedup_vs_kk", bench::geometric_mean(vs_kk));
    std::printf("geomean speedup of bsr_spmv: %.2fx vs KokkosSparse::spmv (CSR)", bench::geometric_mean(vs_kk));
    if (!vs_cusparse.empty()) {
      doc.set("geomean_speedup_vs_cusparse", bench::geometric_mean(vs_cusparse));
      std::printf(", %.2fx vs cuSPARSE bsrmv", bench::geometric_mean(vs_cusparse));
    }
    std::printf("\n");
    bench::write_text_file(args.json, doc.str() + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spmv_bench: %s\n", e.what());
    return 2;
  }
  if (wrong) std::printf("WRONG results above\n");
  return wrong ? 1 : 0;
}
