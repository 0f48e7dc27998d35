#pragma once
// What the Krylov drivers see of a matrix: y = A x. Matrices, and later the
// Kronecker and stencil operators, implement it; the drivers know nothing else.
//
// Non-virtual interface: callers use apply(space, x, y) (work queued on the
// execution-space instance space) or apply(x, y) (the default instance);
// implementations override the one protected apply_on and so never hide an
// overload of apply.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>

#include "trellis/core/csr_check.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/distributed/communicator.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class LinearOperator {
 public:
  using execution_space = typename Device::execution_space;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;
  virtual ~LinearOperator() = default;
  virtual ordinal_t num_rows() const = 0;
  /// y = A x on the instance space (queued: the call need not wait for it);
  /// x and y are distinct Views of num_rows() entries.
  void apply(const execution_space& space, const_vector_type x, vector_type y) const { apply_on(space, x, y); }
  /// y = A x on the default instance.
  void apply(const_vector_type x, vector_type y) const { apply_on(execution_space(), x, y); }
  /// The processes the operator's rows are spread over: the drivers' inner
  /// products sum over all of them (the reduction seam,
  /// detail/vector_ops.hpp). One process unless the operator is distributed.
  virtual const distributed::Communicator& communicator() const {
    static const distributed::Communicator single_process;
    return single_process;
  }

 protected:
  /// The customisation point behind both apply overloads.
  virtual void apply_on(const execution_space& space, const_vector_type x, vector_type y) const = 0;
};

/// A CSR matrix as an operator (Kokkos Kernels spmv).
template <class Scalar = double, class Device = DefaultDevice>
class CsrOperator : public LinearOperator<Scalar, Device> {
 public:
  using typename LinearOperator<Scalar, Device>::execution_space;
  using typename LinearOperator<Scalar, Device>::vector_type;
  using typename LinearOperator<Scalar, Device>::const_vector_type;
  explicit CsrOperator(const CsrMatrix<Scalar, Device>& A) : A_(checked(A)), kk_(to_kokkos(A)) {
    if (!A.is_square())
      throw StructureError("CsrOperator: matrix is " + std::to_string(A.num_rows) + "x" + std::to_string(A.num_cols) +
                           ", not square");
  }
  ordinal_t num_rows() const override { return A_.num_rows; }
  const CsrMatrix<Scalar, Device>& matrix() const { return A_; }

 protected:
  /// Kokkos Kernels 3.4's spmv takes no execution-space instance: it runs on
  /// the default instance, which Kokkos orders with the instances it wraps
  /// (CUDA: the legacy default stream against blocking streams). Pass space
  /// when Kokkos Kernels' spmv(space, ...) (4.x) is available.
  void apply_on(const execution_space& /*space*/, const_vector_type x, vector_type y) const override {
    KokkosSparse::spmv("N", Scalar(1), kk_, x, Scalar(0), y);
  }

 private:
  static const CsrMatrix<Scalar, Device>& checked(const CsrMatrix<Scalar, Device>& A) {
    check_canonical(A, "CsrOperator");
    return A;
  }
  CsrMatrix<Scalar, Device> A_;
  typename CsrMatrix<Scalar, Device>::kokkos_type kk_;
};

}  // namespace trellis
