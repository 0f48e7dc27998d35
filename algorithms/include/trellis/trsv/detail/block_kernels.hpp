#pragma once
// block-syncfree: one team per block of consecutive rows (BlockPlan), taken
// by ticket in solve order. Inside a block the team runs the levels its rows
// belong to, a team barrier between them, reading the block's own x from
// team scratch; a dependency on an earlier block is waited for in global
// memory, where x is its own ready flag (the sentinel of
// value_flag_kernels.hpp).
//
// A dependency chain inside a block costs a barrier and a scratch read per
// step instead of a global hand-off (about 2 us on an H100: seed 002's
// element kernels and cuSPARSE alike); this is the paper's tile idea
// (seed 004: dependent rows of a diagonal tile solved in shared memory)
// with tiles as large as team scratch allows.
//
// Deadlock freedom: a block only waits on rows of earlier blocks, whose
// tickets were taken by teams already running; a thread that waits never
// waits on its own team. Each row is summed by one thread in a fixed order:
// bit-reproducible.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/trsv/detail/block_plan.hpp"
#include "trellis/trsv/detail/element_kernels.hpp"
#include "trellis/trsv/detail/factor.hpp"
#include "trellis/trsv/detail/value_flag_kernels.hpp"

namespace trellis::detail {

template <class Scalar, class Device>
void block_syncfree_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                          BlockPlan<Scalar, Device>& plan, Kokkos::View<const Scalar*, Device> b,
                          Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  if constexpr (!has_value_flag<Scalar>()) {
    throw InputError("block-syncfree: needs a float or double scalar type");
  } else {
    using exec = typename Device::execution_space;
    using team_policy = trellis::TeamPolicy<exec>;
    using member_type = typename team_policy::member_type;
    using scratch_space = typename exec::scratch_memory_space;
    const ordinal_t n = factor.n;
    if (n == 0) return;
    unpublish_x(space, plan.work, b, x, x_old, factor.has_other, "block-syncfree");
    Scalar* const xp = x.data();
    const auto other = factor.other;
    const auto ticket = plan.ticket;
    const auto block_level = plan.block_level;
    const auto level_slot = plan.level_slot;
    const auto slot_row = plan.slot_row;
    const auto row_map = plan.row_map;
    const auto col = plan.col;
    const auto values = plan.values;
    const auto inv_diag = plan.inv_diag;
    const int R = plan.rows_per_block;
    const int E = plan.staged_entries;
    const int L = plan.max_levels;
    const int league = plan.num_blocks;
    Kokkos::parallel_for(
        "trellis::trsv::block_syncfree",
        team_policy(space, league, block_team_size<exec>(R), 1)
            .set_scratch_size(0, Kokkos::PerTeam(BlockScratch<exec, Scalar>::bytes(R, L, E))),
        KOKKOS_LAMBDA(const member_type& m) {
          int t = 0;
          Kokkos::single(
              Kokkos::PerTeam(m), [&](int& v) { v = take_ticket(ticket, league); }, t);
          const BlockScratch<exec, Scalar> sc(m, R, L, E);
          const ordinal_t first = ordinal_t(t) * R;
          const ordinal_t rows = first + R < n ? R : n - first;
          const ordinal_t q0 = block_level(t), levels = block_level(t + 1) - q0;
          const offset_t e0 = row_map(first);
          const bool staged = row_map(first + rows) - e0 <= E;
          // Everything but the waits on earlier blocks, loaded at once:
          // Gauss-Seidel's x_old part is known before the solve starts.
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, rows + 1), [&](ordinal_t s) {
            sc.row_ptr(s) = row_map(first + s) - e0;
            if (s == rows) return;
            const ordinal_t i = slot_row(first + s);
            sc.row(s) = i;
            sc.rhs(s) = (b(i) - other_part(m, other, i, x_old)) * inv_diag(first + s);
          });
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, levels + 1),
                               [&](ordinal_t l) { sc.starts(l) = level_slot(q0 + l) - first; });
          if (staged)
            Kokkos::parallel_for(Kokkos::TeamThreadRange(m, offset_t(row_map(first + rows) - e0)), [&](offset_t k) {
              sc.col(k) = col(e0 + k);
              sc.values(k) = values(e0 + k);
            });
          m.team_barrier();
          for (ordinal_t l = 0; l < levels; ++l) {
            Kokkos::parallel_for(Kokkos::TeamThreadRange(m, sc.starts(l), sc.starts(l + 1)), [&](ordinal_t s) {
              Scalar sum = 0;
              const offset_t k0 = sc.row_ptr(s), k1 = sc.row_ptr(s + 1);
              for (offset_t k = k0; k < k1; ++k) {
                const ordinal_t c = staged ? sc.col(k) : col(e0 + k);
                const Scalar a = staged ? sc.values(k) : values(e0 + k);
                sum += a * (c < 0 ? sc.x(-1 - c) : wait_published(xp + c));
              }
              sc.x(s) = sc.rhs(s) - sum;
              publish_value(xp + sc.row(s), sc.x(s));
            });
            m.team_barrier();
          }
        });
  }
}

}  // namespace trellis::detail
