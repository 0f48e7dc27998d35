#pragma once
// The ILU0 / ILDU0 factorization engine every ILU of the library uses: the
// IKJ row update of a block row with its pivot check, the pivot status a
// factorization reports, the ILDU0 post-processing (seed 000, Algorithm
// 4.4), and a level-by-level driver for a whole matrix. Callers that
// schedule rows their own way (one team per subdomain in dd/) call
// factor_row and record_pivot from their own kernels.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/sum_array.hpp"
#include "trellis/core/view_arena.hpp"
#include "trellis/ilu/block_factors.hpp"
#include "trellis/ilu/detail/block_ops.hpp"
#include "trellis/ilu/detail/staged_row.hpp"
#include "trellis/ilu/pivot_options.hpp"

namespace trellis::ilu {

struct FactorizationOutcome {
  ordinal_t tiny_row = -1;        // first block row with a tiny pivot, or -1
  ordinal_t non_finite_row = -1;  // first block row with a NaN/Inf pivot, or -1
  ordinal_t boosted = 0;          // pivots replaced by the boost
  bool staged_rows = false;       // rows updated from scratch (factor_row_staged)
};

/// What a factorization leaves besides L, D^{-1} and U' = D^{-1} U: the
/// ILDU0 form's D and L D as well (the DD solves use them), or nothing more
/// (a global ILU0 applied as U'^{-1} D^{-1} L^{-1}).
enum class FactorOutputs { ildu, unit_lu };

namespace detail {

/// Vector lanes per row of the row update on this backend: host backends 1;
/// GPUs the power of two at or above the mean blocks per row (the row's
/// positions are spread over them), 2 to 32.
template <class Exec>
int row_lanes(offset_t blocks, ordinal_t rows) {
  if (trellis::detail::is_host_space<Exec>() || rows < 1) return 1;
  const double mean = double(blocks) / rows;
  int v = 2;
  while (v < 32 && v < mean) v *= 2;
  return v;
}

/// IKJ update of block row i, L_ik = A_ik U_kk^{-1} then A_ij -= L_ik U_kj
/// for every (i, j) of the pattern, by the V vector lanes of team member m.
/// The row's positions (its L blocks, the diagonal, its U blocks, numbered
/// in that order) are spread over the lanes: lane l owns the positions p
/// with p mod V == l, and only it reads or writes them, so the lanes need
/// no memory ordering among themselves; each step's L_ik, final when its
/// step comes, reaches every lane through a vector reduction. Each lane
/// finds its positions' columns in row k's U by binary search. Every entry
/// sees the same operations in the same order on every backend and lane
/// count. Records the pivot's outcome in `status` (record_pivot).
template <int B, class Member, class F, class Diag, class Status>
KOKKOS_INLINE_FUNCTION void factor_row(const Member& m, int V, const F& f, const Diag& diag, ordinal_t i, double tol,
                                       double boost, const Status& status) {
  using Scalar = typename Diag::non_const_value_type;
  constexpr int BB = B * B;
  const offset_t l0 = f.L_map(i), nl = f.L_map(i + 1) - l0;
  const offset_t u0 = f.U_map(i), nu = f.U_map(i + 1) - u0;
  const offset_t len = nl + 1 + nu;
  auto block = [&](offset_t p) -> Scalar* {
    return p < nl ? &f.L_val((l0 + p) * BB) : p == nl ? &diag(i * BB) : &f.U_val((u0 + p - nl - 1) * BB);
  };
  auto column = [&](offset_t p) { return p < nl ? f.L_col(l0 + p) : p == nl ? i : f.U_col(u0 + p - nl - 1); };

  Scalar scale = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, V),
      [&](int lane, Scalar& s) {
        for (offset_t p = lane; p < len; p += V) {
          const Scalar* blk = block(p);
          for (int t = 0; t < BB; ++t) s = math::fmax(s, math::fabs(blk[t]));
        }
      },
      Kokkos::Max<Scalar>(scale));
  if (scale == Scalar(0)) scale = 1;  // an all-zero row: the boost still needs a size

