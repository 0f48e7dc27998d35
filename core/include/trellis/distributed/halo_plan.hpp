#pragma once
// What a distributed operator exchanges before each y = A x: which entries of
// its own part of x every neighbour needs (send), and where the entries it
// needs from its neighbours land (receive). Data only, no communication yet:
// a later issue fills and executes it for the Kronecker GMRES.
//
// Layout (the usual CSR-of-neighbours form): neighbour k of the send side is
// process send_ranks[k]; the local indices it gets are
// send_indices[send_offsets[k] .. send_offsets[k + 1]), sent in that order.
// The receive side is the same with recv_*: the values from recv_ranks[k]
// are written, in the order sent, to recv_indices[recv_offsets[k] ..
// recv_offsets[k + 1]) of the local ghost (halo) part of x.
#include <cstddef>
#include <vector>

#include "trellis/core/types.hpp"
#include "trellis/distributed/communicator.hpp"

namespace trellis::distributed {

struct HaloPlan {
  std::vector<int> send_ranks;          // neighbours this process sends to
  std::vector<offset_t> send_offsets;   // send_ranks.size() + 1 entries, from 0
  std::vector<ordinal_t> send_indices;  // local rows whose x entries are sent
  std::vector<int> recv_ranks;          // neighbours this process receives from
  std::vector<offset_t> recv_offsets;   // recv_ranks.size() + 1 entries, from 0
  std::vector<ordinal_t> recv_indices;  // where received entries go in x's halo

  std::size_t send_count() const { return send_indices.size(); }
  std::size_t recv_count() const { return recv_indices.size(); }
  /// The single process (or a process with no neighbours): nothing to exchange.
  bool empty() const { return send_ranks.empty() && recv_ranks.empty(); }
  /// The offsets have one more entry than the ranks, start at 0, never
  /// decrease and end at the index count.
  bool consistent() const {
    return offsets_fit(send_ranks.size(), send_offsets, send_indices.size()) &&
           offsets_fit(recv_ranks.size(), recv_offsets, recv_indices.size());
  }

 private:
  static bool offsets_fit(std::size_t ranks, const std::vector<offset_t>& offsets, std::size_t count) {
    if (ranks == 0 && offsets.empty()) return count == 0;
    if (offsets.size() != ranks + 1 || offsets.front() != 0 || std::size_t(offsets.back()) != count) return false;
    for (std::size_t k = 0; k < ranks; ++k)
      if (offsets[k + 1] < offsets[k]) return false;
    return true;
  }
};

/// The plan of a block-row distribution, in block units: this rank owns the
/// global block rows [offsets[rank], offsets[rank + 1]) (offsets has
/// comm.size() + 1 entries, the same on every rank), and its rows reference
/// the global block columns `ghosts` of other ranks (ascending, no
/// duplicates). recv_indices are ghost slots (position in `ghosts`),
/// send_indices local block rows. Collective; a ghost outside the matrix, on
/// this rank or out of order is an InputError thrown on every rank.
HaloPlan make_halo_plan(const Communicator& comm, const std::vector<ordinal_t>& offsets,
                        const std::vector<ordinal_t>& ghosts);

}  // namespace trellis::distributed
