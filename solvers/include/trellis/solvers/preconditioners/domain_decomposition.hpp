#pragma once
// The domain-decomposition ILDU0 (seed 000) as a preconditioner, any
// application variant; splits as K1 = L D, K2 = U' (Algorithm 2.1), each
// factor solved as the variant solves it.
#include <Kokkos_Core.hpp>
#include <memory>

#include "trellis/dd/domain_decomposition_ilu.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

/// The domain-decomposition ILDU0. With `reordered`, vectors are in the
/// preconditioner's reordered numbering (solve with reordered_matrix(): no
/// permutation per application, and the split form is available); else in
/// the original numbering (K1 = M, K2 = I).
template <class Scalar = double, class Device = DefaultDevice>
class DdPreconditioner : public Preconditioner<Scalar, Device> {
 public:
  using typename Preconditioner<Scalar, Device>::execution_space;
  using typename Preconditioner<Scalar, Device>::vector_type;
  using typename Preconditioner<Scalar, Device>::const_vector_type;
  using factor_type = DomainDecompositionIlu<Scalar, Device>;
  DdPreconditioner(std::shared_ptr<const factor_type> dd, DdApply variant, bool reordered)
      : dd_(std::move(dd)), variant_(variant), reordered_(reordered) {}
  const factor_type& factors() const { return *dd_; }

 protected:
  // DomainDecompositionIlu takes no instance yet: its solves run on the
  // default instance.
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    if (reordered_)
      dd_->apply_reordered(space, r, z, variant_);
    else
      dd_->apply(space, r, z, variant_);
  }
  void apply_left_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    if (!reordered_) return apply_on(space, r, z);
    dd_->lower_solve_reordered(space, r, z, variant_);
  }
  void apply_right_on(const execution_space& space, const_vector_type r, vector_type z) const override {
    if (!reordered_) return Kokkos::deep_copy(space, z, r);
    dd_->upper_solve_reordered(space, r, z, variant_);
  }

 private:
  std::shared_ptr<const factor_type> dd_;
  DdApply variant_;
  bool reordered_;
};

}  // namespace trellis
