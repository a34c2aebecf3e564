#!/bin/sh
# coll-matrix-trace.sh - build/mpiapps/coll_matrix under bin/paprun, its
# trace and its report (docs/paprun.md):
#  1. the checker can fail: a deliberately wrong MPI_Allreduce (a one-off
#     interposer built here, preloaded without paprun) makes coll_matrix
#     exit 1 and name the case, for an integer and for a double sum;
#  2. no rules (pass-through) at np 3, traced: every result right, and in
#     the archive (read by otf2-print) one ENTER per call of each region and
#     one MpiCollectiveEnd per blocking call, one NonBlockingCollectiveRequest
#     and one ...Complete per nonblocking call, the counts coll_matrix
#     printed; every collective's algorithm attribute "native", call sites
#     in coll_matrix itself;
#  3. rules at np 4, traced: the same counts, the rules' algorithms in the
#     attributes, the rules in the archive's properties;
#  4. --report at np 2 under rules: rank 0's table names coll_matrix.c's
#     lines, the collectives and the algorithms.
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
apps_setup
command -v otf2-print > /dev/null || fail "otf2-print is missing (make deps)"

# 1. A wrong allreduce: +1 on element 0 of an MPI_INT result, +1e-3 on a
#    double's (far beyond the rounding bound).
cat > "$tmp/bad.c" <<'C'
#include <mpi.h>
#include <stdlib.h>
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    int rc = PMPI_Allreduce(s, r, n, t, op, c);
    const char *mode = getenv("BAD_MODE");
    if (n > 0 && t == MPI_INT && mode && *mode == 'i')
        ((int *)r)[0] += 1;
    if (n > 0 && t == MPI_DOUBLE && mode && *mode == 'd')
        ((double *)r)[0] += 1e-3;
    return rc;
}
C
mpicc -shared -fPIC -o "$tmp/bad.so" "$tmp/bad.c"
for mode in i d; do
  set +e
  paptree_mpirun -t 60 2 -x LD_PRELOAD="$tmp/bad.so" -x BAD_MODE=$mode -- \
    build/mpiapps/coll_matrix --colls allreduce --counts 3 > "$tmp/bad.out" 2>&1
  st=$?
  set -e
  [ $st -ne 0 ] && [ $st -ne 124 ] || { cat "$tmp/bad.out" >&2; fail "a wrong allreduce ($mode) passed: status $st"; }
  grep -q "FAIL world rank 0: allreduce comm=world type=$([ $mode = i ] && echo int32 || echo double) op=sum inplace=0 count=3" "$tmp/bad.out" ||
    { cat "$tmp/bad.out" >&2; fail "a wrong allreduce ($mode): the case is not named"; }
done
echo "ok 1 - a wrong MPI_Allreduce fails coll_matrix"

# check_trace OUT DIR: the trace's counts against the calls coll_matrix printed.
check_trace() {
  trace_counts "$2" "$tmp/counts" "$1"
  blocking=0 nonblocking=0
  for f in MPI_Allreduce MPI_Reduce MPI_Bcast MPI_Barrier MPI_Allgather MPI_Reduce_scatter_block \
           MPI_Iallreduce MPI_Ireduce MPI_Ibcast; do
    c=$(calls_of "$1" $f)
    [ -n "$c" ] || { cat "$1" >&2; fail "coll_matrix printed no count of $f"; }
    want_count "$tmp/counts" "ENTER:$f" "$c" "ENTER events of region $f"
    case $f in
      MPI_I*) nonblocking=$((nonblocking + c)) ;;
      *) blocking=$((blocking + c)) ;;
    esac
  done
  want_count "$tmp/counts" MPI_COLLECTIVE_END "$blocking" "MpiCollectiveEnd events"
  want_count "$tmp/counts" MPI_COLLECTIVE_BEGIN "$blocking" "MpiCollectiveBegin events"
  want_count "$tmp/counts" NON_BLOCKING_COLLECTIVE_REQUEST "$nonblocking" "NonBlockingCollectiveRequest events"
  want_count "$tmp/counts" NON_BLOCKING_COLLECTIVE_COMPLETE "$nonblocking" "NonBlockingCollectiveComplete events"
  grep -q 'coll_matrix+0x' "$tmp/counts.print" ||
    fail "no call site in build/mpiapps/coll_matrix in the trace ($tmp/counts.print)"
}

# 2. Pass-through, traced.
papp 150 3 "$tmp/pass.out" --trace "$tmp/pass" -- build/mpiapps/coll_matrix --quick ||
  { cat "$tmp/pass.out" >&2; fail "pass-through np 3: coll_matrix failed"; }
check_trace "$tmp/pass.out" "$tmp/pass"
grep -q '"paptree::algo" <[0-9]*>; STRING; "native"' "$tmp/counts.print" ||
  { grep -m 3 paptree::algo "$tmp/counts.print" >&2; fail "pass-through: no algorithm attribute \"native\""; }
if grep '"paptree::algo" <[0-9]*>; STRING;' "$tmp/counts.print" | grep -qv '"native"'; then
  fail "pass-through: an algorithm other than native ran"
fi
echo "ok 2 - pass-through np 3, traced: results, and one event per call in the trace"

# 3. Rules, traced.
rules='allreduce:<=8=rd,>8=ring; reduce:*=binomial; bcast:*=chain(segments=2)'
papp 150 4 "$tmp/rules.out" --trace "$tmp/rules" --algo "$rules" -- build/mpiapps/coll_matrix --quick ||
  { cat "$tmp/rules.out" >&2; fail "rules np 4: coll_matrix failed"; }
check_trace "$tmp/rules.out" "$tmp/rules"
for a in rd ring binomial 'chain(segments=2)'; do
  grep -F '"paptree::algo"' "$tmp/counts.print" | grep -qF "STRING; \"$a\"" ||
    fail "rules np 4: no call ran '$a' by the trace"
done
otf2-print -A "$tmp/rules/traces.otf2" | grep -qF "$rules" ||
  fail "rules np 4: the rules are not among the archive's properties"
echo "ok 3 - rules np 4, traced: results, counts, algorithms"

# 4. --report.
papp 150 2 "$tmp/report.out" --report --algo 'allreduce:*=ring; bcast:*=binomial' -- \
  build/mpiapps/coll_matrix --quick --colls allreduce,bcast,barrier ||
  { cat "$tmp/report.out" >&2; fail "--report np 2: coll_matrix failed"; }
for w in coll_matrix.c: MPI_Allreduce MPI_Bcast MPI_Barrier ring binomial native; do
  grep -qF -- "$w" "$tmp/report.out" || { cat "$tmp/report.out" >&2; fail "--report: no '$w' in the report"; }
done
echo "ok 4 - --report np 2"
