// Matrix Market reader and writer. Files are mapped (or read whole) and
// scanned by hand with std::from_chars (no iostreams), counting lines as they
// go so that every error names the file, the line and the problem. Values are
// written with std::to_chars at 17 significant digits, so they round-trip.
#include "trellis/io/matrix_market.hpp"

#include "trellis/config.hpp"
#if TRELLIS_ENABLE_ZLIB
#include <zlib.h>
#endif

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <system_error>
#include <tuple>
#include <utility>

namespace trellis::io {
namespace {

constexpr long long kIndexLimit = std::numeric_limits<ordinal_t>::max();
constexpr long long kOffsetLimit = std::numeric_limits<offset_t>::max();

std::string errno_text(int err) { return std::generic_category().message(err); }

// ------------------------------------------------------------------ scanning

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// One line of the text, without its '\n'.
struct Line {
  const char* begin;
  const char* end;
  long number;  // 1-based
};

// Walks the text line by line, counting lines; fail() throws an error naming one.
class Scanner {
 public:
  Scanner(std::string_view text, const std::string& name)
      : p_(text.data()), end_(text.data() + text.size()), name_(name) {}

  bool next_line(Line& ln) {
    if (p_ == end_) return false;
    // memchr is vectorized: far faster than testing each byte for '\n'.
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', size_t(end_ - p_)));
    const char* stop = nl ? nl : end_;
    ln = Line{p_, stop, ++line_};
    p_ = nl ? nl + 1 : end_;
    return true;
  }
  // The line after the last one read: where a missing line was due.
  long next_number() const { return line_ + 1; }
  size_t bytes_left() const { return size_t(end_ - p_); }

  [[noreturn]] __attribute__((cold)) void fail(long line, const std::string& problem) const {
    throw MatrixMarketError(name_, line, problem);
  }

