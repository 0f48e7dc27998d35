#pragma once
// The IKJ row update of factor_row with the row staged in thread scratch.
// A step k of factor_row waits in turn on global loads: k's inverse
// diagonal, row k's U extent, a binary search in row k's U columns, the U
// value. Here row i's columns and values and every step's U extent are
// loaded first, all at once (the k come from row i's own columns, not from
// the arithmetic), and the inverse diagonals of each run of steps whose
// rows k are final; the steps then run from scratch, each lane reading its
// entries of row k's U a few steps ahead, and finding their places in row
// i by a binary search in scratch. The arithmetic is factor_row's, in the
// same order: the results are the same.
//
// Where rows are handed over through their values (Ready::value_flags:
// row k's U blocks and inverse diagonal hold core/handoff.hpp's sentinel
// until row k publishes them, and a row's starting U values come from
// Ready::u_start), each read of row k's values waits on that value alone:
// no flag, no fence.
#include <Kokkos_Core.hpp>
#include <type_traits>

#include "trellis/core/handoff.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/types.hpp"
#include "trellis/ilu/detail/block_ops.hpp"

namespace trellis::ilu::detail {

/// The longest row the staged update takes, in blocks (L, diagonal, U).
constexpr offset_t staged_row_max = 512;

/// The longest row of a factorization (blocks) and its longest L part (steps).
struct RowExtent {
  offset_t blocks = 0, steps = 0;
};

/// Lanes the staged update runs on: V on GPUs, where each lane is its own
/// thread and keeps its own registers across the steps; 1 on host backends,
/// where a team thread's vector loop is one thread.
KOKKOS_INLINE_FUNCTION int staged_lanes(int V) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return V;
#else
  (void)V;
  return 1;
#endif
}

/// How many of this team thread's first lanes, from lane 0 on, have `ok`
/// (W lanes; on host backends W is 1). Every lane gets the same answer.
KOKKOS_INLINE_FUNCTION int leading_lanes(bool ok, int W) {
#if defined(__CUDA_ARCH__)
  const unsigned bits = __ballot_sync(trellis::detail::lane_mask(), ok) >> trellis::detail::lane_shift();
  const unsigned missing = ~bits & (W == 32 ? 0xffffffffu : (1u << W) - 1);
  return missing ? __ffs(missing) - 1 : W;
#elif defined(__HIP_DEVICE_COMPILE__)
  const unsigned long long bits = __ballot(ok) >> trellis::detail::lane_shift();
  const unsigned long long missing = ~bits & (W == 64 ? ~0ull : (1ull << W) - 1);
  return missing ? __ffsll(missing) - 1 : W;
#else
  (void)W;
  return ok ? 1 : 0;
#endif
}

/// The rows k of a row's L steps, factored or not: every one is, where the
/// rows are updated a level at a time. A Ready type also says how to order
/// the reads of the rows it found factored after its flags (acquire).
struct AllStepsReady {
  static constexpr bool value_flags = false;
  KOKKOS_INLINE_FUNCTION bool operator()(ordinal_t) const { return true; }
  KOKKOS_INLINE_FUNCTION void acquire() const {}
};

/// A value of row k's factors: as stored where rows are final when read,
/// else (values as flags) once published, waiting until it is.
template <bool value_flags, class Scalar>
KOKKOS_INLINE_FUNCTION Scalar read_final(const Scalar* p) {
  if constexpr (value_flags)
    return trellis::detail::wait_published(p);
  else
    return *p;
}

/// read_final of n consecutive values into out: all loads issued before
/// any is waited on.
template <bool value_flags, class Scalar>
KOKKOS_INLINE_FUNCTION void read_final(const Scalar* p, int n, Scalar* out) {
  if constexpr (value_flags) {
    for (int e = 0; e < n; ++e) out[e] = trellis::detail::load_published(p + e);
    for (int e = 0; e < n; ++e)
      if (trellis::detail::is_unpublished(out[e])) out[e] = trellis::detail::wait_published(p + e);
  } else {
    for (int e = 0; e < n; ++e) out[e] = p[e];
  }
}

/// One team thread's staging area: row i's columns and blocks, and per L
/// step k's inverse diagonal block and U extent [kbeg, kend).
template <class Scalar, class Exec>
struct StagedRow {
  template <class T>
  using view = Kokkos::View<T*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  view<ordinal_t> col;
  view<Scalar> val, kinv;
  view<offset_t> kbeg, kend;

