#pragma once
// The fine-grained domain-decomposition ILU0/ILDU0 preconditioner (seed 000):
// subdomains small enough for their vector to fit in team scratch, rows
// grouped by subdomain, entries between subdomains dropped, ILU0/ILDU0 of
// what is left factored on the device, one team per subdomain in every solve.
//
//   DomainDecompositionIlu<> M(A_bsr, options);   // or a CSR matrix (b = 1)
//   M.apply(r, z);                                // z = M^{-1} r, original numbering
//
// New values with the same pattern (a Newton or time step) are factored
// again by numeric(A_new): no partition, permutation, analysis or device
// allocation, only the values permuted, split and factored on the device.
//
// Krylov solvers run fastest in the reordered numbering: reordered_matrix()
// for SpMV, apply_reordered() for the preconditioner, to_reordered() /
// from_reordered() for the right-hand side and the solution.
//
// Every call that runs work takes an execution-space instance first (the
// default instance where it is left out). The const calls (apply, the
// solves) are safe to make from several threads and on several instances at
// once, where the backend allows concurrent dispatch: each call holds the
// object's work vectors for its duration, or takes its own while another
// call holds them (core/shared_workspace.hpp). double on each enabled backend is
// compiled once in the library (core/eti.hpp); other types instantiate here.
// numeric() must not overlap any other call on the same object.
#include <Kokkos_Core.hpp>
#include <climits>
#include <type_traits>

#include "trellis/core/backend.hpp"
#include "trellis/core/block_size.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_check.hpp"
#include "trellis/core/device_copy.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/eti.hpp"
#include "trellis/core/permutation.hpp"
#include "trellis/core/shared_workspace.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/core/triangle.hpp"
#include "trellis/core/view_arena.hpp"
#include "trellis/dd/dd_options.hpp"
#include "trellis/dd/detail/host_setup.hpp"
#include "trellis/dd/subdomain_ilu0.hpp"
#include "trellis/dd/subdomain_schedule.hpp"
#include "trellis/dd/subdomain_solves.hpp"
#include "trellis/ilu/block_split.hpp"

namespace trellis {

namespace dd::detail {

/// f(std::integral_constant<int, B>{}) for the runtime block size b.
template <class F>
void dispatch_block_size(int b, F&& f) {
  trellis::detail::with_block_size(b, "domain-decomposition ILU0", std::forward<F>(f));
}

/// y[i*b + c] = x[from[i]*b + c] (gather of block rows).
template <class Scalar, class Device>
void gather_blocks(const typename Device::execution_space& space, Kokkos::View<const ordinal_t*, Device> from, int b,
                   Kokkos::View<const Scalar*, Device> x, Kokkos::View<Scalar*, Device> y) {
  Kokkos::parallel_for(
      "trellis::dd::gather", trellis::RangePolicy<typename Device::execution_space>(space, 0, from.extent(0) * b),
      KOKKOS_LAMBDA(size_t t) { y(t) = x(size_t(from(t / b)) * b + t % b); });
}

/// The first block row of A (original numbering) whose pattern is not the
/// one R = P A0 P^T was made from (source: each block of R's position in
/// A0), or num_block_rows if A has A0's pattern. A's sizes are R's.
template <class Scalar, class Device>
ordinal_t first_row_not_in_pattern(const typename Device::execution_space& space, const BsrMatrix<Scalar, Device>& A,
                                   const BsrMatrix<Scalar, Device>& R, Kokkos::View<const offset_t*, Device> source,
                                   Kokkos::View<const ordinal_t*, Device> n2o,
                                   Kokkos::View<const ordinal_t*, Device> o2n) {
  const auto a_map = A.row_map;
  const auto a_ent = A.entries;
  const auto r_map = R.row_map;
  const auto r_ent = R.entries;
  const ordinal_t n = R.num_block_rows;
  ordinal_t first_bad = n;
  Kokkos::parallel_reduce(
      "trellis::dd::numeric_pattern", trellis::RangePolicy<typename Device::execution_space>(space, 0, n),
      KOKKOS_LAMBDA(ordinal_t r, ordinal_t & bad) {
        const ordinal_t i = n2o(r);
        const offset_t begin = a_map(i), end = a_map(i + 1);
        bool same = end - begin == r_map(r + 1) - r_map(r);
        for (offset_t e = r_map(r); same && e < r_map(r + 1); ++e) {
          const offset_t k = source(e);
          const ordinal_t j = k >= begin && k < end ? a_ent(k) : -1;
          same = j >= 0 && j < n && o2n(j) == r_ent(e);
        }
        if (!same && i < bad) bad = i;
      },
      Kokkos::Min<ordinal_t>(first_bad));
  return first_bad;
}

/// The vectors one application writes besides its output.
template <class Scalar, class Device>
struct ApplyWork {
  Kokkos::View<Scalar*, Device> work;                       // L D y = r of the split form
  Kokkos::View<Scalar*, Device> permuted_in, permuted_out;  // apply(): r and z reordered
  Kokkos::View<int*, Device> flags;                         // the spin-loop solve's ready flags
  int epoch = 0;                                            // the number of the last spin-loop solve
};

}  // namespace dd::detail

template <class Scalar = double, class Device = DefaultDevice>
class DomainDecompositionIlu {
  static_assert(std::is_same<Scalar, double>::value, "the setup reads double matrices");

