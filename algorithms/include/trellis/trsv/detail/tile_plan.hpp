#pragma once
// Analysis plan of the tiled family (seed 004, TileSpTRSV): the factor's rows
// in level order or in their own order (TileOrder), cut into 16x16 tiles
// kept in two levels (tile CSR and CSC over the tiles; per tile a format,
// 8-bit in-tile positions and values in tile order), the tile-row level
// sets and the sync-free counters.
//
// In either order every dependency of a row sits at an earlier position, so
// the permuted factor is lower triangular whichever triangle was asked for:
// both triangles share one storage and one pair of kernels. Built on the
// device; the host reads only sizes and the report.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/trsv/detail/factor.hpp"
#include "trellis/trsv/detail/levelset_plan.hpp"
#include "trellis/trsv/tile_options.hpp"

namespace trellis::detail {

/// Tiles of a factor. Off-diagonal tiles are numbered 0..offdiag-1 in tile
/// CSR order; the diagonal tile of tile row I is tile offdiag + I.
/// Kernels capture the Views by name, never the plan.
template <class Scalar, class Device>
struct TilePlan {
  template <class T>
  using view = Kokkos::View<T, Device>;

  ordinal_t n = 0, tile_rows = 0;
  offset_t offdiag = 0;
  view<ordinal_t*> order;        // position -> row (TileOrder)
  view<offset_t*> tile_row_ptr;  // tile_rows + 1: off-diagonal tiles of each tile row
  view<ordinal_t*> tile_col;     // tile column of each off-diagonal tile
  view<ordinal_t*> tile_row;     // tile row of each off-diagonal tile
  view<offset_t*> tile_col_ptr;  // tile_rows + 1: the same tiles by column
  view<offset_t*> tile_by_col;   // tile numbers, column by column
  view<unsigned char*> format;   // TileFormat of every tile
  view<int*> param;              // ell/hyb: width; dns-row/dns-col: mask; diagonal: in-tile levels
  view<offset_t*> val_ptr;       // values of tile t: [val_ptr(t), val_ptr(t+1))
  view<offset_t*> idx_ptr;       // 8-bit indices of tile t: [idx_ptr(t), idx_ptr(t+1))
  view<unsigned char*> idx;
  view<Scalar*> values;   // empty when single_values
  view<float*> values32;  // single_values: the values rounded to float
  bool single_values = false;
  view<offset_t*> value_source;    // position in the factor's rows.values; -1: a stored zero
  view<Scalar*> inv_diag;          // 1/d by position
  view<unsigned char*> row_level;  // in-tile level of each position (warp-level solves)

  LevelSets<Device> levels;           // of the tile rows
  std::vector<LevelLaunch> launches;  // tile-levelset's launches
  bool warp_level = false;
  TileSpmv spmv = TileSpmv::rows;
  int syncfree_lanes = 1;  // tile-syncfree's vector group

  // Two-phase tile-levelset: each tile row's off-diagonal tiles in chunks of
  // at most chunk_tiles, numbered in level order.
  bool two_phase = false;
  int chunk_tiles = 0;
  view<offset_t*> chunk_ptr;              // level position q -> chunks of tile row level_rows(q)
  view<ordinal_t*> chunk_pos;             // level position of each chunk
  view<Scalar*> chunk_sum;                // 16 row sums a chunk
  std::vector<offset_t> level_chunk_ptr;  // host: the chunks of each tile level

  view<int*> counters;  // tile-syncfree: counters(I) == epoch * indeg(I) when tile row I may go
  view<int> ticket;
  view<Scalar*> left_sum;  // tile-syncfree: pushed updates, reset as they are read
  view<Scalar*> y;         // tile-levelset: x by position, 16 * tile_rows (padding zero)
  int max_indeg = 0;
  int epoch = 0;

