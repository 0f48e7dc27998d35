#pragma once
// The Kokkos Kernels baseline of `trellis solve --compare`: global ILU0
// factors (ours: Kokkos Kernels' spiluk replaces a zero pivot by 1e6 without
// saying so) applied with Kokkos Kernels' sptrsv (SEQLVLSCHD_TP1). Its
// symbolic phase runs on the host in O(levels * n), so it suits small and
// medium problems.
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_sptrsv.hpp>

#include <chrono>
#include <memory>

#include "trellis/core/kokkos_compat.hpp"
#include "trellis/ilu/global_ilu0.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class KokkosKernelsIlu0Preconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  using exec = typename Device::execution_space;
  using memory = typename Device::memory_space;
  using handle_type =
      KokkosKernels::Experimental::KokkosKernelsHandle<offset_t, ordinal_t, Scalar, exec, memory, memory>;

  explicit KokkosKernelsIlu0Preconditioner(const GlobalIlu0<Scalar, Device>& ilu)
      : work_("trellis::kk_ilu0::work", ilu.num_rows()) {
    std::tie(L_, U_) = ilu.triangles_with_diagonal();
    const auto t0 = std::chrono::steady_clock::now();
    using KokkosSparse::Experimental::SPTRSVAlgorithm;
    lower_.create_sptrsv_handle(SPTRSVAlgorithm::SEQLVLSCHD_TP1, L_.num_rows, true);
    upper_.create_sptrsv_handle(SPTRSVAlgorithm::SEQLVLSCHD_TP1, U_.num_rows, false);
    compat::sptrsv::sptrsv_symbolic(&lower_, L_.row_map, L_.entries);
    compat::sptrsv::sptrsv_symbolic(&upper_, U_.row_map, U_.entries);
    exec().fence();
    analysis_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  double analysis_seconds() const { return analysis_seconds_; }

 protected:
  // Kokkos Kernels 3.4's sptrsv_solve takes no instance: the solves run on
  // the default instance.
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    apply_left_on(space, r, work_);
    apply_right_on(space, work_, z);
  }
  void apply_left_on(const execution_space&, const_vector_type r, vector_type z) const override {
    compat::sptrsv::sptrsv_solve(&lower_, L_.row_map, L_.entries, L_.values, r, z);
  }
  void apply_right_on(const execution_space&, const_vector_type r, vector_type z) const override {
    compat::sptrsv::sptrsv_solve(&upper_, U_.row_map, U_.entries, U_.values, r, z);
  }

 private:
  CsrMatrix<Scalar, Device> L_, U_;
  mutable handle_type lower_, upper_;
  vector_type work_;
  double analysis_seconds_ = 0;
};

}  // namespace trellis
