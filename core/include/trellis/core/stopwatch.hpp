#pragma once
// Wall-clock seconds for setup reports and benchmarks (host time: fence the
// execution space first when device work is to be counted).
#include <chrono>

namespace trellis {

using time_point = std::chrono::steady_clock::time_point;

inline time_point now() { return std::chrono::steady_clock::now(); }

/// Seconds from t0 to now.
inline double seconds_since(time_point t0) { return std::chrono::duration<double>(now() - t0).count(); }

}  // namespace trellis
