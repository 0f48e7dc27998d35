#pragma once
// Convergence plots for `trellis solve --history`: residual against iteration
// and against wall time for several solver runs, written as an SVG (plain
// text, any browser shows it).
#include <string>
#include <vector>

namespace trellis::cli {

struct PlotSeries {
  std::string name;  // legend label, e.g. "bicgstab + dd:dag_ec_ILDUO_fused"
  std::vector<double>
      values;  // relative residual per iteration (index = iteration); non-finite or <= 0 entries are skipped
  /// Wall time in seconds since the solve began at which each value was known
  /// (seconds[i] belongs to values[i]); empty when not recorded, and then the
  /// series is left out of the time panel.
  std::vector<double> seconds = {};
};

/// At most this many markers per series and panel: long runs are thinned.
constexpr int kMaxMarkersPerSeries = 40;

/// Writes an SVG of two panels, log10(value) against iteration on top and
/// against wall time (seconds) below, on one y range: axes with tick labels
/// (powers of ten 1e0, 1e-2, ... on y), one polyline per series, each series
/// with its own colour, dash pattern and marker shape (markers thinned to at
/// most kMaxMarkersPerSeries, staggered between series so that curves lying
/// on top of each other still show every series' markers), a legend row per
/// series naming it with its line, dash and marker (a series whose values
/// equal an earlier one's says "(same curve as NAME)", "(same curve as NAME,
/// to 6 digits)" when they agree to a relative 1e-6 but not bit for bit;
/// "(no data)" when nothing is plottable), and the title on top. Text is
/// XML-escaped. Any input gives a valid file (no series or no plottable value:
/// empty axes). Throws trellis::InputError naming the path when the file
/// cannot be written.
void write_convergence_svg(const std::string& path, const std::vector<PlotSeries>& series, const std::string& title);

}  // namespace trellis::cli