 private:
  const char* p_;
  const char* end_;
  const std::string& name_;
  long line_ = 0;
};

// Next whitespace-separated token of [p, end), advancing p; empty at the end.
inline std::string_view next_token(const char*& p, const char* end) {
  while (p < end && is_space(*p)) ++p;
  const char* b = p;
  while (p < end && !is_space(*p)) ++p;
  return std::string_view(b, size_t(p - b));
}

inline bool is_blank_or_comment(const Line& ln) {
  const char* p = ln.begin;
  while (p < ln.end && is_space(*p)) ++p;
  return p == ln.end || *p == '%';
}

// A token for an error message: cut short and with control bytes escaped, so
// that the message stays readable when the file is binary garbage.
std::string quoted(std::string_view tok) {
  constexpr size_t kMax = 40;
  std::string s = "'";
  for (const char c : tok.substr(0, kMax)) {
    const unsigned char u = (unsigned char)c;
    if (u >= 0x20 && u < 0x7f) {
      s += c;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      s += hex;
    }
  }
  if (tok.size() > kMax) s += "...";
  return s + "'";
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (std::tolower((unsigned char)a[k]) != std::tolower((unsigned char)b[k])) return false;
  return true;
}

// ------------------------------------------------------------------- numbers

enum class Num { ok, bad, overflow };

// from_chars rejects a leading '+', which some Matrix Market writers emit.
inline std::string_view drop_plus(std::string_view t) {
  return (t.size() > 1 && t[0] == '+' && t[1] != '+' && t[1] != '-') ? t.substr(1) : t;
}

inline Num to_integer(std::string_view t, long long& out) {
  t = drop_plus(t);
  const char* end = t.data() + t.size();
  const auto [ptr, ec] = std::from_chars(t.data(), end, out);
  if (ec == std::errc::invalid_argument || ptr != end) return Num::bad;
  return ec == std::errc() ? Num::ok : Num::overflow;
}

// from_chars says "out of range" both for overflow and for underflow to zero;
// tells them apart by the decimal magnitude of the (already valid) token.
bool underflows(std::string_view t) {
  size_t k = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  long long magnitude = 0;
  bool point = false, digit = false;
  for (; k < t.size() && t[k] != 'e' && t[k] != 'E'; ++k) {
    if (t[k] == '.') {
      point = true;
    } else if (!digit && t[k] == '0') {
      if (point) --magnitude;  // leading zero after the point
    } else {
      digit = true;
      if (!point) ++magnitude;
    }
  }
  long long exponent = 0;
  if (k < t.size() && to_integer(t.substr(k + 1), exponent) != Num::ok)
    exponent = t[k + 1] == '-' ? -kIndexLimit : kIndexLimit;  // exponent itself huge
  // Past +-kIndexLimit only its sign counts; clamped, the sum cannot overflow
  // (1e9223372036854775807 did).
  exponent = std::clamp(exponent, -kIndexLimit, kIndexLimit);
  return magnitude + exponent < 0;
}

inline Num to_real(std::string_view t, double& out) {
  t = drop_plus(t);
  const char* end = t.data() + t.size();
  const auto [ptr, ec] = std::from_chars(t.data(), end, out);
  if (ec == std::errc::invalid_argument || ptr != end) return Num::bad;
  if (ec == std::errc()) return Num::ok;
  if (!underflows(t)) return Num::overflow;
  out = t[0] == '-' ? -0.0 : 0.0;  // below the smallest subnormal: zero, as strtod gives
  return Num::ok;
}

// -------------------------------------------------------------------- header

struct Header {
  MatrixMarketHeader mm;
  long size_line = 0;
};

const char* symmetry_name(MMSymmetry s) {
  switch (s) {
    case MMSymmetry::general: return "general";
    case MMSymmetry::symmetric: return "symmetric";
    case MMSymmetry::skew_symmetric: return "skew-symmetric";
  }
  return "?";
}

// The next banner word, or an error saying which word is missing.
std::string_view banner_word(const char*& p, const Line& ln, const Scanner& s, const char* what) {
  const std::string_view w = next_token(p, ln.end);
  if (w.empty())
    s.fail(ln.number, std::string("incomplete banner: missing the ") + what +
                          " (expected '%%MatrixMarket matrix <format> <field> <symmetry>')");
  return w;
}

MMFormat parse_format(std::string_view w, const Line& ln, const Scanner& s) {
  if (iequals(w, "coordinate")) return MMFormat::coordinate;
  if (iequals(w, "array")) return MMFormat::array;
  s.fail(ln.number, "unknown format " + quoted(w) + " (expected coordinate or array)");
}

MMField parse_field(std::string_view w, const Line& ln, const Scanner& s) {
  if (iequals(w, "real")) return MMField::real;
  if (iequals(w, "integer")) return MMField::integer;
  if (iequals(w, "pattern")) return MMField::pattern;
  if (iequals(w, "complex")) s.fail(ln.number, "unsupported field 'complex' (Trellis reads real, integer and pattern)");
  s.fail(ln.number, "unknown field " + quoted(w) + " (expected real, integer or pattern)");
}

MMSymmetry parse_symmetry(std::string_view w, const Line& ln, const Scanner& s) {
  if (iequals(w, "general")) return MMSymmetry::general;
  if (iequals(w, "symmetric")) return MMSymmetry::symmetric;
  if (iequals(w, "skew-symmetric")) return MMSymmetry::skew_symmetric;
  if (iequals(w, "hermitian"))
    s.fail(ln.number,
           "unsupported symmetry 'hermitian' (Trellis reads general, symmetric and "
           "skew-symmetric)");
  s.fail(ln.number, "unknown symmetry " + quoted(w) + " (expected general, symmetric or skew-symmetric)");
}

void parse_banner(const Line& ln, const Scanner& s, MatrixMarketHeader& h) {
  const char* p = ln.begin;
  if (ln.end - p >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;  // UTF-8 BOM
  const std::string_view magic = next_token(p, ln.end);
  if (ln.end - ln.begin >= 2 && ln.begin[0] == '\x1f' && ln.begin[1] == '\x8b')
    s.fail(ln.number,
           "missing %%MatrixMarket banner: the file is gzip-compressed (it starts with the gzip bytes "
           "1f 8b); name it .gz to read it");
  if (!iequals(magic, "%%MatrixMarket"))
    s.fail(ln.number, "missing %%MatrixMarket banner: the first line starts with " +
                          quoted(std::string_view(ln.begin, size_t(ln.end - ln.begin))));
  const std::string_view object = banner_word(p, ln, s, "object");
  if (!iequals(object, "matrix"))
    s.fail(ln.number, "unsupported object " + quoted(object) + " (only 'matrix' is supported)");
  h.format = parse_format(banner_word(p, ln, s, "format"), ln, s);
  h.field = parse_field(banner_word(p, ln, s, "field"), ln, s);
  h.symmetry = parse_symmetry(banner_word(p, ln, s, "symmetry"), ln, s);
  const std::string_view extra = next_token(p, ln.end);
  if (!extra.empty()) s.fail(ln.number, "unexpected token " + quoted(extra) + " at the end of the banner");
  if (h.format == MMFormat::array && h.field == MMField::pattern)
    s.fail(ln.number, "invalid banner: an array file cannot have field 'pattern'");
  if (h.field == MMField::pattern && h.symmetry == MMSymmetry::skew_symmetric)
    s.fail(ln.number, "invalid banner: a pattern file cannot be skew-symmetric");
}

void parse_size_line(const Line& ln, const Scanner& s, MatrixMarketHeader& h) {
  const bool coord = h.format == MMFormat::coordinate;
  const int want = coord ? 3 : 2;
  const std::string expected = coord ? "expected 3: rows columns entries" : "expected 2: rows columns";
  std::string_view tok[3];
  int n = 0;
  const char* p = ln.begin;
  for (std::string_view t = next_token(p, ln.end); !t.empty(); t = next_token(p, ln.end), ++n)
    if (n < want) tok[n] = t;
  if (n > want) s.fail(ln.number, "size line has too many numbers (" + std::to_string(n) + ", " + expected + ")");
  if (n < want) s.fail(ln.number, "size line has too few numbers (" + std::to_string(n) + ", " + expected + ")");
  long long v[3] = {0, 0, 0};
  for (int k = 0; k < want; ++k) {
    const Num r = to_integer(tok[k], v[k]);
    if (r == Num::bad) s.fail(ln.number, "size line: " + quoted(tok[k]) + " is not an integer");
    if (r == Num::overflow) s.fail(ln.number, "size line: " + quoted(tok[k]) + " is too large");
    if (v[k] < 0) s.fail(ln.number, "size line: negative size " + std::to_string(v[k]));
  }
  h.rows = v[0];
  h.cols = v[1];
  if (coord)
    h.entries = v[2];
  else if (__builtin_mul_overflow(h.rows, h.cols, &h.entries))
    s.fail(ln.number, "size line: rows x columns is too large");
}

// Banner, comment or blank lines, size line; leaves the scanner after the size line.
Header parse_header(Scanner& s) {
  Line ln;
  if (!s.next_line(ln)) s.fail(1, "empty file (expected a %%MatrixMarket banner)");
  Header h;
  parse_banner(ln, s, h.mm);
  while (s.next_line(ln)) {
    if (is_blank_or_comment(ln)) continue;
    parse_size_line(ln, s, h.mm);
    h.size_line = ln.number;
    return h;
  }
  s.fail(s.next_number(), "missing size line (the file ends after the header)");
}

// What Trellis' 32-bit indices and offsets can hold; checked by the readers
// only, so that read_matrix_market_header still describes any valid file.
void check_limits(const Header& h, const Scanner& s) {
  if (h.mm.rows > kIndexLimit)
    s.fail(h.size_line, "number of rows " + std::to_string(h.mm.rows) + " exceeds the 32-bit index limit " +
                            std::to_string(kIndexLimit));
  if (h.mm.cols > kIndexLimit)
    s.fail(h.size_line, "number of columns " + std::to_string(h.mm.cols) + " exceeds the 32-bit index limit " +
                            std::to_string(kIndexLimit));
  if (h.mm.entries > kOffsetLimit)
    s.fail(h.size_line,
           std::to_string(h.mm.entries) + " entries exceed the 32-bit offset limit " + std::to_string(kOffsetLimit));
}

// ---------------------------------------------------------------------- data

ordinal_t parse_index(std::string_view t, const char* what, long long n, long line, const Scanner& s) {
  long long x = 0;
  const Num r = to_integer(t, x);
  if (r == Num::bad) s.fail(line, std::string(what) + " index " + quoted(t) + " is not an integer");
  if (r == Num::overflow) s.fail(line, std::string(what) + " index " + quoted(t) + " overflows a 64-bit integer");
  if (x < 1 || x > n)
    s.fail(line, std::string(what) + " index " + std::to_string(x) + " out of range [1, " + std::to_string(n) + "]");
  return ordinal_t(x - 1);
}

double parse_value(std::string_view t, MMField field, long line, const Scanner& s) {
  if (field == MMField::integer) {
    long long x = 0;
    const Num r = to_integer(t, x);
    if (r == Num::bad) s.fail(line, "value " + quoted(t) + " is not an integer (field is integer)");
    if (r == Num::overflow) s.fail(line, "value " + quoted(t) + " overflows a 64-bit integer");
    return double(x);
  }
  double v = 0;
  const Num r = to_real(t, v);
  if (r == Num::bad) s.fail(line, "value " + quoted(t) + " is not a number");
  if (r == Num::overflow) s.fail(line, "value " + quoted(t) + " is outside the range of double");
  if (!std::isfinite(v)) s.fail(line, "non-finite value " + quoted(t));
  return v;
}

inline void expect_end_of_line(const char* p, const Line& ln, const Scanner& s) {
  const std::string_view extra = next_token(p, ln.end);
  if (!extra.empty()) s.fail(ln.number, "unexpected extra token " + quoted(extra) + " on data line");
}

struct Entry {
  ordinal_t i, j;  // 0-based
  double v;
};

Entry parse_entry(const Line& ln, const MatrixMarketHeader& h, const Scanner& s) {
  const bool valued = h.field != MMField::pattern;
  const char* p = ln.begin;
  const std::string_view ti = next_token(p, ln.end), tj = next_token(p, ln.end);
  const std::string_view tv = valued ? next_token(p, ln.end) : std::string_view();
  if (tj.empty() || (valued && tv.empty()))
    s.fail(ln.number, valued ? "too few tokens on data line (expected: row column value)"
                             : "too few tokens on data line (expected: row column)");
  Entry e;
  e.i = parse_index(ti, "row", h.rows, ln.number, s);
  e.j = parse_index(tj, "column", h.cols, ln.number, s);
  e.v = valued ? parse_value(tv, h.field, ln.number, s) : 1.0;
  expect_end_of_line(p, ln, s);
  return e;
}

// Calls f(line) on each data line, checking that there are exactly `declared`
// of them; blank and comment lines are skipped.
template <class F>
void for_each_data_line(Scanner& s, const Header& h, long long declared, const char* noun, F&& f) {
  long long count = 0;
  Line ln;
  while (s.next_line(ln)) {
    if (is_blank_or_comment(ln)) continue;
    if (count == declared)
      s.fail(ln.number, std::string("more ") + noun + " than the " + std::to_string(declared) +
                            " declared on the size line (line " + std::to_string(h.size_line) + ")");
    f(ln);
    ++count;
  }
  if (count < declared)
    s.fail(s.next_number(), "file ends after " + std::to_string(count) + " of " + std::to_string(declared) +
                                " declared " + noun + " (truncated?)");
}

struct Triplets {
  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  void reserve(size_t n) {
    rows.reserve(n);
    cols.reserve(n);
    vals.reserve(n);
  }
  void push(ordinal_t i, ordinal_t j, double v) {
    rows.push_back(i);
    cols.push_back(j);
    vals.push_back(v);
  }
};

// Stores an entry, and its mirror for symmetric and skew-symmetric files.
inline void add_entry(Triplets& t, const Entry& e, MMSymmetry sym, long line, const Scanner& s) {
  if (sym != MMSymmetry::general) {
    if (e.j > e.i)
      s.fail(line, "entry (" + std::to_string(e.i + 1) + ", " + std::to_string(e.j + 1) +
                       ") is above the diagonal in a " + symmetry_name(sym) +
                       " file (only the lower triangle may be stored)");
    if (e.i == e.j && sym == MMSymmetry::skew_symmetric)
      s.fail(line, "diagonal entry (" + std::to_string(e.i + 1) + ", " + std::to_string(e.j + 1) +
                       ") in a skew-symmetric file (its diagonal is zero and not stored)");
  }
  t.push(e.i, e.j, e.v);
  if (sym != MMSymmetry::general && e.i != e.j) t.push(e.j, e.i, sym == MMSymmetry::skew_symmetric ? -e.v : e.v);
}

// Sorts one row by column, stably so that duplicates keep their file order.
void sort_row(ordinal_t* col, double* val, offset_t len, std::vector<std::pair<ordinal_t, double>>& scratch) {
  if (std::is_sorted(col, col + len)) return;  // the usual case: no work
  scratch.resize(size_t(len));
  for (offset_t k = 0; k < len; ++k) scratch[k] = {col[k], val[k]};
  std::stable_sort(scratch.begin(), scratch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (offset_t k = 0; k < len; ++k) std::tie(col[k], val[k]) = scratch[k];
}

// Canonical CSR straight from the triplets: counting sort by row into the
// final Views, rows sorted in place, duplicates summed in file order (as
// csr_from_triplets does). csr_from_triplets would copy every entry twice
// more; at 10^7 entries that memory traffic costs more than the parsing.
HostCsr build_csr(ordinal_t rows, ordinal_t cols, const Triplets& t, const Scanner& s) {
  const size_t n = t.rows.size();
  Kokkos::View<offset_t*, HostDevice> rm("trellis::row_map", size_t(rows) + 1);
  for (size_t k = 0; k < n; ++k) ++rm(t.rows[k] + 1);
  for (ordinal_t i = 0; i < rows; ++i) rm(i + 1) += rm(i);
  HostCsr::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), n);
  HostCsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), n);
  {
    std::vector<offset_t> next(rm.data(), rm.data() + rows);
    for (size_t k = 0; k < n; ++k) {
      const offset_t p = next[size_t(t.rows[k])]++;
      ent(p) = t.cols[k];
      val(p) = t.vals[k];
    }
  }
  std::vector<std::pair<ordinal_t, double>> scratch;
  offset_t out = 0;  // compacts in place: out never passes the read position
  for (ordinal_t i = 0; i < rows; ++i) {
    const offset_t begin = rm(i), end = rm(i + 1);
    sort_row(ent.data() + begin, val.data() + begin, end - begin, scratch);
    rm(i) = out;
    for (offset_t k = begin; k < end; ++k) {
      if (out > rm(i) && ent(out - 1) == ent(k)) {
        val(out - 1) += val(k);  // duplicate entry: summed
        if (!std::isfinite(val(out - 1)))
          s.fail(0, "the duplicate entries of (" + std::to_string(i + 1) + ", " + std::to_string(ent(k) + 1) +
                        ") sum to " + std::to_string(val(out - 1)) + ": each is finite, their sum overflows");
      } else {
        ent(out) = ent(k);
        val(out) = val(k);
        ++out;
      }
    }
  }
  rm(rows) = out;
  if (size_t(out) != n) {
    Kokkos::resize(ent, size_t(out));
    Kokkos::resize(val, size_t(out));
  }
  return HostCsr(rows, cols, rm, ent, val);
}

