#include <cmath>
#include <string>

#include "trellis/core/errors.hpp"
#include "trellis/solvers/preconditioners/kronecker_stages.hpp"

namespace trellis {

double mean_diagonal(const std::vector<double>& C, int s) {
  double sum = 0;
  for (int i = 0; i < s; ++i) sum += C[size_t(i) * size_t(s) + size_t(i)];
  return sum / s;
}

HostCsr kronecker_stage_matrix(const KroneckerSystem& local, ordinal_t first, double alpha, double gamma) {
  const int b = local.M.block_size, b2 = b * b;
  const ordinal_t n = local.M.num_block_rows;
  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  auto add = [&](const HostBsr& X, double scale) {
    for (ordinal_t i = 0; i < n; ++i)
      for (offset_t k = X.row_map(i); k < X.row_map(i + 1); ++k) {
        const ordinal_t c = X.entries(k) - first;
        if (c < 0 || c >= n) continue;  // another rank's column: dropped (block Jacobi)
        for (int r = 0; r < b; ++r)
          for (int e = 0; e < b; ++e) {
            rows.push_back(i * b + r);
            cols.push_back(c * b + e);
            vals.push_back(scale * X.values(size_t(k) * b2 + size_t(r) * b + e));
          }
      }
  };
  add(local.M, alpha);
  add(local.L, local.tau * gamma);
  return csr_from_triplets(n * b, n * b, rows, cols, vals);
}

KroneckerStagePreconditioner::KroneckerStagePreconditioner(const KroneckerSystem& local, ordinal_t first_block_row,
                                                           const std::string& spec,
                                                           const PreconditionerOptions& options, double alpha,
                                                           double gamma)
    : s_(local.stages), q_(local.M.num_rows()) {
  if (s_ < 1 || local.A.size() != size_t(s_) * s_ || local.B.size() != size_t(s_) * s_)
    throw InputError("kronecker stage preconditioner: A and B must be s x s with s >= 1");
  alpha_ = std::isnan(alpha) ? mean_diagonal(local.A, s_) : alpha;
  gamma_ = std::isnan(gamma) ? mean_diagonal(local.B, s_) : gamma;
  if (!std::isfinite(alpha_) || !std::isfinite(gamma_))
    throw InputError("kronecker stage preconditioner: alpha and gamma must be finite");
  PreconditionerOptions stage_options = options;
  stage_options.structilu_layout = false;  // the stages' vectors are in the grid's numbering
  stage_ = make_preconditioner(spec, kronecker_stage_matrix(local, first_block_row, alpha_, gamma_), stage_options);
  if (stage_.reordered())
    throw InputError("kronecker stage preconditioner: '" + stage_.name +
                     "' renumbers the rows; choose one that keeps them (ilu0, jacobi, gs, sgs, ilu0-kk)");
}

void KroneckerStagePreconditioner::apply_on(const execution_space& space, const_vector_type r, vector_type z) const {
  const size_t n = size_t(q_) * size_t(s_);
  if (r.extent(0) != n || z.extent(0) != n)
    throw StructureError("kronecker stage preconditioner: vectors of " + std::to_string(r.extent(0)) + " and " +
                         std::to_string(z.extent(0)) + " entries, expected " + std::to_string(n));
  for (int j = 0; j < s_; ++j) {
    const auto stage = std::make_pair(size_t(j) * q_, size_t(j + 1) * q_);
    stage_.preconditioner->apply(space, Kokkos::subview(r, stage), Kokkos::subview(z, stage));
  }
}

}  // namespace trellis
