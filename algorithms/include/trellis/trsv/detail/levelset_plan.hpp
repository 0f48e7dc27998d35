#pragma once
// Analysis plan of the level-set family (LEVR, LEVC): the level sets and the
// launches that run them.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/trsv/detail/factor.hpp"

namespace trellis::detail {

/// One launch of a level-set kernel: levels [first_level, last_level) with
/// vector width K. More than one level only when each fits one team (a
/// chain run by a single team with barriers between levels).
struct LevelLaunch {
  ordinal_t first_level, last_level;
  int vector_width;
  bool chained;
};

/// Host-side plan: kernels capture its Views, never the plan itself.
template <class Device>
struct LevelSetPlan {
  LevelSets<Device> levels;
  std::vector<LevelLaunch> launches;
};

/// Largest power of two <= v, at least 1.
inline int floor_pow2(int v) {
  int p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

/// Per level, K = lanes per row from the level's mean row length (2..32, as
/// in LEVR); consecutive levels small enough for one team are chained into
/// one launch.
template <class Scalar, class Device>
LevelSetPlan<Device> build_levelset_plan(const typename Device::execution_space& space,
                                         const TriangularFactor<Scalar, Device>& f, const LevelSets<Device>& levels) {
  using exec = typename Device::execution_space;
  LevelSetPlan<Device> plan;
  plan.levels = levels;
  auto rows_h = Kokkos::create_mirror_view(levels.level_rows);
  auto map_h = Kokkos::create_mirror_view(f.rows.row_map);
  Kokkos::deep_copy(space, rows_h, levels.level_rows);
  Kokkos::deep_copy(space, map_h, f.rows.row_map);
  space.fence();  // the host reads both
  for (ordinal_t l = 0; l < levels.num_levels; ++l) {
    const offset_t p0 = levels.level_ptr_host(l), p1 = levels.level_ptr_host(l + 1);
    offset_t nnz = 0;
    for (offset_t p = p0; p < p1; ++p) nnz += map_h(rows_h(p) + 1) - map_h(rows_h(p));
    const int mean = int((nnz + (p1 - p0) - 1) / (p1 - p0));
    const int K_max = max_vector_width<exec>();
    const int K = std::min(K_max, std::max(std::min(2, K_max), floor_pow2(std::max(mean, 1))));
    const bool small = (p1 - p0) <= chain_rows<exec>(K);
    if (small && !plan.launches.empty() && plan.launches.back().chained && plan.launches.back().vector_width == K) {
      plan.launches.back().last_level = l + 1;
    } else {
      plan.launches.push_back({l, l + 1, K, small});
    }
  }
  return plan;
}

}  // namespace trellis::detail
