#!/bin/sh
# mpi.sh - papanalyze and papviz on application traces (the profiling
# library's archives, INS_PROP_KIND = mpi), against values computed by hand.
#
#   sh tests/analyze/mpi.sh            (from the repository root, after make)
#
# build/tests/synth_mpi (tests/oracles/synth_mpi.c) writes a 3-rank trace
# whose every time was chosen by hand (its header lists them): two call
# sites of MPI_Allreduce on two communicators, an MPI_Iallreduce completed
# by MPI_Wait (after a vain MPI_Test), a fallback, and clocks that disagree
# (rank 1 is 1000 ns behind rank 0, rank 2 500 ns ahead).  Each expected
# value below is worked out from those times with the definitions of
# docs/analysis-db.md ("Application traces"), the arithmetic next to it;
# times are ns from the earliest event (rank 0's first call, 1000 on its
# clock, is 0).
#
# Also: call sites symbolised with addr2line against a program compiled
# here with -g (its function's address from nm), without debug information
# and without addr2line; damaged archives refused in one line; the chart;
# and a trace written by the writer itself (build/tests/ins_mpi_write, np 2).
# Environment: PAPANALYZE, PAPVIZ, SYNTH_MPI (defaults bin/..., build/tests/
# synth_mpi), KEEP=1 keeps the temporary directory.
set -eu

PAPANALYZE=${PAPANALYZE:-bin/papanalyze}
PAPVIZ=${PAPVIZ:-bin/papviz}
SYNTH_MPI=${SYNTH_MPI:-build/tests/synth_mpi}
ME=mpi.sh

die() {
    echo "$ME: FAIL: $*" >&2
    exit 1
}

for prog in "$PAPANALYZE" "$PAPVIZ" "$SYNTH_MPI"; do
    [ -x "$prog" ] || die "$prog is not built (run make first)"
done
for tool in sqlite3 cc nm addr2line xmllint; do
    command -v $tool >/dev/null 2>&1 || die "$tool is not installed"
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpi.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
    echo "$ME: keeping $TMP"
else
    trap 'rm -rf "$TMP"' EXIT
fi

. "$(dirname "$0")/expect.sh"

# ---- the hand-made trace ------------------------------------------------------

"$SYNTH_MPI" "$TMP/t" || die "synth_mpi failed"
"$PAPANALYZE" "$TMP/t/traces.otf2" > "$TMP/report.txt" 2> "$TMP/err.txt" ||
    { cat "$TMP/err.txt" >&2; die "papanalyze refused the synthetic trace"; }
DB=$TMP/t/traces.db
CTX=tables

expect "SELECT value FROM meta WHERE key = 'kind'" "mpi"
expect "SELECT value FROM meta WHERE key = 'ranks'" "3"
expect "SELECT value FROM meta WHERE key = 'rules'" "allreduce:>=64K=rd"
expect "SELECT group_concat(comm || ':' || name || ':' || size || ':' || ranks, ' ')
        FROM (SELECT * FROM mpi_comms ORDER BY comm)" "0:MPI_COMM_WORLD:3:0,1,2 2:split:2:0,2"
# sites are numbered as first met on the time line: A at 1000, B at 5000, C at 9000
expect "SELECT group_concat(site || ':' || name || ':' || module || ':' || offset || ':' || label, ' ')
        FROM (SELECT * FROM mpi_callsites ORDER BY site)" \
       "0:/nonexistent/app+0x1234:/nonexistent/app:4660:/nonexistent/app+0x1234 1:/nonexistent/app+0x2000:/nonexistent/app:8192:/nonexistent/app+0x2000 2:/nonexistent/app+0x3000:/nonexistent/app:12288:/nonexistent/app+0x3000"
expect "SELECT COUNT(*) FROM mpi_calls" 13
# bytes is the rank's message, count x the datatype's size (1 x 8, 131072 x 1, 2 x 8), not
# what the trace counts as sent and received (Score-P's: the communicator's size times it)
expect "SELECT group_concat(bytes || ':' || bytes_sent || ':' || bytes_recv, ' ')
        FROM (SELECT DISTINCT bytes, bytes_sent, bytes_recv FROM mpi_calls ORDER BY bytes)" \
       "8:24:24 16:48:48 131072:262144:262144"

