#!/bin/sh
# arrivals.sh - where a PAP-aware algorithm node's arrival times came from,
# and the estimation error, from trace to report (docs/trace-format.md,
# "Arrival sources"; docs/analysis-db.md, "Arrival estimates").
#
#   sh tests/analyze/arrivals.sh        (from the repository root, after make)
#
# 1. build/tests/synth_trace pap: a node with arrival=edge over hosts A, B, C,
#    5 operations whose arrival reports (source used, missing host, error,
#    lead, wait) are a table in tests/oracles/synth_trace.c.  trace_check
#    accepts it; papanalyze stores every report in algo_arrivals, and the
#    views algo_arrival_sources and algo_arrival_stats and the report's
#    "Arrival estimates" tables hold the counts and distributions worked out
#    by hand below (nearest rank: the k-th smallest of n, k = ceil(p n)).
# 2. The same trace damaged: a report missing (rank 2, op 2), or asking
#    history where the node says edge: papanalyze and trace_check refuse it.
# 3. Real runs: Gsum traced through pathmaps/local/algo/slt-3x2.pathmap and
#    prr-4x2.pathmap (arrival=history), one MPI job each.  trace_check accepts
#    the archives; otf2-print, an independent reader, gives per algorithm
#    location one PARAMETER_STRING per operation, asked history, used equal
#    on each instance's first operation and history on every other, no
#    missing host, error or lead, a wait; the database and the report agree
#    with those counts.
# 4. The same with arrival=edge: the invariants that hold whatever the
#    estimator does.
set -eu
. tests/lib.sh

PAPANALYZE=${PAPANALYZE:-bin/papanalyze}
SYNTH_TRACE=${SYNTH_TRACE:-build/tests/synth_trace}
TRACE_CHECK=${TRACE_CHECK:-build/tests/trace_check}
ME=arrivals.sh

die() {
    echo "$ME: FAIL: $*" >&2
    exit 1
}

for prog in "$PAPANALYZE" "$SYNTH_TRACE" "$TRACE_CHECK" bin/gsum; do
    [ -x "$prog" ] || die "$prog is not built (run make first)"
done
command -v sqlite3 >/dev/null 2>&1 || die "the sqlite3 command-line shell is not installed"
command -v otf2-print >/dev/null 2>&1 || die "otf2-print is not installed"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/arrivals.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
. tests/analyze/expect.sh

# ---- 1. the synthetic trace ---------------------------------------------------
"$SYNTH_TRACE" --pathmap-out "$TMP/pap.pathmap" pap "$TMP/pap" ||
    die "synth_trace pap failed"
"$TRACE_CHECK" --ops 5 "$TMP/pap" "$TMP/pap.pathmap" > "$TMP/tc" 2>&1 ||
    { cat "$TMP/tc" >&2; die "trace_check refuses the pap scenario"; }
"$PAPANALYZE" --skip 0 --quiet "$TMP/pap/traces.otf2" > /dev/null 2> "$TMP/err" ||
    { cat "$TMP/err" >&2; die "papanalyze pap failed"; }
DB=$TMP/pap/traces.db

# Every report, as the table lists it (op, rank, host, asked, source,
# missing rank and host (B = host 1, C = host 2), error, lead, wait); t is the
# report's time, t1 + 20 of its rank's visit: r of algo's op 0 (A 500,
# B 800, C 200) + 10000 op + 20.
CTX="algo_arrivals rows"
expect "SELECT COUNT(*), COUNT(error_ns), COUNT(lead_ns), COUNT(missing) FROM algo_arrivals" \
       "15|13|13|6"
expect "SELECT op, rank, host, asked, source, missing, missing_host, error_ns, lead_ns, wait_ns, t
        FROM algo_arrivals WHERE op = 0 AND rank = 2" "0|2|2|edge|equal|2|2|NULL|NULL|100|220"
expect "SELECT source, missing, missing_host, error_ns, lead_ns, wait_ns, t
        FROM algo_arrivals WHERE op = 3 AND rank = 0" "history|1|1|150|3000|40|30520"
expect "SELECT source, missing, error_ns, lead_ns, wait_ns, t FROM algo_arrivals
        WHERE op = 2 AND rank = 1" "edge|NULL|700|100|5|20820"
expect "SELECT source, error_ns, lead_ns FROM algo_arrivals WHERE op = 3 AND rank = 1" \
       "history|NULL|NULL"
expect "SELECT GROUP_CONCAT(error_ns, ',') FROM (SELECT error_ns FROM algo_arrivals
        WHERE rank = 0 ORDER BY op)" "300,100,-50,150,200"

