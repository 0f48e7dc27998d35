#pragma once
// From a partition to the matrices the domain-decomposition preconditioner
// uses (seed 000, sections 3.1-3.2): rows grouped by subdomain (Algorithm 3.2
// on block rows, columns renumbered and sorted), the reordered full matrix
// (for SpMV) and its block-diagonal part with the entries between subdomains
// dropped (for the factorization).
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

/// P A P^T on block rows and columns (Algorithm 3.2), columns sorted.
HostBsr reorder_bsr(const HostBsr& A, const std::vector<ordinal_t>& new_to_old);

/// The blocks of a reordered matrix whose row and column lie in the same
/// subdomain; dropped_blocks receives how many were removed.
HostBsr drop_between_subdomains(const HostBsr& reordered, const SubdomainLayout& layout,
                                offset_t& dropped_blocks);

}  // namespace trellis
