// The `trellis` command: a front end to the library's problems, analyses and
// (as they land) solvers. Kokkos options (--kokkos-threads=N, ...) are
// accepted anywhere and passed to Kokkos.
#include <Kokkos_Core.hpp>
#include <pthread.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "solve_args.hpp"
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

/// Every spelling of the host thread count's option (Kokkos 3.4's, 3.7's on,
/// the legacy ones without "kokkos-").
constexpr const char* thread_option_forms[] = {
    "--kokkos-threads=", "--kokkos-num-threads=", "--threads=", "--num-threads="};

/// The problem with a numeric Kokkos option or environment variable ("" if
/// none). Kokkos 3.4 aborts on a bad value (an uncaught exception or
/// abort()), and starts as many threads as asked (100000 crashed), so the
/// command checks every form it parses first, the legacy ones without
/// "kokkos-" and KOKKOS_* variables too, and fails like any other bad option.
/// Hand-written, not CLI11: Kokkos reads only NAME=VALUE, so a bare NAME
/// (its value in the next argument) must be refused, and CLI11 reads
/// "--opt value" and "--opt=value" alike; nor are the environment variables
/// and the settings given twice arguments CLI11 could read.
std::string bad_kokkos_option(int argc, char** argv) {
  const long max_threads = 4096;
  const struct {
    const char* name;
    long lo, hi;
  } numeric[] = {{"threads", 1, max_threads}, {"num-threads", 1, max_threads}, {"numa", 1, 1024},
                 {"device-id", 0, 1024},      {"num-devices", 1, 1024},        {"device", 0, 1024},
                 {"ndevices", 1, 1024},       {"skip-device", 0, 1024}};
  auto check = [](const std::string& what, const char* text, long lo, long hi) -> std::string {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    // Digits only (a sign for the range's message): Kokkos reads neither ' 2' nor '+2'.
    const bool digits =
        std::isdigit((unsigned char)text[0]) || (text[0] == '-' && std::isdigit((unsigned char)text[1]));
    if (!digits || *end != '\0' || v < lo || v > hi)
      return what + ": '" + text + "' is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    return "";
  };
  for (int i = 1; i < argc; ++i)
    for (const auto& o : numeric)
      for (const std::string name : {std::string("--kokkos-") + o.name, std::string("--") + o.name}) {
        // Kokkos reads only NAME=VALUE: a bare NAME (its value next, or none)
        // ended in an uncaught exception.
        if (argv[i] == name) return name + " needs its value after '=' (" + name + "=N)";
        const std::string prefix = name + "=";
        if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
          const std::string bad = check(name, argv[i] + prefix.size(), o.lo, o.hi);
          if (!bad.empty()) return bad;
        }
      }
  const struct {
    const char* name;
    long lo, hi;
  } variables[] = {{"KOKKOS_NUM_THREADS", 1, max_threads},
                   {"KOKKOS_DEVICE_ID", 0, 1024},
                   {"KOKKOS_NUMA", 1, 1024},
                   {"KOKKOS_NUM_DEVICES", 1, 1024},
                   {"KOKKOS_SKIP_DEVICE", 0, 1024}};
  for (const auto& v : variables)
    if (const char* text = std::getenv(v.name)) {
      const std::string bad = check(std::string("environment variable ") + v.name, text, v.lo, v.hi);
      if (!bad.empty()) return bad;
    }
  // A setting given twice (any spelling), or as an option and as its
  // environment variable with another value: Kokkos 3.4 throws with its own
  // names for them, Kokkos 4 takes one without a word.
  const struct {
    const char* variable;
    std::initializer_list<const char*> forms;
  } settings[] = {
      {"KOKKOS_NUM_THREADS",
       {thread_option_forms[0], thread_option_forms[1], thread_option_forms[2], thread_option_forms[3]}},
      {"KOKKOS_NUMA", {"--kokkos-numa=", "--numa="}},
      {"KOKKOS_DEVICE_ID", {"--kokkos-device-id=", "--device-id=", "--kokkos-device=", "--device="}},
      {"KOKKOS_NUM_DEVICES", {"--kokkos-num-devices=", "--num-devices=", "--kokkos-ndevices=", "--ndevices="}},
      {"KOKKOS_SKIP_DEVICE", {"--kokkos-skip-device=", "--skip-device="}}};
  for (const auto& setting : settings) {
    const char* first = nullptr;
    for (int i = 1; i < argc; ++i)
      for (const char* form : setting.forms)
        if (std::strncmp(argv[i], form, std::strlen(form)) == 0) {
          if (first) return std::string(first) + " and " + argv[i] + " set one thing; give it once";
          first = argv[i];
          const char* env = std::getenv(setting.variable);
          if (env && std::strtol(argv[i] + std::strlen(form), nullptr, 10) != std::strtol(env, nullptr, 10))
            return std::string(argv[i]) + " and the environment variable " + setting.variable + "=" + env +
                   " disagree; give one";
        }
  }
  // OpenMP caps the threads at OMP_THREAD_LIMIT: asking for more ended in
  // Kokkos's "pool already exists".
  if (const char* limit = std::getenv("OMP_THREAD_LIMIT"))
    for (int i = 1; i < argc; ++i)
      for (const char* form : thread_option_forms)
        if (std::strncmp(argv[i], form, std::strlen(form)) == 0 &&
            std::strtol(argv[i] + std::strlen(form), nullptr, 10) > std::strtol(limit, nullptr, 10))
          return std::string(argv[i]) + " asks for more threads than OMP_THREAD_LIMIT=" + limit + " allows";
  // OpenMP's own count (a list, one per nesting level): 100000 threads
  // crashed the OpenMP runtime before Kokkos said anything.
  if (const char* text = std::getenv("OMP_NUM_THREADS")) {
    const std::string list = text;
    for (size_t at = 0; at <= list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      const std::string one = list.substr(at, comma - at);
      const std::string bad = check("environment variable OMP_NUM_THREADS", one.c_str(), 1, max_threads);
      if (!bad.empty()) return bad;
      at = comma + 1;
    }
  }
  return "";
}

