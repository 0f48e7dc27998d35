#pragma once
// The multi-vector block SpMV of the Kronecker operator (seed 001,
// Algorithms 2 and 3): for the s columns x_j of an N x s block X (stored
// column after column, column j at x[j * ld]),
//   y_i += sum over blocks (i, c) of  P_blk * (sum_j p_ij x_j[c])
//                                   + Q_blk * (sum_j q_ij x_j[c])
// where P, Q are the stored blocks of two BSR matrices on one pattern (M and
// L of the usual FEM case; the Q term is absent for a single matrix) and
// p, q are s x s coefficient matrices (A and tau B).
//
// Each matrix block is read once for all s columns (Algorithm 3's reuse), and
// the linear combination X̂Aᵀ of Algorithm 2 is formed per block in registers
// from the s x blocks, so the combined X̃ is never written to memory and a
// halo exchange moves the s raw columns once (not X̃A and X̃B apart).
//
// Mapping: a team thread per block row; C output columns at a time (C <= 4
// compile-time; s > 4 reads the matrix once per chunk of 4); the vector
// lanes split the row in one of two ways (KroneckerMapping):
//   - block_per_lane (bsr_spmv's): a lane multiplies whole blocks, reading a
//     block's b^2 values itself; few lanes idle, but on GPUs neighbouring
//     lanes read addresses b^2 values apart;
//   - entry_per_lane (seed 001's Algorithm 3): lane l takes the row's stored
//     values l, l + V, ..., i.e. entry (r, c) of some block, so a warp reads
//     the row's values contiguously (coalesced), and adds into output row r;
//   - row_per_thread: one thread per point row r of a block row walks the
//     row's blocks reading row r of each (b contiguous values; the b threads
//     of a block row together read the whole block), no lane reduction at all.
// The lanes' partial sums are reduced in a fixed tree (bit-reproducible run
// to run); row_per_thread sums in stored order.
//
// Packed blocks: every block of a matrix stores only the entries named by
// the matrix's mask (the entries that are nonzero in some block), so the
// SpMV, bound by reading the values, reads only those. FEM point-block
// matrices often have such zeros in the same places in every block: a
// Stokes mass matrix's b = 4 blocks are diagonal (4 of 16 entries), its
// viscous-plus-coupling operator's have 10. block_per_lane and
// row_per_thread read packed blocks; entry_per_lane reads dense ones.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/block_size.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/eti.hpp"
#include "trellis/core/sum_array.hpp"
#include "trellis/spmv/bsr_spmv.hpp"

namespace trellis {

/// s columns of length rows stored at x[j * ld + row] (ld >= rows).
template <class Scalar, class Device>
struct ColumnBlock {
  Kokkos::View<const Scalar*, Device> data;
  ordinal_t ld = 0;
};

/// How the vector lanes of a block row share its work (see above).
enum class KroneckerMapping { automatic, block_per_lane, entry_per_lane, row_per_thread };

/// Which entries of a b x b block are stored: bit r * b + c for entry (r, c).
using BlockMask = std::uint64_t;

/// Every entry of a b x b block (b <= 8: at most 64 bits).
inline BlockMask dense_block_mask(int b) { return b >= 8 ? ~BlockMask(0) : (BlockMask(1) << (b * b)) - 1; }

/// Entries a mask stores (its set bits).
inline int block_mask_entries(BlockMask m) {
  int n = 0;
  for (; m != 0; m &= m - 1) ++n;
  return n;
}

/// The matrices of one multi-vector product: P (and Q when present) on one
/// block pattern, each block packed to its matrix's mask (its stored
/// entries consecutive, row-major), with their s x s row-major coefficient
/// matrices in device memory. make_kronecker_terms builds one from BSR.
template <class Scalar, class Device>
struct KroneckerTerms {
  int block_size = 1;
  ordinal_t num_block_rows = 0, num_block_cols = 0;
  Kokkos::View<const offset_t*, Device> row_map;
  Kokkos::View<const ordinal_t*, Device> entries;
  Kokkos::View<const Scalar*, Device> P_values;  // nnz_blocks() x popcount(p_mask)
  BlockMask p_mask = 0;
  bool two_terms = false;                        // Q present
  Kokkos::View<const Scalar*, Device> Q_values;  // nnz_blocks() x popcount(q_mask), on P's pattern
  BlockMask q_mask = 0;
  Kokkos::View<const Scalar*, Device> p_coeffs;  // s x s
  Kokkos::View<const Scalar*, Device> q_coeffs;  // s x s (unused without Q)

