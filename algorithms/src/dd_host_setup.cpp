#include <algorithm>
#include <chrono>
#include <sstream>

#include "trellis/core/errors.hpp"
#include "trellis/dd/detail/host_setup.hpp"

namespace trellis {

std::string DdReport::describe() const {
  std::ostringstream o;
  o << "partition: " << partitioner << ", " << subdomains << " subdomains of " << smallest_subdomain
    << ".." << largest_subdomain << " block rows (b=" << block_size << "; " << rows_that_fit
    << " fit in " << scratch_bytes_max << " B of team scratch)\n"
    << "dropped: " << blocks_dropped << " of " << blocks << " blocks (" << 100.0 * dropped_fraction()
    << "%); levels per subdomain: lower " << lower_levels_max << ", upper " << upper_levels_max << "\n"
    << "setup s: partition " << seconds_partition << ", reorder " << seconds_reorder << ", analysis "
    << seconds_analysis << ", factorization " << seconds_factorization;
  if (boosted_pivots) o << "\nboosted pivots: " << boosted_pivots;
  if (!note.empty()) o << "\nnote: " << note;
  return o.str();
}

namespace dd::detail {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

HostCsr block_pattern(const HostBsr& A) {
  HostCsr::values_type ones("pattern_values", A.nnz_blocks());
  Kokkos::deep_copy(ones, 1.0);
  return HostCsr(A.num_block_rows, A.num_block_cols, A.row_map, A.entries, ones);
}

Partition choose_partition(const HostBsr& A, const DdOptions& opt, ordinal_t rows, DdReport& report) {
  Partitioner p = opt.partitioner;
  const bool has_grid = opt.grid[0] > 0;
  if (p == Partitioner::automatic)
    p = has_grid ? Partitioner::geometric : have_metis() ? Partitioner::metis : Partitioner::contiguous;
  report.partitioner = to_string(p);
  switch (p) {
    case Partitioner::geometric: {
      if (!has_grid) throw InputError("geometric partition needs the grid dimensions (DdOptions::grid)");
      const long long points = 1LL * opt.grid[0] * opt.grid[1] * opt.grid[2];
      if (points != A.num_block_rows)
        throw InputError("geometric partition: grid " + std::to_string(opt.grid[0]) + "x" +
                         std::to_string(opt.grid[1]) + "x" + std::to_string(opt.grid[2]) + " has " +
                         std::to_string(points) + " points, the matrix " +
                         std::to_string(A.num_block_rows) + " block rows");
      GridDims box = opt.box;
      if (box[0] > 0 && 1LL * box[0] * box[1] * box[2] > rows) {
        report.note += "box " + std::to_string(box[0]) + "x" + std::to_string(box[1]) + "x" +
                       std::to_string(box[2]) + " exceeds " + std::to_string(rows) +
                       " rows per subdomain; using the most cubic box that fits. ";
        box = {0, 0, 0};
      }
      if (box[0] <= 0) box = geometric_box(opt.grid, rows);
      report.partitioner += " box " + std::to_string(box[0]) + "x" + std::to_string(box[1]) + "x" +
                            std::to_string(box[2]);
      return geometric_partition(opt.grid, box);
    }
    case Partitioner::metis: return metis_partition(block_pattern(A), rows);
    default: return contiguous_partition(A.num_block_rows, rows);
  }
}

/// The strict lower / diagonal / strict upper blocks of the block-diagonal
/// matrix. A missing diagonal block is an error naming its original row.
void split(const HostBsr& D, const std::vector<ordinal_t>& new_to_old, HostSetup& s) {
  const int b = D.block_size;
  const size_t bb = size_t(b) * b;
  s.diag.assign(size_t(D.num_block_rows) * bb, 0.0);
  for (ordinal_t i = 0; i < D.num_block_rows; ++i) {
    bool has_diag = false;
    for (offset_t q = D.row_map(i); q < D.row_map(i + 1); ++q) {
      const ordinal_t j = D.entries(q);
      const double* blk = &D.values(q * bb);
      if (j == i) {
        std::copy_n(blk, bb, &s.diag[i * bb]);
        has_diag = true;
        continue;
      }
      HostTriangle& t = j < i ? s.lower : s.upper;
      t.col.push_back(j);
      t.val.insert(t.val.end(), blk, blk + bb);
    }
    if (!has_diag)
      throw StructureError("ILU0: block row " + std::to_string(new_to_old[i]) +
                           " has no diagonal block");
    s.lower.map.push_back(offset_t(s.lower.col.size()));
    s.upper.map.push_back(offset_t(s.upper.col.size()));
  }
}

}  // namespace

HostSetup prepare_subdomains(const HostBsr& A, const DdOptions& opt, ordinal_t rows_that_fit,
                             DdReport& report) {
  if (A.num_block_rows != A.num_block_cols)
    throw StructureError("domain-decomposition ILU0: matrix is not square");
  if (A.num_block_rows < 1) throw StructureError("domain-decomposition ILU0: empty matrix");
  ordinal_t rows = opt.subdomain_rows > 0 ? opt.subdomain_rows : std::min<ordinal_t>(rows_that_fit, 2048);
  if (rows > rows_that_fit) {
    report.note += "requested " + std::to_string(rows) + " block rows per subdomain do not fit in team "
                   "scratch; using " + std::to_string(rows_that_fit) + ". ";
    rows = rows_that_fit;
  }
  auto t0 = std::chrono::steady_clock::now();
  HostSetup s;
  s.layout = group_rows_by_part(choose_partition(A, opt, rows, report));
  report.seconds_partition = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  s.reordered = reorder_bsr(A, s.layout.new_to_old);
  offset_t dropped = 0;
  const HostBsr block_diagonal = drop_between_subdomains(s.reordered, s.layout, dropped);
  split(block_diagonal, s.layout.new_to_old, s);
  report.seconds_reorder = seconds_since(t0);

  report.block_size = A.block_size;
  report.block_rows = A.num_block_rows;
  report.subdomains = s.layout.num_subdomains();
  report.largest_subdomain = s.layout.largest_subdomain();
  report.smallest_subdomain = report.largest_subdomain;
  for (ordinal_t t = 0; t < report.subdomains; ++t)
    report.smallest_subdomain =
        std::min(report.smallest_subdomain, s.layout.sub_start[t + 1] - s.layout.sub_start[t]);
  report.blocks = A.nnz_blocks();
  report.blocks_dropped = dropped;
  return s;
}

}  // namespace dd::detail
}  // namespace trellis