  static size_t bytes(int BB, RowExtent e) {
    return view<ordinal_t>::shmem_size(e.blocks) + view<Scalar>::shmem_size(e.blocks * BB) +
           view<Scalar>::shmem_size(e.steps * BB) + 2 * view<offset_t>::shmem_size(e.steps);
  }
  /// Carved from the thread's scratch: once per team thread, before its rows.
  template <class Member>
  KOKKOS_INLINE_FUNCTION StagedRow(const Member& m, int BB, RowExtent e)
      : col(m.thread_scratch(0), e.blocks),
        val(m.thread_scratch(0), e.blocks * BB),
        kinv(m.thread_scratch(0), e.steps * BB),
        kbeg(m.thread_scratch(0), e.steps),
        kend(m.thread_scratch(0), e.steps) {}
};

/// The end r of the steps [q, r) of a row (nl of them, their rows k in
/// s.col) whose rows are factored, ready(k); waits until step q's is, so
/// r > q. On GPUs the W lanes look at W steps at once, and all wait
/// together on step q's row (held by another vector group: never lanes on
/// lanes of their own group). Callers acquire (Ready::acquire) before
/// reading row k's values.
template <class Stage, class Ready>
KOKKOS_INLINE_FUNCTION offset_t ready_steps(const Stage& s, offset_t q, offset_t nl, int lane, int W,
                                            const Ready& ready) {
  if constexpr (std::is_same<Ready, AllStepsReady>::value) {
    return nl;
  } else {
    for (;;) {
      const offset_t p = q + lane;
      const int n = leading_lanes(p >= nl || ready(s.col(p)), W);
      if (n > 0) {
        offset_t r = q + n;
        if (W == 1)  // host: look on along the row, one step after another
          while (r < nl && ready(s.col(r))) ++r;
        return r < nl ? r : nl;
      }
    }
  }
}

