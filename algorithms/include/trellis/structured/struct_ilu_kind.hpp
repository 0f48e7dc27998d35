#pragma once
// StructILU's factorizations (struct_ilu.hpp says what each is), by name.
#include "trellis/core/name_table.hpp"

namespace trellis {

enum class StructIluKind { ilu0, ilu1, ic0, ic1 };

template <>
struct NameTable<StructIluKind> {
  static constexpr const char* what = "structilu variant";
  static constexpr NameEntry<StructIluKind> entries[] = {
      {StructIluKind::ilu0, "ilu0"},
      {StructIluKind::ilu1, "ilu1"},
      {StructIluKind::ic0, "ic0"},
      {StructIluKind::ic1, "ic1"},
  };
};

}  // namespace trellis
