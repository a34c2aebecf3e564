#!/bin/sh
# check-args.sh - bin/pathmap-check's command line: usage errors exit 2 with
# a first line that says what is wrong (cm_opt's words), options may follow
# the files, and every file is checked in the order given.
set -u
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "not ok: $*"; fails=$((fails + 1)); }
PC=bin/pathmap-check
GOOD=pathmaps/local/nary-2x2.pathmap

# usage_err LINE ARGS...
usage_err() {
    want=$1; shift
    $PC "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq 2 ] && [ "$(head -n 1 "$tmp/err")" = "$want" ] &&
        grep -q "^usage: pathmap-check" "$tmp/err" ||
        fail "pathmap-check $*: exit $st, expected 2 and '$want'; got: $(head -n 1 "$tmp/err")"
}
usage_err "pathmap-check: unknown option '--bogus'" --bogus $GOOD
usage_err "pathmap-check: unknown option '-x'" -x $GOOD
usage_err "pathmap-check: no pathmap given" -q

# -q after the file: errors only, the bad file named, exit 1, in order.
$PC $GOOD "$tmp/none.pathmap" -q >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q "^$tmp/none.pathmap: error: cannot open" "$tmp/err" ||
    fail "-q after the files: exit $st: $(cat "$tmp/out" "$tmp/err")"
$PC --quiet $GOOD >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ] || fail "--quiet: $(cat "$tmp/out")"

[ $fails -eq 0 ] || exit 1
echo "check-args.sh: ok"
