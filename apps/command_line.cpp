// Reading a command's options with CLI11; see command_line.hpp.
#include "command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>

#include "trellis/core/errors.hpp"

namespace trellis::cli {

bool read_options(CLI::App& app, const std::vector<std::string>& args) {
  // CLI11 takes the arguments last first. It drops an empty value after '='
  // and takes the next argument instead ("--rhs= x" would read x as the
  // file): an option's empty value goes to it as an argument of its own, so
  // that the command sees it and names it.
  std::vector<std::string> reversed;
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    const std::string& arg = *it;
    if (arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.find('=') == arg.size() - 1) {
      const std::string name = arg.substr(0, arg.size() - 1);
      const CLI::Option* option = app.get_option_no_throw(name);
      if (option && option->get_expected_max() > 0) {  // an option that takes a value; a flag's "--view=" is "--view"
        reversed.push_back("");
        reversed.push_back(name);
        continue;
      }
    }
    reversed.push_back(arg);
  }
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return false;
  } catch (const CLI::ArgumentMismatch& e) {
    // Too few values: CLI11 names the option first ("--tol: 1 required TEXT missing").
    const std::string what = e.what();
    const std::string name = what.substr(0, what.find(':'));
    if (app.get_option_no_throw(name) != nullptr) throw InputError("missing value after " + name);
    throw InputError(what);
  } catch (const CLI::ParseError& e) {
    throw InputError(e.what());
  }
  return true;
}

void for_each_option_given(const CLI::App& app,
                           const std::function<void(const CLI::Option&, const std::vector<std::string>&)>& use) {
  // parse_order() holds an option once per value (a flag once per
  // occurrence): the first entry of each occurrence takes them all.
  std::map<const CLI::Option*, std::size_t> entries;
  for (const CLI::Option* option : app.parse_order()) {
    const std::size_t entry = entries[option]++;
    const bool flag = option->get_expected_max() == 0;
    const std::size_t per = flag ? 1 : std::size_t(option->get_expected_max());
    if (entry % per != 0) continue;
    const std::string name = option->get_name();
    if (entry > 0) throw InputError(name + " given twice");
    const std::vector<std::string>& results = option->results();
    if (flag) {
      // CLI11 takes --flag=VALUE as the flag set to VALUE; a bare flag is "true".
      if (!results.empty() && results.front() != "true")
        throw InputError(name + " takes no value (got '" + results.front() + "')");
      use(*option, {});
      continue;
    }
    if (results.size() < per) throw InputError("missing value after " + name);
    use(*option, std::vector<std::string>(results.begin(), results.begin() + std::ptrdiff_t(per)));
  }
}

std::string first_unknown(const CLI::App& app) {
  const std::vector<std::string> left = app.remaining();
  return left.empty() ? std::string() : left.front();
}

std::string option_name(const std::string& argument) { return argument.substr(0, argument.find('=')); }

}  // namespace trellis::cli
