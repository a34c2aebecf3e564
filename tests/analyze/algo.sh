#!/bin/sh
# algo.sh - bin/papanalyze on a hand-made trace of an algorithm node, against
# values computed by hand.
#
#   sh tests/analyze/algo.sh            (from the repository root, after make)
#
# build/tests/synth_trace algo (tests/oracles/synth_trace.c, its table "algo")
# writes a tree whose root is an algorithm node over hosts A, B, C (ranks 0,
# 1, 2) with its MPI collective and point-to-point events.  Every expected
# value below is worked out from that table and the definitions of
# docs/analysis-db.md ("Algorithm nodes"), with the arithmetic next to it.
# Times are ns; "r" is the table's time, which papanalyze must store (the
# earliest event is at r = 0 after host B's clock correction).
#
# Stops at the first difference.  Environment: PAPANALYZE, SYNTH_TRACE, KEEP=1
# as in synthetic.sh.
set -eu

PAPANALYZE=${PAPANALYZE:-bin/papanalyze}
SYNTH_TRACE=${SYNTH_TRACE:-build/tests/synth_trace}
ME=algo.sh

die() {
    echo "$ME: FAIL: $*" >&2
    exit 1
}

for prog in "$PAPANALYZE" "$SYNTH_TRACE"; do
    [ -x "$prog" ] || die "$prog is not built (run make first)"
done
command -v sqlite3 >/dev/null 2>&1 || die "the sqlite3 command-line shell is not installed"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/algo.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
    echo "$ME: keeping $TMP"
else
    trap 'rm -rf "$TMP"' EXIT
fi

# ---- helpers -----------------------------------------------------------------

. "$(dirname "$0")/expect.sh"

analyze() {
    dir=$TMP/algo-skip$1
    CTX="algo --skip $1"
    "$SYNTH_TRACE" algo "$dir" || die "[$CTX] $SYNTH_TRACE algo failed"
    "$PAPANALYZE" --skip "$1" --quiet "$dir/traces.otf2" >"$dir.out" 2>&1 ||
        die "[$CTX] $PAPANALYZE --skip $1 failed: $(tail -5 "$dir.out")"
    DB=$dir/traces.db
    [ -f "$DB" ] || die "[$CTX] papanalyze wrote no $DB"
}

# =============================================================================
# algo, --skip 0 (both operations used)
#
#   nodes        across 0 (algo, hosts A,B,C = ranks 0,1,2, root 0), gA 1 (gred,
#                A), gB 2 (gred, B); across's contributors 0 = gA, 1 = gB,
#                2 = thread 4 (on C, entering across directly)
#   locations    A: 0, 1 = threads 0, 1, 2 = algo A; B: 65536, 65537 =
#                threads 2, 3, 65538 = algo B; C: 131072 = thread 4 (no
#                events), 131073 = algo C
#   p2p          no proxies: the median transfer time of the node's messages of
#                the tuple's size (4 bytes: all 8), receive done - the later
#                of the two posts: op 0 1100-900 = 200, 1400-1150 = 250,
#                1800-1500 = 300, 1900-1600 = 300; op 1 10700-10500 = 200,
#                11250-11000 = 250, 11550-11300 = 250, 11600-11310 = 290;
#                sorted 200 200 250 250 250 290 300 300, lower middle 250
#                (without them it would be the clock sync's 400)
# =============================================================================

analyze 0

# ---- definitions
expect "SELECT kind, host, parent, level, fanin, part, nhosts FROM wrappers WHERE node = 0" \
    "algo|0|NULL|0|3|algo|3"
expect "SELECT algo, bcast, root, arrival, nranks FROM algo_nodes" \
    "binomial-reduce|binomial-bcast|0|equal|3"
expect "SELECT group_concat(rank || ':' || host || ':' || contributor || ':' || location, ',')
        FROM (SELECT * FROM algo_ranks ORDER BY rank)" "0:0:0:2,1:1:1:65538,2:2:2:131073"
expect "SELECT group_concat(location || ':' || role || ':' || visits, ',')
        FROM (SELECT * FROM locations WHERE host = 2 ORDER BY location)" \
    "131072:compute:0,131073:algo:2"
