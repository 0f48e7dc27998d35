#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/core/csr_check.hpp"

#include <optional>

#include "trellis/core/errors.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/detail/preconditioner_spec.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"
#include "trellis/solvers/preconditioners/domain_decomposition.hpp"
#include "trellis/solvers/preconditioners/gauss_seidel.hpp"
#include "trellis/solvers/preconditioners/global_ilu0.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"
#include "trellis/solvers/preconditioners/kokkos_kernels_ilu0.hpp"
#include "trellis/solvers/preconditioners/struct_ilu.hpp"
#include "trellis/solvers/stencil_operator.hpp"

namespace trellis {

namespace {

using Device = DefaultDevice;

}  // namespace

/// Builds by kind; the only code that knows the concrete classes.
struct PreconditionerFactory {
  static BuiltPreconditioner build(const std::string& spec, const HostCsr& A, const BsrMatrix<double, Device>* blocks,
                                   const PreconditionerOptions& o) {
    const detail::PreconditionerSpec read = detail::read_preconditioner_spec(spec);
    if (read.kind == PreconditionerKind::automatic) {
      const ProfilingRegion region("trellis::auto::setup");
      const PreconditionerChoice choice = [&] {
        const TrustedInput trusted;  // make_preconditioner checked A
        return choose_preconditioner(A, o);
      }();
      BuiltPreconditioner out = build(to_string(choice.kind), A, blocks, o);
      out.auto_reason = choice.reason;
      out.setup_report = choice.reason + (out.setup_report.empty() ? "" : "\n" + out.setup_report);
      return out;
    }
    const TrsvAlgorithm algorithm = read.algorithm.value_or(TrsvAlgorithm::automatic);
    BuiltPreconditioner out;
    out.kind = read.kind;
    out.name = read.canonical;

    switch (out.kind) {
      case PreconditionerKind::none:
        out.preconditioner = std::make_shared<IdentityPreconditioner<double, Device>>();
        break;
      case PreconditionerKind::jacobi:
        out.preconditioner = std::make_shared<JacobiPreconditioner<double, Device>>(copy_to<Device>(A));
        break;
      case PreconditionerKind::gs:
      case PreconditionerKind::sgs:
        out.preconditioner = std::make_shared<GaussSeidelPreconditioner<double, Device>>(
            copy_to<Device>(A),
            out.kind == PreconditionerKind::gs ? SweepDirection::forward : SweepDirection::symmetric, algorithm);
        break;
      case PreconditionerKind::ilu0: {
        // From the application's device matrix where it is the point matrix
        // (no copy), else from A.
        const bool point_blocks = blocks && blocks->block_size == 1 && blocks->num_block_rows == A.num_rows &&
                                  blocks->nnz_blocks() == A.nnz();
        auto ilu = point_blocks ? std::make_shared<GlobalIlu0<double, Device>>(
                                      Device::execution_space(), as_point_csr(*blocks), o.pivots, algorithm)
                                : std::make_shared<GlobalIlu0<double, Device>>(A, o.pivots, algorithm);
        out.global_ilu0_ = ilu;
        out.analysis_seconds = ilu->analysis_seconds();
        out.factorization_seconds = ilu->factorization_seconds();
        out.trsv_algorithm = ilu->algorithm();
        out.setup_report = "global ILU0: analysis " + std::to_string(out.analysis_seconds) + " s, factorization " +
                           std::to_string(out.factorization_seconds) + " s, solves " + to_string(ilu->algorithm());
        out.preconditioner = std::make_shared<GlobalIlu0Preconditioner<double, Device>>(ilu);
        break;
      }
      case PreconditionerKind::ilu0_kk: {
        const GlobalIlu0<double, Device> ilu(A, o.pivots);
        auto kk = std::make_shared<KokkosKernelsIlu0Preconditioner<double, Device>>(ilu);
        out.analysis_seconds = kk->analysis_seconds();
        out.factorization_seconds = ilu.factorization_seconds();
        out.setup_report = "global ILU0 (ours) + Kokkos Kernels sptrsv SEQLVLSCHD_TP1: factorization " +
                           std::to_string(out.factorization_seconds) + " s, KK symbolic " +
                           std::to_string(out.analysis_seconds) + " s";
        out.preconditioner = std::move(kk);
        break;
      }
      case PreconditionerKind::dd: {
        using Dd = DomainDecompositionIlu<double, Device>;
        DdOptions opt;
        opt.partitioner = o.partitioner;
        opt.grid = o.grid;
        opt.subdomain_rows = o.subdomain_rows;
        opt.node_size = o.node_size;
        opt.coupling_weights = o.coupling_weights;
        opt.pivots = o.pivots;
        opt.apply = read.apply;  // unset: the backend's default
        auto dd = blocks ? std::make_shared<Dd>(*blocks, opt) : std::make_shared<Dd>(A, opt);
        const DdApply v = dd->default_variant();
        out.name = std::string("dd:") + to_string(v);
        out.dd_report = dd->report();
        out.setup_report = dd->report().describe();
        out.preconditioner = std::make_shared<DdPreconditioner<double, Device>>(dd, v, true);
        out.reordering_ = dd;
        out.reordered_operator_ = std::make_shared<BsrOperator<double, Device>>(dd->reordered_matrix());  // its Views
        break;
      }
      case PreconditionerKind::automatic: break;  // chosen above
      case PreconditionerKind::structilu: {
        if (o.grid[0] < 1 || o.grid[1] < 1 || o.grid[2] < 1)
          throw InputError("structilu: needs the grid of a structured problem (PreconditionerOptions::grid; the " +
                           std::string("command line has it for generated grid problems)"));
        StructIluOptions opt;
        opt.kind = read.structilu.value_or(StructIluKind::ilu0);
        opt.pivots = o.pivots;
        const StencilMatrix S = StencilMatrix::from_csr(A, {o.grid[0], o.grid[1], o.grid[2]});
        auto ilu = std::make_shared<StructIlu<double, Device>>(S, opt);
        out.struct_ilu_ = ilu;
        using Numbering = StructIluPreconditioner<double, Device>::Numbering;
        if (o.structilu_layout) {
          out.stencil_operator_ = std::make_shared<StencilOperator<double, Device>>(Device::execution_space(), *ilu);
          out.reordered_operator_ = out.stencil_operator_;
        }
        out.analysis_seconds = ilu->layout_seconds();
        out.factorization_seconds = ilu->factorization_seconds();
        out.setup_report = std::string("StructILU ") + to_string(opt.kind) + " on stencil " +
                           ilu->factor_stencil().name() + ", dof " + std::to_string(S.dof()) + ": layout " +
                           std::to_string(out.analysis_seconds) + " s, factorization " +
                           std::to_string(out.factorization_seconds) + " s";
        out.preconditioner = std::make_shared<StructIluPreconditioner<double, Device>>(
            ilu, o.structilu_layout ? Numbering::layout : Numbering::natural);
        break;
      }
    }
    out.options_ = o;
    if (!out.reordering_ && !out.global_ilu0_ && !out.struct_ilu_) out.built_from_ = A;
    return out;
  }
};

const LinearOperator<double, DefaultDevice>& BuiltPreconditioner::reordered_operator() const {
  if (!reordered_operator_)
    throw Error("preconditioner " + name + " works in the original numbering: no reordered operator");
  return *reordered_operator_;
}

const BsrMatrix<double, DefaultDevice>& BuiltPreconditioner::reordered_matrix() const {
  if (stencil_operator_)
    throw Error("preconditioner " + name +
                " works in its layout order on a stencil operator: use reordered_operator()");
  if (!reordering_) throw Error("preconditioner " + name + " works in the original numbering: no reordered matrix");
  return reordering_->reordered_matrix();
}

void BuiltPreconditioner::to_reordered(const_vector_type x, vector_type xr) const {
  if (reordering_)
    reordering_->to_reordered(x, xr);
  else if (stencil_operator_)
    struct_ilu_->to_layout(DefaultDevice::execution_space(), x, xr);
  else
    Kokkos::deep_copy(xr, x);
}

void BuiltPreconditioner::from_reordered(const_vector_type xr, vector_type x) const {
  if (reordering_)
    reordering_->from_reordered(xr, x);
  else if (stencil_operator_)
    struct_ilu_->from_layout(DefaultDevice::execution_space(), xr, x);
  else
    Kokkos::deep_copy(x, xr);
}

void BuiltPreconditioner::numeric(const HostCsr& A) {
  if (reordering_) return reordering_->numeric(A);
  if (global_ilu0_) return global_ilu0_->numeric(A);
  check_canonical(A, "numeric");
  if (struct_ilu_) {
    const GridDims& g = options_.grid;
    const StencilMatrix S = StencilMatrix::from_csr(A, {g[0], g[1], g[2]});
    struct_ilu_->numeric(DefaultDevice::execution_space(), S);
    if (stencil_operator_) stencil_operator_->numeric(DefaultDevice::execution_space(), *struct_ilu_);
    return;
  }
  const HostCsr& p = built_from_;
  const std::string differs = "preconditioner " + name +
                              ": numeric() got a matrix whose pattern differs from the one " + "it was built for (" +
                              std::to_string(p.num_rows) + " rows, " + std::to_string(p.nnz()) + " nonzeros";
  if (A.num_rows != p.num_rows || A.num_cols != p.num_cols || A.nnz() != p.nnz())
    throw StructureError(differs + "; this one has " + std::to_string(A.num_rows) + " rows, " +
                         std::to_string(A.nnz()) + " nonzeros); build a new one");
  const ordinal_t bad =
      detail::first_row_with_other_pattern(HostDevice::execution_space(), as_point_bsr(A), as_point_bsr(p));
  if (bad < p.num_rows) throw StructureError(differs + "; first at row " + std::to_string(bad) + "); build a new one");
  if (kind == PreconditionerKind::none) return;
  const TrustedInput trusted;  // checked above
  BuiltPreconditioner fresh = PreconditionerFactory::build(name, A, nullptr, options_);
  preconditioner = std::move(fresh.preconditioner);
  analysis_seconds = fresh.analysis_seconds;
  factorization_seconds = fresh.factorization_seconds;
  setup_report = std::move(fresh.setup_report);
}

void BuiltPreconditioner::numeric(const BsrMatrix<double, DefaultDevice>& blocks) {
  if (reordering_) return reordering_->numeric(blocks);
  if (global_ilu0_ && blocks.block_size == 1) return global_ilu0_->numeric(as_point_csr(blocks));
  numeric(bsr_to_csr(copy_to<HostDevice>(blocks)));
}

BuiltPreconditioner make_preconditioner(const std::string& spec, const HostCsr& A,
                                        const PreconditionerOptions& options) {
  check_canonical(A, "make_preconditioner");
  const TrustedInput trusted;  // checked once here, not again by each preconditioner built from A
  return PreconditionerFactory::build(spec, A, nullptr, options);
}

BuiltPreconditioner make_preconditioner(const std::string& spec, const HostCsr& A,
                                        const BsrMatrix<double, DefaultDevice>& blocks,
                                        const PreconditionerOptions& options) {
  check_canonical(A, "make_preconditioner");
  const TrustedInput trusted;  // checked once here, not again by each preconditioner built from A
  return PreconditionerFactory::build(spec, A, &blocks, options);
}

}  // namespace trellis
