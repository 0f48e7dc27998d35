#pragma once
// M = diag(A).
#include <Kokkos_Core.hpp>

#include <string>
#include "trellis/core/backend.hpp"
#include "trellis/core/csr_check.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/kokkos_compat.hpp"

#include "trellis/core/errors.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

namespace detail {
/// inv(i) = 1 / a_ii; returns the first row whose diagonal is zero, missing or
/// non-finite, or num_rows. (A free function: CUDA lambdas may not live in
/// constructors.)
template <class Scalar, class Device>
ordinal_t invert_diagonal(const CsrMatrix<Scalar, Device>& A, Kokkos::View<Scalar*, Device> inv) {
  using policy = trellis::RangePolicy<typename Device::execution_space>;
  auto map = A.row_map;
  auto ent = A.entries;
  auto val = A.values;
  ordinal_t bad = A.num_rows;
  Kokkos::parallel_reduce(
      "trellis::jacobi::setup", policy(0, A.num_rows),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & first_bad) {
        Scalar d = 0;
        for (offset_t k = map(i); k < map(i + 1); ++k)
          if (ent(k) == i) d += val(k);
        inv(i) = Scalar(1) / d;
        const bool ok = d != Scalar(0) && math::isfinite(inv(i)) && math::isfinite(d);
        if (!ok && i < first_bad) first_bad = i;
      },
      Kokkos::Min<ordinal_t>(bad));
  return bad;
}

/// z(i) = inv(i) r(i). (A free function: CUDA lambdas may not live in
/// protected members.)
template <class Scalar, class Device>
void scale_by(const typename Device::execution_space& space, Kokkos::View<const Scalar*, Device> inv,
              Kokkos::View<const Scalar*, Device> r, Kokkos::View<Scalar*, Device> z) {
  Kokkos::parallel_for(
      "trellis::jacobi::apply", trellis::RangePolicy<typename Device::execution_space>(space, 0, r.extent(0)),
      KOKKOS_LAMBDA(size_t i) { z(i) = inv(i) * r(i); });
}
}  // namespace detail

/// M = diag(A). A zero, missing or non-finite diagonal entry is a
/// PivotError naming its row.
template <class Scalar = double, class Device = DefaultDevice>
class JacobiPreconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  explicit JacobiPreconditioner(const CsrMatrix<Scalar, Device>& A)
      : inv_diag_("trellis::jacobi::inv_diag", A.num_rows) {
    check_canonical(A, "Jacobi");
    const ordinal_t bad = detail::invert_diagonal(A, inv_diag_);
    if (bad < A.num_rows) throw PivotError("Jacobi: zero, missing or non-finite diagonal", bad, 0.0);
  }

 protected:
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    if (r.extent(0) != inv_diag_.extent(0) || z.extent(0) != inv_diag_.extent(0))
      throw StructureError("Jacobi: vectors of " + std::to_string(r.extent(0)) + " and " + std::to_string(z.extent(0)) +
                           " entries for " + std::to_string(inv_diag_.extent(0)) + " rows");
    detail::scale_by<Scalar, Device>(space, inv_diag_, r, z);
  }

 private:
  Kokkos::View<Scalar*, Device> inv_diag_;
};

}  // namespace trellis
