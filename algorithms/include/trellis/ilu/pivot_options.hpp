#pragma once
// What an ILU factorization does with a zero or tiny pivot.

namespace trellis::ilu {

/// A pivot fails when it is NaN or Inf, or when |p| <= tolerance * (the
/// largest |entry| of its row of A, or 1 for an all-zero row). The default
/// tolerance 0 fails exact zeros only, as cuSPARSE's csrilu02 does (PETSc's
/// default is an absolute 2.2e-14): a badly shaped element's small pivot
/// beside a large one is still a pivot. A tolerance such as 1e-12 is the
/// stricter, relative test.
/// boost > 0 replaces a failing finite pivot p by copysign(boost * that
/// scale, p) and counts it; boost = 0 (the default) makes it an error.
struct PivotOptions {
  double tolerance = 0;
  double boost = 0;
};

}  // namespace trellis::ilu
