// trsv_bench: sparse triangular solves and Gauss-Seidel sweeps on seed 002's
// Laplacian grids (Tables 1-2) and the real test matrices. Every Trellis
// algorithm is timed against Kokkos Kernels' sptrsv (RP, TP1, TP1CHAIN) and,
// on CUDA, cuSPARSE's SpSV, in the same run and the same way: device fences
// around each run, median of repeated runs after warm-ups (bench_support.hpp).
// Each result is checked against the serial host substitution and sweep in
// double of unit_tests/reference; a relative error over 1e-10 is reported as
// WRONG and makes the program exit non-zero.
//
// Full results go to a JSON file; a short table is printed last.
#include <Kokkos_Core.hpp>  // before any Kokkos Kernels header
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_sptrsv.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "cusparse_support.hpp"    // cuSPARSE baselines when TRELLIS_WITH_CUSPARSE
#include "gauss_seidel_sweep.hpp"  // serial references (unit_tests/reference)
#include "host_vectors.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/core/triangle.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/gauss_seidel/gauss_seidel.hpp"
#include "trellis/trsv/algorithm.hpp"
#include "trellis/trsv/triangular_solver.hpp"
#include "triangular_solve.hpp"  // unit_tests/reference: the serial solves and off_diagonal_in_float

namespace {

using namespace trellis;
using Device = DefaultDevice;
using exec_space = Device::execution_space;
using mem_space = Device::memory_space;
using DeviceCsr = CsrMatrix<double, Device>;
using Vector = Kokkos::View<double*, Device>;
using ConstVector = Kokkos::View<const double*, Device>;
using HostVector = std::vector<double>;
using bench::JsonArray;
using bench::JsonObject;
using bench::Timing;

constexpr double tolerance = 1e-10;
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr bool host_device = std::is_same<mem_space, Kokkos::HostSpace>::value;

// ================================================================ options ===

struct Options {
  std::vector<std::string> problems;  // empty: the suite
  bool quick = false;
  bench::TimingPolicy timing;
  std::string json_path = "trsv_results.json";
  std::vector<TrsvAlgorithm> algorithms{std::begin(all_trsv_algorithms), std::end(all_trsv_algorithms)};
  std::vector<std::string> baselines{"kk-rp", "kk-tp1", "kk-tp1chain", "cusparse"};
  // TP1CHAIN chains levels of at most this many rows into one single-block
  // kernel; on the GPU 256 lets whole narrow grids run in one launch.
  int kk_chain_threshold = host_device ? 1 : 256;
  bool gauss_seidel = true;
  bool real_matrices = true;  // add $TRELLIS_MATRICES/MANIFEST.tsv's matrices
  bool training = false;      // add $TRELLIS_MATRICES/training/MANIFEST.tsv's
  TileOrder tile_order = TileOrder::automatic;
  std::vector<std::string> tile_variants{"rows"};  // the tiled solves' SpMV mapping [-2p], one solver each
  std::vector<int> block_rows{0};                  // block-syncfree: one solver per value (0: the backend's default)
  std::vector<int> team_rows{0};                   // elmr-value: one solver per rows a team (0: the default)
  double budget_seconds = 0;                       // 0: no limit; else stop starting problems after it
  std::uint64_t seed = 0;
  std::size_t copy_mib = 256;
};

/// The tile options a --tile-variants word names: a TileSpmv, then "-2p"
/// for two phases, then "-f32" for single-precision values.
TileOptions tile_variant(const std::string& word) {
  TileOptions t;
  std::string w = word;
  const auto strip = [&w](const std::string& suffix) {
    const bool has = w.size() > suffix.size() && w.compare(w.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (has) w.resize(w.size() - suffix.size());
    return has;
  };
  t.single_values = strip("-f32");
  t.two_phase = strip("-2p");
  try {
    t.spmv = parse<TileSpmv>(w);
  } catch (const InputError&) {
    throw InputError("unknown tile variant '" + word + "' (accepted: tiles or rows, then optionally -2p, then -f32)");
  }
  return t;
}

/// The Trellis algorithms named in a comma-separated list.
std::vector<TrsvAlgorithm> parse_algorithms(const std::string& list) {
  std::vector<TrsvAlgorithm> out;
  for (const auto& name : bench::split_list(list)) out.push_back(parse<TrsvAlgorithm>(name));
  return out;
}

/// The baselines named in a comma-separated list ("none": no baselines).
std::vector<std::string> parse_baselines(const std::string& list) {
  std::vector<std::string> out;
  for (const auto& name : bench::split_list(list)) {
    if (name == "none") continue;
    if (name != "kk-rp" && name != "kk-tp1" && name != "kk-tp1chain" && name != "cusparse")
      throw InputError("unknown baseline '" + name + "' (accepted: kk-rp, kk-tp1, kk-tp1chain, cusparse, none)");
    out.push_back(name);
  }
  return out;
}

/// Options from the command line (Kokkos' own arguments already removed).
/// Returns false when the usage was asked for.
/// Reads the options into o; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, Options& o) {
  int copy_mib = int(o.copy_mib);
  bench::CommandLine cl("trsv_bench",
                        "Triangular solves and Gauss-Seidel sweeps (seed 002, Tables 1-2) against Kokkos Kernels' "
                        "sptrsv and cuSPARSE SpSV.");
  cl.list("--problems", o.problems,
          "problems (generated specs or .mtx paths) instead of seed 002's 2D/3D Laplacian grids; "
          "$TRELLIS_MATRICES/MANIFEST.tsv is added")
      .flag("--no-real-matrices", o.real_matrices, "do not add the matrices of $TRELLIS_MATRICES", false)
      .flag("--training", o.training, "add the matrices of $TRELLIS_MATRICES/training (.mtx.gz)")
      .word(
          "--tile-order", [&](const std::string& w) { o.tile_order = parse<TileOrder>(w); },
          "rows the tiled solves cut into tiles: auto (default: the denser of the two), natural or levels")
      .word(
          "--tile-variants",
          [&](const std::string& list) {
            o.tile_variants = bench::split_list(list);
            for (const auto& v : o.tile_variants) tile_variant(v);  // checked here
          },
          "the tiled solves' variants, one solver each: the SpMV mapping, rows (default, the paper's) or tiles, "
          "then -2p for tile-levelset's two phases (Algorithm 6), then -f32 for float values (Figure 10), e.g. "
          "tiles,rows,rows-2p,rows-f32")
      .numbers("--block-rows", o.block_rows,
               "block-syncfree's rows per block, one solver each (default 0: the backend's default)", 0, 1 << 20)
      .numbers("--team-rows", o.team_rows,
               "elmr-value's rows a team on GPUs, one solver each (default 0: from the mean rows a level)", 0, 1 << 20)
      .flag("--quick", o.quick, "small versions of the suite (CI smoke)")
      .number("--reps", o.timing.reps, "timed runs per case (default 20; fewer for slow cases)", 1, 1000000)
      .number("--warmups", o.timing.warmups, "untimed runs first (default 3)", 0, 1000000)
      .number("--max-seconds-per-case", o.timing.max_seconds,
              "time a slow case gets before its reps are cut (default 1)", 0, 1e6)
      .word(
          "--algorithms", [&](const std::string& list) { o.algorithms = parse_algorithms(list); },
          "Trellis algorithms (levelset-csr, levelset-csc, elmr, elmr-lanes, elmr-value, elmc, syncfree-naive, "
          "tile-levelset, tile-syncfree, block-syncfree, team-levelset, auto); default: all concrete ones")
      .word(
          "--baselines", [&](const std::string& list) { o.baselines = parse_baselines(list); },
          "kk-rp, kk-tp1, kk-tp1chain, cusparse, or none (default all)")
      .number("--kk-chain-threshold", o.kk_chain_threshold,
              "rows per level chained by KK TP1CHAIN (default " + std::to_string(o.kk_chain_threshold) + ")", 0,
              1 << 30)
      .flag("--no-gs", o.gauss_seidel, "skip the Gauss-Seidel sweeps", false)
      .number("--budget-seconds", o.budget_seconds, "start no new problem after S seconds (default: no limit)", 0, 1e9)
      .number("--seed", o.seed, "seed of the random right-hand sides (default: random)")
      .number("--copy-mib", copy_mib, "size of each View in the copy-bandwidth test (default 256)", 1, 1 << 20)
      .text("--json", o.json_path, "results file (default trsv_results.json)");
  if (const int rc = cl.parse(argc, argv); rc >= 0) return rc;
  o.copy_mib = std::size_t(copy_mib);
  if (!cl.given("--seed")) o.seed = std::random_device{}();
  if (o.quick && !cl.given("--copy-mib")) o.copy_mib = 64;
  return -1;
}

// ================================================================ problems ===

/// Seed 002's grids (Tables 1-2): the same number of unknowns per dimension,
/// growing aspect ratio, hence more levels and less parallelism.
std::vector<std::string> paper_suite() {
  std::vector<std::string> out;
  for (const char* stencil : {"lap2d5", "lap2d9"})
    for (const char* grid : {"2048x2048", "1024x4096", "512x8192", "256x16384", "128x32768"})
      out.push_back(std::string(stencil) + ":" + grid);
  for (const char* stencil : {"lap3d7", "lap3d27"})
    for (const char* grid : {"128x128x128", "64x128x256", "64x64x512", "32x64x1024", "32x32x2048"})
      out.push_back(std::string(stencil) + ":" + grid);
  return out;
}

/// Small problems of each stencil, for a smoke run on a CPU.
std::vector<std::string> quick_suite() {
  return {"lap2d5:256x256", "lap2d9:128x256", "lap3d7:32x32x32", "lap3d27:24x24x24"};
}

/// The problems to run: --problems, else the (quick) suite; then the real
/// matrices of $TRELLIS_MATRICES/MANIFEST.tsv when that is set.
std::vector<std::string> problem_list(const Options& o) {
  std::vector<std::string> out = !o.problems.empty() ? o.problems : o.quick ? quick_suite() : paper_suite();
  if (const char* dir = std::getenv("TRELLIS_MATRICES"); dir && o.real_matrices)
    for (const auto& path : bench::manifest_matrices(dir)) out.push_back(path);
  if (const char* dir = std::getenv("TRELLIS_MATRICES"); dir && o.training)
    for (const auto& path : bench::training_matrices(dir)) out.push_back(path);
  return out;
}

/// Why a matrix cannot be solved with its triangles (non-square, a missing,
/// zero or non-finite diagonal entry), or "" when it can.
std::string unusable_reason(const HostCsr& A) {
  if (!A.is_square()) return "not square";
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    double d = 0;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k)
      if (A.entries(k) == i) d = A.values(k);
    if (d == 0 || !std::isfinite(d)) return "zero, missing or non-finite diagonal at row " + std::to_string(i);
  }
  return "";
}

