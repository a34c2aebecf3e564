#!/bin/sh
# nonblocking.sh - build/mpiapps/nbc under bin/paprun --trace at np 3:
# MPI_Iallreduce, MPI_Ireduce (in place) and MPI_Ibcast, two in flight at a
# time, completed by each of MPI_Wait, MPI_Waitall, MPI_Waitany,
# MPI_Waitsome and the four MPI_Test functions, and pairs of collectives
# with nothing to do (count 0, MPI_COMM_SELF: Open MPI gives both the same
# request handle); every result checked by the
# program; the trace (otf2-print) must hold one NonBlockingCollectiveRequest
# and one NonBlockingCollectiveComplete per call, and one ENTER of
# MPI_Iallreduce, MPI_Ireduce, MPI_Ibcast per call.  Also untraced, under
# rules (which leave the nonblocking collectives to Open MPI).
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
apps_setup
[ -x build/mpiapps/nbc ] || fail "build/mpiapps/nbc is missing (make)"

papp 90 3 "$tmp/a.out" --trace "$tmp/t" -- build/mpiapps/nbc ||
  { cat "$tmp/a.out" >&2; fail "nbc np 3, traced: failed"; }
grep -q '^nbc: 312 nonblocking calls, 0 failures' "$tmp/a.out" || { cat "$tmp/a.out" >&2; fail "nbc: no summary line"; }
trace_counts "$tmp/t" "$tmp/counts" "$tmp/a.out"
want_count "$tmp/counts" NON_BLOCKING_COLLECTIVE_REQUEST 312 "NonBlockingCollectiveRequest events"
want_count "$tmp/counts" NON_BLOCKING_COLLECTIVE_COMPLETE 312 "NonBlockingCollectiveComplete events"
want_count "$tmp/counts" ENTER:MPI_Iallreduce 96 "ENTER events of MPI_Iallreduce (3 ranks x (3 rounds x 8 + 2 x 4))"
want_count "$tmp/counts" ENTER:MPI_Ireduce 72 "ENTER events of MPI_Ireduce"
want_count "$tmp/counts" ENTER:MPI_Ibcast 144 "ENTER events of MPI_Ibcast"
echo "ok 1 - np 3, traced: every completion function, one request and one completion per call"

papp 90 3 "$tmp/b.out" --algo 'allreduce:*=ring; reduce:*=binomial; bcast:*=chain' -- build/mpiapps/nbc ||
  { cat "$tmp/b.out" >&2; fail "nbc np 3, rules: failed"; }
grep -q '^nbc: 312 nonblocking calls, 0 failures' "$tmp/b.out" || { cat "$tmp/b.out" >&2; fail "nbc, rules: no summary line"; }
echo "ok 2 - np 3, rules"
