#!/usr/bin/env python3
"""Writes perf_tests/STATUS.md (and its SVG plots in perf_tests/status/) from
the result files in perf_tests/results/current/: one table per family against
its baselines, each headed by the run it comes from (commit, date, device,
command: the files' "run" record). Nothing here is typed by hand.

    make_status.py           regenerate
    make_status.py --check   exit 1 if STATUS.md or a plot differs from what
                             the result files give (a ctest runs this)
"""
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PERF = os.path.dirname(HERE)
CURRENT = os.path.join(PERF, "results", "current")
STATUS = os.path.join(PERF, "STATUS.md")
PLOTS = os.path.join(PERF, "status")


def short(problem):
    name = os.path.basename(problem)
    for ext in (".mtx.gz", ".mtx"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def ratio(x):
    return "-" if x is None or x != x else "%.2fx" % x


def run_line(doc):
    run = doc.get("run", {})
    return "Run: commit `%s`, %s, %s; `%s`." % (run.get("commit", "?"), run.get("date", "?"),
                                                  run.get("device", doc.get("device", "?")), run.get("command", "?"))


def svg_bars(title, labels, values, unit="x cuSPARSE", lowest=0.25):
    """Horizontal bars on a log axis from `lowest` with the 1x line: the SVG text."""
    w, left, row, top = 720, 250, 18, 40
    h = top + row * len(labels) + 30
    lo, hi = math.log10(lowest), math.log10(max([v for v in values if v] + [4.0]) * 1.2)
    xpos = lambda v: left + (math.log10(v) - lo) / (hi - lo) * (w - left - 20)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="12">' % (w, h),
           '<text x="10" y="20" font-size="14">%s</text>' % title]
    for t in (0.03125, 0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16):
        if lo < math.log10(t) <= hi:
            x = xpos(t)
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>' %
                       (x, top - 5, x, h - 25, "#000" if t == 1 else "#ccc"))
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%gx</text>' % (x, h - 10, t))
    for i, (label, v) in enumerate(zip(labels, values)):
        y = top + i * row
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 6, y + 12, label))
        if v:
            x0, x1 = xpos(1.0), xpos(max(v, 10 ** lo))
            color = "#2a7" if v >= 1 else "#c44"
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>' %
                       (min(x0, x1), y + 2, abs(x1 - x0), row - 5, color))
            out.append('<text x="%.1f" y="%d">%.2f</text>' % (max(x0, x1) + 3, y + 12, v))
    out.append('<text x="%d" y="%d" fill="#666">%s, log scale</text>' % (left, top - 12, unit))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def solve_section(doc, plots):
    rows = doc["results"]
    lines = ["## Default solve: `auto` and DD ILDU0 against cuSPARSE ILU(0), BiCGSTAB (seed 000)", "",
             run_line(doc), "",
             "Time to solution (the median of the timed runs) against cuSPARSE csrilu02 + SpSV in the same run; "
             "setup excluded and included. The paper reports its DD ILDU0 BiCGSTAB against rocSPARSE on an "
             "AMD GPU (Tables 5.5-5.6).", "",
             "| problem | rows | auto built | auto it | cuSPARSE it | auto excl. | auto incl. | DD excl. | DD incl. |",
             "|---|---|---|---|---|---|---|---|---|"]
    labels, values = [], []
    for r in rows:
        methods = {m["method"].split("=")[0]: m for m in r["methods"]}
        auto = next((m for m in r["methods"] if m["method"].startswith("auto")), None)
        cu = methods.get("cusparse-ilu0")
        built = auto["method"].split("=", 1)[1] if auto and "=" in auto["method"] else "-"
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            short(r["problem"]), r["rows"], built, auto["iterations"] if auto else "-",
            cu["iterations"] if cu else "-", ratio(r.get("speedup_auto_vs_cusparse_setup_excluded")),
            ratio(r.get("speedup_auto_vs_cusparse_setup_included")),
            ratio(r.get("speedup_fused_vs_cusparse_setup_excluded")),
            ratio(r.get("speedup_fused_vs_cusparse_setup_included"))))
        labels.append(short(r["problem"]))
        values.append(r.get("speedup_auto_vs_cusparse_setup_included"))
    lines += ["", "Geometric means: auto **%s** setup excluded, **%s** included; DD %s / %s. auto failed where "
              "cuSPARSE converged: %s." % (ratio(doc.get("geomean_auto_setup_excluded")),
                                           ratio(doc.get("geomean_auto_setup_included")),
                                           ratio(doc.get("geomean_setup_excluded")),
                                           ratio(doc.get("geomean_setup_included")),
                                           ", ".join(short(p) for p in doc.get("auto_failed_where_cusparse_converged", []))
                                           or "none"), ""]
    plots["solve_auto_vs_cusparse.svg"] = svg_bars("auto vs cuSPARSE ILU(0), BiCGSTAB, setup included",
                                                   labels, values)
    lines += ["![auto vs cuSPARSE](status/solve_auto_vs_cusparse.svg)", ""]
    return lines