HostCsr read_coordinate(Scanner& s, const Header& h, const MatrixMarketLimits& limits) {
  const MatrixMarketHeader& mm = h.mm;
  if (mm.symmetry != MMSymmetry::general && mm.rows != mm.cols)
    s.fail(h.size_line, std::string("a ") + symmetry_name(mm.symmetry) +
                            " matrix must be square, but the size line says " + std::to_string(mm.rows) + " x " +
                            std::to_string(mm.cols));
  Triplets t;
  // A data line takes at least 4 bytes ("1 1\n"): a lying size line cannot
  // make us reserve more than the file could hold.
  const size_t most = std::min<size_t>(size_t(mm.entries), s.bytes_left() / 4 + 1);
  t.reserve(mm.symmetry == MMSymmetry::general ? most : 2 * most);
  for_each_data_line(s, h, mm.entries, "entries",
                     [&](const Line& ln) { add_entry(t, parse_entry(ln, mm, s), mm.symmetry, ln.number, s); });
  if (t.rows.size() > size_t(kOffsetLimit))
    s.fail(h.size_line, "symmetric expansion gives " + std::to_string(t.rows.size()) +
                            " nonzeros, beyond the 32-bit offset limit " + std::to_string(kOffsetLimit));
  // Row offsets cost 8 bytes a row whatever the file holds: rows that the
  // entries cannot justify are refused before they are allocated (an 88-byte
  // file declaring 2e9 rows asked for 16 GB).
  const long long most_rows = static_cast<long long>(t.rows.size()) + limits.max_rows_beyond_entries;
  if (limits.max_rows_beyond_entries >= 0 && mm.rows > most_rows)
    s.fail(h.size_line, "size line declares " + std::to_string(mm.rows) + " rows for " + std::to_string(t.rows.size()) +
                            " stored entries; at most " + std::to_string(most_rows) +
                            " rows are read (MatrixMarketLimits::max_rows_beyond_entries = " +
                            std::to_string(limits.max_rows_beyond_entries) + ")");
  return build_csr(ordinal_t(mm.rows), ordinal_t(mm.cols), t, s);
}

