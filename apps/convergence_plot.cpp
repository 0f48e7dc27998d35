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
#include <utility>
#include <vector>

#include "trellis/core/errors.hpp"

namespace trellis::cli {
namespace {

// matplotlib's "tab10" colours, six dash patterns and nine marker shapes:
// each series gets all three, and the counts (10, 6, 9) make the first 90
// series' combinations all different (and any two neighbours differ in all
// three), so curves drawn on top of each other stay apart in the legend.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr const char* kDashes[] = {"", "8,4", "2,3", "8,3,2,3", "14,4", "8,3,2,3,2,3"};
enum class Marker { circle, square, triangle_up, diamond, triangle_down, plus, cross, triangle_left, asterisk };
constexpr const char* kMarkerNames[] = {"circle", "square", "triangle-up",   "diamond", "triangle-down",
                                        "plus",   "cross",  "triangle-left", "asterisk"};
constexpr int kMarkerCount = sizeof(kMarkerNames) / sizeof(kMarkerNames[0]);
constexpr std::size_t kColours = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr std::size_t kDashCount = sizeof(kDashes) / sizeof(kDashes[0]);

// Two panels on one column, iterations on top, wall time below, sharing the
// y range; the legend sits right of them, one row per series.
constexpr double kLeft = 80, kRight = 800, kPanelHeight = 420, kPanelGap = 100;
constexpr double kTop = 70;  // the first panel's top: room for the title and its heading
constexpr int kRowHeight = 18, kMaxLabel = 60;
constexpr double kCharWidth = 7;  // rough width of a 12 px sans-serif character
constexpr double kSwatch = 36;    // legend line length, long enough to show any dash pattern

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

/// A number as SVG text: fixed with `decimals` digits after the point, in
/// the classic locale ('.' whatever the user's).
std::string fixed(double v, int decimals) {
  std::ostringstream s;
  s.imbue(std::locale::classic());
  s << std::fixed << std::setprecision(decimals) << v;
  return s.str();
}

/// An x axis in data units: 0..max in ticks of step (1, 2 or 5 times a power
/// of ten, at most about 10 ticks), labelled with `decimals` digits.
struct XAxis {
  double max = 1, step = 1;
  int decimals = 0;
  int ticks() const { return int(std::lround(max / step)); }
};

/// The axis for data from 0 to `last`; whole: steps of at least 1 (iterations).
XAxis make_x_axis(double last, bool whole) {
  XAxis a;
  const double span = last > 0 && std::isfinite(last) ? last : 1;
  const double raw = span / 10;
  double power = whole ? 1 : std::pow(10.0, std::floor(std::log10(raw)));
  a.step = 0;
  for (; a.step == 0; power *= 10)
    for (int m : {1, 2, 5})
      if (a.step == 0 && m * power >= raw * (1 - 1e-9)) a.step = m * power;
  a.max = std::max(1.0, std::ceil(span / a.step - 1e-9)) * a.step;
  a.decimals = whole ? 0 : std::max(0, -int(std::floor(std::log10(a.step) + 1e-9)));
  return a;
}

/// The y range, shared by both panels: decades 10^lo..10^hi (whole powers
/// of ten, so y ticks are exactly 1e0, 1e-1, ...).
struct YAxis {
  int lo = -1, hi = 0, label_step = 1;
  bool any = false;  // some series has a plottable value
};

YAxis make_y_axis(const std::vector<PlotSeries>& series) {
  YAxis a;
  double log_min = 0, log_max = 0;
  for (const PlotSeries& s : series)
    for (double v : s.values) {
      if (!plottable(v)) continue;
      const double l = std::log10(v);
      log_min = a.any ? std::min(log_min, l) : l;
      log_max = a.any ? std::max(log_max, l) : l;
      a.any = true;
    }
  // The margin keeps a minimum that is exactly a power of ten off the x-axis.
  a.lo = int(std::floor(log_min - 0.05));
  a.hi = std::max(int(std::ceil(log_max)), a.lo + 1);
  a.label_step = (a.hi - a.lo + 11) / 12;  // at most about 12 labels
  return a;
}

/// One panel: where it lies and its axes.
struct Panel {
  double top, bottom;
  XAxis x;
  YAxis y;
  double px(double v) const { return kLeft + v / x.max * (kRight - kLeft); }
  double py(double log_value) const { return bottom - (log_value - y.lo) / (y.hi - y.lo) * (bottom - top); }
};

/// A marker's element centred at (x, y): hollow (fill="none", drawn in the
/// group's stroke colour), so that markers of series on one curve show
/// through each other.
std::string marker_element(Marker m, double x, double y) {
  auto at = [](double v) { return fixed(v, 1); };
  const std::string cls = std::string("class=\"marker ") + kMarkerNames[int(m)] + "\"";
  const double r = 3.5;
  std::string d;
  switch (m) {
    case Marker::circle: return "<circle " + cls + " cx=\"" + at(x) + "\" cy=\"" + at(y) + "\" r=\"" + at(r) + "\"/>";
    case Marker::square:
      return "<rect " + cls + " x=\"" + at(x - 3) + "\" y=\"" + at(y - 3) + "\" width=\"6.0\" height=\"6.0\"/>";
    case Marker::triangle_up:
      d = "M" + at(x) + "," + at(y - 4) + " L" + at(x + 4) + "," + at(y + 3) + " L" + at(x - 4) + "," + at(y + 3) +
          " Z";
      break;
    case Marker::diamond:
      d = "M" + at(x) + "," + at(y - 4.5) + " L" + at(x + 4) + "," + at(y) + " L" + at(x) + "," + at(y + 4.5) + " L" +
          at(x - 4) + "," + at(y) + " Z";
      break;
    case Marker::triangle_down:
      d = "M" + at(x) + "," + at(y + 4) + " L" + at(x + 4) + "," + at(y - 3) + " L" + at(x - 4) + "," + at(y - 3) +
          " Z";
      break;
    case Marker::plus:
      d = "M" + at(x - 4.5) + "," + at(y) + " H" + at(x + 4.5) + " M" + at(x) + "," + at(y - 4.5) + " V" + at(y + 4.5);
      break;
    case Marker::cross:
      d = "M" + at(x - 3.5) + "," + at(y - 3.5) + " L" + at(x + 3.5) + "," + at(y + 3.5) + " M" + at(x - 3.5) + "," +
          at(y + 3.5) + " L" + at(x + 3.5) + "," + at(y - 3.5);
      break;
    case Marker::triangle_left:
      d = "M" + at(x - 4) + "," + at(y) + " L" + at(x + 3) + "," + at(y - 4) + " L" + at(x + 3) + "," + at(y + 4) +
          " Z";
      break;
    case Marker::asterisk:
      d = "M" + at(x - 4.5) + "," + at(y) + " H" + at(x + 4.5) + " M" + at(x - 2.5) + "," + at(y - 4) + " L" +
          at(x + 2.5) + "," + at(y + 4) + " M" + at(x - 2.5) + "," + at(y + 4) + " L" + at(x + 2.5) + "," + at(y - 4);
      break;
  }
  return "<path " + cls + " d=\"" + d + "\"/>";
}

/// The positions (into a series' n plotted points) that get a marker: all of
/// them up to kMaxMarkersPerSeries, else every stride-th and the last, at
/// most kMaxMarkersPerSeries in all. Series k starts at the fraction
/// k x 0.618 (mod 1) of a stride, so the markers of curves that coincide
/// fall apart (the golden ratio spreads any run of series evenly).
std::vector<std::size_t> marker_positions(std::size_t n, std::size_t k) {
  std::vector<std::size_t> at;
  if (n == 0) return at;
  const std::size_t limit = kMaxMarkersPerSeries;
  if (n <= limit) {
    for (std::size_t j = 0; j < n; ++j) at.push_back(j);
    return at;
  }
  // (n - 1) / stride <= limit - 2: at most limit - 1 strided positions, and the last.
  const std::size_t stride = (n - 1 + limit - 3) / (limit - 2);
  const double phase = double(k) * 0.6180339887498949;
  const std::size_t offset = std::size_t((phase - std::floor(phase)) * double(stride));
  for (std::size_t j = offset; j < n - 1; j += stride) at.push_back(j);
  at.push_back(n - 1);
  return at;
}

/// Whether two histories are the same curve: bit for bit (NaN matching NaN),
/// or (near) to a relative 1e-6 everywhere.
bool same_values(const std::vector<double>& a, const std::vector<double>& b, bool near) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) continue;
    if (!near || !std::isfinite(a[i]) || !std::isfinite(b[i])) return false;
    if (std::fabs(a[i] - b[i]) > 1e-6 * std::max(std::fabs(a[i]), std::fabs(b[i]))) return false;
  }
  return true;
}