  bool has_q() const { return two_terms; }
  offset_t nnz_blocks() const { return offset_t(entries.extent(0)); }
  ordinal_t num_rows() const { return num_block_rows * block_size; }
  ordinal_t num_cols() const { return num_block_cols * block_size; }
};

/// The entries that are nonzero in at least one block of X (at least the
/// first diagonal entry, so that a block is never empty).
template <class Scalar>
BlockMask nonzero_block_mask(const BsrMatrix<Scalar, HostDevice>& X) {
  const int bb = X.block_size * X.block_size;
  BlockMask m = 1;
  for (size_t v = 0; v < X.values.extent(0); ++v)
    if (X.values(v) != Scalar(0)) m |= BlockMask(1) << (v % size_t(bb));
  return m;
}

/// X's values packed to mask (all of them for the dense mask), copied to Device.
template <class Scalar, class Device>
Kokkos::View<const Scalar*, Device> pack_block_values(const BsrMatrix<Scalar, HostDevice>& X, BlockMask mask) {
  const size_t bb = size_t(X.block_size) * X.block_size, per = size_t(block_mask_entries(mask));
  Kokkos::View<Scalar*, Device> out(Kokkos::ViewAllocateWithoutInitializing("trellis::kronecker::packed"),
                                    size_t(X.nnz_blocks()) * per);
  const auto h = Kokkos::create_mirror_view(out);
  size_t t = 0;
  for (offset_t k = 0; k < X.nnz_blocks(); ++k)
    for (size_t e = 0; e < bb; ++e)
      if ((mask >> e) & 1) h(t++) = X.values(size_t(k) * bb + e);
  Kokkos::deep_copy(out, h);
  return out;
}

/// Terms of P alone (Q == nullptr) or of P and Q on P's pattern (checked by
/// the caller). pack: each matrix's blocks packed to its nonzero_block_mask;
/// otherwise dense blocks (what entry_per_lane reads).
template <class Scalar, class Device>
KroneckerTerms<Scalar, Device> make_kronecker_terms(const BsrMatrix<Scalar, HostDevice>& P,
                                                    const BsrMatrix<Scalar, HostDevice>* Q,
                                                    Kokkos::View<const Scalar*, Device> p_coeffs,
                                                    Kokkos::View<const Scalar*, Device> q_coeffs, bool pack) {
  KroneckerTerms<Scalar, Device> t;
  t.block_size = P.block_size;
  t.num_block_rows = P.num_block_rows;
  t.num_block_cols = P.num_block_cols;
  // The pattern alone: the values go over once, packed.
  Kokkos::View<offset_t*, Device> row_map(Kokkos::ViewAllocateWithoutInitializing("trellis::kronecker::row_map"),
                                          P.row_map.extent(0));
  Kokkos::View<ordinal_t*, Device> entries(Kokkos::ViewAllocateWithoutInitializing("trellis::kronecker::entries"),
                                           P.entries.extent(0));
  Kokkos::deep_copy(row_map, P.row_map);
  Kokkos::deep_copy(entries, P.entries);
  t.row_map = row_map;
  t.entries = entries;
  const BlockMask dense = dense_block_mask(P.block_size);
  t.p_mask = pack ? nonzero_block_mask(P) : dense;
  t.P_values = pack_block_values<Scalar, Device>(P, t.p_mask);
  t.p_coeffs = p_coeffs;
  if (Q != nullptr) {
    t.two_terms = true;
    t.q_mask = pack ? nonzero_block_mask(*Q) : dense;
    t.Q_values = pack_block_values<Scalar, Device>(*Q, t.q_mask);
    t.q_coeffs = q_coeffs;
  }
  return t;
}

namespace detail {

/// acc.v[c * B + r] += sum_e X(r, e) u[c][e] over the stored entries of one
/// packed block X (mask: which entries; their values consecutive, row-major).
template <int B, int C, class Scalar, class Acc>
KOKKOS_INLINE_FUNCTION void add_packed_block_product(const Scalar* X, BlockMask mask, const Scalar (&u)[C][B],
                                                     Acc& acc) {
  for (int r = 0, at = 0; r < B; ++r)
    for (int e = 0; e < B; ++e)
      if ((mask >> (r * B + e)) & 1) {
        const Scalar x = X[at++];
        for (int c = 0; c < C; ++c) acc.v[c * B + r] += x * u[c][e];
      }
}

/// Output columns [i0, i0 + C) of the product, added to y (beta = 1) or
/// overwriting it (beta = 0; y is then never read).
template <int B, int C, bool TwoTerms, bool EntryPerLane, class Scalar, class Device>
void kronecker_spmv_chunk(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t, int s,
                          int i0, const ColumnBlock<Scalar, Device>& x, Scalar beta, Kokkos::View<Scalar*, Device> y,
                          ordinal_t y_ld) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  using member = typename policy::member_type;
  using Sum = SumArray<Scalar, B * C>;
  const Kokkos::View<const Scalar*, Device, Kokkos::MemoryTraits<Kokkos::RandomAccess>> xr = x.data;
  const ordinal_t ld = x.ld;
  const auto row_map = t.row_map;
  const auto entries = t.entries;
  const auto pv = t.P_values;
  const auto qv = t.Q_values;
  const auto pc = t.p_coeffs;
  const auto qc = t.q_coeffs;
  const BlockMask pm = t.p_mask, qm = t.q_mask;  // packed blocks (block_per_lane)
  const int p_per = block_mask_entries(pm), q_per = block_mask_entries(qm);
  const ordinal_t block_rows = t.num_block_rows;
  auto shape = bsr_spmv_shape<exec>(block_rows, t.nnz_blocks());
  if (EntryPerLane && !is_host_space<exec>()) {  // lanes over the row's b^2 x blocks values
    const long long avg = block_rows > 0 ? (t.nnz_blocks() * (B * B) + block_rows - 1LL) / block_rows : 1;
    int lanes = 1;
    while (lanes < avg && lanes < max_vector_width<exec>()) lanes *= 2;
    shape = {lanes, 256 / lanes > 0 ? 256 / lanes : 1, 1};
  }
  const int rows_per_team = shape.team_size * shape.rows_per_thread;
  const int league = int((block_rows + rows_per_team - 1LL) / rows_per_team);
  Kokkos::parallel_for(
      "trellis::kronecker_spmv", policy(space, league, shape.team_size, shape.vector_length),
      KOKKOS_LAMBDA(const member& m) {
        (void)qv, (void)qc, (void)qm, (void)q_per;  // captured here: nvcc rejects a first capture in `if constexpr`
        const ordinal_t first = ordinal_t(m.league_rank()) * rows_per_team;
        const ordinal_t count = block_rows - first < rows_per_team ? block_rows - first : rows_per_team;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, count), [&](ordinal_t r) {
          const ordinal_t row = first + r;
          Sum sum;
          if (EntryPerLane) {  // not constexpr: nvcc rejects first captures there
            // Value v of the row: entry e = v % b^2 = (rr, cc) of block k = first + v / b^2.
            const size_t v0 = size_t(row_map(row)) * (B * B), v1 = size_t(row_map(row + 1)) * (B * B);
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(m, v0, v1),
                [&](size_t v, Sum& acc) {
                  const int e = int(v % (B * B)), rr = e / B, cc = e % B;
                  const ordinal_t col = entries(offset_t(v / (B * B))) * B + cc;
                  Scalar u[C] = {}, w[C] = {};
                  for (int j = 0; j < s; ++j) {
                    const Scalar xj = xr(size_t(j) * ld + col);
                    for (int c = 0; c < C; ++c) {
                      u[c] += pc((i0 + c) * s + j) * xj;
                      if constexpr (TwoTerms) w[c] += qc((i0 + c) * s + j) * xj;
                    }
                  }
                  const Scalar p = pv(v);
                  Scalar add[C];
                  for (int c = 0; c < C; ++c) add[c] = p * u[c];
                  if constexpr (TwoTerms) {
                    const Scalar q = qv(v);
                    for (int c = 0; c < C; ++c) add[c] += q * w[c];
                  }
                  for (int r2 = 0; r2 < B; ++r2)  // a static index: acc stays in registers
                    if (r2 == rr)
                      for (int c = 0; c < C; ++c) acc.v[c * B + r2] += add[c];
                },
                sum);
          } else {
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(m, row_map(row), row_map(row + 1)),
                [&](offset_t k, Sum& acc) {
                  // u_c = sum_j p_(i0+c) j x_j (and w_c with q): Algorithm 2 per block.
                  Scalar u[C][B] = {}, w[C][B] = {};
                  const ordinal_t col0 = entries(k) * B;
                  for (int j = 0; j < s; ++j) {
                    Scalar xj[B];
                    for (int e = 0; e < B; ++e) xj[e] = xr(size_t(j) * ld + col0 + e);
                    for (int c = 0; c < C; ++c) {
                      const Scalar a = pc((i0 + c) * s + j);
                      for (int e = 0; e < B; ++e) u[c][e] += a * xj[e];
                      if constexpr (TwoTerms) {
                        const Scalar b = qc((i0 + c) * s + j);
                        for (int e = 0; e < B; ++e) w[c][e] += b * xj[e];
                      }
                    }
                  }
                  add_packed_block_product<B, C>(pv.data() + size_t(k) * p_per, pm, u, acc);
                  if constexpr (TwoTerms) add_packed_block_product<B, C>(qv.data() + size_t(k) * q_per, qm, w, acc);
                },
                sum);
          }
          Kokkos::single(Kokkos::PerThread(m), [&]() {
            for (int c = 0; c < C; ++c)
              for (int rr = 0; rr < B; ++rr) {
                Scalar& out = y(size_t(i0 + c) * y_ld + size_t(row) * B + rr);
                out = beta == Scalar(0) ? sum.v[c * B + rr] : sum.v[c * B + rr] + beta * out;
              }
          });
        });
      });
}

