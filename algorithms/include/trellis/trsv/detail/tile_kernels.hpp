#pragma once
// Tiled triangular solves (seed 004): tile-levelset (Algorithm 6) and
// tile-syncfree (Algorithm 7) on a TilePlan.
//
// A vector group of 16 lanes owns a tile row: lane r accumulates row r of
// every tile it reads, whatever the tile's format, so no lane waits on
// another and no atomics are needed inside a tile. The diagonal tile is then
// solved from team scratch by one lane (thread level, Algorithm 4) or by the
// 16 lanes in the tile's in-tile levels (warp level). The paper's warp-level
// kernel spins lanes on lanes of their own warp, which deadlocks on lock-step
// wavefronts (DESIGN.md); stepping through in-tile levels computed by the
// analysis needs no spinning and gives the same parallelism.
//
// tile-levelset pulls: a launch per tile level (or a single-team chain of
// small levels), where a group reads the solved part of x (`y`, by position)
// through its tile row's off-diagonal tiles, then solves its diagonal tile.
// It is deterministic. Compared with the paper, the off-diagonal SpMV and the
// diagonal solve of a level share one launch: a tile row's off-diagonal
// tiles only read tile columns of earlier levels.
//
// tile-syncfree pushes: one warp per tile column, taken by ticket in column
// order (dependencies point to lower columns, held by running warps); it
// waits until every off-diagonal tile of its row has pushed, solves its
// diagonal tile, then multiplies its column's tiles by the new x and adds
// them into the rows below with one atomic per row and tile, publishing
// with a fence and a counter bump per tile. Atomic sums: not bit-reproducible.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
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

  /// Row r of tile t times the tile's 16 column values x_at(0..15).
  template <class XAt>
  KOKKOS_INLINE_FUNCTION Scalar row_product(offset_t t, int r, const XAt& x_at) const {
    const offset_t v0 = val_ptr(t), i0 = idx_ptr(t);
    const int nval = int(val_ptr(t + 1) - v0);
    Scalar sum = 0;
    switch (static_cast<TileFormat>(format(t))) {
      case TileFormat::csr: {
        const int k1 = r + 1 < tile_size ? idx(i0 + r + 1) : nval;
        for (int k = idx(i0 + r); k < k1; ++k) sum += values(v0 + k) * x_at(idx(i0 + tile_size + k));
        break;
      }
      case TileFormat::coo:
        for (int k = 0; k < nval; ++k) {
          const int rc = idx(i0 + k);
          if ((rc >> 4) == r) sum += values(v0 + k) * x_at(rc & 15);
        }
        break;
      case TileFormat::ell:
      case TileFormat::hyb: {
        const int slots = tile_size * param(t);
        for (int s = r; s < slots; s += tile_size) {
          const int c = idx(i0 + s);
          if (c != 0xFF) sum += values(v0 + s) * x_at(c);
        }
        for (int k = slots; k < nval; ++k) {  // hyb's COO part
          const int rc = idx(i0 + k);
          if ((rc >> 4) == r) sum += values(v0 + k) * x_at(rc & 15);
        }
        break;
      }
      case TileFormat::dns:
        for (int c = 0; c < tile_size; ++c) sum += values(v0 + c * tile_size + r) * x_at(c);
        break;
      case TileFormat::dns_row: {
        const unsigned mask = unsigned(param(t));
        if (mask >> r & 1u) {
          const int rows = popcount16(mask), k = popcount16(mask & ((1u << r) - 1));
          for (int c = 0; c < tile_size; ++c) sum += values(v0 + c * rows + k) * x_at(c);
        }
        break;
      }
      case TileFormat::dns_col: {
        const unsigned mask = unsigned(param(t));
        for (int c = 0, k = 0; c < tile_size; ++c)
          if (mask >> c & 1u) sum += values(v0 + (k++) * tile_size + r) * x_at(c);
        break;
      }
      case TileFormat::dia: break;
    }
    return sum;
  }
};

