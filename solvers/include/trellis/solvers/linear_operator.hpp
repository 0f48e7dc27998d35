#pragma once
// What the Krylov drivers see of a matrix: y = A x. Matrices, and later the
// Kronecker and stencil operators, implement it; the drivers know nothing else.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>

#include "trellis/core/csr_matrix.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class LinearOperator {
 public:
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  virtual ~LinearOperator() = default;
  virtual ordinal_t num_rows() const = 0;
  /// y = A x; x and y are distinct Views of num_rows() entries.
  virtual void apply(const_vector_type x, vector_type y) const = 0;
};

/// A CSR matrix as an operator (Kokkos Kernels spmv).
template <class Scalar = double, class Device = DefaultDevice>
class CsrOperator : public LinearOperator<Scalar, Device> {
 public:
  using typename LinearOperator<Scalar, Device>::vector_type;
  using typename LinearOperator<Scalar, Device>::const_vector_type;
  explicit CsrOperator(const CsrMatrix<Scalar, Device>& A) : A_(A), kk_(to_kokkos(A)) {
    if (!A.is_square())
      throw StructureError("CsrOperator: matrix is " + std::to_string(A.num_rows) + "x" +
                           std::to_string(A.num_cols) + ", not square");
  }
  ordinal_t num_rows() const override { return A_.num_rows; }
  void apply(const_vector_type x, vector_type y) const override {
    KokkosSparse::spmv("N", Scalar(1), kk_, x, Scalar(0), y);
  }
  const CsrMatrix<Scalar, Device>& matrix() const { return A_; }

 private:
  CsrMatrix<Scalar, Device> A_;
  typename CsrMatrix<Scalar, Device>::kokkos_type kk_;
};

}  // namespace trellis
