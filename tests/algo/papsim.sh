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
. tests/lib.sh
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
$PAPSIM --bogus ring >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(head -n 1 "$tmp/err")" = "papsim: unknown option '--bogus'" ] ||
    fail "unknown option: $(head -n 1 "$tmp/err")"
# Sizes take K, M, G, T (powers of 1024), as every program's byte options do.
$PAPSIM -P 4 --bytes 1K --alpha 1e-6 --beta 1e-9 --gamma 0 ring >"$tmp/out" 2>"$tmp/err" ||
    fail "--bytes 1K exited $? ($(cat "$tmp/err"))"
[ "$(row "$tmp/out" ring)" = "ring 0.0075 0.0075" ] || fail "ring --bytes 1K: $(row "$tmp/out" ring)"

# Absurd numbers: every numeric option says which option and its range
# (exit 2), prints no inf or nan on stdout, and never shows another number
# than the one given (a rank of 2^31 is not 2^31 - 1).
# range_err MESSAGE ARGS...: papsim ARGS exits 2 with MESSAGE in its stderr.
range_err() {
    want=$1; shift
    $PAPSIM "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq 2 ] && grep -qF -- "$want" "$tmp/err" ||
        fail "papsim $*: exit $st, expected 2 and '$want'; got: $(cat "$tmp/err")"
    ! grep -qiE '(^|[^a-z])(inf|nan)([^a-z]|$)' "$tmp/out" ||
        fail "papsim $*: printed inf or nan"
}
range_err "papsim: -P: '2147483648' is out of range, expected 1..1048576" -P 2147483648 ring
range_err "papsim: -P: '0' is out of range, expected 1..1048576" -P 0 ring
range_err "papsim: -P: 'x' is not an integer, expected 1..1048576" -P x ring
range_err "papsim: --bytes: '9223372036854775807' is out of range, expected 0..4194304TiB" \
    --bytes 9223372036854775807 ring
range_err "papsim: --sizes: '0' is out of range, expected 1..4194304TiB" --sizes 0:64 ring
range_err "papsim: --elem-bytes: '0' is out of range, expected 1..1048576" --elem-bytes 0 ring
range_err "papsim: --segs: '2147483648' is out of range, expected 1..2147483647" --segs 2147483648 ring-seg
range_err "papsim: --segsize: '0' is out of range, expected 1..4194304TiB" --segsize 0 ring-seg
range_err "papsim: ring-seg:segs: '0' is out of range, expected 1..2147483647" ring-seg:segs=0
range_err "papsim: --root: '2147483648' is out of range, expected 0..47 (the ranks of P = 48)" --root 2147483648 ring
range_err "papsim: --root: '48' is out of range, expected 0..47 (the ranks of P = 48)" --root 48 ring
range_err "papsim: --ppn: '0' is out of range, expected 1..1048576" --ppn 0 nap
range_err "papsim: --alpha: '1e308' is out of range, expected 0..1000" --alpha 1e308 ring
range_err "papsim: --alpha: '-1e-6' is out of range, expected 0..1000" --alpha -1e-6 ring
range_err "papsim: --alpha: 'nan' is not a finite number, expected 0..1000" --alpha nan ring
range_err "papsim: --beta: '1e308' is out of range, expected 0..1" --beta 1e308 ring
range_err "papsim: --gamma: 'inf' is not a finite number, expected 0..1" --gamma inf ring
range_err "papsim: --arrival: '1e308' is out of range, expected 0..1e+09" \
    --arrival one-late:1e308 ring
range_err "papsim: --arrival: '1e10' is out of range, expected 0..1e+09" \
    --arrival random:1e10:3 ring
range_err "papsim: --arrival: '2147483648' is out of range, expected 0..47 (the ranks of P = 48)" \
    --arrival one-late:1:2147483648 ring
range_err "papsim: --seed: '-1' is out of range, expected 0..9223372036854775807" --seed -1 ring
# A round length that does not fit in int64 nanoseconds is the algorithm's
# refusal (exit 1), not a wrong tau.
$PAPSIM --alpha 1000 --beta 1 --bytes 4611686018427387900 prr >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -qF "prr: round length tau = alpha + (beta + gamma) * segment bytes" \
    "$tmp/err" && grep -qF "out of range: at most 1e+09 s" "$tmp/err" ||
    fail "prr with an overflowing tau: $(cat "$tmp/err")"
