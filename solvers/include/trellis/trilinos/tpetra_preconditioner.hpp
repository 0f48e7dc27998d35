#pragma once
// Any preconditioner of the factory (preconditioner_factory.hpp) as a
// Tpetra::Operator, so that Belos (through its Tpetra adapter) or any other
// Tpetra solver applies it: target Trellis::trilinos (CMake option
// TRELLIS_ENABLE_TRILINOS), header-only.
//
//   auto A = Tpetra::MatrixMarket::Reader<crs_type>::readSparseFile(file, comm);
//   auto M = Teuchos::rcp(new trellis::trilinos::TpetraPreconditioner<>(A, "ilu0"));
//   problem->setRightPrec(M);
//
// On several ranks each rank preconditions its own rows: block Jacobi with
// Trellis inside, as Ifpack2's additive Schwarz (overlap 0) does with ILU
// inside. The block is the rank's rows and the columns it owns (entries in
// columns owned by other ranks are dropped); the dd preconditioner's
// subdomains all live within the rank. Applying it needs no communication.
//
// Copies, and why:
// - Tpetra's row offsets are size_t, Trellis's 32-bit (offset_t): the offsets
//   are always copied (and checked to fit).
// - Column indices and values are taken from the host view of the local
//   matrix without a copy when its memory is host memory, its local columns
//   are numbered as its rows (the column map starts with the rows in order,
//   as Tpetra makes it) and no entry lies in another rank's column: one rank,
//   or a block-diagonal matrix. Otherwise they are copied, renumbered and
//   the foreign entries dropped.
// - The factory then builds the preconditioner on Trellis's default device
//   (its factors are its own storage, as in Ifpack2).
// - apply() reads and writes the multivector columns in place when Tpetra's
//   memory space is Trellis's default device's (Debian's Serial Trilinos);
//   otherwise each column is staged through a Trellis vector.
#include <Kokkos_Core.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_Operator.hpp>
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/types.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"

namespace trellis::trilinos {

/// The rank's diagonal block of A in host CSR: its rows, the columns it owns,
/// numbered as its rows (block Jacobi). A must be fillComplete'd and its row
/// map the same as its range and domain maps. Collective (the map checks).
template <class LO, class GO, class Node>
HostCsr local_diagonal_block(const Tpetra::CrsMatrix<double, LO, GO, Node>& A) {
  if (!A.isFillComplete())
    throw InputError("trellis::trilinos: the Tpetra matrix is not fillComplete'd; call fillComplete() first");
  const auto rows = A.getRowMap();
  if (!rows->isSameAs(*A.getRangeMap()) || !rows->isSameAs(*A.getDomainMap()))
    throw InputError(
        "trellis::trilinos: the Tpetra matrix's row map differs from its range or domain map; block Jacobi "
        "needs each rank to own the rows of the vector entries it preconditions");
  const auto cols = A.getColMap();
  const auto local = A.getLocalMatrixHost();  // the device's own views on a host-only Node
  const size_t n = rows->getNodeNumElements();
  const size_t num_cols = cols->getNodeNumElements();
  if (n > size_t(std::numeric_limits<ordinal_t>::max()))
    throw StructureError("trellis::trilinos: " + std::to_string(n) +
                         " local rows do not fit Trellis's 32-bit ordinals");

  // Local column -> local row of the same global index, or -1 if another rank owns it.
  std::vector<ordinal_t> col_to_row(num_cols);
  bool identity = true;
  for (size_t c = 0; c < num_cols; ++c) {
    const LO r = rows->getLocalElement(cols->getGlobalElement(LO(c)));
    col_to_row[c] = r == Teuchos::OrdinalTraits<LO>::invalid() ? -1 : ordinal_t(r);
    identity = identity && col_to_row[c] == (c < n ? ordinal_t(c) : -1);
  }

  const auto& rm = local.graph.row_map;
  const auto& ent = local.graph.entries;
  const auto& val = local.values;
  const ordinal_t rows_i = ordinal_t(n);
  const offset_t total = checked_nnz((long long)(rm(n)), "trellis::trilinos: the rank's local matrix");
  // Zero-copy is possible when every entry is kept in place, sorted.
  bool in_place = identity && num_cols == n;
  for (size_t i = 0; in_place && i < n; ++i)
    for (size_t k = rm(i) + 1; k < rm(i + 1); ++k) in_place = in_place && ent(k - 1) < ent(k);

  Kokkos::View<offset_t*, HostDevice> row_map("trellis::trilinos::row_map", n + 1);
  constexpr bool same_storage = std::is_same_v<typename std::decay_t<decltype(val)>::memory_space, Kokkos::HostSpace> &&
                                std::is_same_v<LO, ordinal_t>;
  if constexpr (same_storage) {
    if (in_place) {
      for (size_t i = 0; i <= n; ++i) row_map(i) = offset_t(rm(i));
      return HostCsr(rows_i, rows_i, row_map, ent, val);
    }
  }
  // Copy: renumber the owned columns, drop the others, sort each row.
  std::vector<std::pair<ordinal_t, double>> row;
  HostCsr::index_type entries(Kokkos::ViewAllocateWithoutInitializing("trellis::trilinos::entries"), total);
  HostCsr::values_type values(Kokkos::ViewAllocateWithoutInitializing("trellis::trilinos::values"), total);
  offset_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    row.clear();
    for (size_t k = rm(i); k < rm(i + 1); ++k)
      if (const ordinal_t c = col_to_row[size_t(ent(k))]; c >= 0) row.emplace_back(c, double(val(k)));
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [c, v] : row) {
      entries(kept) = c;
      values(kept) = v;
      ++kept;
    }
    row_map(i + 1) = kept;
  }
  return HostCsr(rows_i, rows_i, row_map, Kokkos::subview(entries, std::make_pair(offset_t(0), kept)),
                 Kokkos::subview(values, std::make_pair(offset_t(0), kept)));
}

