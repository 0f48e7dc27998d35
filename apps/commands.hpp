#pragma once
// Subcommands of the `trellis` command-line front end. Each takes the
// arguments after its name and returns the process exit code.
#include <string>
#include <vector>

#include "trellis/core/kronecker_system.hpp"

namespace trellis::cli {

/// The system of a kron-stokes:NXxNYxNZ[:s=S][:tau=T] spec (solve and info);
/// a malformed spec is an InputError naming the form.
KroneckerSystem kron_stokes_system(const std::string& spec);

/// The usage text of `trellis info`.
extern const std::string info_usage;

int info_command(const std::vector<std::string>& args);
int solve_command(const std::vector<std::string>& args);

}  // namespace trellis::cli
