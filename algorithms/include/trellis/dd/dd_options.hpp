#pragma once
// Options and setup report of the domain-decomposition ILU0/ILDU0
// preconditioner (seed 000).
#include <optional>
#include <string>

#include "trellis/dd/dd_variant.hpp"
#include "trellis/ilu/pivot_options.hpp"
#include "trellis/partition/partition.hpp"

namespace trellis {

struct DdOptions {
  Partitioner partitioner = Partitioner::automatic;
  GridDims grid{0, 0, 0};  // the (block-row) grid, x fastest; enables geometric cuts
  GridDims box{0, 0, 0};   // geometric subdomain box; 0 = the most cubic box that fits
  /// Rows (block rows) per subdomain. 0 = automatic: the paper's 2048 (or
  /// the most whose vector fits in team scratch), made smaller, down to
  /// smallest_automatic_rows, where that leaves fewer subdomains than the
  /// backend's concurrency / concurrency_per_subdomain (264 on an H200: two
  /// per multiprocessor; none asked of CPUs). A subdomain is one team, and
  /// a team walks its levels one after the other: with fewer subdomains
  /// than multiprocessors the GPU idles, and smaller ones cost only a few
  /// more iterations once nodes stay whole (node_size). Read off an H200
  /// sweep of sizes: 1.26x DD's BiCGSTAB time with setup against 2048 rows
  /// in geometric mean over the 14 real matrices (perf_tests/journal/RESULTS.md).
  /// A matrix that fits one subdomain of the largest size stays whole: in
  /// that sweep its iterations were launch-bound at every size (Laplace3D10
  /// 1.9 ms whole, 3.6 ms at 96 rows; 1138_bus 11.8 and 11.6 ms).
  /// A size that does not fit is replaced by the largest that does, and the
  /// report says so.
  ordinal_t subdomain_rows = 0;
  static constexpr ordinal_t largest_automatic_rows = 2048, smallest_automatic_rows = 96;
  static constexpr int concurrency_per_subdomain = 1024;
  /// Block rows of a mesh node (the interleaved unknowns of one grid point)
  /// that the graph partitions keep in one subdomain: 0 detects it from the
  /// pattern (detect_node_size: 2..largest_detected_node consecutive rows
  /// that share their neighbours), 1 keeps no nodes, g > 1 says it. Cutting
  /// a node cuts its strongest couplings (node_graph.hpp says how much that
  /// costs in iterations).
  ordinal_t node_size = 0;
  static constexpr ordinal_t largest_detected_node = 8;
  ilu::PivotOptions pivots;
  /// The graph partitions (METIS, regions, and the automatic choice between
  /// slabs and regions) weight each edge by its coupling strength ||A_ij|| /
  /// sqrt(||A_ii|| ||A_jj||) (coupling_strengths), so that strong couplings
  /// stay inside subdomains (METIS on the 14 real matrices: BiCGSTAB
  /// iterations -9% in geometric mean, -45% and -56% on the two with the
  /// widest coefficient ranges: perf_tests/journal/RESULTS.md); the report gives the
  /// coupling weight dropped. Geometric, contiguous and explicit slabs do not
  /// read weights (nothing is computed for them). A device matrix's values
  /// then come to the host once, with its pattern.
  bool coupling_weights = true;
  /// What apply() runs. Unset: dag_ec_ILDUO_fused on GPUs (the paper's
  /// fastest), dag_vc_ILDUO_fused on host backends (no atomics, which are
  /// slow there).
  std::optional<DdApply> apply;
};

struct DdReport {
  std::string partitioner;
  int block_size = 1;
  ordinal_t block_rows = 0;
  ordinal_t subdomains = 0;
  ordinal_t largest_subdomain = 0, smallest_subdomain = 0;
  ordinal_t subdomain_rows = 0;     // the size asked of the partition (DdOptions::subdomain_rows)
  ordinal_t subdomains_wanted = 0;  // what the automatic size aimed at; 0 for a size given or none asked
  ordinal_t rows_that_fit = 0;      // team scratch limit, in block rows
  size_t scratch_bytes_max = 0;
  offset_t blocks = 0, blocks_dropped = 0;
  ordinal_t lower_levels_max = 0, upper_levels_max = 0;
  ordinal_t boosted_pivots = 0;
  ordinal_t node_size = 1;  // block rows kept together by the graph partition (1: none)
  double seconds_partition = 0, seconds_reorder = 0, seconds_analysis = 0, seconds_factorization = 0;
  /// With coupling weights (METIS): the fraction of the off-diagonal
  /// coupling weight (sum of coupling strengths) the partition drops; -1
  /// without them.
  double dropped_coupling = -1;
  std::string note;  // e.g. a requested size that did not fit
  double dropped_fraction() const { return blocks ? double(blocks_dropped) / blocks : 0.0; }
  /// A few lines for people (Table 5.4's columns and the setup times).
  std::string describe() const;
};

}  // namespace trellis
