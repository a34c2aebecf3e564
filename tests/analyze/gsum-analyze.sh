#!/bin/sh
# gsum-analyze.sh - a traced Gsum run analysed end to end, checked against
# invariants that hold for any run (and against Gsum's own clock):
#
#  - every operation has every thread's visit, and each wrapper exactly
#    fan-in visits per operation;
#  - per thread, the mean stages add up to the mean time per allreduce (the
#    stages of one operation telescope to t4 - t1 at the entry wrapper); each
#    thread's time lies within Gsum's own min..max over threads (10 % slack)
#    and their mean within 10 % of Gsum's mean;
#  - at every gred the last arrival departs first in most operations
#    (the paper's Table 1);
#  - the report's formats: text has every table, JSON is valid, CSV has them.
set -eu
. tests/lib.sh

PA=bin/papanalyze
T=$(mktemp -d /tmp/pa-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=3000 WARM=20

q() { sqlite3 "$T/tr/traces.db" "$1"; }

# shellcheck disable=SC2046 # mpirun_cmd is a word list
$(mpirun_cmd) -np 2 bin/gsum -p pathmaps/demo.pathmap -n $N -w $WARM --trace "$T/tr" \
    > "$T/gsum.out" 2>&1 || { cat "$T/gsum.out" >&2; fail "gsum --trace failed"; }
# Gsum alternates 2 instances, so --skip WARM/2 leaves exactly the measured loop.
$PA --skip $((WARM / 2)) "$T/tr/traces.otf2" > "$T/report.txt" 2> "$T/err" \
    || { cat "$T/err" >&2; fail "papanalyze failed"; }

# operations and visits
ops=$(q "SELECT COUNT(*) FROM ops")
[ "$ops" -eq $((N + WARM)) ] || fail "ops: expected $((N + WARM)), got $ops"
used=$(q "SELECT COUNT(*) FROM ops WHERE used")
[ "$used" -eq $N ] || fail "used ops: expected $N, got $used"
events=$(sed -n 's/^# trace: .*: \([0-9]*\) events from.*/\1/p' "$T/gsum.out")
[ "$(q "SELECT value FROM meta WHERE key = 'events'")" = "$events" ] \
    || fail "events in meta differ from Gsum's count ($events)"
bad=$(q "SELECT COUNT(*) FROM (SELECT t.thread, COUNT(p.op) AS k FROM threads t
          LEFT JOIN pap_threads p ON p.thread = t.thread GROUP BY t.thread) WHERE k <> $ops")
[ "$bad" -eq 0 ] || fail "$bad threads miss visits of some operations"
bad=$(q "SELECT COUNT(*) FROM (SELECT v.node, COUNT(*) AS k FROM visits v GROUP BY v.node) c
          JOIN wrappers w USING (node) WHERE c.k <> w.fanin * $ops")
[ "$bad" -eq 0 ] || fail "$bad wrappers without fan-in visits per operation"

# stages add up to the time per allreduce
bad=$(q "SELECT COUNT(*) FROM thread_parts p JOIN stats s ON s.scope = 'thread'
          AND s.metric = 'total' AND s.thread = p.thread AND s.bytes = p.bytes
          WHERE ABS(p.total_with_wait - s.mean) > 1e-6 * s.mean + 0.01")
[ "$bad" -eq 0 ] || fail "$bad threads whose stage means do not add up to their total"
# Gsum's row: size, the threads' mean time per allreduce, its minimum and
# maximum over threads.  A thread's own mean may differ from the mean of all
# threads by more than 10 % (threads behind a proxy are slower), so each
# thread is held to Gsum's [min, max] and only their mean to Gsum's mean.
# shellcheck disable=SC2046 # three numbers, split on purpose
set -- $(awk '$1 == 4 && NF == 5 { print $2, $3, $4 }' "$T/gsum.out")
[ $# = 3 ] || { cat "$T/gsum.out" >&2; fail "no time per allreduce in Gsum's output"; }
gsum_us=$1 gsum_min=$2 gsum_max=$3
off=$(q "SELECT COUNT(*) FROM stats WHERE scope = 'thread' AND metric = 'total'
          AND (mean / 1e3 < 0.9 * $gsum_min OR mean / 1e3 > 1.1 * $gsum_max)")
[ "$off" -eq 0 ] || { q "SELECT thread, mean FROM stats WHERE metric = 'total'" >&2;
    fail "$off threads' time per allreduce is outside Gsum's [$gsum_min, $gsum_max] us +- 10 %"; }
off=$(q "SELECT ABS(AVG(mean) / 1e3 - $gsum_us) > 0.10 * $gsum_us FROM stats
          WHERE scope = 'thread' AND metric = 'total'")
[ "$off" -eq 0 ] || { q "SELECT thread, mean FROM stats WHERE metric = 'total'" >&2;
    fail "the threads' mean time per allreduce is more than 10 % off Gsum's $gsum_us us"; }

# p2p is the exact nearest-rank median (rank ceil(n / 2)) of the proxy's
# one-way times over the used operations: N of them, more than the 1024 that
# a stats series keeps exactly
p2p_sql=$(q "WITH x AS (SELECT w.down AS v FROM wrapper_ops w JOIN ops o USING (instance, op)
               WHERE w.kind = 'proxy' AND o.used ORDER BY v)
             SELECT v FROM x LIMIT 1 OFFSET ((SELECT COUNT(*) FROM x) + 1) / 2 - 1")
[ "$(q "SELECT ns = $p2p_sql AND source = 'proxy' FROM p2p")" = 1 ] \
    || fail "p2p $(q "SELECT ns FROM p2p") is not the median of the one-way times, $p2p_sql"
# the last arrival at a gred (arrival = fan-in) is the visit that continued:
# the parent's visit through this gred is on its location and nested in it
bad=$(q "SELECT COUNT(*) FROM visits v JOIN wrappers w ON w.node = v.node AND w.kind = 'gred'
          JOIN contributors c ON c.node = w.parent AND c.child = w.node
          JOIN visits p ON p.instance = v.instance AND p.op = v.op AND p.node = w.parent
           AND p.contributor = c.contributor
          WHERE v.arrival = w.fanin
           AND (p.location <> v.location OR p.t1 < v.t1 OR p.t4 > v.t4)")
[ "$bad" -eq 0 ] || fail "$bad gred visits with arrival = fan-in did not continue into the parent"
# Table 1: the last arrival departs first in most operations, at every gred
bad=$(q "SELECT COUNT(*) FROM wrappers w WHERE w.kind = 'gred' AND
          (SELECT percent FROM order_matrix m WHERE m.node = w.node AND m.arrival = w.fanin
           AND m.departure = 1) <= 50")
[ "$bad" -eq 0 ] || { q "SELECT * FROM order_matrix" >&2; fail "$bad greds where the last arrival does not mostly depart first"; }

# the report
for t in "Threads, fastest first" "Parts of the tree per thread" "Stages of thread" \
         "Hotspots" "Arrival x departure order at h0" "Arrival x departure order at cr0" \
         "Whole tree" "Arrival patterns"; do
    grep -qF "$t" "$T/report.txt" || { cat "$T/report.txt" >&2; fail "report without '$t'"; }
done
$PA --format json "$T/tr/traces.db" > "$T/report.json" || fail "JSON report failed"
[ "$(sqlite3 :memory: "SELECT json_valid(readfile('$T/report.json'))")" = 1 ] \
    || { head -c 2000 "$T/report.json" >&2; fail "the JSON report is not valid JSON"; }
$PA --format csv --thread 2 --wrapper cr0 "$T/tr/traces.db" > "$T/report.csv" || fail "CSV report failed"
expect_count "$T/report.csv" 1 "# table: stages"
expect_count "$T/report.csv" 1 "# table: orders/cr0"
grep -q "orders/h0" "$T/report.csv" && fail "--wrapper cr0 still printed h0's table"
echo "gsum-analyze: $ops operations, $(q "SELECT COUNT(*) FROM visits") visits; Gsum $gsum_us us per allreduce"
