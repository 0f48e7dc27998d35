#pragma once
// Seed 003's acyclic dependency task mapping (section 4.1) and level-based
// memory layout (section 4.4), for any stencil.
//
// Mapping. Under the stencil's wavefront transform (stencil.hpp) a point
// (i, j, k) has coordinates (î, ĵ, k) and level î + ĵ + k, and every
// dependency of the forward sweep lies at lower î, ĵ and level (the
// backward sweep: higher). The (î, ĵ) plane is cut into tiles of tile.x x
// tile.y lines; a team owns a tile, a thread a line, and the team walks the
// levels of its tile in order, one team barrier per level (the sweep
// engine that runs it: detail/wavefront_sweep.hpp).
//
// Layout. Points are stored level by level, and within a level by ĵ then
// î, so the threads of a warp (consecutive î, same ĵ and level) touch
// consecutive positions: position(î, ĵ, level) = base(level, ĵ) + î. The
// layout is a permutation of the points: no padding.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <climits>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/types.hpp"
#include "trellis/structured/stencil.hpp"

namespace trellis::structured {

struct TileShape {
  int x = 0, y = 0;  // lines per tile along î and ĵ; 0: the backend's default
};

/// Where a stencil entry's neighbour lies, in grid and wavefront coordinates.
struct EntryShift {
  int x, y, z;        // grid offset
  int hx, hy, level;  // the same offset in î, ĵ and level
};

template <class Device>
struct WavefrontLayout {
  using execution_space = typename Device::execution_space;
  std::array<int, 3> grid{0, 0, 0};
  WavefrontTransform transform;
  int width = 0, height = 0, levels = 0;  // extents of î, ĵ and level
  TileShape tile;
  int tiles_x = 0, tiles_y = 0;  // the tile grid
  int num_tiles = 0;             // tiles holding points (the others are skipped)

  Kokkos::View<long*, Device> base;           // levels * height
  Kokkos::View<ordinal_t*, Device> position;  // natural point index -> layout position
  Kokkos::View<int*, Device> order;           // ticket -> tile (ty * tiles_x + tx)
  Kokkos::View<int*, Device> first_level;     // per tile of the tile grid; INT_MAX when empty
  Kokkos::View<int*, Device> last_level;
  Kokkos::View<long long*, Device> flags;  // per tile: progress of the current sweep
  Kokkos::View<int, Device> ticket;
  long long epoch = 0;  // sweeps run so far: flags never need a reset
  /// A team publishes its progress and waits for its neighbours once per
  /// run of this many levels (runs aligned to multiples of it), not once
  /// per level: fewer fences and flag round trips, a lag of about one run
  /// per tile hop. 1 = every level.
  int levels_per_wait = 1;
  /// Teams launched per multiprocessor (2048 threads of the backend's
  /// concurrency; on host backends, teams in all); each team takes tiles by
  /// ticket until none is left. 0: one team per tile.
  int teams_per_sm = 0;