/// The host thread count's option in the spelling of the Kokkos this build
/// uses: --kokkos-threads=N (Kokkos 3.4; 4.x no longer reads it),
/// --kokkos-num-threads=N (Kokkos 3.7 on; 3.4 does not know it) and the
/// legacy --threads=N all work. Rewrites argv in place; `storage` keeps the
/// new strings.
void spell_thread_option_for_kokkos(int argc, char** argv, std::vector<std::string>& storage) {
#if KOKKOS_VERSION >= 30700
  const std::string ours = "--kokkos-num-threads=";
#else
  const std::string ours = "--kokkos-threads=";
#endif
  storage.reserve(size_t(argc));  // no reallocation: argv points into it
  for (int i = 1; i < argc; ++i)
    for (const char* form : thread_option_forms)
      if (std::strncmp(argv[i], form, std::strlen(form)) == 0) {
        storage.push_back(ours + (argv[i] + std::strlen(form)));
        argv[i] = storage.back().data();
        break;
      }
}

/// The first level of the command line, read with CLI11: the command (its
/// arguments are read by the command itself), whether -h/--help was given
/// (after the command: its usage) and --version.
struct CommandLine {
  std::string command;  // solve, info, help, version, or "" for none
  bool help = false, version = false;
};

CommandLine read_command_line(const std::vector<std::string>& args) {
  CLI::App app("Trellis: sparse preconditioning on Kokkos", "trellis");
  app.allow_extras();            // before Kokkos starts: its options (and what no command takes: named later)
  app.require_subcommand(0, 1);  // "solve x info": info is a second problem, not another command
  CLI::Option* version = app.add_flag("--version");
  for (const char* name : {"solve", "info", "help", "version"})
    app.add_subcommand(name)->allow_extras();  // the command's options: its own, read by the command
  CommandLine line;
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    line.help = true;
  } catch (const CLI::ParseError& e) {
    throw trellis::InputError(e.what());
  }
  if (!app.get_subcommands().empty()) line.command = app.get_subcommands().front()->get_name();
  line.version = version->count() > 0;
  return line;
}

