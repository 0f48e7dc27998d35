#include "trellis/partition/detail/adjacency.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <numeric>

namespace trellis::detail {
namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;
using Rows = Kokkos::RangePolicy<HostExec, Kokkos::IndexType<ordinal_t>>;
constexpr int parallel_build_threads = 4;

unsigned char strength_class(double w, double row_max) {
  const double r = row_max > 0 ? w / row_max : 1.0;
  if (!(r < 0.5)) return 0;                     // also NaN
  if (!(r > 0)) return Adjacency::classes - 1;  // zero or negative
  // r in [2^e, 2^(e+1)) is class -e - 1, e read from the bits (no loop of
  // compares: this runs twice per entry); subnormals read e = -1023.
  std::uint64_t bits;
  std::memcpy(&bits, &r, sizeof bits);
  const int e = int((bits >> 52) & 0x7ff) - 1023;
  return static_cast<unsigned char>(std::min(Adjacency::classes - 1, -e - 1));
}

/// For each stored a_ij the position of a_ji; empty unless the pattern is
/// structurally symmetric with strictly increasing columns in every row
/// (the first miss stops the search).
std::vector<offset_t> transposed_positions(const HostCsr& A) {
  const ordinal_t n = A.num_rows;
  const ordinal_t* col = A.entries.data();
  const offset_t* map = A.row_map.data();
  std::vector<offset_t> positions(A.entries.extent(0));
  offset_t* t = positions.data();
  std::atomic<bool> missed{false};
  Kokkos::parallel_for("trellis::partition::transposed_positions", Rows(0, n), [&, t](ordinal_t i) {
    if (missed.load(std::memory_order_relaxed)) return;
    for (offset_t q = map[i]; q < map[i + 1]; ++q) {
      const ordinal_t j = col[q];
      if ((q > map[i] && col[q - 1] >= j) || j < 0 || j >= n) return missed.store(true, std::memory_order_relaxed);
      const ordinal_t *first = col + map[j], *last = col + map[j + 1], *p = std::lower_bound(first, last, i);
      if (p == last || *p != i) return missed.store(true, std::memory_order_relaxed);
      t[q] = offset_t(p - col);
    }
  });
  HostExec().fence();
  if (missed) positions.clear();
  return positions;
}

/// symmetrized for a structurally symmetric pattern: row i's lists read
/// from row i alone (its column is its row), so rows are built in parallel.
Adjacency from_symmetric_pattern(const HostCsr& A, const std::vector<offset_t>& t, const std::vector<double>& w) {
  const ordinal_t n = A.num_rows;
  const bool weighted = !w.empty();
  const ordinal_t* col = A.entries.data();
  const offset_t* map = A.row_map.data();
  Adjacency g;
  g.ptr.assign(size_t(n) + 1, 0);
  g.links.resize(size_t(n));
  // Each entry's two classes (its own listing's, its transposed one's),
  // computed once: the divisions cost more than the rest. Raw pointers in
  // the loops: the byte stores would otherwise reload every vector's data.
  std::vector<unsigned char> own_classes(weighted ? A.entries.extent(0) : 0), transposed_classes(own_classes.size());
  unsigned char *own = own_classes.data(), *transposed = transposed_classes.data();
  const offset_t* tr = t.data();
  const double* wt = w.data();
  offset_t *ptr = g.ptr.data(), *links = g.links.data();
  // Visits row i's listings in symmetrized_by_scatter's order: column part
  // below the diagonal, own entries, column part above; a second listing of
  // a neighbour only when its class differs.
  auto visit = [=](ordinal_t i, auto&& emit) {
    const offset_t begin = map[i], end = map[i + 1];
    for (offset_t q = begin; q < end && col[q] < i; ++q) emit(col[q], weighted ? transposed[q] : 0);
    for (offset_t q = begin; q < end; ++q)
      if (col[q] > i || (col[q] < i && weighted && own[q] != transposed[q])) emit(col[q], weighted ? own[q] : 0);
    if (weighted)
      for (offset_t q = begin; q < end; ++q)
        if (col[q] > i && transposed[q] != own[q]) emit(col[q], transposed[q]);
  };
  Kokkos::parallel_for("trellis::partition::symmetric_sizes", Rows(0, n), [=](ordinal_t i) {
    offset_t off_diagonal = 0;
    double m = 0;
    for (offset_t q = map[i]; q < map[i + 1]; ++q)
      if (col[q] != i) {
        ++off_diagonal;
        if (weighted) m = std::max(m, wt[q]), m = std::max(m, wt[tr[q]]);
      }
    links[i] = 2 * off_diagonal;
    if (weighted)
      for (offset_t q = map[i]; q < map[i + 1]; ++q)
        own[q] = strength_class(wt[q], m), transposed[q] = strength_class(wt[tr[q]], m);
    offset_t k = 0;
    visit(i, [&](ordinal_t, unsigned char) { ++k; });
    ptr[i + 1] = k;
  });
  HostExec().fence();
  std::partial_sum(g.ptr.begin(), g.ptr.end(), g.ptr.begin());
  g.adj.resize(size_t(g.ptr[n]));
  if (weighted) g.strength.resize(size_t(g.ptr[n]));
  ordinal_t* adj = g.adj.data();
  unsigned char* strength = g.strength.data();
  Kokkos::parallel_for("trellis::partition::symmetric_fill", Rows(0, n), [=](ordinal_t i) {
    offset_t k = ptr[i];
    visit(i, [&](ordinal_t j, unsigned char c) {
      adj[k] = j;
      if (weighted) strength[k] = c;
      ++k;
    });
  });
  HostExec().fence();
  return g;
}

}  // namespace

