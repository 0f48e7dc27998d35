#pragma once
// A linear system in Kronecker product form (seed 001):
//   (A ⊗ M + tau B ⊗ L) U = F,
// with dense s x s matrices A, B (the time discretization: s stages or time
// steps) and N x N point-block matrices M, L (the space discretization, BSR
// with block size b). Vectors are N x s blocks stored column after column
// (the paper's X̂: column j holds stage j), which is vec(X̂), the ordering of
// the Kronecker product itself.
#include <string>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"

namespace trellis {

struct KroneckerSystem {
  HostBsr M;                // N x N, block size b
  HostBsr L;                // N x N, the same block size (the pattern may differ from M's)
  int stages = 0;           // s
  std::vector<double> A;    // s x s, row-major: A[i * s + j] = a_ij
  std::vector<double> B;    // s x s, row-major
  double tau = 0;           // time-step scale
  std::string description;  // what the operands are (shown by the CLI and benchmarks)

  ordinal_t space_rows() const { return M.num_rows(); }                    // N
  ordinal_t num_rows() const { return M.num_rows() * ordinal_t(stages); }  // N s
  double a(int i, int j) const { return A[size_t(i) * size_t(stages) + size_t(j)]; }
  double b(int i, int j) const { return B[size_t(i) * size_t(stages) + size_t(j)]; }
};

/// Throws InputError naming the first problem: s < 1, A or B not s x s, M or
/// L not square, sizes or block sizes of M and L that differ, a non-finite
/// tau or entry of A, B, M or L.
void validate(const KroneckerSystem& system);

}  // namespace trellis
