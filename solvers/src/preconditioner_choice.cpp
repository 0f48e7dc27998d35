#include "trellis/solvers/preconditioner_choice.hpp"

#include <array>
#include <cstdio>
#include <string>

#include "trellis/core/csr_check.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/level_sets.hpp"

namespace trellis {

namespace {

/// The rule, with the level counts of L and U from `count` (called only
/// when the grid does not decide).
template <class CountLevels>
PreconditionerChoice choose(const HostCsr& A, const PreconditionerOptions& options, const AutoRule& rule,
                            const CountLevels& count) {
  if (!A.is_square())
    throw StructureError("auto: matrix is " + std::to_string(A.num_rows) + "x" + std::to_string(A.num_cols) +
                         ", not square");
  if (A.num_rows < 1) throw StructureError("auto: empty matrix");
  check_canonical(A, "auto");  // the level counts read sorted rows
  PreconditionerChoice out;
  if (options.grid[0] > 0 && options.grid[1] > 0 && options.grid[2] > 0) {
    out.kind = PreconditionerKind::dd;
    out.reason = "auto: dd, the grid is known (geometric subdomains)";
    return out;
  }
  const std::array<ordinal_t, 2> levels = count();
  out.lower_levels = levels[0];
  out.upper_levels = levels[1];
  out.nonzeros_per_level = double(A.nnz()) / (out.lower_levels + out.upper_levels);  // n >= 1: >= 2 levels
  const bool deep = out.nonzeros_per_level < rule.dd_below_nonzeros_per_level;
  out.kind = deep ? PreconditionerKind::dd : PreconditionerKind::ilu0;
  char line[200];
  std::snprintf(line, sizeof line, "auto: %s, %d + %d levels of L and U, %.0f nonzeros per level (%s %.0f)",
                deep ? "dd" : "ilu0", int(out.lower_levels), int(out.upper_levels), out.nonzeros_per_level,
                deep ? "dd below" : "ilu0 from", rule.dd_below_nonzeros_per_level);
  out.reason = line;
  return out;
}

std::array<ordinal_t, 2> count_on_host(const HostCsr& A) {
  return {count_levels_host(A, Triangle::lower), count_levels_host(A, Triangle::upper)};
}

}  // namespace

PreconditionerChoice choose_preconditioner(const HostCsr& A, const PreconditionerOptions& options,
                                           const AutoRule& rule) {
  return choose(A, options, rule, [&] { return count_on_host(A); });
}

PreconditionerChoice choose_preconditioner(const HostCsr& A, const BsrMatrix<double, DefaultDevice>& device,
                                           const PreconditionerOptions& options, const AutoRule& rule) {
  return choose(A, options, rule, [&] {
    if (device.block_size != 1 || device.num_block_rows != A.num_rows || device.nnz_blocks() != A.nnz())
      return count_on_host(A);
    return count_levels_lower_upper(CsrMatrix<double, DefaultDevice>(device.num_block_rows, device.num_block_cols,
                                                                     device.row_map, device.entries, device.values));
  });
}

}  // namespace trellis