# Zero times and a free network: '-', not nan or inf.
$PAPSIM -P 1 --bytes 4 --beta 0 ring >"$tmp/out" 2>"$tmp/err" || fail "P=1 exited $?"
! grep -qiE '(^|[^a-z])(inf|nan)([^a-z]|$)' "$tmp/out" ||
    fail "P=1, beta 0 printed inf or nan: $(cat "$tmp/out")"

# Memory: a schedule whose estimate (steps x 16 bytes, before generating)
# is over --mem-limit is refused at once, with the figures; the ring at
# P = 8192 is 268 M steps, 4 GiB, and must be refused without allocating
# them (under a 512 MB address-space limit, in well under a minute).
( mem_cap 524288; timeout 60 $PAPSIM -P 8192 --mem-limit 1G ring ) >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -qF "papsim: ring: the schedule would take about 4.00 GiB (268402688 steps of 16 bytes): over the memory limit of 1.00 GiB (--mem-limit" "$tmp/err" ||
    fail "ring P=8192 over --mem-limit 1G: exit $st: $(cat "$tmp/err")"
# 4P(P-1) = 16769024 steps at P = 2048 = 256 MiB: over 200M, under 300M.
$PAPSIM -P 2048 --mem-limit 200M --bytes 8192 ring >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -qF "over the memory limit of 200.00 MiB" "$tmp/err" ||
    fail "ring P=2048 over 200M: $(cat "$tmp/err")"
$PAPSIM -P 64 --mem-limit 1M ring >/dev/null 2>"$tmp/err" ||
    fail "ring P=64 (258 KB) under --mem-limit 1M: $(cat "$tmp/err")"
# --sizes: a refused algorithm is '-' in its column, the others go on.
$PAPSIM -P 1024 --mem-limit 32M --sizes 4096:8192 ring rd >"$tmp/out" 2>"$tmp/err"
[ "$(awk '$1 == 4096 { print $2, $4 }' "$tmp/out")" = "- rd" ] ||
    fail "--sizes with ring over the limit: $(cat "$tmp/out" "$tmp/err")"
range_err "papsim: --mem-limit: '0' is out of range, expected 1..4194304TiB" \
    --mem-limit 0 ring
range_err "papsim: --mem-limit: '12Q' is not a size, expected bytes 1..4194304TiB (K, M, G, T: powers of 1024)" \
    --mem-limit 12Q ring
# Progress: -v (or a run past 2 s) says on stderr what is being done.
$PAPSIM -v -P 8 ring rd >/dev/null 2>"$tmp/err" || fail "papsim -v exited $?"
grep -q "^papsim: [0-9.]* s: ring: generating about 224 steps" "$tmp/err" &&
    grep -q "^papsim: [0-9.]* s: rd: simulating 48 steps" "$tmp/err" ||
    fail "papsim -v: no progress lines: $(cat "$tmp/err")"

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


# --net FILE (the key=value file bin/netfit -o writes; docs/netfit.md).
# Worked out by hand: the ring at P = 4 on N = 4 MiB moves blocks of N/P =
# 1048576 B in 2(P-1) = 6 rounds, each alpha + beta N/P; the P-1 = 3
# reduce-scatter rounds also reduce a block, gamma N/P more:
#   alpha 1e-6, beta 1e-9, gamma 0: 6 (1e-6 + 1048576e-9) s = 6.297456 ms;
#   gamma 0.5e-9: + 3 * 1048576 * 0.5e-9 s = 1.572864 ms, 7.870320 ms.
printf '# a small net file\nalpha=1e-6\n\n  beta = 1e-9 \r\ngamma=0\n' >"$tmp/a.net"
printf 'gamma=0.5e-9\nbeta=1e-9\nalpha=1e-6\n' >"$tmp/b.net"
$PAPSIM -P 4 --bytes 4194304 --net "$tmp/a.net" ring >"$tmp/out" 2>"$tmp/err" ||
    fail "papsim --net a.net exited $? ($(cat "$tmp/err"))"
[ "$(row "$tmp/out" ring)" = "ring 6.2975 6.2975" ] ||
    fail "ring P=4, 4 MiB, --net a.net: $(row "$tmp/out" ring)"
grep -qF "# cost (--net $tmp/a.net): alpha 1e-06 s, beta 1e-09 s/B" "$tmp/out" ||
    fail "--net a.net: header: $(grep '^# cost' "$tmp/out")"
$PAPSIM -P 4 --bytes 4194304 --net "$tmp/b.net" ring >"$tmp/out" 2>"$tmp/err" ||
    fail "papsim --net b.net exited $? ($(cat "$tmp/err"))"