def refactor_section(doc, plots):
    rows = doc["results"]
    lines = ["## Refactorization: numeric phase and the 10-step sequence (seed 000, issue 57)", "",
             run_line(doc), "",
             "numeric(): new values of the same pattern against csrilu02's numeric phase (its analysis kept), "
             "median of the steps; the sequence: setup + 10 x (numeric + BiCGSTAB), auto against cuSPARSE.", "",
             "| problem | rows | global ILU0 numeric vs csrilu02 | DD numeric vs csrilu02 | 10-step sequence, auto vs cuSPARSE |",
             "|---|---|---|---|---|"]
    labels, values = [], []
    for r in rows:
        lines.append("| %s | %d | %s | %s | %s |" % (short(r["problem"]), r["rows"], ratio(r.get("numeric_speedup_ilu0")),
                                                    ratio(r.get("numeric_speedup_dd")),
                                                    ratio(r.get("sequence_speedup_auto"))))
        labels.append(short(r["problem"]))
        values.append(r.get("numeric_speedup_ilu0"))
    lines += ["", "Geometric means: global ILU0 numeric **%s**, DD numeric %s, sequence auto **%s** (auto within 15%% "
              "of the better of dd / ilu0 on %s of %d)." % (
                  ratio(geomean([r.get("numeric_speedup_ilu0") for r in rows])),
                  ratio(geomean([r.get("numeric_speedup_dd") for r in rows])),
                  ratio(doc.get("geomean_sequence_speedup_auto")), doc.get("auto_within_15_percent", "?"), len(rows)), ""]
    plots["refactor_ilu0_numeric.svg"] = svg_bars("global ILU0 numeric phase vs csrilu02's", labels, values,
                                                  "x csrilu02")
    lines += ["![ILU0 numeric vs csrilu02](status/refactor_ilu0_numeric.svg)", ""]
    return lines


