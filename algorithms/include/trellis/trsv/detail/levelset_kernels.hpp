#pragma once
// Level-scheduled triangular solves (seed 002, Algorithms 1 and 2; kernels
// LEVR and LEVC of section 5.1). One launch per level with a group of K
// vector lanes per row; consecutive levels that fit one team are chained into
// a single launch, the team synchronizing between levels (Naumov's
// optimization the paper adopts).
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/trsv/detail/factor.hpp"
#include "trellis/trsv/detail/levelset_plan.hpp"

namespace trellis::detail {

/// LEVR row update: x(i) = (b(i) - sum_j L(i,j) x(j)) / d(i), the row's dot
/// product split over the thread's vector lanes.
template <class Member, class Rows, class DiagView, class BView, class XView, class OldView>
KOKKOS_INLINE_FUNCTION void levr_row(const Member& m, const Rows& rows, const Rows& other, const DiagView& inv_diag,
                                     ordinal_t i, const BView& b, const XView& x, const OldView& x_old) {
  typename XView::non_const_value_type sum = other_part(m, other, i, x_old);
  typename XView::non_const_value_type tri = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, rows.row_map(i), rows.row_map(i + 1)),
      [&](offset_t k, typename XView::non_const_value_type& s) { s += rows.values(k) * x(rows.col_ind(k)); }, tri);
  sum += tri;
  Kokkos::single(Kokkos::PerThread(m), [&]() { x(i) = (b(i) - sum) * inv_diag(i); });
}

/// LEVC column update: x(j) /= d(j), then x(i) -= L(i,j) x(j) for the rows i
/// of column j, with atomics (rows of one level may share targets).
template <class Member, class Columns, class DiagView, class XView>
KOKKOS_INLINE_FUNCTION void levc_column(const Member& m, const Columns& columns, const DiagView& inv_diag, ordinal_t j,
                                        const XView& x) {
  typename XView::non_const_value_type xj = 0;
  Kokkos::single(
      Kokkos::PerThread(m), [&](typename XView::non_const_value_type& v) { x(j) = v = x(j) * inv_diag(j); }, xj);
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, columns.col_map(j), columns.col_map(j + 1)),
                       [&](offset_t k) { Kokkos::atomic_add(&x(columns.row_ind(k)), -columns.values(k) * xj); });
}

/// Runs `body(member, row)` for every row of each launch in the plan: one
/// kernel per unchained level, one single-team kernel per chain.
template <class Exec, class Device, class Body>
void for_each_level(const Exec& space, const LevelSetPlan<Device>& plan, const char* label, const Body& body) {
  using team_policy = trellis::TeamPolicy<Exec>;
  using member_type = typename team_policy::member_type;
  const auto level_rows = plan.levels.level_rows;  // Views only: captured by kernels
  const auto level_ptr = plan.levels.level_ptr;
  for (const LevelLaunch& launch : plan.launches) {
    const int K = launch.vector_width;
    const int team = rows_per_team<Exec>(K);
    if (!launch.chained) {
      const offset_t p0 = plan.levels.level_ptr_host(launch.first_level);
      const offset_t p1 = plan.levels.level_ptr_host(launch.first_level + 1);
      const int league = int((p1 - p0 + team - 1) / team);
      Kokkos::parallel_for(
          label, team_policy(space, league, team, K), KOKKOS_LAMBDA(const member_type& m) {
            const offset_t p = p0 + offset_t(m.league_rank()) * m.team_size() + m.team_rank();
            if (p < p1) body(m, level_rows(p));
          });
    } else {
      const ordinal_t l0 = launch.first_level, l1 = launch.last_level;
      Kokkos::parallel_for(
          label, team_policy(space, 1, team, K), KOKKOS_LAMBDA(const member_type& m) {
            for (ordinal_t l = l0; l < l1; ++l) {
              Kokkos::parallel_for(Kokkos::TeamThreadRange(m, level_ptr(l), level_ptr(l + 1)),
                                   [&](offset_t p) { body(m, level_rows(p)); });
              m.team_barrier();
            }
          });
    }
  }
}

/// LEVR. x_old is Gauss-Seidel's x_k (read through the opposite triangle,
/// when the factor keeps one).
template <class Scalar, class Device>
void levelset_csr_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                        const LevelSetPlan<Device>& plan, Kokkos::View<const Scalar*, Device> b,
                        Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  using member_type = typename trellis::TeamPolicy<typename Device::execution_space>::member_type;
  const auto rows = factor.rows;
  const auto other = factor.other;
  const auto inv_diag = factor.inv_diag;
  for_each_level(
      space, plan, "trellis::trsv::levr",
      KOKKOS_LAMBDA(const member_type& m, ordinal_t i) { levr_row(m, rows, other, inv_diag, i, b, x, x_old); });
}

/// LEVC.
template <class Scalar, class Device>
void levelset_csc_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                        const LevelSetPlan<Device>& plan, Kokkos::View<const Scalar*, Device> b,
                        Kokkos::View<Scalar*, Device> x) {
  using member_type = typename trellis::TeamPolicy<typename Device::execution_space>::member_type;
  if (x.data() != b.data()) Kokkos::deep_copy(space, x, b);
  const auto columns = factor.columns;
  const auto inv_diag = factor.inv_diag;
  for_each_level(
      space, plan, "trellis::trsv::levc",
      KOKKOS_LAMBDA(const member_type& m, ordinal_t j) { levc_column(m, columns, inv_diag, j, x); });
}

}  // namespace trellis::detail