/// Output columns [i0, i0 + C), one thread per point row (row_per_thread).
/// S > 0: s == S == C, known here, so the 2 C^2 coefficients are held in
/// registers for the whole row instead of being loaded per entry.
template <int B, int C, bool TwoTerms, int S, class Scalar, class Device>
void kronecker_spmv_rows(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t, int s,
                         int i0, const ColumnBlock<Scalar, Device>& x, Scalar beta, Kokkos::View<Scalar*, Device> y,
                         ordinal_t y_ld) {
  using exec = typename Device::execution_space;
  const Kokkos::View<const Scalar*, Device, Kokkos::MemoryTraits<Kokkos::RandomAccess>> xr = x.data;
  const ordinal_t ld = x.ld;
  const auto row_map = t.row_map;
  const auto entries = t.entries;
  const auto pv = t.P_values;
  const auto qv = t.Q_values;
  const auto pc = t.p_coeffs;
  const auto qc = t.q_coeffs;
  // Packed blocks: row r's stored entries start after those of rows < r.
  const BlockMask pm = t.p_mask, qm = t.q_mask;
  const int p_per = block_mask_entries(pm), q_per = block_mask_entries(qm);
  Kokkos::Array<int, B> p_start, q_start;
  for (int r = 0; r < B; ++r) {
    const BlockMask before = r == 0 ? 0 : dense_block_mask(B) >> ((B - r) * B);  // bits of rows < r
    p_start[r] = block_mask_entries(pm & before);
    q_start[r] = block_mask_entries(qm & before);
  }
  Kokkos::parallel_for(
      "trellis::kronecker_spmv_rows", trellis::RangePolicy<exec>(space, 0, size_t(t.num_block_rows) * B),
      KOKKOS_LAMBDA(size_t idx) {
        (void)qv, (void)qc, (void)qm, (void)q_per, (void)q_start;  // nvcc rejects a first capture in `if constexpr`
        const ordinal_t i = ordinal_t(idx / B);
        const int r = int(idx % B);
        const BlockMask prow = pm >> (r * B), qrow = TwoTerms ? qm >> (r * B) : 0;
        constexpr int SR = S > 0 ? S : 1;  // the coefficients held: all when S is known
        Scalar a[C][SR] = {}, bq[C][SR] = {};
        for (int c = 0; c < C; ++c)  // not `if constexpr`: nvcc takes no first capture there
          for (int j = 0; j < S; ++j) {
            a[c][j] = pc((i0 + c) * S + j);
            if (TwoTerms) bq[c][j] = qc((i0 + c) * S + j);
          }
        const int sj = S > 0 ? S : s;
        Scalar acc[C] = {};
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k) {
          const ordinal_t col0 = entries(k) * B;
          const Scalar* P = pv.data() + size_t(k) * p_per + p_start[r];
          const Scalar* Q = TwoTerms ? qv.data() + size_t(k) * q_per + q_start[r] : nullptr;
          for (int e = 0; e < B; ++e) {
            const bool has_p = (prow >> e) & 1, has_q = TwoTerms && ((qrow >> e) & 1);
            if (!has_p && !has_q) continue;
            Scalar u[C] = {}, w[C] = {};
            for (int j = 0; j < sj; ++j) {  // Algorithm 2's combination, entry e of the x blocks
              const Scalar xj = xr(size_t(j) * ld + col0 + e);
              for (int c = 0; c < C; ++c) {
                u[c] += (S > 0 ? a[c][S > 0 ? j : 0] : pc((i0 + c) * s + j)) * xj;
                if constexpr (TwoTerms) w[c] += (S > 0 ? bq[c][S > 0 ? j : 0] : qc((i0 + c) * s + j)) * xj;
              }
            }
            if (has_p) {
              const Scalar p = *P++;
              for (int c = 0; c < C; ++c) acc[c] += p * u[c];
            }
            if constexpr (TwoTerms) {
              if (has_q) {
                const Scalar q = *Q++;
                for (int c = 0; c < C; ++c) acc[c] += q * w[c];
              }
            }
          }
        }
        for (int c = 0; c < C; ++c) {
          Scalar& out = y(size_t(i0 + c) * y_ld + idx);
          out = beta == Scalar(0) ? acc[c] : acc[c] + beta * out;
        }
      });
}

