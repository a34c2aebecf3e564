#!/bin/sh
# auto end to end (docs/auto.md):
#   - build/tests/auto_agree agree (np 4): 200 operations under random agreed
#     arrival vectors, results equal to MPI_Allreduce's, every rank's choices
#     the same, more than one candidate chosen;
#   - disagree-probe (np 3): rank 1 chooses among prr only, the others among
#     ring only: the job stops (no hang) and the output names both choices,
#     "chose ring but rank 1 chose prr" or "chose prr but rank N chose ring";
#   - disagree-exchange (np 3): different candidate lists that choose alike at
#     first: the exchange after the first operation stops the job, "learned
#     state differs";
#   - gsum with examples/auto-4x1.pathmap, traced (np 4, 2 instances): results
#     verified by gsum; trace_check (the independent reader) accepts the
#     archive, which has one choice record per visit of the node;
#     papanalyze's auto_ops has one row per operation of each instance, every
#     one agreed; papviz choices draws one mark per operation;
#   - papbench --algo auto,ring: an auto/history row (checked bit for bit
#     against MPI_Allreduce by papbench itself);
#   - a pathmap with another PAPTREE_NET on one rank: refused at set-up.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
[ -x build/tests/auto_agree ] || fail "build/tests/auto_agree is missing (make)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP

timeout 120 $MPIRUN -np 4 build/tests/auto_agree agree > "$tmp/agree" 2>&1 ||
  { cat "$tmp/agree" >&2; fail "agree: failed"; }
grep -q '^auto_agree: 4 ranks agreed on 200 choices' "$tmp/agree" || { cat "$tmp/agree" >&2; fail "agree: no summary"; }

set +e
timeout 60 $MPIRUN -np 3 build/tests/auto_agree disagree-probe > "$tmp/probe" 2>&1; rc=$?
set -e
[ "$rc" != 0 ] && [ "$rc" != 124 ] || { cat "$tmp/probe" >&2; fail "disagree-probe: exit $rc (0: unnoticed; 124: hung)"; }
grep -Eq 'chose ring but rank 1 chose prr|chose prr but rank [02] chose ring' "$tmp/probe" ||
  { cat "$tmp/probe" >&2; fail "disagree-probe: no message naming both choices"; }

set +e
timeout 60 $MPIRUN -np 3 build/tests/auto_agree disagree-exchange > "$tmp/exch" 2>&1; rc=$?
set -e
[ "$rc" != 0 ] && [ "$rc" != 124 ] || { cat "$tmp/exch" >&2; fail "disagree-exchange: exit $rc"; }
grep -q "learned state differs from rank 0's" "$tmp/exch" ||
  { cat "$tmp/exch" >&2; fail "disagree-exchange: no 'learned state differs'"; }

OPS=30
timeout 120 $MPIRUN -np 4 bin/gsum -p examples/auto-4x1.pathmap -n $OPS -w 0 -s 65536 \
  --trace "$tmp/g" > "$tmp/gsum" 2>&1 || { cat "$tmp/gsum" >&2; fail "gsum with auto failed"; }
build/tests/trace_check --ops $OPS "$tmp/g" examples/auto-4x1.pathmap > "$tmp/tc" 2>&1 ||
  { cat "$tmp/tc" >&2; fail "trace_check refused the auto trace"; }
bin/papanalyze -q --skip 0 "$tmp/g/traces.otf2" || fail "papanalyze of the auto trace failed"
n=$(sqlite3 "$tmp/g/traces.db" "SELECT COUNT(*) FROM auto_ops")
a=$(sqlite3 "$tmp/g/traces.db" "SELECT SUM(agreed) FROM auto_ops")
r=$(sqlite3 "$tmp/g/traces.db" "SELECT COUNT(*) FROM auto_choices")
# gsum: OPS allreduces per thread, alternating between 2 instances (OPS/2 each)
[ "$n" = $OPS ] && [ "$a" = $OPS ] && [ "$r" = $((4 * OPS)) ] ||
  fail "auto_ops: expected $OPS operations, all agreed, $((4 * OPS)) records; got $n, $a, $r"
bin/papviz choices -q -o "$tmp/c.svg" "$tmp/g/traces.db" || fail "papviz choices failed"
[ "$(grep -c 'class="c-op"' "$tmp/c.svg")" = $OPS ] || fail "papviz choices: expected $OPS marks"

timeout 120 $MPIRUN -np 4 bin/papbench --algo auto,ring --arrival history --sizes 16K \
  --mode one-late --delays 0,1 --iters 4 --warmup 1 --margin 2 > "$tmp/pb" 2>&1 ||
  { cat "$tmp/pb" >&2; fail "papbench --algo auto failed"; }
grep -Eq '^auto/history +[0-9.]+ +[0-9.]+$' "$tmp/pb" || { cat "$tmp/pb" >&2; fail "papbench: no auto/history row"; }

printf 'alpha=1e-6\nbeta=1e-9\ngamma=1e-10\n' > "$tmp/other.net"
set +e
timeout 60 $MPIRUN -np 4 -x PAPTREE_NET=/dev/null sh -c \
  '[ "$OMPI_COMM_WORLD_RANK" = 2 ] && export PAPTREE_NET='"$tmp/other.net"' || unset PAPTREE_NET
   exec bin/gsum -p examples/auto-4x1.pathmap -n 2 -w 0 -s 64' > "$tmp/net" 2>&1; rc=$?
set -e
[ "$rc" != 0 ] && [ "$rc" != 124 ] || { cat "$tmp/net" >&2; fail "different PAPTREE_NET: exit $rc"; }
grep -q 'different auto configurations' "$tmp/net" || { cat "$tmp/net" >&2; fail "different PAPTREE_NET: no message"; }
echo "ok: auto end to end"