std::vector<double> read_array_values(Scanner& s, const Header& h);

std::vector<double> read_vector(Scanner& s, const Header& h) {
  const MatrixMarketHeader& mm = h.mm;
  if (mm.format != MMFormat::array)
    s.fail(1, "coordinate file: a vector must be an 'array' file (use read_matrix_market)");
  if (mm.symmetry != MMSymmetry::general)
    s.fail(1, std::string("a vector file must be 'general', not '") + symmetry_name(mm.symmetry) + "'");
  if (mm.cols != 1)
    s.fail(h.size_line, "vector file has " + std::to_string(mm.cols) +
                            " columns; only single-column vectors (size line 'N 1') are supported");
  return read_array_values(s, h);
}

// The rows*cols values of an `array` file, in file (column-major) order.
std::vector<double> read_array_values(Scanner& s, const Header& h) {
  const MatrixMarketHeader& mm = h.mm;
  std::vector<double> x;
  x.reserve(std::min<size_t>(size_t(mm.entries), s.bytes_left() / 2 + 1));
  for_each_data_line(s, h, mm.entries, "values", [&](const Line& ln) {
    const char* p = ln.begin;
    x.push_back(parse_value(next_token(p, ln.end), mm.field, ln.number, s));
    expect_end_of_line(p, ln, s);
  });
  return x;
}

