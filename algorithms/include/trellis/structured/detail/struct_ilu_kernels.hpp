#pragma once
// StructILU's kernels (seed 003, Algorithms 1 and 2) on the wavefront
// mapping: one thread per grid point, its DoF x DoF blocks in registers
// (B a compile-time block size).
//
// Factors are stored in the vector-oriented layout (section 4.4): for each
// stencil entry e and block column c, one array over the points in layout
// order with the B rows of a point contiguous, so the threads of a warp read
// consecutive addresses:  value(e, pos, r, c) at ((e*B + c)*n + pos)*B + r.
// The centre entry holds the inverse of U's diagonal block after the
// factorization. IC keeps one factor: L's lower entries and the centre
// (L D Lᵀ with U = D Lᵀ), so an upper entry of a point is read as the
// transpose of the mirrored lower entry stored at its neighbour.
//
// Values another team wrote during the same sweep (a neighbour row's U
// and inverse diagonal, a neighbour's x) may be read with plain loads: the
// sweep's acquire fence comes after their flags and before the team's
// barrier (DESIGN.md's publish-then-flag), and on CUDA it also invalidates
// the multiprocessor's L1, so no cached copy predates the write. The
// factorization does (they may hit L1 and be reordered: 5-11% faster at
// DoF 4-8 on an H200). The triangular sweeps do only where the entries go
// in chunks (B = 1, and E = 16 at B > 1: about 10% faster at DoF 6-8) and
// keep volatile loads of x elsewhere, as plain ones made star13 and
// diamond13 DoF 8 lower solves 1.8x slower.
#include <Kokkos_Core.hpp>

#include "trellis/core/eti.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/ilu/detail/block_ops.hpp"
#include "trellis/structured/detail/wavefront_sweep.hpp"

namespace trellis::structured::detail {

template <class Scalar, class Device>
struct FactorStorage {
  Kokkos::View<Scalar*, Device> values;
  Kokkos::View<const EntryShift*, Device> shifts;                  // per factor stencil entry
  Kokkos::View<const EntryShift*, Kokkos::HostSpace> host_shifts;  // the same on the host
  long n = 0;                                                      // grid points
  int dof = 1, entries = 0, centre = 0;  // entries: of the factor stencil (a symmetric one for IC)
  // IC: only entries [0, centre] are stored. Upper entry e of point p is
  // L(q, p)ᵀ, q its neighbour, stored at q as entry entries - 1 - e (the
  // stencil's numbering is sorted, so -offset(e) is the mirrored index).
  bool symmetric = false;

  int stored_entries() const { return symmetric ? centre + 1 : entries; }
  KOKKOS_INLINE_FUNCTION size_t at(int e, long pos, int r, int c) const {
    return ((size_t(e) * dof + c) * n + pos) * dof + r;
  }
  /// Row r, column c of entry e's block of the point at pos, whose
  /// neighbour along e is at q: stored there (IC's upper entries) or here.
  KOKKOS_INLINE_FUNCTION size_t at_entry(int e, long pos, long q, int r, int c) const {
    return symmetric && e > centre ? at(entries - 1 - e, q, c, r) : at(e, pos, r, c);
  }
};

/// The position of point (i, j, k)'s neighbour along entry e, or -1 when it
/// lies outside the grid.
template <class Layout>
KOKKOS_INLINE_FUNCTION long neighbour_position(const Layout& base, int H, int nx, int ny, int nz, const EntryShift& s,
                                               int i, int j, int k, int hi, int hj, int lev) {
  const int x = i + s.x, y = j + s.y, z = k + s.z;
  if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) return -1;
  return base(long(lev + s.level) * H + hj + s.hy) + hi + s.hx;
}

/// Pivot failures: the first (lowest key) is reported, key = point * 16 +
/// dof column * 2 + (1 if not finite).
struct PivotReport {
  Kokkos::View<long long, Kokkos::HostSpace> first;
  int boosted = 0;
};

