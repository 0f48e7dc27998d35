#pragma once
// Arrays cut out of a few large allocations. With Kokkos 3.4 on CUDA every
// View allocation is a cudaMalloc followed by a blocking copy of the View's
// header, which also waits for every kernel launched before it, and every
// free is a cudaFree: about 20 us each on the H100, so a setup that makes
// fifty small arrays spent more time allocating than computing (the
// event_trace of a 1000-row DD setup). A ViewArena hands out managed
// subviews of one chunk per element type: a chunk lives as long as any array
// cut from it, so the arena itself may go out of scope at once. Arrays of
// more than a quarter of a chunk get an allocation of their own, so that a
// large temporary is still freed when its last view goes. Chunks are 256 KB:
// on the H100 an allocation up to 256 KB took 16 us and its free 3 us, one
// of 384 KB or more 60-70 us and 40 us (perf_tests/tools/alloc_cost).
//
//   ViewArena<Device> arena;
//   Kokkos::View<int*, Device> a = arena.take<int>("rows", n);  // uninitialized
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <tuple>
#include <utility>

namespace trellis {

template <class Device>
class ViewArena {
 public:
  static constexpr size_t default_chunk_bytes = size_t(256) << 10;
  explicit ViewArena(size_t chunk_bytes = default_chunk_bytes) : chunk_bytes_(chunk_bytes) {}
  ViewArena(const ViewArena&) = delete;
  ViewArena& operator=(const ViewArena&) = delete;

  /// n uninitialized elements of T (int, std::int64_t or double); `label`
  /// names an array that gets its own allocation.
  template <class T>
  Kokkos::View<T*, Device> take(const char* label, size_t n) {
    constexpr size_t align = 128 / sizeof(T);  // each array starts 128 bytes on from the last
    const size_t chunk_len = chunk_bytes_ / sizeof(T);
    const size_t len = (n + align - 1) / align * align;
    if (len > chunk_len / 4) return Kokkos::View<T*, Device>(Kokkos::ViewAllocateWithoutInitializing(label), n);
    Pool<T>& p = std::get<Pool<T>>(pools_);
    if (p.chunk.extent(0) - p.used < len) {
      p.chunk = Kokkos::View<T*, Device>(Kokkos::ViewAllocateWithoutInitializing("trellis_arena_chunk"), chunk_len);
      p.used = 0;
    }
    Kokkos::View<T*, Device> piece = Kokkos::subview(p.chunk, std::make_pair(p.used, p.used + n));
    p.used += len;
    return piece;
  }

 private:
  template <class T>
  struct Pool {
    Kokkos::View<T*, Device> chunk;
    size_t used = 0;
  };
  std::tuple<Pool<int>, Pool<std::int64_t>, Pool<double>> pools_;
  size_t chunk_bytes_;
};

}  // namespace trellis
