#pragma once
// A matrix on an nx x ny x nz grid with a stencil and DoF x DoF blocks per
// stencil entry (seed 003), filled by the application's grid code the way
// hypre's Struct interface is: per point or per box of points, then handed
// to StructIlu or converted to CSR/BSR.
//
// Host memory, natural numbering (point (i, j, k) is i + nx*(j + ny*k), its
// unknowns dof consecutive rows). Block (point p, stencil entry e) is stored
// row-major at (p * stencil.size() + e) * dof * dof. Entries whose column
// falls outside the grid are boundary couplings: they are ignored by every
// consumer (seed 003: "boundary handling by zero coefficients").
//
//   StencilMatrix A({64, 64, 64}, Stencil(StencilShape::star7), 1);
//   A.set_box({0, 0, 0}, {63, 63, 63}, {0, 0, 0}, &six);   // centre
//   A.set_box({0, 0, 0}, {63, 63, 63}, {-1, 0, 0}, &minus_one);  ...
#include <Kokkos_Core.hpp>
#include <array>
#include <optional>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/structured/stencil.hpp"

namespace trellis {

struct GridPoint {
  int i = 0, j = 0, k = 0;
};

class StencilMatrix {
 public:
  using values_type = Kokkos::View<double*, Kokkos::HostSpace>;

  /// Zero coefficients. InputError for an empty grid, dof outside 1..8 or a
  /// grid whose unknowns do not fit 32-bit ordinals.
  StencilMatrix(std::array<int, 3> grid, Stencil stencil, int dof);

  int nx() const { return grid_[0]; }
  int ny() const { return grid_[1]; }
  int nz() const { return grid_[2]; }
  const std::array<int, 3>& grid() const { return grid_; }
  const Stencil& stencil() const { return stencil_; }
  int dof() const { return dof_; }
  long points() const { return long(grid_[0]) * grid_[1] * grid_[2]; }
  ordinal_t num_rows() const { return ordinal_t(points() * dof_); }
  long point_index(int i, int j, int k) const { return i + long(grid_[0]) * (j + long(grid_[1]) * k); }
  GridPoint point_of(long p) const {
    return {int(p % grid_[0]), int((p / grid_[0]) % grid_[1]), int(p / (long(grid_[0]) * grid_[1]))};
  }
  bool in_grid(long i, long j, long k) const {
    return i >= 0 && j >= 0 && k >= 0 && i < grid_[0] && j < grid_[1] && k < grid_[2];
  }

  /// The dof x dof row-major block of point p at stencil entry e.
  double* block(long p, int e) { return values_.data() + (size_t(p) * stencil_.size() + e) * dof_ * dof_; }
  const double* block(long p, int e) const { return values_.data() + (size_t(p) * stencil_.size() + e) * dof_ * dof_; }
  /// The stencil entry of an offset; InputError naming it if the stencil lacks it.
  int entry(const StencilOffset& o) const;
  /// Sets the block of one point at one offset (dof*dof values, row-major).
  void set_block(GridPoint p, const StencilOffset& o, const double* values);
  /// Sets the same block at every point of the box lo..hi (inclusive).
  void set_box(GridPoint lo, GridPoint hi, const StencilOffset& o, const double* values);

  /// All values, natural layout (see above).
  const values_type& values() const { return values_; }
  values_type& values() { return values_; }

  /// The BSR form (dof x dof blocks): every in-grid stencil entry, zeros
  /// included, so its pattern is the stencil's (what ILU(0) on it keeps).
  HostBsr to_bsr() const;
  /// The point CSR form of to_bsr().
  HostCsr to_csr() const;
  /// True when A[p][e] == A[p+o_e][e']^T for every coupling (e' the opposite
  /// offset), within a relative tolerance: what IC needs.
  bool is_symmetric(double tolerance = 1e-12) const;

  /// Reads a CSR matrix as a stencil matrix on the given grid (dof = rows /
  /// points). Without a stencil, the stencil is the set of offsets the
  /// matrix uses. StructureError naming the row and column when the sizes
  /// do not fit the grid or an entry's column is no stencil neighbour.
  static StencilMatrix from_csr(const HostCsr& A, std::array<int, 3> grid,
                                std::optional<Stencil> stencil = std::nullopt);

 private:
  std::array<int, 3> grid_;
  Stencil stencil_;
  int dof_;
  values_type values_;
};

}  // namespace trellis
