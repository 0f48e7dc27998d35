#pragma once
// What differs between the Kokkos and Kokkos Kernels versions Trellis builds
// on: 3.4.01 (inside Debian's Trilinos 13.2; CI) and 4.x (what Trilinos 14-16
// ship; checked on 4.6, docs/kokkos-versions.md). Everything else the
// library uses has one spelling in both.
//
// - The math functions left Kokkos::Experimental in Kokkos 3.7: trellis::math.
// - The sparse utilities moved from KokkosKernels::Impl (KokkosKernels_
//   SparseUtils.hpp) to KokkosSparse (KokkosSparse_SortCrs.hpp,
//   KokkosSparse_Utils.hpp) and bitonicSort to KokkosKernels in Kokkos
//   Kernels 4.0: trellis::compat::sort_crs_matrix, transpose_matrix,
//   bitonic_sort.
// - sptrsv_symbolic / sptrsv_solve left KokkosSparse::Experimental in Kokkos
//   Kernels 4.6 (the handle's SPTRSVAlgorithm stayed): the namespace
//   trellis::compat::sptrsv names whichever holds them (include
//   KokkosSparse_sptrsv.hpp to use it).
// - atomic_increment is deprecated in Kokkos 4 and its atomic_inc is not in
//   3.4: trellis::compat::atomic_increment.
// - create_mirror_view(space, v, WithoutInitializing) is gone in Kokkos 4,
//   whose view_alloc form 3.4 lacks: trellis::compat::create_mirror_view_uninitialized.
// - Kokkos::InitArguments became InitializationSettings in Kokkos 3.7 and is
//   gone in 4: trellis::compat::initialize.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_config.h>

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
#define TRELLIS_KOKKOSKERNELS_4 1
#include <KokkosKernels_Sorting.hpp>
#include <KokkosSparse_SortCrs.hpp>
#include <KokkosSparse_Utils.hpp>
#else
#define TRELLIS_KOKKOSKERNELS_4 0
#include <KokkosKernels_Sorting.hpp>
#include <KokkosKernels_SparseUtils.hpp>
#endif

namespace KokkosSparse::Experimental {}

namespace trellis {

namespace math {
#if KOKKOS_VERSION >= 30700
using Kokkos::fabs;
using Kokkos::fmax;
using Kokkos::isfinite;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::fmax;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::sqrt;
#endif
}  // namespace math

namespace compat {

template <class T>
KOKKOS_INLINE_FUNCTION void atomic_increment(T* p) {
  Kokkos::atomic_add(p, T(1));
}

/// A mirror of v in `space` (v itself where v is there already), its values unset.
template <class Space, class View>
auto create_mirror_view_uninitialized(const Space& space, const View& v) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::create_mirror_view(Kokkos::view_alloc(space, Kokkos::WithoutInitializing), v);
#else
  return Kokkos::create_mirror_view(space, v, Kokkos::WithoutInitializing);
#endif
}

/// Sorts each row of a CSR pattern by column, permuting `values` alike.
template <class Exec, class RowMap, class Entries, class Values>
void sort_crs_matrix(const RowMap& row_map, const Entries& entries, const Values& values) {
#if TRELLIS_KOKKOSKERNELS_4
  KokkosSparse::sort_crs_matrix<Exec>(row_map, entries, values);
#else
  KokkosKernels::Impl::sort_crs_matrix<Exec>(row_map, entries, values);
#endif
}

/// The transpose of a CSR matrix into preallocated views (t_row_map zeroed).
template <class RowMap, class Entries, class Values, class TRowMap, class TEntries, class TValues, class Work,
          class Exec, class Ordinal>
void transpose_matrix(Ordinal rows, Ordinal cols, const RowMap& row_map, const Entries& entries, const Values& values,
                      const TRowMap& t_row_map, const TEntries& t_entries, const TValues& t_values) {
#if TRELLIS_KOKKOSKERNELS_4
  KokkosSparse::Impl::transpose_matrix<RowMap, Entries, Values, TRowMap, TEntries, TValues, Work, Exec>(
      rows, cols, row_map, entries, values, t_row_map, t_entries, t_values);
#else
  KokkosKernels::Impl::transpose_matrix<RowMap, Entries, Values, TRowMap, TEntries, TValues, Work, Exec>(
      rows, cols, row_map, entries, values, t_row_map, t_entries, t_values);
#endif
}

/// Sorts a device view ascending (a bitonic sort, for device memory).
template <class View, class Exec, class Ordinal>
void bitonic_sort(const View& keys) {
#if TRELLIS_KOKKOSKERNELS_4
  KokkosKernels::bitonicSort<View, Exec, Ordinal>(keys);
#else
  KokkosKernels::Impl::bitonicSort<View, Exec, Ordinal>(keys);
#endif
}

/// Kokkos::initialize with `threads` host threads (0: Kokkos's default) and
/// its warnings on or off.
inline void initialize(int threads, bool warnings) {
#if KOKKOS_VERSION >= 30700
  Kokkos::InitializationSettings settings;
  if (threads > 0) settings.set_num_threads(threads);
  settings.set_disable_warnings(!warnings);
#else
  Kokkos::InitArguments settings;
  settings.num_threads = threads > 0 ? threads : -1;
  settings.disable_warnings = !warnings;
#endif
  Kokkos::initialize(settings);
}

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40600
namespace sptrsv = ::KokkosSparse;
#else
namespace sptrsv = ::KokkosSparse::Experimental;
#endif

}  // namespace compat
}  // namespace trellis
