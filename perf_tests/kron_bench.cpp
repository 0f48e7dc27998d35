// kron_bench: GMRES(30) on (A ⊗ M + tau B ⊗ L) U = F (seed 001), Trellis's
// Kronecker operator against the paper's baseline (kron_baseline.hpp) in the
// same run, in the paper's terms (its Table 3): T_Kx (the operator's SpMV
// work), T_c (its halo exchanges), T_Gn (the rest of GMRES: Gram-Schmidt,
// normalization, updates) and T_all, each the maximum over the ranks, for a
// fixed number of iterations (the paper fixes 6000). Ours runs the driver's
// default orthogonalization (CGS2 over several ranks, MGS on one) and the
// others; the baseline runs MGS as a BLAS-1 GMRES does (mgs-blas: the
// paper's Algorithm 1 with cuBLAS) and also the driver's default, so that
// the operator's gain and the driver's are seen apart. Also the operator alone
// (time per apply, GFLOP/s with the paper's flop count, arithmetic intensity
// and GB/s against the measured copy bandwidth) and, with --precond, the
// iterations to a tolerance with the stage preconditioner against none.
//
// Runs on any number of MPI ranks (mpiexec -n P kron_bench ...; on a machine
// with several GPUs add --kokkos-num-devices=G to give each rank its own).
// Every rank generates the whole problem and keeps its block rows.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "kron_baseline.hpp"
#include "mpi_timing.hpp"
#include "trellis/config.hpp"
#include "trellis/distributed/block_rows.hpp"
#include "trellis/gallery/kronecker_problems.hpp"
#include "trellis/io/kronecker_io.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/kronecker_operator.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/kronecker_stages.hpp"
#if TRELLIS_ENABLE_MPI
#include <mpi.h>
#endif

