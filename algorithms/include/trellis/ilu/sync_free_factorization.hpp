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
// of their own warp.
//
// The hand-off: where rows are staged (and the scalar type has a sentinel),
// a row's U blocks and inverse diagonal are their own ready flags
// (core/handoff.hpp): filled with the sentinel before the launch, each
// stored once, each waited on by the rows that read it; a row's starting U
// values then live in SyncFreeState::u_start. Otherwise a row writes its
// values, then its flag with a release store, and readers acquire after it.
// A failed pivot still publishes (zeros), so nothing waits forever on a bad
// row.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <limits>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/handoff.hpp"
#include "trellis/core/tickets.hpp"
#include "trellis/ilu/factorization.hpp"

namespace trellis::ilu {

/// What the sync-free factorization keeps between factorizations: a ready
/// flag per block row (the number of the factorization that finished it,
/// so that flags need no reset), the ticket counter, and U's starting
/// values where the values are the flags (hands_over_values).
template <class Scalar, class Device>
struct SyncFreeState {
  Kokkos::View<int*, Device> done;
  Kokkos::View<int, Device> ticket;
  Kokkos::View<Scalar*, Device> u_start;
  int epoch = 0;

  SyncFreeState() = default;
  /// u_values: the size of U_val where the values are the flags, else 0.
  SyncFreeState(ordinal_t rows, size_t u_values)
      : done("trellis::ilu::row_done", size_t(rows)),
        ticket("trellis::ilu::row_ticket"),
        u_start(Kokkos::ViewAllocateWithoutInitializing("trellis::ilu::u_start"), u_values) {}
};

/// Whether row k is factored in this factorization (its flag holds the
/// factorization's number), and the acquire that orders the reads of the
/// rows found factored after their flags.
template <class Device>
struct RowsFactored {
  static constexpr bool value_flags = false;
  Kokkos::View<int*, Device> done;
  int epoch;
  KOKKOS_INLINE_FUNCTION bool operator()(ordinal_t k) const { return Kokkos::volatile_load(&done(k)) == epoch; }
  KOKKOS_INLINE_FUNCTION void acquire() const { trellis::detail::acquire_fence(); }
};

/// Rows handed over through their values: row k is (very likely) factored
/// once its inverse diagonal's first entry is published; every value read
/// is still waited on by itself (staged_row.hpp). u_start: U's starting
/// values.
template <class Scalar, class Device>
struct ValuesPublished {
  static constexpr bool value_flags = true;
  Kokkos::View<Scalar*, Device> inv_diag;
  Kokkos::View<Scalar*, Device> u_start;
  int BB;
  KOKKOS_INLINE_FUNCTION bool operator()(ordinal_t k) const {
    return !trellis::detail::is_unpublished(trellis::detail::load_published(&inv_diag(size_t(k) * BB)));
  }
  KOKKOS_INLINE_FUNCTION void acquire() const {}
};

namespace detail {

/// The launch's shape: lanes a row, rows a team, and the staging plan.
struct SyncFreeLaunch {
  int lanes = 1, team_rows = 1;
  StagedPlan plan;
};

template <int B, class Scalar, class Exec>
SyncFreeLaunch sync_free_launch(RowExtent extent) {
  // A whole warp a row on GPUs (it may spin); one lane on host backends.
  // Fewer rows a team where that lets the rows be staged in scratch.
  SyncFreeLaunch l;
  l.lanes = trellis::detail::max_vector_width<Exec>();
  l.team_rows = trellis::detail::rows_per_team<Exec>(l.lanes);
  l.plan = staged_plan<B, Scalar, Exec>(extent, l.team_rows);
  while (!l.plan.staged() && extent.blocks <= staged_row_max && l.team_rows > 1) {
    l.team_rows /= 2;
    l.plan = staged_plan<B, Scalar, Exec>(extent, l.team_rows);
  }
  return l;
}

}  // namespace detail

/// Whether the sync-free launch for these rows hands them over through
/// their values: then its caller fills f.U_val and f.inv_diag with the
/// sentinel and puts U's starting values in the state's u_start
/// (split_values with values_as_flags, or unpublish_factors).
template <int B, class Scalar, class Device>
bool hands_over_values(detail::RowExtent extent) {
  return trellis::detail::has_value_flag<Scalar>() &&
         detail::sync_free_launch<B, Scalar, typename Device::execution_space>(extent).plan.staged();
}

/// Moves f's U values to u_start and fills f.U_val and f.inv_diag with the
/// sentinel (for factors split without u_start), queued on space.
template <class Scalar, class Device>
void unpublish_factors(const typename Device::execution_space& space, const BlockFactors<Scalar, Device>& f,
                       Kokkos::View<Scalar*, Device> u_start) {
  if constexpr (trellis::detail::has_value_flag<Scalar>()) {
    if (u_start.extent(0) != f.U_val.extent(0))
      throw Error("unpublish_factors: room for " + std::to_string(u_start.extent(0)) + " U values, U has " +
                  std::to_string(f.U_val.extent(0)));
    Kokkos::deep_copy(space, u_start, f.U_val);
    Scalar* u = f.U_val.data();
    Scalar* inv = f.inv_diag.data();
    const size_t nu = f.U_val.extent(0), ninv = f.inv_diag.extent(0);
    Kokkos::parallel_for(
        "trellis::ilu::unpublish_factors",
        trellis::RangePolicy<typename Device::execution_space>(space, 0, std::max(nu, ninv)), KOKKOS_LAMBDA(size_t q) {
          if (q < nu) trellis::detail::mark_unpublished(u + q);
          if (q < ninv) trellis::detail::mark_unpublished(inv + q);
        });
  } else {
    (void)space, (void)f, (void)u_start;
    throw Error("unpublish_factors: the scalar type has no sentinel");
  }
}

/// The factorization's launch alone, queued on space: status must be reset
/// before it (detail::reset_pivot_status, or split_values with the status),
/// and says after it whether a pivot failed (detail::read_pivot_status).
/// Where hands_over_values, f's U values and inverse diagonals must hold
/// the sentinel and state.u_start U's starting values. Returns whether the
/// rows were staged. level_rows: the rows in level order of the lower
/// triangle (LevelSets::level_rows); extent from row_extent, state sized
/// for f's rows.
template <int B, class Scalar, class Device>
bool launch_factor_sync_free(const typename Device::execution_space& space, BlockFactors<Scalar, Device>& f,
                             detail::RowExtent extent, Kokkos::View<Scalar*, Device> diag, PivotOptions pivots,
                             Kokkos::View<const ordinal_t*, Device> level_rows, SyncFreeState<Scalar, Device>& state,
                             Kokkos::View<ordinal_t*, Device> status) {
  using exec = typename Device::execution_space;
  using member_type = typename trellis::TeamPolicy<exec>::member_type;
  if (state.done.extent(0) != size_t(f.num_rows))
    throw Error("factor_sync_free: state for " + std::to_string(state.done.extent(0)) + " rows, factors of " +
                std::to_string(f.num_rows));
  const BlockFactors<Scalar, Device> fc = f;
  const double tol = pivots.tolerance, boost = pivots.boost;
  const detail::SyncFreeLaunch shape = detail::sync_free_launch<B, Scalar, exec>(extent);
  const int lanes = shape.lanes, team_rows = shape.team_rows;
  const detail::StagedPlan plan = shape.plan;
  const bool staged = plan.staged();
  if (staged && trellis::detail::has_value_flag<Scalar>()) {  // hands_over_values, from the plan made here
    if (state.u_start.extent(0) != f.U_val.extent(0))
      throw Error("factor_sync_free: the values are the flags here, and the state has room for " +
                  std::to_string(state.u_start.extent(0)) + " of U's " + std::to_string(f.U_val.extent(0)) +
                  " starting values");
    const ValuesPublished<Scalar, Device> published{f.inv_diag, state.u_start, B * B};
    trellis::detail::for_each_ticket(
        space, state.ticket, f.num_rows, "trellis::ilu::factor_sync_free_values", lanes,
        KOKKOS_LAMBDA(const member_type& m, int t) {
          detail::factor_row_staged<B>(m, lanes, fc, diag, level_rows(t), tol, boost, status,
                                       detail::StagedRow<Scalar, exec>(m, B * B, plan.extent), published);
        },
        0, team_rows, plan.bytes);
    return true;
  }
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
/// outcome, same outputs), in one launch (two where the values are the
/// flags: U's values move to state.u_start first). Arguments as
/// launch_factor_sync_free's; status from make_pivot_status.
template <int B, class Scalar, class Device>
FactorizationOutcome factor_sync_free(const typename Device::execution_space& space, BlockFactors<Scalar, Device>& f,
                                      detail::RowExtent extent, Kokkos::View<Scalar*, Device> diag, PivotOptions pivots,
                                      Kokkos::View<const ordinal_t*, Device> level_rows,
                                      SyncFreeState<Scalar, Device>& state, Kokkos::View<ordinal_t*, Device> status,
                                      FactorOutputs outputs = FactorOutputs::ildu) {
  detail::reset_pivot_status(space, status, f.num_rows);
  if (hands_over_values<B, Scalar, Device>(extent)) {
    if (state.u_start.extent(0) != f.U_val.extent(0))
      state.u_start = Kokkos::View<Scalar*, Device>(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::ilu::u_start"), f.U_val.extent(0));
    unpublish_factors(space, f, state.u_start);
  }
  const bool staged = launch_factor_sync_free<B>(space, f, extent, diag, pivots, level_rows, state, status);
  FactorizationOutcome out = detail::read_pivot_status(space, status, f.num_rows);
  out.staged_rows = staged;
  if (out.tiny_row < 0 && out.non_finite_row < 0) detail::finish_factors<B>(space, f, diag, outputs);
  return out;
}

}  // namespace trellis::ilu
