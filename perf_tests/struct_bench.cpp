// struct_bench: StructILU (seed 003) on the paper's test matrix of stencils x
// DoF (Table 3) and its end-to-end solves (Table 4).
//
// Kernels (per stencil and DoF, grid N^3 with N chosen so that the matrix
// holds about --values block entries; diagonally dominant random blocks):
//   lower triangular solve: StructILU (layout order, in place) against
//     cuSPARSE SpSV (CSR, unit lower) and bsrsv2 (BSR, on bsrilu02's
//     factor; CUDA builds) and Trellis's general family (TriangularSolver
//     elmr-value, block-syncfree and levelset-csr on the point CSR);
//     achieved GB/s (L read once, b read, x written) over the copy bandwidth
//     measured in the same run;
//   numeric factorization: StructILU against the faster of cuSPARSE
//     csrilu02 on the point CSR and bsrilu02 on the BSR (analysis and
//     factorization, as they offer no split);
//   preprocessing: StructILU's layout against cuSPARSE's SpSV analysis;
//   the model of each sweep's bound: the larger of levels x the time a
//     level takes in a one-tile chain (Star-7P at the case's DoF, one tile
//     of the chosen shape, no wait on another tile) and the bytes moved
//     over the copy bandwidth; the measured time as a fraction of it.
// Solves (--solves): CG-IC(0), CG-IC(1), GMRES-ILU(0) on Table 4's stencils
// and DoF, one Krylov driver, b = A 1, tolerance 1e-8: StructILU in its layout
// order on the stencil SpMV (as the factory's structilu:* solve; b and x
// permuted inside the clock), StructILU in the grid's numbering on the BSR
// SpMV, and cuSPARSE ILU0 (csrilu02 + SpSV on the point CSR) on the BSR SpMV.
//
//   struct_bench [--cases star7:1,box27:4,...] [--values V,...] [--grid NXxNYxNZ] [--tiles 32x4,64x2,...] [--solves]
//                [--solve-scale F] [--reps R] [--quick] [--entry-lanes automatic|on|off]
//                [--levels-per-wait 0,1,4,...] [--teams-per-sm 0,1,2,...] [--no-baselines] [--ablation]
//                [--json FILE]
// --values: several sizes run every case at each (seed 003 Figure 9, performance against size).
// --grid: this grid for every case instead of N^3 (e.g. 32x4x16384: a single tile's chain).
// --tiles: the tile shapes to try (lines along î x ĵ; the fastest lower solve counts).
// --entry-lanes: StructIluOptions::entry_lanes (the DoF-1 factorization of wide stencils).
// --levels-per-wait: StructIluOptions::levels_per_wait values to try (0: automatic), with the
//   tiles; the fastest lower solve and factorization count.
// --teams-per-sm: StructIluOptions::teams_per_sm values to try (0: automatic, -1: one team per
//   tile), likewise.
// --no-baselines: StructILU alone (parameter sweeps; no speedups).
// --ablation: also the factorization and lower solve without the intra-row pipelines
//   (StructIluOptions::pipelined_factor and pipelined_solves off; seed 003 Figure 8's
//   pipeline step), at the chosen tile and waits.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "trellis/gallery/stencil_problems.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/preconditioners/struct_ilu.hpp"
#include "trellis/solvers/stencil_operator.hpp"
#include "trellis/structured/struct_ilu.hpp"
#include "trellis/trsv/triangular_solver.hpp"
#ifdef TRELLIS_WITH_CUSPARSE
#include "cusparse_support.hpp"
#endif

namespace {

using namespace trellis;
using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;
using ConstVector = Kokkos::View<const double*, Device>;
using bench::JsonArray;
using bench::JsonObject;
#ifdef TRELLIS_WITH_CUSPARSE
using bench::cusparse_ilu0;
using bench::CusparseBsrIlu0;
using bench::CusparseIlu0Preconditioner;
using bench::CusparseLibrary;
using bench::CusparseSpsv;
#endif

struct Case {
  StencilShape shape;
  int dof;
};

std::vector<Case> parse_cases(const std::string& text) {
  std::vector<Case> out;
  for (const auto& item : bench::split_list(text)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) throw InputError("--cases: '" + item + "' is not STENCIL:DOF");
    out.push_back(
        {parse<StencilShape>(item.substr(0, colon)), int(bench::parse_number("--cases dof", item.substr(colon + 1)))});
  }
  return out;
}

