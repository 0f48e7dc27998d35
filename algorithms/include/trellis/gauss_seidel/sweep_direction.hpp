#pragma once
// The direction of a Gauss-Seidel sweep, and its names.
#include "trellis/core/name_table.hpp"

namespace trellis {

enum class SweepDirection { forward, backward, symmetric };

template <>
struct NameTable<SweepDirection> {
  static constexpr const char* what = "sweep direction";
  static constexpr NameEntry<SweepDirection> entries[] = {
      {SweepDirection::forward, "forward"},
      {SweepDirection::backward, "backward"},
      {SweepDirection::symmetric, "symmetric"},
  };
};

}  // namespace trellis
