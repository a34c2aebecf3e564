#!/bin/sh
# The benchmarks' options (bin/gredbench, bin/tracebench, bin/otf2-readbench):
# each bad one exits 2 with "PROG: OPTION: what is wrong, expected RANGE"
# (common/cm_opt.h) and the usage line; --help exits 0.  The messages are
# worked out from each option's documented range (the programs' usage texts),
# not copied from a run.  No benchmark runs; a second or so.
set -eu
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# bad PROG MESSAGE ARGS...: exit 2, MESSAGE as the first line, a usage line second.
bad() {
    prog=$1 msg=$2; shift 2
    set +e
    timeout 60 "bin/$prog" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || { cat "$tmp/err" >&2; fail "$prog $*: exit $rc, expected 2"; }
    [ "$(sed -n 1p "$tmp/err")" = "$prog: $msg" ] ||
        { cat "$tmp/err" >&2; fail "$prog $*: first line is not '$prog: $msg'"; }
    sed -n 2p "$tmp/err" | grep -q "usage: " || fail "$prog $*: no usage line"
    [ ! -s "$tmp/out" ] || fail "$prog $*: wrote to stdout"
}

bad gredbench "-b: '6' is not a whole number of 4-byte elements, expected a multiple of 4 in 4..256" -b 6
bad gredbench "-b: '512' is out of range, expected 4..256" -b 512
bad gredbench "-b: '1K' is out of range, expected 4..256" -b 1K
bad gredbench "-r: '0' is out of range, expected 1..9223372036854775807" -r 0
bad gredbench "-r: '1e3' is not an integer, expected 1..9223372036854775807" -r 1e3
bad gredbench "THREADS: '257' is out of range, expected 1..256" 2 257
bad gredbench "THREADS: 17 counts, expected at most 16" 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17
bad gredbench "unknown option '--bogus'" --bogus
bad gredbench "option '-r' requires an argument" -r

bad otf2-readbench "no trace given, expected TRACE/traces.otf2"
bad otf2-readbench "-r: '0' is out of range, expected 1..101" -r 0 x/traces.otf2
bad otf2-readbench "unexpected argument 'b', expected one trace" a b

bad tracebench "-n: '3' is odd (an ENTER and a LEAVE per visit), expected an even number in 2..2147483648" -n 3
bad tracebench "-n: '2147483650' is out of range, expected 2..2147483648" -n 2147483650
bad tracebench "-r: '102' is out of range, expected 1..101" -r 102
bad tracebench "unexpected argument 'extra'" extra

for p in gredbench otf2-readbench tracebench; do
    "bin/$p" --help > "$tmp/help" || fail "$p --help exited non-zero"
    expect_count "$tmp/help" 1 "usage: "
done
echo "bench options: ok"