  for (offset_t q = 0; q < nl; ++q) {
    const ordinal_t k = f.L_col(l0 + q);
    SumArray<Scalar, BB> lik;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(m, V),
        [&](int lane, SumArray<Scalar, BB>& out) {
          if (lane != int(q % V)) return;
          Scalar* aik = block(q);
          block_matmul<B>(aik, &f.inv_diag(k * BB), out.v);
          for (int t = 0; t < BB; ++t) aik[t] = out.v[t];
        },
        lik);
    const offset_t k0 = f.U_map(k), k1 = f.U_map(k + 1);
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, V), [&](int lane) {
      // Positions after q: L blocks of columns above k, the diagonal, U.
      offset_t p = q + 1 + ((lane - int((q + 1) % V)) % V + V) % V;
      for (; p < len; p += V) {
        const ordinal_t j = column(p);
        offset_t lo = k0, hi = k1;  // row k's U columns are sorted
        while (lo < hi) {
          const offset_t mid = (lo + hi) / 2;
          if (f.U_col(mid) < j)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo < k1 && f.U_col(lo) == j) block_matmul_sub<B>(lik.v, &f.U_val(lo * BB), block(p));
      }
    });
  }
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, V), [&](int lane) {
    if (lane != int(nl % V)) return;  // the diagonal's owner
    const int st = block_invert<B>(&diag(i * BB), &f.inv_diag(i * BB), Scalar(tol * scale), Scalar(boost * scale));
    record_pivot(status, i, st);
  });
}

/// The longest row of f (blocks) and its longest L part (steps): a
/// property of the pattern, read once at setup (two reductions, each a host
/// round trip) and reused by every refactorization.
template <class Scalar, class Device>
RowExtent row_extent(const typename Device::execution_space& space, const BlockFactors<Scalar, Device>& f) {
  using range = trellis::RangePolicy<typename Device::execution_space>;
  const auto lm = f.L_map, um = f.U_map;
  RowExtent extent;
  Kokkos::parallel_reduce(
      "trellis::ilu::row_blocks", range(space, 0, f.num_rows),
      KOKKOS_LAMBDA(ordinal_t i, offset_t & most) {
        const offset_t blocks = lm(i + 1) - lm(i) + 1 + um(i + 1) - um(i);
        if (blocks > most) most = blocks;
      },
      Kokkos::Max<offset_t>(extent.blocks));
  Kokkos::parallel_reduce(
      "trellis::ilu::row_steps", range(space, 0, f.num_rows),
      KOKKOS_LAMBDA(ordinal_t i, offset_t & most) {
        if (lm(i + 1) - lm(i) > most) most = lm(i + 1) - lm(i);
      },
      Kokkos::Max<offset_t>(extent.steps));
  return extent;
}

/// How a factorization runs its row updates: staged (factor_row_staged,
/// `bytes` of thread scratch for rows up to `extent`) or, where a row is
/// longer than staged_row_max or `threads` rows' scratch exceeds the
/// backend's team scratch, factor_row (bytes 0).
struct StagedPlan {
  RowExtent extent;
  size_t bytes = 0;
  bool staged() const { return bytes > 0; }
};

template <int B, class Scalar, class Exec>
StagedPlan staged_plan(RowExtent extent, int threads) {
  StagedPlan plan;
  plan.extent = extent;
  const size_t bytes = StagedRow<Scalar, Exec>::bytes(B * B, extent);
  if (extent.blocks <= staged_row_max &&
      bytes * size_t(threads) <= size_t(trellis::TeamPolicy<Exec>::scratch_size_max(0)))
    plan.bytes = bytes;
  return plan;
}

/// Sets the status to "no failure, nothing boosted" for n rows: a kernel,
/// queued on space, where a copy from the host would need a fence.
template <class Device>
void reset_pivot_status(const typename Device::execution_space& space, Kokkos::View<ordinal_t*, Device> status,
                        ordinal_t n) {
  Kokkos::parallel_for(
      "trellis::ilu::reset_pivot_status", trellis::RangePolicy<typename Device::execution_space>(space, 0, 1),
      KOKKOS_LAMBDA(int) {
        status(0) = status(1) = n;
        status(2) = 0;
      });
}

/// (first tiny row, first non-finite row, boosted count), from `arena`.
template <class Device>
Kokkos::View<ordinal_t*, Device> make_pivot_status(
    const typename Device::execution_space& space, ordinal_t n, ViewArena<Device>& arena,
    typename ViewArena<Device>::Lifetime life = ViewArena<Device>::temporary) {
  Kokkos::View<ordinal_t*, Device> status = arena.template take<ordinal_t>("trellis::ilu::pivot_status", 3, life);
  reset_pivot_status(space, status, n);
  return status;
}

