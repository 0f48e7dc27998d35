#include "bench_command_line.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <utility>

namespace trellis::bench {

namespace {

/// Whether `arg` is one of Kokkos 3.4's own options, which Kokkos::initialize
/// reads after the benchmark's options are read.
bool is_kokkos_option(const std::string& arg) {
  if (arg.rfind("--kokkos-", 0) == 0) return true;
  const std::string name = arg.substr(0, arg.find('='));
  for (const char* legacy : {"--threads", "--numa", "--device", "--num-devices", "--ndevices", "--skip-device"})
    if (name == legacy) return true;
  return false;
}

}  // namespace

struct CommandLine::Impl {
  std::string program;
  CLI::App app;
  std::vector<std::pair<const CLI::Option*, std::size_t>> once;  // an option given once, and its values then
  Impl(const std::string& p, const std::string& description) : program(p), app(description, p) {
    app.allow_extras();  // Kokkos's options, checked in parse
  }
};

CommandLine::CommandLine(const std::string& program, const std::string& description)
    : impl_(std::make_unique<Impl>(program, description)) {}

CommandLine::~CommandLine() = default;

CommandLine& CommandLine::flag(const std::string& name, bool& value, const std::string& help, bool to) {
  impl_->once.emplace_back(impl_->app.add_flag_callback(
                               name, [&value, to] { value = to; }, help),
                           1);
  return *this;
}

CommandLine& CommandLine::text(const std::string& name, std::string& value, const std::string& help) {
  impl_->once.emplace_back(impl_->app.add_option(name, value, help), 1);
  return *this;
}

CommandLine& CommandLine::texts(const std::string& name, std::vector<std::string>& value, int count,
                                const std::string& help) {
  impl_->once.emplace_back(impl_->app.add_option(name, value, help)->expected(count), std::size_t(count));
  return *this;
}

CommandLine& CommandLine::list(const std::string& name, std::vector<std::string>& value, const std::string& help) {
  return add(
      name, [&value](const std::string& s) { value = split_list(s); }, help, "TEXT,...");
}

namespace {

/// `text` as a T in [min, max]; a ValidationError naming the problem.
template <class T>
T number_in(const std::string& text, T min, T max, const char* kind) {
  T v{};
  const bool negative_unsigned = std::is_unsigned_v<T> && text.find('-') != std::string::npos;
  if (text.empty() || negative_unsigned || !CLI::detail::lexical_cast(text, v))
    throw CLI::ValidationError("'" + text + "' is not " + kind);
  if (!(v >= min && v <= max))  // NaN too
    throw CLI::ValidationError(text + " is not in [" + CLI::detail::to_string(min) + ", " +
                               CLI::detail::to_string(max) + "]");
  return v;
}

}  // namespace

CommandLine& CommandLine::numbers(const std::string& name, std::vector<int>& value, const std::string& help, int min,
                                  int max) {
  return add(
      name,
      [&value, min, max](const std::string& s) {
        std::vector<int> out;
        for (const auto& item : split_list(s)) out.push_back(number_in(item, min, max, "an integer"));
        if (out.empty()) throw CLI::ValidationError("no value in '" + s + "'");
        value = out;
      },
      help, "INT,...");
}

CommandLine& CommandLine::number(const std::string& name, int& value, const std::string& help, int min, int max) {
  return add(
      name, [&value, min, max](const std::string& s) { value = number_in(s, min, max, "an integer"); }, help, "INT");
}

CommandLine& CommandLine::number(const std::string& name, double& value, const std::string& help, double min,
                                 double max) {
  return add(
      name, [&value, min, max](const std::string& s) { value = number_in(s, min, max, "a number"); }, help, "NUMBER");
}

CommandLine& CommandLine::number(const std::string& name, std::uint64_t& value, const std::string& help) {
  return add(
      name,
      [&value](const std::string& s) {
        value = number_in(s, std::uint64_t(0), std::numeric_limits<std::uint64_t>::max(), "a non-negative integer");
      },
      help, "UINT");
}

CommandLine& CommandLine::grid(const std::string& name, std::array<int, 3>& value, const std::string& help) {
  return add(
      name,
      [&value](const std::string& s) {
        const auto parts = split_list(s, 'x');
        if (parts.size() != 3) throw CLI::ValidationError("expected NXxNYxNZ, got '" + s + "'");
        std::array<int, 3> g{};
        for (size_t d = 0; d < 3; ++d) {
          g[d] = number_in(parts[d], std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), "an integer");
          if (g[d] < 1) throw CLI::ValidationError("every extent of the grid must be at least 1");
        }
        value = g;
      },
      help, "NXxNYxNZ");
}

CommandLine& CommandLine::word(const std::string& name, const std::function<void(const std::string&)>& use,
                               const std::string& help) {
  return add(name, use, help, "TEXT");
}

CommandLine& CommandLine::add(const std::string& name, const std::function<void(const std::string&)>& use,
                              const std::string& help, const std::string& type) {
  CLI::Option* option = impl_->app.add_option_function<std::string>(
      name,
      [use, name](const std::string& s) {
        try {
          use(s);
        } catch (const std::exception& e) {
          throw CLI::ValidationError(name, e.what());
        }
      },
      help);
  option->type_name(type);
  impl_->once.emplace_back(option, 1);
  return *this;
}

CommandLine& CommandLine::positionals(const std::string& name, std::vector<std::string>& value,
                                      const std::string& help) {
  impl_->app.add_option(name, value, help);
  return *this;
}

bool CommandLine::given(const std::string& name) const { return impl_->app.count(name) > 0; }

int CommandLine::parse(int argc, char** argv) {
  auto& app = impl_->app;
  const auto fail = [&](const std::string& what) {
    std::fprintf(stderr, "%s: error: %s\n", impl_->program.c_str(), what.c_str());
    return 2;
  };
  // An empty "--opt=" value: CLI11 2.1 would take the next argument as the
  // value (row 246 of unit_tests/BAD_INPUT.md).
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' && arg.find('=') == arg.size() - 1)
      return fail(arg.substr(0, arg.size() - 1) + " needs a value (got an empty one)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }
  for (const auto& [option, values] : impl_->once)
    if (option->count() > values) return fail(option->get_name() + " given twice");
  for (const auto& extra : app.remaining())
    if (!is_kokkos_option(extra)) return fail("unknown argument '" + extra + "' (see --help)");
  return -1;
}

}  // namespace trellis::bench
