#pragma once
// Dense B x B block arithmetic for the BSR factorization and solve kernels (B is a
// compile-time block size, 1 for CSR). Blocks are row-major.
#include <Kokkos_Core.hpp>

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

/// inv = A^{-1} by Gauss-Jordan elimination with partial pivoting inside the
/// block. A pivot with |p| <= tiny is replaced by copysign(boost, p) when
/// boost > 0 (status pivot_boosted), else the inversion stops with
/// pivot_tiny; a NaN or Inf pivot gives pivot_not_finite. `failed`, when
/// given, receives the column of the failing pivot.
template <int B, class Scalar>
KOKKOS_INLINE_FUNCTION int block_invert(const Scalar* A, Scalar* inv, Scalar tiny, Scalar boost,
                                        int* failed = nullptr) {
  Scalar a[B * B];
  for (int k = 0; k < B * B; ++k) a[k] = A[k], inv[k] = 0;
  for (int r = 0; r < B; ++r) inv[r * B + r] = 1;
  int status = pivot_ok;
  for (int c = 0; c < B; ++c) {
    int p = c;
    for (int r = c + 1; r < B; ++r)
      if (Kokkos::Experimental::fabs(a[r * B + c]) > Kokkos::Experimental::fabs(a[p * B + c])) p = r;
    if (p != c)
      for (int k = 0; k < B; ++k) {
        Scalar t = a[c * B + k];
        a[c * B + k] = a[p * B + k], a[p * B + k] = t;
        t = inv[c * B + k];
        inv[c * B + k] = inv[p * B + k], inv[p * B + k] = t;
      }
    Scalar piv = a[c * B + c];
    if (!Kokkos::Experimental::isfinite(piv)) {
      if (failed) *failed = c;
      return pivot_not_finite;
    }
    if (Kokkos::Experimental::fabs(piv) <= tiny) {
      if (!(boost > 0)) {
        if (failed) *failed = c;
        return pivot_tiny;
      }
      piv = a[c * B + c] = piv < 0 ? -boost : boost;
      status = pivot_boosted;
    }
    const Scalar s = Scalar(1) / piv;
    for (int k = 0; k < B; ++k) a[c * B + k] *= s, inv[c * B + k] *= s;
    for (int r = 0; r < B; ++r) {
      if (r == c) continue;
      const Scalar f = a[r * B + c];
      for (int k = 0; k < B; ++k) a[r * B + k] -= f * a[c * B + k], inv[r * B + k] -= f * inv[c * B + k];
    }
  }
  return status;
}

}  // namespace trellis::ilu::detail
