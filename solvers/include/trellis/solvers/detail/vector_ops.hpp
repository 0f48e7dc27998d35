#pragma once
// The vector operations of the Krylov drivers, each queued on the
// execution-space instance it takes first.
//
// Kokkos Kernels 3.4's KokkosBlas::dot/axpby/update/scal take no instance, so
// they are written here as Kokkos kernels on the instance:
//   - axpby and scale keep KokkosBlas's arithmetic exactly (axpby: its
//     expression for each coefficient -1, 0, 1 or other; scale: a * x), so
//     their results are bit-identical to KokkosBlas's on every backend;
//   - dot is the same RangePolicy sum of x(i) * y(i) from zero as
//     KokkosBlas::dot: on the host backends Kokkos partitions and joins it the
//     same way (identical bits); on GPUs Kokkos may choose another block size
//     for this kernel than for KokkosBlas's functor, so the last bits of a dot
//     product can differ from KokkosBlas's (never from run to run).
//
// THE REDUCTION SEAM. Every global reduction of the drivers goes through this
// file: dot() and norm2() (values the host reads), sums_into(),
// column_dots() and mgs_columns() (values left in device memory for the next
// kernel). Each ends in global_sum(), the one
// place where a sum over this process's rows becomes a sum over all processes
// (an MPI_Allreduce through distributed::Communicator). The drivers run on
// one process today and pass the default, single-process Communicator, for
// which global_sum does nothing: no copy, no wait, no MPI. A distributed
// driver (the Kronecker GMRES, with distributed/halo_plan.hpp for its
// operator) passes its Communicator to these calls and nothing else changes.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/sum_array.hpp"
#include "trellis/distributed/communicator.hpp"

namespace trellis::detail {

/// The seam: values[0..n), in MemorySpace (the sums over this process's rows),
/// become the sums over all processes of comm, queued on space. One process:
/// returns at once. Several: copies to the host (waiting for space, since the
/// local sums must exist), Communicator::allreduce_sum, copies back, waits.
template <class MemorySpace, class ExecSpace, class Scalar>
void global_sum(const ExecSpace& space, const distributed::Communicator& comm, Scalar* values, int n) {
  if (comm.single_process()) return;
  const Kokkos::View<Scalar*, MemorySpace, Kokkos::MemoryUnmanaged> local(values, n);
  const auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), local);  // local itself in host memory
  Kokkos::deep_copy(space, host, local);
  space.fence();
  std::vector<double> sums(host.data(), host.data() + n);
  comm.allreduce_sum(sums.data(), n);
  for (int k = 0; k < n; ++k) host(k) = Scalar(sums[size_t(k)]);
  Kokkos::deep_copy(space, local, host);
  space.fence();  // host may be a temporary mirror
}

/// Runs body(i, acc) for i in [0, n) on space, where acc is a Scalar[N] to add
/// into, and writes the N global sums to dest[0..N), memory of ExecSpace's.
/// On one process the call does not wait for the result, so reductions queue
/// like any other kernel.
template <class Scalar, int N, class ExecSpace, class Body>
void sums_into(const ExecSpace& space, const char* label, size_t n, Scalar* dest, const Body& body,
               const distributed::Communicator& comm = distributed::Communicator()) {
  using memory = typename ExecSpace::memory_space;
  Kokkos::View<SumArray<Scalar, N>, memory> result(reinterpret_cast<SumArray<Scalar, N>*>(dest));  // unmanaged
  Kokkos::parallel_reduce(
      label, trellis::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(size_t i, SumArray<Scalar, N> & acc) { body(i, acc.v); },
      Kokkos::Sum<SumArray<Scalar, N>, memory>(result));  // into a View: no fence
  global_sum<memory>(space, comm, dest, N);
}

/// body(r, acc) for rows r of [begin, end) of team t's share, each thread
/// striding through them.
template <class ExecSpace, class Value, class Body>
struct TeamRowsReduce {
  using member = typename trellis::TeamPolicy<ExecSpace>::member_type;
  Body body;
  size_t n, per_team;
  KOKKOS_INLINE_FUNCTION void operator()(const member& t, Value& acc) const {
    const size_t begin = size_t(t.league_rank()) * per_team;
    const size_t end = begin + per_team < n ? begin + per_team : n;
    for (size_t r = begin + size_t(t.team_rank()); r < end; r += size_t(t.team_size())) body(r, acc);
  }
};

