#!/bin/sh
# synthetic.sh - bin/papanalyze on hand-made traces, against values computed by hand.
#
#   sh tests/analyze/synthetic.sh            (from the repository root, after make)
#
# build/tests/synth_trace (tests/oracles/synth_trace.c) writes OTF2 traces whose
# every timestamp was chosen by hand; its tables are the input of this test.
# Each expected value below is worked out from those tables and the
# definitions of docs/analysis-db.md, with the arithmetic next to it: never
# from papanalyze's output.  Times are ns; "r" is a table's time, which is
# also the time papanalyze must store (the earliest event of each trace is at
# r = 0, after host B's clock correction).
#
# Stops at the first difference, naming the query, the expected and the
# actual value.  Exit status 0 when every check passed.
# Environment: PAPANALYZE (default bin/papanalyze), SYNTH_TRACE (default
# build/tests/synth_trace), TRACE_CHECK (default build/tests/trace_check),
# KEEP=1 keeps the temporary directory.
set -eu

PAPANALYZE=${PAPANALYZE:-bin/papanalyze}
SYNTH_TRACE=${SYNTH_TRACE:-build/tests/synth_trace}
TRACE_CHECK=${TRACE_CHECK:-build/tests/trace_check}
ME=synthetic.sh

die() {
    echo "$ME: FAIL: $*" >&2
    exit 1
}

for prog in "$PAPANALYZE" "$SYNTH_TRACE" "$TRACE_CHECK"; do
    [ -x "$prog" ] || die "$prog is not built (run make first)"
done
command -v sqlite3 >/dev/null 2>&1 || die "the sqlite3 command-line shell is not installed"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/synthetic.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
    echo "$ME: keeping $TMP"
else
    trap 'rm -rf "$TMP"' EXIT
fi

# ---- helpers -----------------------------------------------------------------

. "$(dirname "$0")/expect.sh"

# Writes scenario $1, checks it with trace_check (--ops $2), and analyses it
# with --skip $3 into DB.
analyze() {
    dir=$TMP/$1-skip$3
    CTX="$1 --skip $3"
    "$SYNTH_TRACE" --pathmap-out "$dir.pathmap" "$1" "$dir" ||
        die "[$CTX] $SYNTH_TRACE $1 failed"
    "$TRACE_CHECK" --ops "$2" "$dir" "$dir.pathmap" >"$dir.check" 2>&1 ||
        die "[$CTX] trace_check rejects the synthetic trace: $(cat "$dir.check")"
    "$PAPANALYZE" --skip "$3" --quiet "$dir/traces.otf2" >"$dir.out" 2>&1 ||
        die "[$CTX] $PAPANALYZE --skip $3 --quiet $dir/traces.otf2 failed: $(tail -5 "$dir.out")"
    DB=$dir/traces.db
    [ -f "$DB" ] || die "[$CTX] papanalyze wrote no $DB"
}

INST=0          # the instance the helpers below look at

# visit OP NODE CONTRIBUTOR "location|t1|t2|t3|t4|arrival|departure|arrival_wait|departure_wait"
visit() {
    expect "SELECT location, t1, t2, t3, t4, arrival, departure, arrival_wait, departure_wait
            FROM visits WHERE instance = $INST AND op = $1 AND node = $2 AND contributor = $3" "$4"
}

# wop OP NODE "down|up|latency": the wrapper_ops view
wop() {
    expect "SELECT down, up, latency FROM wrapper_ops
            WHERE instance = $INST AND op = $1 AND node = $2" "$3"
}

# stat_of SCOPE NODE CONTRIBUTOR THREAD METRIC "n|mean|median|min|max" (NULL for none)
stat_of() {
    expect "SELECT n, mean, median, min, max FROM stats WHERE scope = '$1' AND node IS $2
            AND contributor IS $3 AND thread IS $4 AND metric = '$5' AND bytes = 4" "$6"
}

# orders_of NODE CONTRIBUTOR "arrival:departure:count,...": the orders table
orders_of() {
    expect "SELECT group_concat(arrival || ':' || departure || ':' || count, ',') FROM
            (SELECT * FROM orders WHERE node = $1 AND contributor = $2 AND bytes = 4
             ORDER BY arrival, departure)" "$3"
}

# subtree_orders_of NODE THREAD "arrival:departure:count,..."
subtree_orders_of() {
    expect "SELECT group_concat(arrival || ':' || departure || ':' || count, ',') FROM
            (SELECT * FROM subtree_orders WHERE node = $1 AND thread = $2 AND bytes = 4
             ORDER BY arrival, departure)" "$3"
}

# stage THREAD NODE DIRECTION STAGE MEAN: the thread_stages view
stage() {
    expect "SELECT mean FROM thread_stages WHERE thread = $1 AND node = $2
            AND direction = '$3' AND stage = '$4' AND bytes = 4" "$5"
}

# parts THREAD "down_with_wait|down_no_wait|up|host_no_wait|cluster_no_wait|proxy|core|
#               total_no_wait|total_with_wait": the thread_parts view
parts() {
    expect "SELECT down_with_wait, down_no_wait, up, host_no_wait, cluster_no_wait, proxy, core,
            total_no_wait, total_with_wait FROM thread_parts WHERE thread = $1 AND bytes = 4" "$2"
}

# =============================================================================
# gred3 (tests/oracles/synth_trace.c, 3 operations on instance 0)
#
#   nodes        root 0 (core, A), top 1 (gred, A, parent root), g0 2 (gred,
#                A, parent top), p1 3 (proxy, B, parent top), g1 4 (gred, B,
#                parent p1); pathmap lines 4..8
#   contributors top: 0 = g0, 1 = p1; g0: 0, 1, 2 = threads 0, 1, 2;
#                g1: 0 = thread 3, 1 = thread 4; root: 0 = top; p1: 0 = g1
#   locations    host A: 0, 1, 2 = threads 0, 1, 2, 3 = service p1#0;
#                host B: 65536, 65537 = threads 3, 4
#   clocks       host B's ticks are written 1,000,000 behind rank 0's (its
#                ClockOffset records say +1,000,000 at both ends, sd 500)
#
# Visits [t1, t4] (r):            op 0          op 1              op 2
#   g0   thread 0              [0, 800]      [10500, 10720]*   [20150, 20640]
#        thread 1              [250, 830]    [10080, 10680]    [20300, 20600]*
#        thread 2              [400, 780]*   [10200, 10700]    [20050, 20640]
#   top  g0 (nested, by)       [430, 760] 2  [10520, 10650] 0  [20330, 20580] 1
#        p1 (service)          [600, 730]*   [10300, 10630]    [20450, 20570]*
#   root (nested, by)          [620, 700] sv [10540, 10600] 0  [20470, 20530] sv
#   g1   thread 3              [150, 1040]   [10120, 10950]*   [20100, 20850]
#        thread 4              [300, 1000]*  [10050, 10920]    [20200, 20820]*
#   p1   (nested in g1, by)    [320, 980] 4  [10140, 10900] 3  [20220, 20800] 4
# (* = last arrival; "by" = the thread whose g0/g1 visit nests it, sv = the
# service thread.)  Without the clock correction host B's visits would be
# 1,000,000 earlier and threads 3 and 4 would be the first two arrivals at
# the core in every operation: the subtree orders below say otherwise.
# =============================================================================

analyze gred3 3 0

# ---- meta, hosts, the model --------------------------------------------------
expect "SELECT value FROM meta WHERE key = 'schema_version'" 2
expect "SELECT value FROM meta WHERE key = 'trace_schema_version'" 3
expect "SELECT value FROM meta WHERE key = 'tree'" sum
expect "SELECT value FROM meta WHERE key = 'instances'" 1
expect "SELECT value FROM meta WHERE key = 'hosts'" 2
expect "SELECT value FROM meta WHERE key = 'clock'" monotonic_raw
expect "SELECT value FROM meta WHERE key = 'resolution'" 1000000000
expect "SELECT value FROM meta WHERE key = 'command'" "synth_trace gred3"
expect "SELECT value FROM meta WHERE key = 'pathmap_path'" synthetic/gred3.pathmap
expect "SELECT value = CAST(readfile('$TMP/gred3-skip0.pathmap') AS TEXT) FROM meta
        WHERE key = 'pathmap'" 1                                     # verbatim
