#!/bin/sh
# Gsum's command line: --help, and bad arguments as clear errors with exit 2
# (usage) or 1 (bad input), never a hang.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

$MPIRUN -np 1 bin/gsum --help > "$tmp/out" 2>&1 || fail "--help exited non-zero"
expect_count "$tmp/out" 1 "usage: mpirun -np HOSTS gsum -p PATHMAP"
expect_count "$tmp/out" 1 "--native"

run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum
expect_count "$tmp/out" 1 "give either -p PATHMAP or --native"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum --native -n abc
expect_count "$tmp/out" 1 "-n: 'abc' is not an integer >= 1"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum --native -s 4,0
expect_count "$tmp/out" 1 "-s: '0' is not an integer >= 1"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum --native --type float
expect_count "$tmp/out" 1 "--type: unknown 'float' (expected int32, int64 or double)"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum --native --type double -s 4
expect_count "$tmp/out" 1 "-s 4 is not a multiple of the 8-byte double element"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum -p pathmaps/local/gred-1x2.pathmap -s 6
expect_count "$tmp/out" 1 "-s 6 is not a multiple of the 4-byte int32 element"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum -p /nonexistent.pathmap
expect_count "$tmp/out" 1 "/nonexistent.pathmap: error: cannot open: No such file or directory"
echo "gsum-args: ok"
