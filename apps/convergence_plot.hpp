#pragma once
// Convergence plots for `trellis solve --history`: residual against iteration
// for several solver runs, written as a PNG without any image library.
#include <string>
#include <vector>

namespace trellis::cli {

struct PlotSeries {
  std::string name;            // legend label, e.g. "bicgstab + dd:dag_ec_ILDUO_fused"
  std::vector<double> values;  // relative residual per iteration (index = iteration), positive; non-finite or <= 0 entries are skipped
};

/// Writes an RGB PNG (about 900x560) plotting log10(value) against iteration for every series:
/// axes, tick marks with labels (iterations on x; powers of ten 1e0, 1e-2, ... on y), a distinct colour per series,
/// a legend with the series names, and the title on top. Text is drawn with a small built-in 5x7 bitmap font
/// covering printable ASCII. Throws trellis::InputError naming the path when the file cannot be written,
/// and when series is empty or has no plottable value.
void write_convergence_png(const std::string& path, const std::vector<PlotSeries>& series, const std::string& title);

}  // namespace trellis::cli