/// Stored entries of A's lower or upper triangle, diagonal included: the
/// nnz of the paper's flop count 2 * nnz.
offset_t triangle_nnz(const HostCsr& A, Triangle tri) {
  offset_t count = 0;
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) count += keeps_entry(tri, true, i, A.entries(k)) ? 1 : 0;
  return count;
}

/// Everything the solvers of one problem share: the matrix and its triangles
/// on the device, the inputs, and the host reference results.
struct ProblemData {
  gallery::Problem problem;
  ordinal_t n = 0;
  offset_t nnz = 0, nnz_lower = 0, nnz_upper = 0;  // triangles include the diagonal
  ordinal_t levels_lower = 0, levels_upper = 0;
  DeviceCsr A, L, U;  // L, U: the triangles with the diagonal (for the baselines)
  Vector b, x0;       // right-hand side; starting guess of the Gauss-Seidel sweep
  HostVector ref_lower, ref_upper, ref_gs;
  // With the off-diagonal values rounded to float: what a solver with float
  // values (--tile-variants ...-f32) must reach (empty when none asks).
  HostVector ref_lower_f32, ref_upper_f32;
};

/// Builds the device data and host references for a loaded problem.
void prepare_problem(ProblemData& p, std::uint64_t seed, bool float_references) {
  const HostCsr& A = p.problem.matrix;
  p.n = A.num_rows;
  p.nnz = A.nnz();
  p.nnz_lower = triangle_nnz(A, Triangle::lower);
  p.nnz_upper = triangle_nnz(A, Triangle::upper);
  p.levels_lower = count_levels_host(A, Triangle::lower);
  p.levels_upper = count_levels_host(A, Triangle::upper);
  const HostVector b = reference::random_vector(p.n, seed), x0 = reference::random_vector(p.n, seed + 1);
  p.ref_lower = reference::triangular_solve(A, Triangle::lower, b);
  p.ref_upper = reference::triangular_solve(A, Triangle::upper, b);
  p.ref_gs = reference::gauss_seidel(A, b, x0, SweepDirection::symmetric, 1);
  if (float_references) {
    const HostCsr A32 = reference::off_diagonal_in_float(A);
    p.ref_lower_f32 = reference::triangular_solve(A32, Triangle::lower, b);
    p.ref_upper_f32 = reference::triangular_solve(A32, Triangle::upper, b);
  }
  p.A = to_device(A);
  p.L = extract_triangle(p.A, Triangle::lower, Diagonal::include);
  p.U = extract_triangle(p.A, Triangle::upper, Diagonal::include);
  p.b = bench::to_device_vector(b, "b");
  p.x0 = bench::to_device_vector(x0, "x0");
}

