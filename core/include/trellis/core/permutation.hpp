#pragma once
// Row and symmetric permutations of CSR and BSR matrices and vectors (seed 000,
// Algorithm 3.2: reorder rows, map columns through the inverse permutation,
// sort each row's columns).
//
// A Permutation holds both directions: new_to_old[i] is the original index of
// new index i, old_to_new its inverse.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/view_arena.hpp"

namespace trellis {

template <class Device>
struct Permutation {
  Kokkos::View<ordinal_t*, Device> new_to_old;
  Kokkos::View<ordinal_t*, Device> old_to_new;
  ordinal_t size() const { return ordinal_t(new_to_old.extent(0)); }
};

namespace detail {
/// Throws the InputError that names the first entry of new_to_old that makes
/// it no permutation (out of range, or an index seen before).
inline void explain_bad_permutation(const std::vector<ordinal_t>& new_to_old) {
  const ordinal_t n = ordinal_t(new_to_old.size());
  std::vector<ordinal_t> seen_at(n, -1);
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t old = new_to_old[i];
    if (old < 0 || old >= n)
      throw InputError("permutation: entry " + std::to_string(i) + " is " + std::to_string(old) + ", outside [0, " +
                       std::to_string(n) + ")");
    if (seen_at[old] != -1)
      throw InputError("permutation: index " + std::to_string(old) + " appears twice (at " +
                       std::to_string(seen_at[old]) + " and " + std::to_string(i) + ")");
    seen_at[old] = i;
  }
  throw Error("permutation: the device check failed on a valid permutation");
}
}  // namespace detail

/// Builds a permutation from new_to_old (host array), checking that it is one:
/// throws InputError naming the first repeated or out-of-range index. The
/// inverse is made and checked on the device (a host pass is slow on large
/// matrices); only a failure is explained on the host.
/// Both arrays come from `arena`.
template <class Device = DefaultDevice>
Permutation<Device> make_permutation(const std::vector<ordinal_t>& new_to_old, ViewArena<Device>& arena) {
  using policy = trellis::RangePolicy<typename Device::execution_space>;
  const ordinal_t n = ordinal_t(new_to_old.size());
  Permutation<Device> p;
  arena.template reserve<ordinal_t>(ViewArena<Device>::kept, n, n);
  p.new_to_old = arena.template take<ordinal_t>("trellis::new_to_old", n);
  p.old_to_new = arena.template take<ordinal_t>("trellis::old_to_new", n);
  Kokkos::deep_copy(p.new_to_old,
                    Kokkos::View<const ordinal_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(new_to_old.data(), n));
  const auto n2o = p.new_to_old;
  const auto o2n = p.old_to_new;
  Kokkos::parallel_for(
      "trellis::permutation::clear", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) { o2n(i) = -1; });
  ordinal_t bad = 0;
  Kokkos::parallel_reduce(
      "trellis::permutation::invert", policy(0, n),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & count) {
        const ordinal_t old = n2o(i);
        if (old < 0 || old >= n || Kokkos::atomic_compare_exchange(&o2n(old), ordinal_t(-1), i) != -1) ++count;
      },
      bad);
  if (bad) detail::explain_bad_permutation(new_to_old);
  return p;
}
template <class Device = DefaultDevice>
Permutation<Device> make_permutation(const std::vector<ordinal_t>& new_to_old) {
  ViewArena<Device> arena;
  return make_permutation<Device>(new_to_old, arena);
}

namespace detail {
/// A row pattern gathered in another order: source(k) is the position in the
/// input of output entry k, so values follow with gather_values.
template <class Device>
struct GatheredPattern {
  Kokkos::View<offset_t*, Device> row_map;
  Kokkos::View<ordinal_t*, Device> entries;
  Kokkos::View<offset_t*, Device> source;
};

/// Rows of (row_map, entries) in the order p.new_to_old; columns mapped
/// through p.old_to_new when asked (then re-sorted), else kept. `source`
/// has the lifetime asked for (a temporary unless the caller gathers values
/// again later).
template <class RowMap, class Entries, class Device>
GatheredPattern<Device> gather_pattern(
    RowMap row_map, Entries entries, const Permutation<Device>& p, bool map_columns, ViewArena<Device>& arena,
    typename ViewArena<Device>::Lifetime source_life = ViewArena<Device>::temporary) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  const ordinal_t n = p.size();
  if (row_map.extent(0) != size_t(n) + 1)
    throw StructureError("permute: permutation of size " + std::to_string(n) + " for a matrix with " +
                         std::to_string(row_map.extent(0) ? row_map.extent(0) - 1 : 0) + " rows");
  auto n2o = p.new_to_old;
  auto o2n = p.old_to_new;
  GatheredPattern<Device> g;
  arena.template reserve<ordinal_t>(ViewArena<Device>::kept, size_t(n) + 1, entries.extent(0));
  g.row_map = arena.template take<offset_t>("trellis::permuted_row_map", size_t(n) + 1);
  g.entries = arena.template take<ordinal_t>("trellis::permuted_entries", entries.extent(0));
  g.source = arena.template take<offset_t>("trellis::permuted_source", entries.extent(0), source_life);
  auto out_map = g.row_map;
  auto out_ent = g.entries;
  auto source = g.source;
  if (n == 0) Kokkos::deep_copy(out_map, 0);  // else the scan writes out_map(0)
  Kokkos::parallel_scan(
      "trellis::permute::row_map", policy(0, n), KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        const ordinal_t k = n2o(i);
        sum += row_map(k + 1) - row_map(k);
        if (final) out_map(i + 1) = sum;
        if (final && i == 0) out_map(0) = 0;
      });
  Kokkos::parallel_for(
      "trellis::permute::fill", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
        const ordinal_t m = n2o(i);
        offset_t pos = out_map(i);
        for (offset_t k = row_map(m); k < row_map(m + 1); ++k, ++pos) {
          out_ent(pos) = map_columns ? o2n(entries(k)) : entries(k);
          source(pos) = k;
        }
      });
  if (map_columns) compat::sort_crs_matrix<exec>(g.row_map, g.entries, g.source);
  return g;
}

