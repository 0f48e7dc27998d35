#pragma once
// Tiled triangular solves (seed 004): tile-levelset (Algorithm 6) and
// tile-syncfree (Algorithm 7) on a TilePlan.
//
// A vector group works on one tile row (levelset) or tile column
// (syncfree). Off-diagonal tiles are multiplied in one of two mappings
// (TileSpmv): the paper's (TileSpMV's), a tile's rows on 16 lanes with a
// loop per format; or whole tiles on lanes, a lane walking every entry of
// its tiles whatever their format, so that the metadata loads of different
// tiles overlap and no lane waits on another.
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
// The partial sums are added in a fixed order: deterministic. By default
// the off-diagonal SpMV and the diagonal solve of a level share one launch
// (a tile row's off-diagonal tiles only read tile columns of earlier
// levels); two_phase runs them as the paper's Algorithm 6 does, a launch for
// the SpMV (chunks of at most chunk_tiles tiles a group, their row sums
// kept apart) and one for the diagonal tiles.
//
// tile-syncfree pushes: one warp per tile column, taken by ticket in column
// order (dependencies point to lower columns, held by running warps); lane 0
// waits until every off-diagonal tile of its row has pushed, the group
// solves its diagonal tile, then the lanes multiply the column's tiles by
// the new x (whole tiles a lane, or a tile a 16-lane slot), add them into
// the rows below with one atomic per row and tile, and publish each tile:
// fence, counter bump. Atomic sums: not bit-reproducible.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/core/handoff.hpp"
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
  Kokkos::View<const float*, Device> values32;  // single_values: the values in float
  bool single = false;

  explicit TileViews(const TilePlan<Scalar, Device>& p)
      : format(p.format),
        idx(p.idx),
        param(p.param),
        val_ptr(p.val_ptr),
        idx_ptr(p.idx_ptr),
        values(p.values),
        values32(p.values32),
        single(p.single_values) {}

  /// Stored value k, in Scalar (products are summed in Scalar either way).
  KOKKOS_INLINE_FUNCTION Scalar value(offset_t k) const { return single ? Scalar(values32(k)) : values(k); }

  /// f(r, c, value) for every entry stored in tile t, padding skipped.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_entry(offset_t t, const F& f) const {
    const offset_t v0 = val_ptr(t), i0 = idx_ptr(t);
    const int nval = int(val_ptr(t + 1) - v0);
    switch (static_cast<TileFormat>(format(t))) {
      case TileFormat::csr:
        for (int r = 0, k = 0; r < tile_size; ++r) {
          const int k1 = r + 1 < tile_size ? idx(i0 + r + 1) : nval;
          for (; k < k1; ++k) f(r, int(idx(i0 + tile_size + k)), value(v0 + k));
        }
        break;
      case TileFormat::coo:
        for (int k = 0; k < nval; ++k) f(idx(i0 + k) >> 4, idx(i0 + k) & 15, value(v0 + k));
        break;
      case TileFormat::ell:
      case TileFormat::hyb: {
        const int slots = tile_size * param(t);
        for (int s = 0; s < slots; ++s)
          if (idx(i0 + s) != 0xFF) f(s % tile_size, int(idx(i0 + s)), value(v0 + s));
        for (int k = slots; k < nval; ++k) f(idx(i0 + k) >> 4, idx(i0 + k) & 15, value(v0 + k));
        break;
      }
      case TileFormat::dns:
        for (int k = 0; k < tile_size * tile_size; ++k) f(k % tile_size, k / tile_size, value(v0 + k));
        break;
      case TileFormat::dns_row: {
        const unsigned mask = unsigned(param(t));
        const int rows = popcount16(mask);
        for (int r = 0, k = 0; r < tile_size; ++r)
          if (mask >> r & 1u) {
            for (int c = 0; c < tile_size; ++c) f(r, c, value(v0 + c * rows + k));
            ++k;
          }
        break;
      }
      case TileFormat::dns_col: {
        const unsigned mask = unsigned(param(t));
        for (int c = 0, k = 0; c < tile_size; ++c)
          if (mask >> c & 1u) {
            for (int r = 0; r < tile_size; ++r) f(r, c, value(v0 + k * tile_size + r));
            ++k;
          }
        break;
      }
      case TileFormat::dia: break;
    }
  }

  /// Row r of tile t times x_at(column), read the way TileSpMV's kernel for
  /// the tile's format reads it with a lane per row: csr its row's range,
  /// ell/hyb and the dense formats a column-major slot per step (adjacent
  /// lanes read adjacent slots); coo and hyb's tail, at most a few entries,
  /// read by every lane, each keeping its row's.
  template <class XAt>
  KOKKOS_INLINE_FUNCTION Scalar row_product(offset_t t, int r, const XAt& x_at) const {
    const offset_t v0 = val_ptr(t), i0 = idx_ptr(t);
    const int nval = int(val_ptr(t + 1) - v0);
    Scalar s = 0;
    const auto list_part = [&](int k0) {
      for (int k = k0; k < nval; ++k)
        if (idx(i0 + k) >> 4 == r) s += value(v0 + k) * x_at(idx(i0 + k) & 15);
    };
    switch (static_cast<TileFormat>(format(t))) {
      case TileFormat::csr: {
        const int k1 = r + 1 < tile_size ? idx(i0 + r + 1) : nval;
        for (int k = idx(i0 + r); k < k1; ++k) s += value(v0 + k) * x_at(idx(i0 + tile_size + k));
        break;
      }
      case TileFormat::coo: list_part(0); break;
      case TileFormat::ell:
      case TileFormat::hyb: {
        const int w = param(t);
        for (int k = 0; k < w; ++k) {
          const unsigned char c = idx(i0 + k * tile_size + r);
          if (c != 0xFF) s += value(v0 + k * tile_size + r) * x_at(c);
        }
        list_part(tile_size * w);
        break;
      }
      case TileFormat::dns:
        for (int c = 0; c < tile_size; ++c) s += value(v0 + c * tile_size + r) * x_at(c);
        break;
      case TileFormat::dns_row: {
        const unsigned mask = unsigned(param(t));
        if (mask >> r & 1u) {
          const int rows = popcount16(mask), k = popcount16(mask & ((1u << r) - 1));
          for (int c = 0; c < tile_size; ++c) s += value(v0 + c * rows + k) * x_at(c);
        }
        break;
      }
      case TileFormat::dns_col: {
        const unsigned mask = unsigned(param(t));
        for (int c = 0, k = 0; c < tile_size; ++c)
          if (mask >> c & 1u) s += value(v0 + k++ * tile_size + r) * x_at(c);
        break;
      }
      case TileFormat::dia: break;
    }
    return s;
  }
};