/// The sum of body(r, acc) over rows [0, n) into result (a View in memory of
/// ExecSpace's), queued on space without a fence. On GPUs over a TeamPolicy
/// of 256-thread teams filling half the resident threads: Kokkos 3.4 runs a
/// RangePolicy reduction of a value larger than a double on far fewer
/// threads (its block halved until the value's shared memory and the
/// registers fit, its grid capped at the block size), which held CGS2's
/// 8-column products to half the bandwidth (perf_tests/journal/RESULTS.md). On host
/// backends a RangePolicy. Either way the split, hence the sum, is fixed for
/// a given device: the same bits from run to run.
template <class ExecSpace, class Value, class Body, class Result>
void reduce_rows(const ExecSpace& space, const char* label, size_t n, const Body& body, const Result& result) {
  using memory = typename ExecSpace::memory_space;
  if constexpr (is_host_space<ExecSpace>()) {
    Kokkos::parallel_reduce(label, trellis::RangePolicy<ExecSpace>(space, 0, n), body,
                            Kokkos::Sum<Value, memory>(result));
  } else {
    constexpr int team = 256;
    const int league = std::max(1, int(space.concurrency()) / team / 2);
    const size_t per_team = (n + size_t(league) - 1) / size_t(league);
    Kokkos::parallel_reduce(label, trellis::TeamPolicy<ExecSpace>(space, league, team),
                            TeamRowsReduce<ExecSpace, Value, Body>{body, n, per_team},
                            Kokkos::Sum<Value, memory>(result));
  }
}

template <class X, class Y>
void check_same_length(const char* who, const X& x, const Y& y) {
  if (x.extent(0) != y.extent(0))
    throw StructureError(std::string(who) + ": vectors of length " + std::to_string(x.extent(0)) + " and " +
                         std::to_string(y.extent(0)));
}

/// who's ncols columns of basis V: at least min_cols, at most V's width.
template <class Basis>
void check_column_count(const char* who, const Basis& V, int ncols, int min_cols) {
  if (ncols < min_cols || size_t(ncols) > V.extent(1))
    throw StructureError(std::string(who) + ": " + std::to_string(ncols) + " columns of a basis of " +
                         std::to_string(V.extent(1)));
}

/// (x, y) over all processes of comm. Waits for space: the host reads it.
template <class ExecSpace, class X, class Y>
typename X::non_const_value_type dot(const ExecSpace& space, const X& x, const Y& y,
                                     const distributed::Communicator& comm = distributed::Communicator()) {
  using Scalar = typename X::non_const_value_type;
  check_same_length("trellis::dot", x, y);
  Scalar sum = 0;
  Kokkos::parallel_reduce(  // into a host scalar: Kokkos fences space
      "trellis::dot", trellis::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(size_t i, Scalar & acc) { acc += x(i) * y(i); }, sum);
  global_sum<Kokkos::HostSpace>(space, comm, &sum, 1);
  return sum;
}

/// x(i) in [-1, 1) from a hash of (i, seed): the same values on every
/// backend and run, no generator state (a restart's shadow residual).
template <class ExecSpace, class X>
void fill_pseudo_random(const ExecSpace& space, const X& x, unsigned seed) {
  using Scalar = typename X::non_const_value_type;
  Kokkos::parallel_for(
      "trellis::fill_pseudo_random", trellis::RangePolicy<ExecSpace>(space, 0, x.extent(0)), KOKKOS_LAMBDA(size_t i) {
        std::uint64_t h = (std::uint64_t(i) + 1) * 0x9E3779B97F4A7C15ull ^ (std::uint64_t(seed) << 32);
        h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 27, h *= 0x94D049BB133111EBull, h ^= h >> 33;
        x(i) = Scalar(double(h >> 11) * 0x1.0p-52 - 1.0);
      });
}