[ "$(row "$tmp/out" ring)" = "ring 7.8703 7.8703" ] ||
    fail "ring P=4, 4 MiB, --net b.net (gamma 0.5 ns/B): $(row "$tmp/out" ring)"
# --gamma after --net overrides the file's value (b.net with gamma 0 is a.net).
$PAPSIM -P 4 --bytes 4194304 --net "$tmp/b.net" --gamma 0 ring >"$tmp/out" 2>&1 &&
    [ "$(row "$tmp/out" ring)" = "ring 6.2975 6.2975" ] ||
    fail "--net b.net --gamma 0: $(row "$tmp/out" ring)"
# The presets, measured among them, are listed and accepted.
for n in 1gbe 10gbe ib-fdr measured; do
    grep -q "^  $n " "$tmp/help" || fail "--help does not list the preset $n"
    $PAPSIM -P 4 --net $n ring >"$tmp/out" 2>"$tmp/err" &&
        grep -qF "# cost (--net $n)" "$tmp/out" || fail "--net $n: $(cat "$tmp/err")"
done

# Bad net files: exit 1 and "papsim: PATH:LINE:COL: error: MESSAGE" (columns
# in bytes from 1), messages written from docs/netfit.md.
# bad_net 'CONTENT' 'LINE:COL: error: MESSAGE' (or ': error: ...' for the file)
bad_net() {
    printf "$1" >"$tmp/bad.net"
    $PAPSIM -P 4 --net "$tmp/bad.net" ring >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq 1 ] && [ "$(head -n 1 "$tmp/err")" = "papsim: $tmp/bad.net$2" ] ||
        fail "net file '$1': exit $st, expected 1 and '$2'; got: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "net file '$1': printed a table"
}
bad_net 'alpha=1e-6\nbeta=1e-9\ndelta=3\n' \
    ":3:1: error: unknown key 'delta': expected alpha, beta or gamma"
bad_net 'alpha=1e-6\n  Beta=1e-9\n' ":2:3: error: unknown key 'Beta': expected alpha, beta or gamma"
bad_net 'alpha=1e-6\nbeta=0\ngamma=0\n' \
    ":2:6: error: beta=0: out of range: seconds per byte, more than 0 and at most 1"
bad_net 'alpha=-1e-6\n' \
    ":1:7: error: alpha=-1e-6: out of range: seconds per message, more than 0 and at most 1000"
bad_net 'alpha = 2000\n' \
    ":1:9: error: alpha=2000: out of range: seconds per message, more than 0 and at most 1000"
bad_net 'alpha=1e-6\nbeta=1e-9\ngamma=-1e-12\n' \
    ":3:7: error: gamma=-1e-12: out of range: seconds per byte reduced, 0 to 1"
bad_net 'alpha=1e-6\nbeta=1e-9 # fitted\n' \
    ":2:11: error: unexpected text after beta's value (one KEY=VALUE a line; comments on lines of their own)"
bad_net 'alpha=1us\n' ":1:7: error: alpha: expected a finite number (seconds), got '1us'"
bad_net 'alpha=nan\n' ":1:7: error: alpha: expected a finite number (seconds), got 'nan'"
bad_net 'alpha=\n' ":1:7: error: expected a number (seconds) after 'alpha='"
bad_net 'beta 1e-9\n' ":1:6: error: expected '=' after 'beta'"
bad_net '\n = 3\n' ":2:2: error: expected KEY=VALUE"
bad_net 'alpha=1e-6\nalpha=2e-6\n' ":2:1: error: alpha given twice (first on line 1)"
bad_net 'alpha=1e-6\ngam\001ma=0\n' ":2:4: error: control character (byte 0x01)"
bad_net 'alpha=1e-6\nbeta=1e-9\n' ": error: no gamma= line (a net file sets alpha, beta and gamma)"
bad_net '' ": error: no alpha= line (a net file sets alpha, beta and gamma)"
# A name that is neither a preset nor a file is a usage error (2); a
# directory is a file that cannot be read (1).
$PAPSIM --net "$tmp/nosuch" ring >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "papsim: --net: '$tmp/nosuch' is no preset and no file, expected 1gbe, 10gbe, ib-fdr, measured or a net file" "$tmp/err" ||
    fail "--net nosuch: $(cat "$tmp/err")"
$PAPSIM --net "$tmp" ring >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -qF "papsim: $tmp: error: cannot read: Is a directory" "$tmp/err" ||
    fail "--net DIRECTORY: $(cat "$tmp/err")"

if [ "$fails" -eq 0 ]; then echo "ok: papsim"; exit 0; fi
exit 1
