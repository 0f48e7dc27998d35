#pragma once
// cuSPARSE baselines shared by the benchmarks (TRELLIS_WITH_CUSPARSE: defined
// by CMake for CUDA builds with TRELLIS_ENABLE_CUSPARSE on): error checks, the
// library handle on Kokkos' stream, a generic SpSV triangular solve, a generic
// CSR SpMV and Gauss-Seidel sweeps built on the two, ILU0 (csrilu02) of a CSR
// matrix, the legacy BSR SpMV (bsrmv), and the legacy BSR ILU0 with its lower
// solve (bsrilu02, bsrsv2).
#if defined(TRELLIS_WITH_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "bench_support.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/triangle.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis::bench {

/// Throws, naming the call, unless a cuSPARSE call succeeded.
inline void check_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + ": " + cusparseGetErrorString(status));
}
/// Throws, naming the call, unless a CUDA runtime call succeeded.
inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}
#define TRELLIS_CUSPARSE(call) ::trellis::bench::check_cusparse((call), #call)
#define TRELLIS_CUDA(call) ::trellis::bench::check_cuda((call), #call)

/// The run's cuSPARSE library handle, on Kokkos' CUDA stream.
class CusparseLibrary {
 public:
  CusparseLibrary() {
    TRELLIS_CUSPARSE(cusparseCreate(&handle_));
    TRELLIS_CUSPARSE(cusparseSetStream(handle_, Kokkos::Cuda().cuda_stream()));
  }
  ~CusparseLibrary() { cusparseDestroy(handle_); }
  CusparseLibrary(const CusparseLibrary&) = delete;
  CusparseLibrary& operator=(const CusparseLibrary&) = delete;
  cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

using CudaCsr = CsrMatrix<double, DefaultDevice>;
using CudaVector = Kokkos::View<double*, DefaultDevice>;
using CudaConstVector = Kokkos::View<const double*, DefaultDevice>;

/// cuSPARSE's generic SpSV (CSR, 32-bit indices) on one triangle of T (T may
/// hold both); the analysis is what analysis_seconds() reports.
class CusparseSpsv {
 public:
  CusparseSpsv(cusparseHandle_t handle, const CudaCsr& T, Triangle tri, bool unit_diagonal, CudaConstVector b,
               CudaVector x)
      : handle_(handle), T_(T) {
    TRELLIS_CUSPARSE(cusparseCreateCsr(&mat_, T.num_rows, T.num_cols, T.nnz(), const_cast<offset_t*>(T.row_map.data()),
                                       T.entries.data(), T.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    cusparseFillMode_t fill = tri == Triangle::lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t diag = unit_diagonal ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
    TRELLIS_CUSPARSE(cusparseSpMatSetAttribute(mat_, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    TRELLIS_CUSPARSE(cusparseSpMatSetAttribute(mat_, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    TRELLIS_CUSPARSE(cusparseCreateDnVec(&b_, T.num_rows, const_cast<double*>(b.data()), CUDA_R_64F));
    TRELLIS_CUSPARSE(cusparseCreateDnVec(&x_, T.num_rows, x.data(), CUDA_R_64F));
    TRELLIS_CUSPARSE(cusparseSpSV_createDescr(&spsv_));
    analysis_ = fenced_seconds([&] {
      TRELLIS_CUSPARSE(cusparseSpSV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_, b_, x_,
                                               CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_, &buffer_bytes_));
      TRELLIS_CUDA(cudaMalloc(&buffer_, buffer_bytes_ ? buffer_bytes_ : 1));
      TRELLIS_CUSPARSE(cusparseSpSV_analysis(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_, b_, x_, CUDA_R_64F,
                                             CUSPARSE_SPSV_ALG_DEFAULT, spsv_, buffer_));
    });
  }
  ~CusparseSpsv() {
    cusparseSpSV_destroyDescr(spsv_);
    cusparseDestroyDnVec(x_);
    cusparseDestroyDnVec(b_);
    cusparseDestroySpMat(mat_);
    cudaFree(buffer_);
  }
  CusparseSpsv(const CusparseSpsv&) = delete;
  CusparseSpsv& operator=(const CusparseSpsv&) = delete;
  void solve(CudaConstVector b, CudaVector x) {
    TRELLIS_CUSPARSE(cusparseDnVecSetValues(b_, const_cast<double*>(b.data())));
    TRELLIS_CUSPARSE(cusparseDnVecSetValues(x_, x.data()));
    TRELLIS_CUSPARSE(cusparseSpSV_solve(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, mat_, b_, x_, CUDA_R_64F,
                                        CUSPARSE_SPSV_ALG_DEFAULT, spsv_));
  }
  /// The matrix's values changed in place (same pattern): no new analysis.
  void update_values() {
    TRELLIS_CUSPARSE(cusparseSpSV_updateMatrix(handle_, spsv_, T_.values.data(), CUSPARSE_SPSV_UPDATE_GENERAL));
  }
  double analysis_seconds() const { return analysis_; }
  size_t buffer_bytes() const { return buffer_bytes_; }

 private:
  cusparseHandle_t handle_;
  CudaCsr T_;  // keeps the arrays the descriptor points to alive
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t b_ = nullptr, x_ = nullptr;
  cusparseSpSVDescr_t spsv_ = nullptr;
  void* buffer_ = nullptr;
  size_t buffer_bytes_ = 0;
  double analysis_ = 0;
  const double one_ = 1.0;
};

/// ILU0 of A by cusparseDcsrilu02 (level-scheduled), in a copy of A's values:
/// L (unit, strict lower) and U (upper with diagonal) share the pattern.
/// Keeps its analysis, so that numeric() is csrilu02's numeric phase alone
/// (what an application refactoring in a time loop calls). A structural or
/// numerical zero pivot throws naming its row.
class CusparseCsrilu02 {
 public:
  CusparseCsrilu02(cusparseHandle_t handle, const CudaCsr& A)
      : handle_(handle),
        LU_(A.num_rows, A.num_cols, A.row_map, A.entries,
            CudaCsr::values_type(Kokkos::ViewAllocateWithoutInitializing("cusparse_ilu0"), A.nnz())) {
    TRELLIS_CUSPARSE(cusparseCreateMatDescr(&descr_));
    TRELLIS_CUSPARSE(cusparseCreateCsrilu02Info(&info_));
    Kokkos::deep_copy(LU_.values, A.values);
    int pivot = -1;
    seconds_ = fenced_seconds([&] {
      int bytes = 0;
      TRELLIS_CUSPARSE(
          cusparseDcsrilu02_bufferSize(handle_, n(), nnz(), descr_, vals(), rows(), cols(), info_, &bytes));
      TRELLIS_CUDA(cudaMalloc(&buffer_, bytes ? bytes : 1));
      TRELLIS_CUSPARSE(cusparseDcsrilu02_analysis(handle_, n(), nnz(), descr_, vals(), rows(), cols(), info_,
                                                  CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
      if (cusparseXcsrilu02_zeroPivot(handle_, info_, &pivot) == CUSPARSE_STATUS_ZERO_PIVOT) return;
      pivot = factor();
    });
    if (pivot >= 0) {
      release();
      throw std::runtime_error("cusparse csrilu02: zero pivot at row " + std::to_string(pivot));
    }
  }
  ~CusparseCsrilu02() { release(); }
  CusparseCsrilu02(const CusparseCsrilu02&) = delete;
  CusparseCsrilu02& operator=(const CusparseCsrilu02&) = delete;

  /// New values of A's pattern: copied in and factored with the kept analysis.
  void numeric(CudaConstVector values) {
    Kokkos::deep_copy(LU_.values, values);
    const int pivot = factor();
    if (pivot >= 0) throw std::runtime_error("cusparse csrilu02: zero pivot at row " + std::to_string(pivot));
  }
  const CudaCsr& factors() const { return LU_; }
  double seconds() const { return seconds_; }  // analysis + first factorization

 private:
  int n() const { return LU_.num_rows; }
  int nnz() const { return int(LU_.nnz()); }
  int* rows() const { return const_cast<int*>(LU_.row_map.data()); }
  int* cols() const { return LU_.entries.data(); }
  double* vals() const { return LU_.values.data(); }
  /// csrilu02's numeric phase; the row of a zero pivot, or -1.
  int factor() {
    TRELLIS_CUSPARSE(cusparseDcsrilu02(handle_, n(), nnz(), descr_, vals(), rows(), cols(), info_,
                                       CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
    int pivot = -1;
    return cusparseXcsrilu02_zeroPivot(handle_, info_, &pivot) == CUSPARSE_STATUS_ZERO_PIVOT ? pivot : -1;
  }
  void release() {
    if (buffer_) cudaFree(buffer_);
    if (info_) cusparseDestroyCsrilu02Info(info_);
    if (descr_) cusparseDestroyMatDescr(descr_);
    buffer_ = nullptr, info_ = nullptr, descr_ = nullptr;
  }
  cusparseHandle_t handle_;
  CudaCsr LU_;
  cusparseMatDescr_t descr_ = nullptr;
  csrilu02Info_t info_ = nullptr;
  void* buffer_ = nullptr;
  double seconds_ = 0;
};

/// ILU0 of A by csrilu02 (analysis and factorization), timed into `seconds`.
inline CudaCsr cusparse_ilu0(cusparseHandle_t handle, const CudaCsr& A, double& seconds) {
  const CusparseCsrilu02 ilu(handle, A);
  seconds = ilu.seconds();
  return ilu.factors();
}

/// cuSPARSE ILU0 as a Krylov preconditioner (the OPM-style baseline of seed
/// 000's Tables 5.5-5.6): csrilu02 factors, SpSV lower (unit) and upper solves;
/// splits as K1 = L, K2 = U.
class CusparseIlu0Preconditioner : public Preconditioner<double, DefaultDevice> {
 public:
  CusparseIlu0Preconditioner(cusparseHandle_t handle, const CudaCsr& A)
      : ilu_(handle, A),
        in_("ilu0_in", A.num_rows),
        mid_("ilu0_mid", A.num_rows),
        out_("ilu0_out", A.num_rows),
        lower_(handle, ilu_.factors(), Triangle::lower, true, in_, mid_),
        upper_(handle, ilu_.factors(), Triangle::upper, false, mid_, out_) {}
  double setup_seconds() const { return ilu_.seconds() + lower_.analysis_seconds() + upper_.analysis_seconds(); }
  /// New values of A's pattern: csrilu02's numeric phase, and the SpSV
  /// descriptors told of the new factor values (cusparseSpSV_updateMatrix,
  /// no new analysis).
  void numeric(CudaConstVector values) {
    ilu_.numeric(values);
    lower_.update_values();
    upper_.update_values();
  }

 protected:
  // The cuSPARSE solves run on the handle's stream (the default instance's), not on space.
  void apply_on(const execution_space&, CudaConstVector r, CudaVector z) const override {
    lower_.solve(r, mid_);
    upper_.solve(mid_, z);
  }
  void apply_left_on(const execution_space&, CudaConstVector r, CudaVector z) const override { lower_.solve(r, z); }
  void apply_right_on(const execution_space&, CudaConstVector r, CudaVector z) const override { upper_.solve(r, z); }

 private:
  CusparseCsrilu02 ilu_;
  CudaVector in_, mid_, out_;
  mutable CusparseSpsv lower_, upper_;
};

/// cuSPARSE's generic CSR SpMV (32-bit indices): y = alpha A x + beta y.
class CusparseCsrSpmv {
 public:
  CusparseCsrSpmv(cusparseHandle_t handle, const CudaCsr& A, CudaConstVector x, CudaVector y) : handle_(handle), A_(A) {
    TRELLIS_CUSPARSE(cusparseCreateCsr(&mat_, A.num_rows, A.num_cols, A.nnz(), const_cast<offset_t*>(A.row_map.data()),
                                       A.entries.data(), A.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    TRELLIS_CUSPARSE(cusparseCreateDnVec(&x_, A.num_cols, const_cast<double*>(x.data()), CUDA_R_64F));
    TRELLIS_CUSPARSE(cusparseCreateDnVec(&y_, A.num_rows, y.data(), CUDA_R_64F));
    const double one = 1;
    TRELLIS_CUSPARSE(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, x_, &one, y_,
                                             CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes_));
    TRELLIS_CUDA(cudaMalloc(&buffer_, buffer_bytes_ ? buffer_bytes_ : 1));
  }
  ~CusparseCsrSpmv() {
    cusparseDestroyDnVec(y_);
    cusparseDestroyDnVec(x_);
    cusparseDestroySpMat(mat_);
    cudaFree(buffer_);
  }
  CusparseCsrSpmv(const CusparseCsrSpmv&) = delete;
  CusparseCsrSpmv& operator=(const CusparseCsrSpmv&) = delete;
  void apply(double alpha, CudaConstVector x, double beta, CudaVector y) {
    TRELLIS_CUSPARSE(cusparseDnVecSetValues(x_, const_cast<double*>(x.data())));
    TRELLIS_CUSPARSE(cusparseDnVecSetValues(y_, y.data()));
    TRELLIS_CUSPARSE(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, x_, &beta, y_, CUDA_R_64F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, buffer_));
  }

 private:
  cusparseHandle_t handle_;
  CudaCsr A_;  // keeps the arrays the descriptor points to alive
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  void* buffer_ = nullptr;
  size_t buffer_bytes_ = 0;
};

/// Gauss-Seidel built on cuSPARSE, the stand-in for seed 002's CUS1 and
/// CUS2 baselines (csrsv and csrsv2, which CUDA 13 no longer has): a
/// forward sweep is y = b - U x (SpMV with the strictly upper part), then
/// (D + L) x = y (SpSV); a backward sweep the mirror. Each SpSV is analysed
/// once, at construction.
class CusparseGaussSeidel {
 public:
  CusparseGaussSeidel(cusparseHandle_t handle, const CudaCsr& A, CudaVector x)
      : y_(Kokkos::ViewAllocateWithoutInitializing("cusparse_gs_y"), A.num_rows),
        strict_lower_(handle, extract_triangle(A, Triangle::lower, Diagonal::exclude), x, y_),
        strict_upper_(handle, extract_triangle(A, Triangle::upper, Diagonal::exclude), x, y_),
        lower_(handle, extract_triangle(A, Triangle::lower, Diagonal::include), Triangle::lower, false, y_, x),
        upper_(handle, extract_triangle(A, Triangle::upper, Diagonal::include), Triangle::upper, false, y_, x) {}
  /// One forward and one backward sweep on x.
  void symmetric(CudaConstVector b, CudaVector x) {
    Kokkos::deep_copy(Kokkos::Cuda(), y_, b);
    strict_upper_.apply(-1, x, 1, y_);
    lower_.solve(y_, x);
    Kokkos::deep_copy(Kokkos::Cuda(), y_, b);
    strict_lower_.apply(-1, x, 1, y_);
    upper_.solve(y_, x);
  }

 private:
  CudaVector y_;
  CusparseCsrSpmv strict_lower_, strict_upper_;
  CusparseSpsv lower_, upper_;
};

/// cuSPARSE's legacy BSR SpMV (row-major blocks, as BsrMatrix stores them):
/// y = A x + beta y.
class CusparseBsrmv {
 public:
  CusparseBsrmv(cusparseHandle_t handle, const BsrMatrix<double, DefaultDevice>& A) : handle_(handle), A_(A) {
    TRELLIS_CUSPARSE(cusparseCreateMatDescr(&descr_));
  }
  ~CusparseBsrmv() { cusparseDestroyMatDescr(descr_); }
  CusparseBsrmv(const CusparseBsrmv&) = delete;
  CusparseBsrmv& operator=(const CusparseBsrmv&) = delete;
  void apply(Kokkos::View<const double*, DefaultDevice> x, Kokkos::View<double*, DefaultDevice> y,
             double beta = 0) const {
    if (A_.num_block_rows == 0) return;
    const double one = 1;
    TRELLIS_CUSPARSE(cusparseDbsrmv(handle_, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    A_.num_block_rows, A_.num_block_cols, A_.nnz_blocks(), &one, descr_,
                                    A_.values.data(), A_.row_map.data(), A_.entries.data(), A_.block_size, x.data(),
                                    &beta, y.data()));
  }

 private:
  cusparseHandle_t handle_;
  BsrMatrix<double, DefaultDevice> A_;
  cusparseMatDescr_t descr_ = nullptr;
};

/// cuSPARSE's legacy BSR ILU0 (bsrilu02, row-major blocks, level policy)
/// and its unit-lower solve (bsrsv2), deprecated but present in CUDA 13: the
/// BSR baseline of seed 003's Table 3. factor_seconds() is the analysis and
/// the factorization; the lower solve's analysis is lower_analysis_seconds().
/// A zero pivot throws naming its block row.
class CusparseBsrIlu0 {
 public:
  CusparseBsrIlu0(cusparseHandle_t handle, const BsrMatrix<double, DefaultDevice>& A)
      : handle_(handle),
        A_(A),
        values_(Kokkos::ViewAllocateWithoutInitializing("cusparse_bsr_ilu0"), A.values.extent(0)) {
    TRELLIS_CUSPARSE(cusparseCreateMatDescr(&descr_));
    TRELLIS_CUSPARSE(cusparseCreateMatDescr(&lower_descr_));
    TRELLIS_CUSPARSE(cusparseSetMatFillMode(lower_descr_, CUSPARSE_FILL_MODE_LOWER));
    TRELLIS_CUSPARSE(cusparseSetMatDiagType(lower_descr_, CUSPARSE_DIAG_TYPE_UNIT));
    TRELLIS_CUSPARSE(cusparseCreateBsrilu02Info(&ilu_info_));
    TRELLIS_CUSPARSE(cusparseCreateBsrsv2Info(&sv_info_));
    Kokkos::deep_copy(values_, A.values);
    int ilu_bytes = 0, sv_bytes = 0;
    TRELLIS_CUSPARSE(cusparseDbsrilu02_bufferSize(handle_, dir, mb(), nnzb(), descr_, vals(), rows(), cols(), dim(),
                                                  ilu_info_, &ilu_bytes));
    TRELLIS_CUSPARSE(cusparseDbsrsv2_bufferSize(handle_, dir, CUSPARSE_OPERATION_NON_TRANSPOSE, mb(), nnzb(),
                                                lower_descr_, vals(), rows(), cols(), dim(), sv_info_, &sv_bytes));
    TRELLIS_CUDA(cudaMalloc(&buffer_, std::max({ilu_bytes, sv_bytes, 1})));
    int pivot = -1;
    factor_ = fenced_seconds([&] {
      TRELLIS_CUSPARSE(cusparseDbsrilu02_analysis(handle_, dir, mb(), nnzb(), descr_, vals(), rows(), cols(), dim(),
                                                  ilu_info_, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
      if (cusparseXbsrilu02_zeroPivot(handle_, ilu_info_, &pivot) == CUSPARSE_STATUS_ZERO_PIVOT) return;
      TRELLIS_CUSPARSE(cusparseDbsrilu02(handle_, dir, mb(), nnzb(), descr_, vals(), rows(), cols(), dim(), ilu_info_,
                                         CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
      if (cusparseXbsrilu02_zeroPivot(handle_, ilu_info_, &pivot) != CUSPARSE_STATUS_ZERO_PIVOT) pivot = -1;
    });
    if (pivot >= 0) {
      release();
      throw std::runtime_error("cusparse bsrilu02: zero pivot in block row " + std::to_string(pivot));
    }
    lower_analysis_ = fenced_seconds([&] {
      TRELLIS_CUSPARSE(cusparseDbsrsv2_analysis(handle_, dir, CUSPARSE_OPERATION_NON_TRANSPOSE, mb(), nnzb(),
                                                lower_descr_, vals(), rows(), cols(), dim(), sv_info_,
                                                CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
    });
  }
  ~CusparseBsrIlu0() { release(); }
  CusparseBsrIlu0(const CusparseBsrIlu0&) = delete;
  CusparseBsrIlu0& operator=(const CusparseBsrIlu0&) = delete;

  /// x = L^{-1} b with the factor's unit lower triangle.
  void lower_solve(CudaConstVector b, CudaVector x) {
    const double one = 1;
    TRELLIS_CUSPARSE(cusparseDbsrsv2_solve(handle_, dir, CUSPARSE_OPERATION_NON_TRANSPOSE, mb(), nnzb(), &one,
                                           lower_descr_, vals(), rows(), cols(), dim(), sv_info_, b.data(), x.data(),
                                           CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
  }
  double factor_seconds() const { return factor_; }
  double lower_analysis_seconds() const { return lower_analysis_; }

 private:
  static constexpr cusparseDirection_t dir = CUSPARSE_DIRECTION_ROW;
  int mb() const { return A_.num_block_rows; }
  int nnzb() const { return int(A_.nnz_blocks()); }
  int dim() const { return A_.block_size; }
  const int* rows() const { return A_.row_map.data(); }
  const int* cols() const { return A_.entries.data(); }
  double* vals() const { return values_.data(); }
  void release() {
    if (buffer_) cudaFree(buffer_);
    if (sv_info_) cusparseDestroyBsrsv2Info(sv_info_);
    if (ilu_info_) cusparseDestroyBsrilu02Info(ilu_info_);
    if (lower_descr_) cusparseDestroyMatDescr(lower_descr_);
    if (descr_) cusparseDestroyMatDescr(descr_);
    buffer_ = nullptr, sv_info_ = nullptr, ilu_info_ = nullptr, lower_descr_ = nullptr, descr_ = nullptr;
  }
  cusparseHandle_t handle_;
  BsrMatrix<double, DefaultDevice> A_;  // keeps the pattern alive
  Kokkos::View<double*, DefaultDevice> values_;
  cusparseMatDescr_t descr_ = nullptr, lower_descr_ = nullptr;
  bsrilu02Info_t ilu_info_ = nullptr;
  bsrsv2Info_t sv_info_ = nullptr;
  void* buffer_ = nullptr;
  double factor_ = 0, lower_analysis_ = 0;
};

}  // namespace trellis::bench
#endif
