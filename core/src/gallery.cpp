#include "trellis/gallery/gallery.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "trellis/core/errors.hpp"

namespace trellis::gallery {
namespace {

// ---------------------------------------------------------------- arguments

void require_positive(long long value, const char* name, const char* fn) {
  if (value <= 0) throw InputError(std::string(fn) + ": " + name + " = " + std::to_string(value) + " must be positive");
}

void require_finite(double value, const char* name, const char* fn) {
  if (!std::isfinite(value))
    throw InputError(std::string(fn) + ": " + name + " = " + std::to_string(value) + " must be finite");
}

/// nx*ny*nz*b as ordinal_t, or InputError when it does not fit.
ordinal_t checked_rows(ordinal_t nx, ordinal_t ny, ordinal_t nz, int b, const char* fn) {
  require_positive(nx, "nx", fn);
  require_positive(ny, "ny", fn);
  require_positive(nz, "nz", fn);
  const long long n = (long long)nx * ny * nz * b;  // each factor < 2^31, b <= 8: no overflow
  if (n > std::numeric_limits<ordinal_t>::max())
    throw InputError(std::string(fn) + ": grid " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                     std::to_string(nz) + (b > 1 ? " with " + std::to_string(b) + " unknowns per cell" : "") + " has " +
                     std::to_string(n) + " rows, more than 32-bit indices hold");
  return ordinal_t(n);
}

// ------------------------------------------------------------ random numbers
// Hand-rolled on top of mt19937_64 (whose output the standard fixes), so that
// a seed gives the same matrix with every standard library.

/// Uniform in [0, 1).
double uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

double uniform(std::mt19937_64& rng, double lo, double hi) { return lo + (hi - lo) * uniform01(rng); }

/// Uniform integer in [lo, hi] (bias below 2^-40 for the ranges used here).
long long uniform_int(std::mt19937_64& rng, long long lo, long long hi) {
  return lo + (long long)(rng() % std::uint64_t(hi - lo + 1));
}

/// Off-diagonal value: random sign, magnitude in (0, 1] (never an exact zero).
double random_offdiagonal(std::mt19937_64& rng) {
  const double magnitude = 1.0 - uniform01(rng);
  return (rng() & 1) ? magnitude : -magnitude;
}

/// `count` distinct integers of [lo, hi] other than `skip`, sorted (fewer when
/// the range holds fewer).
std::vector<ordinal_t> sample_distinct(std::mt19937_64& rng, ordinal_t lo, ordinal_t hi, long long count,
                                       ordinal_t skip) {
  std::vector<ordinal_t> out;
  if (hi < lo) return out;
  const long long available = (long long)hi - lo + 1 - (skip >= lo && skip <= hi ? 1 : 0);
  count = std::min(count, available);
  if (count <= 0) return out;
  if (2 * count >= available) {
    // Dense draw: partial Fisher-Yates over the candidates.
    for (ordinal_t c = lo; c <= hi; ++c)
      if (c != skip) out.push_back(c);
    for (long long k = 0; k < count; ++k) std::swap(out[k], out[uniform_int(rng, k, available - 1)]);
    out.resize(count);
  } else {
    // Sparse draw: draw, drop duplicates, top up until there are enough.
    while ((long long)out.size() < count) {
      while ((long long)out.size() < count) {
        const auto c = ordinal_t(uniform_int(rng, lo, hi));
        if (c != skip) out.push_back(c);
      }
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ------------------------------------------------------- structured grids

struct Grid {
  ordinal_t nx = 1, ny = 1, nz = 1;
};

struct Offset {
  int dx, dy, dz;
};

/// Cell (i, j, k) of the grid, with its row.
struct Cell {
  ordinal_t i, j, k, row;
};

/// Offsets of the full box stencil of the given reach per axis (0 or 1),
/// optionally only the centre and the axis neighbours. Ordered z, y, x
/// slowest to fastest, which is the order of the neighbours' rows.
std::vector<Offset> box_stencil(int rx, int ry, int rz, bool axes_only) {
  std::vector<Offset> out;
  for (int dz = -rz; dz <= rz; ++dz)
    for (int dy = -ry; dy <= ry; ++dy)
      for (int dx = -rx; dx <= rx; ++dx)
        if (!axes_only || std::abs(dx) + std::abs(dy) + std::abs(dz) <= 1) out.push_back({dx, dy, dz});
  return out;
}

bool inside(const Grid& g, long long i, long long j, long long k) {
  return i >= 0 && i < g.nx && j >= 0 && j < g.ny && k >= 0 && k < g.nz;
}

/// Runs f(j, k) for every grid line (j, k) of cells along x, in parallel on
/// the host: the generators' work is per row and independent.
template <class F>
void for_each_line(const Grid& g, F f) {
  const long long lines = (long long)g.ny * g.nz;
  Kokkos::parallel_for("trellis::gallery::lines",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<long long>>(0, lines),
                       [&](long long line) { f(ordinal_t(line % g.ny), ordinal_t(line / g.ny)); });
  Kokkos::DefaultHostExecutionSpace().fence();  // the caller reads the rows
}

/// Assembles the matrix of a stencil on a grid, straight into CSR: the row of
/// cell c holds value(c, offset) for every offset whose neighbour lies inside
/// the grid (Dirichlet boundary: the others are dropped). `offsets` must be
/// in box_stencil order so that every row comes out sorted.
template <class Value>
HostCsr assemble_stencil(const Grid& g, const std::vector<Offset>& offsets, const Value& value, const char* what) {
  const ordinal_t n = checked_rows(g.nx, g.ny, g.nz, 1, what);
  const long long plane = (long long)g.nx * g.ny;
  Kokkos::View<offset_t*, HostDevice> rm(Kokkos::ViewAllocateWithoutInitializing("trellis::row_map"), size_t(n) + 1);
  // Pass 1: row lengths, then their running sum.
  for_each_line(g, [&](ordinal_t j, ordinal_t k) {
    const ordinal_t first = ordinal_t(g.nx * (j + (long long)g.ny * k));
    for (ordinal_t i = 0; i < g.nx; ++i) {
      offset_t len = 0;
      for (const Offset& o : offsets) len += inside(g, i + o.dx, j + o.dy, k + o.dz);
      rm(first + i + 1) = len;
    }
  });
  long long nnz = 0;
  rm(0) = 0;
  for (ordinal_t row = 1; row <= n; ++row) rm(row) = offset_t(nnz += rm(row));
  checked_nnz(nnz, what);  // throws before any wrapped offset is used
  // Pass 2: columns and values.
  HostCsr::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), nnz);
  HostCsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), nnz);
  for_each_line(g, [&](ordinal_t j, ordinal_t k) {
    const ordinal_t first = ordinal_t(g.nx * (j + (long long)g.ny * k));
    for (ordinal_t i = 0; i < g.nx; ++i) {
      const Cell c{i, j, k, first + i};
      offset_t pos = rm(c.row);
      for (const Offset& o : offsets) {
        if (!inside(g, i + o.dx, j + o.dy, k + o.dz)) continue;
        ent(pos) = ordinal_t(c.row + o.dx + (long long)g.nx * o.dy + plane * o.dz);
        val(pos) = value(c, o);
        ++pos;
      }
    }
  });
  return HostCsr(n, n, rm, ent, val);
}

bool is_centre(const Offset& o) { return o.dx == 0 && o.dy == 0 && o.dz == 0; }

/// Constant-coefficient stencil: `centre` on the diagonal, -1 per neighbour.
HostCsr laplacian(const Grid& g, const std::vector<Offset>& offsets, double centre, const char* what) {
  return assemble_stencil(
      g, offsets, [centre](const Cell&, const Offset& o) { return is_centre(o) ? centre : -1.0; }, what);
}

/// Canonical CSR from rows built in order (row_map, columns sorted per row).
HostCsr csr_from_rows(ordinal_t n, const std::vector<long long>& row_map, const std::vector<ordinal_t>& cols,
                      const std::vector<double>& vals, const char* what) {
  checked_nnz((long long)cols.size(), what);
  Kokkos::View<offset_t*, HostDevice> rm(Kokkos::ViewAllocateWithoutInitializing("trellis::row_map"), size_t(n) + 1);
  for (ordinal_t i = 0; i <= n; ++i) rm(i) = offset_t(row_map[i]);
  HostCsr::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), cols.size());
  HostCsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), vals.size());
  std::copy(cols.begin(), cols.end(), ent.data());
  std::copy(vals.begin(), vals.end(), val.data());
  return HostCsr(n, n, rm, ent, val);
}

