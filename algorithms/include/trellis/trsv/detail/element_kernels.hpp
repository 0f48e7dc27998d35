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
// Waiting is done by one lane of the group, or in ELMR-lanes by each lane
// on its own dependency (never by lanes waiting on lanes of their own
// group); results are published then flagged: value, fence, flag. Flags
// and counters hold solve numbers ("epochs"), so they need no reset
// between solves.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/tickets.hpp"
#include "trellis/trsv/detail/element_plan.hpp"
#include "trellis/trsv/detail/factor.hpp"

namespace trellis::detail {

/// Who waits for a row's dependencies in ELMR.
enum class ElmrWait {
  lane_zero,   // the lanes test every flag once; if one is unset, lane 0 waits on each in turn
  every_lane,  // seed 002's Algorithm 3: each lane waits on its own dependency and adds its
               // product as soon as that one is ready (a warp's lanes wait independently)
};

/// ELMR: warp t solves unknown jlev(t); the dependencies' flags are waited
/// for (`Wait`), the lanes reduce the row, lane 0 publishes x(i) and its flag.
template <ElmrWait Wait, class Scalar, class Device>
void elmr_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                ElementPlan<Scalar, Device>& plan, Kokkos::View<const Scalar*, Device> b,
                Kokkos::View<Scalar*, Device> x, Kokkos::View<const Scalar*, Device> x_old) {
  using exec = typename Device::execution_space;
  using member_type = typename trellis::TeamPolicy<exec>::member_type;
  const int epoch = next_epoch(space, plan);
  const auto rows = factor.rows;
  const auto other = factor.other;
  const auto inv_diag = factor.inv_diag;
  const auto order = plan.order;
  const auto ready = plan.ready;
  for_each_ticket(
      space, plan.ticket, factor.n, Wait == ElmrWait::lane_zero ? "trellis::trsv::elmr" : "trellis::trsv::elmr_lanes",
      max_vector_width<exec>(), KOKKOS_LAMBDA(const member_type& m, int t) {
        const ordinal_t i = order(t);
        const offset_t k0 = rows.row_map(i), k1 = rows.row_map(i + 1);
        // Gauss-Seidel's x_k part needs no waiting: done first
        // (empty for plain triangular solves).
        Scalar sum = other_part(m, other, i, x_old), tri = 0;
        if (Wait == ElmrWait::every_lane) {  // not constexpr: nvcc lambdas may not first-capture there
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, k0, k1),
              [&](offset_t k, Scalar& s) {
                const ordinal_t j = rows.col_ind(k);
                while (Kokkos::volatile_load(&ready(j)) != epoch) {
                }
                Kokkos::memory_fence();  // acquire: x(j) follows its flag
                s += rows.values(k) * Kokkos::volatile_load(&x(j));
              },
              tri);
        } else {
          // The lanes look at all flags once, in parallel; only if
          // some dependency is not yet published does lane 0 spin.
          int pending = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, k0, k1),
              [&](offset_t k, int& waiting) { waiting += Kokkos::volatile_load(&ready(rows.col_ind(k))) != epoch; },
              pending);
          if (pending)
            Kokkos::single(Kokkos::PerThread(m), [&]() {
              for (offset_t k = k0; k < k1; ++k)
                while (Kokkos::volatile_load(&ready(rows.col_ind(k))) != epoch) {
                }
            });
          Kokkos::memory_fence();  // acquire: x(j) reads follow the flags
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, k0, k1),
              [&](offset_t k, Scalar& s) { s += rows.values(k) * Kokkos::volatile_load(&x(rows.col_ind(k))); }, tri);
        }
        sum += tri;
        Kokkos::single(Kokkos::PerThread(m), [&]() {
          x(i) = (b(i) - sum) * inv_diag(i);
          Kokkos::memory_fence();
          Kokkos::volatile_store(&ready(i), epoch);
        });
      });
}

/// Column update shared by ELMC and the naive baseline: x(i) -= L(i,j) x(j)
/// for the rows i of column j, each followed by a fence and a counter bump.
template <class Member, class Columns, class CounterView, class XView, class Scalar>
KOKKOS_INLINE_FUNCTION void push_column(const Member& m, const Columns& columns, const CounterView& counters,
                                        ordinal_t j, Scalar xj, const XView& x) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, columns.col_map(j), columns.col_map(j + 1)), [&](offset_t k) {
    const ordinal_t i = columns.row_ind(k);
    Kokkos::atomic_add(&x(i), -columns.values(k) * xj);
    Kokkos::memory_fence();
    compat::atomic_increment(&counters(i));
  });
}

/// ELMC: warp t solves unknown j = jlev(t); lane 0 waits until all of j's
/// dependencies have pushed their updates, then the lanes push column j.
template <class Scalar, class Device>
void elmc_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                ElementPlan<Scalar, Device>& plan, Kokkos::View<const Scalar*, Device> b,
                Kokkos::View<Scalar*, Device> x) {
  using exec = typename Device::execution_space;
  using member_type = typename trellis::TeamPolicy<exec>::member_type;
  if (x.data() != b.data()) Kokkos::deep_copy(space, x, b);
  const int epoch = next_epoch(space, plan);
  const auto columns = factor.columns;
  const auto inv_diag = factor.inv_diag;
  const auto order = plan.order;
  const auto counters = plan.counters;
  const auto deps = plan.deps;
  for_each_ticket(
      space, plan.ticket, factor.n, "trellis::trsv::elmc", max_vector_width<exec>(),
      KOKKOS_LAMBDA(const member_type& m, int t) {
        const ordinal_t j = order(t);
        Scalar xj = 0;
        Kokkos::single(
            Kokkos::PerThread(m),
            [&](Scalar& v) {
              const int target = epoch * deps(j);
              while (Kokkos::volatile_load(&counters(j)) != target) {
              }
              Kokkos::memory_fence();
              v = Kokkos::volatile_load(&x(j)) * inv_diag(j);
              x(j) = v;
            },
            xj);
        push_column(m, columns, counters, j, xj, x);
      });
}

/// GSF baseline: warp t solves unknown t in natural order (n-1-t for upper),
/// every lane spinning on the counter, no level information.
template <class Scalar, class Device>
void syncfree_naive_solve(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& factor,
                          ElementPlan<Scalar, Device>& plan, Kokkos::View<const Scalar*, Device> b,
                          Kokkos::View<Scalar*, Device> x) {
  using exec = typename Device::execution_space;
  using member_type = typename trellis::TeamPolicy<exec>::member_type;
  if (x.data() != b.data()) Kokkos::deep_copy(space, x, b);
  const int epoch = next_epoch(space, plan);
  const auto columns = factor.columns;
  const auto inv_diag = factor.inv_diag;
  const auto counters = plan.counters;
  const auto deps = plan.deps;
  const bool lower = factor.triangle == Triangle::lower;
  const ordinal_t n = factor.n;
  for_each_ticket(
      space, plan.ticket, n, "trellis::trsv::syncfree_naive", max_vector_width<exec>(),
      KOKKOS_LAMBDA(const member_type& m, int t) {
        const ordinal_t j = lower ? t : n - 1 - t;
        const int target = epoch * deps(j);
        while (Kokkos::volatile_load(&counters(j)) != target) {
        }
        Kokkos::memory_fence();
        const Scalar xj = Kokkos::volatile_load(&x(j)) * inv_diag(j);
        Kokkos::single(Kokkos::PerThread(m), [&]() { x(j) = xj; });
        push_column(m, columns, counters, j, xj, x);
      });
}

}  // namespace trellis::detail
