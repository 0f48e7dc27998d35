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

}  // namespace detail

template <class Scalar = double, class Device = DefaultDevice>
class StencilOperator : public LinearOperator<Scalar, Device> {
 public:
  using typename LinearOperator<Scalar, Device>::execution_space;
  using typename LinearOperator<Scalar, Device>::vector_type;
  using typename LinearOperator<Scalar, Device>::const_vector_type;

  /// A in the layout order of M (built from a matrix with A's grid and dof).
  StencilOperator(const execution_space& space, const StructIlu<Scalar, Device>& M, const StencilMatrix& A)
      : layout_(M.layout()), offsets_(A.stencil().offsets()) {
    if (A.grid() != layout_.grid || A.dof() != M.dof())
      throw InputError("StencilOperator: the matrix's grid and dof are not the preconditioner's");
    const auto shifts = structured::entry_shifts(A.stencil(), layout_.transform);
    Kokkos::View<structured::EntryShift*, Device> d("trellis::stencil_operator::shifts", shifts.size());
    Kokkos::deep_copy(space, d,
                      Kokkos::View<const structured::EntryShift*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                          shifts.data(), shifts.size()));
    A_.shifts = d;
    A_.n = layout_.points();
    A_.dof = A.dof();
    A_.entries = A.stencil().size();
    A_.centre = A.stencil().centre();
    A_.values = Kokkos::View<Scalar*, Device>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::stencil_operator::values"),
        size_t(A_.n) * A_.entries * A_.dof * A_.dof);
    point_of_ = Kokkos::View<long*, Device>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "trellis::stencil_operator::point_of"), A_.n);
    detail::invert_positions(space, layout_.position, point_of_);
    numeric(space, A);
  }

  /// New values of a matrix with the same grid, stencil and dof.
  void numeric(const execution_space& space, const StencilMatrix& A) {
    if (A.grid() != layout_.grid || A.dof() != A_.dof || A.stencil().offsets() != offsets_)
      throw InputError("StencilOperator: numeric() needs a matrix with the same grid, stencil and dof");
    structured::detail::load_stencil_values(space, layout_, A_, A);
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
  Kokkos::View<long*, Device> point_of_;  // layout position -> grid point
};

}  // namespace trellis
