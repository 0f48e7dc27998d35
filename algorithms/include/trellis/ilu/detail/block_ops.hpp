#pragma once
// Dense B x B block arithmetic for the BSR factorization and solve kernels (B is a
// compile-time block size, 1 for CSR). Blocks are row-major.
#include <Kokkos_Core.hpp>

#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/types.hpp"

namespace trellis::ilu::detail {

/// acc -= M x
template <int B, class Scalar>
KOKKOS_INLINE_FUNCTION void block_matvec_sub(const Scalar* M, const Scalar* x, Scalar* acc) {
  for (int r = 0; r < B; ++r) {
    Scalar s = 0;
    for (int c = 0; c < B; ++c) s += M[r * B + c] * x[c];
    acc[r] -= s;
  }
}

/// y = M x (y and x distinct)
template <int B, class Scalar>
KOKKOS_INLINE_FUNCTION void block_matvec(const Scalar* M, const Scalar* x, Scalar* y) {
  for (int r = 0; r < B; ++r) {
    Scalar s = 0;
    for (int c = 0; c < B; ++c) s += M[r * B + c] * x[c];
    y[r] = s;
  }
}

/// C = P Q (C distinct from P and Q)
template <int B, class Scalar>
KOKKOS_INLINE_FUNCTION void block_matmul(const Scalar* P, const Scalar* Q, Scalar* C) {
  for (int r = 0; r < B; ++r)
    for (int c = 0; c < B; ++c) {
      Scalar s = 0;
      for (int k = 0; k < B; ++k) s += P[r * B + k] * Q[k * B + c];
      C[r * B + c] = s;
    }
}

/// C -= P Q
template <int B, class Scalar>
KOKKOS_INLINE_FUNCTION void block_matmul_sub(const Scalar* P, const Scalar* Q, Scalar* C) {
  for (int r = 0; r < B; ++r)
    for (int c = 0; c < B; ++c) {
      Scalar s = 0;
      for (int k = 0; k < B; ++k) s += P[r * B + k] * Q[k * B + c];
      C[r * B + c] -= s;
    }
}

enum PivotStatus : int { pivot_ok = 0, pivot_boosted = 1, pivot_tiny = 2, pivot_not_finite = 3 };

/// Pivot outcome of one factored row into the shared status (first tiny row,
/// first non-finite row, boosted count).
template <class Status>
KOKKOS_INLINE_FUNCTION void record_pivot(const Status& status, ordinal_t i, int st) {
  if (st == pivot_tiny) Kokkos::atomic_fetch_min(&status(0), i);
  if (st == pivot_not_finite) Kokkos::atomic_fetch_min(&status(1), i);
  if (st == pivot_boosted) compat::atomic_increment(&status(2));
}

/// inv = A^{-1} by Gauss-Jordan elimination with partial pivoting inside the
/// block. A pivot with |p| <= tiny, or so small (subnormal) that 1 / p
/// overflows, is replaced by copysign(boost, p) when
/// boost > 0 (status pivot_boosted), else the inversion stops with
/// pivot_tiny; a NaN or Inf pivot gives pivot_not_finite. `failed`, when
/// given, receives the column of the failing pivot; inv is then zero. A
/// and inv may be the same array.
///
/// In place on one array (the inverse's columns take the places of A's
/// eliminated ones; the row swaps are undone as column swaps at the end),
/// and every index a compile-time constant once the loops unroll, so that a
/// GPU thread keeps the block in registers: with row swaps by a computed
/// index an 8 x 8 inversion ran from local memory, the largest part of
/// StructILU's DoF-8 factorization (ncu, perf_tests/journal/RESULTS.md).
template <int B, class Scalar>
KOKKOS_INLINE_FUNCTION int block_invert(const Scalar* A, Scalar* inv, Scalar tiny, Scalar boost,
                                        int* failed = nullptr) {
  Scalar a[B * B];
  int perm[B];
#pragma unroll
  for (int k = 0; k < B * B; ++k) a[k] = A[k];
  int status = pivot_ok;
#pragma unroll
  for (int c = 0; c < B; ++c) {
    int p = c;  // the first row with the largest |a(r, c)|, r >= c
    Scalar largest = math::fabs(a[c * B + c]);
#pragma unroll
    for (int r = c + 1; r < B; ++r) {
      const Scalar v = math::fabs(a[r * B + c]);
      if (v > largest) largest = v, p = r;
    }
    perm[c] = p;
#pragma unroll
    for (int r = c + 1; r < B; ++r)
      if (r == p)
#pragma unroll
        for (int k = 0; k < B; ++k) {
          const Scalar t = a[c * B + k];
          a[c * B + k] = a[r * B + k], a[r * B + k] = t;
        }
    Scalar piv = a[c * B + c];
    int failure = pivot_ok;
    if (!math::isfinite(piv))
      failure = pivot_not_finite;
    else if (math::fabs(piv) <= tiny || !math::isfinite(Scalar(1) / piv)) {
      // (a subnormal pivot's reciprocal is Inf: as good as zero)
      if (!(boost > 0)) failure = pivot_tiny;
      piv = piv < 0 ? -boost : boost;
      status = pivot_boosted;
    }
    if (failure != pivot_ok) {
      if (failed) *failed = c;
      for (int k = 0; k < B * B; ++k) inv[k] = 0;
      return failure;
    }
    const Scalar s = Scalar(1) / piv;
    a[c * B + c] = 1;
#pragma unroll
    for (int k = 0; k < B; ++k) a[c * B + k] *= s;
#pragma unroll
    for (int r = 0; r < B; ++r) {
      if (r == c) continue;
      const Scalar f = a[r * B + c];
      a[r * B + c] = 0;
#pragma unroll
      for (int k = 0; k < B; ++k) a[r * B + k] -= f * a[c * B + k];
    }
  }
#pragma unroll
  for (int c = B - 1; c >= 0; --c)
#pragma unroll
    for (int q = c + 1; q < B; ++q)
      if (perm[c] == q)
#pragma unroll
        for (int r = 0; r < B; ++r) {
          const Scalar t = a[r * B + c];
          a[r * B + c] = a[r * B + q], a[r * B + q] = t;
        }
#pragma unroll
  for (int k = 0; k < B * B; ++k) inv[k] = a[k];
  return status;
}

}  // namespace trellis::ilu::detail