template <int B, bool TwoTerms, int Mapping, class Scalar, class Device>
void kronecker_spmv_fixed(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t, int s,
                          const ColumnBlock<Scalar, Device>& x, Scalar beta, Kokkos::View<Scalar*, Device> y,
                          ordinal_t y_ld) {
  constexpr bool EntryPerLane = Mapping == int(KroneckerMapping::entry_per_lane);
  for (int i0 = 0; i0 < s; i0 += 4) {
    if constexpr (Mapping == int(KroneckerMapping::row_per_thread)) {
      switch (s <= 4 ? -s : (s - i0 < 4 ? s - i0 : 4)) {  // negative: s <= 4, one chunk, s known
        case -1: kronecker_spmv_rows<B, 1, TwoTerms, 1>(space, t, s, i0, x, beta, y, y_ld); break;
        case -2: kronecker_spmv_rows<B, 2, TwoTerms, 2>(space, t, s, i0, x, beta, y, y_ld); break;
        case -3: kronecker_spmv_rows<B, 3, TwoTerms, 3>(space, t, s, i0, x, beta, y, y_ld); break;
        case -4: kronecker_spmv_rows<B, 4, TwoTerms, 4>(space, t, s, i0, x, beta, y, y_ld); break;
        case 1: kronecker_spmv_rows<B, 1, TwoTerms, 0>(space, t, s, i0, x, beta, y, y_ld); break;
        case 2: kronecker_spmv_rows<B, 2, TwoTerms, 0>(space, t, s, i0, x, beta, y, y_ld); break;
        case 3: kronecker_spmv_rows<B, 3, TwoTerms, 0>(space, t, s, i0, x, beta, y, y_ld); break;
        default: kronecker_spmv_rows<B, 4, TwoTerms, 0>(space, t, s, i0, x, beta, y, y_ld); break;
      }
      continue;
    }
    switch (s - i0 < 4 ? s - i0 : 4) {
      case 1: kronecker_spmv_chunk<B, 1, TwoTerms, EntryPerLane>(space, t, s, i0, x, beta, y, y_ld); break;
      case 2: kronecker_spmv_chunk<B, 2, TwoTerms, EntryPerLane>(space, t, s, i0, x, beta, y, y_ld); break;
      case 3: kronecker_spmv_chunk<B, 3, TwoTerms, EntryPerLane>(space, t, s, i0, x, beta, y, y_ld); break;
      default: kronecker_spmv_chunk<B, 4, TwoTerms, EntryPerLane>(space, t, s, i0, x, beta, y, y_ld); break;
    }
  }
}