/// Appends row i: the sorted off-diagonal columns with their values and the
/// diagonal in its sorted place.
void append_row(ordinal_t i, const std::vector<ordinal_t>& off_cols, const std::vector<double>& off_vals, double diag,
                std::vector<ordinal_t>& cols, std::vector<double>& vals) {
  bool diag_done = false;
  for (size_t m = 0; m < off_cols.size(); ++m) {
    if (!diag_done && off_cols[m] > i) {
      cols.push_back(i);
      vals.push_back(diag);
      diag_done = true;
    }
    cols.push_back(off_cols[m]);
    vals.push_back(off_vals[m]);
  }
  if (!diag_done) {
    cols.push_back(i);
    vals.push_back(diag);
  }
}

}  // namespace

// 2D Poisson, 5-point stencil: 4 u(i,j) - u(i±1,j) - u(i,j±1).
HostCsr laplace2d_5pt(ordinal_t nx, ordinal_t ny) {
  return laplacian({nx, ny, 1}, box_stencil(1, 1, 0, true), 4.0, "laplace2d_5pt");
}

// 2D 9-point stencil: 8 on the diagonal, -1 for each of the 8 surrounding cells.
HostCsr laplace2d_9pt(ordinal_t nx, ordinal_t ny) {
  return laplacian({nx, ny, 1}, box_stencil(1, 1, 0, false), 8.0, "laplace2d_9pt");
}

