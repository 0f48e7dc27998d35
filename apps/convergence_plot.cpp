// Convergence plots as PNG files without any image library: a small RGB
// canvas, Bresenham lines, a 5x7 bitmap font, and a PNG encoder that stores
// the pixels in uncompressed deflate blocks so that zlib is not needed.
#include "convergence_plot.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "trellis/core/errors.hpp"

namespace trellis::cli {
namespace {

using Bytes = std::vector<std::uint8_t>;

// ---------------------------------------------------------------------------
// Canvas: an RGB pixel buffer. Writes outside it are dropped, so drawing code
// never has to clip by hand.

struct Rgb {
  std::uint8_t r, g, b;
};

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGrid{228, 228, 228};
constexpr Rgb kText{20, 20, 20};

class Canvas {
 public:
  Canvas(int width, int height)
      : width_(width), height_(height), pixels_(std::size_t(width) * height * 3, 255) {}
  int width() const { return width_; }
  int height() const { return height_; }

  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
    std::uint8_t* p = &pixels_[(std::size_t(y) * width_ + x) * 3];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }

  void fill_rect(int x, int y, int w, int h, Rgb c) {
    for (int j = y; j < y + h; ++j)
      for (int i = x; i < x + w; ++i) set(i, j, c);
  }

  const std::uint8_t* row(int y) const { return &pixels_[std::size_t(y) * width_ * 3]; }

 private:
  int width_, height_;
  Bytes pixels_;
};

// Bresenham over all octants; each step stamps a thickness x thickness square
// so that series lines stay visible (2 px) on a 900 px wide image.
void draw_line(Canvas& canvas, int x0, int y0, int x1, int y1, Rgb c, int thickness = 2) {
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
  const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  for (;;) {
    canvas.fill_rect(x0, y0, thickness, thickness, c);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) { err += dy; x0 += sx; }
    if (e2 <= dx) { err += dx; y0 += sy; }
  }
}

// ---------------------------------------------------------------------------
// Font: the classic 5x7 LCD font for printable ASCII (0x20..0x7e), with an
// eighth row for the descenders of g, j, p, q, y (without them g reads as 9).
// Each glyph is 5 columns, left to right; bit k of a column is row k counted
// from the top. Embedding it keeps the writer free of font files and libraries.

constexpr int kGlyphW = 5, kGlyphH = 8, kAdvance = kGlyphW + 1;