Vector random_device_vector(size_t n, std::uint64_t seed) {
  Kokkos::View<double*, Kokkos::HostSpace> h("trellis::bench::random", n);
  std::uint64_t z = seed;
  for (size_t i = 0; i < n; ++i) {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    h(i) = double(z >> 11) / 9007199254740992.0 - 0.5;
  }
  Vector d("trellis::bench::vector", n);
  Kokkos::deep_copy(d, h);
  return d;
}

/// The per-level time of a one-tile chain (issue 58's model of a sweep's
/// bound): Star-7P at this DoF on a grid of one tile of the given shape,
/// 1024 points deep, so a team sweeps about a thousand levels and never
/// waits on another tile; the lower sweep's and the factorization's time
/// per level.
struct ChainLevel {
  double lower_s = 0, factor_s = 0;
};
ChainLevel one_tile_chain(int dof, structured::TileShape tile, int wait, int teams, const bench::TimingPolicy& policy) {
  const int depth = 1024;
  const StencilMatrix A = gallery::stencil_problem(Stencil(StencilShape::star7), {tile.x, tile.y, depth}, dof,
                                                   gallery::StencilPde::dominant, 1);
  StructIluOptions o;
  o.tile = tile;
  o.levels_per_wait = wait;
  o.teams_per_sm = teams;
  const Kokkos::DefaultExecutionSpace space;
  StructIlu<double, Device> M(space, A, o);
  const Vector b = random_device_vector(size_t(A.num_rows()), 11);
  Vector x("trellis::bench::chain_x", A.num_rows());
  const int levels = M.layout().levels;
  ChainLevel out;
  out.factor_s = bench::time_case([&] { M.factor(space); }, policy).median / levels;
  out.lower_s =
      bench::time_case([&] { M.lower_solve_layout(space, x); }, policy, [&] { Kokkos::deep_copy(x, b); }).median /
      levels;
  return out;
}