def ms(x):
    return "-" if x is None else "%.2f" % (x * 1e3)


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def struct_section(doc, plots):
    rows = [r for r in doc.get("kernels", []) if "error" not in r]
    lines = ["## StructILU: Table 3's lower solve and factorization, Table 4's solves (seed 003, issue 58)", "",
             run_line(doc), "",
             "Lower solve against the fastest of cuSPARSE SpSV (CSR), bsrsv2 (BSR) and Trellis's general "
             "solves; factorization against the faster of csrilu02 and bsrilu02; the model's bound is the larger "
             "of levels x a one-tile chain's level and bytes / copy bandwidth (%.0f GB/s). The paper (A100): "
             "lower solve 2.06x, factorization 3.56x the best baseline in geometric mean." % doc.get("copy_gbs", 0),
             "",
             "| stencil | DoF | rows | levels | lower ms | vs fastest | at model bound | pipeline gives | factor ms "
             "| vs cuSPARSE | at model bound | pipeline gives |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    labels, values = [], []
    for r in rows:
        lines.append("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["stencil"], r["dof"], r["rows"], r.get("levels", 0), ms(r.get("structilu_lower_s")),
            ratio(r.get("lower_speedup")), pct(r.get("model_lower_fraction")), ratio(r.get("pipeline_speedup")),
            ms(r.get("structilu_factor_s")), ratio(r.get("factor_speedup")), pct(r.get("model_factor_fraction")),
            ratio(r.get("factor_pipeline_speedup"))))
        labels.append("%s DoF %d" % (r["stencil"], r["dof"]))
        values.append(r.get("lower_speedup"))
    errors = [r for r in doc.get("kernels", []) if "error" in r]
    lines += ["", "Geometric means over %d cases: lower solve **%s**, factorization **%s**.%s" % (
        len(rows), ratio(doc.get("lower_speedup_geomean")), ratio(doc.get("factor_speedup_geomean")),
        (" Failed: " + ", ".join("%s DoF %d" % (r["stencil"], r["dof"]) for r in errors) + ".") if errors else ""),
              ""]
    if any(v for v in values):
        plots["struct_lower_vs_fastest.svg"] = svg_bars("StructILU lower solve vs the fastest baseline", labels,
                                                        values, "x fastest baseline")
        lines += ["![StructILU lower solve vs the fastest baseline](status/struct_lower_vs_fastest.svg)", ""]
    solves = doc.get("solves", [])
    if solves:
        lines += ["Table 4: one Krylov driver, b = A 1, tolerance 1e-8; StructILU in its layout order on the "
                  "stencil SpMV against cuSPARSE ILU(0) (csrilu02 + SpSV) on the BSR SpMV; setup included.", "",
                  "| problem | stencil | DoF | N | solver | StructILU it | cuSPARSE it | speedup with setup |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in solves:
            lines.append("| %s | %s | %d | %d | %s | %s | %s | %s |" % (
                r["problem"], r["stencil"], r["dof"], r["grid"], r["solver"], r.get("structilu_iterations", "-"),
                r.get("cusparse_ilu0_iterations", "-"), ratio(r.get("speedup_with_setup"))))
        lines += ["", "Geometric mean with setup: **%s**." % ratio(geomean([r.get("speedup_with_setup")
                                                                           for r in solves])), ""]
    return lines


def pair_ms(t):
    """Lower + upper solve of one trsv_bench record, ms."""
    try:
        return (t["lower"]["median_s"] + t["upper"]["median_s"]) * 1e3
    except (KeyError, TypeError):
        return None


def trsv_section(doc, plots):
    rows = [p for p in doc.get("problems", []) if p.get("trsv")]
    solvers = []
    for p in rows:
        for t in p["trsv"]:
            if t["family"] == "trellis" and t["solver"] not in solvers:
                solvers.append(t["solver"])
    lines = ["## Triangular solves: every algorithm and `auto` against cuSPARSE SpSV (seeds 002, 004, issue 59)", "",
             run_line(doc), "",
             "Lower + upper solve of each matrix's triangles, ms (median of the timed runs); `auto` against "
             "cuSPARSE SpSV in the same run. The target (issue 59): `auto` 2x cuSPARSE in geometric mean.", "",
             "| problem | rows | levels (L) | " + " | ".join(solvers) + " | cuSPARSE | auto vs cuSPARSE | fastest |",
             "|---|---|---|" + "---|" * len(solvers) + "---|---|---|"]
    labels, values = [], []
    for p in rows:
        by = {t["solver"]: t for t in p["trsv"]}
        times = {k: pair_ms(t) for k, t in by.items() if t.get("status") == "ok"}
        cu = times.get("cuSPARSE")
        auto = times.get("AUTO")
        own = {k: v for k, v in times.items() if k in solvers and k != "AUTO" and v}
        fastest = min(own, key=own.get) if own else "-"
        speed = cu / auto if cu and auto else None
        lines.append("| %s | %d | %d | %s | %s | %s | %s |" % (
            short(p["problem"]), p["n"], p.get("levels_lower", 0),
            " | ".join("%.3f" % times[k] if times.get(k) else by.get(k, {}).get("status", "-") for k in solvers),
            "%.3f" % cu if cu else "-", ratio(speed), fastest))
        labels.append(short(p["problem"]))
        values.append(speed)
    lines += ["", "Geometric mean of auto vs cuSPARSE over %d problems: **%s**." % (len(rows), ratio(geomean(values))),
              ""]
    if any(v for v in values):
        plots["trsv_auto_vs_cusparse.svg"] = svg_bars("triangular solves: auto vs cuSPARSE SpSV", labels, values)
        lines += ["![auto vs cuSPARSE SpSV](status/trsv_auto_vs_cusparse.svg)", ""]
    return lines


PAPER_TILE_LS = (5.29, 38.10)  # seed 004 (Lu, Liu), section 4.3: average and best over cuSPARSE, RTX 4090


def tile_order_of(problem, part):
    """The order the lower triangle was tiled in: the solver's report names it (automatic order), else the run's
    setting."""
    for t in problem.get("trsv", []):
        if t.get("solver") != "TILE-LS":
            continue
        m = re.search(r"(\w+) order", t.get("lower", {}).get("details", ""))
        if m:
            return m.group(1)
    return part.get("settings", {}).get("tile_order", "-")


def tile_mapping_note(doc):
    variants = {v for part in doc.get("parts", []) for v in part.get("settings", {}).get("tile_variants", [])}
    if variants == {"rows"}:
        return ("The off-diagonal tiles are multiplied with TileSpMV's per-format row mapping (a tile's 16 rows on "
                "16 lanes, two tiles a warp) and each tile level is one fused launch.")
    return ("These runs have one tile walker that switches on each tile's format (the lane-per-tile mapping), "
            "not TileSpMV's per-format kernels.")


def trsv_tiles_section(doc, plots):
    lines = ["## TileSpTRSV: tile-levelset and tile-syncfree against cuSPARSE SpSV (seed 004, issue 17)", "",
             run_line(doc), "",
             "Lower + upper solve, ms (median of the timed runs), against cuSPARSE SpSV in the same run; the tile "
             "order is the lower triangle's (the default, `automatic`, picks between the paper's level order and the "
             "matrix's own by TileOrder's rule in tile_options.hpp). The paper (Lu, Liu; RTX 4090, "
             "16 SuiteSparse matrices, double): TileSpTRSV_level-set **%.2fx** cuSPARSE on average, up to %.2fx."
             % PAPER_TILE_LS, "",
             "| problem | tile order | rows | levels (L) | tile-levelset | tile-syncfree | cuSPARSE "
             "| tile-levelset vs cuSPARSE | tile-syncfree vs cuSPARSE |",
             "|---|---|---|---|---|---|---|---|---|"]
    labels, levelset, syncfree = [], [], []
    for part in doc.get("parts", []):
        for p in part.get("problems", []):
            ms_of = {t["solver"]: pair_ms(t) for t in p.get("trsv", []) if t.get("status") == "ok"}
            cu, ls, sf = ms_of.get("cuSPARSE"), ms_of.get("TILE-LS"), ms_of.get("TILE-SF")
            ls_speed = cu / ls if cu and ls else None
            sf_speed = cu / sf if cu and sf else None
            lines.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s |" % (
                short(p["problem"]), tile_order_of(p, part), p["n"], p.get("levels_lower", 0),
                "%.3f" % ls if ls else "-", "%.3f" % sf if sf else "-", "%.3f" % cu if cu else "-",
                ratio(ls_speed), ratio(sf_speed)))
            labels.append(short(p["problem"]))
            levelset.append(ls_speed)
            syncfree.append(sf_speed)
    share = geomean(levelset) / PAPER_TILE_LS[0]
    verdict = "far below it" if share < 0.5 else "below it" if share < 1 else "at or above it"
    lines += ["", "Geometric means over %d problems: tile-levelset **%s**, tile-syncfree **%s** cuSPARSE. "
              "tile-levelset is %.2f of the paper's %.2fx: %s. %s" % (
                  len(labels), ratio(geomean(levelset)), ratio(geomean(syncfree)), share, PAPER_TILE_LS[0],
                  verdict if share == share else "not measured", tile_mapping_note(doc)), ""]
    if any(v for v in levelset):
        # the ratios sit far under 1x: the axis starts at 1/50
        plots["trsv_tiles_vs_cusparse.svg"] = svg_bars(
            "tile-levelset vs cuSPARSE SpSV, and the paper's average", labels + ["paper: average, RTX 4090"],
            levelset + [PAPER_TILE_LS[0]], lowest=0.02)
        lines += ["![tile-levelset vs cuSPARSE SpSV](status/trsv_tiles_vs_cusparse.svg)", ""]
    return lines