/// factor_row's update of block row i, staged in `s` (its extent covers row
/// i); V vector lanes of team member m. Records the pivot in `status`.
/// ready(k): whether row k's factors are final. Each step waits only for
/// its own row k, so a row's early steps run while the rows of its last
/// steps are still being factored (the sync-free schedule); level-by-level
/// callers pass AllStepsReady.
template <int B, class Member, class F, class Diag, class Status, class Stage, class Ready = AllStepsReady>
KOKKOS_INLINE_FUNCTION void factor_row_staged(const Member& m, int V, const F& f, const Diag& diag, ordinal_t i,
                                              double tol, double boost, const Status& status, const Stage& s,
                                              const Ready& ready = Ready()) {
  using Scalar = typename Diag::non_const_value_type;
  constexpr int BB = B * B;
  constexpr int ahead = 4;  // steps of row k's U in flight per lane
  constexpr bool waits = !std::is_same<Ready, AllStepsReady>::value;
  constexpr bool vf = Ready::value_flags;
  const offset_t l0 = f.L_map(i), nl = f.L_map(i + 1) - l0;
  const offset_t u0 = f.U_map(i), nu = f.U_map(i + 1) - u0;
  const offset_t len = nl + 1 + nu;

  // Row i and its steps' U extents (the pattern); the rows k's inverse
  // diagonals are loaded once they are final.
  Scalar scale = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, len),
      [&](offset_t p, Scalar& largest) {
        const Scalar* blk;
        if (p < nl) {
          const ordinal_t k = f.L_col(l0 + p);
          s.col(p) = k;
          s.kbeg(p) = f.U_map(k);
          s.kend(p) = f.U_map(k + 1);
          blk = &f.L_val((l0 + p) * BB);
        } else if (p == nl) {
          s.col(p) = i;
          blk = &diag(i * BB);
        } else {
          s.col(p) = f.U_col(u0 + p - nl - 1);
          if constexpr (Ready::value_flags)
            blk = &ready.u_start((u0 + p - nl - 1) * BB);
          else
            blk = &f.U_val((u0 + p - nl - 1) * BB);
        }
        for (int t = 0; t < BB; ++t) {
          s.val(p * BB + t) = blk[t];
          largest = math::fmax(largest, math::fabs(blk[t]));
        }
      },
      Kokkos::Max<Scalar>(scale));
  if (scale == Scalar(0)) scale = 1;  // an all-zero row: the boost still needs a size

  const int W = staged_lanes(V);
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, W), [&](int lane) {
    trellis::detail::sync_lanes();  // the staged row, seen by every lane
    // The steps run in ranges [qa, qb) whose rows k are all factored.
    for (offset_t qa = 0, qb = 0; qa < nl; qa = qb) {
      qb = ready_steps(s, qa, nl, lane, W, ready);
      if (waits && !vf) {  // the rows k's values after their flags, whichever lane saw them
        ready.acquire();
        trellis::detail::sync_lanes();
      }
      // This lane's entry of row k's U for the next `ahead` steps: column
      // (-1: none) and value (B = 1; larger blocks are read when used). The
      // step loop is unrolled by `ahead` so that step q reads slot
      // (q - qa) % ahead and refills it for step q + ahead: no register
      // moves, which would wait on loads still in flight.
      ordinal_t ring_j[ahead];
      Scalar ring_u[ahead];
      // Both loads are issued on the same condition, never one on the
      // other's result: a value load guarded by its column (j >= 0) waited
      // for that column's load there and then, in the step that issued it.
      // With values as flags the load is not waited on here (that would
      // stall the ring): a value still unpublished is waited for when used.
      auto fetch = [&](offset_t q, ordinal_t& j, Scalar& u) {
        const offset_t t = q < qb ? s.kbeg(q) + lane : 0;
        const bool held = q < qb && t < s.kend(q);
        j = held ? f.U_col(t) : -1;
        if constexpr (vf)
          u = B == 1 && held ? trellis::detail::load_published(&f.U_val(t)) : Scalar(0);
        else
          u = B == 1 && held ? f.U_val(t) : Scalar(0);
      };
#pragma unroll
      for (int d = 0; d < ahead; ++d) fetch(qa + d, ring_j[d], ring_u[d]);
      // The inverse diagonals after the ring's loads, which are then in flight with them.
      for (offset_t p = qa + lane; p < qb; p += W) read_final<vf>(&f.inv_diag(s.col(p) * BB), BB, &s.kinv(p * BB));
      trellis::detail::sync_lanes();

      for (offset_t q0 = qa; q0 < qb; q0 += ahead) {
#pragma unroll
        for (int d = 0; d < ahead; ++d) {
          const offset_t q = q0 + d;
          if (q >= qb) break;  // the same for every lane of the row
          Scalar l[BB];
          block_matmul<B>(&s.val(q * BB), &s.kinv(q * BB), l);
          // A_ij -= L_ik U_kj where row i holds column j (after position q).
          auto update = [&](ordinal_t j, offset_t t, Scalar u) {
            offset_t lo = q + 1, hi = len;
            while (lo < hi) {
              const offset_t mid = (lo + hi) / 2;
              if (s.col(mid) < j)
                lo = mid + 1;
              else
                hi = mid;
            }
            if (lo < len && s.col(lo) == j) {
              if constexpr (B == 1) {
                if (vf && trellis::detail::is_unpublished(u)) u = trellis::detail::wait_published(&f.U_val(t));
                block_matmul_sub<B>(l, &u, &s.val(lo * BB));
              } else {
                Scalar ukj[BB];
                read_final<vf>(&f.U_val(t * BB), BB, ukj);
                block_matmul_sub<B>(l, ukj, &s.val(lo * BB));
              }
            }
          };
          const offset_t t0 = s.kbeg(q) + lane;
          if (ring_j[d] >= 0) update(ring_j[d], t0, ring_u[d]);
          for (offset_t t = t0 + W; t < s.kend(q); t += W)
            update(f.U_col(t), t, B == 1 ? read_final<vf>(&f.U_val(t)) : Scalar(0));
          if (lane == 0)
            for (int t = 0; t < BB; ++t) f.L_val((l0 + q) * BB + t) = l[t];
          fetch(q + ahead, ring_j[d], ring_u[d]);
          trellis::detail::sync_lanes();  // step q's updates before step q + 1 reads its L_ik
        }
      }
    }
    if (lane == 0) {
      Scalar inv[BB];
      const int st = block_invert<B>(&s.val(nl * BB), inv, Scalar(tol * scale), Scalar(boost * scale));
      for (int t = 0; t < BB; ++t) {
        if constexpr (vf)
          trellis::detail::publish_value(&f.inv_diag(i * BB + t), inv[t]);
        else
          f.inv_diag(i * BB + t) = inv[t];
      }
      record_pivot(status, i, st);
    }
    for (offset_t p = nl + lane; p < len; p += W) {
      Scalar* out = p == nl ? &diag(i * BB) : &f.U_val((u0 + p - nl - 1) * BB);
      for (int t = 0; t < BB; ++t) {
        if constexpr (vf) {
          if (p > nl) {  // U: read by later rows (the diagonal is not)
            trellis::detail::publish_value(out + t, s.val(p * BB + t));
            continue;
          }
        }
        out[t] = s.val(p * BB + t);
      }
    }
  });
}

}  // namespace trellis::ilu::detail
