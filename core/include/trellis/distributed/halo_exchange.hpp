#pragma once
// Executes a HaloPlan for s columns at once (seed 001, "Communication"): the
// entries every neighbour needs from all s columns go in one message per
// neighbour, not s.
//   - Parallel buffering (Algorithm 5): one kernel packs every column's send
//     entries into the send buffer.
//   - Pre-mapping (Algorithm 6): the buffer position of every entry is fixed
//     once, at construction, so the buffer comes out neighbour-major (all s
//     columns of neighbour k together: one contiguous message) and the
//     receive side scatters straight into the ghost columns.
//   - On GPUs whose ranks share a node, the pack kernel writes straight into
//     the neighbours' receive buffers (distributed/peer_window.hpp, CUDA IPC)
//     and MPI carries only empty ready/free tokens. Otherwise MPI carries
//     the data: device buffers when it accepts them (a CUDA-aware MPI,
//     detected at run time), else buffers staged through pinned host
//     memory. Host backends pass their buffers as they are.
// Vectors are s columns stored one after another: x holds column j of the
// owned rows at x[j * local_rows], the ghosts column j at ghosts[j * ghost_rows].
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "trellis/config.hpp"
#include "trellis/core/backend.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/distributed/agreement.hpp"
#include "trellis/distributed/communicator.hpp"
#include "trellis/distributed/halo_plan.hpp"
#include "trellis/distributed/peer_window.hpp"
#if TRELLIS_ENABLE_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support (Open MPI)
#endif

namespace trellis::distributed {

/// How the exchanged entries travel (a request; path() says what was built).
enum class HaloBuffers {
  automatic,    // peer writes where every rank can, else as `mpi`
  mpi,          // MPI carries the data: device memory when it accepts it, pinned host staging otherwise
  host_staged,  // MPI through host memory always (the baseline, or a suspect MPI)
};

/// How an exchange's entries travel, as built.
enum class HaloPath {
  none,         // nothing to exchange
  host_memory,  // MPI with the kernels' buffers (host backends)
  mpi_device,   // MPI with device buffers (a CUDA-aware MPI)
  host_staged,  // MPI with pinned host copies of the device buffers
  peer_writes,  // the pack kernel writes the neighbours' device buffers
};

inline const char* to_string(HaloPath p) {
  switch (p) {
    case HaloPath::none: return "none";
    case HaloPath::host_memory: return "MPI with host buffers";
    case HaloPath::mpi_device: return "MPI with device buffers";
    case HaloPath::host_staged: return "MPI staged through pinned host memory";
    case HaloPath::peer_writes: return "peer writes into the neighbours' device buffers";
  }
  return "?";
}

/// True when this MPI library says at run time that it accepts CUDA device
/// pointers (Open MPI's MPIX_Query_cuda_support); false when it cannot say.
inline bool mpi_accepts_cuda_memory() {
#if TRELLIS_ENABLE_MPI && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace detail {
/// Page-locked host memory for staging device buffers (fast, asynchronous
/// copies); plain host memory where the backend has none.
#if defined(KOKKOS_ENABLE_CUDA)
using staging_space = Kokkos::CudaHostPinnedSpace;
#elif defined(KOKKOS_ENABLE_HIP)
using staging_space = Kokkos::Experimental::HIPHostPinnedSpace;
#else
using staging_space = Kokkos::HostSpace;
#endif

/// to[t - first] = x(map(t)): a pack into another rank's buffer (a functor: nvcc
/// takes no device lambda in a private member function).
template <class Scalar, class Device>
struct PackTo {
  Scalar* to;    // the part's start in the other rank's buffer
  size_t first;  // the part's first position in the pack order
  Kokkos::View<const Scalar*, Device> x;
  Kokkos::View<size_t*, Device> map;
  KOKKOS_INLINE_FUNCTION void operator()(size_t t) const { to[t - first] = x(map(t)); }
};
}  // namespace detail

template <class Scalar, class Device>
class HaloExchange {
 public:
  using memory_space = typename Device::memory_space;
  using execution_space = typename Device::execution_space;
  static constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;

  /// Nothing to exchange (one process, or a rank without neighbours).
  HaloExchange() = default;

