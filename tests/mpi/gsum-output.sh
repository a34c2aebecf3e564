#!/bin/sh
# Gsum's report: the description line, the OSU-style header and one row per
# size, with Min <= Avg <= Max and the iteration count asked for.  --native
# says the thread level MPI gave it (MPI_Query_thread): one thread per rank
# needs no MPI_THREAD_MULTIPLE, whose locks cost Open MPI's small allreduces
# about 0.2 us (docs/benchmarks.md, issue 15).
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

$MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 300 -w 10 -s 4,256,1024 > "$tmp/out" 2>"$tmp/err" ||
  { cat "$tmp/out" "$tmp/err" >&2; fail "gsum failed"; }
expect_count "$tmp/out" 1 "# paptree gsum: pathmap pathmaps/demo.pathmap, tree sum (int32 sum), 2 hosts, 4 threads, 2 instances"
expect_count "$tmp/out" 1 "Avg Latency(us)"
rows=$(grep -vc '^#' "$tmp/out")
[ "$rows" -eq 3 ] || fail "expected 3 rows, got $rows"
awk '!/^#/ { if (!($3 <= $2 && $2 <= $4 && $5 == 300)) { print "bad row: " $0; bad = 1 } }
     END { exit bad }' "$tmp/out" || fail "row invariants"
awk '!/^#/ { print $1 }' "$tmp/out" | tr '\n' ' ' | grep -qx '4 256 1024 ' || fail "sizes"

$MPIRUN -np 2 bin/gsum --native -n 300 -w 10 -s 4 > "$tmp/out" 2>"$tmp/err" ||
  { cat "$tmp/out" "$tmp/err" >&2; fail "gsum --native failed"; }
expect_count "$tmp/out" 1 "# paptree gsum --native: MPI_Allreduce, 2 ranks (one contributor each), int32 sum, 2 communicators, MPI_THREAD_SINGLE"
echo "gsum-output: ok"