// 3D Poisson, 7-point stencil: 6 u - (the 6 face neighbours).
HostCsr laplace3d_7pt(ordinal_t nx, ordinal_t ny, ordinal_t nz) {
  return laplacian({nx, ny, nz}, box_stencil(1, 1, 1, true), 6.0, "laplace3d_7pt");
}

// 3D 27-point stencil: 26 on the diagonal, -1 for each cell of the 3x3x3 box.
HostCsr laplace3d_27pt(ordinal_t nx, ordinal_t ny, ordinal_t nz) {
  return laplacian({nx, ny, nz}, box_stencil(1, 1, 1, false), 26.0, "laplace3d_27pt");
}

// Point-block 7-point Laplacian: block pattern of laplace3d_7pt, -I off the
// diagonal, 7 I - (1/b)(J - I) on it.
HostBsr block_laplace3d(ordinal_t nx, ordinal_t ny, ordinal_t nz, int b) {
  const char* fn = "block_laplace3d";
  if (b < 1 || b > 8) throw InputError(std::string(fn) + ": block size b = " + std::to_string(b) + " must be in 1..8");
  checked_rows(nx, ny, nz, b, fn);
  const HostCsr pattern = laplace3d_7pt(nx, ny, nz);
  const size_t bb = size_t(b) * b;
  checked_nnz((long long)pattern.nnz() * (long long)bb, fn);
  HostBsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), size_t(pattern.nnz()) * bb);
  Kokkos::parallel_for("trellis::gallery::block_laplace3d",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, pattern.num_rows), [&](ordinal_t bi) {
                         for (offset_t k = pattern.row_map(bi); k < pattern.row_map(bi + 1); ++k) {
                           double* block = val.data() + size_t(k) * bb;
                           const bool diagonal = pattern.entries(k) == bi;
                           for (int r = 0; r < b; ++r)
                             for (int c = 0; c < b; ++c)
                               block[r * b + c] = !diagonal ? (r == c ? -1.0 : 0.0) : (r == c ? 7.0 : -1.0 / b);
                         }
                       });
  Kokkos::DefaultHostExecutionSpace().fence();  // the values are read on return
  return HostBsr(b, pattern.num_rows, pattern.num_cols, pattern.row_map, pattern.entries, val);
}

