// Uses the installed Trellis: generate a problem, analyse its levels on the
// default device, check them against the serial reference.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <trellis/core/level_sets.hpp>
#include <trellis/gallery/gallery.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const trellis::HostCsr A = trellis::gallery::laplace2d_5pt(40, 30);
  const auto levels = trellis::analyze_levels(trellis::to_device(A), trellis::Triangle::lower);
  const auto reference = trellis::analyze_levels_host(A, trellis::Triangle::lower);
  std::printf("consumer: %d rows, %d levels on %s (reference %d)\n", A.num_rows, levels.num_levels,
              Kokkos::DefaultExecutionSpace::name(), reference.num_levels);
  return levels.num_levels == reference.num_levels && levels.num_levels == 40 + 30 - 1 ? 0 : 1;
}