expect "SELECT value FROM meta WHERE key = 'skip'" 0
expect "SELECT value FROM meta WHERE key = 'events'" 54            # 27 visits x 2
expect "SELECT value FROM meta WHERE key = 'visits'" 27            # 3 ops x (1+2+3+1+2) fan-ins
expect "SELECT value FROM meta WHERE key = 'ops'" 3
expect "SELECT value FROM meta WHERE key = 'ops_used'" 3
# p2p: p1's one-way times 530/2 = 265, 430/2 = 215, 460/2 = 230 (see wrapper_ops);
# median (nearest rank) of 215, 230, 265
expect "SELECT ns, source FROM p2p WHERE bytes = 4" "230|proxy"
expect "SELECT value FROM meta WHERE key = 'p2p_ns'" 230           # one tuple size
expect "SELECT value FROM meta WHERE key = 'p2p_source'" proxy

# offset rank 0 - B = +1,000,000 at both ends: no drift; error = sd 500
expect "SELECT name, hostname, offset_ns, error_ns, drift_ppm FROM hosts WHERE host = 0" \
       "A|node-a.synthetic|0|0|0"
expect "SELECT name, hostname, offset_ns, error_ns, drift_ppm FROM hosts WHERE host = 1" \
       "B|node-b.synthetic|1000000|500|0"

# visits per location: thread 0: g0 x3 + top, root in op 1 = 5; thread 1: g0 x3
# + top in op 2 = 4; thread 2: g0 x3 + top in op 0 = 4; service: top x3 + root
# in ops 0, 2 = 5; thread 3: g1 x3 + p1 in op 1 = 4; thread 4: g1 x3 + p1 in
# ops 0, 2 = 5
Q="SELECT host, role, thread, proxy, instance, enter, name, flushes, visits FROM locations WHERE location ="
expect "$Q 0" "0|compute|0|NULL|NULL|2|thread 0|0|5"
expect "$Q 1" "0|compute|1|NULL|NULL|2|thread 1|0|4"
expect "$Q 2" "0|compute|2|NULL|NULL|2|thread 2|0|4"
expect "$Q 3" "0|service|NULL|3|0|1|service p1#0|0|5"
expect "$Q 65536" "1|compute|3|NULL|NULL|4|thread 3|0|4"
expect "$Q 65537" "1|compute|4|NULL|NULL|4|thread 4|0|5"
expect "SELECT count(*) FROM locations" 6

Q="SELECT host, location, enter, nproxies, nstages FROM threads WHERE thread ="
expect "$Q 0" "0|0|2|0|3"          # g0, top, root
expect "$Q 2" "0|2|2|0|3"
expect "$Q 3" "1|65536|4|1|4"      # g1, p1, top, root
expect "$Q 4" "1|65537|4|1|4"
expect "SELECT count(*) FROM threads" 5

# part: g0 and g1 have threads of one host below them; top has threads of A
# and B: cluster
Q="SELECT name, kind, host, parent, level, fanin, part, nhosts, line FROM wrappers WHERE node ="
expect "$Q 0" "root|core|0|NULL|0|1|core|2|4"
expect "$Q 1" "top|gred|0|0|1|2|cluster|2|5"
expect "$Q 2" "g0|gred|0|1|2|3|host|1|6"
expect "$Q 3" "p1|proxy|1|1|2|1|proxy|1|7"
expect "$Q 4" "g1|gred|1|3|3|2|host|1|8"

Q="SELECT child, thread, name FROM contributors WHERE node ="
expect "$Q 0 AND contributor = 0" "1|NULL|top"
expect "$Q 1 AND contributor = 0" "2|NULL|g0"
expect "$Q 1 AND contributor = 1" "3|NULL|p1"
expect "$Q 2 AND contributor = 2" "NULL|2|thread 2"
expect "$Q 3 AND contributor = 0" "4|NULL|g1"
expect "$Q 4 AND contributor = 1" "NULL|4|thread 4"
expect "SELECT count(*) FROM contributors" 9          # 1 + 2 + 3 + 1 + 2

Q="SELECT group_concat(node || ':' || contributor, ' ') FROM (SELECT * FROM paths WHERE thread ="
expect "$Q 1 ORDER BY step)" "2:1 1:0 0:0"
expect "$Q 4 ORDER BY step)" "4:1 3:0 1:1 0:0"

expect "SELECT group_concat(region || ':' || instance || ':' || node, ' ')
        FROM (SELECT * FROM regions ORDER BY region)" "0:0:0 1:0:1 2:0:2 3:0:3 4:0:4"

# ---- visits ---------------------------------------------------------------------
# location|t1|t2|t3|t4|arrival|departure|arrival_wait|departure_wait
expect "SELECT count(*), typeof(t1), typeof(t4) FROM visits" "27|integer|integer"

# op 0.  g0: t2, t3 = thread 2's top [430, 760]; last arrival thread 2 (400),
# first departure thread 2 (780): arrivals 0 < 250 < 400, departures 780 < 800 < 830
visit 0 2 0 "0|0|430|760|800|1|2|400 - 0|800 - 780"
visit 0 2 1 "1|250|430|760|830|2|3|400 - 250|830 - 780"
visit 0 2 2 "2|400|430|760|780|3|1|0|0"
# top: t2, t3 = the service's root [620, 700]; last arrival p1 (600 > 430),
# first departure p1 (730 < 760)
visit 0 1 0 "2|430|620|700|760|1|2|600 - 430|760 - 730"
visit 0 1 1 "3|600|620|700|730|2|1|0|0"
visit 0 0 0 "3|620|NULL|NULL|700|1|1|0|0"
# p1: t2, t3 = the service's top on host A [600, 730]
visit 0 3 0 "65537|320|600|730|980|1|1|0|0"
# g1: t2, t3 = thread 4's p1 [320, 980]; last arrival and first departure thread 4
visit 0 4 0 "65536|150|320|980|1040|1|2|300 - 150|1040 - 1000"
visit 0 4 1 "65537|300|320|980|1000|2|1|0|0"

# op 1.  g0: t2, t3 = thread 0's top [10520, 10650]; last arrival thread 0
# (10500), first departure thread 1 (10680 < 10700 < 10720)
visit 1 2 0 "0|10500|10520|10650|10720|3|3|0|10720 - 10680"
visit 1 2 1 "1|10080|10520|10650|10680|1|1|10500 - 10080|0"
visit 1 2 2 "2|10200|10520|10650|10700|2|2|10500 - 10200|10700 - 10680"
# top: t2, t3 = thread 0's root [10540, 10600]; last arrival g0 (10520 > 10300),
# first departure p1 (10630 < 10650)
visit 1 1 0 "0|10520|10540|10600|10650|2|2|0|10650 - 10630"
visit 1 1 1 "3|10300|10540|10600|10630|1|1|10520 - 10300|0"
visit 1 0 0 "0|10540|NULL|NULL|10600|1|1|0|0"
visit 1 3 0 "65536|10140|10300|10630|10900|1|1|0|0"
# g1: t2, t3 = thread 3's p1; last arrival thread 3 (10120 > 10050), first
# departure thread 4 (10920 < 10950)
visit 1 4 0 "65536|10120|10140|10900|10950|2|2|0|10950 - 10920"
visit 1 4 1 "65537|10050|10140|10900|10920|1|1|10120 - 10050|0"