# thread 4's path is the algorithm node alone, through contributor 2
expect "SELECT enter, nstages FROM threads WHERE thread = 4" "0|1"
expect "SELECT group_concat(node || ':' || contributor, ',') FROM paths WHERE thread = 4" "0:2"
expect "SELECT group_concat(node || ':' || contributor, ',')
        FROM (SELECT * FROM paths WHERE thread = 2 ORDER BY step)" "2:0,0:1"

# ---- algo_visits: t1, t4, latency = t4 - t1, and Proficz's a, f, e relative
# to the operation's first arrival at the node (op 0: C at 200; op 1: A at 10200)
expect "SELECT t1, t4, latency, a, f, e, host FROM algo_visits WHERE op = 0 AND rank = 0" \
    "500|2900|2400|300|2700|2400|0"
expect "SELECT t1, t4, latency, a, f, e, host FROM algo_visits WHERE op = 0 AND rank = 1" \
    "800|3000|2200|600|2800|2200|1"
expect "SELECT t1, t4, latency, a, f, e, host FROM algo_visits WHERE op = 0 AND rank = 2" \
    "200|2700|2500|0|2500|2500|2"
expect "SELECT t1, t4, latency, a, f, e FROM algo_visits WHERE op = 1 AND rank = 0" \
    "10200|12500|2300|0|2300|2300"
expect "SELECT t1, t4, latency, a, f, e FROM algo_visits WHERE op = 1 AND rank = 1" \
    "10450|12620|2170|250|2420|2170"
expect "SELECT t1, t4, latency, a, f, e FROM algo_visits WHERE op = 1 AND rank = 2" \
    "10900|12400|1500|700|2200|1500"

# ---- algo_ops: t0, arrival spread (max a), span (max f), average elapsed time
# (mean e over the hosts), imbalance factor = spread / p2p
expect "SELECT bytes, used, t0, arrival_spread, span, avg_elapsed, imbalance FROM algo_ops
        WHERE op = 0" "4|1|200|600|2800|(2400 + 2200 + 2500) / 3|600 / 250"
expect "SELECT bytes, used, t0, arrival_spread, span, avg_elapsed, imbalance FROM algo_ops
        WHERE op = 1" "4|1|10200|700|2420|(2300 + 2170 + 1500) / 3|700 / 250"
expect "SELECT ns, source FROM p2p WHERE bytes = 4" "250|algo"

# ---- algo_msgs: one row per message; late = max(0, send post - receive post)
M="round, src, dst, src_host, dst_host, send_step, recv_step, bytes, send_post, send_done,
   recv_post, recv_done, late"
expect "SELECT $M FROM algo_msgs WHERE op = 0 AND round = 0" \
    "0|1|0|1|0|0|0|4|900|1000|600|1100|900 - 600"
expect "SELECT $M FROM algo_msgs WHERE op = 0 AND round = 1" \
    "1|2|0|2|0|0|1|4|300|1500|1150|1400|0"
expect "SELECT $M FROM algo_msgs WHERE op = 0 AND round = 2 AND dst = 1" \
    "2|0|1|0|1|2|1|4|1500|1700|1100|1800|1500 - 1100"
expect "SELECT $M FROM algo_msgs WHERE op = 0 AND round = 2 AND dst = 2" \
    "2|0|2|0|2|3|1|4|1510|1720|1600|1900|0"
expect "SELECT group_concat(late, ',') FROM (SELECT late FROM algo_msgs WHERE op = 1
        ORDER BY round, dst)" "200,250,650,60"
expect "SELECT COUNT(*) FROM algo_msgs" "8"

# ---- algo_rounds: per (op, round, rank) the first post, last completion,
# Late Sender total (late) and largest (wait) of its receives
R="nsend, nrecv, first_post, last_done, late, wait"
expect "SELECT $R FROM algo_rounds WHERE op = 0 AND round = 0 AND rank = 0" "0|1|600|1100|300|300"
expect "SELECT $R FROM algo_rounds WHERE op = 0 AND round = 0 AND rank = 1" "1|0|900|1000|0|0"
expect "SELECT $R FROM algo_rounds WHERE op = 0 AND round = 1 AND rank = 2" "1|0|300|1500|0|0"
expect "SELECT $R FROM algo_rounds WHERE op = 0 AND round = 2 AND rank = 0" "2|0|1500|1720|0|0"
expect "SELECT $R FROM algo_rounds WHERE op = 0 AND round = 2 AND rank = 1" "0|1|1100|1800|400|400"
expect "SELECT $R FROM algo_rounds WHERE op = 1 AND round = 2 AND rank = 2" "0|1|11250|11600|60|60"
# no rank 1 in round 1, no rank 2 in round 0: 7 rows per operation
expect "SELECT COUNT(*) FROM algo_rounds WHERE op = 1" "7"