// Finite-volume -div(k grad u), 7-point: off-diagonal -T per face with the
// harmonic-mean transmissibility T = 2 k1 k2 / (k1 + k2); boundary faces add
// 2 k to the diagonal (Dirichlet); diagonal = sum of the face terms.
HostCsr layered_diffusion3d(ordinal_t nx, ordinal_t ny, ordinal_t nz, double decades, std::uint64_t seed) {
  const char* fn = "layered_diffusion3d";
  require_finite(decades, "decades", fn);
  if (decades < 0 || decades > layered_decades_max)
    throw InputError(std::string(fn) + ": decades = " + std::to_string(decades) + " must be in 0.." +
                     std::to_string(int(layered_decades_max)));
  const Grid g{nx, ny, nz};
  const ordinal_t n = checked_rows(nx, ny, nz, 1, fn);
  std::mt19937_64 rng(seed);
  std::vector<double> layer(nz);
  for (auto& l : layer) l = std::pow(10.0, uniform(rng, -decades / 2, decades / 2));
  std::vector<double> kcell(n);
  for (ordinal_t row = 0; row < n; ++row)
    kcell[row] = layer[row / (nx * (long long)ny)] * std::pow(10.0, uniform(rng, -0.5, 0.5));

  const long long plane = (long long)nx * ny;
  const auto neighbour = [&](const Cell& c, const Offset& o) {
    return ordinal_t(c.row + o.dx + (long long)nx * o.dy + plane * o.dz);
  };
  // Written symmetric in its arguments so that A == A^T exactly.
  const auto transmissibility = [](double ka, double kb) { return 2.0 * (ka * kb) / (ka + kb); };
  const std::vector<Offset> faces = box_stencil(1, 1, 1, true);
  const auto value = [&](const Cell& c, const Offset& o) {
    const double kc = kcell[c.row];
    if (!is_centre(o)) return -transmissibility(kc, kcell[neighbour(c, o)]);
    double diag = 0;
    for (const Offset& f : faces) {
      if (is_centre(f)) continue;
      diag += inside(g, c.i + f.dx, c.j + f.dy, c.k + f.dz) ? transmissibility(kc, kcell[neighbour(c, f)]) : 2.0 * kc;
    }
    return diag;
  };
  return assemble_stencil(g, faces, value, fn);
}

namespace {

/// Laplacian (`centre` / -1) plus first-order upwind convection with velocity
/// w: a positive w_d puts -w_d on the upstream (lower) neighbour along axis d,
/// a negative one -|w_d| on the upper neighbour, and |w_d| on the diagonal.
HostCsr upwind_convection_diffusion(const Grid& g, const std::vector<Offset>& offsets, double centre,
                                    std::array<double, 3> w, const char* what) {
  const double diag = centre + std::abs(w[0]) + std::abs(w[1]) + std::abs(w[2]);
  const auto value = [&](const Cell&, const Offset& o) {
    if (is_centre(o)) return diag;
    const int axis = o.dx != 0 ? 0 : o.dy != 0 ? 1 : 2;
    const int step = o.dx + o.dy + o.dz;  // -1: lower neighbour, +1: upper
    const bool upstream = (step < 0 && w[axis] > 0) || (step > 0 && w[axis] < 0);
    return -1.0 - (upstream ? std::abs(w[axis]) : 0.0);
  };
  return assemble_stencil(g, offsets, value, what);
}

}  // namespace

// -lap(u) + w . grad(u) in 3D: 7-point Laplacian plus upwind convection,
// w = peclet (1, 0.5, 0.25).
HostCsr convection_diffusion3d(ordinal_t nx, ordinal_t ny, ordinal_t nz, double peclet) {
  require_finite(peclet, "peclet", "convection_diffusion3d");
  if (std::abs(peclet) > peclet_max)
    throw InputError("convection_diffusion3d: peclet = " + std::to_string(peclet) + " exceeds 1e300 in magnitude");
  return upwind_convection_diffusion({nx, ny, nz}, box_stencil(1, 1, 1, true), 6.0,
                                     {peclet, 0.5 * peclet, 0.25 * peclet}, "convection_diffusion3d");
}