/// What a series' legend row says after its name: "(no data)", "(same curve
/// as NAME)" for values equal to an earlier series' (bit for bit, else to 6
/// digits), or nothing.
std::string legend_note(const std::vector<PlotSeries>& series, std::size_t k, bool has_data) {
  if (!has_data) return " (no data)";
  for (bool near : {false, true})
    for (std::size_t j = 0; j < k; ++j)
      if (same_values(series[j].values, series[k].values, near))
        return " (same curve as " + series[j].name + (near ? ", to 6 digits)" : ")");
  return "";
}

/// A series' plotted points in one panel: (x in data units, log10 value),
/// skipping values that are not plottable and, on the time panel, entries
/// without a finite time.
std::vector<std::pair<double, double>> points_of(const PlotSeries& s, bool time) {
  std::vector<std::pair<double, double>> p;
  if (time && s.seconds.size() != s.values.size()) return p;
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    if (!plottable(s.values[i])) continue;
    if (time && !(std::isfinite(s.seconds[i]) && s.seconds[i] >= 0)) continue;
    p.push_back({time ? s.seconds[i] : double(i), std::log10(s.values[i])});
  }
  return p;
}

/// The grid, axes, tick labels, axis titles and heading of one panel.
void draw_frame(std::ostringstream& svg, const Panel& p, const std::string& x_title, const std::string& heading,
                const char* empty_note) {
  const YAxis& y = p.y;
  svg << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << p.top - 10
      << "\" text-anchor=\"middle\" font-size=\"13\">" << heading << "</text>\n";
  svg << "<g stroke=\"#e4e4e4\">\n";
  for (int t = 0; t <= p.x.ticks(); ++t)
    svg << "<line x1=\"" << p.px(t * p.x.step) << "\" y1=\"" << p.top << "\" x2=\"" << p.px(t * p.x.step) << "\" y2=\""
        << p.bottom << "\"/>\n";
  for (int d = y.lo; d <= y.hi; ++d)
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << p.py(d) << "\" x2=\"" << kRight << "\" y2=\"" << p.py(d) << "\"/>\n";
  svg << "</g>\n<g stroke=\"black\">\n"
      << "<path fill=\"none\" d=\"M" << kLeft << "," << p.top << " V" << p.bottom << " H" << kRight << "\"/>\n";
  for (int t = 0; t <= p.x.ticks(); ++t)
    svg << "<line x1=\"" << p.px(t * p.x.step) << "\" y1=\"" << p.bottom << "\" x2=\"" << p.px(t * p.x.step)
        << "\" y2=\"" << p.bottom + 6 << "\"/>\n";
  for (int d = y.lo; d <= y.hi; ++d)
    svg << "<line x1=\"" << kLeft - (d % y.label_step == 0 ? 6 : 3) << "\" y1=\"" << p.py(d) << "\" x2=\"" << kLeft
        << "\" y2=\"" << p.py(d) << "\"/>\n";
  svg << "</g>\n<g text-anchor=\"middle\">\n";
  for (int t = 0; t <= p.x.ticks(); ++t)
    svg << "<text x=\"" << p.px(t * p.x.step) << "\" y=\"" << p.bottom + 20 << "\">"
        << fixed(t * p.x.step, p.x.decimals) << "</text>\n";
  svg << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << p.bottom + 45 << "\" font-size=\"14\">" << x_title
      << "</text>\n"
      << "<text transform=\"translate(20," << (p.top + p.bottom) / 2
      << ") rotate(-90)\" font-size=\"14\">relative residual</text>\n";
  if (empty_note)
    svg << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << (p.top + p.bottom) / 2 << "\" fill=\"#7f7f7f\">"
        << empty_note << "</text>\n";
  svg << "</g>\n<g text-anchor=\"end\">\n";
  for (int d = y.lo; d <= y.hi; ++d)
    if (d % y.label_step == 0)
      svg << "<text x=\"" << kLeft - 9 << "\" y=\"" << p.py(d) + 4 << "\">1e" << d << "</text>\n";
  svg << "</g>\n";
}

