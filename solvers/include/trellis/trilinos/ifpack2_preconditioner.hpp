#pragma once
// Any preconditioner of the factory (preconditioner_factory.hpp) as an
// Ifpack2::Preconditioner: Belos applies it, and Ifpack2's AdditiveSchwarz
// takes it as its inner solver (setInnerPreconditioner, which needs the
// CanChangeMatrix interface implemented here). Header-only, target
// Trellis::trilinos (CMake option TRELLIS_ENABLE_TRILINOS).
//
//   auto M = Teuchos::rcp(new trellis::trilinos::Ifpack2Preconditioner<>(A));
//   Teuchos::ParameterList p;  p.set("trellis: preconditioner", "ilu0");
//   M->setParameters(p);  M->initialize();  M->compute();
//   ... new values in A, same pattern (a Newton step) ...
//   M->compute();          // values only: the analysis of initialize() is kept
//
// Parameters (getValidParameters() lists them with their defaults):
//   "trellis: preconditioner"    string  a factory spec ("auto", "ilu0", "dd", "ilu0:elmr-value", ...)
//   "trellis: pivot tolerance"   double  ILU pivots with |p| <= T x their row's largest entry fail
//   "trellis: pivot boost"       double  failing pivots replaced by B x the row's largest entry
//   "trellis: partitioner"       string  dd's partitioner (auto, metis, geometric, ...)
//   "trellis: subdomain rows"    int     dd's block rows per subdomain (0: automatic)
//   "trellis: node size"         int     dd's block rows of a mesh node kept whole (0: detect)
//   "trellis: coupling weights"  bool    dd's METIS edges weighted by coupling strength
//   "trellis: grid"              Array(int) nx, ny, nz of a structured problem (structilu, dd's cuts)
//
// On several ranks each rank preconditions its own rows (block Jacobi: the
// rank's rows and the columns it owns, local_block.hpp); applying it needs
// no communication. Inside AdditiveSchwarz the matrix is the local one that
// AdditiveSchwarz gives it, overlap included.
//
// initialize() does what depends on the pattern: it extracts the block and
// builds the preconditioner on the values it finds (partition, permutation,
// level analysis, a first factorization). compute() reads the values again
// and refactors them in place (BuiltPreconditioner::numeric), skipping the
// work when they are still the ones initialize() factored. A changed pattern
// is a StructureError that says to call initialize().
#include <Kokkos_Core.hpp>
#include <Ifpack2_Details_CanChangeMatrix.hpp>
#include <Ifpack2_Preconditioner.hpp>
#include <Teuchos_Array.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_RowMatrix.hpp>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "trellis/core/errors.hpp"
#include "trellis/core/name_table.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/trilinos/local_block.hpp"
#include "trellis/trilinos/tpetra_compat.hpp"

