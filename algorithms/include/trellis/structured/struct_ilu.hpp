#pragma once
// StructILU (seed 003): dependency-preserving ILU(0), ILU(1), IC(0) and IC(1)
// of a stencil matrix, factored and applied on the wavefront mapping and
// level-based layout of wavefront_layout.hpp, with no index arrays and no
// analysis beyond the layout (a few passes over the grid).
//
//   ilu0  ILU(0) on the matrix's stencil
//   ilu1  ILU(1): ILU(0) on the stencil of the level-1 fill, S ∪ (S_L + S_U)
//         (exactly ILU(1)'s pattern when the grid holds the fill's
//         intermediate points, as for the named stencils)
//   ic0, ic1  the same factorizations of a symmetric matrix (checked), as
//         IC's L D Lᵀ (U = D Lᵀ): one factor stored (L and D^{-1}), no
//         updates of the upper entries made, the upper solve applying Lᵀ
//
// The result equals the CSR/BSR ILU(0) of the same matrix up to rounding:
// the same eliminations in the same order (the lower entries of each row in
// increasing column order). The preconditioner works in the natural
// numbering; the *_layout calls work in layout order and skip the two
// permutations.
//
//   StructIlu<> M(A, {StructIluKind::ic0});
//   M.apply(r, z);   // z = (L U)^{-1} r
//
// Applications with one object must not overlap (threads or instances):
// they share its wavefront flags and work vector.
#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/device_copy.hpp"
#include "trellis/core/eti.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/ilu/pivot_options.hpp"
#include "trellis/structured/detail/launch_rules.hpp"
#include "trellis/structured/detail/struct_ilu_kernels.hpp"
#include "trellis/structured/stencil_matrix.hpp"
#include "trellis/structured/struct_ilu_kind.hpp"
#include "trellis/structured/wavefront_layout.hpp"

namespace trellis {

struct StructIluOptions {
  StructIluKind kind = StructIluKind::ilu0;
  ilu::PivotOptions pivots;  // tiny pivots: error (default) or boost
  // Each automatic setting below is a rule of structured/detail/launch_rules.hpp.
  // lines per team; {0, 0}: the backend's default (at dof > 1 on GPUs,
  // about 256 / dof lines: a point runs as dof threads). Lines x dof beyond
  // the kernel's team size work, but slower.
  structured::TileShape tile;
  // Factor a point with a thread per entry and row of its block row.
  // automatic: at dof 1 on GPUs, for ten or more lower entries (Diamond-25P,
  // Box-27P); on a CPU core the lanes run in turn. on: at any dof (dof x
  // entries threads a point, slower at dof 4-8). ILU only: IC refuses on.
  enum class EntryLanes { automatic, on, off } entry_lanes = EntryLanes::automatic;
  // A team waits for its neighbour tiles once per this many levels
  // (WavefrontLayout::levels_per_wait); 0: automatic (on GPUs 2-4 for the
  // solves at DoF 1-2, else 1).
  int levels_per_wait = 0;
  // Teams launched per multiprocessor, each sweeping tiles by ticket
  // (WavefrontLayout::teams_per_sm); team_per_tile: one team per tile; 0:
  // automatic (on GPUs 1 at DoF >= 2, else a team per tile).
  static constexpr int team_per_tile = -1;
  int teams_per_sm = 0;
  // The solves' intra-row pipeline (seed 003, section 4.2.1): a point's
  // entries two or more levels back are summed before its level's wait,
  // so only those of the previous level follow it. Off by default: on an
  // H100 it gave 0.92-1.00x at DoF 1-2 and 1.04x at DoF 8 (the waiting
  // thread's early sum delays its poll; perf_tests/journal/RESULTS.md).
  bool pipelined_solves = false;
  // The factorization's intra-row level sets and two-substage pipeline
  // (section 4.2.2): a point's lower entries eliminated level by level
  // (entry lanes: a phase per level, not two per entry), those two or more
  // levels back before its wait. Off: column order, an entry at a time.
  bool pipelined_factor = true;
};

template <>
struct NameTable<StructIluOptions::EntryLanes> {
  static constexpr const char* what = "entry-lanes choice";
  static constexpr NameEntry<StructIluOptions::EntryLanes> entries[] = {
      {StructIluOptions::EntryLanes::automatic, "automatic"},
      {StructIluOptions::EntryLanes::on, "on"},
      {StructIluOptions::EntryLanes::off, "off"},
  };
};

template <class Scalar = double, class Device = DefaultDevice>
class StructIlu {
 public:
  using execution_space = typename Device::execution_space;
  using vector_type = Kokkos::View<Scalar*, Device>;
  using const_vector_type = Kokkos::View<const Scalar*, Device>;

