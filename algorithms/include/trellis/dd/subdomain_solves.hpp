#pragma once
// The subdomain solve kernels (seed 000, sections 4.1-4.4). One team per
// subdomain; the subdomain's part of the vector lives in team scratch
// ("lds") unless a variant says otherwise.
//
// All DAG variants are one kernel, run_dag, steered by a DagPlan: which
// lower solve (none, unit L, or L D with the row scaling after each level),
// whether D^{-1} scales every row after it, whether the unit upper U' solve
// follows (fusion, section 4.4), and vertex- or edge-centric traversal.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/dd/subdomain_factors.hpp"
#include "trellis/ilu/detail/block_ops.hpp"

namespace trellis::dd {

enum class LowerStep { none, unit, with_diagonal };

struct DagPlan {
  bool scratch_vector = true;  // lds: the subdomain's vector in team scratch
  bool vertex_centric = false;
  LowerStep lower = LowerStep::unit;
  bool scale_after_lower = false;  // x = D^{-1} x on all rows (ILDU0)
  bool upper = false;              // unit U' solve
};

namespace detail {

/// Where the entries of an edge-centric level come from. In level order: the
/// LevelOrderedBlocks copy (entry e at slot e, one load deep).
template <int B, class Sched, class Blocks>
struct EntriesInLevelOrder {
  Sched s;
  Blocks t;
  KOKKOS_INLINE_FUNCTION ordinal_t row(offset_t e) const { return s.edge_row(e); }
  KOKKOS_INLINE_FUNCTION offset_t slot(offset_t e) const { return e; }
  KOKKOS_INLINE_FUNCTION ordinal_t column(offset_t k) const { return t.col(k); }
  KOKKOS_INLINE_FUNCTION auto element(offset_t k, int q) const { return t.val(q * t.size + k); }
};

/// By position: the triangle's CSR arrays through the schedule's edge_pos
/// (for L D, which has no level-ordered copy).
template <int B, class Sched, class Col, class Val>
struct EntriesByPosition {
  Sched s;
  Col col;
  Val val;
  KOKKOS_INLINE_FUNCTION ordinal_t row(offset_t e) const { return s.edge_row(e); }
  KOKKOS_INLINE_FUNCTION offset_t slot(offset_t e) const { return s.edge_pos(e); }
  KOKKOS_INLINE_FUNCTION ordinal_t column(offset_t k) const { return col(k); }
  KOKKOS_INLINE_FUNCTION auto element(offset_t k, int q) const { return val(k * B * B + q); }
};

/// One team thread's entry of an edge-centric level, read from global memory
/// ahead of the level that uses it. Blocks up to 4x4 are held in registers;
/// larger ones keep their slot and are read when applied (two 8x8 blocks per
/// thread would spill).
template <int B, class Scalar>
struct EdgeAhead {
  static constexpr bool holds_block = B <= 4;
  bool valid = false;
  ordinal_t row = 0, col = 0;
  offset_t slot = 0;
  Scalar a[holds_block ? B * B : 1];
};

template <int B, class Entries, class Scalar>
KOKKOS_INLINE_FUNCTION void read_edge(const Entries& src, offset_t e, EdgeAhead<B, Scalar>& r) {
  r.slot = src.slot(e);
  r.row = src.row(e);
  r.col = src.column(r.slot);
  if constexpr (EdgeAhead<B, Scalar>::holds_block)
    for (int q = 0; q < B * B; ++q) r.a[q] = src.element(r.slot, q);
}

/// x_row -= T x_col with atomics (other threads of the level may add to the same row).
template <int B, class Entries, class Scalar>
KOKKOS_INLINE_FUNCTION void apply_edge(const Entries& src, const EdgeAhead<B, Scalar>& r, Scalar* x, ordinal_t lo) {
  const Scalar* xj = x + (r.col - lo) * B;
  Scalar* xi = x + (r.row - lo) * B;
  for (int c = 0; c < B; ++c) {
    Scalar v = 0;
    for (int d = 0; d < B; ++d) {
      if constexpr (EdgeAhead<B, Scalar>::holds_block)
        v += r.a[c * B + d] * xj[d];
      else
        v += src.element(r.slot, c * B + d) * xj[d];
    }
    Kokkos::atomic_add(xi + c, -v);
  }
}

/// Edge-centric levels [g0, g1) (section 4.2.4): team threads take the
/// entries of a level's rows, a barrier after each level, then after(g).
/// Pipelined: before working on level g a thread reads its first entry of
/// level g + 1 (and the level pointer of g + 3), so the global loads of the
/// matrix overlap the level before instead of following its barrier; the
/// chain of levels then waits only on scratch and barriers.
template <int B, class Member, class Sched, class Entries, class Scalar, class AfterLevel>
KOKKOS_INLINE_FUNCTION void edge_levels(const Member& m, const Sched& s, ordinal_t g0, ordinal_t g1, const Entries& src,
                                        Scalar* x, ordinal_t lo, const AfterLevel& after) {
  if (g1 <= g0) return;
  const offset_t rank = m.team_rank(), step = m.team_size();
  // Level g's entries are [begin, end); level g + 1's end at next_end.
  offset_t begin = s.edge_ptr(g0), end = s.edge_ptr(g0 + 1);
  offset_t next_end = g0 + 1 < g1 ? s.edge_ptr(g0 + 2) : end;
  EdgeAhead<B, Scalar> next;
  next.valid = begin + rank < end;
  if (next.valid) read_edge(src, begin + rank, next);
  for (ordinal_t g = g0; g < g1; ++g) {
    const EdgeAhead<B, Scalar> now = next;
    const offset_t later_end = g + 2 < g1 ? s.edge_ptr(g + 3) : next_end;
    next.valid = g + 1 < g1 && end + rank < next_end;
    if (next.valid) read_edge(src, end + rank, next);
    if (now.valid) apply_edge(src, now, x, lo);
    for (offset_t e = begin + rank + step; e < end; e += step) {  // levels wider than the team
      EdgeAhead<B, Scalar> more;
      read_edge(src, e, more);
      apply_edge(src, more, x, lo);
    }
    m.team_barrier();
    after(g);
    begin = end;
    end = next_end;
    next_end = later_end;
  }
}

/// Vertex-centric level g (section 4.2.3): one team thread per row, its
/// entries in order, so the result is bit-reproducible.
template <int B, class Member, class Sched, class Entries, class Scalar>
KOKKOS_INLINE_FUNCTION void vertex_level(const Member& m, const Sched& s, ordinal_t g, const Entries& src, Scalar* x,
                                         ordinal_t lo) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(m, s.level_ptr(g), s.level_ptr(g + 1)), [&](offset_t p) {
    Scalar* xi = x + (s.level_rows(p) - lo) * B;
    Scalar acc[B];
    for (int c = 0; c < B; ++c) acc[c] = xi[c];
    for (offset_t e = s.row_edge_ptr(p); e < s.row_edge_ptr(p + 1); ++e) {
      const offset_t k = src.slot(e);
      const Scalar* xj = x + (src.column(k) - lo) * B;
      for (int c = 0; c < B; ++c)
        for (int d = 0; d < B; ++d) acc[c] -= src.element(k, c * B + d) * xj[d];
    }
    for (int c = 0; c < B; ++c) xi[c] = acc[c];
  });
}

