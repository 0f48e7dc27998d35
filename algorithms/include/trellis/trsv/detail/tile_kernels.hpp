#pragma once
// Tiled triangular solves (seed 004): tile-levelset (Algorithm 6) and
// tile-syncfree (Algorithm 7) on a TilePlan.
//
// A vector group works on one tile row (levelset) or tile column
// (syncfree). Off-diagonal tiles go to the lanes whole: a lane walks every
// entry of its tiles whatever their format, summing rows privately, so the
// metadata loads of different tiles overlap and no lane waits on another.
// The diagonal tile is solved from team scratch: a dia tile on all lanes
// at once, a csr tile by one lane (thread level, Algorithm 4) or by the
// lanes in the tile's in-tile levels (warp level). The paper's warp-level
// kernel spins lanes on lanes of their own warp, which deadlocks on
// lock-step wavefronts (DESIGN.md); stepping through in-tile levels
// computed by the analysis needs no spinning.
//
// tile-levelset pulls: a launch per tile level (or a single-team chain of
// small levels), where a group reads the solved part of x (`y`, by position)
// through its tile row's off-diagonal tiles, then solves its diagonal tile.
// The lanes' partial sums are added in a fixed order: deterministic.
// Compared with the paper, the off-diagonal SpMV and the diagonal solve of
// a level share one launch: a tile row's off-diagonal tiles only read tile
// columns of earlier levels.
//
// tile-syncfree pushes: one warp per tile column, taken by ticket in column
// order (dependencies point to lower columns, held by running warps); lane 0
// waits until every off-diagonal tile of its row has pushed, the group
// solves its diagonal tile, then each lane multiplies whole tiles of the
// column by the new x, adds them into the rows below with one atomic per
// row and tile, and publishes its tile: fence, counter bump. Atomic sums:
// not bit-reproducible.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/trsv/detail/element_kernels.hpp"
#include "trellis/trsv/detail/element_plan.hpp"
#include "trellis/trsv/detail/factor.hpp"
#include "trellis/trsv/detail/tile_plan.hpp"

namespace trellis::detail {

/// The Views a tile product reads.
template <class Scalar, class Device>
struct TileViews {
  Kokkos::View<const unsigned char*, Device> format, idx;
  Kokkos::View<const int*, Device> param;
  Kokkos::View<const offset_t*, Device> val_ptr, idx_ptr;
  Kokkos::View<const Scalar*, Device> values;

  explicit TileViews(const TilePlan<Scalar, Device>& p)
      : format(p.format), idx(p.idx), param(p.param), val_ptr(p.val_ptr), idx_ptr(p.idx_ptr), values(p.values) {}

  /// f(r, c, value) for every entry stored in tile t, padding skipped.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(offset_t t, const F& f) const {
    const offset_t v0 = val_ptr(t), i0 = idx_ptr(t);
    const int nval = int(val_ptr(t + 1) - v0);
    switch (static_cast<TileFormat>(format(t))) {
      case TileFormat::csr:
        for (int r = 0, k = 0; r < tile_size; ++r) {
          const int k1 = r + 1 < tile_size ? idx(i0 + r + 1) : nval;
          for (; k < k1; ++k) f(r, int(idx(i0 + tile_size + k)), values(v0 + k));
        }
        break;
      case TileFormat::coo:
        for (int k = 0; k < nval; ++k) f(idx(i0 + k) >> 4, idx(i0 + k) & 15, values(v0 + k));
        break;
      case TileFormat::ell:
      case TileFormat::hyb: {
        const int slots = tile_size * param(t);
        for (int s = 0; s < slots; ++s)
          if (idx(i0 + s) != 0xFF) f(s % tile_size, int(idx(i0 + s)), values(v0 + s));
        for (int k = slots; k < nval; ++k) f(idx(i0 + k) >> 4, idx(i0 + k) & 15, values(v0 + k));
        break;
      }
      case TileFormat::dns:
        for (int k = 0; k < tile_size * tile_size; ++k) f(k % tile_size, k / tile_size, values(v0 + k));
        break;
      case TileFormat::dns_row: {
        const unsigned mask = unsigned(param(t));
        const int rows = popcount16(mask);
        for (int r = 0, k = 0; r < tile_size; ++r)
          if (mask >> r & 1u) {
            for (int c = 0; c < tile_size; ++c) f(r, c, values(v0 + c * rows + k));
            ++k;
          }
        break;
      }
      case TileFormat::dns_col: {
        const unsigned mask = unsigned(param(t));
        for (int c = 0, k = 0; c < tile_size; ++c)
          if (mask >> c & 1u) {
            for (int r = 0; r < tile_size; ++r) f(r, c, values(v0 + k * tile_size + r));
            ++k;
          }
        break;
      }
      case TileFormat::dia: break;
    }
  }
};

