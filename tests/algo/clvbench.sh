#!/bin/sh
# clvbench.sh - bin/clvbench's limits: a sweep whose largest Clairvoyant
# schedule would not fit in --mem-limit is refused before anything runs,
# with the figures; progress (a line per instance size on stderr) with -v,
# none when stderr is not a terminal and -v is not given.
#
# The figures: clv's estimate is 4PN steps of 16 bytes (runtime/algo/
# algo_size.c), 4 * 4096^2 = 67108864 steps (1.00 GiB) at P = N = 4096 and
# 268435456 (4.00 GiB) at 8192; clv-linear's schedule (1 instance at these
# P by default) is held beside it, twice that.  The first P over the limit
# is named.
# Stops at the first failure (tests/lib.sh's fail).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
CLVBENCH=bin/clvbench
[ -x "$CLVBENCH" ] || fail "$CLVBENCH is not built (run make first)"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# Refused at once, under a 512 MB address-space limit and a minute.
( mem_cap 524288; timeout 60 $CLVBENCH --max-p 8192 --mem-limit 1G ) >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && grep -qF "clvbench: error: P = N = 4096: the clv and clv-linear schedules would take about 2.00 GiB (134217728 steps of 16 bytes): over the memory limit of 1.00 GiB (--mem-limit" "$tmp/err" ||
    fail "--max-p 8192 --mem-limit 1G: exit $st: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "--max-p 8192 over the limit printed a table"
# Without clv-linear and clv-tree at that size, only clv's schedule counts.
$CLVBENCH --max-p 8192 --linear-instances 0 --tree-instances 0 --mem-limit 1G >/dev/null 2>"$tmp/err"
grep -qF "P = N = 8192: the clv schedule would take about 4.00 GiB (268435456 steps" "$tmp/err" ||
    fail "--linear-instances 0: $(cat "$tmp/err")"
# Usage errors (exit 2): the first line names the option and what is wrong.
# usage_err LINE ARGS...
usage_err() {
    want=$1; shift
    $CLVBENCH "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq 2 ] && [ "$(head -n 1 "$tmp/err")" = "$want" ] ||
        fail "clvbench $*: exit $st, expected 2 and '$want'; got: $(head -n 1 "$tmp/err")"
}
usage_err "clvbench: --mem-limit: '0' is out of range, expected 1..4194304TiB" --mem-limit 0
usage_err "clvbench: unknown option '--bogus'" --bogus
usage_err "clvbench: option '--max-p' requires an argument" --max-p
usage_err "clvbench: --max-p: '3' is out of range, expected 4..65536" --max-p 3
usage_err "clvbench: --p: 'x' is not an integer, expected 2..65536" --p 4,x
usage_err "clvbench: --clock: unknown 'gpu', expected wall or cpu" --clock gpu
usage_err "clvbench: unexpected argument 'extra' (clvbench takes options only)" extra

# Progress: -v gives one line per kind and size before its row.
$CLVBENCH --max-p 16 --instances 2 -v >"$tmp/out" 2>"$tmp/err" || fail "-v run exited $?"
n=$(grep -c "^clvbench: [a-z]*, P = N = [0-9]*: 2 clv instances" "$tmp/err")
[ "$n" -eq 6 ] || fail "-v gave $n progress lines, not 6 (2 kinds x P = 4, 8, 16): $(cat "$tmp/err")"
grep -q "^clvbench: skewed, P = N = 16: 2 clv instances, 2 clv-linear" "$tmp/err" ||
    fail "-v: no line for skewed P = 16: $(cat "$tmp/err")"
$CLVBENCH --max-p 16 --instances 2 >"$tmp/out" 2>"$tmp/err" || fail "quiet run exited $?"
[ ! -s "$tmp/err" ] || fail "progress without -v on a stderr that is not a terminal: $(cat "$tmp/err")"
grep -q "^summary: P = N = 16" "$tmp/out" || fail "no summary: $(cat "$tmp/out")"

echo "clvbench.sh: ok"
