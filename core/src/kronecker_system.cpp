// Kronecker-form systems (seed 001): validate(), the generated Stokes-like
// problem and the random test systems of gallery/kronecker_problems.hpp.
#include "trellis/core/kronecker_system.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "trellis/core/errors.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/kronecker_problems.hpp"

namespace trellis {
namespace {

/// A double for a message: shortest form that reads clearly ("0.125", "nan").
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void require_square(const HostBsr& X, const char* name) {
  if (X.num_block_rows != X.num_block_cols)
    throw InputError(std::string("KroneckerSystem: ") + name + " is " + std::to_string(X.num_rows()) + "x" +
                     std::to_string(X.num_cols()) + ", not square");
  if (X.num_block_rows == 0) throw InputError(std::string("KroneckerSystem: ") + name + " has no rows");
}

void require_finite_dense(const std::vector<double>& X, int s, const char* name) {
  for (size_t k = 0; k < X.size(); ++k)
    if (!std::isfinite(X[k]))
      throw InputError(std::string("KroneckerSystem: ") + name + "(" + std::to_string(k / size_t(s)) + ", " +
                       std::to_string(k % size_t(s)) + ") = " + number_text(X[k]) + " is not finite");
}

/// Names the point row and column of the first non-finite stored value.
void require_finite_values(const HostBsr& X, const char* name) {
  const size_t b = size_t(X.block_size), bb = b * b;
  for (size_t k = 0; k < X.values.extent(0); ++k) {
    if (std::isfinite(X.values(k))) continue;
    const offset_t block = offset_t(k / bb);
    // The block row holding stored block `block`: the last row starting at or before it.
    const offset_t* rm = X.row_map.data();
    const ordinal_t bi = ordinal_t(std::upper_bound(rm, rm + X.num_block_rows + 1, block) - rm - 1);
    const size_t row = size_t(bi) * b + (k % bb) / b;
    const size_t col = size_t(X.entries(block)) * b + k % b;
    throw InputError(std::string("KroneckerSystem: ") + name + "(" + std::to_string(row) + ", " + std::to_string(col) +
                     ") = " + number_text(X.values(k)) + " is not finite");
  }
}

}  // namespace

void validate(const KroneckerSystem& system) {
  const int s = system.stages;
  if (s < 1) throw InputError("KroneckerSystem: stages s = " + std::to_string(s) + " must be at least 1");
  const size_t ss = size_t(s) * size_t(s);
  const auto require_s_by_s = [&](const std::vector<double>& X, const char* name) {
    if (X.size() != ss)
      throw InputError(std::string("KroneckerSystem: ") + name + " has " + std::to_string(X.size()) +
                       " entries, expected s*s = " + std::to_string(ss) + " (s = " + std::to_string(s) + ")");
  };
  require_s_by_s(system.A, "A");
  require_s_by_s(system.B, "B");
  require_square(system.M, "M");
  require_square(system.L, "L");
  const long long unknowns = (long long)system.M.num_rows() * s, limit = std::numeric_limits<ordinal_t>::max();
  if (unknowns > limit)
    throw InputError("KroneckerSystem: " + std::to_string(system.M.num_rows()) + " rows x s = " + std::to_string(s) +
                     " stages = " + std::to_string(unknowns) + " unknowns, more than 32-bit indices hold (" +
                     std::to_string(limit) + ")");
  if (system.M.num_rows() != system.L.num_rows())
    throw InputError("KroneckerSystem: M is " + std::to_string(system.M.num_rows()) + "x" +
                     std::to_string(system.M.num_rows()) + " but L is " + std::to_string(system.L.num_rows()) + "x" +
                     std::to_string(system.L.num_rows()));
  if (system.M.block_size != system.L.block_size)
    throw InputError("KroneckerSystem: block sizes differ: M has b = " + std::to_string(system.M.block_size) +
                     ", L has b = " + std::to_string(system.L.block_size));
  if (!std::isfinite(system.tau))
    throw InputError("KroneckerSystem: tau = " + number_text(system.tau) + " is not finite");
  require_finite_dense(system.A, s, "A");
  require_finite_dense(system.B, s, "B");
  require_finite_values(system.M, "M");
  require_finite_values(system.L, "L");
}

}  // namespace trellis

