#pragma once
// Level-scheduled triangular solves (seed 002, Algorithms 1 and 2; kernels
// LEVR and LEVC of section 5.1). One launch per level with a group of K
// vector lanes per row; consecutive levels that fit one team are chained into
// a single launch, the team synchronizing between levels (Naumov's
// optimization the paper adopts).
#include <Kokkos_Core.hpp>

#include "trellis/trsv/detail/factor_data.hpp"
#include "trellis/trsv/detail/launch_shape.hpp"

namespace trellis::detail {

/// Gauss-Seidel's x_k part of row i: sum over the opposite triangle of
/// A(i,j) x_old(j); zero for plain triangular solves (no opposite triangle).
template <class Member, class Data, class OldView>
KOKKOS_INLINE_FUNCTION typename OldView::non_const_value_type other_part(const Member& m,
                                                                         const Data& d, ordinal_t i,
                                                                         const OldView& x_old) {
  typename OldView::non_const_value_type sum = 0;
  if (d.other_map.extent(0) == 0) return sum;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, d.other_map(i), d.other_map(i + 1)),
      [&](offset_t k, typename OldView::non_const_value_type& s) {
        s += d.other_values(k) * x_old(d.other_ind(k));
      },
      sum);
  return sum;
}

/// LEVR row update: x(i) = (b(i) - sum_j L(i,j) x(j)) / d(i), the row's dot
/// product split over the thread's vector lanes.
template <class Member, class Data, class BView, class XView, class OldView>
KOKKOS_INLINE_FUNCTION void levr_row(const Member& m, const Data& d, ordinal_t i, const BView& b,
                                     const XView& x, const OldView& x_old) {
  typename XView::non_const_value_type sum = other_part(m, d, i, x_old);
  typename XView::non_const_value_type tri = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, d.row_map(i), d.row_map(i + 1)),
      [&](offset_t k, typename XView::non_const_value_type& s) {
        s += d.row_values(k) * x(d.col_ind(k));
      },
      tri);
  sum += tri;
  Kokkos::single(Kokkos::PerThread(m), [&]() { x(i) = (b(i) - sum) * d.inv_diag(i); });
}

/// LEVC column update: x(j) /= d(j), then x(i) -= L(i,j) x(j) for the rows i
/// of column j, with atomics (rows of one level may share targets).
template <class Member, class Data, class XView>
KOKKOS_INLINE_FUNCTION void levc_column(const Member& m, const Data& d, ordinal_t j,
                                        const XView& x) {
  typename XView::non_const_value_type xj = 0;
  Kokkos::single(
      Kokkos::PerThread(m),
      [&](typename XView::non_const_value_type& v) { x(j) = v = x(j) * d.inv_diag(j); }, xj);
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, d.col_map(j), d.col_map(j + 1)),
                       [&](offset_t k) { Kokkos::atomic_add(&x(d.row_ind(k)), -d.col_values(k) * xj); });
}

/// Runs `body(member, row)` for every row of each launch in the plan: one
/// kernel per unchained level, one single-team kernel per chain.
template <class Scalar, class Device, class Body>
void for_each_level(const FactorData<Scalar, Device>& d, const char* label, const Body& body) {
  using exec = typename Device::execution_space;
  using team_policy = Kokkos::TeamPolicy<exec>;
  using member_type = typename team_policy::member_type;
  const auto level_rows = d.levels.level_rows;  // Views only: captured by kernels
  for (const LevelLaunch& launch : d.launches) {
    const int K = launch.vector_width;
    const int team = rows_per_team<exec>(K);
    if (!launch.chained) {
      const offset_t p0 = d.levels.level_ptr_host(launch.first_level);
      const offset_t p1 = d.levels.level_ptr_host(launch.first_level + 1);
      const int league = int((p1 - p0 + team - 1) / team);
      Kokkos::parallel_for(
          label, team_policy(league, team, K), KOKKOS_LAMBDA(const member_type& m) {
            const offset_t p = p0 + offset_t(m.league_rank()) * m.team_size() + m.team_rank();
            if (p < p1) body(m, level_rows(p));
          });
    } else {
      const auto level_ptr = d.levels.level_ptr;
      const ordinal_t l0 = launch.first_level, l1 = launch.last_level;
      Kokkos::parallel_for(
          label, team_policy(1, team, K), KOKKOS_LAMBDA(const member_type& m) {
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
void levelset_csr_solve(const FactorData<Scalar, Device>& d,
                        Kokkos::View<const Scalar*, Device> b, Kokkos::View<Scalar*, Device> x,
                        Kokkos::View<const Scalar*, Device> x_old) {
  using member_type = typename Kokkos::TeamPolicy<typename Device::execution_space>::member_type;
  const auto c = d.views();
  for_each_level(d, "trellis::trsv::levr", KOKKOS_LAMBDA(const member_type& m, ordinal_t i) {
    levr_row(m, c, i, b, x, x_old);
  });
}

template <class Scalar, class Device>
void levelset_csc_solve(const FactorData<Scalar, Device>& d,
                        Kokkos::View<const Scalar*, Device> b, Kokkos::View<Scalar*, Device> x) {
  using member_type = typename Kokkos::TeamPolicy<typename Device::execution_space>::member_type;
  if (x.data() != b.data()) Kokkos::deep_copy(x, b);
  const auto c = d.views();
  for_each_level(d, "trellis::trsv::levc", KOKKOS_LAMBDA(const member_type& m, ordinal_t j) {
    levc_column(m, c, j, x);
  });
}

}  // namespace trellis::detail