 public:
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  using execution_space = typename Device::execution_space;
  using exec = execution_space;

  /// The setup (partition, reorder, split, analysis, factorization). Kernels
  /// run on `space` (core's permutation kernels on the default instance); it
  /// returns when the preconditioner is ready on every instance.
  DomainDecompositionIlu(const execution_space& space, const HostBsr& A, const DdOptions& options = {});
  DomainDecompositionIlu(const execution_space& space, const HostCsr& A, const DdOptions& options = {});
  DomainDecompositionIlu(const HostBsr& A, const DdOptions& options = {})
      : DomainDecompositionIlu(execution_space(), A, options) {}
  DomainDecompositionIlu(const HostCsr& A, const DdOptions& options = {})
      : DomainDecompositionIlu(execution_space(), A, options) {}
  /// From a matrix already in the device's memory (where an application
  /// assembles it or keeps it for its SpMV): only the block pattern comes to
  /// the host, for the partitioner; the values never leave the device. (A
  /// template so that it may coexist with the HostBsr one when Device is the
  /// host; that one is chosen then.)
  template <class D, class = std::enable_if_t<std::is_same<D, Device>::value>>
  DomainDecompositionIlu(const execution_space& space, const BsrMatrix<Scalar, D>& A, const DdOptions& options = {})
      : options_(options) {
    const SetupRegion region;
    check_canonical(A, "domain-decomposition ILU0");
    const auto t0 = now();
    dd::detail::BlockPattern pattern{A.block_size, A.num_block_rows, A.num_block_cols, {}, {}};
    if (dd::detail::partition_reads_pattern(options_, A.num_block_rows,
                                            bounds(A.block_size))) {  // a graph partitioner; the geometric one
                                                                      // needs sizes only
      typename HostBsr::index_type::non_const_type entries(
          Kokkos::ViewAllocateWithoutInitializing("trellis::dd::host_entries"), A.entries.extent(0));
      typename HostBsr::row_map_type::non_const_type row_map(
          Kokkos::ViewAllocateWithoutInitializing("trellis::dd::host_row_map"), A.row_map.extent(0));
      Kokkos::deep_copy(space, entries, A.entries);
      Kokkos::deep_copy(space, row_map, A.row_map);
      space.fence();  // the partitioner reads them
      pattern.entries = entries;
      pattern.row_map = row_map;
      if (dd::detail::partition_reads_weights(options_, A.num_block_rows, bounds(A.block_size))) {
        typename HostBsr::values_type values(Kokkos::ViewAllocateWithoutInitializing("trellis::dd::host_values"),
                                             A.values.extent(0));
        Kokkos::deep_copy(space, values, A.values);
        space.fence();
        pattern.coupling =
            coupling_strengths(HostBsr(A.block_size, A.num_block_rows, A.num_block_cols, row_map, entries, values));
      }
    }
    const double download = seconds_since(t0);
    setup(space, pattern, A, 0);
    report_.seconds_partition += download;  // the pattern's trip to the partitioner
  }
  template <class D, class = std::enable_if_t<std::is_same<D, Device>::value>>
  DomainDecompositionIlu(const BsrMatrix<Scalar, D>& A, const DdOptions& options = {})
      : DomainDecompositionIlu(execution_space(), A, options) {}

