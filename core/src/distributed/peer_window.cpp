#include "trellis/distributed/peer_window.hpp"

#include <Kokkos_Macros.hpp>  // KOKKOS_ENABLE_CUDA

#include "trellis/core/errors.hpp"

#if TRELLIS_ENABLE_MPI && defined(KOKKOS_ENABLE_CUDA)
#define TRELLIS_PEER_WINDOWS 1
#else
#define TRELLIS_PEER_WINDOWS 0
#endif
#if TRELLIS_PEER_WINDOWS
#include <cuda_runtime.h>

#include <chrono>
#include <thread>
#include <vector>
#endif

namespace trellis::distributed {

#if TRELLIS_PEER_WINDOWS

struct PeerWindow::State {
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate: the tokens match nothing else
  std::vector<int> send_ranks, recv_ranks;
  double* buffer = nullptr;           // this rank's receive buffer (cudaMalloc: its IPC handle maps it whole)
  std::vector<void*> mapped;          // the send neighbours' buffers, as mapped here
  std::vector<double*> targets;       // this rank's part in each of them
  std::vector<MPI_Request> receives;  // tokens awaited
  std::vector<MPI_Request> sends;     // tokens sent, not yet known complete
  std::vector<MPI_Request> ready;     // this exchange's "ready" tokens

