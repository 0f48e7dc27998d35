#pragma once
// Problem generators: the PDE matrices of the papers' test suites, and random
// sparse matrices with a chosen pattern for tests. All return canonical host
// matrices (sorted columns, diagonal present), deterministic for a given seed.
#include <cstdint>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"

namespace trellis::gallery {

// Grid cells are numbered x fastest: cell (i, j, k) is row i + nx*(j + ny*k).

/// 2D Poisson, 5-point stencil (4 on the diagonal, -1 per neighbour,
/// Dirichlet boundary: neighbours outside the grid are dropped).
HostCsr laplace2d_5pt(ordinal_t nx, ordinal_t ny);
/// 2D 9-point stencil (8 on the diagonal, -1 per neighbour incl. diagonals).
HostCsr laplace2d_9pt(ordinal_t nx, ordinal_t ny);
/// 3D Poisson, 7-point stencil (6 / -1).
HostCsr laplace3d_7pt(ordinal_t nx, ordinal_t ny, ordinal_t nz);
/// 3D 27-point stencil (26 / -1).
HostCsr laplace3d_27pt(ordinal_t nx, ordinal_t ny, ordinal_t nz);

/// Point-block 3D Laplacian with b unknowns per cell (seed 000's laplacian1/2
/// have b = 3): 7-point block pattern, off-diagonal blocks -I, diagonal block
/// 7 I - (1/b) (J - I) coupling the unknowns of a cell (J = all ones).
/// Symmetric positive definite and diagonally dominant.
HostBsr block_laplace3d(ordinal_t nx, ordinal_t ny, ordinal_t nz, int b);

/// 3D diffusion -div(k grad u) on a 7-point finite-volume stencil with a
/// layered coefficient k: each z-layer has its own log-uniform magnitude
/// spanning `decades` orders of magnitude, times a smaller random variation
/// inside the layer (a hard, badly conditioned case like seed 000's spe10).
/// Face transmissibilities are harmonic means; Dirichlet boundary. SPD.
/// decades is at most layered_decades_max: coefficients reach 10^(D/2 + 0.5)
/// and the transmissibilities multiply two of them, which must stay finite.
inline constexpr double layered_decades_max = 300;
HostCsr layered_diffusion3d(ordinal_t nx, ordinal_t ny, ordinal_t nz, double decades = 6.0, std::uint64_t seed = 1);

/// Nonsymmetric convection-diffusion -lap(u) + w . grad(u), first-order
/// upwind convection with velocity w = peclet * (1, 0.5, 0.25) / h;
/// an M-matrix, diagonally dominant. |peclet| is at most peclet_max, so that
/// entries (about 2 |peclet|) and sums of a row's entries stay finite.
inline constexpr double peclet_max = 1e300;
HostCsr convection_diffusion3d(ordinal_t nx, ordinal_t ny, ordinal_t nz, double peclet = 10.0);
HostCsr convection_diffusion2d(ordinal_t nx, ordinal_t ny, double peclet = 10.0);

/// Random square sparse matrix: every row has the diagonal plus a number of
/// off-diagonal entries drawn uniformly in [min_per_row, max_per_row], with
/// columns within `bandwidth` of the diagonal (bandwidth <= 0: anywhere).
/// Values uniform in [-1, 1]; when diagonally_dominant the diagonal is set
/// to 1 + sum |off-diagonal| of its row (well conditioned for solves).
struct RandomOptions {
  ordinal_t min_per_row = 0;
  ordinal_t max_per_row = 8;
  ordinal_t bandwidth = 0;
  bool diagonally_dominant = true;
  std::uint64_t seed = 1;
};
HostCsr random_sparse(ordinal_t n, const RandomOptions& options);

/// Shapes of random lower-triangular matrices for the triangular-solve tests.
enum class TriangularShape {
  dense_rows,         // rows with many entries (up to 64 below the diagonal)
  sparse_rows,        // 0..3 entries below the diagonal per row
  empty_offdiagonal,  // about half the rows have only the diagonal
  long_chain,         // row i depends on row i-1 only: n levels
  diagonal_only,      // no off-diagonal entries at all
};
/// Random lower-triangular matrix (diagonal included, diagonally dominant).
/// Its transpose is the matching upper-triangular test matrix.
HostCsr random_lower_triangular(ordinal_t n, TriangularShape shape, std::uint64_t seed);

}  // namespace trellis::gallery
