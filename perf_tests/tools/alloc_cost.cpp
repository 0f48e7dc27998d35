// alloc_cost: what one device View allocation and one free cost here, by
// size (median of 20 of each, after a fence; Kokkos 3.4 on CUDA: cudaMalloc
// plus a blocking copy of the View's header, then cudaFree). Sizes the
// ViewArena's chunks.
//
//   alloc_cost [BYTES ...]
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<size_t> sizes{4096, 65536, 262144, 524288, 1048576, 2097152, 4194304, 16777216};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  }
  using View = Kokkos::View<char*, Kokkos::DefaultExecutionSpace::memory_space>;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("%12s %12s %12s\n", "bytes", "alloc us", "free us");
  for (size_t bytes : sizes) {
    std::vector<double> alloc, free;
    for (int r = 0; r < 21; ++r) {
      Kokkos::fence();
      Kokkos::Timer t;
      View v(Kokkos::ViewAllocateWithoutInitializing("alloc_cost"), bytes);
      alloc.push_back(1e6 * t.seconds());
      t.reset();
      v = View();
      free.push_back(1e6 * t.seconds());
    }
    std::printf("%12zu %12.1f %12.1f\n", bytes, median(alloc), median(free));
  }
  return 0;
}