/// `trellis [COMMAND] -h` (or --help): the usage of the command, before
/// Kokkos starts (Kokkos 3.4 prints its own help for --help first). The
/// command's options are not read here: -h anywhere after it asks for help.
void print_help(const std::string& command) {
  if (command == "solve")
    std::printf("%s", trellis::cli::solve_usage.c_str());
  else if (command == "info")
    std::printf("%s", trellis::cli::info_usage.c_str());
  else
    print_usage(stdout);
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
  try {
    if (const CommandLine line = read_command_line({argv + 1, argv + argc}); line.help) {
      print_help(line.command);
      return 0;
    }
  } catch (const trellis::Error& e) {
    std::fprintf(stderr, "trellis: error: %s\n", e.what());
    return 1;
  }
  if (const std::string bad = bad_kokkos_option(argc, argv); !bad.empty()) {
    std::fprintf(stderr, "trellis: error: %s\n", bad.c_str());
    return 1;
  }
  // Kokkos warns on every run when OMP_PROC_BIND is unset; unset means no
  // binding (the OpenMP runtime read its settings when it was loaded), which
  // "false" says without the warning.
  setenv("OMP_PROC_BIND", "false", 0);
  std::vector<std::string> respelled;
  spell_thread_option_for_kokkos(argc, argv, respelled);
  bool kokkos_help = false;  // Kokkos takes the option out of argv (one of Kokkos's, read as they are)
  for (int i = 1; i < argc; ++i) kokkos_help |= std::strcmp(argv[i], "--kokkos-help") == 0;
  // Kokkos throws on what the checks above do not foresee (an option and
  // its environment variable that disagree): said as an error, not an abort.
  std::unique_ptr<Kokkos::ScopeGuard> kokkos;
  try {
    kokkos = std::make_unique<Kokkos::ScopeGuard>(argc, argv);  // removes the --kokkos-* arguments
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trellis: error: Kokkos refused its options or environment: %s\n", e.what());
    return 1;
  }
  // Kokkos printed its options' help and took --kokkos-help out: that was
  // what was asked, not a solve as well.
  if (kokkos_help) return 0;
  std::vector<std::string> args(argv + 1, argv + argc);
  // No command: the main job, a solve of the default problem with the comparison.
  if (args.empty()) args = {"solve", "--compare"};
  const std::string command = args[0];
  try {
    // Kokkos has taken its options out: the first argument is the command
    // (or --version), the rest are its own.
    const CommandLine line = read_command_line({command});
    if (line.help) return print_help(""), 0;  // said before Kokkos started; here for completeness
    if (line.command.empty() && !line.version) {
      std::fprintf(stderr, "trellis: error: unknown command '%s'\n\n", command.c_str());
      print_usage(stderr);
      return 1;
    }
    args.erase(args.begin());
    if (command == "info") return trellis::cli::info_command(args);
    if (command == "solve") return trellis::cli::solve_command(args);
    if (!args.empty())  // help, version, --version
      throw trellis::InputError("'" + command + "' takes no arguments (got '" + args[0] +
                                "'); a command's options: trellis COMMAND --help");
    if (command == "help") {
      print_usage(stdout);
      return 0;
    }
    {  // version, --version
      std::printf("trellis %s\n", TRELLIS_VERSION);
      std::printf("Kokkos %d.%d.%d, Kokkos Kernels %s, default execution space %s, %d threads or lanes\n",
                  KOKKOS_VERSION / 10000, KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100,
                  TRELLIS_KOKKOSKERNELS_VERSION, Kokkos::DefaultExecutionSpace::name(),
                  int(Kokkos::DefaultExecutionSpace().concurrency()));
      std::printf("backends:");
#if defined(KOKKOS_ENABLE_CUDA)
      std::printf(" Cuda");
#endif
#if defined(KOKKOS_ENABLE_HIP)
      std::printf(" HIP");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
      std::printf(" OpenMP");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
      std::printf(" Serial");
#endif
      std::printf("\n");
      return 0;
    }
  } catch (const trellis::Error& e) {
    std::fprintf(stderr, "trellis %s: error: %s\n", command.c_str(), e.what());
    return 1;
  } catch (const std::bad_alloc& e) {
    std::fprintf(stderr, "trellis %s: error: out of memory (%s)\n", command.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    // Kokkos reports a failed allocation as a runtime_error naming the
    // array's label and size: say it is memory, not an internal error.
    const bool memory = trellis::is_allocation_failure(e);
    std::fprintf(stderr, "trellis %s: %s: %s\n", command.c_str(), memory ? "error: out of memory" : "internal error",
                 e.what());
    return 1;
  }
}
