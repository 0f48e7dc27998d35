#pragma once
// Analysis plan of block-syncfree: the rows cut into blocks of R
// consecutive rows in solve order (ascending for a lower triangle,
// descending for an upper one), each block's rows sorted by level (a block
// runs one step per level it holds), and a copy of the strict triangle in
// that order in which a dependency inside the block is already its position
// in the block.
//
// Solve order keeps the locality of the application's numbering: on a grid
// or a mesh numbered along it, most of a row's dependencies fall in its own
// block, so most of the chain runs from team scratch and only the block
// boundaries cost a global hand-off.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/trsv/detail/factor.hpp"

namespace trellis::detail {

/// Slots are positions in block order: block t holds slots
/// [t * rows_per_block, min(n, (t + 1) * rows_per_block)), level by level.
/// Kernels capture the Views they read by name, not the plan.
template <class Scalar, class Device>
struct BlockPlan {
  template <class T>
  using view = Kokkos::View<T, Device>;

  int rows_per_block = 0;
  int num_blocks = 0;
  int max_levels = 0;            // the most levels (steps) any block holds
  int staged_entries = 0;        // entries a block may keep in team scratch (BlockScratch)
  view<ordinal_t*> block_level;  // block t's steps: [block_level(t), block_level(t + 1))
  view<ordinal_t*> level_slot;   // step q's slots: [level_slot(q), level_slot(q + 1))
  view<ordinal_t*> slot_row;     // the row at each slot
  view<offset_t*> row_map;       // the strict triangle by slot
  view<ordinal_t*> col;          // >= 0: a row of an earlier block; < 0: -1 - (its slot in this block)
  view<Scalar*> values;          // from the factor, times the row's inverse diagonal (load_slot_values)
  view<Scalar*> inv_diag;        // by slot, likewise
  view<offset_t*> source;        // the factor position of each entry
  view<int> ticket;              // next block to hand out
  view<Scalar*> work;            // copy of an input that aliases x (allocated on first need)
};

/// Rows per block when the options leave it open. On GPUs about one level's
/// rows, 128 to 512: on a grid-like numbering a block then holds a few
/// consecutive levels' worth of neighbours (H200 sweep in perf_tests/journal/RESULTS.md: 512
/// fastest on the wide 2D grids, 128 on thin ones and on the unstructured
/// matrices). On host backends a team is one thread, and the block is what
/// it solves without waiting on other threads.
template <class Exec, class Device>
int default_block_rows(const LevelSets<Device>& levels) {
  if (is_host_space<Exec>()) return 1024;
  int rows = 128;
  while (rows < 512 && 2 * rows <= levels.avg_parallelism()) rows *= 2;
  return rows;
}

/// The fraction of the strict triangle's entries whose column lies in the
/// row's own block of R rows in solve order: block-syncfree reads those from
/// team scratch, the others from global memory. `automatic` weighs it.
template <class Scalar, class Device>
double inside_block_fraction(const typename Device::execution_space& space, const TriangularFactor<Scalar, Device>& f,
                             int R) {
  if (f.nnz_strict == 0) return 1;
  const auto rows = f.rows;
  const ordinal_t n = f.n;
  const bool lower = f.triangle == Triangle::lower;
  offset_t inside = 0;
  Kokkos::parallel_reduce(
      "trellis::trsv::inside_block_entries", trellis::RangePolicy<typename Device::execution_space>(space, 0, n),
      KOKKOS_LAMBDA(ordinal_t i, offset_t & count) {
        const ordinal_t block = (lower ? i : n - 1 - i) / R;
        for (offset_t k = rows.row_map(i); k < rows.row_map(i + 1); ++k)
          count += (lower ? rows.col_ind(k) : n - 1 - rows.col_ind(k)) / R == block;
      },
      inside);
  return double(inside) / double(f.nnz_strict);
}

/// Steps all blocks of R rows take together (each at most its rows, at most
/// the levels between its first and last row), over the levels: how many
/// blocks must run at once for the blocks to keep pace with the wavefront.
/// A block of a wide grid's numbering holds one row a level, so it takes R
/// steps and many blocks are needed; `automatic` weighs the global reads
/// those blocks make a level (BlockRule).
template <class Device>
double block_steps_per_level(const typename Device::execution_space& space, const LevelSets<Device>& levels,
                             ordinal_t n, bool lower, int R) {
  if (n == 0 || levels.num_levels == 0) return 0;
  const auto row_level = levels.row_level;
  const ordinal_t blocks = (n + R - 1) / R;
  offset_t steps = 0;
  Kokkos::parallel_reduce(
      "trellis::trsv::block_steps", trellis::RangePolicy<typename Device::execution_space>(space, 0, blocks),
      KOKKOS_LAMBDA(ordinal_t t, offset_t & sum) {
        const ordinal_t s0 = t * R, s1 = s0 + R < n ? s0 + R : n;
        ordinal_t lo = row_level(lower ? s0 : n - 1 - s0), hi = lo;
        for (ordinal_t s = s0 + 1; s < s1; ++s) {
          const ordinal_t l = row_level(lower ? s : n - 1 - s);
          lo = l < lo ? l : lo;
          hi = l > hi ? l : hi;
        }
        sum += hi - lo + 1 < s1 - s0 ? hi - lo + 1 : s1 - s0;
      },
      steps);
  return double(steps) / double(levels.num_levels);
}

/// Threads of a block-syncfree team: on GPUs up to 256 (the rows of one
/// level run on them), on host backends one.
template <class Exec>
int block_team_size(int rows_per_block) {
  return is_host_space<Exec>() ? 1 : std::min(256, rows_per_block);
}

/// What a team keeps of its block in team scratch: x of its rows, the
/// right-hand side with the diagonal applied, the rows, the level starts
/// (levels: the most of any block), the row offsets and, when the block's
/// entries fit (at most `entries` of them), its columns and values: the
/// level loop then reads global memory only to wait on earlier blocks.
template <class Exec, class Scalar>
struct BlockScratch {
  using space = typename Exec::scratch_memory_space;
  template <class T>
  using view = Kokkos::View<T*, space, Kokkos::MemoryUnmanaged>;