/// Every kernel of one block size B: the unit the library compiles once per
/// backend (algorithms/src/eti/kronecker_spmv.cpp.in), so that the 16
/// kernels of each B are built in parallel and never in a caller's file.
template <int B, class Scalar, class Device>
void kronecker_spmv_block_size(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t,
                               int s, const ColumnBlock<Scalar, Device>& x, Scalar beta,
                               Kokkos::View<Scalar*, Device> y, ordinal_t y_ld, KroneckerMapping mapping) {
  constexpr int block = int(KroneckerMapping::block_per_lane), entry = int(KroneckerMapping::entry_per_lane),
                rows = int(KroneckerMapping::row_per_thread);
  const bool q = t.has_q();
  switch (mapping) {
    case KroneckerMapping::entry_per_lane:
      return q ? kronecker_spmv_fixed<B, true, entry>(space, t, s, x, beta, y, y_ld)
               : kronecker_spmv_fixed<B, false, entry>(space, t, s, x, beta, y, y_ld);
    case KroneckerMapping::row_per_thread:
      return q ? kronecker_spmv_fixed<B, true, rows>(space, t, s, x, beta, y, y_ld)
               : kronecker_spmv_fixed<B, false, rows>(space, t, s, x, beta, y, y_ld);
    default:
      return q ? kronecker_spmv_fixed<B, true, block>(space, t, s, x, beta, y, y_ld)
               : kronecker_spmv_fixed<B, false, block>(space, t, s, x, beta, y, y_ld);
  }
}

