#pragma once
// Convergence plots for `trellis solve --history`: residual against iteration
// for several solver runs, written as an SVG (plain text, any browser shows it).
#include <string>
#include <vector>

namespace trellis::cli {

struct PlotSeries {
  std::string name;  // legend label, e.g. "bicgstab + dd:dag_ec_ILDUO_fused"
  std::vector<double>
      values;  // relative residual per iteration (index = iteration); non-finite or <= 0 entries are skipped
};

/// Writes an SVG plotting log10(value) against iteration for every series: axes with tick labels
/// (iterations on x; powers of ten 1e0, 1e-2, ... on y), one polyline per series in a distinct colour,
/// a legend naming every series, and the title on top. Text is XML-escaped. Any input gives a valid
/// file (no series or no plottable value: empty axes). Throws trellis::InputError naming the path
/// when the file cannot be written.
void write_convergence_svg(const std::string& path, const std::vector<PlotSeries>& series, const std::string& title);

}  // namespace trellis::cli
