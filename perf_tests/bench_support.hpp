#pragma once
// Shared pieces of the Trellis benchmark drivers: fenced median timing with a
// per-case time budget, the device-to-device copy bandwidth every GB/s figure
// is compared with, the device's name, ordered JSON (nlohmann::ordered_json),
// command-line / manifest helpers, and host <-> device vector copies.
#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench_command_line.hpp"  // split_list
#include "host_vectors.hpp"        // unit_tests/reference: random_vector
#include "trellis/core/errors.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trellis::bench {

// ---------------------------------------------------------------- timing ---

/// Seconds of the timed runs of one case: median (what tables report), min,
/// max, and how many timed runs they come from.
struct Timing {
  double median = 0, min = 0, max = 0;
  int reps = 0;
};

/// How a case is timed: `warmups` untimed runs first, then up to `reps` timed
/// ones; a slow case gets fewer (never under `min_reps`) so that it spends
/// about `max_seconds` in all.
struct TimingPolicy {
  int warmups = 3;
  int reps = 20;
  int min_reps = 3;
  double max_seconds = 1.0;
};

/// Median of a non-empty sample (mean of the middle two for even sizes).
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Runs `run` once between two device fences and returns the host seconds:
/// device work is asynchronous, so the fence after it is part of the time.
inline double fenced_seconds(const std::function<void()>& run) {
  Kokkos::fence();
  Kokkos::Timer timer;
  run();
  Kokkos::fence();
  return timer.seconds();
}

/// Times `run` under `policy`. `prepare`, when given, runs untimed before
/// every run (e.g. to restore an input that `run` overwrites).
inline Timing time_case(const std::function<void()>& run, const TimingPolicy& policy,
                        const std::function<void()>& prepare = {}) {
  auto once = [&] {
    if (prepare) prepare();
    return fenced_seconds(run);
  };
  const double first = once();  // the first warm-up also sizes the case
  const int warmups = first * policy.warmups > policy.max_seconds ? 0 : policy.warmups - 1;
  for (int i = 0; i < warmups; ++i) once();
  const double affordable = first > 0 ? policy.max_seconds / first : double(policy.reps);
  const int floor_reps = std::min(policy.min_reps, policy.reps);
  const int reps = std::max(floor_reps, int(std::min(double(policy.reps), affordable)));
  std::vector<double> t;
  t.reserve(reps);
  for (int i = 0; i < reps; ++i) t.push_back(once());
  Timing out;
  out.median = median_of(t);
  out.min = *std::min_element(t.begin(), t.end());
  out.max = *std::max_element(t.begin(), t.end());
  out.reps = reps;
  return out;
}

// --------------------------------------------------- device and bandwidth ---

/// Device-to-device copy bandwidth in GB/s (bytes read + bytes written over
/// the median time of Kokkos::deep_copy between two Views of `bytes` each):
/// the ceiling every achieved GB/s is reported against.
inline double measure_copy_bandwidth(size_t bytes, int reps = 20) {
  using View = Kokkos::View<double*, Kokkos::DefaultExecutionSpace::memory_space>;
  const size_t n = bytes / sizeof(double);
  View src(Kokkos::ViewAllocateWithoutInitializing("copy_src"), n);
  View dst(Kokkos::ViewAllocateWithoutInitializing("copy_dst"), n);
  // Non-zero data: zeros can run faster than real data.
  Kokkos::parallel_for(
      "trellis::bench::copy_fill", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, n),
      KOKKOS_LAMBDA(size_t i) { src(i) = 1.0 + 1e-7 * double(i % 1000003); });
  TimingPolicy policy;
  policy.reps = reps;
  policy.max_seconds = 1e30;
  const Timing t = time_case([&] { Kokkos::deep_copy(dst, src); }, policy);
  return 2.0 * double(n * sizeof(double)) / t.median / 1e9;
}

/// The execution space's name, and on CUDA the GPU's name as the driver
/// reports it.
inline std::string device_name() {
  std::string name = Kokkos::DefaultExecutionSpace::name();
#if defined(KOKKOS_ENABLE_CUDA)
  int dev = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    name += std::string(" (") + prop.name + ")";
#endif
  return name;
}

// ------------------------------------------------------------------ JSON ---
// Result files are nlohmann::ordered_json documents: keys in the order they
// were set (readable diffs), doubles in the shortest form that reads back as
// the same double, integers as integers. NaN and infinities, which JSON has
// no numbers for, are written as null (nlohmann's rule). Setting a key again
// replaces its value. Bytes that are not UTF-8 (a file name in an error
// message) become U+FFFD instead of an exception.

using Json = nlohmann::ordered_json;

/// The text of a result document: one item a line.
inline std::string json_text(const Json& v) { return v.dump(1, ' ', false, Json::error_handler_t::replace); }

class JsonArray;

/// A JSON object that keeps its keys in insertion order.
class JsonObject {
 public:
  template <class T>
  JsonObject& set(const std::string& key, const T& v) {
    value_[key] = Json(v);
    return *this;
  }
  JsonObject& set(const std::string& key, const JsonObject& v) {
    value_[key] = v.json();
    return *this;
  }
  inline JsonObject& set(const std::string& key, const JsonArray& v);
  bool empty() const { return value_.empty(); }
  const Json& json() const { return value_; }
  std::string str() const { return json_text(value_); }

