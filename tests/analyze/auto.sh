#!/bin/sh
# papanalyze on the choices of `auto` (docs/analysis-db.md, "Algorithm
# choices"), from an application trace whose choices were made by hand:
# build/tests/ins_mpi_write DIR auto (tests/mpi/ins_mpi_write.c, mode_auto)
# records on 2 ranks three MPI_Allreduce calls at sites 1, 2, 3: call 1
# chose prr (model; predictions ring 100, prr 200; corrected 110, 190;
# spread 5000), call 2 kept ring (predictions ring 100, native 300;
# corrected 100, 330; prr skipped), call 3 ran native with no choice.  Call
# k lasts 1000 k ticks; `fixed` records the same calls with ring and 2000 k
# ticks.  Expected, by hand:
#   - auto_ops: op 0 chose prr, agreed, best ring at 110, regret 190 / 110
#     = 1.7273; op 1 chose ring, best ring at 100, regret 1; no row for call 3;
#   - auto_preds: op 1's prr has no prediction and is marked skipped;
#   - auto_baseline against the fixed run: auto's two ops (mean 1500 ticks)
#     against the site's three fixed ones (mean 4000 ticks): 0.375;
#   - the report's "Algorithm choices" section, and its baseline table;
#   - papviz choices: one mark per operation, the legend's counts; papviz
#     arrivals-by-site: the site's choices, 50 % each;
#   - --baseline refused for a database of another kind, for a file that is
#     not a database, for a database given as the input, and when no site is
#     shared; nothing is written then.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
PROG=build/tests/ins_mpi_write
[ -x "$PROG" ] || fail "$PROG is missing (make all)"
command -v sqlite3 > /dev/null || fail "sqlite3 is missing (make deps)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP

for m in auto fixed; do
  timeout 120 $MPIRUN -np 2 $PROG "$tmp/$m" $m > "$tmp/$m.out" 2>&1 ||
    { cat "$tmp/$m.out" >&2; fail "ins_mpi_write $m failed"; }
done
bin/papanalyze -q -o "$tmp/fixed.db" "$tmp/fixed/traces.otf2" || fail "papanalyze of the fixed run failed"
bin/papanalyze --baseline "$tmp/fixed.db" -o "$tmp/auto.db" "$tmp/auto/traces.otf2" > "$tmp/report" ||
  fail "papanalyze --baseline failed"

