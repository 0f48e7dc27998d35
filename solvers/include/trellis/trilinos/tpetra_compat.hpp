#pragma once
// The Tpetra calls whose names changed between Trilinos 13.2 (Debian's, the
// one CI tests) and the releases after it: 13.4 renamed getNode* to
// getLocal* and 14 removed the old names.
#include <Tpetra_Map.hpp>
#include <Tpetra_RowMatrix.hpp>
#include <Trilinos_version.h>
#include <cstddef>

namespace trellis::trilinos::compat {

#if TRILINOS_MAJOR_MINOR_VERSION >= 130400
template <class Map>
std::size_t local_num_elements(const Map& map) {
  return map.getLocalNumElements();
}
template <class Matrix>
std::size_t local_num_rows(const Matrix& A) {
  return A.getLocalNumRows();
}
template <class Matrix>
std::size_t local_num_entries(const Matrix& A) {
  return A.getLocalNumEntries();
}
template <class Matrix>
std::size_t local_max_row_entries(const Matrix& A) {
  return A.getLocalMaxNumRowEntries();
}
#else
template <class Map>
std::size_t local_num_elements(const Map& map) {
  return map.getNodeNumElements();
}
template <class Matrix>
std::size_t local_num_rows(const Matrix& A) {
  return A.getNodeNumRows();
}
template <class Matrix>
std::size_t local_num_entries(const Matrix& A) {
  return A.getNodeNumEntries();
}
template <class Matrix>
std::size_t local_max_row_entries(const Matrix& A) {
  return A.getNodeMaxNumRowEntries();
}
#endif

}  // namespace trellis::trilinos::compat