// ================================================================ solvers ===

/// One triangular solve with its analysis done: what every solver under test
/// is wrapped as, so that all are timed and checked by the same code.
class TriangleRunner {
 public:
  virtual ~TriangleRunner() = default;
  virtual void solve(ConstVector b, Vector x) = 0;
  /// Seconds of the symbolic phase (device fenced).
  virtual double analysis_seconds() const = 0;
  /// A note for the JSON (the choice of `auto`, a tuning parameter).
  virtual std::string details() const { return ""; }
};

/// Trellis' TriangularSolver on the full matrix A (it reads only the triangle).
class TrellisRunner : public TriangleRunner {
 public:
  TrellisRunner(const DeviceCsr& A, Triangle tri, TrsvAlgorithm algorithm, const TileOptions& tile, int block_rows,
                int team_rows)
      : solver_(A, options(tri, algorithm, tile, block_rows, team_rows)) {}
  void solve(ConstVector b, Vector x) override { solver_.solve(b, x); }
  double analysis_seconds() const override { return solver_.analysis_seconds(); }
  std::string details() const override {
    std::string d = std::string(to_string(solver_.algorithm())) + ": " + solver_.choice_reason();
    const TileReport tiles = solver_.tile_report();
    if (tiles.tile_rows) d += "; " + tiles.describe();
    return d;
  }

 private:
  static TrsvOptions options(Triangle tri, TrsvAlgorithm algorithm, const TileOptions& tile, int block_rows,
                             int team_rows) {
    TrsvOptions o;
    o.block_rows = block_rows;
    o.team_rows = team_rows;
    o.triangle = tri;
    o.algorithm = algorithm;
    o.tile = tile;
    return o;
  }
  TriangularSolver<double, Device> solver_;
};

using KKHandle =
    KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, double, exec_space, mem_space, mem_space>;
using KokkosSparse::Experimental::SPTRSVAlgorithm;

/// Kokkos Kernels' sptrsv on the extracted triangle (diagonal included).
class KokkosKernelsRunner : public TriangleRunner {
 public:
  KokkosKernelsRunner(const DeviceCsr& T, Triangle tri, SPTRSVAlgorithm algorithm, int chain_threshold) : T_(T) {
    handle_.create_sptrsv_handle(algorithm, T.num_rows, tri == Triangle::lower);
    if (algorithm == SPTRSVAlgorithm::SEQLVLSCHD_TP1CHAIN) {
      handle_.get_sptrsv_handle()->reset_chain_threshold(chain_threshold);
      details_ = "chain_threshold=" + std::to_string(chain_threshold);
    }
    analysis_ =
        bench::fenced_seconds([&] { trellis::compat::sptrsv::sptrsv_symbolic(&handle_, T_.row_map, T_.entries); });
  }
  void solve(ConstVector b, Vector x) override {
    trellis::compat::sptrsv::sptrsv_solve(&handle_, T_.row_map, T_.entries, T_.values, b, x);
  }
  double analysis_seconds() const override { return analysis_; }
  std::string details() const override { return details_; }

 private:
  DeviceCsr T_;
  KKHandle handle_;
  double analysis_ = 0;
  std::string details_;
};

#if defined(TRELLIS_WITH_CUSPARSE)
using bench::CusparseGaussSeidel;
using bench::CusparseLibrary;

/// cuSPARSE's generic SpSV (CSR, 32-bit indices, non-unit diagonal) on the
/// triangle of A; its analysis is what analysis_seconds() reports.
class CusparseRunner : public TriangleRunner {
 public:
  CusparseRunner(cusparseHandle_t handle, const DeviceCsr& T, Triangle tri, ConstVector b, Vector x)
      : spsv_(handle, T, tri, false, b, x) {}
  void solve(ConstVector b, Vector x) override { spsv_.solve(b, x); }
  double analysis_seconds() const override { return spsv_.analysis_seconds(); }
  std::string details() const override { return "buffer_bytes=" + std::to_string(spsv_.buffer_bytes()); }

 private:
  bench::CusparseSpsv spsv_;
};
#endif

/// A solver under test: its table label, family, full name, and how to build
/// it for one triangle of a problem (writing into x).
struct SolverSpec {
  std::string label;   // LEVR, KK-TP1, cuSPARSE
  std::string family;  // trellis, kokkos-kernels, cusparse
  std::string name;    // levelset-csr, SEQLVLSCHD_TP1, cusparseSpSV
  std::function<std::unique_ptr<TriangleRunner>(const ProblemData&, Triangle, Vector)> make;
  bool float_values = false;  // checked against the float-rounded matrix's solution
};

/// A Gauss-Seidel sweep pair under test: its table label, full name, and how
/// to build it for a problem (in_place: whether it works on x without a
/// copy). The sweep is one forward and one backward sweep on x.
using GsSweep = std::function<void(ConstVector, Vector)>;
struct GsSpec {
  std::string label, name;
  std::function<GsSweep(const ProblemData&, Vector, bool& in_place)> make;
};