/// max |x(i)| over all processes of comm. Waits for space.
template <class ExecSpace, class X>
double max_abs(const ExecSpace& space, const X& x,
               const distributed::Communicator& comm = distributed::Communicator()) {
  double m = 0;
  Kokkos::parallel_reduce(
      "trellis::max_abs", trellis::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(size_t i, double& acc) {
        const double a = math::fabs(double(x(i)));
        if (a > acc) acc = a;
      },
      Kokkos::Max<double>(m));
  if (!(m >= 0) && !std::isnan(m)) m = 0;  // no rows here: the reducer's identity, -DBL_MAX
  comm.allreduce_max(&m, 1);
  return m;
}

/// ||x||_2 over all processes of comm, without underflow or overflow: the
/// plain sqrt((x, x)) when its sum of squares is safely inside the double
/// range (one reduction, the usual case); otherwise x scaled by the power of
/// two nearest max |x(i)| first (two more reductions), as LAPACK's dnrm2
/// guards it. So a vector of
/// entries near 1e-170 has its true norm, not 0, and one near 1e+200 is
/// finite. NaN in x gives NaN.
template <class ExecSpace, class X>
typename X::non_const_value_type norm2(const ExecSpace& space, const X& x,
                                       const distributed::Communicator& comm = distributed::Communicator()) {
  using Scalar = typename X::non_const_value_type;
  const double ss = double(dot(space, x, x, comm));
  if (ss > 0x1p-900 && ss < 0x1p+900) return Scalar(std::sqrt(ss));
  if (std::isnan(ss)) return Scalar(ss);
  const double m = max_abs(space, x, comm);
  if (!(m > 0) || !std::isfinite(m)) return Scalar(m);  // 0, Inf or NaN
  // Scale by 2^-e, m = f 2^e: exact, and in two factors so that neither
  // overflows when m is subnormal.
  int e = 0;
  std::frexp(m, &e);
  const double s1 = std::ldexp(1.0, -e / 2), s2 = std::ldexp(1.0, -e - (-e / 2));
  double scaled = 0;
  Kokkos::parallel_reduce(
      "trellis::norm2_scaled", trellis::RangePolicy<ExecSpace>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(size_t i, double& acc) {
        const double v = double(x(i)) * s1 * s2;
        acc += v * v;
      },
      scaled);
  global_sum<Kokkos::HostSpace>(space, comm, &scaled, 1);
  return Scalar(std::ldexp(std::sqrt(scaled), e));
}

// CGS2's kernels are named functors, not lambdas: they are instantiated both
// in the library's compiled drivers and in callers (the tests), and nvcc's
// host-device lambdas are not safe to instantiate in several translation
// units (a GMRES on Serial in a CUDA build jumped to address 0 with them).

/// w(r) -= V(r, 0:ncols) h; returns the new w(r).
template <class Basis, class W>
KOKKOS_INLINE_FUNCTION typename W::non_const_value_type subtract_row(const Basis& V, const W& w, size_t r,
                                                                     const typename W::non_const_value_type* h,
                                                                     int ncols) {
  auto v = w(r);
  for (int j = 0; j < ncols; ++j) v -= V(r, j) * h[j];
  w(r) = v;
  return v;
}

/// Products of 8 columns of V with w (SumArray: each thread's 8 sums in
/// registers), w -= V(:, 0:ncols) subtract first when subtract is set.
template <class Basis, class W>
struct ColumnDotsChunk {
  using Scalar = typename W::non_const_value_type;
  static constexpr int width = 8;
  Basis V;
  W w;
  const Scalar* subtract;
  int ncols, first, count;
  KOKKOS_INLINE_FUNCTION void operator()(size_t r, SumArray<Scalar, width>& acc) const {
    const Scalar wr = subtract ? subtract_row(V, w, r, subtract, ncols) : w(r);
    for (int j = 0; j < width; ++j)
      if (j < count) acc.v[j] += V(r, first + j) * wr;
  }
};

/// w -= V(:, 0:ncols) h, row by row, summing the new (w, w).
template <class Basis, class W>
struct SubtractColumnsSumsq {
  using Scalar = typename W::non_const_value_type;
  Basis V;
  W w;
  const Scalar* h;
  int ncols;
  KOKKOS_INLINE_FUNCTION void operator()(size_t r, Scalar& sumsq) const {
    const Scalar v = subtract_row(V, w, r, h, ncols);
    sumsq += v * v;
  }
};