q() { sqlite3 -separator '|' "$tmp/auto.db" "$1"; }
got=$(q "SELECT kind, instance, op, nranks, agreed, chosen, reason, spread_ns, candidates,
         chosen_pred_ns, chosen_corr_ns, best, best_corr_ns, printf('%.4f', regret),
         measured_ns > 0 FROM auto_ops ORDER BY op")
want="mpi|0|0|2|1|prr|model|5000|ring,prr,native|200|190|ring|110|1.7273|1
mpi|0|1|2|1|ring|kept|0|ring,prr,native|100|100|ring|100|1.0000|1"
[ "$got" = "$want" ] || fail "auto_ops: expected
$want
got
$got"
got=$(q "SELECT cand, name, IFNULL(pred_ns, '-'), IFNULL(corr_ns, '-'), skipped FROM auto_preds
         WHERE op = 1 AND rank = 1 ORDER BY cand")
want="0|ring|100|100|0
1|prr|-|-|1
2|native|300|330|0"
[ "$got" = "$want" ] || fail "auto_preds of op 1, rank 1: expected
$want
got
$got"
[ "$(q "SELECT COUNT(*) FROM auto_choices")" = 4 ] || fail "auto_choices: expected 4 rows (2 calls x 2 ranks)"
# The three sites are bytes of one function (site(k) = ins_mpi_write_site_a + k):
# addr2line gives them one label, so they are one site here.
[ "$(q "SELECT COUNT(DISTINCT site) FROM auto_ops WHERE site LIKE 'ins_mpi_write.c:%'")" = 1 ] ||
  fail "auto_ops: expected one label, ins_mpi_write.c:LINE, got: $(q 'SELECT site FROM auto_ops')"
# auto: ops 0 and 1, 1000 and 2000 ticks (mean 1500); fixed: the site's three
# allreduces, 2000, 4000 and 6000 ticks (mean 4000): 1500 / 4000 = 0.375.
got=$(q "SELECT auto_ops, baseline_ops, printf('%.3f', ratio) FROM auto_baseline ORDER BY site")
want="2|3|0.375"
[ "$got" = "$want" ] || fail "auto_baseline: expected
$want
got
$got"
grep -q '^Algorithm choices: per call site' "$tmp/report" || fail "report: no 'Algorithm choices' section"
grep -q '^Algorithm choices against the fixed run' "$tmp/report" || fail "report: no baseline table"
grep -Eq 'prr +1 +50\.00 +1\.73 +1\.73' "$tmp/report" ||
  { cat "$tmp/report" >&2; fail "report: no row 'prr 1 50.00 1.73 1.73'"; }

# papviz: a mark per auto operation, the legend's counts; the arrivals chart
# names the site's choices.
bin/papviz choices -q -o "$tmp/choices.svg" "$tmp/auto.db" || fail "papviz choices failed"
[ "$(grep -c 'class="c-op"' "$tmp/choices.svg")" = 2 ] ||
  fail "papviz choices: expected 2 marks (class c-op), got $(grep -c 'class="c-op"' "$tmp/choices.svg")"
grep -q '>prr (1)<' "$tmp/choices.svg" && grep -q '>ring (1)<' "$tmp/choices.svg" ||
  fail "papviz choices: legend without 'prr (1)' and 'ring (1)'"
bin/papviz arrivals-by-site -q -o "$tmp/arr.svg" "$tmp/auto.db" || fail "papviz arrivals-by-site failed"
grep -q 'auto: prr 50%, ring 50%' "$tmp/arr.svg" || fail "arrivals-by-site: no 'auto: prr 50%, ring 50%'"
set +e; bin/papviz choices -q -o "$tmp/none.svg" "$tmp/fixed.db" 2> "$tmp/err"; rc=$?; set -e
[ "$rc" = 1 ] && grep -q 'no choice of auto' "$tmp/err" && [ ! -e "$tmp/none.svg" ] ||
  fail "papviz choices of a run without auto: expected exit 1, 'no choice of auto', no file"

# Refusals: nothing written.
expect_fail() {   # CODE WHAT MESSAGE-REGEX -- command...
  code=$1 what=$2 msg=$3; shift 4
  set +e; "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; set -e
  [ "$rc" = "$code" ] || { cat "$tmp/err" >&2; fail "$what: exit $rc, expected $code"; }
  grep -Eq -e "$msg" "$tmp/err" || { cat "$tmp/err" >&2; fail "$what: message"; }
}
printf 'not a database\n' > "$tmp/text"
expect_fail 2 "baseline not a database" "--baseline: '.*text' is not a papanalyze database" -- \
  bin/papanalyze -q --baseline "$tmp/text" -o "$tmp/x.db" "$tmp/auto/traces.otf2"
expect_fail 2 "baseline with a database as input" "--baseline needs a trace" -- \
  bin/papanalyze --baseline "$tmp/fixed.db" "$tmp/auto.db"
expect_fail 1 "baseline without choices" "no choice of auto to compare" -- \
  bin/papanalyze -q --baseline "$tmp/auto.db" -o "$tmp/x.db" "$tmp/fixed/traces.otf2"
sqlite3 "$tmp/other.db" "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES('kind', 'tree');"
expect_fail 1 "baseline of another kind" "not a papanalyze database of an application trace" -- \
  bin/papanalyze -q --baseline "$tmp/other.db" -o "$tmp/x.db" "$tmp/auto/traces.otf2"
sqlite3 "$tmp/fixed.db" "UPDATE mpi_callsites SET label = 'elsewhere'"
expect_fail 1 "baseline with no common site" "no call site and size class in common" -- \
  bin/papanalyze -q --baseline "$tmp/fixed.db" -o "$tmp/x.db" "$tmp/auto/traces.otf2"
[ ! -e "$tmp/x.db" ] || fail "a refused analysis left $tmp/x.db"
echo "ok: auto's choices in papanalyze"
