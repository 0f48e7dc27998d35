// Matrix Market I/O: bit-exact round trips, every supported header, the real
// matrices against MANIFEST.tsv, and one test per malformed input checking
// the error type, its line and its message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "test_support.hpp"
#include "trellis/config.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/io/matrix_market.hpp"

namespace trellis {
namespace {

using io::parse_matrix_market;
using io::parse_matrix_market_vector;
using io::read_matrix_market;
using io::read_matrix_market_vector;
using io::write_matrix_market;
using io::write_matrix_market_vector;

// A path in GoogleTest's temp folder, unique to this process and test.
std::string temp_path(const std::string& stem) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  return ::testing::TempDir() + "trellis_mm_" + std::to_string(::getpid()) + "_" + name + "_" + stem;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using Entries = std::vector<std::tuple<int, int, double>>;

// (row, col, value) of every nonzero, in CSR order (0-based).
Entries entries_of(const HostCsr& A) {
  Entries out;
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) out.emplace_back(i, A.entries(k), A.values(k));
  return out;
}

void expect_matrix(const HostCsr& A, int rows, int cols, const Entries& expected) {
  EXPECT_EQ(A.num_rows, rows);
  EXPECT_EQ(A.num_cols, cols);
  EXPECT_NO_THROW(validate_csr(A));
  EXPECT_EQ(entries_of(A), expected);
}

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// ------------------------------------------------------------- round trips

// Values over the whole double range: subnormals, huge, signed zeros (small
// enough that summed duplicates stay finite).
double random_value(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> kind(0, 9), expo(-1060, 1020);
  std::uniform_real_distribution<double> mant(0.5, 1.0);
  switch (kind(rng)) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return std::ldexp(mant(rng), -1074 + 40);  // subnormal
    default: return (rng() & 1 ? -1 : 1) * std::ldexp(mant(rng), expo(rng));
  }
}

HostCsr random_matrix(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> dim(1, 300);
  const int rows = dim(rng), cols = dim(rng);
  const int n = std::uniform_int_distribution<int>(0, 4 * rows)(rng);
  std::uniform_int_distribution<int> ri(0, rows - 1), ci(0, cols - 1);
  std::vector<ordinal_t> r(n), c(n);
  std::vector<double> v(n);
  for (int k = 0; k < n; ++k) {
    r[k] = ri(rng);
    c[k] = ci(rng);
    v[k] = random_value(rng);
  }
  return csr_from_triplets(rows, cols, r, c, v);
}

TEST(MatrixMarketRoundTrip, RandomMatrixIsBitExact) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 5; ++trial) {
    const HostCsr A = random_matrix(rng);
    const std::string path = temp_path(std::to_string(trial) + ".mtx");
    write_matrix_market(path, A);
    const HostCsr B = read_matrix_market(path);
    ASSERT_EQ(B.num_rows, A.num_rows);
    ASSERT_EQ(B.num_cols, A.num_cols);
    ASSERT_EQ(B.nnz(), A.nnz());
    for (ordinal_t i = 0; i <= A.num_rows; ++i) ASSERT_EQ(B.row_map(i), A.row_map(i));
    for (offset_t k = 0; k < A.nnz(); ++k) {
      ASSERT_EQ(B.entries(k), A.entries(k));
      ASSERT_EQ(bits(B.values(k)), bits(A.values(k))) << "nonzero " << k << ": " << A.values(k);
    }
    std::remove(path.c_str());
  }
}

// Unsorted entries with many duplicates, general and symmetric: the reader's
// CSR must equal csr_from_triplets' (both sum duplicates in file order).
TEST(MatrixMarketReader, RandomUnsortedDuplicatesMatchCsrFromTriplets) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const bool symmetric : {false, true}) {
    SCOPED_TRACE(symmetric ? "symmetric" : "general");
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    const int stored = std::uniform_int_distribution<int>(0, 5 * n)(rng);
    std::uniform_int_distribution<int> idx(0, n - 1);
    std::normal_distribution<double> val;
    std::string text = std::string("%%MatrixMarket matrix coordinate real ") + (symmetric ? "symmetric" : "general") +
                       "\n" + std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(stored) + "\n";
    std::vector<ordinal_t> r, c;
    std::vector<double> v;
    for (int k = 0; k < stored; ++k) {
      int i = idx(rng), j = idx(rng);
      if (symmetric && j > i) std::swap(i, j);
      const double x = val(rng);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%d %d %.17g\n", i + 1, j + 1, x);
      text += buf;
      r.push_back(i), c.push_back(j), v.push_back(x);
      if (symmetric && i != j) r.push_back(j), c.push_back(i), v.push_back(x);
    }
    const HostCsr A = parse_matrix_market(text, "mem");
    const HostCsr B = csr_from_triplets(n, n, r, c, v);
    ASSERT_EQ(A.nnz(), B.nnz());
    for (ordinal_t i = 0; i <= n; ++i) ASSERT_EQ(A.row_map(i), B.row_map(i));
    for (offset_t k = 0; k < A.nnz(); ++k) {
      ASSERT_EQ(A.entries(k), B.entries(k));
      ASSERT_EQ(bits(A.values(k)), bits(B.values(k)));
    }
  }
}