/// One step of modified Gram-Schmidt with its coefficient in device memory,
/// on rows g, g + G, g + 2G, g + 3G (G = groups = ceil(n / 4)) for index g:
/// w -= coef[prev] V(:, prev) (prev >= 0), then the sum of V(:, next) w
/// (next >= 0) or of w w (next < 0) over the new w. Four rows a thread, all
/// loads before the stores: one row at a time, each store to w orders the
/// next row's loads after it (w may alias V as far as the compiler knows)
/// and the kernel waits on memory latency (measured: 3,263 against 3,097
/// GB/s on an H200, perf_tests/tools/reduction_bandwidth).
template <class Basis, class W>
struct MgsStepGroups {
  using Scalar = typename W::non_const_value_type;
  static constexpr int batch = 4;
  Basis V;
  W w;
  const Scalar* coef;
  int prev, next;
  size_t n, groups;
  KOKKOS_INLINE_FUNCTION void operator()(size_t g, Scalar& acc) const {
    const Scalar c = prev >= 0 ? coef[prev] : Scalar(0);
    Scalar v[batch], u[batch];
    for (int b = 0; b < batch; ++b) {
      const size_t r = g + size_t(b) * groups;
      if (r >= n) break;
      v[b] = w(r);
      if (prev >= 0) v[b] -= c * V(r, prev);
      u[b] = next >= 0 ? V(r, next) : v[b];
    }
    for (int b = 0; b < batch; ++b) {
      const size_t r = g + size_t(b) * groups;
      if (r >= n) break;
      if (prev >= 0) w(r) = v[b];
      acc += u[b] * v[b];
    }
  }
};

/// Modified Gram-Schmidt of w against V(:, 0:ncols) with the coefficients
/// left in device memory: dest[j] = (V(:, j), w) for w already projected off
/// columns 0..j-1, w -= sum_j dest[j] V(:, j), and dest[ncols] = (w, w) of
/// the result. ncols + 1 kernels, each applying the previous column's update
/// in the pass that forms the next product, queued without a host wait on one
/// process (the same arithmetic as a dot, then an axpy, per column); on
/// several, each product is a global sum (a host round trip each).
template <class ExecSpace, class Basis, class W>
void mgs_columns(const ExecSpace& space, const Basis& V, int ncols, const W& w, typename W::non_const_value_type* dest,
                 const distributed::Communicator& comm = distributed::Communicator()) {
  using Scalar = typename W::non_const_value_type;
  using memory = typename ExecSpace::memory_space;
  check_same_length("trellis::mgs_columns", V, w);
  check_column_count("trellis::mgs_columns", V, ncols, 1);
  const size_t n = w.extent(0), groups = (n + 3) / 4;
  for (int j = 0; j <= ncols; ++j) {
    const Kokkos::View<Scalar, memory, Kokkos::MemoryUnmanaged> result(dest + j);
    Kokkos::parallel_reduce("trellis::mgs_step", trellis::RangePolicy<ExecSpace>(space, 0, groups),
                            MgsStepGroups<Basis, W>{V, w, dest, j - 1, j < ncols ? j : -1, n, groups},
                            Kokkos::Sum<Scalar, memory>(result));  // into a View: no fence
    global_sum<memory>(space, comm, dest + j, 1);
  }
}

/// column_dots reduces 8 columns per kernel; dest needs room for ncols
/// rounded up to a multiple of 8 (the last kernel writes zeros past ncols).
inline int column_dots_room(int ncols) { return (ncols + 7) / 8 * 8; }

