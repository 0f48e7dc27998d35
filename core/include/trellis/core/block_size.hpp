#pragma once
// Block kernels take the BSR block size b as a compile-time constant (their
// per-block loops unroll and their partial sums stay in registers); this is
// the one place that maps the runtime b onto the compiled sizes.
#include <string>
#include <type_traits>

#include "trellis/core/errors.hpp"

namespace trellis::detail {

/// Largest block size with compiled kernels.
constexpr int max_block_size = 8;

/// Throws StructureError naming b (and who asked) when no kernel is compiled for it.
inline void check_block_size(int b, const std::string& who) {
  if (b < 1 || b > max_block_size)
    throw StructureError(who + ": block size b = " + std::to_string(b) + " is not supported (1.." +
                         std::to_string(max_block_size) + ")");
}

/// Calls f(std::integral_constant<int, b>{}) so that b is a compile-time
/// constant inside f.
template <class F>
void with_block_size(int b, const std::string& who, F&& f) {
  switch (b) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 5: return f(std::integral_constant<int, 5>{});
    case 6: return f(std::integral_constant<int, 6>{});
    case 7: return f(std::integral_constant<int, 7>{});
    case 8: return f(std::integral_constant<int, 8>{});
    default: check_block_size(b, who);
  }
}

}  // namespace trellis::detail
