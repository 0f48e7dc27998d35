#pragma once
// ILU0 of the block-diagonal matrix on the device, then the ILDU0
// post-processing (seed 000, Algorithm 4.4). Subdomains are independent, so
// one team factors one subdomain; inside it, the rows of a lower-triangle
// level do not depend on each other and are factored in parallel, one row
// per team thread and its vector lanes (the engine's IKJ row update, staged
// in scratch where it fits), with a team barrier between levels.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/dd/subdomain_factors.hpp"
#include "trellis/ilu/factorization.hpp"

namespace trellis::dd {

/// Factors in place: on entry L_val / U_val hold A's strict lower / upper
/// blocks and diag its diagonal blocks, f.lower is analyzed; on exit L_val
/// holds L, U_val holds U' = D^{-1} U, inv_diag holds D^{-1} and LD_val L D
/// (unless a pivot failed: see the outcome). status: from make_pivot_status,
/// extent: f's, from ilu::detail::row_extent.
template <int B, class Scalar, class Device>
ilu::FactorizationOutcome factor_subdomains(const typename Device::execution_space& space,
                                            SubdomainFactors<Scalar, Device>& f, ilu::detail::RowExtent extent,
                                            Kokkos::View<Scalar*, Device> diag, ilu::PivotOptions pivots,
                                            Kokkos::View<ordinal_t*, Device> status) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  const bool host = trellis::detail::is_host_space<exec>();
  ilu::detail::reset_pivot_status(space, status, f.num_rows);
  const SubdomainFactors<Scalar, Device> fc = f;
  const auto sched = f.lower;
  const double tol = pivots.tolerance, boost = pivots.boost;
  const int lanes =
      ilu::detail::row_lanes<exec>(offset_t(f.L_col.extent(0) + f.U_col.extent(0)) + f.num_rows, f.num_rows);
  const int threads = host ? 1 : std::max(1, 256 / lanes);
  const ilu::detail::StagedPlan plan = ilu::detail::staged_plan<B, Scalar, exec>(extent, threads);
  const bool staged = plan.staged();
  policy subdomains(space, f.num_subdomains(), threads, lanes);
  if (staged) subdomains.set_scratch_size(0, Kokkos::PerThread(plan.bytes));
  Kokkos::parallel_for(
      "trellis::dd::ilu0", subdomains, KOKKOS_LAMBDA(const typename policy::member_type& m) {
        const ordinal_t s = m.league_rank();
        auto by_levels = [&](const auto& factor) {
          for (ordinal_t g = sched.level_begin(s); g < sched.level_begin(s + 1); ++g) {
            Kokkos::parallel_for(Kokkos::TeamThreadRange(m, sched.level_ptr(g), sched.level_ptr(g + 1)),
                                 [&](offset_t p) { factor(sched.level_rows(p)); });
            m.team_barrier();
          }
        };
        if (staged) {
          const ilu::detail::StagedRow<Scalar, exec> stage(m, B * B, extent);  // once per team thread
          by_levels([&](ordinal_t i) {
            ilu::detail::factor_row_staged<B>(m, lanes, fc, diag, i, tol, boost, status, stage);
          });
        } else {
          by_levels([&](ordinal_t i) { ilu::detail::factor_row<B>(m, lanes, fc, diag, i, tol, boost, status); });
        }
      });
  ilu::FactorizationOutcome out = ilu::detail::read_pivot_status(space, status, f.num_rows);
  out.staged_rows = staged;
  if (out.tiny_row < 0 && out.non_finite_row < 0) ilu::detail::ildu_postprocess<B>(space, f, diag);
  return out;
}

}  // namespace trellis::dd
