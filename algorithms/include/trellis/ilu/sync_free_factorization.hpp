#pragma once
// The ILU0 / ILDU0 factorization of a whole matrix in one launch, without a
// barrier between levels: each step k of a row's update waits only for row
// k (staged rows; the others for all their rows k at the start), not for
// k's whole level. The slowest row of a level then holds up only the steps
// that need it, and a row's early steps overlap the rows of its last ones. Same row update (factor_row /
// factor_row_staged) and same operand values as factor_by_levels, so the
// factors are the same bit for bit.
//
// Deadlock freedom: rows are handed out by ticket in level order
// (core/tickets.hpp), and every row k a row waits on is in an earlier
// level, so at an earlier ticket, taken by a running vector group. Waiting
// is done by whole warps on GPUs (one row a warp), never by lanes on lanes
// of their own warp. A row writes its values, then its flag with a release
// store (core/handoff.hpp); a failed pivot still sets it, so nothing waits
// forever on a bad row.
#include <Kokkos_Core.hpp>
#include <limits>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/handoff.hpp"
#include "trellis/core/tickets.hpp"
#include "trellis/ilu/factorization.hpp"

namespace trellis::ilu {

/// What the sync-free factorization keeps between factorizations: a ready
/// flag per block row (the number of the factorization that finished it,
/// so that flags need no reset) and the ticket counter.
template <class Device>
struct SyncFreeState {
  Kokkos::View<int*, Device> done;
  Kokkos::View<int, Device> ticket;
  int epoch = 0;

  SyncFreeState() = default;
  explicit SyncFreeState(ordinal_t rows)
      : done("trellis::ilu::row_done", size_t(rows)), ticket("trellis::ilu::row_ticket") {}
};

/// Whether row k is factored in this factorization (its flag holds the
/// factorization's number), and the acquire that orders the reads of the
/// rows found factored after their flags.
template <class Device>
struct RowsFactored {
  Kokkos::View<int*, Device> done;
  int epoch;
  KOKKOS_INLINE_FUNCTION bool operator()(ordinal_t k) const { return Kokkos::volatile_load(&done(k)) == epoch; }
  KOKKOS_INLINE_FUNCTION void acquire() const { trellis::detail::acquire_fence(); }
};

/// The factorization's launch alone, queued on space: status must be reset
/// before it (detail::reset_pivot_status, or split_values with the status),
/// and says after it whether a pivot failed (detail::read_pivot_status).
/// Returns whether the rows were staged. level_rows: the rows in level order
/// of the lower triangle (LevelSets::level_rows); extent from row_extent,
/// state sized for f's rows.
template <int B, class Scalar, class Device>
bool launch_factor_sync_free(const typename Device::execution_space& space, BlockFactors<Scalar, Device>& f,
                             detail::RowExtent extent, Kokkos::View<Scalar*, Device> diag, PivotOptions pivots,
                             Kokkos::View<const ordinal_t*, Device> level_rows, SyncFreeState<Device>& state,
                             Kokkos::View<ordinal_t*, Device> status) {
  using exec = typename Device::execution_space;
  using member_type = typename trellis::TeamPolicy<exec>::member_type;
  if (state.done.extent(0) != size_t(f.num_rows))
    throw Error("factor_sync_free: state for " + std::to_string(state.done.extent(0)) + " rows, factors of " +
                std::to_string(f.num_rows));
  const BlockFactors<Scalar, Device> fc = f;
  const double tol = pivots.tolerance, boost = pivots.boost;
  // A whole warp a row on GPUs (it may spin); one lane on host backends.
  // Fewer rows a team where that lets the rows be staged in scratch.
  const int lanes = trellis::detail::max_vector_width<exec>();
  int team_rows = trellis::detail::rows_per_team<exec>(lanes);
  detail::StagedPlan plan = detail::staged_plan<B, Scalar, exec>(extent, team_rows);
  while (!plan.staged() && extent.blocks <= detail::staged_row_max && team_rows > 1) {
    team_rows /= 2;
    plan = detail::staged_plan<B, Scalar, exec>(extent, team_rows);
  }
  const bool staged = plan.staged();
  if (state.epoch == std::numeric_limits<int>::max()) {  // before the count wraps around
    Kokkos::deep_copy(space, state.done, 0);
    state.epoch = 0;
  }
  const int epoch = ++state.epoch;
  const auto done = state.done;
  const RowsFactored<Device> factored{done, epoch};
  trellis::detail::for_each_ticket(
      space, state.ticket, f.num_rows, "trellis::ilu::factor_sync_free", lanes,
      KOKKOS_LAMBDA(const member_type& m, int t) {
        const ordinal_t i = level_rows(t);
        if (staged) {
          detail::factor_row_staged<B>(m, lanes, fc, diag, i, tol, boost, status,
                                       detail::StagedRow<Scalar, exec>(m, B * B, plan.extent), factored);
        } else {
          const offset_t l0 = fc.L_map(i), l1 = fc.L_map(i + 1);
          trellis::detail::wait_until_ready(m, l0, l1, [&](offset_t q) { return factored(fc.L_col(q)); });
          factored.acquire();  // on every lane: the rows k's values after their flags
          trellis::detail::sync_lanes();
          detail::factor_row<B>(m, lanes, fc, diag, i, tol, boost, status);
        }
        trellis::detail::publish_flag(m, &done(i), epoch);  // every lane's writes of row i before the flag
      },
      0, team_rows, plan.bytes);
  return staged;
}

/// Factors in place as factor_by_levels (same entry and exit contents, same
/// outcome, same outputs), in one launch. Arguments as launch_factor_sync_free's;
/// status from make_pivot_status.
template <int B, class Scalar, class Device>
FactorizationOutcome factor_sync_free(const typename Device::execution_space& space, BlockFactors<Scalar, Device>& f,
                                      detail::RowExtent extent, Kokkos::View<Scalar*, Device> diag, PivotOptions pivots,
                                      Kokkos::View<const ordinal_t*, Device> level_rows, SyncFreeState<Device>& state,
                                      Kokkos::View<ordinal_t*, Device> status,
                                      FactorOutputs outputs = FactorOutputs::ildu) {
  detail::reset_pivot_status(space, status, f.num_rows);
  const bool staged = launch_factor_sync_free<B>(space, f, extent, diag, pivots, level_rows, state, status);
  FactorizationOutcome out = detail::read_pivot_status(space, status, f.num_rows);
  out.staged_rows = staged;
  if (out.tiny_row < 0 && out.non_finite_row < 0) detail::finish_factors<B>(space, f, diag, outputs);
  return out;
}

}  // namespace trellis::ilu