/// What the factorization does in which order (made once per layout).
///
/// IKJ updates: update_upper/update_target[update_start(e) ..
/// update_start(e+1)) list, for lower entry e, the pairs (upper entry u of
/// the neighbour row, entry e + u of this row). An entry only updates
/// entries of a higher intra-row level (u's level is positive), so the
/// lower entries may be eliminated level by level (seed 003, section 4.2.2):
/// `order` lists them by intra-row level, deepest first (then by column),
/// in groups of one level, [group_start(g), group_start(g+1)); the first
/// `deep` of them lie two or more grid levels back. Unpipelined: the column
/// order, a group per entry, deep = 0.
template <class Device>
struct FactorPlan {
  Kokkos::View<const int*, Device> update_start, update_upper, update_target;
  Kokkos::View<const int*, Device> upper_for;  // entry lanes: [e * entries + t], the u of e's update of t, or -1
  Kokkos::View<const int*, Device> order, group_start;
  int groups = 0, deep = 0;
};

/// In-place ILU(0) of the stored values (Algorithm 1, the IKJ updates in
/// the plan's order).
///
/// For B > 1 a point runs as B lanes (seed 003's intra-element
/// parallelism): lane r eliminates row r of every block of the block row,
/// B^2 work per block product instead of B^3, and records its row's largest
/// entry in row_scale; then one lane inverts the diagonal block. The
/// arithmetic per entry is the same as one thread doing all rows. The
/// two-substage pipeline (section 4.2.2): the plan's deep entries are
/// eliminated before the point's wait (wavefront_sweep's early step), the
/// rest after it.
template <int B, class Scalar, class Device>
PivotReport factor(const typename Device::execution_space& space, WavefrontLayout<Device>& L,
                   const FactorStorage<Scalar, Device>& F, const FactorPlan<Device>& plan,
                   Kokkos::View<Scalar*, Device> row_scale, double tolerance, double boost) {
  Kokkos::View<long long, Device> first("trellis::structilu::pivot_first");
  Kokkos::View<int, Device> boosted("trellis::structilu::pivot_boosted");
  Kokkos::deep_copy(space, first, LLONG_MAX);
  const auto base = L.base;
  const int H = L.height, nx = L.grid[0], ny = L.grid[1], nz = L.grid[2];
  const int centre = F.centre, entries = F.entries;
  const auto values = F.values;
  const auto shifts = F.shifts;
  const auto update_start = plan.update_start, update_upper = plan.update_upper, update_target = plan.update_target;
  const auto upper_for = plan.upper_for, order = plan.order, group_start = plan.group_start;
  const int groups = plan.groups, deep = plan.deep;
  // Row r of the point's block row: its largest entry (before elimination).
  auto row_scale_of = [=] KOKKOS_FUNCTION(const SweepPoint& pt, int r) -> Scalar {
    Scalar scale = 0;
    for (int e = 0; e < entries; ++e) {
      if (neighbour_position(base, H, nx, ny, nz, shifts(e), pt.i, pt.j, pt.k, pt.hi, pt.hj, pt.level) < 0) continue;
      for (int c = 0; c < B; ++c) {
        const Scalar v = math::fabs(values(F.at(e, pt.position, r, c)));
        scale = v > scale ? v : scale;
      }
    }
    return scale;
  };
  // Row r of the point's block row: the lower entries order[k0, k1)
  // eliminated in place.
  auto eliminate_row = [=] KOKKOS_FUNCTION(const SweepPoint& pt, int r, int k0, int k1) {
    if (k0 >= k1) return;
    const int i = pt.i, j = pt.j, k = pt.k, hi = pt.hi, hj = pt.hj, lev = pt.level;
    const long pos = pt.position;
    // The row is read and updated many times (every update entry): a
    // thread-local copy (L1-cached local memory) when it is small enough.
    constexpr int local_capacity = 128;
    Scalar local[local_capacity];
    const bool use_local = entries * B <= local_capacity;
    auto row = [&](int e, int c) -> Scalar& { return use_local ? local[e * B + c] : values(F.at(e, pos, r, c)); };
    if (use_local)
      for (int e = 0; e < entries; ++e)
        for (int c = 0; c < B; ++c) local[e * B + c] = values(F.at(e, pos, r, c));
    for (int o = k0; o < k1; ++o) {
      const int e = order(o);
      const long q = neighbour_position(base, H, nx, ny, nz, shifts(e), i, j, k, hi, hj, lev);
      if (q < 0) continue;
      Scalar l[B];  // L(p,q) = A(p,q) U(q,q)^{-1}, row r
      for (int c = 0; c < B; ++c) {
        Scalar sum = 0;
        for (int m = 0; m < B; ++m) sum += row(e, m) * values(F.at(centre, q, m, c));
        l[c] = sum;
      }
      for (int c = 0; c < B; ++c) row(e, c) = l[c];
      for (int u = update_start(e); u < update_start(e + 1); ++u) {
        const int ue = update_upper(u), te = update_target(u);
        const EntryShift se = shifts(e), su = shifts(ue);
        const int x = i + se.x + su.x, y = j + se.y + su.y, z = k + se.z + su.z;
        if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) continue;
        for (int c = 0; c < B; ++c) {  // A(p,t) -= L(p,q) U(q,t), row r
          Scalar sum = 0;
          for (int m = 0; m < B; ++m) sum += l[m] * values(F.at(ue, q, m, c));
          row(te, c) -= sum;
        }
      }
    }
    if (use_local)
      for (int e = 0; e < entries; ++e)
        for (int c = 0; c < B; ++c) values(F.at(e, pos, r, c)) = local[e * B + c];
  };
  // The centre block replaced by its inverse; pivot failures recorded.
  auto invert_centre = [=] KOKKOS_FUNCTION(const SweepPoint& pt, Scalar scale) {
    const long pos = pt.position;
    Scalar block[B * B];  // inverted in place (block_invert reads it whole first)
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) block[r * B + c] = values(F.at(centre, pos, r, c));
    int column = 0;
    const Scalar unit = scale > 0 ? scale : Scalar(1);
    // on a failure the inverse is zero, so dependants finish; the error is raised after
    const int status =
        ilu::detail::block_invert<B>(block, block, Scalar(tolerance) * unit, Scalar(boost) * unit, &column);
    if (status == ilu::detail::pivot_boosted) compat::atomic_increment(&boosted());
    if (status == ilu::detail::pivot_tiny || status == ilu::detail::pivot_not_finite) {
      const long p = pt.i + long(nx) * (pt.j + long(ny) * pt.k);
      Kokkos::atomic_fetch_min(&first(),
                               (long long)(p)*16 + column * 2 + (status == ilu::detail::pivot_not_finite ? 1 : 0));
    }
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) values(F.at(centre, pos, r, c)) = block[r * B + c];
  };
  // invert_centre with the block row's scale: the largest of its rows' (row_scale)
  auto invert_centre_by_row_scales = [=] KOKKOS_FUNCTION(const SweepPoint& pt) {
    Scalar scale = 0;
    for (int r = 0; r < B; ++r) {
      const Scalar v = row_scale(pt.position * B + r);
      scale = v > scale ? v : scale;
    }
    invert_centre(pt, scale);
  };
  // Entry lanes (at DoF 1 the paper's intra-row parallelism; at DoF > 1
  // on request): a lane per entry t and row r of the block row, the plan's
  // groups as level sets (section 4.2.2). Phase 0 takes row r's scale;
  // phase g + 1 (g = 0 .. groups): lane (t, r) subtracts from its entry
  // the updates of group g - 1's entries (row r of L(p,q) U(q, t - e)), then
  // forms row r of L(p,q) = A(p,q) U(q,q)^{-1} if t is in group g. Each
  // target's updates come in the plan's order: the same bits as
  // eliminate_row. The last phase inverts the pivot block.
  const bool entry_lanes = upper_for.extent(0) > 0;
  const int lane_phases = groups + 3;
  auto entry_lane_step = [=] KOKKOS_FUNCTION(const SweepPoint& pt, int lane, int phase) {
    const int t = lane / B, r = lane % B;
    const long pos = pt.position;
    auto q_of = [&](int e) {
      return neighbour_position(base, H, nx, ny, nz, shifts(e), pt.i, pt.j, pt.k, pt.hi, pt.hj, pt.level);
    };
    if (phase == 0 || phase == lane_phases - 1) {
      if (t != centre) return;
      if (phase == 0)
        row_scale(pos * B + r) = row_scale_of(pt, r);
      else if (r == 0)
        invert_centre_by_row_scales(pt);
      return;
    }
    const int g = phase - 1;
    if (g > 0)
      for (int o = group_start(g - 1); o < group_start(g); ++o) {  // A(p,t) -= L(p,q) U(q,ue), row r
        const int e = order(o);
        const int ue = upper_for(e * entries + t);  // offset(e) + offset(ue) = offset(t)
        if (ue < 0) continue;
        const long q = q_of(e);
        if (q < 0) continue;
        const EntryShift se = shifts(e), su = shifts(ue);
        const int x = pt.i + se.x + su.x, y = pt.j + se.y + su.y, z = pt.k + se.z + su.z;
        if (x < 0 || y < 0 || z < 0 || x >= nx || y >= ny || z >= nz) continue;
        Scalar l[B];
        for (int m = 0; m < B; ++m) l[m] = values(F.at(e, pos, r, m));
        for (int c = 0; c < B; ++c) {
          Scalar sum = 0;
          for (int m = 0; m < B; ++m) sum += l[m] * values(F.at(ue, q, m, c));
          values(F.at(t, pos, r, c)) -= sum;
        }
      }
    if (g < groups && t < centre) {
      bool mine = false;  // t in group g
      for (int o = group_start(g); o < group_start(g + 1); ++o) mine = mine || order(o) == t;
      const long q = mine ? q_of(t) : -1;
      if (q < 0) return;
      Scalar a[B];  // row r of A(p,q), then of L(p,q)
      for (int m = 0; m < B; ++m) a[m] = values(F.at(t, pos, r, m));
      for (int c = 0; c < B; ++c) {
        Scalar sum = 0;
        for (int m = 0; m < B; ++m) sum += a[m] * values(F.at(centre, q, m, c));
        values(F.at(t, pos, r, c)) = sum;
      }
    }
  };
  // IC (F.symmetric; row_scale given): with W the updated A(p,q) and
  // L(p,q) = W D(q)^{-1}, ILU's update L(p,q) U(q,t) is W L(t,q)ᵀ (U = D Lᵀ,
  // D symmetric), and the centre's is W D(q)^{-1} Wᵀ; updates of the upper
  // entries are not made (the update lists hold lower targets only). Phase
  // 0: lane r eliminates row r's lower entries, leaving W; phase 1: row r
  // of the centre, from every lane's W rows; phase 2: W -> L. At B = 1 one
  // lane does all three in turn and inverts the pivot.
  auto ic_step = [=] KOKKOS_FUNCTION(const SweepPoint& pt, int r, int phase) {
    const long pos = pt.position;
    auto q_of = [&](int e) {
      return neighbour_position(base, H, nx, ny, nz, shifts(e), pt.i, pt.j, pt.k, pt.hi, pt.hj, pt.level);
    };
    auto l_row = [&](int e, long q, Scalar* l) {  // row r of L(p,q) = W D(q)^{-1}
      for (int c = 0; c < B; ++c) {
        Scalar sum = 0;
        for (int m = 0; m < B; ++m) sum += values(F.at(e, pos, r, m)) * values(F.at(centre, q, m, c));
        l[c] = sum;
      }
    };
    if (B == 1 || phase == 0) {
      constexpr int local_capacity = 128;  // row r's lower entries, as in eliminate_row
      Scalar local[local_capacity];
      const bool use_local = centre * B <= local_capacity;
      auto row = [&](int e, int c) -> Scalar& { return use_local ? local[e * B + c] : values(F.at(e, pos, r, c)); };
      if (use_local)
        for (int e = 0; e < centre; ++e)
          for (int c = 0; c < B; ++c) local[e * B + c] = values(F.at(e, pos, r, c));
      for (int e = 0; e < centre; ++e) {
        if (q_of(e) < 0) continue;
        for (int u = update_start(e); u < update_start(e + 1); ++u) {
          const int te = update_target(u);
          const long t = q_of(te);
          if (t < 0) continue;
          const int mirror = entries - 1 - update_upper(u);  // L(t,q): the entry -offset(u) of point t
          for (int c = 0; c < B; ++c) {                      // A(p,t) -= W L(t,q)ᵀ, row r
            Scalar sum = 0;
            for (int m = 0; m < B; ++m) sum += row(e, m) * values(F.at(mirror, t, c, m));
            row(te, c) -= sum;
          }
        }
      }
      if (use_local)
        for (int e = 0; e < centre; ++e)
          for (int c = 0; c < B; ++c) values(F.at(e, pos, r, c)) = local[e * B + c];
    }
    if (B == 1 || phase == 1) {
      for (int e = 0; e < centre; ++e) {
        const long q = q_of(e);
        if (q < 0) continue;
        Scalar l[B];
        l_row(e, q, l);
        for (int c = 0; c < B; ++c) {  // A(p,p) -= L(p,q) Wᵀ, row r
          Scalar sum = 0;
          for (int m = 0; m < B; ++m) sum += l[m] * values(F.at(e, pos, c, m));
          values(F.at(centre, pos, r, c)) -= sum;
        }
        if (B == 1) values(F.at(e, pos, 0, 0)) = l[0];  // no other lane reads W
      }
    }
    if (B > 1 && phase == 2) {
      for (int e = 0; e < centre; ++e) {
        const long q = q_of(e);
        if (q < 0) continue;
        Scalar l[B];
        l_row(e, q, l);
        for (int c = 0; c < B; ++c) values(F.at(e, pos, r, c)) = l[c];
      }
    }
    if (B == 1) invert_centre(pt, row_scale(pos));
  };
  if (F.symmetric && B == 1) {
    wavefront_sweep(
        space, L, true, "trellis::structilu::factor_ic", NoPrefetch(),
        KOKKOS_LAMBDA(const SweepPoint& pt, NoPrefetch::State, int, int) { ic_step(pt, 0, 0); });
  } else if (F.symmetric) {
    wavefront_sweep(
        space, L, true, "trellis::structilu::factor_ic", NoPrefetch(),
        KOKKOS_LAMBDA(const SweepPoint& pt, NoPrefetch::State, int r, int phase) { ic_step(pt, r, phase); }, B,
        finish_with(KOKKOS_LAMBDA(const SweepPoint& pt) { invert_centre_by_row_scales(pt); }), 3);
  } else if (entry_lanes) {
    wavefront_sweep(
        space, L, true, "trellis::structilu::factor", NoPrefetch(),
        KOKKOS_LAMBDA(const SweepPoint& pt, NoPrefetch::State, int lane, int phase) {
          entry_lane_step(pt, lane, phase);
        },
        entries * B, NoFinish(), lane_phases);
  } else {
    // before the wait: row r's scale, and its deep entries eliminated
    auto first_substage = KOKKOS_LAMBDA(const SweepPoint& pt, NoPrefetch::State&, int r) {
      row_scale(pt.position * B + r) = row_scale_of(pt, r);
      eliminate_row(pt, r, 0, deep);
    };
    if (B == 1)  // not constexpr: nvcc's extended lambdas cannot capture inside one
      wavefront_sweep(
          space, L, true, "trellis::structilu::factor", NoPrefetch(),
          KOKKOS_LAMBDA(const SweepPoint& pt, NoPrefetch::State, int, int) {
            eliminate_row(pt, 0, deep, centre);
            invert_centre(pt, row_scale(pt.position));
          },
          1, NoFinish(), 1, early_with(first_substage));
    else
      wavefront_sweep(
          space, L, true, "trellis::structilu::factor", NoPrefetch(),
          KOKKOS_LAMBDA(const SweepPoint& pt, NoPrefetch::State, int r, int) { eliminate_row(pt, r, deep, centre); }, B,
          finish_with(KOKKOS_LAMBDA(const SweepPoint& pt) { invert_centre_by_row_scales(pt); }), 1,
          early_with(first_substage));
  }
  PivotReport report;
  report.first = Kokkos::View<long long, Kokkos::HostSpace>("trellis::structilu::pivot_first_host");
  Kokkos::deep_copy(space, report.first, first);
  auto b = Kokkos::create_mirror_view(Kokkos::HostSpace(), boosted);
  Kokkos::deep_copy(space, b, boosted);
  space.fence();
  report.boosted = b();
  return report;
}

