#pragma once
// Stencils of structured-grid matrices (seed 003, section 2.1): the row of
// grid point (i, j, k) has blocks in the columns (i + x, j + y, k + z) for
// each offset (x, y, z) of the stencil. Points are numbered x fastest, as in
// the gallery: (i, j, k) is point i + nx*(j + ny*k).
//
// Offsets are kept sorted by that numbering (z, then y, then x), so the
// lower offsets come first, then the centre, then the upper offsets, and
// each part is in increasing column order: the order ILU(0) eliminates in.
#include <Kokkos_Macros.hpp>
#include <array>
#include <string>
#include <vector>

#include "trellis/core/name_table.hpp"

namespace trellis {

struct StencilOffset {
  int x = 0, y = 0, z = 0;
  friend bool operator==(const StencilOffset& a, const StencilOffset& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
  }
  friend bool operator!=(const StencilOffset& a, const StencilOffset& b) { return !(a == b); }
  /// The numbering order: (z, y, x) lexicographic; negative offsets are lower.
  friend bool operator<(const StencilOffset& a, const StencilOffset& b) {
    if (a.z != b.z) return a.z < b.z;
    if (a.y != b.y) return a.y < b.y;
    return a.x < b.x;
  }
};

/// The paper's five stencils (Figure 1, Table 3) and user-given ones.
enum class StencilShape { star7, star13, diamond13, diamond25, box27, custom };

template <>
struct NameTable<StencilShape> {
  static constexpr const char* what = "stencil";
  static constexpr NameEntry<StencilShape> entries[] = {
      {StencilShape::star7, "star7"},         {StencilShape::star13, "star13"}, {StencilShape::diamond13, "diamond13"},
      {StencilShape::diamond25, "diamond25"}, {StencilShape::box27, "box27"},   {StencilShape::custom, "custom"},
  };
};

/// The wavefront coordinates of seed 003, section 4.1: an affine map
///   î = i + a j + b k,  ĵ = j + c k,  k̂ = k,  level = î + ĵ + k̂,
/// under which every dependency of a triangular sweep points backward in î
/// and ĵ and to a lower level. Threads own (î, ĵ) lines and walk the levels.
struct WavefrontTransform {
  int a = 0, b = 0, c = 0;
  KOKKOS_INLINE_FUNCTION int hat_x(int x, int y, int z) const { return x + a * y + b * z; }
  KOKKOS_INLINE_FUNCTION int hat_y(int y, int z) const { return y + c * z; }
  KOKKOS_INLINE_FUNCTION int level(int x, int y, int z) const { return x + (a + 1) * y + (b + c + 1) * z; }
};

class Stencil {
 public:
  /// A named stencil: star7 (centre and the 6 face neighbours), star13 (and
  /// the points 2 away along each axis), diamond13 (star7 and the 6 points
  /// (1,-1,0), (1,0,-1), (0,1,-1) and their negatives: star7's ILU(1) fill),
  /// diamond25 (|x|+|y|+|z| <= 2), box27 (the 3x3x3 cube).
  explicit Stencil(StencilShape shape);
  /// A user-given stencil: any offsets including the centre (0,0,0), no
  /// repeats (InputError otherwise). Shape is custom unless the set equals a
  /// named one.
  explicit Stencil(std::vector<StencilOffset> offsets);

  StencilShape shape() const { return shape_; }
  std::string name() const;
  /// All offsets in numbering order; lower ones are [0, centre()), upper
  /// ones (centre(), size()).
  const std::vector<StencilOffset>& offsets() const { return offsets_; }
  int size() const { return int(offsets_.size()); }
  int centre() const { return centre_; }
  int lower_size() const { return centre_; }
  int upper_size() const { return size() - centre_ - 1; }
  /// Index of an offset, -1 if it is not in the stencil.
  int index_of(const StencilOffset& o) const;
  /// The largest |x|, |y|, |z| over the offsets.
  std::array<int, 3> reach() const;

  /// The stencil of the level-1 fill of ILU on this stencil: S ∪ (S_L + S_U)
  /// (for star7 this is diamond13, seed 003 section 5.6).
  Stencil level_one_fill() const;

  /// The wavefront transform with the fewest levels on an nx x ny x nz grid
  /// among the affine maps above (a, b, c in 0..8) under which every lower
  /// offset has î <= 0, ĵ <= 0 and level < 0 (and every upper offset the
  /// reverse, for the backward sweep). For the named stencils it is the
  /// paper's: identity for star7/star13, (1, 1, 1) for diamond13, (1, 2, 1)
  /// for box27. InputError if none exists.
  WavefrontTransform wavefront(int nx, int ny, int nz) const;

 private:
  void finish();
  StencilShape shape_ = StencilShape::custom;
  std::vector<StencilOffset> offsets_;
  int centre_ = 0;
};

}  // namespace trellis
