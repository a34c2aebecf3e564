#!/usr/bin/env python3
"""paparc.py - packs a directory into the input format of fuzz_trace.c, or
lists such a file.

    python3 tests/fuzz/paparc.py pack DIR > FILE    every file under DIR, sorted
    python3 tests/fuzz/paparc.py list FILE          name and size of each record

A record is NAME, a NUL byte, the length as 4 bytes little-endian, the bytes.
"""
import os
import struct
import sys


def pack(top):
    out = bytearray()
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(root, f)
            name = os.path.relpath(path, top).encode()
            data = open(path, 'rb').read()
            out += name + b'\0' + struct.pack('<I', len(data)) + data
    return bytes(out)


def unpack(data):
    at = 0
    while at < len(data):
        nul = data.index(b'\0', at)
        name = data[at:nul].decode('ascii', 'replace')
        at = nul + 1
        (n,) = struct.unpack('<I', data[at:at + 4].ljust(4, b'\0'))
        at += 4
        yield name, data[at:at + n]
        at += n


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'pack':
        sys.stdout.buffer.write(pack(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == 'list':
        for name, body in unpack(open(sys.argv[2], 'rb').read()):
            print('%8d %s' % (len(body), name))
    else:
        sys.exit(__doc__)
