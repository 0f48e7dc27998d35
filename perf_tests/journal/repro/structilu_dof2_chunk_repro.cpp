// A record, not built by the project: the reproducer of the DoF 2
// wide-stencil failure on CUDA (issue 58, item 1; journal/RESULTS.md, the
// forty-seventh session). repro_sweep is StructILU's lower sweep as it was at
// a5bf24e (struct_ilu_kernels.hpp), with the chunk of loads and the variant of
// its chunk loop as template arguments:
//   0  the old code: the chunk's arrays uninitialised, loads under q >= 0,
//      products under the in-grid bit (wrong at ptxas -O2/-O3, 12 entries)
//   1  arrays zero-initialised        2  products under the loads' own test
//   3  zeroed, products unguarded (the library's since e6285a5)
//   4  the neighbours' x through volatile loads
// The DoF 2 Box-27P and Diamond-25P sweeps in chunks of 12 are compared with
// the library's (chunks of 8) on a 6^3 grid; -DTRELLIS_REPRO_TIMING adds
// old-against-new timings. structilu_dof2_chunk_variants.sh builds it with the
// CUDA build's flags plus one option each (-Xptxas=-O0 ...).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#ifndef TRELLIS_REPRO_VARIANT
#define TRELLIS_REPRO_VARIANT 0
#endif
#include "trellis/gallery/stencil_problems.hpp"
#include "trellis/structured/struct_ilu.hpp"
namespace trellis::structured::detail {
template <int B, int E, class Scalar, class Device, int Chunk, int Variant>
void repro_sweep(const typename Device::execution_space& space, WavefrontLayout<Device>& L,
                 const FactorStorage<Scalar, Device>& F, Kokkos::View<Scalar*, Device> x, bool lower) {
  using State = SweepState<B, Scalar, E>;
  const auto base = L.base;
  const int H = L.height, nx = L.grid[0], ny = L.grid[1], nz = L.grid[2];
  const int centre = F.centre, e0 = lower ? 0 : F.centre + 1, e1 = lower ? F.centre : F.entries;
  const auto values = F.values;
  const auto shifts = F.shifts;
  // IC's backward sweep: x = Lᵀ^{-1} D^{-1} x, the upper entries read from
  // the neighbours (FactorStorage::at_entry), D^{-1} applied first.
  const bool transposed = F.symmetric && !lower;
  HalfShifts<E> half{};
  half.count = e1 - e0 < E ? e1 - e0 : E;
  for (int e = 0; e < half.count; ++e) half.at[e] = F.host_shifts(e0 + e);
  // Every load is issued without a branch (a neighbour outside the grid
  // reads its point's own run instead), so a level's loads are in flight
  // together.
  auto prefetch = KOKKOS_LAMBDA(const SweepPoint& p, int r)->State {
    State st;
    st.rhs = x(p.position * B + r);
    if (transposed && B == 1) st.rhs *= values(F.at(centre, p.position, 0, 0));  // (B > 1: a pass before)
#pragma unroll
    for (int e = 0; e < State::max_entries; ++e) {
      const EntryShift& s = half.at[e];
      const bool in = e < half.count && unsigned(p.i + s.x) < unsigned(nx) && unsigned(p.j + s.y) < unsigned(ny) &&
                      unsigned(p.k + s.z) < unsigned(nz);
      st.run[e] = int(base(in ? long(p.level + s.level) * H + p.hj + s.hy : long(p.level) * H + p.hj));
      st.inside |= unsigned(in) << e;
    }
    // the point's own blocks, whether or not the neighbour exists (every
    // entry is stored)
#pragma unroll
    for (int e = 0; e < State::blocks; ++e)
      if (e < half.count) {
        const long q = (st.inside >> e) & 1u ? long(st.run[e]) + p.hi + half.at[e].hx : p.position;
        for (int c = 0; c < B; ++c) st.row[e * B + c] = values(F.at_entry(e0 + e, p.position, q, r, c));
      }
    return st;
  };
  // entry e's neighbour position, or -1 outside the grid
  auto neighbour = [=] KOKKOS_FUNCTION(const SweepPoint& p, const State& st, int e) -> long {
    return (st.inside >> e) & 1u ? long(st.run[e]) + p.hi + half.at[e].hx : -1;
  };
  // Row r of the point: rhs - sum over the half's entries of A(p,q) x(q);
  // the backward sweep with B = 1 also applies U's inverse diagonal. The
  // entries go in chunks whose loads (neighbours' x, the blocks not
  // prefetched) are all issued before the chunk's products: left to
  // itself, nvcc kept one or two entries' loads in flight at a time (box27
  // DoF 6: a level 1.5x the time of DoF 8's; box27 DoF 1: seven L2 round
  // trips a level, ncu). Chunks of about 24 values on the wide stencils
  // (E = 16) at B > 2, 8 entries at B = 2 (12 gave wrong solves on CUDA:
  // DofTwoWideSweepsInChunksOfTwelveMatchTheReference); at B = 1 all entries, or 7 (two
  // chunks) on the wide stencils, whose 13 at once took 207 registers;
  // entry by entry elsewhere, as nvcc chose fewer registers for it.
  constexpr int chunk = Chunk;
  auto body = KOKKOS_LAMBDA(const SweepPoint& p, const State& st, int r, int) {
    Scalar acc = st.rhs;
#pragma unroll
    for (int e = 0; e < State::max_entries && chunk == 1; ++e) {  // entry by entry
      const long q = neighbour(p, st, e);
      if (q < 0) continue;
      Scalar xq[B];
      for (int c = 0; c < B; ++c) xq[c] = Kokkos::volatile_load(&x(q * B + c));
      for (int c = 0; c < B; ++c)
        acc -= (e < State::blocks ? st.row[(e < State::blocks ? e : 0) * B + c]
                                  : values(F.at_entry(e0 + e, p.position, q, r, c))) *
               xq[c];
    }
#pragma unroll
    for (int first = 0; first < State::max_entries && chunk > 1; first += chunk) {
      Scalar xq[chunk][B], a[chunk][B];
      if (Variant == 1 || Variant == 3)
        for (int u = 0; u < chunk; ++u)
          for (int c = 0; c < B; ++c) xq[u][c] = 0, a[u][c] = 0;
      bool ok[chunk];
#pragma unroll
      for (int u = 0; u < chunk; ++u) {
        const int e = first + u;
        const long q = e < State::max_entries ? neighbour(p, st, e) : -1;
        ok[u] = q >= 0;
        if (q < 0) continue;
        if (Variant == 4)
          for (int c = 0; c < B; ++c) xq[u][c] = Kokkos::volatile_load(&x(q * B + c));
        else
          for (int c = 0; c < B; ++c) xq[u][c] = x(q * B + c);  // plain: see the file's head
        for (int c = 0; c < B; ++c)
          a[u][c] = e < State::blocks ? st.row[(e < State::blocks ? e : 0) * B + c]
                                      : values(F.at_entry(e0 + e, p.position, q, r, c));
      }
#pragma unroll
      for (int u = 0; u < chunk; ++u) {
        const int e = first + u;
        if (Variant == 2) {
          if (!ok[u]) continue;
        } else if (Variant == 3) {
          if (e >= State::max_entries) continue;
        } else if (e >= State::max_entries || !((st.inside >> e) & 1u))
          continue;
        for (int c = 0; c < B; ++c) acc -= a[u][c] * xq[u][c];
      }
    }
    for (int e = e0 + State::max_entries; e < e1; ++e) {  // entries beyond max_entries
      const long q = neighbour_position(base, H, nx, ny, nz, shifts(e), p.i, p.j, p.k, p.hi, p.hj, p.level);
      if (q < 0) continue;
      for (int c = 0; c < B; ++c)
        acc -= values(F.at_entry(e, p.position, q, r, c)) * Kokkos::volatile_load(&x(q * B + c));
    }
    x(p.position * B + r) = lower || B > 1 || transposed ? acc : values(F.at(centre, p.position, 0, 0)) * acc;
  };
  // x(pos) = D(pos)^{-1} x(pos), B > 1: the backward sweep's last step at
  // each point (the B rows its lanes left), or IC's pass before its sweep
  auto inverse_diagonal_times = [=] KOKKOS_FUNCTION(long pos) {
    Scalar acc[B];
    for (int c = 0; c < B; ++c) acc[c] = Kokkos::volatile_load(&x(pos * B + c));
    for (int r = 0; r < B; ++r) {
      Scalar s = 0;
      for (int c = 0; c < B; ++c) s += values(F.at(centre, pos, r, c)) * acc[c];
      x(pos * B + r) = s;
    }
  };
  auto apply_inverse_diagonal = KOKKOS_LAMBDA(const SweepPoint& p) { inverse_diagonal_times(p.position); };
  const char* label = lower ? "trellis::structilu::lower_solve" : "trellis::structilu::upper_solve";
  if (transposed && B > 1)
    Kokkos::parallel_for(
        "trellis::structilu::apply_inverse_diagonal",
        trellis::RangePolicy<typename Device::execution_space>(space, 0, F.n),
        KOKKOS_LAMBDA(long pos) { inverse_diagonal_times(pos); });
  if (lower || B == 1 || transposed)  // not constexpr: nvcc's extended lambdas cannot capture inside one
    wavefront_sweep(space, L, lower, label, prefetch, body, B);
  else
    wavefront_sweep(space, L, lower, label, prefetch, body, B, finish_with(apply_inverse_diagonal));
}
}  // namespace trellis::structured::detail
using namespace trellis;

