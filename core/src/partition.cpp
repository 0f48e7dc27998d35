#include "trellis/partition/partition.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "trellis/config.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/partition/detail/adjacency.hpp"
#if TRELLIS_ENABLE_METIS
#include <metis.h>
#endif

namespace trellis {

ordinal_t Partition::largest_part() const {
  std::vector<ordinal_t> size(num_parts, 0);
  for (ordinal_t p : part) ++size[p];
  return size.empty() ? 0 : *std::max_element(size.begin(), size.end());
}

namespace {
using HostRows = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<ordinal_t>>;

void require_positive(ordinal_t v, const std::string& what) {
  if (v < 1) throw InputError(what + " must be positive, got " + std::to_string(v));
}
ordinal_t ceil_div(ordinal_t a, ordinal_t b) { return (a + b - 1) / b; }
}  // namespace

Partition geometric_partition(GridDims grid, GridDims box) {
  for (int d = 0; d < 3; ++d) {
    require_positive(grid[d], "geometric partition: grid dimension " + std::to_string(d));
    require_positive(box[d], "geometric partition: box dimension " + std::to_string(d));
  }
  const ordinal_t bx = ceil_div(grid[0], box[0]), by = ceil_div(grid[1], box[1]);
  const ordinal_t bz = ceil_div(grid[2], box[2]);
  Partition p;
  p.num_parts = bx * by * bz;
  p.part.resize(size_t(grid[0]) * grid[1] * grid[2]);
  for (ordinal_t k = 0; k < grid[2]; ++k)
    for (ordinal_t j = 0; j < grid[1]; ++j)
      for (ordinal_t i = 0; i < grid[0]; ++i)
        p.part[i + size_t(grid[0]) * (j + size_t(grid[1]) * k)] = i / box[0] + bx * (j / box[1] + by * (k / box[2]));
  return p;
}

GridDims geometric_box(GridDims grid, ordinal_t max_rows) {
  require_positive(max_rows, "geometric partition: rows per subdomain");
  // Boxes whose sides divide the grid give subdomains of one size. Among
  // them: the most rows that fit, then the smallest surface (fewest entries
  // dropped between subdomains).
  auto divisors = [](ordinal_t n) {
    std::vector<ordinal_t> d;
    for (ordinal_t k = 1; k <= n; ++k)
      if (n % k == 0) d.push_back(k);
    return d;
  };
  GridDims best{1, 1, 1};
  long long best_rows = 1, best_surface = 3;
  for (ordinal_t bx : divisors(grid[0]))
    for (ordinal_t by : divisors(grid[1]))
      for (ordinal_t bz : divisors(grid[2])) {
        const long long rows = 1LL * bx * by * bz;
        if (rows > max_rows) continue;
        const long long surface = 1LL * bx * by + 1LL * by * bz + 1LL * bx * bz;
        if (rows > best_rows || (rows == best_rows && surface < best_surface))
          best = {bx, by, bz}, best_rows = rows, best_surface = surface;
      }
  if (2 * best_rows >= max_rows) return best;
  // Awkward sides (primes): grow the smallest side of a near-cube one at a
  // time instead; the boxes at the far faces are then smaller.
  GridDims cube{1, 1, 1};
  for (bool grown = true; grown;) {
    grown = false;
    int d = -1;
    for (int k = 0; k < 3; ++k)
      if (cube[k] < grid[k] && (d < 0 || cube[k] < cube[d])) d = k;
    if (d >= 0 && 1LL * (cube[0] + (d == 0)) * (cube[1] + (d == 1)) * (cube[2] + (d == 2)) <= max_rows)
      ++cube[d], grown = true;
  }
  return 1LL * cube[0] * cube[1] * cube[2] > 2 * best_rows ? cube : best;
}

Partition contiguous_partition(ordinal_t num_rows, ordinal_t rows_per_part) {
  require_positive(rows_per_part, "contiguous partition: rows per subdomain");
  Partition p;
  p.num_parts = ceil_div(std::max<ordinal_t>(num_rows, 1), rows_per_part);
  p.part.resize(num_rows);
  for (ordinal_t i = 0; i < num_rows; ++i) p.part[i] = i / rows_per_part;
  return p;
}

namespace {

using detail::Adjacency;
using detail::symmetrized;

/// Breadth-first search from root over rows not yet marked with `stamp`;
/// marks them, appends them to `order` in visiting order and returns the
/// position in `order` where the last level begins.
size_t breadth_first(const Adjacency& g, ordinal_t root, int stamp, std::vector<int>& mark,
                     std::vector<ordinal_t>& order) {
  size_t head = order.size(), last_level = head;
  order.push_back(root);
  mark[root] = stamp;
  while (head < order.size()) {
    last_level = head;
    for (const size_t level_end = order.size(); head < level_end; ++head) {
      const ordinal_t i = order[head];
      for (offset_t q = g.ptr[i]; q < g.ptr[i + 1]; ++q)
        if (mark[g.adj[q]] != stamp) mark[g.adj[q]] = stamp, order.push_back(g.adj[q]);
    }
  }
  return last_level;
}

/// Every row in breadth-first order from a pseudo-peripheral row (two
/// George-Liu sweeps; each connected component in turn).
std::vector<ordinal_t> peripheral_order(const Adjacency& g) {
  const ordinal_t n = ordinal_t(g.ptr.size()) - 1;
  std::vector<int> mark(n, 0);  // 0: unplaced; sweeps use stamps 1, 2, ...; placed rows -1
  std::vector<ordinal_t> order, sweep;
  order.reserve(n);
  int stamp = 0;
  for (ordinal_t start = 0; start < n; ++start) {
    if (mark[start] < 0) continue;
    // Pseudo-peripheral root: twice, restart from a row of least degree in
    // the last level of the previous search.
    ordinal_t root = start;
    for (int s = 0; s < 2; ++s) {
      sweep.clear();
      const size_t last = breadth_first(g, root, ++stamp, mark, sweep);
      root = sweep[last];
      for (size_t t = last; t < sweep.size(); ++t)
        if (g.degree(sweep[t]) < g.degree(root)) root = sweep[t];
    }
    breadth_first(g, root, -1, mark, order);
  }
  return order;
}

/// The number of parts, and the checks the graph partitioners share.
ordinal_t graph_parts(const HostCsr& A, ordinal_t rows_per_part, const std::vector<double>& edge_weights,
                      const std::string& who) {
  require_positive(rows_per_part, who + " partition: rows per subdomain");
  if (!A.is_square()) throw StructureError(who + " partition: matrix is not square");
  if (!edge_weights.empty() && edge_weights.size() != A.entries.extent(0))
    throw StructureError(who + " partition: " + std::to_string(edge_weights.size()) + " edge weights for " +
                         std::to_string(A.entries.extent(0)) + " entries");
  return ceil_div(std::max<ordinal_t>(A.num_rows, 1), rows_per_part);
}

/// Slabs: `order` cut into consecutive chunks.
Partition slabs_of(const std::vector<ordinal_t>& order, ordinal_t num_parts, ordinal_t rows_per_part) {
  Partition p;
  p.num_parts = num_parts;
  p.part.resize(order.size());
  for (size_t pos = 0; pos < order.size(); ++pos) p.part[order[pos]] = ordinal_t(pos / size_t(rows_per_part));
  return p;
}

/// Regions grown through g, seeded from `order` (region_partition).
Partition regions_of(const Adjacency& g, const std::vector<ordinal_t>& order, ordinal_t num_parts,
                     ordinal_t rows_per_part) {
  const ordinal_t n = ordinal_t(order.size());
  Partition p;
  p.num_parts = num_parts;
  p.part.assign(n, -1);
  // A region takes its next row from its strongest class of candidates
  // (first come, first served inside a class): strong couplings end up
  // inside regions. Each row's neighbours are read once, by the region that
  // takes it, so the candidates number at most nnz: O(nnz) in all.
  std::vector<ordinal_t> candidates[Adjacency::classes];
  size_t seed = 0;  // rows before it in `order` are placed
  for (ordinal_t r = 0, placed = 0; r < num_parts; ++r) {
    const ordinal_t want = std::min(rows_per_part, n - placed);
    size_t head[Adjacency::classes] = {};
    for (auto& c : candidates) c.clear();
    for (ordinal_t size = 0; size < want; ++size) {
      ordinal_t i = -1;
      for (int c = 0; c < Adjacency::classes && i < 0; ++c)
        while (i < 0 && head[c] < candidates[c].size())
          if (p.part[candidates[c][head[c]]] < 0)
            i = candidates[c][head[c]];
          else
            ++head[c];
      if (i < 0) {  // none yet, or run dry: the next unplaced row of the sweep
        while (p.part[order[seed]] >= 0) ++seed;
        i = order[seed];
      }
      p.part[i] = r;
      for (offset_t q = g.ptr[i]; q < g.ptr[i + 1]; ++q)
        if (p.part[g.adj[q]] < 0) candidates[g.strength.empty() ? 0 : g.strength[size_t(q)]].push_back(g.adj[q]);
    }
    placed += want;
  }
  return p;
}

}  // namespace

Partition slab_partition(const HostCsr& A, ordinal_t rows_per_part) {
  const ordinal_t parts = graph_parts(A, rows_per_part, {}, "slab");
  if (parts == 1) return contiguous_partition(A.num_rows, rows_per_part);
  return slabs_of(peripheral_order(symmetrized(A)), parts, rows_per_part);
}

Partition region_partition(const HostCsr& A, ordinal_t rows_per_part, const std::vector<double>& edge_weights) {
  const ordinal_t parts = graph_parts(A, rows_per_part, edge_weights, "region");
  if (parts == 1) return contiguous_partition(A.num_rows, rows_per_part);
  const Adjacency g = symmetrized(A, edge_weights);
  return regions_of(g, peripheral_order(g), parts, rows_per_part);
}

double dropped_weight(const HostCsr& A, const Partition& p, const std::vector<double>& edge_weights) {
  // Row sums in parallel, added in row order: the same sum on any thread count.
  std::vector<double> row_dropped(size_t(A.num_rows), 0.0);
  Kokkos::parallel_for("trellis::partition::dropped_weight", HostRows(0, A.num_rows), [&](ordinal_t i) {
    double d = 0;
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)
      if (p.part[i] != p.part[A.entries(q)]) d += edge_weights.empty() ? 1.0 : edge_weights[q];
    row_dropped[i] = d;
  });
  Kokkos::DefaultHostExecutionSpace().fence();
  return std::accumulate(row_dropped.begin(), row_dropped.end(), 0.0);
}

