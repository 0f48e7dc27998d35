#pragma once
// Analysis plan of the element-scheduled / sync-free family (ELMR, ELMR-V,
// ELMC, GSF): the dispatch order, ready flags, dependency counters and the
// ticket. Flags and counters count solves ("epochs") so that they never need
// resetting between solves; the ticket resets itself.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/trsv/detail/factor.hpp"

namespace trellis::detail {

/// Kernels capture the Views they read by name, not the plan.
template <class Scalar, class Device>
struct ElementPlan {
  template <class T>
  using view = Kokkos::View<T, Device>;

  view<ordinal_t*> order;  // jlev: unknowns in level order, the ticket order
  view<int*> ready;        // ready(i) == epoch: x(i) published in this solve
  view<int*> counters;     // counters(i) == epoch * deps(i): all dependencies in
  view<int*> deps;         // dependencies of each row (strict row length)
  view<int> ticket;        // next position of `order` to hand out
  int max_deps = 0;
  int epoch = 0;
  // Copy of an input that aliases x, for kernels that overwrite x first
  // (elmr-value); allocated on first need.
  view<Scalar*> work;
  int team_rows = 0;  // elmr-value: rows a team on GPUs (element_team_rows)
};

/// elmr-value's rows (warps) a team on GPUs: `requested` (1 to 32), else
/// one when a mean level fits the warps resident at one-warp teams, else
/// the backend's rows_per_team (8 on GPUs: 256 threads). One-warp teams cap
/// a multiprocessor at 32 warps (the block limit), half its warps: rows
/// handed out beyond the level being solved only poll x through L2 and slow
/// the loads of the front (1.5x faster on grids and FEM matrices whose
/// levels fit, 0.7x on lap3d7:128^3 with 5,490 rows a level: perf_tests/journal/RESULTS.md,
/// issue 17).
template <class Exec>
int element_team_rows(const Exec& space, int requested, double rows_per_level) {
  if (requested != 0) {
    if (requested < 0 || requested > 32)
      throw InputError("elmr-value: team_rows " + std::to_string(requested) + " is not from 1 to 32");
    return requested;
  }
  const double one_warp_teams = double(space.concurrency()) / 64;  // 32 of 64 warps a multiprocessor
  return rows_per_level <= one_warp_teams ? 1 : rows_per_team<Exec>(max_vector_width<Exec>());
}

template <class Scalar, class Device>
ElementPlan<Scalar, Device> build_element_plan(const typename Device::execution_space& space,
                                               const TriangularFactor<Scalar, Device>& f,
                                               const LevelSets<Device>& levels) {
  using exec = typename Device::execution_space;
  using flags = Kokkos::View<int*, Device>;
  const ordinal_t n = f.n;
  ElementPlan<Scalar, Device> p;
  p.order = levels.level_rows;
  p.deps = flags(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::deps"), n);
  auto deps = p.deps;
  auto row_map = f.rows.row_map;
  int max_deps = 0;
  Kokkos::parallel_reduce(
      "trellis::trsv::deps", trellis::RangePolicy<exec>(space, 0, n),
      KOKKOS_LAMBDA(ordinal_t i, int& m) {
        deps(i) = int(row_map(i + 1) - row_map(i));
        if (deps(i) > m) m = deps(i);
      },
      Kokkos::Max<int>(max_deps));
  p.max_deps = n ? max_deps : 0;
  // Zeroed: epochs start at 1.
  p.ready = flags(Kokkos::view_alloc(space, "trellis::trsv::ready"), n);
  p.counters = flags(Kokkos::view_alloc(space, "trellis::trsv::counters"), n);
  p.ticket = Kokkos::View<int, Device>(Kokkos::view_alloc(space, "trellis::trsv::ticket"));
  p.epoch = 0;
  return p;
}

/// Next solve number of an epoch-counted plan; first zeroes the flag and
/// counter Views before a counter (epoch * max_deps) could overflow.
template <class Exec, class... Flags>
int advance_epoch(const Exec& space, int& epoch, int max_deps, const Flags&... flags) {
  const int limit = INT_MAX / std::max(1, max_deps) - 1;
  if (epoch >= limit) {
    (Kokkos::deep_copy(space, flags, 0), ...);
    epoch = 0;
  }
  return ++epoch;
}

template <class Scalar, class Device>
int next_epoch(const typename Device::execution_space& space, ElementPlan<Scalar, Device>& p) {
  return advance_epoch(space, p.epoch, p.max_deps, p.ready, p.counters);
}

}  // namespace trellis::detail