  TileReport report;
};

KOKKOS_INLINE_FUNCTION int popcount16(unsigned m) {
  int c = 0;
  for (; m; m &= m - 1) ++c;
  return c;
}

/// Lanes of a tile vector group: 1 on host backends; on GPUs 16 when
/// lanes take whole tiles, a warp of 32 (two tiles at a time) when they take
/// a tile's rows, as TileSpMV's kernels do.
template <class Exec>
int tile_vector_width(TileSpmv spmv) {
  return std::min(spmv == TileSpmv::rows ? 2 * tile_size : tile_size, max_vector_width<Exec>());
}

/// Tile rows a chained tile level may have: a GPU chain runs in one team
/// of up to 16 vector groups (256 threads, fewer if the kernel's registers
/// do not allow it; a group then takes several tile rows of a level).
template <class Exec>
int tile_chain_rows() {
  return is_host_space<Exec>() ? chain_rows<Exec>(1) : 16;
}

/// Tiles (off-diagonal and diagonal) per vector group a chained level may
/// have on average.
inline constexpr int tile_chain_tiles_per_group = 4;

/// Vector groups per team of an unchained tile-levelset launch: few, so
/// that a level's tile rows spread over many multiprocessors.
template <class Exec>
int tile_groups_per_team() {
  return is_host_space<Exec>() ? 1 : 4;
}

/// The selection tree of TileOptions for one off-diagonal tile whose
/// entries (row-major, key = r * 16 + c) are keys[e0, e1). Writes the format,
/// its parameter and the value / index counts.
template <class Keys>
KOKKOS_INLINE_FUNCTION void choose_tile_format(const Keys& keys, offset_t e0, offset_t e1, const TileOptions& o,
                                               unsigned char& format, int& param, int& nval, int& nidx) {
  int row_len[tile_size] = {}, col_len[tile_size] = {};
  bool dup = false;
  for (offset_t e = e0; e < e1; ++e) {
    const int k = keys(e) & 255;
    ++row_len[k >> 4];
    ++col_len[k & 15];
    if (e > e0 && keys(e) == keys(e - 1)) dup = true;
  }
  const int nnz = int(e1 - e0);
  int rows = 0, cols = 0, longest = 0;
  unsigned row_mask = 0, col_mask = 0;
  for (int r = 0; r < tile_size; ++r) {
    if (row_len[r]) ++rows, row_mask |= 1u << r;
    if (col_len[r]) ++cols, col_mask |= 1u << r;
    if (row_len[r] > longest) longest = row_len[r];
  }
  const int w = (nnz + tile_size - 1) / tile_size;
  int overflow = 0;
  for (int r = 0; r < tile_size; ++r)
    if (row_len[r] > w) overflow += row_len[r] - w;
  TileFormat f = TileFormat::csr;
  if (o.force_format)
    f = o.force;
  else if (nnz >= o.dense_fraction * tile_size * tile_size)
    f = TileFormat::dns;
  else if (nnz == tile_size * rows)
    f = TileFormat::dns_row;
  else if (nnz == tile_size * cols)
    f = TileFormat::dns_col;
  else if (nnz <= o.coo_max_nnz)
    f = TileFormat::coo;
  else if (tile_size * longest <= o.ell_max_padding * nnz)
    f = TileFormat::ell;
  else if (overflow <= o.hyb_max_overflow * nnz)
    f = TileFormat::hyb;
  // A slot holds one entry: duplicates (summed, as every solve sums them)
  // stay in a list format.
  if (dup && f != TileFormat::csr && f != TileFormat::coo) f = TileFormat::csr;
  param = 0;
  switch (f) {
    case TileFormat::csr: nval = nnz, nidx = tile_size + nnz; break;
    case TileFormat::coo: nval = nnz, nidx = nnz; break;
    case TileFormat::ell: param = longest, nval = nidx = tile_size * longest; break;
    case TileFormat::hyb: param = w, nval = nidx = tile_size * w + overflow; break;
    case TileFormat::dns: nval = tile_size * tile_size, nidx = 0; break;
    case TileFormat::dns_row: param = int(row_mask), nval = tile_size * rows, nidx = 0; break;
    case TileFormat::dns_col: param = int(col_mask), nval = tile_size * cols, nidx = 0; break;
    case TileFormat::dia: nval = nidx = 0; break;
  }
  format = static_cast<unsigned char>(f);
}

/// Writes tile t's indices and value sources from its sorted entries.
template <class Keys, class Sources, class Idx, class ValSrc>
KOKKOS_INLINE_FUNCTION void fill_tile(const Keys& keys, const Sources& src, offset_t e0, offset_t e1,
                                      unsigned char format, int param, const Idx& idx, offset_t i0, const ValSrc& vs,
                                      offset_t v0, offset_t v1) {
  for (offset_t v = v0; v < v1; ++v) vs(v) = -1;
  const TileFormat f = static_cast<TileFormat>(format);
  if (f == TileFormat::csr) {
    for (int r = 0; r < tile_size; ++r) idx(i0 + r) = 0;
    int row_len[tile_size] = {};
    for (offset_t e = e0; e < e1; ++e) ++row_len[(keys(e) & 255) >> 4];
    int start = 0;
    for (int r = 0; r < tile_size; ++r) idx(i0 + r) = (unsigned char)start, start += row_len[r];
    for (offset_t e = e0; e < e1; ++e) idx(i0 + tile_size + (e - e0)) = (unsigned char)(keys(e) & 15);
    for (offset_t e = e0; e < e1; ++e) vs(v0 + (e - e0)) = src(e);
  } else if (f == TileFormat::coo) {
    for (offset_t e = e0; e < e1; ++e) idx(i0 + (e - e0)) = (unsigned char)(keys(e) & 255), vs(v0 + (e - e0)) = src(e);
  } else if (f == TileFormat::ell || f == TileFormat::hyb) {
    const int w = param;
    for (int s = 0; s < tile_size * w; ++s) idx(i0 + s) = 0xFF;  // padding: skipped
    int fill[tile_size] = {};
    offset_t overflow = offset_t(tile_size) * w;
    for (offset_t e = e0; e < e1; ++e) {
      const int r = (keys(e) & 255) >> 4, c = keys(e) & 15;
      if (fill[r] < w) {
        const int s = fill[r]++ * tile_size + r;
        idx(i0 + s) = (unsigned char)c;
        vs(v0 + s) = src(e);
      } else {  // hyb's COO part
        idx(i0 + overflow) = (unsigned char)(keys(e) & 255);
        vs(v0 + overflow) = src(e);
        ++overflow;
      }
    }
  } else if (f == TileFormat::dns) {  // column-major: lane r reads val[c * 16 + r]
    for (offset_t e = e0; e < e1; ++e) vs(v0 + (keys(e) & 15) * tile_size + ((keys(e) & 255) >> 4)) = src(e);
  } else if (f == TileFormat::dns_row) {  // the full rows, column-major
    const unsigned mask = unsigned(param);
    const int rows = popcount16(mask);
    for (offset_t e = e0; e < e1; ++e) {
      const int r = (keys(e) & 255) >> 4, c = keys(e) & 15;
      vs(v0 + c * rows + popcount16(mask & ((1u << r) - 1))) = src(e);
    }
  } else if (f == TileFormat::dns_col) {  // the full columns, each 16 rows
    const unsigned mask = unsigned(param);
    for (offset_t e = e0; e < e1; ++e) {
      const int r = (keys(e) & 255) >> 4, c = keys(e) & 15;
      vs(v0 + popcount16(mask & ((1u << c) - 1)) * tile_size + r) = src(e);
    }
  }
}

/// The factor's entries cut into tiles in one order of rows: keys
/// J * 256 + r * 16 + c, sorted within each tile row (the tiles by column,
/// each tile's entries row-major), each entry's place in the factor, and
/// the off-diagonal tiles a tile row.
template <class Device>
struct TileCut {
  Kokkos::View<ordinal_t*, Device> order;  // position -> row
  Kokkos::View<ordinal_t*, Device> keys;
  Kokkos::View<offset_t*, Device> sources, tile_entry_ptr, tile_row_ptr;
  offset_t offdiag = 0;
};

/// Levels of a cut's tile-row dependency graph (every dependency at a lower
/// position), counted on the host: `automatic` weighs a natural cut's chain.
template <class Device>
int cut_tile_levels(const typename Device::execution_space& space, const TileCut<Device>& cut) {
  space.fence();
  const auto ptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cut.tile_entry_ptr);
  const auto keys = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cut.keys);
  const ordinal_t nt = ordinal_t(ptr.extent(0)) - 1;
  std::vector<int> level(size_t(nt), 0);
  int most = 0;
  for (ordinal_t I = 0; I < nt; ++I) {
    for (offset_t e = ptr(I); e < ptr(I + 1); ++e) {
      const ordinal_t J = keys(e) >> 8;
      if (J != I) level[I] = std::max(level[I], level[J] + 1);
    }
    most = std::max(most, level[I] + 1);
  }
  return most;
}

