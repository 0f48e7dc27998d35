#pragma once
// The IKJ row update of factor_row with the row staged in thread scratch.
// A step k of factor_row waits in turn on global loads: k's inverse
// diagonal, row k's U extent, a binary search in row k's U columns, the U
// value. Here row i's columns and values, and every step's inverse
// diagonal block and U extent, are loaded first, all at once (the k come
// from row i's own columns, not from the arithmetic); the steps then run
// from scratch, each lane reading its entries of row k's U a few steps
// ahead, and finding their places in row i by a binary search in scratch.
// The arithmetic is factor_row's, in the same order: the results are the same.
#include <Kokkos_Core.hpp>

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

/// Orders the scratch writes of one team thread's lanes before their next
/// reads (a warp sync with the team thread's lanes as mask on CUDA; one
/// wavefront runs in lock step on HIP, where the fence keeps the order).
KOKKOS_INLINE_FUNCTION void sync_lanes() {
#if defined(__CUDA_ARCH__)
  const unsigned mask =
      blockDim.x == 32 ? 0xffffffffu : ((1u << blockDim.x) - 1) << ((threadIdx.y % (32 / blockDim.x)) * blockDim.x);
  __syncwarp(mask);
#elif defined(__HIP_DEVICE_COMPILE__)
  __threadfence_block();
#endif
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

/// factor_row's update of block row i, staged in `s` (its extent covers row
/// i); V vector lanes of team member m. Records the pivot in `status`.
template <int B, class Member, class F, class Diag, class Status, class Stage>
KOKKOS_INLINE_FUNCTION void factor_row_staged(const Member& m, int V, const F& f, const Diag& diag, ordinal_t i,
                                              double tol, double boost, const Status& status, const Stage& s) {
  using Scalar = typename Diag::non_const_value_type;
  constexpr int BB = B * B;
  constexpr int ahead = 4;  // steps of row k's U in flight per lane
  const offset_t l0 = f.L_map(i), nl = f.L_map(i + 1) - l0;
  const offset_t u0 = f.U_map(i), nu = f.U_map(i + 1) - u0;
  const offset_t len = nl + 1 + nu;

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
          for (int t = 0; t < BB; ++t) s.kinv(p * BB + t) = f.inv_diag(k * BB + t);
          blk = &f.L_val((l0 + p) * BB);
        } else if (p == nl) {
          s.col(p) = i;
          blk = &diag(i * BB);
        } else {
          s.col(p) = f.U_col(u0 + p - nl - 1);
          blk = &f.U_val((u0 + p - nl - 1) * BB);
        }
        for (int t = 0; t < BB; ++t) {
          s.val(p * BB + t) = blk[t];
          largest = Kokkos::Experimental::fmax(largest, Kokkos::Experimental::fabs(blk[t]));
        }
      },
      Kokkos::Max<Scalar>(scale));
  if (scale == Scalar(0)) scale = 1;  // an all-zero row: the boost still needs a size

  const int W = staged_lanes(V);
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, W), [&](int lane) {
    sync_lanes();  // the staged row, seen by every lane
    // This lane's entry of row k's U for the next `ahead` steps: column
    // (-1: none) and value (B = 1; larger blocks are read when used). The
    // step loop is unrolled by `ahead` so that step q reads slot q % ahead
    // and refills it for step q + ahead: no register moves, which would wait
    // on loads still in flight.
    ordinal_t ring_j[ahead];
    Scalar ring_u[ahead];
    // Both loads are issued on the same condition, never one on the other's
    // result: a value load guarded by its column (j >= 0) waited for that
    // column's load there and then, in the step that issued it.
    auto fetch = [&](offset_t q, ordinal_t& j, Scalar& u) {
      const offset_t t = q < nl ? s.kbeg(q) + lane : 0;
      const bool held = q < nl && t < s.kend(q);
      j = held ? f.U_col(t) : -1;
      u = B == 1 && held ? f.U_val(t) : Scalar(0);
    };
#pragma unroll
    for (int d = 0; d < ahead; ++d) fetch(d, ring_j[d], ring_u[d]);

    for (offset_t q0 = 0; q0 < nl; q0 += ahead) {
#pragma unroll
      for (int d = 0; d < ahead; ++d) {
        const offset_t q = q0 + d;
        if (q >= nl) break;  // the same for every lane of the row
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
          if (lo < len && s.col(lo) == j) block_matmul_sub<B>(l, B == 1 ? &u : &f.U_val(t * BB), &s.val(lo * BB));
        };
        const offset_t t0 = s.kbeg(q) + lane;
        if (ring_j[d] >= 0) update(ring_j[d], t0, ring_u[d]);
        for (offset_t t = t0 + W; t < s.kend(q); t += W) update(f.U_col(t), t, B == 1 ? f.U_val(t) : Scalar(0));
        if (lane == 0)
          for (int t = 0; t < BB; ++t) f.L_val((l0 + q) * BB + t) = l[t];
        fetch(q + ahead, ring_j[d], ring_u[d]);
        sync_lanes();  // step q's updates before step q + 1 reads its L_ik
      }
    }
    if (lane == 0) {
      const int st = block_invert<B>(&s.val(nl * BB), &f.inv_diag(i * BB), Scalar(tol * scale), Scalar(boost * scale));
      record_pivot(status, i, st);
    }
    for (offset_t p = nl + lane; p < len; p += W) {
      Scalar* out = p == nl ? &diag(i * BB) : &f.U_val((u0 + p - nl - 1) * BB);
      for (int t = 0; t < BB; ++t) out[t] = s.val(p * BB + t);
    }
  });
}

}  // namespace trellis::ilu::detail
