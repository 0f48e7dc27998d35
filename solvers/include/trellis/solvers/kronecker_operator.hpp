#pragma once
// The Kronecker operator (seed 001): y = (A ⊗ M + tau B ⊗ L) x, never forming
// the product. x and y are this process's rows of the N x s blocks X̂, Ŷ,
// stored column after column (column j of the local rows at x[j * q], q the
// local point rows), so the Krylov drivers see ordinary vectors of q s
// entries.
//
// Distribution (seed 001, Figs. 1-2): by block rows, one contiguous range per
// process. Each process splits its rows of M and L into the diagonal part
// (columns it owns) and the off-diagonal part (ghost columns). One apply:
//   1. pack the ghost entries every neighbour needs, all s columns in one
//      message per neighbour (distributed/halo_exchange.hpp), and post them;
//   2. the diagonal part's multi-vector SpMV (spmv/kronecker_spmv.hpp) runs
//      on the GPU while the host waits for the messages;
//   3. scatter the received ghosts, then the off-diagonal part's SpMV adds in.
// When M and L share a pattern (the usual FEM case) both are applied in one
// pass that reads each pattern entry once; otherwise M and L are two passes.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "trellis/core/kronecker_system.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/distributed/agreement.hpp"
#include "trellis/distributed/block_rows.hpp"
#include "trellis/distributed/halo_exchange.hpp"
#include "trellis/solvers/linear_operator.hpp"
#include "trellis/spmv/kronecker_spmv.hpp"

namespace trellis {

struct KroneckerOptions {
  /// Apply M and L in one pass when their patterns are equal. Off: two passes
  /// always (to measure what the merge buys).
  bool merge_shared_pattern = true;
  distributed::HaloBuffers halo_buffers = distributed::HaloBuffers::automatic;
  /// How the SpMV's vector lanes share a block row (spmv/kronecker_spmv.hpp).
  KroneckerMapping mapping = KroneckerMapping::automatic;
  /// Store only the block entries that are nonzero in some block of the
  /// matrix (packed blocks, spmv/kronecker_spmv.hpp); off: dense blocks.
  /// The entry_per_lane mapping always reads dense blocks.
  bool pack_blocks = true;
};

/// Seconds spent in applies since the last reset, when profiling is on (each
/// phase is then waited for, so overlap is lost): T_Kx and T_c of seed 001's
/// Table 3.
struct KroneckerTimings {
  double compute_seconds = 0;        // T_Kx: the SpMV kernels
  double communication_seconds = 0;  // T_c: pack, messages, unpack
  long applies = 0;
};

template <class Scalar = double, class Device = DefaultDevice>
class KroneckerOperator : public LinearOperator<Scalar, Device> {
 public:
  using typename LinearOperator<Scalar, Device>::execution_space;
  using typename LinearOperator<Scalar, Device>::vector_type;
  using typename LinearOperator<Scalar, Device>::const_vector_type;

  /// One process: the whole system (validated; InputError names a problem).
  explicit KroneckerOperator(const KroneckerSystem& system, const KroneckerOptions& options = {})
      : KroneckerOperator(distributed::Communicator(), system, std::vector<ordinal_t>{0, system.M.num_block_rows},
                          options) {}

  /// Distributed by block rows. Collective over comm. `local` holds this
  /// rank's block rows [offsets[rank], offsets[rank + 1]) of M and L with
  /// global block column indices (num_block_cols = offsets.back()), and the
  /// same s, A, B, tau as every other rank; offsets (comm.size() + 1 entries)
  /// the same on every rank. Any inconsistency is an InputError on every rank.
  KroneckerOperator(const distributed::Communicator& comm, const KroneckerSystem& local,
                    const std::vector<ordinal_t>& offsets, const KroneckerOptions& options = {})
      : comm_(comm), offsets_(offsets), s_(local.stages), b_(local.M.block_size), mapping_(options.mapping) {
    check_layout(local);
    first_ = offsets_[size_t(comm.rank())];
    block_rows_ = offsets_[size_t(comm.rank()) + 1] - first_;
    q_ = block_rows_ * b_;
    const std::vector<ordinal_t> ghosts = distributed::ghost_block_columns({&local.M, &local.L}, first_);
    const ordinal_t g = ordinal_t(ghosts.size());
    const auto p_coeffs = coefficients(local.A, 1.0, "trellis::kronecker::A");
    const auto q_coeffs = coefficients(local.B, local.tau, "trellis::kronecker::tauB");
    const auto Md = distributed::diagonal_part(local.M, first_);
    const auto Ld = distributed::diagonal_part(local.L, first_);
    const auto Mo = distributed::off_diagonal_part(local.M, first_, ghosts);
    const auto Lo = distributed::off_diagonal_part(local.L, first_, ghosts);
    shared_pattern_ = same_pattern(local.M, local.L);
    merged_ = shared_pattern_ && options.merge_shared_pattern;
    const bool pack =
        options.pack_blocks && resolve_mapping<execution_space>(mapping_) != KroneckerMapping::entry_per_lane;
    auto add = [&](std::vector<KroneckerTerms<Scalar, Device>>& terms, const HostBsr& P, const HostBsr& Q) {
      if (merged_) {
        terms.push_back(make_kronecker_terms<Scalar, Device>(P, &Q, p_coeffs, q_coeffs, pack));
      } else {
        terms.push_back(make_kronecker_terms<Scalar, Device>(P, nullptr, p_coeffs, {}, pack));
        terms.push_back(make_kronecker_terms<Scalar, Device>(Q, nullptr, q_coeffs, {}, pack));
      }
    };
    add(diagonal_, Md, Ld);
    if (Mo.nnz_blocks() + Lo.nnz_blocks() > 0) add(off_diagonal_, Mo, Lo);
    const auto& d = diagonal_;  // what the blocks of M and L store (this rank's diagonal part), for reports
    stored_entries_ = {block_mask_entries(d[0].p_mask), block_mask_entries(merged_ ? d[0].q_mask : d[1].p_mask)};
    const auto plan = distributed::make_halo_plan(comm, offsets_, ghosts);
    halo_ = distributed::HaloExchange<Scalar, Device>(comm, plan, b_, s_, block_rows_, g, options.halo_buffers);
  }

