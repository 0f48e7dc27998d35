#pragma once
// StructILU's triangular sweeps with each value as its own ready flag (the
// sentinel of trsv's elmr-value and block-syncfree). The output starts
// filled with the sentinel; a point's x is ready for the other tiles once
// it no longer holds it. Inside a tile the values of the last D levels (D =
// the stencil's level reach + 1) sit in a ring in team scratch, so only the
// dependencies that cross into a neighbour tile read device memory.
//
// Per level a team runs its lines' points, then one barrier: no tile flags
// and no fences, where wavefront_sweep pays a release fence, a flag, a poll,
// an acquire fence and two barriers per level (the factorization keeps that
// sweep: its values are blocks, with no sentinel). On GPUs each thread loads
// its next point's right-hand side, blocks and neighbour-tile values before
// the barrier, so when the neighbour tiles are ahead, as they are once the
// pipeline is full, a level costs the barrier and the arithmetic; a value
// still unpublished then is waited for after the barrier.
//
// Deadlock freedom is wavefront_sweep's: a team waits only on values of the
// three tiles before it in ticket order, taken by teams already running.
// Every point is summed by one thread in a fixed order: bit-reproducible.
#include <Kokkos_Core.hpp>
#include <limits>

#include "trellis/structured/detail/struct_ilu_kernels.hpp"
#include "trellis/structured/wavefront_layout.hpp"
#include "trellis/trsv/detail/value_flag_kernels.hpp"

