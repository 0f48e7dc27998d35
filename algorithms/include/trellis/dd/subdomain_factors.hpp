#pragma once
// ILU0 / ILDU0 factors of the block-diagonal (inter-subdomain entries dropped)
// matrix, and the per-subdomain schedules their solves use.
//
//   A_dropped ~ L D U'   L unit lower, D block diagonal, U' = D^{-1} U unit upper
//
// Stored per block row, b x b row-major blocks (b = 1 for CSR):
//   L_val   the strict lower blocks of L                 (factorization only)
//   LD_val  the strict lower blocks of L D (ILU0's lower factor with its diagonal;
//           the non-unit lower solves divide by D row by row)
//   U_val   the strict upper blocks of U'                (factorization only)
//   inv_diag  D^{-1}, one block per row (Algorithm 4.4's inv_D)
// and, for the solves, L and U' again in the order of their schedules
// (L_edges, U_edges: see LevelOrderedBlocks). DomainDecompositionIlu makes
// those after factoring and releases L_val and U_val.
#include <Kokkos_Core.hpp>

#include "trellis/dd/subdomain_schedule.hpp"

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

/// The copy of (col, val) (CSR arrays of b x b blocks) in the order of `s`,
/// in arrays from `arena`.
template <class Scalar, class Device>
LevelOrderedBlocks<Scalar, Device> level_ordered_blocks(const SubdomainSchedule<Device>& s,
                                                        Kokkos::View<const ordinal_t*, Device> col,
                                                        Kokkos::View<const Scalar*, Device> val, int b,
                                                        ViewArena<Device>& arena) {
  LevelOrderedBlocks<Scalar, Device> t;
  t.size = offset_t(s.edge_pos.extent(0));
  const offset_t n = t.size, bb = offset_t(b) * b;
  t.col = arena.template take<ordinal_t>("dd_edge_col", n);
  t.val = arena.template take<Scalar>("dd_edge_val", n * bb);
  auto pos = s.edge_pos;
  auto out_col = t.col;
  auto out_val = t.val;
  Kokkos::parallel_for(
      "trellis::dd::level_ordered_blocks", Kokkos::RangePolicy<typename Device::execution_space>(0, n),
      KOKKOS_LAMBDA(offset_t e) {
        const offset_t k = pos(e);
        out_col(e) = col(k);
        for (offset_t q = 0; q < bb; ++q) out_val(q * n + e) = val(k * bb + q);
      });
  return t;
}

template <class Scalar, class Device>
struct SubdomainFactors {
  int block_size = 1;
  ordinal_t num_rows = 0;  // block rows
  ordinal_t max_subdomain_rows = 0;
  Kokkos::View<ordinal_t*, Device> sub_start;  // subdomain s owns rows [sub_start(s), sub_start(s+1))
  Kokkos::View<offset_t*, Device> L_map, U_map;
  Kokkos::View<ordinal_t*, Device> L_col, U_col;
  Kokkos::View<Scalar*, Device> L_val, LD_val, U_val, inv_diag;
  SubdomainSchedule<Device> lower, upper;
  LevelOrderedBlocks<Scalar, Device> L_edges, U_edges;  // L_val, U_val in schedule order
  ordinal_t num_subdomains() const { return ordinal_t(sub_start.extent(0)) - 1; }
};

}  // namespace trellis::dd
