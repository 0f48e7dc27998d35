#pragma once
// The sweep engine over a WavefrontLayout (seed 003, section 4.1): teams
// take tiles by ticket and walk their levels in order.
//
// Waiting. Before a level, one thread of the team waits until the three
// tiles it can depend on ((-1, 0), (0, -1), (-1, -1) in tile coordinates;
// tiles are at least as wide as the stencil reaches) have finished the
// previous level; a tile's flag counts its finished levels. Teams take
// tickets in the order `order` lists the tiles, an order in which every
// tile comes after the tiles it waits on (a topological order that issues
// tiles by their first level, as the paper does). So a team only ever waits
// on a ticket taken before its own, by a team that is running or done: no
// deadlock on any backend, whatever the number of resident teams. A team
// that finishes its tile takes the next ticket (teams_per_sm: fewer teams
// than tiles); a tile is only ever waited on once its ticket is taken.
#include <Kokkos_Core.hpp>
#include <climits>
#include <type_traits>

#include "trellis/core/backend.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/tickets.hpp"
#include "trellis/structured/wavefront_layout.hpp"

namespace trellis::structured {

/// A point of the sweep, as the bodies see it.
struct SweepPoint {
  int i, j, k;    // grid coordinates
  int hi, hj;     // wavefront coordinates
  int level;      //
  long position;  // in the layout
};

/// What a body needs no other point for (its matrix values, its right-hand
/// side, its neighbours' positions), loaded before the level's wait so the
/// loads overlap it; bodies that have nothing to prefetch use NoPrefetch.
struct NoPrefetch {
  struct State {};
  KOKKOS_INLINE_FUNCTION State operator()(const SweepPoint&, int) const { return {}; }
};

/// A team kernel that takes its team size as an argument (one functor type
/// for the size query and the launch).
template <class Kernel, class Member>
struct TeamLaunch {
  Kernel kernel;
  int team;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const { kernel(m, team); }
};

/// A step run once per point after all its lanes' bodies (see
/// wavefront_sweep); NoFinish when there is none.
struct NoFinish {
  static constexpr bool active = false;
  KOKKOS_INLINE_FUNCTION void operator()(const SweepPoint&) const {}
};
template <class F>
struct Finish {
  static constexpr bool active = true;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(const SweepPoint& p) const { f(p); }
};
template <class F>
Finish<F> finish_with(const F& f) {
  return Finish<F>{f};
}

/// A step run on each point before its level's wait (see wavefront_sweep),
/// changing the state its body gets; NoEarly when there is none.
struct NoEarly {
  template <class State>
  KOKKOS_INLINE_FUNCTION void operator()(const SweepPoint&, State&, int) const {}
};
template <class F>
struct Early {
  F f;
  template <class State>
  KOKKOS_INLINE_FUNCTION void operator()(const SweepPoint& p, State& state, int lane) const {
    f(p, state, lane);
  }
};
template <class F>
Early<F> early_with(const F& f) {
  return Early<F>{f};
}

namespace detail {

/// How a sweep's team runs a tile's points (one kernel each, so that the
/// rarely used modes' registers do not weigh on the common one: for sm_90
/// the three in one kernel took 1.1-2.3x the registers of the first alone).
enum SweepMode : int {
  lane_threads = 0,   // a thread per lane of every line: lines x lanes threads
  strided_lanes = 1,  // groups of lanes threads, each taking several lines
  point_threads = 2,  // a thread per whole point (host backends, or lanes beyond a team)
};

/// One launch of wavefront_sweep in the given mode; false (nothing run) when
/// the mode does not fit this backend or the kernel's team size.
template <int Mode, class Device, class Prefetch, class Body, class FinishStep, class EarlyStep>
bool sweep_tiles(const typename Device::execution_space& space, const WavefrontLayout<Device>& L, bool forward,
                 long long start, const char* label, const Prefetch& prefetch, const Body& body, int lanes,
                 const FinishStep& finish, int phases, const EarlyStep& early) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  using member_type = typename policy::member_type;
  using State = decltype(prefetch(SweepPoint{}, 0));
  const bool on_host = trellis::detail::is_host_space<exec>();
  if (on_host && Mode != point_threads) return false;
  const int levels = L.levels, tiles_x = L.tiles_x, tiles_y = L.tiles_y, num_tiles = L.num_tiles, H = L.height;
  const int nx = L.grid[0], ny = L.grid[1], nz = L.grid[2];
  const TileShape ts = L.tile;
  const auto t = L.transform;
  const auto order = L.order, first_level = L.first_level, last_level = L.last_level;
  const auto flags = L.flags;
  const auto ticket = L.ticket;
  const auto base = L.base;
  // progress(lev): the flag value once the sweep has finished level lev
  auto progress = [=] KOKKOS_FUNCTION(int lev) -> long long { return start + (forward ? lev + 1 : levels - lev); };
  const int lines = ts.x * ts.y;
  const int per_wait = L.levels_per_wait > 0 ? L.levels_per_wait : 1;
  // The kernel's teams (league) take tiles by ticket until every tile is
  // taken: league + num_tiles tickets in all, each team's last one past the
  // tiles.
  const int multiprocessors = std::max(1, int(space.concurrency() / 2048));
  const int league = L.teams_per_sm <= 0 ? num_tiles : std::min(num_tiles, L.teams_per_sm * multiprocessors);
  // One tile, the ticket's, level by level.
  auto sweep_tile = [=] KOKKOS_FUNCTION(const member_type& m, int team, int my_ticket) {
    const int tile_id = order(forward ? my_ticket : num_tiles - 1 - my_ticket);
    const int tx = tile_id % tiles_x, ty = tile_id / tiles_x;
    const int step = forward ? 1 : -1;
    int nb[3] = {-1, -1, -1};
    {
      const int ax = tx - step, ay = ty - step;
      const bool okx = ax >= 0 && ax < tiles_x, oky = ay >= 0 && ay < tiles_y;
      if (okx) nb[0] = ty * tiles_x + ax;
      if (oky) nb[1] = ay * tiles_x + tx;
      if (okx && oky) nb[2] = ay * tiles_x + ax;
    }
    const int l0 = first_level(tile_id), l1 = last_level(tile_id);
    // the neighbours' levels, loaded once a tile (not at each wait)
    int nb_first[3], nb_last[3];
    for (int q = 0; q < 3; ++q) {
      nb_first[q] = nb[q] < 0 ? INT_MAX : first_level(nb[q]);
      nb_last[q] = nb[q] < 0 ? INT_MIN : last_level(nb[q]);
    }
    // the grid point of plane point (hi, hj) at level lev, without its
    // position; false when it is outside the grid
    auto locate = [&](int hi, int hj, int lev, SweepPoint& p) {
      p.hi = hi, p.hj = hj, p.level = lev;
      p.k = lev - hi - hj;
      p.j = hj - t.c * p.k;
      p.i = hi - t.a * p.j - t.b * p.k;
      return p.i >= 0 && p.j >= 0 && p.k >= 0 && p.i < nx && p.j < ny && p.k < nz;
    };
    auto point_of = [&](int line, int lev, SweepPoint& p) {
      if (!locate(tx * ts.x + line % ts.x, ty * ts.y + line / ts.x, lev, p)) return false;
      p.position = long(base(long(lev) * H + p.hj) + p.hi);
      return true;
    };
    // The flags last seen (only the waiting thread's copy is used): a
    // neighbour already far enough ahead is not polled again.
    long long seen[3] = {LLONG_MIN, LLONG_MIN, LLONG_MIN};
    // Runs of levels_per_wait levels, aligned to its multiples: a team
    // publishes and waits at the first level of each run, for what the
    // run's last level needs.
    auto run_last = [&](int lev) {
      const int first = lev - lev % per_wait, last = first + per_wait - 1;  // the run holding lev
      return forward ? (last < l1 ? last : l1) : (first > l0 ? first : l0);
    };
    auto publish = [&](int lev) {  // this tile's level before lev
      Kokkos::memory_fence();      // release its values
      Kokkos::volatile_store(&flags(tile_id), progress(lev - step));
    };
    auto wait_for_neighbours = [&](int lev) {
      long long need[3];
      const int last = run_last(lev);
      for (int q = 0; q < 3; ++q) {
        need[q] = LLONG_MIN;
        const int f = nb_first[q], l = nb_last[q];
        if (f > l) continue;  // no tile, or an empty one
        // the neighbour's part of the levels before the run's last, if it has one
        if (forward ? f > last - 1 : l < last + 1) continue;
        need[q] = progress(forward ? (l < last - 1 ? l : last - 1) : (f > last + 1 ? f : last + 1));
      }
      // the three flags are loaded together, then compared
      while (seen[0] < need[0] || seen[1] < need[1] || seen[2] < need[2]) {
        long long now[3];
        for (int q = 0; q < 3; ++q) now[q] = seen[q] < need[q] ? Kokkos::volatile_load(&flags(nb[q])) : seen[q];
        for (int q = 0; q < 3; ++q) seen[q] = now[q];
      }
      Kokkos::memory_fence();  // acquire: the neighbours' values follow their flags
    };
    // At a run's first level: one thread publishes, the early steps run,
    // the thread waits, then a barrier (single(PerTeam) does not hold the
    // other threads back). An early step needs two levels back, which the
    // last wait covered; the tile's first level has had none, so there it
    // runs after the wait.
    int run_left = 0;  // levels of the current run after this one (no division at each level)
    auto wait_at_run_start = [&](int s, int lev, const auto& early_step) {
      if (run_left > 0) {
        --run_left;
        early_step();
        return;
      }
      run_left = forward ? per_wait - 1 - lev % per_wait : lev % per_wait;
      if (s > 0) {
        Kokkos::single(Kokkos::PerTeam(m), [&]() { publish(lev); });
        early_step();
      }
      Kokkos::single(Kokkos::PerTeam(m), [&]() { wait_for_neighbours(lev); });
      m.team_barrier();
      if (s == 0) early_step();
    };
    const int count = l1 - l0 + 1;  // the tile's levels, in sweep order
    auto level_of = [&](int s) { return forward ? l0 + s : l1 - s; };
    if (Mode == lane_threads) {  // (not constexpr: nvcc's extended lambdas cannot capture inside one)
      const int my_line = m.team_rank() / lanes, my_lane = m.team_rank() % lanes;
      auto run_level = [&](int s, const SweepPoint& p, bool mine, State& state) {
        wait_at_run_start(s, p.level, [&]() {
          if (mine) early(p, state, my_lane);
        });
        for (int phase = 0; phase < phases; ++phase) {
          if (mine) body(p, state, my_lane, phase);
          m.team_barrier();
        }
        if (FinishStep::active) {
          if (mine && my_lane == 0) finish(p);
          m.team_barrier();
        }
      };
      // With a small prefetched state, each thread's next point is in
      // flight while this level runs: its coordinates, its position (from
      // the layout's base, loaded a level before that) and its loads
      // (positions, matrix values, right-hand side: nothing another point
      // writes). So no load of a level waits on another load of it. Holding
      // two or three levels in flight was slower on an H200, and so was the
      // next point alone where nothing else is prefetched: it only costs
      // registers there (perf_tests/journal/RESULTS.md).
      constexpr bool ahead = !std::is_empty<State>::value && sizeof(State) <= 128;
      if (ahead) {
        const int my_hj = ty * ts.y + my_line / ts.x, my_hi = tx * ts.x + my_line % ts.x;
        auto base_of_step = [&](int s) -> long {
          return s < count && my_hj < H ? base(long(level_of(s)) * H + my_hj) : 0;
        };
        SweepPoint p_next;
        State state_next{};
        bool mine_next = false;
        long base_next = base_of_step(0);  // base(level, my_hj) of the step being filled
        auto fill = [&](int s) {           // the next point: step s
          mine_next = s < count && locate(my_hi, my_hj, level_of(s), p_next);
          p_next.position = base_next + my_hi;
          if (mine_next) state_next = prefetch(p_next, my_lane);
          base_next = base_of_step(s + 1);
        };
        fill(0);
        for (int s = 0; s < count; ++s) {
          const SweepPoint p = p_next;
          const bool mine = mine_next;
          State state = state_next;
          fill(s + 1);
          run_level(s, p, mine, state);
        }
      } else {
        for (int s = 0; s < count; ++s) {
          SweepPoint p;
          const bool mine = point_of(my_line, level_of(s), p);
          State state{};
          if (mine) state = prefetch(p, my_lane);
          run_level(s, p, mine, state);
        }
      }
    } else {
      for (int s = 0; s < count; ++s) {
        const int lev = level_of(s);
        if (Mode == strided_lanes) {  // groups of lanes threads, each walking lines group, group + groups, ...
          const int groups = team / lanes, group = m.team_rank() / lanes, lane = m.team_rank() % lanes;
          wait_at_run_start(s, lev, [] {});
          for (int phase = 0; phase < phases; ++phase) {
            for (int line = group; line < lines; line += groups) {
              SweepPoint p;
              if (!point_of(line, lev, p)) continue;
              State state = prefetch(p, lane);
              early(p, state, lane);
              body(p, state, lane, phase);
            }
            m.team_barrier();
          }
          if (FinishStep::active) {
            for (int line = group; line < lines && lane == 0; line += groups) {
              SweepPoint p;
              if (point_of(line, lev, p)) finish(p);
            }
            m.team_barrier();
          }
        } else {
          wait_at_run_start(s, lev, [] {});
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, lines), [&](int line) {
            SweepPoint p;
            if (!point_of(line, lev, p)) return;
            for (int phase = 0; phase < phases; ++phase)
              for (int r = 0; r < lanes; ++r) {
                State state = prefetch(p, r);
                early(p, state, r);
                body(p, state, r, phase);
              }
            if (FinishStep::active) finish(p);
          });
          m.team_barrier();
        }
      }
    }
    Kokkos::single(Kokkos::PerTeam(m), [&]() {
      Kokkos::memory_fence();
      Kokkos::volatile_store(&flags(tile_id), progress(forward ? l1 : l0));
    });
  };
  auto kernel = KOKKOS_LAMBDA(const member_type& m, int team) {
    for (;;) {
      int my_ticket = 0;
      Kokkos::single(
          Kokkos::PerTeam(m), [&](int& v) { v = trellis::detail::take_ticket(ticket, num_tiles + league); }, my_ticket);
      if (my_ticket >= num_tiles) return;
      sweep_tile(m, team, my_ticket);
    }
  };
  TeamLaunch<decltype(kernel), member_type> launch{kernel, 1};
  if (!on_host) {
    const int most = policy(space, 1, 1).team_size_max(launch, Kokkos::ParallelForTag());
    if (Mode == lane_threads && lines * lanes > most) return false;
    if (Mode == strided_lanes && lanes > most) return false;
    launch.team = Mode == lane_threads    ? lines * lanes
                  : Mode == strided_lanes ? most / lanes * lanes
                  : lines < most          ? lines
                                          : most;
  }
  Kokkos::parallel_for(label, policy(space, league, launch.team), launch);
  return true;
}

}  // namespace detail

