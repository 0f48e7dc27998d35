#pragma once
// StructILU's automatic launch settings, one function per setting: what
// StructIluOptions leaves automatic (0, EntryLanes::automatic, tile {0, 0}).
// The measurements behind each rule are in perf_tests/journal/RESULTS.md,
// under the StructILU sections named beside each rule.
#include <algorithm>

#include "trellis/structured/wavefront_layout.hpp"

namespace trellis::structured::detail {

/// The GPU tile at dof > 1, before it is widened to the stencil's reach: a
/// point runs as dof threads, so about 256 / dof lines.
/// (twentieth session: DoF lanes in the sweeps)
inline TileShape gpu_tile_at_dof(int dof) { return {16, std::max(2, 256 / (16 * dof))}; }

/// Whether the factorization runs a point as a thread per entry and row of
/// its block row: on GPUs at dof 1 with ten or more lower entries
/// (Diamond-25P, Box-27P). On a CPU core the lanes would run in turn.
/// (twentieth and twenty-fifth sessions: entry lanes)
inline bool automatic_entry_lanes(int dof, int lower_entries, bool gpu) {
  return gpu && dof == 1 && lower_entries >= 10;
}

/// The factorization's own tile when it runs entry lanes on a GPU's default
/// tile, before it is widened to the stencil's reach.
inline TileShape entry_lanes_tile(int dof) { return {std::max(1, 8 / dof), 2}; }

/// Levels per wait of the solves: on GPUs 4 at dof 1-2 on stencils of up
/// to six lower entries, 2 on wider ones at dof 1, else 1 (a wait at every
/// level). The factorization waits at every level.
/// (twenty-first session: waits per run of levels)
inline int automatic_solve_levels_per_wait(int dof, int lower_entries, bool gpu) {
  if (!gpu) return 1;
  if (dof <= 2 && lower_entries <= 6) return 4;
  return dof == 1 ? 2 : 1;
}
inline int automatic_factor_levels_per_wait() { return 1; }

/// Teams per multiprocessor, each sweeping tiles by ticket: on GPUs one at
/// dof >= 2; 0 (a team per tile) otherwise.
/// (twenty-second session: teams that sweep several tiles)
inline int automatic_teams_per_sm(int dof, bool gpu) { return gpu && dof >= 2 ? 1 : 0; }

}  // namespace trellis::structured::detail
