#pragma once
// Preconditioners by name, for the command line and the benchmarks:
//
//   none                   M = I
//   jacobi                 M = diag(A)
//   gs[:TRSV], sgs[:TRSV]  one forward / symmetric Gauss-Seidel sweep
//   ilu0[:TRSV]            global ILU0, its solves with a triangular-solve algorithm
//   ilu0-kk                global ILU0 applied with Kokkos Kernels' sptrsv
//   dd[:DD-APPLY]          the domain-decomposition ILDU0 (seed 000), reordered numbering
//   structilu[:KIND]       StructILU (seed 003) of a stencil matrix: ilu0 (default), ilu1, ic0,
//                          ic1; needs options.grid (the matrix's stencil is read from A);
//                          reordered numbering (its layout order, a stencil operator) unless
//                          options.structilu_layout is false
//   auto                   jacobi, dd or ilu0, by the rule of preconditioner_choice.hpp
//
// TRSV names a TrsvAlgorithm (default auto), DD-APPLY a DdApply (default by
// backend); names parse as name_table.hpp says (the papers' spellings too).
// Built for double on the default device, in the library: this header holds
// no kernel.
//
//   auto M = make_preconditioner("dd:dag-ec-ilduo-fused", A_point, A_device_bsr, options);
//   BsrOperator<> natural(A_device_bsr);
//   const LinearOperator<>& op = M.reordered() ? M.reordered_operator() : natural;
//   M.to_reordered(b, br);  bicgstab(op, *M.preconditioner, br, xr);  M.from_reordered(xr, x);
#include <Kokkos_Core.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/name_table.hpp"
#include "trellis/dd/dd_options.hpp"
#include "trellis/ilu/pivot_options.hpp"
#include "trellis/partition/partition.hpp"
#include "trellis/solvers/linear_operator.hpp"
#include "trellis/solvers/preconditioner.hpp"
#include "trellis/trsv/algorithm.hpp"

namespace trellis {

template <class Scalar, class Device>
class DomainDecompositionIlu;
template <class Scalar, class Device>
class GlobalIlu0;
template <class Scalar, class Device>
class StructIlu;
template <class Scalar, class Device>
class StencilOperator;

enum class PreconditionerKind { none, jacobi, gs, sgs, ilu0, ilu0_kk, dd, structilu, automatic };

template <>
struct NameTable<PreconditionerKind> {
  static constexpr const char* what = "preconditioner";
  static constexpr NameEntry<PreconditionerKind> entries[] = {
      {PreconditionerKind::none, "none"},      {PreconditionerKind::jacobi, "jacobi"},
      {PreconditionerKind::gs, "gs"},          {PreconditionerKind::sgs, "sgs"},
      {PreconditionerKind::ilu0, "ilu0"},      {PreconditionerKind::ilu0_kk, "ilu0-kk"},
      {PreconditionerKind::dd, "dd"},          {PreconditionerKind::structilu, "structilu"},
      {PreconditionerKind::automatic, "auto"},
  };
};

struct PreconditionerOptions {
  ilu::PivotOptions pivots;  // ilu0, ilu0-kk, dd, structilu: what a zero or tiny pivot does
  // dd only (DdOptions says more):
  Partitioner partitioner = Partitioner::automatic;
  GridDims grid{0, 0, 0};        // the (block-row) grid of a structured problem: dd's geometric cuts, structilu
  ordinal_t subdomain_rows = 0;  // block rows per subdomain; 0 = automatic (DdOptions::subdomain_rows)
  ordinal_t node_size = 0;       // block rows of a mesh node kept whole; 0 detects, 1 none (DdOptions::node_size)
  bool coupling_weights = true;  // METIS edges weighted by coupling strength (DdOptions::coupling_weights)
  // structilu: the Krylov solve in StructILU's layout order, on a stencil
  // operator (reordered(): one permutation at the start and one at the end
  // of a solve); false: the preconditioner takes the grid's numbering and
  // permutes in and out at every application.
  bool structilu_layout = true;
};

/// A preconditioner built by name, and what its setup reports.
class BuiltPreconditioner {
 public:
  using vector_type = Kokkos::View<double*, DefaultDevice>;
  using const_vector_type = Kokkos::View<const double*, DefaultDevice>;

