#pragma once
// Distribution of a matrix by block rows, one contiguous range per rank: the
// layout of the Kronecker operator (seed 001, Fig. 1). Offsets has one entry
// more than there are ranks: rank r owns block rows [offsets[r], offsets[r + 1]).
#include <string>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/distributed/communicator.hpp"

namespace trellis::distributed {

/// Offsets splitting A's block rows over `ranks` so that each range holds
/// about the same number of stored blocks (the SpMV's work), never an
/// empty range while there are at least as many block rows as ranks.
std::vector<ordinal_t> block_row_offsets_by_work(const HostBsr& A, int ranks);

/// Block rows [begin, end) of A, block columns kept global (num_block_cols
/// unchanged): the rows one rank owns.
HostBsr block_row_slice(const HostBsr& A, ordinal_t begin, ordinal_t end);

/// What is wrong with this rank's part of a block-row layout ("" when
/// nothing): offsets of the wrong length, not starting at 0 or decreasing,
/// local rows other than the offsets say, block columns other than the
/// offsets cover. Also compares the offsets across the ranks (collective).
std::string block_row_layout_problem(const Communicator& comm, const std::vector<ordinal_t>& offsets,
                                     ordinal_t local_block_rows, ordinal_t block_cols);

/// The global block columns outside this rank's rows [first, first + rows)
/// that any of `local` (its rows of one or more matrices) reference,
/// ascending: the ghosts a halo exchange brings in.
std::vector<ordinal_t> ghost_block_columns(const std::vector<const HostBsr*>& local, ordinal_t first);

/// The diagonal part of a rank's rows (own columns, renumbered from 0: a
/// square matrix) and the off-diagonal part (columns numbered by their slot
/// in ghosts). The rows are local[first .. first + local.num_block_rows).
HostBsr diagonal_part(const HostBsr& local, ordinal_t first);
HostBsr off_diagonal_part(const HostBsr& local, ordinal_t first, const std::vector<ordinal_t>& ghosts);

}  // namespace trellis::distributed
