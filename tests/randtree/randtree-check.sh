#!/bin/sh
# Every generated pathmap must validate: seeds 1-N of build/tests/randtree
# (default limits, up to 4 hosts) and some with 8 and 16 hosts, each
# written to a file and given to bin/pathmap-check, which must accept it;
# the same seed twice must print the same text.
#   sh tests/randtree/randtree-check.sh [N]
set -eu
. tests/lib.sh
N=${1:-200}
GEN=build/tests/randtree
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$GEN" ] || fail "$GEN is missing (make all)"
[ -x bin/pathmap-check ] || fail "bin/pathmap-check is missing (make all)"

check() {  # check SEED [randtree options]
  "$GEN" "$@" > "$tmp/p.pathmap" || fail "randtree $* failed"
  bin/pathmap-check "$tmp/p.pathmap" > "$tmp/out" 2>&1 ||
    { cat "$tmp/out" "$tmp/p.pathmap" >&2; fail "randtree $*: rejected by pathmap-check"; }
}
s=1
while [ $s -le "$N" ]; do check $s; s=$((s + 1)); done
s=1
while [ $s -le 20 ]; do check $s --hosts 8; check $s --max-hosts 16 --algo 50 --count 64; s=$((s + 1)); done
"$GEN" 7 > "$tmp/a"; "$GEN" 7 > "$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "randtree 7 printed two different texts"
grep -q '^host ' "$tmp/a" || fail "randtree 7 printed no host"
"$GEN" --help | grep -q '^usage: randtree' || fail "randtree --help"
if "$GEN" 2>/dev/null; then fail "randtree without a seed succeeded"; fi
echo "randtree: $N + 40 seeds, every pathmap accepted by pathmap-check"