# op 2.  g0: t2, t3 = thread 1's top [20330, 20580]; last arrival thread 1
# (20300); departures 20600 (thread 1) then threads 0 and 2 both at 20640: the
# tie is ranked by contributor index, thread 0 second, thread 2 third
visit 2 2 0 "0|20150|20330|20580|20640|2|2|20300 - 20150|20640 - 20600"
visit 2 2 1 "1|20300|20330|20580|20600|3|1|0|0"
visit 2 2 2 "2|20050|20330|20580|20640|1|3|20300 - 20050|20640 - 20600"
# top: t2, t3 = the service's root [20470, 20530]; last arrival p1 (20450 >
# 20330), first departure p1 (20570 < 20580)
visit 2 1 0 "1|20330|20470|20530|20580|1|2|20450 - 20330|20580 - 20570"
visit 2 1 1 "3|20450|20470|20530|20570|2|1|0|0"
visit 2 0 0 "3|20470|NULL|NULL|20530|1|1|0|0"
visit 2 3 0 "65537|20220|20450|20570|20800|1|1|0|0"
visit 2 4 0 "65536|20100|20220|20800|20850|1|2|20200 - 20100|20850 - 20820"
visit 2 4 1 "65537|20200|20220|20800|20820|2|1|0|0"

# visit_metrics: latency (t4 - t1) - (t3 - t2), down_own t2 - t1, up_own t4 - t3
Q="SELECT kind, latency, down_own, up_own FROM visit_metrics WHERE instance = 0 AND op ="
expect "$Q 0 AND node = 2 AND contributor = 0" "gred|(800 - 0) - (760 - 430)|430 - 0|800 - 760"
expect "$Q 0 AND node = 3 AND contributor = 0" "proxy|(980 - 320) - (730 - 600)|600 - 320|980 - 730"
expect "$Q 1 AND node = 0 AND contributor = 0" "core|10600 - 10540|NULL|NULL"

# ---- wrapper_ops: the paper's down, up and latency per operation ----------------
# gred: down = t2 - t1 of the last arrival, up = t4 of the first departure - t3
wop 0 2 "430 - 400|780 - 760|NULL"
wop 1 2 "10520 - 10500|10680 - 10650|NULL"
wop 2 2 "20330 - 20300|20600 - 20580|NULL"
wop 0 1 "620 - 600|730 - 700|NULL"
wop 1 1 "10540 - 10520|10630 - 10600|NULL"
wop 2 1 "20470 - 20450|20570 - 20530|NULL"
wop 0 4 "320 - 300|1000 - 980|NULL"
wop 1 4 "10140 - 10120|10920 - 10900|NULL"
# proxy: latency (t4 - t1) - (t3 - t2), down = up = latency / 2
wop 0 3 "530 / 2|530 / 2|(980 - 320) - (730 - 600)"
wop 1 3 "430 / 2|430 / 2|(10900 - 10140) - (10630 - 10300)"
wop 2 3 "460 / 2|460 / 2|(20800 - 20220) - (20570 - 20450)"
# core: latency t4 - t1 only
wop 0 0 "NULL|NULL|700 - 620"
wop 1 0 "NULL|NULL|10600 - 10540"
wop 2 0 "NULL|NULL|20530 - 20470"

# ---- ops and PAP (threads' t1, t4 at g0 / g1) -----------------------------------
# op 0: arrivals 0, 250, 400 (A), 150, 300 (B); departures 800, 830, 780, 1040, 1000
#   t0 0; spread 400 - 0; host a: A 400, B 300, spread 100; elapsed 800, 580,
#   380, 890, 700: mean 3350 / 5 = 670; imbalance 100 / p2p 230
# op 1: arrivals 10500, 10080, 10200 (A), 10120, 10050 (B); departures 10720,
#   10680, 10700, 10950, 10920; t0 10050; spread 450; a: A 450, B 70, spread
#   380; elapsed 220, 600, 500, 830, 870: mean 3020 / 5 = 604
# op 2: arrivals 20150, 20300, 20050 (A), 20100, 20200 (B); departures 20640,
#   20600, 20640, 20850, 20820; t0 20050; spread 250; a: A 250, B 150, spread
#   100; elapsed 490, 300, 590, 750, 620: mean 2750 / 5 = 550
Q="SELECT bytes, used, t0, arrival_spread, host_spread, avg_elapsed, imbalance FROM ops
   WHERE instance = 0 AND op ="
expect "$Q 0" "4|1|0|400|400 - 300|3350 / 5|100 / 230"
expect "$Q 1" "4|1|10050|10500 - 10050|450 - 70|3020 / 5|380 / 230"
expect "$Q 2" "4|1|20050|20300 - 20050|250 - 150|2750 / 5|100 / 230"

# pap_hosts: a = last arrival of the host's threads - t0, f = last departure - t0
Q="SELECT a, f, e FROM pap_hosts WHERE instance = 0 AND op ="
expect "$Q 0 AND host = 0" "400|830|830 - 400"
expect "$Q 0 AND host = 1" "300|1040|1040 - 300"
expect "$Q 1 AND host = 0" "10500 - 10050|10720 - 10050|670 - 450"
expect "$Q 1 AND host = 1" "10120 - 10050|10950 - 10050|900 - 70"
expect "$Q 2 AND host = 0" "20300 - 20050|20640 - 20050|590 - 250"
expect "$Q 2 AND host = 1" "20200 - 20050|20850 - 20050|800 - 150"
expect "SELECT a, f, e FROM pap_threads WHERE instance = 0 AND op = 1 AND thread = 3" \
       "10120 - 10050|10950 - 10050|10950 - 10120"

# ---- stats (n|mean|median|min|max; median = lower middle, nearest rank) ---------
expect "SELECT typeof(mean), count(DISTINCT bytes) FROM stats" "real|1"
# wrapper: gred down, up per op (wrapper_ops above)
stat_of wrapper 2 NULL NULL down "3|(30 + 20 + 30) / 3|30|20|30"
stat_of wrapper 2 NULL NULL up "3|(20 + 30 + 20) / 3|20|20|30"
stat_of wrapper 1 NULL NULL down "3|20|20|20|20"
stat_of wrapper 1 NULL NULL up "3|(30 + 30 + 40) / 3|30|30|40"
stat_of wrapper 4 NULL NULL down "3|20|20|20|20"
stat_of wrapper 3 NULL NULL down "3|(265 + 215 + 230) / 3|230|215|265"
stat_of wrapper 3 NULL NULL up "3|(265 + 215 + 230) / 3|230|215|265"
stat_of wrapper 3 NULL NULL latency "3|(530 + 430 + 460) / 3|460|430|530"
stat_of wrapper 0 NULL NULL latency "3|(80 + 60 + 60) / 3|60|60|80"
# sample stdev of 80, 60, 60: deviations 40/3, -20/3, -20/3: sqrt((1600 + 400 + 400) / 9 / 2)
expect "SELECT stdev FROM stats WHERE scope = 'wrapper' AND node = 0 AND metric = 'latency'" \
       "=sqrt(2400 / 18)"
# g0, all contributors (9 samples).  Wrapper latencies (t4 - t1) - (t3 - t2):
#   op 0 (t3 - t2 = 330): 800 - 330 = 470, 580 - 330 = 250, 380 - 330 = 50
#   op 1 (130): 220 - 130 = 90, 600 - 130 = 470, 500 - 130 = 370
#   op 2 (250): 490 - 250 = 240, 300 - 250 = 50, 590 - 250 = 340
#   sorted 50 50 90 240 250 340 370 470 470: median (5th) 250, p10 (1st) 50, p90 (9th) 470
stat_of wrapper 2 NULL NULL latency "9|(470 + 250 + 50 + 90 + 470 + 370 + 240 + 50 + 340) / 9|250|50|470"
expect "SELECT p10, p90 FROM stats WHERE scope = 'wrapper' AND node = 2 AND metric = 'latency'" "50|470"
# arrival waits 400 150 0, 0 420 300, 150 0 250: sorted 0 0 0 150 150 250 300 400 420
stat_of wrapper 2 NULL NULL arrival_wait "9|(550 + 720 + 400) / 9|150|0|420"
# departure waits 20 50 0, 40 0 20, 40 0 40: sorted 0 0 0 20 20 40 40 40 50
stat_of wrapper 2 NULL NULL departure_wait "9|(70 + 60 + 80) / 9|20|0|50"
# top, 6 samples: latencies op 0 (t3 - t2 = 80): 330 - 80 = 250, 130 - 80 = 50;
#   op 1 (60): 130 - 60 = 70, 330 - 60 = 270; op 2 (60): 250 - 60 = 190, 120 - 60 = 60
#   sorted 50 60 70 190 250 270: median (3rd) 70
stat_of wrapper 1 NULL NULL latency "6|(250 + 50 + 70 + 270 + 190 + 60) / 6|70|50|270"
stat_of wrapper 1 NULL NULL arrival_wait "6|(170 + 0 + 0 + 220 + 120 + 0) / 6|0|0|220"
stat_of wrapper 1 NULL NULL departure_wait "6|(30 + 0 + 20 + 0 + 10 + 0) / 6|0|0|30"

