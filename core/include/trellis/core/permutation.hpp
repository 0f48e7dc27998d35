#pragma once
// Row and symmetric permutations of CSR matrices and vectors (seed 000,
// Algorithm 3.2: reorder rows, map columns through the inverse permutation,
// sort each row's columns).
//
// A Permutation holds both directions: new_to_old[i] is the original index of
// new index i, old_to_new its inverse.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_SparseUtils.hpp>
#include <string>
#include <vector>

#include "trellis/core/csr_matrix.hpp"

namespace trellis {

template <class Device>
struct Permutation {
  Kokkos::View<ordinal_t*, Device> new_to_old;
  Kokkos::View<ordinal_t*, Device> old_to_new;
  ordinal_t size() const { return ordinal_t(new_to_old.extent(0)); }
};

/// Builds a permutation from new_to_old (host array), checking that it is one:
/// throws InputError naming the first repeated or out-of-range index.
template <class Device = DefaultDevice>
Permutation<Device> make_permutation(const std::vector<ordinal_t>& new_to_old) {
  const ordinal_t n = ordinal_t(new_to_old.size());
  Kokkos::View<ordinal_t*, HostDevice> n2o("new_to_old", n), o2n("old_to_new", n);
  Kokkos::deep_copy(o2n, -1);
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t old = new_to_old[i];
    if (old < 0 || old >= n)
      throw InputError("permutation: entry " + std::to_string(i) + " is " + std::to_string(old) +
                       ", outside [0, " + std::to_string(n) + ")");
    if (o2n(old) != -1)
      throw InputError("permutation: index " + std::to_string(old) + " appears twice (at " +
                       std::to_string(o2n(old)) + " and " + std::to_string(i) + ")");
    n2o(i) = old;
    o2n(old) = i;
  }
  Permutation<Device> p;
  p.new_to_old = Kokkos::create_mirror_view_and_copy(typename Device::memory_space(), n2o);
  p.old_to_new = Kokkos::create_mirror_view_and_copy(typename Device::memory_space(), o2n);
  return p;
}

namespace detail {
/// Rows of A in the order p.new_to_old; columns mapped through col_map when
/// given (then re-sorted), else kept.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> gather_rows(const CsrMatrix<Scalar, Device>& A,
                                      const Permutation<Device>& p, bool map_columns) {
  using exec = typename Device::execution_space;
  using policy = Kokkos::RangePolicy<exec>;
  using M = CsrMatrix<Scalar, Device>;
  if (p.size() != A.num_rows)
    throw StructureError("permute: permutation of size " + std::to_string(p.size()) +
                         " for a matrix with " + std::to_string(A.num_rows) + " rows");
  const ordinal_t n = A.num_rows;
  auto row_map = A.row_map;
  auto entries = A.entries;
  auto values = A.values;
  auto n2o = p.new_to_old;
  auto o2n = p.old_to_new;
  Kokkos::View<offset_t*, Device> out_map("permuted_row_map", size_t(n) + 1);
  Kokkos::parallel_scan(
      "trellis::permute::row_map", policy(0, n),
      KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        const ordinal_t k = n2o(i);
        sum += row_map(k + 1) - row_map(k);
        if (final) out_map(i + 1) = sum;
      });
  typename M::index_type out_ent(Kokkos::ViewAllocateWithoutInitializing("permuted_entries"),
                                 A.nnz());
  typename M::values_type out_val(Kokkos::ViewAllocateWithoutInitializing("permuted_values"),
                                  A.nnz());
  Kokkos::parallel_for(
      "trellis::permute::fill", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
        const ordinal_t m = n2o(i);
        offset_t pos = out_map(i);
        for (offset_t k = row_map(m); k < row_map(m + 1); ++k, ++pos) {
          out_ent(pos) = map_columns ? o2n(entries(k)) : entries(k);
          out_val(pos) = values(k);
        }
      });
  if (map_columns) KokkosKernels::Impl::sort_crs_matrix<exec>(out_map, out_ent, out_val);
  return M(n, A.num_cols, out_map, out_ent, out_val);
}
}  // namespace detail

/// P A: row i of the result is row new_to_old[i] of A.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> permute_rows(const CsrMatrix<Scalar, Device>& A,
                                       const Permutation<Device>& p) {
  return detail::gather_rows(A, p, false);
}

/// P A P^T: rows and columns renumbered alike (Algorithm 3.2); square A only.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> permute_symmetric(const CsrMatrix<Scalar, Device>& A,
                                            const Permutation<Device>& p) {
  if (!A.is_square()) throw StructureError("permute_symmetric: matrix is not square");
  return detail::gather_rows(A, p, true);
}

/// y[i] = x[new_to_old[i]]: a vector into the new numbering.
template <class Scalar, class Device>
void permute_vector(const Permutation<Device>& p, Kokkos::View<const Scalar*, Device> x,
                    Kokkos::View<Scalar*, Device> y) {
  auto n2o = p.new_to_old;
  Kokkos::parallel_for(
      "trellis::permute_vector",
      Kokkos::RangePolicy<typename Device::execution_space>(0, p.size()),
      KOKKOS_LAMBDA(ordinal_t i) { y(i) = x(n2o(i)); });
}

/// y[new_to_old[i]] = x[i]: a vector back into the original numbering.
template <class Scalar, class Device>
void unpermute_vector(const Permutation<Device>& p, Kokkos::View<const Scalar*, Device> x,
                      Kokkos::View<Scalar*, Device> y) {
  auto n2o = p.new_to_old;
  Kokkos::parallel_for(
      "trellis::unpermute_vector",
      Kokkos::RangePolicy<typename Device::execution_space>(0, p.size()),
      KOKKOS_LAMBDA(ordinal_t i) { y(n2o(i)) = x(i); });
}

}  // namespace trellis
