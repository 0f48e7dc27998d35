// reduction_bandwidth: GB/s of the Krylov drivers' reductions over a vector
// of N rows (GMRES's Gram-Schmidt kernels on a basis of N x 31), each as the
// drivers launch it (a RangePolicy parallel_reduce) and as a TeamPolicy
// reduction with a league sized to the device, against the copy bandwidth.
// It decides whether the drivers' reductions need their own launch shape
// (perf_tests/journal/RESULTS.md, GMRES orthogonalization).
//
//   reduction_bandwidth [N] [COLUMNS]     (defaults 1213488 = kron_bench's N s, 16)
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <type_traits>

#include "bench_support.hpp"
#include "trellis/solvers/detail/vector_ops.hpp"

namespace {
using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;
using Vec = Kokkos::View<double*, Memory>;
using Basis = Kokkos::View<double**, Kokkos::LayoutLeft, Memory>;

/// The MGS step one row a thread (the form the grouped one replaced).
struct Step {
  Basis V;
  Vec w;
  const double* coef;
  int prev, next;
  KOKKOS_INLINE_FUNCTION void operator()(size_t r, double& acc) const {
    double v = w(r);
    if (prev >= 0) {
      v -= coef[prev] * V(r, prev);
      w(r) = v;
    }
    acc += (next >= 0 ? V(r, next) : v) * v;
  }
};

/// The same row body over a TeamPolicy (reduce_rows's GPU form, any league).
using TeamRows = trellis::detail::TeamRowsReduce<Space, double, Step>;
using Chunk = trellis::detail::ColumnDotsChunk<Basis, Vec>;
using Sums8 = trellis::SumArray<double, Chunk::width>;

double seconds_per_call(const std::function<void()>& f) {
  for (int w = 0; w < 3; ++w) f();
  Kokkos::fence();
  const int reps = 200;
  Kokkos::Timer t;
  for (int r = 0; r < reps; ++r) f();
  Kokkos::fence();
  return t.seconds() / reps;
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1213488;
  const int k = argc > 2 ? std::atoi(argv[2]) : 16;
  const Space space;
  Basis V("V", n, 31);
  Vec w("w", n), coef("coef", 64), copy("copy", n);
  Kokkos::deep_copy(V, 1e-7);  // small: w changes little over the repetitions
  Kokkos::deep_copy(w, 1.0);
  Kokkos::deep_copy(coef, 0.0);  // w stays 1: every step subtracts 0
  const double vec_gb = 8.0 * double(n) / 1e9;
  std::printf("reduction_bandwidth: N = %zu, %d columns, %s, concurrency %d; copy %.0f GB/s\n", n, k, Space::name(),
              space.concurrency(), trellis::bench::measure_copy_bandwidth(size_t(256) << 20));
  const Kokkos::View<double, Memory, Kokkos::MemoryUnmanaged> out(coef.data() + 40);
  // coef stays 0 until mgs_columns, so every mgs step leaves w = 1 and sums
  // V(:, 1) w = n 1e-7: printed (relative to that) as each form's check.
  auto report = [&](const char* what, double vectors, double s) {
    std::printf("  %-44s %8.2f us  %6.0f GB/s", what, 1e6 * s, vectors * vec_gb / s);
    if (std::strncmp(what, "mgs step", 8) == 0) {
      double sum = 0;
      Kokkos::deep_copy(sum, out);
      std::printf("  (sum - n 1e-7) / (n 1e-7) = %.1e", (sum - 1e-7 * double(n)) / (1e-7 * double(n)));
    }
    std::printf("\n");
  };
  report("deep_copy", 2, seconds_per_call([&] { Kokkos::deep_copy(space, copy, w); }));
  report("dot to the host (RangePolicy)", 2, seconds_per_call([&] { (void)trellis::detail::dot(space, w, copy); }));
  const Step step{V, w, coef.data(), 0, 1};
  report("mgs step (RangePolicy, a row a thread)", 4, seconds_per_call([&] {
           Kokkos::parallel_reduce("range", Kokkos::RangePolicy<Space>(space, 0, n), step,
                                   Kokkos::Sum<double, Memory>(out));
         }));
  const size_t groups = (n + 3) / 4;
  const trellis::detail::MgsStepGroups<Basis, Vec> grouped{V, w, coef.data(), 0, 1, n, groups};
  report("mgs step (RangePolicy, 4-row groups)", 4, seconds_per_call([&] {
           Kokkos::parallel_reduce("groups", Kokkos::RangePolicy<Space>(space, 0, groups), grouped,
                                   Kokkos::Sum<double, Memory>(out));
         }));
  const int team = std::is_same<Space, Kokkos::DefaultHostExecutionSpace>::value ? 1 : 256;
  for (const int eighths : {1, 2, 4, 8}) {  // the league: eighths / 8 of the resident threads
    const int league = std::max(1, eighths * space.concurrency() / team / 8);
    const size_t per = (n + size_t(league) - 1) / size_t(league);
    char what[64];
    std::snprintf(what, sizeof what, "mgs step (TeamPolicy, %d teams of %d)", league, team);
    report(what, 4, seconds_per_call([&] {
             Kokkos::parallel_reduce("team", Kokkos::TeamPolicy<Space>(space, league, team), TeamRows{step, n, per},
                                     Kokkos::Sum<double, Memory>(out));
           }));
  }
  {  // one 8-column chunk of CGS2's products as a RangePolicy, and as the library launches it
    const Kokkos::View<Sums8, Memory> sums("sums");
    const Chunk chunk{V, w, nullptr, 8, 0, 8};
    report("column_dots chunk of 8 (RangePolicy, as before)", 9, seconds_per_call([&] {
             Kokkos::parallel_reduce("chunk", Kokkos::RangePolicy<Space>(space, 0, n), chunk,
                                     Kokkos::Sum<Sums8, Memory>(sums));
           }));
    report("column_dots chunk of 8 (reduce_rows, as now)", 9,
           seconds_per_call([&] { trellis::detail::reduce_rows<Space, Sums8>(space, "chunk_now", n, chunk, sums); }));
  }
  report("column_dots, k columns", k + 1,
         seconds_per_call([&] { trellis::detail::column_dots(space, V, k, w, coef.data()); }));
  report("subtract_columns, k columns", k + 2, seconds_per_call([&] {
           trellis::detail::subtract_columns(space, V, k, static_cast<const double*>(coef.data()), w, coef.data() + 40);
         }));
  report("mgs_columns, k columns (k + 1 kernels)", 4 * k + 1,
         seconds_per_call([&] { trellis::detail::mgs_columns(space, V, k, w, coef.data()); }));
  return 0;
}
