#pragma once
// From a partition to the row order the domain-decomposition preconditioner
// uses (seed 000, sections 3.1-3.2): rows grouped by subdomain. The matrix is
// then reordered with permute_symmetric (core/permutation.hpp) and split with
// the entries between subdomains dropped (ilu/block_split.hpp).
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/partition/partition.hpp"

namespace trellis {

struct SubdomainLayout {
  std::vector<ordinal_t> new_to_old;  // original (block) row of each new row
  std::vector<ordinal_t> sub_start;   // subdomain s owns new rows [sub_start[s], sub_start[s+1])
  ordinal_t num_subdomains() const { return ordinal_t(sub_start.size()) - 1; }
  ordinal_t largest_subdomain() const;
};

/// Rows grouped by part, original order kept inside a part; empty parts are
/// left out.
SubdomainLayout group_rows_by_part(const Partition& partition);

/// group_rows_by_part(geometric_partition(grid, box)), made box by box in one
/// pass with no part vector.
SubdomainLayout geometric_layout(GridDims grid, GridDims box);

}  // namespace trellis
