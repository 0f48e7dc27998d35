# Trellis inside a Trilinos application (issue 21): the adapter target
# Trellis::trilinos (any factory preconditioner as an Ifpack2::Preconditioner,
# solvers/include/trellis/trilinos/) and the Belos example apps/trilinos_belos/.
#
# It only works when Trellis is built on the Kokkos inside Trilinos (one Kokkos
# per process), so TRELLIS_ENABLE_TRILINOS defaults to ON only when the Kokkos
# found is Trilinos's own (its TriBITS target trilinos_kokkoscore exists) and
# Tpetra, Belos and Ifpack2 are found; a build on Trellis's own Kokkos
# (cmake/scripts/quickstart.sh) never picks Trilinos up.
include_guard(GLOBAL)

include(${CMAKE_CURRENT_LIST_DIR}/TrellisTrilinosKokkos.cmake)

set(_trellis_trilinos_default OFF)
if(TARGET trilinos_kokkoscore AND NOT DEFINED TRELLIS_ENABLE_TRILINOS)
  find_package(Tpetra QUIET)
  find_package(Belos QUIET)
  find_package(Ifpack2 QUIET)
  if(Tpetra_FOUND AND Belos_FOUND AND Ifpack2_FOUND)
    set(_trellis_trilinos_default ON)
  endif()
endif()
option(TRELLIS_ENABLE_TRILINOS
  "Build the Tpetra adapter Trellis::trilinos and the Belos example (on when Trellis uses Trilinos's Kokkos)"
  ${_trellis_trilinos_default})

if(TRELLIS_ENABLE_TRILINOS)
  if(NOT TARGET trilinos_kokkoscore)
    message(FATAL_ERROR "TRELLIS_ENABLE_TRILINOS needs Trellis built on the Kokkos inside Trilinos "
                        "(Kokkos_DIR=${Kokkos_DIR} is not Trilinos's): configure with "
                        "-DKokkos_ROOT=<trilinos prefix> -DKokkosKernels_ROOT=<trilinos prefix>")
  endif()
  if(NOT TRELLIS_ENABLE_MPI)
    message(FATAL_ERROR "TRELLIS_ENABLE_TRILINOS needs TRELLIS_ENABLE_MPI (Tpetra is built on MPI)")
  endif()
  find_package(Tpetra REQUIRED)
  find_package(Belos REQUIRED)
  find_package(Ifpack2 REQUIRED)
  message(STATUS "Trellis::trilinos: Tpetra ${Tpetra_VERSION}, Belos, Ifpack2 from ${Tpetra_DIR}")
  # Header-only adapter; the TriBITS targets carry no include directories.
  # (The TPL libraries the TriBITS configs list need not be linked: the shared
  # Trilinos libraries bring them, and some, e.g. PT-Scotch, have no -dev package installed.)
  add_library(trellis_trilinos INTERFACE)
  add_library(Trellis::trilinos ALIAS trellis_trilinos)
  target_include_directories(trellis_trilinos SYSTEM INTERFACE ${Ifpack2_INCLUDE_DIRS} ${Tpetra_INCLUDE_DIRS}
                             ${Tpetra_TPL_INCLUDE_DIRS})
  target_link_libraries(trellis_trilinos INTERFACE trellis ${Ifpack2_LIBRARIES} ${Tpetra_LIBRARIES})
  enable_testing()
  add_subdirectory(apps/trilinos_belos)
endif()