/// Runs body(point, state, lane, phase) for phase = 0 .. phases-1, each for
/// lane = 0 .. lanes-1, then finish(point), on every grid point, in the
/// forward (increasing levels) or backward sweep order, each point after
/// all points it may depend on (see the header comment); state is
/// prefetch(point, lane), then changed by early(point, state, lane). On
/// GPUs a point's lanes are threads of the team (lines x lanes threads),
/// with a barrier after each phase: a phase sees what every lane of the
/// point wrote in the phases before it.
///
/// Per level and team: every thread prefetches its point (lane threads
/// with a small state: the next level's, see sweep_tiles); at the first
/// level of a run of L.levels_per_wait, one thread publishes the previous
/// level (release fence, flag), the early steps run, the thread waits for
/// the neighbour tiles and fences (acquire), then a barrier; the bodies
/// run; a barrier. So the gpu-scope fences are two per team and run, not
/// one per thread, and an early step overlaps the wait: it may read only
/// what is two levels back or more (points of the levels before the
/// previous one). On host backends a team is one thread that runs the
/// tile's lines in turn.
template <class Device, class Prefetch, class Body, class FinishStep = NoFinish, class EarlyStep = NoEarly>
void wavefront_sweep(const typename Device::execution_space& space, WavefrontLayout<Device>& L, bool forward,
                     const char* label, const Prefetch& prefetch, const Body& body, int lanes = 1,
                     const FinishStep& finish = FinishStep(), int phases = 1, const EarlyStep& early = EarlyStep()) {
  if (L.num_tiles == 0) return;
  const long long start = (++L.epoch) * (L.levels + 1);
  // A point's lanes as threads when the team fits the kernel's registers;
  // a user tile can ask for more: then groups of lanes threads take several
  // lines each, else each thread runs whole points.
  using namespace detail;
  if (sweep_tiles<lane_threads, Device>(space, L, forward, start, label, prefetch, body, lanes, finish, phases, early))
    return;
  if (sweep_tiles<strided_lanes, Device>(space, L, forward, start, label, prefetch, body, lanes, finish, phases, early))
    return;
  sweep_tiles<point_threads, Device>(space, L, forward, start, label, prefetch, body, lanes, finish, phases, early);
}

}  // namespace trellis::structured
