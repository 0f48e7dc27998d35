// stress_trsv: randomized triangular solves for every sync-free algorithm
// under a watchdog (issue 20). Each round draws a lower-triangular matrix
// (a random shape of gallery::random_lower_triangular, log-uniform size),
// solves it lower and its transpose upper with each algorithm, and checks the
// result against the serial substitution on a NaN-poisoned x. A solve that
// runs past --timeout is a hang: reported with its seed, and the process
// exits 2 (a spinning GPU kernel cannot be cancelled). Prints one line per
// algorithm: solves, wrong answers, the largest error, time.
//
//   stress_trsv [--rounds N] [--max-rows M] [--seed S] [--timeout SEC]
//               [--algorithms a,b,...] [--host] [--budget-seconds B]
// --budget-seconds stops after the round that passes B seconds (the rounds
// done are printed).
// --host runs on the default host backend (OpenMP) instead of the default
// device (CUDA in a CUDA build).
#include <Kokkos_Core.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_command_line.hpp"
#include "trellis/core/transpose.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/trsv/triangular_solver.hpp"
#include "triangular_solve.hpp"  // unit_tests/reference

namespace {

using namespace trellis;
using Clock = std::chrono::steady_clock;

/// Ends the process when a solve runs past its deadline.
class Watchdog {
 public:
  explicit Watchdog(double seconds) : limit_(seconds), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void start(const std::string& what) {
    std::lock_guard<std::mutex> lock(m_);
    what_ = what;
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_));
    armed_ = true;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(m_);
    armed_ = false;
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(m_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (armed_ && Clock::now() > deadline_) {
        std::printf("HANG: %s did not finish within %.0f s\n", what_.c_str(), limit_);
        std::fflush(stdout);
        std::_Exit(2);
      }
    }
  }
  double limit_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false, armed_ = false;
  std::string what_;
  Clock::time_point deadline_;
  std::thread thread_;
};