/// The paper's short name of a Trellis algorithm (its table column).
std::string short_label(TrsvAlgorithm a) {
  switch (a) {
    case TrsvAlgorithm::levelset_csr: return "LEVR";
    case TrsvAlgorithm::levelset_csc: return "LEVC";
    case TrsvAlgorithm::elmr: return "ELMR";
    case TrsvAlgorithm::elmr_lanes: return "ELMR-L";
    case TrsvAlgorithm::elmr_value: return "ELMR-V";
    case TrsvAlgorithm::elmc: return "ELMC";
    case TrsvAlgorithm::syncfree_naive: return "GSF";
    case TrsvAlgorithm::tile_levelset: return "TILE-LS";
    case TrsvAlgorithm::tile_syncfree: return "TILE-SF";
    case TrsvAlgorithm::block_syncfree: return "BLK";
    case TrsvAlgorithm::team_levelset: return "TEAM";
    case TrsvAlgorithm::automatic: return "AUTO";
  }
  return to_string(a);
}

/// A Trellis algorithm as a solver under test.
/// tile_variant: a tiled algorithm's --tile-variants word ("rows", the default: no suffix).
SolverSpec trellis_spec(TrsvAlgorithm a, TileOrder order, int block_rows = 0, int team_rows = 0,
                        const std::string& tile_variant_word = "rows") {
  TileOptions tile = tile_variant(tile_variant_word);
  tile.order = order;
  const std::string suffix = block_rows                    ? "-" + std::to_string(block_rows)
                             : team_rows                   ? "-T" + std::to_string(team_rows)
                             : tile_variant_word != "rows" ? "-" + tile_variant_word
                                                           : std::string();
  return {short_label(a) + suffix, "trellis", to_string(a) + suffix,
          [a, tile, block_rows, team_rows](const ProblemData& p, Triangle tri, Vector) {
            return std::unique_ptr<TriangleRunner>(new TrellisRunner(p.A, tri, a, tile, block_rows, team_rows));
          },
          tile.single_values};
}

/// A Kokkos Kernels sptrsv algorithm as a solver under test.
SolverSpec kk_spec(const std::string& label, const std::string& name, SPTRSVAlgorithm a, int chain_threshold) {
  return {label, "kokkos-kernels", name, [=](const ProblemData& p, Triangle tri, Vector) {
            const DeviceCsr& T = tri == Triangle::lower ? p.L : p.U;
            return std::unique_ptr<TriangleRunner>(new KokkosKernelsRunner(T, tri, a, chain_threshold));
          }};
}

/// Every solver the options ask for; `cusparse` is null except on CUDA.
std::vector<SolverSpec> solver_specs(const Options& o, const void* cusparse) {
  std::vector<SolverSpec> out;
  for (const TrsvAlgorithm a : o.algorithms)
    if (a == TrsvAlgorithm::block_syncfree)
      for (int rows : o.block_rows) out.push_back(trellis_spec(a, o.tile_order, rows));
    else if (a == TrsvAlgorithm::elmr_value)
      for (int rows : o.team_rows) out.push_back(trellis_spec(a, o.tile_order, 0, rows));
    else if (a == TrsvAlgorithm::tile_levelset || a == TrsvAlgorithm::tile_syncfree)
      for (const auto& v : o.tile_variants) {
        if (a == TrsvAlgorithm::tile_syncfree && tile_variant(v).two_phase) continue;  // levelset's phases
        out.push_back(trellis_spec(a, o.tile_order, 0, 0, v));
      }
    else
      out.push_back(trellis_spec(a, o.tile_order));
  for (const auto& b : o.baselines) {
    if (b == "kk-rp") out.push_back(kk_spec("KK-RP", "SEQLVLSCHD_RP", SPTRSVAlgorithm::SEQLVLSCHD_RP, 0));
    if (b == "kk-tp1") out.push_back(kk_spec("KK-TP1", "SEQLVLSCHD_TP1", SPTRSVAlgorithm::SEQLVLSCHD_TP1, 0));
    if (b == "kk-tp1chain")
      out.push_back(
          kk_spec("KK-TP1CHAIN", "SEQLVLSCHD_TP1CHAIN", SPTRSVAlgorithm::SEQLVLSCHD_TP1CHAIN, o.kk_chain_threshold));
#if defined(TRELLIS_WITH_CUSPARSE)
    if (b == "cusparse" && cusparse) {
      const cusparseHandle_t h = static_cast<const CusparseLibrary*>(cusparse)->get();
      out.push_back({"cuSPARSE", "cusparse", "cusparseSpSV", [h](const ProblemData& p, Triangle tri, Vector x) {
                       const DeviceCsr& T = tri == Triangle::lower ? p.L : p.U;
                       return std::unique_ptr<TriangleRunner>(new CusparseRunner(h, T, tri, p.b, x));
                     }});
    }
#else
    (void)cusparse;
#endif
  }
  return out;
}

// ============================================================ measurement ===

/// Timing and check of one solver on one triangle.
struct TriangleResult {
  double setup_seconds = 0;     // construction, analysis included, fenced
  double analysis_seconds = 0;  // the symbolic phase as the solver reports it
  Timing time;
  double rel_error = not_a_number;
  std::string details;
};

/// One solver on one problem: both triangles, or the error that stopped it.
struct SolverResult {
  std::string label, family, name, error;
  TriangleResult lower, upper;
  bool wrong() const { return error.empty() && !(lower.rel_error <= tolerance && upper.rel_error <= tolerance); }
  const char* status() const { return !error.empty() ? "error" : wrong() ? "WRONG" : "ok"; }
};

/// One Gauss-Seidel sweep pair (forward + backward) of one algorithm.
struct GsResult {
  std::string label, name, error;
  double setup_seconds = 0;
  Timing time;
  double rel_error = not_a_number;
  bool in_place = false;
  bool wrong() const { return error.empty() && !(rel_error <= tolerance); }
  const char* status() const { return !error.empty() ? "error" : wrong() ? "WRONG" : "ok"; }
};

/// Builds, times and checks one solver on one triangle. The check runs after
/// the timing, on a NaN-poisoned x, so an unwritten entry shows as an error.
TriangleResult measure_triangle(const SolverSpec& spec, const ProblemData& p, Triangle tri, Vector x,
                                const Options& o) {
  TriangleResult r;
  std::unique_ptr<TriangleRunner> runner;
  r.setup_seconds = bench::fenced_seconds([&] { runner = spec.make(p, tri, x); });
  r.analysis_seconds = runner->analysis_seconds();
  r.details = runner->details();
  r.time = bench::time_case([&] { runner->solve(p.b, x); }, o.timing);
  Kokkos::deep_copy(x, not_a_number);
  runner->solve(p.b, x);
  Kokkos::fence();
  const HostVector& ref = spec.float_values ? (tri == Triangle::lower ? p.ref_lower_f32 : p.ref_upper_f32)
                                            : (tri == Triangle::lower ? p.ref_lower : p.ref_upper);
  r.rel_error = reference::relative_error(bench::to_host_vector(x), ref);
  return r;
}

