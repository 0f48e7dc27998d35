#include "trellis/structured/stencil_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace trellis {

namespace {

std::string grid_text(const std::array<int, 3>& g) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
}

std::string point_text(const GridPoint& p) {
  return "(" + std::to_string(p.i) + "," + std::to_string(p.j) + "," + std::to_string(p.k) + ")";
}

// The largest offset from_csr accepts when it infers the stencil: farther
// couplings are not a stencil's (a row wrapping around the grid, say).
constexpr int max_inferred_reach = 3;

}  // namespace

StencilMatrix::StencilMatrix(std::array<int, 3> grid, Stencil stencil, int dof)
    : grid_(grid), stencil_(std::move(stencil)), dof_(dof) {
  if (grid[0] < 1 || grid[1] < 1 || grid[2] < 1)
    throw InputError("stencil matrix: grid " + grid_text(grid) + " has an empty dimension");
  if (dof < 1 || dof > 8) throw InputError("stencil matrix: dof " + std::to_string(dof) + " is outside 1..8");
  if (double(points()) * dof > double(std::numeric_limits<ordinal_t>::max()))
    throw InputError("stencil matrix: grid " + grid_text(grid) + " with dof " + std::to_string(dof) +
                     " has more unknowns than 32-bit ordinals hold");
  values_ = values_type("trellis::stencil_matrix::values", size_t(points()) * stencil_.size() * dof * dof);
}

int StencilMatrix::entry(const StencilOffset& o) const {
  const int e = stencil_.index_of(o);
  if (e < 0)
    throw InputError("stencil matrix: offset (" + std::to_string(o.x) + "," + std::to_string(o.y) + "," +
                     std::to_string(o.z) + ") is not in stencil " + stencil_.name());
  return e;
}

void StencilMatrix::set_block(GridPoint p, const StencilOffset& o, const double* values) { set_box(p, p, o, values); }

void StencilMatrix::set_box(GridPoint lo, GridPoint hi, const StencilOffset& o, const double* values) {
  const int e = entry(o);
  if (!in_grid(lo.i, lo.j, lo.k) || !in_grid(hi.i, hi.j, hi.k) || lo.i > hi.i || lo.j > hi.j || lo.k > hi.k)
    throw InputError("stencil matrix: box " + point_text(lo) + ".." + point_text(hi) + " is not inside grid " +
                     grid_text(grid_));
  const int bb = dof_ * dof_;
  for (int k = lo.k; k <= hi.k; ++k)
    for (int j = lo.j; j <= hi.j; ++j)
      for (int i = lo.i; i <= hi.i; ++i) std::copy(values, values + bb, block(point_index(i, j, k), e));
}

HostBsr StencilMatrix::to_bsr() const {
  const long n = points();
  const int s = stencil_.size(), bb = dof_ * dof_;
  const auto& offs = stencil_.offsets();
  Kokkos::View<offset_t*, HostDevice> row_map("trellis::stencil_matrix::row_map", n + 1);
  long nnz = 0;
  for (long p = 0; p < n; ++p) {
    const GridPoint g = point_of(p);
    for (const auto& o : offs) nnz += in_grid(g.i + o.x, g.j + o.y, g.k + o.z);
    row_map(p + 1) = checked_nnz(nnz, "stencil matrix to BSR");
  }
  checked_nnz(nnz * bb, "stencil matrix to BSR (point entries)");
  HostBsr::index_type entries("trellis::stencil_matrix::entries", nnz);
  HostBsr::values_type values("trellis::stencil_matrix::bsr_values", nnz * bb);
  Kokkos::parallel_for("trellis::stencil_matrix::to_bsr", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                       [&](long p) {
                         const GridPoint g = point_of(p);
                         offset_t k = row_map(p);
                         for (int e = 0; e < s; ++e) {  // offsets are in column order
                           const auto& o = offs[e];
                           if (!in_grid(g.i + o.x, g.j + o.y, g.k + o.z)) continue;
                           entries(k) = ordinal_t(point_index(g.i + o.x, g.j + o.y, g.k + o.z));
                           std::copy(block(p, e), block(p, e) + bb, values.data() + size_t(k) * bb);
                           ++k;
                         }
                       });
  return HostBsr(dof_, ordinal_t(n), ordinal_t(n), row_map, entries, values);
}

