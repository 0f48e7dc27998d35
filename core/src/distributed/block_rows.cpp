#include "trellis/distributed/block_rows.hpp"

#include <algorithm>
#include <string>

#include "trellis/core/errors.hpp"
#include "trellis/distributed/agreement.hpp"

namespace trellis::distributed {

std::vector<ordinal_t> block_row_offsets_by_work(const HostBsr& A, int ranks) {
  if (ranks < 1) throw InputError("block_row_offsets_by_work: " + std::to_string(ranks) + " ranks");
  const ordinal_t n = A.num_block_rows;
  const double total = double(A.nnz_blocks());
  std::vector<ordinal_t> offsets(size_t(ranks) + 1, n);
  offsets[0] = 0;
  ordinal_t row = 0;
  for (int r = 1; r < ranks; ++r) {
    const double target = total * r / ranks;
    while (row < n && double(A.row_map(row)) < target) ++row;
    // at least one row per earlier rank, and enough rows left for the later ones
    const ordinal_t lo = offsets[size_t(r) - 1] + (n >= ranks ? 1 : 0);
    const ordinal_t hi = n >= ranks ? n - (ranks - r) : n;
    offsets[size_t(r)] = std::min(std::max(row, lo), hi);
    row = offsets[size_t(r)];
  }
  return offsets;
}

HostBsr block_row_slice(const HostBsr& A, ordinal_t begin, ordinal_t end) {
  if (begin < 0 || end < begin || end > A.num_block_rows)
    throw InputError("block_row_slice: rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") outside a matrix of " + std::to_string(A.num_block_rows) + " block rows");
  const int b2 = A.block_size * A.block_size;
  const offset_t first = A.row_map(begin), last = A.row_map(end);
  Kokkos::View<offset_t*, HostDevice> rm("trellis::row_map", size_t(end - begin) + 1);
  HostBsr::index_type ent("trellis::entries", size_t(last - first));
  HostBsr::values_type val("trellis::values", size_t(last - first) * b2);
  for (ordinal_t i = begin; i <= end; ++i) rm(size_t(i - begin)) = A.row_map(i) - first;
  for (offset_t q = first; q < last; ++q) ent(size_t(q - first)) = A.entries(q);
  for (size_t v = 0; v < val.extent(0); ++v) val(v) = A.values(size_t(first) * b2 + v);
  return HostBsr(A.block_size, end - begin, A.num_block_cols, rm, ent, val);
}

std::string block_row_layout_problem(const Communicator& comm, const std::vector<ordinal_t>& offsets,
                                     ordinal_t local_block_rows, ordinal_t block_cols) {
  unsigned long long h = 1469598103934665603ULL;  // FNV-1a over the offsets: the ranks must agree
  for (const ordinal_t x : offsets) h = (h ^ (unsigned long long)(x)) * 1099511628211ULL;
  const std::string disagree = disagreement(comm, "the block-row offsets", (long long)(h >> 1));
  const int P = comm.size(), me = comm.rank();
  if (offsets.size() != size_t(P) + 1)
    return std::to_string(offsets.size()) + " block-row offsets for " + std::to_string(P) + " ranks (need " +
           std::to_string(P + 1) + ")";
  if (offsets.front() != 0) return "block-row offsets do not start at 0";
  for (int r = 0; r < P; ++r)
    if (offsets[size_t(r) + 1] < offsets[size_t(r)]) return "block-row offsets decrease at rank " + std::to_string(r);
  const ordinal_t mine = offsets[size_t(me) + 1] - offsets[size_t(me)];
  if (local_block_rows != mine)
    return "this rank holds " + std::to_string(local_block_rows) + " block rows, its offsets say " +
           std::to_string(mine);
  if (block_cols != offsets.back())
    return "the matrix has " + std::to_string(block_cols) + " block columns, the offsets cover " +
           std::to_string(offsets.back()) + " block rows";
  return disagree;
}

std::vector<ordinal_t> ghost_block_columns(const std::vector<const HostBsr*>& local, ordinal_t first) {
  std::vector<ordinal_t> g;
  for (const HostBsr* X : local)
    for (offset_t k = 0; k < X->nnz_blocks(); ++k) {
      const ordinal_t c = X->entries(k);
      if (c < first || c >= first + X->num_block_rows) g.push_back(c);
    }
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

namespace {
/// The blocks of X whose column is own (diagonal) or not, renumbered.
HostBsr part(const HostBsr& X, ordinal_t first, const std::vector<ordinal_t>* ghosts) {
  const int b2 = X.block_size * X.block_size;
  const ordinal_t n = X.num_block_rows;
  const bool diagonal = ghosts == nullptr;
  std::vector<offset_t> rm(size_t(n) + 1, 0);
  std::vector<ordinal_t> ent;
  std::vector<double> val;
  for (ordinal_t i = 0; i < n; ++i) {
    for (offset_t k = X.row_map(i); k < X.row_map(i + 1); ++k) {
      const ordinal_t c = X.entries(k);
      const bool own = c >= first && c < first + n;
      if (own != diagonal) continue;
      ent.push_back(own ? c - first : ordinal_t(std::lower_bound(ghosts->begin(), ghosts->end(), c) - ghosts->begin()));
      for (int v = 0; v < b2; ++v) val.push_back(X.values(size_t(k) * b2 + v));
    }
    rm[size_t(i) + 1] = offset_t(ent.size());
  }
  Kokkos::View<offset_t*, HostDevice> r("trellis::row_map", rm.size());
  HostBsr::index_type en("trellis::entries", ent.size());
  HostBsr::values_type va("trellis::values", val.size());
  std::copy(rm.begin(), rm.end(), r.data());
  std::copy(ent.begin(), ent.end(), en.data());
  std::copy(val.begin(), val.end(), va.data());
  return HostBsr(X.block_size, n, diagonal ? n : ordinal_t(ghosts->size()), r, en, va);
}
}  // namespace

HostBsr diagonal_part(const HostBsr& local, ordinal_t first) { return part(local, first, nullptr); }

HostBsr off_diagonal_part(const HostBsr& local, ordinal_t first, const std::vector<ordinal_t>& ghosts) {
  return part(local, first, &ghosts);
}

}  // namespace trellis::distributed
