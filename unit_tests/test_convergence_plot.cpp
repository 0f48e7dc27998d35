// The SVG convergence plot of `trellis solve --history` (apps/convergence_plot):
// a well-formed file for any input (no runs, empty runs, 0, NaN and Inf
// residuals, many runs), escaped labels, decade tick labels, the wall-time
// panel, markers (thinned), the legend's "same curve" notes, write errors.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "convergence_plot.hpp"
#include "trellis/core/errors.hpp"

namespace trellis::cli {
namespace {

std::string write_and_read(const std::vector<PlotSeries>& series, const std::string& title, const std::string& name) {
  const std::string path = ::testing::TempDir() + "trellis_" + name + ".svg";
  write_convergence_svg(path, series, title);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

/// Empty when `svg` is well-formed XML of the subset the writer uses (one root
/// <svg>, nested and closed elements, entities among the five predefined ones,
/// printable ASCII), else what is wrong.
std::string xml_problem(const std::string& svg) {
  std::vector<std::string> open;
  int roots = 0;
  for (std::size_t i = 0; i < svg.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(svg[i]);
    if (c >= 0x7f || (c < 0x20 && c != '\n')) return "byte " + std::to_string(int(c)) + " at " + std::to_string(i);
    if (c == '&') {
      bool known = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        known |= svg.compare(i, std::strlen(e), e) == 0;
      if (!known) return "bare & at " + std::to_string(i);
    }
    if (c != '<') continue;
    const std::size_t end = svg.find('>', i);
    if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
    const std::string tag = svg.substr(i + 1, end - i - 1);
    if (tag.find_first_of("<\n") != std::string::npos) return "'<' or newline inside tag at " + std::to_string(i);
    if (count(tag, "\"") % 2) return "unbalanced quotes in <" + tag + ">";
    i = end;
    if (tag.front() == '?') continue;
    if (tag.front() == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
      open.pop_back();
      continue;
    }
    if (open.empty()) ++roots;
    if (tag.back() != '/') open.push_back(tag.substr(0, tag.find(' ')));
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

/// No "nan" or "inf" spelled out anywhere (labels in these tests contain neither).
bool mentions_non_finite(const std::string& svg) {
  std::string lower;
  for (char c : svg) lower += char(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("nan") != std::string::npos || lower.find("inf") != std::string::npos;
}

TEST(ConvergencePlot, EdgeCasesGiveAWellFormedFile) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<PlotSeries> series = {
      {"gmres + ilu0", {1, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7}}, {"empty run", {}},    {"one value", {1}},
      {"bad values", {nan, 1, 0, -2, inf, 0.5, -inf, 0.2, nan}},      {"all zero", {0, 0}},
  };
  const std::string svg = write_and_read(series, "relative residual", "edge");
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_FALSE(mentions_non_finite(svg));
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
  EXPECT_EQ(count(svg, "<polyline"), 2u);             // the empty and all-zero runs have no point, "one value" one
  EXPECT_EQ(count(svg, "<g class=\"markers\""), 3u);  // the lone point of "one value" is a marker alone
  EXPECT_NE(svg.find("no wall times recorded"), std::string::npos);  // no series has times
  for (const PlotSeries& s : series) EXPECT_NE(svg.find(">" + s.name), std::string::npos) << s.name;
  EXPECT_NE(svg.find("all zero (no data)"), std::string::npos);
  EXPECT_NE(svg.find(">1e0<"), std::string::npos);
  EXPECT_NE(svg.find(">1e-8<"), std::string::npos);  // 1e-7 rounds down to the decade below
  EXPECT_NE(svg.find(">iteration<"), std::string::npos);
}

/// The marker groups of the file, in order (iteration panel first per series).
std::vector<std::string> marker_groups(const std::string& svg) {
  std::vector<std::string> groups;
  for (std::size_t at = svg.find("<g class=\"markers\""); at != std::string::npos;
       at = svg.find("<g class=\"markers\"", at + 1))
    groups.push_back(svg.substr(at, svg.find("</g>", at) - at));
  return groups;
}

TEST(ConvergencePlot, TimePanelMarkersAndSameCurveNotes) {
  std::vector<double> values, near, seconds, later;
  for (int i = 0; i <= 500; ++i) {
    values.push_back(std::pow(10.0, -0.02 * i));
    near.push_back(values.back() * (1 + 1e-9));
    seconds.push_back(0.004 * i);
    later.push_back(0.005 * i);
  }
  const std::vector<PlotSeries> series = {{"dd", values, seconds},
                                          {"ilu0", values, later},  // the same residuals, other times
                                          {"jacobi", {1, 0.5, 0.25}, {0, 0.1, 0.2}},
                                          {"near", near, seconds},
                                          {"untimed", {1, 0.1}}};
  const std::string svg = write_and_read(series, "relative residual", "time");
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_FALSE(mentions_non_finite(svg));
  EXPECT_NE(svg.find(">iteration<"), std::string::npos);
  EXPECT_NE(svg.find(">wall time (s)<"), std::string::npos);
  EXPECT_NE(svg.find(">2.5<"), std::string::npos);  // the time axis ends at 2.5 s (500 x 0.005)
  EXPECT_EQ(svg.find("no wall times recorded"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 9u);  // every series in both panels, "untimed" in the first only
  EXPECT_EQ(count(svg, "class=\"legend-entry\""), series.size());
  EXPECT_NE(svg.find(">ilu0 (same curve as dd)<"), std::string::npos);
  EXPECT_NE(svg.find(">near (same curve as dd, to 6 digits)<"), std::string::npos);
  EXPECT_NE(svg.find(">jacobi<"), std::string::npos);
  EXPECT_NE(svg.find(">untimed<"), std::string::npos);
  const std::vector<std::string> groups = marker_groups(svg);
  ASSERT_EQ(groups.size(), 9u);
  for (const std::string& g : groups) {
    EXPECT_GE(count(g, "class=\"marker "), 2u);
    EXPECT_LE(count(g, "class=\"marker "), std::size_t(kMaxMarkersPerSeries));
  }
  EXPECT_EQ(count(groups[4], "class=\"marker "), 3u);  // jacobi's three points, all marked
  // dd's and ilu0's markers (one curve) are staggered: dd's first at iteration 0, ilu0's not.
  EXPECT_NE(groups[0].find("cx=\"80.0\""), std::string::npos);
  EXPECT_EQ(groups[2].find("x=\"77.0\""), std::string::npos);  // a square's corner, 3 px left of x = 80
  // Each series a colour, a dash pattern and a marker shape of its own.
  std::vector<std::string> swatches;
  for (std::size_t at = svg.find("<g class=\"legend-entry\">"); at != std::string::npos;
       at = svg.find("<g class=\"legend-entry\">", at + 1)) {
    const std::string entry = svg.substr(at, svg.find("<text", at) - at);
    swatches.push_back(entry);
    EXPECT_NE(entry.find("class=\"marker "), std::string::npos);
  }
  ASSERT_EQ(swatches.size(), series.size());
  for (std::size_t a = 0; a < swatches.size(); ++a)
    for (std::size_t b = a + 1; b < swatches.size(); ++b) {
      auto attribute = [](const std::string& e, const std::string& name) {
        const std::size_t at = e.find(name + "=\"");
        return at == std::string::npos ? std::string() : e.substr(at, e.find('"', at + name.size() + 2) - at);
      };
      EXPECT_NE(attribute(swatches[a], "stroke"), attribute(swatches[b], "stroke")) << a << " " << b;
      EXPECT_NE(attribute(swatches[a], "stroke-dasharray"), attribute(swatches[b], "stroke-dasharray")) << a << b;
      auto shape = [](const std::string& e) {  // the marker's class="marker SHAPE"
        const std::size_t at = e.find("class=\"marker ");
        return e.substr(at, e.find('"', at + 7) - at);
      };
      EXPECT_NE(shape(swatches[a]), shape(swatches[b])) << a << " " << b;
    }
}

TEST(ConvergencePlot, LabelsAndTitleAreEscaped) {
  const std::string svg = write_and_read({{"a<b & \"c\" 'd'", {1, 0.5}}}, "<title> & \"x\"", "escape");
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot; &apos;d&apos;"), std::string::npos);
  EXPECT_NE(svg.find("&lt;title&gt; &amp; &quot;x&quot;"), std::string::npos);
}

TEST(ConvergencePlot, NothingToPlotStillGivesAxes) {
  for (const auto& series :
       {std::vector<PlotSeries>{}, std::vector<PlotSeries>{{"zero", {0}}, {"not a number", {std::nan("")}}}}) {
    const std::string svg = write_and_read(series, "t", "nothing");
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_FALSE(mentions_non_finite(svg));
    EXPECT_EQ(count(svg, "<polyline"), 0u);
    EXPECT_NE(svg.find("no finite positive residual to plot"), std::string::npos);
    EXPECT_NE(svg.find(">1e0<"), std::string::npos);
  }
}

TEST(ConvergencePlot, ManyRunsGetDistinctStylesAndLegendRows) {
  std::vector<PlotSeries> series;
  for (int k = 0; k < 25; ++k) {
    std::vector<double> values;
    for (int i = 0; i <= 40 + k; ++i) values.push_back(std::pow(10.0, -0.2 * i * (1 + 0.1 * k)));
    series.push_back({"run " + std::to_string(k), values});
  }
  const std::string svg = write_and_read(series, "many", "many");
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "<polyline"), 25u);
  for (int k = 0; k < 25; ++k) EXPECT_NE(svg.find(">run " + std::to_string(k) + "<"), std::string::npos);
  // Styles: the colour and dash pattern of each legend swatch, all different.
  std::vector<std::string> styles;
  for (std::size_t at = svg.find("stroke-width=\"2\""); at != std::string::npos;
       at = svg.find("stroke-width=\"2\"", at + 1))
    styles.push_back(svg.substr(at, svg.find("/>", at) - at));
  ASSERT_EQ(styles.size(), 25u);
  for (std::size_t a = 0; a < styles.size(); ++a)
    for (std::size_t b = a + 1; b < styles.size(); ++b) EXPECT_NE(styles[a], styles[b]) << a << " " << b;
}

TEST(ConvergencePlot, UnwritablePathThrowsNamingIt) {
  try {
    write_convergence_svg("/nonexistent/dir/plot.svg", {{"r", {1}}}, "t");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/plot.svg"), std::string::npos);
  }
}

}  // namespace
}  // namespace trellis::cli