namespace trellis::gallery {
namespace {

// ------------------------------------------------------------- parameters

// The Stokes-like problem's constants, chosen so that unpreconditioned
// GMRES(30) (seed 001's solver) reaches 1e-6 at tau = 0.125 in a number of
// iterations like the paper's 117 (measured with s = 2: 96 at 30^3, 189 at
// 50^3). The hard part is the skew velocity-pressure coupling, which grows
// like tau / h against the mass; the real parts that damp it come from:
// Viscosity. With h = 1/(n+1), the velocity block (M + tau nu K) / h^3 has
// eigenvalues from about 1 (smooth modes) to 1/3 + 4 tau nu / h^2: 13 at
// n = 50 with nu = 0.01 (nu = 0.1 took 450 iterations at 30^3; nu = 1 would
// give it a Laplacian's condition, thousands).
constexpr double kViscosity = 0.01;
// PSPG-like stabilization: (kPspg h^2 / nu) times the stiffness on p.
constexpr double kPspg = 1.0 / 12.0;
// Pressure mass relative to the velocity mass (an artificial compressibility:
// the true problem has none). It lifts the smoothest pressure modes, which
// the coupling barely reaches: 0.1 took 316 iterations at 50^3, 0.25 189.
constexpr double kPressureMass = 0.25;

// Q1 (trilinear) stencils in 1D, per neighbour offset -1, 0, +1, without
// their powers of h: mass h (1/6, 2/3, 1/6), stiffness (1/h) (-1, 2, -1),
// derivative integral (-1/2, 0, 1/2) (of phi_i phi_j', j = i + offset).
double mass1(int d) { return d == 0 ? 2.0 / 3.0 : 1.0 / 6.0; }
double stiffness1(int d) { return d == 0 ? 2.0 : -1.0; }
double derivative1(int d) { return 0.5 * d; }

// ----------------------------------------------------------------- checks

void require_positive(long long value, const char* name, const char* fn) {
  if (value <= 0) throw InputError(std::string(fn) + ": " + name + " = " + std::to_string(value) + " must be positive");
}

// ------------------------------------------------------------ random values
// mt19937_64's output is fixed by the standard; the distributions are not,
// so values are made from its bits directly (same seed, same system everywhere).

double uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }
double uniform(std::mt19937_64& rng, double lo, double hi) { return lo + (hi - lo) * uniform01(rng); }

/// Random BSR values on a block pattern: entries uniform in [-1, 1], then
/// each point row's diagonal set to 1 + 2 * (sum of |other entries|).
HostBsr random_bsr_values(const HostCsr& pattern, int b, std::mt19937_64& rng) {
  const size_t bb = size_t(b) * b;
  const ordinal_t n = pattern.num_rows;
  checked_nnz((long long)pattern.nnz() * (long long)bb, "random_kronecker");
  HostBsr::values_type val("trellis::values", size_t(pattern.nnz()) * bb);
  for (size_t k = 0; k < val.extent(0); ++k) val(k) = uniform(rng, -1.0, 1.0);
  for (ordinal_t bi = 0; bi < n; ++bi) {
    for (int r = 0; r < b; ++r) {
      double off = 0;
      double* diagonal = nullptr;
      for (offset_t k = pattern.row_map(bi); k < pattern.row_map(bi + 1); ++k) {
        double* row = val.data() + size_t(k) * bb + size_t(r) * b;
        for (int c = 0; c < b; ++c) {
          if (pattern.entries(k) == bi && c == r)
            diagonal = row + c;
          else
            off += std::abs(row[c]);
        }
      }
      *diagonal = 1.0 + 2.0 * off;  // random_sparse always stores the diagonal block
    }
  }
  return HostBsr(b, n, n, pattern.row_map, pattern.entries, val);
}

/// Random s x s matrix, row-major: off-diagonals in [-1, 1], diagonals
/// 1 + 3 * (sum of |off-diagonal|) of their row.
std::vector<double> random_dominant_dense(int s, std::mt19937_64& rng) {
  std::vector<double> X(size_t(s) * s);
  for (int i = 0; i < s; ++i) {
    double off = 0;
    for (int j = 0; j < s; ++j) {
      if (j == i) continue;
      X[size_t(i) * s + j] = uniform(rng, -1.0, 1.0);
      off += std::abs(X[size_t(i) * s + j]);
    }
    X[size_t(i) * s + i] = 1.0 + 3.0 * off;
  }
  return X;
}

}  // namespace