HostCsr StencilMatrix::to_csr() const { return bsr_to_csr(to_bsr()); }

bool StencilMatrix::is_symmetric(double tolerance) const {
  const auto& offs = stencil_.offsets();
  for (long p = 0; p < points(); ++p) {
    const GridPoint g = point_of(p);
    for (int e = 0; e < stencil_.size(); ++e) {
      const auto& o = offs[e];
      if (!in_grid(g.i + o.x, g.j + o.y, g.k + o.z)) continue;
      const double* a = block(p, e);
      const int t = stencil_.index_of({-o.x, -o.y, -o.z});
      const long q = point_index(g.i + o.x, g.j + o.y, g.k + o.z);
      for (int r = 0; r < dof_; ++r)
        for (int c = 0; c < dof_; ++c) {
          const double v = a[r * dof_ + c], w = t < 0 ? 0.0 : block(q, t)[c * dof_ + r];
          if (std::abs(v - w) > tolerance * std::max({std::abs(v), std::abs(w), 1e-300})) return false;
        }
    }
  }
  return true;
}

StencilMatrix StencilMatrix::from_csr(const HostCsr& A, std::array<int, 3> grid, std::optional<Stencil> stencil) {
  if (grid[0] < 1 || grid[1] < 1 || grid[2] < 1)
    throw StructureError("stencil matrix from CSR: grid " + grid_text(grid) + " has an empty dimension");
  const long points = long(grid[0]) * grid[1] * grid[2];
  if (A.num_rows != A.num_cols || A.num_rows % points != 0)
    throw StructureError("stencil matrix from CSR: a " + std::to_string(A.num_rows) + "x" + std::to_string(A.num_cols) +
                         " matrix is not a square matrix with a whole number of " + "unknowns per point of grid " +
                         grid_text(grid));
  const int dof = int(A.num_rows / points);
  if (dof > 8)
    throw StructureError("stencil matrix from CSR: " + std::to_string(dof) + " unknowns per point of grid " +
                         grid_text(grid) + " (at most 8)");
  auto coords = [&](long p) {
    return GridPoint{int(p % grid[0]), int((p / grid[0]) % grid[1]), int(p / (long(grid[0]) * grid[1]))};
  };
  auto offset_of = [&](ordinal_t row, ordinal_t col) {
    const GridPoint a = coords(row / dof), b = coords(col / dof);
    return StencilOffset{b.i - a.i, b.j - a.j, b.k - a.k};
  };
  auto not_neighbour = [&](ordinal_t row, ordinal_t col, const std::string& why) {
    return StructureError("stencil matrix from CSR: entry (" + std::to_string(row) + ", " + std::to_string(col) +
                          ") couples grid points " + point_text(coords(row / dof)) + " and " +
                          point_text(coords(col / dof)) + ", " + why);
  };
  if (!stencil) {
    std::set<StencilOffset> used{{0, 0, 0}};
    for (ordinal_t r = 0; r < A.num_rows; ++r)
      for (offset_t k = A.row_map(r); k < A.row_map(r + 1); ++k) {
        const StencilOffset o = offset_of(r, A.entries(k));
        if (std::max({std::abs(o.x), std::abs(o.y), std::abs(o.z)}) > max_inferred_reach)
          throw not_neighbour(r, A.entries(k),
                              "farther apart than " + std::to_string(max_inferred_reach) +
                                  " points: not a stencil matrix on this grid");
        used.insert(o);
      }
    stencil = Stencil(std::vector<StencilOffset>(used.begin(), used.end()));
  }
  StencilMatrix S(grid, *stencil, dof);
  for (ordinal_t r = 0; r < A.num_rows; ++r)
    for (offset_t k = A.row_map(r); k < A.row_map(r + 1); ++k) {
      const ordinal_t c = A.entries(k);
      const int e = S.stencil_.index_of(offset_of(r, c));
      if (e < 0) throw not_neighbour(r, c, "an offset stencil " + S.stencil_.name() + " does not have");
      S.block(r / dof, e)[(r % dof) * dof + c % dof] += A.values(k);
    }
  return S;
}

}  // namespace trellis
