#!/bin/sh
# bench-args.sh - bin/schedgen's and bin/algobench's options (cm_opt): a bad
# value is a usage error (exit 2) whose first line names the option, what is
# wrong and the range; sizes take K, M, G, T (powers of 1024).  Expected
# lines written by hand from the ranges in each program's usage.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "not ok: $*"; fails=$((fails + 1)); }

# usage_err LINE CMD...: CMD exits 2 and the first stderr line is LINE.
usage_err() {
    want=$1; shift
    timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    got=$(grep -v '^\[' "$tmp/err" | head -n 1)
    [ $st -eq 2 ] && [ "$got" = "$want" ] ||
        fail "$*: exit $st, expected 2 and '$want'; got: $got"
}

usage_err "schedgen: unknown option '--bogus'" bin/schedgen --bogus
usage_err "schedgen: -P: '1' is out of range, expected 2..65536" bin/schedgen -P 4,1
usage_err "schedgen: -s: '6' is not a multiple of 4 bytes (int32 elements)" bin/schedgen -s 4K,6
usage_err "schedgen: -s: '2X' is not a size, expected bytes 4..1TiB (K, M, G, T: powers of 1024)" \
    bin/schedgen -s 2X
usage_err "schedgen: --skew-us: '-1' is out of range, expected 0..1e+09" bin/schedgen --skew-us -1
usage_err "schedgen: option '--seed' requires an argument" bin/schedgen --seed
usage_err "schedgen: unexpected argument 'x' (schedgen takes options only)" bin/schedgen x

usage_err "algobench: unknown option '--bogus'" $MPIRUN -np 1 bin/algobench --bogus
usage_err "algobench: -s: item 2 of '4,,8' is empty, expected items separated by ','" \
    $MPIRUN -np 1 bin/algobench -s 4,,8
usage_err "algobench: -r: '0' is out of range, expected 1..101" $MPIRUN -np 1 bin/algobench -r 0
usage_err "algobench: -t: unknown 'int8', expected int32, float or double" \
    $MPIRUN -np 1 bin/algobench -t int8

# A size with a suffix runs: 1K is 1024 bytes.
timeout 60 $MPIRUN -np 1 bin/algobench -s 1K -r 1 --no-header >"$tmp/out" 2>"$tmp/err" ||
    fail "algobench -s 1K exited $?: $(cat "$tmp/err")"
[ "$(awk '{ print $3 }' "$tmp/out")" = 1024 ] || fail "algobench -s 1K: $(cat "$tmp/out")"

[ $fails -eq 0 ] || exit 1
echo "bench-args.sh: ok"