template <class Device>
FactorizationOutcome read_pivot_status(const typename Device::execution_space& space,
                                       Kokkos::View<ordinal_t*, Device> status, ordinal_t n) {
  auto h = compat::create_mirror_view_uninitialized(Kokkos::HostSpace(), status);
  Kokkos::deep_copy(space, h, status);
  space.fence();  // the host reads the status
  FactorizationOutcome out;
  out.tiny_row = h(0) < n ? h(0) : -1;
  out.non_finite_row = h(1) < n ? h(1) : -1;
  out.boosted = h(2);
  return out;
}

/// Row i of U' = D^{-1} U, in place: U_ij <- D_i^{-1} U_ij.
template <int B, class F>
KOKKOS_INLINE_FUNCTION void scale_upper_row(const F& f, ordinal_t i) {
  using Scalar = typename decltype(f.U_val)::non_const_value_type;
  constexpr int BB = B * B;
  for (offset_t q = f.U_map(i); q < f.U_map(i + 1); ++q) {
    Scalar u[BB];
    block_matmul<B>(&f.inv_diag(i * BB), &f.U_val(q * BB), u);
    for (int t = 0; t < BB; ++t) f.U_val(q * BB + t) = u[t];
  }
}

/// U' = D^{-1} U alone (FactorOutputs::unit_lu): one pass over U.
template <int B, class Scalar, class Device>
void scale_upper(const typename Device::execution_space& space, const BlockFactors<Scalar, Device>& f) {
  const BlockFactors<Scalar, Device> fc = f;
  Kokkos::parallel_for(
      "trellis::ilu::scale_upper", trellis::RangePolicy<typename Device::execution_space>(space, 0, f.num_rows),
      KOKKOS_LAMBDA(ordinal_t i) { scale_upper_row<B>(fc, i); });
}

/// ILDU0 post-processing (Algorithm 4.4): LD = L D and U' = D^{-1} U. D is
/// rebuilt as (D^{-1})^{-1} so that a boosted pivot is the same in every variant.
template <int B, class Scalar, class Device>
void ildu_postprocess(const typename Device::execution_space& space, const BlockFactors<Scalar, Device>& f,
                      Kokkos::View<Scalar*, Device> diag) {
  using range = trellis::RangePolicy<typename Device::execution_space>;
  constexpr int BB = B * B;
  const BlockFactors<Scalar, Device> fc = f;
  Kokkos::parallel_for(
      "trellis::ilu::pivot_blocks", range(space, 0, f.num_rows),
      KOKKOS_LAMBDA(ordinal_t i) { block_invert<B>(&fc.inv_diag(i * BB), &diag(i * BB), Scalar(0), Scalar(0)); });
  Kokkos::parallel_for(
      "trellis::ilu::ildu0", range(space, 0, f.num_rows), KOKKOS_LAMBDA(ordinal_t i) {
        for (offset_t q = fc.L_map(i); q < fc.L_map(i + 1); ++q)
          block_matmul<B>(&fc.L_val(q * BB), &diag(fc.L_col(q) * BB), &fc.LD_val(q * BB));
        scale_upper_row<B>(fc, i);
      });
}

/// After a factorization without a failed pivot: the outputs asked for.
template <int B, class Scalar, class Device>
void finish_factors(const typename Device::execution_space& space, const BlockFactors<Scalar, Device>& f,
                    Kokkos::View<Scalar*, Device> diag, FactorOutputs outputs) {
  if (outputs == FactorOutputs::ildu)
    ildu_postprocess<B>(space, f, diag);
  else
    scale_upper<B>(space, f);
}

}  // namespace detail

