#pragma once
// A preconditioner spec, NAME[:VARIANT], read and checked
// (preconditioner_factory.hpp lists the names): the factory builds from it,
// the command line checks with it. No kernel is included here.
#include <optional>
#include <string>

#include "trellis/dd/dd_variant.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/structured/struct_ilu_kind.hpp"
#include "trellis/trsv/algorithm.hpp"

namespace trellis::detail {

/// A spec read: the preconditioner and its variant, if it names one.
struct PreconditionerSpec {
  PreconditionerKind kind = PreconditionerKind::none;
  std::optional<TrsvAlgorithm> algorithm;  // gs, sgs, ilu0
  std::optional<DdApply> apply;            // dd
  std::optional<StructIluKind> structilu;  // structilu
  std::string canonical;
};

/// An unknown name or variant is an InputError listing the accepted ones.
PreconditionerSpec read_preconditioner_spec(const std::string& spec);

}  // namespace trellis::detail
