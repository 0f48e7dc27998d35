#pragma once
// A halo exchange without MPI on the data path: each rank's receive buffer
// is device memory that its neighbours map into their own address space
// (CUDA IPC, handles exchanged once) and write with their pack kernel, so an
// exchange is one kernel and two empty MPI messages per neighbour instead
// of a device-to-host copy, an MPI message through host memory and a
// host-to-device copy. For an MPI that is not CUDA-aware (the GPU machines'
// Open MPI) this is the only way to keep the halo on the GPUs.
//
// Protocol per exchange, for sender S and receiver R (empty messages on a
// communicator of its own, so no other traffic can match them):
//   S: acquire_targets() waits for R's "free" token of the previous exchange
//      (none before the first), writes R's buffer, fences, post_ready();
//   R: wait_ready() waits for S's "ready" token, unpacks, fences, release()
//      sends S the "free" token that the next acquire_targets() waits for.
// Every wait is for a message that the peer sends before it waits on
// anything itself, so the exchange cannot deadlock when all ranks call
// start/finish the same number of times (the collective contract of
// HaloExchange).
//
// Available with the CUDA backend and MPI when every rank of the
// communicator is on one node and every pair of neighbours can map each
// other's memory; the ranks agree, so either all use it or none.
#include <cstddef>
#include <memory>
#include <string>

#include "trellis/distributed/communicator.hpp"
#include "trellis/distributed/halo_plan.hpp"

namespace trellis::distributed {

class PeerWindow {
 public:
  /// Not open.
  PeerWindow() = default;
  /// Collective over comm. Allocates this rank's receive buffer of
  /// plan.recv_count() * entry doubles in device memory, exports it to the
  /// ranks that send to it and maps the buffers of the ranks it sends to.
  /// When any rank cannot, no rank's window is open (reason() says why on
  /// the ranks that could not); nothing is thrown.
  PeerWindow(const Communicator& comm, const HaloPlan& plan, std::size_t entry);

  bool open() const { return state_ != nullptr; }
  const std::string& reason() const { return reason_; }

  /// This rank's receive buffer: the part from plan.recv_ranks[k] at
  /// [recv_offsets[k] * entry, recv_offsets[k + 1] * entry).
  double* receive_buffer() const;
  /// Where this rank's part for plan.send_ranks[k] goes in that rank's
  /// receive buffer (mapped here; written by this rank's kernels).
  double* target(std::size_t k) const;

  void acquire_targets();  // before writing the targets
  void post_ready();       // after the writes are complete
  void wait_ready();       // before reading the receive buffer
  void release();          // after the reads are complete

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::string reason_;
};

}  // namespace trellis::distributed
