#pragma once
// Element-scheduled (sync-free) triangular solves (seed 002, Algorithms 3
// and 4; kernels ELMR and ELMC of section 5.1) and the naive sync-free
// baseline the paper calls GSF.
//
// Deadlock freedom does not rest on the hardware starting blocks in index
// order: each vector group (a warp on GPUs) takes an atomic ticket when it
// starts and solves unknown jlev(ticket). A row depends only on rows of lower
// levels, which sit at lower tickets, already taken by running groups; so
// every wait is on work in progress, on any backend.
//
// Waiting is done by one lane of the group (never by lanes waiting on lanes
// of their own group); results are published then flagged: value, fence,
// flag. Flags and counters hold solve numbers ("epochs"), so they need no
// reset between solves.
#include <Kokkos_Core.hpp>
#include <climits>

#include "trellis/trsv/detail/factor_data.hpp"
#include "trellis/trsv/detail/launch_shape.hpp"
#include "trellis/trsv/detail/levelset_kernels.hpp"

namespace trellis::detail {

/// Next solve number; resets flags and counters before the counters
/// (epoch * dependencies) could overflow.
template <class Scalar, class Device>
int next_epoch(FactorData<Scalar, Device>& d) {
  const int limit = INT_MAX / std::max(1, d.max_deps) - 1;
  if (d.epoch >= limit) {
    Kokkos::deep_copy(d.ready, 0);
    Kokkos::deep_copy(d.counters, 0);
    d.epoch = 0;
  }
  return ++d.epoch;
}

/// Hands out tickets 0, 1, 2, ... in the order teams start; the team that
/// takes the last ticket of the launch resets the counter for the next solve.
template <class TicketView>
KOKKOS_INLINE_FUNCTION int take_ticket(const TicketView& ticket, int total) {
  const int t = Kokkos::atomic_fetch_add(&ticket(), 1);
  if (t == total - 1) Kokkos::atomic_exchange(&ticket(), 0);
  return t;
}

/// Launches body(member, position) on one vector group per unknown. Tickets
/// are taken per team (one atomic per block, not per warp) and a team's vector
/// groups take consecutive positions: a team only waits on positions before
/// its own, held by teams that started earlier or by its own co-resident
/// groups, never by a team that may not have started.
template <class Scalar, class Device, class Body>
void for_each_ticket(const FactorData<Scalar, Device>& d, const char* label, int vector_width,
                     const Body& body) {
  using exec = typename Device::execution_space;
  using team_policy = Kokkos::TeamPolicy<exec>;
  using member_type = typename team_policy::member_type;
  if (d.n == 0) return;
  const int team = rows_per_team<exec>(vector_width);
  const int league = (d.n + team - 1) / team;
  const ordinal_t n = d.n;
  const auto ticket = d.ticket;
  Kokkos::parallel_for(
      label, team_policy(league, team, vector_width), KOKKOS_LAMBDA(const member_type& m) {
        int block = 0;
        Kokkos::single(
            Kokkos::PerTeam(m), [&](int& v) { v = take_ticket(ticket, league); }, block);
        const int t = block * team + m.team_rank();
        if (t < n) body(m, t);
      });
}

/// ELMR: warp t solves unknown jlev(t); lane 0 waits for each dependency's
/// flag, then the lanes reduce the row, lane 0 publishes x(i) and its flag.
template <class Scalar, class Device>
void elmr_solve(FactorData<Scalar, Device>& d, Kokkos::View<const Scalar*, Device> b,
                Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  const int epoch = next_epoch(d);
  const auto c = d.views();
  using member_type = typename Kokkos::TeamPolicy<typename Device::execution_space>::member_type;
  for_each_ticket(d, "trellis::trsv::elmr", max_vector_width<typename Device::execution_space>(),
                  KOKKOS_LAMBDA(const member_type& m, int t) {
                    const ordinal_t i = c.level_rows(t);
                    const offset_t k0 = c.row_map(i), k1 = c.row_map(i + 1);
                    // Gauss-Seidel's x_k part needs no waiting: done first
                    // (empty for plain triangular solves).
                    Scalar sum = other_part(m, c, i, x_old), tri = 0;
                    // The lanes look at all flags once, in parallel; only if
                    // some dependency is not yet published does lane 0 spin.
                    int pending = 0;
                    Kokkos::parallel_reduce(
                        Kokkos::ThreadVectorRange(m, k0, k1),
                        [&](offset_t k, int& p) {
                          p += Kokkos::volatile_load(&c.ready(c.col_ind(k))) != epoch;
                        },
                        pending);
                    if (pending)
                      Kokkos::single(Kokkos::PerThread(m), [&]() {
                        for (offset_t k = k0; k < k1; ++k)
                          while (Kokkos::volatile_load(&c.ready(c.col_ind(k))) != epoch) {
                          }
                      });
                    Kokkos::memory_fence();  // acquire: x(j) reads follow the flags
                    Kokkos::parallel_reduce(
                        Kokkos::ThreadVectorRange(m, k0, k1),
                        [&](offset_t k, Scalar& s) {
                          s += c.row_values(k) * Kokkos::volatile_load(&x(c.col_ind(k)));
                        },
                        tri);
                    sum += tri;
                    Kokkos::single(Kokkos::PerThread(m), [&]() {
                      x(i) = (b(i) - sum) * c.inv_diag(i);
                      Kokkos::memory_fence();
                      Kokkos::volatile_store(&c.ready(i), epoch);
                    });
                  });
}

/// Column update shared by ELMC and the naive baseline: x(i) -= L(i,j) x(j)
/// for the rows i of column j, each followed by a fence and a counter bump.
template <class Member, class Data, class XView, class Scalar>
KOKKOS_INLINE_FUNCTION void push_column(const Member& m, const Data& c, ordinal_t j, Scalar xj,
                                        const XView& x) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, c.col_map(j), c.col_map(j + 1)),
                       [&](offset_t k) {
                         const ordinal_t i = c.row_ind(k);
                         Kokkos::atomic_add(&x(i), -c.col_values(k) * xj);
                         Kokkos::memory_fence();
                         Kokkos::atomic_increment(&c.counters(i));
                       });
}

