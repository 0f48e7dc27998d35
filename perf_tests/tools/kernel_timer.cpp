// kernel_timer: a Kokkos Tools library that times every kernel and deep copy
// by name and prints the totals, largest first, when Kokkos finalizes. It
// waits for the device before and after each one (so the times are exclusive
// and include the launch), which slows the program: use it to find where a
// setup or a solve spends its time, not to measure a speedup.
//
//   KOKKOS_PROFILE_LIBRARY=perf_tests/libtrellis_kernel_timer.so ./solve_bench --problems ...
//   TRELLIS_KERNEL_TIMER_TOP=N  rows printed (default 40)
//
// On CUDA it synchronizes through the driver (libcuda's cuCtxSynchronize,
// looked up at run time), so it links nothing of CUDA's; on host backends the
// kernels are already synchronous.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct Totals {
  double seconds = 0;
  long calls = 0;
};

struct Open {
  std::string name;
  clock_type::time_point start;
};

std::map<std::string, Totals> totals;
std::vector<Open> open;  // kernels begun and not ended (Kokkos nests none, but a deep copy may sit inside a region)
int (*device_sync)() = nullptr;

void sync() {
  if (device_sync) device_sync();
}

uint64_t begin(const std::string& name) {
  sync();
  open.push_back({name, clock_type::now()});
  return open.size() - 1;
}

void end() {
  sync();
  if (open.empty()) return;
  const Open o = open.back();
  open.pop_back();
  Totals& t = totals[o.name];
  t.seconds += std::chrono::duration<double>(clock_type::now() - o.start).count();
  ++t.calls;
}

}  // namespace

extern "C" {

struct SpaceHandle {
  char name[64];
};

void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD))
    device_sync = reinterpret_cast<int (*)()>(dlsym(cuda, "cuCtxSynchronize"));
  else if (void* cuda2 = dlopen("libcuda.so.1", RTLD_NOW))
    device_sync = reinterpret_cast<int (*)()>(dlsym(cuda2, "cuCtxSynchronize"));
}

void kokkosp_finalize_library() {
  std::vector<std::pair<std::string, Totals>> rows(totals.begin(), totals.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double all = 0;
  for (const auto& r : rows) all += r.second.seconds;
  const char* top_env = std::getenv("TRELLIS_KERNEL_TIMER_TOP");
  const size_t top = top_env ? size_t(std::atol(top_env)) : 40;
  std::fprintf(stderr, "\n== kernel_timer: %.4f s in %zu kernel and copy names (synchronized each) ==\n", all,
               rows.size());
  std::fprintf(stderr, "%12s %8s %12s  %s\n", "total s", "calls", "per call us", "name");
  for (size_t k = 0; k < rows.size() && k < top; ++k)
    std::fprintf(stderr, "%12.6f %8ld %12.1f  %s\n", rows[k].second.seconds, rows[k].second.calls,
                 1e6 * rows[k].second.seconds / double(rows[k].second.calls), rows[k].first.c_str());
}

void kokkosp_begin_parallel_for(const char* name, const uint32_t, uint64_t* id) { *id = begin(name); }
void kokkosp_end_parallel_for(const uint64_t) { end(); }
void kokkosp_begin_parallel_scan(const char* name, const uint32_t, uint64_t* id) { *id = begin(name); }
void kokkosp_end_parallel_scan(const uint64_t) { end(); }
void kokkosp_begin_parallel_reduce(const char* name, const uint32_t, uint64_t* id) { *id = begin(name); }
void kokkosp_end_parallel_reduce(const uint64_t) { end(); }

void kokkosp_begin_deep_copy(SpaceHandle dst, const char*, const void*, SpaceHandle src, const char*, const void*,
                             uint64_t) {
  begin(std::string("deep_copy ") + src.name + " -> " + dst.name);
}
void kokkosp_end_deep_copy() { end(); }

}  // extern "C"
