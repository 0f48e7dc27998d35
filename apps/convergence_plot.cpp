// Convergence plots as SVG: the plot is plain XML text, so it needs no image
// library and no encoder; any browser or image viewer renders it.
#include "convergence_plot.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <locale>
#include <sstream>

#include "trellis/core/errors.hpp"

namespace trellis::cli {
namespace {

// matplotlib's "tab10" colours; past ten series they repeat with a dash pattern.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr const char* kDashes[] = {"", "7,3", "2,3", "8,3,2,3"};
constexpr std::size_t kColours = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr std::size_t kDashCount = sizeof(kDashes) / sizeof(kDashes[0]);

// Plot area in pixels; the legend sits right of it, one row per series.
constexpr double kLeft = 80, kTop = 50, kRight = 800, kBottom = 470;
constexpr int kMinHeight = 540, kRowHeight = 18, kMaxLabel = 60;
constexpr double kCharWidth = 7;  // rough width of a 12 px sans-serif character

bool plottable(double v) { return std::isfinite(v) && v > 0; }

/// Text as XML character data or attribute value: markup characters escaped,
/// control and non-ASCII bytes shown as '?' (so the file is always valid
/// UTF-8), cut to max_chars with "...".
std::string xml_text(const std::string& s, std::size_t max_chars = kMaxLabel) {
  const bool cut = s.size() > max_chars;
  std::string out;
  for (std::size_t i = 0; i < (cut ? max_chars - 3 : s.size()); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += (c < 0x20 || c >= 0x7f) ? '?' : char(c);
    }
  }
  return cut ? out + "..." : out;
}

// Axes in data units: iterations 0..x_max in steps of x_step, decades
// 10^y_lo..10^y_hi (whole powers of ten, so y ticks are exactly 1e0, 1e-1, ...).
struct Axes {
  int x_max = 1, x_step = 1;
  int y_lo = -1, y_hi = 0, y_label_step = 1;
  bool any = false;  // some series has a plottable value

  double x(double iteration) const { return kLeft + iteration / x_max * (kRight - kLeft); }
  double y(double log_value) const { return kBottom - (log_value - y_lo) / (y_hi - y_lo) * (kBottom - kTop); }
};

Axes make_axes(const std::vector<PlotSeries>& series) {
  Axes a;
  double log_min = 0, log_max = 0;
  std::size_t last = 0;
  for (const PlotSeries& s : series)
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!plottable(s.values[i])) continue;
      const double l = std::log10(s.values[i]);
      log_min = a.any ? std::min(log_min, l) : l;
      log_max = a.any ? std::max(log_max, l) : l;
      last = std::max(last, i);
      a.any = true;
    }
  // A step of 1, 2 or 5 times a power of ten giving at most 10 ticks.
  const double raw = std::max(double(last), 1.0) / 10;
  for (double power = 1; a.x_step < raw; power *= 10)
    for (int m : {1, 2, 5})
      if (a.x_step < raw) a.x_step = int(m * power);
  a.x_max = int(std::max<std::size_t>(1, (last + a.x_step - 1) / a.x_step)) * a.x_step;
  // The margin keeps a minimum that is exactly a power of ten off the x-axis.
  a.y_lo = int(std::floor(log_min - 0.05));
  a.y_hi = std::max(int(std::ceil(log_max)), a.y_lo + 1);
  a.y_label_step = (a.y_hi - a.y_lo + 11) / 12;  // at most about 12 labels
  return a;
}

}  // namespace

