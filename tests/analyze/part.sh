#!/bin/sh
# part.sh - papanalyze's reading threads, --ops A:B and its progress lines
# on tree traces (docs/analysis-db.md, "Part of a trace").
#
#   sh tests/analyze/part.sh            (from the repository root, after make)
#
# 1. The same database whatever the number of reading threads: every table
#    but meta, row for row, with --read-threads 1 (OTF2's own merge of all
#    locations) as the reference, on traces with every kind of event (a
#    proxy's service thread, an algorithm node's MPI events, auto's choice
#    and PAP arrival reports as parameter events).
# 2. --ops A:B: exactly the operations A..B of each instance, whose visits
#    are the whole trace's visits of those operations to the nanosecond (the
#    time line still starts at the trace's first event); the events outside
#    are skipped, not read and dropped (meta events_read, against the
#    trace's events); the summary line says so.
# 3. Errors: a range with no operation, --ranks and --call-site on a tree
#    trace, --read-threads 0; an existing database stays as it was.
# 4. Progress lines (PAPTREE_PROGRESS_S=0 prints them from the start): the
#    rate and the time left; -q prints nothing.
set -eu

. tests/lib.sh
PAPANALYZE=${PAPANALYZE:-bin/papanalyze}
SYNTH_TRACE=${SYNTH_TRACE:-build/tests/synth_trace}
ME=part.sh
for prog in "$PAPANALYZE" "$SYNTH_TRACE" bin/gsum; do
    [ -x "$prog" ] || fail "$ME: $prog is not built (run make first)"
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/part.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
MPIRUN=$(mpirun_cmd)

# Every table but meta, its rows sorted (operations that complete at the
# same nanosecond may stream in either order; their rows are what counts).
dump() {
    for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table'
                             AND name <> 'meta' ORDER BY name"); do
        echo "== $t"
        sqlite3 "$1" "SELECT * FROM $t" | LC_ALL=C sort
    done
}

meta() { sqlite3 "$1" "SELECT value FROM meta WHERE key = '$2'"; }

# ---- the traces ---------------------------------------------------------------
$MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 3000 -s 4 --trace "$TMP/demo" \
    >"$TMP/demo.out" 2>&1 || { cat "$TMP/demo.out" >&2; fail "$ME: gsum demo"; }
$MPIRUN -np 4 bin/gsum -p examples/auto-4x1.pathmap -n 200 -s 4096 --trace "$TMP/auto" \
    >"$TMP/auto.out" 2>&1 || { cat "$TMP/auto.out" >&2; fail "$ME: gsum auto"; }
"$SYNTH_TRACE" pap "$TMP/pap" >/dev/null || fail "$ME: synth_trace pap"
"$SYNTH_TRACE" algo "$TMP/algo" >/dev/null || fail "$ME: synth_trace algo"

# ---- 1. the same database with 1, 2, 3 and 8 reading threads -------------------
for tr in demo auto pap algo; do
    for j in 1 2 3 8; do
        "$PAPANALYZE" -q --skip 0 --read-threads $j -o "$TMP/$tr-$j.db" "$TMP/$tr/traces.otf2" \
            >"$TMP/$tr-$j.out" 2>&1 ||
            { cat "$TMP/$tr-$j.out" >&2; fail "$ME: $tr: --read-threads $j failed"; }
        dump "$TMP/$tr-$j.db" >"$TMP/$tr-$j.dump"
        [ -s "$TMP/$tr-$j.dump" ] || fail "$ME: $tr: empty dump"
        if [ $j != 1 ] && ! cmp -s "$TMP/$tr-1.dump" "$TMP/$tr-$j.dump"; then
            diff "$TMP/$tr-1.dump" "$TMP/$tr-$j.dump" | head -20 >&2
            fail "$ME: $tr: --read-threads $j differs from one reading thread"
        fi
    done
    # as many threads as asked, at most one per location with events
    locs=$(sqlite3 "$TMP/$tr-8.db" "SELECT COUNT(*) FROM locations WHERE visits > 0")
    [ "$(meta "$TMP/$tr-8.db" read_threads)" = "$locs" ] ||
        fail "$ME: $tr: --read-threads 8 ran $(meta "$TMP/$tr-8.db" read_threads) threads, expected $locs (one per location)"
    [ "$(meta "$TMP/$tr-2.db" read_threads)" = 2 ] || fail "$ME: $tr: --read-threads 2"
done
# The merge keeps time order across the threads' shares: with a share read
# ahead of the others, operations would stay in flight until the others
# caught up, and papanalyze refuses more than 65536 in flight per instance.
# (100 + 140000) / 2 = 70050 operations per instance, more than that.
$MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 140000 -s 4 --trace "$TMP/long" \
    >"$TMP/long.out" 2>&1 || { cat "$TMP/long.out" >&2; fail "$ME: gsum long"; }
"$PAPANALYZE" --no-report --read-threads 2 -o "$TMP/long.db" "$TMP/long/traces.otf2" \
    >"$TMP/long.db.out" 2>&1 ||
    { cat "$TMP/long.db.out" >&2; fail "$ME: long trace, two reading threads"; }
grep -q ", 140100 operations (140080 used)" "$TMP/long.db.out" ||
    { cat "$TMP/long.db.out" >&2; fail "$ME: long trace: not 140100 operations"; }
rm -rf "$TMP/long" "$TMP/long.db"
# the demo's auto trace really has choices and messages in it
[ "$(sqlite3 "$TMP/auto-2.db" "SELECT COUNT(*) FROM auto_choices")" -gt 0 ] ||
    fail "$ME: auto: no choice of auto read"