/// One stencil x DoF row of Table 3.
JsonObject kernel_case(const Case& c, double values, std::array<int, 3> fixed_grid, const bench::TimingPolicy& policy,
                       double copy_gbs, const std::vector<structured::TileShape>& tiles,
                       StructIluOptions::EntryLanes entry_lanes, const std::vector<int>& waits,
                       const std::vector<int>& teams, bool baselines, bool ablation,
                       std::vector<double>& lower_speedups, std::vector<double>& factor_speedups) {
  const Stencil st(c.shape);
  const int n_side = std::max(4, int(std::cbrt(values / (double(st.size()) * c.dof * c.dof))));
  const std::array<int, 3> grid = fixed_grid[0] > 0 ? fixed_grid : std::array<int, 3>{n_side, n_side, n_side};
  const StencilMatrix A = gallery::stencil_problem(st, grid, c.dof, gallery::StencilPde::dominant, 1);
  const size_t n = size_t(A.num_rows());
  JsonObject row;
  const std::string dims = std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]);
  row.set("stencil", st.name()).set("dof", c.dof).set("rows", double(n));
  if (fixed_grid[0] > 0)
    row.set("grid_dims", dims);
  else
    row.set("grid", n_side);
  std::printf("%-10s dof %d  %s (%zu rows)\n", st.name().c_str(), c.dof, dims.c_str(), n);
  std::fflush(stdout);

  const Kokkos::DefaultExecutionSpace space;
  const Vector b = random_device_vector(n, 7);
  Vector x("trellis::bench::x", n);
  // the tile shapes x levels per wait x teams asked for (the first is the default);
  // the fastest lower solve and the fastest factorization are reported
  double lower_s = 1e300, factor_s = 1e300, layout_s = 0;
  int levels = 0, best_wait = 0, best_teams = 0;
  structured::TileShape best_tile;
  JsonArray tile_rows;
  for (const auto& tile : tiles)
    for (int wait : waits)
      for (int team_count : teams) {
        StructIluOptions o;
        o.tile = tile;
        o.entry_lanes = entry_lanes;
        o.levels_per_wait = wait;
        o.teams_per_sm = team_count;
        StructIlu<double, Device> M(space, A, o);
        const double f = bench::time_case([&] { M.factor(space); }, policy).median;
        const double l =
            bench::time_case([&] { M.lower_solve_layout(space, x); }, policy, [&] { Kokkos::deep_copy(x, b); }).median;
        const auto& shape = M.layout().tile;
        const int w = M.layout().levels_per_wait, team_count_used = M.layout().teams_per_sm;
        tile_rows.push(JsonObject()
                           .set("tile_x", shape.x)
                           .set("tile_y", shape.y)
                           .set("levels_per_wait", w)
                           .set("teams_per_sm", team_count_used)
                           .set("lower_s", l)
                           .set("factor_s", f));
        if (tiles.size() * waits.size() * teams.size() > 1)
          std::printf("  tile %3dx%-2d wait/%-2d teams/sm %-2d  factor %9.3f ms  lower %8.3f ms\n", shape.x, shape.y, w,
                      team_count_used, f * 1e3, l * 1e3);
        if (l < lower_s)
          lower_s = l, best_tile = shape, best_wait = w, best_teams = team_count_used, layout_s = M.layout_seconds(),
          levels = M.layout().levels;
        factor_s = std::min(factor_s, f);
      }
  row.set("structilu_layout_s", layout_s).set("tile_x", best_tile.x).set("tile_y", best_tile.y);
  row.set("levels_per_wait", best_wait).set("teams_per_sm", best_teams);
  row.set("levels", levels).set("structilu_lower_us_per_level", lower_s / levels * 1e6);
  row.set("tiles", tile_rows);
  // bytes: L's blocks and b read once, x written once
  const double bytes = double(A.points()) * (st.lower_size() * c.dof * c.dof + 2.0 * c.dof) * sizeof(double);
  const double gbs = bytes / lower_s * 1e-9;
  row.set("structilu_factor_s", factor_s).set("structilu_lower_s", lower_s).set("structilu_lower_gbs", gbs);
  row.set("structilu_lower_copy_fraction", gbs / copy_gbs);
  std::printf(
      "  StructILU   factor %9.3f ms  lower %8.3f ms (%.2f us x %d levels)  %6.0f GB/s (%.0f%% of copy)  layout %.3f "
      "s\n",
      factor_s * 1e3, lower_s * 1e3, lower_s / levels * 1e6, levels, gbs, 100 * gbs / copy_gbs, layout_s);
  if (ablation) {  // the same tile, waits and teams, with both pipelines on and with both off
    const auto time_with = [&](bool pipelined, double& f, double& l) {
      StructIluOptions o;
      o.tile = best_tile;
      o.entry_lanes = entry_lanes;
      o.levels_per_wait = best_wait;
      o.teams_per_sm = best_teams;
      o.pipelined_solves = o.pipelined_factor = pipelined;
      StructIlu<double, Device> M(space, A, o);
      f = bench::time_case([&] { M.factor(space); }, policy).median;
      l = bench::time_case([&] { M.lower_solve_layout(space, x); }, policy, [&] { Kokkos::deep_copy(x, b); }).median;
    };
    double f_on = 0, l_on = 0, f_off = 0, l_off = 0;
    time_with(true, f_on, l_on);
    time_with(false, f_off, l_off);
    row.set("structilu_lower_pipelined_s", l_on).set("structilu_factor_pipelined_s", f_on);
    row.set("structilu_lower_unpipelined_s", l_off).set("pipeline_speedup", l_off / l_on);
    row.set("structilu_factor_unpipelined_s", f_off).set("factor_pipeline_speedup", f_off / f_on);
    std::printf(
        "  pipelined:   factor %9.3f ms, lower %8.3f ms\n  unpipelined: factor %9.3f ms, lower %8.3f ms: the pipelines "
        "give %.2fx and %.2fx\n",
        f_on * 1e3, l_on * 1e3, f_off * 1e3, l_off * 1e3, f_off / f_on, l_off / l_on);
  }
  // The model's bounds: levels x a one-tile chain's level, and bytes / copy
  // bandwidth. GPU backends only: there a level of a tile is one point per
  // thread, so the chain's level is the least a level can take; on a host
  // backend one thread sweeps a whole tile's level, which many tiles share.
  if (!trellis::detail::is_host_space<Kokkos::DefaultExecutionSpace>()) {
    const ChainLevel chain = one_tile_chain(c.dof, best_tile, best_wait, best_teams, policy);
    // the factorization reads A's values and writes L and U's once
    const double factor_bytes = 2.0 * double(A.points()) * st.size() * c.dof * c.dof * sizeof(double);
    auto model = [&](const char* what, double measured, double per_level, double moved) {
      const double by_levels = levels * per_level, by_bytes = moved / (copy_gbs * 1e9);
      const double bound = std::max(by_levels, by_bytes);
      row.set(std::string("model_") + what + "_chain_level_s", per_level)
          .set(std::string("model_") + what + "_levels_bound_s", by_levels)
          .set(std::string("model_") + what + "_bytes_bound_s", by_bytes)
          .set(std::string("model_") + what + "_fraction", bound / measured);
      std::printf(
          "  model %-6s %d levels x %.2f us (one-tile chain) = %.3f ms, bytes / copy %.3f ms: measured at %.0f%%\n",
          what, levels, per_level * 1e6, by_levels * 1e3, by_bytes * 1e3, 100 * bound / measured);
    };
    model("lower", lower_s, chain.lower_s, bytes);
    model("factor", factor_s, chain.factor_s, factor_bytes);
  }
  std::fflush(stdout);
  if (!baselines) return row;

  // Trellis's general family on the point CSR
  const HostCsr csr_host = A.to_csr();
  const CsrMatrix<double, Device> csr = copy_to<Device>(csr_host);
  double best_general = 1e300;
  std::string best_general_name;
  for (TrsvAlgorithm alg : {TrsvAlgorithm::elmr_value, TrsvAlgorithm::block_syncfree, TrsvAlgorithm::levelset_csr}) {
    try {
      TriangularSolver<double, Device> T(space, csr, TrsvOptions{Triangle::lower, true, alg});
      const double s = bench::time_case([&] { T.solve(space, b, x); }, policy).median;
      row.set(std::string("trellis_") + to_string(alg) + "_lower_s", s);
      std::printf("  trellis %-14s lower %8.3f ms\n", to_string(alg), s * 1e3);
      if (s < best_general) best_general = s, best_general_name = to_string(alg);
    } catch (const std::exception& e) {
      std::printf("  trellis %-14s failed: %s\n", to_string(alg), e.what());
    }
  }
  double best_baseline = best_general;
  std::string best_baseline_name = best_general_name;
  double best_factor = 1e300;  // the fastest cuSPARSE factorization
  std::string best_factor_name;