constexpr std::uint8_t kFont[95][5] = {
    {0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x5f, 0x00, 0x00},  // space !
    {0x00, 0x07, 0x00, 0x07, 0x00}, {0x14, 0x7f, 0x14, 0x7f, 0x14},  // " #
    {0x24, 0x2a, 0x7f, 0x2a, 0x12}, {0x23, 0x13, 0x08, 0x64, 0x62},  // $ %
    {0x36, 0x49, 0x55, 0x22, 0x50}, {0x00, 0x05, 0x03, 0x00, 0x00},  // & '
    {0x00, 0x1c, 0x22, 0x41, 0x00}, {0x00, 0x41, 0x22, 0x1c, 0x00},  // ( )
    {0x14, 0x08, 0x3e, 0x08, 0x14}, {0x08, 0x08, 0x3e, 0x08, 0x08},  // * +
    {0x00, 0x50, 0x30, 0x00, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08},  // , -
    {0x00, 0x60, 0x60, 0x00, 0x00}, {0x20, 0x10, 0x08, 0x04, 0x02},  // . /
    {0x3e, 0x51, 0x49, 0x45, 0x3e}, {0x00, 0x42, 0x7f, 0x40, 0x00},  // 0 1
    {0x42, 0x61, 0x51, 0x49, 0x46}, {0x21, 0x41, 0x45, 0x4b, 0x31},  // 2 3
    {0x18, 0x14, 0x12, 0x7f, 0x10}, {0x27, 0x45, 0x45, 0x45, 0x39},  // 4 5
    {0x3c, 0x4a, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03},  // 6 7
    {0x36, 0x49, 0x49, 0x49, 0x36}, {0x06, 0x49, 0x49, 0x29, 0x1e},  // 8 9
    {0x00, 0x36, 0x36, 0x00, 0x00}, {0x00, 0x56, 0x36, 0x00, 0x00},  // : ;
    {0x08, 0x14, 0x22, 0x41, 0x00}, {0x14, 0x14, 0x14, 0x14, 0x14},  // < =
    {0x00, 0x41, 0x22, 0x14, 0x08}, {0x02, 0x01, 0x51, 0x09, 0x06},  // > ?
    {0x32, 0x49, 0x79, 0x41, 0x3e}, {0x7e, 0x11, 0x11, 0x11, 0x7e},  // @ A
    {0x7f, 0x49, 0x49, 0x49, 0x36}, {0x3e, 0x41, 0x41, 0x41, 0x22},  // B C
    {0x7f, 0x41, 0x41, 0x22, 0x1c}, {0x7f, 0x49, 0x49, 0x49, 0x41},  // D E
    {0x7f, 0x09, 0x09, 0x09, 0x01}, {0x3e, 0x41, 0x49, 0x49, 0x7a},  // F G
    {0x7f, 0x08, 0x08, 0x08, 0x7f}, {0x00, 0x41, 0x7f, 0x41, 0x00},  // H I
    {0x20, 0x40, 0x41, 0x3f, 0x01}, {0x7f, 0x08, 0x14, 0x22, 0x41},  // J K
    {0x7f, 0x40, 0x40, 0x40, 0x40}, {0x7f, 0x02, 0x0c, 0x02, 0x7f},  // L M
    {0x7f, 0x04, 0x08, 0x10, 0x7f}, {0x3e, 0x41, 0x41, 0x41, 0x3e},  // N O
    {0x7f, 0x09, 0x09, 0x09, 0x06}, {0x3e, 0x41, 0x51, 0x21, 0x5e},  // P Q
    {0x7f, 0x09, 0x19, 0x29, 0x46}, {0x46, 0x49, 0x49, 0x49, 0x31},  // R S
    {0x01, 0x01, 0x7f, 0x01, 0x01}, {0x3f, 0x40, 0x40, 0x40, 0x3f},  // T U
    {0x1f, 0x20, 0x40, 0x20, 0x1f}, {0x3f, 0x40, 0x38, 0x40, 0x3f},  // V W
    {0x63, 0x14, 0x08, 0x14, 0x63}, {0x07, 0x08, 0x70, 0x08, 0x07},  // X Y
    {0x61, 0x51, 0x49, 0x45, 0x43}, {0x00, 0x7f, 0x41, 0x41, 0x00},  // Z [
    {0x02, 0x04, 0x08, 0x10, 0x20}, {0x00, 0x41, 0x41, 0x7f, 0x00},  // backslash ]
    {0x04, 0x02, 0x01, 0x02, 0x04}, {0x40, 0x40, 0x40, 0x40, 0x40},  // ^ _
    {0x00, 0x01, 0x02, 0x04, 0x00}, {0x20, 0x54, 0x54, 0x54, 0x78},  // ` a
    {0x7f, 0x48, 0x44, 0x44, 0x38}, {0x38, 0x44, 0x44, 0x44, 0x20},  // b c
    {0x38, 0x44, 0x44, 0x48, 0x7f}, {0x38, 0x54, 0x54, 0x54, 0x18},  // d e
    {0x08, 0x7e, 0x09, 0x01, 0x02}, {0x18, 0xa4, 0xa4, 0xa4, 0x7c},  // f g
    {0x7f, 0x08, 0x04, 0x04, 0x78}, {0x00, 0x44, 0x7d, 0x40, 0x00},  // h i
    {0x40, 0x80, 0x80, 0x7d, 0x00}, {0x7f, 0x10, 0x28, 0x44, 0x00},  // j k
    {0x00, 0x41, 0x7f, 0x40, 0x00}, {0x7c, 0x04, 0x18, 0x04, 0x78},  // l m
    {0x7c, 0x08, 0x04, 0x04, 0x78}, {0x38, 0x44, 0x44, 0x44, 0x38},  // n o
    {0xfc, 0x24, 0x24, 0x24, 0x18}, {0x18, 0x24, 0x24, 0x24, 0xfc},  // p q
    {0x7c, 0x08, 0x04, 0x04, 0x08}, {0x48, 0x54, 0x54, 0x54, 0x20},  // r s
    {0x04, 0x3f, 0x44, 0x40, 0x20}, {0x3c, 0x40, 0x40, 0x20, 0x7c},  // t u
    {0x1c, 0x20, 0x40, 0x20, 0x1c}, {0x3c, 0x40, 0x30, 0x40, 0x3c},  // v w
    {0x44, 0x28, 0x10, 0x28, 0x44}, {0x1c, 0xa0, 0xa0, 0xa0, 0x7c},  // x y
    {0x44, 0x64, 0x54, 0x4c, 0x44}, {0x00, 0x08, 0x36, 0x41, 0x00},  // z {
    {0x00, 0x00, 0x7f, 0x00, 0x00}, {0x00, 0x41, 0x36, 0x08, 0x00},  // | }
    {0x08, 0x04, 0x08, 0x10, 0x08},                                  // ~
};

