#pragma once
// Work arrays an object keeps for its const operations (apply, solve), made
// safe for several callers at once: a call claims the object's workspace for
// its duration; a call that finds it claimed by another thread takes a
// private one instead (an allocation, the rare case), so no two calls ever
// share arrays. On GPUs a call returns before its kernels finish: a claim
// from another execution-space instance (stream) than the last one first
// waits for that instance, so the arrays are not overwritten under it.
#include <Kokkos_Core.hpp>
#include <atomic>
#include <memory>
#include <utility>

#include "trellis/core/backend.hpp"

namespace trellis {

/// Exec: the execution space; Work: the arrays (a copyable struct of Views).
template <class Exec, class Work>
class SharedWorkspace {
  struct State {
    Work work;
    std::atomic<bool> busy{false};
    Exec last;  // the instance of the last call that held `work`
  };

 public:
  SharedWorkspace() = default;
  explicit SharedWorkspace(Work work) : state_(std::make_shared<State>()) { state_->work = std::move(work); }

  /// The arrays for one call: the object's, or private ones.
  class Lease {
   public:
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (!shared_) return;
      shared_->last = space_;
      shared_->busy.store(false, std::memory_order_release);
    }
    Work& operator*() { return shared_ ? shared_->work : own_; }
    Work* operator->() { return &**this; }
    bool is_private() const { return shared_ == nullptr; }

   private:
    friend class SharedWorkspace;
    Lease(State* shared, Exec space, Work own) : shared_(shared), space_(std::move(space)), own_(std::move(own)) {}
    State* shared_;
    Exec space_;
    Work own_;
  };

  /// Claims the arrays for a call on `space`; make_private() builds a fresh
  /// set when another call holds them.
  template <class MakePrivate>
  Lease claim(const Exec& space, MakePrivate&& make_private) const {
    if (state_ && !state_->busy.exchange(true, std::memory_order_acquire)) {
      if (!detail::same_instance(state_->last, space)) state_->last.fence();
      return Lease(state_.get(), space, Work{});
    }
    return Lease(nullptr, space, make_private());
  }

  /// The object's arrays (setup only: no call may hold them).
  Work& unclaimed() { return state_->work; }

 private:
  std::shared_ptr<State> state_;  // shared by copies of the owner, like its Views
};

}  // namespace trellis