TEST(MatrixMarketRoundTrip, VectorIsBitExact) {
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<double> x(1 + rng() % 1000);
  for (double& v : x) v = random_value(rng);
  const std::string path = temp_path("x.mtx");
  write_matrix_market_vector(path, x);
  const std::vector<double> y = read_matrix_market_vector(path);
  ASSERT_EQ(y.size(), x.size());
  for (size_t k = 0; k < x.size(); ++k) ASSERT_EQ(bits(y[k]), bits(x[k])) << "index " << k;
  std::remove(path.c_str());
}

// A path ending in .gz is written gzip-compressed (the readers' form).
TEST(MatrixMarketRoundTrip, GzPathIsWrittenCompressed) {
  const std::vector<double> x{1.0, -1.0 / 3, 2.5e-300};
  const HostCsr A = csr_from_triplets(2, 3, {0, 1}, {2, 0}, {0.1, -2.5});
  const std::string xpath = temp_path("x.mtx.gz"), apath = temp_path("A.mtx.gz");
#if TRELLIS_ENABLE_ZLIB
  write_matrix_market_vector(xpath, x);
  write_matrix_market(apath, A);
  for (const auto& path : {xpath, apath}) {
    const std::string bytes = read_text(path);
    ASSERT_GE(bytes.size(), 2u) << path;
    EXPECT_EQ((unsigned char)bytes[0], 0x1fu) << path << ": not gzip";
    EXPECT_EQ((unsigned char)bytes[1], 0x8bu) << path << ": not gzip";
  }
  const std::vector<double> y = read_matrix_market_vector(xpath);
  ASSERT_EQ(y.size(), x.size());
  for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(bits(y[k]), bits(x[k])) << "index " << k;
  expect_matrix(read_matrix_market(apath), 2, 3, {{0, 2, 0.1}, {1, 0, -2.5}});
  std::remove(xpath.c_str());
  std::remove(apath.c_str());
#else
  try {
    write_matrix_market_vector(xpath, x);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("without zlib"), std::string::npos) << e.what();
  }
#endif
}

TEST(MatrixMarketRoundTrip, EmptyMatrixAndVector) {
  const HostCsr A = csr_from_triplets(4, 2, {}, {}, {});
  const std::string path = temp_path("A.mtx");
  write_matrix_market(path, A);
  expect_matrix(read_matrix_market(path), 4, 2, {});
  write_matrix_market_vector(path, {});
  EXPECT_TRUE(read_matrix_market_vector(path).empty());
  std::remove(path.c_str());
}

TEST(MatrixMarketWriter, WritesOneBasedIndicesAndSeventeenDigits) {
  const HostCsr A = csr_from_triplets(2, 3, {0, 1}, {2, 0}, {0.1, -2.5});
  const std::string path = temp_path("A.mtx");
  write_matrix_market(path, A);
  EXPECT_EQ(read_text(path),
            "%%MatrixMarket matrix coordinate real general\n"
            "2 3 2\n"
            "1 3 1.0000000000000001e-01\n"
            "2 1 -2.5000000000000000e+00\n");
  write_matrix_market_vector(path, {1.0, 1.0 / 3});
  EXPECT_EQ(read_text(path),
            "%%MatrixMarket matrix array real general\n"
            "2 1\n"
            "1.0000000000000000e+00\n"
            "3.3333333333333331e-01\n");
  std::remove(path.c_str());
}