#define TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, B)                                                                 \
  template void kronecker_spmv_block_size<B, double, DEVICE>(                                                         \
      const DEVICE::execution_space&, const KroneckerTerms<double, DEVICE>&, int, const ColumnBlock<double, DEVICE>&, \
      double, Kokkos::View<double*, DEVICE>, ordinal_t, KroneckerMapping);
#if TRELLIS_ENABLE_ETI
// clang-format off
#define TRELLIS_KRONECKER_SPMV_EXTERN(DEVICE)           \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 1)  \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 2)  \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 3)  \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 4)  \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 5)  \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 6)  \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 7)  \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 8)
// clang-format on
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_KRONECKER_SPMV_EXTERN)
#undef TRELLIS_KRONECKER_SPMV_EXTERN
#endif

}  // namespace detail

/// The mapping `automatic` stands for, as measured (perf_tests/journal/RESULTS.md):
/// row_per_thread on GPUs (on the H100 at b = 4, s = 2, packed Stokes-like
/// blocks: 0.31 ms against 0.47 block_per_lane and 1.17 entry_per_lane);
/// block_per_lane on host backends, where a row is one thread's anyway.
template <class Exec>
KroneckerMapping resolve_mapping(KroneckerMapping m) {
  if (m != KroneckerMapping::automatic) return m;
  return detail::is_host_space<Exec>() ? KroneckerMapping::block_per_lane : KroneckerMapping::row_per_thread;
}

