#pragma once
// The command line of `trellis`, read with CLI11 (Debian's header-only
// libcli11-dev): CLI11 tells options (--opt value and --opt=value), their
// values, flags, -h/--help and the rest apart; the commands check the values
// (their ranges, their words) and name what is wrong in their own words.
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace trellis::cli {

/// Reads `args` (those after the command's name) with `app`, whose options
/// take their values as text and keep every one given (take_all(), so that an
/// option given twice is seen, not silently its last value), and which leaves
/// what it does not know in app.remaining() (allow_extras()). Returns false
/// when -h or --help was given: nothing else is checked then. CLI11's own
/// errors are InputErrors: an option at the end without its value is
/// "missing value after --opt", others in CLI11's words.
bool read_options(CLI::App& app, const std::vector<std::string>& args);

/// Calls use(option, values) for each option given, in the order given (so
/// the first bad value is the one named), with the values of that occurrence
/// (an option's get_expected_max() of them; a flag: none). An option given
/// twice is an InputError ("--tol given twice"), as are a value after a
/// flag's '=' ("--view takes no value (got 'yes')") and fewer values than an
/// option takes ("missing value after --kron").
void for_each_option_given(const CLI::App& app,
                           const std::function<void(const CLI::Option&, const std::vector<std::string>&)>& use);

/// The first argument that `app` did not take (an unknown option, or a
/// positional argument past those it takes), or "" when there is none.
std::string first_unknown(const CLI::App& app);

/// The option's name as given on the command line ("--opt" of "--opt=value").
std::string option_name(const std::string& argument);

}  // namespace trellis::cli
