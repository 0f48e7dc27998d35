#pragma once
// Trellis's preconditioners in Trilinos's run-time registry of linear
// solvers (Trilinos::Details::getLinearSolver), where Ifpack2, Belos and
// Amesos2 register theirs: after register_linear_solver_factory(), any code
// that creates solvers by package and name gets one of Trellis's by the
// factory spec.
//
//   trellis::trilinos::register_linear_solver_factory<>();
//   auto M = Trilinos::Details::getLinearSolver<MV, OP, double>("Trellis", "ilu0");
//   M->setMatrix(A);  M->symbolic();  M->numeric();  M->solve(Z, R);  // Z = M^{-1} R
//
// symbolic() is Ifpack2Preconditioner::initialize(), numeric() compute(), and
// setParameters() takes its parameters ("trellis: preconditioner" overrides
// the name the solver was created with).
#include <Teuchos_ParameterList.hpp>
#include <Teuchos_RCP.hpp>
#include <Trilinos_Details_LinearSolver.hpp>
#include <Trilinos_Details_LinearSolverFactory.hpp>
#include <memory>
#include <string>

#include "trellis/core/errors.hpp"
#include "trellis/trilinos/ifpack2_preconditioner.hpp"

namespace trellis::trilinos {

template <class SC = Tpetra::Operator<>::scalar_type, class LO = Tpetra::Operator<>::local_ordinal_type,
          class GO = Tpetra::Operator<>::global_ordinal_type, class Node = Tpetra::Operator<>::node_type>
class LinearSolver
    : public Trilinos::Details::LinearSolver<Tpetra::MultiVector<SC, LO, GO, Node>, Tpetra::Operator<SC, LO, GO, Node>,
                                             typename Tpetra::MultiVector<SC, LO, GO, Node>::mag_type> {
 public:
  using prec_type = Ifpack2Preconditioner<SC, LO, GO, Node>;
  using MV = Tpetra::MultiVector<SC, LO, GO, Node>;
  using OP = Tpetra::Operator<SC, LO, GO, Node>;

  /// `spec` is checked now: an unknown name is an InputError listing the accepted ones.
  explicit LinearSolver(const std::string& spec) : prec_(Teuchos::rcp(new prec_type())) {
    Teuchos::ParameterList p;
    p.set("trellis: preconditioner", spec);
    prec_->setParameters(p);
  }

  void setMatrix(const Teuchos::RCP<const OP>& A) override {
    auto rows = Teuchos::rcp_dynamic_cast<const typename prec_type::row_matrix_type>(A);
    if (!A.is_null() && rows.is_null())
      throw InputError("trellis::trilinos::LinearSolver::setMatrix: the operator is not a Tpetra::RowMatrix");
    prec_->setMatrix(rows);
  }
  Teuchos::RCP<const OP> getMatrix() const override { return prec_->getMatrix(); }
  void setParameters(const Teuchos::RCP<Teuchos::ParameterList>& params) override {
    if (!params.is_null()) prec_->setParameters(*params);
  }
  void symbolic() override { prec_->initialize(); }
  void numeric() override { prec_->compute(); }
  /// X = M^{-1} B.
  void solve(MV& X, const MV& B) override { prec_->apply(B, X); }

  /// The preconditioner it drives (to give to Belos, or to query).
  Teuchos::RCP<prec_type> preconditioner() const { return prec_; }

 private:
  Teuchos::RCP<prec_type> prec_;
};

template <class SC = Tpetra::Operator<>::scalar_type, class LO = Tpetra::Operator<>::local_ordinal_type,
          class GO = Tpetra::Operator<>::global_ordinal_type, class Node = Tpetra::Operator<>::node_type>
class LinearSolverFactory
    : public Trilinos::Details::LinearSolverFactory<Tpetra::MultiVector<SC, LO, GO, Node>,
                                                    Tpetra::Operator<SC, LO, GO, Node>,
                                                    typename Tpetra::MultiVector<SC, LO, GO, Node>::mag_type> {
 public:
  using solver_type = LinearSolver<SC, LO, GO, Node>;
  using base_solver_type =
      Trilinos::Details::LinearSolver<Tpetra::MultiVector<SC, LO, GO, Node>, Tpetra::Operator<SC, LO, GO, Node>,
                                      typename Tpetra::MultiVector<SC, LO, GO, Node>::mag_type>;
  Teuchos::RCP<base_solver_type> getLinearSolver(const std::string& name) override {
    return Teuchos::rcp(new solver_type(name));
  }
};

/// Registers Trellis's factory under the package name "Trellis" (once; later
/// calls do nothing, as Trilinos's registry keeps the first factory).
template <class SC = Tpetra::Operator<>::scalar_type, class LO = Tpetra::Operator<>::local_ordinal_type,
          class GO = Tpetra::Operator<>::global_ordinal_type, class Node = Tpetra::Operator<>::node_type>
void register_linear_solver_factory() {
  using MV = Tpetra::MultiVector<SC, LO, GO, Node>;
  using OP = Tpetra::Operator<SC, LO, GO, Node>;
  using factory_type = LinearSolverFactory<SC, LO, GO, Node>;
  Trilinos::Details::registerLinearSolverFactory<MV, OP, typename MV::mag_type>(
      "Trellis", typename Trilinos::Details::Impl::LinearSolverFactoryRepository<
                     MV, OP, typename MV::mag_type>::factory_pointer_type(new factory_type()));
}

}  // namespace trellis::trilinos