/// dest[j] = (V(:, j), w) for j < ncols, over all processes of comm: the
/// k + 1 inner products of classical Gram-Schmidt in one pass over V (w read
/// once per 8 columns) and one global sum. With subtract_first (ncols
/// values, memory of ExecSpace's), w -= V(:, 0:ncols) subtract_first first,
/// in the same pass (CGS2's first update fused with its second pass's
/// products). dest is memory of ExecSpace's, column_dots_room(ncols) long;
/// on one process the call does not wait for the result.
template <class ExecSpace, class Basis, class W>
void column_dots(const ExecSpace& space, const Basis& V, int ncols, const W& w, typename W::non_const_value_type* dest,
                 const distributed::Communicator& comm = distributed::Communicator(),
                 const typename W::non_const_value_type* subtract_first = nullptr) {
  using Scalar = typename W::non_const_value_type;
  using memory = typename ExecSpace::memory_space;
  using Chunk = ColumnDotsChunk<Basis, W>;
  using Sums = SumArray<Scalar, Chunk::width>;
  check_same_length("trellis::column_dots", V, w);
  check_column_count("trellis::column_dots", V, ncols, 1);
  for (int first = 0; first < ncols; first += Chunk::width) {
    const int count = ncols - first < Chunk::width ? ncols - first : Chunk::width;
    const Scalar* const subtract = first == 0 ? subtract_first : nullptr;  // the later chunks see the new w
    const Kokkos::View<Sums, memory, Kokkos::MemoryUnmanaged> result(reinterpret_cast<Sums*>(dest + first));
    reduce_rows<ExecSpace, Sums>(space, "trellis::column_dots", w.extent(0), Chunk{V, w, subtract, ncols, first, count},
                                 result);
  }
  global_sum<memory>(space, comm, dest, ncols);
}

/// w -= V(:, 0:ncols) h, h[0..ncols) in memory of ExecSpace's (as
/// column_dots leaves it), and sumsq_dest[0] = (w, w) of the new w over all
/// processes, in the same pass, queued on space.
template <class ExecSpace, class Basis, class W>
void subtract_columns(const ExecSpace& space, const Basis& V, int ncols, const typename W::non_const_value_type* h,
                      const W& w, typename W::non_const_value_type* sumsq_dest,
                      const distributed::Communicator& comm = distributed::Communicator()) {
  using Scalar = typename W::non_const_value_type;
  using memory = typename ExecSpace::memory_space;
  check_same_length("trellis::subtract_columns", V, w);
  const Kokkos::View<Scalar, memory, Kokkos::MemoryUnmanaged> result(sumsq_dest);
  reduce_rows<ExecSpace, Scalar>(space, "trellis::subtract_columns_sumsq", w.extent(0),
                                 SubtractColumnsSumsq<Basis, W>{V, w, h, ncols}, result);
  global_sum<memory>(space, comm, sumsq_dest, 1);
}

/// w(r) = sum_j V(r, j) c[j] over j < ncols, accumulated from 0 in j order.
template <class Basis, class W>
struct CombineColumns {
  using Scalar = typename W::non_const_value_type;
  Basis V;
  W w;
  const Scalar* c;
  int ncols;
  KOKKOS_INLINE_FUNCTION void operator()(size_t r) const {
    Scalar s = 0;
    for (int j = 0; j < ncols; ++j) s += c[j] * V(r, j);
    w(r) = s;
  }
};

/// w = V(:, 0:ncols) c, c[0..ncols) in memory of ExecSpace's, in one pass
/// (the same sums, in the same order, as w = 0 followed by an axpby per
/// column), queued on space.
template <class ExecSpace, class Basis, class W>
void combine_columns(const ExecSpace& space, const Basis& V, int ncols, const typename W::non_const_value_type* c,
                     const W& w) {
  check_same_length("trellis::combine_columns", V, w);
  check_column_count("trellis::combine_columns", V, ncols, 0);
  Kokkos::parallel_for("trellis::combine_columns", trellis::RangePolicy<ExecSpace>(space, 0, w.extent(0)),
                       CombineColumns<Basis, W>{V, w, c, ncols});
}

/// KokkosBlas's classes of a coefficient: 0, -1, 1, or any other value (2).
template <class Scalar>
int coefficient_class(Scalar a) {
  return a == Scalar(0) ? 0 : a == -Scalar(1) ? -1 : a == Scalar(1) ? 1 : 2;
}

