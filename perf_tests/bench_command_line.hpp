#pragma once
// The command line of the benchmarks and tools, read with CLI11 as the
// `trellis` command's is: --opt value and --opt=value, -h/--help before
// Kokkos starts, numbers checked against their range, an option given twice
// or unknown named. CLI11 is compiled once (bench_command_line.cpp), not in
// every benchmark.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace trellis::bench {

/// "a,b,,c" -> {"a", "b", "c"} (empty items dropped).
inline std::vector<std::string> split_list(const std::string& s, char sep = ',') {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

class CommandLine {
 public:
  CommandLine(const std::string& program, const std::string& description);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  /// A flag that sets `value` to `to` when given.
  CommandLine& flag(const std::string& name, bool& value, const std::string& help, bool to = true);
  /// An option whose value is kept as given.
  CommandLine& text(const std::string& name, std::string& value, const std::string& help);
  /// An option that takes `count` values ("--kron M L A B").
  CommandLine& texts(const std::string& name, std::vector<std::string>& value, int count, const std::string& help);
  /// A comma-separated list ("a,b,c"; empty items dropped).
  CommandLine& list(const std::string& name, std::vector<std::string>& value, const std::string& help);
  /// A comma-separated list of integers, each in [min, max].
  CommandLine& numbers(const std::string& name, std::vector<int>& value, const std::string& help, int min, int max);
  /// A number in [min, max].
  CommandLine& number(const std::string& name, int& value, const std::string& help, int min, int max);
  CommandLine& number(const std::string& name, double& value, const std::string& help, double min, double max);
  CommandLine& number(const std::string& name, std::uint64_t& value, const std::string& help);
  /// A grid "NXxNYxNZ", each extent at least 1.
  CommandLine& grid(const std::string& name, std::array<int, 3>& value, const std::string& help);
  /// An option whose text `use` reads (an InputError it throws names the
  /// problem; the option's name is added in front).
  CommandLine& word(const std::string& name, const std::function<void(const std::string&)>& use,
                    const std::string& help);
  /// The arguments that are not options, in order.
  CommandLine& positionals(const std::string& name, std::vector<std::string>& value, const std::string& help);

  /// Whether the option was given (after parse).
  bool given(const std::string& name) const;

  /// Reads argv; Kokkos's own options (--kokkos-*, and the older --threads=,
  /// --numa=, --device=, --num-devices=, --ndevices=, --skip-device=) are
  /// left for Kokkos::initialize. Returns -1 to go on, else the exit code:
  /// 0 after -h/--help (printed), 2 after an error (printed to stderr, as
  /// "program: error: ...").
  int parse(int argc, char** argv);

 private:
  /// An option whose text `use` reads, shown in --help as `type`.
  CommandLine& add(const std::string& name, const std::function<void(const std::string&)>& use, const std::string& help,
                   const std::string& type);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trellis::bench