std::vector<double> radau_iia_matrix(int stages) {
  const double r6 = std::sqrt(6.0);
  switch (stages) {
    case 1: return {1.0};
    case 2: return {5.0 / 12.0, -1.0 / 12.0, 3.0 / 4.0, 1.0 / 4.0};
    case 3:
      return {(88.0 - 7.0 * r6) / 360.0,
              (296.0 - 169.0 * r6) / 1800.0,
              (-2.0 + 3.0 * r6) / 225.0,
              (296.0 + 169.0 * r6) / 1800.0,
              (88.0 + 7.0 * r6) / 360.0,
              (-2.0 - 3.0 * r6) / 225.0,
              (16.0 - r6) / 36.0,
              (16.0 + r6) / 36.0,
              1.0 / 9.0};
    default:
      throw InputError("radau_iia_matrix: stages s = " + std::to_string(stages) +
                       " is not supported (Radau IIA with s = 1, 2 or 3)");
  }
}

KroneckerSystem stokes_kronecker(ordinal_t nx, ordinal_t ny, ordinal_t nz, int stages, double tau) {
  const char* fn = "stokes_kronecker";
  require_positive(nx, "nx", fn);
  require_positive(ny, "ny", fn);
  require_positive(nz, "nz", fn);
  if (!std::isfinite(tau) || tau <= 0)
    throw InputError(std::string(fn) + ": tau = " + number_text(tau) + " must be positive and finite");
  KroneckerSystem system;
  system.B = radau_iia_matrix(stages);  // first: an unsupported s fails before any work
  system.stages = stages;
  system.A.assign(size_t(stages) * stages, 0.0);
  for (int i = 0; i < stages; ++i) system.A[size_t(i) * stages + i] = 1.0;
  system.tau = tau;

  constexpr int b = 4;  // u, v, w, p
  // Every size checked in 64 bits before anything is generated: the rows,
  // the unknowns (rows x stages) and the blocks (at most 27 a point).
  const long long points = (long long)nx * ny * nz, limit = std::numeric_limits<ordinal_t>::max();
  const std::string grid = std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
  if (points > limit || points * b > limit)
    throw InputError(std::string(fn) + ": grid " + grid + " with 4 unknowns per point has " +
                     std::to_string(points * b) + " rows, more than 32-bit indices hold (" + std::to_string(limit) +
                     ")");
  if (points * b * stages > limit)
    throw InputError(std::string(fn) + ": grid " + grid + " with 4 unknowns per point and s = " +
                     std::to_string(stages) + " stages has " + std::to_string(points * b * stages) +
                     " unknowns, more than 32-bit indices hold (" + std::to_string(limit) + ")");
  checked_nnz(points * 27 * b * b, fn);  // an upper bound, before the pattern exists
  // The 27-point block pattern, sorted, neighbours outside the grid dropped.
  const HostCsr pattern = laplace3d_27pt(nx, ny, nz);
  const size_t bb = size_t(b) * b;
  checked_nnz((long long)pattern.nnz() * (long long)bb, fn);

  const double h = 1.0 / double(std::max({nx, ny, nz}) + 1);
  const double nu = kViscosity;
  const double mass_scale = h * h * h, stiffness_scale = h, coupling_scale = h * h;
  const double pspg = kPspg * h * h / nu;
  HostBsr::values_type mval("trellis::values", size_t(pattern.nnz()) * bb);
  HostBsr::values_type lval("trellis::values", size_t(pattern.nnz()) * bb);
  Kokkos::parallel_for("trellis::gallery::stokes_kronecker",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, pattern.num_rows), [&](ordinal_t row) {
                         const ordinal_t i = row % nx, j = (row / nx) % ny, k = row / (nx * ny);
                         for (offset_t e = pattern.row_map(row); e < pattern.row_map(row + 1); ++e) {
                           const ordinal_t col = pattern.entries(e);
                           const int dx = col % nx - i, dy = (col / nx) % ny - j, dz = col / (nx * ny) - k;
                           const double mx = mass1(dx), my = mass1(dy), mz = mass1(dz);
                           const double mass = mass_scale * mx * my * mz;
                           const double stiffness =
                               stiffness_scale *
                               (stiffness1(dx) * my * mz + mx * stiffness1(dy) * mz + mx * my * stiffness1(dz));
                           // Gradient (velocity row d, pressure column) and divergence (pressure
                           // row, velocity column d) entries of this block: both are the
                           // derivative along d of the column's unknown, so they share a value,
                           // and the block at the opposite offset has its negative (G, -G^T).
                           const double coupling[3] = {coupling_scale * derivative1(dx) * my * mz,
                                                       coupling_scale * mx * derivative1(dy) * mz,
                                                       coupling_scale * mx * my * derivative1(dz)};
                           double* Mb = mval.data() + size_t(e) * bb;
                           double* Lb = lval.data() + size_t(e) * bb;
                           for (int d = 0; d < 3; ++d) {
                             Mb[d * b + d] = mass;
                             Lb[d * b + d] = nu * stiffness;
                             Lb[d * b + 3] = coupling[d];
                             Lb[3 * b + d] = coupling[d];
                           }
                           Mb[3 * b + 3] = kPressureMass * mass;
                           Lb[3 * b + 3] = pspg * stiffness;
                         }
                       });
  Kokkos::DefaultHostExecutionSpace().fence();  // the values are read on return
  const ordinal_t n = pattern.num_rows;
  system.M = HostBsr(b, n, n, pattern.row_map, pattern.entries, mval);
  system.L = HostBsr(b, n, n, pattern.row_map, pattern.entries, lval);
  system.description = "Stokes-like b=4 27-point " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                       std::to_string(nz) + ", Radau IIA s=" + std::to_string(stages) + ", tau=" + number_text(tau);
  validate(system);
  return system;
}

