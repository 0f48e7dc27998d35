#!/usr/bin/env python3
"""Critical-path model of StructILU's tiled wavefront sweep (wavefront_layout.hpp).

Predicts a forward sweep's time from two costs, to tell a sweep bound by its
tiles' own level cost from one bound by the hand-offs between tiles:

  c      the time a team takes for one level of its tile (us),
  delta  the latency of a hand-off: a neighbour publishes, the waiter sees it (us).

Each tile runs its levels in runs of `levels_per_wait` aligned to multiples of
it; a run starts when the tile's previous run is done and, for each
neighbour tile ((-1,0), (0,-1), (-1,-1)), delta after the neighbour has
finished the level before the run's last. Tiles are taken in the ticket
order of assign_tiles by at most `resident` teams. The tile level ranges are
exact for an N^3 grid and the stencil's wavefront transform.

  wavefront_schedule_model.py STENCIL N [--tile 32x4] C,WAIT,DELTA[,RESIDENT] ...
  e.g.  wavefront_schedule_model.py box27 164 1.2,2,2 6,2,2
"""
import argparse
import heapq


def stencil_lower(shape):
    near = [(x, y, z) for x in range(-2, 3) for y in range(-2, 3) for z in range(-2, 3)]
    norm1 = lambda p: sum(map(abs, p))
    norm_inf = lambda p: max(map(abs, p))
    pick = {
        "star7": lambda p: norm1(p) <= 1,
        "star13": lambda p: norm1(p) == norm_inf(p),
        "diamond13": lambda p: norm1(p) <= 1 or p in [(1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1)],
        "diamond25": lambda p: norm1(p) <= 2,
        "box27": lambda p: norm_inf(p) <= 1,
    }[shape]
    # lower points come before the centre in the natural (z, y, x) numbering
    return [p for p in near if pick(p) and (p[2], p[1], p[0]) < (0, 0, 0)]


def wavefront_transform(lower, n):
    """Stencil::wavefront: the (a, b, c) <= 8 with the fewest levels."""
    best = None
    for a in range(9):
        for b in range(9):
            for c in range(9):
                ok = all(x + a * y + b * z <= 0 and y + c * z <= 0 and x + (a + 1) * y + (b + c + 1) * z < 0
                         for x, y, z in lower)
                levels = (n - 1) * (1 + (a + 1) + (b + c + 1)) + 1
                if ok and (best is None or levels < best[0]):
                    best = (levels, a, b, c)
    return best


def tile_levels(n, a, b, c, tx, ty):
    """First and last level of every tile (level = hat_x + hat_y + k)."""
    width, height = (n - 1) * (1 + a + b) + 1, (n - 1) * (1 + c) + 1
    tiles_x, tiles_y = -(-width // tx), -(-height // ty)
    first, last = [None] * (tiles_x * tiles_y), [None] * (tiles_x * tiles_y)
    for j in range(n):
        for k in range(n):
            hj, start = j + c * k, a * j + b * k  # the line's hat_y; hat_x of i = 0
            for col in range(start // tx, (start + n - 1) // tx + 1):
                t = (hj // ty) * tiles_x + col
                lo, hi = max(col * tx, start) + hj + k, min(col * tx + tx - 1, start + n - 1) + hj + k
                first[t] = lo if first[t] is None else min(first[t], lo)
                last[t] = hi if last[t] is None else max(last[t], hi)
    return tiles_x, tiles_y, first, last


def ticket_order(tiles_x, tiles_y, first):
    key, tiles = {}, []
    for ty in range(tiles_y):
        for tx in range(tiles_x):
            t = ty * tiles_x + tx
            if first[t] is None:
                continue
            k = first[t]
            for q in (t - 1 if tx > 0 else None, t - tiles_x if ty > 0 else None,
                      t - tiles_x - 1 if tx > 0 and ty > 0 else None):
                if q is not None and q in key:
                    k = max(k, key[q])
            key[t] = k
            tiles.append(t)
    return sorted(tiles, key=lambda t: (key[t], t % tiles_x + t // tiles_x))


def sweep_time(tiles_x, first, last, order, c, per_wait, delta, resident):
    published = {}  # tile -> [(level finished, time)]
    free = [0.0] * min(resident, len(order))
    end = 0.0
    for t in order:
        tx, ty = t % tiles_x, t // tiles_x
        neighbours = [q for q, ok in ((t - 1, tx > 0), (t - tiles_x, ty > 0), (t - tiles_x - 1, tx > 0 and ty > 0))
                      if ok and first[q] is not None]
        time, runs, lev = heapq.heappop(free), [], first[t]
        while lev <= last[t]:
            run_last = min(lev - lev % per_wait + per_wait - 1, last[t])
            start = time
            for q in neighbours:
                if first[q] > run_last - 1:
                    continue
                need = min(last[q], run_last - 1)
                start = max(start, next(when for done, when in published[q] if done >= need) + delta)
            time = start + (run_last - lev + 1) * c
            runs.append((run_last, time))
            lev = run_last + 1
        published[t] = runs
        end = max(end, time)
        heapq.heappush(free, time)
    return end


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("stencil", choices=["star7", "star13", "diamond13", "diamond25", "box27"])
    p.add_argument("n", type=int)
    p.add_argument("--tile", default="32x4")
    p.add_argument("costs", nargs="+", help="C,WAIT,DELTA[,RESIDENT]")
    args = p.parse_args()
    tx, ty = map(int, args.tile.split("x"))
    levels, a, b, c = wavefront_transform(stencil_lower(args.stencil), args.n)
    tiles_x, tiles_y, first, last = tile_levels(args.n, a, b, c, tx, ty)
    spans = [l - f + 1 for f, l in zip(first, last) if f is not None]
    print(f"{args.stencil} {args.n}^3: {levels} levels, transform {(a, b, c)}, tiles {tiles_x} x {tiles_y} "
          f"({len(spans)} non-empty), {sum(spans) / len(spans):.0f} levels a tile on average")
    order = ticket_order(tiles_x, tiles_y, first)
    for item in args.costs:
        v = item.split(",")
        resident = int(v[3]) if len(v) > 3 else len(order)
        ms = sweep_time(tiles_x, first, last, order, float(v[0]), int(v[1]), float(v[2]), resident) / 1000
        print(f"  c = {float(v[0]):.2f} us, a wait per {int(v[1])}, delta = {float(v[2]):.1f} us, "
              f"{resident} resident teams: {ms:.2f} ms")


if __name__ == "__main__":
    main()
