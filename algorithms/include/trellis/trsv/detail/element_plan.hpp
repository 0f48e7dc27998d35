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
  // elmr-value: vector lanes a row, and with fewer than a warp's, the row of
  // each slot (-1: padding). Slots hold the rows in level order with every
  // level padded to whole wavefronts (set_row_slots), so the rows sharing a
  // warp are of one level and never wait on each other: lanes of a lockstep
  // wavefront (HIP, pre-Volta CUDA) spinning on a lane of their own
  // wavefront would never let it run.
  int lanes = 0;
  view<ordinal_t*> slots;
  // elmr-value: teams launched (0: one a block of rows). Rows handed out
  // far ahead of the solve front only poll; a persistent grid bounds them.
  int max_teams = 0;
};

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
      "trellis::trsv::deps", Kokkos::RangePolicy<exec>(space, 0, n),
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

/// Lanes a row for elmr-value: `requested` when given (a power of two up to
/// the backend's width), else the strict row length's mean rounded up to a
/// power of two, so that one round of loads covers a typical row.
template <class Exec>
int element_lanes(int requested, ordinal_t n, offset_t nnz_strict) {
  const int width = max_vector_width<Exec>();
  if (requested != 0) {
    if (requested < 0 || (requested & (requested - 1)) != 0 || requested > 32)
      throw InputError("elmr-value: lanes_per_row " + std::to_string(requested) +
                       " is not a power of two from 1 to 32");
    return std::min(requested, width);
  }
  const double mean = n ? double(nnz_strict) / n : 0;
  int K = 1;
  while (K < width && K < mean) K *= 2;
  return K;
}

/// Teams for at most `rows` rows in flight at K lanes a row (0: no cap).
template <class Exec>
int teams_for_rows_in_flight(int rows, int K) {
  if (rows < 0) throw InputError("elmr-value: rows_in_flight " + std::to_string(rows) + " is negative");
  const int team = rows_per_team<Exec>(K);
  return rows == 0 ? 0 : std::max(1, (rows + team - 1) / team);
}

/// Slots for K lanes a row (see ElementPlan::slots). Each level is padded
/// to a multiple of 64 / K slots: whole wavefronts on CUDA (32 lanes) and
/// HIP (64), and teams (256 / K groups) start on a wavefront too.
template <class Scalar, class Device>
void set_row_slots(const typename Device::execution_space& space, ElementPlan<Scalar, Device>& p,
                   const LevelSets<Device>& levels, int K) {
  using exec = typename Device::execution_space;
  p.lanes = K;
  p.slots = {};
  if (K >= max_vector_width<exec>()) return;  // a warp a row: no slots needed
  const offset_t group = 64 / K;
  Kokkos::View<offset_t*, Kokkos::HostSpace> first_h("trellis::trsv::slot_ptr", size_t(levels.num_levels) + 1);
  for (ordinal_t l = 0; l < levels.num_levels; ++l) {
    const offset_t rows = levels.level_ptr_host(l + 1) - levels.level_ptr_host(l);
    first_h(l + 1) = first_h(l) + (rows + group - 1) / group * group;
  }
  const offset_t total = first_h(levels.num_levels);
  if (total > offset_t(INT_MAX))
    throw Error("elmr-value: " + std::to_string(total) + " padded slots do not fit the int ticket");
  auto first = Kokkos::create_mirror_view_and_copy(typename Device::memory_space(), first_h);
  p.slots = Kokkos::View<ordinal_t*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::slots"), total);
  Kokkos::deep_copy(space, p.slots, ordinal_t(-1));
  auto slots = p.slots;
  auto order = p.order;
  auto level_ptr = levels.level_ptr;
  auto row_level = levels.row_level;
  Kokkos::parallel_for(
      "trellis::trsv::row_slots", Kokkos::RangePolicy<exec>(space, 0, levels.num_rows), KOKKOS_LAMBDA(ordinal_t q) {
        const ordinal_t l = row_level(order(q));
        slots(first(l) + (q - level_ptr(l))) = order(q);
      });
  space.fence();  // `first` is freed on return
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