AutomaticPartition slabs_or_regions(const HostCsr& A, ordinal_t rows_per_part,
                                    const std::vector<double>& edge_weights) {
  const ordinal_t parts = graph_parts(A, rows_per_part, edge_weights, "automatic");
  AutomaticPartition out;
  if (parts == 1) {
    out.partition = contiguous_partition(A.num_rows, rows_per_part);
    return out;
  }
  const Adjacency g = symmetrized(A, edge_weights);
  const std::vector<ordinal_t> order = peripheral_order(g);
  Partition slabs = slabs_of(order, parts, rows_per_part), regions = regions_of(g, order, parts, rows_per_part);
  out.slabs_dropped = dropped_weight(A, slabs, edge_weights);
  out.regions_dropped = dropped_weight(A, regions, edge_weights);
  out.chose_regions = out.slabs_dropped > AutomaticPartition::slabs_drop_max * out.regions_dropped;
  out.partition = std::move(out.chose_regions ? regions : slabs);
  return out;
}

bool have_metis() { return TRELLIS_ENABLE_METIS != 0; }

Partition metis_partition(const HostCsr& A, ordinal_t rows_per_part, const std::vector<double>& edge_weights) {
  const ordinal_t k = graph_parts(A, rows_per_part, edge_weights, "METIS");
  const bool weighted = !edge_weights.empty();
  const ordinal_t n = A.num_rows;
  std::vector<ordinal_t> metis_part(n, 0);
  if (k > 1) {
#if TRELLIS_ENABLE_METIS
    // Symmetrized adjacency without self loops: METIS wants an undirected
    // graph; an edge stored both ways keeps the larger weight. Built in flat
    // arrays in O(nnz) (a sorted vector per row cost more than METIS itself
    // on the FEM matrices).
    std::vector<idx_t> start(size_t(n) + 1, 0);
    for (ordinal_t i = 0; i < n; ++i)
      for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)
        if (A.entries(q) != i) ++start[i + 1], ++start[A.entries(q) + 1];
    for (ordinal_t i = 0; i < n; ++i) start[i + 1] += start[i];
    std::vector<std::pair<idx_t, idx_t>> edges(static_cast<size_t>(start[n]));  // (neighbour, weight)
    std::vector<idx_t> fill(start.begin(), start.end() - 1);
    for (ordinal_t i = 0; i < n; ++i)
      for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
        const ordinal_t j = A.entries(q);
        const idx_t w = weighted ? idx_t(1 + std::lround(1000 * std::min(edge_weights[q], 1.0))) : 1;
        if (j != i) edges[size_t(fill[i]++)] = {j, w}, edges[size_t(fill[j]++)] = {idx_t(i), w};
      }
    // Duplicates merged through the slot each neighbour took in this row
    // (slot >= the row's first position), in one pass: no sort.
    std::vector<idx_t> xadj(1, 0), adjncy, adjwgt, slot(size_t(n), -1);
    adjncy.reserve(edges.size()), adjwgt.reserve(edges.size());
    for (ordinal_t i = 0; i < n; ++i) {
      const idx_t row_first = idx_t(adjncy.size());
      for (idx_t e = start[i]; e < start[i + 1]; ++e) {
        const auto [j, w] = edges[size_t(e)];
        if (slot[size_t(j)] >= row_first) {
          adjwgt[size_t(slot[size_t(j)])] = std::max(adjwgt[size_t(slot[size_t(j)])], w);
        } else {
          slot[size_t(j)] = idx_t(adjncy.size());
          adjncy.push_back(j), adjwgt.push_back(w);
        }
      }
      xadj.push_back(idx_t(adjncy.size()));
    }
    idx_t nv = n, ncon = 1, nparts = k, objval = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;  // the same partition every run
    std::vector<idx_t> part(n);
    const int rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr,
                                       weighted ? adjwgt.data() : nullptr, &nparts, nullptr, nullptr, options, &objval,
                                       part.data());
    if (rc != METIS_OK) throw Error("METIS_PartGraphKway failed with status " + std::to_string(rc));
    std::copy(part.begin(), part.end(), metis_part.begin());
