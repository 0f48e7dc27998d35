// libFuzzer target: the Matrix Market reader on text in memory
// (io::parse_matrix_market and io::parse_matrix_market_vector, the code that
// io::read_matrix_market runs on a file's bytes). Every input ends in a
// canonical finite matrix or a MatrixMarketError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "trellis/io/matrix_market.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  trellis::fuzz::start_kokkos();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    trellis::fuzz::check_matrix(trellis::io::parse_matrix_market(text, "fuzz.mtx"), "fuzz.mtx");
  } catch (const trellis::MatrixMarketError&) {
  }
  try {
    (void)trellis::io::parse_matrix_market_vector(text, "fuzz.mtx");
  } catch (const trellis::MatrixMarketError&) {
  }
  return 0;
}