# Every call, by rank then enter: a = enter - the operation's earliest enter;
# wait = min(largest a of the operation - a, elapsed).
# rank comm crank site coll root bytes count dtype op enter leave elapsed algo fallback request seq a wait
COLS="rank, comm, comm_rank, site, collective, root, bytes, count, dtype, op, enter, leave,
      elapsed, algorithm, fallback, request, seq, a, wait"
call() { expect "SELECT $COLS FROM mpi_calls WHERE call = $1" "$2"; }
# site A on world: enters 1000 1200(r1) 1600(r2) -> 0 200 600, leave 2000 -> 1000
call 0  "0|0|0|0|allreduce|NULL|8|1|MPI_DOUBLE|MPI_SUM|0|1000|1000|native|NULL|NULL|0|0|600-0"
call 1  "0|0|0|0|allreduce|NULL|8|1|MPI_DOUBLE|MPI_SUM|2000|3100|1100|native|NULL|NULL|1|0|900-0"
# site B on split (ranks 0, 2): 5000 5050 -> 4000 4050, leaves 6000 -> 5000
call 2  "0|2|0|1|allreduce|NULL|131072|131072|MPI_BYTE|MPI_SUM|4000|5000|1000|rd|NULL|NULL|0|0|50-0"
call 3  "0|2|0|1|allreduce|NULL|131072|131072|MPI_BYTE|MPI_SUM|6000|7000|1000|rd|NULL|NULL|1|0|0"
# site C: started 9000, completed by the wait that leaves at 9800 -> 8000 .. 8800
call 4  "0|0|0|2|iallreduce|NULL|16|2|MPI_DOUBLE|MPI_SUM|8000|8800|800|native|NULL|1|2|0|200-0"
call 5  "1|0|1|0|allreduce|NULL|8|1|MPI_DOUBLE|MPI_SUM|200|1000|800|native|NULL|NULL|0|200|600-200"
call 6  "1|0|1|0|allreduce|NULL|8|1|MPI_DOUBLE|MPI_SUM|2100|3100|1000|native|NULL|NULL|1|100|900-100"
call 7  "1|0|1|2|iallreduce|NULL|16|2|MPI_DOUBLE|MPI_SUM|8200|8800|600|native|NULL|1|2|200|0"
call 8  "2|0|2|0|allreduce|NULL|8|1|MPI_DOUBLE|MPI_SUM|600|1000|400|native|NULL|NULL|0|600|0"
call 9  "2|0|2|0|allreduce|NULL|8|1|MPI_DOUBLE|MPI_SUM|2900|3100|200|native|NULL|NULL|1|900|0"
call 10 "2|2|1|1|allreduce|NULL|131072|131072|MPI_BYTE|MPI_SUM|4050|5000|950|rd|NULL|NULL|0|50|0"
call 11 "2|2|1|1|allreduce|NULL|131072|131072|MPI_BYTE|MPI_SUM|6000|7100|1100|rd|datatype|NULL|1|0|0"
call 12 "2|0|2|2|iallreduce|NULL|16|2|MPI_DOUBLE|MPI_SUM|8100|8900|800|native|NULL|7|2|100|200-100"

# Operations: spread w = max a; mean a; alpha = mean |a - mean a|;
# T = elapsed of the last arrival (lowest rank on a tie); e-bar = mean elapsed.
OCOLS="collective, site, nranks, complete, bytes, t0, spread, avg_imbalance, op_time,
       avg_elapsed, avg_factor, worst_factor, wait, last_rank"
