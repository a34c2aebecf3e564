#!/bin/sh
# small-count.sh - build/mpiapps/small_count (allreduces of 1 to 5
# elements) at np 4 under allreduce:*=rabenseifner, which needs count >= 4
# there: counts 1 to 3 must fall back to Open MPI with the right result
# (the program checks each against PMPI_Allreduce and its closed form),
# counts 4 and 5 run Rabenseifner; the report says "count: 30" for each of
# the program's two call sites (10 rounds x 3 counts), and the trace
# carries the fallback reason "count" on exactly those 4 x 60 calls.
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
apps_setup

papp 120 4 "$tmp/out" --report --trace "$tmp/t" --algo 'allreduce:*=rabenseifner' -- \
  build/mpiapps/small_count || { cat "$tmp/out" >&2; fail "small_count failed under rabenseifner"; }
grep -q '^small_count: MPI_Allreduce=400 calls, 0 failures' "$tmp/out" ||
  { cat "$tmp/out" >&2; fail "small_count: no summary line"; }
n=$(grep -c 'count: 30' "$tmp/out" || true)
[ "$n" -eq 2 ] || { cat "$tmp/out" >&2; fail "the report shows 'count: 30' on $n lines, expected 2 (one per call site)"; }
grep -q 'small_count.c:' "$tmp/out" || { cat "$tmp/out" >&2; fail "the report names no line of small_count.c"; }
echo "ok 1 - counts under Rabenseifner's minimum fall back, right results, the report counts them"

trace_counts "$tmp/t" "$tmp/counts" "$tmp/out"
want_count "$tmp/counts" ENTER:MPI_Allreduce 400 "ENTER events of MPI_Allreduce"
fb=$(grep -c '"paptree::fallback" <[0-9]*>; STRING; "count"' "$tmp/counts.print" || true)
[ "$fb" -eq 240 ] || fail "the trace has $fb calls with fallback \"count\", expected 240 (4 ranks x 60)"
rab=$(grep '"paptree::fallback" <[0-9]*>; STRING; ""' "$tmp/counts.print" | grep -c '"rabenseifner"' || true)
[ "$rab" -eq 160 ] || fail "the trace has $rab calls that ran rabenseifner without a fallback, expected 160"
echo "ok 2 - the trace marks the 240 fallbacks, reason count"