// -lap(u) + w . grad(u) in 2D: 5-point Laplacian plus upwind convection,
// w = peclet (1, 0.5).
HostCsr convection_diffusion2d(ordinal_t nx, ordinal_t ny, double peclet) {
  require_finite(peclet, "peclet", "convection_diffusion2d");
  if (std::abs(peclet) > peclet_max)
    throw InputError("convection_diffusion2d: peclet = " + std::to_string(peclet) + " exceeds 1e300 in magnitude");
  return upwind_convection_diffusion({nx, ny, 1}, box_stencil(1, 1, 0, true), 4.0, {peclet, 0.5 * peclet, 0.0},
                                     "convection_diffusion2d");
}

// Random sparse matrix: diagonal plus a random number of random columns per row.
HostCsr random_sparse(ordinal_t n, const RandomOptions& options) {
  const char* fn = "random_sparse";
  require_positive(n, "n", fn);
  if (options.min_per_row < 0 || options.max_per_row < options.min_per_row)
    throw InputError(std::string(fn) + ": entries per row [min_per_row, max_per_row] = [" +
                     std::to_string(options.min_per_row) + ", " + std::to_string(options.max_per_row) +
                     "] is not a valid range");
  std::mt19937_64 rng(options.seed);
  std::vector<long long> row_map(size_t(n) + 1, 0);
  std::vector<ordinal_t> cols, off_cols;
  std::vector<double> vals, off_vals;
  const long long bw = options.bandwidth;
  for (ordinal_t i = 0; i < n; ++i) {
    const auto lo = ordinal_t(bw > 0 ? std::max<long long>(0, i - bw) : 0);
    const auto hi = ordinal_t(bw > 0 ? std::min<long long>(n - 1, i + bw) : n - 1);
    const long long count = uniform_int(rng, options.min_per_row, options.max_per_row);
    off_cols = sample_distinct(rng, lo, hi, count, i);
    off_vals.resize(off_cols.size());
    double sum = 0;
    for (double& v : off_vals) {
      v = uniform(rng, -1.0, 1.0);
      sum += std::abs(v);
    }
    const double diag = options.diagonally_dominant ? 1.0 + sum : uniform(rng, -1.0, 1.0);
    append_row(i, off_cols, off_vals, diag, cols, vals);
    row_map[i + 1] = (long long)cols.size();
    if (row_map[i + 1] > std::numeric_limits<offset_t>::max()) checked_nnz(row_map[i + 1], fn);
  }
  return csr_from_rows(n, row_map, cols, vals, fn);
}

// Random lower-triangular matrix of a given shape, diagonal 1 + sum |off|.
HostCsr random_lower_triangular(ordinal_t n, TriangularShape shape, std::uint64_t seed) {
  const char* fn = "random_lower_triangular";
  require_positive(n, "n", fn);
  std::mt19937_64 rng(seed);
  std::vector<long long> row_map(size_t(n) + 1, 0);
  std::vector<ordinal_t> cols, off_cols;
  std::vector<double> vals, off_vals;
  for (ordinal_t i = 0; i < n; ++i) {
    long long count = 0;
    switch (shape) {
      case TriangularShape::dense_rows: {
        const long long m = std::min<long long>(i, 64);
        count = uniform_int(rng, (m + 1) / 2, m);
        break;
      }
      case TriangularShape::sparse_rows: count = uniform_int(rng, 0, 3); break;
      case TriangularShape::empty_offdiagonal: count = (rng() & 1) ? 0 : uniform_int(rng, 1, 3); break;
      case TriangularShape::long_chain:  // its one entry is placed below
      case TriangularShape::diagonal_only: count = 0; break;
      default: throw InputError(std::string(fn) + ": unknown shape " + std::to_string(int(shape)));
    }
    if (shape == TriangularShape::long_chain && i > 0)
      off_cols.assign(1, i - 1);
    else
      off_cols = sample_distinct(rng, 0, i - 1, count, -1);
    off_vals.resize(off_cols.size());
    double sum = 0;
    for (double& v : off_vals) {
      v = random_offdiagonal(rng);
      sum += std::abs(v);
    }
    append_row(i, off_cols, off_vals, 1.0 + sum, cols, vals);
    row_map[i + 1] = (long long)cols.size();
    if (row_map[i + 1] > std::numeric_limits<offset_t>::max()) checked_nnz(row_map[i + 1], fn);
  }
  return csr_from_rows(n, row_map, cols, vals, fn);
}

}  // namespace trellis::gallery
