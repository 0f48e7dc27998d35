#!/usr/bin/env python3
"""Harwell-Boeing (RUA, RSA, RZA, PUA, PSA, ...) to Matrix Market, values unchanged.

    hb2mtx.py IN.rua|IN.rsa OUT.mtx[.gz] [--comment TEXT]...

Reads an assembled real or pattern Harwell-Boeing file by its fixed-width
Fortran formats (header lines 2-4 give the card counts and formats) and
writes a `coordinate` Matrix Market file: `real` (or `pattern`), `general`
for U/R types, `symmetric` / `skew-symmetric` for S/Z types (the stored
lower triangle, as the HB file keeps it). Every stored entry is written,
explicit zeros included, in the file's column order; values are read as IEEE
doubles and written with Python's shortest round-trip form, so the .mtx holds
the same doubles. Right-hand sides in the file are ignored. A .gz output is
written with a zero timestamp (the same input gives the same bytes).

Refuses (exit 1, a message on stderr) what it cannot convert faithfully:
complex, Hermitian or elemental matrices, a pointer or index out of range,
an entry of a symmetric file above the diagonal, duplicate entries, card
counts that disagree with the header.
"""
import gzip
import io
import os
import re
import sys


class HBError(Exception):
    pass


def parse_int_format(fmt):
    """'(16I5)' -> (16, 5)."""
    m = re.fullmatch(r'\(\s*(\d*)\s*I\s*(\d+)\s*\)', fmt.strip().upper())
    if not m:
        raise HBError('unsupported integer format %r' % fmt)
    return int(m.group(1) or 1), int(m.group(2))


def parse_real_format(fmt):
    """'(1P5E15.7)' -> (5, 15, scale 1); E, D, F and G edit descriptors."""
    m = re.fullmatch(r'\(\s*(?:(-?\d+)\s*P\s*,?)?\s*(\d*)\s*([EDFG])\s*(\d+)(?:\.\d+)?(?:E\d+)?\s*\)',
                     fmt.strip().upper())
    if not m:
        raise HBError('unsupported real format %r' % fmt)
    return int(m.group(2) or 1), int(m.group(4)), int(m.group(1) or 0)


_NUMBER = re.compile(r'[+-]?(\d+\.?\d*|\.\d+)(E[+-]?\d+)?')
_BARE_EXPONENT = re.compile(r'([+-]?(?:\d+\.?\d*|\.\d+))([+-]\d+)')


def parse_real(field, scale):
    """One Fortran real field: D exponents, exponents without a letter
    ('1.5-105'), and a P scale factor (which applies only when the field
    has no exponent)."""
    s = field.replace(' ', '').upper().replace('D', 'E')
    m = _BARE_EXPONENT.fullmatch(s)
    if m:
        s = m.group(1) + 'E' + m.group(2)
    if not _NUMBER.fullmatch(s):
        raise HBError('value field %r is not a number' % field)
    if scale and 'E' not in s:
        s += 'E%d' % -scale
    return float(s)


def read_fields(lines, first, ncards, per, width, count, what):
    """`count` fixed-width fields from `ncards` cards starting at line `first`."""
    if first + ncards > len(lines):
        raise HBError('%s: the file ends before its %d cards' % (what, ncards))
    out = []
    for k in range(first, first + ncards):
        line = lines[k].rstrip('\r\n')
        for q in range(per):
            if len(out) == count:
                break
            field = line[q * width:(q + 1) * width]
            if not field.strip():
                raise HBError('%s: blank field %d on line %d before all %d values were read' %
                              (what, q + 1, k + 1, count))
            out.append(field)
    if len(out) != count:
        raise HBError('%s: %d cards hold %d values, the header says %d' % (what, ncards, len(out), count))
    return out