# contributor: g0's thread 0: arrival waits 400, 0, 150; departure waits 20, 40,
# 40; latencies 470, 90, 240
stat_of contributor 2 0 NULL arrival_wait "3|(400 + 0 + 150) / 3|150|0|400"
stat_of contributor 2 0 NULL departure_wait "3|(20 + 40 + 40) / 3|40|20|40"
stat_of contributor 2 0 NULL latency "3|(470 + 90 + 240) / 3|240|90|470"
# deviations from 800/3, times 3: 610, -530, -80
expect "SELECT stdev, p10, p90 FROM stats WHERE scope = 'contributor' AND node = 2
        AND contributor = 0 AND metric = 'latency'" "=sqrt((610^2 + 530^2 + 80^2) / 9 / 2)|90|470"
# top's p1: arrival waits 0, 220, 0; latencies 50, 270, 60
stat_of contributor 1 1 NULL arrival_wait "3|220 / 3|0|0|220"
stat_of contributor 1 1 NULL latency "3|(50 + 270 + 60) / 3|60|50|270"
# g1's thread 3: arrival waits 150, 0, 100; departure waits 40, 30, 30;
# latencies (890 - 660), (830 - 760), (750 - 580)
stat_of contributor 4 0 NULL arrival_wait "3|(150 + 0 + 100) / 3|100|0|150"
stat_of contributor 4 0 NULL departure_wait "3|(40 + 30 + 30) / 3|30|30|40"
stat_of contributor 4 0 NULL latency "3|(230 + 70 + 170) / 3|170|70|230"

# thread stages.  Thread 0 (g0 -> top -> root), per op 0 / 1 / 2:
#   g0 down 30 / 20 / 30, arrival wait 400 / 0 / 150, top down 20 / 20 / 20,
#   top arrival wait (of g0) 170 / 0 / 120, root latency 80 / 60 / 60,
#   top up 30 / 30 / 40, top departure wait (of g0) 30 / 20 / 10,
#   g0 up 20 / 30 / 20, g0 departure wait 20 / 40 / 40
#   sums 800 / 220 / 490 = t4 - t1 at g0 (800 - 0, 10720 - 10500, 20640 - 20150)
stat_of thread 2 NULL 0 down "3|(30 + 20 + 30) / 3|30|20|30"
stat_of thread 2 NULL 0 arrival_wait "3|(400 + 0 + 150) / 3|150|0|400"
stat_of thread 1 NULL 0 arrival_wait "3|(170 + 0 + 120) / 3|120|0|170"
stat_of thread 1 NULL 0 departure_wait "3|(30 + 20 + 10) / 3|20|10|30"
stat_of thread 0 NULL 0 latency "3|(80 + 60 + 60) / 3|60|60|80"
stat_of thread 2 NULL 0 departure_wait "3|(20 + 40 + 40) / 3|40|20|40"
stat_of thread NULL NULL 0 total "3|(800 + 220 + 490) / 3|490|220|800"
# minus the arrival waits: 800 - 400 - 170, 220 - 0 - 0, 490 - 150 - 120
stat_of thread NULL NULL 0 total_no_wait "3|(230 + 220 + 220) / 3|220|220|230"
# Thread 3 (g1 -> p1 -> top -> root), per op:
#   g1 down 20 / 20 / 20, arrival wait 150 / 0 / 100, p1 down 265 / 215 / 230,
#   top down 20 / 20 / 20, top arrival wait (of p1) 0 / 220 / 0, root 80 / 60 / 60,
#   top up 30 / 30 / 40, top departure wait (of p1) 0 / 0 / 0, p1 up = p1 down,
#   g1 up 20 / 20 / 20, g1 departure wait 40 / 30 / 30
#   sums 890 / 830 / 750 = 1040 - 150, 10950 - 10120, 20850 - 20100
stat_of thread 3 NULL 3 down "3|(265 + 215 + 230) / 3|230|215|265"
stat_of thread 3 NULL 3 up "3|(265 + 215 + 230) / 3|230|215|265"
stat_of thread 1 NULL 3 arrival_wait "3|220 / 3|0|0|220"
stat_of thread 1 NULL 3 departure_wait "3|0|0|0|0"
stat_of thread 4 NULL 3 departure_wait "3|(40 + 30 + 30) / 3|30|30|40"
stat_of thread NULL NULL 3 total "3|(890 + 830 + 750) / 3|830|750|890"
stat_of thread NULL NULL 3 total_no_wait "3|(740 + 610 + 650) / 3|650|610|740"
# the other threads' totals: t4 - t1 at their entry wrapper
stat_of thread NULL NULL 1 total "3|(580 + 600 + 300) / 3|580|300|600"
stat_of thread NULL NULL 2 total "3|(380 + 500 + 590) / 3|500|380|590"
stat_of thread NULL NULL 4 total "3|(700 + 870 + 620) / 3|700|620|870"
# the stages add up to the total per op, so their means add up to the total's
for t in 0 1 2 3 4; do
    expect "SELECT (SELECT mean FROM stats WHERE scope = 'thread' AND thread = $t
                    AND node IS NULL AND metric = 'total')
                 - (SELECT sum(mean) FROM stats WHERE scope = 'thread' AND thread = $t
                    AND node IS NOT NULL)" 0
done

# thread_stages: the same means in path order
expect "SELECT count(*) FROM thread_stages WHERE thread = 0" 9      # g0 4 + top 4 + root 1
expect "SELECT count(*) FROM thread_stages WHERE thread = 3" 11     # g1 4 + p1 2 + top 4 + root 1
expect "SELECT group_concat(DISTINCT step || ':' || node) FROM
        (SELECT * FROM thread_stages WHERE thread = 3 ORDER BY step)" "0:4,1:3,2:1,3:0"
stage 0 2 down arrival_wait "(400 + 0 + 150) / 3"
stage 0 1 down arrival_wait "(170 + 0 + 120) / 3"
stage 0 0 down latency "(80 + 60 + 60) / 3"
stage 0 2 up departure_wait "(20 + 40 + 40) / 3"
stage 3 3 down down "(265 + 215 + 230) / 3"
stage 3 3 up up "(265 + 215 + 230) / 3"
stage 3 1 down arrival_wait "220 / 3"
stage 3 4 up departure_wait "(40 + 30 + 30) / 3"