/// y = (P-term + Q-term) applied to the s columns of x, plus beta y (beta 0:
/// y overwritten, never read). y holds s columns of t.num_rows() at y[i * y_ld];
/// x holds s columns of t.num_cols() at x.data[j * x.ld]. Queued on space.
template <class Scalar, class Device>
void kronecker_spmv(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t, int s,
                    const ColumnBlock<Scalar, Device>& x, Scalar beta, Kokkos::View<Scalar*, Device> y, ordinal_t y_ld,
                    KroneckerMapping mapping = KroneckerMapping::automatic) {
  const std::string who = "kronecker_spmv";
  detail::check_block_size(t.block_size, who);
  if (s < 1 || t.p_coeffs.extent(0) != size_t(s) * size_t(s) ||
      (t.has_q() && t.q_coeffs.extent(0) != size_t(s) * size_t(s)))
    throw StructureError(who + ": coefficient matrices do not have s x s = " + std::to_string(s) + "^2 entries");
  const BlockMask dense = dense_block_mask(t.block_size);
  auto fits = [&](BlockMask m, size_t values) {
    return (m & ~dense) == 0 && values == size_t(t.nnz_blocks()) * size_t(block_mask_entries(m));
  };
  if (!fits(t.p_mask, t.P_values.extent(0)) || (t.has_q() && !fits(t.q_mask, t.Q_values.extent(0))))
    throw StructureError(who + ": the values do not fit the pattern's blocks and their masks");
  const KroneckerMapping resolved = resolve_mapping<typename Device::execution_space>(mapping);
  if (resolved == KroneckerMapping::entry_per_lane && (t.p_mask != dense || (t.has_q() && t.q_mask != dense)))
    throw StructureError(who + ": entry_per_lane reads dense blocks, and these are packed");
  const size_t x_need = s > 0 ? size_t(s - 1) * size_t(x.ld) + size_t(t.num_cols()) : 0;
  const size_t y_need = s > 0 ? size_t(s - 1) * size_t(y_ld) + size_t(t.num_rows()) : 0;
  if (x.ld < t.num_cols() || y_ld < t.num_rows() || x.data.extent(0) < x_need || y.extent(0) < y_need)
    throw StructureError(who + ": x (" + std::to_string(x.data.extent(0)) + " entries, ld " + std::to_string(x.ld) +
                         ") or y (" + std::to_string(y.extent(0)) + ", ld " + std::to_string(y_ld) + ") do not hold " +
                         std::to_string(s) + " columns of a " + std::to_string(t.num_rows()) + "x" +
                         std::to_string(t.num_cols()) + " matrix");
  if (t.num_block_rows == 0) return;
  detail::with_block_size(t.block_size, who, [&](auto Bc) {
    constexpr int B = decltype(Bc)::value;
    detail::kronecker_spmv_block_size<B>(space, t, s, x, beta, y, y_ld, resolved);
  });
}

}  // namespace trellis
