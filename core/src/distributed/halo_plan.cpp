#include "trellis/distributed/halo_plan.hpp"

#include <algorithm>
#include <string>

#include "trellis/distributed/agreement.hpp"

namespace trellis::distributed {

HaloPlan make_halo_plan(const Communicator& comm, const std::vector<ordinal_t>& offsets,
                        const std::vector<ordinal_t>& ghosts) {
  const int P = comm.size(), me = comm.rank();
  std::string error;
  if (offsets.size() != size_t(P) + 1)
    error = "halo plan: " + std::to_string(offsets.size()) + " row offsets for " + std::to_string(P) + " ranks";
  for (size_t g = 0; error.empty() && g < ghosts.size(); ++g) {
    const ordinal_t c = ghosts[g];
    if (c < 0 || c >= offsets.back())
      error = "halo plan: ghost block column " + std::to_string(c) + " outside the matrix's " +
              std::to_string(offsets.back()) + " block columns";
    else if (c >= offsets[size_t(me)] && c < offsets[size_t(me) + 1])
      error = "halo plan: ghost block column " + std::to_string(c) + " is owned by this rank";
    else if (g > 0 && ghosts[g - 1] >= c)
      error = "halo plan: ghost block columns not ascending at position " + std::to_string(g);
  }
  throw_if_any_rank_failed(comm, error);

  HaloPlan plan;
  std::vector<int> need(size_t(P), 0);  // ghosts owned by each rank, in ghost order
  for (const ordinal_t c : ghosts) {
    const int owner = int(std::upper_bound(offsets.begin(), offsets.end(), c) - offsets.begin()) - 1;
    ++need[size_t(owner)];
  }
  plan.recv_offsets.push_back(0);
  for (int r = 0; r < P; ++r)
    if (need[size_t(r)] > 0) {
      plan.recv_ranks.push_back(r);
      plan.recv_offsets.push_back(plan.recv_offsets.back() + need[size_t(r)]);
    }
  for (size_t g = 0; g < ghosts.size(); ++g) plan.recv_indices.push_back(ordinal_t(g));
  if (plan.recv_ranks.empty()) plan.recv_offsets.clear();
  if (P == 1) return plan;

#if TRELLIS_ENABLE_MPI
  // Each owner learns which of its rows the others need: counts, then indices.
  std::vector<int> give(size_t(P), 0);
  MPI_Alltoall(need.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm.mpi_comm());
  std::vector<int> need_at(size_t(P), 0), give_at(size_t(P), 0);
  for (int r = 1; r < P; ++r) {
    need_at[size_t(r)] = need_at[size_t(r) - 1] + need[size_t(r) - 1];
    give_at[size_t(r)] = give_at[size_t(r) - 1] + give[size_t(r) - 1];
  }
  std::vector<ordinal_t> wanted(size_t(give_at.back() + give.back()));
  static_assert(sizeof(ordinal_t) == sizeof(int), "ordinal_t travels as MPI_INT");
  MPI_Alltoallv(ghosts.data(), need.data(), need_at.data(), MPI_INT, wanted.data(), give.data(), give_at.data(),
                MPI_INT, comm.mpi_comm());
  plan.send_offsets.push_back(0);
  for (int r = 0; r < P; ++r)
    if (give[size_t(r)] > 0) {
      plan.send_ranks.push_back(r);
      plan.send_offsets.push_back(plan.send_offsets.back() + give[size_t(r)]);
    }
  if (plan.send_ranks.empty()) plan.send_offsets.clear();
  for (const ordinal_t c : wanted) plan.send_indices.push_back(c - offsets[size_t(me)]);
#endif
  return plan;
}

}  // namespace trellis::distributed
