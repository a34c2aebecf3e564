#!/bin/sh
# papsim.sh - bin/papsim end to end: figures worked out by hand, the
# algorithm table in --help, exit codes and messages for bad input.
#
# Expected times come from the linear cost model by hand, not from papsim:
#   ring, P = 4, 100 floats: 6 rounds of a 25-float (100 B) block,
#     6 * (1e-6 + 100 * 1e-9) s = 6.6 us = 0.0066 ms.
#   binomial-reduce+binomial-bcast, P = 4, 400 B: 2 + 2 rounds of the whole
#     vector, 4 * (1e-6 + 400 * 1e-9) s = 5.6 us = 0.0056 ms.
#   ring, P = 2, 800 B, rank 1 arrives 1 ms late: both rounds wait for it,
#     then 2 * (1e-6 + 400e-9) s = 2.8 us; finish 1.0028 ms for both, so the
#     completion is 1.0028 ms and the mean elapsed (1.0028 + 0.0028)/2 =
#     0.5028 ms.
set -u
cd "$(dirname "$0")/../.." || exit 1
PAPSIM=bin/papsim
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "not ok: $*"; fails=$((fails + 1)); }

# The algorithm's row: name, avg_elapsed, completion (columns 1-3).
row() { awk -v a="$2" '$1 == a { print $1, $2, $3 }' "$1"; }

$PAPSIM -P 4 --bytes 400 --alpha 1e-6 --beta 1e-9 --gamma 0 --verify \
    ring binomial-reduce+binomial-bcast >"$tmp/out" 2>"$tmp/err" ||
    fail "papsim P=4 exited $? ($(cat "$tmp/err"))"
[ "$(row "$tmp/out" ring)" = "ring 0.0066 0.0066" ] ||
    fail "ring P=4: $(row "$tmp/out" ring)"
[ "$(row "$tmp/out" binomial-reduce+binomial-bcast)" = \
  "binomial-reduce+binomial-bcast 0.0056 0.0056" ] ||
    fail "binomial P=4: $(row "$tmp/out" binomial-reduce+binomial-bcast)"

$PAPSIM -P 2 --bytes 800 --alpha 1e-6 --beta 1e-9 --gamma 0 \
    --arrival one-late:1:1 ring >"$tmp/late" 2>"$tmp/err" ||
    fail "papsim one-late exited $?"
[ "$(row "$tmp/late" ring)" = "ring 0.5028 1.0028" ] ||
    fail "ring one-late: $(row "$tmp/late" ring)"

# --help lists every algorithm of the table.
$PAPSIM --help >"$tmp/help" 2>&1 || fail "papsim --help exited $?"
for a in ring ring-seg rd rabenseifner slt prr nap binomial-reduce \
         binomial-bcast chain-reduce chain-bcast bintree-reduce \
         greedy-reduce clv-linear clv; do
    grep -q "^  $a " "$tmp/help" || fail "--help does not list $a"
done

# Bad input: exit 1 with the reason; usage errors: exit 2.
$PAPSIM -P 4 nosuch >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "nosuch: unknown algorithm" "$tmp/err" ||
    fail "unknown algorithm: $(cat "$tmp/err")"
$PAPSIM -P 4 --bytes 4 rabenseifner >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "needs count >= 4" "$tmp/err" ||
    fail "rabenseifner precondition: $(cat "$tmp/err")"
$PAPSIM -P 6 --ppn 4 nap >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "nap" "$tmp/err" ||
    fail "nap with P not a multiple of ppn: $(cat "$tmp/err")"
$PAPSIM --bogus ring >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option did not exit 2"
$PAPSIM -P 0 ring >/dev/null 2>&1
st=$?
[ $st -eq 1 ] || [ $st -eq 2 ] || fail "P=0 exited $st"

# Every algorithm runs at a small size, and --sizes gives one row per size.
$PAPSIM -P 8 --bytes 4096 --segs 4 --verify --arrival random:2:7 ring ring-seg:segsize=64 rd \
    rabenseifner slt prr greedy-reduce+chain-bcast chain-reduce+binomial-bcast \
    bintree-reduce+chain-bcast clv+binomial-bcast clv-linear+binomial-bcast \
    >"$tmp/all" 2>"$tmp/err" || fail "all algorithms at P=8: $(cat "$tmp/err")"
$PAPSIM -P 8 --ppn 4 --verify nap >/dev/null 2>"$tmp/err" ||
    fail "nap P=8 ppn=4: $(cat "$tmp/err")"
$PAPSIM -P 8 --sizes 64:1024 ring rd >"$tmp/sizes" 2>"$tmp/err" ||
    fail "--sizes: $(cat "$tmp/err")"
n=$(grep -c '^ *[0-9]' "$tmp/sizes")
[ "$n" -eq 5 ] || fail "--sizes 64:1024 gave $n rows, not 5"

if [ "$fails" -eq 0 ]; then echo "ok: papsim"; exit 0; fi
exit 1
