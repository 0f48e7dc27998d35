#pragma once
// `auto`: Jacobi, the domain-decomposition ILDU0 or the global ILU0 for a
// matrix, chosen before any is built, from A's diagonal and what a level
// analysis of A's pattern says (perf_tests/journal/RESULTS.md, "precond
// auto", has the table behind it; docs/api.md the dominance of the suite).
//
// First, a matrix with stored zero diagonals (a saddle point's zero block)
// gets ilu0: such a row's pivot exists only through fill from the rows it
// couples to, and DD drops the couplings that leave its subdomain (a
// generated Stokes-like system: dd's setup met a zero pivot where ilu0's
// did not, test_solver). A known grid (options.grid) gets dd, with its
// cheap geometric cuts, and no analysis. Then a strictly diagonally
// dominant matrix (by rows or by columns, every off-diagonal sum below
// AutoRule::jacobi_below_dominance times its diagonal) gets jacobi: Jacobi
// then contracts in the infinity or the one norm, its setup is a copy of
// the diagonal and its iteration two SpMVs, where an ILU's setup alone
// costs more than the few iterations such a matrix needs (a PageRank
// matrix: ILU(0) in 3 iterations, Jacobi in 9). Then:
//
// A global ILU0 application walks every level of L and U in turn, so its
// cost has a part per level (a dependency step on a GPU, a barrier on CPU
// threads) beside its part per nonzero; a DD application costs the same few
// kernels whatever the matrix, but DD needs more iterations (1.0-2.5x on the
// suite) and, without a grid, a METIS partition. Hence:
//   1. dd when the global factors are deep for their size, fewer than
//      AutoRule::dd_below_nonzeros_per_level nonzeros per level of L and U
//      (counted on the host: the GPU's one-pass count waits level on level,
//      10 ms against the host's 2-3 ms on matrices of 800-2500 levels);
//   2. else ilu0.
// Each keeps its own defaults (dd: the backend's application and its
// automatic subdomain size; ilu0: its triangular-solve auto).
#include <string>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"

namespace trellis {

/// The rule's threshold, a named parameter with its measured default.
struct AutoRule {
  /// nnz(A) / (levels of L + levels of U) below which dd is chosen. DD won
  /// on every matrix below 2300 but the two power-grid ones (H100, H200 and
  /// 2 CPU threads; ff_dg_transport2d at 2020 since DD's automatic
  /// subdomain size), global ILU0 on the two above (2567, 3980).
  double dd_below_nonzeros_per_level = 2300;
  /// The diagonal dominance (PreconditionerChoice::dominance) below which
  /// jacobi is chosen. Of the suite's matrices only the PageRank one
  /// (0.85) is below 1; every PDE matrix is at 1 or above.
  double jacobi_below_dominance = 0.9;
};

/// What auto chose and why.
struct PreconditionerChoice {
  PreconditionerKind kind = PreconditionerKind::ilu0;  // jacobi, dd or ilu0
  std::string reason;                                  // one line for people
  double dominance = 0;                                // diagonal_dominance(A); infinity with a zero diagonal
  ordinal_t lower_levels = 0, upper_levels = 0;        // 0 when the grid decided
  double nonzeros_per_level = 0;                       // nnz / (lower + upper levels); 0 likewise
  ordinal_t zero_diagonals = 0;                        // rows whose stored diagonal is 0
};

/// The choice for A (point CSR, canonical) under these options; a matrix
/// that is empty, not square or not canonical (unsorted or repeated columns
/// in a row) is a StructureError naming auto.
PreconditionerChoice choose_preconditioner(const HostCsr& A, const PreconditionerOptions& options,
                                           const AutoRule& rule = {});
/// The same choice with the zero diagonals counted on the device from
/// `blocks`, A's blocks there (as Solver holds them): the host's pass over
/// every row took 0.19 s at 6.3 million rows, longer than DD's whole setup.
PreconditionerChoice choose_preconditioner(const HostCsr& A, const BsrMatrix<double, DefaultDevice>& blocks,
                                           const PreconditionerOptions& options, const AutoRule& rule = {});

/// Point rows whose stored diagonal is zero (a row without one is not
/// counted: the setups name it). On the device, a point diagonal that its
/// stored diagonal block holds as zero counts.
ordinal_t count_zero_diagonals(const HostCsr& A);
ordinal_t count_zero_diagonals(const BsrMatrix<double, DefaultDevice>& A);

/// How far A is from strict diagonal dominance: the smaller of
/// max_i sum_{j != i} |a_ij| / |a_ii| (by rows, the infinity norm of
/// I - D^{-1} A) and the same by columns (the one norm of I - A D^{-1}).
/// Below 1, Jacobi converges. Infinity when a diagonal is zero or missing
/// or a value is NaN. Point entries; on the device from A's blocks.
double diagonal_dominance(const HostCsr& A);
double diagonal_dominance(const BsrMatrix<double, DefaultDevice>& A);

}  // namespace trellis