# thread_parts (means): thread 0
#   down with waits: g0 down 80/3 + wait 550/3 + top down 60/3 + wait 290/3 + root 200/3
#   down without: 80/3 + 60/3 + 200/3
#   up: top up 100/3 + departure wait 60/3 + g0 up 70/3 + departure wait 100/3
#   host (g0): 80/3 + 70/3 + 100/3; cluster (top): 60/3 + 100/3 + 60/3; proxy 0; core 200/3
parts 0 "(80+550+60+290+200) / 3|(80+60+200) / 3|(100+60+70+100) / 3|(80+70+100) / 3|(60+100+60) / 3|0|200 / 3|(340+330) / 3|(1180+330) / 3"
# thread 3: down with waits: g1 20 + wait 250/3 + p1 710/3 + top 20 + wait 220/3 + root 200/3
#   down without: 20 + 710/3 + 20 + 200/3; up: top 100/3 + 0 + p1 710/3 + g1 20 + 100/3
#   host (g1): 20 + 20 + 100/3; cluster (top): 20 + 100/3 + 0; proxy 1420/3; core 200/3
parts 3 "(60+250+710+60+220+200) / 3|(60+710+60+200) / 3|(100+710+60+100) / 3|(60+60+100) / 3|(60+100) / 3|1420 / 3|200 / 3|(1030+970) / 3|(1500+970) / 3"

# subtree rooted at the core: every thread; t2, t3 = root's t1, t4
#   op 0: arrivals 0 (th0) 150 (th3) 250 (th1) 300 (th4) 400 (th2): last thread 2;
#     departures 780 (th2) 800 (th0) 830 (th1) 1000 (th4) 1040 (th3): first thread 2;
#     down = g0 down 30 + top down 20 (thread 2's path), up = g0 up 20 + top up 30
#   op 1: arrivals 10050 (th4) 10080 (th1) 10120 (th3) 10200 (th2) 10500 (th0);
#     departures 10680 (th1) 10700 (th2) 10720 (th0) 10920 (th4) 10950 (th3);
#     down = 20 + 20 (thread 0's path), up = 30 + 30 (thread 1's path)
#   op 2: arrivals 20050 (th2) 20100 (th3) 20150 (th0) 20200 (th4) 20300 (th1);
#     departures 20600 (th1) 20640 (th0) 20640 (th2, tie after thread 0) 20820 (th4)
#     20850 (th3); down = 30 + 20, up = 20 + 40 (thread 1's path)
stat_of subtree 0 NULL NULL down "3|(50 + 40 + 50) / 3|50|40|50"
stat_of subtree 0 NULL NULL up "3|(50 + 60 + 60) / 3|60|50|60"
# thread 3: arrival waits 400 - 150, 10500 - 10120, 20300 - 20100; departure
# waits 1040 - 780, 10950 - 10680, 20850 - 20600; latencies 890 - 80, 830 - 60, 750 - 60
stat_of subtree 0 NULL 3 arrival_wait "3|(250 + 380 + 200) / 3|250|200|380"
stat_of subtree 0 NULL 3 departure_wait "3|(260 + 270 + 250) / 3|260|250|270"
stat_of subtree 0 NULL 3 latency "3|(810 + 770 + 690) / 3|770|690|810"
# thread 0: latencies 800 - 80, 220 - 60, 490 - 60
stat_of subtree 0 NULL 0 arrival_wait "3|(400 + 0 + 150) / 3|150|0|400"
stat_of subtree 0 NULL 0 latency "3|(720 + 160 + 430) / 3|430|160|720"

# pap (one sample per operation, from ops above)
stat_of pap NULL NULL NULL avg_elapsed "3|(670 + 604 + 550) / 3|604|550|670"
stat_of pap NULL NULL NULL arrival_spread "3|(400 + 450 + 250) / 3|400|250|450"
stat_of pap NULL NULL NULL host_spread "3|(100 + 380 + 100) / 3|100|100|380"
stat_of pap NULL NULL NULL imbalance "3|(100 + 380 + 100) / 3 / 230|100 / 230|100 / 230|380 / 230"
stat_of pap NULL NULL 3 elapsed "3|(890 + 830 + 750) / 3|830|750|890"

# ---- orders -------------------------------------------------------------------
# g0 (arrival, departure) per op: thread 0 (1,2) (3,3) (2,2); thread 1 (2,3)
# (1,1) (3,1); thread 2 (3,1) (2,2) (1,3)
orders_of 2 0 "1:2:1,2:2:1,3:3:1"
orders_of 2 1 "1:1:1,2:3:1,3:1:1"
orders_of 2 2 "1:3:1,2:2:1,3:1:1"
# top: g0 (1,2) (2,2) (1,2); p1 (2,1) (1,1) (2,1)
orders_of 1 0 "1:2:2,2:2:1"
orders_of 1 1 "1:1:1,2:1:2"
# g1: thread 3 (1,2) (2,2) (1,2); thread 4 (2,1) (1,1) (2,1)
orders_of 4 0 "1:2:2,2:2:1"
orders_of 4 1 "1:1:1,2:1:2"
# order_matrix of g0, summed over contributors: row 2 = (2,3) + (2,2) x 2,
# row 3 = (3,1) x 2 + (3,3); each row has 3 operations
Q="SELECT count, percent FROM order_matrix WHERE node = 2 AND bytes = 4 AND arrival ="
expect "$Q 2 AND departure = 2" "2|100 * 2 / 3"
expect "$Q 3 AND departure = 1" "2|100 * 2 / 3"
expect "$Q 1 AND departure = 3" "1|100 / 3"
expect "SELECT sum(count) FROM order_matrix WHERE node = 2" 9
# the core's subtree (orders of the subtree comments above)
subtree_orders_of 0 0 "1:2:1,3:2:1,5:3:1"
subtree_orders_of 0 1 "2:1:1,3:3:1,5:1:1"
subtree_orders_of 0 2 "1:3:1,4:2:1,5:1:1"
subtree_orders_of 0 3 "2:5:2,3:5:1"
subtree_orders_of 0 4 "1:4:1,4:4:2"

expect "SELECT count(*) > 0 FROM hotspots" 1

# =============================================================================
# gred3 --skip 1: operation 0 is not used
# =============================================================================

analyze gred3 3 1

expect "SELECT value FROM meta WHERE key = 'skip'" 1
expect "SELECT value FROM meta WHERE key = 'ops_used'" 2
expect "SELECT value FROM meta WHERE key = 'visits'" 27           # still every visit
expect "SELECT group_concat(used, ',') FROM (SELECT * FROM ops ORDER BY op)" "0,1,1"
# p2p: median (nearest rank: the lower middle) of 215 (op 1) and 230 (op 2)
expect "SELECT ns, source FROM p2p WHERE bytes = 4" "215|proxy"
expect "SELECT value FROM meta WHERE key = 'p2p_ns'" 215
expect "SELECT imbalance FROM ops WHERE op = 1" "380 / 215"
expect "SELECT imbalance FROM ops WHERE op = 2" "100 / 215"
stat_of contributor 2 0 NULL latency "2|(90 + 240) / 2|90|90|240"
stat_of wrapper 3 NULL NULL latency "2|(430 + 460) / 2|430|430|460"
stat_of thread NULL NULL 3 total "2|(830 + 750) / 2|750|750|830"
stat_of pap NULL NULL NULL imbalance "2|(380 + 100) / 2 / 215|100 / 215|100 / 215|380 / 215"
orders_of 2 0 "2:2:1,3:3:1"
subtree_orders_of 0 3 "2:5:1,3:5:1"

# =============================================================================
# chain (tests/oracles/synth_trace.c): thread 0 (B) -> a (gred, B) -> p (proxy, B)
# -> b (gred, A) -> c (core, A); nodes c 0, b 1, p 2, a 3 (lines 4..7); 2
# instances, operations (instance, op) (0,0) (1,0) (0,1) (1,1).  Locations:
# host A 0 = service p#0, 1 = service p#1; host B 65536 = thread 0.
# Host B's clock: offset 1,000,000 at local 0 and 1,001,000 at local 1,000,000
# (1000 ppm), so its local 100,000 + 1000 m is r = 1001 m.
#
#   inst op   a (thread 0)     p (thread 0)     b (service)      c (service)
#   0    0    [0, 12012]       [2002, 10010]    [4000, 6000]     [4600, 5400]
#   1    0    [20020, 27027]   [21021, 25025]   [22500, 24100]   [22900, 23500]
#   0    1    [40040, 49049]   [42042, 48048]   [43000, 45500]   [43800, 44700]
#   1    1    [60060, 66066]   [61061, 65065]   [62000, 63600]   [62500, 63300]
#
# Every fan-in is 1: arrival and departure orders 1, waits 0.
# Per op:   a down/up        p latency (one way)               b down/up   c
#   (0,0)   2002 / 2002      8008 - 2000 = 6008 (3004)         600 / 600   800
#   (1,0)   1001 / 2002      4004 - 1600 = 2404 (1202)         400 / 600   600
#   (0,1)   2002 / 1001      6006 - 2500 = 3506 (1753)         800 / 800   900
#   (1,1)   1001 / 1001      4004 - 1600 = 2404 (1202)         500 / 300   800
# Stage sums = totals: 2002+3004+600+800+600+3004+2002 = 12012;
# 1001+1202+400+600+600+1202+2002 = 7007; 2002+1753+800+900+800+1753+1001 = 9009;
# 1001+1202+500+800+300+1202+1001 = 6006.
# =============================================================================

