#pragma once
// Analysis plan of team-levelset: the whole triangle solved by one team,
// level by level with a team barrier between levels, x kept in team scratch
// (GPU shared memory). The rows are put in level order (the level sets'
// order: a level's rows are consecutive slots), and the strict triangle is
// copied in that order with each column replaced by its slot, so a level
// reads consecutive entries and x by slot from scratch.
//
// What fits decides the layout: x and the level starts in fast team scratch
// (level 0) when they fit, then the row offsets (a level's rows then wait on
// one global read, their entries, instead of two), then the entries of as
// many leading rows as the rest of it holds; otherwise x in level-1 scratch
// (global memory on GPUs, where `automatic` never picks this algorithm) and
// nothing else staged.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <limits>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/trsv/detail/factor.hpp"
#include "trellis/trsv/detail/levelset_plan.hpp"

namespace trellis::detail {

/// Slots are positions in level order. Kernels capture the Views they read
/// by name, not the plan.
template <class Scalar, class Device>
struct TeamPlan {
  template <class T>
  using view = Kokkos::View<T, Device>;

  ordinal_t num_levels = 0;
  int vector_width = 1;         // lanes per row
  int team_rows = 1;            // rows a pass of the team covers
  int launch_rows = 0;          // team_rows as the kernel's registers allow (set by the first solve)
  int scratch_level = 0;        // where x and the level starts live
  bool offsets_staged = false;  // row_map in level-0 scratch
  ordinal_t staged_rows = 0;    // slots [0, staged_rows) have their entries there too
  offset_t staged_entries = 0;  // their entries
  view<offset_t*> level_ptr;    // level l's slots: [level_ptr(l), level_ptr(l + 1)) (the level sets')
  view<ordinal_t*> slot_row;    // the row at each slot (the level sets' level_rows)
  view<offset_t*> row_map;      // the strict triangle by slot
  view<ordinal_t*> col;         // the slot of each dependency
  view<Scalar*> values;         // from the factor, times the row's inverse diagonal (load_slot_values)
  view<Scalar*> inv_diag;       // by slot, likewise
  view<offset_t*> source;       // the factor position of each entry
};

/// What the team keeps in scratch: x by slot and the level starts (at
/// `scratch_level`), and in level 0 the row offsets when staged and the
/// columns and values of the staged rows.
template <class Exec, class Scalar>
struct TeamScratch {
  using space = typename Exec::scratch_memory_space;
  template <class T>
  using view = Kokkos::View<T*, space, Kokkos::MemoryUnmanaged>;

  view<Scalar> x, values;
  view<ordinal_t> starts, row_ptr, col;

  static size_t vector_bytes(ordinal_t n, ordinal_t levels) {
    return view<Scalar>::shmem_size(n) + view<ordinal_t>::shmem_size(levels + 1);
  }
  static size_t offsets_bytes(ordinal_t n) { return view<ordinal_t>::shmem_size(n + 1); }
  static size_t entries_bytes(offset_t entries) {
    return view<ordinal_t>::shmem_size(entries) + view<Scalar>::shmem_size(entries);
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION TeamScratch(const Member& m, int level, ordinal_t n, ordinal_t levels, bool offsets,
                                     offset_t entries)
      : x(m.team_scratch(level), n),
        values(m.team_scratch(0), entries),
        starts(m.team_scratch(level), levels + 1),
        row_ptr(m.team_scratch(0), offsets ? n + 1 : 0),
        col(m.team_scratch(0), entries) {}
};

/// Lanes per row from the mean row length (a power of two, at most the
/// backend's vector width), and rows per pass: 1024 threads on GPUs (the
/// loads before and after the level loop use them all), one row at a time
/// on host backends.
template <class Exec>
void team_shape(double mean_row, int& vector_width, int& team_rows) {
  vector_width = std::min(max_vector_width<Exec>(), floor_pow2(std::max(1, int(mean_row))));
  team_rows = is_host_space<Exec>() ? 1 : 1024 / vector_width;
}

/// The time model `automatic` weighs on GPUs: one team makes a pass of
/// team_rows rows per step, a level takes ceil(rows / team_rows) passes, and
/// all entries stream through one SM; a solve spread over the GPU pays a
/// global hand-off per level and streams at the GPU's bandwidth; each has a
/// fixed cost (launches, the team's loads). Fitted on an H100 to
/// team-levelset and elmr-value over the suite's triangles under 30k rows
/// (RESULTS, fiftieth session): one team is ahead only on a few tens of
/// one-pass levels, where the spread solve's fixed cost dominates.
struct TeamModel {
  double team_fixed_us = 3;     // the team's launch and loads
  double pass_us = 1.45;        // one pass of a level: barrier, scratch reads, a row's sum
  double spread_fixed_us = 17;  // a spread solve's first launches and waits
  double handoff_us = 1.1;      // a level's hand-off between teams in global memory
  double sm_gb_per_s = 100;     // what one SM reads from L2
  double gpu_gb_per_s = 2000;
  /// Microseconds of team-levelset and of a solve spread over the GPU for
  /// `entries` strictly triangular entries (a value and a column each) in
  /// the given levels.
  template <class Scalar, class Device>
  void estimate(const LevelSets<Device>& levels, int team_rows, offset_t entries, double& team_us,
                double& spread_us) const {
    const double bytes = double(entries) * (sizeof(Scalar) + sizeof(ordinal_t));
    double passes = 0;
    for (ordinal_t l = 0; l < levels.num_levels; ++l) passes += (levels.rows_in_level(l) + team_rows - 1) / team_rows;
    team_us = team_fixed_us + passes * pass_us + bytes / (sm_gb_per_s * 1e3);
    spread_us = spread_fixed_us + levels.num_levels * handoff_us + bytes / (gpu_gb_per_s * 1e3);
  }
};

/// Whether x and the level starts fit fast team scratch (the layout
/// `automatic` requires).
template <class Exec, class Scalar>
bool team_fits_fast_scratch(ordinal_t n, ordinal_t levels) {
  return TeamScratch<Exec, Scalar>::vector_bytes(n, levels) <= size_t(trellis::TeamPolicy<Exec>::scratch_size_max(0));
}

template <class Scalar, class Device>
TeamPlan<Scalar, Device> build_team_plan(const typename Device::execution_space& space,
                                         const TriangularFactor<Scalar, Device>& f, const LevelSets<Device>& levels) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  using scratch = TeamScratch<exec, Scalar>;
  const ordinal_t n = f.n;
  TeamPlan<Scalar, Device> p;
  p.num_levels = levels.num_levels;
  p.level_ptr = levels.level_ptr;
  p.slot_row = levels.level_rows;
  p.row_map = Kokkos::View<offset_t*, Device>(Kokkos::view_alloc(space, "trellis::trsv::team_row_map"), size_t(n) + 1);
  p.inv_diag = Kokkos::View<Scalar*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::team_inv_diag"), n);
  p.col = Kokkos::View<ordinal_t*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::team_col"), f.nnz_strict);
  p.values = Kokkos::View<Scalar*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::team_values"), f.nnz_strict);
  p.source = Kokkos::View<offset_t*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::team_source"), f.nnz_strict);
  team_shape<exec>(n ? double(f.nnz_strict) / n : 0, p.vector_width, p.team_rows);

