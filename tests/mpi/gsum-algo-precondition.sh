#!/bin/sh
# gsum-algo-precondition.sh - a precondition that only the element count can
# break (Rabenseifner needs count >= the largest power of two <= hosts),
# through Gsum: a rank says so and the job exits non-zero, without a hang.
# The only run that takes the algorithm node's fatal path
# (runtime/exec/algo_node.c); split from gsum-algo.sh so that make check-asan
# runs it alone (docs/testing.md, What the ASan tier leaves out).
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Rabenseifner at 4 hosts cannot split one element.  Every rank finds it
# out by itself, but the first MPI_Abort may kill the others before they
# print: at least one rank reports it, and every rank that reports anything
# fatal reports exactly this, on a line of its own.
run_fails 120 "$tmp/out" $MPIRUN -np 4 bin/gsum -p pathmaps/local/algo/rabenseifner-4x2.pathmap \
    -n 10 -w 0 -s 4
want="^paptree: rank [0-3]: fatal: algorithm node 'across' (rabenseifner), instance 0, operation 0, 4 bytes: rabenseifner: needs count >= 4 (the largest power of two <= nranks 4), got 1; aborting the job\$"
grep -q "$want" "$tmp/out" ||
    { cat "$tmp/out" >&2; fail "no rank reported Rabenseifner's precondition"; }
if grep "fatal:" "$tmp/out" | grep -v "$want" >&2; then
    cat "$tmp/out" >&2; fail "a fatal line other than the precondition, or two interleaved"
fi
echo "gsum-algo-precondition: ok"