struct Tally {
  long solves = 0, wrong = 0;
  double max_error = 0, seconds = 0;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct Settings {
  long rounds = 1000;
  int max_rows = 5000;
  std::uint64_t seed = 0;
  double timeout = 60;
  std::vector<TrsvAlgorithm> algorithms;
  double budget = 0;  // seconds, 0: none
};

template <class Device>
int stress(const Settings& set) {
  const long rounds = set.rounds;
  const int max_rows = set.max_rows;
  const std::uint64_t seed = set.seed;
  const double timeout = set.timeout;
  const std::vector<TrsvAlgorithm>& algs = set.algorithms;
  std::printf("stress_trsv: %ld rounds, up to %d rows, seed %llu, timeout %.0f s, backend %s\n", rounds, max_rows,
              static_cast<unsigned long long>(seed), timeout, Device::execution_space::name());
  const gallery::TriangularShape shapes[] = {
      gallery::TriangularShape::dense_rows, gallery::TriangularShape::sparse_rows,
      gallery::TriangularShape::empty_offdiagonal, gallery::TriangularShape::long_chain,
      gallery::TriangularShape::diagonal_only};
  std::mt19937_64 rng(seed);
  std::vector<Tally> tally(algs.size());
  Watchdog dog(timeout);
  const auto t_all = Clock::now();
  long done = 0;
  for (long r = 0; r < rounds; ++r, ++done) {
    if (set.budget > 0 && std::chrono::duration<double>(Clock::now() - t_all).count() > set.budget) break;
    const std::uint64_t s = rng();
    const int shape = int(s % 5);
    const ordinal_t n = ordinal_t(std::exp(std::uniform_real_distribution<double>(0, std::log(max_rows))(rng)));
    const HostCsr L = gallery::random_lower_triangular(n, shapes[shape], s);
    const HostCsr U = transpose(L);
    std::vector<double> b(static_cast<size_t>(n));
    for (auto& v : b) v = std::uniform_real_distribution<double>(-1, 1)(rng);
    const auto bd = Kokkos::create_mirror_view_and_copy(
        typename Device::memory_space(),
        Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(b.data(), b.size()));
    for (Triangle tri : {Triangle::lower, Triangle::upper}) {
      const HostCsr& T = tri == Triangle::lower ? L : U;
      const auto want = reference::triangular_solve(T, tri, b);
      const auto Td = copy_to<Device>(T);
      for (size_t a = 0; a < algs.size(); ++a) {
        const std::string what = std::string(to_string(algs[a])) + " " + to_string(tri) + ", round " +
                                 std::to_string(r) + " (matrix seed " + std::to_string(s) + ", shape " +
                                 std::to_string(shape) + ", n " + std::to_string(n) + ")";
        TrsvOptions opt;
        opt.triangle = tri;
        opt.algorithm = algs[a];
        Kokkos::View<double*, Device> x("x", size_t(n));
        const auto t0 = Clock::now();
        dog.start(what);
        {
          const TriangularSolver<double, Device> solver(Td, opt);
          Kokkos::deep_copy(x, std::nan(""));
          solver.solve(bd, x);
          Kokkos::fence();
        }
        dog.stop();
        tally[a].seconds += std::chrono::duration<double>(Clock::now() - t0).count();
        const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
        double num = 0, den = 0;
        for (ordinal_t i = 0; i < n; ++i) {
          const double d = xh(i) - want[size_t(i)];
          num += d * d, den += want[size_t(i)] * want[size_t(i)];
        }
        const double err = std::sqrt(num / (den > 0 ? den : 1));
        ++tally[a].solves;
        if (!(err <= 1e-10)) {
          ++tally[a].wrong;
          if (tally[a].wrong <= 5) std::printf("WRONG: %s: relative error %.3e\n", what.c_str(), err);
        }
        if (!(err <= tally[a].max_error)) tally[a].max_error = err;
      }
    }
  }
  std::printf("%-16s %8s %6s %6s %12s %10s\n", "algorithm", "solves", "hangs", "wrong", "max error", "seconds");
  long wrong = 0;
  for (size_t a = 0; a < algs.size(); ++a) {
    std::printf("%-16s %8ld %6d %6ld %12.3e %10.1f\n", to_string(algs[a]), tally[a].solves, 0, tally[a].wrong,
                tally[a].max_error, tally[a].seconds);
    wrong += tally[a].wrong;
  }
  std::printf("%ld of %ld rounds in %.1f s; %s\n", done, rounds,
              std::chrono::duration<double>(Clock::now() - t_all).count(),
              wrong ? "WRONG ANSWERS" : "0 hangs, 0 wrong answers");
  return wrong ? 1 : 0;
}

/// The command line: what to run, and on which backend.
struct CommandLineSettings {
  int rounds = 1000;
  int max_rows = 5000;
  bool host = false;
  double budget = 0;
  std::uint64_t seed = std::random_device{}();
  double timeout = 60;
  std::string algorithms = "elmr,elmr-value,elmc,syncfree-naive,tile-syncfree";
};

/// Reads the options into c; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, CommandLineSettings& c) {
  bench::CommandLine cl("stress_trsv",
                        "Randomized lower and upper solves for the sync-free algorithms under a watchdog, checked "
                        "against the serial substitution.");
  cl.number("--rounds", c.rounds, "random problems (default 1000)", 1, 1 << 30)
      .number("--max-rows", c.max_rows, "rows of the largest (default 5000)", 1, 1 << 30)
      .number("--seed", c.seed, "first seed (default: random)")
      .number("--timeout", c.timeout, "seconds a solve may take before it counts as hung (default 60)", 1e-3, 1e6)
      .text("--algorithms", c.algorithms, "comma-separated (default the sync-free ones)")
      .flag("--host", c.host, "run on the host backend")
      .number("--budget-seconds", c.budget, "start no new round after S seconds (0: no limit)", 0, 1e9);
  return cl.parse(argc, argv);
}

int run(const CommandLineSettings& c) {  // the ranges were checked by parse_options
  Settings set{c.rounds, c.max_rows, c.seed, c.timeout, {}, c.budget};
  for (const auto& a : split(c.algorithms)) set.algorithms.push_back(parse<TrsvAlgorithm>(a));
  return c.host ? stress<HostDevice>(set) : stress<DefaultDevice>(set);
}

}  // namespace

int main(int argc, char** argv) {
  CommandLineSettings c;
  if (const int rc = parse_options(argc, argv, c); rc >= 0) return rc;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stress_trsv: error: %s\n", e.what());
    return 1;
  }
}
