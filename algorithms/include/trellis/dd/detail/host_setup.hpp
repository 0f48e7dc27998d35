#pragma once
// The host part of the domain-decomposition setup: the partition and the rows
// grouped by subdomain. Reordering, dropping and splitting run on the device
// (permute_symmetric, split_subdomain_blocks).
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/dd/dd_options.hpp"
#include "trellis/partition/subdomain_layout.hpp"

namespace trellis::dd::detail {

/// rows_that_fit: the team scratch limit in block rows. Fills the report's
/// partition fields and time (all but the dropped blocks).
SubdomainLayout plan_subdomains(const HostBsr& A, const DdOptions& options, ordinal_t rows_that_fit,
                                DdReport& report);

}  // namespace trellis::dd::detail
