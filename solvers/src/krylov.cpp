#include "trellis/solvers/krylov.hpp"

namespace trellis {

const char* to_string(KrylovStatus s) {
  switch (s) {
    case KrylovStatus::converged: return "converged";
    case KrylovStatus::max_iterations: return "max-iterations";
    case KrylovStatus::breakdown_rho: return "breakdown: rho = (r, r0^) = 0";
    case KrylovStatus::breakdown_vr: return "breakdown: (v, r0^) = 0 or (p, A p) <= 0";
    case KrylovStatus::breakdown_omega: return "breakdown: omega = 0";
    case KrylovStatus::non_finite: return "non-finite value (NaN or Inf)";
  }
  return "?";
}

}  // namespace trellis