/// Solves diagonal tile I in place in xs (its right-hand sides in, its
/// unknowns out; xs is the group's 16 scratch entries), one lane serially or
/// the lanes level by level.
template <class Member, class Scalar, class Device, class XS, class Inv, class Levels>
KOKKOS_INLINE_FUNCTION void solve_diagonal_tile(const Member& m, const TileViews<Scalar, Device>& tv, offset_t t,
                                                ordinal_t I, ordinal_t n, bool warp_level, const XS& xs,
                                                const Inv& inv_diag, const Levels& row_level) {
  const ordinal_t q0 = I * tile_size;
  const int rows = n - q0 < tile_size ? int(n - q0) : tile_size;
  const auto x_at = [&](int c) { return xs(c); };
  if (static_cast<TileFormat>(tv.format(t)) == TileFormat::dia || !warp_level) {
    Kokkos::single(Kokkos::PerThread(m), [&]() {
      for (int r = 0; r < rows; ++r) xs(r) = (xs(r) - tv.row_product(t, r, x_at)) * inv_diag(q0 + r);
    });
  } else {
    const int levels = tv.param(t);
    for (int l = 0; l < levels; ++l)  // each step ends with the lanes synchronised
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
        if (row_level(q0 + r) == l) xs(r) = (xs(r) - tv.row_product(t, r, x_at)) * inv_diag(q0 + r);
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

/// The calling vector group's 16 entries of the team's scratch (taken once
/// per kernel: each team_scratch allocation advances the team's pointer).
template <class Scratch, class Member>
KOKKOS_INLINE_FUNCTION Scratch group_scratch(const Member& m) {
  const Scratch all(m.team_scratch(0), size_t(m.team_size()) * tile_size);
  return Scratch(all.data() + size_t(m.team_rank()) * tile_size, tile_size);
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
  using team_policy = Kokkos::TeamPolicy<exec>;
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
  // One tile row: pull the off-diagonal tiles, solve the diagonal tile,
  // publish. xs: the group's 16 scratch entries.
  const auto tile_row = KOKKOS_LAMBDA(const member_type& m, const scratch& xs, ordinal_t I) {
    const ordinal_t q0 = I * tile_size;
    const int rows = n - q0 < tile_size ? int(n - q0) : tile_size;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
      Scalar s = rhs_of(other, order(q0 + r), b, x_old);
      for (offset_t t = tile_row_ptr(I); t < tile_row_ptr(I + 1); ++t) {
        const ordinal_t c0 = tile_col(t) * tile_size;
        s -= tv.row_product(t, r, [&](int c) { return y(c0 + c); });
      }
      xs(r) = s;
    });
    solve_diagonal_tile(m, tv, nod + I, I, n, warp, xs, inv_diag, row_level);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
      y(q0 + r) = xs(r);
      x(order(q0 + r)) = xs(r);
    });
  };
  for (const LevelLaunch& launch : p.launches) {
    const int V = launch.vector_width;
    if (!launch.chained) {
      const int team = rows_per_team<exec>(V);
      const size_t bytes = scratch::shmem_size(size_t(team) * tile_size);
      const offset_t p0 = p.levels.level_ptr_host(launch.first_level);
      const offset_t p1 = p.levels.level_ptr_host(launch.first_level + 1);
      const int league = int((p1 - p0 + team - 1) / team);
      Kokkos::parallel_for(
          "trellis::trsv::tile_levelset",
          team_policy(space, league, team, V).set_scratch_size(0, Kokkos::PerTeam(bytes)),
          KOKKOS_LAMBDA(const member_type& m) {
            const scratch xs = group_scratch<scratch>(m);
            const offset_t q = p0 + offset_t(m.league_rank()) * m.team_size() + m.team_rank();
            if (q < p1) tile_row(m, xs, level_rows(q));
          });
    } else {
      const ordinal_t l0 = launch.first_level, l1 = launch.last_level;
      const auto chain = KOKKOS_LAMBDA(const member_type& m) {
        const scratch xs = group_scratch<scratch>(m);
        for (ordinal_t l = l0; l < l1; ++l) {
          // Each vector group takes whole tile rows of the level.
          for (offset_t q = level_ptr(l) + m.team_rank(); q < level_ptr(l + 1); q += m.team_size())
            tile_row(m, xs, level_rows(q));
          m.team_barrier();
        }
      };
      // As many groups as a chained level may have rows, if the registers allow.
      const size_t bytes = scratch::shmem_size(size_t(tile_chain_rows<exec>()) * tile_size);
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
  using member_type = typename Kokkos::TeamPolicy<exec>::member_type;
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
  const size_t bytes = scratch::shmem_size(size_t(rows_per_team<exec>(V)) * tile_size);
  for_each_ticket(
      space, p.ticket, p.tile_rows, "trellis::trsv::tile_syncfree", V,
      KOKKOS_LAMBDA(const member_type& m, int J) {
        const scratch xs = group_scratch<scratch>(m);
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
        solve_diagonal_tile(m, tv, nod + J, J, n, warp, xs, inv_diag, row_level);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) { x(order(q0 + r)) = xs(r); });
        const auto x_at = [&](int c) { return xs(c); };
        for (offset_t k = tile_col_ptr(J); k < tile_col_ptr(J + 1); ++k) {
          const offset_t t = tile_by_col(k);
          const ordinal_t I = tile_row(t);
          const int rows_i = n - I * tile_size < tile_size ? int(n - I * tile_size) : tile_size;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows_i), [&](int r) {
            const Scalar s = tv.row_product(t, r, x_at);
            if (s != Scalar(0)) Kokkos::atomic_add(&left_sum(I * tile_size + r), s);
          });
          Kokkos::single(Kokkos::PerThread(m), [&]() {
            Kokkos::memory_fence();  // release: the lanes' sums before the count
            Kokkos::atomic_increment(&counters(I));
          });
        }
      },
      bytes);
}

}  // namespace trellis::detail