  view<Scalar> x, rhs, values;
  view<ordinal_t> starts, row, col;
  view<offset_t> row_ptr;

  static size_t bytes(int rows, int levels, int entries) {
    return 2 * view<Scalar>::shmem_size(rows) + view<Scalar>::shmem_size(entries) +
           view<ordinal_t>::shmem_size(levels + 1) + view<ordinal_t>::shmem_size(rows) +
           view<ordinal_t>::shmem_size(entries) + view<offset_t>::shmem_size(rows + 1);
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION BlockScratch(const Member& m, int rows, int levels, int entries)
      : x(m.team_scratch(0), rows),
        rhs(m.team_scratch(0), rows),
        values(m.team_scratch(0), entries),
        starts(m.team_scratch(0), levels + 1),
        row(m.team_scratch(0), rows),
        col(m.team_scratch(0), entries),
        row_ptr(m.team_scratch(0), rows + 1) {}
};

/// Sorts a[0..len) ascending in place (heap sort: no recursion, no extra
/// memory, one thread).
KOKKOS_INLINE_FUNCTION void heap_sort(std::uint64_t* a, ordinal_t len) {
  const auto sift_down = [a](ordinal_t root, ordinal_t end) {
    while (2 * root + 1 < end) {
      ordinal_t child = 2 * root + 1;
      if (child + 1 < end && a[child] < a[child + 1]) ++child;
      if (!(a[root] < a[child])) return;
      const std::uint64_t v = a[root];
      a[root] = a[child];
      a[child] = v;
      root = child;
    }
  };
  for (ordinal_t start = len / 2 - 1; start >= 0; --start) sift_down(start, len);
  for (ordinal_t end = len - 1; end > 0; --end) {
    const std::uint64_t v = a[0];
    a[0] = a[end];
    a[end] = v;
    sift_down(0, end);
  }
}

template <class Scalar, class Device>
BlockPlan<Scalar, Device> build_block_plan(const typename Device::execution_space& space,
                                           const TriangularFactor<Scalar, Device>& f, const LevelSets<Device>& levels,
                                           int rows_per_block) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  using ordinals = Kokkos::View<ordinal_t*, Device>;
  const auto uninit = [&](const std::string& label) {
    return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label);
  };
  if (rows_per_block < 0)
    throw InputError("block-syncfree: rows per block must be positive (0: the default), not " +
                     std::to_string(rows_per_block));
  const int R = rows_per_block > 0 ? rows_per_block : default_block_rows<exec>(levels);
  const ordinal_t n = f.n;
  const bool lower = f.triangle == Triangle::lower;
  BlockPlan<Scalar, Device> p;
  p.rows_per_block = R;
  p.num_blocks = int((n + R - 1) / R);
  const int B = p.num_blocks;
  p.ticket = Kokkos::View<int, Device>(Kokkos::view_alloc(space, "trellis::trsv::block_ticket"));
  p.block_level = ordinals(Kokkos::view_alloc(space, "trellis::trsv::block_level"), size_t(B) + 1);
  p.slot_row = ordinals(uninit("trellis::trsv::slot_row"), n);
  p.row_map = Kokkos::View<offset_t*, Device>(Kokkos::view_alloc(space, "trellis::trsv::block_row_map"), size_t(n) + 1);
  p.inv_diag = Kokkos::View<Scalar*, Device>(uninit("trellis::trsv::block_inv_diag"), n);
  if (n == 0) return p;