# Sources per host: every host equal in op 0, history in op 3, edge in 1, 2, 4;
# 2 fallbacks, the missing hosts C (op 0) and B (op 3).
CTX="algo_arrival_sources"
for r in 0 1 2; do
    expect "SELECT n, asked, equal, history, edge, fallbacks, missing, missing_hosts
            FROM algo_arrival_sources WHERE rank = $r" "5|edge|1|1|3|2|2|B,C"
done

# Distributions (node 0, 4-byte tuples):
CTX="algo_arrival_stats error"
# A: -50 100 150 200 300: mean 700/5; median k=3; p10 k=1; p90 k=5
expect "SELECT n, mean, median, p10, p90, min, max, max_abs FROM algo_arrival_stats
        WHERE metric = 'error' AND rank = 0" "5|700 / 5|150|-50|300|-50|300|300"
# B: -400 -200 -100 700: mean 0/4; median k=2; p10 k=1; p90 k=ceil(3.6)=4
expect "SELECT n, mean, median, p10, p90, max_abs FROM algo_arrival_stats
        WHERE metric = 'error' AND rank = 1" "4|0|-200|-400|700|700"
# C: -300 0 90 250: mean 40/4
expect "SELECT n, mean, median, p10, p90, max_abs FROM algo_arrival_stats
        WHERE metric = 'error' AND rank = 2" "4|40 / 4|0|-300|250|300"
# all 13: -400 -300 -200 -100 -50 0 90 100 150 200 250 300 700, sum 740;
# median k=7; p10 k=ceil(1.3)=2; p90 k=ceil(11.7)=12
expect "SELECT n, mean, median, p10, p90, min, max, max_abs, host FROM algo_arrival_stats
        WHERE metric = 'error' AND rank IS NULL" "13|740 / 13|90|-300|300|-400|700|700|NULL"
CTX="algo_arrival_stats lead"
expect "SELECT n, mean, min FROM algo_arrival_stats WHERE metric = 'lead' AND rank = 0" \
       "5|(1000 + 2000 + 2500 + 3000 + 2200) / 5|1000"
expect "SELECT n, mean, min FROM algo_arrival_stats WHERE metric = 'lead' AND rank = 1" \
       "4|(500 + 1500 + 100 + 1200) / 4|100"
expect "SELECT n, mean, min FROM algo_arrival_stats WHERE metric = 'lead' AND rank IS NULL" \
       "13|(10700 + 3300 + 3300) / 13|100"
CTX="algo_arrival_stats wait"
# C: 0 0 100 200 300; all 15: 0 0 5 5 5 5 5 10 20 30 40 50 100 200 300
expect "SELECT n, mean, median, p90, max FROM algo_arrival_stats
        WHERE metric = 'wait' AND rank = 2" "5|600 / 5|100|300|300"
expect "SELECT n, mean, median, p10, p90, max FROM algo_arrival_stats
        WHERE metric = 'wait' AND rank IS NULL" "15|(150 + 25 + 600) / 15|10|0|200|300"

# The report: text, in microseconds (2 decimals), rows by hand from the above.
"$PAPANALYZE" --skip 0 "$DB" > "$TMP/report.txt" 2> "$TMP/err" ||
    { cat "$TMP/err" >&2; die "papanalyze report failed"; }
row() {   # row TITLE_PATTERN FIRST_FIELDS...: the table's row that starts so
    awk -v t="$1" -v k="$2" 'index($0, t) == 1 { on = 1; next } on && /^$/ { on = 0 }
        on && index($0 " ", k " ") == 1 { $1 = $1; print; exit }' "$TMP/report.txt"
}
want_row() {
    got=$(row "$1" "$2")
    [ "$got" = "$3" ] || die "report, table '$1': expected row '$3', got '$got'"
}
SRC="Arrival estimates: operations by the source"
ERR="Arrival estimates: estimation error"
want_row "$SRC" "0" "0 A 5 edge 1 1 3 2 B,C 0.03 0.03 0.05 0.05"
want_row "$SRC" "2" "2 C 5 edge 1 1 3 2 B,C 0.12 0.10 0.30 0.30"
want_row "$ERR" "0" "0 A 5 0.14 0.15 -0.05 0.30 0.30 2.14 1.00"
want_row "$ERR" "1" "1 B 4 0.00 -0.20 -0.40 0.70 0.70 0.83 0.10"
want_row "$ERR" "-" "- all 13 0.06 0.09 -0.30 0.30 0.70 1.33 0.10"
for fmt in csv json; do
    "$PAPANALYZE" --skip 0 --format $fmt "$DB" > "$TMP/report.$fmt" 2> "$TMP/err" ||
        { cat "$TMP/err" >&2; die "papanalyze --format $fmt failed"; }
    for t in arrival_sources arrival_errors; do
        grep -q "$t" "$TMP/report.$fmt" || die "report --format $fmt: no table $t"
    done
done
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/report.json" ||
    die "report --format json is not valid JSON"
echo "$ME: pap: $NCHECKS database checks and the report's rows as worked out by hand"