KroneckerSystem random_kronecker(ordinal_t block_rows, int block_size, int stages, std::uint64_t seed,
                                 bool shared_pattern) {
  const char* fn = "random_kronecker";
  require_positive(block_rows, "block_rows", fn);
  if (block_size < 1 || block_size > 8)
    throw InputError(std::string(fn) + ": block size b = " + std::to_string(block_size) + " must be in 1..8");
  require_positive(stages, "stages", fn);
  if ((long long)block_rows * block_size > std::numeric_limits<ordinal_t>::max())
    throw InputError(std::string(fn) + ": " + std::to_string(block_rows) + " block rows of size " +
                     std::to_string(block_size) + " are more rows than 32-bit indices hold");
  // Patterns from random_sparse (diagonal always present); their values are unused.
  RandomOptions pattern_options;
  pattern_options.min_per_row = 0;
  pattern_options.max_per_row = 4;
  pattern_options.seed = seed;
  const HostCsr m_pattern = random_sparse(block_rows, pattern_options);
  pattern_options.seed = seed ^ 0x9e3779b97f4a7c15ull;  // another stream for L's own pattern
  const HostCsr l_pattern = shared_pattern ? m_pattern : random_sparse(block_rows, pattern_options);

  std::mt19937_64 rng(seed);
  KroneckerSystem system;
  system.stages = stages;
  system.M = random_bsr_values(m_pattern, block_size, rng);
  system.L = random_bsr_values(l_pattern, block_size, rng);
  system.A = random_dominant_dense(stages, rng);
  system.B = random_dominant_dense(stages, rng);
  system.tau = uniform(rng, 0.05, 0.5);
  system.description = "random Kronecker system: " + std::to_string(block_rows) +
                       " block rows, b=" + std::to_string(block_size) + ", s=" + std::to_string(stages) +
                       ", tau=" + number_text(system.tau) + (shared_pattern ? ", shared" : ", separate") +
                       " patterns, seed " + std::to_string(seed);
  validate(system);
  return system;
}

}  // namespace trellis::gallery
