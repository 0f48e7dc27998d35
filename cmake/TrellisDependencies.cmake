# Optional dependencies of Trellis, shared by the build and by the installed
# TrellisConfig.cmake so that a consumer finds exactly what the library used.
include_guard(GLOBAL)
include(CMakeFindDependencyMacro)

macro(trellis_find_optional_dependencies)
  if(TRELLIS_ENABLE_MPI)
    find_dependency(MPI COMPONENTS CXX)
  endif()
  if(TRELLIS_ENABLE_METIS)
    find_dependency(METIS)
  endif()
endmacro()

if(NOT TRELLIS_CONSUMER)  # inside the Trellis build: find them now
  if(TRELLIS_ENABLE_MPI)
    find_package(MPI REQUIRED COMPONENTS CXX)
  endif()
  if(TRELLIS_ENABLE_METIS)
    find_package(METIS REQUIRED)
  endif()
endif()

function(trellis_link_optional_dependencies target)
  if(TRELLIS_ENABLE_MPI)
    target_link_libraries(${target} PUBLIC MPI::MPI_CXX)
  endif()
  if(TRELLIS_ENABLE_METIS)
    target_link_libraries(${target} PUBLIC METIS::METIS)
  endif()
endfunction()