# ---- views: means over the used operations
expect "SELECT n, latency, a, f, late FROM algo_host_means WHERE rank = 0 AND bytes = 4" \
    "2|(2400 + 2300) / 2|(300 + 0) / 2|(2700 + 2300) / 2|(300 + 200 + 250) / 2"
expect "SELECT n, latency, a, f, late FROM algo_host_means WHERE rank = 1 AND bytes = 4" \
    "2|(2200 + 2170) / 2|(600 + 250) / 2|(2800 + 2420) / 2|(400 + 650) / 2"
expect "SELECT n, latency, a, f, late FROM algo_host_means WHERE rank = 2 AND bytes = 4" \
    "2|(2500 + 1500) / 2|(0 + 700) / 2|(2500 + 2200) / 2|(0 + 60) / 2"
# round starts and ends relative to each operation's t0 (200, 10200)
expect "SELECT n, first_post, last_done, late, wait FROM algo_round_means
        WHERE round = 0 AND rank = 0" "2|(400 + 100) / 2|(900 + 500) / 2|(300 + 200) / 2|(300 + 200) / 2"
expect "SELECT n, first_post, last_done, late, wait FROM algo_round_means
        WHERE round = 2 AND rank = 1" "2|(900 + 450) / 2|(1600 + 1350) / 2|(400 + 650) / 2|(400 + 650) / 2"
expect "SELECT n, first_post, last_done FROM algo_round_means WHERE round = 1 AND rank = 2" \
    "2|(100 + 800) / 2|(1300 + 1000) / 2"
expect "SELECT msgs, late_total, late_per_op, late_max FROM algo_round_late WHERE round = 0" \
    "2|300 + 200|(300 + 200) / 2|300"
expect "SELECT msgs, late_total, late_per_op, late_max FROM algo_round_late WHERE round = 1" \
    "2|0 + 250|250 / 2|250"
expect "SELECT msgs, late_total, late_per_op, late_max FROM algo_round_late WHERE round = 2" \
    "4|400 + 0 + 650 + 60|1110 / 2|650"

# ---- the threads' view of the node: visits of across (contributors ranked by
# t1 and t4; arrival wait against the largest t1, 800; departure wait against
# the smallest t4, 2700), t2/t3 NULL at the root
expect "SELECT location, t1, t2, t3, t4, arrival, departure, arrival_wait, departure_wait
        FROM visits WHERE op = 0 AND node = 0 AND contributor = 0" \
    "2|500|NULL|NULL|2900|2|2|800 - 500|2900 - 2700"
expect "SELECT location, t1, t4, arrival, departure FROM visits
        WHERE op = 0 AND node = 0 AND contributor = 2" "131073|200|2700|1|1"
# gA: t2/t3 are host A's visit of the node; thread 1 (largest t1) is the last arrival
expect "SELECT t1, t2, t3, t4, arrival, arrival_wait FROM visits
        WHERE op = 0 AND node = 1 AND contributor = 0" "0|500|2900|3000|1|400"
expect "SELECT arrival FROM visits WHERE op = 0 AND node = 1 AND contributor = 1" "2"
# thread 0: op 0 aw 400, down 500 - 400, latency 2400, up 2990 - 2900, dw 10;
# op 1 aw 100, down 100, latency 2300, up 12580 - 12500, dw 20
expect "SELECT group_concat(stage || ':' || mean, ',') FROM (SELECT stage, mean
        FROM thread_stages WHERE thread = 0 AND bytes = 4 ORDER BY seq)" \
    "arrival_wait:250.0,down:100.0,latency:2350.0,up:85.0,departure_wait:15.0"
expect "SELECT mean FROM stats WHERE scope = 'thread' AND thread = 0 AND node IS NULL
        AND metric = 'total'" "(3000 + 2600) / 2"
# thread 4 enters the node directly: its one stage is host C's latency
expect "SELECT group_concat(stage || ':' || mean, ',') FROM thread_stages WHERE thread = 4" \
    "latency:2000.0"