/// A Trellis preconditioner (factory name: "ilu0", "dd", "jacobi", ...) built
/// from the rank's diagonal block of a Tpetra matrix, applied as M^{-1}:
/// Y = beta Y + alpha M^{-1} X. Not transposable.
template <class LO = Tpetra::Map<>::local_ordinal_type, class GO = Tpetra::Map<>::global_ordinal_type,
          class Node = Tpetra::Map<>::node_type>
class TpetraPreconditioner : public Tpetra::Operator<double, LO, GO, Node> {
 public:
  using matrix_type = Tpetra::CrsMatrix<double, LO, GO, Node>;
  using map_type = Tpetra::Map<LO, GO, Node>;
  using multivector_type = Tpetra::MultiVector<double, LO, GO, Node>;

  /// Builds `spec` on the rank's diagonal block of A (collective).
  TpetraPreconditioner(const Teuchos::RCP<const matrix_type>& A, const std::string& spec,
                       const PreconditionerOptions& options = {})
      : matrix_(A) {
    if (A.is_null()) throw InputError("trellis::trilinos::TpetraPreconditioner: null matrix");
    Kokkos::Timer timer;
    block_ = local_diagonal_block(*A);
    extract_seconds_ = timer.seconds();
    if (block_.num_rows > 0) {  // a rank without rows has nothing to precondition
      built_ = make_preconditioner(spec, block_, options);
      xr_ = vector_type("trellis::trilinos::xr", block_.num_rows);
      zr_ = vector_type("trellis::trilinos::zr", block_.num_rows);
    } else {
      built_.name = canonical_preconditioner(spec);
    }
    setup_seconds_ = timer.seconds();
  }

  Teuchos::RCP<const map_type> getDomainMap() const override { return matrix_->getRangeMap(); }
  Teuchos::RCP<const map_type> getRangeMap() const override { return matrix_->getDomainMap(); }
  bool hasTransposeApply() const override { return false; }

  void apply(const multivector_type& X, multivector_type& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             double alpha = 1, double beta = 0) const override {
    if (mode != Teuchos::NO_TRANS)
      throw InputError("trellis::trilinos::TpetraPreconditioner::apply: only M^{-1} (Teuchos::NO_TRANS) is available");
    const size_t n = size_t(block_.num_rows);
    if (X.getNumVectors() != Y.getNumVectors() || X.getLocalLength() != n || Y.getLocalLength() != n)
      throw InputError("trellis::trilinos::TpetraPreconditioner::apply: X has " + std::to_string(X.getLocalLength()) +
                       "x" + std::to_string(X.getNumVectors()) + " local entries, Y " +
                       std::to_string(Y.getLocalLength()) + "x" + std::to_string(Y.getNumVectors()) + ", expected " +
                       std::to_string(n) + " rows");
    // Z = M^{-1} X straight into Y when nothing is to be combined and X is not Y.
    const bool direct = alpha == 1 && beta == 0 && &X != &Y;
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
  }

  /// What the factory built (name, setup report, kind) on this rank.
  const BuiltPreconditioner& built() const { return built_; }
  /// The rank's diagonal block the preconditioner was built from.
  const HostCsr& local_block() const { return block_; }
  /// Seconds to extract the block, and for the whole setup (extraction included).
  double extract_seconds() const { return extract_seconds_; }
  double setup_seconds() const { return setup_seconds_; }

 private:
  using vector_type = BuiltPreconditioner::vector_type;
  using const_vector_type = BuiltPreconditioner::const_vector_type;

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

  Teuchos::RCP<const matrix_type> matrix_;
  HostCsr block_;
  BuiltPreconditioner built_;
  vector_type xr_, zr_;  // dd's reordered vectors
  double extract_seconds_ = 0;
  double setup_seconds_ = 0;
};

}  // namespace trellis::trilinos