/// What a lane of a triangular sweep loads before its point's wait: its
/// row of the right-hand side, the neighbours' positions, and its row of
/// the first entries' blocks (as many as fit 16 values, in registers), for
/// a half (lower or upper entries) of at most E entries. E is a compile-time
/// size so that a small stencil's state takes few registers (more teams
/// resident on a GPU).
template <int B, class Scalar, int E>
struct SweepState {
  static constexpr int max_entries = E;                          // positions kept
  static constexpr int most_blocks = 16 / B < 13 ? 16 / B : 13;  // block rows in 16 values
  static constexpr int blocks = most_blocks < E ? most_blocks : E;
  Scalar rhs;
  // base(level, ĵ) of each neighbour's run as loaded (< points, which fit
  // an int): the neighbour's position adds its î, in the body, so that no
  // arithmetic waits on the load within the step
  int run[max_entries];
  unsigned inside = 0;  // bit e: entry e's neighbour is in the grid
  Scalar row[blocks * B];
};

/// The first E entries of a half, held by the kernel itself (its
/// arguments): a sweep reads them at every level, and loaded from memory
/// each one's load and bounds test came before its neighbour's base load.
///
/// Slots are in the order of the intra-row pipeline (seed 003, section
/// 4.2.1): the entries of intra-row level 1 (|level| = 1: the previous grid
/// level) first, [0, last_stage), then the deeper ones, summed before the
/// point's wait. Unpipelined (or a half of more than E entries), the
/// stencil's order and last_stage = count.
template <int E>
struct HalfShifts {
  EntryShift at[E] = {};  // zero past count: a kernel computes with every slot (garbage there broke DoF 2 on CUDA)
  int entry[E] = {};      // the stored entry of each slot
  int count = 0;          // entries of the half, if fewer than E
  int last_stage = 0;     // slots summed after the wait

