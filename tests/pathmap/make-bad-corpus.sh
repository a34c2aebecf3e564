#!/bin/sh
# make-bad-corpus.sh - writes the files of tests/pathmap/bad/ that an editor
# would not keep byte for byte: a UTF-8 BOM, binary bytes, a bare CR, lines
# longer than the limit and CRLF line endings.  Their output is committed;
# rerunning this script reproduces it exactly.  Run from anywhere:
#
#   sh tests/pathmap/make-bad-corpus.sh
#
# Each .expect holds the first stderr line expected from
# `bin/pathmap-check tests/pathmap/bad/NAME.pm`, without the trailing
# " [source.c:N]"; see docs/pathmap.md for the rules.
set -eu
cd "$(dirname "$0")/bad"
D=tests/pathmap/bad
LC_ALL=C
export LC_ALL

# expect NAME 'line:col: error: message'
expect() {
    printf '%s' "$D/$1.pm:$2" > "$1.expect"
}

# n_bytes N CHAR: CHAR repeated N times, no newline.
n_bytes() {
    awk -v n="$1" -v c="$2" 'BEGIN { s = ""; for (i = 0; i < n; i++) s = s c; printf "%s", s }'
}

# A UTF-8 byte order mark is a non-ASCII byte before the first keyword.
printf '\357\273\277host h0\ntree t\ncore c host=h0\nthreads 0 host=h0 enter=c\n' \
    > 72-utf8-bom.pm
expect 72-utf8-bom "1:1: error: non-ASCII byte 0xef outside a comment"

# A NUL right after a tree name.
printf 'host h0\ntree t\000\ncore c host=h0\nthreads 0 host=h0 enter=c\n' \
    > 73-binary-nul.pm
expect 73-binary-nul "2:7: error: binary data (byte 0x00); a pathmap is text"

# Control bytes are binary data even inside a comment.
printf 'host h0\ntree t\ncore c host=h0   # a \001 in a comment\nthreads 0 host=h0 enter=c\n' \
    > 74-binary-ctrl-in-comment.pm
expect 74-binary-ctrl-in-comment "3:22: error: binary data (byte 0x01); a pathmap is text"

# A bare CR (old Mac line end) does not end a line: it is a control byte.
printf 'host h0\rhost h1\ntree t\ncore c host=h0\nthreads 0 host=h0 enter=c\n' \
    > 75-bare-cr.pm
expect 75-bare-cr "1:8: error: binary data (byte 0x0d); a pathmap is text"

# Lines of at most 4095 bytes (docs/pathmap.md): a 5000-byte comment line,
# and a 4096-byte one (one byte over).  The column is the first byte past
# the limit.
for n in 5000 4096; do
    f=$(printf '%02d-line-%d-bytes' $((n == 5000 ? 76 : 77)) "$n")
    {
        printf 'host h0\n#'
        n_bytes $((n - 1)) x
        printf '\ntree t\ncore c host=h0\nthreads 0 host=h0 enter=c\n'
    } > "$f.pm"
    expect "$f" "2:4096: error: line too long ($n bytes; at most 4095)"
done

# CRLF line endings: columns and values must not see the \r.
printf '# CRLF line endings\r\nhost h0\r\ntree t\r\ncore c host=h0\r\ngred g host=h0 parent=c wait=fast\r\nthreads 0-1 host=h0 enter=g\r\n' \
    > 78-crlf-unknown-wait.pm
expect 78-crlf-unknown-wait "5:30: error: unknown wait mode 'fast' (expected auto, spin or block)"

printf 'host h0\r\ntree t\r\ncore c host=h0\r\nthreads 0 host=h0 enter=\r\n' \
    > 79-crlf-empty-value-at-eol.pm
expect 79-crlf-empty-value-at-eol "4:25: error: empty value for 'enter='"

# Binary data is looked for in the whole file before line lengths: a NUL
# on line 4 is reported, not the 5000-byte comment of line 2.
{
    printf 'host h0\n#'
    n_bytes 4999 x
    printf '\ntree t\ncore c host=h0 \000\nthreads 0 host=h0 enter=c\n'
} > 85-binary-after-long-line.pm
expect 85-binary-after-long-line "4:16: error: binary data (byte 0x00); a pathmap is text"