analyze chain 4 0

expect "SELECT value FROM meta WHERE key = 'tree'" chain
expect "SELECT value FROM meta WHERE key = 'instances'" 2
expect "SELECT value FROM meta WHERE key = 'events'" 32         # 16 visits x 2
expect "SELECT value FROM meta WHERE key = 'visits'" 16         # 4 ops x 4 wrappers
expect "SELECT value FROM meta WHERE key = 'ops'" 4
expect "SELECT value FROM meta WHERE key = 'ops_used'" 4
# one-way times 3004, 1202, 1753, 1202: sorted 1202 1202 1753 3004, median (2nd) 1202
expect "SELECT ns, source FROM p2p WHERE bytes = 4" "1202|proxy"
expect "SELECT value FROM meta WHERE key = 'p2p_ns'" 1202
expect "SELECT value FROM meta WHERE key = 'p2p_source'" proxy

expect "SELECT offset_ns, error_ns, drift_ppm FROM hosts WHERE host = 0" "0|0|0"
expect "SELECT offset_ns, error_ns FROM hosts WHERE host = 1" "1000000|250"
# (1,001,000 - 1,000,000) / (1,000,000 - 0) x 10^6 = 1000 ppm per local time
# (999.000999 per rank 0's time: the tolerance accepts both)
expect_tol 2e-3 "SELECT drift_ppm FROM hosts WHERE host = 1" 1000

Q="SELECT host, role, thread, proxy, instance, enter, name, visits FROM locations WHERE location ="
expect "$Q 0" "0|service|NULL|2|0|1|service p#0|4"      # b and c in ops (0,0), (0,1)
expect "$Q 1" "0|service|NULL|2|1|1|service p#1|4"
expect "$Q 65536" "1|compute|0|NULL|NULL|3|thread 0|8"  # a and p in 4 ops
expect "SELECT host, location, enter, nproxies, nstages FROM threads WHERE thread = 0" "1|65536|3|1|4"
# b runs on host A but only host B's thread 0 is below it: part host
Q="SELECT name, kind, host, parent, level, fanin, part, nhosts, line FROM wrappers WHERE node ="
expect "$Q 0" "c|core|0|NULL|0|1|core|1|4"
expect "$Q 1" "b|gred|0|0|1|1|host|1|5"
expect "$Q 2" "p|proxy|1|1|2|1|proxy|1|6"
expect "$Q 3" "a|gred|1|2|3|1|host|1|7"
expect "SELECT group_concat(node || ':' || contributor, ' ') FROM
        (SELECT * FROM paths WHERE thread = 0 ORDER BY step)" "3:0 2:0 1:0 0:0"
expect "SELECT count(*), sum(instance = 1) FROM regions" "8|4"
expect "SELECT instance, node FROM regions WHERE region = 6" "1|2"     # 1 x 4 + 2

# visits (location|t1|t2|t3|t4|arrival|departure|waits)
INST=0
visit 0 3 0 "65536|0|2002|10010|12012|1|1|0|0"
visit 0 2 0 "65536|2002|4000|6000|10010|1|1|0|0"
visit 0 1 0 "0|4000|4600|5400|6000|1|1|0|0"
visit 0 0 0 "0|4600|NULL|NULL|5400|1|1|0|0"
visit 1 3 0 "65536|40040|42042|48048|49049|1|1|0|0"
visit 1 2 0 "65536|42042|43000|45500|48048|1|1|0|0"
visit 1 1 0 "0|43000|43800|44700|45500|1|1|0|0"
visit 1 0 0 "0|43800|NULL|NULL|44700|1|1|0|0"
INST=1
visit 0 3 0 "65536|20020|21021|25025|27027|1|1|0|0"
visit 0 2 0 "65536|21021|22500|24100|25025|1|1|0|0"
visit 0 1 0 "1|22500|22900|23500|24100|1|1|0|0"
visit 0 0 0 "1|22900|NULL|NULL|23500|1|1|0|0"
visit 1 3 0 "65536|60060|61061|65065|66066|1|1|0|0"
visit 1 2 0 "65536|61061|62000|63600|65065|1|1|0|0"
visit 1 1 0 "1|62000|62500|63300|63600|1|1|0|0"
visit 1 0 0 "1|62500|NULL|NULL|63300|1|1|0|0"

INST=0
wop 0 3 "2002 - 0|12012 - 10010|NULL"
wop 1 3 "42042 - 40040|49049 - 48048|NULL"
wop 0 2 "6008 / 2|6008 / 2|(10010 - 2002) - (6000 - 4000)"
wop 1 2 "3506 / 2|3506 / 2|(48048 - 42042) - (45500 - 43000)"
wop 0 1 "4600 - 4000|6000 - 5400|NULL"
wop 1 0 "NULL|NULL|44700 - 43800"
INST=1
wop 0 3 "21021 - 20020|27027 - 25025|NULL"
wop 0 2 "2404 / 2|2404 / 2|(25025 - 21021) - (24100 - 22500)"
wop 1 1 "62500 - 62000|63600 - 63300|NULL"
wop 1 0 "NULL|NULL|63300 - 62500"

# one thread: no spread, elapsed = its time in the allreduce, imbalance 0 / 1202
Q="SELECT bytes, used, t0, arrival_spread, host_spread, avg_elapsed, imbalance FROM ops WHERE"
expect "$Q instance = 0 AND op = 0" "4|1|0|0|0|12012|0"
expect "$Q instance = 1 AND op = 0" "4|1|20020|0|0|27027 - 20020|0"
expect "$Q instance = 0 AND op = 1" "4|1|40040|0|0|49049 - 40040|0"
expect "$Q instance = 1 AND op = 1" "4|1|60060|0|0|66066 - 60060|0"
expect "SELECT a, f, e FROM pap_hosts WHERE instance = 1 AND op = 0 AND host = 1" "0|7007|7007"
expect "SELECT count(*) FROM pap_hosts WHERE host = 1" 4

# stats pool both instances: 4 samples each
stat_of thread NULL NULL 0 total "4|(12012 + 7007 + 9009 + 6006) / 4|7007|6006|12012"
stat_of thread NULL NULL 0 total_no_wait "4|(12012 + 7007 + 9009 + 6006) / 4|7007|6006|12012"
# 1001 x (12, 7, 9, 6): deviations 1001 x (3.5, -1.5, 0.5, -2.5), squares sum 1001^2 x 21
expect "SELECT stdev, p10, p90 FROM stats WHERE scope = 'thread' AND thread = 0
        AND node IS NULL AND metric = 'total'" "=1001 * sqrt(21 / 3)|6006|12012"
