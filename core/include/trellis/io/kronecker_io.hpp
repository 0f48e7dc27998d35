#pragma once
// Reading a Kronecker-form system (A ⊗ M + tau B ⊗ L) U = F (seed 001) from
// Matrix Market files: M and L as sparse coordinate files, A and B as small
// dense ones.
#include <string>
#include <vector>

#include "trellis/core/kronecker_system.hpp"

namespace trellis::io {

/// A dense matrix from a Matrix Market file, returned row-major (entry (i, j)
/// at i * cols + j): either an `array` real/integer general file (stored
/// column-major, as the standard says) or a `coordinate` file (missing
/// entries are zeros, duplicates summed, symmetric files expanded). Sets rows
/// and cols. Errors are MatrixMarketError naming the file; a coordinate file
/// too large to hold densely (over 2^26 entries) is refused.
std::vector<double> read_matrix_market_dense(const std::string& path, long long& rows, long long& cols);

/// The system from four files: M and L coordinate files (read as CSR, then
/// stored as BSR with block_size x block_size blocks: a block is stored when
/// any of its entries is; the size must be a multiple of block_size, which
/// is never guessed, default 1), A and B dense s x s files
/// (read_matrix_market_dense), and tau. Throws InputError naming the file
/// when M or L is not square, when L's size differs from M's, when the size
/// is not a multiple of block_size, when A or B is not square or B's size
/// differs from A's; then validate()s the result (a non-finite tau).
KroneckerSystem read_kronecker_system(const std::string& M_path, const std::string& L_path, const std::string& A_path,
                                      const std::string& B_path, double tau, int block_size = 1);

}  // namespace trellis::io
