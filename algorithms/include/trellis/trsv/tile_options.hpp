#pragma once
// The tiled triangular solves (seed 004, Lu & Liu, TileSpTRSV): tile formats,
// the thresholds of the format selection tree, and what the analysis reports.
#include <array>
#include <cstddef>
#include <string>

#include "trellis/core/name_table.hpp"

namespace trellis {

/// Storage of one 16x16 tile (seed 004, section 3.2). Off-diagonal tiles
/// take one of the first seven; a diagonal tile is `dia` when it holds no
/// entry besides the diagonal, else `csr`.
enum class TileFormat : unsigned char { csr, coo, ell, hyb, dns, dns_row, dns_col, dia };

template <>
struct NameTable<TileFormat> {
  static constexpr const char* what = "tile format";
  static constexpr NameEntry<TileFormat> entries[] = {
      {TileFormat::csr, "csr"},         {TileFormat::coo, "coo"}, {TileFormat::ell, "ell"},
      {TileFormat::hyb, "hyb"},         {TileFormat::dns, "dns"}, {TileFormat::dns_row, "dns-row"},
      {TileFormat::dns_col, "dns-col"}, {TileFormat::dia, "dia"},
  };
};

/// The order of rows the tiles are cut from. `levels` (the paper's): level
/// by level, so that tile rows of one level are independent; on matrices
/// without a level-ordered numbering this scatters each row's entries over
/// many near-empty tiles. `natural`: the matrix's own numbering (reversed
/// for an upper triangle), which keeps the locality of the application's
/// numbering; a diagonal tile then holds dependent rows, solved in the tile.
/// `automatic` (the default): the analysis cuts both and takes levels
/// when it needs at most TileOptions::level_order_max_tile_ratio times
/// natural's off-diagonal tiles; beyond that, when natural order's tile
/// levels exceed the triangle's levels times the square root of that
/// ratio. Level order's diagonal tiles hold rows of one level, solved in
/// one step, where natural order's hold in-tile chains, and a natural cut
/// of an unstructured matrix chains its tile rows (a launch each); a tile
/// level's cost grows about as the root of its tiles (H100 measurements in
/// RESULTS, fiftieth and fifty-first sessions).
enum class TileOrder : unsigned char { natural, levels, automatic };

template <>
struct NameTable<TileOrder> {
  static constexpr const char* what = "tile order";
  static constexpr NameEntry<TileOrder> entries[] = {
      {TileOrder::natural, "natural"}, {TileOrder::levels, "levels"}, {TileOrder::automatic, "auto"}};
};

/// How a vector group multiplies a tile row's off-diagonal tiles by x.
/// `rows` (the default; the paper's, TileSpMV's warp-level kernels): a
/// tile's 16 rows on 16 lanes, each format read by its own loop (the dense
/// formats and ELL column-major, so that the lanes' loads are adjacent); a
/// 32-lane group takes two tiles at a time. `tiles`: each lane takes whole
/// tiles and walks their entries whatever the format, so that few-entry
/// tiles cost a lane each rather than a group each. On an H100 rows ran
/// tile-levelset 1.5-2.3x faster on six of seven matrices, as fast on the
/// seventh (RESULTS, fiftieth session).
enum class TileSpmv : unsigned char { tiles, rows };

template <>
struct NameTable<TileSpmv> {
  static constexpr const char* what = "tile SpMV mapping";
  static constexpr NameEntry<TileSpmv> entries[] = {{TileSpmv::tiles, "tiles"}, {TileSpmv::rows, "rows"}};
};

inline constexpr int tile_size = 16;  // rows and columns of a tile (8-bit in-tile positions)
inline constexpr int num_tile_formats = 8;

/// How the analysis picks an off-diagonal tile's format (seed 004 section
/// 3.3, TileSpMV's selection tree), first match wins:
///   1. nnz >= dense_fraction * 256                 dns
///   2. every non-empty row is full                 dns-row
///   3. every non-empty column is full              dns-col
///   4. nnz <= coo_max_nnz                          coo
///   5. 16 * longest row <= ell_max_padding * nnz   ell
///   6. rows longer than w = ceil(nnz / 16) hold at most hyb_max_overflow * nnz
///      entries                                     hyb (ELL of width w + COO)
///   7. otherwise                                   csr
/// `force` (tests, experiments) stores every off-diagonal tile in one format.
struct TileOptions {
  TileOrder order = TileOrder::automatic;
  double level_order_max_tile_ratio = 2.0;
  double dense_fraction = 0.5;
  int coo_max_nnz = 12;
  double ell_max_padding = 1.5;
  double hyb_max_overflow = 0.25;
  bool force_format = false;
  TileFormat force = TileFormat::csr;
  /// The tiled solves' diagonal-tile kernel: one lane per tile (thread level)
  /// when the tile rows per level reach the threshold, else the tile's rows
  /// on the lanes of a vector group (warp level). The paper's rule is
  /// "GPU cores = 8 x thre"; 0 takes it from the backend: the resident
  /// threads (Kokkos' concurrency()) / 128, which on an H100 is its 16,896
  /// CUDA cores / 8 = 2,112. Host backends always run thread level.
  int warp_level_threshold = 0;
  TileSpmv spmv = TileSpmv::rows;
  /// tile-levelset in the paper's two phases (Algorithm 6): per tile level,
  /// the off-diagonal tiles in chunks of at most `chunk_tiles` a vector
  /// group, then the diagonal tiles. false: one phase, a group per tile row
  /// (its off-diagonal tiles only read tile columns of earlier levels).
  bool two_phase = false;
  int chunk_tiles = 16;
  /// Lanes of a vector group; 0: the backend's (on GPUs 16, or a warp of 32
  /// for the rows mapping; 1 on host backends). A power of two up to a warp
  /// on GPUs, where tile-syncfree takes a whole warp (its lane 0 spins); up
  /// to 64 on host backends, which run the lanes one after another (so that
  /// a host test runs the GPU's assignment of lanes).
  int lanes = 0;
  /// The tiles' values stored in single precision, products summed in the
  /// solve's precision (the paper's Figure 10): half the value bytes, each
  /// off-diagonal entry rounded to float; the diagonal stays exact. No
  /// effect when the solve is in float.
  bool single_values = false;
};

/// What the tiled analysis built.
struct TileReport {
  TileOrder order = TileOrder::natural;                    // the order cut (automatic: the one chosen)
  long long order_alternative_tiles = -1;                  // automatic: off-diagonal tiles of the other order
  int natural_tile_levels = -1;                            // automatic: natural cut's tile levels, when weighed
  int tile_rows = 0;                                       // ceil(n / 16)
  long long offdiag_tiles = 0;                             // off-diagonal tiles stored
  int tile_levels = 0;                                     // levels of the tile-row dependency graph
  double tile_parallelism = 0;                             // tile rows per tile level on average
  bool warp_level = false;                                 // the diagonal-tile kernel
  TileSpmv spmv = TileSpmv::rows;                          // the off-diagonal mapping
  bool two_phase = false;                                  // tile-levelset's phases a level
  long long chunks = 0;                                    // two-phase: SpMV chunks
  bool single_values = false;                              // values stored in float
  std::array<long long, num_tile_formats> format_count{};  // tiles per TileFormat
  std::size_t tile_bytes = 0;                              // the tiled storage (both levels, values included)
  std::size_t csr_bytes = 0;                               // the same triangle in CSR (32-bit indices)
  double analysis_seconds = 0;                             // the tiled part of the analysis
  std::string describe() const;
};

inline std::string TileReport::describe() const {
  std::string s = std::string(to_string(order)) + " order" +
                  (order_alternative_tiles >= 0
                       ? " (auto: " + std::to_string(order_alternative_tiles) + " off-diagonal tiles in the other" +
                             (natural_tile_levels >= 0
                                  ? ", " + std::to_string(natural_tile_levels) + " tile levels in natural order"
                                  : "") +
                             ")"
                       : "") +
                  ", " + std::to_string(tile_rows) + " tile rows, " + std::to_string(offdiag_tiles) +
                  " off-diagonal tiles, " + std::to_string(tile_levels) + " tile levels (" +
                  std::to_string(tile_parallelism).substr(0, 6) + " tile rows/level), " +
                  (warp_level ? "warp-level" : "thread-level") + " diagonal tiles, " + to_string(spmv) + " on lanes" +
                  (two_phase ? ", two phases (" + std::to_string(chunks) + " chunks)" : "") +
                  (single_values ? ", float values" : "") + "; formats:";
  for (int f = 0; f < num_tile_formats; ++f)
    if (format_count[f]) s += std::string(" ") + to_string(TileFormat(f)) + "=" + std::to_string(format_count[f]);
  s += "; memory " + std::to_string(tile_bytes) + " B against " + std::to_string(csr_bytes) + " B in CSR";
  return s;
}

}  // namespace trellis