namespace trellis::structured::detail {

template <class Scalar>
using SweepBits = typename trellis::detail::Unpublished<Scalar>::bits_type;

/// Fills v with the sentinel: every value unpublished.
template <class Scalar, class Device>
void unpublish(const typename Device::execution_space& space, Kokkos::View<Scalar*, Device> v) {
  using Bits = SweepBits<Scalar>;
  Bits* bits = reinterpret_cast<Bits*>(v.data());
  Kokkos::parallel_for(
      "trellis::structilu::unpublish", Kokkos::RangePolicy<typename Device::execution_space>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(size_t i) { bits[i] = trellis::detail::Unpublished<Scalar>::bits; });
}

/// What a point's solve loads before its level's barrier: the right-hand
/// side, the neighbours' positions, the first entries' blocks and the first
/// entries' neighbour values as they stand (possibly still unpublished).
template <int B, class Scalar>
struct ValueSweepState {
  // Kept small: every register here costs resident tiles (see team_limit).
  static constexpr int max_entries = 8;                             // positions kept
  static constexpr int blocks = 8 / (B * B) < 8 ? 8 / (B * B) : 8;  // blocks kept
  static constexpr int early = 8 / B;                               // neighbour values kept
  Scalar rhs[B];
  int q[max_entries];  // layout positions (< points, which fit an int); -1 outside the grid
  Scalar block[blocks > 0 ? blocks* B* B : 1];
  Scalar x[early * B];
};

/// A team's threads on GPUs, and the launch bound that keeps at least five
/// teams of it per SM (at most 102 registers a thread on an H100). Every
/// tile of a sweep must be resident for its waits to overlap: at 216
/// registers (two teams per SM) the 585 tiles of a 257^3 star7 grid ran in
/// 2.2 waves. A tile of more lines than this runs several lines per thread.
constexpr int team_limit = 128;
using SweepLaunchBounds = Kokkos::LaunchBounds<team_limit, 5>;

/// out = L^{-1} in (unit lower, forward sweep) or out = U^{-1} in (backward
/// sweep, the centre entry holding U's inverse diagonal blocks), layout
/// order, B values per point. `out` must hold the sentinel everywhere (see
/// unpublish); `consumed`, when given (it may be `in`'s storage), is set to
/// the sentinel point by point as `in` is read, so it can be the next
/// sweep's output with no fill.
template <int B, class Scalar, class Device>
void value_sweep(const typename Device::execution_space& space, WavefrontLayout<Device>& L,
                 const FactorStorage<Scalar, Device>& F, Kokkos::View<const Scalar*, Device> in,
                 Kokkos::View<Scalar*, Device> out, Kokkos::View<Scalar*, Device> consumed, bool lower) {
  using exec = typename Device::execution_space;
  using policy = Kokkos::TeamPolicy<exec, SweepLaunchBounds>;
  using member_type = typename policy::member_type;
  using State = ValueSweepState<B, Scalar>;
  using Bits = SweepBits<Scalar>;
  using Ring = Kokkos::View<Scalar*, typename exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr Bits unpublished = trellis::detail::Unpublished<Scalar>::bits;
  if (L.num_tiles == 0) return;
  const bool forward = lower;
  const int tiles_x = L.tiles_x, num_tiles = L.num_tiles, H = L.height;
  const int nx = L.grid[0], ny = L.grid[1], nz = L.grid[2];
  const TileShape ts = L.tile;
  const auto t = L.transform;
  const auto order = L.order, first_level = L.first_level, last_level = L.last_level;
  const auto ticket = L.ticket;
  const auto base = L.base;
  const auto values = F.values;
  const auto shifts = F.shifts;
  const int centre = F.centre, e0 = lower ? 0 : F.centre + 1, e1 = lower ? F.centre : F.entries;
  Bits* const out_bits = reinterpret_cast<Bits*>(out.data());
  const bool consume = consumed.data() != nullptr;
  // the sentinel as a Scalar: `consumed` may share `in`'s storage, and a
  // store of another type could be reordered before the load of `in`
  trellis::detail::ScalarBits<Scalar> sentinel_value;
  sentinel_value.bits = unpublished;
  const Scalar sentinel = sentinel_value.value;
  constexpr Bits quiet_bit = Bits(1) << (std::numeric_limits<Scalar>::digits - 2);
  const int lines = ts.x * ts.y;
  const int team = trellis::detail::is_host_space<exec>() ? 1 : (lines < team_limit ? lines : team_limit);
  const int D = (lower ? F.lower_level_reach : F.upper_level_reach) + 1;
  const size_t ring_size = size_t(D) * lines * B;
  const bool use_ring = Ring::shmem_size(ring_size) <= size_t(policy::scratch_size_max(0));
  // Ticket, tile and the (î, ĵ, level) -> grid point map, as wavefront_sweep.
  auto point_of = [=] KOKKOS_FUNCTION(int tx, int ty, int line, int lev, SweepPoint& p) {
    p.hi = tx * ts.x + line % ts.x, p.hj = ty * ts.y + line / ts.x, p.level = lev;
    p.k = lev - p.hi - p.hj;
    p.j = p.hj - t.c * p.k;
    p.i = p.hi - t.a * p.j - t.b * p.k;
    if (p.i < 0 || p.j < 0 || p.k < 0 || p.i >= nx || p.j >= ny || p.k >= nz) return false;
    p.position = long(base(long(lev) * H + p.hj) + p.hi);
    return true;
  };
  // The line of the same tile holding entry s's neighbour, or -1.
  auto line_inside = [=] KOKKOS_FUNCTION(int line, const EntryShift& s) {
    const int lx = line % ts.x + s.hx, ly = line / ts.x + s.hy;
    return lx >= 0 && lx < ts.x && ly >= 0 && ly < ts.y ? ly * ts.x + lx : -1;
  };
  auto prefetch = [=] KOKKOS_FUNCTION(int line, const SweepPoint& p) {
    State st;
    for (int r = 0; r < B; ++r) st.rhs[r] = in(p.position * B + r);
    if (consume)
      for (int r = 0; r < B; ++r) consumed(p.position * B + r) = sentinel;
#pragma unroll
    for (int e = 0; e < State::max_entries; ++e)
      if (e0 + e < e1)
        st.q[e] = (int)neighbour_position(base, H, nx, ny, nz, shifts(e0 + e), p.i, p.j, p.k, p.hi, p.hj, p.level);
#pragma unroll
    for (int e = 0; e < State::blocks; ++e)
      if (e0 + e < e1 && st.q[e] >= 0)
        for (int c = 0; c < B; ++c)
          for (int r = 0; r < B; ++r) st.block[(e * B + c) * B + r] = values(F.at(e0 + e, p.position, r, c));
#pragma unroll
    for (int e = 0; e < State::early; ++e)
      if (e0 + e < e1 && st.q[e] >= 0 && !(use_ring && line_inside(line, shifts(e0 + e)) >= 0))
        for (int c = 0; c < B; ++c) {
          trellis::detail::ScalarBits<Scalar> v;
          v.bits = Kokkos::volatile_load(out_bits + long(st.q[e]) * B + c);
          st.x[e * B + c] = v.value;
        }
    return st;
  };
  // Neighbour q's values along entry e: from the ring when q lies in this
  // tile, else from `out`, waiting while unpublished.
  auto neighbour = [=] KOKKOS_FUNCTION(const Ring& ring, int line, const SweepPoint& p, int e, long q,
                                       const Scalar* early, Scalar* xq) {
    const EntryShift s = shifts(e);
    const int inside = use_ring ? line_inside(line, s) : -1;
    if (inside >= 0) {
      const size_t slot = size_t((p.level + s.level) % D) * lines + inside;
      for (int c = 0; c < B; ++c) xq[c] = ring(slot * B + c);
      return;
    }
    for (int c = 0; c < B; ++c) {
      trellis::detail::ScalarBits<Scalar> v;
      if (early) v.value = early[c];
      if (!early || v.bits == unpublished) v.value = trellis::detail::wait_for_value<Scalar>(out_bits + q * B + c);
      xq[c] = v.value;
    }
  };
  auto solve = [=] KOKKOS_FUNCTION(const Ring& ring, int line, const SweepPoint& p, const State& st) {
    Scalar acc[B];
    for (int r = 0; r < B; ++r) acc[r] = st.rhs[r];
#pragma unroll
    for (int e = 0; e < State::max_entries; ++e) {
      if (e0 + e >= e1 || st.q[e] < 0) continue;
      Scalar xq[B];
      neighbour(ring, line, p, e0 + e, st.q[e], e < State::early ? st.x + (e < State::early ? e : 0) * B : nullptr, xq);
      for (int c = 0; c < B; ++c)
        for (int r = 0; r < B; ++r)
          acc[r] -= (e < State::blocks ? st.block[((e < State::blocks ? e : 0) * B + c) * B + r]
                                       : values(F.at(e0 + e, p.position, r, c))) *
                    xq[c];
    }
    for (int e = e0 + State::max_entries; e < e1; ++e) {  // entries beyond the kept ones
      const long q = neighbour_position(base, H, nx, ny, nz, shifts(e), p.i, p.j, p.k, p.hi, p.hj, p.level);
      if (q < 0) continue;
      Scalar xq[B];
      neighbour(ring, line, p, e, q, nullptr, xq);
      for (int c = 0; c < B; ++c)
        for (int r = 0; r < B; ++r) acc[r] -= values(F.at(e, p.position, r, c)) * xq[c];
    }
    const size_t slot = size_t(p.level % D) * lines + line;
    for (int r = 0; r < B; ++r) {
      trellis::detail::ScalarBits<Scalar> v;
      if (lower) {
        v.value = acc[r];
      } else {
        v.value = 0;
        for (int c = 0; c < B; ++c) v.value += values(F.at(centre, p.position, r, c)) * acc[c];
      }
      // a right-hand side holding the sentinel's bits, passed through
      // without arithmetic, must not publish "unpublished"
      if (v.bits == unpublished) v.bits |= quiet_bit;
      if (use_ring) ring(slot * B + r) = v.value;
      Kokkos::volatile_store(out_bits + p.position * B + r, v.bits);
    }
  };
  Kokkos::parallel_for(
      lower ? "trellis::structilu::lower_solve" : "trellis::structilu::upper_solve",
      policy(space, num_tiles, team).set_scratch_size(0, Kokkos::PerTeam(use_ring ? Ring::shmem_size(ring_size) : 0)),
      KOKKOS_LAMBDA(const member_type& m) {
        int my_ticket = 0;
        Kokkos::single(
            Kokkos::PerTeam(m), [&](int& v) { v = trellis::detail::take_ticket(ticket, num_tiles); }, my_ticket);
        const int tile_id = order(forward ? my_ticket : num_tiles - 1 - my_ticket);
        const int tx = tile_id % tiles_x, ty = tile_id / tiles_x;
        const Ring ring = use_ring ? Ring(m.team_scratch(0), ring_size) : Ring();
        const int l0 = first_level(tile_id), l1 = last_level(tile_id), steps = l1 - l0 + 1;
        auto level_of = [&](int s) { return forward ? l0 + s : l1 - s; };
        if (team < lines) {  // each thread runs lines rank, rank + team, ... in turn
          for (int s = 0; s < steps; ++s) {
            for (int line = m.team_rank(); line < lines; line += team) {
              SweepPoint p;
              if (point_of(tx, ty, line, level_of(s), p)) solve(ring, line, p, prefetch(line, p));
            }
            m.team_barrier();
          }
          return;
        }
        const int line = m.team_rank();
        SweepPoint p;
        bool mine = point_of(tx, ty, line, level_of(0), p);
        State st;
        if (mine) st = prefetch(line, p);
        for (int s = 0; s < steps; ++s) {
          if (mine) solve(ring, line, p, st);
          SweepPoint next;
          const bool next_mine = s + 1 < steps && point_of(tx, ty, line, level_of(s + 1), next);
          if (next_mine) st = prefetch(line, next);
          m.team_barrier();  // this level's ring slot is written
          p = next, mine = next_mine;
        }
      });
}

}  // namespace trellis::structured::detail