  ~State() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
      // The last exchange's "free" tokens come as the neighbours finish it;
      // receive them, or a later communicator reusing this one's context id
      // could match them. Only a rank that left an exchange half done (an
      // exception between start and finish) keeps them away: then give up
      // after a while rather than hang.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      int done = 0;
      while (!receives.empty() && !done && std::chrono::steady_clock::now() < deadline) {
        MPI_Testall(int(receives.size()), receives.data(), &done, MPI_STATUSES_IGNORE);
        if (!done) std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
      for (auto* list : {&receives, &ready})
        for (MPI_Request& r : *list)
          if (r != MPI_REQUEST_NULL) {
            MPI_Cancel(&r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
          }
      for (MPI_Request& r : sends)
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    }
    for (void* p : mapped)
      if (p != nullptr) cudaIpcCloseMemHandle(p);
    if (buffer != nullptr) cudaFree(buffer);
    cudaGetLastError();  // nothing of this teardown may poison later CUDA calls
    if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  void wait_all(std::vector<MPI_Request>& list) {
    MPI_Waitall(int(list.size()), list.data(), MPI_STATUSES_IGNORE);
    list.clear();
  }
  void post(const std::vector<int>& ranks, int tag, bool receive, std::vector<MPI_Request>& into) {
    for (const int rank : ranks) {
      into.emplace_back();
      if (receive)
        MPI_Irecv(nullptr, 0, MPI_BYTE, rank, tag, comm, &into.back());
      else
        MPI_Isend(nullptr, 0, MPI_BYTE, rank, tag, comm, &into.back());
    }
  }
};

namespace {
constexpr int handle_tag = 1, ready_tag = 2, free_tag = 3;

struct Export {  // what a receiver tells each of its senders, once
  cudaIpcMemHandle_t handle;
  unsigned long long offset;  // the sender's part in the buffer, in doubles
  int usable;
};

std::string cuda_problem(const char* what, cudaError_t e) {
  cudaGetLastError();  // not sticky: clear it for Kokkos' own checks
  return std::string(what) + ": " + cudaGetErrorString(e);
}
}  // namespace

PeerWindow::PeerWindow(const Communicator& comm, const HaloPlan& plan, std::size_t entry) {
  if (comm.single_process()) {
    reason_ = "one process";
    return;
  }
  if (!plan.consistent()) throw StructureError("peer window: inconsistent plan offsets");
  auto st = std::make_shared<State>();
  MPI_Comm_dup(comm.mpi_comm(), &st->comm);
  st->send_ranks = plan.send_ranks;
  st->recv_ranks = plan.recv_ranks;

  std::string why;
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(st->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  if (node_size != comm.size()) why = "the ranks are on more than one node";

  const std::size_t n = plan.recv_count() * entry;
  if (why.empty() && n > 0) {
    const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&st->buffer), n * sizeof(double));
    if (e != cudaSuccess) why = cuda_problem("allocating the receive buffer", e), st->buffer = nullptr;
  }
  Export mine{};
  mine.usable = why.empty() ? 1 : 0;
  if (mine.usable && n > 0) {
    const cudaError_t e = cudaIpcGetMemHandle(&mine.handle, st->buffer);
    if (e != cudaSuccess) why = cuda_problem("exporting the receive buffer", e), mine.usable = 0;
  }
  std::vector<Export> exports(plan.recv_ranks.size(), mine), imports(plan.send_ranks.size());
  std::vector<MPI_Request> requests;
  for (std::size_t k = 0; k < plan.recv_ranks.size(); ++k) {
    exports[k].offset = static_cast<unsigned long long>(plan.recv_offsets[k]) * entry;
    requests.emplace_back();
    MPI_Isend(&exports[k], int(sizeof(Export)), MPI_BYTE, plan.recv_ranks[k], handle_tag, st->comm, &requests.back());
  }
  for (std::size_t k = 0; k < plan.send_ranks.size(); ++k) {
    requests.emplace_back();
    MPI_Irecv(&imports[k], int(sizeof(Export)), MPI_BYTE, plan.send_ranks[k], handle_tag, st->comm, &requests.back());
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

  st->mapped.assign(plan.send_ranks.size(), nullptr);
  st->targets.assign(plan.send_ranks.size(), nullptr);
  int failed = why.empty() ? 0 : 1;
  for (std::size_t k = 0; k < imports.size() && !failed; ++k) {
    if (!imports[k].usable) {
      failed = 1;  // that rank says why
      break;
    }
    if (plan.send_offsets[k + 1] == plan.send_offsets[k]) continue;
    const cudaError_t e = cudaIpcOpenMemHandle(&st->mapped[k], imports[k].handle, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
      st->mapped[k] = nullptr;
      why = cuda_problem(("mapping rank " + std::to_string(plan.send_ranks[k]) + "'s receive buffer").c_str(), e);
      failed = 1;
      break;
    }
    st->targets[k] = static_cast<double*>(st->mapped[k]) + imports[k].offset;
  }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, st->comm);
  if (failed) {
    reason_ = why.empty() ? "another rank could not share its memory" : why;
    return;  // st's destructor unmaps and frees
  }
  state_ = std::move(st);
}

double* PeerWindow::receive_buffer() const { return state_ ? state_->buffer : nullptr; }
double* PeerWindow::target(std::size_t k) const { return state_ ? state_->targets.at(k) : nullptr; }

void PeerWindow::acquire_targets() {
  if (!state_) return;
  State& s = *state_;
  s.wait_all(s.receives);  // the receivers' "free" of the previous exchange
  s.wait_all(s.sends);
  s.post(s.recv_ranks, ready_tag, true, s.ready);
}

void PeerWindow::post_ready() {
  if (!state_) return;
  State& s = *state_;
  s.post(s.send_ranks, ready_tag, false, s.sends);
  s.post(s.send_ranks, free_tag, true, s.receives);
}

void PeerWindow::wait_ready() {
  if (state_) state_->wait_all(state_->ready);
}

void PeerWindow::release() {
  if (state_) state_->post(state_->recv_ranks, free_tag, false, state_->sends);
}

#else  // no CUDA or no MPI: never open

struct PeerWindow::State {};

PeerWindow::PeerWindow(const Communicator&, const HaloPlan&, std::size_t) {
  reason_ = "peer windows need the CUDA backend and MPI";
}
double* PeerWindow::receive_buffer() const { return nullptr; }
double* PeerWindow::target(std::size_t) const { return nullptr; }
void PeerWindow::acquire_targets() {}
void PeerWindow::post_ready() {}
void PeerWindow::wait_ready() {}
void PeerWindow::release() {}

#endif

}  // namespace trellis::distributed