#ifdef TRELLIS_REPRO_TIMING
// The lower sweep of the old chunk code (variant 0) and of zero-started
// chunks with unguarded products (variant 3, the library's now), same run.
template <int B, int E, int Chunk>
void time_case(StencilShape shape, int N) {
  using D = Kokkos::DefaultExecutionSpace::device_type;
  const Kokkos::DefaultExecutionSpace space;
  const Stencil st(shape);
  const auto A = gallery::stencil_problem(st, {N, N, N}, B, gallery::StencilPde::dominant, 7);
  StructIlu<double, D> M(A, StructIluOptions{});
  auto L = M.layout();
  structured::fresh_progress(L);
  Kokkos::View<double*, D> r("r", A.num_rows()), x("x", A.num_rows());
  Kokkos::deep_copy(r, 1.0);
  auto median = [&](auto&& f) {
    std::vector<double> t;
    for (int k = 0; k < 10; ++k) {
      Kokkos::deep_copy(x, r);
      space.fence();
      Kokkos::Timer timer;
      f();
      space.fence();
      if (k > 0) t.push_back(timer.seconds());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const double lib = median([&] { M.lower_solve_layout(space, x); });
  const double v0 =
      median([&] { structured::detail::repro_sweep<B, E, double, D, Chunk, 0>(space, L, M.factors(), x, true); });
  const double v3 =
      median([&] { structured::detail::repro_sweep<B, E, double, D, Chunk, 3>(space, L, M.factors(), x, true); });
  const double v0b =
      median([&] { structured::detail::repro_sweep<B, E, double, D, Chunk, 0>(space, L, M.factors(), x, true); });
  std::printf(
      "%-10s dof %d %3d^3 chunk %2d: library %.3f ms, old chunks %.3f / %.3f ms, zero-started %.3f ms (%.3fx)\n",
      st.name().c_str(), B, N, Chunk, lib * 1e3, v0 * 1e3, v0b * 1e3, v3 * 1e3, std::min(v0, v0b) / v3);
  std::fflush(stdout);
}
#endif
int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using D = Kokkos::DefaultExecutionSpace::device_type;
  const Kokkos::DefaultExecutionSpace space;
  int failures = 0;
  for (StencilShape shape : {StencilShape::diamond25, StencilShape::box27}) {
    const Stencil st(shape);
    const std::array<int, 3> g{6, 6, 6};
    const auto A = gallery::stencil_problem(st, g, 2, gallery::StencilPde::dominant, 7);
    StructIlu<double, D> M(A, StructIluOptions{});
    auto L = M.layout();
    structured::fresh_progress(L);
    const long n = long(A.num_rows());
    Kokkos::View<double*, D> r("r", n), x8("x8", n), x12("x12", n);
    auto rh = Kokkos::create_mirror_view(r);
    for (long i = 0; i < n; ++i) rh(i) = std::sin(0.37 * i + 1.0);
    Kokkos::deep_copy(r, rh);
    Kokkos::deep_copy(x8, r);
    M.lower_solve_layout(space, x8);
    Kokkos::deep_copy(x12, r);
    structured::detail::repro_sweep<2, 16, double, D, 12, TRELLIS_REPRO_VARIANT>(space, L, M.factors(), x12, true);
    space.fence();
    auto h8 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x8);
    auto h12 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x12);
    auto pos = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), L.position);
    std::vector<long> point_of(A.points());
    for (long p = 0; p < A.points(); ++p) point_of[pos(p)] = p;
    int bad = 0, nonfinite = 0;
    for (long q = 0; q < A.points(); ++q)
      for (int c = 0; c < 2; ++c) {
        const double a = h12(q * 2 + c), b = h8(q * 2 + c);
        if (!std::isfinite(a)) ++nonfinite;
        if (!(std::abs(a - b) <= 1e-12 * (1 + std::abs(b)))) {
          const long p = point_of[q];
          const int i = int(p % g[0]), j = int(p / g[0] % g[1]), k = int(p / (g[0] * g[1]));
          if (bad < 12)
            std::printf("  %s: position %ld lane %d point (%d,%d,%d) level %d: chunk 12 %.6e, chunk 8 %.6e\n",
                        st.name().c_str(), q, c, i, j, k, L.transform.level(i, j, k), a, b);
          ++bad;
        }
      }
    std::printf("%s dof 2 %dx%dx%d: %d of %ld values differ (%d not finite)\n", st.name().c_str(), g[0], g[1], g[2],
                bad, n, nonfinite);
    failures += bad > 0;
  }
#ifdef TRELLIS_REPRO_TIMING
  time_case<1, 3, 3>(StencilShape::star7, 200);
  time_case<1, 6, 6>(StencilShape::star13, 200);
  time_case<1, 6, 6>(StencilShape::diamond13, 160);
  time_case<1, 16, 7>(StencilShape::box27, 150);
  time_case<2, 16, 8>(StencilShape::box27, 100);
  time_case<2, 16, 12>(StencilShape::box27, 100);
  time_case<2, 16, 8>(StencilShape::diamond25, 100);
  time_case<2, 16, 12>(StencilShape::diamond25, 100);
  time_case<4, 16, 6>(StencilShape::diamond25, 70);
  time_case<8, 16, 3>(StencilShape::box27, 50);
#endif
  std::printf("variant %d: %s\n", TRELLIS_REPRO_VARIANT, failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