/// The natural order: every dependency at a lower position (upper: reversed).
template <class Scalar, class Device>
Kokkos::View<ordinal_t*, Device> natural_tile_order(const typename Device::execution_space& space,
                                                    const TriangularFactor<Scalar, Device>& f) {
  Kokkos::View<ordinal_t*, Device> o(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::tile::order"),
                                     f.n);
  const ordinal_t n = f.n;
  const bool reversed = f.triangle == Triangle::upper;
  Kokkos::parallel_for(
      "trellis::tile::natural_order", trellis::RangePolicy<typename Device::execution_space>(space, 0, n),
      KOKKOS_LAMBDA(ordinal_t q) { o(q) = reversed ? n - 1 - q : q; });
  return o;
}

template <class Scalar, class Device>
TileCut<Device> cut_tiles(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& f,
                          Kokkos::View<ordinal_t*, Device> order) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  using offsets = Kokkos::View<offset_t*, Device>;
  using ordinals = Kokkos::View<ordinal_t*, Device>;
  const auto uninit = [&](const std::string& label) {
    return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label);
  };
  const ordinal_t n = f.n;
  const ordinal_t nt = (n + tile_size - 1) / tile_size;
  const auto row_map = f.rows.row_map;
  const auto col_ind = f.rows.col_ind;
  TileCut<Device> cut;
  cut.order = order;

  // Positions of rows, and the factor's entries listed position by position.
  ordinals position(uninit("trellis::tile::position"), n);
  Kokkos::parallel_for(
      "trellis::tile::position", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t q) { position(order(q)) = q; });
  offsets entry_ptr(Kokkos::view_alloc(space, "trellis::tile::entry_ptr"), size_t(n) + 1);
  Kokkos::parallel_scan(
      "trellis::tile::entry_scan", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t q, offset_t & sum, bool final) {
        sum += row_map(order(q) + 1) - row_map(order(q));
        if (final) entry_ptr(q + 1) = sum;
      });
  if (std::int64_t(nt) * 256 > std::int64_t(2147483647))
    throw StructureError("tiled triangular solve: " + std::to_string(n) + " rows do not fit 32-bit tile keys");
  const ordinals keys(uninit("trellis::tile::keys"), f.nnz_strict);
  const offsets sources(uninit("trellis::tile::sources"), f.nnz_strict);
  Kokkos::parallel_for(
      "trellis::tile::keys", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t q) {
        const ordinal_t i = order(q);
        offset_t e = entry_ptr(q);
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k, ++e) {
          const ordinal_t qj = position(col_ind(k));
          keys(e) = (qj / tile_size) * 256 + (q % tile_size) * tile_size + qj % tile_size;
          sources(e) = k;
        }
      });
  const offsets tile_entry_ptr(uninit("trellis::tile::tile_entry_ptr"), size_t(nt) + 1);
  Kokkos::parallel_for(
      "trellis::tile::tile_entry_ptr", policy(space, 0, nt + 1),
      KOKKOS_LAMBDA(ordinal_t I) { tile_entry_ptr(I) = entry_ptr(I * tile_size < n ? I * tile_size : n); });
  on_default_instance(space, [&] { compat::sort_crs_matrix<exec>(tile_entry_ptr, keys, sources); });

  // Off-diagonal tiles per tile row.
  const offsets tile_row_ptr(Kokkos::view_alloc(space, "trellis::tile::tile_row_ptr"), size_t(nt) + 1);
  Kokkos::parallel_scan(
      "trellis::tile::count", policy(space, 0, nt), KOKKOS_LAMBDA(ordinal_t I, offset_t & sum, bool final) {
        offset_t c = 0;
        for (offset_t e = tile_entry_ptr(I); e < tile_entry_ptr(I + 1); ++e)
          if ((keys(e) >> 8) != I && (e == tile_entry_ptr(I) || (keys(e) >> 8) != (keys(e - 1) >> 8))) ++c;
        sum += c;
        if (final) tile_row_ptr(I + 1) = sum;
      });
  Kokkos::deep_copy(space, cut.offdiag, Kokkos::subview(tile_row_ptr, nt));
  space.fence();  // offdiag sizes what follows
  cut.keys = keys, cut.sources = sources, cut.tile_entry_ptr = tile_entry_ptr, cut.tile_row_ptr = tile_row_ptr;
  return cut;
}