/// ELMC: warp t solves unknown j = jlev(t); lane 0 waits until all of j's
/// dependencies have pushed their updates, then the lanes push column j.
template <class Scalar, class Device>
void elmc_solve(FactorData<Scalar, Device>& d, Kokkos::View<const Scalar*, Device> b,
                Kokkos::View<Scalar*, Device> x) {
  if (x.data() != b.data()) Kokkos::deep_copy(x, b);
  const int epoch = next_epoch(d);
  const auto c = d.views();
  using member_type = typename Kokkos::TeamPolicy<typename Device::execution_space>::member_type;
  for_each_ticket(d, "trellis::trsv::elmc", max_vector_width<typename Device::execution_space>(),
                  KOKKOS_LAMBDA(const member_type& m, int t) {
                    const ordinal_t j = c.level_rows(t);
                    Scalar xj = 0;
                    Kokkos::single(
                        Kokkos::PerThread(m),
                        [&](Scalar& v) {
                          const int target = epoch * c.deps(j);
                          while (Kokkos::volatile_load(&c.counters(j)) != target) {
                          }
                          Kokkos::memory_fence();
                          v = Kokkos::volatile_load(&x(j)) * c.inv_diag(j);
                          x(j) = v;
                        },
                        xj);
                    push_column(m, c, j, xj, x);
                  });
}

/// GSF baseline: warp t solves unknown t in natural order (n-1-t for upper),
/// every lane spinning on the counter, no level information.
template <class Scalar, class Device>
void syncfree_naive_solve(FactorData<Scalar, Device>& d, Kokkos::View<const Scalar*, Device> b,
                          Kokkos::View<Scalar*, Device> x) {
  if (x.data() != b.data()) Kokkos::deep_copy(x, b);
  const int epoch = next_epoch(d);
  const auto c = d.views();
  using member_type = typename Kokkos::TeamPolicy<typename Device::execution_space>::member_type;
  const bool lower = d.triangle == Triangle::lower;
  const ordinal_t n = d.n;
  for_each_ticket(d, "trellis::trsv::syncfree_naive",
                  max_vector_width<typename Device::execution_space>(),
                  KOKKOS_LAMBDA(const member_type& m, int t) {
                    const ordinal_t j = lower ? t : n - 1 - t;
                    const int target = epoch * c.deps(j);
                    while (Kokkos::volatile_load(&c.counters(j)) != target) {
                    }
                    Kokkos::memory_fence();
                    const Scalar xj = Kokkos::volatile_load(&x(j)) * c.inv_diag(j);
                    Kokkos::single(Kokkos::PerThread(m), [&]() { x(j) = xj; });
                    push_column(m, c, j, xj, x);
                  });
}

}  // namespace trellis::detail