op() { expect "SELECT $OCOLS FROM mpi_ops WHERE comm = $1 AND seq = $2" "$3"; }
# a = 0 200 600, mean 800/3; |dev| = 800/3, 200/3, 1000/3 -> alpha = 2000/9; T = 400 (rank 2)
op 0 0 "allreduce|0|3|1|8|0|600|2000/9|400|(1000+800+400)/3|2000/9/400|600/400|600+400|2"
# a = 0 100 900, mean 1000/3; |dev| = 1000/3 700/3 1700/3 -> alpha = 3400/9; T = 200
op 0 1 "allreduce|0|3|1|8|2000|900|3400/9|200|(1100+1000+200)/3|3400/9/200|900/200|900+800|2"
# a = 0 200 100, mean 100; alpha = (100+100+0)/3; last rank 1, T = 600
op 0 2 "iallreduce|2|3|1|16|8000|200|200/3|600|(800+600+800)/3|200/3/600|200/600|200+100|1"
# a = 0 50; alpha = 25; T = 950 (rank 2)
op 2 0 "allreduce|1|2|1|131072|4000|50|25|950|(1000+950)/2|25/950|50/950|50|2"
# a = 0 0: the tie goes to comm rank 0 (world rank 0), T = 1000
op 2 1 "allreduce|1|2|1|131072|6000|0|0|1000|(1000+1100)/2|0|0|0|0"

# Per site: time = sum of elapsed, wait = sum of waits, wait_pct = 100 wait / time
SCOLS="collectives, calls, ops, min_bytes, max_bytes, algorithms, fallbacks,
       COALESCE(fallback_reasons, 'NULL'), mean_time, time, wait, wait_pct, op_time, spread,
       max_spread, avg_imbalance, avg_factor, worst_factor, max_worst_factor, last_rank,
       last_count"
site() { expect "SELECT $SCOLS FROM mpi_sites WHERE site = $1" "$2"; }
site 0 "allreduce|6|2|8|8|native|0|NULL|(1000+800+400+1100+1000+200)/6|4500|600+400+900+800|100*2700/4500|(400+200)/2|(600+900)/2|900|(2000/9+3400/9)/2|(2000/9/400+3400/9/200)/2|(1.5+4.5)/2|4.5|2|2"
site 1 "allreduce|4|2|131072|131072|rd|1|datatype|(1000+950+1000+1100)/4|4050|50|100*50/4050|(950+1000)/2|25|50|12.5|25/950/2|50/950/2|50/950|0|1"
site 2 "iallreduce|3|1|16|16|native|0|NULL|(800+600+800)/3|2200|300|100*300/2200|600|200|200|200/3|200/3/600|200/600|200/600|1|1"

# ---- the report ----------------------------------------------------------------

CTX=report
# ranked by time lost waiting: A (2700 ns), C (300), B (50); times in us
cat > "$TMP/want.txt" <<'WANT'
/nonexistent/app+0x1234  allreduce                 6 8 B               native               0.75      0.75      0.90   1.22   3.00       2.70  60.0 %  2 (2 of 2)     0
/nonexistent/app+0x3000  iallreduce                3 16 B              native               0.73      0.20      0.20   0.11   0.33       0.30  13.6 %  1 (1 of 1)     0
/nonexistent/app+0x2000  allreduce                 4 128.0 KiB         rd                   1.01      0.03      0.05   0.01   0.03       0.05   1.2 %  0 (1 of 2)     1 (datatype)
WANT
grep '^/nonexistent' "$TMP/report.txt" > "$TMP/got.txt" || true
diff "$TMP/want.txt" "$TMP/got.txt" >&2 || die "the report's call-site table differs (above: - expected, + got)"
grep -q '^Collectives by call site, ranked by time lost waiting' "$TMP/report.txt" ||
    die "no 'Collectives by call site' section"
grep -q '^Application trace: 3 ranks, 13 calls, 5 operations matched$' "$TMP/report.txt" ||
    die "the report's first line"