  long points() const { return long(grid[0]) * grid[1] * grid[2]; }
};

/// The default tile: a 128-thread block of 32 x 4 lines on GPUs; on host
/// backends (a team is one thread) 64 x 8 lines, to amortise the waits.
template <class Exec>
TileShape default_tile() {
  return detail::is_host_space<Exec>() ? TileShape{64, 8} : TileShape{32, 4};
}

inline std::vector<EntryShift> entry_shifts(const Stencil& s, const WavefrontTransform& t) {
  std::vector<EntryShift> out;
  for (const auto& o : s.offsets())
    out.push_back({o.x, o.y, o.z, t.hat_x(o.x, o.y, o.z), t.hat_y(o.y, o.z), t.level(o.x, o.y, o.z)});
  return out;
}

/// Point p of an nx x ny grid (numbered x fastest) in wavefront coordinates.
KOKKOS_INLINE_FUNCTION void wavefront_coordinates(const WavefrontTransform& t, int nx, int ny, long p, int& hi, int& hj,
                                                  int& lev) {
  const int i = int(p % nx), j = int((p / nx) % ny), k = int(p / (long(nx) * ny));
  hi = t.hat_x(i, j, k), hj = t.hat_y(j, k), lev = t.level(i, j, k);
}

/// A fresh copy of L's sweep progress (flags, ticket) sharing its tiles and
/// layout: two objects that sweep in turn must not share flags, whose
/// values count each object's own sweeps.
template <class Device>
void fresh_progress(WavefrontLayout<Device>& L) {
  L.flags = Kokkos::View<long long*, Device>("trellis::structilu::tile_flags", size_t(L.tiles_x) * L.tiles_y);
  L.ticket = Kokkos::View<int, Device>("trellis::structilu::ticket");
  L.epoch = 0;
}

/// Cuts the (î, ĵ) plane of L into tiles of the given shape (0: the
/// backend's default): the tile grid, each tile's levels, the ticket order
/// and the flags. The layout itself (base, position) does not depend on it.
template <class Device>
void assign_tiles(const typename Device::execution_space& space, WavefrontLayout<Device>& L, const Stencil& stencil,
                  TileShape tile) {
  using exec = typename Device::execution_space;
  const int nx = L.grid[0], ny = L.grid[1];
  const auto t = L.transform;
  const TileShape dflt = default_tile<exec>();
  L.tile = {tile.x > 0 ? tile.x : dflt.x, tile.y > 0 ? tile.y : dflt.y};
  // A dependency may only cross into the neighbouring tile.
  for (const auto& e : entry_shifts(stencil, t))
    if (std::abs(e.hx) > L.tile.x || std::abs(e.hy) > L.tile.y)
      throw InputError("structilu: tile " + std::to_string(L.tile.x) + "x" + std::to_string(L.tile.y) +
                       " is narrower than stencil " + stencil.name() + " reaches in wavefront coordinates");
  L.tiles_x = (L.width + L.tile.x - 1) / L.tile.x;
  L.tiles_y = (L.height + L.tile.y - 1) / L.tile.y;
  const int tiles_x = L.tiles_x;
  const TileShape ts = L.tile;
  L.first_level = Kokkos::View<int*, Device>(Kokkos::view_alloc(space, std::string("trellis::structilu::tile_first")),
                                             size_t(L.tiles_x) * L.tiles_y);
  L.last_level = Kokkos::View<int*, Device>(Kokkos::view_alloc(space, std::string("trellis::structilu::tile_last")),
                                            size_t(L.tiles_x) * L.tiles_y);
  Kokkos::deep_copy(space, L.first_level, INT_MAX);
  Kokkos::deep_copy(space, L.last_level, INT_MIN);
  const auto first_level = L.first_level, last_level = L.last_level;
  Kokkos::parallel_for(
      "trellis::structilu::tile_levels", trellis::RangePolicy<exec>(space, 0, L.points()), KOKKOS_LAMBDA(long p) {
        int hi, hj, lev;
        wavefront_coordinates(t, nx, ny, p, hi, hj, lev);
        const int tile_id = (hj / ts.y) * tiles_x + hi / ts.x;
        Kokkos::atomic_fetch_min(&first_level(tile_id), lev);
        Kokkos::atomic_fetch_max(&last_level(tile_id), lev);
      });

  // The ticket order, on the host: tiles by first level, each no earlier
  // than the tiles it waits on (key = max(own first level, their keys)),
  // ties broken by tx + ty so that a tile follows those with equal keys.
  auto h_first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), L.first_level);
  std::vector<int> key(h_first.extent(0), INT_MIN), tiles;
  for (int ty = 0; ty < L.tiles_y; ++ty)
    for (int tx = 0; tx < L.tiles_x; ++tx) {
      const int id = ty * L.tiles_x + tx;
      if (h_first(id) == INT_MAX) continue;
      int k = h_first(id);
      if (tx > 0) k = std::max(k, key[id - 1]);
      if (ty > 0) k = std::max(k, key[id - L.tiles_x]);
      if (tx > 0 && ty > 0) k = std::max(k, key[id - L.tiles_x - 1]);
      key[id] = k;
      tiles.push_back(id);
    }
  std::stable_sort(tiles.begin(), tiles.end(), [&](int a, int b) {
    const int da = a % L.tiles_x + a / L.tiles_x, db = b % L.tiles_x + b / L.tiles_x;
    return key[a] != key[b] ? key[a] < key[b] : da < db;
  });
  L.num_tiles = int(tiles.size());
  L.order = Kokkos::View<int*, Device>("trellis::structilu::tile_order", tiles.size());
  Kokkos::deep_copy(space, L.order,
                    Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(tiles.data(), tiles.size()));
  fresh_progress(L);
  space.fence();  // `tiles` leaves scope
}

/// Builds the mapping and layout of an nx x ny x nz grid for a stencil.
template <class Device>
WavefrontLayout<Device> make_wavefront_layout(const typename Device::execution_space& space, std::array<int, 3> grid,
                                              const Stencil& stencil, TileShape tile = {}) {
  using exec = typename Device::execution_space;
  WavefrontLayout<Device> L;
  L.grid = grid;
  const int nx = grid[0], ny = grid[1], nz = grid[2];
  const auto t = L.transform = stencil.wavefront(nx, ny, nz);
  L.width = t.hat_x(nx - 1, ny - 1, nz - 1) + 1;
  L.height = t.hat_y(ny - 1, nz - 1) + 1;
  L.levels = t.level(nx - 1, ny - 1, nz - 1) + 1;
  assign_tiles(space, L, stencil, tile);
  const long n = L.points();
  const int H = L.height;
  const long cells = long(L.levels) * H;

  Kokkos::View<long*, Device> count(Kokkos::view_alloc(space, "trellis::structilu::layout_count"), cells);
  Kokkos::View<int*, Device> first_hat(Kokkos::view_alloc(space, "trellis::structilu::layout_first"), cells);
  Kokkos::deep_copy(space, first_hat, INT_MAX);
  Kokkos::parallel_for(
      "trellis::structilu::layout_count", trellis::RangePolicy<exec>(space, 0, n), KOKKOS_LAMBDA(long p) {
        int hi, hj, lev;
        wavefront_coordinates(t, nx, ny, p, hi, hj, lev);
        const long cell = long(lev) * H + hj;
        compat::atomic_increment(&count(cell));
        Kokkos::atomic_fetch_min(&first_hat(cell), hi);
      });
  // base(cell) = (points in earlier cells) - first î of the cell
  L.base = Kokkos::View<long*, Device>(Kokkos::view_alloc(space, "trellis::structilu::layout_base"), cells);
  const auto base = L.base;
  Kokkos::parallel_scan(
      "trellis::structilu::layout_base", trellis::RangePolicy<exec>(space, 0, cells),
      KOKKOS_LAMBDA(long c, long& before, bool final) {
        if (final) base(c) = before - (count(c) ? first_hat(c) : 0);
        before += count(c);
      });
  L.position = Kokkos::View<ordinal_t*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::structilu::layout_position"), n);
  const auto position = L.position;
  Kokkos::parallel_for(
      "trellis::structilu::layout_position", trellis::RangePolicy<exec>(space, 0, n), KOKKOS_LAMBDA(long p) {
        int hi, hj, lev;
        wavefront_coordinates(t, nx, ny, p, hi, hj, lev);
        position(p) = ordinal_t(base(long(lev) * H + hj) + hi);
      });
  space.fence();  // count and first_hat leave scope
  return L;
}

}  // namespace trellis::structured