  ordinal_t num_rows() const override { return q_ * s_; }
  const distributed::Communicator& communicator() const override { return comm_; }
  int stages() const { return s_; }
  int block_size() const { return b_; }
  /// This rank's point rows per stage (q) and its first global block row.
  ordinal_t local_space_rows() const { return q_; }
  ordinal_t first_block_row() const { return first_; }
  const std::vector<ordinal_t>& block_row_offsets() const { return offsets_; }
  /// M and L have the same pattern; merged: applied in one pass.
  bool shared_pattern() const { return shared_pattern_; }
  bool merged() const { return merged_; }
  const distributed::HaloExchange<Scalar, Device>& halo() const { return halo_; }
  /// Entries stored per block of M and of L (b^2 for dense blocks).
  int stored_block_entries_M() const { return stored_entries_[0]; }
  int stored_block_entries_L() const { return stored_entries_[1]; }

  /// Profiling waits after each phase to time it (see KroneckerTimings).
  void set_profiling(bool on) const { profiling_ = on; }
  KroneckerTimings timings() const { return timings_; }
  void reset_timings() const { timings_ = {}; }

 protected:
  void apply_on(const execution_space& space, const_vector_type x, vector_type y) const override {
    const size_t n = size_t(q_) * size_t(s_);
    if (x.extent(0) != n || y.extent(0) != n)
      throw StructureError("kronecker operator: vectors of " + std::to_string(x.extent(0)) + " and " +
                           std::to_string(y.extent(0)) + " entries, expected " + std::to_string(n) + " (" +
                           std::to_string(q_) + " rows x " + std::to_string(s_) + " stages)");
    if (x.data() == y.data() && n > 0) throw StructureError("kronecker operator: x and y must be distinct arrays");
    if (profiling_) return apply_profiled(space, x, y);
    halo_.start(space, x);
    spmv(space, diagonal_, {x, q_}, y);
    halo_.finish(space);
    spmv(space, off_diagonal_, {halo_.ghosts(), halo_.ghost_rows()}, y, Scalar(1));
  }

 private:
  using Terms = std::vector<KroneckerTerms<Scalar, Device>>;

  /// y = (beta y +) the sum of the terms applied to x.
  void spmv(const execution_space& space, const Terms& terms, const ColumnBlock<Scalar, Device>& x, vector_type y,
            Scalar beta = Scalar(0)) const {
    for (const auto& t : terms) {
      kronecker_spmv(space, t, s_, x, beta, y, q_, mapping_);
      beta = Scalar(1);
    }
  }

  void apply_profiled(const execution_space& space, const_vector_type x, vector_type y) const {
    space.fence();
    const time_point t0 = now();
    halo_.start(space, x);
    halo_.finish(space);
    space.fence();
    const time_point t1 = now();
    spmv(space, diagonal_, {x, q_}, y);
    spmv(space, off_diagonal_, {halo_.ghosts(), halo_.ghost_rows()}, y, Scalar(1));
    space.fence();
    timings_.communication_seconds += std::chrono::duration<double>(t1 - t0).count();
    timings_.compute_seconds += seconds_since(t1);
    ++timings_.applies;
  }