/// Builds the tiled storage of f (levels: f's level sets) and the tile-row
/// schedules. Values are loaded by load_tile_values.
template <class Scalar, class Device>
TilePlan<Scalar, Device> build_tile_plan(const typename Device::execution_space& space,
                                         const TriangularFactor<Scalar, Device>& f, const LevelSets<Device>& levels,
                                         const TileOptions& options) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  using offsets = Kokkos::View<offset_t*, Device>;
  using ordinals = Kokkos::View<ordinal_t*, Device>;
  using bytes = Kokkos::View<unsigned char*, Device>;
  const auto uninit = [&](const std::string& label) {
    return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label);
  };
  if (options.force_format && options.force == TileFormat::dia)
    throw InputError("tiled triangular solve: dia holds diagonal tiles only; it cannot be forced");
  const int most_lanes = is_host_space<exec>() ? 64 : max_vector_width<exec>();
  if (options.lanes < 0 || options.lanes > most_lanes || (options.lanes & (options.lanes - 1)))
    throw InputError("tiled triangular solve: lanes is " + std::to_string(options.lanes) +
                     "; 0 (the backend's) or a power of two up to " + std::to_string(most_lanes));
  if (options.chunk_tiles < 1)
    throw InputError("tiled triangular solve: chunk_tiles is " + std::to_string(options.chunk_tiles) +
                     "; a two-phase SpMV chunk holds at least one tile");
  Kokkos::Timer timer;
  TilePlan<Scalar, Device> p;
  const ordinal_t n = f.n;
  const ordinal_t nt = (n + tile_size - 1) / tile_size;
  p.n = n;
  p.tile_rows = nt;
  TileCut<Device> cut;
  if (options.order == TileOrder::automatic) {  // TileOrder's rule
    TileCut<Device> natural = cut_tiles(space, f, natural_tile_order(space, f));
    TileCut<Device> by_level = cut_tiles(space, f, levels.level_rows);
    const double tile_ratio = double(by_level.offdiag) / std::max(1.0, double(natural.offdiag));
    bool take_levels = tile_ratio <= options.level_order_max_tile_ratio;
    if (!take_levels) {
      p.report.natural_tile_levels = cut_tile_levels(space, natural);
      take_levels = p.report.natural_tile_levels > std::sqrt(tile_ratio) * levels.num_levels;
    }
    p.report.order_alternative_tiles = take_levels ? natural.offdiag : by_level.offdiag;
    cut = take_levels ? by_level : natural;
    p.report.order = take_levels ? TileOrder::levels : TileOrder::natural;
  } else {
    cut = cut_tiles(space, f, options.order == TileOrder::levels ? levels.level_rows : natural_tile_order(space, f));
    p.report.order = options.order;
  }
  p.order = cut.order;
  p.tile_row_ptr = cut.tile_row_ptr;
  p.offdiag = cut.offdiag;
  const auto keys = cut.keys;
  const auto sources = cut.sources;
  const auto tile_entry_ptr = cut.tile_entry_ptr;
  const auto tile_row_ptr = p.tile_row_ptr;
  const offset_t nnz = f.nnz_strict;
  const offset_t nod = p.offdiag;
  const offset_t ntiles = nod + nt;
  p.tile_col = ordinals(uninit("trellis::tile::tile_col"), nod);
  p.tile_row = ordinals(uninit("trellis::tile::tile_row"), nod);
  offsets tile_e0(uninit("trellis::tile::tile_e0"), ntiles), tile_e1(uninit("trellis::tile::tile_e1"), ntiles);
  const auto tile_col = p.tile_col;
  const auto tile_row = p.tile_row;
  Kokkos::parallel_for(
      "trellis::tile::list", policy(space, 0, nt), KOKKOS_LAMBDA(ordinal_t I) {
        offset_t t = tile_row_ptr(I);
        const offset_t e_end = tile_entry_ptr(I + 1);
        tile_e0(nod + I) = tile_e1(nod + I) = e_end;  // an empty diagonal tile
        for (offset_t e = tile_entry_ptr(I); e < e_end;) {
          const ordinal_t J = keys(e) >> 8;
          offset_t e1 = e + 1;
          while (e1 < e_end && (keys(e1) >> 8) == J) ++e1;
          if (J == I) {
            tile_e0(nod + I) = e, tile_e1(nod + I) = e1;
          } else {
            tile_col(t) = J, tile_row(t) = I, tile_e0(t) = e, tile_e1(t) = e1;
            ++t;
          }
          e = e1;
        }
      });

  // Formats, and the sizes of each tile's values and indices.
  p.format = bytes(uninit("trellis::tile::format"), ntiles);
  p.param = Kokkos::View<int*, Device>(uninit("trellis::tile::param"), ntiles);
  p.val_ptr = offsets(Kokkos::view_alloc(space, "trellis::tile::val_ptr"), size_t(ntiles) + 1);
  p.idx_ptr = offsets(Kokkos::view_alloc(space, "trellis::tile::idx_ptr"), size_t(ntiles) + 1);
  const auto format = p.format;
  const auto param = p.param;
  const auto val_ptr = p.val_ptr;
  const auto idx_ptr = p.idx_ptr;
  const TileOptions opt = options;
  Kokkos::parallel_for(
      "trellis::tile::formats", policy(space, 0, ntiles), KOKKOS_LAMBDA(offset_t t) {
        int nval = 0, nidx = 0, prm = 0;
        unsigned char fmt = 0;
        if (t < nod) {
          choose_tile_format(keys, tile_e0(t), tile_e1(t), opt, fmt, prm, nval, nidx);
        } else {  // diagonal: dia when empty, else csr
          const int nnz_t = int(tile_e1(t) - tile_e0(t));
          fmt = static_cast<unsigned char>(nnz_t ? TileFormat::csr : TileFormat::dia);
          nval = nnz_t, nidx = nnz_t ? tile_size + nnz_t : 0;
        }
        format(t) = fmt, param(t) = prm, val_ptr(t + 1) = nval, idx_ptr(t + 1) = nidx;
      });
  std::int64_t total_val = 0, total_idx = 0;
  Kokkos::parallel_scan(
      "trellis::tile::val_scan", policy(space, 0, ntiles + 1),
      KOKKOS_LAMBDA(offset_t t, std::int64_t & sum, bool final) {
        sum += val_ptr(t);
        if (final) val_ptr(t) = offset_t(sum);
      },
      total_val);
  Kokkos::parallel_scan(
      "trellis::tile::idx_scan", policy(space, 0, ntiles + 1),
      KOKKOS_LAMBDA(offset_t t, std::int64_t & sum, bool final) {
        sum += idx_ptr(t);
        if (final) idx_ptr(t) = offset_t(sum);
      },
      total_idx);
  space.fence();  // the totals size what follows
  if (total_val > 2147483647 || total_idx > 2147483647)
    throw StructureError("tiled triangular solve: the tiles need " + std::to_string(total_val) +
                         " value slots, more than 32-bit offsets hold");

  // Indices, value sources, and the in-tile levels of the diagonal tiles.
  p.idx = bytes(uninit("trellis::tile::idx"), total_idx);
  p.single_values = options.single_values && !std::is_same<Scalar, float>::value;
  p.values = Kokkos::View<Scalar*, Device>(uninit("trellis::tile::values"), p.single_values ? 0 : total_val);
  if (p.single_values) p.values32 = Kokkos::View<float*, Device>(uninit("trellis::tile::values32"), total_val);
  p.value_source = offsets(uninit("trellis::tile::value_source"), total_val);
  p.row_level = bytes(uninit("trellis::tile::row_level"), size_t(nt) * tile_size);
  const auto idx = p.idx;
  const auto value_source = p.value_source;
  const auto row_level = p.row_level;
  Kokkos::parallel_for(
      "trellis::tile::fill", policy(space, 0, ntiles), KOKKOS_LAMBDA(offset_t t) {
        const offset_t e0 = tile_e0(t), e1 = tile_e1(t);
        fill_tile(keys, sources, e0, e1, format(t), param(t), idx, idx_ptr(t), value_source, val_ptr(t),
                  val_ptr(t + 1));
        if (t >= nod) {  // in-tile levels: every dependency is at a lower row
          const ordinal_t I = ordinal_t(t - nod);
          int lev[tile_size] = {}, top = 0;
          for (offset_t e = e0; e < e1; ++e) {
            const int r = (keys(e) & 255) >> 4, c = keys(e) & 15;
            if (lev[c] + 1 > lev[r]) lev[r] = lev[c] + 1;
          }
          for (int r = 0; r < tile_size; ++r) {
            row_level(I * tile_size + r) = (unsigned char)lev[r];
            if (lev[r] + 1 > top) top = lev[r] + 1;
          }
          param(t) = top;
        }
      });

  // Tile-row levels: the off-diagonal tile pattern is strictly lower.
  on_default_instance(space, [&] {
    const CsrMatrix<Scalar, Device> pattern(nt, nt, tile_row_ptr, p.tile_col,
                                            Kokkos::View<Scalar*, Device>(uninit("trellis::tile::pattern"), nod));
    p.levels = analyze_levels(pattern, Triangle::lower);
  });

  // The same tiles by column (tile-syncfree), sorted by tile row.
  p.tile_col_ptr = offsets(Kokkos::view_alloc(space, "trellis::tile::tile_col_ptr"), size_t(nt) + 1);
  p.tile_by_col = offsets(uninit("trellis::tile::tile_by_col"), nod);
  const auto tile_col_ptr = p.tile_col_ptr;
  const auto tile_by_col = p.tile_by_col;
  Kokkos::parallel_for(
      "trellis::tile::csc_count", policy(space, 0, nod),
      KOKKOS_LAMBDA(offset_t t) { compat::atomic_increment(&tile_col_ptr(tile_col(t) + 1)); });
  Kokkos::parallel_scan(
      "trellis::tile::csc_scan", policy(space, 0, nt + 1), KOKKOS_LAMBDA(ordinal_t J, offset_t & sum, bool final) {
        sum += tile_col_ptr(J);
        if (final) tile_col_ptr(J) = sum;
      });
  {
    offsets cursor(uninit("trellis::tile::csc_cursor"), nt);
    ordinals row_keys(uninit("trellis::tile::csc_rows"), nod);
    Kokkos::deep_copy(space, cursor, Kokkos::subview(tile_col_ptr, std::make_pair(ordinal_t(0), nt)));
    Kokkos::parallel_for(
        "trellis::tile::csc_fill", policy(space, 0, nod), KOKKOS_LAMBDA(offset_t t) {
          const offset_t q = Kokkos::atomic_fetch_add(&cursor(tile_col(t)), offset_t(1));
          row_keys(q) = tile_row(t);
          tile_by_col(q) = t;
        });
    on_default_instance(space, [&] { compat::sort_crs_matrix<exec>(tile_col_ptr, row_keys, tile_by_col); });
  }

  // Sync-free state: counters count epochs, so never need resetting.
  p.counters = Kokkos::View<int*, Device>(Kokkos::view_alloc(space, "trellis::tile::counters"), nt);
  p.ticket = Kokkos::View<int, Device>(Kokkos::view_alloc(space, "trellis::tile::ticket"));
  p.left_sum = Kokkos::View<Scalar*, Device>(Kokkos::view_alloc(space, "trellis::tile::left_sum"), n);
  p.y = Kokkos::View<Scalar*, Device>(Kokkos::view_alloc(space, "trellis::tile::y"), size_t(nt) * tile_size);
  p.inv_diag = Kokkos::View<Scalar*, Device>(uninit("trellis::tile::inv_diag"), n);
  int max_indeg = 0;
  Kokkos::parallel_reduce(
      "trellis::tile::max_indeg", policy(space, 0, nt),
      KOKKOS_LAMBDA(ordinal_t I, int& m) {
        const int d = int(tile_row_ptr(I + 1) - tile_row_ptr(I));
        if (d > m) m = d;
      },
      Kokkos::Max<int>(max_indeg));
  p.max_indeg = nt ? max_indeg : 0;

  // tile-levelset: one launch per tile level, consecutive levels that fit
  // one team chained into one launch; the diagonal kernel from the tile rows
  // per level against the paper's threshold (TileOptions).
  // A level is chained when it has few tile rows and little work: a chain
  // runs on one multiprocessor, a level of many tiles is spread over many.
  const int V = options.lanes ? options.lanes : tile_vector_width<exec>(options.spmv);
  p.syncfree_lanes = options.lanes ? options.lanes : max_vector_width<exec>();
  p.spmv = options.spmv;
  p.two_phase = options.two_phase;
  p.chunk_tiles = options.chunk_tiles;
  std::vector<offset_t> level_tiles(p.levels.num_levels, 0);
  {
    auto ptr_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tile_row_ptr);
    auto rows_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.levels.level_rows);
    for (ordinal_t l = 0; l < p.levels.num_levels; ++l)
      for (offset_t q = p.levels.level_ptr_host(l); q < p.levels.level_ptr_host(l + 1); ++q)
        level_tiles[l] += ptr_h(rows_h(q) + 1) - ptr_h(rows_h(q)) + 1;
    if (p.two_phase) {  // the chunks, in level order
      auto chunk_ptr_h = Kokkos::View<offset_t*, Kokkos::HostSpace>("trellis::tile::chunk_ptr", size_t(nt) + 1);
      for (ordinal_t q = 0; q < nt; ++q) {
        const offset_t tiles = ptr_h(rows_h(q) + 1) - ptr_h(rows_h(q));
        chunk_ptr_h(q + 1) = chunk_ptr_h(q) + (tiles + p.chunk_tiles - 1) / p.chunk_tiles;
      }
      const offset_t chunks = chunk_ptr_h(nt);
      auto chunk_pos_h = Kokkos::View<ordinal_t*, Kokkos::HostSpace>("trellis::tile::chunk_pos", chunks);
      for (ordinal_t q = 0; q < nt; ++q)
        for (offset_t c = chunk_ptr_h(q); c < chunk_ptr_h(q + 1); ++c) chunk_pos_h(c) = q;
      for (ordinal_t l = 0; l <= p.levels.num_levels; ++l)
        p.level_chunk_ptr.push_back(chunk_ptr_h(p.levels.level_ptr_host(l)));
      p.chunk_ptr = Kokkos::create_mirror_view_and_copy(typename Device::memory_space(), chunk_ptr_h);
      p.chunk_pos = Kokkos::create_mirror_view_and_copy(typename Device::memory_space(), chunk_pos_h);
      p.chunk_sum = Kokkos::View<Scalar*, Device>(uninit("trellis::tile::chunk_sum"), size_t(chunks) * tile_size);
      p.report.chunks = chunks;
    }
  }
  for (ordinal_t l = 0; l < p.levels.num_levels; ++l) {
    const bool small = p.levels.rows_in_level(l) <= tile_chain_rows<exec>() &&
                       level_tiles[l] <= tile_chain_tiles_per_group * tile_chain_rows<exec>();
    if (small && !p.launches.empty() && p.launches.back().chained)
      p.launches.back().last_level = l + 1;
    else
      p.launches.push_back({l, l + 1, V, small});
  }
  const int threshold =
      options.warp_level_threshold > 0 ? options.warp_level_threshold : std::max(1, int(space.concurrency() / 128));
  p.warp_level = !is_host_space<exec>() && p.levels.avg_parallelism() < threshold;

  // Report: format histogram and memory.
  auto format_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.format);
  TileReport& rep = p.report;
  rep.tile_rows = nt;
  rep.offdiag_tiles = nod;
  rep.tile_levels = p.levels.num_levels;
  rep.tile_parallelism = p.levels.avg_parallelism();
  rep.warp_level = p.warp_level;
  rep.spmv = p.spmv;
  rep.two_phase = p.two_phase;
  rep.single_values = p.single_values;
  for (offset_t t = 0; t < ntiles; ++t) ++rep.format_count[format_h(t)];
  rep.tile_bytes = sizeof(offset_t) * (2 * (size_t(nt) + 1) + 2 * (size_t(ntiles) + 1) + nod) +
                   sizeof(ordinal_t) * 2 * size_t(nod) + (sizeof(int) + 1) * size_t(ntiles) + size_t(total_idx) +
                   (p.single_values ? sizeof(float) : sizeof(Scalar)) * size_t(total_val) + sizeof(Scalar) * size_t(n);
  rep.csr_bytes = sizeof(offset_t) * (size_t(n) + 1) + (sizeof(ordinal_t) + sizeof(Scalar)) * size_t(nnz) +
                  sizeof(Scalar) * size_t(n);
  rep.analysis_seconds = timer.seconds();
  return p;
}