stat_of thread 3 NULL 0 down "4|(2002 + 1001 + 2002 + 1001) / 4|1001|1001|2002"
stat_of thread 3 NULL 0 up "4|(2002 + 2002 + 1001 + 1001) / 4|1001|1001|2002"
stat_of thread 3 NULL 0 arrival_wait "4|0|0|0|0"
stat_of thread 2 NULL 0 down "4|(3004 + 1202 + 1753 + 1202) / 4|1202|1202|3004"
stat_of thread 2 NULL 0 up "4|(3004 + 1202 + 1753 + 1202) / 4|1202|1202|3004"
stat_of thread 1 NULL 0 down "4|(600 + 400 + 800 + 500) / 4|500|400|800"
stat_of thread 1 NULL 0 up "4|(600 + 600 + 800 + 300) / 4|600|300|800"
stat_of thread 1 NULL 0 departure_wait "4|0|0|0|0"
stat_of thread 0 NULL 0 latency "4|(800 + 600 + 900 + 800) / 4|800|600|900"
stat_of wrapper 2 NULL NULL latency "4|(6008 + 2404 + 3506 + 2404) / 4|2404|2404|6008"
# the core's subtree: down = a + p + b downs, up = a + p + b ups
#   down 2002+3004+600 = 5606, 1001+1202+400 = 2603, 2002+1753+800 = 4555, 1001+1202+500 = 2703
#   up   2002+3004+600 = 5606, 2002+1202+600 = 3804, 1001+1753+800 = 3554, 1001+1202+300 = 2503
stat_of subtree 0 NULL NULL down "4|(5606 + 2603 + 4555 + 2703) / 4|2703|2603|5606"
stat_of subtree 0 NULL NULL up "4|(5606 + 3804 + 3554 + 2503) / 4|3554|2503|5606"
# latency = total - c: 12012 - 800, 7007 - 600, 9009 - 900, 6006 - 800
stat_of subtree 0 NULL 0 latency "4|(11212 + 6407 + 8109 + 5206) / 4|6407|5206|11212"
stat_of pap NULL NULL NULL host_spread "4|0|0|0|0"
stat_of pap NULL NULL NULL avg_elapsed "4|34034 / 4|7007|6006|12012"
# parts: down a 6006/4 + p 7161/4 + b 2300/4 + c 3100/4; up a 6006/4 + p 7161/4
# + b 2300/4; host (a and b) (6006 + 6006 + 2300 + 2300) / 4; proxy 2 x 7161/4
parts 0 "(6006+7161+2300+3100) / 4|(6006+7161+2300+3100) / 4|(6006+7161+2300) / 4|(6006+6006+2300+2300) / 4|0|2 * 7161 / 4|3100 / 4|34034 / 4|34034 / 4"
stage 0 2 down down "7161 / 4"
stage 0 0 down latency "3100 / 4"
orders_of 3 0 "1:1:4"
orders_of 1 0 "1:1:4"
subtree_orders_of 0 0 "1:1:4"

# --skip 1 marks the first operation of each instance unused: (0,0) and (1,0)
analyze chain 4 1

expect "SELECT group_concat(used, ',') FROM (SELECT * FROM ops ORDER BY instance, op)" "0,1,0,1"
expect "SELECT value FROM meta WHERE key = 'ops_used'" 2
stat_of thread NULL NULL 0 total "2|(9009 + 6006) / 2|6006|6006|9009"
stat_of thread 0 NULL 0 latency "2|(900 + 800) / 2|800|800|900"
# one-way times 1753 and 1202: the lower middle
expect "SELECT ns FROM p2p WHERE bytes = 4" 1202
orders_of 3 0 "1:1:2"

# =============================================================================
# lastarr (tests/oracles/synth_trace.c, 2 operations): the last arrival at a
# gred is the contributor that continued down (its visit nests the parent's),
# not the one with the largest t1.
#
#   nodes        root 0 (core, A), g 1 (gred, A), q 2 (proxy, B)
#   contributors g: 0 = q (service q#0), 1 = thread 0, 2 = thread 1
#   locations    thread 0 = 0, thread 1 = 1, service q#0 = 2 (A); thread 2 =
#                65536 (B)
#
# g's t2, t3 are root's visit: [300, 400] in op 0, [1300, 1400] in op 1.
# Op 0: t1 = 50, 100, 100; thread 0 (c1) continued.  By t1 with ties by index
#   c1 would be 2nd and c2 3rd; the one that continued is the last arrival:
#   c0 1st (50), c2 2nd (100, the others by t1), c1 3rd.  Waits t1,l - t1,i
#   with t1,l = 100: 50, 0, 0 (the same either way).  t4 = 800, 820, 840:
#   departures 1, 2, 3, f = c0, departure waits 0, 20, 40.
#   down = t2 - t1,l = 300 - 100 = 200; up = t4,f - t3 = 800 - 400 = 400.
# Op 1: t1 = 1050, 1150, 1100; thread 1 (c2) continued although thread 0 has
#   the larger t1.  Arrivals: c0 1st, c1 2nd, c2 3rd (largest t1 would make
#   c1 3rd).  t1,l = 1100: waits 1100 - 1050 = 50, 1100 - 1150 = -50 (c1
#   reached the gred before c2 did, after taking its timestamp), 0.
#   t4 = 1800, 1820, 1850: departures 1, 2, 3, waits 0, 20, 50.
#   down = 1300 - 1100 = 200 (largest t1 would give 150); up = 1800 - 1400.
# =============================================================================

analyze lastarr 2 0
INST=0

visit 0 1 0 "2|50|300|400|800|1|1|100 - 50|0"
visit 0 1 1 "0|100|300|400|820|3|2|0|820 - 800"
visit 0 1 2 "1|100|300|400|840|2|3|0|840 - 800"
visit 1 1 0 "2|1050|1300|1400|1800|1|1|1100 - 1050|0"
visit 1 1 1 "0|1150|1300|1400|1820|2|2|1100 - 1150|1820 - 1800"
visit 1 1 2 "1|1100|1300|1400|1850|3|3|0|1850 - 1800"
# wrapper_ops takes the gred's down from the visit with arrival = fan-in
wop 0 1 "300 - 100|800 - 400|NULL"
wop 1 1 "1300 - 1100|1800 - 1400|NULL"
stat_of wrapper 1 NULL NULL down "2|200|200|200|200"
# arrival waits of g, both ops: 50, 0, 0, 50, -50, 0; sorted -50 0 0 0 50 50
stat_of wrapper 1 NULL NULL arrival_wait "6|(50 + 50 - 50) / 6|0|-50|50"
stat_of contributor 1 1 NULL arrival_wait "2|(0 - 50) / 2|-50|-50|0"
# thread 0 (c1): total 820 - 100 = 720 and 1820 - 1150 = 670; without its
# arrival waits (0 and -50) 720 and 720
stat_of thread NULL NULL 0 total "2|(720 + 670) / 2|670|670|720"
stat_of thread NULL NULL 0 total_no_wait "2|720|720|720|720"
orders_of 1 0 "1:1:2"
orders_of 1 1 "2:2:1,3:2:1"
orders_of 1 2 "2:3:1,3:3:1"

# =============================================================================
# oneway (tests/oracles/synth_trace.c): 1101 operations of the chain's tree, so
# 1101 one-way times of p, more than an_stats_int.h keeps exactly (1024).  The
# one-way time of operation k is 9000 + 2.5 k ns; nearest-rank median of
# 1101 samples: rank ceil(1101 / 2) = 551, k = 550, 9000 + 2.5 * 550 = 10375.
# (A histogram bucket of 8 ns around it would give its midpoint instead.)
# =============================================================================

analyze oneway 1101 0

expect "SELECT n FROM stats WHERE scope = 'wrapper' AND node = 2 AND metric = 'latency'" 1101
expect "SELECT ns, source FROM p2p WHERE bytes = 4" "9000 + 2.5 * 550|proxy"
expect "SELECT value FROM meta WHERE key = 'p2p_ns'" "9000 + 2.5 * 550"
# one host with threads: host_spread 0, so every imbalance is 0 / 10375
expect "SELECT COUNT(*), MIN(imbalance), MAX(imbalance) FROM ops" "1101|0|0"