#ifdef TRELLIS_WITH_CUSPARSE
  try {
    CusparseLibrary lib;
    CusparseSpsv spsv(lib.get(), csr, Triangle::lower, true, b, x);
    const double s = bench::time_case([&] { spsv.solve(b, x); }, policy).median;
    row.set("cusparse_csr_lower_s", s).set("cusparse_spsv_analysis_s", spsv.analysis_seconds());
    std::printf("  cuSPARSE    lower %8.3f ms  (SpSV analysis %.3f s)\n", s * 1e3, spsv.analysis_seconds());
    if (s < best_baseline) best_baseline = s, best_baseline_name = "cusparse-csr";
    double ilu_s = 0;
    std::vector<double> samples;
    for (int r = 0; r < 4; ++r) {  // one warm-up, then the median of three
      cusparse_ilu0(lib.get(), csr, ilu_s);
      if (r > 0) samples.push_back(ilu_s);
    }
    const double ilu = bench::median_of(samples);
    row.set("cusparse_csr_ilu0_s", ilu).set("factor_speedup_csr", ilu / factor_s);
    best_factor = ilu, best_factor_name = "csrilu02";
    std::printf("  cuSPARSE    csrilu02 %9.3f ms\n", ilu * 1e3);
  } catch (const std::exception& e) {
    std::printf("  cuSPARSE failed: %s\n", e.what());
    row.set("cusparse_error", e.what());
  }
  // cuSPARSE BSR: bsrilu02 (analysis + factorization, as csrilu02) and bsrsv2
  try {
    CusparseLibrary lib;
    const BsrMatrix<double, Device> bsr = copy_to<Device>(A.to_bsr());
    std::vector<double> samples;
    std::unique_ptr<CusparseBsrIlu0> M;  // the last factorization serves the solves
    for (int r = 0; r < 4; ++r) {        // one warm-up, then the median of three
      M = std::make_unique<CusparseBsrIlu0>(lib.get(), bsr);
      if (r > 0) samples.push_back(M->factor_seconds());
    }
    const double ilu = bench::median_of(samples);
    const double s = bench::time_case([&] { M->lower_solve(b, x); }, policy).median;
    row.set("cusparse_bsr_ilu0_s", ilu).set("cusparse_bsr_lower_s", s);
    row.set("cusparse_bsrsv2_analysis_s", M->lower_analysis_seconds());
    std::printf("  cuSPARSE BSR lower %8.3f ms  bsrilu02 %9.3f ms\n", s * 1e3, ilu * 1e3);
    if (s < best_baseline) best_baseline = s, best_baseline_name = "cusparse-bsr";
    if (ilu < best_factor) best_factor = ilu, best_factor_name = "bsrilu02";
  } catch (const std::exception& e) {
    std::printf("  cuSPARSE BSR failed: %s\n", e.what());
    row.set("cusparse_bsr_error", e.what());
  }
