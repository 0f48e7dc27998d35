#pragma once
// team-levelset: the whole triangle solved by one team (TeamPlan). Each
// level is a pass of the team over its rows, K vector lanes a row, and a
// team barrier hands it to the next level: on GPUs a step costs a barrier and
// shared-memory reads instead of a global hand-off (about 2 us on an H100),
// the regime of thin levels where one thread block beats the whole GPU
// (seed 004's diagonal tiles solved in shared memory, here the whole
// triangle as one tile).
//
// x lives in scratch by slot: each slot starts as its right-hand side
// (b_i - Gauss-Seidel's x_old part, times the inverse diagonal), and a
// level subtracts its rows' sums from it. b is read and x written only
// outside the level loop, so b and x (and x_old) may be the same View.
// One team, no waits on other teams: nothing to deadlock on; each row is
// summed in a fixed order: bit-reproducible.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/trsv/detail/factor.hpp"
#include "trellis/trsv/detail/team_plan.hpp"

namespace trellis::detail {

template <class Scalar, class Device>
void team_levelset_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                         TeamPlan<Scalar, Device>& plan, Kokkos::View<const Scalar*, Device> b,
                         Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  using exec = typename Device::execution_space;
  using team_policy = trellis::TeamPolicy<exec>;
  using member_type = typename team_policy::member_type;
  using scratch = TeamScratch<exec, Scalar>;
  const ordinal_t n = factor.n;
  if (n == 0) return;
  const auto other = factor.other;
  const auto level_ptr = plan.level_ptr;
  const auto slot_row = plan.slot_row;
  const auto row_map = plan.row_map;
  const auto col = plan.col;
  const auto values = plan.values;
  const auto inv_diag = plan.inv_diag;
  const ordinal_t L = plan.num_levels, S = plan.staged_rows;
  const offset_t E = plan.staged_entries;
  const bool offsets = plan.offsets_staged;
  const int level = plan.scratch_level;
  const auto body = KOKKOS_LAMBDA(const member_type& m) {
    const scratch sc(m, level, n, L, offsets, E);
    // The loads use every lane of the team: the level loop's rows are few.
    if (other.row_map.extent(0) == 0)
      Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n), [&](ordinal_t s) { sc.x(s) = b(slot_row(s)) * inv_diag(s); });
    else
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, n), [&](ordinal_t s) {
        const ordinal_t i = slot_row(s);
        const Scalar old = other_part(m, other, i, x_old);
        Kokkos::single(Kokkos::PerThread(m), [&]() { sc.x(s) = (b(i) - old) * inv_diag(s); });
      });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(m, L + 1),
                         [&](ordinal_t l) { sc.starts(l) = ordinal_t(level_ptr(l)); });
    if (offsets)
      Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n + 1),
                           [&](ordinal_t s) { sc.row_ptr(s) = ordinal_t(row_map(s)); });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(m, ordinal_t(E)), [&](ordinal_t k) {
      sc.col(k) = col(k);
      sc.values(k) = values(k);
    });
    m.team_barrier();
    for (ordinal_t l = 0; l < L; ++l) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, sc.starts(l), sc.starts(l + 1)), [&](ordinal_t s) {
        Scalar sum = 0;
        const offset_t k0 = offsets ? offset_t(sc.row_ptr(s)) : row_map(s);
        const offset_t k1 = offsets ? offset_t(sc.row_ptr(s + 1)) : row_map(s + 1);
        if (s < S)
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, k0, k1),
              [&](offset_t k, Scalar& acc) { acc += sc.values(k) * sc.x(sc.col(k)); }, sum);
        else
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, k0, k1), [&](offset_t k, Scalar& acc) { acc += values(k) * sc.x(col(k)); },
              sum);
        Kokkos::single(Kokkos::PerThread(m), [&]() { sc.x(s) -= sum; });
      });
      m.team_barrier();
    }
    Kokkos::parallel_for(Kokkos::TeamVectorRange(m, n), [&](ordinal_t s) { x(slot_row(s)) = sc.x(s); });
  };
  const size_t vector = scratch::vector_bytes(n, L);
  const size_t staged = (offsets ? scratch::offsets_bytes(n) : 0) + scratch::entries_bytes(E);
  const auto with_scratch = [&](team_policy policy) {
    return level == 0 ? policy.set_scratch_size(0, Kokkos::PerTeam(vector + staged))
                      : policy.set_scratch_size(1, Kokkos::PerTeam(vector));
  };
  // As many rows a pass as the plan asks for and the kernel's registers
  // allow (asked once: the query costs a driver call).
  if (plan.launch_rows == 0)
    plan.launch_rows = std::max(1, std::min(plan.team_rows, with_scratch(team_policy(space, 1, 1, plan.vector_width))
                                                                .team_size_max(body, Kokkos::ParallelForTag())));
  Kokkos::parallel_for("trellis::trsv::team_levelset",
                       with_scratch(team_policy(space, 1, plan.launch_rows, plan.vector_width)), body);
}

}  // namespace trellis::detail
