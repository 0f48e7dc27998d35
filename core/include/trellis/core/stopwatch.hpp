#pragma once
// Wall-clock seconds for setup reports and benchmarks (host time: fence the
// execution space first when device work is to be counted), and named
// Kokkos Tools regions around setups (perf_tests/tools/event_trace lists what
// runs inside one).
#include <Kokkos_Core.hpp>

#include <chrono>

namespace trellis {

using time_point = std::chrono::steady_clock::time_point;

inline time_point now() { return std::chrono::steady_clock::now(); }

/// Seconds from t0 to now.
inline double seconds_since(time_point t0) { return std::chrono::duration<double>(now() - t0).count(); }

/// A Kokkos Tools profiling region for the lifetime of the object.
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const char* name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

}  // namespace trellis