/// Each lane takes whole tiles of [t0, t1) (lane j: tiles t0 + j, t0 + j + V,
/// ...) and sums their rows' products with x_at(tile, column) privately;
/// part(j * 16 + r) then holds lane j's sum for row r (V * 16 scratch
/// entries). A fixed assignment and a fixed-order sum over lanes
/// (sum_parts) keep the result bit-reproducible.
template <class Member, class TV, class Part, class XAt>
KOKKOS_INLINE_FUNCTION void tile_parts(const Member& m, const TV& tv, offset_t t0, offset_t t1, int V, const Part& part,
                                       const XAt& x_at) {
  using Scalar = typename Part::non_const_value_type;
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, V), [&](int j) {
    Scalar acc[tile_size];
    for (int r = 0; r < tile_size; ++r) acc[r] = 0;
    for (offset_t t = t0 + j; t < t1; t += V)
      tv.for_each_entry(t, [&](int r, int c, Scalar v) { acc[r] += v * x_at(t, c); });
    for (int r = 0; r < tile_size; ++r) part(j * tile_size + r) = acc[r];
  });
}

/// Row r's sum over the lanes' parts, lane 0's first.
template <class Part>
KOKKOS_INLINE_FUNCTION typename Part::non_const_value_type sum_parts(const Part& part, int V, int r) {
  typename Part::non_const_value_type s = 0;
  for (int j = 0; j < V; ++j) s += part(j * tile_size + r);
  return s;
}

/// Solves diagonal tile I in place in xs (its right-hand sides in, its
/// unknowns out; xs and inv are 16 scratch entries of the group): dia
/// tiles on all lanes at once; csr tiles by one lane serially or by the
/// lanes level by level. The tile's offsets are read once, and the lanes
/// load 1/d into inv before the serial part.
template <class Member, class Scalar, class Device, class XS, class Inv, class Levels>
KOKKOS_INLINE_FUNCTION void solve_diagonal_tile(const Member& m, const TileViews<Scalar, Device>& tv, offset_t t,
                                                ordinal_t I, ordinal_t n, bool warp_level, const XS& xs, const XS& inv,
                                                const Inv& inv_diag, const Levels& row_level) {
  const ordinal_t q0 = I * tile_size;
  const int rows = n - q0 < tile_size ? int(n - q0) : tile_size;
  const offset_t v0 = tv.val_ptr(t), i0 = tv.idx_ptr(t);
  const int nval = int(tv.val_ptr(t + 1) - v0);
  if (nval == 0) {  // dia: no entry besides the diagonal
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) { xs(r) *= inv_diag(q0 + r); });
    return;
  }
  // csr: row r's entries are [idx(i0 + r), idx(i0 + r + 1)) (the last ends at nval).
  const auto row = [&](int r) {
    const int k1 = r + 1 < tile_size ? tv.idx(i0 + r + 1) : nval;
    Scalar s = xs(r);
    for (int k = tv.idx(i0 + r); k < k1; ++k) s -= tv.values(v0 + k) * xs(tv.idx(i0 + tile_size + k));
    return s;
  };
  if (!warp_level) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) { inv(r) = inv_diag(q0 + r); });
    Kokkos::single(Kokkos::PerThread(m), [&]() {
      for (int r = 0; r < rows; ++r) xs(r) = row(r) * inv(r);
    });
  } else {
    const int levels = tv.param(t);
    for (int l = 0; l < levels; ++l)  // each step ends with the lanes synchronised
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
        if (row_level(q0 + r) == l) xs(r) = row(r) * inv_diag(q0 + r);
      });
  }
}

/// b(row) - Gauss-Seidel's x_k part (none for plain solves), serially.
template <class Rows, class BView, class OldView>
KOKKOS_INLINE_FUNCTION typename BView::non_const_value_type rhs_of(const Rows& other, ordinal_t i, const BView& b,
                                                                   const OldView& x_old) {
  typename BView::non_const_value_type s = b(i);
  if (other.row_map.extent(0) == 0) return s;
  for (offset_t k = other.row_map(i); k < other.row_map(i + 1); ++k) s -= other.values(k) * x_old(other.col_ind(k));
  return s;
}

