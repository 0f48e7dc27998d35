#pragma once
// Block sparse matrix-vector product y = alpha A x + beta y for a BsrMatrix
// (b x b row-major blocks): the operator of every Krylov iteration on
// point-block problems such as seed 000's 3x3-block Laplacians.
//
// Mapping (one kernel for every backend):
//   - one team thread per block row (GPU) or per chunk of block rows (host);
//   - the thread's vector lanes split the row's blocks: lane l multiplies whole
//     blocks l, l + V, ... by their b entries of x, keeping b partial sums in
//     registers (b is a compile-time constant, so the b x b loops unroll);
//   - a ThreadVectorRange reduction adds the lanes' b sums, then one lane
//     writes the b outputs of the block row.
// V is the power of two nearest above the average blocks per row (at most a
// warp) on GPUs, so a 7-point block stencil keeps 7 of 8 lanes busy and a warp
// serves 4 block rows; on host backends V = 1 and a team is one thread walking
// a chunk of rows, which is a plain parallel loop over block rows.
// The lane reduction is a fixed tree, so results are bit-identical run to run.
// Every entry point takes the execution-space instance first (the kernels are
// queued on it); the overloads without one use the default instance.
// Limit: a block row is never split between threads, so a row with far more
// blocks than V lanes runs serially on its lanes (fine for PDE stencils).
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "trellis/core/backend.hpp"
#include "trellis/core/block_size.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/sum_array.hpp"

namespace trellis {

namespace detail {

/// The B partial sums of one block row: the value the vector lanes reduce.
template <class Scalar, int B>
using BlockRowSum = SumArray<Scalar, B>;

/// s += block * x(col0 .. col0 + B - 1) for one row-major B x B block.
template <int B, class Scalar, class XView>
KOKKOS_INLINE_FUNCTION void multiply_block(const Scalar* block, const XView& x, ordinal_t col0,
                                           BlockRowSum<Scalar, B>& s) {
  Scalar xc[B];
  for (int c = 0; c < B; ++c) xc[c] = x(col0 + c);
  for (int r = 0; r < B; ++r)
    for (int c = 0; c < B; ++c) s.v[r] += block[r * B + c] * xc[c];
}

/// y(row0 + r) = alpha s_r + beta y(row0 + r); beta == 0 never reads y, so
/// NaN or garbage there is overwritten (the BLAS convention).
template <int B, class Scalar, class YView>
KOKKOS_INLINE_FUNCTION void store_block_row(Scalar alpha, const BlockRowSum<Scalar, B>& s, Scalar beta, const YView& y,
                                            ordinal_t row0) {
  for (int r = 0; r < B; ++r) y(row0 + r) = beta == Scalar(0) ? alpha * s.v[r] : alpha * s.v[r] + beta * y(row0 + r);
}

/// y = beta y, zeros when beta == 0. (Not KokkosBlas::scal: in Kokkos
/// Kernels 3.4 its rank-1 path loses the beta == 0 case and keeps NaN as 0*NaN.)
template <class Scalar, class Device>
void scale_or_zero(const typename Device::execution_space& space, Scalar beta, Kokkos::View<Scalar*, Device> y) {
  using policy = trellis::RangePolicy<typename Device::execution_space>;
  Kokkos::parallel_for(
      "trellis::bsr_spmv::scale", policy(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(size_t i) { y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i); });
}

/// Launch shape: vector lanes per block row, team threads, block rows per
/// team thread.
struct BsrSpmvShape {
  int vector_length;
  int team_size;
  int rows_per_thread;
};

template <class Exec>
BsrSpmvShape bsr_spmv_shape(ordinal_t block_rows, offset_t nnz_blocks) {
  // Host: one thread per team walking 128 rows keeps per-team overhead small.
  if (is_host_space<Exec>()) return {1, 1, 128};
  const long long avg = block_rows > 0 ? (nnz_blocks + block_rows - 1LL) / block_rows : 1;
  int lanes = 1;
  while (lanes < avg && lanes < max_vector_width<Exec>()) lanes *= 2;
  return {lanes, 256 / lanes, 1};  // 256 threads per team, as the trsv kernels
}

/// y = alpha A x + beta y with the block size B fixed at compile time.
template <int B, class Scalar, class Device>
void bsr_spmv_fixed(const typename Device::execution_space& space, Scalar alpha, const BsrMatrix<Scalar, Device>& A,
                    Kokkos::View<const Scalar*, Device> x, Scalar beta, Kokkos::View<Scalar*, Device> y,
                    const BsrSpmvShape& shape) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  using member = typename policy::member_type;
  using Sum = BlockRowSum<Scalar, B>;
  // x is gathered by block column: the read-only (texture) path on CUDA.
  const Kokkos::View<const Scalar*, Device, Kokkos::MemoryTraits<Kokkos::RandomAccess>> xr = x;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const auto values = A.values;
  const ordinal_t block_rows = A.num_block_rows;
  const int rows_per_team = shape.team_size * shape.rows_per_thread;
  const int league = int((block_rows + rows_per_team - 1LL) / rows_per_team);
  Kokkos::parallel_for(
      "trellis::bsr_spmv", policy(space, league, shape.team_size, shape.vector_length), KOKKOS_LAMBDA(const member& m) {
        const ordinal_t first = ordinal_t(m.league_rank()) * rows_per_team;
        const ordinal_t count = block_rows - first < rows_per_team ? block_rows - first : rows_per_team;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, count), [&](ordinal_t t) {
          const ordinal_t i = first + t;
          Sum sum;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, row_map(i), row_map(i + 1)),
              [&](offset_t k, Sum& s) {
                multiply_block<B>(values.data() + size_t(k) * (B * B), xr, entries(k) * B, s);
              },
              sum);
          Kokkos::single(Kokkos::PerThread(m), [&]() { store_block_row<B>(alpha, sum, beta, y, i * B); });
        });
      });
}