/// Factors in place, as factor_subdomains in dd/ but without subdomains: one
/// launch per level of the lower triangle, one row per team thread and its
/// vector lanes, staged in scratch where it fits. The reference and the
/// baseline of the global ILU0's sync-free schedule (factor_sync_free: the
/// same factors bit for bit; refactor_bench times both). On entry L_val / U_val hold A's strict lower /
/// upper blocks and diag its diagonal blocks; on exit L_val holds L, U_val U' = D^{-1} U, inv_diag D^{-1} and LD_val L
/// D (unless a pivot failed: see the outcome; with FactorOutputs::unit_lu, diag holds the pivots and LD_val is
/// left alone). level_rows / level_ptr_host as in LevelSets; status from make_pivot_status, extent from row_extent.
template <int B, class Scalar, class Device>
FactorizationOutcome factor_by_levels(const typename Device::execution_space& space, BlockFactors<Scalar, Device>& f,
                                      detail::RowExtent extent, Kokkos::View<Scalar*, Device> diag, PivotOptions pivots,
                                      Kokkos::View<const ordinal_t*, Device> level_rows,
                                      Kokkos::View<const offset_t*, Kokkos::HostSpace> level_ptr_host,
                                      Kokkos::View<ordinal_t*, Device> status,
                                      FactorOutputs outputs = FactorOutputs::ildu) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  detail::reset_pivot_status(space, status, f.num_rows);
  const BlockFactors<Scalar, Device> fc = f;
  const double tol = pivots.tolerance, boost = pivots.boost;
  const int lanes = detail::row_lanes<exec>(offset_t(f.L_col.extent(0) + f.U_col.extent(0)) + f.num_rows, f.num_rows);
  const int rows_per_team = trellis::detail::is_host_space<exec>() ? 1 : std::max(1, 128 / lanes);
  const detail::StagedPlan plan = detail::staged_plan<B, Scalar, exec>(extent, rows_per_team);
  const bool staged = plan.staged();
  for (size_t l = 0; l + 1 < level_ptr_host.extent(0); ++l) {
    const offset_t begin = level_ptr_host(l), end = level_ptr_host(l + 1);
    const int teams = int((end - begin + rows_per_team - 1) / rows_per_team);
    policy levels(space, teams, rows_per_team, lanes);
    if (staged) levels.set_scratch_size(0, Kokkos::PerThread(plan.bytes));
    Kokkos::parallel_for(
        "trellis::ilu::factor_level", levels, KOKKOS_LAMBDA(const typename policy::member_type& m) {
          const offset_t p = begin + offset_t(m.league_rank()) * m.team_size() + m.team_rank();
          if (p >= end) return;
          if (staged)
            detail::factor_row_staged<B>(m, lanes, fc, diag, level_rows(p), tol, boost, status,
                                         detail::StagedRow<Scalar, exec>(m, B * B, extent));
          else
            detail::factor_row<B>(m, lanes, fc, diag, level_rows(p), tol, boost, status);
        });
  }
  FactorizationOutcome out = detail::read_pivot_status(space, status, f.num_rows);
  out.staged_rows = staged;
  if (out.tiny_row < 0 && out.non_finite_row < 0) detail::finish_factors<B>(space, f, diag, outputs);
  return out;
}

/// PivotError naming the original block row of the first failed pivot
/// (new_to_old empty: rows not permuted), the pivot, the row's scale (its
/// largest |entry| in R, the matrix that was factored, in the factor's
/// numbering) and the option that would let the factorization go on.
template <class Scalar, class Device>
void throw_if_pivot_failed(const FactorizationOutcome& out, const std::vector<ordinal_t>& new_to_old,
                           Kokkos::View<const Scalar*, Device> diag, const BsrMatrix<Scalar, Device>& R,
                           const PivotOptions& pivots) {
  const ordinal_t bad = out.non_finite_row >= 0 ? out.non_finite_row : out.tiny_row;
  if (bad < 0) return;
  const size_t bb = size_t(R.block_size) * R.block_size;
  double pivot = 0, scale = 0;
  Kokkos::deep_copy(pivot, Kokkos::subview(diag, size_t(bad) * bb));
  auto map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                 Kokkos::subview(R.row_map, std::make_pair(bad, bad + 2)));
  auto vals = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(R.values, std::make_pair(size_t(map(0)) * bb, size_t(map(1)) * bb)));
  for (size_t t = 0; t < vals.extent(0); ++t) scale = std::max(scale, std::abs(double(vals(t))));
  char text[200];
  std::string what, advice;
  if (out.non_finite_row >= 0) {
    what = "ILU0: NaN or Inf pivot";
    std::snprintf(text, sizeof text, "row scale %.3e; the matrix's values or the factorization overflowed", scale);
  } else if (pivots.tolerance > 0) {
    std::snprintf(text, sizeof text, "ILU0: tiny pivot (|p| <= %.1e x the row scale)", pivots.tolerance);
    what = text;
    std::snprintf(text, sizeof text,
                  "row scale %.3e; a smaller --pivot-tolerance (PivotOptions::tolerance, default 0) or "
                  "--pivot-boost B lets the factorization go on",
                  scale);
  } else {
    what = pivot == 0 ? "ILU0: zero pivot" : "ILU0: pivot too small to invert (its reciprocal overflows)";
    std::snprintf(text, sizeof text,
                  "row scale %.3e; --pivot-boost B (PivotOptions::boost) replaces it by B x the row scale", scale);
  }
  advice = text;
  throw PivotError(what + " (block row in the original numbering)", new_to_old.empty() ? bad : new_to_old[bad], pivot,
                   advice);
}

}  // namespace trellis::ilu