void write_convergence_svg(const std::string& path, const std::vector<PlotSeries>& series, const std::string& title) {
  const Axes a = make_axes(series);
  std::size_t label_chars = 0;
  for (const PlotSeries& s : series)
    label_chars = std::max(label_chars, std::min<std::size_t>(s.name.size(), kMaxLabel));
  const double legend_x = kRight + 20;
  const int width = int(legend_x + 40 + kCharWidth * (label_chars + 10));  // + room for " (no data)"
  const int height = std::max(kMinHeight, int(kTop) + 20 + int(series.size()) * kRowHeight);

  std::ostringstream svg;
  svg.imbue(std::locale::classic());  // '.' as decimal point whatever the user's locale
  svg << std::fixed << std::setprecision(1);
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"30\" text-anchor=\"middle\" font-size=\"16\">"
      << xml_text(title, 100) << "</text>\n";

  // Grid and ticks at every x step and every decade; y labels thinned when there are many decades.
  svg << "<g stroke=\"#e4e4e4\">\n";
  for (int it = 0; it <= a.x_max; it += a.x_step)
    svg << "<line x1=\"" << a.x(it) << "\" y1=\"" << kTop << "\" x2=\"" << a.x(it) << "\" y2=\"" << kBottom << "\"/>\n";
  for (int d = a.y_lo; d <= a.y_hi; ++d)
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << a.y(d) << "\" x2=\"" << kRight << "\" y2=\"" << a.y(d) << "\"/>\n";
  svg << "</g>\n<g stroke=\"black\">\n"
      << "<path fill=\"none\" d=\"M" << kLeft << "," << kTop << " V" << kBottom << " H" << kRight << "\"/>\n";
  for (int it = 0; it <= a.x_max; it += a.x_step)
    svg << "<line x1=\"" << a.x(it) << "\" y1=\"" << kBottom << "\" x2=\"" << a.x(it) << "\" y2=\"" << kBottom + 6
        << "\"/>\n";
  for (int d = a.y_lo; d <= a.y_hi; ++d)
    svg << "<line x1=\"" << kLeft - (d % a.y_label_step == 0 ? 6 : 3) << "\" y1=\"" << a.y(d) << "\" x2=\"" << kLeft
        << "\" y2=\"" << a.y(d) << "\"/>\n";
  svg << "</g>\n<g text-anchor=\"middle\">\n";
  for (int it = 0; it <= a.x_max; it += a.x_step)
    svg << "<text x=\"" << a.x(it) << "\" y=\"" << kBottom + 20 << "\">" << it << "</text>\n";
  svg << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << kBottom + 45 << "\" font-size=\"14\">iteration</text>\n"
      << "<text transform=\"translate(20," << (kTop + kBottom) / 2
      << ") rotate(-90)\" font-size=\"14\">relative residual</text>\n";
  if (!a.any)
    svg << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << (kTop + kBottom) / 2
        << "\" fill=\"#7f7f7f\">no finite positive residual to plot</text>\n";
  svg << "</g>\n<g text-anchor=\"end\">\n";
  for (int d = a.y_lo; d <= a.y_hi; ++d)
    if (d % a.y_label_step == 0)
      svg << "<text x=\"" << kLeft - 9 << "\" y=\"" << a.y(d) + 4 << "\">1e" << d << "</text>\n";
  svg << "</g>\n";

  // One polyline per series through its plottable points (a gap joins its
  // neighbours); a lone point also gets a dot. Then the legend row.
  for (std::size_t k = 0; k < series.size(); ++k) {
    const PlotSeries& s = series[k];
    const char* colour = kPalette[k % kColours];
    const std::string dash = kDashes[(k / kColours) % kDashCount];
    const std::string style =
        "stroke=\"" + std::string(colour) + "\"" + (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"");
    std::ostringstream points;
    points.imbue(std::locale::classic());
    points << std::fixed << std::setprecision(1);
    int count = 0;
    double px = 0, py = 0;
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!plottable(s.values[i])) continue;
      px = a.x(double(i));
      py = a.y(std::log10(s.values[i]));
      points << (count++ ? " " : "") << px << "," << py;
    }
    if (count > 0)
      svg << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke-linejoin=\"round\" " << style << " points=\""
          << points.str() << "\"><title>" << xml_text(s.name) << "</title></polyline>\n";
    if (count == 1) svg << "<circle cx=\"" << px << "\" cy=\"" << py << "\" r=\"3\" fill=\"" << colour << "\"/>\n";
    const double row_y = kTop + 10 + double(k) * kRowHeight;
    svg << "<line x1=\"" << legend_x << "\" y1=\"" << row_y << "\" x2=\"" << legend_x + 24 << "\" y2=\"" << row_y
        << "\" stroke-width=\"2\" " << style << "/>\n"
        << "<text x=\"" << legend_x + 30 << "\" y=\"" << row_y + 4 << "\">" << xml_text(s.name)
        << (count ? "" : " (no data)") << "</text>\n";
  }
  svg << "</svg>\n";

  errno = 0;
  std::ofstream out(path, std::ios::trunc);
  if (!out)
    throw InputError("cannot write convergence plot " + path + ": " +
                     (errno ? std::strerror(errno) : "cannot open file"));
  out << svg.str();
  out.close();
  if (!out) throw InputError("cannot write convergence plot " + path + ": write failed");
}

}  // namespace trellis::cli