  /// New values for the pattern given at construction, from the device (A's
  /// arrays are read where they are) or the host (copied to a device matrix
  /// kept for the next call): permuted, split and factored again on `space`,
  /// reusing the partition (with coupling weights, the one the setup's
  /// values weighted), the permutation and the schedules; the
  /// reordered matrix takes the new values too. A different pattern is a
  /// StructureError before anything changes; a failed pivot is a PivotError
  /// as in the constructor, and then every solve refuses to run until a
  /// numeric() succeeds. Returns when the factors are ready on every instance.
  template <class D, class = std::enable_if_t<std::is_same<D, Device>::value>>
  void numeric(const execution_space& space, const BsrMatrix<Scalar, D>& A) {
    numeric_on_device(space, A);
  }
  void numeric(const execution_space& space, const HostBsr& A);
  void numeric(const execution_space& space, const HostCsr& A) { numeric(space, csr_to_bsr(A, 1)); }
  template <class D, class = std::enable_if_t<std::is_same<D, Device>::value>>
  void numeric(const BsrMatrix<Scalar, D>& A) {
    numeric_on_device(execution_space(), A);
  }
  void numeric(const HostBsr& A) { numeric(execution_space(), A); }
  void numeric(const HostCsr& A) { numeric(execution_space(), A); }

  /// Block rows whose vector part (b * sizeof(Scalar) bytes each) fits in the
  /// team scratch this backend offers.
  static ordinal_t rows_that_fit(int b) {
    return ordinal_t(trellis::TeamPolicy<exec>::scratch_size_max(0) / (size_t(b) * sizeof(Scalar)));
  }
  /// The team scratch limit and the subdomains the automatic size aims at
  /// on this backend (DdOptions::subdomain_rows).
  static dd::detail::SubdomainBounds bounds(int b) {
    return {rows_that_fit(b), ordinal_t(execution_space().concurrency() / DdOptions::concurrency_per_subdomain)};
  }

  const DdReport& report() const { return report_; }
  int block_size() const { return factors_.block_size; }
  ordinal_t num_rows() const { return factors_.num_rows * factors_.block_size; }
  const BsrMatrix<Scalar, Device>& reordered_matrix() const { return reordered_; }
  const dd::SubdomainFactors<Scalar, Device>& factors() const { return factors_; }
  /// The permutation and subdomain boundaries (host copies).
  const SubdomainLayout& layout() const { return layout_; }

  /// x in the original numbering -> xr in the reordered one, and back.
  void to_reordered(const execution_space& space, const_vector_type x, vector_type xr) const;
  void from_reordered(const execution_space& space, const_vector_type xr, vector_type x) const;
  void to_reordered(const_vector_type x, vector_type xr) const { to_reordered(execution_space(), x, xr); }
  void from_reordered(const_vector_type xr, vector_type x) const { from_reordered(execution_space(), xr, x); }

  /// Subdomains split over `ranks` ranks (section 4.5): contiguous shares of
  /// nearly equal row counts. Rank k applies ILDU0 to its share with no
  /// communication: apply_reordered(r, z, variant, share[k]) touches only the
  /// rows of those subdomains.
  std::vector<dd::SubdomainRange> rank_shares(int ranks) const;

  /// z = (L D U')^{-1} r, both in the reordered numbering, r and z distinct;
  /// only the rows of the subdomains in `range` (default all).
  void apply_reordered(const execution_space& space, const_vector_type r, vector_type z, DdApply variant,
                       dd::SubdomainRange range = {}) const;
  void apply_reordered(const_vector_type r, vector_type z, DdApply variant, dd::SubdomainRange range = {}) const {
    apply_reordered(execution_space(), r, z, variant, range);
  }
  void apply_reordered(const execution_space& space, const_vector_type r, vector_type z) const {
    apply_reordered(space, r, z, default_variant());
  }
  void apply_reordered(const_vector_type r, vector_type z) const {
    apply_reordered(execution_space(), r, z, default_variant());
  }

  /// The application apply() runs: the options' choice, else by backend.
  DdApply default_variant() const {
    if (options_.apply) return *options_.apply;
    return trellis::detail::is_host_space<exec>() ? DdApply::dag_vc_ILDUO_fused : DdApply::dag_ec_ILDUO_fused;
  }