/// Levels [g0, g1) of one triangle, vertex- or edge-centric, a barrier and
/// after(g) after each.
template <int B, class Member, class Sched, class Entries, class Scalar, class AfterLevel>
KOKKOS_INLINE_FUNCTION void levels(const Member& m, const Sched& s, ordinal_t g0, ordinal_t g1, const Entries& src,
                                   bool vertex_centric, Scalar* x, ordinal_t lo, const AfterLevel& after) {
  if (!vertex_centric) return edge_levels<B>(m, s, g0, g1, src, x, lo, after);
  for (ordinal_t g = g0; g < g1; ++g) {
    vertex_level<B>(m, s, g, src, x, lo);
    m.team_barrier();
    after(g);
  }
}

/// x_i = D_i^{-1} x_i for the rows rows(p), p in [begin, end). For b = 1 a
/// thread takes four rows at a time and issues their D^{-1} loads before it
/// uses any: one load latency per four rows (ncu on a one-team 1138-row
/// application: 8% of its time waiting on these loads one by one); larger
/// blocks already have B*B loads in flight per row.
template <int B, class Member, class Rows, class Inv, class Scalar>
KOKKOS_INLINE_FUNCTION void scale_rows(const Member& m, offset_t begin, offset_t end, const Rows& rows,
                                       const Inv& inv_diag, Scalar* x, ordinal_t lo) {
  constexpr int ahead = B == 1 ? 4 : 1;
  const offset_t step = m.team_size();
  for (offset_t p0 = begin + m.team_rank(); p0 < end; p0 += ahead * step) {
    Scalar d[ahead][B * B];
    for (int k = 0; k < ahead; ++k)
      if (p0 + k * step < end)
        for (int q = 0; q < B * B; ++q) d[k][q] = inv_diag(size_t(rows(p0 + k * step)) * B * B + q);
    for (int k = 0; k < ahead; ++k)
      if (p0 + k * step < end) {
        Scalar* xi = x + (rows(p0 + k * step) - lo) * B;
        Scalar v[B];
        ilu::detail::block_matvec<B>(d[k], xi, v);
        for (int c = 0; c < B; ++c) xi[c] = v[c];
      }
  }
}