/// Partial row sums a vector group of V lanes keeps in a mapping: a part
/// per lane when lanes take whole tiles; a part per 16-lane slot when they
/// take rows (one with fewer than 16 lanes).
KOKKOS_INLINE_FUNCTION int tile_part_count(TileSpmv spmv, int V) {
  return spmv == TileSpmv::tiles ? V : (V >= tile_size ? V / tile_size : 1);
}

/// The products of tiles [t0, t1) with x_at(tile, column) as partial row
/// sums: part(j * 16 + r) holds part j's sum for row r, for the
/// tile_part_count(spmv, V) parts.
///   tiles: lane j sums whole tiles t0 + j, t0 + j + V, ... privately.
///   rows:  slot s of 16 lanes takes tiles t0 + s, t0 + s + slots, ...,
///          lane s * 16 + r row r of each (fewer than 16 lanes: lane j
///          rows j, j + V, ... of every tile).
/// A fixed assignment and a fixed-order sum over parts (sum_parts) keep
/// the result bit-reproducible.
template <class Member, class TV, class Part, class XAt>
KOKKOS_INLINE_FUNCTION void tile_parts(const Member& m, const TV& tv, TileSpmv spmv, offset_t t0, offset_t t1, int V,
                                       const Part& part, const XAt& x_at) {
  using Scalar = typename Part::non_const_value_type;
  if (spmv == TileSpmv::tiles) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, V), [&](int j) {
      Scalar acc[tile_size];
      for (int r = 0; r < tile_size; ++r) acc[r] = 0;
      for (offset_t t = t0 + j; t < t1; t += V)
        tv.for_each_entry(t, [&](int r, int c, Scalar v) { acc[r] += v * x_at(t, c); });
      for (int r = 0; r < tile_size; ++r) part(j * tile_size + r) = acc[r];
    });
    return;
  }
  const int slots = tile_part_count(spmv, V), row_step = V < tile_size ? V : tile_size;
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, V), [&](int j) {
    const int s = j / row_step;
    for (int r = j % row_step; r < tile_size; r += row_step) {
      Scalar acc = 0;
      for (offset_t t = t0 + s; t < t1; t += slots) acc += tv.row_product(t, r, [&](int c) { return x_at(t, c); });
      part(s * tile_size + r) = acc;
    }
  });
}