/// Scratch entries of one vector group of V lanes: its tile's 16 unknowns,
/// then the lanes' partial row sums (tile_parts).
KOKKOS_INLINE_FUNCTION size_t group_scratch_entries(int V) { return size_t(tile_size) * (1 + V); }

/// The calling vector group's part of the team's scratch (taken once per
/// kernel: each team_scratch allocation advances the team's pointer).
template <class Scratch, class Member>
KOKKOS_INLINE_FUNCTION Scratch group_scratch(const Member& m, int V) {
  const size_t per_group = group_scratch_entries(V);
  const Scratch all(m.team_scratch(0), size_t(m.team_size()) * per_group);
  return Scratch(all.data() + size_t(m.team_rank()) * per_group, per_group);
}

template <class Scalar, class Device>
using tile_scratch = Kokkos::View<Scalar*, typename Device::execution_space::scratch_memory_space,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// tile-levelset. The plan's y holds x by position (16 * tile_rows
/// entries, the padding zero), so that off-diagonal tiles read the solved
/// part contiguously.
template <class Scalar, class Device>
void tile_levelset_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& f,
                         const TilePlan<Scalar, Device>& p, Kokkos::View<const Scalar*, Device> b,
                         Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  using exec = typename Device::execution_space;
  using team_policy = trellis::TeamPolicy<exec>;
  using member_type = typename team_policy::member_type;
  using scratch = tile_scratch<Scalar, Device>;
  const TileViews<Scalar, Device> tv(p);
  const auto other = f.other;
  const auto order = p.order;
  const auto inv_diag = p.inv_diag;
  const auto row_level = p.row_level;
  const auto tile_row_ptr = p.tile_row_ptr;
  const auto tile_col = p.tile_col;
  const auto level_rows = p.levels.level_rows;
  const auto level_ptr = p.levels.level_ptr;
  const auto y = p.y;
  const ordinal_t n = p.n;
  const offset_t nod = p.offdiag;
  const bool warp = p.warp_level;
  // One tile row: pull the off-diagonal tiles (lanes own tiles), solve the
  // diagonal tile, publish. g: the group's scratch (16 unknowns, V parts).
  const auto tile_row = KOKKOS_LAMBDA(const member_type& m, const scratch& g, int V, ordinal_t I) {
    const ordinal_t q0 = I * tile_size;
    const int rows = n - q0 < tile_size ? int(n - q0) : tile_size;
    const scratch xs(g.data(), tile_size), part(g.data() + tile_size, size_t(V) * tile_size);
    tile_parts(m, tv, tile_row_ptr(I), tile_row_ptr(I + 1), V, part,
               [&](offset_t t, int c) { return y(tile_col(t) * tile_size + c); });
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows),
                         [&](int r) { xs(r) = rhs_of(other, order(q0 + r), b, x_old) - sum_parts(part, V, r); });
    solve_diagonal_tile(m, tv, nod + I, I, n, warp, xs, scratch(part.data(), tile_size), inv_diag, row_level);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
      y(q0 + r) = xs(r);
      x(order(q0 + r)) = xs(r);
    });
  };
  for (const LevelLaunch& launch : p.launches) {
    const int V = launch.vector_width;
    if (!launch.chained) {
      const int team = tile_groups_per_team<exec>();
      const size_t bytes = scratch::shmem_size(size_t(team) * group_scratch_entries(V));
      const offset_t p0 = p.levels.level_ptr_host(launch.first_level);
      const offset_t p1 = p.levels.level_ptr_host(launch.first_level + 1);
      const int league = int((p1 - p0 + team - 1) / team);
      Kokkos::parallel_for(
          "trellis::trsv::tile_levelset",
          team_policy(space, league, team, V).set_scratch_size(0, Kokkos::PerTeam(bytes)),
          KOKKOS_LAMBDA(const member_type& m) {
            const scratch g = group_scratch<scratch>(m, V);
            const offset_t q = p0 + offset_t(m.league_rank()) * m.team_size() + m.team_rank();
            if (q < p1) tile_row(m, g, V, level_rows(q));
          });
    } else {
      const ordinal_t l0 = launch.first_level, l1 = launch.last_level;
      const auto chain = KOKKOS_LAMBDA(const member_type& m) {
        const scratch g = group_scratch<scratch>(m, V);
        for (ordinal_t l = l0; l < l1; ++l) {
          // Each vector group takes whole tile rows of the level.
          for (offset_t q = level_ptr(l) + m.team_rank(); q < level_ptr(l + 1); q += m.team_size())
            tile_row(m, g, V, level_rows(q));
          m.team_barrier();
        }
      };
      // As many groups as a chained level may have rows, if the registers allow.
      const size_t bytes = scratch::shmem_size(size_t(tile_chain_rows<exec>()) * group_scratch_entries(V));
      auto policy = team_policy(space, 1, 1, V).set_scratch_size(0, Kokkos::PerTeam(bytes));
      const int team =
          std::max(1, std::min(tile_chain_rows<exec>(), policy.team_size_max(chain, Kokkos::ParallelForTag())));
      Kokkos::parallel_for("trellis::trsv::tile_levelset_chain",
                           team_policy(space, 1, team, V).set_scratch_size(0, Kokkos::PerTeam(bytes)), chain);
    }
  }
}

