#pragma once
// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) reader and
// writer. Reads `coordinate` real/integer/pattern matrices that are general,
// symmetric or skew-symmetric, and `array` real/integer vectors.
//
// Every malformed input throws MatrixMarketError naming the file, the line
// and the problem. Duplicate coordinate entries are summed; nothing is
// silently dropped. Files are read whole into memory and parsed without
// iostreams, so large files read at disk speed. A path ending in `.gz` is
// decompressed with zlib as it is read (builds with TRELLIS_ENABLE_ZLIB);
// a truncated or corrupt stream is a MatrixMarketError naming the file.
#include <string>
#include <string_view>
#include <vector>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"

namespace trellis::io {

enum class MMFormat { coordinate, array };
enum class MMField { real, integer, pattern };
enum class MMSymmetry { general, symmetric, skew_symmetric };

struct MatrixMarketHeader {
  MMFormat format = MMFormat::coordinate;
  MMField field = MMField::real;
  MMSymmetry symmetry = MMSymmetry::general;
  long long rows = 0, cols = 0;
  long long entries = 0;  // stored entries (coordinate) or rows*cols (array)
};

/// What a size line may ask for beyond what the file holds. Memory grows
/// with the entries read (their reservation is capped by the file's size)
/// and, for the row offsets, with the rows declared.
struct MatrixMarketLimits {
  /// Rows a coordinate file may declare beyond its stored entries (after
  /// symmetric expansion); more is a MatrixMarketError before any row
  /// offset is allocated. -1 accepts any count (files with many empty rows).
  long long max_rows_beyond_entries = 1 << 22;
};

/// Reads a coordinate matrix into canonical CSR (symmetric and skew-symmetric
/// files are expanded to both triangles; pattern entries get value 1).
HostCsr read_matrix_market(const std::string& path, const MatrixMarketLimits& limits = {});
/// Same, from text already in memory; `name` stands for the file in errors.
HostCsr parse_matrix_market(std::string_view text, const std::string& name, const MatrixMarketLimits& limits = {});

/// Reads only the banner and size line.
MatrixMarketHeader read_matrix_market_header(const std::string& path);

/// Reads a dense vector: an `array` real/integer general file with one column.
std::vector<double> read_matrix_market_vector(const std::string& path);
std::vector<double> parse_matrix_market_vector(std::string_view text, const std::string& name);

/// Reads an `array` real/integer general file of any shape: its rows*cols
/// values in file order, which is column-major (entry (i, j) at i + rows*j).
std::vector<double> read_matrix_market_array(const std::string& path, long long& rows, long long& cols);

/// Writes a coordinate real general matrix (full precision, round-trips).
void write_matrix_market(const std::string& path, const HostCsr& A);
/// Writes an `array` real general vector (one column).
void write_matrix_market_vector(const std::string& path, const std::vector<double>& x);

/// Whether the readers and writers take `path` as gzip-compressed (it ends in ".gz").
bool is_gzip_path(const std::string& path);

}  // namespace trellis::io