#endif
  if (best_factor < 1e300) {
    row.set("fastest_factor_baseline", best_factor_name).set("factor_speedup", best_factor / factor_s);
    factor_speedups.push_back(best_factor / factor_s);
    std::printf("  factorization speedup over the fastest cuSPARSE (%s): %.2fx\n", best_factor_name.c_str(),
                best_factor / factor_s);
  }
  row.set("fastest_baseline", best_baseline_name).set("lower_speedup", best_baseline / lower_s);
  lower_speedups.push_back(best_baseline / lower_s);
  std::printf("  lower solve speedup over the fastest baseline (%s): %.2fx\n", best_baseline_name.c_str(),
              best_baseline / lower_s);
  std::fflush(stdout);
  return row;
}

struct SolveCase {
  const char* name;
  StencilShape shape;
  int dof;
  gallery::StencilPde pde;
  bool cg;
  StructIluKind kind;
  int n;  // Table 4's N
};

/// One row of Table 4: the same driver and SpMV with StructILU and cuSPARSE ILU0.
JsonObject solve_case(const SolveCase& c, double scale) {
  const int n_side = std::max(8, int(c.n * scale));
  const StencilMatrix A = gallery::stencil_problem(Stencil(c.shape), {n_side, n_side, n_side}, c.dof, c.pde, 1);
  const BsrMatrix<double, Device> blocks = copy_to<Device>(A.to_bsr());
  BsrOperator<double, Device> op(blocks);
  const size_t n = size_t(A.num_rows());
  Vector ones("trellis::bench::ones", n), b("trellis::bench::b", n), x("trellis::bench::x", n);
  Kokkos::deep_copy(ones, 1.0);
  op.apply(ones, b);
  KrylovOptions o;
  o.rel_tol = 1e-8;
  o.max_iterations = 5000;
  o.restart = 30;
  JsonObject row;
  row.set("problem", c.name).set("stencil", Stencil(c.shape).name()).set("dof", c.dof).set("grid", n_side);
  row.set("solver", std::string(c.cg ? "cg-" : "gmres-") + to_string(c.kind));
  std::printf("%s: %s %s dof %d %d^3, %s\n", c.name, to_string(c.pde), Stencil(c.shape).name().c_str(), c.dof, n_side,
              c.cg ? "CG" : "GMRES(30)");
  // A solve in another numbering: b permuted in, then the solve, then x
  // permuted out, all inside the clock (empty for the grid's numbering).
  struct Numbering {
    const LinearOperator<double, Device>* op;
    std::function<void(ConstVector, Vector)> in, out;
  };
  auto run = [&](const Preconditioner<double, Device>& M, const char* label, double setup_s,
                 const Numbering& order = {}) {
    bench::TimingPolicy policy;
    policy.warmups = 1;
    policy.reps = 3;
    policy.min_reps = 1;
    policy.max_seconds = 20;
    KrylovResult r;
    const LinearOperator<double, Device>& A_op = order.op ? *order.op : op;
    Vector b_in("trellis::bench::b_in", order.op ? n : 0), x_in("trellis::bench::x_in", order.op ? n : 0);
    auto solve = [&] {
      if (!order.op) {
        r = c.cg ? cg(op, M, ConstVector(b), x, o) : gmres(op, M, ConstVector(b), x, o);
        return;
      }
      order.in(b, b_in);
      r = c.cg ? cg(A_op, M, ConstVector(b_in), x_in, o) : gmres(A_op, M, ConstVector(b_in), x_in, o);
      order.out(x_in, x);
    };
    const double s = bench::time_case(solve, policy, [&] {
                       Kokkos::deep_copy(x, 0.0);
                       if (order.op) Kokkos::deep_copy(x_in, 0.0);
                     }).median;
    std::printf("  %-22s %-14s %5d it  solve %8.4f s  setup %8.4f s  true residual %.2e\n", label, to_string(r.status),
                r.iterations, s, setup_s, r.true_relative_residual);
    std::fflush(stdout);
    row.set(std::string(label) + "_iterations", r.iterations).set(std::string(label) + "_solve_s", s);
    row.set(std::string(label) + "_setup_s", setup_s).set(std::string(label) + "_status", to_string(r.status));
    return s + setup_s;
  };
  StructIluOptions so;
  so.kind = c.kind;
  if (c.kind == StructIluKind::ic0 || c.kind == StructIluKind::ic1) {  // IC's one factor against ILU's two
    StructIluOptions lu = so;
    lu.kind = c.kind == StructIluKind::ic0 ? StructIluKind::ilu0 : StructIluKind::ilu1;
    const Kokkos::DefaultExecutionSpace space;
    StructIlu<double, Device> one(space, A, so), two(space, A, lu);
    bench::TimingPolicy policy;
    policy.reps = 5;
    policy.max_seconds = 5;
    auto factor_s = [&](StructIlu<double, Device>& M) {
      return bench::time_case([&] { M.factor(space); }, policy).median;
    };
    auto apply_s = [&](StructIlu<double, Device>& M) {
      return bench::time_case([&] { M.apply_layout(space, x); }, policy, [&] { Kokkos::deep_copy(x, b); }).median;
    };
    const double f1 = factor_s(one), f2 = factor_s(two), a1 = apply_s(one), a2 = apply_s(two);
    std::printf("  %s factor %.1f MB, factorization %.3f ms, apply %.3f ms; %s %.1f MB, %.3f ms, %.3f ms\n",
                to_string(c.kind), one.factor_bytes() / 1e6, f1 * 1e3, a1 * 1e3, to_string(lu.kind),
                two.factor_bytes() / 1e6, f2 * 1e3, a2 * 1e3);
    row.set("ic_factor_bytes", double(one.factor_bytes())).set("ilu_factor_bytes", double(two.factor_bytes()));
    row.set("ic_factor_s", f1).set("ilu_factor_s", f2).set("ic_apply_s", a1).set("ilu_apply_s", a2);
  }
  auto ilu = std::make_shared<const StructIlu<double, Device>>(A, so);
  StructIluPreconditioner<double, Device> M(ilu);
  const double setup_s = ilu->layout_seconds() + ilu->factorization_seconds();
  const double natural = run(M, "structilu_natural", setup_s);
  double ours = natural;
  {  // the paper's way (and the factory's): the Krylov solve in the layout order on a stencil SpMV
    const Kokkos::DefaultExecutionSpace space;
    Kokkos::Timer t;
    const StencilOperator<double, Device> op_layout(space, *ilu);  // A from the preconditioner's device copy
    space.fence();
    const double operator_s = t.seconds();
    StructIluPreconditioner<double, Device> M_layout(ilu, StructIluPreconditioner<double, Device>::Numbering::layout);
    ours = run(M_layout, "structilu", setup_s + operator_s,
               {&op_layout, [&](ConstVector from, Vector to) { ilu->to_layout(space, from, to); },
                [&](ConstVector from, Vector to) { ilu->from_layout(space, from, to); }});
    row.set("layout_vs_natural", natural / ours);
    std::printf("  layout order vs the grid's numbering (setup included): %.2fx\n", natural / ours);
  }
#ifdef TRELLIS_WITH_CUSPARSE
  try {
    CusparseLibrary lib;
    const CsrMatrix<double, Device> csr = copy_to<Device>(A.to_csr());
    CusparseIlu0Preconditioner C(lib.get(), csr);
    const double theirs = run(C, "cusparse_ilu0", C.setup_seconds());
    row.set("speedup_with_setup", theirs / ours);
    std::printf("  speedup (setup included) %.2fx\n", theirs / ours);
  } catch (const std::exception& e) {
    std::printf("  cuSPARSE failed: %s\n", e.what());
    row.set("cusparse_error", e.what());
  }
#endif
  return row;
}

