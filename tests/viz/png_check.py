#!/usr/bin/env python3
"""png_check.py - is a PNG screenshot more than a blank page?

    python3 tests/viz/png_check.py SHOT.png MIN_INK_PERCENT MIN_COLOURS

Decodes the PNG with the standard library only (zlib; 8-bit RGB or RGBA,
non-interlaced, which is what Chromium writes) and counts the pixels that
are not white ("ink") and the distinct colours.  Exits 0 when the ink is at
least MIN_INK_PERCENT % of the pixels and there are at least MIN_COLOURS
colours, 1 otherwise (with the figures on stderr), 2 on a file it cannot read.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = ihdr
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, colour))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    return width, height, bpp, unfilter(raw, width, height, bpp)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    out = bytearray(height * stride)
    prev = bytearray(stride)
    pos = 0
    for y in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[ftype]) & 0xFF
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return out


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        width, height, bpp, px = read_png(sys.argv[1])
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        print("png_check: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 2
    ink, colours = 0, set()
    for i in range(0, len(px), bpp):
        rgb = bytes(px[i:i + 3])
        colours.add(rgb)
        if rgb != b"\xff\xff\xff":
            ink += 1
    percent = 100.0 * ink / (width * height)
    print("png_check: %dx%d, %.2f %% ink, %d colours" % (width, height, percent, len(colours)),
          file=sys.stderr)
    ok = percent >= float(sys.argv[2]) and len(colours) >= int(sys.argv[3])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
