#pragma once
// ELMR with the value as its own ready flag ("elmr-value"): element
// scheduling on CSR as in ELMR (seed 002, Algorithm 3), but x is filled with
// an "unpublished" sentinel before the solve and a dependency is ready as
// soon as x(j) no longer holds it. There is no separate flag, hence no
// publish-then-flag fence pair on the critical path: one 64-bit store
// publishes, one load observes.
//
// The sentinel (core/handoff.hpp) is a signalling NaN with a payload. IEEE
// arithmetic never produces a signalling NaN (an sNaN operand comes out
// quiet), and every published x(i) is the result of arithmetic, so no solve
// can publish the sentinel and leave a dependant waiting: deadlock freedom
// rests, as in ELMR, only on the level-ordered tickets.
//
// Each lane waits only for the x(j) of its own entries, which other vector
// groups produce; no lane ever waits on a lane of its own group.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/handoff.hpp"
#include "trellis/trsv/detail/element_kernels.hpp"

namespace trellis::detail {

/// Makes x its own ready flag before a solve: an input that aliases x
/// (in-place solves, in-place Gauss-Seidel sweeps) is first copied to
/// `work` and read from there, then x is filled with the sentinel.
template <class Scalar, class Device>
void unpublish_x(const typename Device::execution_space& space, Kokkos::View<Scalar*, Device>& work,
                 Kokkos::View<const Scalar*, Device>& b, Kokkos::View<Scalar*, Device> x,
                 Kokkos::View<const Scalar*, Device>& x_old, bool has_other, const char* who) {
  const size_t n = x.extent(0);
  const bool b_aliased = b.data() == x.data();
  const bool old_aliased = has_other && x_old.data() == x.data();
  if (b_aliased && old_aliased) throw Error(std::string(who) + ": b and x_old cannot both alias x");
  if (b_aliased || old_aliased) {
    if (work.extent(0) != n)
      work = Kokkos::View<Scalar*, Device>(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::trsv::work"), n);
    Kokkos::deep_copy(space, work, x);
    if (b_aliased)
      b = work;
    else
      x_old = work;
  }
  Scalar* xp = x.data();
  Kokkos::parallel_for(
      "trellis::trsv::unpublish_x", trellis::RangePolicy<typename Device::execution_space>(space, 0, n),
      KOKKOS_LAMBDA(size_t i) { mark_unpublished(xp + i); });
}

/// ELMR-V: as ELMR, each lane waiting on the x(j) of its own entries.
template <class Scalar, class Device>
void elmr_value_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                      ElementPlan<Scalar, Device>& plan, Kokkos::View<const Scalar*, Device> b,
                      Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  if constexpr (!has_value_flag<Scalar>()) {
    throw InputError("elmr-value: needs a float or double scalar type");
  } else {
    using exec = typename Device::execution_space;
    const ordinal_t n = factor.n;
    if (n == 0) return;
    unpublish_x(space, plan.work, b, x, x_old, factor.has_other, "elmr-value");
    Scalar* const xp = x.data();
    const auto rows = factor.rows;
    const auto other = factor.other;
    const auto inv_diag = factor.inv_diag;
    const auto order = plan.order;
    using member_type = typename trellis::TeamPolicy<exec>::member_type;
    for_each_ticket(
        space, plan.ticket, n, "trellis::trsv::elmr_value", max_vector_width<exec>(),
        KOKKOS_LAMBDA(const member_type& m, int t) {
          const ordinal_t i = order(t);
          Scalar sum = other_part(m, other, i, x_old), tri = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, rows.row_map(i), rows.row_map(i + 1)),
              [&](offset_t k, Scalar& s) { s += rows.values(k) * wait_published(xp + rows.col_ind(k)); }, tri);
          sum += tri;
          Kokkos::single(Kokkos::PerThread(m), [&]() { publish_value(xp + i, (b(i) - sum) * inv_diag(i)); });
        },
        0, plan.team_rows);
  }
}

}  // namespace trellis::detail