/// What the command line asks for.
struct Settings {
  std::string cases_text =
      "star7:1,star7:2,star7:4,star7:6,star7:8,star13:1,star13:2,star13:4,star13:6,star13:8,"
      "diamond13:1,diamond13:2,diamond13:4,diamond13:6,diamond13:8,diamond25:1,diamond25:2,diamond25:4,"
      "diamond25:6,diamond25:8,box27:1,box27:2,box27:4,box27:6,box27:8";
  std::vector<double> values{1.2e8};
  double solve_scale = 0.5;
  bool solves = false, quick = false;
  int reps = 10;
  std::string json_path;
  std::vector<structured::TileShape> tiles{{0, 0}};
  std::vector<int> waits{0}, teams{0};
  std::array<int, 3> grid{0, 0, 0};  // 0: N^3 from --values
  bool baselines = true, ablation = false;
  StructIluOptions::EntryLanes entry_lanes = StructIluOptions::EntryLanes::automatic;
};

/// Reads the options into st; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, Settings& st) {
  bench::CommandLine cl("struct_bench",
                        "StructILU (seed 003) on the paper's stencils x DoF (Table 3) against cuSPARSE and "
                        "Trellis's general solves, and its end-to-end solves (Table 4, --solves).");
  cl.text("--cases", st.cases_text, "stencil:dof cases, comma-separated (default Table 3's 25)")
      .word(
          "--values",
          [&](const std::string& list) {
            st.values.clear();
            for (const auto& t : bench::split_list(list)) {
              const double v = bench::parse_number("--values", t);
              if (!(v >= 1 && v <= 1e12)) throw InputError(t + " is not in [1, 1e12]");
              st.values.push_back(v);
            }
          },
          "block entries per case's matrix (sets the grid N^3), comma-separated: each case at each")
      .flag("--solves", st.solves, "also run Table 4's solves")
      .number("--solve-scale", st.solve_scale, "the solves' grids scaled by this", 1e-3, 10)
      .number("--reps", st.reps, "timed runs per kernel", 1, 1000000)
      .flag("--quick", st.quick, "three small cases and small solves (a CPU smoke check)")
      .word(
          "--tiles",
          [&](const std::string& list) {
            st.tiles.clear();
            for (const auto& t : bench::split_list(list)) {
              const size_t xpos = t.find('x');
              if (xpos == std::string::npos) throw InputError("'" + t + "' is not XxY");
              st.tiles.push_back({int(bench::parse_number("--tiles", t.substr(0, xpos))),
                                  int(bench::parse_number("--tiles", t.substr(xpos + 1)))});
            }
          },
          "tile shapes XxY, comma-separated (0x0: the automatic one)")
      .grid("--grid", st.grid, "the grid instead of N^3 from --values")
      .numbers("--levels-per-wait", st.waits, "levels per wait, comma-separated (0: automatic)", 0, 1 << 20)
      .numbers("--teams-per-sm", st.teams, "teams per SM, comma-separated (0: automatic)", 0, 1 << 10)
      .flag("--no-baselines", st.baselines, "leave out cuSPARSE and the general solves", false)
      .flag("--ablation", st.ablation, "also the factorization and lower solve without the intra-row pipelines")
      .word(
          "--entry-lanes", [&](const std::string& w) { st.entry_lanes = parse<StructIluOptions::EntryLanes>(w); },
          "StructIluOptions::entry_lanes")
      .text("--json", st.json_path, "write the results to this file");
  return cl.parse(argc, argv);
}