// --------------------------------------------------------------------- files

// A gzip file read through zlib; every failure is a MatrixMarketError naming
// the file (a truncated or corrupt stream included).
class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path) {
#if TRELLIS_ENABLE_ZLIB
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw MatrixMarketError(path, 0, "cannot open: " + errno_text(errno));
    f_ = gzdopen(fd, "rb");
    if (!f_) {
      ::close(fd);
      throw MatrixMarketError(path, 0, "cannot open as gzip");
    }
    gzbuffer(f_, 1 << 17);
#else
    throw MatrixMarketError(path, 0,
                            "gzip-compressed file, but this Trellis was built without zlib "
                            "(TRELLIS_ENABLE_ZLIB); decompress it first");
#endif
  }
  ~GzFile() {
#if TRELLIS_ENABLE_ZLIB
    if (f_) gzclose(f_);
#endif
  }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  /// Up to n decompressed bytes; 0 at the end of the stream.
  int read(char* to, unsigned n) {
#if TRELLIS_ENABLE_ZLIB
    const int r = gzread(f_, to, n);
    if (r < 0) fail();
    if (r == 0) {  // the end, or a truncated stream (Z_BUF_ERROR)
      int err = Z_OK;
      gzerror(f_, &err);
      if (err != Z_OK && err != Z_STREAM_END) fail();
    }
    return r;
#else
    (void)to, (void)n;
    return 0;
#endif
  }
  /// The next line (with its newline) appended to `line`, at most `max`
  /// bytes of it; false at the end. Byte by byte: a NUL is kept (gzgets' C
  /// string would end the line at it, and an empty line then read
  /// line.back() before the string).
  bool getline(std::string& line, size_t max) {
#if TRELLIS_ENABLE_ZLIB
    bool any = false;
    for (int c = gzgetc(f_); c != -1; c = gzgetc(f_)) {
      any = true;
      line += char(c);
      if (c == '\n' || line.size() >= max) return true;
    }
    int err = Z_OK;
    gzerror(f_, &err);
    if (err != Z_OK && err != Z_STREAM_END) fail();
    return any;
#else
    (void)line, (void)max;
    return false;
#endif
  }

 private:
  [[noreturn]] void fail() {
#if TRELLIS_ENABLE_ZLIB
    int err = Z_OK;
    std::string what = gzerror(f_, &err);
    // zlib names the stream of gzdopen "<fd:N>: "; the path is ours to say.
    if (what.rfind("<fd:", 0) == 0 && what.find(">: ") != std::string::npos) what = what.substr(what.find(">: ") + 3);
    throw MatrixMarketError(path_, 0,
                            "cannot decompress (" + (err == Z_BUF_ERROR ? std::string("truncated") : what) + ")");
#else
    throw MatrixMarketError(path_, 0, "cannot decompress");
#endif
  }
  std::string path_;
