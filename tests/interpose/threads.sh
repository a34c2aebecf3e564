#!/bin/sh
# threads.sh - build/mpiapps/threads: two threads per rank run allreduce,
# bcast, reduce and barrier at the same time, each on its own duplicate
# of MPI_COMM_WORLD, under MPI_THREAD_MULTIPLE (which the program requires:
# a lower level fails), every result against its closed form.  Under
# paprun with no rules and traced (both threads get a location), and with
# rules that run the collectives on paptree's algorithms, at np 2 and 3.
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
apps_setup

papp 120 2 "$tmp/a.out" --trace "$tmp/t" -- build/mpiapps/threads 200 ||
  { cat "$tmp/a.out" >&2; fail "threads np 2, traced, no rules: failed"; }
grep -q '^threads: 200 iterations x 2 threads, 4000 collective calls, 0 failures' "$tmp/a.out" ||
  { cat "$tmp/a.out" >&2; fail "threads np 2: no summary line"; }
trace_counts "$tmp/t" "$tmp/counts" "$tmp/a.out"
want_count "$tmp/counts" MPI_COLLECTIVE_END 4000 "MpiCollectiveEnd events (2 ranks x 2 threads x 200 x 5)"
# The main thread, which made no collective, may have a location of its own
# without events (the rank's first); the two threads must have theirs.
locs=$(otf2-print -G "$tmp/t/traces.otf2" | grep '^LOCATION ' | grep -vc '# Events: 0,' || true)
[ "$locs" -eq 4 ] || fail "the trace has $locs locations with events, expected 4 (2 ranks x 2 threads)"
echo "ok 1 - np 2, traced: results, 4 locations with events, every call"

for np in 2 3; do
  papp 150 $np "$tmp/b.out" --algo 'allreduce:<=64=rd,*=ring; reduce:*=chain(segments=3); bcast:*=binomial' -- \
    build/mpiapps/threads 300 ||
    { cat "$tmp/b.out" >&2; fail "threads np $np, rules: failed"; }
  grep -q '0 failures' "$tmp/b.out" || { cat "$tmp/b.out" >&2; fail "threads np $np, rules: no summary"; }
  echo "ok - np $np with rules"
done