# ---- 2. damaged ---------------------------------------------------------------
for d in "noarrival|without its paptree::arrival event|expected 1 paptree::arrival event" \
         "asked|not that operation's, or a source|(paptree::arrival) asked"; do
    mode=${d%%|*} rest=${d#*|}
    pa_msg=${rest%%|*} tc_msg=${rest#*|}
    "$SYNTH_TRACE" --damage "$mode" pap "$TMP/d-$mode" || die "synth_trace --damage $mode failed"
    if "$PAPANALYZE" --skip 0 --quiet "$TMP/d-$mode/traces.otf2" > /dev/null 2> "$TMP/err"; then
        die "papanalyze accepted a trace damaged with $mode"
    fi
    grep -qF "$pa_msg" "$TMP/err" || { cat "$TMP/err" >&2; die "$mode: papanalyze's message"; }
    [ ! -e "$TMP/d-$mode/traces.db" ] || die "$mode: papanalyze left a database"
    if "$TRACE_CHECK" --ops 5 "$TMP/d-$mode" "$TMP/pap.pathmap" > "$TMP/tc" 2>&1; then
        die "trace_check accepted a trace damaged with $mode"
    fi
    grep -qF "$tc_msg" "$TMP/tc" || { cat "$TMP/tc" >&2; die "$mode: trace_check's message"; }
done
echo "$ME: damaged (noarrival, asked): refused by papanalyze and trace_check"

# ---- 3. real runs through PAP-aware nodes with arrival=history ---------------
# -n 30 -w 2 -s 4,256: 64 operations per thread, alternating 2 instances (32
# each, op 0..31 on each).  One report per operation on each algorithm
# location: 64, of which 2 (op 0 of each instance) used equal.
MPIRUN=$(mpirun_cmd)
for pm in slt-3x2 prr-4x2; do
    P=$(grep -c '^host ' "pathmaps/local/algo/$pm.pathmap")
    K=64
    timeout 120 $MPIRUN -np "$P" bin/gsum -p "pathmaps/local/algo/$pm.pathmap" -n 30 -w 2 \
        -s 4,256 --trace "$TMP/$pm" > "$TMP/$pm.out" 2>&1 ||
        { cat "$TMP/$pm.out" >&2; die "$pm: traced gsum failed"; }
    "$TRACE_CHECK" --ops $K "$TMP/$pm" "pathmaps/local/algo/$pm.pathmap" > "$TMP/tc" 2>&1 ||
        { cat "$TMP/tc" >&2; die "$pm: trace_check"; }
    otf2-print "$TMP/$pm/traces.otf2" > "$TMP/$pm.print" 2> "$TMP/perr" && [ ! -s "$TMP/perr" ] ||
        { cat "$TMP/perr" >&2; die "$pm: otf2-print"; }
    # per location: reports, used equal / history, asked history, with an
    # op attribute, a wait, and no missing host, error or lead
    awk '$1 == "PARAMETER_STRING" { loc = $2; n[loc]++; v = $0
            sub(/.*Value: "/, "", v); sub(/".*/, "", v); used[loc, v]++; getline
            if ($0 !~ /"paptree::asked" <[0-9]+>; STRING; "history"/ ||
                $0 !~ /"paptree::op" <0>; UINT64; [0-9]+\)/ ||
                $0 !~ /"paptree::wait_ns" <[0-9]+>; INT64; [0-9]+\)/ ||
                $0 ~ /missing|error_ns|lead_ns/) bad++ }
         END { for (l in n) print l, n[l], used[l, "equal"] + 0, used[l, "history"] + 0
               print "bad", bad + 0 }' "$TMP/$pm.print" | sort > "$TMP/$pm.counts"
    {
        for r in $(seq 0 $((P - 1))); do echo "$((r * 65536 + 2)) $K 2 $((K - 2))"; done
        echo "bad 0"
    } | sort > "$TMP/$pm.want"
    diff "$TMP/$pm.counts" "$TMP/$pm.want" > "$TMP/diff" ||
        { cat "$TMP/diff" >&2; die "$pm: otf2-print's reports per location (<) differ from the expected (>)"; }
    "$PAPANALYZE" --skip 0 --quiet "$TMP/$pm/traces.otf2" > /dev/null 2> "$TMP/err" ||
        { cat "$TMP/err" >&2; die "$pm: papanalyze failed"; }
    DB=$TMP/$pm/traces.db CTX="$pm"
    expect "SELECT COUNT(*), SUM(source = 'equal'), SUM(source = 'history'),
            COUNT(error_ns) + COUNT(lead_ns) + COUNT(missing), MIN(wait_ns) >= 0
            FROM algo_arrivals WHERE asked = 'history'" "$((P * K))|$((2 * P))|$((P * (K - 2)))|0|1"
    expect "SELECT COUNT(*) FROM algo_arrivals a JOIN algo_visits v ON v.instance = a.instance
            AND v.op = a.op AND v.rank = a.rank WHERE a.t BETWEEN v.t1 AND v.t4" "$((P * K))"
    # per size, 32 operations per host (2 instances x 16), op 0 in the 4-byte half
    expect "SELECT COUNT(*), SUM(n), SUM(equal), SUM(history), SUM(fallbacks)
            FROM algo_arrival_sources WHERE bytes = 4" "$P|$((P * 32))|$((2 * P))|$((P * 30))|$((2 * P))"
    "$PAPANALYZE" --skip 0 "$TMP/$pm/traces.db" > "$TMP/$pm.report" 2> "$TMP/err" ||
        { cat "$TMP/err" >&2; die "$pm: report failed"; }
    n=$(grep -c '^Arrival estimates: ' "$TMP/$pm.report")
    [ "$n" -eq 4 ] || die "$pm: expected 4 'Arrival estimates' sections (2 per size), got $n"
    # history makes no estimates: the error section says so instead of a
    # table of zero counts (one per size, right below its title).
    n=$(awk '/^Arrival estimates: estimation error/ { getline; print }' "$TMP/$pm.report" |
        grep -c '^none: arrival=history and equal make no estimates' || true)
    [ "$n" -eq 2 ] || { cat "$TMP/$pm.report" >&2; die "$pm: the estimation error sections do not say history makes none"; }
    echo "$ME: $pm: $((P * K)) arrival reports, as otf2-print shows them; database and report agree"