  /// y = (L D)^{-1} r (the lower solves of Table 5.2), reordered numbering.
  void lower_solve_reordered(const execution_space& space, const_vector_type r, vector_type y,
                             DdLowerSolve variant) const;
  void lower_solve_reordered(const_vector_type r, vector_type y, DdLowerSolve variant) const {
    lower_solve_reordered(execution_space(), r, y, variant);
  }

  /// z = U'^{-1} r, the second factor of a split application (reordered numbering).
  void upper_solve_reordered(const execution_space& space, const_vector_type r, vector_type z) const;
  void upper_solve_reordered(const_vector_type r, vector_type z) const {
    upper_solve_reordered(execution_space(), r, z);
  }

  /// The two factors of a split application, K1 = L D and K2 = U', each
  /// solved the way `variant` solves it inside M^{-1} (the same traversal,
  /// and so the same reproducibility): y = (L D)^{-1} r, z = U'^{-1} r.
  void lower_solve_reordered(const execution_space& space, const_vector_type r, vector_type y, DdApply variant) const;
  void upper_solve_reordered(const execution_space& space, const_vector_type r, vector_type z, DdApply variant) const;

  /// z = M^{-1} r in the original numbering.
  void apply(const execution_space& space, const_vector_type r, vector_type z, DdApply variant) const;
  void apply(const_vector_type r, vector_type z, DdApply variant) const { apply(execution_space(), r, z, variant); }
  void apply(const execution_space& space, const_vector_type r, vector_type z) const {
    apply(space, r, z, default_variant());
  }
  void apply(const_vector_type r, vector_type z) const { apply(execution_space(), r, z, default_variant()); }

 private:
  using Work = dd::detail::ApplyWork<Scalar, Device>;
  /// The setup as one Kokkos Tools profiling region, "trellis::dd::setup".
  struct SetupRegion : ProfilingRegion {
    SetupRegion() : ProfilingRegion("trellis::dd::setup") {}
  };
  dd::detail::BlockPattern pattern_of(const HostBsr& A) const {
    const bool weights = dd::detail::partition_reads_weights(options_, A.num_block_rows, bounds(A.block_size));
    return {A.block_size, A.num_block_rows, A.num_block_cols,
            A.row_map,    A.entries,        weights ? coupling_strengths(A) : std::vector<double>()};
  }

  /// pattern: A's block pattern on the host (what the partitioner reads);
  /// copy_seconds: the time A took to reach the device (counted as reordering).
  void setup(const execution_space& space, const dd::detail::BlockPattern& pattern, const BsrMatrix<Scalar, Device>& A,
             double copy_seconds);
  void numeric_on_device(const execution_space& space, const BsrMatrix<Scalar, Device>& A);
  /// StructureError unless A has the pattern the setup saw (checked on the
  /// device through the permutation's source positions).
  void check_same_pattern(const execution_space& space, const BsrMatrix<Scalar, Device>& A) const;
  /// Factors the split values (L_val, U_val, diag_) and puts them in
  /// schedule order; PivotError on a failed pivot.
  void factor_split_values(const execution_space& space);
  void check_factored(const std::string& what) const {
    if (!failed_numeric_.empty())
      throw Error(what + ": the last numeric() failed (" + failed_numeric_ +
                  "); the factors are unusable until a numeric() succeeds");
  }
  void check_sizes(const_vector_type in, const_vector_type out, const std::string& what) const {
    const size_t n = size_t(num_rows());
    if (in.extent(0) != n || out.extent(0) != n)
      throw StructureError(what + ": vectors of " + std::to_string(in.extent(0)) + " and " +
                           std::to_string(out.extent(0)) + " entries for " + std::to_string(n) + " rows");
  }
  /// The spin-loop flags hold the number of the solve that set them; after
  /// INT_MAX solves they are cleared and the count starts again.
  static int next_epoch(const execution_space& space, Work& w) {
    if (w.epoch == INT_MAX) Kokkos::deep_copy(space, w.flags, 0), w.epoch = 0;
    return ++w.epoch;
  }
  /// Work vectors of a call that finds the object's held by another one.
  Work private_work() const {
    const size_t n = size_t(num_rows());
    Work w;
    w.work = vector_type(Kokkos::ViewAllocateWithoutInitializing("trellis::dd::private_work"), n);
    w.permuted_in = vector_type(Kokkos::ViewAllocateWithoutInitializing("trellis::dd::private_in"), n);
    w.permuted_out = vector_type(Kokkos::ViewAllocateWithoutInitializing("trellis::dd::private_out"), n);
    w.flags = Kokkos::View<int*, Device>("trellis::dd::private_flags", factors_.num_rows);
    return w;
  }
  typename SharedWorkspace<execution_space, Work>::Lease claim_work(const execution_space& space) const {
    return workspace_.claim(space, [&] { return private_work(); });
  }
  void apply_reordered_with(const execution_space& space, const_vector_type r, vector_type z, DdApply variant,
                            dd::SubdomainRange range, Work& w) const;

