// solution_fingerprint: fingerprints of BiCGSTAB solves, to check that a
// refactor leaves results bit-identical. For the default gallery problem and
// every matrix in a folder's MANIFEST.tsv, it solves A x = A*1 with BiCGSTAB
// (right form, default KrylovOptions) under each bit-reproducible
// preconditioner, on Serial and (when enabled) OpenMP, and prints one line per
// solve: problem, backend, variant, status, iterations, the true relative
// residual, and 64-bit FNV-1a hashes of the bytes of x (original numbering,
// copied to the host) and of the residual history.
//
//   OMP_NUM_THREADS=2 solution_fingerprint [MATRIX_DIR] > before.txt
//
// MATRIX_DIR defaults to $TRELLIS_MATRICES; without either, only the default
// problem runs. Fix the OpenMP thread count: the backend column shows it.
// Two builds give the same results when their outputs diff clean.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "trellis/core/errors.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#if __has_include("trellis/solvers/preconditioners/domain_decomposition.hpp")  // one preconditioner per header
#include "trellis/solvers/preconditioners/domain_decomposition.hpp"
#include "trellis/solvers/preconditioners/gauss_seidel.hpp"
#include "trellis/solvers/preconditioners/global_ilu0.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"
using PivotOptions = trellis::ilu::PivotOptions;
#else  // up to cd38be3
#include "trellis/solvers/ilu_preconditioners.hpp"
using PivotOptions = trellis::dd::PivotOptions;
#endif

namespace {
using namespace trellis;

std::uint64_t fnv1a(const void* data, size_t bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
  return h;
}

/// The DD ILDU0 with the spin-loop lower solve (Algorithm 4.1), then the
/// upper solve; reordered numbering. (On host backends a DD team is one
/// thread, so the edge-centric upper solve is reproducible there too.)
template <class Device>
class SpinLoopDd : public Preconditioner<double, Device> {
 public:
  using typename Preconditioner<double, Device>::vector_type;
  using typename Preconditioner<double, Device>::const_vector_type;
  explicit SpinLoopDd(std::shared_ptr<const DomainDecompositionIlu<double, Device>> dd)
      : dd_(std::move(dd)), y_("trellis::spin_loop_y", size_t(dd_->num_rows())) {}
#if __has_include("trellis/distributed/communicator.hpp")  // preconditioners take an instance
  using typename Preconditioner<double, Device>::execution_space;
  void apply_on(const execution_space&, const_vector_type r, vector_type z) const override { apply_both(r, z); }
#else
  void apply(const_vector_type r, vector_type z) const override { apply_both(r, z); }
#endif
  void apply_both(const_vector_type r, vector_type z) const {
    dd_->lower_solve_reordered(r, y_, DdLowerSolve::spin_loop_lds);
    dd_->upper_solve_reordered(y_, z);
  }