  /// Layout and factorization. InputError for ic* on a nonsymmetric matrix;
  /// PivotError naming the grid point and DoF of a zero, tiny or non-finite
  /// pivot (unless options.pivots.boost replaces tiny ones).
  StructIlu(const execution_space& space, const StencilMatrix& A, StructIluOptions options = {});
  explicit StructIlu(const StencilMatrix& A, StructIluOptions options = {})
      : StructIlu(execution_space(), A, options) {}

  /// Factors new values of a matrix with the same grid, stencil and DoF,
  /// reusing the layout (InputError if they differ).
  void numeric(const execution_space& space, const StencilMatrix& A);
  /// Factors the values last given again (from their device copy in the
  /// factors' layout): the numeric factorization alone, as benchmarks time it.
  void factor(const execution_space& space);

  /// z = (L U)^{-1} r in the natural numbering (r, z: points * dof values).
  void apply(const execution_space& space, const_vector_type r, vector_type z) const;
  void apply(const_vector_type r, vector_type z) const { apply(execution_space(), r, z); }
  /// z = L^{-1} r and z = U^{-1} r in the natural numbering (split use).
  void lower_solve(const execution_space& space, const_vector_type r, vector_type z) const;
  void upper_solve(const execution_space& space, const_vector_type r, vector_type z) const;
  /// x = (L U)^{-1} x, x in layout order.
  void apply_layout(const execution_space& space, vector_type x) const;
  /// x = L^{-1} x and x = U^{-1} x, in layout order.
  void lower_solve_layout(const execution_space& space, vector_type x) const;
  void upper_solve_layout(const execution_space& space, vector_type x) const;
  /// Natural numbering <-> layout order.
  void to_layout(const execution_space& space, const_vector_type natural, vector_type layout) const;
  void from_layout(const execution_space& space, const_vector_type layout, vector_type natural) const;

  const Stencil& factor_stencil() const { return stencil_; }
  int dof() const { return dof_; }
  ordinal_t num_rows() const { return ordinal_t(layout_.points() * dof_); }
  const structured::WavefrontLayout<Device>& layout() const { return layout_; }
  /// The factor values in the vector-oriented layout (struct_ilu_kernels.hpp).
  const structured::detail::FactorStorage<Scalar, Device>& factors() const { return factors_; }
  /// A as last loaded (constructor or numeric()), in the factors' layout
  /// (IC: its lower entries and centre, the upper ones read through
  /// FactorStorage::at_entry); ILU(1)'s fill entries 0.
  structured::detail::FactorStorage<Scalar, Device> loaded_matrix() const {
    auto A = factors_;
    A.values = matrix_values_;
    return A;
  }
  /// The matrix's stencil (the factors' is larger for ILU(1)).
  const std::vector<StencilOffset>& matrix_offsets() const { return matrix_offsets_; }
  /// The factors' memory: IC's one factor holds (centre + 1) / entries of ILU's.
  size_t factor_bytes() const { return factors_.values.extent(0) * sizeof(Scalar); }
  double layout_seconds() const { return layout_seconds_; }
  double factorization_seconds() const { return factorization_seconds_; }
  int boosted_pivots() const { return boosted_; }
  /// InputError unless r and z hold num_rows() values each.
  void check_sizes(const_vector_type r, vector_type z) const;