TEST(MatrixMarketWriter, UnwritablePathThrowsInputErrorNamingIt) {
  const HostCsr A = csr_from_triplets(1, 1, {0}, {0}, {1.0});
  const std::string path = "/nonexistent-trellis-dir/A.mtx";
  try {
    write_matrix_market(path, A);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
  try {
    write_matrix_market_vector(path, {1.0});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(MatrixMarketWriter, RefusesNonFiniteValuesItCouldNotReadBack) {
  const HostCsr A = csr_from_triplets(1, 2, {0, 0}, {0, 1}, {1.0, NAN});
  EXPECT_THROW(write_matrix_market(temp_path("A.mtx"), A), InputError);
  EXPECT_THROW(write_matrix_market_vector(temp_path("x.mtx"), {INFINITY}), InputError);
}

// -------------------------------------------------------- well-formed input

TEST(MatrixMarketReader, GeneralFileWithCommentsBlankLinesAndCrlf) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\r\n"
      "% a comment\r\n"
      "\r\n"
      "  %  an indented comment\n"
      "3 4 4\r\n"
      "1 1 1.5\r\n"
      "  3\t4   -2e-3  \n"
      "2 2 +7\n"
      "3 1 .25\n"
      "\n\n";
  expect_matrix(parse_matrix_market(text, "mem"), 3, 4, {{0, 0, 1.5}, {1, 1, 7.0}, {2, 0, 0.25}, {2, 3, -2e-3}});
}

TEST(MatrixMarketReader, BannerIsCaseInsensitive) {
  const HostCsr A = parse_matrix_market("%%matrixmarket MATRIX Coordinate REAL General\n1 1 1\n1 1 2\n", "mem");
  expect_matrix(A, 1, 1, {{0, 0, 2.0}});
}

TEST(MatrixMarketReader, PatternEntriesGetValueOne) {
  const HostCsr A =
      parse_matrix_market("%%MatrixMarket matrix coordinate pattern general\n2 3 3\n2 3\n1 1\n2 1\n", "mem");
  expect_matrix(A, 2, 3, {{0, 0, 1.0}, {1, 0, 1.0}, {1, 2, 1.0}});
}

TEST(MatrixMarketReader, IntegerFile) {
  const HostCsr A =
      parse_matrix_market("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 123456789\n", "mem");
  expect_matrix(A, 2, 2, {{0, 1, -7.0}, {1, 0, 123456789.0}});
}

TEST(MatrixMarketReader, SymmetricMirrorsLowerTriangleDiagonalOnce) {
  const HostCsr A = parse_matrix_market(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 6\n", "mem");
  expect_matrix(A, 3, 3, {{0, 0, 4.0}, {0, 1, -1.0}, {1, 0, -1.0}, {1, 2, -2.0}, {2, 1, -2.0}, {2, 2, 6.0}});
}

TEST(MatrixMarketReader, SymmetricPatternMirrors) {
  const HostCsr A = parse_matrix_market("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n", "mem");
  expect_matrix(A, 2, 2, {{0, 0, 1.0}, {0, 1, 1.0}, {1, 0, 1.0}});
}

TEST(MatrixMarketReader, SkewSymmetricMirrorsWithNegation) {
  const HostCsr A =
      parse_matrix_market("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 1 -1.5\n", "mem");
  expect_matrix(A, 3, 3, {{0, 1, -5.0}, {0, 2, 1.5}, {1, 0, 5.0}, {2, 0, -1.5}});
}

TEST(MatrixMarketReader, DuplicatesAreSummed) {
  const HostCsr A = parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 2 1\n2 2 3\n1 2 0.5\n1 2 -4\n", "mem");
  expect_matrix(A, 2, 2, {{0, 1, -2.5}, {1, 1, 3.0}});
  // In a symmetric file a repeated lower entry is summed, and so is its mirror.
  const HostCsr S =
      parse_matrix_market("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n2 1 2\n2 2 1\n", "mem");
  expect_matrix(S, 2, 2, {{0, 1, 3.0}, {1, 0, 3.0}, {1, 1, 1.0}});
}

TEST(MatrixMarketReader, ValueBelowSmallestSubnormalReadsAsZero) {
  const HostCsr A = parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1e-400\n1 2 -0.0001e-330\n", "mem");
  ASSERT_EQ(A.nnz(), 2);
  EXPECT_EQ(bits(A.values(0)), bits(0.0));
  EXPECT_EQ(bits(A.values(1)), bits(-0.0));
}

// Found by fuzz_matrix_market: an exponent near the limits of long long
// overflowed the underflow test's magnitude + exponent (undefined behaviour).
TEST(MatrixMarketReader, ExponentAtTheLimitsOfLongLongIsOverflowOrZero) {
  const HostCsr A = parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -0.05e-9223372036854775808\n", "mem");
  ASSERT_EQ(A.nnz(), 1);
  EXPECT_EQ(bits(A.values(0)), bits(-0.0));
  for (const char* value : {"12e9223372036854775807", "4e09223372036854775807", "-1.5e+9223372036854775807"}) {
    try {
      parse_matrix_market("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 " + std::string(value) + "\n",
                          "mem");
      ADD_FAILURE() << value << ": expected MatrixMarketError";
    } catch (const MatrixMarketError& e) {
      EXPECT_EQ(e.line(), 3);
      EXPECT_NE(e.problem().find("outside the range of double"), std::string::npos) << e.what();
    }
  }
}

TEST(MatrixMarketReader, MissingFinalNewlineIsFine) {
  const HostCsr A = parse_matrix_market("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3", "mem");
  expect_matrix(A, 1, 1, {{0, 0, 3.0}});
}

TEST(MatrixMarketReader, ReadsFromFile) {
  const std::string path = temp_path("A.mtx");
  write_text(path, "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 9\n");
  expect_matrix(read_matrix_market(path), 2, 2, {{1, 0, 9.0}});
  std::remove(path.c_str());
}

TEST(MatrixMarketReader, HeaderOnlyReadStopsAtTheSizeLine) {
  const std::string path = temp_path("A.mtx");
  // The data is malformed: a header read must not look at it.
  write_text(path, "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n\n5 5 7\nnot data\n");
  io::MatrixMarketHeader h = io::read_matrix_market_header(path);
  EXPECT_EQ(h.format, io::MMFormat::coordinate);
  EXPECT_EQ(h.field, io::MMField::pattern);
  EXPECT_EQ(h.symmetry, io::MMSymmetry::symmetric);
  EXPECT_EQ(h.rows, 5);
  EXPECT_EQ(h.cols, 5);
  EXPECT_EQ(h.entries, 7);
  // Sizes beyond Trellis' 32-bit limits are the readers' concern, not the header's.
  write_text(path, "%%MatrixMarket matrix coordinate real general\n3000000000 4 5000000000\n");
  h = io::read_matrix_market_header(path);
  EXPECT_EQ(h.rows, 3000000000LL);
  EXPECT_EQ(h.entries, 5000000000LL);
  write_text(path, "%%MatrixMarket matrix array integer general\n4 3\n");
  h = io::read_matrix_market_header(path);
  EXPECT_EQ(h.format, io::MMFormat::array);
  EXPECT_EQ(h.field, io::MMField::integer);
  EXPECT_EQ(h.entries, 12);
  write_text(path, "%%MatrixMarket matrix coordinate real general\n% no size line\n");
  try {
    io::read_matrix_market_header(path);
    FAIL() << "expected MatrixMarketError";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(e.problem().find("missing size line"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(MatrixMarketReader, Vectors) {
  EXPECT_EQ(parse_matrix_market_vector("%%MatrixMarket matrix array real general\n% c\n3 1\n1.5\n\n-2\n3e2\n", "mem"),
            (std::vector<double>{1.5, -2.0, 300.0}));
  EXPECT_EQ(parse_matrix_market_vector("%%MatrixMarket matrix array integer general\n2 1\n7\n-8\n", "mem"),
            (std::vector<double>{7.0, -8.0}));
}

// ---------------------------------------------------------- malformed input

void expect_error(const std::function<void()>& f, const std::string& file, long line, const std::string& phrase) {
  try {
    f();
    ADD_FAILURE() << "expected MatrixMarketError mentioning \"" << phrase << "\"";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.file(), file) << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(e.problem().find(phrase), std::string::npos)
        << "problem \"" << e.problem() << "\" lacks \"" << phrase << "\"";
    EXPECT_EQ(std::string(e.what()), file + ":" + std::to_string(line) + ": " + e.problem());
  }
}

struct BadCase {
  const char* name;
  std::string text;
  long line;
  const char* phrase;
  bool vector = false;  // read with the vector reader
};

#define MM_GENERAL "%%MatrixMarket matrix coordinate real general\n"
#define MM_ARRAY "%%MatrixMarket matrix array real general\n"

const BadCase kBadCases[] = {
    {"EmptyFile", "", 1, "empty file"},
    {"MissingBanner", "3 3 1\n1 1 1\n", 1, "missing %%MatrixMarket banner"},
    {"BinaryGarbage",
     "\x01\x02"
     "bin\xff\n",
     1, "starts with '\\x01\\x02bin\\xff'"},
    {"BannerWithOnePercent", "%MatrixMarket matrix coordinate real general\n1 1 0\n", 1,
     "missing %%MatrixMarket banner"},
    {"BannerAfterComment", "% hello\n" MM_GENERAL "1 1 0\n", 1, "missing %%MatrixMarket banner"},
    {"IncompleteBanner", "%%MatrixMarket matrix coordinate\n1 1 0\n", 1, "incomplete banner: missing the field"},
    {"WrongObject", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "unsupported object 'vector'"},
    {"UnknownFormat", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "unknown format 'sparse'"},
    {"ComplexField", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1, "unsupported field 'complex'"},
    {"UnknownField", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1, "unknown field 'float'"},
    {"HermitianSymmetry", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
     "unsupported symmetry 'hermitian'"},
    {"UnknownSymmetry", "%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "unknown symmetry 'upper'"},
    {"ExtraBannerToken", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
     "unexpected token 'extra' at the end of the banner"},
    {"ArrayPattern", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, "array file cannot have field 'pattern'"},
    {"PatternSkew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1,
     "pattern file cannot be skew-symmetric"},
    {"ArrayFileAsMatrix", MM_ARRAY "1 1\n1\n", 1, "array (dense) file"},
    {"MissingSizeLine", MM_GENERAL "% only a comment\n\n", 4, "missing size line"},
    {"SizeLineNonNumeric", MM_GENERAL "% c\n3 x 5\n", 3, "size line: 'x' is not an integer"},
    {"SizeLineNegative", MM_GENERAL "3 -3 5\n", 2, "size line: negative size -3"},
    {"SizeLineTooManyNumbers", MM_GENERAL "3 3 5 7\n", 2, "size line has too many numbers"},
    {"SizeLineTooFewNumbers", MM_GENERAL "3 3\n1 1 1\n", 2, "size line has too few numbers"},
    {"SizeLineOverflow", MM_GENERAL "99999999999999999999 3 1\n", 2, "size line: '99999999999999999999' is too large"},
    {"DimensionBeyondIndexLimit", MM_GENERAL "3000000000 3 1\n1 1 1\n", 2,
     "number of rows 3000000000 exceeds the 32-bit index limit"},
    {"EntriesBeyondOffsetLimit", MM_GENERAL "5 5 3000000000\n1 1 1\n", 2,
     "3000000000 entries exceed the 32-bit offset limit"},
    {"TruncatedFile", MM_GENERAL "3 3 3\n1 1 1.0\n2 2 2.0\n", 5, "file ends after 2 of 3 declared entries"},
    {"TruncatedFileNoFinalNewline", MM_GENERAL "3 3 3\n1 1 1.0\n2 2 2.0", 5, "file ends after 2 of 3 declared entries"},
    {"MoreEntriesThanDeclared", MM_GENERAL "2 2 1\n1 1 1\n\n2 2 2\n", 5, "more entries than the 1 declared"},
    {"TooFewTokens", MM_GENERAL "2 2 2\n1 1 1\n1 2\n", 4, "too few tokens on data line"},
    {"TooFewTokensPattern", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1\n", 3,
     "too few tokens on data line (expected: row column)"},
    {"RowIndexZero", MM_GENERAL "3 3 1\n0 1 1.0\n", 3, "row index 0 out of range [1, 3]"},
    {"ColumnIndexTooLarge", MM_GENERAL "3 3 2\n1 1 1.0\n1 4 1.0\n", 4, "column index 4 out of range [1, 3]"},
    {"NegativeRowIndex", MM_GENERAL "3 3 1\n-1 1 1.0\n", 3, "row index -1 out of range"},
    {"IndexOverflow", MM_GENERAL "3 3 1\n1 99999999999999999999 1.0\n", 3,
     "column index '99999999999999999999' overflows"},
    {"NonNumericIndex", MM_GENERAL "% c\n\n3 3 1\n1 x 3.0\n", 5, "column index 'x' is not an integer"},
    {"NonNumericValue", MM_GENERAL "3 3 1\n1 2 abc\n", 3, "value 'abc' is not a number"},
    {"PartlyNumericValue", MM_GENERAL "3 3 1\n1 2 1.5e\n", 3, "value '1.5e' is not a number"},
    {"NaNValue", MM_GENERAL "3 3 2\n1 1 1\n1 2 nan\n", 4, "non-finite value 'nan'"},
    {"InfValue", MM_GENERAL "3 3 1\n1 2 -inf\n", 3, "non-finite value '-inf'"},
    {"ValueBeyondDouble", MM_GENERAL "3 3 1\n1 2 1e999\n", 3, "outside the range of double"},
    {"FractionInIntegerFile", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
     "value '1.5' is not an integer"},
    {"TrailingJunk", MM_GENERAL "3 3 1\n1 1 1.0 junk\n", 3, "unexpected extra token 'junk'"},
    {"SymmetricUpperEntry", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 2 1\n", 4,
     "entry (1, 2) is above the diagonal"},
    {"SkewSymmetricDiagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", 4,
     "diagonal entry (2, 2) in a skew-symmetric file"},
    {"SymmetricNotSquare", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", 2, "must be square"},
    {"VectorWithTwoColumns", MM_ARRAY "3 2\n1\n2\n3\n4\n5\n6\n", 2, "vector file has 2 columns", true},
    {"VectorFromCoordinateFile", MM_GENERAL "3 1 0\n", 1, "coordinate file", true},
    {"VectorSymmetric", "%%MatrixMarket matrix array real symmetric\n1 1\n1\n", 1, "must be 'general'", true},
    {"VectorTruncated", MM_ARRAY "3 1\n1\n2\n", 5, "file ends after 2 of 3 declared values", true},
    {"VectorMoreValues", MM_ARRAY "2 1\n1\n2\n3\n", 5, "more values than the 2 declared", true},
    {"VectorTwoValuesOnALine", MM_ARRAY "2 1\n1 2\n", 3, "unexpected extra token '2'", true},
    {"VectorNonFinite", MM_ARRAY "2 1\n1\ninf\n", 4, "non-finite value 'inf'", true},
    {"VectorNonNumeric", MM_ARRAY "2 1\n1\n2,5\n", 4, "value '2,5' is not a number", true},
};

class MatrixMarketMalformed : public ::testing::TestWithParam<BadCase> {};

TEST_P(MatrixMarketMalformed, FromStringAndFromFile) {
  const BadCase& c = GetParam();
  const std::string path = temp_path("bad.mtx");
  write_text(path, c.text);
  if (c.vector) {
    expect_error([&] { parse_matrix_market_vector(c.text, "mem"); }, "mem", c.line, c.phrase);
    expect_error([&] { read_matrix_market_vector(path); }, path, c.line, c.phrase);
  } else {
    expect_error([&] { parse_matrix_market(c.text, "mem"); }, "mem", c.line, c.phrase);
    expect_error([&] { read_matrix_market(path); }, path, c.line, c.phrase);
  }
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Cases, MatrixMarketMalformed, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

// Issue 20, defect 6: memory follows what the file holds. An 88-byte file
// declaring 2e9 rows asked for 16 GB of row offsets before failing with an
// internal error; now the size line is refused, naming the rows and entries.
TEST(MatrixMarketReader, RowsTheEntriesCannotJustifyAreRefused) {
  const std::string lying = MM_GENERAL "2000000000 2000000000 3\n1 1 1\n2 2 1\n3 3 1\n";
  const auto t0 = std::chrono::steady_clock::now();
  expect_error([&] { parse_matrix_market(lying, "mem"); }, "mem", 2,
               "size line declares 2000000000 rows for 3 stored entries");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  // The limit is an option: empty rows are fine within it, and -1 lifts it.
  const std::string sparse = MM_GENERAL "10 10 1\n1 1 5\n";
  EXPECT_EQ(parse_matrix_market(sparse, "mem").num_rows, 10);
  io::MatrixMarketLimits strict;
  strict.max_rows_beyond_entries = 2;
  expect_error([&] { parse_matrix_market(sparse, "mem", strict); }, "mem", 2, "at most 3 rows are read");
  io::MatrixMarketLimits any;
  any.max_rows_beyond_entries = -1;
  EXPECT_EQ(parse_matrix_market(sparse, "mem", any).num_rows, 10);
}

TEST(MatrixMarketFiles, MissingFileIsLineZeroCannotOpen) {
  const std::string path = temp_path("does-not-exist.mtx");
  expect_error([&] { read_matrix_market(path); }, path, 0, "cannot open");
  expect_error([&] { io::read_matrix_market_header(path); }, path, 0, "cannot open");
  expect_error([&] { read_matrix_market_vector(path); }, path, 0, "cannot open");
}

TEST(MatrixMarketFiles, DirectoryIsLineZeroCannotRead) {
  const std::string dir = ::testing::TempDir();
  expect_error([&] { read_matrix_market(dir); }, dir, 0, "cannot read");
}

TEST(MatrixMarketFiles, EmptyFile) {
  const std::string path = temp_path("empty.mtx");
  write_text(path, "");
  expect_error([&] { read_matrix_market(path); }, path, 1, "empty file");
  expect_error([&] { io::read_matrix_market_header(path); }, path, 1, "empty file");
  std::remove(path.c_str());
}

// ------------------------------------------------------------ real matrices

// Independent reference: iostreams, a map summing duplicates in file order.
std::map<std::pair<int, int>, double> reference_entries(const std::string& path, bool symmetric, long long& diagonal) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
  }
  long long rows, cols, stored;
  std::istringstream(line) >> rows >> cols >> stored;
  std::map<std::pair<int, int>, double> m;
  diagonal = 0;
  for (long long k = 0; k < stored; ++k) {
    long long i, j;
    double v;
    in >> i >> j >> v;
    m[{int(i - 1), int(j - 1)}] += v;
    if (i == j) ++diagonal;
    if (symmetric && i != j) m[{int(j - 1), int(i - 1)}] += v;
  }
  return m;
}

TEST(MatrixMarketRealMatrices, MatchManifestAndReferenceReader) {
  const auto list = test::real_matrices();
  TRELLIS_REQUIRE_REAL_MATRICES(list);
  for (const auto& rm : list) {
    SCOPED_TRACE(rm.file);
    const io::MatrixMarketHeader h = io::read_matrix_market_header(rm.path);
    ASSERT_TRUE(rm.symmetry == "general" || rm.symmetry == "symmetric") << rm.symmetry;
    const bool symmetric = rm.symmetry == "symmetric";
    EXPECT_EQ(h.symmetry, symmetric ? io::MMSymmetry::symmetric : io::MMSymmetry::general);
    EXPECT_EQ(h.entries, rm.nnz_stored);

    const HostCsr A = read_matrix_market(rm.path);
    EXPECT_NO_THROW(validate_csr(A, rm.file));
    EXPECT_EQ(A.num_rows, rm.rows);
    EXPECT_EQ(A.num_cols, rm.cols);
    long long diagonal = 0;
    const auto ref = reference_entries(rm.path, symmetric, diagonal);
    if (symmetric) {
      EXPECT_EQ(A.nnz(), 2 * rm.nnz_stored - diagonal);
    } else {
      EXPECT_GT(A.nnz(), 0);
      EXPECT_LE(A.nnz(), rm.nnz_stored);
    }
    ASSERT_EQ(size_t(A.nnz()), ref.size());  // stored minus duplicates
    auto it = ref.begin();
    for (const auto& [i, j, v] : entries_of(A)) {
      ASSERT_EQ(std::make_pair(i, j), it->first);
      ASSERT_EQ(v, it->second) << "at (" << i << ", " << j << ")";
      ++it;
    }
  }
}

// ------------------------------------------------------------------ gzip

/// path.gz made by the system's gzip (a Debian essential package).
std::string gzip_copy(const std::string& path) {
  const std::string gz = path + ".gz";
  const std::string cmd = "gzip -c '" + path + "' > '" + gz + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return gz;
}

TEST(MatrixMarketGzip, CompressedReadsAsThePlainFile) {
  const HostCsr A = gallery::random_sparse(500, gallery::RandomOptions{});
  const std::string plain = temp_path("A.mtx");
  write_matrix_market(plain, A);
  const std::string gz = gzip_copy(plain);
#if TRELLIS_ENABLE_ZLIB
  EXPECT_EQ(entries_of(read_matrix_market(gz)), entries_of(read_matrix_market(plain)));
  const auto h = io::read_matrix_market_header(gz);
  EXPECT_EQ(h.rows, 500);
  EXPECT_EQ(h.entries, A.nnz());
#else
  try {
    read_matrix_market(gz);
    FAIL() << "expected MatrixMarketError";
  } catch (const MatrixMarketError& e) {
    EXPECT_NE(std::string(e.what()).find("zlib"), std::string::npos) << e.what();
  }
#endif
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

#if TRELLIS_ENABLE_ZLIB
TEST(MatrixMarketGzip, TruncatedOrCorruptStreamIsNamed) {
  const HostCsr A = gallery::random_sparse(2000, gallery::RandomOptions{});
  const std::string plain = temp_path("A.mtx");
  write_matrix_market(plain, A);
  const std::string gz = gzip_copy(plain);
  const std::string bytes = read_text(gz);
  ASSERT_GT(bytes.size(), 100u);
  write_text(gz, bytes.substr(0, bytes.size() / 2));  // truncated
  try {
    read_matrix_market(gz);
    FAIL() << "expected MatrixMarketError";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.file(), gz);
    EXPECT_NE(e.problem().find("decompress"), std::string::npos) << e.what();
  }
  std::string corrupt = bytes;
  for (size_t k = bytes.size() / 2; k < bytes.size() / 2 + 40; ++k)  // inside the deflate stream
    corrupt[k] = char(corrupt[k] ^ 0x5a);
  write_text(gz, corrupt);
  try {
    read_matrix_market(gz);
    FAIL() << "expected MatrixMarketError";
  } catch (const MatrixMarketError& e) {
    // zlib's own name for the stream ("<fd:3>") was in the message.
    EXPECT_EQ(std::string(e.what()).find("<fd:"), std::string::npos) << e.what();
    EXPECT_NE(e.problem().find("cannot decompress ("), std::string::npos) << e.what();
  }
  // A gzip file not named .gz: its bytes say what it is.
  const std::string unnamed = temp_path("compressed.mtx");
  write_text(unnamed, bytes);
  EXPECT_HAS(test::error_of<MatrixMarketError>([&] { read_matrix_market(unnamed); }),
             "the file is gzip-compressed (it starts with the gzip bytes 1f 8b); name it .gz");
  std::remove(unnamed.c_str());
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

TEST(MatrixMarketGzip, LongHeaderLinesAreBounded) {
  // A 3 MB comment line: refused at 1 MB by the header reader and by the
  // whole-file reader, plain and gzip'd (was: read whole, a byte at a time).
  const std::string plain = temp_path("long_line.mtx");
  write_text(plain, "%%MatrixMarket matrix array real general\n%" + std::string(3 << 20, 'y') + "\n1 1\n1\n");
  const std::string gz = gzip_copy(plain);
  for (const std::string& path : {plain, gz}) {
    SCOPED_TRACE(path);
    EXPECT_HAS(test::error_of<MatrixMarketError>([&] { io::read_matrix_market_header(path); }),
               "a header line longer than 1 MB");
  }
  EXPECT_HAS(test::error_of<MatrixMarketError>([&] { read_matrix_market(gz); }), "a header line longer than 1 MB");
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

TEST(MatrixMarket, DuplicatesWhoseSumOverflowsAreNamed) {
  // Each entry finite, their sum Inf: refused by the reader, with the file
  // and the entry (was: read, and an ILU0 pivot error later named neither).
  const std::string path = temp_path("dup_inf.mtx");
  write_text(path, "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1e308\n1 1 1e308\n2 2 1\n");
  try {
    read_matrix_market(path);
    FAIL() << "expected MatrixMarketError";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.problem().find("the duplicate entries of (1, 1) sum to inf"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(MatrixMarketGzip, MalformedContentNamesFileAndLine) {
  const std::string plain = temp_path("bad.mtx");
  write_text(plain, "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n");
  const std::string gz = gzip_copy(plain);
  try {
    read_matrix_market(gz);
    FAIL() << "expected MatrixMarketError";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.file(), gz);
    EXPECT_EQ(e.line(), 4);
  }
  EXPECT_THROW(read_matrix_market(temp_path("missing.mtx.gz")), MatrixMarketError);
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

// Found by fuzz_matrix_market_gzip: a NUL byte in a header line ended the
// line early (gzgets' C string), and an empty line then read before the
// string. The header of a .gz now reads as the plain file's.
TEST(MatrixMarketGzip, NulByteInHeaderReadsAsInThePlainFile) {
  const std::string plain = temp_path("nul.mtx");
  write_text(plain, std::string("%%MatrixMarket matrix coordinate real general\n\0 3 3 1\n", 54));
  const std::string gz = gzip_copy(plain);
  std::string plain_problem, gz_problem;
  long gz_line = 0;
  try {
    io::read_matrix_market_header(plain);
  } catch (const MatrixMarketError& e) {
    plain_problem = e.problem();
  }
  try {
    io::read_matrix_market_header(gz);
  } catch (const MatrixMarketError& e) {
    gz_problem = e.problem();
    gz_line = e.line();
  }
  EXPECT_FALSE(plain_problem.empty());
  EXPECT_EQ(gz_problem, plain_problem);
  EXPECT_EQ(gz_line, 2);
  EXPECT_THROW(read_matrix_market(gz), MatrixMarketError);
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

TEST(MatrixMarketGzip, SmallTrainingMatrixMatchesItsManifest) {
  const std::string dir = test::matrices_dir();
  const std::string path = dir + "/training/debian_trilinos_sherman5.mtx.gz";
  if (dir.empty() || !std::ifstream(path)) GTEST_SKIP() << "no " << path;
  const HostCsr A = read_matrix_market(path);  // training/MANIFEST.tsv: 3312 x 3312, 20793 stored, general
  EXPECT_EQ(A.num_rows, 3312);
  EXPECT_EQ(A.num_cols, 3312);
  EXPECT_EQ(A.nnz(), 20793);
}
#endif

}  // namespace
}  // namespace trellis
