#!/bin/sh
# Job-level errors must reach every rank with a clear message, exit
# non-zero and never hang: wrong rank count, ranks reading different
# pathmaps, a pathmap that fails to parse on one rank only, a tree that
# does not exist; the rank count with --trace too.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# 3 ranks for a 2-host pathmap: every rank says so.
run_fails 60 "$tmp/out" $MPIRUN -np 3 bin/gsum -p pathmaps/demo.pathmap -n 10
expect_count "$tmp/out" 3 "the job has 3 ranks but pathmap 'pathmaps/demo.pathmap' declares 2 hosts"

# 1 rank for a 2-host pathmap.
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum -p pathmaps/demo.pathmap -n 10
expect_count "$tmp/out" 1 "the job has 1 ranks but pathmap 'pathmaps/demo.pathmap' declares 2 hosts"

# The same mistakes with --trace: the same words (the tracer is set up
# before the executor and used to say "not one rank per host"), no archive.
run_fails 60 "$tmp/out" $MPIRUN -np 3 bin/gsum -p pathmaps/demo.pathmap -n 10 --trace "$tmp/t3"
expect_count "$tmp/out" 3 "the job has 3 ranks but pathmap 'pathmaps/demo.pathmap' declares 2 hosts; run one rank per host (mpirun -np 2)"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum -p pathmaps/demo.pathmap -n 10 --trace "$tmp/t1"
expect_count "$tmp/out" 1 "the job has 1 ranks but pathmap 'pathmaps/demo.pathmap' declares 2 hosts; run one rank per host (mpirun -np 2)"
[ ! -e "$tmp/t3" ] && [ ! -e "$tmp/t3.partial" ] && [ ! -e "$tmp/t1" ] || fail "a refused job left a trace"

# Ranks that parsed different (both valid) pathmaps: every rank says so.
cp pathmaps/demo.pathmap "$tmp/pm0"
{ cat pathmaps/demo.pathmap; echo "# an edit made on one node only"; } > "$tmp/pm1"
run_fails 60 "$tmp/out" $MPIRUN -np 2 sh -c "exec bin/gsum -p $tmp/pm\$OMPI_COMM_WORLD_RANK -n 10"
expect_count "$tmp/out" 2 "ranks parsed different pathmaps"

# A pathmap that does not parse on rank 1 only: rank 1 prints the location,
# rank 0 names the failing rank.
printf 'host h0\nhost h1\ntree t\ncore c host=h9\n' > "$tmp/pm1"
run_fails 60 "$tmp/out" $MPIRUN -np 2 sh -c "exec bin/gsum -p $tmp/pm\$OMPI_COMM_WORLD_RANK -n 10"
expect_count "$tmp/out" 1 "$tmp/pm1:4:13: error: unknown host 'h9'"
expect_count "$tmp/out" 1 "rank 1 failed (see its message)"

# A tree that does not exist.
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -t nosuch -n 10
expect_count "$tmp/out" 1 "has no tree 'nosuch'"
echo "job-errors: ok"
