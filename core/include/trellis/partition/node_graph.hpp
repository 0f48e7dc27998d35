#pragma once
// Mesh nodes in a point matrix: g consecutive rows that share their
// neighbours, as the unknowns of one node of a vector or multi-physics
// discretization (elasticity's three displacements, three temperatures)
// stored interleaved. A partition that splits a node cuts its strongest
// couplings: on a three-temperature radiation-diffusion matrix, DD's
// BiCGSTAB iterations grew from 121 to 421 when its subdomains went from
// 2048 to 1024 rows, and stayed at 142-150 from 2048 to 510 rows with the
// nodes kept whole (perf_tests/journal/RESULTS.md). The graph partitioners then
// partition the graph of nodes and give every row its node's part.
#include <vector>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/partition/partition.hpp"

namespace trellis {

/// The node size of A's pattern: the largest g in 2..largest dividing the
/// row count whose groups of g consecutive rows share their block columns
/// (columns / g): each row touches, on average, at least min_shared of the
/// block columns its group touches. 1 when no g does. O(nnz) per candidate
/// that passes a check on the first rows.
ordinal_t detect_node_size(const HostCsr& A, ordinal_t largest = 8, double min_shared = 0.95);

/// A's graph with each node (g consecutive rows) one vertex: rows sorted,
/// the diagonal kept, and one weight per entry, the largest of the point
/// weights between the two nodes (empty without weights).
struct NodeGraph {
  ordinal_t node_size = 1;
  HostCsr graph;
  std::vector<double> weights;
};
NodeGraph node_graph(const HostCsr& A, ordinal_t node_size, const std::vector<double>& weights = {});

/// The point partition that gives every row its node's part.
Partition rows_of_nodes(const Partition& nodes, ordinal_t node_size);

}  // namespace trellis
