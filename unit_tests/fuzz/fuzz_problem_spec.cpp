// libFuzzer target: the problem-spec parser (gallery::load_problem on
// "lap3d7:4x4x4", "blocklap3d:3x3x3:b=2", "stencil:star7:4x4x4:dof=2", ...).
//
// The library has no parse-only entry point: a spec that parses is also
// generated. A valid spec may ask for 10^9 rows, so the harness reads the
// sizes field itself and skips a spec whose grid has more than kMaxCells
// cells but fits 32-bit indices (the library would build it; that measures
// the generators, not the parser). Specs beyond 32-bit indices, and every
// malformed size, still reach the library, which must refuse them at once.
// A spec that is not a generator's is never taken as a file path here.
//
// Every input ends in a problem whose matrix is canonical and finite (and
// its BSR, when there is one, of the same size) or in an InputError.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include "fuzz_support.hpp"
#include "trellis/gallery/problem_spec.hpp"

namespace {

constexpr long long kMaxCells = 512;

/// True for a spec whose sizes parse, multiply to more than kMaxCells cells,
/// and still fit 32-bit indices: a valid, merely large problem.
bool large_but_valid(std::string_view spec) {
  std::string_view rest = spec;
  const auto next_field = [&rest]() {
    const size_t colon = rest.find(':');
    const std::string_view field = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    return field;
  };
  if (next_field() == "stencil") next_field();  // the shape
  std::string_view sizes = next_field();
  long long cells = 1;
  for (;;) {
    const size_t x = sizes.find('x');
    const std::string_view part = sizes.substr(0, x);
    long long n = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
    if (ec != std::errc() || ptr != part.data() + part.size() || n <= 0) return false;  // the library refuses it
    if (cells > std::numeric_limits<long long>::max() / n) return false;                // far beyond 32 bits
    cells *= n;
    if (x == std::string_view::npos) break;
    sizes.remove_prefix(x + 1);
  }
  return cells > kMaxCells && cells <= std::numeric_limits<trellis::ordinal_t>::max();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  trellis::fuzz::start_kokkos();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  if (!trellis::gallery::is_problem_spec(spec)) {
    // load_problem would read it as a file; "name:..." naming no file is parsed
    // (and refused as an unknown problem), which is all the harness lets through.
    std::error_code ec;
    if (spec.find(':') == std::string::npos || spec.find('\0') != std::string::npos ||
        std::filesystem::exists(spec, ec) || ec)
      return 0;
  }
  if (large_but_valid(spec)) return 0;
  try {
    const trellis::gallery::Problem p = trellis::gallery::load_problem(spec);
    trellis::fuzz::check_matrix(p.matrix, spec);
    if (p.block_matrix &&
        (p.block_matrix->num_rows() != p.matrix.num_rows || p.block_matrix->num_cols() != p.matrix.num_cols))
      trellis::fuzz::finding(spec + ": BSR and CSR sizes differ");
  } catch (const trellis::InputError&) {
  }
  return 0;
}