/// to[t] = from[t], t < count, by the team: each thread issues four loads
/// before its four stores (the compiler may not reorder a load past a store
/// through a pointer that could alias it), so a thread waits for one load
/// latency per four values, not one per value.
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION void team_copy(const Member& m, const Scalar* from, Scalar* to, size_t count) {
  constexpr int ahead = 4;
  const size_t step = m.team_size();
  for (size_t t0 = m.team_rank(); t0 < count; t0 += ahead * step) {
    Scalar v[ahead];
    for (int k = 0; k < ahead; ++k)
      if (t0 + k * step < count) v[k] = from[t0 + k * step];
    for (int k = 0; k < ahead; ++k)
      if (t0 + k * step < count) to[t0 + k * step] = v[k];
  }
}

struct Identity {
  KOKKOS_INLINE_FUNCTION ordinal_t operator()(offset_t p) const { return ordinal_t(p); }
};

}  // namespace detail

/// Subdomains [begin, end): all of them, or one rank's share (section 4.5).
struct SubdomainRange {
  ordinal_t begin = 0, end = -1;  // end < 0: to the last subdomain
};

/// out = the plan applied to in on the subdomains of `range` (both vectors in
/// the reordered numbering, full length; may not alias).
template <int B, class Scalar, class Device>
void run_dag(const typename Device::execution_space& space, const SubdomainFactors<Scalar, Device>& f,
             const DagPlan& plan, Kokkos::View<const Scalar*, Device> in, Kokkos::View<Scalar*, Device> out,
             SubdomainRange range = {}) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  using scratch_view = Kokkos::View<Scalar*, typename exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const size_t scratch = plan.scratch_vector ? scratch_view::shmem_size(size_t(f.max_subdomain_rows) * B) : 0;
  const SubdomainFactors<Scalar, Device> F = f;
  const DagPlan P = plan;
  using Sched = SubdomainSchedule<Device>;
  using Blocks = LevelOrderedBlocks<Scalar, Device>;
  using ByPosition = detail::EntriesByPosition<B, Sched, decltype(F.L_col), decltype(F.LD_val)>;
  const ordinal_t first = range.begin, last = range.end < 0 ? f.num_subdomains() : range.end;
  if (last <= first) return;
  Kokkos::parallel_for(
      "trellis::dd::dag",
      policy(space, last - first, trellis::detail::is_host_space<exec>() ? 1 : 256)
          .set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const typename policy::member_type& m) {
        const ordinal_t s = first + m.league_rank(), lo = F.sub_start(s), hi = F.sub_start(s + 1);
        Scalar* x = out.data() + size_t(lo) * B;
        if (P.scratch_vector) x = scratch_view(m.team_scratch(0), size_t(hi - lo) * B).data();
        detail::team_copy(m, in.data() + size_t(lo) * B, x, size_t(hi - lo) * B);
        m.team_barrier();
        if (P.lower != LowerStep::none) {
          auto after = [&](ordinal_t g) {
            if (P.lower != LowerStep::with_diagonal) return;
            detail::scale_rows<B>(m, F.lower.level_ptr(g), F.lower.level_ptr(g + 1), F.lower.level_rows, F.inv_diag, x,
                                  lo);
            m.team_barrier();
          };
          const ordinal_t g0 = F.lower.level_begin(s), g1 = F.lower.level_begin(s + 1);
          if (P.lower == LowerStep::unit)
            detail::levels<B>(m, F.lower, g0, g1, detail::EntriesInLevelOrder<B, Sched, Blocks>{F.lower, F.L_edges},
                              P.vertex_centric, x, lo, after);
          else
            detail::levels<B>(m, F.lower, g0, g1, ByPosition{F.lower, F.L_col, F.LD_val}, P.vertex_centric, x, lo,
                              after);
        }
        if (P.scale_after_lower) {
          detail::scale_rows<B>(m, lo, hi, detail::Identity(), F.inv_diag, x, lo);
          m.team_barrier();
        }
        if (P.upper)
          detail::levels<B>(m, F.upper, F.upper.level_begin(s), F.upper.level_begin(s + 1),
                            detail::EntriesInLevelOrder<B, Sched, Blocks>{F.upper, F.U_edges}, P.vertex_centric, x, lo,
                            [](ordinal_t) {});
        if (P.scratch_vector)
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, (hi - lo) * B),
                               [&](ordinal_t t) { out(size_t(lo) * B + t) = x[t]; });
      });
}