/// Row r's sum over the parts, part 0's first.
template <class Part>
KOKKOS_INLINE_FUNCTION typename Part::non_const_value_type sum_parts(const Part& part, int parts, int r) {
  typename Part::non_const_value_type s = 0;
  for (int j = 0; j < parts; ++j) s += part(j * tile_size + r);
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
    for (int k = tv.idx(i0 + r); k < k1; ++k) s -= tv.value(v0 + k) * xs(tv.idx(i0 + tile_size + k));
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

/// Scratch entries of one vector group: its tile's 16 unknowns, then the
/// partial row sums of tile_parts.
KOKKOS_INLINE_FUNCTION size_t group_scratch_entries(int parts) { return size_t(tile_size) * (1 + parts); }

/// The calling vector group's part of the team's scratch (taken once per
/// kernel: each team_scratch allocation advances the team's pointer).
template <class Scratch, class Member>
KOKKOS_INLINE_FUNCTION Scratch group_scratch(const Member& m, int parts) {
  const size_t per_group = group_scratch_entries(parts);
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
  const auto chunk_ptr = p.chunk_ptr;
  const auto chunk_pos = p.chunk_pos;
  const auto chunk_sum = p.chunk_sum;
  const auto y = p.y;
  const ordinal_t n = p.n;
  const offset_t nod = p.offdiag;
  const bool warp = p.warp_level;
  const bool two_phase = p.two_phase;
  const TileSpmv spmv = p.spmv;
  const int chunk_tiles = p.chunk_tiles;
  // Two phases, the first: chunk c's row sums into chunk_sum. g: the
  // group's scratch (16 unknowns, then the parts).
  const auto spmv_chunk = KOKKOS_LAMBDA(const member_type& m, const scratch& g, int V, offset_t c) {
    const ordinal_t q = chunk_pos(c), I = level_rows(q);
    const offset_t t0 = tile_row_ptr(I) + (c - chunk_ptr(q)) * chunk_tiles;
    const offset_t t1 = t0 + chunk_tiles < tile_row_ptr(I + 1) ? t0 + chunk_tiles : tile_row_ptr(I + 1);
    const int parts = tile_part_count(spmv, V);
    const scratch part(g.data() + tile_size, size_t(parts) * tile_size);
    tile_parts(m, tv, spmv, t0, t1, V, part, [&](offset_t t, int col) { return y(tile_col(t) * tile_size + col); });
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, tile_size),
                         [&](int r) { chunk_sum(c * tile_size + r) = sum_parts(part, parts, r); });
  };
  // The tile row at level position q: the off-diagonal tiles (its chunks'
  // sums after a first phase, else pulled here), the diagonal tile, publish.
  const auto tile_row = KOKKOS_LAMBDA(const member_type& m, const scratch& g, int V, offset_t q) {
    const ordinal_t I = level_rows(q);
    const ordinal_t q0 = I * tile_size;
    const int rows = n - q0 < tile_size ? int(n - q0) : tile_size;
    const int parts = two_phase ? 0 : tile_part_count(spmv, V);
    const scratch xs(g.data(), tile_size), part(g.data() + tile_size, size_t(parts) * tile_size);
    if (!two_phase)
      tile_parts(m, tv, spmv, tile_row_ptr(I), tile_row_ptr(I + 1), V, part,
                 [&](offset_t t, int c) { return y(tile_col(t) * tile_size + c); });
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
      Scalar sum = 0;
      if (two_phase)
        for (offset_t c = chunk_ptr(q); c < chunk_ptr(q + 1); ++c) sum += chunk_sum(c * tile_size + r);
      else
        sum = sum_parts(part, parts, r);
      xs(r) = rhs_of(other, order(q0 + r), b, x_old) - sum;
    });
    solve_diagonal_tile(m, tv, nod + I, I, n, warp, xs, scratch(g.data() + tile_size, tile_size), inv_diag, row_level);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, rows), [&](int r) {
      y(q0 + r) = xs(r);
      x(order(q0 + r)) = xs(r);
    });
  };
  for (const LevelLaunch& launch : p.launches) {
    const int V = launch.vector_width;
    // At least one part: solve_diagonal_tile keeps 16 entries of 1/d after xs.
    const int parts = std::max(1, tile_part_count(p.spmv, V));
    const size_t bytes_per_group = scratch::shmem_size(group_scratch_entries(parts));
    if (!launch.chained) {
      const int team = tile_groups_per_team<exec>();
      const size_t bytes = size_t(team) * bytes_per_group;
      const auto groups = [&](offset_t items) { return team_policy(space, int((items + team - 1) / team), team, V); };
      if (two_phase) {
        const offset_t c0 = p.level_chunk_ptr[launch.first_level], c1 = p.level_chunk_ptr[launch.first_level + 1];
        if (c1 > c0)
          Kokkos::parallel_for(
              "trellis::trsv::tile_levelset_spmv", groups(c1 - c0).set_scratch_size(0, Kokkos::PerTeam(bytes)),
              KOKKOS_LAMBDA(const member_type& m) {
                const scratch g = group_scratch<scratch>(m, parts);
                const offset_t c = c0 + offset_t(m.league_rank()) * m.team_size() + m.team_rank();
                if (c < c1) spmv_chunk(m, g, V, c);
              });
      }
      const offset_t p0 = p.levels.level_ptr_host(launch.first_level);
      const offset_t p1 = p.levels.level_ptr_host(launch.first_level + 1);
      Kokkos::parallel_for(
          two_phase ? "trellis::trsv::tile_levelset_diagonal" : "trellis::trsv::tile_levelset",
          groups(p1 - p0).set_scratch_size(0, Kokkos::PerTeam(bytes)), KOKKOS_LAMBDA(const member_type& m) {
            const scratch g = group_scratch<scratch>(m, parts);
            const offset_t q = p0 + offset_t(m.league_rank()) * m.team_size() + m.team_rank();
            if (q < p1) tile_row(m, g, V, q);
          });
    } else {
      const ordinal_t l0 = launch.first_level, l1 = launch.last_level;
      const auto chain = KOKKOS_LAMBDA(const member_type& m) {
        const scratch g = group_scratch<scratch>(m, parts);
        for (ordinal_t l = l0; l < l1; ++l) {
          // Each vector group takes whole chunks, then whole tile rows.
          if (two_phase) {
            for (offset_t c = chunk_ptr(level_ptr(l)) + m.team_rank(); c < chunk_ptr(level_ptr(l + 1));
                 c += m.team_size())
              spmv_chunk(m, g, V, c);
            m.team_barrier();
          }
          for (offset_t q = level_ptr(l) + m.team_rank(); q < level_ptr(l + 1); q += m.team_size())
            tile_row(m, g, V, q);
          m.team_barrier();
        }
      };
      // As many groups as a chained level may have rows, if the registers allow.
      const size_t bytes = size_t(tile_chain_rows<exec>()) * bytes_per_group;
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
  const TileSpmv spmv = p.spmv;
  // A whole warp per tile column on GPUs: lane 0 spins, never a lane of a
  // warp whose other lanes hold the work it waits on.
  const int V = p.syncfree_lanes;
  const int slots = tile_part_count(TileSpmv::rows, V), row_step = std::min(V, tile_size);
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
        const offset_t k0 = tile_col_ptr(J), k1 = tile_col_ptr(J + 1);
        if (spmv == TileSpmv::rows) {
          // A slot of 16 lanes a tile, a lane a row; after each step the
          // slots' tiles are published (the lanes' sums, lane sync, fence,
          // count).
          for (offset_t k = k0; k < k1; k += slots) {
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, V), [&](int j) {
              if (k + j / row_step >= k1) return;
              const offset_t t = tile_by_col(k + j / row_step);
              const ordinal_t I = tile_row(t);
              for (int r = j % row_step; r < tile_size; r += row_step) {
                const Scalar acc = tv.row_product(t, r, [&](int c) { return xs(c); });
                if (acc != Scalar(0)) Kokkos::atomic_add(&left_sum(I * tile_size + r), acc);
              }
            });
            sync_lanes();
            const offset_t published = k1 - k < slots ? k1 - k : slots;
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, published), [&](offset_t s) {
              Kokkos::memory_fence();  // release: the slot's sums before the count
              compat::atomic_increment(&counters(tile_row(tile_by_col(k + s))));
            });
          }
          return;
        }
        // Lanes own the column's tiles: each pushes its tile's rows, then
        // publishes it (its own sums, fence, count).
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