namespace trellis {
namespace {

using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;

struct Args {
  std::array<int, 3> grid{53, 53, 54};  // 151,686 points: the paper's 151,090, b = 4
  int stages = 2;
  double tau = 0.125;
  std::vector<std::string> files;  // --kron M L A B
  int block_size = 4;
  int iterations = 6000;
  int applies = 200;
  std::string precond;  // --precond SPEC: iterations to 1e-6 against none
  bool baseline = true;
  std::string json;
};

/// Reads the options into a; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, Args& a) {
  bench::CommandLine cl("kron_bench",
                        "Seed 001's Kronecker operator and GMRES over MPI: the SpMV's lane mappings, the "
                        "solves, against the formed-matrix baseline.");
  cl.grid("--grid", a.grid, "the Stokes grid (default 53x53x54)")
      .number("--stages", a.stages, "s, the number of stages (default 2)", 1, 64)
      .number("--tau", a.tau, "the time step scale (default 0.125)", -1e300, 1e300)
      .texts("--kron", a.files, 4, "read the system from Matrix Market files M L A B")
      .number("--block-size", a.block_size, "block size of M and L read with --kron (default 4)", 1, 8)
      .number("--iterations", a.iterations, "GMRES iterations (default 6000)", 1, 100000000)
      .number("--applies", a.applies, "applies timed per lane mapping (default 200)", 1, 100000000)
      .text("--precond", a.precond, "a preconditioner spec: iterations to 1e-6 against none")
      .flag("--no-baseline", a.baseline, "leave out the formed-matrix baseline", false)
      .text("--json", a.json, "write the results to this file");
  return cl.parse(argc, argv);
}

distributed::Communicator world() {
#if TRELLIS_ENABLE_MPI
  return distributed::Communicator(MPI_COMM_WORLD);
#else
  return {};
#endif
}

using bench::max_over_ranks;
using bench::timed_on_all;

/// What one operator costs, alone and inside fixed-iteration GMRES.
struct Breakdown {
  double apply_ms = 0;  // one apply, median-free: total over `applies` / applies
  double T_all = 0, T_Kx = 0, T_c = 0, T_Gn = 0, T_all_profiled = 0;
  int iterations = 0;
  double final_residual = 0;
};

template <class Op>
Breakdown measure(const distributed::Communicator& comm, const Op& K, const Args& a, Vector b,
                  GmresOrthogonalization orthogonalization) {
  Breakdown out;
  Vector x("trellis::bench::x", b.extent(0)), y("trellis::bench::y", b.extent(0));
  for (int w = 0; w < 3; ++w) K.apply(b, y);  // warm-up
  out.apply_ms = 1e3 *
                 timed_on_all(comm,
                              [&] {
                                for (int r = 0; r < a.applies; ++r) K.apply(b, y);
                              }) /
                 a.applies;
  KrylovOptions o;  // fixed iterations: no tolerance can stop it
  o.rel_tol = 0;
  o.abs_tol = 0;
  o.max_iterations = a.iterations;
  o.restart = 30;
  o.orthogonalization = orthogonalization;
  const IdentityPreconditioner<double, Device> none;
  KrylovResult r;
  out.T_all = timed_on_all(comm, [&] {
    Kokkos::deep_copy(x, 0.0);
    r = gmres<double, Device>(K, none, b, x, o);
  });
  out.iterations = r.iterations;
  out.final_residual = r.history.empty() ? 0 : r.history.back();
  K.reset_timings();
  K.set_profiling(true);
  out.T_all_profiled = timed_on_all(comm, [&] {
    Kokkos::deep_copy(x, 0.0);
    gmres<double, Device>(K, none, b, x, o);
  });
  K.set_profiling(false);
  out.T_Kx = max_over_ranks(comm, K.timings().compute_seconds);
  out.T_c = max_over_ranks(comm, K.timings().communication_seconds);
  out.T_Gn = out.T_all_profiled - out.T_Kx - out.T_c;
  return out;
}

bench::JsonObject json_of(const Breakdown& t) {
  bench::JsonObject o;
  o.set("apply_ms", t.apply_ms).set("T_all", t.T_all).set("T_Kx", t.T_Kx).set("T_c", t.T_c).set("T_Gn", t.T_Gn);
  o.set("T_all_profiled", t.T_all_profiled).set("iterations", t.iterations).set("final_residual", t.final_residual);
  return o;
}

int run(const Args& a) {
  const auto comm = world();
  const bool root = comm.rank() == 0;
  const KroneckerSystem sys =
      a.files.empty() ? gallery::stokes_kronecker(a.grid[0], a.grid[1], a.grid[2], a.stages, a.tau)
                      : io::read_kronecker_system(a.files[0], a.files[1], a.files[2], a.files[3], a.tau, a.block_size);
  const auto offsets = distributed::block_row_offsets_by_work(sys.M, comm.size());
  const ordinal_t first = offsets[size_t(comm.rank())], end = offsets[size_t(comm.rank()) + 1];
  KroneckerSystem local = sys;
  local.M = distributed::block_row_slice(sys.M, first, end);
  local.L = distributed::block_row_slice(sys.L, first, end);
  const KroneckerOperator<double, Device> K(comm, local, offsets);
  const int s = sys.stages, bs = sys.M.block_size;
  if (root)
    std::printf(
        "kron_bench: %s; %d rank(s), %s\n  N = %d rows, s = %d, %lld blocks in M%s, halo %zu entries sent "
        "by rank 0 (%s)\n",
        sys.description.c_str(), comm.size(), bench::device_name().c_str(), sys.space_rows(), s,
        (long long)sys.M.nnz_blocks(), K.shared_pattern() ? " (L on the same pattern)" : ", L apart",
        K.halo().send_entries(), distributed::to_string(K.halo().path()));

  // b = K u for a random u: a right-hand side with a known solution.
  const auto u = bench::random_device_vector(size_t(K.num_rows()), 7 + comm.rank());
  Vector b("trellis::bench::b", u.extent(0));
  K.apply(u, b);

  // The paper's flop count per apply (Fig. 14): 4 q s^2 for X̂Aᵀ and X̂Bᵀ, and
  // 2 s b^2 per stored block of M and of L (dense blocks: with packed blocks
  // it is an effective rate). Bytes: the stored values and indices once, x
  // read and y written once.
  long long nnzb_local = K.shared_pattern() ? local.M.nnz_blocks() : local.M.nnz_blocks() + local.L.nnz_blocks();
  const double q = double(K.local_space_rows());
  const double flops = 4.0 * q * s * s + 2.0 * s * double(local.M.nnz_blocks() + local.L.nnz_blocks()) * bs * bs;
  const double bytes = 8.0 * (double(local.M.nnz_blocks()) * K.stored_block_entries_M() +
                              double(local.L.nnz_blocks()) * K.stored_block_entries_L()) +
                       4.0 * nnzb_local + 2.0 * 8.0 * q * s;
  const double total_flops = max_over_ranks(comm, flops) * comm.size();  // for GFLOP/s of the slowest rank's share

  bench::JsonObject row;
  row.set("problem", sys.description).set("ranks", comm.size()).set("device", bench::device_name());
  row.set("N", sys.space_rows()).set("s", s).set("block_size", bs).set("iterations", a.iterations);
  row.set("flops_per_apply", total_flops).set("arithmetic_intensity", flops / bytes);
  const double copy_GBs = bench::measure_copy_bandwidth(size_t(256) << 20);
  row.set("copy_GBs", copy_GBs);

  // The SpMV's lane mappings, apply alone; the fastest serves every solve
  // below. Then M and L in two passes with it: what the merge buys.
  auto apply_ms = [&](const KroneckerOptions& o) {
    const KroneckerOperator<double, Device> Kv(comm, local, offsets, o);
    Vector yv("yv", b.extent(0));
    for (int w = 0; w < 3; ++w) Kv.apply(b, yv);
    return 1e3 *
           timed_on_all(comm,
                        [&] {
                          for (int r = 0; r < a.applies; ++r) Kv.apply(b, yv);
                        }) /
           a.applies;
  };
  KroneckerOptions chosen;
  double best_ms = 1e300;
  for (const auto& [name, mapping] : {std::make_pair("block_per_lane", KroneckerMapping::block_per_lane),
                                      std::make_pair("entry_per_lane", KroneckerMapping::entry_per_lane),
                                      std::make_pair("row_per_thread", KroneckerMapping::row_per_thread)}) {
    KroneckerOptions o;
    o.mapping = mapping;
    const double ms = apply_ms(o);
    row.set(std::string("apply_ms_") + name, ms);
    if (root) std::printf("  mapping %-15s: apply %.3f ms\n", name, ms);
    if (ms < best_ms) best_ms = ms, chosen.mapping = mapping;
  }
  // One exchange alone (pack, transfer, unpack; profiled applies) by each
  // path ours can take: what peer writes buy over MPI through the host.
  if (comm.size() > 1) {
    auto exchange_us = [&](const KroneckerOptions& o, distributed::HaloPath* path) {
      const KroneckerOperator<double, Device> Kv(comm, local, offsets, o);
      *path = Kv.halo().path();
      Vector yv("yv", b.extent(0));
      Kv.set_profiling(true);
      for (int w = 0; w < 3; ++w) Kv.apply(b, yv);
      Kv.reset_timings();
      for (int r = 0; r < a.applies; ++r) Kv.apply(b, yv);
      return 1e6 * max_over_ranks(comm, Kv.timings().communication_seconds) / a.applies;
    };
    for (const auto& [name, buffers] : {std::make_pair("automatic", distributed::HaloBuffers::automatic),
                                        std::make_pair("mpi", distributed::HaloBuffers::mpi)}) {
      KroneckerOptions o = chosen;
      o.halo_buffers = buffers;
      distributed::HaloPath path{};
      const double us = exchange_us(o, &path);
      row.set(std::string("exchange_us_") + name, us).set(std::string("exchange_path_") + name, to_string(path));
      if (root) std::printf("  halo %-9s: %.1f us per exchange (%s)\n", name, us, to_string(path));
    }
  }
  KroneckerOptions two = chosen;
  two.merge_shared_pattern = false;
  const double two_ms = apply_ms(two);
  row.set("apply_ms_two_pass", two_ms);
  if (root) std::printf("  M and L in two passes: apply %.3f ms\n", two_ms);
  KroneckerOptions dense = chosen;  // what packing the blocks to their nonzero entries buys
  dense.pack_blocks = false;
  const double dense_ms = apply_ms(dense);
  row.set("apply_ms_dense_blocks", dense_ms);
  if (root)
    std::printf("  dense %dx%d blocks: apply %.3f ms (packed: %d entries of M's blocks, %d of L's)\n", bs, bs, dense_ms,
                K.stored_block_entries_M(), K.stored_block_entries_L());
  row.set("stored_block_entries_M", K.stored_block_entries_M())
      .set("stored_block_entries_L", K.stored_block_entries_L());
  const KroneckerOperator<double, Device> Kb(comm, local, offsets, chosen);
  const Breakdown ours = measure(comm, Kb, a, b, GmresOrthogonalization::automatic);
  const auto picked = resolved_orthogonalization(GmresOrthogonalization::automatic, comm);
  row.set("orthogonalization", to_string(picked));
  const double gflops = total_flops / (ours.apply_ms * 1e-3) / 1e9;
  const double GBs = max_over_ranks(comm, bytes) / (ours.apply_ms * 1e-3) / 1e9;
  row.set("mapping", chosen.mapping == KroneckerMapping::block_per_lane   ? "block_per_lane"
                     : chosen.mapping == KroneckerMapping::entry_per_lane ? "entry_per_lane"
                                                                          : "row_per_thread");
  row.set("trellis", json_of(ours)).set("trellis_gflops", gflops).set("trellis_GBs_rank", GBs);
  if (root)
    std::printf(
        "  Trellis  : apply %.3f ms (%.1f GFLOP/s, AI %.3f flop/B, %.0f GB/s per rank = %.0f%% of copy)\n"
        "             GMRES %d it: T_all %.3f s | profiled: T_Kx %.3f T_c %.3f T_Gn %.3f s\n",
        ours.apply_ms, gflops, flops / bytes, GBs, 100 * GBs / copy_GBs, ours.iterations, ours.T_all, ours.T_Kx,
        ours.T_c, ours.T_Gn);

  // The same operator with the other orthogonalizations: what the choice buys.
  for (const auto other :
       {GmresOrthogonalization::mgs, GmresOrthogonalization::cgs2, GmresOrthogonalization::mgs_blas}) {
    if (other == picked) continue;
    const Breakdown ours_other = measure(comm, Kb, a, b, other);
    row.set(std::string("trellis_") + to_string(other), json_of(ours_other));
    if (root)
      std::printf("  (GMRES with %s; with %s: T_all %.3f s | profiled: T_Kx %.3f T_c %.3f T_Gn %.3f s)\n",
                  to_string(picked), to_string(other), ours_other.T_all, ours_other.T_Kx, ours_other.T_c,
                  ours_other.T_Gn);
  }

  bool wrong = false;
  if (a.baseline) {
    const bench::ColumnwiseKronecker C(comm, local, offsets);
    Vector y_ours("y_ours", b.extent(0)), y_base("y_base", b.extent(0));
    Kb.apply(b, y_ours);
    C.apply(b, y_base);
    const double diff = max_over_ranks(comm, bench::relative_difference(y_ours, y_base));
    // The baseline as the paper ran it (BLAS-style MGS), and with our driver's default.
    const Breakdown base = measure(comm, C, a, b, GmresOrthogonalization::mgs_blas);
    const Breakdown base_default = measure(comm, C, a, b, GmresOrthogonalization::automatic);
    row.set("baseline", json_of(base)).set("baseline_default_driver", json_of(base_default));
    row.set("baseline_difference", diff);
    const double ratio_kx = base.T_Kx / ours.T_Kx, ratio_all = base.T_all / ours.T_all;
    row.set("speedup_T_Kx", ratio_kx)
        .set("speedup_T_all", ratio_all)
        .set("speedup_T_all_same_driver", base_default.T_all / ours.T_all)
        .set("speedup_apply", base.apply_ms / ours.apply_ms);
    if (comm.size() > 1) row.set("speedup_T_c", base.T_c / ours.T_c);
    if (root) {
      std::printf(
          "  Baseline : apply %.3f ms; GMRES (mgs-blas) %d it: T_all %.3f s | profiled: T_Kx %.3f T_c %.3f T_Gn %.3f "
          "s\n",
          base.apply_ms, base.iterations, base.T_all, base.T_Kx, base.T_c, base.T_Gn);
      std::printf("  Baseline with %s: T_all %.3f s | profiled: T_Kx %.3f T_c %.3f T_Gn %.3f s\n", to_string(picked),
                  base_default.T_all, base_default.T_Kx, base_default.T_c, base_default.T_Gn);
      std::printf(
          "  speedups : apply %.2fx, T_Kx %.2fx, T_c %s, T_all %.2fx (same GMRES: %.2fx) (operators differ by %.2g)\n",
          base.apply_ms / ours.apply_ms, ratio_kx,
          comm.size() > 1 ? (std::to_string(base.T_c / ours.T_c) + "x").c_str() : "n/a", ratio_all,
          base_default.T_all / ours.T_all, diff);
    }
    if (!(diff < 1e-10)) {
      if (root) std::printf("  WRONG: the operators differ by %.3g\n", diff);
      wrong = true;
    }
  }

  if (!a.precond.empty()) {  // beyond the paper: iterations to 1e-6 with the stage preconditioner
    KrylovOptions o;
    o.rel_tol = 1e-6;
    o.abs_tol = 1e-8;
    o.max_iterations = 20000;
    Vector x("x", b.extent(0));
    const IdentityPreconditioner<double, Device> none;
    KrylovResult plain;
    const double t_plain = timed_on_all(comm, [&] { plain = gmres<double, Device>(Kb, none, b, x, o); });
    const KroneckerStagePreconditioner P(local, first, a.precond);
    Kokkos::deep_copy(x, 0.0);
    KrylovResult pre;
    const double t_pre = timed_on_all(comm, [&] { pre = gmres<double, Device>(Kb, P, b, x, o); });
    bench::JsonObject p;
    p.set("spec", P.stage().name).set("gamma", P.gamma()).set("plain_iterations", plain.iterations);
    p.set("plain_seconds", t_plain).set("plain_converged", plain.converged());
    p.set("preconditioned_iterations", pre.iterations).set("preconditioned_seconds", t_pre);
    p.set("preconditioned_converged", pre.converged()).set("true_residual", pre.true_relative_residual);
    row.set("preconditioned", p);
    if (root)
      std::printf("  to 1e-6  : none %d it %.3f s (%s); %s stages %d it %.3f s (%s, true residual %.2g)\n",
                  plain.iterations, t_plain, plain.converged() ? "converged" : "not converged", P.stage().name.c_str(),
                  pre.iterations, t_pre, pre.converged() ? "converged" : "not converged", pre.true_relative_residual);
  }

  if (root && !a.json.empty()) bench::write_text_file(a.json, row.str());
  return wrong ? 1 : 0;
}

}  // namespace
}  // namespace trellis

int main(int argc, char** argv) {
#if TRELLIS_ENABLE_MPI
  MPI_Init(&argc, &argv);
#endif
  trellis::Args args;
  int rc = trellis::parse_options(argc, argv, args);
  if (rc < 0) {
    rc = 0;
    Kokkos::ScopeGuard kokkos(argc, argv);
    try {
      rc = trellis::run(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kron_bench: %s\n", e.what());
      rc = 2;
    }
  }
#if TRELLIS_ENABLE_MPI
  MPI_Finalize();
#endif
  return rc;
}