# =============================================================================
# wide (tests/oracles/synth_trace.c): gred g (node 1) has 100 contributors, c0 =
# q, c1 .. c99 = threads 0 .. 98, as on a 128-core node.  Per operation the
# 1st arrival (q) departs 100th, the 100th (thread 98, which continued)
# departs 1st, and the a-th departs a-th for a = 2 .. 99: 100 cells at 100 %.
# The report prints Table 1 of g: as text in blocks of 10 departure columns
# ("departures 1-10 of 100" ...), as CSV and JSON in long form (one row per
# arrival and departure with operations).
# =============================================================================

analyze wide 3 0

expect "SELECT fanin FROM wrappers WHERE node = 1" 100
expect "SELECT COUNT(*), SUM(count), MIN(percent), MAX(percent) FROM order_matrix WHERE node = 1" \
    "100|300|100|100"
expect "SELECT COUNT(*) FROM order_matrix WHERE node = 1 AND departure =
        CASE arrival WHEN 1 THEN 100 WHEN 100 THEN 1 ELSE arrival END" 100
expect "SELECT arrival, departure FROM orders WHERE node = 1 AND contributor = 99" "100|1"
expect "SELECT arrival, departure FROM orders WHERE node = 1 AND contributor = 0" "1|100"

CTX="wide report"
WR=$TMP/wide-skip0
for fmt in text csv json; do
    st=0
    "$PAPANALYZE" -f $fmt "$DB" >"$WR.$fmt" 2>"$WR.$fmt.err" || st=$?
    [ "$st" -eq 0 ] || die "[$CTX] papanalyze -f $fmt on a 100-contributor gred: exit $st: $(cat "$WR.$fmt.err")"
done
# text: 10 blocks; in block 1 (departures 1-10) arrival 100 is 100.0 in the
# first column and arrival 5 in the fifth; in block 10 (91-100) arrival 1 is
# 100 in the last column; every block has the 100 arrival rows
awk 'BEGIN { FS = " +" }
     /^Arrival x departure order at g .*departures [0-9]+-[0-9]+ of 100/ {
         b++; split($0, x, "departures "); split(x[2], y, "[- ]"); lo[b] = y[1]; hi[b] = y[2]
         getline; rows = 0; inb = 1; next }
     /^$/ { inb = 0 }
     inb && /^[0-9]/ { rows++; n[b] = rows; cell[b, $1] = $0 }
     END {
         if (b != 10) { print "blocks: " b; exit 1 }
         for (i = 1; i <= 10; i++)
             if (n[i] != 100 || lo[i] != 10 * i - 9 || hi[i] != 10 * i) {
                 print "block " i ": " n[i] " rows, " lo[i] "-" hi[i]; exit 1 }
         split(cell[1, 100], r, " +"); if (r[2] != 100 || r[3] != 0) { print "row 100: " cell[1, 100]; exit 1 }
         split(cell[1, 5], r, " +"); if (r[6] != 100 || r[5] != 0) { print "row 5: " cell[1, 5]; exit 1 }
         split(cell[10, 1], r, " +"); if (r[11] != 100 || r[10] != 0) { print "row 1: " cell[10, 1]; exit 1 }
     }' "$WR.text" >"$WR.why" || die "[$CTX] text Table 1 of g: $(cat "$WR.why")"
NCHECKS=$((NCHECKS + 1))
# CSV: the table orders/g in long form, one row per cell with operations
sed -n '/^# table: orders\/g$/,/^$/p' "$WR.csv" >"$WR.orders.csv"
[ "$(sed -n 2p "$WR.orders.csv")" = "arrival,departure,count,percent" ] ||
    die "[$CTX] CSV orders/g header: $(sed -n 2p "$WR.orders.csv")"
[ "$(grep -c '^[0-9]' "$WR.orders.csv")" -eq 100 ] || die "[$CTX] CSV orders/g: not 100 rows"
grep -qx '1,100,3,100.00' "$WR.orders.csv" && grep -qx '100,1,3,100.00' "$WR.orders.csv" &&
    grep -qx '57,57,3,100.00' "$WR.orders.csv" || die "[$CTX] CSV orders/g: wrong cells"
NCHECKS=$((NCHECKS + 1))
# JSON: valid, the same 100 cells
python3 - "$WR.json" <<'PY' || die "[$CTX] JSON orders/g"
import json, sys
doc = json.load(open(sys.argv[1]))
t = [t for t in doc["tables"] if t["name"] == "orders/g"]
assert len(t) == 1, "no table orders/g"
rows = t[0]["rows"]
assert len(rows) == 100, len(rows)
cells = {(r["arrival"], r["departure"]): (r["count"], r["percent"]) for r in rows}
assert cells[(1, 100)] == (3, 100.0) and cells[(100, 1)] == (3, 100.0) and cells[(57, 57)] == (3, 100.0)
PY
NCHECKS=$((NCHECKS + 1))

# =============================================================================
# Missing pieces of an archive are errors, not silently wrong times: without a
# location's local definitions (N.def) or a host's clock offsets (ClockOffset
# records), OTF2 leaves that location's times uncorrected (1 ms off on gred3's
# host B).  papanalyze exits 1, names the locations or host, writes nothing.
# =============================================================================

# refuse TAG DIR TEXT: papanalyze DIR/traces.otf2 exits 1 with TEXT, no DIR/traces.db
refuse() {
    CTX=$1
    st=0
    "$PAPANALYZE" --skip 0 --quiet "$2/traces.otf2" >"$TMP/refused.out" 2>&1 || st=$?
    [ "$st" -eq 1 ] || die "[$CTX] exit $st, expected 1: $(cat "$TMP/refused.out")"
    grep -qF -- "$3" "$TMP/refused.out" ||
        die "[$CTX] expected '$3', got: $(cat "$TMP/refused.out")"
    [ ! -e "$2/traces.db" ] || die "[$CTX] a database was written"
    NCHECKS=$((NCHECKS + 1))
}

"$SYNTH_TRACE" gred3 "$TMP/nodef" || die "$SYNTH_TRACE gred3 failed"
rm "$TMP/nodef/traces/65536.def"
refuse "one N.def missing" "$TMP/nodef" \
    "error: location 65536 ('thread 3'): no local definitions ($TMP/nodef/traces/65536.def is missing)"
rm "$TMP/nodef/traces/"*.def
refuse "every N.def missing" "$TMP/nodef" \
    "error: locations 0 ('thread 0'), 1 ('thread 1'), 2 ('thread 2'), 3 ('service p1#0') and 2 more: no local definitions"
"$SYNTH_TRACE" --no-offsets 1 gred3 "$TMP/nooff" || die "$SYNTH_TRACE --no-offsets 1 failed"
refuse "host B without clock offsets" "$TMP/nooff" \
    "error: host 1 ('B', node-b.synthetic): no clock offsets in the local definitions of location 65536 ('thread 3')"
"$SYNTH_TRACE" --no-offsets 0 gred3 "$TMP/nooff0" || die "$SYNTH_TRACE --no-offsets 0 failed"
refuse "rank 0 without clock offsets" "$TMP/nooff0" "error: host 0 ('A', node-a.synthetic): no clock offsets"

# =============================================================================
# foreign: a valid OTF2 archive without paptree's properties is refused
# =============================================================================

CTX=foreign
"$SYNTH_TRACE" foreign "$TMP/foreign" || die "[$CTX] $SYNTH_TRACE foreign failed"
st=0
"$PAPANALYZE" --skip 0 --quiet "$TMP/foreign/traces.otf2" >"$TMP/foreign.out" 2>&1 || st=$?
[ "$st" -ne 0 ] || die "[$CTX] papanalyze accepted a trace without PAPTREE:: properties"
[ "$st" -lt 128 ] || die "[$CTX] papanalyze died of signal $((st - 128)) on a foreign trace"
[ -s "$TMP/foreign.out" ] || die "[$CTX] papanalyze refused a foreign trace without a message"
NCHECKS=$((NCHECKS + 1))

echo "$ME: ok: $NCHECKS checks"
