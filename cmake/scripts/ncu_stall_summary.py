#!/usr/bin/env python3
"""Where one kernel's warps stall, from Nsight Compute's source page.

device_check.sh's profile step runs it on the CSV it writes:

  ncu --import REPORT.ncu-rep --page source --csv --print-source sass > sass.csv
  python3 cmake/scripts/ncu_stall_summary.py sass.csv [--bucket 100] > summary.txt

prints the stall samples by reason, then summed over runs of --bucket SASS
instructions with the opcodes that tell what each run is (BAR.SYNC, MEMBAR
and CCTL.IVALL: waits and barriers; LDL/STL: local memory; STRONG.SYS loads:
volatile loads; DFMA: arithmetic). A few kilobytes instead of the megabytes
of the CSV: small enough to bring back from the device and to keep in
perf_tests/results/.
"""
import argparse
import csv
import sys

KEY_OPCODES = ["BAR.SYNC", "MEMBAR", "CCTL.IVALL", "LDG.E.64.STRONG.SYS", "LDG", "STG", "LDL", "STL", "LDS", "STS",
               "DFMA", "ATOMG", "SHFL"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="ncu --page source --csv --print-source sass output")
    ap.add_argument("--bucket", type=int, default=100, help="instructions per run (default 100)")
    ap.add_argument("--min-percent", type=float, default=1.0, help="runs below this share are left out")
    args = ap.parse_args()

    rows = list(csv.reader(open(args.csv, newline="")))
    header_at = next((i for i, r in enumerate(rows) if "Source" in r and "Address" in r), None)
    if header_at is None:
        sys.exit(f"{args.csv}: no 'Address,Source,...' header (not an ncu source-page CSV?)")
    header, data = rows[header_at], rows[header_at + 1:]
    if header_at > 0 and rows[0] and rows[0][0] == "Kernel Name":
        print("kernel:", rows[0][1][:300])
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    if not reasons:
        sys.exit(f"{args.csv}: no stall_* columns (profile with --section SourceCounters)")
    col = {h: header.index(h) for h in reasons}
    source = header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")

    def number(row, i):
        try:
            return int(row[i] or 0)
        except (ValueError, IndexError):
            return 0

    totals = {h: sum(number(r, col[h]) for r in data) for h in reasons}
    all_samples = sum(totals.values())
    if all_samples == 0:
        sys.exit(f"{args.csv}: no stall samples")
    print(f"{all_samples} stall samples over {len(data)} SASS instructions")
    print("by reason: " + ", ".join(f"{h[6:]} {100 * v / all_samples:.1f}%"
                                    for h, v in sorted(totals.items(), key=lambda x: -x[1])
                                    if v / all_samples >= 0.005))
    print(f"by runs of {args.bucket} instructions (>= {args.min_percent}% of the samples):")
    for start in range(0, len(data), args.bucket):
        run = data[start:start + args.bucket]
        share = 100 * sum(number(r, samples) for r in run) / all_samples
        if share < args.min_percent:
            continue
        opcodes = set()
        for r in run:
            words = r[source].split()
            if words:
                opcodes.add(words[1] if words[0].startswith("@") and len(words) > 1 else words[0])
        seen = [k for k in KEY_OPCODES if any(o.startswith(k) for o in opcodes)]
        print(f"  {start:6d}-{start + len(run) - 1:<6d} {share:5.1f}%  {' '.join(seen)}")


if __name__ == "__main__":
    main()
