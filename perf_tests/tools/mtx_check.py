#!/usr/bin/env python3
"""Parses Matrix Market files (.mtx or .mtx.gz) and prints what a triangular
solve cares about.

    mtx_check.py [--tsv] [--require-diagonal] FILE...

For each file: size, stored entries, field and symmetry; entries after the
symmetric expansion (as Trellis reads them), explicit zeros; the diagonal
(rows with no stored diagonal entry, rows whose diagonal is zero or not
finite: trsv_bench skips such a matrix); the level sets of the lower
triangle L = tril(A) and of the upper triangle U = triu(A) in the given
order (a row's level is one more than the highest level among the rows its
off-diagonal entries of the triangle reference), the widest level, the levels
with fewer than 32 rows ("thin"), and the mean stored entries of L per
nonempty 16x16 tile (the TileSpTRSV tile size) in the given order.

--tsv prints one tab-separated line per file under a header.
Exit status 1 when a file does not parse (duplicate entries, an index out of
range, a count that disagrees with the size line, a malformed line), or with
--require-diagonal when a diagonal is incomplete; 2 for bad arguments.
"""
import gzip
import math
import sys

TILE = 16
THIN = 32
COLUMNS = ['file', 'nrows', 'ncols', 'nnz_stored', 'field', 'symmetry', 'nnz', 'explicit_zeros',
           'diag_missing', 'diag_zero', 'levels_lower', 'levels_upper', 'widest_level_lower',
           'thin_levels_lower', 'nnz_lower', 'nnz_per_tile_lower']


class MtxError(Exception):
    pass


def read_mtx(path):
    """Returns (nrows, ncols, nnz_stored, field, symmetry, {(i, j): value}), 0-based,
    with symmetric and skew-symmetric files expanded."""
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        banner = f.readline().split()
        if len(banner) != 5 or banner[0] != '%%MatrixMarket' or banner[1].lower() != 'matrix':
            raise MtxError('no %%MatrixMarket matrix banner')
        fmt, field, sym = (w.lower() for w in banner[2:])
        if fmt != 'coordinate':
            raise MtxError('format %r: only coordinate is checked' % fmt)
        if field not in ('real', 'integer', 'pattern'):
            raise MtxError('field %r: Trellis reads real, integer and pattern' % field)
        if sym not in ('general', 'symmetric', 'skew-symmetric'):
            raise MtxError('symmetry %r: Trellis reads general, symmetric and skew-symmetric' % sym)
        lineno = 1
        for line in f:
            lineno += 1
            if line.strip() and not line.startswith('%'):
                break
        else:
            raise MtxError('no size line')
        try:
            m, n, nz = (int(t) for t in line.split())
        except ValueError:
            raise MtxError('line %d: bad size line %r' % (lineno, line.strip()))
        want = 2 if field == 'pattern' else 3
        entries = {}
        stored = 0
        for line in f:
            lineno += 1
            t = line.split()
            if not t or line.startswith('%'):
                continue
            if len(t) != want:
                raise MtxError('line %d: %d fields, expected %d' % (lineno, len(t), want))
            try:
                i, j = int(t[0]) - 1, int(t[1]) - 1
                v = 1.0 if field == 'pattern' else (float(int(t[2])) if field == 'integer' else float(t[2]))
            except ValueError:
                raise MtxError('line %d: bad entry %r' % (lineno, line.strip()))
            if not (0 <= i < m and 0 <= j < n):
                raise MtxError('line %d: index (%d, %d) out of range' % (lineno, i + 1, j + 1))
            stored += 1
            pairs = [(i, j, v)]
            if sym != 'general' and i != j:
                if i < j:
                    raise MtxError('line %d: entry (%d, %d) above the diagonal in a %s file' %
                                   (lineno, i + 1, j + 1, sym))
                pairs.append((j, i, -v if sym == 'skew-symmetric' else v))
            for a, b, x in pairs:
                if (a, b) in entries:
                    raise MtxError('line %d: duplicate entry (%d, %d)' % (lineno, a + 1, b + 1))
                entries[(a, b)] = x
        if stored != nz:
            raise MtxError('%d entries, the size line says %d' % (stored, nz))
    return m, n, nz, field, sym, entries