 private:
  StructIluOptions options_;
  Stencil stencil_;  // the factors' stencil (with ILU(1)'s fill)
  std::array<int, 3> grid_;
  int dof_ = 1;
  std::vector<StencilOffset> matrix_offsets_;           // the matrix's stencil, to check numeric()
  mutable structured::WavefrontLayout<Device> layout_;  // sweeps advance its flags
  structured::WavefrontLayout<Device> factor_layout_;   // layout_, or its entry-lane tiles
  structured::detail::FactorStorage<Scalar, Device> factors_;
  Kokkos::View<Scalar*, Device> matrix_values_;  // A in the factors' layout, fill entries 0
  structured::detail::FactorPlan<Device> plan_;
  mutable vector_type work_;
  vector_type row_scale_;  // each block row's largest entry, per row (factorization)
  double layout_seconds_ = 0, factorization_seconds_ = 0;
  int boosted_ = 0;
};

// ---- definitions (compiled once per backend for double: see core/eti.hpp) ----

namespace structured::detail {

/// Runs f(std::integral_constant<int, B>) for B = dof (1..8).
template <class F>
void with_block_size(int dof, F&& f) {
  switch (dof) {
    case 1: f(std::integral_constant<int, 1>()); break;
    case 2: f(std::integral_constant<int, 2>()); break;
    case 3: f(std::integral_constant<int, 3>()); break;
    case 4: f(std::integral_constant<int, 4>()); break;
    case 5: f(std::integral_constant<int, 5>()); break;
    case 6: f(std::integral_constant<int, 6>()); break;
    case 7: f(std::integral_constant<int, 7>()); break;
    case 8: f(std::integral_constant<int, 8>()); break;
    default: throw InputError("structilu: dof " + std::to_string(dof) + " is outside 1..8");
  }
}

/// Copies A's blocks into the vector-oriented layout (the factor's stored
/// entries: IC's lower ones and the centre), couplings outside the grid 0.
/// row_scale, when given: each row's largest entry of A (IC's pivot scale:
/// the upper entries are not stored).
template <class Scalar, class Device>
void load_stencil_values(const typename Device::execution_space& space, const WavefrontLayout<Device>& L,
                         const FactorStorage<Scalar, Device>& F, const StencilMatrix& A,
                         Kokkos::View<Scalar*, Device> row_scale = {}) {
  using exec = typename Device::execution_space;
  const int s = A.stencil().size(), dof = A.dof();
  std::vector<EntryShift> shift_host;
  for (const auto& o : A.stencil().offsets()) shift_host.push_back({o.x, o.y, o.z, 0, 0, 0});
  const auto a_shift = to_device_array<Device>(space, shift_host, "trellis::structilu::matrix_shifts");
  Kokkos::View<const double*, Device> a_values;
  {
    Kokkos::View<double*, Device> d(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::structilu::matrix"), A.values().extent(0));
    Kokkos::deep_copy(space, d, A.values());
    a_values = d;
  }
  const auto values = F.values;
  Kokkos::deep_copy(space, values, Scalar(0));
  const auto position = L.position;
  const auto shifts = F.shifts;
  const int nx = L.grid[0], ny = L.grid[1], nz = L.grid[2], fe = F.entries, stored = F.stored_entries();
  const bool scales = row_scale.extent(0) > 0;
  Kokkos::parallel_for(
      "trellis::structilu::load", trellis::RangePolicy<exec>(space, 0, L.points()), KOKKOS_LAMBDA(long p) {
        const int i = int(p % nx), j = int((p / nx) % ny), k = int(p / (long(nx) * ny));
        const long pos = position(p);
        for (int r = 0; r < dof && scales; ++r) row_scale(pos * dof + r) = 0;
        for (int e = 0; e < s; ++e) {
          const EntryShift o = a_shift(e);
          if (i + o.x < 0 || j + o.y < 0 || k + o.z < 0 || i + o.x >= nx || j + o.y >= ny || k + o.z >= nz) continue;
          int f = 0;  // the factor's entry for this offset (the factor stencil contains A's)
          while (f < fe && !(shifts(f).x == o.x && shifts(f).y == o.y && shifts(f).z == o.z)) ++f;
          for (int r = 0; r < dof; ++r)
            for (int c = 0; c < dof; ++c) {
              const Scalar v = Scalar(a_values((size_t(p) * s + e) * dof * dof + r * dof + c));
              if (f < stored) values(F.at(f, pos, r, c)) = v;
              if (scales && math::fabs(v) > row_scale(pos * dof + r)) row_scale(pos * dof + r) = math::fabs(v);
            }
        }
      });
  space.fence();  // the host vectors and A's device copy leave scope
}

}  // namespace structured::detail

template <class Scalar, class Device>
StructIlu<Scalar, Device>::StructIlu(const execution_space& space, const StencilMatrix& A, StructIluOptions options)
    : options_(options),
      stencil_(options.kind == StructIluKind::ilu1 || options.kind == StructIluKind::ic1 ? A.stencil().level_one_fill()
                                                                                         : A.stencil()),
      grid_(A.grid()),
      dof_(A.dof()),
      matrix_offsets_(A.stencil().offsets()) {
  const bool ic = options.kind == StructIluKind::ic0 || options.kind == StructIluKind::ic1;
  if (ic && !A.is_symmetric())
    throw InputError(std::string("structilu:") + to_string(options.kind) +
                     ": the matrix is not symmetric (IC needs A = Aᵀ); use ilu0 or ilu1");
  if (ic)  // a symmetric matrix can still have a stencil offset without its mirror (zero blocks)
    for (int e = 0; e < stencil_.size(); ++e) {
      const auto& o = stencil_.offsets()[e];
      if (stencil_.index_of({-o.x, -o.y, -o.z}) != stencil_.size() - 1 - e)
        throw InputError(std::string("structilu:") + to_string(options.kind) + ": the stencil has offset (" +
                         std::to_string(o.x) + "," + std::to_string(o.y) + "," + std::to_string(o.z) +
                         ") without its mirror; IC needs a symmetric stencil (use ilu0 or ilu1)");
    }
  if (ic && options.entry_lanes == StructIluOptions::EntryLanes::on)
    throw InputError(std::string("structilu:") + to_string(options.kind) +
                     ": entry lanes factor ILU only (IC factors a block row per point)");
  auto t0 = now();
  const auto shifts = structured::entry_shifts(stencil_, stencil_.wavefront(grid_[0], grid_[1], grid_[2]));
  auto reaching = [&](structured::TileShape t) {  // a tile at least as wide as the stencil's reach
    for (const auto& e : shifts) t = {std::max(t.x, std::abs(e.hx)), std::max(t.y, std::abs(e.hy))};
    return t;
  };
  const bool gpu = !detail::is_host_space<execution_space>();
  const bool default_tile = options.tile.x == 0 && options.tile.y == 0;
  const bool gpu_default_tile = gpu && default_tile;
  // The automatic settings are structured::detail's launch rules. A
  // default tile is widened to the stencil's reach (a level-one fill's
  // transform can reach past it); a tile the caller gave is taken as it is.
  structured::TileShape tile = options.tile;
  if (dof_ > 1 && gpu_default_tile)
    tile = reaching(structured::detail::gpu_tile_at_dof(dof_));
  else if (default_tile)
    tile = reaching(structured::default_tile<execution_space>());
  layout_ = structured::make_wavefront_layout<Device>(space, grid_, stencil_, tile);
  // Entry lanes: the factorization's points as a thread per entry, on tiles of their own.
  using Lanes = StructIluOptions::EntryLanes;
  const bool entry_lanes =
      !ic && stencil_.size() <= 64 &&
      (options.entry_lanes == Lanes::on || (options.entry_lanes == Lanes::automatic &&
                                            structured::detail::automatic_entry_lanes(dof_, stencil_.centre(), gpu)));
  factor_layout_ = layout_;
  if (entry_lanes && gpu_default_tile)
    structured::assign_tiles(space, factor_layout_, stencil_, reaching(structured::detail::entry_lanes_tile(dof_)));
  else
    structured::fresh_progress(factor_layout_);  // the same tiles: only its own flags
  if (options.levels_per_wait < 0)
    throw InputError("structilu: levels_per_wait " + std::to_string(options.levels_per_wait) + " is negative");
  layout_.levels_per_wait = options.levels_per_wait > 0
                                ? options.levels_per_wait
                                : structured::detail::automatic_solve_levels_per_wait(dof_, stencil_.centre(), gpu);
  factor_layout_.levels_per_wait =
      options.levels_per_wait > 0 ? options.levels_per_wait : structured::detail::automatic_factor_levels_per_wait();
  if (options.teams_per_sm < StructIluOptions::team_per_tile)
    throw InputError("structilu: teams_per_sm " + std::to_string(options.teams_per_sm) +
                     " is negative (-1: one team per tile)");
  int teams = options.teams_per_sm > 0 ? options.teams_per_sm : structured::detail::automatic_teams_per_sm(dof_, gpu);
  if (options.teams_per_sm == StructIluOptions::team_per_tile) teams = 0;
  layout_.teams_per_sm = factor_layout_.teams_per_sm = teams;
  // IKJ update lists: lower entry e of row p, upper entry u of row p+e,
  // target entry e+u of row p when the factor stencil has it (IC: only the
  // lower targets; the kernel updates the centre itself).
  std::vector<int> start{0}, upper, target;
  const auto& offs = stencil_.offsets();
  for (int e = 0; e < stencil_.centre(); ++e) {
    for (int u = stencil_.centre() + 1; u < stencil_.size(); ++u) {
      const int t = stencil_.index_of({offs[e].x + offs[u].x, offs[e].y + offs[u].y, offs[e].z + offs[u].z});
      if (t >= 0 && (!ic || t < stencil_.centre())) upper.push_back(u), target.push_back(t);
    }
    start.push_back(int(upper.size()));
  }
  // The elimination order (FactorPlan): by intra-row level, deepest first,
  // in groups of one level, when pipelined; else the column order.
  std::vector<int> order(size_t(stencil_.centre())), group_start{0};
  for (int e = 0; e < stencil_.centre(); ++e) order[e] = e;
  if (options.pipelined_factor)
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return shifts[a].level < shifts[b].level; });
  for (int o = 1; o <= stencil_.centre(); ++o)
    if (o == stencil_.centre() || !options.pipelined_factor || shifts[order[o]].level != shifts[order[o - 1]].level)
      group_start.push_back(o);
  plan_.groups = int(group_start.size()) - 1;
  plan_.deep = 0;
  while (options.pipelined_factor && plan_.deep < stencil_.centre() && shifts[order[plan_.deep]].level <= -2)
    ++plan_.deep;
  auto to_device = [&](const auto& v, const char* label) { return to_device_array<Device>(space, v, label); };
  plan_.update_start = to_device(start, "trellis::structilu::update_start");
  plan_.update_upper = to_device(upper, "trellis::structilu::update_upper");
  plan_.update_target = to_device(target, "trellis::structilu::update_target");
  plan_.order = to_device(order, "trellis::structilu::elimination_order");
  plan_.group_start = to_device(group_start, "trellis::structilu::elimination_groups");
  if (entry_lanes) {  // upper_for[e * size + t]: the upper entry through which lower entry e updates entry t
    std::vector<int> upper_for(size_t(stencil_.centre()) * stencil_.size(), -1);
    for (int e = 0; e < stencil_.centre(); ++e)
      for (int u = start[e]; u < start[e + 1]; ++u) upper_for[size_t(e) * stencil_.size() + target[u]] = upper[u];
    plan_.upper_for = to_device(upper_for, "trellis::structilu::upper_for");
  }
  factors_.shifts = to_device(shifts, "trellis::structilu::shifts");
  {
    Kokkos::View<structured::EntryShift*, Kokkos::HostSpace> host(std::string("trellis::structilu::shifts_host"),
                                                                  shifts.size());
    std::copy(shifts.begin(), shifts.end(), host.data());
    factors_.host_shifts = host;
  }
  factors_.n = layout_.points();
  factors_.dof = dof_;
  factors_.entries = stencil_.size();
  factors_.centre = stencil_.centre();
  factors_.symmetric = ic;
  factors_.values = Kokkos::View<Scalar*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::structilu::factors"),
      size_t(factors_.n) * factors_.stored_entries() * dof_ * dof_);
  matrix_values_ = Kokkos::View<Scalar*, Device>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::structilu::matrix_values"),
      factors_.values.extent(0));
  work_ = vector_type(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::structilu::work"),
                      size_t(factors_.n) * dof_);
  row_scale_ = vector_type(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::structilu::row_scale"),
                           size_t(factors_.n) * dof_);
  space.fence();  // the host vectors leave scope
  layout_seconds_ = seconds_since(t0);
  numeric(space, A);
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::numeric(const execution_space& space, const StencilMatrix& A) {
  if (A.grid() != grid_ || A.dof() != dof_ || A.stencil().offsets() != matrix_offsets_)
    throw InputError("structilu: numeric() needs a matrix with the same grid, stencil and dof");
  if ((options_.kind == StructIluKind::ic0 || options_.kind == StructIluKind::ic1) && !A.is_symmetric())
    throw InputError(std::string("structilu:") + to_string(options_.kind) +
                     ": the matrix is not symmetric; use ilu0 or ilu1");
  auto storage = factors_;
  storage.values = matrix_values_;
  structured::detail::load_stencil_values(space, layout_, storage, A, factors_.symmetric ? row_scale_ : vector_type());
  factor(space);
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::factor(const execution_space& space) {
  const auto t0 = now();
  Kokkos::deep_copy(space, factors_.values, matrix_values_);
  structured::detail::PivotReport report;
  structured::detail::with_block_size(dof_, [&](auto B) {
    report = structured::detail::factor<decltype(B)::value>(space, factor_layout_, factors_, plan_, row_scale_,
                                                            options_.pivots.tolerance, options_.pivots.boost);
  });
  factorization_seconds_ = seconds_since(t0);  // (factor() fenced to read its report)
  boosted_ = report.boosted;
  const long long key = report.first();
  if (key != LLONG_MAX) {
    const long p = long(key / 16);
    const int column = int((key % 16) / 2);
    const bool not_finite = key % 2;
    const int nx = grid_[0], ny = grid_[1];
    const std::string where = std::string("structilu:") + to_string(options_.kind) + ": " +
                              (not_finite ? "non-finite pivot" : "zero or tiny pivot") + " at grid point (" +
                              std::to_string(p % nx) + "," + std::to_string((p / nx) % ny) + "," +
                              std::to_string(p / (long(nx) * ny)) + "), dof " + std::to_string(column);
    throw PivotError(where, long(p * dof_ + column), 0.0);
  }
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::to_layout(const execution_space& space, const_vector_type natural,
                                          vector_type layout) const {
  const auto position = layout_.position;
  const int dof = dof_;
  Kokkos::parallel_for(
      "trellis::structilu::to_layout", trellis::RangePolicy<execution_space>(space, 0, layout_.points()),
      KOKKOS_LAMBDA(long p) {
        for (int r = 0; r < dof; ++r) layout(long(position(p)) * dof + r) = natural(p * dof + r);
      });
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::from_layout(const execution_space& space, const_vector_type layout,
                                            vector_type natural) const {
  const auto position = layout_.position;
  const int dof = dof_;
  Kokkos::parallel_for(
      "trellis::structilu::from_layout", trellis::RangePolicy<execution_space>(space, 0, layout_.points()),
      KOKKOS_LAMBDA(long p) {
        for (int r = 0; r < dof; ++r) natural(p * dof + r) = layout(long(position(p)) * dof + r);
      });
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::lower_solve_layout(const execution_space& space, vector_type x) const {
  structured::detail::with_block_size(dof_, [&](auto B) {
    structured::detail::triangular_sweep<decltype(B)::value>(space, layout_, factors_, x, true,
                                                             options_.pipelined_solves);
  });
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::upper_solve_layout(const execution_space& space, vector_type x) const {
  structured::detail::with_block_size(dof_, [&](auto B) {
    structured::detail::triangular_sweep<decltype(B)::value>(space, layout_, factors_, x, false,
                                                             options_.pipelined_solves);
  });
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::apply_layout(const execution_space& space, vector_type x) const {
  lower_solve_layout(space, x);
  upper_solve_layout(space, x);
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::check_sizes(const_vector_type r, vector_type z) const {
  if (r.extent(0) != size_t(num_rows()) || z.extent(0) != size_t(num_rows()))
    throw InputError("structilu: vectors of " + std::to_string(r.extent(0)) + " and " + std::to_string(z.extent(0)) +
                     " values for a matrix of " + std::to_string(num_rows()) + " rows");
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::apply(const execution_space& space, const_vector_type r, vector_type z) const {
  check_sizes(r, z);
  to_layout(space, r, work_);
  apply_layout(space, work_);
  from_layout(space, work_, z);
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::lower_solve(const execution_space& space, const_vector_type r, vector_type z) const {
  check_sizes(r, z);
  to_layout(space, r, work_);
  lower_solve_layout(space, work_);
  from_layout(space, work_, z);
}

template <class Scalar, class Device>
void StructIlu<Scalar, Device>::upper_solve(const execution_space& space, const_vector_type r, vector_type z) const {
  check_sizes(r, z);
  to_layout(space, r, work_);
  upper_solve_layout(space, work_);
  from_layout(space, work_, z);
}

#if TRELLIS_ENABLE_ETI
#define TRELLIS_STRUCT_ILU_ETI(DEVICE) extern template class StructIlu<double, DEVICE>;
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_STRUCT_ILU_ETI)
#undef TRELLIS_STRUCT_ILU_ETI
#endif

}  // namespace trellis