struct Style {
  std::string colour, dash;
  Marker marker;
  std::string stroke() const {
    return "stroke=\"" + colour + "\"" + (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"");
  }
};

Style style_of(std::size_t k) {
  return {kPalette[k % kColours], kDashes[k % kDashCount], Marker(int(k % kMarkerCount))};
}

/// One series in one panel: a polyline through its points (a gap joins its
/// neighbours; a lone point is a marker alone), then its markers.
void draw_series(std::ostringstream& svg, const Panel& p, const PlotSeries& s, std::size_t k, bool time) {
  const auto points = points_of(s, time);
  if (points.empty()) return;
  const Style style = style_of(k);
  if (points.size() > 1) {
    svg << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke-linejoin=\"round\" " << style.stroke() << " points=\"";
    for (std::size_t j = 0; j < points.size(); ++j)
      svg << (j ? " " : "") << p.px(points[j].first) << "," << p.py(points[j].second);
    svg << "\"><title>" << xml_text(s.name) << "</title></polyline>\n";
  }
  svg << "<g class=\"markers\" fill=\"none\" stroke=\"" << style.colour << "\" stroke-width=\"1.2\">\n";
  for (std::size_t j : marker_positions(points.size(), k))
    svg << marker_element(style.marker, p.px(points[j].first), p.py(points[j].second)) << "\n";
  svg << "</g>\n";
}

}  // namespace

