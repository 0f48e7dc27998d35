// The `trellis` command: a front end to the library's problems, analyses and
// (as they land) solvers. Kokkos options (--kokkos-threads=N, ...) are
// accepted anywhere and passed to Kokkos.
#include <Kokkos_Core.hpp>
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "trellis/config.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"

namespace {

void print_usage(std::FILE* to) {
  std::fprintf(to,
               "usage: trellis <command> [arguments]\n\n"
               "commands:\n"
               "  solve [PROBLEM]  Krylov solve with a preconditioner (trellis solve --help);\n"
               "                   `trellis` alone runs `trellis solve --compare`\n"
               "  info [PROBLEM]   size, symmetry, diagonal, level parallelism of L and U, "
               "memory\n"
               "  help             this text\n"
               "  version          the Trellis version and Kokkos backend\n\n"
               "PROBLEM is a Matrix Market file or a generated problem (default: %s):\n%s\n"
               "Preconditioners (trellis solve --precond NAME[:VARIANT]):\n%s",
               trellis::gallery::default_problem_spec, trellis::gallery::problem_spec_help().c_str(),
               trellis::preconditioner_usage(2).c_str());
}

/// The problem with a numeric --kokkos-* option ("" if none). Kokkos 3.4
/// aborts on a bad value (an uncaught exception or abort()), so the command
/// checks them first and fails like any other bad option.
std::string bad_kokkos_option(int argc, char** argv) {
  const struct {
    const char* prefix;
    long lo;
  } numeric[] = {{"--kokkos-threads=", 1},     {"--kokkos-numa=", 1},   {"--kokkos-device-id=", 0},
                 {"--kokkos-num-devices=", 1}, {"--kokkos-device=", 0}, {"--kokkos-ndevices=", 1}};
  for (int i = 1; i < argc; ++i)
    for (const auto& o : numeric) {
      const size_t n = std::strlen(o.prefix);
      if (std::strncmp(argv[i], o.prefix, n) != 0) continue;
      const char* text = argv[i] + n;
      char* end = nullptr;
      const long v = std::strtol(text, &end, 10);
      if (*text == '\0' || *end != '\0' || v < o.lo || v > 1000000)
        return std::string(o.prefix, n - 1) + ": '" + text + "' is not a whole number from " + std::to_string(o.lo) +
               " to 1000000";
    }
  return "";
}

/// SIGTERM, SIGINT and SIGHUP are taken by one thread of their own, blocked
/// in every other (the threads Kokkos and OpenMP start later inherit the
/// mask): a library that traps them itself (METIS turns SIGTERM into an
/// error status) never sees them. The run says it was interrupted and ends
/// as a terminated process does (killed by that signal: exit 128 + N).
void end_on_termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, sig);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
  std::thread([set] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    const char* name = sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "SIGHUP";
    std::fprintf(stderr, "\ntrellis: interrupted (%s)\n", name);
    std::fflush(stderr);
    std::signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
    raise(sig);
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  end_on_termination_signals();
  if (const std::string bad = bad_kokkos_option(argc, argv); !bad.empty()) {
    std::fprintf(stderr, "trellis: error: %s\n", bad.c_str());
    return 1;
  }
  // Kokkos warns on every run when OMP_PROC_BIND is unset; unset means no
  // binding (the OpenMP runtime read its settings when it was loaded), which
  // "false" says without the warning.
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard kokkos(argc, argv);  // removes the --kokkos-* arguments
  std::vector<std::string> args(argv + 1, argv + argc);
  // No command: the main job, a solve of the default problem with the comparison.
  if (args.empty()) args = {"solve", "--compare"};
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "info") return trellis::cli::info_command(args);
    if (command == "solve") return trellis::cli::solve_command(args);
    if (command == "help" || command == "--help" || command == "-h") {
      print_usage(stdout);
      return 0;
    }
    if (command == "version" || command == "--version") {
      std::printf("trellis %s (Kokkos default execution space: %s)\n", TRELLIS_VERSION,
                  Kokkos::DefaultExecutionSpace::name());
      return 0;
    }
    std::fprintf(stderr, "trellis: error: unknown command '%s'\n\n", command.c_str());
    print_usage(stderr);
    return 1;
  } catch (const trellis::Error& e) {
    std::fprintf(stderr, "trellis %s: error: %s\n", command.c_str(), e.what());
    return 1;
  } catch (const std::bad_alloc& e) {
    std::fprintf(stderr, "trellis %s: error: out of memory (%s)\n", command.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    // Kokkos reports a failed allocation as a runtime_error naming the
    // array's label and size: say it is memory, not an internal error.
    const bool memory = std::strstr(e.what(), "failed to allocate") || std::strstr(e.what(), "allocation failure");
    std::fprintf(stderr, "trellis %s: %s: %s\n", command.c_str(), memory ? "error: out of memory" : "internal error",
                 e.what());
    return 1;
  }
}