/// Algorithm 4.1: y = (L D)^{-1} r with ready flags. Team threads (a warp of
/// vector lanes each on GPUs) take the subdomain's rows in increasing order;
/// a row's lanes split its entries and spin on the flags of the rows they
/// need, which are always rows taken earlier by running threads of the same
/// team: no deadlock whatever the hardware schedules. The solved values live
/// in scratch; flags hold the number of the solve (epoch) that wrote them, so
/// they never need resetting.
template <int B, class Scalar, class Device>
void run_spin_loop(const typename Device::execution_space& space, const SubdomainFactors<Scalar, Device>& f,
                   Kokkos::View<int*, Device> flags, int epoch, Kokkos::View<const Scalar*, Device> r,
                   Kokkos::View<Scalar*, Device> y) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  using scratch_view = Kokkos::View<Scalar*, typename exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const bool host = trellis::detail::is_host_space<exec>();
  const int lanes = host ? 1 : 32, threads = host ? 1 : 8;
  const size_t scratch = scratch_view::shmem_size(size_t(f.max_subdomain_rows) * B);
  const SubdomainFactors<Scalar, Device> F = f;
  Kokkos::parallel_for(
      "trellis::dd::spin_loop",
      policy(space, f.num_subdomains(), threads, lanes).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const typename policy::member_type& m) {
        const ordinal_t s = m.league_rank(), lo = F.sub_start(s), hi = F.sub_start(s + 1);
        Scalar* x = scratch_view(m.team_scratch(0), size_t(hi - lo) * B).data();
        for (ordinal_t i = lo + m.team_rank(); i < hi; i += m.team_size()) {
          Scalar acc[B];
          for (int c = 0; c < B; ++c) {
            Scalar part = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(m, F.L_map(i), F.L_map(i + 1)),
                [&](offset_t k, Scalar& a) {
                  const ordinal_t j = F.L_col(k);
                  while (Kokkos::volatile_load(&flags(j)) != epoch) {
                  }
                  Kokkos::memory_fence();  // acquire: x_j is read after its flag
                  for (int d = 0; d < B; ++d)
                    a += F.LD_val(k * B * B + c * B + d) * Kokkos::volatile_load(&x[(j - lo) * B + d]);
                },
                part);
            acc[c] = r(size_t(i) * B + c) - part;
          }
          Kokkos::single(Kokkos::PerThread(m), [&]() {
            Scalar v[B];
            ilu::detail::block_matvec<B>(&F.inv_diag(size_t(i) * B * B), acc, v);
            for (int c = 0; c < B; ++c) Kokkos::volatile_store(&x[(i - lo) * B + c], v[c]);
            Kokkos::memory_fence();  // release: the value before its flag
            Kokkos::volatile_store(&flags(i), epoch);
          });
        }
        m.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, (hi - lo) * B),
                             [&](ordinal_t t) { y(size_t(lo) * B + t) = x[t]; });
      });
}

}  // namespace trellis::dd