  /// Local checks, then agreement across ranks; InputError on every rank.
  void check_layout(const KroneckerSystem& local) const {
    const size_t ss = size_t(std::max(s_, 0)) * size_t(std::max(s_, 0));
    std::string e;
    auto fail = [&](const std::string& m) {
      if (e.empty()) e = "kronecker operator: " + m;
    };
    const std::string layout =
        distributed::block_row_layout_problem(comm_, offsets_, local.M.num_block_rows, local.M.num_block_cols);
    if (!layout.empty()) fail(layout + " (M)");
    if (s_ < 1) fail("s = " + std::to_string(s_) + " stages");
    if ((long long)local.M.num_rows() * s_ > (long long)std::numeric_limits<ordinal_t>::max())
      fail(std::to_string(local.M.num_rows()) + " rows x s = " + std::to_string(s_) +
           " stages: more unknowns than 32-bit indices hold");
    if (local.A.size() != ss || local.B.size() != ss)
      fail("A and B have " + std::to_string(local.A.size()) + " and " + std::to_string(local.B.size()) +
           " entries, s x s = " + std::to_string(ss));
    if (local.L.block_size != b_ || local.L.num_block_rows != local.M.num_block_rows ||
        local.L.num_block_cols != local.M.num_block_cols)
      fail("L (" + std::to_string(local.L.num_block_rows) + "x" + std::to_string(local.L.num_block_cols) +
           " blocks of " + std::to_string(local.L.block_size) + ") does not match M (" +
           std::to_string(local.M.num_block_rows) + "x" + std::to_string(local.M.num_block_cols) + " blocks of " +
           std::to_string(b_) + ")");
    if (!std::isfinite(local.tau)) fail("tau is not finite");
    for (const auto* C : {&local.A, &local.B})
      for (const double v : *C)
        if (!std::isfinite(v)) fail(std::string(C == &local.A ? "A" : "B") + " has a non-finite entry");
    for (const auto* X : {&local.M, &local.L}) {
      for (offset_t k = 0; k < X->nnz_blocks(); ++k)
        if (X->entries(k) < 0 || X->entries(k) >= X->num_block_cols) {
          fail(std::string(X == &local.M ? "M" : "L") + " has block column " + std::to_string(X->entries(k)) +
               " outside 0.." + std::to_string(X->num_block_cols - 1));
          break;
        }
      for (size_t v = 0; v < X->values.extent(0); ++v)
        if (!std::isfinite(X->values(v))) {
          fail(std::string(X == &local.M ? "M" : "L") + " has a non-finite value");
          break;
        }
    }
    if (b_ < 1 || b_ > detail::max_block_size)
      fail("block size b = " + std::to_string(b_) + " is not supported (1.." + std::to_string(detail::max_block_size) +
           ")");
    // The ranks must agree on everything they share.
    const std::string agreed[] = {
        distributed::disagreement(comm_, "the block size", b_),
        distributed::disagreement(comm_, "the number of stages s", s_),
        distributed::disagreement(comm_, "A, B and tau", fingerprint(local)),
    };
    for (const auto& d : agreed)
      if (e.empty()) e = d;
    distributed::throw_if_any_rank_failed(comm_, e);
  }

  static long long fingerprint(const KroneckerSystem& k) {
    unsigned long long h = 1469598103934665603ULL;
    auto mix = [&](double d) {
      unsigned long long bits;
      std::memcpy(&bits, &d, sizeof bits);
      h = (h ^ bits) * 1099511628211ULL;
    };
    for (const double v : k.A) mix(v);
    for (const double v : k.B) mix(v);
    mix(k.tau);
    return (long long)(h >> 1);
  }

  static bool same_pattern(const HostBsr& X, const HostBsr& Y) {
    if (X.nnz_blocks() != Y.nnz_blocks() || X.num_block_rows != Y.num_block_rows) return false;
    for (ordinal_t i = 0; i <= X.num_block_rows; ++i)
      if (X.row_map(i) != Y.row_map(i)) return false;
    for (offset_t k = 0; k < X.nnz_blocks(); ++k)
      if (X.entries(k) != Y.entries(k)) return false;
    return true;
  }

  Kokkos::View<const Scalar*, Device> coefficients(const std::vector<double>& C, double scale,
                                                   const std::string& label) const {
    Kokkos::View<Scalar*, Device> d(label, C.size());
    const auto h = Kokkos::create_mirror_view(d);
    for (size_t k = 0; k < C.size(); ++k) h(k) = Scalar(scale * C[k]);
    Kokkos::deep_copy(d, h);
    return d;
  }

  distributed::Communicator comm_;
  std::vector<ordinal_t> offsets_;
  int s_ = 0, b_ = 1;
  KroneckerMapping mapping_ = KroneckerMapping::automatic;
  ordinal_t first_ = 0, block_rows_ = 0, q_ = 0;
  bool shared_pattern_ = false, merged_ = false;
  Terms diagonal_, off_diagonal_;
  std::vector<int> stored_entries_;  // M's, L's
  mutable distributed::HaloExchange<Scalar, Device> halo_;
  mutable bool profiling_ = false;
  mutable KroneckerTimings timings_;
};

}  // namespace trellis
