#pragma once
// What an ILU factorization does with a zero or tiny pivot.

namespace trellis::ilu {

/// A pivot is tiny when |p| <= tolerance * (largest |entry| of its row of A,
/// or 1 for an all-zero row).
/// boost > 0 replaces a tiny pivot p by copysign(boost * that scale, p) and
/// counts it; boost = 0 (the default) makes a tiny pivot an error.
struct PivotOptions {
  double tolerance = 1e-12;
  double boost = 0;
};

}  // namespace trellis::ilu