// Characters outside printable ASCII (tabs, UTF-8 bytes) are shown as '?'
// rather than dropped, so the text keeps its length.
const std::uint8_t* glyph(char ch) {
  const int code = static_cast<unsigned char>(ch);
  return kFont[(code >= 0x20 && code <= 0x7e ? code : '?') - 0x20];
}

bool glyph_pixel(const std::uint8_t* g, int col, int row) { return (g[col] >> row) & 1; }

int text_width(const std::string& text, int scale) {
  return text.empty() ? 0 : (int(text.size()) * kAdvance - 1) * scale;
}

int text_height(int scale) { return kGlyphH * scale; }

// Horizontal text; (x, y) is the top-left corner. scale enlarges each font
// pixel to a scale x scale block.
void draw_text(Canvas& canvas, int x, int y, const std::string& text, Rgb c, int scale) {
  for (std::size_t k = 0; k < text.size(); ++k) {
    const std::uint8_t* g = glyph(text[k]);
    const int x0 = x + int(k) * kAdvance * scale;
    for (int col = 0; col < kGlyphW; ++col)
      for (int row = 0; row < kGlyphH; ++row)
        if (glyph_pixel(g, col, row)) canvas.fill_rect(x0 + col * scale, y + row * scale, scale, scale, c);
  }
}

// Text turned 90 degrees anticlockwise (reads bottom to top), for the y-axis
// caption; (x, y) is the bottom-left corner of the rotated text.
void draw_text_up(Canvas& canvas, int x, int y, const std::string& text, Rgb c, int scale) {
  for (std::size_t k = 0; k < text.size(); ++k) {
    const std::uint8_t* g = glyph(text[k]);
    for (int col = 0; col < kGlyphW; ++col) {
      const int along = int(k) * kAdvance + col;  // position along the text
      for (int row = 0; row < kGlyphH; ++row)
        if (glyph_pixel(g, col, row))
          canvas.fill_rect(x + row * scale, y - along * scale - (scale - 1), scale, scale, c);
    }
  }
}

// Shortens text with a trailing "..." so that it fits max_width pixels; long
// solver names must not run over the legend box or off the image.
std::string fit_text(const std::string& text, int max_width, int scale) {
  if (text_width(text, scale) <= max_width) return text;
  std::string cut = text;
  while (!cut.empty() && text_width(cut + "...", scale) > max_width) cut.pop_back();
  return cut + "...";
}

// ---------------------------------------------------------------------------
// PNG encoding. Stored (uncompressed) deflate blocks make the file larger
// (about 1.5 MB here) but need no compressor; every PNG reader accepts them.

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