done

# ---- 4. a real run with arrival=edge ------------------------------------------
# prr-4x2 with arrival=edge, run by gsum, whose threads never call edge():
# no host ever has an estimate, so every operation falls back (docs/pap.md)
# to the node's previous operation's arrivals, whatever its instance; only
# the node's first operation (instance 0, op 0) has none and is equal.
# trace_check (one report per operation and host, sources no better than
# edge, a missing host only on a fallback), otf2-print shows 64 reports per
# algorithm location, all asking edge, and the database has one row per
# report: none made from edge, each naming rank 0 (the first host) as the
# one without an estimate, and equal exactly on the 4 hosts' first ops.
pm=$TMP/prr-edge.pathmap
sed 's/arrival=history/arrival=edge/' pathmaps/local/algo/prr-4x2.pathmap > "$pm"
grep -q 'arrival=edge' "$pm" || die "prr-4x2.pathmap has no arrival=history to change"
timeout 120 $MPIRUN -np 4 bin/gsum -p "$pm" -n 30 -w 2 -s 4,256 --trace "$TMP/edge" \
    > "$TMP/edge.out" 2>&1 || { cat "$TMP/edge.out" >&2; die "edge: traced gsum failed"; }
"$TRACE_CHECK" --ops 64 "$TMP/edge" "$pm" > "$TMP/tc" 2>&1 ||
    { cat "$TMP/tc" >&2; die "edge: trace_check"; }
otf2-print "$TMP/edge/traces.otf2" 2>&1 | awk '$1 == "PARAMETER_STRING" { n[$2]++; getline
        if ($0 !~ /"paptree::asked" <[0-9]+>; STRING; "edge"/) bad++ }
    END { for (l in n) print l, n[l]; print "bad", bad + 0 }' | sort > "$TMP/edge.counts"
printf '%s\n' "2 64" "65538 64" "131074 64" "196610 64" "bad 0" | sort |
    diff "$TMP/edge.counts" - || die "edge: otf2-print's reports per location (<) differ from the expected (>)"
"$PAPANALYZE" --skip 0 --quiet "$TMP/edge/traces.otf2" > /dev/null 2> "$TMP/err" ||
    { cat "$TMP/err" >&2; die "edge: papanalyze failed"; }
DB=$TMP/edge/traces.db CTX=edge
expect "SELECT COUNT(*), SUM(asked = 'edge'), SUM(source = 'edge'), SUM(missing = 0),
        SUM(source = 'equal'), SUM(source = 'equal' AND instance = 0 AND op = 0)
        FROM algo_arrivals" "256|256|0|256|4|4"
"$PAPANALYZE" --skip 0 "$TMP/edge/traces.db" > "$TMP/edge.report" 2> "$TMP/err" ||
    { cat "$TMP/err" >&2; die "edge: report failed"; }
n=$(awk '/^Arrival estimates: estimation error/ { getline; print }' "$TMP/edge.report" |
    grep -c '^none: no operation was planned from edge() estimates' || true)
[ "$n" -eq 2 ] || { cat "$TMP/edge.report" >&2; die "edge: the estimation error sections do not say none was made"; }
echo "$ME: prr-4x2 with arrival=edge: 256 reports asking edge, trace_check and the database agree"
