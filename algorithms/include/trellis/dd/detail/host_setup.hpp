#pragma once
// The host part of the domain-decomposition setup: partition, reorder, drop,
// split the block-diagonal matrix into strict lower / diagonal / strict upper.
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/dd/dd_options.hpp"
#include "trellis/partition/subdomain_layout.hpp"

namespace trellis::dd::detail {

struct HostTriangle {
  std::vector<offset_t> map{0};
  std::vector<ordinal_t> col;
  std::vector<double> val;
};

struct HostSetup {
  SubdomainLayout layout;
  HostBsr reordered;  // the full reordered matrix
  HostTriangle lower, upper;
  std::vector<double> diag;  // one block per row
};

/// rows_that_fit: the team scratch limit in block rows. Fills the report's
/// partition fields and times.
HostSetup prepare_subdomains(const HostBsr& A, const DdOptions& options, ordinal_t rows_that_fit,
                             DdReport& report);

}  // namespace trellis::dd::detail
