#pragma once
// ILU0 / ILDU0 factors of the block-diagonal (inter-subdomain entries dropped)
// matrix (ilu::BlockFactors: A_dropped ~ L D U'), with the subdomains, the
// per-subdomain schedules their solves use and, for the solves, L and U'
// again in the order of their schedules (L_edges, U_edges: see
// LevelOrderedBlocks). DomainDecompositionIlu makes those after factoring
// and keeps L_val and U_val (the factorization's copies) for numeric().
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/dd/subdomain_schedule.hpp"
#include "trellis/ilu/block_factors.hpp"

namespace trellis::dd {

/// One strict triangle's entries in the order of its edge-centric schedule
/// (level by level, row by row of each level), struct of arrays: element q
/// of entry e's block is val(q * size + e). The edge-centric solves read it
/// with unit stride across a team and without the schedule's edge_pos
/// indirection: one dependent global load less on every level's path. The
/// vertex-centric solves read it too, row by row (row_edge_ptr).
template <class Scalar, class Device>
struct LevelOrderedBlocks {
  Kokkos::View<ordinal_t*, Device> col;
  Kokkos::View<Scalar*, Device> val;
  offset_t size = 0;
};

/// t = (col, val) (CSR arrays of b x b blocks) in the order of `s`, t's
/// arrays already sized (level_ordered_blocks).
template <class Scalar, class Device>
void fill_level_ordered_blocks(const typename Device::execution_space& space, const SubdomainSchedule<Device>& s,
                               Kokkos::View<const ordinal_t*, Device> col, Kokkos::View<const Scalar*, Device> val,
                               int b, const LevelOrderedBlocks<Scalar, Device>& t) {
  const offset_t n = t.size, bb = offset_t(b) * b;
  auto pos = s.edge_pos;
  auto out_col = t.col;
  auto out_val = t.val;
  Kokkos::parallel_for(
      "trellis::dd::level_ordered_blocks", trellis::RangePolicy<typename Device::execution_space>(space, 0, n),
      KOKKOS_LAMBDA(offset_t e) {
        const offset_t k = pos(e);
        out_col(e) = col(k);
        for (offset_t q = 0; q < bb; ++q) out_val(q * n + e) = val(k * bb + q);
      });
}

/// Arrays from `arena` for the blocks of schedule `s` in its order, to be
/// filled by fill_level_ordered_blocks (at setup and at each numeric()).
template <class Scalar, class Device>
LevelOrderedBlocks<Scalar, Device> level_ordered_blocks(const SubdomainSchedule<Device>& s, int b,
                                                        ViewArena<Device>& arena) {
  LevelOrderedBlocks<Scalar, Device> t;
  t.size = offset_t(s.edge_pos.extent(0));
  t.col = arena.template take<ordinal_t>("trellis::dd::edge_col", t.size);
  t.val = arena.template take<Scalar>("trellis::dd::edge_val", t.size * b * b);
  return t;
}

template <class Scalar, class Device>
struct SubdomainFactors : ilu::BlockFactors<Scalar, Device> {
  ordinal_t max_subdomain_rows = 0;
  Kokkos::View<ordinal_t*, Device> sub_start;  // subdomain s owns rows [sub_start(s), sub_start(s+1))
  SubdomainSchedule<Device> lower, upper;
  LevelOrderedBlocks<Scalar, Device> L_edges, U_edges;  // L_val, U_val in schedule order
  ordinal_t num_subdomains() const { return ordinal_t(sub_start.extent(0)) - 1; }
};

}  // namespace trellis::dd
