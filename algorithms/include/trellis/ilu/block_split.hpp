#pragma once
// The L / D / U split a factorization starts from, on the device: a block
// matrix's strict lower, diagonal and strict upper blocks, keeping only the
// blocks inside each row's diagonal block of a given block partition (the
// subdomains of a domain decomposition, seed 000 section 3.2; one part for
// a global ILU, which keeps everything).
#include <Kokkos_Core.hpp>
#include <climits>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/handoff.hpp"
#include "trellis/core/view_arena.hpp"
#include "trellis/ilu/block_factors.hpp"

namespace trellis::ilu {

template <class Scalar, class Device>
struct SplitBlocks {
  Kokkos::View<Scalar*, Device> diag;  // one b x b block per row
  offset_t dropped = 0;                // blocks outside the diagonal parts
};

/// R's values into f.L_val, f.U_val and diag, for a pattern split_blocks
/// made from R or from a matrix with R's pattern (a refactorization): each
/// row's blocks are walked beside its kept L and U columns, all sorted, and
/// blocks outside them (dropped) are skipped. A pivot status given is reset
/// in the same launch (as detail::reset_pivot_status does), for the
/// factorization queued after it. values_as_flags, for a sync-free
/// factorization that hands rows over through their values: U's values go
/// to u_start (sized as f.U_val), and f.U_val and f.inv_diag get the
/// sentinel (as unpublish_factors does), whatever U's size, even none.
template <class Scalar, class Device>
void split_values(const typename Device::execution_space& space, const BsrMatrix<Scalar, Device>& R,
                  const BlockFactors<Scalar, Device>& f, Kokkos::View<Scalar*, Device> diag,
                  Kokkos::View<ordinal_t*, Device> reset_status = {}, bool values_as_flags = false,
                  Kokkos::View<Scalar*, Device> u_start = {}) {
  const ordinal_t n = R.num_block_rows;
  const bool reset = reset_status.extent(0) > 0;
  const bool unpublish = values_as_flags;
  if (unpublish && !trellis::detail::has_value_flag<Scalar>())
    throw Error("split_values: the scalar type has no sentinel for values as flags");
  if (unpublish && u_start.extent(0) != f.U_val.extent(0))
    throw Error("split_values: room for " + std::to_string(u_start.extent(0)) + " of U's " +
                std::to_string(f.U_val.extent(0)) + " starting values");
  const size_t bb = size_t(R.block_size) * R.block_size;
  const auto map = R.row_map;
  const auto ent = R.entries;
  Kokkos::View<const Scalar*, Device> values = R.values;
  const BlockFactors<Scalar, Device> fc = f;
  Kokkos::parallel_for(
      "trellis::ilu::split_values", trellis::RangePolicy<typename Device::execution_space>(space, 0, R.num_block_rows),
      KOKKOS_LAMBDA(ordinal_t i) {
        if (reset && i == 0) {
          reset_status(0) = reset_status(1) = n;
          reset_status(2) = 0;
        }
        offset_t pl = fc.L_map(i), pu = fc.U_map(i);
        const offset_t l_end = fc.L_map(i + 1), u_end = fc.U_map(i + 1);
        for (offset_t q = map(i); q < map(i + 1); ++q) {
          const ordinal_t j = ent(q);
          Scalar* to = nullptr;
          if (j == i)
            to = &diag(i * bb);
          else if (j < i && pl < l_end && fc.L_col(pl) == j)
            to = &fc.L_val(pl++ * bb);
          else if (j > i && pu < u_end && fc.U_col(pu) == j)
            to = unpublish ? &u_start(pu++ * bb) : &fc.U_val(pu++ * bb);
          if (to)
            for (size_t t = 0; t < bb; ++t) to[t] = values(q * bb + t);
        }
        if constexpr (trellis::detail::has_value_flag<Scalar>()) {
          if (unpublish) {  // the factorization's outputs, its ready flags (sync_free_factorization.hpp)
            for (size_t q = size_t(fc.U_map(i)) * bb; q < size_t(u_end) * bb; ++q)
              trellis::detail::mark_unpublished(fc.U_val.data() + q);
            for (size_t t = 0; t < bb; ++t) trellis::detail::mark_unpublished(fc.inv_diag.data() + i * bb + t);
          }
        }
      });
}

/// Fills f's L/U maps, columns and values from R's blocks whose column lies
/// in the row's part (part s owns rows [part_start(s), part_start(s+1))), and
/// allocates LD_val and inv_diag for the factorization to fill. A row without
/// a diagonal block is a StructureError naming it in the original numbering
/// (new_to_old; empty means R is not permuted). Arrays come from `arena`;
/// L_val, U_val and the diagonal blocks have `values_life` (temporary where
/// solves read copies in another order and nothing refactors; kept for
/// split_values to fill again).
template <class Scalar, class Device>
SplitBlocks<Scalar, Device> split_blocks(
    const typename Device::execution_space& space, const BsrMatrix<Scalar, Device>& R,
    Kokkos::View<const ordinal_t*, Device> part_start, BlockFactors<Scalar, Device>& f,
    const std::vector<ordinal_t>& new_to_old, ViewArena<Device>& arena,
    typename ViewArena<Device>::Lifetime values_life = ViewArena<Device>::temporary) {
  using exec = typename Device::execution_space;
  using range = trellis::RangePolicy<exec>;
  using team_policy = trellis::TeamPolicy<exec>;
  const ordinal_t n = R.num_block_rows;
  const ordinal_t num_parts = ordinal_t(part_start.extent(0)) - 1;
  f.block_size = R.block_size;
  f.num_rows = n;
  const auto map = R.row_map;
  const auto ent = R.entries;

  // The part of every row.
  using Arena = ViewArena<Device>;
  Kokkos::View<ordinal_t*, Device> owner =
      arena.template take<ordinal_t>("trellis::ilu::row_owner", n, Arena::temporary);
  Kokkos::parallel_for(
      "trellis::ilu::row_owner", team_policy(space, num_parts, Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename team_policy::member_type& m) {
        const ordinal_t s = m.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, part_start(s), part_start(s + 1)),
                             [&](ordinal_t i) { owner(i) = s; });
      });

  // Row maps of the two strict triangles (kept blocks only).
  arena.template reserve<offset_t>(Arena::kept, size_t(n) + 1, size_t(n) + 1);
  f.L_map = arena.template take<offset_t>("trellis::ilu::L_map", size_t(n) + 1);
  f.U_map = arena.template take<offset_t>("trellis::ilu::U_map", size_t(n) + 1);
  auto L_map = f.L_map;
  auto U_map = f.U_map;
  Kokkos::parallel_scan(
      "trellis::ilu::count_lower", range(space, 0, n), KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        const ordinal_t lo = part_start(owner(i));
        for (offset_t q = map(i); q < map(i + 1); ++q) sum += (ent(q) >= lo && ent(q) < i);
        if (final) L_map(i + 1) = sum;
        if (final && i == 0) L_map(0) = 0;
      });
  Kokkos::parallel_scan(
      "trellis::ilu::count_upper", range(space, 0, n), KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        const ordinal_t hi = part_start(owner(i) + 1);
        for (offset_t q = map(i); q < map(i + 1); ++q) sum += (ent(q) > i && ent(q) < hi);
        if (final) U_map(i + 1) = sum;
        if (final && i == 0) U_map(0) = 0;
      });
  offset_t nL = 0, nU = 0;
  Kokkos::deep_copy(space, nL, Kokkos::subview(L_map, n));
  Kokkos::deep_copy(space, nU, Kokkos::subview(U_map, n));
  space.fence();  // the host reads the counts

  // Columns kept; values as the factorization reads them (CSR order, b x b
  // row-major blocks), gathered in the same pass; L D and D^{-1} are written
  // in full by the factorization (every L block, every row's pivot).
  const size_t bb = size_t(R.block_size) * R.block_size;
  arena.template reserve<ordinal_t>(Arena::kept, nL, nU);
  f.L_col = arena.template take<ordinal_t>("trellis::ilu::L_col", nL);
  f.U_col = arena.template take<ordinal_t>("trellis::ilu::U_col", nU);
  arena.template reserve<Scalar>(values_life, nL * bb, nU * bb, n * bb);
  f.L_val = arena.template take<Scalar>("trellis::ilu::L_val", nL * bb, values_life);
  f.U_val = arena.template take<Scalar>("trellis::ilu::U_val", nU * bb, values_life);
  SplitBlocks<Scalar, Device> out;
  out.diag = arena.template take<Scalar>("trellis::ilu::diag", n * bb, values_life);
  arena.template reserve<Scalar>(Arena::kept, nL * bb, n * bb);
  f.LD_val = arena.template take<Scalar>("trellis::ilu::LD_val", nL * bb);
  f.inv_diag = arena.template take<Scalar>("trellis::ilu::inv_diag", n * bb);
  auto L_col = f.L_col;
  auto U_col = f.U_col;
  ordinal_t first_missing = INT_MAX;
  Kokkos::parallel_reduce(
      "trellis::ilu::split", range(space, 0, n),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & missing) {
        const ordinal_t s = owner(i), lo = part_start(s), hi = part_start(s + 1);
        offset_t pl = L_map(i), pu = U_map(i);
        bool has_diagonal = false;
        for (offset_t q = map(i); q < map(i + 1); ++q) {
          const ordinal_t j = ent(q);
          if (j < lo || j >= hi) continue;
          if (j < i)
            L_col(pl++) = j;
          else if (j > i)
            U_col(pu++) = j;
          else
            has_diagonal = true;
        }
        if (!has_diagonal && i < missing) missing = i;
      },
      Kokkos::Min<ordinal_t>(first_missing));
  if (first_missing != INT_MAX)
    throw StructureError("ILU0: block row " +
                         std::to_string(new_to_old.empty() ? first_missing : new_to_old[first_missing]) +
                         " has no diagonal block");
  split_values(space, R, f, out.diag);
  out.dropped = R.nnz_blocks() - nL - nU - n;
  return out;
}

/// split_blocks with the whole of R as one part (nothing dropped), as the
/// global ILU0 factors it; L_val, U_val and the diagonal kept (refactorable).
template <class Scalar, class Device>
SplitBlocks<Scalar, Device> split_whole(const typename Device::execution_space& space,
                                        const BsrMatrix<Scalar, Device>& R, BlockFactors<Scalar, Device>& f,
                                        ViewArena<Device>& arena) {
  Kokkos::View<ordinal_t*, Device> whole("trellis::ilu::whole", 2);
  Kokkos::deep_copy(space, Kokkos::subview(whole, 1), R.num_block_rows);
  return split_blocks(space, R, Kokkos::View<const ordinal_t*, Device>(whole), f, {}, arena, ViewArena<Device>::kept);
}

}  // namespace trellis::ilu