/// tile-syncfree.
template <class Scalar, class Device>
void tile_syncfree_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& f,
                         TilePlan<Scalar, Device>& p, Kokkos::View<const Scalar*, Device> b,
                         Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  using exec = typename Device::execution_space;
  using member_type = typename trellis::TeamPolicy<exec>::member_type;
  using scratch = tile_scratch<Scalar, Device>;
  const int epoch = advance_epoch(space, p.epoch, p.max_indeg, p.counters);
  const TileViews<Scalar, Device> tv(p);
  const auto other = f.other;
  const auto order = p.order;
  const auto inv_diag = p.inv_diag;
  const auto row_level = p.row_level;
  const auto tile_row_ptr = p.tile_row_ptr;
  const auto tile_row = p.tile_row;
  const auto tile_col_ptr = p.tile_col_ptr;
  const auto tile_by_col = p.tile_by_col;
  const auto counters = p.counters;
  const auto left_sum = p.left_sum;
  const ordinal_t n = p.n;
  const offset_t nod = p.offdiag;
  const bool warp = p.warp_level;
  // A whole warp per tile column: lane 0 spins, never a lane of a warp
  // whose other lanes hold the work it waits on.
  const int V = max_vector_width<exec>();
  const size_t bytes = scratch::shmem_size(size_t(rows_per_team<exec>(V)) * 2 * tile_size);
  for_each_ticket(
      space, p.ticket, p.tile_rows, "trellis::trsv::tile_syncfree", V,
      KOKKOS_LAMBDA(const member_type& m, int J) {
        const scratch all(m.team_scratch(0), size_t(m.team_size()) * 2 * tile_size);
        const scratch xs(all.data() + size_t(m.team_rank()) * 2 * tile_size, tile_size);
        const scratch inv(xs.data() + tile_size, tile_size);
        const ordinal_t q0 = J * tile_size;
        const int rows = n - q0 < tile_size ? int(n - q0) : tile_size;
        Kokkos::single(Kokkos::PerThread(m), [&]() {
          const int target = epoch * int(tile_row_ptr(J + 1) - tile_row_ptr(J));
          while (Kokkos::volatile_load(&counters(J)) != target) {
          }
          Kokkos::memory_fence();  // acquire: left_sum reads follow the counter
        });
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
          xs(r) = rhs_of(other, order(q0 + r), b, x_old) - Kokkos::volatile_load(&left_sum(q0 + r));
          left_sum(q0 + r) = Scalar(0);  // read once per solve: zero for the next
        });
        solve_diagonal_tile(m, tv, nod + J, J, n, warp, xs, inv, inv_diag, row_level);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) { x(order(q0 + r)) = xs(r); });
        // Lanes own the column's tiles: each pushes its tile's rows, then
        // publishes it (its own sums, fence, count).
        const offset_t k0 = tile_col_ptr(J), k1 = tile_col_ptr(J + 1);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, k1 - k0), [&](offset_t k) {
          const offset_t t = tile_by_col(k0 + k);
          const ordinal_t I = tile_row(t);
          Scalar acc[tile_size];
          for (int r = 0; r < tile_size; ++r) acc[r] = 0;
          tv.for_each_entry(t, [&](int r, int c, Scalar v) { acc[r] += v * xs(c); });
          for (int r = 0; r < tile_size; ++r)
            if (acc[r] != Scalar(0)) Kokkos::atomic_add(&left_sum(I * tile_size + r), acc[r]);
          Kokkos::memory_fence();  // release: the sums before the count
          compat::atomic_increment(&counters(I));
        });
      },
      bytes);
}

}  // namespace trellis::detail