void write_convergence_svg(const std::string& path, const std::vector<PlotSeries>& series, const std::string& title) {
  const YAxis y = make_y_axis(series);
  std::size_t last_iteration = 0;
  double last_second = 0;
  bool any_time = false;
  for (const PlotSeries& s : series) {
    for (const auto& point : points_of(s, false)) last_iteration = std::max(last_iteration, std::size_t(point.first));
    for (const auto& point : points_of(s, true)) last_second = std::max(last_second, point.first), any_time = true;
  }
  Panel by_iteration{kTop, kTop + kPanelHeight, make_x_axis(double(last_iteration), true), y};
  const double second_top = by_iteration.bottom + kPanelGap;
  Panel by_time{second_top, second_top + kPanelHeight, make_x_axis(last_second, false), y};

  std::vector<std::string> notes;
  std::size_t row_chars = 0;
  for (std::size_t k = 0; k < series.size(); ++k) {
    notes.push_back(legend_note(series, k, !points_of(series[k], false).empty()));
    row_chars = std::max(row_chars, std::min<std::size_t>(series[k].name.size(), kMaxLabel) +
                                        std::min<std::size_t>(notes.back().size(), kMaxLabel + 30));
  }
  const double legend_x = kRight + 20;
  const int width = int(legend_x + kSwatch + 20 + kCharWidth * double(row_chars));
  const int height = std::max(int(by_time.bottom) + 60, int(kTop) + 20 + int(series.size()) * kRowHeight);

  std::ostringstream svg;
  svg.imbue(std::locale::classic());  // '.' as decimal point whatever the user's locale
  svg << std::fixed << std::setprecision(1);
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">"
      << xml_text(title, 100) << "</text>\n";

  const char* no_residual = "no finite positive residual to plot";
  draw_frame(svg, by_iteration, "iteration", "against iterations", y.any ? nullptr : no_residual);
  draw_frame(svg, by_time, "wall time (s)", "against wall time since the solve began",
             !y.any      ? no_residual
             : !any_time ? "no wall times recorded"
                         : nullptr);
  for (std::size_t k = 0; k < series.size(); ++k) {
    draw_series(svg, by_iteration, series[k], k, false);
    draw_series(svg, by_time, series[k], k, true);
  }

  // The legend: per series its line (colour and dash), its marker, its name
  // and what the reader should know (no data, same curve as another).
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Style style = style_of(k);
    const double row_y = kTop + 10 + double(k) * kRowHeight;
    svg << "<g class=\"legend-entry\">\n"
        << "<line x1=\"" << legend_x << "\" y1=\"" << row_y << "\" x2=\"" << legend_x + kSwatch << "\" y2=\"" << row_y
        << "\" stroke-width=\"2\" " << style.stroke() << "/>\n"
        << "<g fill=\"white\" stroke=\"" << style.colour << "\" stroke-width=\"1.2\">"
        << marker_element(style.marker, legend_x + kSwatch / 2, row_y) << "</g>\n"
        << "<text x=\"" << legend_x + kSwatch + 6 << "\" y=\"" << row_y + 4 << "\">" << xml_text(series[k].name)
        << xml_text(notes[k], kMaxLabel + 30) << "</text>\n</g>\n";
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
