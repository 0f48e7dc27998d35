#pragma once
// ILU0 / ILDU0 factors of the block-diagonal (inter-subdomain entries dropped)
// matrix, and the per-subdomain schedules their solves use.
//
//   A_dropped ~ L D U'   L unit lower, D block diagonal, U' = D^{-1} U unit upper
//
// Stored per block row, b x b row-major blocks (b = 1 for CSR):
//   L_val   the strict lower blocks of L                 (dag_*_ud, fused)
//   LD_val  the strict lower blocks of L D (ILU0's lower factor with its diagonal;
//           the non-unit lower solves divide by D row by row)
//   U_val   the strict upper blocks of U'
//   inv_diag  D^{-1}, one block per row (Algorithm 4.4's inv_D)
#include <Kokkos_Core.hpp>

#include "trellis/dd/subdomain_schedule.hpp"

namespace trellis::dd {

template <class Scalar, class Device>
struct SubdomainFactors {
  int block_size = 1;
  ordinal_t num_rows = 0;  // block rows
  ordinal_t max_subdomain_rows = 0;
  Kokkos::View<ordinal_t*, Device> sub_start;  // subdomain s owns rows [sub_start(s), sub_start(s+1))
  Kokkos::View<offset_t*, Device> L_map, U_map;
  Kokkos::View<ordinal_t*, Device> L_col, U_col;
  Kokkos::View<Scalar*, Device> L_val, LD_val, U_val, inv_diag;
  SubdomainSchedule<Device> lower, upper;
  ordinal_t num_subdomains() const { return ordinal_t(sub_start.extent(0)) - 1; }
};

}  // namespace trellis::dd
