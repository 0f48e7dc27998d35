#pragma once
// Arrays cut out of a few large allocations. With Kokkos 3.4 on CUDA every
// View allocation is a cudaMalloc followed by a blocking copy of the View's
// header, which also waits for every kernel launched before it, and every
// free is a cudaFree: a setup that made many small arrays spent more time
// allocating than computing (costs in perf_tests/journal/RESULTS.md).
//
// A ViewArena hands out managed subviews of chunks, one pool of chunks per
// element type and lifetime: a chunk lives as long as any array cut from it
// (and the arena), so arrays `kept` by a result never share a chunk with
// `temporary` ones, which go when the arena and their last view go. Small
// arrays share 256 KB chunks; reserve() makes one chunk for a group of
// arrays whose sizes are known together; any other array of more than a
// quarter of a chunk gets an allocation of its own.
//
//   ViewArena<Device> arena;
//   arena.reserve<int>(ViewArena<Device>::kept, n, m);   // one allocation for both
//   auto a = arena.take<int>("a", n);                      // uninitialized
//   auto b = arena.take<int>("b", m);
//   auto t = arena.take<double>("t", n, ViewArena<Device>::temporary);
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

namespace trellis {

template <class Device>
class ViewArena {
 public:
  enum Lifetime { kept = 0, temporary = 1 };
  static constexpr size_t default_chunk_bytes = size_t(256) << 10;

  explicit ViewArena(size_t chunk_bytes = default_chunk_bytes) : chunk_bytes_(chunk_bytes) {}
  ViewArena(const ViewArena&) = delete;
  ViewArena& operator=(const ViewArena&) = delete;

  /// n uninitialized elements of T (int, std::int64_t or double); `label`
  /// names an array that gets its own allocation.
  template <class T>
  Kokkos::View<T*, Device> take(const char* label, size_t n, Lifetime life = kept) {
    Pool<T>& p = pool<T>(life);
    const size_t len = padded<T>(n);
    if (p.room() < len) {
      if (len > chunk_bytes_ / sizeof(T) / 4)
        return Kokkos::View<T*, Device>(Kokkos::ViewAllocateWithoutInitializing(label), n);
      p.start(chunk_bytes_ / sizeof(T));
    }
    Kokkos::View<T*, Device> piece = Kokkos::subview(p.chunk, std::make_pair(p.used, p.used + n));
    p.used += len;
    return piece;
  }

  /// Room for arrays of these sizes, taken next with the same lifetime, in
  /// one allocation (unless the current chunk has it already).
  template <class T, class... Sizes>
  void reserve(Lifetime life, Sizes... n) {
    Pool<T>& p = pool<T>(life);
    const size_t total = (padded<T>(size_t(n)) + ...);
    if (p.room() < total) p.start(std::max(total, chunk_bytes_ / sizeof(T)));
  }

 private:
  template <class T>
  static size_t padded(size_t n) {
    constexpr size_t align = 128 / sizeof(T);  // each array starts 128 bytes on from the last
    return (n + align - 1) / align * align;
  }
  template <class T>
  struct Pool {
    Kokkos::View<T*, Device> chunk;
    size_t used = 0;
    size_t room() const { return chunk.extent(0) - used; }
    void start(size_t len) {
      chunk = Kokkos::View<T*, Device>(Kokkos::ViewAllocateWithoutInitializing("trellis::arena_chunk"), len);
      used = 0;
    }
  };
  template <class T>
  Pool<T>& pool(Lifetime life) {
    return life == kept ? std::get<Pool<T>>(kept_) : std::get<Pool<T>>(temporary_);
  }
  using Pools = std::tuple<Pool<int>, Pool<std::int64_t>, Pool<double>>;
  Pools kept_, temporary_;
  size_t chunk_bytes_;
};

}  // namespace trellis
