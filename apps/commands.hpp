#pragma once
// Subcommands of the `trellis` command-line front end. Each takes the
// arguments after its name and returns the process exit code.
#include <string>
#include <vector>

namespace trellis::cli {

int info_command(const std::vector<std::string>& args);
int solve_command(const std::vector<std::string>& args);

}  // namespace trellis::cli
