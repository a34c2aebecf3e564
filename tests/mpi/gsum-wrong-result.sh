#!/bin/sh
# A wrong result found by several threads at once: exactly one thread
# reports it and aborts the job; the others wait.  (Two threads calling
# MPI_Abort together could crash inside Open MPI.)  PAPTREE_GSUM_TEST_WRONG=1,
# read by gsum only where it builds the expected results, makes every
# expected value off by one, so every thread fails its first operation.
# 8 runs; each must exit non-zero with one report and no crash.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

printf 'host h0\ntree t\ncore c host=h0\ngred g host=h0 parent=c wait=spin\nthreads 0-7 host=h0 enter=g\n' \
    > "$tmp/eight.pm"
for run in 1 2 3 4 5 6 7 8; do
    run_fails 60 "$tmp/out" $MPIRUN -np 1 -x PAPTREE_GSUM_TEST_WRONG=1 bin/gsum -p "$tmp/eight.pm" -n 100 -w 0
    n=$(grep -c "wrong result" "$tmp/out" || true)
    [ "$n" -eq 1 ] || { cat "$tmp/out" >&2; fail "run $run: $n 'wrong result' reports, expected 1"; }
    expect_count "$tmp/out" 1 "thread"
    if grep -qiE "segmentation fault|signal 11|core dumped|SIGSEGV" "$tmp/out"; then
        cat "$tmp/out" >&2; fail "run $run: a crash while aborting"
    fi
done
# Without the variable the same run passes (the hook changes nothing else).
timeout 60 $MPIRUN -np 1 bin/gsum -p "$tmp/eight.pm" -n 100 -w 0 > "$tmp/out" 2>&1 ||
    { cat "$tmp/out" >&2; fail "the 8-thread run failed without PAPTREE_GSUM_TEST_WRONG"; }
# --native: every rank's one contributor; one report per rank.
run_fails 60 "$tmp/out" $MPIRUN -np 2 -x PAPTREE_GSUM_TEST_WRONG=1 bin/gsum --native -n 10 -w 0
expect_count "$tmp/out" 1 "wrong result"
echo "gsum-wrong-result: ok"