[ "$(sqlite3 "$TMP/auto-2.db" "SELECT COUNT(*) FROM algo_msgs")" -gt 0 ] ||
    fail "$ME: auto: no algorithm message read"

# ---- 2. --ops A:B ------------------------------------------------------------------
WHOLE=$TMP/demo-1.db
events=$(meta "$WHOLE" events)
# Gsum alternates its two tree instances over the 100 warm-up and the 3000
# measured iterations: (100 + 3000) / 2 = 1550 operations each, op 0..1549
[ "$(sqlite3 "$WHOLE" "SELECT COUNT(*) || ' ' || MAX(op) FROM ops WHERE instance = 0")" = "1550 1549" ] ||
    fail "$ME: the demo trace's instance 0 should have operations 0..1549"
for range in 1200:1209 0:4 1500:1500; do
    a=${range%:*} b=${range#*:}
    db=$TMP/part-$a.db
    "$PAPANALYZE" --no-report --skip 0 --ops "$range" -o "$db" "$TMP/demo/traces.otf2" \
        >"$db.out" 2>&1 || { cat "$db.out" >&2; fail "$ME: --ops $range failed"; }
    # two instances, B - A + 1 operations each (worked out: the op ids A..B)
    n=$(sqlite3 "$db" "SELECT COUNT(*) || ' ' || MIN(op) || ' ' || MAX(op) FROM ops")
    [ "$n" = "$((2 * (b - a + 1))) $a $b" ] ||
        fail "$ME: --ops $range: ops holds '$n' (count min max), expected '$((2 * (b - a + 1))) $a $b'"
    sqlite3 "$db" "SELECT * FROM visits ORDER BY instance, op, node, contributor" >"$db.v"
    sqlite3 "$WHOLE" "SELECT * FROM visits WHERE op BETWEEN $a AND $b
                      ORDER BY instance, op, node, contributor" >"$db.w"
    [ -s "$db.w" ] || fail "$ME: --ops $range: the whole trace has no such visits"
    cmp -s "$db.v" "$db.w" || { diff "$db.w" "$db.v" | head >&2;
        fail "$ME: --ops $range: its visits differ from the whole trace's"; }
    # skipped, not read: a few hundred events at most beside the window's
    # 16 per operation (the demo's), against the trace's 48,000 and more
    read=$(meta "$db" events_read)
    [ "$read" -lt $((16 * 2 * (b - a + 1) + 2000)) ] ||
        fail "$ME: --ops $range read $read events of $events: the rest was not skipped"
    [ "$(meta "$db" ops_first)-$(meta "$db" ops_last)" = "$a-$b" ] ||
        fail "$ME: --ops $range: meta ops_first/ops_last"
    grep -q "M events read, $((2 * (b - a + 1))) operations" "$db.out" ||
        { cat "$db.out" >&2; fail "$ME: --ops $range: the summary line"; }
done

# ---- 3. errors, and nothing replaced -----------------------------------------------
cp "$WHOLE" "$TMP/keep.db"
sum=$(cksum <"$TMP/keep.db")
run_fails 60 "$TMP/e1" "$PAPANALYZE" -q --ops 900000:900009 -o "$TMP/keep.db" \
    "$TMP/demo/traces.otf2"
grep -q "error: --ops 900000:900009: the trace has no operation in that range: nothing written" \
    "$TMP/e1" || { cat "$TMP/e1" >&2; fail "$ME: the message for an empty range"; }
[ "$(cksum <"$TMP/keep.db")" = "$sum" ] || fail "$ME: an empty range replaced the database"
for opt in "--ranks 0" "--call-site x.c:1"; do
    # shellcheck disable=SC2086
    run_fails 60 "$TMP/e2" "$PAPANALYZE" -q $opt -o "$TMP/keep.db" "$TMP/demo/traces.otf2"
    grep -q -- "${opt%% *}: a tree trace's operations need every host" "$TMP/e2" ||
        { cat "$TMP/e2" >&2; fail "$ME: the message for $opt on a tree trace"; }
done
[ "$(cksum <"$TMP/keep.db")" = "$sum" ] || fail "$ME: a refused option replaced the database"
set +e
"$PAPANALYZE" --read-threads 0 "$TMP/demo/traces.otf2" >"$TMP/e3" 2>&1
rc=$?
set -e
[ $rc = 2 ] || fail "$ME: --read-threads 0 exited $rc, expected 2 (usage)"
grep -q "read-threads" "$TMP/e3" || fail "$ME: --read-threads 0: no message"

# ---- 4. progress ------------------------------------------------------------------
PAPTREE_PROGRESS_S=0 "$PAPANALYZE" --no-report -o "$TMP/p.db" "$TMP/demo/traces.otf2" \
    >"$TMP/p.out" 2>"$TMP/p.err" || { cat "$TMP/p.err" >&2; fail "$ME: progress run"; }
grep -Eq "^papanalyze: +[0-9.]+ % \([0-9.]+ of [0-9.]+ M events, [0-9.]+ M events/s, [0-9.]+ s(, [0-9.]+ s left)?\)$" \
    "$TMP/p.err" || { cat "$TMP/p.err" >&2; fail "$ME: no progress line with rate and time left"; }
rm -f "$TMP/p.db"
PAPTREE_PROGRESS_S=0 "$PAPANALYZE" -q -o "$TMP/p.db" "$TMP/demo/traces.otf2" \
    >"$TMP/q.out" 2>&1 || fail "$ME: -q run"
[ ! -s "$TMP/q.out" ] || { cat "$TMP/q.out" >&2; fail "$ME: -q printed something"; }

echo "$ME: ok"
