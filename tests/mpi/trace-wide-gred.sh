#!/bin/sh
# The default --trace-mem works for the host it runs on: a traced Gsum on
# one host whose gred has 120 threads (120 locations need more than the
# 64 MiB that used to be the default: "--trace-mem 67108864 is too small
# for the 120 threads") succeeds without --trace-mem, trace_check agrees,
# and papanalyze analyses it and reports the 120-contributor gred.  An
# explicit --trace-mem below the minimum is still refused, saying the
# minimum, and that minimum works.  Oversubscribed (120 threads on the
# machine's cores): slow per operation, but few operations.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
CHECK=build/tests/trace_check
PM=tests/pathmap/good/wide-gred-1x120.pathmap
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$CHECK" ] || fail "$CHECK is missing (make all)"

# -n 50 -w 10: 60 operations per thread.
timeout 120 $MPIRUN -np 1 bin/gsum -p $PM -n 50 -w 10 --trace "$tmp/tr" > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "traced gsum with the default --trace-mem failed"; }
# 120 threads x 60 operations x 2 events in 'wide'; the last arrival also
# enters root: 60 x 2 more.  No service thread (one host).
expect_count "$tmp/out" 1 "# trace: $tmp/tr/traces.otf2: 14520 events from 120 threads"
"$CHECK" --ops 60 "$tmp/tr" $PM > "$tmp/tc" 2>&1 || { cat "$tmp/tc" >&2; fail "trace_check"; }

# papanalyze: the database, with the gred's 120 contributors, then the report.
timeout 120 bin/papanalyze --skip 5 --no-report "$tmp/tr/traces.otf2" > "$tmp/pa.out" 2>&1 ||
  { cat "$tmp/pa.out" >&2; fail "papanalyze failed on the 120-thread trace"; }
[ "$(sqlite3 "$tmp/tr/traces.db" "SELECT fanin FROM wrappers WHERE name = 'wide'")" = 120 ] ||
  fail "papanalyze: wrapper 'wide' does not have fan-in 120"
[ "$(sqlite3 "$tmp/tr/traces.db" "SELECT COUNT(*) FROM threads")" = 120 ] ||
  fail "papanalyze: expected 120 threads"
[ "$(sqlite3 "$tmp/tr/traces.db" "SELECT COUNT(*) FROM visits v JOIN wrappers w USING (node)
      WHERE w.name = 'wide'")" = 7200 ] || fail "papanalyze: expected 120 x 60 visits of 'wide'"
# The report of a 120-contributor gred prints: Table 1 comes in blocks of
# ten departure columns.
timeout 120 bin/papanalyze "$tmp/tr/traces.db" > "$tmp/report" 2> "$tmp/pa.err" ||
  { cat "$tmp/pa.err" >&2; fail "papanalyze's report of the 120-contributor gred failed"; }
grep -q "wide" "$tmp/report" || { cat "$tmp/report" >&2; fail "the report does not show 'wide'"; }
expect_count "$tmp/report" 1 "departures 111-120 of 120"
# The subtree of 'wide' has 120 threads, over the 64 for which papanalyze
# computes subtree_orders (docs/analysis-db.md): the table has no rows for
# it, and the report says why its last/first columns are "-".
[ "$(sqlite3 "$tmp/tr/traces.db" "SELECT COUNT(*) FROM subtree_orders")" = 0 ] ||
  fail "subtree_orders has rows for a subtree of 120 threads"
expect_count "$tmp/report" 1 "last / departing first: - (not computed for subtrees over 64 threads)"

# An explicit --trace-mem below the minimum: refused, with the minimum,
# which is then enough.
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum -p $PM -n 50 -w 10 --trace "$tmp/m" --trace-mem 64M
expect_count "$tmp/out" 1 "gsum: rank 0: error: --trace-mem 67108864 is too small for the 120 locations (threads, links, algorithm node) of host host0: at least "
min=$(sed -n 's/.*too small for the 120 locations (threads, links, algorithm node) of host host0: at least \([0-9]*\) bytes.*/\1/p' "$tmp/out")
[ -n "$min" ] || fail "no minimum in the message"
timeout 120 $MPIRUN -np 1 bin/gsum -p $PM -n 50 -w 10 --trace "$tmp/m" --trace-mem "$min" \
  > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "--trace-mem $min (the minimum printed) failed"; }
"$CHECK" --ops 60 "$tmp/m" $PM > "$tmp/tc" 2>&1 || { cat "$tmp/tc" >&2; fail "trace_check (minimum)"; }
echo "trace-wide-gred: ok"
