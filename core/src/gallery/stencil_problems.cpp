#include "trellis/gallery/stencil_problems.hpp"

#include <cmath>
#include <vector>

#include "trellis/gallery/gallery.hpp"

namespace trellis::gallery {

namespace {

/// Uniform in [-1, 1], a pure function of (seed, a, b): the same matrix
/// whatever order it is filled in.
double uniform(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + a * 0xBF58476D1CE4E5B9ull + b * 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

void graph_laplacian(StencilMatrix& A) {
  const int s = A.stencil().size(), centre = A.stencil().centre();
  for (long p = 0; p < A.points(); ++p)
    for (int e = 0; e < s; ++e) A.block(p, e)[0] = e == centre ? double(s - 1) : -1.0;
}

void coupled(StencilMatrix& A, std::uint64_t seed) {
  const int s = A.stencil().size(), centre = A.stencil().centre(), b = A.dof();
  constexpr double coupling = 0.1;
  for (long p = 0; p < A.points(); ++p) {
    for (int r = 0; r < b; ++r) {
      double sum = 0;  // the coupling's magnitudes in the row
      for (int e = 0; e < s; ++e)
        for (int c = 0; c < b; ++c) {
          const double v = coupling * uniform(seed, std::uint64_t(p) * s + e, r * b + c);
          A.block(p, e)[r * b + c] = v - (e != centre && r == c ? 1.0 : 0.0);
          if (e != centre || c != r) sum += std::abs(v);
        }
      A.block(p, centre)[r * b + r] = double(s - 1) + sum;  // Dirichlet: the whole stencil's count
    }
  }
}

void dominant(StencilMatrix& A, std::uint64_t seed, bool symmetric) {
  const int s = A.stencil().size(), centre = A.stencil().centre(), b = A.dof();
  const auto& offs = A.stencil().offsets();
  for (long p = 0; p < A.points(); ++p)
    for (int e = 0; e < s; ++e)
      for (int x = 0; x < b * b; ++x) A.block(p, e)[x] = uniform(seed, std::uint64_t(p) * s + e, x);
  if (symmetric)  // A(p, q) and A(q, p)ᵀ both become their mean
    for (long p = 0; p < A.points(); ++p) {
      const GridPoint g = A.point_of(p);
      for (int e = 0; e < s; ++e) {
        const auto& o = offs[e];
        if (!A.in_grid(g.i + o.x, g.j + o.y, g.k + o.z)) continue;
        const long q = A.point_index(g.i + o.x, g.j + o.y, g.k + o.z);
        const int t = A.stencil().index_of({-o.x, -o.y, -o.z});
        if (t < 0)
          throw InputError("stencil problem dominant-sym: stencil " + A.stencil().name() + " is not symmetric");
        if (q < p || (q == p && e > centre)) continue;  // each pair once
        for (int r = 0; r < b; ++r)
          for (int c = 0; c < b; ++c) {
            double& v = A.block(p, e)[r * b + c];
            double& w = A.block(q, t)[c * b + r];
            v = w = 0.5 * (v + w);
          }
      }
    }
  for (long p = 0; p < A.points(); ++p) {
    const GridPoint g = A.point_of(p);
    for (int r = 0; r < b; ++r) {
      double sum = 0;
      for (int e = 0; e < s; ++e) {
        const auto& o = offs[e];
        if (!A.in_grid(g.i + o.x, g.j + o.y, g.k + o.z)) continue;
        for (int c = 0; c < b; ++c)
          if (e != centre || c != r) sum += std::abs(A.block(p, e)[r * b + c]);
      }
      A.block(p, centre)[r * b + r] = 1 + sum;
    }
  }
}

}  // namespace

StencilMatrix stencil_problem(const Stencil& stencil, std::array<int, 3> grid, int dof, StencilPde pde,
                              std::uint64_t seed) {
  const std::string what = std::string("stencil problem ") + to_string(pde) + " on " + stencil.name() + ": ";
  if ((pde == StencilPde::poisson || pde == StencilPde::convdiff) && dof != 1)
    throw InputError(what + "has one unknown per point (dof " + std::to_string(dof) +
                     " asked); use pde=dominant or dominant-sym for blocks");
  switch (pde) {
    case StencilPde::poisson: {
      StencilMatrix A(grid, stencil, 1);
      graph_laplacian(A);
      return A;
    }
    case StencilPde::convdiff:
      if (stencil.shape() != StencilShape::star7) throw InputError(what + "exists for star7 only");
      return StencilMatrix::from_csr(convection_diffusion3d(grid[0], grid[1], grid[2]), grid, stencil);
    case StencilPde::dominant:
    case StencilPde::dominant_sym: {
      StencilMatrix A(grid, stencil, dof);
      dominant(A, seed, pde == StencilPde::dominant_sym);
      return A;
    }
    case StencilPde::coupled: {
      StencilMatrix A(grid, stencil, dof);
      coupled(A, seed);
      return A;
    }
  }
  throw InputError(what + "unknown");
}

}  // namespace trellis::gallery
