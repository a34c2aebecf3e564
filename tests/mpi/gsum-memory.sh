#!/bin/sh
# Gsum computes the memory a run needs before allocating it and, when the
# machine does not have it, says how much on every rank that lacks it and
# exits 1 on every rank (no MPI_Abort).  A failed allocation names the
# buffer and its size.  PAPTREE_GSUM_TEST_MEM (tests only) stands in for
# the machine's memory so that the expected text does not depend on it.
#
# What a run needs on a rank (worked out from tools/gsum.c and the runtime):
#   per local thread: its inputs, V variants of the largest tuple (V = 2
#     above 32 KiB), and one output tuple: 2 x 1 GiB + 1 GiB = 3 GiB;
#   the expected results, V tuples: 2 GiB;
#   tree buffers, per instance (2): a gred's accumulator and result (2
#     tuples), a core's store (1), a served proxy link's in and out (2).
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
# One rank that must fail: when a rank exits non-zero, mpirun's daemon gives
# the job's ranks 1 s before SIGTERM and 1 s more before SIGKILL
# (odls_base_sigkill_timeout), even when the only rank has ended already:
# 2 s per failing run.  With one rank there is nobody to wait for.  (Jobs of
# several ranks keep the grace: a rank may still be printing its message.)
MPIRUN1="$MPIRUN --mca odls_base_sigkill_timeout 0 -np 1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

no_abort() {
    if grep -q "MPI_ABORT" "$1"; then cat "$1" >&2; fail "MPI_Abort instead of a message"; fi
}

# gred-1x2, -s 1GiB: 2 threads x 3 GiB + 2 GiB + 2 x (gred 2 + core 1) = 14 GiB.
run_fails 120 "$tmp/out" $MPIRUN1 -x PAPTREE_GSUM_TEST_MEM=4G bin/gsum \
    -p pathmaps/local/gred-1x2.pathmap -s 1GiB -n 1 -w 0
expect_count "$tmp/out" 1 "gsum: -s 1GiB needs 14.0 GiB of memory on rank 0 (2 threads x 3.0 GiB of tuples + 2.0 GiB of expected results + 6.0 GiB of tree buffers); this machine has 4.0 GiB"
no_abort "$tmp/out"

# --native -s 512MiB: 1 contributor x (1 GiB + 512 MiB) + 1 GiB = 2.5 GiB.
run_fails 120 "$tmp/out" $MPIRUN1 -x PAPTREE_GSUM_TEST_MEM=1G bin/gsum --native -s 4,512M -n 1 -w 0
expect_count "$tmp/out" 1 "gsum: -s 512MiB needs 2.5 GiB of memory on rank 0 (1 thread x 1.5 GiB of tuples + 1.0 GiB of expected results); this machine has 1.0 GiB"
no_abort "$tmp/out"

# demo (2 ranks on this machine), -s 1GiB.  Rank 0: 2 x 3 + 2 + 2 x (core 1
# + gred cr0 2 + gred h0 2 + link p1 2) = 22 GiB; rank 1: 2 x 3 + 2 + 2 x
# (gred h1 2) = 12 GiB; together 34 GiB.  Both say so; both exit 1.
run_fails 120 "$tmp/out" $MPIRUN -np 2 -x PAPTREE_GSUM_TEST_MEM=16G bin/gsum \
    -p pathmaps/demo.pathmap -s 1G -n 1 -w 0
expect_count "$tmp/out" 1 "gsum: -s 1GiB needs 22.0 GiB of memory on rank 0 (2 threads x 3.0 GiB of tuples + 2.0 GiB of expected results + 14.0 GiB of tree buffers); the 2 ranks on this machine need 34.0 GiB together, and it has 16.0 GiB"
expect_count "$tmp/out" 1 "gsum: -s 1GiB needs 12.0 GiB of memory on rank 1 (2 threads x 3.0 GiB of tuples + 2.0 GiB of expected results + 4.0 GiB of tree buffers); the 2 ranks on this machine need 34.0 GiB together, and it has 16.0 GiB"
no_abort "$tmp/out"

# The machine's real memory: 1024 threads x 3 GiB + 2 GiB + 2 x (2 + 1) GiB
# = 3080 GiB, more than any test machine has.
{ printf 'host h0\ntree t\ncore c host=h0\ngred g host=h0 parent=c\n'
  printf 'threads 0-1023 host=h0 enter=g\n'; } > "$tmp/wide.pm"
run_fails 120 "$tmp/out" $MPIRUN1 bin/gsum -p "$tmp/wide.pm" -s 1GiB -n 1 -w 0
expect_count "$tmp/out" 1 "gsum: -s 1GiB needs 3080.0 GiB of memory on rank 0 (1024 threads x 3.0 GiB of tuples + 2.0 GiB of expected results + 6.0 GiB of tree buffers); this machine has "
no_abort "$tmp/out"

# An allocation that fails anyway (address space capped at 3 GiB, the check
# told the machine has plenty; under ASan any one allocation over 512 MiB)
# names the buffer and its size, exit 1.
run_fails 120 "$tmp/out" sh -c ". tests/lib.sh; mem_cap 3145728 524288; exec $MPIRUN1 -x PAPTREE_GSUM_TEST_MEM=1T bin/gsum --native -s 1G -n 1 -w 0"
expect_count "$tmp/out" 1 "gsum: rank 0: cannot allocate"
grep -Eq "^gsum: rank 0: cannot allocate thread 0's [a-z ]+ \([0-9.]+ GiB\): " "$tmp/out" ||
  { cat "$tmp/out" >&2; fail "the failed allocation's message names no buffer and size"; }
no_abort "$tmp/out"
echo "gsum-memory: ok"
