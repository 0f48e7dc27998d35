#include "trellis/partition/node_graph.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "trellis/core/errors.hpp"

namespace trellis {
namespace {

/// Over groups [first, last) of g rows: the block columns each row touches
/// (summed over rows), and g times those each group touches. `row_seen` and
/// `group_seen` (one slot per block column) remember the last row and group
/// that counted a column, so each entry is read once.
struct SharedColumns {
  double by_rows = 0, by_groups = 0;
};
SharedColumns shared_columns(const HostCsr& A, ordinal_t g, ordinal_t first, ordinal_t last,
                             std::vector<ordinal_t>& row_seen, std::vector<ordinal_t>& group_seen) {
  SharedColumns s;
  for (ordinal_t G = first; G < last; ++G)
    for (ordinal_t i = G * g; i < (G + 1) * g; ++i)
      for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
        const ordinal_t J = A.entries(q) / g;
        if (row_seen[J] != i) row_seen[J] = i, s.by_rows += 1;
        if (group_seen[J] != G) group_seen[J] = G, s.by_groups += g;
      }
  return s;
}

}  // namespace

ordinal_t detect_node_size(const HostCsr& A, ordinal_t largest, double min_shared) {
  const ordinal_t n = A.num_rows;
  if (n != A.num_cols || n < 2) return 1;
  for (ordinal_t g = std::min(largest, n); g >= 2; --g) {
    if (n % g != 0) continue;
    const ordinal_t groups = n / g;
    std::vector<ordinal_t> row_seen(size_t(groups), -1), group_seen(size_t(groups), -1);
    // Most candidates fail on their first groups already: check those, with
    // slack for boundary rows, before reading the whole matrix.
    const ordinal_t probe = std::min<ordinal_t>(groups, 256);
    SharedColumns s = shared_columns(A, g, 0, probe, row_seen, group_seen);
    if (s.by_groups == 0 || s.by_rows < (min_shared - 0.1) * s.by_groups) continue;
    const SharedColumns rest = shared_columns(A, g, probe, groups, row_seen, group_seen);
    s.by_rows += rest.by_rows, s.by_groups += rest.by_groups;
    if (s.by_rows >= min_shared * s.by_groups) return g;
  }
  return 1;
}

NodeGraph node_graph(const HostCsr& A, ordinal_t node_size, const std::vector<double>& weights) {
  const ordinal_t g = node_size, n = A.num_rows;
  if (n != A.num_cols)
    throw StructureError("node graph: matrix is " + std::to_string(n) + "x" + std::to_string(A.num_cols) +
                         ", not square");
  if (g < 1 || n % g != 0)
    throw InputError("node graph: " + std::to_string(g) + " rows per node do not divide the " + std::to_string(n) +
                     " rows");
  if (!weights.empty() && weights.size() != A.entries.extent(0))
    throw StructureError("node graph: " + std::to_string(weights.size()) + " weights for " +
                         std::to_string(A.entries.extent(0)) + " entries");
  const ordinal_t nodes = n / g;
  const bool weighted = !weights.empty();
  std::vector<offset_t> ptr(size_t(nodes) + 1, 0);
  std::vector<std::pair<ordinal_t, double>> row;  // one node's neighbours (node, weight)
  std::vector<ordinal_t> adj;
  std::vector<double> adj_weight;
  std::vector<ordinal_t> slot(size_t(nodes), -1);  // a neighbour's place in `row`, for this node
  std::vector<ordinal_t> owner(size_t(nodes), -1);
  adj.reserve(A.entries.extent(0) / size_t(g));
  for (ordinal_t I = 0; I < nodes; ++I) {
    row.clear();
    for (ordinal_t i = I * g; i < (I + 1) * g; ++i)
      for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
        const ordinal_t J = A.entries(q) / g;
        const double w = weighted ? weights[size_t(q)] : 0.0;
        if (owner[J] != I) {
          owner[J] = I, slot[J] = ordinal_t(row.size());
          row.emplace_back(J, w);
        } else {
          row[size_t(slot[J])].second = std::max(row[size_t(slot[J])].second, w);
        }
      }
    std::sort(row.begin(), row.end());
    for (const auto& [J, w] : row) adj.push_back(J), adj_weight.push_back(w);
    ptr[size_t(I) + 1] = offset_t(adj.size());
  }
  NodeGraph out;
  out.node_size = g;
  HostCsr::row_map_type::non_const_type row_map(Kokkos::ViewAllocateWithoutInitializing("trellis::node_graph::ptr"),
                                                ptr.size());
  HostCsr::index_type entries(Kokkos::ViewAllocateWithoutInitializing("trellis::node_graph::adj"), adj.size());
  HostCsr::values_type ones(Kokkos::ViewAllocateWithoutInitializing("trellis::node_graph::ones"), adj.size());
  std::copy(ptr.begin(), ptr.end(), row_map.data());
  std::copy(adj.begin(), adj.end(), entries.data());
  std::fill(ones.data(), ones.data() + ones.extent(0), 1.0);  // the partitioners read the pattern alone
  out.graph = HostCsr(nodes, nodes, row_map, entries, ones);
  if (weighted) out.weights = std::move(adj_weight);
  return out;
}

Partition rows_of_nodes(const Partition& nodes, ordinal_t node_size) {
  Partition p;
  p.num_parts = nodes.num_parts;
  p.part.resize(nodes.part.size() * size_t(node_size));
  for (size_t i = 0; i < p.part.size(); ++i) p.part[i] = nodes.part[i / size_t(node_size)];
  return p;
}

}  // namespace trellis