#else
    throw InputError("METIS partition requested but this Trellis build has no METIS");
#endif
  }
  // Rebalance: rows in METIS-part order, cut into equal consecutive chunks.
  std::vector<ordinal_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](ordinal_t a, ordinal_t b) { return metis_part[a] < metis_part[b]; });
  Partition p;
  p.num_parts = k;
  p.part.resize(n);
  for (ordinal_t pos = 0; pos < n; ++pos) p.part[order[pos]] = pos / rows_per_part;
  return p;
}

std::vector<double> coupling_strengths(const HostBsr& A) {
  const int b = A.block_size;
  const size_t bb = size_t(b) * b;
  auto norm = [&](offset_t q) {
    double m = 0;
    for (size_t t = 0; t < bb; ++t) m = std::max(m, std::abs(A.values(q * bb + t)));
    return m;
  };
  std::vector<double> diag(A.num_block_rows, 0.0), w(A.entries.extent(0), 0.0);
  Kokkos::parallel_for("trellis::partition::diagonal_norms", HostRows(0, A.num_block_rows), [&](ordinal_t i) {
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q)
      if (A.entries(q) == i) diag[i] = norm(q);
  });
  Kokkos::DefaultHostExecutionSpace().fence();
  Kokkos::parallel_for("trellis::partition::coupling_strengths", HostRows(0, A.num_block_rows), [&](ordinal_t i) {
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t j = A.entries(q);
      const double d = j < A.num_block_rows ? std::sqrt(diag[i] * diag[j]) : 0.0;
      w[q] = j != i && d > 0 ? norm(q) / d : 0.0;
    }
  });
  Kokkos::DefaultHostExecutionSpace().fence();
  return w;
}

}  // namespace trellis