#if TRELLIS_ENABLE_ZLIB
  gzFile f_ = nullptr;
#endif
};

// What a streamed file (inflated from gzip, or read from a pipe or device)
// must show early, checked as its bytes arrive: the banner's first bytes at
// its start, and its size line within kHeaderLimit bytes, no header line
// longer than kHeaderLineLimit. A file of NULs, or an endless one, is refused
// in its first megabyte, not once it has filled memory.
constexpr size_t kHeaderLineLimit = size_t(1) << 20, kHeaderLimit = size_t(64) << 20;

class HeaderWatch {
 public:
  explicit HeaderWatch(const std::string& path) : path_(path) {}
  /// The first len bytes have arrived: false when reading on cannot help,
  /// the text so far already fails on its first line (the parser then says
  /// how); throws for a header that runs past its limits.
  bool more(const char* data, size_t len) {
    if (done_) return true;
    static constexpr char magic[] = "%%matrixmarket";
    const size_t start = len >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (size_t k = 0; k + 1 < sizeof magic && start + k < len; ++k)
      if (std::tolower(static_cast<unsigned char>(data[start + k])) != magic[k]) return false;
    while (const char* nl = static_cast<const char*>(std::memchr(data + pos_, '\n', len - pos_))) {
      const Line ln{data + pos_, nl, ++line_};
      pos_ = size_t(nl - data) + 1;
      if (line_ > 1 && !is_blank_or_comment(ln)) return done_ = true;  // the size line
      if (pos_ > kHeaderLimit)
        throw MatrixMarketError(path_, line_, "more than 64 MB of banner and comments before the size line");
    }
    if (len - pos_ > kHeaderLineLimit) {
      if (line_ == 0) return false;  // the first line: the parser names it
      throw MatrixMarketError(path_, line_ + 1, "a header line longer than 1 MB");
    }
    return true;
  }
  /// The size line has been seen whole.
  bool done() const { return done_; }

 private:
  std::string path_;
  size_t pos_ = 0;  // the start of the first line not yet seen whole
  long line_ = 0;   // lines seen whole
  bool done_ = false;
};

// The bytes of a file: mapped when it is a regular file (page-cache pages used
// in place: no copy and no freshly zeroed buffer, which at 10^7 entries cost
// more than the parsing), else read whole with read(2), e.g. from a pipe.
class FileText {
 public:
  explicit FileText(const std::string& path) {
    if (is_gzip_path(path)) {
      read_gzip(path);
      return;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw MatrixMarketError(path, 0, "cannot open: " + errno_text(errno));
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        map_ = p;
        size_ = size_t(st.st_size);
        ::madvise(map_, size_, MADV_SEQUENTIAL);
        return;
      }
    }
    read_all(fd, path);
  }
  ~FileText() {
    if (map_) ::munmap(map_, size_);
  }
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  std::string_view view() const {
    return map_ ? std::string_view(static_cast<const char*>(map_), size_) : std::string_view(copy_);
  }

 private:
  void read_all(int fd, const std::string& path) {
    HeaderWatch watch(path);
    size_t len = 0;
    for (;;) {
      if (len == copy_.size()) copy_.resize(2 * copy_.size() + 65536);
      const ssize_t r = ::read(fd, &copy_[len], copy_.size() - len);
      if (r == 0) break;
      if (r < 0) {
        if (errno == EINTR) continue;
        throw MatrixMarketError(path, 0, "cannot read: " + errno_text(errno));
      }
      len += size_t(r);
      if (!watch.more(copy_.data(), len)) break;
    }
    copy_.resize(len);
  }

  // Decompressed chunk by chunk as read (a .gz is never held compressed).
  void read_gzip(const std::string& path) {
    GzFile gz(path);
    HeaderWatch watch(path);
    size_t len = 0;
    for (;;) {
      if (len == copy_.size()) copy_.resize(2 * copy_.size() + (1 << 20));
      const size_t want = std::min<size_t>(copy_.size() - len, 1u << 30);
      const int r = gz.read(&copy_[len], unsigned(want));
      if (r == 0) break;
      len += size_t(r);
      if (!watch.more(copy_.data(), len)) break;
    }
    copy_.resize(len);
  }

  void* map_ = nullptr;
  size_t size_ = 0;
  std::string copy_;
};