  /// What was built: auto gives jacobi, dd or ilu0.
  PreconditionerKind kind = PreconditionerKind::none;
  /// Canonical NAME[:VARIANT] of what was built, dd's default variant filled
  /// in ("dd:dag-vc-ilduo-fused", "ilu0:elmr-value", "ilu0").
  std::string name;
  /// auto: why it built what it did (PreconditionerChoice::reason); else empty.
  std::string auto_reason;
  std::shared_ptr<const Preconditioner<double, DefaultDevice>> preconditioner;
  /// A few lines for people (dd: partition, drops, levels, setup times;
  /// ilu0, ilu0-kk: phase times and solves); empty for none, jacobi, gs, sgs.
  std::string setup_report;
  std::optional<DdReport> dd_report;            // dd
  std::optional<TrsvAlgorithm> trsv_algorithm;  // ilu0: the algorithm its analysis chose
  double analysis_seconds = 0;       // ilu0: level analysis and solve plans; ilu0-kk: KK symbolic; structilu: layout
  double factorization_seconds = 0;  // ilu0, ilu0-kk, structilu (with the value load)

  /// True for dd and structilu (unless options.structilu_layout is false):
  /// the preconditioner works in a reordered numbering. Solve with
  /// reordered_operator() on to_reordered(b), and map x back.
  bool reordered() const { return reordered_operator_ != nullptr; }
  /// The system in the reordered numbering: dd's reordered block matrix,
  /// structilu's stencil operator in its layout order (Error otherwise). It
  /// lives as long as this object (or one it was moved to) and takes the
  /// values numeric() gives.
  const LinearOperator<double, DefaultDevice>& reordered_operator() const;
  /// dd: the system matrix in the reordered numbering (Error otherwise).
  const BsrMatrix<double, DefaultDevice>& reordered_matrix() const;
  /// x in the original numbering -> xr in the preconditioner's, and back;
  /// plain copies when it is not reordered.
  void to_reordered(const_vector_type x, vector_type xr) const;
  void from_reordered(const_vector_type xr, vector_type x) const;

  /// New values for the pattern it was built for (a Newton or time step),
  /// for every kind: ilu0 and dd factor them again in place, reusing the
  /// partition, the permutation and the analysis (DomainDecompositionIlu::
  /// numeric, GlobalIlu0::numeric); structilu likewise with its layout
  /// (StructIlu::numeric); jacobi, gs, sgs and ilu0-kk are built again from
  /// the new values; none has nothing to do. `preconditioner` then applies
  /// the new values. A changed pattern is a StructureError, a failed pivot a
  /// PivotError.
  void numeric(const HostCsr& A);
  /// The same from a block matrix in device memory (the matrix's point form
  /// for every kind but dd).
  void numeric(const BsrMatrix<double, DefaultDevice>& blocks);

 private:
  friend struct PreconditionerFactory;
  std::shared_ptr<DomainDecompositionIlu<double, DefaultDevice>> reordering_;        // dd
  std::shared_ptr<GlobalIlu0<double, DefaultDevice>> global_ilu0_;                   // ilu0
  std::shared_ptr<StructIlu<double, DefaultDevice>> struct_ilu_;                     // structilu
  std::shared_ptr<StencilOperator<double, DefaultDevice>> stencil_operator_;         // structilu in its layout order
  std::shared_ptr<const LinearOperator<double, DefaultDevice>> reordered_operator_;  // dd, structilu
  // What numeric() needs to build the other kinds again: the options, and
  // the matrix they were built from (shared, not copied: its pattern).
  PreconditionerOptions options_;
  HostCsr built_from_;
};

/// Builds the preconditioner `spec` names for A (point CSR, host memory).
/// An unknown name or variant is an InputError listing the accepted ones.
BuiltPreconditioner make_preconditioner(const std::string& spec, const HostCsr& A,
                                        const PreconditionerOptions& options = {});
/// The same, with A also as a block matrix in device memory (as a solver's
/// SpMV keeps it): dd starts from it, and its values never leave the device;
/// ilu0 starts from it when its blocks are 1x1.
BuiltPreconditioner make_preconditioner(const std::string& spec, const HostCsr& A,
                                        const BsrMatrix<double, DefaultDevice>& blocks,
                                        const PreconditionerOptions& options = {});

/// A spec in canonical spelling ("DD:dag_ec_ILDUO_fused" -> "dd:dag-ec-ilduo-fused"),
/// checked as make_preconditioner checks it, before any setup.
std::string canonical_preconditioner(const std::string& spec);
/// Every accepted spec in canonical spelling, each variant listed:
/// "none", "jacobi", "gs", "gs:levelset-csr", ..., "dd:dag-ec-ilduo-fused".
std::vector<std::string> preconditioner_names();
/// The accepted names and variants, a few lines for --help and errors,
/// each after `indent` spaces.
std::string preconditioner_usage(int indent = 0);

}  // namespace trellis
