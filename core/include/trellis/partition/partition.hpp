#pragma once
// Partitions of a matrix's (block) rows into subdomains (seed 000, section 3):
// geometric cuts of a Cartesian grid (Algorithm 3.1), METIS k-way on the
// matrix graph, or contiguous chunks of the given order. Every partitioner
// returns subdomains of at most max_rows rows, the limit the team scratch of
// the subdomain solves sets.
#include <array>
#include <string>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/name_table.hpp"

namespace trellis {

struct Partition {
  ordinal_t num_parts = 0;
  std::vector<ordinal_t> part;  // part of each row, in [0, num_parts)
  ordinal_t largest_part() const;
};

using GridDims = std::array<ordinal_t, 3>;  // nx, ny, nz (x fastest)

/// Algorithm 3.1: row i + nx (j + ny k) of an nx x ny x nz grid goes to the
/// box (i / bx, j / by, k / bz). Boxes at the far faces are smaller when the
/// box does not divide the grid.
Partition geometric_partition(GridDims grid, GridDims box);

/// The box for a grid when the caller gives none: sides that divide the grid
/// (subdomains of one size), as many points as fit in max_rows, and among
/// those the most cubic (smallest surface, fewest dropped entries).
GridDims geometric_box(GridDims grid, ordinal_t max_rows);

/// METIS k-way partition of the symmetrized graph of A's pattern, k =
/// ceil(n / rows_per_part), then rebalanced to uniform sizes: rows ordered by
/// METIS part (original order inside a part) and cut into consecutive chunks
/// of rows_per_part, so every subdomain but the last has exactly that many
/// rows. edge_weights (one per stored entry of A, or empty for none) weight
/// the graph's edges, symmetrized by the larger of (i, j) and (j, i) and
/// mapped to METIS's integers as 1 + round(1000 min(w, 1)): a cut prefers
/// weak couplings. Throws InputError when Trellis was built without METIS.
Partition metis_partition(const HostCsr& A, ordinal_t rows_per_part, const std::vector<double>& edge_weights = {});

/// The coupling strength of each stored block of A: ||A_ij|| / sqrt(||A_ii||
/// ||A_jj||) with max-abs block norms (0 on the diagonal, and where a
/// diagonal block is missing or zero).
std::vector<double> coupling_strengths(const HostBsr& A);

/// Consecutive chunks of rows_per_part rows in the given order.
Partition contiguous_partition(ordinal_t num_rows, ordinal_t rows_per_part);

/// Slabs of a breadth-first level structure: the rows in breadth-first order
/// from a pseudo-peripheral row (two George-Liu sweeps; each connected
/// component in turn) of the symmetrized pattern, cut into consecutive chunks
/// of rows_per_part. A slab touches only its neighbours in that order, so for
/// a few parts the cut is that of parallel planes: close to METIS's on mesh
/// graphs, for the cost of three searches (no METIS library call).
Partition slab_partition(const HostCsr& A, ordinal_t rows_per_part);

/// Regions grown breadth-first, rows_per_part rows each: a region starts at
/// the first unplaced row of the slab order above and takes unplaced
/// neighbours in breadth-first order until full (from the next unplaced row
/// of that order where its search runs dry). With edge_weights (one per
/// stored entry, as METIS's) a region takes its strongest couplings first:
/// neighbours in eight classes, by powers of two of their weight against
/// the row's largest (eight measured fewer iterations than four).
/// Compact parts, as METIS's are, on mesh graphs, in O(nnz): the slab order
/// and one more search.
Partition region_partition(const HostCsr& A, ordinal_t rows_per_part, const std::vector<double>& edge_weights = {});

/// The weight of A's entries (edge_weights, or 1 each when empty) between
/// rows in different parts.
double dropped_weight(const HostCsr& A, const Partition& p, const std::vector<double>& edge_weights = {});

/// The domain decomposition's partition when no grid is given: slabs unless
/// they drop more than slabs_drop_max times the coupling weight (entries,
/// without weights) regions drop, else regions. Why both: slabs keep the
/// levels inside a part few (BentPipe2D100: 64 against regions' 159; the
/// subdomain solves walk them one by one), regions the strong couplings
/// inside (pegase bprime: 3.8% dropped against slabs' 11%, 446 BiCGSTAB
/// iterations against 1389). 1.5 is read from the 14 real matrices
/// (perf_tests/journal/RESULTS.md). Both come from one graph and one order.
struct AutomaticPartition {
  static constexpr double slabs_drop_max = 1.5;
  Partition partition;
  bool chose_regions = false;
  double slabs_dropped = 0, regions_dropped = 0;  // 0 when there is one part
};
AutomaticPartition slabs_or_regions(const HostCsr& A, ordinal_t rows_per_part,
                                    const std::vector<double>& edge_weights = {});

/// True when this build has METIS.
bool have_metis();

}  // namespace trellis

namespace trellis {

/// How the domain-decomposition preconditioner partitions. automatic:
/// geometric cuts when the grid is known, else slabs_or_regions (METIS only
/// when asked: on the 14 real matrices, H200, `auto` with METIS for every DD
/// was 1.89x / 1.22x cuSPARSE setup excluded / included against 2.23x /
/// 1.53x with slabs_or_regions, whose partitions cost less: rhd3t 0.131 ->
/// 0.046 s, gnutella 0.35 -> 0.023 s; perf_tests/journal/RESULTS.md).
enum class Partitioner { automatic, geometric, metis, contiguous, slabs, regions };

template <>
struct NameTable<Partitioner> {
  static constexpr const char* what = "partitioner";
  static constexpr NameEntry<Partitioner> entries[] = {
      {Partitioner::automatic, "auto"},        {Partitioner::geometric, "geometric"}, {Partitioner::metis, "metis"},
      {Partitioner::contiguous, "contiguous"}, {Partitioner::slabs, "slabs"},         {Partitioner::regions, "regions"},
  };
};

}  // namespace trellis
