#pragma once
// A stencil matrix as a Krylov operator in the layout order of a StructIlu
// (seed 003's vector-oriented layout, section 4.4): y = A x with x and y in
// layout order, so that a Krylov solve preconditioned by StructILU runs in
// that order throughout and permutes only at its start and end.
//
// A thread per row of a point in layout order: consecutive threads take
// consecutive positions of a level's run, whose neighbours along an entry
// are again consecutive, so every load of a warp (A's blocks, x) is one
// contiguous range, as in the sweeps.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "trellis/core/device_copy.hpp"
#include "trellis/solvers/linear_operator.hpp"
#include "trellis/structured/struct_ilu.hpp"

namespace trellis {

namespace detail {

/// point_of(position(p)) = p.
template <class Device>
void invert_positions(const typename Device::execution_space& space, Kokkos::View<ordinal_t*, Device> position,
                      Kokkos::View<long*, Device> point_of) {
  Kokkos::parallel_for(
      "trellis::stencil_operator::point_of",
      trellis::RangePolicy<typename Device::execution_space>(space, 0, point_of.extent(0)),
      KOKKOS_LAMBDA(long p) { point_of(position(p)) = p; });
}

/// y = A x in layout order, a thread per row of a point.
template <class Scalar, class Device>
void stencil_spmv(const typename Device::execution_space& space, const structured::WavefrontLayout<Device>& L,
                  const structured::detail::FactorStorage<Scalar, Device>& A,
                  Kokkos::View<const long*, Device> point_of, Kokkos::View<const Scalar*, Device> x,
                  Kokkos::View<Scalar*, Device> y) {
  const auto base = L.base;
  const auto t = L.transform;
  const int H = L.height, nx = L.grid[0], ny = L.grid[1], nz = L.grid[2];
  const int dof = A.dof, entries = A.entries;
  Kokkos::parallel_for(
      "trellis::stencil_operator::apply", trellis::RangePolicy<typename Device::execution_space>(space, 0, A.n * dof),
      KOKKOS_LAMBDA(long row) {
        const long pos = row / dof;
        const int r = int(row % dof);
        const long p = point_of(pos);
        const int i = int(p % nx), j = int((p / nx) % ny), k = int(p / (long(nx) * ny));
        const int hi = t.hat_x(i, j, k), hj = t.hat_y(j, k), lev = t.level(i, j, k);
        Scalar sum = 0;
        for (int e = 0; e < entries; ++e) {
          const long q = structured::detail::neighbour_position(base, H, nx, ny, nz, A.shifts(e), i, j, k, hi, hj, lev);
          if (q < 0) continue;
          for (int c = 0; c < dof; ++c) sum += A.values(A.at(e, pos, r, c)) * x(q * dof + c);
        }
        y(row) = sum;
      });
}

/// A's values (entries of A's stencil, layout order) from a StructIlu's
/// device copy of A (F: StructIlu::loaded_matrix(), factor_entry: each A
/// entry's index in the factors' stencil); couplings outside the grid 0.
template <class Scalar, class Device>
void copy_loaded_values(const typename Device::execution_space& space, const structured::WavefrontLayout<Device>& L,
                        const structured::detail::FactorStorage<Scalar, Device>& A,
                        const structured::detail::FactorStorage<Scalar, Device>& F,
                        Kokkos::View<const int*, Device> factor_entry, Kokkos::View<const long*, Device> point_of) {
  const auto base = L.base;
  const auto t = L.transform;
  const int H = L.height, nx = L.grid[0], ny = L.grid[1], nz = L.grid[2];
  const int dof = A.dof, entries = A.entries;
  Kokkos::parallel_for(
      "trellis::stencil_operator::copy_loaded_values",
      trellis::RangePolicy<typename Device::execution_space>(space, 0, A.n), KOKKOS_LAMBDA(long pos) {
        const long p = point_of(pos);
        const int i = int(p % nx), j = int((p / nx) % ny), k = int(p / (long(nx) * ny));
        const int hi = t.hat_x(i, j, k), hj = t.hat_y(j, k), lev = t.level(i, j, k);
        for (int e = 0; e < entries; ++e) {
          const long q = structured::detail::neighbour_position(base, H, nx, ny, nz, A.shifts(e), i, j, k, hi, hj, lev);
          const int f = factor_entry(e);
          for (int r = 0; r < dof; ++r)
            for (int c = 0; c < dof; ++c)
              A.values(A.at(e, pos, r, c)) = q < 0 ? Scalar(0) : F.values(F.at_entry(f, pos, q, r, c));
        }
      });
}

}  // namespace detail

template <class Scalar = double, class Device = DefaultDevice>
class StencilOperator : public LinearOperator<Scalar, Device> {
 public:
  using typename LinearOperator<Scalar, Device>::execution_space;
  using typename LinearOperator<Scalar, Device>::vector_type;
  using typename LinearOperator<Scalar, Device>::const_vector_type;

