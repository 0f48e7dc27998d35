#pragma once
// Kronecker-form systems (A ⊗ M + tau B ⊗ L) U = F (seed 001) to solve and
// benchmark: a generated unsteady Stokes-like problem shaped like the
// paper's case, and small random ones for tests. Deterministic; every
// returned system passes validate().
#include <cstdint>
#include <vector>

#include "trellis/core/kronecker_system.hpp"

namespace trellis::gallery {

/// Unsteady Stokes-like problem in the shape of seed 001's case: point blocks
/// of b = 4 unknowns (u, v, w, p) on an nx x ny x nz grid of points, point
/// (i, j, k) being block row i + nx*(j + ny*k), and M and L both on the
/// 27-point box pattern of a trilinear (Q1) finite-element mesh; neighbours
/// outside the grid are dropped (Dirichlet boundary). With the Q1 1D mass,
/// stiffness and derivative stencils m, k, d on a uniform spacing
/// h = 1 / (max(nx, ny, nz) + 1), for a neighbour at offset (dx, dy, dz):
///   M: h^3 m m m on u, v, w (8/27 centre, 2/27 faces, 1/54 edges, 1/216
///      corners: SPD), the same times kPressureMass on p;
///   L: nu times the Q1 Laplacian stiffness (8h/3, 0, -h/6, -h/12: diagonally
///      dominant, positive definite) on u, v, w; the Q1 pressure gradient
///      G from each velocity row to the neighbours' p and the matching
///      divergence -G^T from the p row to the neighbours' velocities (central
///      differences: a skew-symmetric pair, so L's symmetric part is
///      block diagonal); and a PSPG-like pressure stabilization
///      (alpha h^2 / nu) times the stiffness on p, so that no diagonal block
///      is singular.
/// nu = 0.01, alpha = 1/12, kPressureMass = 0.25 (kronecker_system.cpp says
/// why): with tau = 0.125 the mass term keeps the system conditioned so that
/// unpreconditioned GMRES(30) reaches a 1e-6 relative residual in about 100
/// iterations at 30^3 points and 190 at 50^3 (s = 2; the paper's case of
/// 151,090 points took 117).
/// Time: s-stage Radau IIA, A = I_s and B = the Butcher matrix (s = 1, 2, 3;
/// radau_iia_matrix). Throws InputError for non-positive grid sizes, grids
/// too large for 32-bit indices, a non-positive or non-finite tau, or another s.
KroneckerSystem stokes_kronecker(ordinal_t nx, ordinal_t ny, ordinal_t nz, int stages = 2, double tau = 0.125);

/// The s x s Butcher matrix of the s-stage Radau IIA method, row-major:
/// s = 1 backward Euler [1]; s = 2 [[5/12, -1/12], [3/4, 1/4]]; s = 3 the
/// coefficients with sqrt(6). Other s: InputError naming s.
std::vector<double> radau_iia_matrix(int stages);

/// Random small system for tests, deterministic for a seed: M and L in BSR
/// with block size block_size (1..8) on block_rows block rows, each block row
/// holding its diagonal block and 0..4 random off-diagonal blocks (L on a
/// different random pattern unless shared_pattern), values uniform in
/// [-1, 1] except the diagonals, set to 1 + 2 * (sum of |off-diagonal|) of
/// their point row; A and B with off-diagonals in [-1, 1] and diagonals
/// 1 + 3 * (sum of |off-diagonal|) of their row; tau uniform in [0.05, 0.5].
/// Then A ⊗ M + tau B ⊗ L is strictly diagonally dominant by rows
/// (nonsingular and well conditioned).
KroneckerSystem random_kronecker(ordinal_t block_rows, int block_size, int stages, std::uint64_t seed,
                                 bool shared_pattern);

}  // namespace trellis::gallery
