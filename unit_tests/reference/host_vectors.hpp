#pragma once
// The host vectors every reference check starts and ends with: random inputs
// from a seed, and the relative error a result is judged by.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace trellis::reference {

/// Uniform random values in [-1, 1) from a seed (mt19937_64): never zeros,
/// which hide unwritten output.
inline std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

/// ||a - b|| / ||b|| in double (||a - b|| when b is zero); a NaN or infinity
/// anywhere, or different sizes, give +inf so that the check never passes.
inline double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) return INFINITY;
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace trellis::reference
