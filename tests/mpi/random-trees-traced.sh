#!/bin/sh
# Random trees (tests/randtree/randtree.h), traced: build/tests/exec_random
# checks every result of seeds FIRST-LAST (against MPI_Allreduce and the
# closed form) while writing one OTF2 archive per seed and tree, then
# build/tests/trace_check, the independent reader, checks every archive
# against the seed's pathmap with --ops (each thread's exact share: OPS
# operations per size, 2 sizes).  The archives must be exactly the trees
# exec_random reports.
#   sh tests/mpi/random-trees-traced.sh [FIRST LAST [extra exec_random options]]
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
CHECK=build/tests/trace_check
FIRST=${1:-601}
LAST=${2:-640}
[ $# -ge 2 ] && shift 2 || shift $#
OPS=10
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$CHECK" ] || fail "$CHECK is missing (make all)"
[ -x build/tests/exec_random ] || fail "build/tests/exec_random is missing (make all)"

timeout 300 $MPIRUN -np 4 build/tests/exec_random --seeds "$FIRST-$LAST" --ops $OPS \
  --bytes 4,256 --trace "$tmp/tr" "$@" > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "exec_random --trace failed"; }
trees=$(sed -n 's/^exec_random: seeds .* (\([0-9]*\) trees.* 0 wrong$/\1/p' "$tmp/out")
[ -n "$trees" ] || { cat "$tmp/out" >&2; fail "no summary line from exec_random"; }
narch=0
for d in "$tmp"/tr/seed-*-t*; do
  [ -d "$d" ] || continue
  seed=$(basename "$d" | sed 's/-t[0-9]*$//')
  "$CHECK" --ops $((2 * OPS)) "$d" "$tmp/tr/$seed.pathmap" > "$tmp/tc" 2>&1 ||
    { cat "$tmp/tc" >&2; echo "its pathmap:" >&2; cat "$tmp/tr/$seed.pathmap" >&2
      fail "$(basename "$d"): trace_check"; }
  expect_count "$tmp/tc" 1 "trace_check: ok:"
  narch=$((narch + 1))
done
[ "$narch" -eq "$trees" ] || fail "$narch archives for $trees trees"
tail -n 1 "$tmp/out"
echo "trace_check: all $narch archives of seeds $FIRST-$LAST ok"
