#pragma once
// What a triangular solve holds after analysis: the factor, its level sets,
// and one analysis plan per family, only the chosen algorithm's built. A new
// family adds its plan here and its cases to the dispatch in
// triangular_solver_impl.hpp.
#include <optional>

#include "trellis/core/level_sets.hpp"
#include "trellis/trsv/algorithm.hpp"
#include "trellis/trsv/detail/block_plan.hpp"
#include "trellis/trsv/detail/element_plan.hpp"
#include "trellis/trsv/detail/factor.hpp"
#include "trellis/trsv/detail/levelset_plan.hpp"
#include "trellis/trsv/detail/team_plan.hpp"
#include "trellis/trsv/detail/tile_plan.hpp"

namespace trellis::detail {

/// A factor, its level sets (every family orders by them; `automatic`
/// chooses from them), and the plan of the chosen algorithm's family only.
template <class Scalar, class Device>
struct SolvePlans {
  TrsvAlgorithm algorithm = TrsvAlgorithm::automatic;
  TriangularFactor<Scalar, Device> factor;
  LevelSets<Device> levels;
  std::optional<LevelSetPlan<Device>> levelset;
  std::optional<ElementPlan<Scalar, Device>> element;
  std::optional<TilePlan<Scalar, Device>> tile;
  std::optional<BlockPlan<Scalar, Device>> block;
  std::optional<TeamPlan<Scalar, Device>> team;
};

}  // namespace trellis::detail
