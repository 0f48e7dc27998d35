#pragma once
// Multi-GPU application of the domain-decomposition ILDU0 (seed 000, section
// 4.5): one MPI rank per GPU, the subdomains split over the ranks
// (DomainDecompositionIlu::rank_shares), and each rank applies ILDU0 to its
// own subdomains with no communication at all.
//
// Vectors are distributed in the reordered numbering: rank k owns the rows of
// its share, [local_offset(), local_offset() + local_rows()). The setup is
// replicated (every rank partitions and factors the whole matrix, then keeps
// applying only its share): simple and deterministic, at the cost of memory
// and setup time that a later version can cut by factoring only the share.
#include "trellis/config.hpp"
#if TRELLIS_ENABLE_MPI
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "trellis/dd/domain_decomposition_ilu.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
class DistributedDdIlu {
 public:
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;

  /// Collective over comm. Every rank must pass the same matrix and options:
  /// a rank whose matrix differs in size or pattern makes every rank throw
  /// InputError naming the inconsistency.
  DistributedDdIlu(MPI_Comm comm, const HostBsr& A, const DdOptions& options = {}) : comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    check_same_matrix(A);
    dd_ = std::make_unique<DomainDecompositionIlu<Scalar, Device>>(A, options);
    share_ = dd_->rank_shares(size_)[rank_];
    const auto& start = dd_->layout().sub_start;
    const int b = dd_->block_size();
    offset_ = ordinal_t(start[share_.begin]) * b;
    rows_ = ordinal_t(start[share_.end] - start[share_.begin]) * b;
    in_ = vector_type("dd_mpi_in", dd_->num_rows());
    out_ = vector_type("dd_mpi_out", dd_->num_rows());
  }

  int rank() const { return rank_; }
  int ranks() const { return size_; }
  /// This rank's rows: [local_offset(), local_offset() + local_rows()) of the reordered numbering.
  ordinal_t local_offset() const { return offset_; }
  ordinal_t local_rows() const { return rows_; }
  const dd::SubdomainRange& share() const { return share_; }
  /// Every rank's first block row, and the total at the end (size() + 1
  /// entries): the layout of a DistributedBsrOperator on the reordered
  /// matrix, the same on every rank.
  std::vector<ordinal_t> block_row_offsets() const {
    const auto shares = dd_->rank_shares(size_);
    const auto& start = dd_->layout().sub_start;
    std::vector<ordinal_t> offsets;
    for (const auto& sh : shares) offsets.push_back(ordinal_t(start[sh.begin]));
    offsets.push_back(ordinal_t(start.back()));
    return offsets;
  }
  const DomainDecompositionIlu<Scalar, Device>& local_factors() const { return *dd_; }

  /// z_local = M^{-1} r_local on this rank's subdomains; no communication.
  void apply(const_vector_type r_local, vector_type z_local, DdApply variant) const {
    if (r_local.extent(0) != size_t(rows_) || z_local.extent(0) != size_t(rows_))
      throw StructureError("distributed ILDU0 on rank " + std::to_string(rank_) + ": local vectors of " +
                           std::to_string(r_local.extent(0)) + " and " + std::to_string(z_local.extent(0)) +
                           " entries, this rank owns " + std::to_string(rows_) + " rows");
    const auto mine = std::make_pair(size_t(offset_), size_t(offset_) + rows_);
    Kokkos::deep_copy(Kokkos::subview(in_, mine), r_local);
    dd_->apply_reordered(in_, out_, variant, share_);
    Kokkos::deep_copy(z_local, Kokkos::subview(out_, mine));
  }

 private:
  /// Sizes and a checksum of the pattern compared over the ranks.
  void check_same_matrix(const HostBsr& A) const {
    long long mine[3] = {A.num_block_rows, A.block_size, 0};
    for (offset_t q = 0; q < A.nnz_blocks(); ++q) mine[2] = (mine[2] * 31 + A.entries(q) + 7 * q) % 1000000007LL;
    long long lo[3], hi[3];
    MPI_Allreduce(mine, lo, 3, MPI_LONG_LONG, MPI_MIN, comm_);
    MPI_Allreduce(mine, hi, 3, MPI_LONG_LONG, MPI_MAX, comm_);
    for (int k = 0; k < 3; ++k)
      if (lo[k] != hi[k])
        throw InputError(std::string("inconsistent MPI layout: ranks disagree on the matrix's ") +
                         (k == 0   ? "block rows"
                          : k == 1 ? "block size"
                                   : "pattern") +
                         " (from " + std::to_string(lo[k]) + " to " + std::to_string(hi[k]) +
                         "; this rank: " + std::to_string(mine[k]) + ")");
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::unique_ptr<DomainDecompositionIlu<Scalar, Device>> dd_;
  dd::SubdomainRange share_;
  ordinal_t offset_ = 0, rows_ = 0;
  vector_type in_, out_;
};

}  // namespace trellis
#endif
