#pragma once
// A BSR matrix as a Krylov operator: y = A x through the block SpMV kernel
// (one fused pass over the blocks, b a compile-time constant), which reads a
// point-block matrix once per block instead of once per scalar entry.
#include <string>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/solvers/linear_operator.hpp"
#include "trellis/spmv/bsr_spmv.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class BsrOperator : public LinearOperator<Scalar, Device> {
 public:
  using typename LinearOperator<Scalar, Device>::execution_space;
  using typename LinearOperator<Scalar, Device>::vector_type;
  using typename LinearOperator<Scalar, Device>::const_vector_type;
  /// Throws StructureError when A is not square or its block size has no
  /// kernel (1..8), so that a bad operator fails here, not in the first apply.
  explicit BsrOperator(const BsrMatrix<Scalar, Device>& A) : A_(A) {
    detail::check_block_size(A.block_size, "BsrOperator");
    if (A.num_rows() != A.num_cols())
      throw StructureError("BsrOperator: matrix is " + std::to_string(A.num_rows()) + "x" +
                           std::to_string(A.num_cols()) + ", not square");
  }
  ordinal_t num_rows() const override { return A_.num_rows(); }
  const BsrMatrix<Scalar, Device>& matrix() const { return A_; }

 protected:
  void apply_on(const execution_space& space, const_vector_type x, vector_type y) const override {
    bsr_spmv(space, Scalar(1), A_, x, Scalar(0), y);
  }

 private:
  BsrMatrix<Scalar, Device> A_;
};

}  // namespace trellis
