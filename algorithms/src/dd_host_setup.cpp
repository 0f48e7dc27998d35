#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "trellis/core/errors.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/dd/detail/host_setup.hpp"
#include "trellis/partition/node_graph.hpp"

namespace trellis {

std::string DdReport::describe() const {
  std::ostringstream o;
  o << "partition: " << partitioner << ", " << subdomains << " subdomains of " << smallest_subdomain << ".."
    << largest_subdomain << " block rows (b=" << block_size << "; asked " << subdomain_rows;
  if (subdomains_wanted > 0) o << ", automatic: at least " << subdomains_wanted << " subdomains";
  o << "; " << rows_that_fit << " fit in " << scratch_bytes_max << " B of team scratch)\n"
    << "dropped: " << blocks_dropped << " of " << blocks << " blocks (" << 100.0 * dropped_fraction()
    << "%); levels per subdomain: lower " << lower_levels_max << ", upper " << upper_levels_max << "\n"
    << "setup s: partition " << seconds_partition << ", reorder " << seconds_reorder << ", analysis "
    << seconds_analysis << ", factorization " << seconds_factorization;
  if (dropped_coupling >= 0) o << "\ncoupling weight dropped: " << 100.0 * dropped_coupling << "%";
  if (boosted_pivots) o << "\nboosted pivots: " << boosted_pivots;
  if (!note.empty()) o << "\nnote: " << note;
  return o.str();
}

namespace dd::detail {
namespace {

HostCsr block_graph(const BlockPattern& A) {
  if (A.row_map.extent(0) != size_t(A.rows) + 1)
    throw Error("domain-decomposition ILU0: the graph partitioner was given no block pattern");
  // Values the partitioner never reads (without Kokkos's parallel fill: a host
  // thread team's wake-up costs more than these few kilobytes).
  HostCsr::values_type ones(Kokkos::ViewAllocateWithoutInitializing("trellis::pattern_values"), A.entries.extent(0));
  std::fill(ones.data(), ones.data() + ones.extent(0), 1.0);
  return HostCsr(A.rows, A.cols, A.row_map, A.entries, ones);
}

ordinal_t ceil_div(ordinal_t a, ordinal_t b) { return (std::max<ordinal_t>(a, 1) + b - 1) / b; }

/// The partitioner: automatic is geometric when the grid is known, else it
/// stays automatic (slabs_or_regions decides from the graph).
Partitioner chosen_partitioner(const DdOptions& opt) {
  if (opt.partitioner != Partitioner::automatic) return opt.partitioner;
  return opt.grid[0] > 0 ? Partitioner::geometric : Partitioner::automatic;
}

/// Rows of a node kept in one subdomain: the options' node size, else the
/// one the pattern shows (detect_node_size), 1 for none. A node must divide
/// the rows and fit in a subdomain.
ordinal_t chosen_node_size(const HostCsr& graph, const DdOptions& opt, ordinal_t rows) {
  if (opt.node_size == 1) return 1;
  if (opt.node_size > 1) {
    if (graph.num_rows % opt.node_size != 0)
      throw InputError("domain-decomposition ILU0: node size " + std::to_string(opt.node_size) +
                       " does not divide the " + std::to_string(graph.num_rows) +
                       " block rows (DdOptions::node_size; 1 turns nodes off, 0 detects them)");
    if (opt.node_size > rows)
      throw InputError("domain-decomposition ILU0: nodes of " + std::to_string(opt.node_size) +
                       " block rows do not fit in subdomains of " + std::to_string(rows));
    return opt.node_size;
  }
  return detect_node_size(graph, std::min<ordinal_t>(rows, DdOptions::largest_detected_node));
}

/// A graph partitioner's partition of `graph` into parts of `rows` rows.
Partition graph_partition(Partitioner p, const HostCsr& graph, const std::vector<double>& weights, ordinal_t rows,
                          DdReport& report) {
  if (p == Partitioner::metis) return metis_partition(graph, rows, weights);
  if (p == Partitioner::slabs) return slab_partition(graph, rows);
  if (p == Partitioner::regions) return region_partition(graph, rows, weights);
  AutomaticPartition chosen = slabs_or_regions(graph, rows, weights);
  char why[160];
  std::snprintf(why, sizeof why, " (auto: slabs drop %.3g, regions %.3g of the %s; slabs up to %.2gx)",
                chosen.slabs_dropped, chosen.regions_dropped, weights.empty() ? "entries" : "coupling weight",
                AutomaticPartition::slabs_drop_max);
  report.partitioner = std::string(chosen.chose_regions ? "regions" : "slabs") + why;
  return std::move(chosen.partition);
}

/// The partition the options choose, as rows grouped by subdomain.
SubdomainLayout choose_layout(const BlockPattern& A, const DdOptions& opt, ordinal_t rows, DdReport& report) {
  const Partitioner p = chosen_partitioner(opt);
  const bool has_grid = opt.grid[0] > 0;
  report.partitioner = to_string(p);
  switch (p) {
    case Partitioner::geometric: {
      if (!has_grid) throw InputError("geometric partition needs the grid dimensions (DdOptions::grid)");
      const long long points = 1LL * opt.grid[0] * opt.grid[1] * opt.grid[2];
      if (points != A.rows)
        throw InputError("geometric partition: grid " + std::to_string(opt.grid[0]) + "x" +
                         std::to_string(opt.grid[1]) + "x" + std::to_string(opt.grid[2]) + " has " +
                         std::to_string(points) + " points, the matrix " + std::to_string(A.rows) + " block rows");
      GridDims box = opt.box;
      if (box[0] > 0 && 1LL * box[0] * box[1] * box[2] > rows) {
        report.note += "box " + std::to_string(box[0]) + "x" + std::to_string(box[1]) + "x" + std::to_string(box[2]) +
                       " exceeds " + std::to_string(rows) + " rows per subdomain; using the most cubic box that fits. ";
        box = {0, 0, 0};
      }
      if (box[0] <= 0) box = geometric_box(opt.grid, rows);
      report.partitioner +=
          " box " + std::to_string(box[0]) + "x" + std::to_string(box[1]) + "x" + std::to_string(box[2]);
      return geometric_layout(opt.grid, box);
    }
    case Partitioner::automatic:
    case Partitioner::metis:
    case Partitioner::slabs:
    case Partitioner::regions: {
      if (A.rows <= rows) {  // one subdomain: no graph
        report.partitioner = "none (one subdomain)";
        return group_rows_by_part(contiguous_partition(A.rows, rows));
      }
      const HostCsr graph = block_graph(A);
      const ordinal_t g = chosen_node_size(graph, opt, rows);
      report.node_size = g;
      if (g == 1) return group_rows_by_part(graph_partition(p, graph, A.coupling, rows, report));
      // The graph of nodes, partitioned; every row goes with its node.
      const NodeGraph nodes = node_graph(graph, g, A.coupling);
      const Partition by_node = graph_partition(p, nodes.graph, nodes.weights, rows / g, report);
      report.partitioner += ", nodes of " + std::to_string(g) + " rows kept whole";
      return group_rows_by_part(rows_of_nodes(by_node, g));
    }
    default: return group_rows_by_part(contiguous_partition(A.rows, rows));
  }
}

}  // namespace

ordinal_t subdomain_rows(const DdOptions& opt, ordinal_t block_rows, SubdomainBounds bounds) {
  if (opt.subdomain_rows > 0) return std::min(opt.subdomain_rows, bounds.rows_that_fit);
  ordinal_t rows = std::min(bounds.rows_that_fit, DdOptions::largest_automatic_rows);
  // A matrix that fits one subdomain stays whole: there an iteration is
  // bound by launches, not by the one team's walk, and more subdomains only
  // add iterations (DdOptions::subdomain_rows).
  if (bounds.subdomains_wanted > 0 && block_rows > rows)
    rows = std::min(rows, std::max(DdOptions::smallest_automatic_rows, ceil_div(block_rows, bounds.subdomains_wanted)));
  return rows;
}

bool partition_reads_pattern(const DdOptions& options, ordinal_t block_rows, SubdomainBounds bounds) {
  const ordinal_t parts = ceil_div(block_rows, subdomain_rows(options, block_rows, bounds));
  const Partitioner p = chosen_partitioner(options);
  return parts > 1 && p != Partitioner::geometric && p != Partitioner::contiguous;
}

bool partition_reads_weights(const DdOptions& options, ordinal_t block_rows, SubdomainBounds bounds) {
  const ordinal_t parts = ceil_div(block_rows, subdomain_rows(options, block_rows, bounds));
  const Partitioner p = chosen_partitioner(options);
  return options.coupling_weights && parts > 1 &&
         (p == Partitioner::metis || p == Partitioner::regions || p == Partitioner::automatic);
}

SubdomainLayout plan_subdomains(const BlockPattern& A, const DdOptions& opt, SubdomainBounds bounds, DdReport& report) {
  const ordinal_t rows_that_fit = bounds.rows_that_fit;
  if (A.rows != A.cols) throw StructureError("domain-decomposition ILU0: matrix is not square");
  if (A.rows < 1) throw StructureError("domain-decomposition ILU0: empty matrix");
  const ordinal_t rows = subdomain_rows(opt, A.rows, bounds);
  report.subdomain_rows = rows;
  report.subdomains_wanted = opt.subdomain_rows > 0 ? 0 : bounds.subdomains_wanted;
  if (opt.subdomain_rows > rows_that_fit)
    report.note += "requested " + std::to_string(opt.subdomain_rows) +
                   " block rows per subdomain do not fit "
                   "in team scratch; using " +
                   std::to_string(rows_that_fit) + ". ";
  const auto t0 = now();
  SubdomainLayout layout = choose_layout(A, opt, rows, report);
  report.seconds_partition = seconds_since(t0);

  if (!A.coupling.empty()) {  // the coupling weight between subdomains
    std::vector<ordinal_t> part(A.rows);
    for (ordinal_t s = 0; s < layout.num_subdomains(); ++s)
      for (ordinal_t r = layout.sub_start[s]; r < layout.sub_start[s + 1]; ++r) part[layout.new_to_old[r]] = s;
    double total = 0, dropped = 0;
    for (ordinal_t i = 0; i < A.rows; ++i)
      for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
        total += A.coupling[q];
        if (part[i] != part[A.entries(q)]) dropped += A.coupling[q];
      }
    report.dropped_coupling = total > 0 ? dropped / total : 0.0;
  }
  report.block_size = A.block_size;
  report.block_rows = A.rows;
  report.subdomains = layout.num_subdomains();
  report.largest_subdomain = layout.largest_subdomain();
  report.smallest_subdomain = report.largest_subdomain;
  for (ordinal_t t = 0; t < report.subdomains; ++t)
    report.smallest_subdomain = std::min(report.smallest_subdomain, layout.sub_start[t + 1] - layout.sub_start[t]);
  return layout;
}

}  // namespace dd::detail
}  // namespace trellis