  HalfShifts(const Kokkos::View<const EntryShift*, Kokkos::HostSpace>& shifts, int e0, int e1, bool pipelined) {
    count = e1 - e0 < E ? e1 - e0 : E;
    const bool staged = pipelined && e1 - e0 <= E;
    auto level_one = [&](int e) { return shifts(e).level == 1 || shifts(e).level == -1; };
    int slot = 0;
    for (int e = e0; e < e0 + count && staged; ++e)
      if (level_one(e)) at[slot] = shifts(e), entry[slot++] = e;
    last_stage = staged ? slot : count;
    for (int e = e0; e < e0 + count; ++e)
      if (!staged || !level_one(e)) at[slot] = shifts(e), entry[slot++] = e;
  }
};

/// Entries whose loads a sweep's body issues together (see its comment):
/// at B = 1 all entries, or 7 on the wide stencils; at B > 1 about 24
/// values on the wide stencils (E = 16), 8 entries at B = 2; else 1.
template <int B, int E>
constexpr int sweep_chunk() {
  return B == 1 ? (E < 8 ? E : 7) : E == 16 ? (B == 2 ? 8 : 24 / B) : 1;
}

/// x = L^{-1} x (unit lower, forward sweep) or x = U^{-1} x (backward sweep,
/// the centre entry holding U's inverse diagonal blocks), in place, layout
/// order, B values per point. A point runs as B lanes (seed 003's DoF
/// threads per grid point), lane r computing row r; in the backward sweep
/// one lane then applies the inverse diagonal block to the B rows.
///
/// Pipelined (seed 003, section 4.2.1): a point's entries beyond intra-row
/// level 1 are summed before its level's wait (wavefront_sweep's early
/// step), as the previous level finishes: only the level-1 entries' loads
/// and products follow the wait. Star-7P has none beyond level 1.
template <int B, int E, class Scalar, class Device, int Chunk = sweep_chunk<B, E>()>
void triangular_sweep_of(const typename Device::execution_space& space, WavefrontLayout<Device>& L,
                         const FactorStorage<Scalar, Device>& F, Kokkos::View<Scalar*, Device> x, bool lower,
                         bool pipelined = true) {
  using State = SweepState<B, Scalar, E>;
  const auto base = L.base;
  const int H = L.height, nx = L.grid[0], ny = L.grid[1], nz = L.grid[2];
  const int centre = F.centre, e0 = lower ? 0 : F.centre + 1, e1 = lower ? F.centre : F.entries;
  const auto values = F.values;
  const auto shifts = F.shifts;
  // IC's backward sweep: x = Lᵀ^{-1} D^{-1} x, the upper entries read from
  // the neighbours (FactorStorage::at_entry), D^{-1} applied first.
  const bool transposed = F.symmetric && !lower;
  const HalfShifts<E> half(F.host_shifts, e0, e1, pipelined);
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
        for (int c = 0; c < B; ++c) st.row[e * B + c] = values(F.at_entry(half.entry[e], p.position, q, r, c));
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
  // (E = 16) at B > 2, 8 entries at B = 2; at B = 1 all entries, or 7 (two
  // chunks) on the wide stencils, whose 13 at once took 207 registers;
  // entry by entry elsewhere, as nvcc chose fewer registers for it.
  //
  // A chunk's values start at zero and its products run for every entry,
  // with no second in-grid test: ptxas (CUDA 13.0, sm_90) at -O2 and -O3
  // dropped the twelfth entry's product of a 12-entry chunk at B = 2 when the
  // products were guarded by the in-grid bit again: its select tested entry
  // 3's bit instead of entry 11's (the same PTX is right at -O0/-O1;
  // DofTwoWideSweepsInChunksOfTwelveMatchTheReference, perf_tests/journal/repro/).
  constexpr int chunk = Chunk;
  // acc -= A(p,q) x(q), row r, over the slots [lo, hi)
  auto subtract_slots = [=] KOKKOS_FUNCTION(const SweepPoint& p, const State& st, int r, int lo, int hi, Scalar& acc) {
#pragma unroll
    for (int e = 0; e < State::max_entries && chunk == 1; ++e) {  // entry by entry
      const long q = e >= lo && e < hi ? neighbour(p, st, e) : -1;
      if (q < 0) continue;
      Scalar xq[B];
      for (int c = 0; c < B; ++c) xq[c] = Kokkos::volatile_load(&x(q * B + c));
      for (int c = 0; c < B; ++c)
        acc -= (e < State::blocks ? st.row[(e < State::blocks ? e : 0) * B + c]
                                  : values(F.at_entry(half.entry[e], p.position, q, r, c))) *
               xq[c];
    }
#pragma unroll
    for (int first = 0; first < State::max_entries && chunk > 1; first += chunk) {
      if (first + chunk <= lo || first >= hi) continue;
      Scalar xq[chunk][B] = {}, a[chunk][B] = {};  // zero: an entry outside the grid adds 0 x 0
#pragma unroll
      for (int u = 0; u < chunk; ++u) {
        const int e = first + u;
        const long q = e < State::max_entries && e >= lo && e < hi ? neighbour(p, st, e) : -1;
        if (q < 0) continue;
        for (int c = 0; c < B; ++c) xq[u][c] = x(q * B + c);  // plain: see the file's head
        for (int c = 0; c < B; ++c)
          a[u][c] = e < State::blocks ? st.row[(e < State::blocks ? e : 0) * B + c]
                                      : values(F.at_entry(half.entry[e], p.position, q, r, c));
      }
#pragma unroll
      for (int u = 0; u < chunk; ++u)
        for (int c = 0; c < B && first + u < State::max_entries; ++c) acc -= a[u][c] * xq[u][c];
    }
  };
  // the entries beyond the last stage, into the state's right-hand side
  auto early = KOKKOS_LAMBDA(const SweepPoint& p, State& st, int r) {
    subtract_slots(p, st, r, half.last_stage, half.count, st.rhs);
  };
  auto body = KOKKOS_LAMBDA(const SweepPoint& p, const State& st, int r, int) {
    Scalar acc = st.rhs;
    subtract_slots(p, st, r, 0, half.last_stage, acc);
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
    wavefront_sweep(space, L, lower, label, prefetch, body, B, NoFinish(), 1, early_with(early));
  else
    wavefront_sweep(space, L, lower, label, prefetch, body, B, finish_with(apply_inverse_diagonal), 1,
                    early_with(early));
}

/// triangular_sweep_of with the state sized for the half's entries: Star-7P
/// (3), Star-13P and Diamond-13P (6), the rest (16; entries beyond are read
/// without prefetch).
template <int B, class Scalar, class Device>
void triangular_sweep(const typename Device::execution_space& space, WavefrontLayout<Device>& L,
                      const FactorStorage<Scalar, Device>& F, Kokkos::View<Scalar*, Device> x, bool lower,
                      bool pipelined) {
  const int half = lower ? F.centre : F.entries - F.centre - 1;
  if (half <= 3)
    triangular_sweep_of<B, 3>(space, L, F, x, lower, pipelined);
  else if (half <= 6)
    triangular_sweep_of<B, 6>(space, L, F, x, lower, pipelined);
  else
    triangular_sweep_of<B, 16>(space, L, F, x, lower, pipelined);
}

// Compiled once per DoF and backend (algorithms/src/eti/struct_ilu_kernels.cpp.in),
// one file each so that they compile in parallel. KIND: nothing (the
// instantiation) or extern (its declaration).
#define TRELLIS_STRUCT_ILU_KERNELS(KIND, DEVICE, B)                                                                    \
  KIND template PivotReport factor<B, double, DEVICE>(const DEVICE::execution_space&, WavefrontLayout<DEVICE>&,        \
                                                      const FactorStorage<double, DEVICE>&, const FactorPlan<DEVICE>&, \
                                                      Kokkos::View<double*, DEVICE>, double, double);                  \
  KIND template void triangular_sweep<B, double, DEVICE>(const DEVICE::execution_space&, WavefrontLayout<DEVICE>&,     \
                                                         const FactorStorage<double, DEVICE>&,                         \
                                                         Kokkos::View<double*, DEVICE>, bool, bool);
#define TRELLIS_STRUCT_ILU_KERNELS_INSTANTIATE(DEVICE, B) TRELLIS_STRUCT_ILU_KERNELS(, DEVICE, B)
#if TRELLIS_ENABLE_ETI
// clang-format off
#define TRELLIS_STRUCT_ILU_KERNELS_EXTERN(DEVICE)  \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 1)    \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 2)    \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 3)    \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 4)    \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 5)    \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 6)    \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 7)    \
  TRELLIS_STRUCT_ILU_KERNELS(extern, DEVICE, 8)
// clang-format on
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_STRUCT_ILU_KERNELS_EXTERN)
#undef TRELLIS_STRUCT_ILU_KERNELS_EXTERN
#endif

}  // namespace trellis::structured::detail
