#pragma once
// The host part of the domain-decomposition setup: the partition and the rows
// grouped by subdomain. Reordering, dropping and splitting run on the device
// (permute_symmetric, ilu::split_blocks).
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/dd/dd_options.hpp"
#include "trellis/partition/subdomain_layout.hpp"

namespace trellis::dd::detail {

/// What the partitioners read of a matrix: its block pattern, on the host.
struct BlockPattern {
  int block_size = 1;
  ordinal_t rows = 0, cols = 0;  // block rows and columns
  HostBsr::row_map_type row_map;
  HostBsr::index_type entries;   // both empty where the partitioner does not read them
  std::vector<double> coupling;  // coupling strength per block, or empty (DdOptions::coupling_weights)
};

/// What the backend allows and asks of the subdomains.
struct SubdomainBounds {
  ordinal_t rows_that_fit = 0;  // team scratch limit, in block rows
  /// Subdomains the automatic size aims at least for (DdOptions::subdomain_rows):
  /// the backend's concurrency / DdOptions::concurrency_per_subdomain; 0 on CPUs.
  ordinal_t subdomains_wanted = 0;
};

/// Block rows per subdomain: the options' size, else the automatic one
/// (DdOptions::subdomain_rows says which); never more than fit.
ordinal_t subdomain_rows(const DdOptions& options, ordinal_t block_rows, SubdomainBounds bounds);

/// Whether the partitioner the options choose for a matrix of block_rows
/// reads its block pattern (a graph partitioner does, for more than one
/// subdomain; the geometric and contiguous ones need only the sizes, so a
/// device matrix's pattern need not come to the host for them).
bool partition_reads_pattern(const DdOptions& options, ordinal_t block_rows, SubdomainBounds bounds);
/// Whether it reads coupling weights too (METIS with coupling_weights).
bool partition_reads_weights(const DdOptions& options, ordinal_t block_rows, SubdomainBounds bounds);

/// Fills the report's partition fields and time (all but the dropped blocks).
SubdomainLayout plan_subdomains(const BlockPattern& A, const DdOptions& options, SubdomainBounds bounds,
                                DdReport& report);

}  // namespace trellis::dd::detail
