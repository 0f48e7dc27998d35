// event_trace: a Kokkos Tools library that lists, in order and with host
// timestamps, every kernel launch, deep copy, allocation and deallocation
// inside the last run of one profiling region, and prints that list when
// Kokkos finalizes. It does not synchronize: a launch costs what the host
// sees, and a wait for the device shows up in the event that blocks (on
// CUDA with Kokkos 3.4, every device allocation copies its header with a
// blocking cudaMemcpy, and every free is a cudaFree; both wait for the
// kernels before them). Use it to see where a setup's time goes.
//
//   KOKKOS_PROFILE_LIBRARY=perf_tests/libtrellis_event_trace.so ./solve_bench --problems ...
//   TRELLIS_TRACE_REGION=NAME  the region traced (default trellis::dd::setup)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct Event {
  clock_type::time_point at;
  std::string what;
};

std::string region = "trellis::dd::setup";
int depth_inside = 0;  // > 0 while inside the traced region
std::vector<Event> current, last;
clock_type::time_point region_start, last_start, last_end;

void record(std::string what) {
  if (depth_inside > 0) current.push_back({clock_type::now(), std::move(what)});
}

double us(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

}  // namespace

extern "C" {

struct SpaceHandle {
  char name[64];
};

void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {
  if (const char* r = std::getenv("TRELLIS_TRACE_REGION")) region = r;
}

void kokkosp_finalize_library() {
  if (last.empty()) {
    std::fprintf(stderr, "\n== event_trace: region '%s' never ran ==\n", region.c_str());
    return;
  }
  std::fprintf(stderr,
               "\n== event_trace: last run of '%s', %.1f us, %zu events (us since start, us since the previous) ==\n",
               region.c_str(), us(last_start, last_end), last.size());
  clock_type::time_point prev = last_start;
  for (const auto& e : last) {
    std::fprintf(stderr, "%9.1f %8.1f  %s\n", us(last_start, e.at), us(prev, e.at), e.what.c_str());
    prev = e.at;
  }
  std::fprintf(stderr, "%9.1f %8.1f  (end)\n", us(last_start, last_end), us(prev, last_end));
}

void kokkosp_push_profile_region(const char* name) {
  if (depth_inside > 0) {
    ++depth_inside;
    record(std::string("region ") + name);
  } else if (region == name) {
    depth_inside = 1;
    current.clear();
    region_start = clock_type::now();
  }
}

void kokkosp_pop_profile_region() {
  if (depth_inside == 0) return;
  if (--depth_inside == 0) {
    last_start = region_start;
    last_end = clock_type::now();
    last.swap(current);
  } else {
    record("end region");
  }
}

void kokkosp_begin_parallel_for(const char* name, const uint32_t, uint64_t*) { record(std::string("for    ") + name); }
void kokkosp_end_parallel_for(const uint64_t) { record("  launched"); }
void kokkosp_begin_parallel_scan(const char* name, const uint32_t, uint64_t*) { record(std::string("scan   ") + name); }
void kokkosp_end_parallel_scan(const uint64_t) { record("  launched"); }
void kokkosp_begin_parallel_reduce(const char* name, const uint32_t, uint64_t*) {
  record(std::string("reduce ") + name);
}
void kokkosp_end_parallel_reduce(const uint64_t) { record("  done"); }

void kokkosp_begin_deep_copy(SpaceHandle dst, const char* dst_name, const void*, SpaceHandle src, const char* src_name,
                             const void*, uint64_t size) {
  record(std::string("copy   ") + src.name + " " + src_name + " -> " + dst.name + " " + dst_name + " (" +
         std::to_string(size) + " B)");
}
void kokkosp_end_deep_copy() { record("  copied"); }

void kokkosp_allocate_data(SpaceHandle space, const char* name, const void*, uint64_t size) {
  record(std::string("alloc  ") + space.name + " " + name + " (" + std::to_string(size) + " B)");
}
void kokkosp_deallocate_data(SpaceHandle space, const char* name, const void*, uint64_t size) {
  record(std::string("free   ") + space.name + " " + name + " (" + std::to_string(size) + " B)");
}

}  // extern "C"
