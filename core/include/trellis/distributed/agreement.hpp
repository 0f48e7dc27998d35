#pragma once
// Collective checks that keep a distributed setup from hanging or computing
// garbage when the ranks were given inconsistent inputs: every rank learns
// of any rank's problem and throws the same named error, so no rank is left
// waiting in a later collective or point-to-point call.
#include <string>

#include "trellis/distributed/communicator.hpp"

namespace trellis::distributed {

/// "" when every rank of comm passes the same value; otherwise a message
/// naming what disagrees, its smallest and largest values and this rank's.
/// Collective.
std::string disagreement(const Communicator& comm, const std::string& what, long long value);

/// Collective. When some rank passes a non-empty error, every rank throws
/// InputError with the lowest such rank's text, prefixed "rank R: ". One
/// process: throws its own error, if any.
void throw_if_any_rank_failed(const Communicator& comm, const std::string& error);

}  // namespace trellis::distributed