/// Numeric phase: the tiles' values and the inverse diagonal by position,
/// from the factor's (already loaded) values.
template <class Scalar, class Device>
void load_tile_values(const typename Device::execution_space& space, TilePlan<Scalar, Device>& p,
                      const TriangularFactor<Scalar, Device>& f) {
  using policy = trellis::RangePolicy<typename Device::execution_space>;
  const auto source = p.value_source;
  const auto from = f.rows.values;
  if (p.single_values) {
    const auto values32 = p.values32;
    Kokkos::parallel_for(
        "trellis::tile::gather_values32", policy(space, 0, offset_t(values32.extent(0))),
        KOKKOS_LAMBDA(offset_t s) { values32(s) = source(s) >= 0 ? float(from(source(s))) : 0.0f; });
  } else {
    const auto values = p.values;
    Kokkos::parallel_for(
        "trellis::tile::gather_values", policy(space, 0, offset_t(values.extent(0))),
        KOKKOS_LAMBDA(offset_t s) { values(s) = source(s) >= 0 ? from(source(s)) : Scalar(0); });
  }
  const auto inv = p.inv_diag;
  const auto order = p.order;
  const auto f_inv = f.inv_diag;
  Kokkos::parallel_for(
      "trellis::tile::gather_diagonal", policy(space, 0, p.n),
      KOKKOS_LAMBDA(ordinal_t q) { inv(q) = f_inv(order(q)); });
}

}  // namespace trellis::detail
