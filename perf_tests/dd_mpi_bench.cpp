// dd_mpi_bench: the multi-GPU DD ILDU0 (seed 000 section 4.5) under mpiexec,
// one rank per GPU: the time of one preconditioner application (each rank
// its share of the subdomains, no communication) and of a BiCGSTAB solve
// with the distributed BSR operator, each the slowest rank's. Strong scaling:
// the same grid on 1, 2, ... ranks; --weak: the grid's z extent times the
// rank count (a fixed problem per GPU). Efficiency = T(1) / (P T(P)) strong,
// T(1) / T(P) weak, from the runs' printed times.
//
//   mpiexec -n P dd_mpi_bench --grid 128x128x128 --b 3 [--weak] --kokkos-num-devices=G
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "mpi_timing.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/dd/distributed_ilu.hpp"
#include "trellis/distributed/block_rows.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/distributed_bsr_operator.hpp"
#include "trellis/solvers/preconditioners/distributed_dd.hpp"

namespace trellis {
namespace {

using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;

struct Args {
  std::array<int, 3> grid{128, 128, 128};
  int b = 3;
  bool weak = false;
  int applies = 50;
  DdApply variant = DdApply::dag_ec_ILDUO_fused;
  ordinal_t subdomain_rows = 0;
  std::string json;
};

/// Reads the options into a; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, Args& a) {
  int subdomain_rows = 0;
  bench::CommandLine cl("dd_mpi_bench",
                        "The multi-GPU DD ILDU0 (seed 000 section 4.5) under mpiexec, one rank per GPU: one "
                        "application and a BiCGSTAB solve, each the slowest rank's.");
  cl.grid("--grid", a.grid, "the grid (default 128x128x128)")
      .number("--b", a.b, "block size (default 3)", 1, 8)
      .flag("--weak", a.weak, "weak scaling: the grid's z extent times the rank count")
      .number("--applies", a.applies, "applications timed (default 50)", 1, 100000000)
      .word(
          "--variant", [&](const std::string& w) { a.variant = parse<DdApply>(w); },
          "the DD apply variant (default dag-ec-ILDUO-fused)")
      .number("--subdomain-rows", subdomain_rows, "rows per subdomain (0: the default)", 0, 1 << 30)
      .text("--json", a.json, "write the results to this file");
  const int rc = cl.parse(argc, argv);
  a.subdomain_rows = ordinal_t(subdomain_rows);
  return rc;
}

/// Seconds of run, started together on every rank, the slowest rank's.
double timed(const std::function<void()>& run) {
  return bench::timed_on_all(distributed::Communicator(MPI_COMM_WORLD), run);
}

int run(const Args& a) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int nx = a.grid[0], ny = a.grid[1], nz = a.weak ? a.grid[2] * ranks : a.grid[2];
  const HostBsr A = gallery::block_laplace3d(nx, ny, nz, a.b);
  DdOptions opt;
  opt.grid = {nx, ny, nz};
  opt.subdomain_rows = a.subdomain_rows;
  std::shared_ptr<const DistributedDdIlu<double, Device>> dd;
  const double setup = timed([&] { dd = std::make_shared<DistributedDdIlu<double, Device>>(MPI_COMM_WORLD, A, opt); });
  const size_t local = size_t(dd->local_rows());

  // The application alone.
  const auto r = bench::random_device_vector(local, 11 + rank);
  Vector z("z", local);
  for (int w = 0; w < 3; ++w) dd->apply(r, z, a.variant);
  const double apply_ms = 1e3 * timed([&] {
                            for (int k = 0; k < a.applies; ++k) dd->apply(r, z, a.variant);
                          }) /
                          a.applies;

  // BiCGSTAB (right form) with the distributed operator on the reordered matrix.
  const auto offsets = dd->block_row_offsets();
  const HostBsr Ar = copy_to<HostDevice>(dd->local_factors().reordered_matrix());
  const DistributedBsrOperator<double, Device> op(distributed::Communicator(MPI_COMM_WORLD),
                                                  distributed::block_row_slice(Ar, offsets[rank], offsets[rank + 1]),
                                                  offsets);
  const DistributedDdPreconditioner<double, Device> M(dd, a.variant);
  Vector ones("ones", local), b("b", local), x("x", local);
  Kokkos::deep_copy(ones, 1.0);
  op.apply(ones, b);
  const double spmv_ms = 1e3 * timed([&] {
                           for (int k = 0; k < a.applies; ++k) op.apply(ones, x);
                         }) /
                         a.applies;
  KrylovOptions o;
  o.rel_tol = 1e-8;
  o.max_iterations = 2000;
  KrylovResult result;
  Kokkos::deep_copy(x, 0.0);
  const double solve = timed([&] { result = bicgstab<double, Device>(op, M, b, x, o, BicgstabForm::right); });

  if (rank == 0) {
    std::printf("dd_mpi_bench: blocklap3d %dx%dx%d b=%d (%s), %d rank(s), %s, %s\n", nx, ny, nz, a.b,
                a.weak ? "weak: z times ranks" : "strong", ranks, bench::device_name().c_str(), to_string(a.variant));
    std::printf("  %d rows, %d per rank on rank 0; setup %.2f s; SpMV halo: %s\n", A.num_rows(), int(local), setup,
                distributed::to_string(op.halo().path()));
    std::printf(
        "  ILDU0 application %.4f ms; SpMV %.4f ms; BiCGSTAB %s in %d it, %.4f s (%.4f ms/it), true "
        "residual %.2g\n",
        apply_ms, spmv_ms, to_string(result.status), result.iterations, solve,
        1e3 * solve / std::max(1, result.iterations), result.true_relative_residual);
    if (!a.json.empty()) {
      bench::JsonObject row;
      row.set("grid", std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz));
      row.set("b", a.b).set("weak", a.weak).set("ranks", ranks).set("rows", A.num_rows());
      row.set("device", bench::device_name()).set("variant", to_string(a.variant));
      row.set("setup_s", setup).set("apply_ms", apply_ms).set("spmv_ms", spmv_ms);
      row.set("halo_path", distributed::to_string(op.halo().path()));
      row.set("iterations", result.iterations).set("solve_s", solve).set("converged", result.converged());
      bench::write_text_file(a.json, row.str());
    }
  }
  return result.converged() ? 0 : 1;
}

}  // namespace
}  // namespace trellis

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  trellis::Args args;
  int rc = trellis::parse_options(argc, argv, args);
  if (rc < 0) {
    rc = 0;
    Kokkos::ScopeGuard kokkos(argc, argv);
    try {
      rc = trellis::run(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dd_mpi_bench: %s\n", e.what());
      rc = 2;
    }
  }
  MPI_Finalize();
  return rc;
}