  /// A in the layout order of M (built from a matrix with A's grid and
  /// dof), its values uploaded from A.
  StencilOperator(const execution_space& space, const StructIlu<Scalar, Device>& M, const StencilMatrix& A)
      : layout_(M.layout()), offsets_(A.stencil().offsets()) {
    if (A.grid() != layout_.grid || A.dof() != M.dof())
      throw InputError("StencilOperator: the matrix's grid and dof are not the preconditioner's");
    allocate(space, A.stencil(), M);
    numeric(space, A);
  }
  /// The matrix M was built from (or last given to its numeric()), from M's
  /// device copy: no upload from the host.
  StencilOperator(const execution_space& space, const StructIlu<Scalar, Device>& M)
      : layout_(M.layout()), offsets_(M.matrix_offsets()) {
    allocate(space, Stencil(offsets_), M);
    numeric(space, M);
  }

  /// New values of a matrix with the same grid, stencil and dof.
  void numeric(const execution_space& space, const StencilMatrix& A) {
    if (A.grid() != layout_.grid || A.dof() != A_.dof || A.stencil().offsets() != offsets_)
      throw InputError("StencilOperator: numeric() needs a matrix with the same grid, stencil and dof");
    structured::detail::load_stencil_values(space, layout_, A_, A);
  }
  /// The values M last loaded (after M.numeric(A_new)), from its device copy.
  void numeric(const execution_space& space, const StructIlu<Scalar, Device>& M) {
    if (M.layout().grid != layout_.grid || M.dof() != A_.dof || M.matrix_offsets() != offsets_)
      throw InputError("StencilOperator: numeric() needs a preconditioner of the same grid, stencil and dof");
    detail::copy_loaded_values<Scalar, Device>(space, layout_, A_, M.loaded_matrix(), factor_entry_, point_of_);
  }

  ordinal_t num_rows() const override { return ordinal_t(A_.n * A_.dof); }

 protected:
  void apply_on(const execution_space& space, const_vector_type x, vector_type y) const override {
    if (x.extent(0) != size_t(num_rows()) || y.extent(0) != size_t(num_rows()))
      throw InputError("StencilOperator: vectors of " + std::to_string(x.extent(0)) + " and " +
                       std::to_string(y.extent(0)) + " values for " + std::to_string(num_rows()) + " rows");
    detail::stencil_spmv<Scalar, Device>(space, layout_, A_, point_of_, x, y);
  }

 private:
  structured::WavefrontLayout<Device> layout_;  // the preconditioner's (its Views shared)
  std::vector<StencilOffset> offsets_;          // A's stencil, to check numeric()
  structured::detail::FactorStorage<Scalar, Device> A_;
  Kokkos::View<long*, Device> point_of_;     // layout position -> grid point
  Kokkos::View<int*, Device> factor_entry_;  // A's entry e in the preconditioner's factor stencil

  void allocate(const execution_space& space, const Stencil& stencil, const StructIlu<Scalar, Device>& M) {
    const auto shifts = structured::entry_shifts(stencil, layout_.transform);
    A_.shifts = to_device_array<Device>(space, shifts, "trellis::stencil_operator::shifts");
    std::vector<int> factor_entry;
    for (const auto& o : stencil.offsets()) factor_entry.push_back(M.factor_stencil().index_of(o));
    factor_entry_ = to_device_array<Device>(space, factor_entry, "trellis::stencil_operator::factor_entry");
    A_.n = layout_.points();
    A_.dof = M.dof();
    A_.entries = stencil.size();
    A_.centre = stencil.centre();
    A_.values = Kokkos::View<Scalar*, Device>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::stencil_operator::values"),
        size_t(A_.n) * A_.entries * A_.dof * A_.dof);
    point_of_ = Kokkos::View<long*, Device>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::stencil_operator::point_of"), A_.n);
    detail::invert_positions(space, layout_.position, point_of_);
    space.fence();  // the host vectors leave scope
  }
};

}  // namespace trellis