  const size_t vector = scratch::vector_bytes(n, levels.num_levels);
  const size_t fast = size_t(trellis::TeamPolicy<exec>::scratch_size_max(0));
  const size_t slow = size_t(trellis::TeamPolicy<exec>::scratch_size_max(1));
  p.scratch_level = team_fits_fast_scratch<exec, Scalar>(n, levels.num_levels) ? 0 : 1;
  if (p.scratch_level == 1 && vector > slow)
    throw InputError("team-levelset: " + std::to_string(n) + " rows in " + std::to_string(levels.num_levels) +
                     " levels need " + std::to_string(vector) + " bytes of team scratch; this backend offers " +
                     std::to_string(std::max(fast, slow)) + " (choose another algorithm)");
  if (n == 0) return p;

  // The triangle by slot, each column replaced by its slot.
  const auto rows = f.rows;
  const auto slot_row = p.slot_row;
  const auto row_map = p.row_map;
  Kokkos::View<ordinal_t*, Device> slot_of(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::team_slot_of"), n);
  Kokkos::parallel_for(
      "trellis::trsv::team_slots", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t s) { slot_of(slot_row(s)) = s; });
  Kokkos::parallel_scan(
      "trellis::trsv::team_row_scan", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t s, offset_t & sum, bool final) {
        const ordinal_t i = slot_row(s);
        sum += rows.row_map(i + 1) - rows.row_map(i);
        if (final) row_map(s + 1) = sum;
      });
  const auto col = p.col;
  const auto source = p.source;
  Kokkos::parallel_for(
      "trellis::trsv::team_fill", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t s) {
        const ordinal_t i = slot_row(s);
        offset_t e = row_map(s);
        for (offset_t k = rows.row_map(i); k < rows.row_map(i + 1); ++k, ++e) {
          col(e) = slot_of(rows.col_ind(k));
          source(e) = k;
        }
      });

  // The rest of fast scratch (7/8 of it: room for the views' alignment
  // padding): the row offsets, then the entries of the leading rows.
  const size_t budget = p.scratch_level == 0 ? (fast - vector) / 8 * 7 : 0;
  if (f.nnz_strict > 0 && scratch::offsets_bytes(n) <= budget &&
      f.nnz_strict <= offset_t(std::numeric_limits<ordinal_t>::max())) {  // offsets kept as ordinal_t
    p.offsets_staged = true;
    const size_t left = budget - scratch::offsets_bytes(n);
    auto map_h = Kokkos::create_mirror_view(row_map);
    Kokkos::deep_copy(space, map_h, row_map);
    space.fence();             // the host reads it
    ordinal_t lo = 0, hi = n;  // the most rows whose entries fit
    while (lo < hi) {
      const ordinal_t mid = lo + (hi - lo + 1) / 2;
      if (scratch::entries_bytes(map_h(mid)) <= left)
        lo = mid;
      else
        hi = mid - 1;
    }
    p.staged_rows = lo;
    p.staged_entries = map_h(lo);
  }
  return p;
}

}  // namespace trellis::detail
