#pragma once
// The textbook sequential Gauss-Seidel sweep on a host CSR matrix, in double:
// rows in order (reverse for a backward sweep), each using the newest value
// of every other unknown, i.e. (D + L) x_new = b - U x_old for a forward sweep.
#include <vector>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/gauss_seidel/gauss_seidel.hpp"  // SweepDirection

namespace trellis::reference {

/// One sweep in place: forward, backward, or forward then backward (symmetric).
inline void gauss_seidel_sweep(const HostCsr& A, const std::vector<double>& b, std::vector<double>& x,
                               SweepDirection direction) {
  const ordinal_t n = A.num_rows;
  auto sweep = [&](bool forward) {
    for (ordinal_t step = 0; step < n; ++step) {
      const ordinal_t i = forward ? step : n - 1 - step;
      double s = b[i], d = 0;
      for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
        if (A.entries(k) == i)
          d = A.values(k);
        else
          s -= A.values(k) * x[A.entries(k)];
      }
      x[i] = s / d;
    }
  };
  if (direction != SweepDirection::backward) sweep(true);
  if (direction != SweepDirection::forward) sweep(false);
}

/// x after `sweeps` sweeps in `direction` from x0.
inline std::vector<double> gauss_seidel(const HostCsr& A, const std::vector<double>& b, std::vector<double> x0,
                                        SweepDirection direction, int sweeps) {
  for (int s = 0; s < sweeps; ++s) gauss_seidel_sweep(A, b, x0, direction);
  return x0;
}

}  // namespace trellis::reference
