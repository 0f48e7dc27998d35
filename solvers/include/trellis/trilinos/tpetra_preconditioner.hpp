#pragma once
// A factory preconditioner built in one call from a Tpetra matrix, for a
// Belos solve that needs no Ifpack2 life cycle:
//
//   auto A = Tpetra::MatrixMarket::Reader<crs_type>::readSparseFile(file, comm);
//   auto M = Teuchos::rcp(new trellis::trilinos::TpetraPreconditioner<>(A, "ilu0"));
//   problem->setRightPrec(M);
//
// It is an Ifpack2Preconditioner (ifpack2_preconditioner.hpp) initialized
// and computed by its constructor: compute() takes new values of the same
// pattern, and on several ranks it is block Jacobi with Trellis inside.
#include <Teuchos_RCP.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <string>

#include "trellis/core/errors.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/trilinos/ifpack2_preconditioner.hpp"

namespace trellis::trilinos {

template <class LO = Tpetra::Map<>::local_ordinal_type, class GO = Tpetra::Map<>::global_ordinal_type,
          class Node = Tpetra::Map<>::node_type>
class TpetraPreconditioner : public Ifpack2Preconditioner<double, LO, GO, Node> {
 public:
  using matrix_type = Tpetra::CrsMatrix<double, LO, GO, Node>;

  /// Builds `spec` on the rank's diagonal block of A (collective).
  TpetraPreconditioner(const Teuchos::RCP<const matrix_type>& A, const std::string& spec,
                       const PreconditionerOptions& options = {})
      : Ifpack2Preconditioner<double, LO, GO, Node>(A) {
    if (A.is_null()) throw InputError("trellis::trilinos::TpetraPreconditioner: null matrix");
    Ifpack2Settings settings;
    settings.spec = spec;
    settings.options = options;
    this->setParameters(write_parameters(settings));
    this->initialize();
    this->compute();
  }
};

}  // namespace trellis::trilinos