def read_hb(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', errors='replace') as f:
        lines = f.read().split('\n')
    if len(lines) < 4:
        raise HBError('too short for a Harwell-Boeing header')
    title, key = lines[0][:72].rstrip(), lines[0][72:80].strip()
    try:
        totcrd, ptrcrd, indcrd, valcrd = (int(lines[1][14 * k:14 * k + 14].strip() or 0) for k in range(4))
        rhscrd = int(lines[1][56:70].strip() or 0)
        mxtype = lines[2][:3].upper()
        nrow, ncol, nnz = (int(lines[2][14 + 14 * k:28 + 14 * k]) for k in range(3))
        neltvl = int(lines[2][56:70].strip() or 0)
    except ValueError as e:
        raise HBError('header lines 2-3 are not Harwell-Boeing (%s)' % e)
    ptrfmt, indfmt, valfmt = lines[3][:16], lines[3][16:32], lines[3][32:52]
    if len(mxtype) != 3 or mxtype[0] not in 'RPCI' or mxtype[1] not in 'SURHZ' or mxtype[2] not in 'AE':
        raise HBError('unknown matrix type %r' % mxtype)
    if mxtype[0] == 'C':
        raise HBError('complex matrix (%s): Trellis reads real and pattern' % mxtype)
    if mxtype[1] == 'H':
        raise HBError('Hermitian matrix (%s) not supported' % mxtype)
    if mxtype[2] == 'E' or neltvl:
        raise HBError('elemental (unassembled) matrix (%s) not supported' % mxtype)
    pattern = mxtype[0] == 'P'
    if not pattern and valcrd <= 0:
        raise HBError('type %s but no value cards' % mxtype)
    if totcrd and totcrd != ptrcrd + indcrd + valcrd + rhscrd:
        raise HBError('TOTCRD %d != PTRCRD + INDCRD + VALCRD + RHSCRD' % totcrd)
    first = 5 if rhscrd > 0 else 4
    per, width = parse_int_format(ptrfmt)
    ptr = [int(x) for x in read_fields(lines, first, ptrcrd, per, width, ncol + 1, 'pointers')]
    per, width = parse_int_format(indfmt)
    ind = [int(x) for x in read_fields(lines, first + ptrcrd, indcrd, per, width, nnz, 'row indices')]
    val = None
    if not pattern:
        per, width, scale = parse_real_format(valfmt)
        val = [parse_real(x, scale)
               for x in read_fields(lines, first + ptrcrd + indcrd, valcrd, per, width, nnz, 'values')]
    if ptr[0] != 1 or ptr[-1] != nnz + 1 or any(ptr[j] > ptr[j + 1] for j in range(ncol)):
        raise HBError('column pointers are not 1 ... NNZERO+1, nondecreasing')
    symmetric = mxtype[1] in 'SZ'
    if symmetric and nrow != ncol:
        raise HBError('symmetric type %s with %d x %d' % (mxtype, nrow, ncol))
    rows, cols = [], []
    for j in range(ncol):
        seen = set()
        for k in range(ptr[j] - 1, ptr[j + 1] - 1):
            i = ind[k]
            if not 1 <= i <= nrow:
                raise HBError('row index %d out of 1..%d in column %d' % (i, nrow, j + 1))
            if i in seen:
                raise HBError('duplicate entry (%d, %d)' % (i, j + 1))
            seen.add(i)
            if symmetric and i < j + 1:
                raise HBError('entry (%d, %d) above the diagonal in a symmetric file' % (i, j + 1))
            if mxtype[1] == 'Z' and i == j + 1:
                raise HBError('diagonal entry (%d, %d) in a skew-symmetric file' % (i, i))
            rows.append(i)
            cols.append(j + 1)
    return dict(title=title, key=key, mxtype=mxtype, nrow=nrow, ncol=ncol, rows=rows, cols=cols, val=val)


def write_mtx(m, out, comments):
    sym = {'S': 'symmetric', 'Z': 'skew-symmetric'}.get(m['mxtype'][1], 'general')
    field = 'pattern' if m['val'] is None else 'real'
    buf = io.StringIO()
    buf.write('%%%%MatrixMarket matrix coordinate %s %s\n' % (field, sym))
    buf.write('%% Harwell-Boeing title: %s\n' % m['title'])
    buf.write('%% Harwell-Boeing key: %s, type %s\n' % (m['key'], m['mxtype']))
    for c in comments:
        buf.write('%% %s\n' % c)
    buf.write('%d %d %d\n' % (m['nrow'], m['ncol'], len(m['rows'])))
    if m['val'] is None:
        for i, j in zip(m['rows'], m['cols']):
            buf.write('%d %d\n' % (i, j))
    else:
        for i, j, v in zip(m['rows'], m['cols'], m['val']):
            buf.write('%d %d %r\n' % (i, j, v))
    data = buf.getvalue().encode('ascii')
    tmp = out + '.tmp'
    with open(tmp, 'wb') as f:
        if out.endswith('.gz'):
            with gzip.GzipFile(filename='', mode='wb', fileobj=f, mtime=0, compresslevel=9) as g:
                g.write(data)
        else:
            f.write(data)
    os.replace(tmp, out)


def main(argv):
    args, comments = [], []
    k = 0
    while k < len(argv):
        if argv[k] == '--comment' and k + 1 < len(argv):
            comments.append(argv[k + 1])
            k += 2
        else:
            args.append(argv[k])
            k += 1
    if len(args) != 2 or any(a.startswith('-') for a in args):
        sys.stderr.write(__doc__)
        return 2
    try:
        m = read_hb(args[0])
    except (HBError, OSError) as e:
        sys.stderr.write('hb2mtx.py: %s: %s\n' % (args[0], e))
        return 1
    write_mtx(m, args[1], comments)
    print('%s: %s %s %d x %d, %d stored entries -> %s' %
          (args[0], m['key'], m['mxtype'], m['nrow'], m['ncol'], len(m['rows']), args[1]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