// CRC-32 as PNG defines it (ISO 3309), over chunk type and data.
std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
  static const std::array<std::uint32_t, 256> table = make_crc_table();
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < size; ++i) c = table[(c ^ data[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

// Adler-32 checksum of the uncompressed data, which ends a zlib stream.
std::uint32_t adler32(const Bytes& data) {
  std::uint32_t a = 1, b = 0;
  for (std::uint8_t byte : data) {
    a = (a + byte) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}

void append_u32_be(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(std::uint8_t(v >> shift));
}

void append_u16_le(Bytes& out, std::uint16_t v) {
  out.push_back(std::uint8_t(v & 0xff));
  out.push_back(std::uint8_t(v >> 8));
}

// zlib stream: header, deflate "stored" blocks of at most 65535 bytes, Adler-32.
Bytes zlib_stored(const Bytes& raw) {
  Bytes out = {0x78, 0x01};  // deflate, 32K window, no dictionary; 0x7801 % 31 == 0
  std::size_t pos = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - pos);
    const bool last = pos + len == raw.size();
    out.push_back(last ? 0x01 : 0x00);  // BFINAL bit, BTYPE = 00 (stored)
    append_u16_le(out, std::uint16_t(len));
    append_u16_le(out, std::uint16_t(~len & 0xffff));
    out.insert(out.end(), raw.begin() + pos, raw.begin() + pos + len);
    pos += len;
  } while (pos < raw.size());
  append_u32_be(out, adler32(raw));
  return out;
}

// A chunk is length, type, data, and the CRC of type and data.
void append_chunk(Bytes& png, const char* type, const Bytes& data) {
  append_u32_be(png, std::uint32_t(data.size()));
  const std::size_t type_at = png.size();
  png.insert(png.end(), type, type + 4);
  png.insert(png.end(), data.begin(), data.end());
  append_u32_be(png, crc32(&png[type_at], 4 + data.size()));
}

Bytes encode_png(const Canvas& canvas) {
  const int w = canvas.width(), h = canvas.height();
  Bytes header;
  append_u32_be(header, std::uint32_t(w));
  append_u32_be(header, std::uint32_t(h));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8-bit, RGB, deflate, adaptive filters, no interlace

  // Each scanline starts with its filter type; 0 (None) keeps the bytes raw.
  Bytes raw;
  raw.reserve(std::size_t(h) * (1 + 3 * std::size_t(w)));
  for (int y = 0; y < h; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), canvas.row(y), canvas.row(y) + 3 * w);
  }

  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  append_chunk(png, "IHDR", header);
  append_chunk(png, "IDAT", zlib_stored(raw));
  append_chunk(png, "IEND", {});
  return png;
}

void write_file(const std::string& path, const Bytes& bytes) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw InputError("cannot write convergence plot " + path + ": " +
                     (errno ? std::strerror(errno) : "cannot open file"));
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  if (!out) throw InputError("cannot write convergence plot " + path + ": write failed");
}

// ---------------------------------------------------------------------------
// Plot layout and scales.

constexpr int kWidth = 900, kHeight = 560;
constexpr int kTextScale = 2;   // tick labels, captions, legend: 10x16 px cells
constexpr int kTitleScale = 2;
constexpr int kTickLength = 6;

// The palette of matplotlib's "tab10": ten colours that are easy to tell apart.
constexpr Rgb kPalette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                            {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                            {188, 189, 34},  {23, 190, 207}};
constexpr int kPaletteSize = int(sizeof(kPalette) / sizeof(kPalette[0]));

// Beyond ten series the palette repeats darker, so colours stay distinct.
Rgb series_colour(std::size_t index) {
  const Rgb base = kPalette[index % kPaletteSize];
  const int cycle = int(index / kPaletteSize);
  const auto darken = [cycle](std::uint8_t v) { return std::uint8_t(v / (1 + cycle)); };
  return {darken(base.r), darken(base.g), darken(base.b)};
}

bool plottable(double v) { return std::isfinite(v) && v > 0; }

// What the data spans: the last iteration with a value, and log10 extremes.
struct DataRange {
  bool any = false;
  int last_iteration = 0;
  double log_min = 0, log_max = 0;
};

DataRange find_range(const std::vector<PlotSeries>& series) {
  DataRange range;
  for (const PlotSeries& s : series)
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!plottable(s.values[i])) continue;
      const double l = std::log10(s.values[i]);
      range.log_min = range.any ? std::min(range.log_min, l) : l;
      range.log_max = range.any ? std::max(range.log_max, l) : l;
      range.last_iteration = std::max(range.last_iteration, int(i));
      range.any = true;
    }
  return range;
}

// A step of 1, 2 or 5 times a power of ten giving at most max_ticks ticks.
int nice_step(int span, int max_ticks) {
  const double raw = double(span) / max_ticks;
  for (int power = 1;; power *= 10)
    for (int m : {1, 2, 5})
      if (m * power >= raw) return m * power;
}