 private:
  Json value_ = Json::object();
};

/// A JSON array.
class JsonArray {
 public:
  JsonArray& push(const JsonObject& v) {
    value_.push_back(v.json());
    return *this;
  }
  template <class T>
  JsonArray& push(const T& v) {
    value_.push_back(Json(v));
    return *this;
  }
  const Json& json() const { return value_; }
  std::string str() const { return json_text(value_); }

 private:
  Json value_ = Json::array();
};

inline JsonObject& JsonObject::set(const std::string& key, const JsonArray& v) {
  value_[key] = v.json();
  return *this;
}

/// Writes `text` to `path` (whole file); false, with a message, on failure.
inline bool write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text << "\n";
  if (!out) std::fprintf(stderr, "could not write %s\n", path.c_str());
  return bool(out);
}

// -------------------------------------------------------------- helpers ---

/// The number `text` given to option `name`; InputError, naming both, unless
/// the whole text is a number.
inline double parse_number(const std::string& name, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw trellis::InputError(name + " expects a number, got '" + text + "'");
}

/// Geometric mean of the positive finite values (NaN when there are none).
inline double geometric_mean(const std::vector<double>& v) {
  double log_sum = 0;
  int count = 0;
  for (const double x : v)
    if (std::isfinite(x) && x > 0) {
      log_sum += std::log(x);
      ++count;
    }
  return count ? std::exp(log_sum / count) : std::numeric_limits<double>::quiet_NaN();
}

/// Paths of the matrices listed in `dir`/MANIFEST.tsv (first column, header
/// line skipped); empty when the manifest is missing.
inline std::vector<std::string> manifest_matrices(const std::string& dir) {
  std::vector<std::string> out;
  std::ifstream in(dir + "/MANIFEST.tsv");
  std::string line;
  if (!std::getline(in, line)) return out;  // header
  while (std::getline(in, line)) {
    const std::string file = line.substr(0, line.find('\t'));
    if (!file.empty() && file[0] != '#') out.push_back(dir + "/" + file);
  }
  return out;
}

/// The larger real matrices of dir/training/MANIFEST.tsv (gzip-compressed,
/// read through zlib), empty when absent.
inline std::vector<std::string> training_matrices(const std::string& dir) {
  return dir.empty() ? std::vector<std::string>() : manifest_matrices(dir + "/training");
}

// --------------------------------------------------------- device vectors ---

using DeviceVector = Kokkos::View<double*, Kokkos::DefaultExecutionSpace::memory_space>;

/// A device copy of a host vector.
inline DeviceVector to_device_vector(const std::vector<double>& h, const std::string& label) {
  DeviceVector v(Kokkos::ViewAllocateWithoutInitializing(label), h.size());
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(h.data(), h.size());
  Kokkos::deep_copy(v, src);
  return v;
}

/// A host copy of a device vector.
template <class View>
std::vector<double> to_host_vector(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

/// Uniform random values in [-1, 1) from a seed (reference::random_vector),
/// on the device.
inline DeviceVector random_device_vector(size_t n, unsigned seed) {
  return to_device_vector(reference::random_vector(n, seed), "random");
}

/// ||a - b|| / ||b|| computed on the device; infinite when not finite, so
/// NaN never passes a check.
inline double relative_difference(DeviceVector a, DeviceVector b) {
  using policy = Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>;
  double num = 0, den = 0;
  Kokkos::parallel_reduce(
      "trellis::bench::diff", policy(0, a.extent(0)),
      KOKKOS_LAMBDA(size_t i, double& s) { s += (a(i) - b(i)) * (a(i) - b(i)); }, num);
  Kokkos::parallel_reduce(
      "trellis::bench::norm", policy(0, b.extent(0)), KOKKOS_LAMBDA(size_t i, double& s) { s += b(i) * b(i); }, den);
  const double d = std::sqrt(num / den);
  return std::isfinite(d) ? d : INFINITY;
}

/// The command line of this run, as result files record it (the program's
/// name without where it was built).
inline std::string& recorded_command() {
  static std::string command;
  return command;
}
inline void record_command(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i == 0) arg = arg.substr(arg.find_last_of('/') + 1);
    command += (i ? " " : "") + arg;
  }
  recorded_command() = command;
}

/// Where a result file came from: the source commit (TRELLIS_COMMIT from the
/// environment, as device_check.sh sets it from the carried tree, else the
/// commit at configure time), the UTC date, the device and the command
/// (record_command).
inline JsonObject run_record() {
  const char* env = std::getenv("TRELLIS_COMMIT");
#if defined(TRELLIS_SOURCE_COMMIT)
  const std::string commit = env && *env ? env : TRELLIS_SOURCE_COMMIT;
#else
  const std::string commit = env && *env ? env : "unknown";
#endif
  char date[32] = "unknown";
  const std::time_t now = std::time(nullptr);
  if (const std::tm* utc = std::gmtime(&now)) std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", utc);
  return JsonObject()
      .set("commit", commit)
      .set("date", std::string(date))
      .set("device", device_name())
      .set("command", recorded_command());
}

}  // namespace trellis::bench
