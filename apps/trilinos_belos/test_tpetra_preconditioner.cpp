// Checks of trellis::trilinos::TpetraPreconditioner on a 1D Laplacian spread
// over the ranks (ctest label trilinos, 1 and 2 ranks). Prints one line per
// failed check and exits 1 if any failed.
#include <Teuchos_CommHelpers.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include <trellis/core/errors.hpp>
#include <trellis/trilinos/tpetra_preconditioner.hpp>

namespace {

using crs_type = Tpetra::CrsMatrix<double>;
using map_type = Tpetra::Map<>;
using mv_type = Tpetra::MultiVector<double>;
using Prec = trellis::trilinos::TpetraPreconditioner<>;

int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

/// tridiag(-1, 2, -1) of n global rows, evenly over the ranks.
Teuchos::RCP<crs_type> laplace1d(const Teuchos::RCP<const Teuchos::Comm<int>>& comm, int n, bool fill_complete) {
  auto map = Teuchos::rcp(new map_type(n, 0, comm));
  auto A = Teuchos::rcp(new crs_type(map, 3));
  for (size_t i = 0; i < map->getNodeNumElements(); ++i) {
    const auto g = map->getGlobalElement(i);
    for (auto c : {g - 1, g, g + 1})
      if (c >= 0 && c < n) A->insertGlobalValues(g, Teuchos::tuple(c), Teuchos::tuple(c == g ? 2.0 : -1.0));
  }
  if (fill_complete) A->fillComplete();
  return A;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  const auto comm = Tpetra::getDefaultComm();
  const int ranks = comm->getSize();
  const int n = 40;

  // A matrix still open for filling is refused, by name.
  try {
    Prec M(laplace1d(comm, n, false), "ilu0");
    check(false, "a matrix not fillComplete'd was accepted");
  } catch (const trellis::InputError& e) {
    check(std::string(e.what()).find("not fillComplete'd") != std::string::npos,
          std::string("unclear error for a matrix not fillComplete'd: ") + e.what());
  }

  const auto A = laplace1d(comm, n, true);
  const size_t rows = A->getNodeNumRows();
  Prec M(A, "ilu0");
  // The rank's block: its rows and owned columns only (block Jacobi).
  const auto& block = M.local_block();
  check(size_t(block.num_rows) == rows && size_t(block.nnz()) == 3 * rows - 2,
        "local block is " + std::to_string(block.num_rows) + " rows, " + std::to_string(block.nnz()) +
            " entries; expected " + std::to_string(rows) + " rows, " + std::to_string(3 * rows - 2));
  // One rank: column indices and values are Tpetra's own, not copies.
  if (ranks == 1)
    check(block.values.data() == A->getLocalMatrixHost().values.data(), "one rank: the values were copied");

  // ILU(0) of a tridiagonal block is its exact LU: M^{-1} (B v) = v, and
  // Y = beta Y + alpha M^{-1} X for the other alpha, beta.
  mv_type v(A->getRowMap(), 2), x(A->getRowMap(), 2), y(A->getRowMap(), 2);
  v.randomize();
  {
    const auto vh = v.getLocalViewHost(Tpetra::Access::ReadOnly);
    const auto xh = x.getLocalViewHost(Tpetra::Access::OverwriteAll);
    for (size_t j = 0; j < 2; ++j)
      for (size_t i = 0; i < rows; ++i) {
        double s = 0;
        for (int k = block.row_map(i); k < block.row_map(i + 1); ++k) s += block.values(k) * vh(block.entries(k), j);
        xh(i, j) = s;
      }
  }
  M.apply(x, y);
  y.update(-1.0, v, 1.0);
  std::vector<double> err(2);
  y.normInf(err);
  check(err[0] < 1e-12 && err[1] < 1e-12, "M^{-1} B v != v: error " + std::to_string(err[0]));
  y.putScalar(1.0);
  M.apply(x, y, Teuchos::NO_TRANS, 2.0, 3.0);  // y = 3 + 2 v
  mv_type expected(A->getRowMap(), 2);
  expected.putScalar(3.0);
  expected.update(2.0, v, 1.0);
  y.update(-1.0, expected, 1.0);
  y.normInf(err);
  check(err[0] < 1e-12 && err[1] < 1e-12, "alpha, beta: error " + std::to_string(err[0]));
  try {
    M.apply(x, y, Teuchos::TRANS);
    check(false, "a transposed apply was accepted");
  } catch (const trellis::InputError&) {
  }

  // dd (reordered numbering inside the rank) gives a finite, nonzero result.
  Prec D(A, "dd");
  D.apply(x, y);
  y.norm2(err);
  check(D.built().reordered() && std::isfinite(err[0]) && err[0] > 0, "dd: bad result");

  int all = 0;
  Teuchos::reduceAll(*comm, Teuchos::REDUCE_SUM, failures, Teuchos::outArg(all));
  if (comm->getRank() == 0) std::printf("tpetra_preconditioner: %d rank(s), %d failed check(s)\n", ranks, all);
  return all == 0 ? 0 : 1;
}