  /// plan in block units (make_halo_plan); block_size b, s columns, local
  /// block rows and ghost blocks of this rank.
  HaloExchange(const Communicator& comm, const HaloPlan& plan, int block_size, int columns, ordinal_t local_block_rows,
               ordinal_t ghost_blocks, HaloBuffers buffers = HaloBuffers::automatic)
      : comm_(comm),
        plan_(plan),
        local_rows_(local_block_rows * block_size),
        ghost_rows_(ghost_blocks * block_size),
        entry_(size_t(columns) * size_t(block_size)) {
    if (!plan.consistent()) throw StructureError("halo exchange: inconsistent plan offsets");
    if (!plan.empty() && comm.single_process())
      throw StructureError("halo exchange: a plan with neighbours on a single process");
    ghosts_ = view("trellis::halo::ghosts", size_t(ghost_rows_) * size_t(columns));
    send_map_ = make_map(plan.send_offsets, plan.send_indices, block_size, columns, local_rows_, "send_map");
    recv_map_ = make_map(plan.recv_offsets, plan.recv_indices, block_size, columns, ghost_rows_, "recv_map");
    if (comm.single_process()) return;  // path none
    // The peer window is collective: every rank builds one or none.
    const bool peers = buffers == HaloBuffers::automatic;
    const std::string e = disagreement(comm, "HaloBuffers::automatic (1) or not (0)", peers ? 1 : 0);
    if (!e.empty()) throw InputError("halo exchange: " + e);
    if (peers && !host_memory) peers_ = PeerWindow(comm, plan, entry_);
    if (peers_.open()) {
      path_ = HaloPath::peer_writes;
      recv_ = value_view(peers_.receive_buffer(), recv_map_.extent(0));  // unmanaged: the window owns it
      return;
    }
    send_ = view("trellis::halo::send", send_map_.extent(0));
    recv_ = view("trellis::halo::recv", recv_map_.extent(0));
    path_ = host_memory                                                          ? HaloPath::host_memory
            : (buffers != HaloBuffers::host_staged && mpi_accepts_cuda_memory()) ? HaloPath::mpi_device
                                                                                 : HaloPath::host_staged;
    if (path_ == HaloPath::host_staged) {
      send_staged_ = staged_view("trellis::halo::send_staged", send_.extent(0));
      recv_staged_ = staged_view("trellis::halo::recv_staged", recv_.extent(0));
    }
  }

  bool empty() const { return plan_.empty(); }
  /// How the entries travel (none for the single process).
  HaloPath path() const { return path_; }
  /// The ghost columns: column j at [j * ghost_rows(), (j + 1) * ghost_rows()).
  Kokkos::View<const Scalar*, Device> ghosts() const { return ghosts_; }
  ordinal_t ghost_rows() const { return ghost_rows_; }
  /// Entries (of Scalar) this rank sends and receives per exchange.
  size_t send_entries() const { return send_map_.extent(0); }
  size_t recv_entries() const { return recv_map_.extent(0); }

  /// Packs x's entries for the neighbours (s columns of local rows; queued
  /// on space, then waited for) and sends them: MPI receives and sends
  /// posted, or, for peer writes, packed straight into the neighbours'
  /// buffers and a ready token sent. Collective with the neighbours; call
  /// finish before the next start.
  void start(const execution_space& space, Kokkos::View<const Scalar*, Device> x) {
    if (empty()) return;
    if (path_ == HaloPath::peer_writes) return start_peer_writes(space, x);
    const auto map = send_map_;
    const auto buf = send_;
    Kokkos::parallel_for(
        "trellis::halo::pack", trellis::RangePolicy<execution_space>(space, 0, map.extent(0)),
        KOKKOS_LAMBDA(size_t t) { buf(t) = x(map(t)); });
    if (path_ == HaloPath::host_staged) Kokkos::deep_copy(space, send_staged_, send_);
    space.fence();
    post();
  }

  /// Waits for this rank's messages (or ready tokens), then scatters the
  /// received entries into ghosts() (queued on space; for peer writes also
  /// waited for, so that the senders may write again).
  void finish(const execution_space& space) {
    if (empty()) return;
    if (path_ == HaloPath::peer_writes) {
      peers_.wait_ready();
    } else {
#if TRELLIS_ENABLE_MPI
      MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
      requests_.clear();
#endif
      if (path_ == HaloPath::host_staged) Kokkos::deep_copy(space, recv_, recv_staged_);
    }
    const auto map = recv_map_;
    const auto buf = recv_;
    const auto ghosts = ghosts_;
    Kokkos::parallel_for(
        "trellis::halo::unpack", trellis::RangePolicy<execution_space>(space, 0, map.extent(0)),
        KOKKOS_LAMBDA(size_t t) { ghosts(map(t)) = buf(t); });
    if (path_ == HaloPath::peer_writes) {
      space.fence();  // the senders may write the receive buffer again once released
      peers_.release();
    }
  }

