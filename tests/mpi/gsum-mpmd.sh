#!/bin/sh
# Gsum under MPMD launches (mpirun -np 1 gsum ARGS1 : -np 1 gsum ARGS2):
# options that must agree across ranks are compared after MPI starts and
# every rank names the option and the rank that differs; a rank whose own
# options do not parse still takes part in the agreement, so the others
# exit instead of waiting for it.  Exit non-zero, never a hang.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
PM=pathmaps/demo.pathmap          # 2 hosts: rank 0 and rank 1

# mpmd SECONDS ARGS0 -- ARGS1: rank 0 gets ARGS0, rank 1 ARGS1; must fail.
mpmd() {
    secs=$1; shift
    a0=""; while [ "$1" != "--" ]; do a0="$a0 $1"; shift; done; shift
    run_fails "$secs" "$tmp/out" $MPIRUN -np 1 bin/gsum $a0 : -np 1 bin/gsum "$@"
}

# Rank 1's options do not parse: it says why, rank 0 says who, no hang.
mpmd 60 -p $PM -n 10 -- -p $PM -n abc
expect_count "$tmp/out" 1 "gsum: rank 1: -n: 'abc' is not an integer, expected 1..2147483647"
expect_count "$tmp/out" 1 "gsum: rank 0: rank 1 could not parse its options (see its message)"
mpmd 60 -p $PM -n 10 -w 0 -- -p $PM -n 10 -w 0 --bogus
expect_count "$tmp/out" 1 "gsum: rank 1: unknown option '--bogus'"
expect_count "$tmp/out" 1 "gsum: rank 0: rank 1 could not parse its options"
# ... and the same on rank 0.
mpmd 60 -p $PM -s ,, -- -p $PM
expect_count "$tmp/out" 1 "gsum: rank 0: -s: item 1 of ',,' is empty, expected items separated by ','"
expect_count "$tmp/out" 1 "gsum: rank 1: rank 0 could not parse its options"

# Options that differ: every rank names the option and the ranks.
mpmd 60 -p $PM -n 2000 -w 0 -- -p $PM -n 500 -w 0
expect_count "$tmp/out" 1 "gsum: rank 1: -n 500 differs from rank 0's -n 2000"
expect_count "$tmp/out" 1 "gsum: rank 0: rank 1's -n 500 differs from rank 0's -n 2000"
mpmd 60 -p $PM -n 10 -s 4,256 -- -p $PM -n 10 -s 4
expect_count "$tmp/out" 1 "gsum: rank 1: -s 4 differs from rank 0's -s 4,256"
expect_count "$tmp/out" 1 "gsum: rank 0: rank 1's -s 4 differs from rank 0's -s 4,256"
mpmd 60 -p $PM -n 10 -w 5 -- -p $PM -n 10 -w 7
expect_count "$tmp/out" 1 "gsum: rank 1: -w 7 differs from rank 0's -w 5"
mpmd 60 -p $PM -n 10 -- -p $PM -n 10 -t sum
expect_count "$tmp/out" 1 "gsum: rank 1: -t sum differs from rank 0's -t (the first tree)"
mpmd 60 --native -n 10 -- -p $PM -n 10
expect_count "$tmp/out" 1 "gsum: rank 1: -p (a pathmap) differs from rank 0's --native"
mpmd 60 --native -n 10 --op max -- --native -n 10
expect_count "$tmp/out" 1 "gsum: rank 1: --op sum differs from rank 0's --op max"
mpmd 60 --native -n 10 --type int64 -s 8 -- --native -n 10 -s 8
expect_count "$tmp/out" 1 "gsum: rank 1: --type int32 differs from rank 0's --type int64"
mpmd 60 -p $PM -n 10 --trace "$tmp/tr" -- -p $PM -n 10
expect_count "$tmp/out" 1 "gsum: rank 1: no --trace differs from rank 0's --trace"
# --help on one rank only: that rank prints the usage, everyone exits 0.
timeout 60 $MPIRUN -np 1 bin/gsum -p $PM : -np 1 bin/gsum --help > "$tmp/out" 2>&1 ||
    { cat "$tmp/out" >&2; fail "--help on rank 1 only did not exit 0"; }
expect_count "$tmp/out" 1 "usage: mpirun -np HOSTS gsum -p PATHMAP"
# The same options on both ranks still run.
timeout 120 $MPIRUN -np 1 bin/gsum -p $PM -n 20 -w 2 -s 4,8 : -np 1 bin/gsum -p $PM -n 20 -w 2 -s 4,8 \
    > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "an MPMD launch with equal options failed"; }
expect_count "$tmp/out" 1 "# Size"
echo "gsum-mpmd: ok"