  DdOptions options_;
  DdReport report_;
  SubdomainLayout layout_;
  BsrMatrix<Scalar, Device> reordered_;
  Kokkos::View<ordinal_t*, Device> new_to_old_, old_to_new_;
  dd::SubdomainFactors<Scalar, Device> factors_;
  SharedWorkspace<execution_space, Work> workspace_;
  // What numeric() reuses: each reordered block's position in A, the split
  // diagonal blocks, the pivot status, a device copy for host input.
  Kokkos::View<offset_t*, Device> value_source_;
  vector_type diag_;
  Kokkos::View<ordinal_t*, Device> pivot_status_;
  ilu::detail::RowExtent row_extent_;  // of the factors' pattern, read at setup
  DeviceCopy<Scalar, Device> staging_;
  std::string failed_numeric_;  // the PivotError of the last numeric(), if it failed
};

// ---- definitions (compiled once per backend for double: see core/eti.hpp) ----

template <class Scalar, class Device>
DomainDecompositionIlu<Scalar, Device>::DomainDecompositionIlu(const execution_space& space, const HostBsr& A,
                                                               const DdOptions& options)
    : options_(options) {
  const SetupRegion region;
  check_canonical(A, "domain-decomposition ILU0");
  const auto t0 = now();
  const BsrMatrix<Scalar, Device> on_device = copy_to<Device>(A);
  setup(space, pattern_of(A), on_device, seconds_since(t0));
}

template <class Scalar, class Device>
DomainDecompositionIlu<Scalar, Device>::DomainDecompositionIlu(const execution_space& space, const HostCsr& A,
                                                               const DdOptions& options)
    : options_(options) {
  const SetupRegion region;
  check_canonical(A, "domain-decomposition ILU0");
  const HostBsr blocks = csr_to_bsr(A, 1);
  const auto t0 = now();
  const BsrMatrix<Scalar, Device> on_device = copy_to<Device>(blocks);
  setup(space, pattern_of(blocks), on_device, seconds_since(t0));
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::to_reordered(const execution_space& space, const_vector_type x,
                                                          vector_type xr) const {
  check_sizes(x, xr, "to_reordered");
  dd::detail::gather_blocks<Scalar, Device>(space, new_to_old_, block_size(), x, xr);
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::from_reordered(const execution_space& space, const_vector_type xr,
                                                            vector_type x) const {
  check_sizes(xr, x, "from_reordered");
  dd::detail::gather_blocks<Scalar, Device>(space, old_to_new_, block_size(), xr, x);
}

template <class Scalar, class Device>
std::vector<dd::SubdomainRange> DomainDecompositionIlu<Scalar, Device>::rank_shares(int ranks) const {
  if (ranks < 1) throw InputError("rank_shares: " + std::to_string(ranks) + " ranks");
  std::vector<dd::SubdomainRange> out(ranks);
  const auto& start = layout_.sub_start;
  ordinal_t s = 0;
  for (int k = 0; k < ranks; ++k) {
    const double target = double(start.back()) * (k + 1) / ranks;  // rows up to this rank's end
    out[k].begin = s;
    while (s < layout_.num_subdomains() && (k == ranks - 1 || start[s + 1] <= target + 0.5)) ++s;
    out[k].end = s;
  }
  return out;
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::apply_reordered(const execution_space& space, const_vector_type r,
                                                             vector_type z, DdApply variant,
                                                             dd::SubdomainRange range) const {
  auto work = claim_work(space);
  apply_reordered_with(space, r, z, variant, range, *work);
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::apply_reordered_with(const execution_space& space, const_vector_type r,
                                                                  vector_type z, DdApply variant,
                                                                  dd::SubdomainRange range, Work& w) const {
  check_sizes(r, z, to_string(variant));
  check_factored(to_string(variant));
  const ordinal_t subdomains = layout_.num_subdomains();
  if (range.begin < 0 || range.begin > subdomains || range.end > subdomains ||
      (range.end >= 0 && range.end < range.begin))
    throw InputError("apply_reordered: subdomain range [" + std::to_string(range.begin) + ", " +
                     std::to_string(range.end) + ") outside the " + std::to_string(subdomains) + " subdomains");
  dd::detail::dispatch_block_size(block_size(), [&](auto B) {
    constexpr int b = decltype(B)::value;
    dd::DagPlan plan;
    switch (variant) {
      case DdApply::dag_ec_ILD_UO: {
        plan.lower = dd::LowerStep::with_diagonal;
        dd::run_dag<b>(space, factors_, plan, r, w.work, range);
        plan.lower = dd::LowerStep::none;
        plan.upper = true;
        dd::run_dag<b>(space, factors_, plan, const_vector_type(w.work), z, range);
        return;
      }
      case DdApply::dag_vc_ILDUO_fused: plan.vertex_centric = true; break;
      case DdApply::dag_ec_ILDUO_fused: break;
    }
    plan.scale_after_lower = true;
    plan.upper = true;
    dd::run_dag<b>(space, factors_, plan, r, z, range);
  });
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::lower_solve_reordered(const execution_space& space, const_vector_type r,
                                                                   vector_type y, DdLowerSolve variant) const {
  check_sizes(r, y, to_string(variant));
  check_factored(to_string(variant));
  dd::detail::dispatch_block_size(block_size(), [&](auto B) {
    constexpr int b = decltype(B)::value;
    dd::DagPlan plan;
    plan.lower = dd::LowerStep::with_diagonal;
    switch (variant) {
      case DdLowerSolve::spin_loop_lds: {
        auto w = claim_work(space);
        dd::run_spin_loop<b>(space, factors_, w->flags, next_epoch(space, *w), r, y);
        return;
      }
      case DdLowerSolve::dag_ec_no_lds: plan.scratch_vector = false; break;
      case DdLowerSolve::dag_ec_lds: break;
      case DdLowerSolve::dag_ec_lds_ud:
        plan.lower = dd::LowerStep::unit;
        plan.scale_after_lower = true;
        break;
    }
    dd::run_dag<b>(space, factors_, plan, r, y);
  });
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::lower_solve_reordered(const execution_space& space, const_vector_type r,
                                                                   vector_type y, DdApply variant) const {
  check_sizes(r, y, to_string(variant));
  check_factored(to_string(variant));
  dd::detail::dispatch_block_size(block_size(), [&](auto B) {
    dd::DagPlan plan;
    if (variant == DdApply::dag_ec_ILD_UO) {
      plan.lower = dd::LowerStep::with_diagonal;
    } else {  // the fused kernels' lower half: unit L, then D^{-1}
      plan.vertex_centric = variant == DdApply::dag_vc_ILDUO_fused;
      plan.scale_after_lower = true;
    }
    dd::run_dag<decltype(B)::value>(space, factors_, plan, r, y);
  });
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::upper_solve_reordered(const execution_space& space, const_vector_type r,
                                                                   vector_type z, DdApply variant) const {
  check_sizes(r, z, "upper solve");
  check_factored("upper solve");
  dd::detail::dispatch_block_size(block_size(), [&](auto B) {
    dd::DagPlan plan;
    plan.vertex_centric = variant == DdApply::dag_vc_ILDUO_fused;
    plan.lower = dd::LowerStep::none;
    plan.upper = true;
    dd::run_dag<decltype(B)::value>(space, factors_, plan, r, z);
  });
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::upper_solve_reordered(const execution_space& space, const_vector_type r,
                                                                   vector_type z) const {
  check_sizes(r, z, "upper solve");
  check_factored("upper solve");
  dd::detail::dispatch_block_size(block_size(), [&](auto B) {
    dd::DagPlan plan;
    plan.lower = dd::LowerStep::none;
    plan.upper = true;
    dd::run_dag<decltype(B)::value>(space, factors_, plan, r, z);
  });
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::apply(const execution_space& space, const_vector_type r, vector_type z,
                                                   DdApply variant) const {
  check_sizes(r, z, "apply");
  auto w = claim_work(space);
  to_reordered(space, r, w->permuted_in);
  apply_reordered_with(space, const_vector_type(w->permuted_in), w->permuted_out, variant, {}, *w);
  from_reordered(space, const_vector_type(w->permuted_out), z);
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::setup(const execution_space& space,
                                                   const dd::detail::BlockPattern& pattern,
                                                   const BsrMatrix<Scalar, Device>& A, double copy_seconds) {
  const int b = A.block_size;
  trellis::detail::check_block_size(b, "domain-decomposition ILU0");
  report_.rows_that_fit = rows_that_fit(b);
  report_.scratch_bytes_max = size_t(trellis::TeamPolicy<exec>::scratch_size_max(0));
  // A missing diagonal block fails the factorization anyway: say so before
  // the partition (METIS on a large matrix takes minutes). One pass on A.
  if (A.num_block_rows == A.num_block_cols) {
    const ordinal_t missing = first_row_missing_diagonal(A);
    if (missing >= 0)
      throw StructureError("domain-decomposition ILU0: block row " + std::to_string(missing) +
                           " has no diagonal block");
  }
  layout_ = dd::detail::plan_subdomains(pattern, options_, bounds(b), report_);
  report_.blocks = A.nnz_blocks();

  // Every array below, kept or temporary, comes from one arena: a few
  // allocations instead of about sixty (see ViewArena); the temporaries go
  // with it at the end of the setup.
  ViewArena<Device> arena;
  // Reorder, drop and split on the device (Algorithm 3.2).
  auto t0 = now();
  trellis::detail::on_default_instance(space, [&] {  // core's permutation kernels
    const Permutation<Device> perm = make_permutation<Device>(layout_.new_to_old, arena);
    new_to_old_ = perm.new_to_old;
    old_to_new_ = perm.old_to_new;
    reordered_ = permute_symmetric(A, perm, arena, &value_source_);
  });
  auto& f = factors_;
  f.max_subdomain_rows = report_.largest_subdomain;
  f.sub_start = arena.template take<ordinal_t>("trellis::dd::sub_start", layout_.sub_start.size());
  Kokkos::deep_copy(space, f.sub_start,
                    Kokkos::View<const ordinal_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                        layout_.sub_start.data(), layout_.sub_start.size()));
  auto split = ilu::split_blocks(space, reordered_, Kokkos::View<const ordinal_t*, Device>(f.sub_start), f,
                                 layout_.new_to_old, arena, ViewArena<Device>::kept);
  report_.blocks_dropped = split.dropped;
  diag_ = split.diag;
  space.fence();
  report_.seconds_reorder = seconds_since(t0) + copy_seconds;

  t0 = now();
  const ordinal_t max_rows = f.max_subdomain_rows;
  auto schedules =
      dd::analyze_subdomains<Device>(space, {f.L_map, f.U_map}, {f.L_col, f.U_col}, f.sub_start, max_rows, arena);
  f.lower = schedules[0];
  f.upper = schedules[1];
  space.fence();
  report_.seconds_analysis = seconds_since(t0);
  report_.lower_levels_max = f.lower.max_levels;
  report_.upper_levels_max = f.upper.max_levels;

  t0 = now();
  pivot_status_ = ilu::detail::make_pivot_status<Device>(space, f.num_rows, arena, ViewArena<Device>::kept);
  row_extent_ = ilu::detail::row_extent(space, static_cast<const ilu::BlockFactors<Scalar, Device>&>(f));
  const size_t bb = size_t(b) * b;
  arena.template reserve<ordinal_t>(ViewArena<Device>::kept, f.L_col.extent(0), f.U_col.extent(0));
  arena.template reserve<Scalar>(ViewArena<Device>::kept, f.L_col.extent(0) * bb, f.U_col.extent(0) * bb);
  f.L_edges = dd::level_ordered_blocks<Scalar, Device>(f.lower, b, arena);
  f.U_edges = dd::level_ordered_blocks<Scalar, Device>(f.upper, b, arena);
  factor_split_values(space);
  report_.seconds_factorization = seconds_since(t0);
  const size_t n = size_t(f.num_rows) * b;
  // Work vectors every use writes in full before reading: no fill (on CUDA
  // each View fill is a kernel and a fence, a few per cent of a small setup).
  arena.template reserve<Scalar>(ViewArena<Device>::kept, n, n, n);
  Work w;
  w.work = arena.template take<Scalar>("trellis::dd::work", n);
  w.permuted_in = arena.template take<Scalar>("trellis::dd::permuted_in", n);
  w.permuted_out = arena.template take<Scalar>("trellis::dd::permuted_out", n);
  w.flags = arena.template take<int>("trellis::dd::ready_flags", f.num_rows);
  Kokkos::deep_copy(space, w.flags, 0);
  workspace_ = SharedWorkspace<execution_space, Work>(w);
  space.fence();  // ready on every instance
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::factor_split_values(const execution_space& space) {
  auto& f = factors_;
  const int b = f.block_size;
  ilu::FactorizationOutcome out;
  dd::detail::dispatch_block_size(b, [&](auto B) {
    out = dd::factor_subdomains<decltype(B)::value>(space, f, row_extent_, diag_, options_.pivots, pivot_status_);
  });
  ilu::throw_if_pivot_failed(out, layout_.new_to_old, const_vector_type(diag_), reordered_, options_.pivots);
  report_.boosted_pivots = out.boosted;
  // The solves read L and U' in schedule order.
  dd::fill_level_ordered_blocks<Scalar, Device>(space, f.lower, f.L_col, f.L_val, b, f.L_edges);
  dd::fill_level_ordered_blocks<Scalar, Device>(space, f.upper, f.U_col, f.U_val, b, f.U_edges);
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::numeric(const execution_space& space, const HostBsr& A) {
  if constexpr (std::is_same<HostBsr, BsrMatrix<Scalar, Device>>::value) {
    numeric_on_device(space, A);
  } else {
    numeric_on_device(space, staging_.upload(space, A));
  }
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::check_same_pattern(const execution_space& space,
                                                                const BsrMatrix<Scalar, Device>& A) const {
  const std::string what = "DomainDecompositionIlu::numeric: ";
  const auto& R = reordered_;
  if (A.block_size != R.block_size || A.num_block_rows != R.num_block_rows || A.num_block_cols != R.num_block_cols ||
      A.row_map.extent(0) != R.row_map.extent(0) || A.entries.extent(0) != R.entries.extent(0) ||
      A.values.extent(0) != R.values.extent(0))
    throw StructureError(what + "a " + std::to_string(A.num_block_rows) + " x " + std::to_string(A.num_block_cols) +
                         " matrix of " + std::to_string(A.entries.extent(0)) + " blocks of size " +
                         std::to_string(A.block_size) + " for a setup of " + std::to_string(R.num_block_rows) + " x " +
                         std::to_string(R.num_block_cols) + ", " + std::to_string(R.entries.extent(0)) +
                         " blocks of size " + std::to_string(R.block_size) + "; a new pattern needs a new setup");
  const ordinal_t n = R.num_block_rows;
  const ordinal_t first_bad =
      dd::detail::first_row_not_in_pattern<Scalar, Device>(space, A, R, value_source_, new_to_old_, old_to_new_);
  if (first_bad < n)
    throw StructureError(what + "block row " + std::to_string(first_bad) +
                         " has another pattern than at setup; a new pattern needs a new setup");
}

template <class Scalar, class Device>
void DomainDecompositionIlu<Scalar, Device>::numeric_on_device(const execution_space& space,
                                                               const BsrMatrix<Scalar, Device>& A) {
  check_same_pattern(space, A);  // before anything changes
  failed_numeric_ = "interrupted";
  trellis::detail::gather_values_into<Scalar, Device>(space, value_source_, A.values, reordered_.values,
                                                      size_t(A.block_size) * A.block_size);
  ilu::split_values(space, reordered_, factors_, diag_);
  try {
    factor_split_values(space);
  } catch (const PivotError& e) {
    failed_numeric_ = e.what();
    throw;
  }
  space.fence();  // ready on every instance
  failed_numeric_.clear();
}

#if TRELLIS_ENABLE_ETI
#define TRELLIS_DD_ILU_ETI(DEVICE) extern template class DomainDecompositionIlu<double, DEVICE>;
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_DD_ILU_ETI)
#undef TRELLIS_DD_ILU_ETI
#endif

}  // namespace trellis
