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

/// Whether the partitioner the options choose for a matrix of block_rows
/// reads its block pattern (a graph partitioner does, for more than one
/// subdomain; the geometric and contiguous ones need only the sizes, so a
/// device matrix's pattern need not come to the host for them).
bool partition_reads_pattern(const DdOptions& options, ordinal_t block_rows, ordinal_t rows_that_fit);
/// Whether it reads coupling weights too (METIS with coupling_weights).
bool partition_reads_weights(const DdOptions& options, ordinal_t block_rows, ordinal_t rows_that_fit);

/// rows_that_fit: the team scratch limit in block rows. Fills the report's
/// partition fields and time (all but the dropped blocks).
SubdomainLayout plan_subdomains(const BlockPattern& A, const DdOptions& options, ordinal_t rows_that_fit,
                                DdReport& report);

}  // namespace trellis::dd::detail