namespace trellis::trilinos {

/// The parameters above with their defaults, as getValidParameters() returns them.
inline Teuchos::RCP<const Teuchos::ParameterList> valid_parameters() {
  auto p = Teuchos::rcp(new Teuchos::ParameterList("Trellis"));
  const PreconditionerOptions d;
  p->set("trellis: preconditioner", std::string("auto"), "factory spec: " + preconditioner_usage());
  p->set("trellis: pivot tolerance", d.pivots.tolerance, "ILU pivots with |p| <= T x their row's largest entry fail");
  p->set("trellis: pivot boost", d.pivots.boost, "failing pivots replaced by B x the row's largest entry (0: fail)");
  p->set("trellis: partitioner", std::string(to_string(d.partitioner)), "dd: " + names<Partitioner>());
  p->set("trellis: subdomain rows", int(d.subdomain_rows), "dd: block rows per subdomain (0: automatic)");
  p->set("trellis: node size", int(d.node_size), "dd: block rows of a mesh node kept whole (0: detect, 1: none)");
  p->set("trellis: coupling weights", d.coupling_weights, "dd: METIS edges weighted by coupling strength");
  p->set("trellis: grid", Teuchos::Array<int>(3, 0), "nx, ny, nz of a structured problem (structilu, dd)");
  return p;
}

/// What a parameter list asks for: the spec (checked) and the options.
struct Ifpack2Settings {
  std::string spec = "auto";
  PreconditionerOptions options;
};

/// Reads `list` (every entry must be one of valid_parameters(), of its type,
/// in its range), starting from `base`: entries not in the list keep their values.
inline Ifpack2Settings read_parameters(const Teuchos::ParameterList& list, Ifpack2Settings base = {}) {
  const auto valid = valid_parameters();
  const std::string where = "trellis::trilinos::Ifpack2Preconditioner::setParameters: ";
  for (auto it = list.begin(); it != list.end(); ++it) {
    const std::string& name = list.name(it);
    if (!valid->isParameter(name)) {
      std::string known;
      for (auto v = valid->begin(); v != valid->end(); ++v)
        known += (known.empty() ? "\"" : ", \"") + valid->name(v) + "\"";
      throw InputError(where + "unknown parameter \"" + name + "\"; the parameters are " + known);
    }
    if (list.entry(it).getAny().type() != valid->getEntry(name).getAny().type())
      throw InputError(where + "parameter \"" + name + "\" is a " + list.entry(it).getAny().typeName() +
                       ", expected a " + valid->getEntry(name).getAny().typeName());
  }
  Ifpack2Settings s = base;
  auto get = [&](const char* name, auto& out) {
    using T = std::decay_t<decltype(out)>;
    if (list.isParameter(name)) out = list.get<T>(name);
  };
  auto in_range = [&](const char* name, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi))
      throw InputError(where + "parameter \"" + name + "\" is " + std::to_string(v) + ", expected " +
                       std::to_string(lo) + " to " + std::to_string(hi));
  };
  get("trellis: preconditioner", s.spec);
  s.spec = canonical_preconditioner(s.spec);  // an unknown name lists the accepted ones
  get("trellis: pivot tolerance", s.options.pivots.tolerance);
  in_range("trellis: pivot tolerance", s.options.pivots.tolerance, 0, 1);
  get("trellis: pivot boost", s.options.pivots.boost);
  in_range("trellis: pivot boost", s.options.pivots.boost, 0, 1e300);
  if (list.isParameter("trellis: partitioner"))
    s.options.partitioner = parse<Partitioner>(list.get<std::string>("trellis: partitioner"));
  int subdomain_rows = s.options.subdomain_rows, node_size = s.options.node_size;
  get("trellis: subdomain rows", subdomain_rows);
  in_range("trellis: subdomain rows", subdomain_rows, 0, 1e9);
  get("trellis: node size", node_size);
  in_range("trellis: node size", node_size, 0, 1e9);
  s.options.subdomain_rows = subdomain_rows;
  s.options.node_size = node_size;
  get("trellis: coupling weights", s.options.coupling_weights);
  if (list.isParameter("trellis: grid")) {
    const auto grid = list.get<Teuchos::Array<int>>("trellis: grid");
    if (grid.size() != 3) throw InputError(where + "parameter \"trellis: grid\" needs 3 entries (nx, ny, nz)");
    for (int d = 0; d < 3; ++d) {
      in_range("trellis: grid", grid[d], 0, 1e9);
      s.options.grid[d] = grid[d];
    }
  }
  return s;
}

/// The list that read_parameters() reads back into `s` (every parameter set).
inline Teuchos::ParameterList write_parameters(const Ifpack2Settings& s) {
  Teuchos::ParameterList p("Trellis");
  p.set("trellis: preconditioner", s.spec);
  p.set("trellis: pivot tolerance", s.options.pivots.tolerance);
  p.set("trellis: pivot boost", s.options.pivots.boost);
  p.set("trellis: partitioner", std::string(to_string(s.options.partitioner)));
  p.set("trellis: subdomain rows", int(s.options.subdomain_rows));
  p.set("trellis: node size", int(s.options.node_size));
  p.set("trellis: coupling weights", s.options.coupling_weights);
  Teuchos::Array<int> grid(3);
  for (int d = 0; d < 3; ++d) grid[d] = int(s.options.grid[d]);
  p.set("trellis: grid", grid);
  return p;
}

template <class SC = Tpetra::Operator<>::scalar_type, class LO = Tpetra::Operator<>::local_ordinal_type,
          class GO = Tpetra::Operator<>::global_ordinal_type, class Node = Tpetra::Operator<>::node_type>
