#include "trellis/structured/stencil.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace trellis {

namespace {

std::vector<StencilOffset> named_offsets(StencilShape shape) {
  std::vector<StencilOffset> out;
  for (int z = -2; z <= 2; ++z)
    for (int y = -2; y <= 2; ++y)
      for (int x = -2; x <= 2; ++x) {
        const int l1 = std::abs(x) + std::abs(y) + std::abs(z);
        const int nonzero = (x != 0) + (y != 0) + (z != 0);
        const int linf = std::max({std::abs(x), std::abs(y), std::abs(z)});
        bool in = false;
        switch (shape) {
          case StencilShape::star7: in = l1 <= 1; break;
          case StencilShape::star13: in = nonzero <= 1 && linf <= 2; break;
          // star7 plus the pairs of opposite-signed unit steps in two axes
          case StencilShape::diamond13: in = l1 <= 1 || (l1 == 2 && nonzero == 2 && x + y + z == 0); break;
          case StencilShape::diamond25: in = l1 <= 2; break;
          case StencilShape::box27: in = linf <= 1; break;
          case StencilShape::custom: break;
        }
        if (in) out.push_back({x, y, z});
      }
  return out;
}

std::string offset_text(const StencilOffset& o) {
  return "(" + std::to_string(o.x) + "," + std::to_string(o.y) + "," + std::to_string(o.z) + ")";
}

}  // namespace

Stencil::Stencil(StencilShape shape) : shape_(shape), offsets_(named_offsets(shape)) {
  if (shape == StencilShape::custom) throw InputError("stencil: a custom stencil needs its offsets");
  finish();
}

Stencil::Stencil(std::vector<StencilOffset> offsets) : offsets_(std::move(offsets)) {
  finish();
  for (StencilShape s : values<StencilShape>())
    if (s != StencilShape::custom && named_offsets(s) == offsets_) shape_ = s;
}

void Stencil::finish() {
  std::sort(offsets_.begin(), offsets_.end());
  for (size_t k = 1; k < offsets_.size(); ++k)
    if (offsets_[k] == offsets_[k - 1])
      throw InputError("stencil: offset " + offset_text(offsets_[k]) + " is repeated");
  const auto c = std::find(offsets_.begin(), offsets_.end(), StencilOffset{0, 0, 0});
  if (c == offsets_.end()) throw InputError("stencil: the centre (0,0,0) is missing");
  centre_ = int(c - offsets_.begin());
}

std::string Stencil::name() const {
  if (shape_ != StencilShape::custom) return to_string(shape_);
  std::string s = "custom{";
  for (size_t k = 0; k < offsets_.size(); ++k) s += (k ? "," : "") + offset_text(offsets_[k]);
  return s + "}";
}

int Stencil::index_of(const StencilOffset& o) const {
  const auto it = std::lower_bound(offsets_.begin(), offsets_.end(), o);
  return it != offsets_.end() && *it == o ? int(it - offsets_.begin()) : -1;
}

std::array<int, 3> Stencil::reach() const {
  std::array<int, 3> r{0, 0, 0};
  for (const auto& o : offsets_)
    r = {std::max(r[0], std::abs(o.x)), std::max(r[1], std::abs(o.y)), std::max(r[2], std::abs(o.z))};
  return r;
}

Stencil Stencil::level_one_fill() const {
  std::vector<StencilOffset> out = offsets_;
  for (int l = 0; l < centre_; ++l)
    for (int u = centre_ + 1; u < size(); ++u) {
      const StencilOffset s{offsets_[l].x + offsets_[u].x, offsets_[l].y + offsets_[u].y,
                            offsets_[l].z + offsets_[u].z};
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  return Stencil(std::move(out));
}

WavefrontTransform Stencil::wavefront(int nx, int ny, int nz) const {
  // An offset o of a lower point is a dependency of the forward sweep; the
  // negation of an upper offset is one of the backward sweep.
  auto backward = [](const WavefrontTransform& t, const StencilOffset& o) {
    return t.hat_x(o.x, o.y, o.z) <= 0 && t.hat_y(o.y, o.z) <= 0 && t.level(o.x, o.y, o.z) < 0;
  };
  // a, b, c up to 16: Diamond-25P's level-1 fill has lower offsets (3,-1,0)
  // and (0,3,-1), which need a >= 3 and b >= 3a (b = 9 at the least).
  constexpr int largest = 16;
  WavefrontTransform best;
  long best_levels = std::numeric_limits<long>::max();
  for (int a = 0; a <= largest; ++a)
    for (int b = 0; b <= largest; ++b)
      for (int c = 0; c <= largest; ++c) {
        const WavefrontTransform t{a, b, c};
        bool ok = true;
        for (int k = 0; k < size() && ok; ++k) {
          const StencilOffset& o = offsets_[k];
          if (k < centre_) ok = backward(t, o);
          if (k > centre_) ok = backward(t, {-o.x, -o.y, -o.z});
        }
        const long levels = long(t.level(nx - 1, ny - 1, nz - 1)) + 1;
        if (ok && levels < best_levels) best = t, best_levels = levels;
      }
  if (best_levels == std::numeric_limits<long>::max())
    throw InputError("stencil " + name() + ": no wavefront transform i + a j + b k, j + c k (a, b, c <= " +
                     std::to_string(largest) + ") makes every dependency point backward");
  return best;
}

}  // namespace trellis