# seed 002 (Li, Zhang), section 6.2 on Table 5 (21 general matrices): average and largest speedup of its kernels
# over CUS1/CUS2 (csrsv, csrsv2) and GSF on a V100. Table 5(b) gives 1.60x as the geometric mean of its best
# kernel over the better of CUS1 and CUS2, and 3.84x at most (elasticity2D).
PAPER_GS = (1.6, 3.8)
PAPER_GS_QUOTE = "the speedup by a factor of up to 3.8 and on average 1.6 on V100"


def sig3(x):
    """Three significant digits, trailing zeros kept: 16.0, 2.40, 0.0773."""
    return "%.*f" % (max(0, 2 - int(math.floor(math.log10(x)))), x)


def is_grid(problem):
    return not re.search(r"\.mtx(\.gz)?$", problem)


def gs_section(doc, plots):
    # problem -> why (a run's filler); "problem@commit": that run's row only (superseded by a later run)
    left_out = doc.get("left_out", {})

    def kept(run, p):
        return p["problem"] not in left_out and "%s@%s" % (p["problem"], run["run"].get("commit")) not in left_out

    rows = [p for run in doc["runs"] for p in run["problems"] if kept(run, p)]
    lines = ["## Gauss-Seidel: forward + backward sweeps against a cuSPARSE sweep (seed 002, issue 59)", ""]
    for run in doc["runs"]:
        shown = [p["problem"] for p in run["problems"] if kept(run, p)]
        counts = [(sum(map(is_grid, shown)), "grids"), (sum(not is_grid(p) for p in shown), "real matrices")]
        lines.append("- %s %s." % (run_line(run), " and ".join("%d %s" % c for c in counts if c[0])))
    lines.append("")
    if left_out:
        lines += ["Left out: %s, %s." % (name, why) for name, why in left_out.items()] + [""]
    lines += ["One forward and one backward sweep, GFLOP/s = 2 nnz(A)/t (the paper's convention; t the median of "
              "the timed runs). The baseline, in the same run, is a sweep built on cusparseSpMV + cusparseSpSV; it "
              "stands in for the paper's CUS1/CUS2 (csrsv, csrsv2), which CUDA 13 no longer has. The paper (Li, "
              "Zhang; V100, its Table 5's 21 general matrices, against CUS1, CUS2 and GSF): \"%s\"." % PAPER_GS_QUOTE,
              "", "| problem | rows | nnz | ELMR-V GFLOP/s | AUTO GFLOP/s | cuSPARSE GFLOP/s | AUTO / cuSPARSE |",
              "|---|---|---|---|---|---|---|"]
    labels, values, grids, real, worst_error, failed = [], [], [], [], 0.0, []
    for p in rows:
        by = {g["algorithm"]: g for g in p["gauss_seidel"]}
        for g in p["gauss_seidel"]:
            if g.get("status") == "ok":
                worst_error = max(worst_error, g.get("rel_error") or 0.0)
            else:
                failed.append("%s %s (%s)" % (short(p["problem"]), g["algorithm"], g.get("status")))
        gflops = {k: g["gflops_paper"] for k, g in by.items() if g.get("status") == "ok" and g.get("gflops_paper")}
        auto, cu = gflops.get("AUTO"), gflops.get("cuSPARSE")
        speed = auto / cu if auto and cu else None
        lines.append("| %s | %d | %d | %s | %s |" % (
            short(p["problem"]), p["n"], p["nnz"],
            " | ".join(sig3(gflops[k]) if k in gflops else by.get(k, {}).get("status", "-")
                       for k in ("ELMR-V", "AUTO", "cuSPARSE")), ratio(speed)))
        labels.append(short(p["problem"]))
        values.append(speed)
        if speed:
            (grids if is_grid(p["problem"]) else real).append(speed)
    measured = sorted((v, l) for v, l in zip(values, labels) if v)
    if not measured:
        return lines + ["", "No problem has both an AUTO and a cuSPARSE sweep.", ""]
    lines += ["", "Geometric means of AUTO / cuSPARSE: **%s** over the %d grids, **%s** over the %d real matrices, "
              "**%s** over all %d; from %s (%s) to %s (%s). Below 1x: %s. The paper, on general matrices: on "
              "average %gx, at most %gx (V100)." % (
                  ratio(geomean(grids)), len(grids), ratio(geomean(real)), len(real), ratio(geomean(values)),
                  len(measured), ratio(measured[0][0]), measured[0][1], ratio(measured[-1][0]), measured[-1][1],
                  ", ".join("%s %s" % (l, ratio(v)) for v, l in zip(values, labels) if v and v < 1) or "none",
                  PAPER_GS[0], PAPER_GS[1]), "",
              "Every sweep matches the serial host reference (largest relative error %.1e)." % worst_error
              if not failed else "Not ok: %s." % ", ".join(failed), ""]
    plots["gs_auto_vs_cusparse.svg"] = svg_bars("Gauss-Seidel sweeps: AUTO vs the cuSPARSE sweep, and the paper's "
                                                "average", labels + ["paper: average, V100"], values + [PAPER_GS[0]],
                                                "x cuSPARSE sweep")
    lines += ["![AUTO vs the cuSPARSE sweep](status/gs_auto_vs_cusparse.svg)", ""]
    return lines


