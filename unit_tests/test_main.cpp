// GoogleTest main for every Trellis test binary: Kokkos is initialized once
// around the whole run (backend chosen by the build; threads by the usual
// Kokkos flags or OMP_NUM_THREADS).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