// Lines up to and including the size line (a header read need not load the
// file), as next(line, max) gives them (it fills `line` with one line,
// newline included, at most max bytes of it; false at the end), under
// HeaderWatch's limits.
template <class NextLine>
std::string header_lines(const std::string& path, NextLine&& next) {
  std::string text, line;
  HeaderWatch watch(path);
  while (!watch.done()) {
    line.clear();
    if (!next(line, kHeaderLineLimit + 1)) break;
    text += line;
    if (!watch.more(text.data(), text.size())) break;  // the first line fails: the parser names it
  }
  return text;
}

// The header text of a plain or gzip-compressed file.
std::string read_header_text(const std::string& path) {
  if (is_gzip_path(path)) {
    GzFile gz(path);
    return header_lines(path, [&](std::string& line, size_t max) { return gz.getline(line, max); });
  }
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw MatrixMarketError(path, 0, "cannot open: " + errno_text(errno));
  std::string text = header_lines(path, [&](std::string& line, size_t max) {
    for (int c = std::getc(f.get()); c != EOF; c = std::getc(f.get())) {  // bounded, NULs kept
      line += char(c);
      if (c == '\n' || line.size() >= max) return true;
    }
    return !line.empty();
  });
  if (std::ferror(f.get())) throw MatrixMarketError(path, 0, "cannot read: " + errno_text(errno));
  return text;
}

// Buffered output that turns every failure into an InputError naming the file.
// A file written in 1 MB chunks; a path ending in .gz is written gzip-
// compressed (as the readers take it), or refused by name without zlib.
class OutFile {
 public:
  OutFile(const std::string& path, const char* who) : path_(path), who_(who), buf_(kChunk) {
    if (is_gzip_path(path)) {
#if TRELLIS_ENABLE_ZLIB
      gz_ = gzopen(path.c_str(), "wb6");
      if (!gz_) fail("cannot open '" + path_ + "' for writing");
#else
      throw InputError(who_ + ": '" + path_ +
                       "' ends in .gz, but this Trellis was built without zlib (TRELLIS_ENABLE_ZLIB); "
                       "give a path without .gz");
#endif
    } else {
      f_ = std::fopen(path.c_str(), "wb");
      if (!f_) fail("cannot open '" + path_ + "' for writing");
    }
  }
  ~OutFile() {
    if (f_) std::fclose(f_);
#if TRELLIS_ENABLE_ZLIB
    if (gz_) gzclose(gz_);
#endif
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  // Room for n more bytes (n small): write them in place, then commit() the end.
  char* claim(size_t n) {
    if (used_ + n > buf_.size()) flush();
    return buf_.data() + used_;
  }
  void commit(const char* end) { used_ = size_t(end - buf_.data()); }
  void put(std::string_view s) {
    char* p = claim(s.size());
    commit(std::copy(s.begin(), s.end(), p));
  }
  void close() {
    flush();
#if TRELLIS_ENABLE_ZLIB
    if (gz_) {
      gzFile g = gz_;
      gz_ = nullptr;
      if (gzclose(g) != Z_OK) fail("error writing '" + path_ + "'");
      return;
    }
#endif
    FILE* f = f_;
    f_ = nullptr;
    if (std::fclose(f) != 0) fail("error writing '" + path_ + "'");
  }

 private:
  static constexpr size_t kChunk = size_t(1) << 20;

  void flush() {
    if (!used_) return;
#if TRELLIS_ENABLE_ZLIB
    if (gz_) {
      if (gzwrite(gz_, buf_.data(), unsigned(used_)) != int(used_)) fail("error writing '" + path_ + "'");
      used_ = 0;
      return;
    }
#endif
    if (std::fwrite(buf_.data(), 1, used_, f_) != used_) fail("error writing '" + path_ + "'");
    used_ = 0;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(who_ + ": " + what + ": " + errno_text(errno));
  }

  std::string path_, who_;
  FILE* f_ = nullptr;
#if TRELLIS_ENABLE_ZLIB
  gzFile gz_ = nullptr;
#endif
  std::vector<char> buf_;
  size_t used_ = 0;
};

// Longest line the writers emit: two 10-digit indices, a 24-character value.
constexpr size_t kMaxLine = 64;

// 17 significant digits: enough for every double to read back bit-exact.
inline char* put_real(char* p, char* end, double v) {
  return std::to_chars(p, end, v, std::chars_format::scientific, 16).ptr;
}

}  // namespace

