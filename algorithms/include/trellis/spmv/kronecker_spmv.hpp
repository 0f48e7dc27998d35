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
#include <Kokkos_Core.hpp>
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

/// The matrices of one multi-vector product: P (and Q when present) on one
/// pattern, with their s x s row-major coefficient matrices in device memory.
template <class Scalar, class Device>
struct KroneckerTerms {
  BsrMatrix<Scalar, Device> P;
  Kokkos::View<const Scalar*, Device> Q_values;  // Q's values on P's pattern; empty: no Q term
  Kokkos::View<const Scalar*, Device> p_coeffs;  // s x s
  Kokkos::View<const Scalar*, Device> q_coeffs;  // s x s (unused without Q)
  bool has_q() const { return Q_values.extent(0) > 0; }
};

namespace detail {

/// Output columns [i0, i0 + C) of the product, added to y (beta = 1) or
/// overwriting it (beta = 0; y is then never read).
template <int B, int C, bool TwoTerms, bool EntryPerLane, class Scalar, class Device>
void kronecker_spmv_chunk(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t, int s,
                          int i0, const ColumnBlock<Scalar, Device>& x, Scalar beta, Kokkos::View<Scalar*, Device> y,
                          ordinal_t y_ld) {
  using exec = typename Device::execution_space;
  using policy = Kokkos::TeamPolicy<exec>;
  using member = typename policy::member_type;
  using Sum = SumArray<Scalar, B * C>;
  const Kokkos::View<const Scalar*, Device, Kokkos::MemoryTraits<Kokkos::RandomAccess>> xr = x.data;
  const ordinal_t ld = x.ld;
  const auto row_map = t.P.row_map;
  const auto entries = t.P.entries;
  const auto pv = t.P.values;
  const auto qv = t.Q_values;
  const auto pc = t.p_coeffs;
  const auto qc = t.q_coeffs;
  const ordinal_t block_rows = t.P.num_block_rows;
  auto shape = bsr_spmv_shape<exec>(block_rows, t.P.nnz_blocks());
  if (EntryPerLane && !is_host_space<exec>()) {  // lanes over the row's b^2 x blocks values
    const long long avg = block_rows > 0 ? (t.P.nnz_blocks() * (B * B) + block_rows - 1LL) / block_rows : 1;
    int lanes = 1;
    while (lanes < avg && lanes < max_vector_width<exec>()) lanes *= 2;
    shape = {lanes, 256 / lanes > 0 ? 256 / lanes : 1, 1};
  }
  const int rows_per_team = shape.team_size * shape.rows_per_thread;
  const int league = int((block_rows + rows_per_team - 1LL) / rows_per_team);
  Kokkos::parallel_for(
      "trellis::kronecker_spmv", policy(space, league, shape.team_size, shape.vector_length),
      KOKKOS_LAMBDA(const member& m) {
        (void)qv, (void)qc;  // captured here: nvcc rejects a first capture in `if constexpr`
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
                  const Scalar* P = pv.data() + size_t(k) * (B * B);
                  for (int rr = 0; rr < B; ++rr)
                    for (int e = 0; e < B; ++e) {
                      const Scalar p = P[rr * B + e];
                      for (int c = 0; c < C; ++c) acc.v[c * B + rr] += p * u[c][e];
                    }
                  if constexpr (TwoTerms) {
                    const Scalar* Q = qv.data() + size_t(k) * (B * B);
                    for (int rr = 0; rr < B; ++rr)
                      for (int e = 0; e < B; ++e) {
                        const Scalar q = Q[rr * B + e];
                        for (int c = 0; c < C; ++c) acc.v[c * B + rr] += q * w[c][e];
                      }
                  }
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
template <int B, int C, bool TwoTerms, class Scalar, class Device>
void kronecker_spmv_rows(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t, int s,
                         int i0, const ColumnBlock<Scalar, Device>& x, Scalar beta, Kokkos::View<Scalar*, Device> y,
                         ordinal_t y_ld) {
  using exec = typename Device::execution_space;
  const Kokkos::View<const Scalar*, Device, Kokkos::MemoryTraits<Kokkos::RandomAccess>> xr = x.data;
  const ordinal_t ld = x.ld;
  const auto row_map = t.P.row_map;
  const auto entries = t.P.entries;
  const auto pv = t.P.values;
  const auto qv = t.Q_values;
  const auto pc = t.p_coeffs;
  const auto qc = t.q_coeffs;
  Kokkos::parallel_for(
      "trellis::kronecker_spmv_rows", Kokkos::RangePolicy<exec>(space, 0, size_t(t.P.num_block_rows) * B),
      KOKKOS_LAMBDA(size_t idx) {
        (void)qv, (void)qc;  // captured here: nvcc rejects a first capture in `if constexpr`
        const ordinal_t i = ordinal_t(idx / B);
        const int r = int(idx % B);
        Scalar acc[C] = {};
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k) {
          const ordinal_t col0 = entries(k) * B;
          const Scalar* P = pv.data() + size_t(k) * (B * B) + r * B;
          for (int e = 0; e < B; ++e) {
            Scalar u[C] = {}, w[C] = {};
            for (int j = 0; j < s; ++j) {  // Algorithm 2's combination, entry e of the x blocks
              const Scalar xj = xr(size_t(j) * ld + col0 + e);
              for (int c = 0; c < C; ++c) {
                u[c] += pc((i0 + c) * s + j) * xj;
                if constexpr (TwoTerms) w[c] += qc((i0 + c) * s + j) * xj;
              }
            }
            for (int c = 0; c < C; ++c) acc[c] += P[e] * u[c];
            if constexpr (TwoTerms) {
              const Scalar q = qv(size_t(k) * (B * B) + r * B + e);
              for (int c = 0; c < C; ++c) acc[c] += q * w[c];
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
      switch (s - i0 < 4 ? s - i0 : 4) {
        case 1: kronecker_spmv_rows<B, 1, TwoTerms>(space, t, s, i0, x, beta, y, y_ld); break;
        case 2: kronecker_spmv_rows<B, 2, TwoTerms>(space, t, s, i0, x, beta, y, y_ld); break;
        case 3: kronecker_spmv_rows<B, 3, TwoTerms>(space, t, s, i0, x, beta, y, y_ld); break;
        default: kronecker_spmv_rows<B, 4, TwoTerms>(space, t, s, i0, x, beta, y, y_ld); break;
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
#define TRELLIS_KRONECKER_SPMV_EXTERN(DEVICE)                                                                                                                                                               \
  extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 1) extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 2) extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE, 3) extern TRELLIS_KRONECKER_SPMV_INSTANTIATE( \
      DEVICE,                                                                                                                                                                                               \
      4) extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE,                                                                                                                                                  \
                                                   5) extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE,                                                                                                     \
                                                                                                6) extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE,                                                        \
                                                                                                                                             7) extern TRELLIS_KRONECKER_SPMV_INSTANTIATE(DEVICE,           \
                                                                                                                                                                                          8)
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_KRONECKER_SPMV_EXTERN)
#undef TRELLIS_KRONECKER_SPMV_EXTERN
#endif

}  // namespace detail

/// The mapping `automatic` stands for, as measured (perf_tests/RESULTS.md):
/// row_per_thread on GPUs (on the H100 at b = 4, s = 2: 0.43 ms against 0.75
/// block_per_lane and 1.17 entry_per_lane, 89% of the copy bandwidth);
/// block_per_lane on host backends, where a row is one thread's anyway.
template <class Exec>
KroneckerMapping resolve_mapping(KroneckerMapping m) {
  if (m != KroneckerMapping::automatic) return m;
  return detail::is_host_space<Exec>() ? KroneckerMapping::block_per_lane : KroneckerMapping::row_per_thread;
}

/// y = (P-term + Q-term) applied to the s columns of x, plus beta y (beta 0:
/// y overwritten, never read). y holds s columns of P.num_rows() at y[i * y_ld];
/// x holds s columns of P.num_cols() at x.data[j * x.ld]. Queued on space.
template <class Scalar, class Device>
void kronecker_spmv(const typename Device::execution_space& space, const KroneckerTerms<Scalar, Device>& t, int s,
                    const ColumnBlock<Scalar, Device>& x, Scalar beta, Kokkos::View<Scalar*, Device> y, ordinal_t y_ld,
                    KroneckerMapping mapping = KroneckerMapping::automatic) {
  const std::string who = "kronecker_spmv";
  detail::check_block_size(t.P.block_size, who);
  if (s < 1 || t.p_coeffs.extent(0) != size_t(s) * size_t(s) ||
      (t.has_q() && t.q_coeffs.extent(0) != size_t(s) * size_t(s)))
    throw StructureError(who + ": coefficient matrices do not have s x s = " + std::to_string(s) + "^2 entries");
  if (t.has_q() && t.Q_values.extent(0) != t.P.values.extent(0))
    throw StructureError(who + ": the second matrix's values do not fit the shared pattern");
  const size_t x_need = s > 0 ? size_t(s - 1) * size_t(x.ld) + size_t(t.P.num_cols()) : 0;
  const size_t y_need = s > 0 ? size_t(s - 1) * size_t(y_ld) + size_t(t.P.num_rows()) : 0;
  if (x.ld < t.P.num_cols() || y_ld < t.P.num_rows() || x.data.extent(0) < x_need || y.extent(0) < y_need)
    throw StructureError(who + ": x (" + std::to_string(x.data.extent(0)) + " entries, ld " + std::to_string(x.ld) +
                         ") or y (" + std::to_string(y.extent(0)) + ", ld " + std::to_string(y_ld) + ") do not hold " +
                         std::to_string(s) + " columns of a " + std::to_string(t.P.num_rows()) + "x" +
                         std::to_string(t.P.num_cols()) + " matrix");
  if (t.P.num_block_rows == 0) return;
  detail::with_block_size(t.P.block_size, who, [&](auto Bc) {
    constexpr int B = decltype(Bc)::value;
    detail::kronecker_spmv_block_size<B>(space, t, s, x, beta, y, y_ld,
                                         resolve_mapping<typename Device::execution_space>(mapping));
  });
}

}  // namespace trellis