// Axes in data units: iterations 0..x_max, decades 10^y_lo..10^y_hi (whole
// powers of ten, so the y ticks are exactly 1e0, 1e-1, ...).
struct Axes {
  int x_max, x_step;
  int y_lo, y_hi, y_label_step;
};

Axes make_axes(const DataRange& range) {
  Axes axes{};
  axes.x_step = nice_step(std::max(range.last_iteration, 1), 10);
  axes.x_max = std::max(1, (range.last_iteration + axes.x_step - 1) / axes.x_step) * axes.x_step;
  // A minimum that is exactly a power of ten (or a flat series) would lie on
  // the x-axis line; a small margin moves the bottom one decade lower.
  axes.y_lo = int(std::floor(range.log_min - 0.05));
  axes.y_hi = std::max(int(std::ceil(range.log_max)), axes.y_lo + 1);
  axes.y_label_step = (axes.y_hi - axes.y_lo + 7) / 8;  // at most about 8 labels
  return axes;
}

// The plot area in pixels (inclusive) and the data-to-pixel mapping.
struct Frame {
  int left = 110, top = 50, right = kWidth - 30, bottom = kHeight - 70;
  Axes axes;

  int x_pixel(double iteration) const {
    return left + int(std::lround(iteration / axes.x_max * (right - left)));
  }
  int y_pixel(double log_value) const {
    return bottom - int(std::lround((log_value - axes.y_lo) / (axes.y_hi - axes.y_lo) * (bottom - top)));
  }
};

std::string decade_label(int decade) { return "1e" + std::to_string(decade); }

// Light grid lines at every tick help read values off the middle of the plot.
void draw_grid(Canvas& canvas, const Frame& f) {
  for (int it = 0; it <= f.axes.x_max; it += f.axes.x_step)
    canvas.fill_rect(f.x_pixel(it), f.top, 1, f.bottom - f.top, kGrid);
  for (int d = f.axes.y_lo; d <= f.axes.y_hi; ++d)
    canvas.fill_rect(f.left, f.y_pixel(d), f.right - f.left, 1, kGrid);
}

// Axis lines, ticks and tick labels, plus the two axis captions.
void draw_axes(Canvas& canvas, const Frame& f) {
  canvas.fill_rect(f.left - 1, f.top, 2, f.bottom - f.top + 1, kBlack);
  canvas.fill_rect(f.left - 1, f.bottom, f.right - f.left + 2, 2, kBlack);

  const int th = text_height(kTextScale);
  for (int it = 0; it <= f.axes.x_max; it += f.axes.x_step) {
    const int x = f.x_pixel(it);
    canvas.fill_rect(x, f.bottom, 2, kTickLength, kBlack);
    const std::string label = std::to_string(it);
    draw_text(canvas, x - text_width(label, kTextScale) / 2, f.bottom + kTickLength + 4, label, kText, kTextScale);
  }
  // Every decade gets a tick; labels are thinned out when there are many.
  for (int d = f.axes.y_lo; d <= f.axes.y_hi; ++d) {
    const int y = f.y_pixel(d);
    const bool labelled = ((d % f.axes.y_label_step) + f.axes.y_label_step) % f.axes.y_label_step == 0;
    canvas.fill_rect(f.left - (labelled ? kTickLength : kTickLength / 2), y, labelled ? kTickLength : kTickLength / 2, 2, kBlack);
    if (!labelled) continue;
    const std::string label = decade_label(d);
    draw_text(canvas, f.left - kTickLength - 4 - text_width(label, kTextScale), y - th / 2 + 1, label, kText, kTextScale);
  }

  const std::string x_caption = "iteration";
  draw_text(canvas, (f.left + f.right - text_width(x_caption, kTextScale)) / 2, f.bottom + kTickLength + th + 14,
            x_caption, kText, kTextScale);
  const std::string y_caption = "relative residual";
  draw_text_up(canvas, 12, (f.top + f.bottom + text_width(y_caption, kTextScale)) / 2, y_caption, kText, kTextScale);
}