# seed 001 (Ma, Zhao, Le, Yuan), abstract and Fig. 13: OKP-Solver over CU-Solver by GPU count, (V100, A100)
PAPER_KRON = {1: {"T_Kx": (2.00, 1.43), "T_all": (1.70, 1.33)},
              2: {"T_Kx": (1.87, 1.50), "T_c": (9.18, 8.95), "T_all": (3.48, 3.70)},
              4: {"T_Kx": (1.85, 1.64), "T_c": (6.82, 5.60), "T_all": (3.70, 3.48)},
              8: {"T_Kx": (1.91, 1.64), "T_c": (1.54, 1.62), "T_all": (1.82, 2.28)}}


def paper_kron(gpus, term):
    v = PAPER_KRON.get(gpus, {}).get(term)
    return "%s / %s" % (ratio(v[0]), ratio(v[1])) if v else "-"


def gpu_name(device):
    """'H100' from 'Cuda (NVIDIA H100 80GB HBM3)'."""
    found = re.search(r"NVIDIA (\w+)", device)
    return found.group(1) if found else device


def kron_rows(part, labels, values):
    """One run's table; its T_all ratios go to the plot."""
    note = part.get("run", {}).get("note")
    lines = [run_line(part) + (" Note: %s." % note if note else ""), "",
             "| GPUs | row | Gram-Schmidt | apply ms ours / base | T_Kx s ours / base | T_Kx | T_c "
             "| T_Gn s ours / base | T_all s ours / base | T_all | same GMRES | paper T_Kx V100 / A100 "
             "| paper T_c | paper T_all |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in part["rows"]:
        r = row["result"]
        ours, base = r["trellis"], r["baseline"]
        lines.append("| %d | %s | %s | %.3f / %.3f | %.3f / %.3f | %s | %s | %.3f / %.3f | %.3f / %.3f | **%s** "
                     "| %s | %s | %s | %s |" % (
                         r["ranks"], row["run"], r.get("orthogonalization", "-"), ours["apply_ms"],
                         base["apply_ms"], ours["T_Kx"], base["T_Kx"], ratio(r.get("speedup_T_Kx")),
                         ratio(r.get("speedup_T_c")), ours["T_Gn"], base["T_Gn"], ours["T_all"], base["T_all"],
                         ratio(r.get("speedup_T_all")), ratio(r.get("speedup_T_all_same_driver")),
                         paper_kron(r["ranks"], "T_Kx"), paper_kron(r["ranks"], "T_c"),
                         paper_kron(r["ranks"], "T_all")))
        labels.append("ours: %d %s (%s)" % (r["ranks"], gpu_name(r["device"]), row["run"]))
        values.append(r.get("speedup_T_all"))
    return lines + [""]


def kron_section(doc, plots):
    first = doc["rows"][0]["result"]
    kx = [v["T_Kx"][i] for v in PAPER_KRON.values() for i in (0, 1)]
    lines = ["## Kronecker-product GMRES against the paper's CU-Solver (seed 001, issues 19, 22)", "",
             "GMRES(30), %d fixed iterations, on %s (N = %s); the baseline, in the same run, is the paper's "
             "CU-Solver (Alg 4, `kron_baseline.hpp`: cuSPARSE bsrmv per column, exchanges through the host, "
             "BLAS-1 MGS). Times in s, the slowest rank's, in the paper's terms (its Table 3): T_Kx the Kronecker "
             "SpMV, T_c its halo exchanges, T_Gn the rest of GMRES, T_all the whole solve. Ratios: the baseline's "
             "time over ours; same GMRES: T_all with the baseline's SpMV in our GMRES driver. The paper (V100 / "
             "A100, 1-8 GPUs, its Stokes case N = 604,360, b = 4, s = 2, tau = 0.125): Kronecker SpMV **%s-%s**, "
             "whole solver **up to %s** against CU-Solver." % (
                 first["iterations"], first["problem"], format(first["N"], ","), ratio(min(kx)), ratio(max(kx)),
                 ratio(max(v["T_all"][i] for v in PAPER_KRON.values() for i in (0, 1)))), ""]
    labels, values = [], []
    lines += kron_rows(doc, labels, values)
    if doc.get("multi_gpu"):
        lines += kron_rows(doc["multi_gpu"], labels, values)
    lines += ["Not run here: the paper's 8 GPUs on two nodes (T_Kx %s, T_c %s, T_all %s)." % (
        paper_kron(8, "T_Kx"), paper_kron(8, "T_c"), paper_kron(8, "T_all")), ""]
    for gpus in sorted(PAPER_KRON):
        for i, gpu in enumerate(("V100", "A100")):
            labels.append("paper: %d %s" % (gpus, gpu))
            values.append(PAPER_KRON[gpus]["T_all"][i])
    plots["kron_t_all_vs_cu_solver.svg"] = svg_bars("Kronecker GMRES, whole solve (T_all): ours and the paper's",
                                                    labels, values, "x CU-Solver")
    lines += ["![T_all vs CU-Solver](status/kron_t_all_vs_cu_solver.svg)", ""]
    return lines


SECTIONS = [("solve.json", solve_section), ("refactor.json", refactor_section), ("struct.json", struct_section),
            ("trsv.json", trsv_section), ("trsv_tiles.json", trsv_tiles_section), ("gs.json", gs_section),
            ("kron.json", kron_section)]
# Families listed while their file is missing from results/current
NOT_IN_CURRENT = [("trsv_tiles.json", "TileSpTRSV's own figures (seed 004: trsv_bench --algorithms "
                   "tile-levelset,tile-syncfree)"),
                  ("kron.json", "Kronecker GMRES (seed 001: kron_bench)")]
# Families listed while no result file in results/current measures them
NOT_MEASURED = [("gs.json", "Gauss-Seidel against a cuSPARSE-based sweep (seed 002): no result file holds one "
                 "(trsv_bench's sweeps are Trellis's own).")]


def generate():
    plots = {}
    lines = ["# Performance at a glance", "",
             "Generated by `python3 perf_tests/tools/make_status.py` from `perf_tests/results/current/`; do not "
             "edit by hand. The dated work logs, with every change and its measurement, are in "
             "[journal/RESULTS.md](journal/RESULTS.md).", ""]
    for name, section in SECTIONS:
        path = os.path.join(CURRENT, name)
        if os.path.exists(path):
            with open(path) as f:
                lines += section(json.load(f), plots)
    missing = [what for name, what in NOT_IN_CURRENT if not os.path.exists(os.path.join(CURRENT, name))]
    if missing:
        lines += ["## Not yet in results/current", "",
                  "These families' latest figures are in journal/RESULTS.md, from result files without a run "
                  "record:", ""] + ["- " + what for what in missing] + [""]
    unmeasured = [what for name, what in NOT_MEASURED if not os.path.exists(os.path.join(CURRENT, name))]
    if unmeasured:
        lines += ["## Not measured yet", ""] + ["- " + what for what in unmeasured] + [""]
    return "\n".join(lines), plots


def main():
    text, plots = generate()
    if "--check" in sys.argv[1:]:
        stale = []
        if not os.path.exists(STATUS) or open(STATUS).read() != text:
            stale.append(STATUS)
        for name, svg in plots.items():
            p = os.path.join(PLOTS, name)
            if not os.path.exists(p) or open(p).read() != svg:
                stale.append(p)
        for p in stale:
            print("make_status: %s is not what results/current gives; run perf_tests/tools/make_status.py" % p)
        print("make_status: %s" % ("stale" if stale else "STATUS.md matches results/current"))
        return 1 if stale else 0
    os.makedirs(PLOTS, exist_ok=True)
    with open(STATUS, "w") as f:
        f.write(text)
    for name, svg in plots.items():
        with open(os.path.join(PLOTS, name), "w") as f:
            f.write(svg)
    print("make_status: wrote %s and %d plot(s)" % (STATUS, len(plots)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