 private:
  /// The pack kernel writes each neighbour's part straight into its receive
  /// buffer (one launch per neighbour: each part has its own destination).
  void start_peer_writes(const execution_space& space, Kokkos::View<const Scalar*, Device> x) {
    peers_.acquire_targets();
    for (size_t k = 0; k < plan_.send_ranks.size(); ++k) {
      const size_t first = size_t(plan_.send_offsets[k]) * entry_, last = size_t(plan_.send_offsets[k + 1]) * entry_;
      if (first == last) continue;
      Kokkos::parallel_for("trellis::halo::pack_to_peer", trellis::RangePolicy<execution_space>(space, first, last),
                           detail::PackTo<Scalar, Device>{peers_.target(k), first, x, send_map_});
    }
    space.fence();  // the writes are complete before the receivers hear so
    peers_.post_ready();
  }

  using index_view = Kokkos::View<size_t*, Device>;
  using value_view = Kokkos::View<Scalar*, Device>;
  using staged_view_type = Kokkos::View<Scalar*, detail::staging_space>;

  static value_view view(const std::string& label, size_t n) { return value_view(label, n); }
  static staged_view_type staged_view(const std::string& label, size_t n) { return staged_view_type(label, n); }

  /// The pre-mapping: buffer position t -> index in a column-stacked vector
  /// of `rows` rows per column. Neighbour k's part holds its count_k blocks
  /// for column 0, then column 1, ...: one contiguous message per neighbour.
  static index_view make_map(const std::vector<offset_t>& offsets, const std::vector<ordinal_t>& blocks, int b,
                             int columns, ordinal_t rows, const char* what) {
    const size_t n = blocks.size() * size_t(b) * size_t(columns);
    index_view map(std::string("trellis::halo::") + what, n);
    const auto host = Kokkos::create_mirror_view(map);
    size_t t = 0;
    for (size_t k = 0; k + 1 < offsets.size(); ++k)
      for (int j = 0; j < columns; ++j)
        for (offset_t p = offsets[k]; p < offsets[k + 1]; ++p)
          for (int e = 0; e < b; ++e) host(t++) = size_t(j) * size_t(rows) + size_t(blocks[size_t(p)]) * b + e;
    Kokkos::deep_copy(map, host);
    return map;
  }

  void post() {
#if TRELLIS_ENABLE_MPI
    static_assert(std::is_same_v<Scalar, double>, "halo exchange sends MPI_DOUBLE");
    const bool staged = path_ == HaloPath::host_staged;
    Scalar* recv = staged ? recv_staged_.data() : recv_.data();
    Scalar* send = staged ? send_staged_.data() : send_.data();
    requests_.resize(plan_.recv_ranks.size() + plan_.send_ranks.size());
    size_t q = 0;
    for (size_t k = 0; k < plan_.recv_ranks.size(); ++k) {
      const size_t at = size_t(plan_.recv_offsets[k]) * entry_, n = size_t(plan_.recv_offsets[k + 1]) * entry_ - at;
      MPI_Irecv(recv + at, int(n), MPI_DOUBLE, plan_.recv_ranks[k], tag, comm_.mpi_comm(), &requests_[q++]);
    }
    for (size_t k = 0; k < plan_.send_ranks.size(); ++k) {
      const size_t at = size_t(plan_.send_offsets[k]) * entry_, n = size_t(plan_.send_offsets[k + 1]) * entry_ - at;
      MPI_Isend(send + at, int(n), MPI_DOUBLE, plan_.send_ranks[k], tag, comm_.mpi_comm(), &requests_[q++]);
    }
#endif
  }

  static constexpr int tag = 4101;
  Communicator comm_;
  HaloPlan plan_;
  ordinal_t local_rows_ = 0, ghost_rows_ = 0;
  size_t entry_ = 0;  // Scalars per block per exchange: s * b
  HaloPath path_ = HaloPath::none;
  PeerWindow peers_;  // open for peer_writes
  value_view ghosts_, send_, recv_;
  index_view send_map_, recv_map_;
  staged_view_type send_staged_, recv_staged_;
#if TRELLIS_ENABLE_MPI
  std::vector<MPI_Request> requests_;
#endif
};

}  // namespace trellis::distributed