// One polyline through the plottable points; bad entries are skipped and the
// line joins their neighbours. A lone point is drawn as a small square.
void draw_series(Canvas& canvas, const Frame& f, const PlotSeries& s, Rgb colour) {
  bool have_previous = false;
  int px = 0, py = 0, points = 0;
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    if (!plottable(s.values[i])) continue;
    const int x = f.x_pixel(double(i)), y = f.y_pixel(std::log10(s.values[i]));
    if (have_previous) draw_line(canvas, px, py, x, y, colour);
    px = x;
    py = y;
    have_previous = true;
    ++points;
  }
  if (points == 1) canvas.fill_rect(px - 2, py - 2, 5, 5, colour);
}

// Legend box in the top-right corner of the plot, where decaying residual
// curves rarely are. Names are shortened to fit; rows that do not fit the
// plot height are summarised as "+N more".
void draw_legend(Canvas& canvas, const Frame& f, const std::vector<PlotSeries>& series) {
  const int pad = 8, swatch = 28, gap = 8, row_h = text_height(kTextScale) + 8;
  const int max_name_w = (f.right - f.left) - 2 * pad - swatch - gap - 20;
  const int max_rows = std::max(1, (f.bottom - f.top - 2 * pad - 20) / row_h);
  const bool overflow = int(series.size()) > max_rows;
  const int shown = overflow ? max_rows - 1 : int(series.size());

  std::vector<std::string> labels;
  int name_w = 0;
  for (int k = 0; k < shown; ++k) {
    labels.push_back(fit_text(series[k].name, max_name_w, kTextScale));
    name_w = std::max(name_w, text_width(labels.back(), kTextScale));
  }
  const std::string more = "+" + std::to_string(series.size() - shown) + " more";
  if (overflow) name_w = std::max(name_w, text_width(more, kTextScale));

  const int rows = shown + (overflow ? 1 : 0);
  const int box_w = 2 * pad + swatch + gap + name_w, box_h = 2 * pad + rows * row_h - 8;
  const int x0 = f.right - 10 - box_w, y0 = f.top + 10;
  canvas.fill_rect(x0, y0, box_w, box_h, kWhite);
  draw_line(canvas, x0, y0, x0 + box_w, y0, kBlack, 1);
  draw_line(canvas, x0, y0 + box_h, x0 + box_w, y0 + box_h, kBlack, 1);
  draw_line(canvas, x0, y0, x0, y0 + box_h, kBlack, 1);
  draw_line(canvas, x0 + box_w, y0, x0 + box_w, y0 + box_h, kBlack, 1);

  for (int k = 0; k < rows; ++k) {
    const int y = y0 + pad + k * row_h;
    const int mid = y + text_height(kTextScale) / 2;
    if (k < shown) {
      canvas.fill_rect(x0 + pad, mid - 1, swatch, 3, series_colour(std::size_t(k)));
      draw_text(canvas, x0 + pad + swatch + gap, y, labels[k], kText, kTextScale);
    } else {
      draw_text(canvas, x0 + pad + swatch + gap, y, more, kText, kTextScale);
    }
  }
}

void draw_title(Canvas& canvas, const std::string& title) {
  const std::string text = fit_text(title, kWidth - 20, kTitleScale);
  draw_text(canvas, (kWidth - text_width(text, kTitleScale)) / 2, 16, text, kBlack, kTitleScale);
}

}  // namespace

void write_convergence_png(const std::string& path, const std::vector<PlotSeries>& series, const std::string& title) {
  // Validate before touching the file, so a bad call leaves nothing behind.
  if (series.empty()) throw InputError("cannot write convergence plot " + path + ": no series to plot");
  const DataRange range = find_range(series);
  if (!range.any)
    throw InputError("cannot write convergence plot " + path + ": no series has a positive finite residual");

  Canvas canvas(kWidth, kHeight);
  Frame frame;
  frame.axes = make_axes(range);
  draw_grid(canvas, frame);
  draw_axes(canvas, frame);
  // Curves after the axes, so points at iteration 0 are not hidden under the y-axis.
  for (std::size_t k = 0; k < series.size(); ++k) draw_series(canvas, frame, series[k], series_colour(k));
  draw_legend(canvas, frame, series);
  draw_title(canvas, title);
  write_file(path, encode_png(canvas));
}

}  // namespace trellis::cli
