#include "trellis/gallery/problem_spec.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "trellis/core/errors.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/stencil_problems.hpp"
#include "trellis/io/matrix_market.hpp"

namespace trellis::gallery {
namespace {

enum class Kind { lap2d5, lap2d9, lap3d7, lap3d27, blocklap3d, layered3d, convdiff3d, convdiff2d, stencil, random };

struct Generator {
  const char* name;
  Kind kind;
  int dims;                          // sizes in the spec: 1 (random), 2 or 3
  std::vector<std::string> options;  // accepted option keys
  const char* usage;
  const char* summary;
};

const std::vector<Generator>& generators() {
  static const std::vector<Generator> list = {
      {"lap2d5", Kind::lap2d5, 2, {}, "lap2d5:NXxNY", "2D Poisson, 5-point stencil"},
      {"lap2d9", Kind::lap2d9, 2, {}, "lap2d9:NXxNY", "2D 9-point stencil"},
      {"lap3d7", Kind::lap3d7, 3, {}, "lap3d7:NXxNYxNZ", "3D Poisson, 7-point stencil"},
      {"lap3d27", Kind::lap3d27, 3, {}, "lap3d27:NXxNYxNZ", "3D 27-point stencil"},
      {"blocklap3d",
       Kind::blocklap3d,
       3,
       {"b"},
       "blocklap3d:NXxNYxNZ[:b=B]",
       "3D point-block Laplacian, BxB blocks (BSR; B in 1..8, default 3)"},
      {"layered3d",
       Kind::layered3d,
       3,
       {"decades", "seed"},
       "layered3d:NXxNYxNZ[:decades=D][:seed=S]",
       "3D diffusion, layered coefficient over D decades (default 6, seed 1)"},
      {"convdiff3d",
       Kind::convdiff3d,
       3,
       {"pe"},
       "convdiff3d:NXxNYxNZ[:pe=P]",
       "3D upwind convection-diffusion, Peclet P (default 10)"},
      {"convdiff2d",
       Kind::convdiff2d,
       2,
       {"pe"},
       "convdiff2d:NXxNY[:pe=P]",
       "2D upwind convection-diffusion, Peclet P (default 10)"},
      {"stencil",
       Kind::stencil,
       3,
       {"dof", "pde", "seed"},
       "stencil:SHAPE:NXxNYxNZ[:dof=D][:pde=P]",
       "StructILU's stencil matrices: SHAPE star7|star13|diamond13|diamond25|box27, D in 1..8 (default 1), "
       "P poisson|convdiff|dominant|dominant-sym|coupled (default poisson for D = 1, else dominant; seed=S)"},
      {"random",
       Kind::random,
       1,
       {"nnz", "seed"},
       "random:N[:nnz=K][:seed=S]",
       "random diagonally dominant NxN, K entries per row (default 8, seed 1)"},
  };
  return list;
}

const Generator* find_generator(std::string_view name) {
  for (const Generator& g : generators())
    if (name == g.name) return &g;
  return nullptr;
}

std::string_view before_colon(std::string_view text) { return text.substr(0, text.find(':')); }

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

/// A parsed spec: the generator, its sizes and its key=value options.
struct Spec {
  std::string text;
  const Generator* gen = nullptr;
  std::array<long long, 3> sizes{1, 1, 1};
  std::map<std::string, std::string_view> options;
  StencilShape shape = StencilShape::star7;  // stencil
};

[[noreturn]] void fail(const Spec& spec, const std::string& problem) {
  std::string msg = "problem spec '" + spec.text + "': " + problem;
  if (spec.gen) msg += " (expected " + std::string(spec.gen->usage) + ")";
  throw InputError(msg);
}

/// Whole-text integer (no sign for unsigned types, no trailing characters).
template <class Int>
Int parse_integer(const Spec& spec, std::string_view text, const std::string& what) {
  Int value{};
  const char* first = text.data();
  const char* last = first + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (text.empty()) fail(spec, "missing value for " + what);
  if (ec == std::errc::result_out_of_range) fail(spec, what + " = '" + std::string(text) + "' is out of range");
  if (ec != std::errc() || ptr != last) fail(spec, what + " = '" + std::string(text) + "' is not a valid integer");
  return value;
}

/// Whole-text finite floating-point number.
double parse_double(const Spec& spec, std::string_view text, const std::string& what) {
  double value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (text.empty()) fail(spec, "missing value for " + what);
  if (ec != std::errc() || ptr != last) fail(spec, what + " = '" + std::string(text) + "' is not a valid number");
  if (!std::isfinite(value)) fail(spec, what + " = '" + std::string(text) + "' is not finite");
  return value;
}

void parse_sizes(Spec& spec, std::string_view text) {
  const int want = spec.gen->dims;
  if (text.empty()) fail(spec, "missing grid size");
  const auto parts = split(text, 'x');
  if (int(parts.size()) != want)
    fail(spec, "'" + std::string(text) + "' has " + std::to_string(parts.size()) +
                   (parts.size() == 1 ? " size" : " sizes") + ", " + spec.gen->name + " takes " + std::to_string(want));
  static const char* names[] = {"NX", "NY", "NZ"};
  for (int d = 0; d < want; ++d) {
    const std::string what = want == 1 ? "N" : names[d];
    const long long n = parse_integer<long long>(spec, parts[d], what);
    if (n <= 0) fail(spec, what + " = " + std::to_string(n) + " must be positive");
    spec.sizes[d] = n;
  }
}

void parse_options(Spec& spec, const std::vector<std::string_view>& parts, size_t first) {
  for (size_t p = first; p < parts.size(); ++p) {
    const std::string_view opt = parts[p];
    const size_t eq = opt.find('=');
    if (eq == std::string_view::npos) fail(spec, "option '" + std::string(opt) + "' is not of the form key=value");
    const std::string key(opt.substr(0, eq));
    bool known = false;
    for (const auto& k : spec.gen->options) known = known || k == key;
    if (!known) {
      std::string accepted;
      for (const auto& k : spec.gen->options) accepted += (accepted.empty() ? "" : ", ") + k;
      fail(spec, "unknown option '" + key + "' for " + spec.gen->name +
                     " (accepted: " + (accepted.empty() ? "none" : accepted) + ")");
    }
    if (!spec.options.emplace(key, opt.substr(eq + 1)).second) fail(spec, "option '" + key + "' given twice");
  }
}

Spec parse_spec(const std::string& text) {
  Spec spec;
  spec.text = text;
  const auto parts = split(text, ':');
  spec.gen = find_generator(parts[0]);
  if (!spec.gen)
    throw InputError("problem spec '" + text + "': unknown problem '" + std::string(parts[0]) + "'; accepted:\n" +
                     problem_spec_help());
  size_t at = 1;  // where the sizes are: after the shape for stencil problems
  if (spec.gen->kind == Kind::stencil) {
    if (parts.size() < 2 || parts[1].empty()) fail(spec, "missing stencil shape");
    try {
      spec.shape = parse<StencilShape>(parts[1]);
    } catch (const InputError& e) {
      fail(spec, e.what());
    }
    if (spec.shape == StencilShape::custom) fail(spec, "a custom stencil has no generator");
    at = 2;
  }
  parse_sizes(spec, parts.size() > at ? parts[at] : std::string_view());
  parse_options(spec, parts, at + 1);
  return spec;
}

/// The option's value, parsed, or `fallback` when the spec does not give it.
template <class T, class Parse>
T option(const Spec& spec, const std::string& key, T fallback, Parse parse) {
  const auto it = spec.options.find(key);
  return it == spec.options.end() ? fallback : parse(spec, it->second, key);
}

long long int_option(const Spec& spec, const std::string& key, long long fallback) {
  return option(spec, key, fallback, parse_integer<long long>);
}

std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

/// Rows the spec asks for (cells times unknowns per cell) must fit ordinal_t.
void check_rows(const Spec& spec, long long per_cell) {
  long long rows = per_cell;
  for (long long n : spec.sizes) {
    if (rows > std::numeric_limits<ordinal_t>::max() / n)
      fail(spec, "the problem has more than " + std::to_string(std::numeric_limits<ordinal_t>::max()) +
                     " rows, too many for 32-bit indices");
    rows *= n;
  }
}

/// Entries a stencil stores on the spec's grid (neighbours outside the grid
/// are not stored), times per_entry; checked against the 32-bit offset limit
/// before anything is generated (a 1.4e9-row spec used to generate for
/// minutes before its entry count was refused).
void check_entries(const Spec& spec, const std::vector<StencilOffset>& offsets, long long per_entry) {
  long double total = 0;
  for (const StencilOffset& o : offsets) {
    long double here = per_entry;
    const int d[3] = {o.x, o.y, o.z};
    for (int k = 0; k < 3; ++k) here *= std::max(0LL, spec.sizes[k] - std::abs(d[k]));
    total += here;
  }
  if (total > static_cast<long double>(std::numeric_limits<offset_t>::max()))
    fail(spec, "the problem has " + format_number(double(total)) +
                   " stored entries, more than the 32-bit offset limit " +
                   std::to_string(std::numeric_limits<offset_t>::max()));
}

std::vector<StencilOffset> star_offsets(int dims) {
  std::vector<StencilOffset> o{{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
  if (dims == 3) o.insert(o.end(), {{0, 0, 1}, {0, 0, -1}});
  return o;
}

std::vector<StencilOffset> box_offsets(int dims) {
  std::vector<StencilOffset> o;
  for (int z = dims == 3 ? -1 : 0; z <= (dims == 3 ? 1 : 0); ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x) o.push_back({x, y, z});
  return o;
}

Problem build(const Spec& spec) {
  Problem p;
  p.name = spec.text;
  const auto nx = ordinal_t(spec.sizes[0]), ny = ordinal_t(spec.sizes[1]), nz = ordinal_t(spec.sizes[2]);
  const std::string grid2 = std::to_string(nx) + "x" + std::to_string(ny);
  const std::string grid3 = grid2 + "x" + std::to_string(nz);
  const std::string on2 = " on " + grid2 + " grid", on3 = " on " + grid3 + " grid";
  p.grid = {nx, ny, nz};
  switch (spec.gen->kind) {
    case Kind::lap2d5:
      check_rows(spec, 1);
      check_entries(spec, star_offsets(2), 1);
      p.matrix = laplace2d_5pt(nx, ny);
      p.description = "2D 5-point Laplacian" + on2;
      break;
    case Kind::lap2d9:
      check_rows(spec, 1);
      check_entries(spec, box_offsets(2), 1);
      p.matrix = laplace2d_9pt(nx, ny);
      p.description = "2D 9-point Laplacian" + on2;
      break;
    case Kind::lap3d7:
      check_rows(spec, 1);
      check_entries(spec, star_offsets(3), 1);
      p.matrix = laplace3d_7pt(nx, ny, nz);
      p.description = "3D 7-point Laplacian" + on3;
      break;
    case Kind::lap3d27:
      check_rows(spec, 1);
      check_entries(spec, box_offsets(3), 1);
      p.matrix = laplace3d_27pt(nx, ny, nz);
      p.description = "3D 27-point Laplacian" + on3;
      break;
    case Kind::blocklap3d: {
      const long long b = int_option(spec, "b", 3);
      if (b < 1 || b > 8) fail(spec, "b = " + std::to_string(b) + " must be in 1..8");
      check_rows(spec, b);
      check_entries(spec, star_offsets(3), b * b);
      p.block_matrix = block_laplace3d(nx, ny, nz, int(b));
      p.matrix = bsr_to_csr(*p.block_matrix);
      p.description = "3D 7-point block Laplacian, " + std::to_string(b) + "x" + std::to_string(b) + " blocks," + on3;
      break;
    }
    case Kind::layered3d: {
      const double decades = option(spec, "decades", 6.0, parse_double);
      if (!(decades >= 0 && decades <= layered_decades_max))
        fail(spec, "decades = " + format_number(decades) + " must be in 0.." + format_number(layered_decades_max));
      const auto seed = option(spec, "seed", std::uint64_t(1), parse_integer<std::uint64_t>);
      check_rows(spec, 1);
      check_entries(spec, star_offsets(3), 1);
      p.matrix = layered_diffusion3d(nx, ny, nz, decades, seed);
      p.description =
          "3D layered diffusion, " + format_number(decades) + " decades, seed " + std::to_string(seed) + "," + on3;
      break;
    }
    case Kind::convdiff3d:
    case Kind::convdiff2d: {
      const double pe = option(spec, "pe", 10.0, parse_double);
      if (!(std::abs(pe) <= peclet_max))
        fail(spec, "pe = " + format_number(pe) + " must be finite with |pe| <= " + format_number(peclet_max));
      check_rows(spec, 1);
      const bool three_d = spec.gen->kind == Kind::convdiff3d;
      check_entries(spec, star_offsets(three_d ? 3 : 2), 1);
      p.matrix = three_d ? convection_diffusion3d(nx, ny, nz, pe) : convection_diffusion2d(nx, ny, pe);
      p.description = std::string(three_d ? "3D" : "2D") + " upwind convection-diffusion, Peclet " + format_number(pe) +
                      "," + (three_d ? on3 : on2);
      break;
    }
    case Kind::stencil: {
      const long long dof = int_option(spec, "dof", 1);
      if (dof < 1 || dof > 8) fail(spec, "dof = " + std::to_string(dof) + " must be in 1..8");
      check_rows(spec, dof);
      check_entries(spec, Stencil(spec.shape).offsets(), dof * dof);
      StencilPde pde = dof == 1 ? StencilPde::poisson : StencilPde::dominant;
      if (const auto it = spec.options.find("pde"); it != spec.options.end()) {
        try {
          pde = parse<StencilPde>(it->second);
        } catch (const InputError& e) {
          fail(spec, e.what());
        }
      }
      const auto seed = option(spec, "seed", std::uint64_t(1), parse_integer<std::uint64_t>);
      const Stencil stencil(spec.shape);
      StencilMatrix S = [&] {
        try {
          return stencil_problem(stencil, {nx, ny, nz}, int(dof), pde, seed);
        } catch (const InputError& e) {
          fail(spec, e.what());
        }
      }();
      if (dof > 1) p.block_matrix = S.to_bsr();
      p.matrix = dof > 1 ? bsr_to_csr(*p.block_matrix) : S.to_csr();
      p.description =
          std::string(to_string(pde)) + " on stencil " + stencil.name() + ", dof " + std::to_string(dof) + "," + on3;
      break;
    }
    case Kind::random: {
      const long long k = int_option(spec, "nnz", 8);
      if (k < 1 || k > spec.sizes[0])
        fail(spec, "nnz = " + std::to_string(k) + " must be in 1..N = " + std::to_string(spec.sizes[0]));
      check_rows(spec, 1);
      if (spec.sizes[0] * k > std::numeric_limits<offset_t>::max())
        fail(spec, "the problem has " + std::to_string(spec.sizes[0] * k) +
                       " stored entries, more than the 32-bit offset limit " +
                       std::to_string(std::numeric_limits<offset_t>::max()));
      RandomOptions opt;
      opt.min_per_row = opt.max_per_row = ordinal_t(k - 1);
      opt.seed = option(spec, "seed", std::uint64_t(1), parse_integer<std::uint64_t>);
      p.matrix = random_sparse(nx, opt);
      p.description = "random " + std::to_string(nx) + "x" + std::to_string(nx) + " matrix, " + std::to_string(k) +
                      " entries per row, seed " + std::to_string(opt.seed);
      p.grid = {0, 0, 0};
      break;
    }
  }
  return p;
}

}  // namespace

bool is_problem_spec(const std::string& arg) { return find_generator(before_colon(arg)) != nullptr; }

Problem load_problem(const std::string& spec_or_path) {
  if (is_problem_spec(spec_or_path)) return build(parse_spec(spec_or_path));
  // "name:..." with no such file is most likely a mistyped generator name.
  std::error_code ec;
  if (spec_or_path.find(':') != std::string::npos && !std::filesystem::exists(spec_or_path, ec))
    parse_spec(spec_or_path);  // throws: unknown problem, with the accepted forms
  Problem p;
  p.name = spec_or_path;
  p.description = "Matrix Market file";
  p.matrix = io::read_matrix_market(spec_or_path);
  return p;
}

std::string problem_spec_help() {
  const auto line = [](std::string form, const char* summary) {
    form = "  " + form;
    form.resize(std::max<size_t>(form.size() + 2, 44), ' ');
    return form + summary + "\n";
  };
  std::string out;
  for (const Generator& g : generators()) out += line(g.usage, g.summary);
  return out + line("PATH", "a Matrix Market (.mtx) file, or gzip-compressed (.mtx.gz)");
}

}  // namespace trellis::gallery
