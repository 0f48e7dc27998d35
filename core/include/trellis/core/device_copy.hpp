#pragma once
// Host data copied to the device: a device matrix that host matrices of one
// shape are copied into, again and again (numeric refactorizations from host
// values), allocated at the first upload and whenever the shape changes; and
// a host vector's copy as a device array.
#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"

namespace trellis {

template <class Scalar, class Device>
class DeviceCopy {
 public:
  /// A's arrays copied (queued on `space`) into this object's device arrays;
  /// the result views them.
  BsrMatrix<Scalar, Device> upload(const typename Device::execution_space& space, const HostBsr& A) {
    if (row_map_.extent(0) != A.row_map.extent(0)) row_map_ = decltype(row_map_)(label("row_map"), A.row_map.extent(0));
    if (entries_.extent(0) != A.entries.extent(0)) entries_ = decltype(entries_)(label("entries"), A.entries.extent(0));
    if (values_.extent(0) != A.values.extent(0)) values_ = decltype(values_)(label("values"), A.values.extent(0));
    Kokkos::deep_copy(space, row_map_, A.row_map);
    Kokkos::deep_copy(space, entries_, A.entries);
    Kokkos::deep_copy(space, values_, A.values);
    return BsrMatrix<Scalar, Device>(A.block_size, A.num_block_rows, A.num_block_cols, row_map_, entries_, values_);
  }

 private:
  static Kokkos::ViewAllocateWithoutInitializing label(const char* what) {
    return Kokkos::ViewAllocateWithoutInitializing(std::string("trellis::device_copy::") + what);
  }
  Kokkos::View<offset_t*, Device> row_map_;
  Kokkos::View<ordinal_t*, Device> entries_;
  Kokkos::View<Scalar*, Device> values_;
};

/// v's copy in a new device array, queued on space (v must outlive the copy:
/// fence before it goes, as callers of a setup do once at its end).
template <class Device, class T>
Kokkos::View<T*, Device> to_device_array(const typename Device::execution_space& space, const std::vector<T>& v,
                                         const std::string& label) {
  // initialised: Kokkos 3.4 leaves the destruction of a struct array made
  // without initialisation unlabelled
  Kokkos::View<T*, Device> d(Kokkos::view_alloc(space, label), v.size());
  Kokkos::deep_copy(space, d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size()));
  return d;
}

}  // namespace trellis
