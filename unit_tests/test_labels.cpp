// Every kernel and allocation of the library is labelled `trellis::...`, so
// Kokkos Tools output (kernel timers, traces, memory reports) says whose it
// is. Kokkos' and Kokkos Kernels' own kernels keep their names.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <mutex>
#include <set>
#include <string>

#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"

namespace trellis {
namespace {

std::set<std::string>& seen() {
  static std::set<std::string> labels;
  return labels;
}
// The callbacks run on whichever thread allocates: the OpenMP backend sizes
// its per-thread scratch from inside a parallel region (an unguarded insert
// there corrupted the set: a leak under LeakSanitizer in CI).
std::mutex& seen_mutex() {
  static std::mutex m;
  return m;
}
void record(const char* name) {
  const std::lock_guard<std::mutex> lock(seen_mutex());
  seen().insert(name);
}
void on_kernel(const char* name, const uint32_t, uint64_t*) { record(name); }
void on_allocation(const Kokkos_Profiling_SpaceHandle, const char* name, const void*, const uint64_t) { record(name); }

/// Labels Kokkos Kernels 3.4 and 4.6 give their own arrays and kernels
/// (sptrsv's level sets and team kernels, sort_crs_matrix, which 4.6 names
/// "sort_crs_matrix[CPU,radix]" and the like), and Kokkos' unlabelled
/// backend scratch (the OpenMP threads' reduction space).
const std::set<std::string> theirs = {"Entries aux",
                                      "Values aux",
                                      "[unlabeled]",
                                      "host nodes_grouped_by_level",
                                      "host nodes_per_level",
                                      "level_list",
                                      "level_list_mirror",  // sptrsv's symbolic phase on CUDA
                                      "lp",                 // sptrsv's, Kokkos Kernels 4.6
                                      "nodes_grouped_by_level",
                                      "nodes_per_level",
                                      "parfor_l_team",
                                      "parfor_u_team",
                                      "previous_level_list",
                                      "sort_crs_matrix",
                                      "tmp_row_view"};

/// Ours: "trellis::..."; Kokkos' fills and destructions name the View they
/// work on ("Kokkos::View::initialization [label]", Kokkos 4 adds " via
/// memset" and the like after it), which must be ours too.
/// Anything else must come from Kokkos or Kokkos Kernels (their names, or
/// the mangled names of their unlabelled functors, contain "Kokkos").
bool labelled_as_ours_or_theirs(const std::string& label) {
  const auto open = label.find('['), close = label.rfind(']');
  if (label.rfind("Kokkos::View::", 0) == 0 && open != std::string::npos && close > open)
    return labelled_as_ours_or_theirs(label.substr(open + 1, close - open - 1));
  return label.rfind("trellis::", 0) == 0 || label.find("Kokkos") != std::string::npos || theirs.count(label) ||
         label.rfind("sort_crs_matrix[", 0) == 0;
}

TEST(Labels, EveryKernelAndAllocationOfASolveIsNamedTrellis) {
  using Device = DefaultDevice;
  const gallery::Problem p = gallery::load_problem("blocklap3d:6x6x5:b=3");
  const BsrMatrix<double, Device> A = copy_to<Device>(*p.block_matrix);
  seen().clear();
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(on_kernel);
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(on_kernel);
  Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(on_kernel);
  Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocation);
  for (const std::string& name : preconditioner_names()) {
    PreconditionerOptions options;
    options.grid = p.grid;  // structilu needs it
    const BuiltPreconditioner M = make_preconditioner(name, p.matrix, A, options);
    const BsrOperator<double, Device> natural(A);
    const LinearOperator<double, Device>& op = M.reordered() ? M.reordered_operator() : natural;
    Kokkos::View<double*, Device> b("trellis::test::b", A.num_rows()), x("trellis::test::x", A.num_rows());
    Kokkos::deep_copy(b, 1.0);
    KrylovOptions o;
    o.max_iterations = 3;
    bicgstab(op, *M.preconditioner, Kokkos::View<const double*, Device>(b), x, o);
  }
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
  Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(nullptr);
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  ASSERT_GT(seen().size(), 20u);  // the callbacks saw the work
  for (const std::string& label : seen()) EXPECT_TRUE(labelled_as_ours_or_theirs(label)) << label;
}

}  // namespace
}  // namespace trellis