/// One solver on both triangles; an exception is recorded, not propagated.
SolverResult measure_solver(const SolverSpec& spec, const ProblemData& p, Vector x, const Options& o) {
  SolverResult r;
  r.label = spec.label;
  r.family = spec.family;
  r.name = spec.name;
  try {
    r.lower = measure_triangle(spec, p, Triangle::lower, x, o);
    r.upper = measure_triangle(spec, p, Triangle::upper, x, o);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

/// Times and checks a symmetric sweep pair from x0; x is restored to x0
/// (untimed) before every run.
GsResult measure_gs(const GsSpec& spec, const ProblemData& p, Vector x, const Options& o) {
  GsResult r;
  r.label = spec.label;
  r.name = spec.name;
  try {
    GsSweep gs;
    r.setup_seconds = bench::fenced_seconds([&] { gs = spec.make(p, x, r.in_place); });
    auto sweep = [&] { gs(p.b, x); };
    r.time = bench::time_case(sweep, o.timing, [&] { Kokkos::deep_copy(x, p.x0); });
    Kokkos::deep_copy(x, p.x0);
    sweep();
    Kokkos::fence();
    r.rel_error = reference::relative_error(bench::to_host_vector(x), p.ref_gs);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

// ================================================================= results ===

/// Everything measured on one problem.
struct ProblemResult {
  std::string name, description, skipped, error;
  ordinal_t n = 0;
  offset_t nnz = 0, nnz_lower = 0, nnz_upper = 0;
  ordinal_t levels_lower = 0, levels_upper = 0;
  double load_seconds = 0;
  std::vector<SolverResult> solvers;
  std::vector<GsResult> gs;
};

/// Bytes one solve must move at least: the triangle's values and column
/// indices, row_map, b read, x written, the diagonal read.
double trsv_bytes(offset_t nnz_tri, ordinal_t n) {
  return double(nnz_tri) * (sizeof(double) + sizeof(int)) + double(n + 1) * sizeof(int) + 3.0 * n * sizeof(double);
}

/// GFLOP/s of the lower + upper solve pair: 2 (nnz_L + nnz_U) / (t_L + t_U).
double pair_gflops(const SolverResult& s, const ProblemResult& p) {
  if (!s.error.empty()) return not_a_number;
  return 2.0 * (p.nnz_lower + p.nnz_upper) / (s.lower.time.median + s.upper.time.median) / 1e9;
}

/// The JSON of one triangle's result.
JsonObject triangle_json(const TriangleResult& t, offset_t nnz_tri, ordinal_t n, double copy_gbs) {
  const double gbs = trsv_bytes(nnz_tri, n) / t.time.median / 1e9;
  return JsonObject()
      .set("median_s", t.time.median)
      .set("min_s", t.time.min)
      .set("max_s", t.time.max)
      .set("reps", t.time.reps)
      .set("gflops", 2.0 * nnz_tri / t.time.median / 1e9)
      .set("gbs", gbs)
      .set("gbs_fraction_of_copy", gbs / copy_gbs)
      .set("analysis_s", t.analysis_seconds)
      .set("setup_s", t.setup_seconds)
      .set("rel_error", t.rel_error)
      .set("details", t.details);
}

/// The JSON of one problem.
JsonObject problem_json(const ProblemResult& p, double copy_gbs) {
  JsonObject o;
  o.set("problem", p.name).set("description", p.description);
  if (!p.skipped.empty()) return o.set("skipped", p.skipped);
  if (!p.error.empty()) return o.set("error", p.error);
  o.set("n", p.n)
      .set("nnz", p.nnz)
      .set("nnz_lower", p.nnz_lower)
      .set("nnz_upper", p.nnz_upper)
      .set("levels_lower", p.levels_lower)
      .set("levels_upper", p.levels_upper)
      .set("load_s", p.load_seconds);
  JsonArray trsv;
  for (const auto& s : p.solvers) {
    JsonObject j;
    j.set("solver", s.label).set("family", s.family).set("name", s.name).set("status", s.status());
    if (!s.error.empty())
      j.set("error", s.error);
    else
      j.set("gflops_lower_upper", pair_gflops(s, p))
          .set("lower", triangle_json(s.lower, p.nnz_lower, p.n, copy_gbs))
          .set("upper", triangle_json(s.upper, p.nnz_upper, p.n, copy_gbs));
    trsv.push(j);
  }
  JsonArray gs;
  for (const auto& g : p.gs) {
    JsonObject j;
    j.set("algorithm", g.label).set("name", g.name).set("status", g.status());
    if (!g.error.empty())
      j.set("error", g.error);
    else
      j.set("median_s", g.time.median)
          .set("min_s", g.time.min)
          .set("max_s", g.time.max)
          .set("reps", g.time.reps)
          .set("gflops_paper", 2.0 * p.nnz / g.time.median / 1e9)
          .set("gflops_actual", 4.0 * p.nnz / g.time.median / 1e9)
          .set("setup_s", g.setup_seconds)
          .set("in_place", g.in_place)
          .set("rel_error", g.rel_error);
    gs.push(j);
  }
  return o.set("trsv", trsv).set("gauss_seidel", gs);
}

/// Every Gauss-Seidel sweep the options ask for: each Trellis algorithm's,
/// and the cuSPARSE-based one when cuSPARSE is a baseline (`cusparse` is
/// null except on CUDA).
std::vector<GsSpec> gs_specs(const Options& o, const void* cusparse) {
  std::vector<GsSpec> out;
  if (!o.gauss_seidel) return out;
  for (const TrsvAlgorithm a : o.algorithms)
    out.push_back({short_label(a), to_string(a), [a](const ProblemData& p, Vector, bool& in_place) {
                     auto gs = std::make_shared<GaussSeidel<double, Device>>(p.A, a);
                     in_place = gs->in_place();
                     return GsSweep([gs](ConstVector b, Vector x) { gs->apply(b, x, SweepDirection::symmetric, 1); });
                   }});
#if defined(TRELLIS_WITH_CUSPARSE)
  if (cusparse && std::find(o.baselines.begin(), o.baselines.end(), "cusparse") != o.baselines.end()) {
    const cusparseHandle_t h = static_cast<const CusparseLibrary*>(cusparse)->get();
    out.push_back({"cuSPARSE", "cusparseSpMV+cusparseSpSV", [h](const ProblemData& p, Vector x, bool& in_place) {
                     auto gs = std::make_shared<CusparseGaussSeidel>(h, p.A, x);
                     in_place = false;  // sweeps through a copy of b
                     return GsSweep([gs](ConstVector b, Vector x) { gs->symmetric(b, x); });
                   }});
  }
#else
  (void)cusparse;
#endif
  return out;
}

/// One problem: load, check it can be solved, prepare, run every solver and
/// the Gauss-Seidel sweeps, printing a progress line per solver.
ProblemResult run_problem(const std::string& spec, size_t index, const std::vector<SolverSpec>& solvers,
                          const std::vector<GsSpec>& sweeps, const Options& o) {
  ProblemResult r;
  r.name = spec;
  ProblemData p;
  try {
    Kokkos::Timer timer;
    p.problem = gallery::load_problem(spec);
    r.load_seconds = timer.seconds();
    r.description = p.problem.description;
    r.skipped = unusable_reason(p.problem.matrix);
    if (!r.skipped.empty()) return r;
    prepare_problem(p, o.seed + 1000 * index,
                    std::any_of(o.tile_variants.begin(), o.tile_variants.end(),
                                [](const std::string& v) { return tile_variant(v).single_values; }));
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  r.n = p.n;
  r.nnz = p.nnz;
  r.nnz_lower = p.nnz_lower;
  r.nnz_upper = p.nnz_upper;
  r.levels_lower = p.levels_lower;
  r.levels_upper = p.levels_upper;
  std::printf("%s: n=%d nnz=%d levels L/U %d/%d\n", spec.c_str(), r.n, r.nnz, r.levels_lower, r.levels_upper);
  Vector x(Kokkos::ViewAllocateWithoutInitializing("x"), p.n);
  for (const auto& s : solvers) {
    r.solvers.push_back(measure_solver(s, p, x, o));
    const SolverResult& m = r.solvers.back();
    if (m.error.empty())
      std::printf("  %-12s lower %10.3f ms  upper %10.3f ms  %7.3f GFLOP/s  err %.1e/%.1e  %s\n", m.label.c_str(),
                  1e3 * m.lower.time.median, 1e3 * m.upper.time.median, pair_gflops(m, r), m.lower.rel_error,
                  m.upper.rel_error, m.status());
    else
      std::printf("  %-12s error: %s\n", m.label.c_str(), m.error.c_str());
    std::fflush(stdout);
  }
  for (const GsSpec& sweep : sweeps) {
    r.gs.push_back(measure_gs(sweep, p, x, o));
    const GsResult& g = r.gs.back();
    if (g.error.empty())
      std::printf("  GS %-9s sweep pair %10.3f ms  %7.3f GFLOP/s (2nnz/t)  err %.1e  %s\n", g.label.c_str(),
                  1e3 * g.time.median, 2.0 * r.nnz / g.time.median / 1e9, g.rel_error, g.status());
    else
      std::printf("  GS %-9s error: %s\n", g.label.c_str(), g.error.c_str());
    std::fflush(stdout);
  }
  return r;
}

/// Settings and conventions, for the JSON header.
JsonObject settings_json(const Options& o) {
  JsonArray algorithms, baselines, tile_variants;
  for (const auto a : o.algorithms) algorithms.push(std::string(to_string(a)));
  for (const auto& v : o.tile_variants) tile_variants.push(v);
  for (const auto& b : o.baselines) baselines.push(b);
  return JsonObject()
      .set("reps", o.timing.reps)
      .set("warmups", o.timing.warmups)
      .set("min_reps", o.timing.min_reps)
      .set("max_seconds_per_case", o.timing.max_seconds)
      .set("quick", o.quick)
      .set("algorithms", algorithms)
      .set("baselines", baselines)
      .set("kk_chain_threshold", o.kk_chain_threshold)
      .set("tile_order", std::string(to_string(o.tile_order)))
      .set("tile_variants", tile_variants)
      .set("seed", (long long)o.seed)
      .set("tolerance", tolerance)
      .set("copy_mib_per_view", (long long)o.copy_mib);
}

/// What each reported number means.
JsonObject conventions_json() {
  return JsonObject()
      .set("time", "median of fenced timed runs after warm-ups (host timer between device fences)")
      .set("trsv_gflops", "2*nnz_tri/t, nnz_tri = stored entries of the triangle incl. diagonal")
      .set("gflops_lower_upper", "2*(nnz_lower+nnz_upper)/(t_lower+t_upper); the table's trsv column")
      .set("trsv_gbs", "bytes/t, bytes = nnz_tri*(8+4) + (n+1)*4 + 3*n*8 (values+indices, row_map, b, x, diagonal)")
      .set("copy_gbs", "Kokkos::deep_copy of two equal double Views: bytes read + written / median time")
      .set("gs_gflops_paper",
           "2*nnz(A)/t per forward+backward sweep pair (seed 002's convention; the table's GS column)")
      .set("gs_gflops_actual", "4*nnz(A)/t per forward+backward sweep pair (flops actually done)")
      .set("rel_error",
           "||x - x_ref||_2/||x_ref||_2 vs serial host substitution in double (for -f32 tile variants: of the matrix "
           "with its off-diagonal values rounded to float); > tolerance is WRONG");
}

// ================================================================== tables ===

/// A table cell: the number, or why there is none.
std::string cell(double v, const char* status = "ok") {
  if (std::string(status) == "WRONG") return "WRONG";
  if (std::string(status) == "error") return "ERR";
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 0.1 ? "%.2f" : "%.2g", v);
  return buf;
}

/// Width of a solver's table column: its label, at least 8.
int column_width(const SolverSpec& s) { return std::max(8, int(s.label.size())); }

/// The last path component (real matrices are named by file).
std::string short_name(const std::string& name) {
  const size_t slash = name.find_last_of('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

/// GFLOP/s of the solver with this label on a problem, or NaN (absent or not ok).
double gflops_of(const ProblemResult& p, const std::string& label) {
  for (const auto& s : p.solvers)
    if (s.label == label && std::string(s.status()) == "ok") return pair_gflops(s, p);
  return not_a_number;
}

/// The best of the element-scheduled solvers (ELMR, ELMR-V, ELMC) on a
/// problem, NaN if none ran correctly.
double best_elm(const ProblemResult& p) {
  double best = not_a_number;
  for (const char* label : {"ELMR", "ELMR-V", "ELMC"}) {
    const double g = gflops_of(p, label);
    if (std::isfinite(g) && !(g <= best)) best = g;
  }
  return best;
}

/// GFLOP/s (2 nnz(A) / t) of a Gauss-Seidel label on a problem, or NaN.
double gs_gflops(const ProblemResult& p, const std::string& label) {
  for (const auto& g : p.gs)
    if (g.label == label && std::string(g.status()) == "ok") return 2.0 * p.nnz / g.time.median / 1e9;
  return not_a_number;
}

/// Gauss-Seidel table, as seed 002's Tables 1-2 (GFLOP/s = 2 nnz(A) / t),
/// with AUTO's ratio to the cuSPARSE-based sweep when both ran.
void print_gs_table(const std::vector<ProblemResult>& results, const std::vector<GsSpec>& sweeps) {
  if (sweeps.empty()) return;
  std::printf("\nGauss-Seidel forward+backward sweep, GFLOP/s = 2*nnz(A)/t (seed 002)\n%-22s", "problem");
  for (const auto& g : sweeps) std::printf(" %8s", g.label.c_str());
  std::printf(" %9s\n", "AUTO/cuSP");
  std::vector<double> auto_cusparse;
  for (const auto& p : results) {
    if (p.gs.empty()) continue;
    std::printf("%-22s", short_name(p.name).c_str());
    for (const auto& g : p.gs)
      std::printf(" %8s", cell(g.error.empty() ? 2.0 * p.nnz / g.time.median / 1e9 : not_a_number, g.status()).c_str());
    auto_cusparse.push_back(gs_gflops(p, "AUTO") / gs_gflops(p, "cuSPARSE"));
    std::printf(" %9s\n", cell(auto_cusparse.back()).c_str());
  }
  std::printf("geomean Gauss-Seidel AUTO/cuSPARSE = %s\n", cell(bench::geometric_mean(auto_cusparse)).c_str());
}

/// The status cell text of a solver label on a problem ("-" when absent).
std::string solver_cell(const ProblemResult& p, const std::string& label) {
  for (const auto& s : p.solvers)
    if (s.label == label) return cell(s.error.empty() ? pair_gflops(s, p) : not_a_number, s.status());
  return "-";
}

/// Median solve seconds (lower + upper) of a label on a problem, or NaN.
double pair_seconds(const ProblemResult& p, const std::string& label) {
  for (const auto& s : p.solvers)
    if (s.label == label && std::string(s.status()) == "ok") return s.lower.time.median + s.upper.time.median;
  return not_a_number;
}

/// The fastest Trellis algorithm on a problem other than AUTO (label), or "".
std::string fastest_trellis(const ProblemResult& p) {
  std::string best;
  double best_t = not_a_number;
  for (const auto& s : p.solvers) {
    const double t = s.family == "trellis" && s.label != "AUTO" ? pair_seconds(p, s.label) : not_a_number;
    if (std::isfinite(t) && !(t >= best_t)) best_t = t, best = s.label;
  }
  return best;
}

/// The tiled family's preprocessing against one solve (seed 004, Fig. 9):
/// setup (analysis and tiles, fenced) / one solve, lower + upper.
void print_preprocessing_table(const std::vector<ProblemResult>& results) {
  std::printf("\nTiled preprocessing / one solve (setup of lower+upper over their solve times)\n%-22s", "problem");
  std::printf(" %10s %10s\n", "TILE-LS", "TILE-SF");
  for (const auto& p : results) {
    if (!p.skipped.empty() || !p.error.empty()) continue;
    std::printf("%-22s", short_name(p.name).c_str());
    for (const char* label : {"TILE-LS", "TILE-SF"}) {
      double ratio = not_a_number;
      for (const auto& s : p.solvers)
        if (s.label == label && s.error.empty())
          ratio = (s.lower.setup_seconds + s.upper.setup_seconds) / (s.lower.time.median + s.upper.time.median);
      std::printf(" %10s", cell(ratio).c_str());
    }
    std::printf("\n");
  }
}

/// The main table, printed last: per problem, GFLOP/s of each solver on the
/// lower+upper pair and the ratios (time of cuSPARSE or KK-TP1 over ours);
/// then their geometric means.
void print_main_table(const std::vector<ProblemResult>& results, const std::vector<SolverSpec>& solvers,
                      double copy_gbs) {
  std::printf("\n== trsv_bench on %s; copy bandwidth %.1f GB/s ==\n", bench::device_name().c_str(), copy_gbs);
  std::printf(
      "trsv GFLOP/s of the lower+upper pair: 2*(nnzL+nnzU)/(tL+tU); ELM = best of ELMR, ELMR-V, ELMC;\n"
      "TLS = TILE-LS; AUTO/best = AUTO's speed over the fastest other Trellis algorithm (named)\n");
  std::printf("%-22s %10s %7s", "problem", "nnz", "lev(L)");
  for (const auto& s : solvers) std::printf(" %*s", column_width(s), s.label.c_str());
  std::printf(" %9s %9s %9s %9s %9s  %s\n", "ELM/cuSP", "ELM/TP1", "TLS/cuSP", "AUTO/cuSP", "AUTO/best", "fastest");
  std::vector<double> vs_cusparse, vs_tp1, tls_cusparse, tls_deep, auto_cusparse, auto_best;
  for (const auto& p : results) {
    std::printf("%-22s", short_name(p.name).c_str());
    if (!p.skipped.empty() || !p.error.empty()) {
      std::printf(" %s: %s\n", p.skipped.empty() ? "error" : "skipped",
                  (p.skipped.empty() ? p.error : p.skipped).c_str());
      continue;
    }
    std::printf(" %10d %7d", p.nnz, p.levels_lower);
    for (const auto& s : solvers) std::printf(" %*s", column_width(s), solver_cell(p, s.label).c_str());
    const double elm = best_elm(p), cusp = gflops_of(p, "cuSPARSE");
    vs_cusparse.push_back(elm / cusp);
    vs_tp1.push_back(elm / gflops_of(p, "KK-TP1"));
    tls_cusparse.push_back(gflops_of(p, "TILE-LS") / cusp);
    if (p.levels_lower > 1000) tls_deep.push_back(tls_cusparse.back());
    auto_cusparse.push_back(gflops_of(p, "AUTO") / cusp);
    const std::string fastest = fastest_trellis(p);
    auto_best.push_back(fastest.empty() ? not_a_number : pair_seconds(p, fastest) / pair_seconds(p, "AUTO"));
    std::printf(" %9s %9s %9s %9s %9s  %s\n", cell(vs_cusparse.back()).c_str(), cell(vs_tp1.back()).c_str(),
                cell(tls_cusparse.back()).c_str(), cell(auto_cusparse.back()).c_str(), cell(auto_best.back()).c_str(),
                fastest.c_str());
  }
  std::printf("geomean best ELM/cuSPARSE = %s   best ELM/KK-TP1 = %s\n",
              cell(bench::geometric_mean(vs_cusparse)).c_str(), cell(bench::geometric_mean(vs_tp1)).c_str());
  std::printf(
      "geomean TILE-LS/cuSPARSE = %s (more than 1000 levels: %s over %zu)   AUTO/cuSPARSE = %s   "
      "AUTO/fastest = %s\n",
      cell(bench::geometric_mean(tls_cusparse)).c_str(), cell(bench::geometric_mean(tls_deep)).c_str(), tls_deep.size(),
      cell(bench::geometric_mean(auto_cusparse)).c_str(), cell(bench::geometric_mean(auto_best)).c_str());
}

/// Counts of WRONG results and errors over all problems.
std::pair<int, int> count_failures(const std::vector<ProblemResult>& results) {
  int wrong = 0, errors = 0;
  for (const auto& p : results) {
    errors += p.error.empty() ? 0 : 1;
    for (const auto& s : p.solvers) {
      wrong += s.wrong() ? 1 : 0;
      errors += s.error.empty() ? 0 : 1;
    }
    for (const auto& g : p.gs) {
      wrong += g.wrong() ? 1 : 0;
      errors += g.error.empty() ? 0 : 1;
    }
  }
  return {wrong, errors};
}

/// The whole JSON document (rewritten after each problem, so a run that is
/// cut short still leaves its results).
std::string results_json(const std::vector<ProblemResult>& results, const Options& o, double copy_gbs, bool complete) {
  JsonArray problems;
  std::vector<double> vs_cusparse, vs_tp1, gs_auto_cusparse;
  for (const auto& p : results) {
    problems.push(problem_json(p, copy_gbs));
    vs_cusparse.push_back(best_elm(p) / gflops_of(p, "cuSPARSE"));
    vs_tp1.push_back(best_elm(p) / gflops_of(p, "KK-TP1"));
    gs_auto_cusparse.push_back(gs_gflops(p, "AUTO") / gs_gflops(p, "cuSPARSE"));
  }
  const auto [wrong, errors] = count_failures(results);
  const JsonObject summary = JsonObject()
                                 .set("geomean_best_elm_over_cusparse", bench::geometric_mean(vs_cusparse))
                                 .set("geomean_best_elm_over_kk_tp1", bench::geometric_mean(vs_tp1))
                                 .set("geomean_gs_auto_over_cusparse", bench::geometric_mean(gs_auto_cusparse))
                                 .set("wrong", wrong)
                                 .set("errors", errors);
  return JsonObject()
      .set("run", bench::run_record())
      .set("benchmark", "trsv_bench")
      .set("complete", complete)
      .set("device", bench::device_name())
      .set("execution_space", exec_space::name())
      .set("copy_bandwidth_gbs", copy_gbs)
      .set("settings", settings_json(o))
      .set("conventions", conventions_json())
      .set("summary", summary)
      .set("problems", problems)
      .str();
}

/// Runs the whole benchmark; returns the exit code.
int run(const Options& o) {
  Kokkos::Timer wall;
  std::printf("trsv_bench on %s, seed %llu\n", bench::device_name().c_str(), (unsigned long long)o.seed);
  const double copy_gbs = bench::measure_copy_bandwidth(o.copy_mib << 20);
  std::printf("device-to-device copy: %.1f GB/s (read + write, 2 x %zu MiB)\n", copy_gbs, o.copy_mib);
#if defined(TRELLIS_WITH_CUSPARSE)
  const CusparseLibrary cusparse;
  const std::vector<SolverSpec> solvers = solver_specs(o, &cusparse);
  const std::vector<GsSpec> sweeps = gs_specs(o, &cusparse);
#else
  const std::vector<SolverSpec> solvers = solver_specs(o, nullptr);
  const std::vector<GsSpec> sweeps = gs_specs(o, nullptr);
#endif
  const std::vector<std::string> problems = problem_list(o);
  std::vector<ProblemResult> results;
  for (size_t i = 0; i < problems.size(); ++i) {
    if (o.budget_seconds > 0 && wall.seconds() > o.budget_seconds) {
      results.emplace_back();
      results.back().name = problems[i];
      results.back().skipped = "time budget of the run spent";
      continue;
    }
    results.push_back(run_problem(problems[i], i, solvers, sweeps, o));
    bench::write_text_file(o.json_path, results_json(results, o, copy_gbs, false));
  }
  bench::write_text_file(o.json_path, results_json(results, o, copy_gbs, true));
  print_gs_table(results, sweeps);
  print_preprocessing_table(results);
  print_main_table(results, solvers, copy_gbs);
  const auto [wrong, errors] = count_failures(results);
  std::printf(
      "checked against serial host substitution (tol %.0e): %d WRONG, %d errors; "
      "%.0f s; results in %s\n",
      tolerance, wrong, errors, wall.seconds(), o.json_path.c_str());
  return wrong || errors ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  bench::record_command(argc, argv);  // before Kokkos takes its options out
  Options o;
  if (const int rc = parse_options(argc, argv, o); rc >= 0) return rc;
  Kokkos::ScopeGuard kokkos(argc, argv);  // reads the --kokkos-* arguments
  int rc = 0;
  try {
    rc = run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trsv_bench: error: %s\n", e.what());
    rc = 2;
  }
  return rc;
}
