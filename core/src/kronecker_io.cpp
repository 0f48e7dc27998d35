// Reading Kronecker-form systems: M and L through the sparse Matrix Market
// reader, A and B as small dense matrices from either file format.
#include "trellis/io/kronecker_io.hpp"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/io/matrix_market.hpp"

namespace trellis::io {
namespace {

// Dense reads are for the s x s time matrices: refuse what could not be that.
constexpr long long kMaxDenseEntries = 1ll << 26;

std::string size_text(long long rows, long long cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

}  // namespace

std::vector<double> read_matrix_market_dense(const std::string& path, long long& rows, long long& cols) {
  const MatrixMarketHeader header = read_matrix_market_header(path);
  if (header.format == MMFormat::array) {
    const std::vector<double> column_major = read_matrix_market_array(path, rows, cols);
    std::vector<double> out(column_major.size());
    for (long long j = 0; j < cols; ++j)
      for (long long i = 0; i < rows; ++i) out[size_t(i * cols + j)] = column_major[size_t(i + rows * j)];
    return out;
  }
  if (header.rows > 0 && header.cols > kMaxDenseEntries / header.rows)
    throw MatrixMarketError(path, 0,
                            "a " + size_text(header.rows, header.cols) +
                                " matrix is too large to read as a dense matrix (at most " +
                                std::to_string(kMaxDenseEntries) + " entries)");
  const HostCsr A = read_matrix_market(path);
  rows = A.num_rows;
  cols = A.num_cols;
  std::vector<double> out(size_t(rows) * size_t(cols), 0.0);
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k)
      out[size_t(i) * size_t(cols) + A.entries(k)] = A.values(k);
  return out;
}

KroneckerSystem read_kronecker_system(const std::string& M_path, const std::string& L_path, const std::string& A_path,
                                      const std::string& B_path, double tau, int block_size) {
  const std::string fn = "read_kronecker_system: ";
  if (block_size < 1) throw InputError(fn + "block size " + std::to_string(block_size) + " must be at least 1");
  const HostCsr M = read_matrix_market(M_path);
  if (!M.is_square())
    throw InputError(fn + "M '" + M_path + "' is " + size_text(M.num_rows, M.num_cols) + ", not square");
  if (M.num_rows % block_size != 0)
    throw InputError(fn + "M '" + M_path + "' has " + std::to_string(M.num_rows) +
                     " rows, not a multiple of the block size " + std::to_string(block_size));
  const HostCsr L = read_matrix_market(L_path);
  if (L.num_rows != M.num_rows || L.num_cols != M.num_cols)
    throw InputError(fn + "L '" + L_path + "' is " + size_text(L.num_rows, L.num_cols) + " but M '" + M_path + "' is " +
                     size_text(M.num_rows, M.num_cols));

  long long a_rows = 0, a_cols = 0, b_rows = 0, b_cols = 0;
  std::vector<double> A = read_matrix_market_dense(A_path, a_rows, a_cols);
  if (a_rows != a_cols || a_rows < 1)
    throw InputError(fn + "A '" + A_path + "' is " + size_text(a_rows, a_cols) + ", not a square s x s matrix");
  std::vector<double> B = read_matrix_market_dense(B_path, b_rows, b_cols);
  if (b_rows != a_rows || b_cols != a_cols)
    throw InputError(fn + "B '" + B_path + "' is " + size_text(b_rows, b_cols) + " but A '" + A_path + "' is " +
                     size_text(a_rows, a_cols) + " (both must be s x s)");
  // s is tiny in practice; bounding it keeps the int conversion exact.
  if (a_rows > (1 << 13))
    throw InputError(fn + "A '" + A_path + "' is " + size_text(a_rows, a_cols) + ": more stages than supported");

  KroneckerSystem system;
  system.M = csr_to_bsr(M, block_size);
  system.L = csr_to_bsr(L, block_size);
  system.stages = int(a_rows);
  system.A = std::move(A);
  system.B = std::move(B);
  system.tau = tau;
  char tau_text[32];
  std::snprintf(tau_text, sizeof tau_text, "%.6g", tau);
  system.description = "Kronecker system from files: M '" + M_path + "', L '" + L_path + "', A '" + A_path + "', B '" +
                       B_path + "', N=" + std::to_string(M.num_rows) + ", b=" + std::to_string(block_size) +
                       ", s=" + std::to_string(system.stages) + ", tau=" + tau_text;
  validate(system);
  return system;
}

}  // namespace trellis::io