/// y = a x + b y for the classes A of a and B of b, with KokkosBlas::axpby's
/// expression for each (b = 0 never reads y, a = 0 never reads x).
template <int A, int B, class ExecSpace, class Scalar, class X, class Y>
void axpby_classed(const ExecSpace& space, Scalar a, const X& x, Scalar b, const Y& y) {
  if constexpr (A == 0 && B == 1) return;  // y = y
  Kokkos::parallel_for(
      "trellis::axpby", trellis::RangePolicy<ExecSpace>(space, 0, y.extent(0)), KOKKOS_LAMBDA(size_t i) {
        (void)a, (void)b, (void)x, (void)y;  // captured here: nvcc rejects a first capture in `if constexpr`
        if constexpr (A == 0) {
          if constexpr (B == 0)
            y(i) = Scalar(0);
          else if constexpr (B == -1)
            y(i) = -y(i);
          else
            y(i) = b * y(i);
        } else if constexpr (A == -1) {
          if constexpr (B == 0)
            y(i) = -x(i);
          else if constexpr (B == -1)
            y(i) = -x(i) - y(i);
          else if constexpr (B == 1)
            y(i) = -x(i) + y(i);
          else
            y(i) = -x(i) + b * y(i);
        } else if constexpr (A == 1) {
          if constexpr (B == 0)
            y(i) = x(i);
          else if constexpr (B == -1)
            y(i) = x(i) - y(i);
          else if constexpr (B == 1)
            y(i) = x(i) + y(i);
          else
            y(i) = x(i) + b * y(i);
        } else {
          if constexpr (B == 0)
            y(i) = a * x(i);
          else if constexpr (B == -1)
            y(i) = a * x(i) - y(i);
          else if constexpr (B == 1)
            y(i) = a * x(i) + y(i);
          else
            y(i) = a * x(i) + b * y(i);
        }
      });
}

template <int A, class ExecSpace, class Scalar, class X, class Y>
void axpby_classed_b(const ExecSpace& space, Scalar a, const X& x, Scalar b, const Y& y) {
  switch (coefficient_class(b)) {
    case 0: return axpby_classed<A, 0>(space, a, x, b, y);
    case -1: return axpby_classed<A, -1>(space, a, x, b, y);
    case 1: return axpby_classed<A, 1>(space, a, x, b, y);
    default: return axpby_classed<A, 2>(space, a, x, b, y);
  }
}

/// y = a x + b y.
template <class ExecSpace, class Scalar, class X, class Y>
void axpby(const ExecSpace& space, Scalar a, const X& x, Scalar b, const Y& y) {
  check_same_length("trellis::axpby", x, y);
  switch (coefficient_class(a)) {
    case 0: return axpby_classed_b<0>(space, a, x, b, y);
    case -1: return axpby_classed_b<-1>(space, a, x, b, y);
    case 1: return axpby_classed_b<1>(space, a, x, b, y);
    default: return axpby_classed_b<2>(space, a, x, b, y);
  }
}

/// z = a x + b y + c z, in one pass (c = 0: z is not read). The plain
/// expression for every coefficient (not KokkosBlas::update's special cases
/// for -1, 0 and 1); no driver uses it today.
template <class ExecSpace, class Scalar, class X, class Y, class Z>
void update(const ExecSpace& space, Scalar a, const X& x, Scalar b, const Y& y, Scalar c, const Z& z) {
  check_same_length("trellis::update", x, z);
  check_same_length("trellis::update", y, z);
  Kokkos::parallel_for(
      "trellis::update", trellis::RangePolicy<ExecSpace>(space, 0, z.extent(0)),
      KOKKOS_LAMBDA(size_t i) { z(i) = c == Scalar(0) ? a * x(i) + b * y(i) : a * x(i) + b * y(i) + c * z(i); });
}

/// y = a x, as a * x(i) for every a: what KokkosBlas::scal computes for
/// rank-1 Views in Kokkos Kernels 3.4 (its coefficient classes are lost on
/// that path), so a = 0 keeps the sign of zero and NaN of x as it did.
template <class ExecSpace, class Scalar, class X, class Y>
void scale(const ExecSpace& space, Scalar a, const X& x, const Y& y) {
  check_same_length("trellis::scale", x, y);
  Kokkos::parallel_for(
      "trellis::scale", trellis::RangePolicy<ExecSpace>(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(size_t i) { y(i) = a * x(i); });
}

}  // namespace trellis::detail
