#pragma once
// The triangular-solve algorithms (seed 002, Li & Zhang) and their names.
#include <string>

namespace trellis {

enum class TrsvAlgorithm {
  levelset_csr,    // LEVR: one kernel per level, K lanes per row, small levels chained
  levelset_csc,    // LEVC: as LEVR on the CSC form, column updates with atomics
  elmr,            // ELMR: element scheduling on CSR, ready flags, level-ordered dispatch
  elmr_value,      // ELMR with x as its own ready flag (sentinel value, no fences)
  elmc,            // ELMC: element scheduling on CSC, dependency counters, level-ordered
  syncfree_naive,  // GSF: CSC counters, unknown i on warp i, whole warp spinning (baseline)
  automatic,       // chosen from the analysis; the solver reports which
};

/// "levelset-csr", "levelset-csc", "elmr", "elmr-value", "elmc", "syncfree-naive", "auto".
const char* to_string(TrsvAlgorithm a);
/// Inverse of to_string; throws InputError listing the accepted names.
TrsvAlgorithm parse_trsv_algorithm(const std::string& name);
/// Every concrete algorithm (not `automatic`), for tests and benchmarks.
inline constexpr TrsvAlgorithm all_trsv_algorithms[] = {
    TrsvAlgorithm::levelset_csr, TrsvAlgorithm::levelset_csc, TrsvAlgorithm::elmr,
    TrsvAlgorithm::elmr_value,   TrsvAlgorithm::elmc,         TrsvAlgorithm::syncfree_naive};

/// Whether an algorithm's result is bit-reproducible run to run. The CSC
/// variants accumulate with atomics in a schedule-dependent order: not.
inline bool is_deterministic(TrsvAlgorithm a) {
  return a == TrsvAlgorithm::levelset_csr || a == TrsvAlgorithm::elmr ||
         a == TrsvAlgorithm::elmr_value;
}

}  // namespace trellis