class Ifpack2Preconditioner : virtual public Ifpack2::Preconditioner<SC, LO, GO, Node>,
                              virtual public Ifpack2::Details::CanChangeMatrix<Tpetra::RowMatrix<SC, LO, GO, Node>> {
  static_assert(std::is_same_v<SC, double>, "trellis::trilinos: Trellis preconditioners are built for double");

 public:
  using row_matrix_type = Tpetra::RowMatrix<SC, LO, GO, Node>;
  using map_type = Tpetra::Map<LO, GO, Node>;
  using multivector_type = Tpetra::MultiVector<SC, LO, GO, Node>;

  /// A may be null (AdditiveSchwarz sets it through setMatrix()).
  explicit Ifpack2Preconditioner(const Teuchos::RCP<const row_matrix_type>& A = Teuchos::null) : matrix_(A) {}

  // --- parameters
  void setParameters(const Teuchos::ParameterList& list) override {
    const Ifpack2Settings s = read_parameters(list, settings_);
    if (write_parameters(s) != write_parameters(settings_)) reset();
    settings_ = s;
  }
  /// Every parameter with its current value: setParameters() of it on a fresh
  /// preconditioner sets up the same one.
  Teuchos::RCP<const Teuchos::ParameterList> getParameters() const {
    return Teuchos::rcp(new Teuchos::ParameterList(write_parameters(settings_)));
  }
  Teuchos::RCP<const Teuchos::ParameterList> getValidParameters() const { return valid_parameters(); }

  // --- the matrix
  void setMatrix(const Teuchos::RCP<const row_matrix_type>& A) override {
    if (A.getRawPtr() != matrix_.getRawPtr()) reset();
    matrix_ = A;
  }
  Teuchos::RCP<const row_matrix_type> getMatrix() const override { return matrix_; }
  Teuchos::RCP<const map_type> getDomainMap() const override { return checked_matrix("getDomainMap")->getDomainMap(); }
  Teuchos::RCP<const map_type> getRangeMap() const override { return checked_matrix("getRangeMap")->getRangeMap(); }

  // --- setup
  void initialize() override {
    const auto A = checked_matrix("initialize");
    reset();
    Kokkos::Timer timer;
    block_ = local_diagonal_block(*A);
    if (block_.num_rows > 0) {  // a rank without rows has nothing to precondition
      built_ = make_preconditioner(settings_.spec, block_, settings_.options);
      xr_ = vector_type("trellis::trilinos::xr", block_.num_rows);
      zr_ = vector_type("trellis::trilinos::zr", block_.num_rows);
      factored_values_.assign(block_.values.data(), block_.values.data() + block_.values.extent(0));
    } else {
      built_.name = canonical_preconditioner(settings_.spec);
    }
    initialized_ = true;
    ++num_initialize_;
    initialize_seconds_ += timer.seconds();
  }
  bool isInitialized() const override { return initialized_; }

  void compute() override {
    if (!initialized_) initialize();
    const auto A = checked_matrix("compute");
    Kokkos::Timer timer;
    computed_ = false;  // until the new values are factored (a failed pivot leaves it so)
    if (block_.num_rows > 0) {
      HostCsr block = local_diagonal_block(*A);
      const bool unchanged = factored_values_.size() == size_t(block.values.extent(0)) &&
                             std::equal(factored_values_.begin(), factored_values_.end(), block.values.data());
      if (!unchanged) {
        try {
          built_.numeric(block);  // checks that the pattern is the one initialize() analysed
        } catch (const StructureError& e) {
          throw StructureError(std::string(e.what()) +
                               " (trellis::trilinos::Ifpack2Preconditioner::compute: the matrix's pattern changed "
                               "since initialize(); call initialize() again)");
        }
      }
      block_ = block;
      factored_values_.clear();  // from now on every compute() refactors
    }
    computed_ = true;
    ++num_compute_;
    compute_seconds_ += timer.seconds();
  }
  bool isComputed() const override { return computed_; }

  // --- apply: Y = beta Y + alpha M^{-1} X
  void apply(const multivector_type& X, multivector_type& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             SC alpha = Teuchos::ScalarTraits<SC>::one(), SC beta = Teuchos::ScalarTraits<SC>::zero()) const override {
    const std::string where = "trellis::trilinos::Ifpack2Preconditioner::apply: ";
    if (!computed_) throw InputError(where + "call initialize() and compute() first");
    if (mode != Teuchos::NO_TRANS) throw InputError(where + "only M^{-1} (Teuchos::NO_TRANS) is available");
    const size_t n = size_t(block_.num_rows);
    if (X.getNumVectors() != Y.getNumVectors() || X.getLocalLength() != n || Y.getLocalLength() != n)
      throw InputError(where + "X has " + std::to_string(X.getLocalLength()) + "x" + std::to_string(X.getNumVectors()) +
                       " local entries, Y " + std::to_string(Y.getLocalLength()) + "x" +
                       std::to_string(Y.getNumVectors()) + ", expected " + std::to_string(n) + " rows");
    Kokkos::Timer timer;
    // Z = M^{-1} X straight into Y when nothing is to be combined and X is not Y.
    const bool direct = alpha == SC(1) && beta == SC(0) && &X != &Y;
    Teuchos::RCP<multivector_type> Z;
    if (!direct) Z = Teuchos::rcp(new multivector_type(Y.getMap(), Y.getNumVectors(), false));
    multivector_type& out = direct ? Y : *Z;
    for (size_t j = 0; j < X.getNumVectors(); ++j) {
      const auto x = X.getVector(j);
      const auto z = out.getVectorNonConst(j);
      const auto xv = x->getLocalViewDevice(Tpetra::Access::ReadOnly);
      const auto zv = z->getLocalViewDevice(Tpetra::Access::OverwriteAll);
      apply_column(Kokkos::subview(xv, Kokkos::ALL, 0), Kokkos::subview(zv, Kokkos::ALL, 0));
    }
    if (!direct) Y.update(alpha, *Z, beta);
    ++num_apply_;
    apply_seconds_ += timer.seconds();
  }
  bool hasTransposeApply() const override { return false; }

  // --- what Ifpack2 asks of its preconditioners
  int getNumInitialize() const override { return num_initialize_; }
  int getNumCompute() const override { return num_compute_; }
  int getNumApply() const override { return num_apply_; }
  double getInitializeTime() const override { return initialize_seconds_; }
  double getComputeTime() const override { return compute_seconds_; }
  double getApplyTime() const override { return apply_seconds_; }
  /// Entries read by one application on this rank (the matrix's and the
  /// preconditioner's), as Ifpack2's smoothers count it.
  size_t getNodeSmootherComplexity() const {
    const auto A = checked_matrix("getNodeSmootherComplexity");
    const size_t nnz = compat::local_num_entries(*A), block = size_t(block_.nnz()), rows = size_t(block_.num_rows);
    switch (built_.kind) {
      case PreconditionerKind::none: return nnz;
      case PreconditionerKind::jacobi: return nnz + rows;
      case PreconditionerKind::sgs: return nnz + 2 * block;
      default: return nnz + block;
    }
  }

  std::string description() const override {
    std::ostringstream out;
    out << "\"trellis::trilinos::Ifpack2Preconditioner\": {spec: " << settings_.spec
        << ", built: " << (built_.name.empty() ? "-" : built_.name) << ", initialized: " << initialized_
        << ", computed: " << computed_ << ", local rows: " << block_.num_rows << "}";
    return out.str();
  }

  /// What the factory built (name, setup report, kind) on this rank.
  const BuiltPreconditioner& built() const { return built_; }
  /// The rank's block the preconditioner was built from.
  const HostCsr& local_block() const { return block_; }

 private:
  using vector_type = BuiltPreconditioner::vector_type;
  using const_vector_type = BuiltPreconditioner::const_vector_type;

  Teuchos::RCP<const row_matrix_type> checked_matrix(const char* what) const {
    if (matrix_.is_null())
      throw InputError(std::string("trellis::trilinos::Ifpack2Preconditioner::") + what +
                       ": no matrix; give one to the constructor or to setMatrix()");
    return matrix_;
  }

  void reset() {
    initialized_ = computed_ = false;
    built_ = BuiltPreconditioner();
    block_ = HostCsr();
    factored_values_.clear();
  }

  template <class XColumn, class ZColumn>
  void apply_column(const XColumn& x, const ZColumn& z) const {
    const size_t n = size_t(block_.num_rows);
    if (n == 0) return;
    using trellis_space = typename vector_type::memory_space;
    if constexpr (std::is_same_v<typename XColumn::memory_space, trellis_space>) {
      // Columns of a LayoutLeft multivector are contiguous: wrap them.
      apply_vector(const_vector_type(x.data(), n), vector_type(z.data(), n));
    } else {
      vector_type xs("trellis::trilinos::x", n), zs("trellis::trilinos::z", n);
      Kokkos::deep_copy(xs, x);
      apply_vector(xs, zs);
      Kokkos::deep_copy(z, zs);
    }
  }

  void apply_vector(const const_vector_type& x, const vector_type& z) const {
    if (built_.reordered()) {  // dd works in its own numbering of the rank's rows
      built_.to_reordered(x, xr_);
      built_.preconditioner->apply(xr_, zr_);
      built_.from_reordered(zr_, z);
    } else {
      built_.preconditioner->apply(x, z);
    }
  }

  Teuchos::RCP<const row_matrix_type> matrix_;
  Ifpack2Settings settings_;
  HostCsr block_;
  BuiltPreconditioner built_;
  std::vector<double> factored_values_;  // initialize()'s values, until the first compute()
  vector_type xr_, zr_;                  // dd's reordered vectors
  bool initialized_ = false, computed_ = false;
  int num_initialize_ = 0, num_compute_ = 0;
  mutable int num_apply_ = 0;
  double initialize_seconds_ = 0, compute_seconds_ = 0;
  mutable double apply_seconds_ = 0;
};

}  // namespace trellis::trilinos
