#pragma once
// Shared helpers for Trellis tests: the execution spaces a typed test runs on,
// fresh random seeds (printed on failure), the real matrices, host <-> device
// vector copies, a watchdog. The serial references, random vectors and the
// relative error are in reference/ (namespace trellis::reference).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_vectors.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trellis::test {

using reference::random_vector;
using reference::relative_error;

// Every enabled backend, as a Kokkos::Device with its natural memory space
// (the device backend alone in a build configured with
// TRELLIS_TEST_HOST_BACKENDS=OFF, such as CI's HIP compile check, whose
// host backends the host build tests; and only the backends the library
// instantiates where TRELLIS_ETI_BACKENDS names some: TRELLIS_TEST_SKIP_*).
template <class Exec>
using DeviceOf = Kokkos::Device<Exec, typename Exec::memory_space>;

namespace detail {
template <class List, class Exec, bool keep>
struct WithBackend {
  using type = List;
};
template <class... Ds, class Exec>
struct WithBackend<::testing::Types<Ds...>, Exec, true> {
  using type = ::testing::Types<Ds..., DeviceOf<Exec>>;
};
constexpr bool device_only =
#if defined(TRELLIS_TEST_DEVICE_BACKEND_ONLY) && (defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP))
    true;
#else
    false;
#endif
using NoBackends = ::testing::Types<>;
#if defined(KOKKOS_ENABLE_CUDA) && !defined(TRELLIS_TEST_SKIP_CUDA)
using WithCuda = WithBackend<NoBackends, Kokkos::Cuda, true>::type;
#else
using WithCuda = NoBackends;
#endif
#if defined(KOKKOS_ENABLE_HIP) && !defined(TRELLIS_TEST_SKIP_HIP)
using WithHip = WithBackend<WithCuda, Kokkos::Experimental::HIP, true>::type;
#else
using WithHip = WithCuda;
#endif
#if defined(KOKKOS_ENABLE_OPENMP) && !defined(TRELLIS_TEST_SKIP_OPENMP)
using WithOpenMP = WithBackend<WithHip, Kokkos::OpenMP, !device_only>::type;
#else
using WithOpenMP = WithHip;
#endif
#if !defined(TRELLIS_TEST_SKIP_SERIAL)
using WithSerial = WithBackend<WithOpenMP, Kokkos::Serial, !device_only>::type;
#else
using WithSerial = WithOpenMP;
#endif
}  // namespace detail
using Backends = detail::WithSerial;

struct BackendNames {
  template <class D>
  static std::string GetName(int) {
    return D::execution_space::name();
  }
};

/// A fresh seed per call (from the clock unless TRELLIS_TEST_SEED is set), so
/// tests see new random inputs each run; SCOPED_TRACE it to print on failure.
inline std::uint64_t fresh_seed() {
  if (const char* s = std::getenv("TRELLIS_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  static std::random_device rd;
  return (std::uint64_t(rd()) << 32) ^ rd();
}

/// Folder of the real test matrices: $TRELLIS_MATRICES, else ../shared/matrices
/// beside the source tree. Empty when neither exists.
inline std::string matrices_dir() {
  if (const char* s = std::getenv("TRELLIS_MATRICES")) return s;
  std::ifstream probe(std::string(TRELLIS_DEFAULT_MATRICES) + "/MANIFEST.tsv");
  return probe ? std::string(TRELLIS_DEFAULT_MATRICES) : std::string();
}

struct RealMatrix {
  std::string file, path;
  long long rows = 0, cols = 0, nnz_stored = 0;
  std::string symmetry;
};

/// The matrices listed in MANIFEST.tsv (empty if the folder is absent).
inline std::vector<RealMatrix> real_matrices() {
  std::vector<RealMatrix> out;
  const std::string dir = matrices_dir();
  if (dir.empty()) return out;
  std::ifstream in(dir + "/MANIFEST.tsv");
  std::string line;
  std::getline(in, line);  // header: file source_repo source_path bytes nrows ncols nnz ...
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    if (f.size() < 8) continue;
    RealMatrix m;
    m.file = f[0];
    m.path = dir + "/" + f[0];
    m.rows = std::stoll(f[4]);
    m.cols = std::stoll(f[5]);
    m.nnz_stored = std::stoll(f[6]);
    m.symmetry = f[7];
    out.push_back(m);
  }
  return out;
}

/// Skips the current test, saying why, when the real matrices are absent.
#define TRELLIS_REQUIRE_REAL_MATRICES(list)                        \
  if ((list).empty())                                              \
  GTEST_SKIP() << "real matrices not found: set TRELLIS_MATRICES " \
                  "or place ../shared/matrices beside the source tree"

/// Runs f; returns the message of the E it throws (a test failure if it
/// throws nothing or something else).
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected another error type, got: " << e.what();
    return {};
  }
  ADD_FAILURE() << "nothing thrown";
  return {};
}