def levels(n, deps, rows):
    """Level of each row visited in `rows` order; deps[i]: the rows i waits for."""
    lev = [0] * n
    for i in rows:
        lev[i] = 1 + max((lev[j] for j in deps[i]), default=0)
    return lev


def check(path):
    m, n, nz, field, sym, entries = read_mtx(path)
    r = dict(file=path, nrows=m, ncols=n, nnz_stored=nz, field=field, symmetry=sym, nnz=len(entries))
    r['explicit_zeros'] = sum(1 for v in entries.values() if v == 0)
    size = min(m, n)
    lower = [[] for _ in range(size)]
    upper = [[] for _ in range(size)]
    tiles = {}
    diag = {}
    for (i, j), v in entries.items():
        if i == j:
            diag[i] = v
        elif i > j and i < size:
            lower[i].append(j)
        elif i < j and j < size:
            upper[i].append(j)
        if i >= j and i < size:
            tiles[(i // TILE, j // TILE)] = tiles.get((i // TILE, j // TILE), 0) + 1
    r['diag_missing'] = sum(1 for i in range(size) if i not in diag) + (m - size)
    r['diag_zero'] = sum(1 for v in diag.values() if v == 0 or not math.isfinite(v))
    lev_l = levels(size, lower, range(size))
    lev_u = levels(size, upper, range(size - 1, -1, -1))
    r['levels_lower'] = max(lev_l, default=0)
    r['levels_upper'] = max(lev_u, default=0)
    width = {}
    for v in lev_l:
        width[v] = width.get(v, 0) + 1
    r['widest_level_lower'] = max(width.values(), default=0)
    r['thin_levels_lower'] = sum(1 for w in width.values() if w < THIN)
    r['nnz_lower'] = sum(tiles.values())
    r['nnz_per_tile_lower'] = '%.2f' % (r['nnz_lower'] / len(tiles)) if tiles else '0'
    return r


def main(argv):
    tsv = '--tsv' in argv
    need_diag = '--require-diagonal' in argv
    files = [a for a in argv if a not in ('--tsv', '--require-diagonal')]
    if not files or any(a.startswith('-') for a in files):
        sys.stderr.write(__doc__)
        return 2
    rc = 0
    if tsv:
        print('\t'.join(COLUMNS))
    for path in files:
        try:
            r = check(path)
        except (MtxError, OSError, EOFError, UnicodeDecodeError) as e:
            sys.stderr.write('mtx_check.py: %s: %s\n' % (path, e))
            rc = 1
            continue
        full = r['diag_missing'] == 0 and r['diag_zero'] == 0
        if need_diag and not full:
            sys.stderr.write('mtx_check.py: %s: %d rows without a stored diagonal, %d with a zero or '
                             'non-finite one\n' % (path, r['diag_missing'], r['diag_zero']))
            rc = 1
        if tsv:
            print('\t'.join(str(r[c]) for c in COLUMNS))
        else:
            print('%s: %d x %d, %d stored (%s %s), %d entries, %d explicit zeros; diagonal %s; '
                  'L: %d levels (widest %d rows, %d levels under %d rows), %d entries, %s a nonempty %dx%d tile; '
                  'U: %d levels' %
                  (path, r['nrows'], r['ncols'], r['nnz_stored'], r['field'], r['symmetry'], r['nnz'],
                   r['explicit_zeros'],
                   'complete and nonzero' if full else '%d missing, %d zero or non-finite' %
                   (r['diag_missing'], r['diag_zero']),
                   r['levels_lower'], r['widest_level_lower'], r['thin_levels_lower'], THIN, r['nnz_lower'],
                   r['nnz_per_tile_lower'], TILE, TILE, r['levels_upper']))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