// --------------------------------------------------------------- public API

namespace {

/// read() with an allocation failure while reading `path` named as such: the
/// file in the message (is_allocation_failure).
template <class Read>
auto reading(const std::string& path, Read&& read) {
  try {
    return read();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    if (!is_allocation_failure(e)) throw;
    throw MatrixMarketError(path, 0, std::string("out of memory while reading the file (") + e.what() + ")");
  }
}

}  // namespace

HostCsr parse_matrix_market(std::string_view text, const std::string& name, const MatrixMarketLimits& limits) {
  Scanner s(text, name);
  const Header h = parse_header(s);
  if (h.mm.format != MMFormat::coordinate)
    s.fail(1,
           "array (dense) file: read_matrix_market reads coordinate matrices "
           "(use read_matrix_market_vector for vectors)");
  check_limits(h, s);
  return read_coordinate(s, h, limits);
}

HostCsr read_matrix_market(const std::string& path, const MatrixMarketLimits& limits) {
  return reading(path, [&] {
    const FileText text(path);
    return parse_matrix_market(text.view(), path, limits);
  });
}

MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  return reading(path, [&] {
    const std::string text = read_header_text(path);
    Scanner s(text, path);
    return parse_header(s).mm;
  });
}

std::vector<double> parse_matrix_market_vector(std::string_view text, const std::string& name) {
  Scanner s(text, name);
  const Header h = parse_header(s);
  check_limits(h, s);
  return read_vector(s, h);
}

std::vector<double> read_matrix_market_vector(const std::string& path) {
  return reading(path, [&] {
    const FileText text(path);
    return parse_matrix_market_vector(text.view(), path);
  });
}

namespace {

std::vector<double> read_array(const std::string& path, long long& rows, long long& cols) {
  const FileText text(path);
  Scanner s(text.view(), path);
  const Header h = parse_header(s);
  if (h.mm.format != MMFormat::array)
    s.fail(1, "coordinate file: read_matrix_market_array reads 'array' (dense) files (use read_matrix_market)");
  if (h.mm.symmetry != MMSymmetry::general)
    s.fail(1, std::string("an array file must be 'general' here, not '") + symmetry_name(h.mm.symmetry) + "'");
  check_limits(h, s);
  std::vector<double> x = read_array_values(s, h);
  rows = h.mm.rows;
  cols = h.mm.cols;
  return x;
}

}  // namespace

bool is_gzip_path(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

std::vector<double> read_matrix_market_array(const std::string& path, long long& rows, long long& cols) {
  return reading(path, [&] { return read_array(path, rows, cols); });
}

void write_matrix_market(const std::string& path, const HostCsr& A) {
  const offset_t nnz = A.nnz();
  const offset_t end = A.row_map.extent(0) ? A.row_map(A.num_rows) : 0;
  if (end != nnz)
    throw StructureError("write_matrix_market: row_map ends at " + std::to_string(end) + " but there are " +
                         std::to_string(nnz) + " nonzeros");
  // Checked before opening: the reader rejects non-finite values, so a file
  // holding one could not be read back.
  for (offset_t k = 0; k < nnz; ++k)
    if (!std::isfinite(A.values(k)))
      throw InputError("write_matrix_market: cannot write '" + path + "': non-finite value at nonzero " +
                       std::to_string(k));
  OutFile out(path, "write_matrix_market");
  out.put("%%MatrixMarket matrix coordinate real general\n");
  out.put(std::to_string(A.num_rows) + " " + std::to_string(A.num_cols) + " " + std::to_string(nnz) + "\n");
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      char* p = out.claim(kMaxLine);
      char* const last = p + kMaxLine;
      p = std::to_chars(p, last, i + 1).ptr;
      *p++ = ' ';
      p = std::to_chars(p, last, A.entries(k) + 1).ptr;
      *p++ = ' ';
      p = put_real(p, last, A.values(k));
      *p++ = '\n';
      out.commit(p);
    }
  }
  out.close();
}

void write_matrix_market_vector(const std::string& path, const std::vector<double>& x) {
  for (size_t k = 0; k < x.size(); ++k)
    if (!std::isfinite(x[k]))
      throw InputError("write_matrix_market_vector: cannot write '" + path + "': non-finite value at index " +
                       std::to_string(k));
  OutFile out(path, "write_matrix_market_vector");
  out.put("%%MatrixMarket matrix array real general\n");
  out.put(std::to_string(x.size()) + " 1\n");
  for (double v : x) {
    char* p = out.claim(kMaxLine);
    p = put_real(p, p + kMaxLine, v);
    *p++ = '\n';
    out.commit(p);
  }
  out.close();
}

}  // namespace trellis::io