int run(const Settings& st) {
  std::string cases_text = st.cases_text;
  std::vector<double> values = st.values;
  double solve_scale = st.solve_scale;
  bool solves = st.solves;
  const bool quick = st.quick, baselines = st.baselines;
  int reps = st.reps;
  const std::string json_path = st.json_path;
  const auto tiles = st.tiles;
  const auto waits = st.waits, teams = st.teams;
  const auto grid = st.grid;
  const auto entry_lanes = st.entry_lanes;
  if (quick) cases_text = "star7:1,diamond13:2,box27:3", values = {2e5}, solve_scale = 0.1, reps = 3, solves = true;
  bench::TimingPolicy policy;
  policy.warmups = 2;
  policy.reps = reps;
  policy.min_reps = 3;
  policy.max_seconds = 5;
  const double copy_gbs = bench::measure_copy_bandwidth(quick ? (1u << 24) : (size_t(1) << 30));
  std::printf("struct_bench on %s; copy bandwidth %.0f GB/s\n", bench::device_name().c_str(), copy_gbs);
  JsonArray kernels, solve_rows;
  std::vector<double> lower_speedups, factor_speedups;
  for (const Case& c : parse_cases(cases_text))
    for (double v : values) {
      try {
        JsonObject row = kernel_case(c, v, grid, policy, copy_gbs, tiles, entry_lanes, waits, teams, baselines,
                                     st.ablation, lower_speedups, factor_speedups);
        kernels.push(row.set("values", v));
      } catch (const std::exception& e) {  // report and go on
        std::printf("%s dof %d failed: %s\n", to_string(c.shape), c.dof, e.what());
        kernels.push(JsonObject().set("stencil", to_string(c.shape)).set("dof", c.dof).set("error", e.what()));
      }
    }
  const double lower_gm = bench::geometric_mean(lower_speedups), factor_gm = bench::geometric_mean(factor_speedups);
  if (!lower_speedups.empty())  // none with --no-baselines
    std::printf("geometric mean over %zu cases: lower solve %.2fx the fastest baseline, factorization %.2fx cuSPARSE\n",
                lower_speedups.size(), lower_gm, factor_gm);
  if (solves) {
    const std::vector<SolveCase> table4 = {
        {"Poisson", StencilShape::star7, 1, gallery::StencilPde::poisson, true, StructIluKind::ic0, 304},
        {"Poisson", StencilShape::star7, 1, gallery::StencilPde::poisson, true, StructIluKind::ic1, 304},
        {"Convection-Diffusion", StencilShape::star7, 1, gallery::StencilPde::convdiff, false, StructIluKind::ilu0,
         304},
        // the block systems: coupled diffusion fields (gallery::StencilPde::coupled), which iterate
        // about as often as the paper's (11-22); dominant blocks took 4 at any size
        {"Navier-Stokes-like (coupled)", StencilShape::box27, 4, gallery::StencilPde::coupled, false,
         StructIluKind::ilu0, 104},
        {"Euler-like (coupled)", StencilShape::star13, 5, gallery::StencilPde::coupled, false, StructIluKind::ilu0,
         112},
        {"Cahn-Hilliard-like (coupled)", StencilShape::diamond25, 2, gallery::StencilPde::coupled, false,
         StructIluKind::ilu0, 160},
    };
    for (const auto& c : table4) {
      try {
        solve_rows.push(solve_case(c, solve_scale));
      } catch (const std::exception& e) {
        std::printf("%s failed: %s\n", c.name, e.what());
        solve_rows.push(JsonObject().set("problem", c.name).set("error", e.what()));
      }
    }
  }
  if (!json_path.empty()) {
    JsonObject out;
    out.set("run", bench::run_record()).set("benchmark", "struct_bench").set("device", bench::device_name());
    out.set("copy_gbs", copy_gbs);
    if (values.size() == 1)
      out.set("values_per_case", values.front());
    else
      out.set("values_per_case", values);
    out.set("lower_speedup_geomean", lower_gm).set("factor_speedup_geomean", factor_gm);
    out.set("kernels", kernels).set("solves", solve_rows);
    if (!bench::write_text_file(json_path, out.str() + "\n")) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bench::record_command(argc, argv);  // before Kokkos takes its options out
  Settings st;
  if (const int rc = parse_options(argc, argv, st); rc >= 0) return rc;
  Kokkos::ScopeGuard guard(argc, argv);
  try {
    return run(st);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "struct_bench: %s\n", e.what());
    return 2;
  }
}