  // Position s in solve order is row s (lower) or n - 1 - s (upper). Each
  // block's positions are sorted by (level, position): rows of one level
  // never depend on each other, so a block takes one step per level it
  // holds, and every block follows the global wavefront (levels local to a
  // block would let a block's first step wait on another block's last).
  const auto rows = f.rows;
  const auto row_level = levels.row_level;
  const auto block_level = p.block_level;
  Kokkos::View<std::uint64_t*, Device> keys(uninit("trellis::trsv::block_keys"), n);
  Kokkos::parallel_for(
      "trellis::trsv::block_keys", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t s) {
        const ordinal_t i = lower ? s : n - 1 - s;
        keys(s) = (std::uint64_t(row_level(i)) << 32) | std::uint64_t(s % R);
      });
  int max_levels = 0;
  Kokkos::parallel_reduce(
      "trellis::trsv::block_sort", policy(space, 0, B),
      KOKKOS_LAMBDA(int t, int& most) {
        const ordinal_t s0 = ordinal_t(t) * R, s1 = s0 + R < n ? s0 + R : n;
        heap_sort(&keys(s0), s1 - s0);
        int steps = 0;
        for (ordinal_t s = s0; s < s1; ++s) steps += s == s0 || (keys(s) >> 32) != (keys(s - 1) >> 32);
        block_level(t + 1) = steps;
        if (steps > most) most = steps;
      },
      Kokkos::Max<int>(max_levels));
  p.max_levels = max_levels;
  const size_t scratch = BlockScratch<exec, Scalar>::bytes(R, max_levels, 0);
  const size_t scratch_max = trellis::TeamPolicy<exec>::scratch_size_max(0);
  if (scratch > scratch_max)
    throw InputError("block-syncfree: " + std::to_string(R) + " rows per block in up to " + std::to_string(max_levels) +
                     " levels need " + std::to_string(scratch) + " bytes of team scratch; this backend offers " +
                     std::to_string(scratch_max) + " (choose fewer rows per block)");
  Kokkos::parallel_scan(
      "trellis::trsv::block_level_scan", policy(space, 0, B + 1), KOKKOS_LAMBDA(int t, ordinal_t& sum, bool final) {
        sum += block_level(t);
        if (final) block_level(t) = sum;
      });
  ordinal_t Q = 0;
  Kokkos::deep_copy(space, Q, Kokkos::subview(block_level, B));
  space.fence();  // Q sizes what follows
  p.level_slot = ordinals(uninit("trellis::trsv::level_slot"), size_t(Q) + 1);

  const auto level_slot = p.level_slot;
  const auto slot_row = p.slot_row;
  ordinals slot_of(uninit("trellis::trsv::slot_of"), n);  // by position
  Kokkos::parallel_for(
      "trellis::trsv::block_slots", policy(space, 0, B), KOKKOS_LAMBDA(int t) {
        const ordinal_t s0 = ordinal_t(t) * R, s1 = s0 + R < n ? s0 + R : n;
        ordinal_t q = block_level(t) - 1;
        for (ordinal_t slot = s0; slot < s1; ++slot) {
          if (slot == s0 || (keys(slot) >> 32) != (keys(slot - 1) >> 32)) level_slot(++q) = slot;
          const ordinal_t s = s0 + ordinal_t(keys(slot) & 0xFFFFFFFFu);
          slot_row(slot) = lower ? s : n - 1 - s;
          slot_of(s) = slot;
        }
        if (t == B - 1) level_slot(q + 1) = n;
      });

  // The triangle by slot; a column inside the block becomes its slot there.
  const auto row_map = p.row_map;
  Kokkos::parallel_scan(
      "trellis::trsv::block_row_scan", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t slot, offset_t & sum, bool final) {
        const ordinal_t i = slot_row(slot);
        sum += rows.row_map(i + 1) - rows.row_map(i);
        if (final) row_map(slot + 1) = sum;
      });
  p.col = ordinals(uninit("trellis::trsv::block_col"), f.nnz_strict);
  p.values = Kokkos::View<Scalar*, Device>(uninit("trellis::trsv::block_values"), f.nnz_strict);
  p.source = Kokkos::View<offset_t*, Device>(uninit("trellis::trsv::block_source"), f.nnz_strict);
  const auto col = p.col;
  const auto source = p.source;
  Kokkos::parallel_for(
      "trellis::trsv::block_fill", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t slot) {
        const ordinal_t i = slot_row(slot);
        const ordinal_t first = (slot / R) * R;  // the block's first slot
        offset_t e = row_map(slot);
        for (offset_t k = rows.row_map(i); k < rows.row_map(i + 1); ++k, ++e) {
          const ordinal_t j = rows.col_ind(k);
          const ordinal_t sj = slot_of(lower ? j : n - 1 - j);
          col(e) = sj >= first ? -1 - (sj - first) : j;
          source(e) = k;
        }
      });

  // Entries in scratch: as many as the team scratch left over holds, and no
  // more than the largest block needs.
  int most_entries = 0;
  const size_t budget = (scratch_max - scratch) / (sizeof(Scalar) + sizeof(ordinal_t)) / 8 * 7;  // room for padding
  Kokkos::parallel_reduce(
      "trellis::trsv::block_entries", policy(space, 0, B),
      KOKKOS_LAMBDA(int t, int& most) {
        const ordinal_t s0 = ordinal_t(t) * R, s1 = s0 + R < n ? s0 + R : n;
        const int e = int(row_map(s1) - row_map(s0));
        if (e > most) most = e;
      },
      Kokkos::Max<int>(most_entries));
  p.staged_entries = int(std::min(size_t(most_entries), budget));
  return p;
}

/// Numeric phase of a plan in slot order (BlockPlan, TeamPlan): the factor's
/// values, each row scaled by its inverse diagonal (the solve computes
/// x_i = d_i b_i - sum_j d_i l_ij x_j), and the inverse diagonal by slot.
template <class Plan, class Scalar, class Device>
void load_slot_values(const typename Device::execution_space& space, Plan& p,
                      const TriangularFactor<Scalar, Device>& f) {
  using policy = trellis::RangePolicy<typename Device::execution_space>;
  const auto values = p.values, inv_diag = p.inv_diag;
  const auto source = p.source;
  const auto slot_row = p.slot_row;
  const auto f_values = f.rows.values, f_inv_diag = f.inv_diag;
  const auto row_map = p.row_map;
  Kokkos::parallel_for(
      "trellis::trsv::block_gather_values", policy(space, 0, f.n), KOKKOS_LAMBDA(ordinal_t slot) {
        const Scalar d = f_inv_diag(slot_row(slot));
        inv_diag(slot) = d;
        for (offset_t e = row_map(slot); e < row_map(slot + 1); ++e) values(e) = d * f_values(source(e));
      });
}

}  // namespace trellis::detail
