#pragma once
// Stencil matrices to test and benchmark StructILU on (seed 003, Tables 3
// and 4): a discretization where a standard one exists for the stencil and
// DoF, diagonally dominant random blocks otherwise. Deterministic for a seed.
#include <array>
#include <cstdint>

#include "trellis/core/name_table.hpp"
#include "trellis/structured/stencil_matrix.hpp"

namespace trellis::gallery {

/// poisson: the stencil's graph Laplacian with Dirichlet boundary (s - 1 on
///   the diagonal, -1 per neighbour; star7 gives the 7-point Poisson matrix,
///   box27 the 27-point one); dof 1, symmetric positive definite.
/// convdiff: star7 upwind convection-diffusion (gallery.hpp's
///   convection_diffusion3d, Peclet 10); dof 1, nonsymmetric M-matrix.
/// dominant: every block random in [-1, 1], the diagonal of the centre
///   block raised to 1 + the row's other magnitudes: strictly diagonally
///   dominant, nonsymmetric, any stencil and dof (for the block systems of
///   Table 4 that have no generator here: Navier-Stokes, Euler, Cahn-Hilliard).
/// dominant-sym: the same, symmetrized (A + Aᵀ)/2 first: for IC and CG.
/// coupled: a diffusion system of dof weakly coupled fields, as hard as
///   the paper's block problems (Table 4 iterates 11-22 times): every
///   neighbour block -(I + R/10), R random in [-1, 1], the centre block
///   R/10 with (s - 1) + the row's coupling magnitudes on its diagonal (each
///   field the stencil's Laplacian with Dirichlet boundary); unlike
///   `dominant`'s 4 iterations at any size, the count grows with the grid.
enum class StencilPde { poisson, convdiff, dominant, dominant_sym, coupled };

}  // namespace trellis::gallery

namespace trellis {
template <>
struct NameTable<gallery::StencilPde> {
  using StencilPde = gallery::StencilPde;
  static constexpr const char* what = "stencil problem";
  static constexpr NameEntry<StencilPde> entries[] = {
      {StencilPde::poisson, "poisson"},   {StencilPde::convdiff, "convdiff"},
      {StencilPde::dominant, "dominant"}, {StencilPde::dominant_sym, "dominant-sym"},
      {StencilPde::coupled, "coupled"},
  };
};
}  // namespace trellis

namespace trellis::gallery {

/// InputError when the pde does not exist for the stencil or dof.
StencilMatrix stencil_problem(const Stencil& stencil, std::array<int, 3> grid, int dof, StencilPde pde,
                              std::uint64_t seed = 1);

}  // namespace trellis::gallery
