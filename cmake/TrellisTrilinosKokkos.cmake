# Trilinos 13.2's TriBITS Kokkos config makes Kokkos::kokkos with a wrong
# include directory (Debian: /usr/lib/include; the headers are in
# <prefix>/include/trilinos) and no Kokkos::kokkoskernels: give both what
# Trellis's targets expect. Included by the build (TrellisTrilinos.cmake) and
# by the installed TrellisConfig.cmake, after Kokkos and Kokkos Kernels are found.
if(TARGET trilinos_kokkoscore)
  set_property(TARGET Kokkos::kokkos PROPERTY INTERFACE_INCLUDE_DIRECTORIES ${Kokkos_INCLUDE_DIRS})
  if(NOT TARGET Kokkos::kokkoskernels AND TARGET trilinos_kokkoskernels)
    add_library(Kokkos::kokkoskernels INTERFACE IMPORTED)
    set_target_properties(Kokkos::kokkoskernels PROPERTIES
      INTERFACE_LINK_LIBRARIES trilinos_kokkoskernels
      INTERFACE_INCLUDE_DIRECTORIES "${KokkosKernels_INCLUDE_DIRS}")
  endif()
endif()
