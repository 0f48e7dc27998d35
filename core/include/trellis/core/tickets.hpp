#pragma once
// Work handed out in dependency order, for kernels whose teams wait on each
// other (sync-free solves, the level analysis). Deadlock freedom must not
// rest on the hardware starting blocks in index order: a team takes an
// atomic ticket when it starts and works on the items of that ticket, so a
// team only ever waits on items of earlier tickets, taken by teams already
// running (DESIGN.md).
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/core/types.hpp"

namespace trellis::detail {

/// Hands out tickets 0, 1, 2, ... in the order teams start; the team that
/// takes the last ticket of the launch resets the counter for the next solve.
template <class TicketView>
KOKKOS_INLINE_FUNCTION int take_ticket(const TicketView& ticket, int total) {
  const int t = Kokkos::atomic_fetch_add(&ticket(), 1);
  if (t == total - 1) Kokkos::atomic_exchange(&ticket(), 0);
  return t;
}

/// Launches body(member, position) on one vector group per position
/// 0..n-1. Tickets are taken per team (one atomic per block, not per warp)
/// and a team's vector groups take consecutive positions: a team only waits
/// on positions before its own, held by teams that started earlier or by its
/// own co-resident groups, never by a team that may not have started.
/// scratch_bytes: level-0 team scratch for the body; team_rows: vector
/// groups a team (0: the backend's rows_per_team); thread_scratch_bytes:
/// level-0 scratch of each vector group.
template <class Exec, class TicketView, class Body>
void for_each_ticket(const Exec& space, const TicketView& ticket, ordinal_t n, const char* label, int vector_width,
                     const Body& body, size_t scratch_bytes = 0, int team_rows = 0, size_t thread_scratch_bytes = 0) {
  using team_policy = trellis::TeamPolicy<Exec>;
  using member_type = typename team_policy::member_type;
  if (n == 0) return;
  const int team = team_rows > 0 && !is_host_space<Exec>() ? team_rows : rows_per_team<Exec>(vector_width);
  const int league = (n + team - 1) / team;
  Kokkos::parallel_for(
      label,
      team_policy(space, league, team, vector_width)
          .set_scratch_size(0, Kokkos::PerTeam(scratch_bytes), Kokkos::PerThread(thread_scratch_bytes)),
      KOKKOS_LAMBDA(const member_type& m) {
        int block = 0;
        Kokkos::single(
            Kokkos::PerTeam(m), [&](int& v) { v = take_ticket(ticket, league); }, block);
        const int t = block * team + m.team_rank();
        if (t < n) body(m, t);
      });
}

/// Returns when ready(k) holds for every k in [k0, k1), on vector group m:
/// the lanes look at every k once, and only if one is not ready does lane 0
/// wait, for each in turn (never lanes on lanes of their own group). The
/// caller fences after it where the flags guard other data.
template <class Member, class Ready>
KOKKOS_INLINE_FUNCTION void wait_until_ready(const Member& m, offset_t k0, offset_t k1, const Ready& ready) {
  int pending = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, k0, k1), [&](offset_t k, int& waiting) { waiting += !ready(k); }, pending);
  if (pending)
    Kokkos::single(Kokkos::PerThread(m), [&]() {
      for (offset_t k = k0; k < k1; ++k)
        while (!ready(k)) {
        }
    });
}

}  // namespace trellis::detail
