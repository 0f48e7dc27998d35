#pragma once
// The undirected graph the breadth-first partitioners walk: A's pattern made
// symmetric, without the diagonal, each neighbour with the class of its
// coupling strength when the partition is weighted.
#include <vector>

#include "trellis/core/csr_matrix.hpp"

namespace trellis::detail {

struct Adjacency {
  static constexpr int classes = 8;
  std::vector<offset_t> ptr;
  std::vector<ordinal_t> adj;
  std::vector<unsigned char> strength;  // empty without weights
  std::vector<offset_t> links;          // per row: off-diagonal entries of its row and column in A
  /// What the root choice compares: entries of row i and column i, a
  /// neighbour stored both ways counted twice.
  offset_t degree(ordinal_t i) const { return links[i]; }
};

/// Row i lists, in this order: the rows k < i with a_ki stored (ascending),
/// its own off-diagonal entries, then the rows k > i with a_ki stored. A
/// neighbour already listed is listed again only when its class differs
/// (weights[q], one per stored entry, against the largest weight of the
/// row's entries and column's entries: class c for a ratio in
/// [2^-(c+1), 2^-c), the last class for zero). Built by
/// symmetrized_in_parallel from four host threads on, else by
/// symmetrized_by_scatter; both give the same graph.
Adjacency symmetrized(const HostCsr& A, const std::vector<double>& weights = {});

/// The serial construction: every entry scattered into its row and its
/// column's row, then repeated neighbours merged.
Adjacency symmetrized_by_scatter(const HostCsr& A, const std::vector<double>& weights = {});

/// The parallel construction for structurally symmetric patterns with
/// sorted rows (row i's column is its row: each row is built from itself
/// and the transposed positions, found by binary search); other patterns
/// go to symmetrized_by_scatter after the first entry without a mirror.
Adjacency symmetrized_in_parallel(const HostCsr& A, const std::vector<double>& weights = {});

}  // namespace trellis::detail
