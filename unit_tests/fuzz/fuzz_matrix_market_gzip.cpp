// libFuzzer target: the gzip path of the Matrix Market reader. The input is
// the compressed file: written to FILE.mtx.gz (in TMPDIR, one per process),
// then read with io::read_matrix_market and io::read_matrix_market_header,
// so zlib's errors (truncated, corrupt, trailing garbage) and the parser
// behind it are both reached. Every input ends in a canonical finite matrix
// or a MatrixMarketError.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "trellis/io/matrix_market.hpp"

namespace {

std::string path;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  trellis::fuzz::start_kokkos();
  const char* tmp = std::getenv("TMPDIR");
  path = std::string(tmp && *tmp ? tmp : "/tmp") + "/trellis_fuzz_" + std::to_string(::getpid()) + ".mtx.gz";
  std::atexit([] { std::remove(path.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (path.empty()) LLVMFuzzerInitialize(nullptr, nullptr);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();  // the harness, not the reader: stop rather than fuzz nothing
  }
  try {
    trellis::fuzz::check_matrix(trellis::io::read_matrix_market(path), path);
  } catch (const trellis::MatrixMarketError&) {
  }
  try {
    (void)trellis::io::read_matrix_market_header(path);
  } catch (const trellis::MatrixMarketError&) {
  }
  return 0;
}