 private:
  std::shared_ptr<const DomainDecompositionIlu<double, Device>> dd_;
  vector_type y_;
};

template <class Device>
void fingerprint(const gallery::Problem& p, const std::string& problem, const std::string& backend) {
  using Vector = Kokkos::View<double*, Device>;
  using Dd = DomainDecompositionIlu<double, Device>;
  using Precond = Preconditioner<double, Device>;
  const size_t n = size_t(p.matrix.num_rows);
  const HostBsr blocks = p.block_matrix ? *p.block_matrix : csr_to_bsr(p.matrix, 1);
  const BsrOperator<double, Device> A(copy_to<Device>(blocks));
  Vector ones("ones", n), b("b", n);
  Kokkos::deep_copy(ones, 1.0);
  A.apply(ones, b);
  DdOptions opt;  // as `trellis solve` sets it up
  if (p.grid[0] > 0) opt.grid = {p.grid[0], std::max(1, p.grid[1]), std::max(1, p.grid[2])};
  const KrylovOptions o;

  // One line per solve; a setup or solve that throws prints its error instead.
  auto run = [&](const std::string& variant, const std::function<KrylovResult(Vector)>& solve) {
    std::printf("%-24s %-9s %-24s ", problem.c_str(), backend.c_str(), variant.c_str());
    try {
      Vector x("x", n);
      const KrylovResult r = solve(x);
      const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
      std::printf("%-15s %5d  res %.3e  x %016llx  history %016llx\n", to_string(r.status), r.iterations,
                  r.true_relative_residual, (unsigned long long)fnv1a(hx.data(), n * sizeof(double)),
                  (unsigned long long)fnv1a(r.history.data(), r.history.size() * sizeof(double)));
    } catch (const Error& e) {
      std::printf("error: %s\n", e.what());
    }
    std::fflush(stdout);
  };
  auto solve = [&](const LinearOperator<double, Device>& op, const Precond& M, Vector rhs, Vector x) {
    return bicgstab<double, Device>(op, M, rhs, x, o, BicgstabForm::right);
  };
  // In the DD's reordered numbering, as `trellis solve` runs it; x comes back in the original one.
  auto reordered = [&](const Dd& dd, const Precond& M, Vector x) {
    Vector br("b_reordered", n), xr("x_reordered", n);
    dd.to_reordered(b, br);
    const KrylovResult r = solve(BsrOperator<double, Device>(dd.reordered_matrix()), M, br, xr);
    dd.from_reordered(xr, x);
    return r;
  };
  const DdApply vc = DdApply::dag_vc_ILDUO_fused;
  run("dd:vc-fused:original", [&](Vector x) {
    return solve(A, DdPreconditioner<double, Device>(std::make_shared<const Dd>(blocks, opt), vc, false), b, x);
  });
  run("dd:vc-fused:reordered", [&](Vector x) {
    const auto dd = std::make_shared<const Dd>(blocks, opt);
    return reordered(*dd, DdPreconditioner<double, Device>(dd, vc, true), x);
  });
  run("dd:spin-loop:reordered", [&](Vector x) {
    const auto dd = std::make_shared<const Dd>(blocks, opt);
    return reordered(*dd, SpinLoopDd<Device>(dd), x);
  });
  // levelset-csc adds with atomics: reproducible on Serial only.
  constexpr bool serial = std::is_same<typename Device::execution_space, Kokkos::Serial>::value;
  for (TrsvAlgorithm a : {TrsvAlgorithm::levelset_csr, TrsvAlgorithm::levelset_csc})
    if (serial || is_deterministic(a))
      run(std::string("ilu0:") + to_string(a), [&](Vector x) {
        auto ilu = std::make_shared<const GlobalIlu0<double, Device>>(p.matrix, PivotOptions{}, a);
        return solve(A, GlobalIlu0Preconditioner<double, Device>(ilu), b, x);
      });
  run("sgs:levelset-csr", [&](Vector x) {
    return solve(A,
                 GaussSeidelPreconditioner<double, Device>(copy_to<Device>(p.matrix), SweepDirection::symmetric,
                                                           TrsvAlgorithm::levelset_csr),
                 b, x);
  });
  run("jacobi",
      [&](Vector x) { return solve(A, JacobiPreconditioner<double, Device>(copy_to<Device>(p.matrix)), b, x); });
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const char* env = std::getenv("TRELLIS_MATRICES");
  const std::string dir = argc > 1 ? argv[1] : env ? env : "";
  std::vector<std::string> specs{gallery::default_problem_spec};
  if (dir.empty()) std::fprintf(stderr, "no MATRIX_DIR or TRELLIS_MATRICES: the default problem only\n");
  if (!dir.empty()) {
    std::ifstream manifest(dir + "/MANIFEST.tsv");
    if (!manifest) return std::fprintf(stderr, "cannot read %s/MANIFEST.tsv\n", dir.c_str()), 2;
    std::string line;
    std::getline(manifest, line);  // the column names
    while (std::getline(manifest, line))
      if (!line.empty()) specs.push_back(dir + "/" + line.substr(0, line.find('\t')));
  }
  for (const std::string& spec : specs) {
    const gallery::Problem p = gallery::load_problem(spec);
    const std::string name = spec.substr(spec.rfind('/') + 1);
#ifdef KOKKOS_ENABLE_SERIAL
    fingerprint<Kokkos::Device<Kokkos::Serial, Kokkos::HostSpace>>(p, name, "Serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    fingerprint<Kokkos::Device<Kokkos::OpenMP, Kokkos::HostSpace>>(
        p, name, "OpenMP:" + std::to_string(Kokkos::OpenMP::concurrency()));
#endif
  }
  return 0;
}