Adjacency symmetrized_by_scatter(const HostCsr& A, const std::vector<double>& weights) {
  const ordinal_t n = A.num_rows;
  const bool weighted = !weights.empty();
  Adjacency g;
  g.ptr.assign(size_t(n) + 1, 0);
  std::vector<double> row_max(weighted ? size_t(n) : 0, 0.0);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t j = A.entries(q);
      if (j == i) continue;
      ++g.ptr[i + 1], ++g.ptr[j + 1];
      if (weighted) row_max[i] = std::max(row_max[i], weights[q]), row_max[j] = std::max(row_max[j], weights[q]);
    }
  std::partial_sum(g.ptr.begin(), g.ptr.end(), g.ptr.begin());
  g.adj.resize(g.ptr[n]);
  if (weighted) g.strength.resize(g.ptr[n]);
  std::vector<offset_t> next(g.ptr.begin(), g.ptr.end() - 1);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t j = A.entries(q);
      if (j == i) continue;
      if (weighted)
        g.strength[next[i]] = strength_class(weights[q], row_max[i]),
        g.strength[next[j]] = strength_class(weights[q], row_max[j]);
      g.adj[next[i]++] = j, g.adj[next[j]++] = i;
    }
  // A pattern stored both ways lists each neighbour twice. The second
  // listing goes unless its class differs, so that the regions meet the same
  // candidates in the same order and a search visits the same rows, over
  // about half the entries. The slot each neighbour took in this row says
  // whether it is listed already (slot >= the row's first position).
  g.links.resize(size_t(n));
  std::vector<offset_t> slot(size_t(n), -1);
  offset_t kept = 0;
  for (ordinal_t i = 0; i < n; ++i) {
    const offset_t begin = g.ptr[i], end = g.ptr[i + 1], first = kept;
    g.links[i] = end - begin;
    g.ptr[i] = first;
    for (offset_t q = begin; q < end; ++q) {
      const ordinal_t j = g.adj[q];
      const offset_t s = slot[j];
      if (s >= first && (!weighted || g.strength[s] == g.strength[q])) continue;
      slot[j] = kept;
      g.adj[kept] = j;
      if (weighted) g.strength[kept] = g.strength[q];
      ++kept;
    }
  }
  g.ptr[n] = kept;
  g.adj.resize(kept);
  if (weighted) g.strength.resize(kept);
  return g;
}

Adjacency symmetrized_in_parallel(const HostCsr& A, const std::vector<double>& weights) {
  const std::vector<offset_t> t = transposed_positions(A);
  if (t.size() != A.entries.extent(0)) return symmetrized_by_scatter(A, weights);
  return from_symmetric_pattern(A, t, weights);
}

Adjacency symmetrized(const HostCsr& A, const std::vector<double>& weights) {
  // The parallel build does about twice the serial scatter's work: it pays
  // from four host threads on (perf_tests/journal/RESULTS.md, issue 16).
  if (HostExec().concurrency() < parallel_build_threads) return symmetrized_by_scatter(A, weights);
  return symmetrized_in_parallel(A, weights);
}

}  // namespace trellis::detail
