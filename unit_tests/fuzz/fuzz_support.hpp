#pragma once
// What every Trellis fuzz target shares: Kokkos started once (one host
// thread: the targets parse, they do not compute) and the oracle for the
// matrices a parser returns.
//
// A target returns normally for every input that ends in a value or in an
// InputError (what a user sees as `error: ...`); anything else (a crash, a
// sanitizer report, another exception, an output that breaks the invariants
// checked here) is a finding.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"

namespace trellis::fuzz {

inline void start_kokkos() {
  if (Kokkos::is_initialized()) return;
  compat::initialize(1, /*warnings=*/false);
  std::atexit([] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  });
}

[[noreturn]] inline void finding(const std::string& what) {
  throw std::logic_error("fuzz oracle: " + what);  // uncaught: the fuzzer reports a crash
}

/// A matrix a parser accepted: canonical CSR (validate_csr) with finite values.
inline void check_matrix(const HostCsr& A, const std::string& what) {
  try {
    validate_csr(A, what);
  } catch (const StructureError& e) {
    finding(std::string("not canonical CSR: ") + e.what());
  }
  for (size_t k = 0; k < A.values.extent(0); ++k)
    if (!std::isfinite(A.values(k))) finding(what + ": non-finite value at entry " + std::to_string(k));
}

}  // namespace trellis::fuzz