/// bsr_spmv with a given launch shape (benchmarks tune it through this).
template <class Scalar, class Device>
void bsr_spmv_shaped(const typename Device::execution_space& space, Scalar alpha, const BsrMatrix<Scalar, Device>& A,
                     Kokkos::View<const Scalar*, Device> x, Scalar beta, Kokkos::View<Scalar*, Device> y,
                     const BsrSpmvShape& shape) {
  const std::string who = "bsr_spmv";
  check_block_size(A.block_size, who);
  if (x.extent(0) != size_t(A.num_cols()) || y.extent(0) != size_t(A.num_rows()))
    throw StructureError(who + ": x has " + std::to_string(x.extent(0)) + " and y " + std::to_string(y.extent(0)) +
                         " entries for a " + std::to_string(A.num_rows()) + "x" + std::to_string(A.num_cols()) +
                         " matrix (block size " + std::to_string(A.block_size) + ")");
  if (x.data() == y.data() && y.extent(0) > 0) throw StructureError(who + ": x and y must be distinct arrays");
  if (alpha == Scalar(0)) {
    scale_or_zero(space, beta, y);
    return;
  }
  with_block_size(A.block_size, who,
                  [&](auto B) { bsr_spmv_fixed<decltype(B)::value>(space, alpha, A, x, beta, y, shape); });
}

template <class Scalar, class Device>
void bsr_spmv_shaped(Scalar alpha, const BsrMatrix<Scalar, Device>& A, Kokkos::View<const Scalar*, Device> x,
                     Scalar beta, Kokkos::View<Scalar*, Device> y, const BsrSpmvShape& shape) {
  bsr_spmv_shaped(typename Device::execution_space(), alpha, A, x, beta, y, shape);
}

}  // namespace detail

/// y = alpha A x + beta y for a BSR matrix with block size 1..8. beta == 0
/// overwrites y without reading it; alpha == 0 reads neither A nor x (BLAS).
/// Throws StructureError naming the sizes when x or y do not fit A, when x
/// and y are the same array, or naming b when the block size is unsupported.
template <class Scalar, class Device>
void bsr_spmv(const typename Device::execution_space& space, Scalar alpha, const BsrMatrix<Scalar, Device>& A,
              Kokkos::View<const Scalar*, Device> x, Scalar beta, Kokkos::View<Scalar*, Device> y) {
  using exec = typename Device::execution_space;
  detail::bsr_spmv_shaped(space, alpha, A, x, beta, y, detail::bsr_spmv_shape<exec>(A.num_block_rows, A.nnz_blocks()));
}

/// bsr_spmv on the default instance.
template <class Scalar, class Device>
void bsr_spmv(Scalar alpha, const BsrMatrix<Scalar, Device>& A, Kokkos::View<const Scalar*, Device> x, Scalar beta,
              Kokkos::View<Scalar*, Device> y) {
  bsr_spmv(typename Device::execution_space(), alpha, A, x, beta, y);
}

}  // namespace trellis