# advice: A loses 60 % waiting, worst factor 3 >= 1, native: rule 'wait', <= its 8 bytes;
# B: 128 KiB, worst factor 0.03 < 1, rd, 2 ranks (a power of two): rule 'large';
# C: an iallreduce, which no rule names: nothing
cat > "$TMP/want.txt" <<'WANT'
  call site /nonexistent/app+0x1234 loses 60.0 % of its time waiting for rank 2 (last in 2 of 2 operations; worst case imbalance 3.00 x the operation's own time; rule 'wait'): try --algo 'allreduce:<=8=prr(arrival=history)'
  call site /nonexistent/app+0x2000 sends 128K-byte and larger messages with balanced arrivals (worst case imbalance 0.03 x the operation's own time; rule 'large'): try --algo 'allreduce:>=128K=rabenseifner'
WANT
grep '^  call site ' "$TMP/report.txt" > "$TMP/got.txt" || true
diff "$TMP/want.txt" "$TMP/got.txt" >&2 || die "the advice differs (above: - expected, + got)"
NCHECKS=$((NCHECKS + 5))

# the database alone reports the same; csv and json parse
"$PAPANALYZE" "$DB" > "$TMP/again.txt" || die "papanalyze DB failed"
grep -v '^papanalyze: ' "$TMP/report.txt" | diff - "$TMP/again.txt" >&2 ||
    die "the report of the database differs from the one after the analysis"
"$PAPANALYZE" -f csv "$DB" > "$TMP/r.csv" || die "papanalyze -f csv failed"
[ "$(grep -c '^[0-9]' "$TMP/r.csv")" = 3 ] || die "csv: not 3 site rows"
grep -q '^0,/nonexistent/app+0x1234,/nonexistent/app+0x1234,,allreduce,6,2,8,8,native,0,,750' "$TMP/r.csv" ||
    { cat "$TMP/r.csv" >&2; die "csv: site A's row"; }
"$PAPANALYZE" -f json "$DB" > "$TMP/r.json" || die "papanalyze -f json failed"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="mpi" and [s["site"] for s in d["sites"]]==[0,2,1], d' "$TMP/r.json" ||
    die "json: not the three sites in wait order"
NCHECKS=$((NCHECKS + 4))

# ---- symbolisation ---------------------------------------------------------------

CTX=symbols
mkdir "$TMP/sym"
# solver_step's first instruction is on line 3; the site's return address is
# one byte after it, so addr2line gets the function's own address
printf '#include <stdio.h>\nint solver_calls;\nvoid solver_step(int n) { solver_calls += n; }\nint main(void) { solver_step(1); printf("%%d\\n", solver_calls); return 0; }\n' > "$TMP/sym/solver.c"
cc -g -O0 -o "$TMP/sym/app" "$TMP/sym/solver.c" || die "cannot compile the test program"
addr=$(nm "$TMP/sym/app" | awk '$3 == "solver_step" { print $1 }')
[ -n "$addr" ] || die "nm does not list solver_step"
site=$(printf '%s+0x%x' "$TMP/sym/app" $((0x$addr + 1)))
"$SYNTH_MPI" --site-a "$site" "$TMP/s1" || die "synth_mpi --site-a failed"
"$PAPANALYZE" -q "$TMP/s1/traces.otf2" || die "papanalyze on the symbolised trace failed"
DB=$TMP/s1/traces.db
expect "SELECT function, file, line, label, module FROM mpi_callsites WHERE site = 0" \
       "solver_step|$TMP/sym/solver.c|3|solver.c:3|$TMP/sym/app"
expect "SELECT DISTINCT function || ' ' || label FROM mpi_calls WHERE site = 0" "solver_step solver.c:3"
"$PAPANALYZE" "$DB" | grep -q '^  call site .*/sym/app+0x[0-9a-f]* (solver.c:3) loses 60.0 %' ||
    die "the advice does not name solver.c:3"
# without debug information: the function only
objcopy --strip-debug "$TMP/sym/app" "$TMP/sym/app-nodebug"
"$SYNTH_MPI" --site-a "$(printf '%s+0x%x' "$TMP/sym/app-nodebug" $((0x$addr + 1)))" "$TMP/s2"
"$PAPANALYZE" -q "$TMP/s2/traces.otf2" || die "papanalyze without debug information failed"
DB=$TMP/s2/traces.db
expect "SELECT function, file, line, label FROM mpi_callsites WHERE site = 0" \
       "solver_step|NULL|NULL|solver_step"
# without addr2line: the names, and the analysis does not fail
PAPTREE_ADDR2LINE=/nonexistent/addr2line "$PAPANALYZE" -q -o "$TMP/s3.db" "$TMP/s1/traces.otf2" ||
    die "papanalyze without addr2line failed"
DB=$TMP/s3.db
expect "SELECT function, label FROM mpi_callsites WHERE site = 0" "NULL|$site"

# ---- damaged archives: one line, exit 1, no database --------------------------------

refuse() {   # NAME WHAT-THE-LINE-SAYS
    rc=0
    "$PAPANALYZE" -q "$TMP/$1/traces.otf2" > "$TMP/out.txt" 2> "$TMP/err.txt" || rc=$?
    [ "$rc" = 1 ] || { cat "$TMP/err.txt" >&2; die "$1: exit $rc, expected 1"; }
    [ "$(wc -l < "$TMP/err.txt")" = 1 ] || { cat "$TMP/err.txt" >&2; die "$1: not one line"; }
    grep -q "^papanalyze: $TMP/$1/traces.otf2: error: .*$2" "$TMP/err.txt" ||
        { cat "$TMP/err.txt" >&2; die "$1: the message does not say '$2'"; }
    [ ! -e "$TMP/$1/traces.db" ] || die "$1: a database was written"
    NCHECKS=$((NCHECKS + 1))
}
for d in no-offsets no-leave no-complete no-attr; do
    "$SYNTH_MPI" --damage $d "$TMP/$d" || die "synth_mpi --damage $d failed"
done
refuse no-offsets "no clock offsets"
refuse no-leave "never leaves MPI_Wait: the trace is truncated"
refuse no-complete "never completed"
refuse no-attr "missing one of the attributes"
# an event file cut in half
"$SYNTH_MPI" "$TMP/cut"
evt=$(ls "$TMP"/cut/traces/*.evt | head -2 | tail -1)
head -c $(( $(wc -c < "$evt") / 2 )) "$evt" > "$evt.half" && mv "$evt.half" "$evt"
refuse cut "cannot read the events"

# ---- papviz arrivals-by-site ------------------------------------------------------------

CTX=papviz
"$PAPVIZ" arrivals-by-site "$TMP/t/traces.db" -o "$TMP/a.svg" > "$TMP/out.txt" || die "papviz arrivals-by-site failed"
xmllint --noout "$TMP/a.svg" || die "arrivals-by-site: not valid XML"
[ "$(grep -c '<g class="a-site">' "$TMP/a.svg")" = 3 ] || die "arrivals-by-site: not one row per site"
# in the report's order, each site's ranks: A and C on 3 ranks, B on 2
grep -o '<title>/nonexistent/app+0x[0-9]*' "$TMP/a.svg" | tr '\n' ' ' > "$TMP/order.txt"
[ "$(cat "$TMP/order.txt")" = "<title>/nonexistent/app+0x1234 <title>/nonexistent/app+0x3000 <title>/nonexistent/app+0x2000 " ] ||
    die "arrivals-by-site: rows not in the report's order: $(cat "$TMP/order.txt")"
[ "$(grep -c '<g class="a-r">' "$TMP/a.svg")" = 8 ] || die "arrivals-by-site: not 3 + 3 + 2 rank marks"
grep -q '<title>rank 2: mean arrival 0.750 us after the earliest (min 0.600, max 0.900) over 2 calls; most often last</title>' "$TMP/a.svg" ||
    die "arrivals-by-site: rank 2 of site A"
rc=0
"$PAPVIZ" pap "$TMP/t/traces.db" -o "$TMP/p.svg" 2> "$TMP/err.txt" || rc=$?
[ "$rc" = 1 ] && grep -q "arrivals-by-site" "$TMP/err.txt" || die "papviz pap on an application trace's database: exit $rc"
# and arrivals-by-site refuses a tree trace's database
SYNTH_TRACE=${SYNTH_TRACE:-build/tests/synth_trace}
"$SYNTH_TRACE" gred3 "$TMP/tree" > /dev/null || die "synth_trace gred3 failed"
"$PAPANALYZE" -q --skip 0 "$TMP/tree/traces.otf2" || die "papanalyze of a tree trace failed"
rc=0
"$PAPVIZ" arrivals-by-site "$TMP/tree/traces.db" -o "$TMP/x.svg" 2> "$TMP/err.txt" || rc=$?
[ "$rc" = 1 ] && grep -q "not an application trace's database" "$TMP/err.txt" ||
    { cat "$TMP/err.txt" >&2; die "arrivals-by-site on a tree trace's database: exit $rc"; }
NCHECKS=$((NCHECKS + 7))

# --advise on an application trace: its report, whose advice is the --algo lines
"$PAPANALYZE" --advise "$TMP/t/traces.db" > "$TMP/adv.txt" || die "papanalyze --advise DB failed"
[ "$(grep -c "^  call site .*try --algo '" "$TMP/adv.txt")" = 2 ] || die "--advise: not the two advice lines"
NCHECKS=$((NCHECKS + 1))

# ---- a trace of the writer itself (instrument/api/ins_mpi.h) -----------------------------

# build/tests/ins_mpi_write (tests/mpi/ins_mpi_write.c) records, at np 2, per rank:
# allreduce (world), reduce (its own split, comm 2 + rank), bcast, barrier (self),
# allgather, reduce_scatter_block (world), iallreduce and ibcast (world, completed by
# MPI_Wait / MPI_Test), call k at ins_mpi_write_site_a + k
CTX=writer
WRITER=${INS_MPI_WRITE:-build/tests/ins_mpi_write}
[ -x "$WRITER" ] || die "$WRITER is missing (make all)"
. tests/lib.sh
{
    timeout 120 $(mpirun_cmd) -np 2 "$WRITER" "$TMP/w" calls > "$TMP/w.out" 2>&1 ||
        { cat "$TMP/w.out" >&2; die "ins_mpi_write failed"; }
    "$PAPANALYZE" -q "$TMP/w/traces.otf2" || die "papanalyze refused the writer's trace"
    DB=$TMP/w/traces.db
    line=$(grep -n '^__attribute__((noinline, used)) void ins_mpi_write_site_a(void) {' \
           tests/mpi/ins_mpi_write.c | cut -d: -f1)
    expect "SELECT COUNT(*), COUNT(DISTINCT site) FROM mpi_calls" "16|8"
    expect "SELECT group_concat(comm || ':' || name || ':' || size || ':' || ranks, ' ')
            FROM (SELECT * FROM mpi_comms ORDER BY comm)" \
           "0:MPI_COMM_WORLD:2:0,1 1:MPI_COMM_SELF:1:self 2:comm 2:1:0 3:comm 3:1:1"
    # 6 on world, one reduce on each rank's own split; the barriers on self make none
    expect "SELECT COUNT(*), SUM(complete) FROM mpi_ops" "8|8"
    expect "SELECT COUNT(*) FROM mpi_calls WHERE comm = 1 AND a IS NULL AND collective = 'barrier'" 2
    expect "SELECT DISTINCT function || ' ' || label FROM mpi_callsites" \
           "ins_mpi_write_site_a ins_mpi_write.c:$line"
    expect "SELECT request, fallback FROM mpi_calls WHERE rank = 1 AND collective = 'ibcast'" "78|NULL"
    expect "SELECT fallback FROM mpi_calls WHERE rank = 0 AND collective = 'bcast'" "datatype"
    # the rules' message size: count x a predefined datatype's (4 x MPI_INT, 5 x MPI_FLOAT),
    # else from the counted bytes: allgather of 1 pair_t received 16 at size 2 -> 16 / 2,
    # reduce_scatter_block of 1 derived sent 24 -> 24 / 2
    expect "SELECT group_concat(collective || ':' || bytes, ' ') FROM (SELECT * FROM mpi_calls
            WHERE rank = 0 AND collective IN ('allreduce', 'ibcast', 'allgather',
            'reduce_scatter_block') ORDER BY enter)" \
           "allreduce:16 allgather:8 reduce_scatter_block:12 ibcast:20"
}

echo "$ME: $NCHECKS checks passed"
