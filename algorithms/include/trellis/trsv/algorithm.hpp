#pragma once
// The triangular-solve algorithms (seed 002, Li & Zhang) and their names.
#include "trellis/core/name_table.hpp"

namespace trellis {

enum class TrsvAlgorithm {
  levelset_csr,    // LEVR: one kernel per level, K lanes per row, small levels chained
  levelset_csc,    // LEVC: as LEVR on the CSC form, column updates with atomics
  elmr,            // ELMR: element scheduling on CSR, ready flags, level-ordered dispatch
  elmr_lanes,      // ELMR as Algorithm 3 writes it: each lane waits on its own dependency
  elmr_value,      // ELMR with x as its own ready flag (sentinel value, no fences)
  elmc,            // ELMC: element scheduling on CSC, dependency counters, level-ordered
  syncfree_naive,  // GSF: CSC counters, unknown i on warp i, whole warp spinning (baseline)
  tile_levelset,   // TileSpTRSV level-set (seed 004): 16x16 tiles, a launch per tile level
  tile_syncfree,   // TileSpTRSV sync-free (seed 004): a warp per tile column, tile counters
  block_syncfree,  // blocks of consecutive rows: level steps in team scratch, sync-free between blocks
  team_levelset,   // the whole triangle in one team: x in team scratch, a barrier per level
  automatic,       // chosen from the analysis; the solver reports which
};

template <>
struct NameTable<TrsvAlgorithm> {
  static constexpr const char* what = "triangular-solve algorithm";
  static constexpr NameEntry<TrsvAlgorithm> entries[] = {
      {TrsvAlgorithm::levelset_csr, "levelset-csr"},
      {TrsvAlgorithm::levelset_csc, "levelset-csc"},
      {TrsvAlgorithm::elmr, "elmr"},
      {TrsvAlgorithm::elmr_lanes, "elmr-lanes"},
      {TrsvAlgorithm::elmr_value, "elmr-value"},
      {TrsvAlgorithm::elmc, "elmc"},
      {TrsvAlgorithm::syncfree_naive, "syncfree-naive"},
      {TrsvAlgorithm::tile_levelset, "tile-levelset"},
      {TrsvAlgorithm::tile_syncfree, "tile-syncfree"},
      {TrsvAlgorithm::block_syncfree, "block-syncfree"},
      {TrsvAlgorithm::team_levelset, "team-levelset"},
      {TrsvAlgorithm::automatic, "auto"},
  };
};

/// Every concrete algorithm (not `automatic`), for tests and benchmarks.
inline constexpr TrsvAlgorithm all_trsv_algorithms[] = {
    TrsvAlgorithm::levelset_csr,   TrsvAlgorithm::levelset_csc,  TrsvAlgorithm::elmr,
    TrsvAlgorithm::elmr_lanes,     TrsvAlgorithm::elmr_value,    TrsvAlgorithm::elmc,
    TrsvAlgorithm::syncfree_naive, TrsvAlgorithm::tile_levelset, TrsvAlgorithm::tile_syncfree,
    TrsvAlgorithm::block_syncfree, TrsvAlgorithm::team_levelset};

/// Whether an algorithm's result is bit-reproducible run to run. The CSC
/// variants and tile-syncfree accumulate with atomics in a schedule-dependent
/// order: not.
inline bool is_deterministic(TrsvAlgorithm a) {
  return a == TrsvAlgorithm::levelset_csr || a == TrsvAlgorithm::elmr || a == TrsvAlgorithm::elmr_lanes ||
         a == TrsvAlgorithm::elmr_value || a == TrsvAlgorithm::tile_levelset || a == TrsvAlgorithm::block_syncfree ||
         a == TrsvAlgorithm::team_levelset;
}

}  // namespace trellis
