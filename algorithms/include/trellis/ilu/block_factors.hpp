#pragma once
// ILU0 / ILDU0 factors of a block matrix, stored per block row as b x b
// row-major blocks (b = 1 for CSR):
//
//   A ~ L D U'   L unit lower, D block diagonal, U' = D^{-1} U unit upper
//
//   L_val     the strict lower blocks of L
//   LD_val    the strict lower blocks of L D (the lower factor with its
//             diagonal; non-unit lower solves divide by D row by row)
//   U_val     the strict upper blocks of U'
//   inv_diag  D^{-1}, one block per row
//
// Every ILU of the library (global, per subdomain, stencil) fills this.
#include <Kokkos_Core.hpp>

#include "trellis/core/types.hpp"

namespace trellis::ilu {

template <class Scalar, class Device>
struct BlockFactors {
  int block_size = 1;
  ordinal_t num_rows = 0;  // block rows
  Kokkos::View<offset_t*, Device> L_map, U_map;
  Kokkos::View<ordinal_t*, Device> L_col, U_col;
  Kokkos::View<Scalar*, Device> L_val, LD_val, U_val, inv_diag;
};

}  // namespace trellis::ilu
