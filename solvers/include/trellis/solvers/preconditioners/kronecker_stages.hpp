#pragma once
// A preconditioner for the Kronecker operator, beyond seed 001 (which runs
// GMRES unpreconditioned): P = I_s ⊗ P0, where P0 is any preconditioner of
// the factory ("ilu0", "jacobi", ...) built on the stage matrix
//   alpha M + tau gamma L,
// alpha and gamma the means of the diagonals of A and B (for A = I and B a
// Runge-Kutta matrix, gamma is the mean Butcher diagonal, the usual
// single-stage approximation). Distributed, P0 sees only the rank's diagonal
// part (block Jacobi across ranks): applying it needs no communication.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "trellis/core/kronecker_system.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"

namespace trellis {

/// The stage matrix alpha M + tau gamma L of this rank's block rows
/// [first, first + M.num_block_rows), own columns only, as point CSR.
HostCsr kronecker_stage_matrix(const KroneckerSystem& local, ordinal_t first_block_row, double alpha, double gamma);

/// mean of the diagonal of an s x s row-major matrix.
double mean_diagonal(const std::vector<double>& C, int s);

class KroneckerStagePreconditioner : public Preconditioner<double, DefaultDevice> {
 public:
  /// spec: a factory name that keeps the numbering (not dd). local and
  /// first_block_row as the KroneckerOperator's; alpha, gamma NaN: the defaults.
  KroneckerStagePreconditioner(const KroneckerSystem& local, ordinal_t first_block_row, const std::string& spec,
                               const PreconditionerOptions& options = {}, double alpha = std::nan(""),
                               double gamma = std::nan(""));
  double alpha() const { return alpha_; }
  double gamma() const { return gamma_; }
  const BuiltPreconditioner& stage() const { return stage_; }

 protected:
  void apply_on(const execution_space& space, const_vector_type r, vector_type z) const override;

 private:
  int s_ = 1;
  ordinal_t q_ = 0;
  double alpha_ = 1, gamma_ = 1;
  BuiltPreconditioner stage_;
};

}  // namespace trellis
