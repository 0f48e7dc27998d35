// partition_bench: the host cost of DD's automatic partition (issue 16,
// item 4) on the real matrices, stage by stage, at DD's default subdomain
// size: coupling weights, the symmetrized graph (serial scatter against the
// parallel build, which must give the same graph), and slabs_or_regions
// whole. Host threads: the host execution space's (OMP_NUM_THREADS).
//
//   partition_bench [--rows R] [--json FILE] [PROBLEM ...]
//   partition_bench --sizes R1,R2,... [PROBLEM ...]
//   (a PROBLEM as solve_bench takes it; none: the manifests under
//   TRELLIS_MATRICES). Exits 1 when the two graphs differ anywhere.
// --sizes prints, for each subdomain size, the coupling weight slabs and
// regions drop (fractions of the whole) and which one the automatic
// partition keeps: what a subdomain-size rule can read (issue 16, item 6).
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "bench_support.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/partition/detail/adjacency.hpp"
#include "trellis/partition/partition.hpp"

using namespace trellis;

namespace {

bool same_graph(const detail::Adjacency& a, const detail::Adjacency& b) {
  return a.ptr == b.ptr && a.adj == b.adj && a.strength == b.strength && a.links == b.links;
}

/// For each problem and size: parts, then the fractions of the coupling
/// weight slabs and regions drop, '*' on the one the automatic partition keeps.
int dropped_by_size(const std::vector<std::string>& problems, const std::vector<int>& sizes) {
  std::printf("%-44s %8s", "matrix (parts: slabs / regions dropped %)", "rows");
  for (const int r : sizes) std::printf(" %22d", r);
  std::printf("\n");
  for (const auto& path : problems) {
    const std::string name = path.substr(path.find_last_of('/') + 1);
    try {
      const HostCsr A = gallery::load_problem(path).matrix;
      if (!A.is_square()) continue;
      const std::vector<double> w = coupling_strengths(csr_to_bsr(A, 1));
      const double total = std::accumulate(w.begin(), w.end(), 0.0);  // 0 on the diagonal
      std::printf("%-44s %8d", name.substr(0, 44).c_str(), A.num_rows);
      for (const int r : sizes) {
        const ordinal_t rows = ordinal_t(r);
        const AutomaticPartition p = slabs_or_regions(A, rows, w);
        const double s = 100 * p.slabs_dropped / total, g = 100 * p.regions_dropped / total;
        std::printf(" %4d:%6.2f%s/%6.2f%s", p.partition.num_parts, s, p.chose_regions ? " " : "*", g,
                    p.chose_regions ? "*" : " ");
      }
      std::printf("\n");
      std::fflush(stdout);
    } catch (const std::exception& e) {
      std::printf("%-44s failed: %s\n", name.c_str(), e.what());
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> problems;
  std::string json;
  int rows = 2048;  // DD's default subdomain size where team scratch allows it
  std::vector<int> sizes;
  bench::CommandLine cl("partition_bench",
                        "The host cost of DD's automatic partition, stage by stage; exits 1 when the serial and "
                        "parallel graphs differ. Problems: specs or Matrix Market files; none: the manifests "
                        "under $TRELLIS_MATRICES.");
  cl.text("--json", json, "write the results to this file")
      .number("--rows", rows, "rows per subdomain (default 2048)", 1, 1 << 30)
      .numbers("--sizes", sizes, "print what slabs and regions drop at each of these subdomain sizes", 1, 1 << 30)
      .positionals("problems", problems, "problem specs or Matrix Market files");
  if (const int rc = cl.parse(argc, argv); rc >= 0) return rc;
  Kokkos::ScopeGuard guard(argc, argv);
  if (problems.empty()) {
    const char* dir = std::getenv("TRELLIS_MATRICES");
    for (const auto& p : bench::manifest_matrices(dir ? dir : "")) problems.push_back(p);
    for (const auto& p : bench::training_matrices(dir ? dir : "")) problems.push_back(p);
  }
  if (!sizes.empty()) return dropped_by_size(problems, sizes);
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  std::printf("host threads %d, %d rows per subdomain; medians in ms\n", threads, rows);
  std::printf("%-44s %8s %9s %8s %8s %8s %8s %8s\n", "matrix", "rows", "nnz", "weights", "scatter", "parallel", "auto",
              "regions");
  bench::TimingPolicy policy;
  policy.warmups = 1, policy.reps = 7, policy.max_seconds = 0.5;
  bench::JsonArray out;
  std::vector<double> speedups;
  bool all_same = true;
  for (const auto& path : problems) {
    const std::string name = path.substr(path.find_last_of('/') + 1);
    try {
      const HostCsr A = gallery::load_problem(path).matrix;
      if (!A.is_square()) continue;
      std::vector<double> w;
      const double weights = bench::time_case([&] { w = coupling_strengths(csr_to_bsr(A, 1)); }, policy).median;
      detail::Adjacency scatter, parallel;
      const double t_scatter = bench::time_case([&] { scatter = detail::symmetrized_by_scatter(A, w); }, policy).median;
      const double t_parallel =
          bench::time_case([&] { parallel = detail::symmetrized_in_parallel(A, w); }, policy).median;
      const bool same = same_graph(scatter, parallel);
      all_same = all_same && same;
      AutomaticPartition chosen;
      const double whole = bench::time_case([&] { chosen = slabs_or_regions(A, rows, w); }, policy).median;
      std::printf("%-44s %8d %9zu %8.2f %8.2f %8.2f %8.2f %8s%s\n", name.c_str(), A.num_rows, A.entries.extent(0),
                  1e3 * weights, 1e3 * t_scatter, 1e3 * t_parallel, 1e3 * whole, chosen.chose_regions ? "yes" : "no",
                  same ? "" : "  GRAPHS DIFFER");
      if (t_parallel > 0) speedups.push_back(t_scatter / t_parallel);
      out.push(bench::JsonObject()
                   .set("problem", name)
                   .set("rows", (long long)A.num_rows)
                   .set("nnz", (long long)A.entries.extent(0))
                   .set("weights_s", weights)
                   .set("graph_scatter_s", t_scatter)
                   .set("graph_parallel_s", t_parallel)
                   .set("same_graph", same)
                   .set("slabs_or_regions_s", whole)
                   .set("chose_regions", chosen.chose_regions));
    } catch (const std::exception& e) {
      std::printf("%-44s failed: %s\n", name.c_str(), e.what());
      out.push(bench::JsonObject().set("problem", name).set("error", e.what()));
    }
  }
  const double g = bench::geometric_mean(speedups);
  std::printf("geomean graph build, scatter / parallel: %.2fx\n", g);
  if (!json.empty())
    bench::write_text_file(json, bench::JsonObject()
                                         .set("host_threads", threads)
                                         .set("rows_per_subdomain", (long long)rows)
                                         .set("geomean_scatter_over_parallel", g)
                                         .set("results", out)
                                         .str() +
                                     "\n");
  return all_same ? 0 : 1;
}