/// EXPECT that an error message contains a phrase, showing the message if not.
#define EXPECT_HAS(msg, phrase) EXPECT_NE((msg).find(phrase), std::string::npos) << "message: '" << (msg) << "'"

/// A device copy of a host vector.
template <class Device>
Kokkos::View<double*, Device> device_vector(const std::vector<double>& v) {
  Kokkos::View<double*, Device> d("v", v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

/// A host copy of a device vector.
template <class View>
std::vector<double> host_vector(const View& d) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

/// An instance of Exec other than the default one where the backend has
/// streams (CUDA, HIP: a stream of its own, destroyed with this object);
/// elsewhere Kokkos 3.4 has one instance per backend and this is a copy of it.
template <class Exec>
class OwnInstance {
 public:
  OwnInstance() {}
  const Exec& get() const { return space_; }

 private:
  Exec space_;
};

#if defined(KOKKOS_ENABLE_CUDA)
template <>
class OwnInstance<Kokkos::Cuda> {
 public:
  OwnInstance() : stream_(make_stream()), space_(stream_) {}
  ~OwnInstance() {
    space_.fence();
    space_ = Kokkos::Cuda();  // drop the last reference to the stream's instance
    cudaStreamDestroy(stream_);
  }
  OwnInstance(const OwnInstance&) = delete;
  OwnInstance& operator=(const OwnInstance&) = delete;
  const Kokkos::Cuda& get() const { return space_; }

 private:
  static cudaStream_t make_stream() {
    cudaStream_t s = nullptr;
    if (cudaStreamCreate(&s) != cudaSuccess) throw std::runtime_error("cudaStreamCreate failed");
    return s;
  }
  cudaStream_t stream_;
  Kokkos::Cuda space_;
};
#endif

#if defined(KOKKOS_ENABLE_HIP)
template <>
class OwnInstance<Kokkos::Experimental::HIP> {
 public:
  OwnInstance() : stream_(make_stream()), space_(stream_) {}
  ~OwnInstance() {
    space_.fence();
    space_ = Kokkos::Experimental::HIP();
    hipStreamDestroy(stream_);
  }
  OwnInstance(const OwnInstance&) = delete;
  OwnInstance& operator=(const OwnInstance&) = delete;
  const Kokkos::Experimental::HIP& get() const { return space_; }

 private:
  static hipStream_t make_stream() {
    hipStream_t s = nullptr;
    if (hipStreamCreate(&s) != hipSuccess) throw std::runtime_error("hipStreamCreate failed");
    return s;
  }
  hipStream_t stream_;
  Kokkos::Experimental::HIP space_;
};
#endif

/// The Krylov drivers and forms the solver tests run (name() as printed).
enum class KrylovMethod { cg, bicgstab_split, bicgstab_right, gmres };
inline const char* name(KrylovMethod m) {
  switch (m) {
    case KrylovMethod::cg: return "cg";
    case KrylovMethod::bicgstab_split: return "bicgstab-split";
    case KrylovMethod::bicgstab_right: return "bicgstab-right";
    case KrylovMethod::gmres: return "gmres";
  }
  return "?";
}

}  // namespace trellis::test

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace trellis::test {

/// Runs f() (and a device fence); if it has not returned within `seconds`, a
/// watchdog thread reports a hang and ends the process with exit code 86, so a
/// deadlocked kernel fails the test instead of stalling the run.
template <class F>
void run_with_watchdog(const std::string& what, double seconds, F&& f) {
  std::atomic<bool> done{false};
  std::thread dog([&] {
    const auto start = std::chrono::steady_clock::now();
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
      if (!done.load() && waited.count() > seconds) {
        std::fprintf(stderr, "\nWATCHDOG: %s did not finish within %.0f s: deadlock or hang\n", what.c_str(), seconds);
        std::fflush(stderr);
        std::_Exit(86);
      }
    }
  });
  try {
    f();
    Kokkos::fence();
  } catch (...) {  // stop the dog before the exception leaves (a joinable thread would abort)
    done = true;
    dog.join();
    throw;
  }
  done = true;
  dog.join();
}

}  // namespace trellis::test
