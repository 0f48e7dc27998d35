#include "trellis/trsv/algorithm.hpp"

#include "trellis/core/errors.hpp"

namespace trellis {

// The one place where algorithm names map to the enum (CLI, benchmarks, tests).
namespace {
struct NamedAlgorithm {
  const char* name;
  TrsvAlgorithm algorithm;
};
constexpr NamedAlgorithm names[] = {
    {"levelset-csr", TrsvAlgorithm::levelset_csr}, {"levelset-csc", TrsvAlgorithm::levelset_csc},
    {"elmr", TrsvAlgorithm::elmr},                 {"elmr-value", TrsvAlgorithm::elmr_value},
    {"elmc", TrsvAlgorithm::elmc},
    {"syncfree-naive", TrsvAlgorithm::syncfree_naive}, {"auto", TrsvAlgorithm::automatic},
};
}  // namespace

const char* to_string(TrsvAlgorithm a) {
  for (const auto& n : names)
    if (n.algorithm == a) return n.name;
  return "?";
}

TrsvAlgorithm parse_trsv_algorithm(const std::string& name) {
  std::string accepted;
  for (const auto& n : names) {
    if (name == n.name) return n.algorithm;
    accepted += accepted.empty() ? n.name : std::string(", ") + n.name;
  }
  throw InputError("unknown triangular-solve algorithm '" + name + "' (accepted: " + accepted + ")");
}

}  // namespace trellis