expect "SELECT core, total_with_wait FROM thread_parts WHERE thread = 4" "2000|2000"
expect "SELECT n, mean FROM stats WHERE scope = 'wrapper' AND node = 0 AND metric = 'latency'" \
    "6|(2400 + 2200 + 2500 + 2300 + 2170 + 1500) / 6"
# the threads' arrival pattern (entry wrappers): host spread = last thread per
# host, op 0: A 400, B 700, C 200 -> 500; op 1: 10100, 10400, 10900 -> 800
expect "SELECT t0, arrival_spread, host_spread, imbalance FROM ops WHERE op = 0" \
    "0|700|500|500 / 250"
expect "SELECT t0, arrival_spread, host_spread, imbalance FROM ops WHERE op = 1" \
    "10000|900|800|800 / 250"

# ---- the report
CTX="algo report"
"$PAPANALYZE" "$DB" >"$TMP/report.txt" 2>&1 || die "[$CTX] papanalyze DB failed"
grep -q "^Algorithm node across (run=binomial-reduce bcast=binomial-bcast, arrival=equal)" \
    "$TMP/report.txt" || die "[$CTX] no Algorithm node section"
# per host: rank, host, n, latency, arrival offset, departure offset, late sender (us)
grep -q "^1 *B *2 *2.19 *0.43 *2.61 *0.53$" "$TMP/report.txt" ||
    die "[$CTX] host B's row differs: $(grep '^1 ' "$TMP/report.txt")"
grep -q "^2 *4 *1.11 *0.56 *0.65$" "$TMP/report.txt" ||
    die "[$CTX] round 2's Late Sender row differs"
# n, avg elapsed, spread, max spread, span, imbalance, % imbalanced
grep -q "^2 *2.18 *0.65 *0.70 *2.61 *2.60 *100.00$" "$TMP/report.txt" ||
    die "[$CTX] the arrival pattern row differs"
"$PAPANALYZE" --format csv "$DB" >"$TMP/report.csv" 2>&1 || die "[$CTX] --format csv failed"
for t in algo_hosts algo_rounds algo_pap; do
    grep -q "^# table: $t\$" "$TMP/report.csv" || die "[$CTX] CSV has no table $t"
done
NCHECKS=$((NCHECKS + 6))

# =============================================================================
# algo, --skip 1: only op 1 is in the means
# =============================================================================

analyze 1
expect "SELECT group_concat(used, ',') FROM (SELECT used FROM algo_ops ORDER BY op)" "0,1"
expect "SELECT n, latency, a, f, late FROM algo_host_means WHERE rank = 1" "1|2170|250|2420|650"
expect "SELECT msgs, late_total FROM algo_round_late WHERE round = 2" "2|650 + 60"
# p2p from op 1's messages only: 200 250 250 290, lower middle 250
expect "SELECT ns, source FROM p2p" "250|algo"
expect "SELECT imbalance FROM algo_ops WHERE op = 1" "700 / 250"

# =============================================================================
# damaged messages are refused (exit 1, a message, no database)
# =============================================================================

# refuse MODE EXPECTED: synth_trace --damage MODE algo, then papanalyze must fail
refuse() {
    CTX="algo --damage $1"
    dir=$TMP/damage-$1
    "$SYNTH_TRACE" --damage "$1" algo "$dir" || die "[$CTX] $SYNTH_TRACE failed"
    st=0
    "$PAPANALYZE" --skip 0 --quiet "$dir/traces.otf2" >"$dir.out" 2>&1 || st=$?
    [ "$st" -eq 1 ] || die "[$CTX] exit status $st, expected 1: $(cat "$dir.out")"
    grep -qF "$2" "$dir.out" || die "[$CTX] expected '$2' in: $(cat "$dir.out")"
    [ ! -e "$dir/traces.db" ] || die "[$CTX] a database was written"
    NCHECKS=$((NCHECKS + 1))
}

refuse norecv "error: across#0 op 0: rank 0's receive of step 0 never completes"
refuse peer "error: across#0 op 0: the send of rank 1 to rank 0 in round 0 has no matching receive"
refuse request "error: 'algo B': an MPI event inside across#0 op 0 with communicator 0 and request 4294967296: not that operation's"

echo "$ME: ok: $NCHECKS checks"