/// out[k*w + c] = in[source(k)*w + c]: entries (w = 1) or b x b blocks (w = b*b)
/// following a gathered pattern, into an existing out (a refactorization's
/// new values); queued on space.
template <class Scalar, class Device>
void gather_values_into(const typename Device::execution_space& space, Kokkos::View<const offset_t*, Device> source,
                        Kokkos::View<const Scalar*, Device> in, Kokkos::View<Scalar*, Device> out, size_t w) {
  Kokkos::parallel_for(
      "trellis::permute::values", trellis::RangePolicy<typename Device::execution_space>(space, 0, out.extent(0)),
      KOKKOS_LAMBDA(size_t t) { out(t) = in(size_t(source(t / w)) * w + t % w); });
}

/// The same into a new array taken from arena.
template <class Scalar, class Device>
Kokkos::View<Scalar*, Device> gather_values(Kokkos::View<const offset_t*, Device> source,
                                            Kokkos::View<const Scalar*, Device> in, size_t w,
                                            ViewArena<Device>& arena) {
  Kokkos::View<Scalar*, Device> out = arena.template take<Scalar>("trellis::permuted_values", source.extent(0) * w);
  gather_values_into<Scalar, Device>(typename Device::execution_space(), source, in, out, w);
  return out;
}

template <class Scalar, class Device>
CsrMatrix<Scalar, Device> gather_rows(const CsrMatrix<Scalar, Device>& A, const Permutation<Device>& p,
                                      bool map_columns) {
  ViewArena<Device> arena;
  const auto g = gather_pattern(A.row_map, A.entries, p, map_columns, arena);
  return CsrMatrix<Scalar, Device>(A.num_rows, A.num_cols, g.row_map, g.entries,
                                   gather_values<Scalar, Device>(g.source, A.values, 1, arena));
}
}  // namespace detail

/// P A: row i of the result is row new_to_old[i] of A.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> permute_rows(const CsrMatrix<Scalar, Device>& A, const Permutation<Device>& p) {
  return detail::gather_rows(A, p, false);
}

/// P A P^T: rows and columns renumbered alike (Algorithm 3.2); square A only.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> permute_symmetric(const CsrMatrix<Scalar, Device>& A, const Permutation<Device>& p) {
  if (!A.is_square()) throw StructureError("permute_symmetric: matrix is not square");
  return detail::gather_rows(A, p, true);
}

/// P A P^T on block rows and columns (Algorithm 3.2 for BSR), columns sorted;
/// its arrays come from `arena`. With `source`, *source gets (kept) the
/// position in A of each block of the result, for new values of the same
/// pattern later.
template <class Scalar, class Device>
BsrMatrix<Scalar, Device> permute_symmetric(const BsrMatrix<Scalar, Device>& A, const Permutation<Device>& p,
                                            ViewArena<Device>& arena,
                                            Kokkos::View<offset_t*, Device>* source = nullptr) {
  if (A.num_block_rows != A.num_block_cols) throw StructureError("permute_symmetric: block matrix is not square");
  const auto g = detail::gather_pattern(A.row_map, A.entries, p, true, arena,
                                        source ? ViewArena<Device>::kept : ViewArena<Device>::temporary);
  if (source) *source = g.source;
  const size_t bb = size_t(A.block_size) * A.block_size;
  return BsrMatrix<Scalar, Device>(A.block_size, A.num_block_rows, A.num_block_cols, g.row_map, g.entries,
                                   detail::gather_values<Scalar, Device>(g.source, A.values, bb, arena));
}
template <class Scalar, class Device>
BsrMatrix<Scalar, Device> permute_symmetric(const BsrMatrix<Scalar, Device>& A, const Permutation<Device>& p) {
  ViewArena<Device> arena;
  return permute_symmetric(A, p, arena);
}

/// y[i] = x[new_to_old[i]]: a vector into the new numbering.
template <class Scalar, class Device>
void permute_vector(const Permutation<Device>& p, Kokkos::View<const Scalar*, Device> x,
                    Kokkos::View<Scalar*, Device> y) {
  auto n2o = p.new_to_old;
  Kokkos::parallel_for(
      "trellis::permute_vector", trellis::RangePolicy<typename Device::execution_space>(0, p.size()),
      KOKKOS_LAMBDA(ordinal_t i) { y(i) = x(n2o(i)); });
}

/// y[new_to_old[i]] = x[i]: a vector back into the original numbering.
template <class Scalar, class Device>
void unpermute_vector(const Permutation<Device>& p, Kokkos::View<const Scalar*, Device> x,
                      Kokkos::View<Scalar*, Device> y) {
  auto n2o = p.new_to_old;
  Kokkos::parallel_for(
      "trellis::unpermute_vector", trellis::RangePolicy<typename Device::execution_space>(0, p.size()),
      KOKKOS_LAMBDA(ordinal_t i) { y(n2o(i)) = x(i); });
}

}  // namespace trellis
