#!/bin/sh
# bad-input.sh - papanalyze on bad input: a clear error, exit status 1 (2 for
# usage), no crash, no hang, and an existing database left exactly as it was.
#
#   sh tests/analyze/bad-input.sh [CORRUPTIONS]     (default 300; 100 under ASan)
#
# Makes one small real trace (Gsum on the demo pathmap), then: missing and
# wrong files, a foreign OTF2 trace, output files that must not be replaced,
# usage errors, and CORRUPTIONS random truncations and byte overwrites of the
# archive's files (fixed seed, so a failure can be replayed).
set -eu
. tests/lib.sh

# Under ASan (make check-asan) 100 by default: the first 100 of the same
# plan; papanalyze on randomly damaged archives is what the fuzz tier's
# trace target does under ASan and UBSan by the thousand (make fuzz-short).
if [ "${PAPTREE_SANITIZER:-}" = address ]; then NCORRUPT=${1:-100}; else NCORRUPT=${1:-300}; fi
PA=bin/papanalyze
T=$(mktemp -d /tmp/pa-bad.XXXXXX)
trap 'rm -rf "$T"' EXIT

# run_rc SECONDS OUT CMD...: runs CMD, stdout+stderr to OUT, sets $rc; fails on a hang.
run_rc() {
    secs=$1 out=$2; shift 2
    set +e
    timeout "$secs" "$@" > "$out" 2>&1
    rc=$?
    set -e
    [ "$rc" -ne 124 ] || { cat "$out" >&2; fail "hung: killed after ${secs}s: $*"; }
}

# expect_error RC TEXT CMD...: CMD exits RC and prints TEXT.
expect_error() {
    want=$1 text=$2; shift 2
    run_rc 60 "$T/out" "$@"
    [ "$rc" -eq "$want" ] || { cat "$T/out" >&2; fail "exit $rc, expected $want: $*"; }
    grep -qF -- "$text" "$T/out" || { cat "$T/out" >&2; fail "no '$text' from: $*"; }
}

sum_of() { cksum < "$1"; }

no_partials() {
    left=$(find "$T" -name '*.partial-*' | head -1)
    [ -z "$left" ] || fail "temporary database left behind: $left"
}

# --- a real trace and a good database ---------------------------------------
# shellcheck disable=SC2046 # mpirun_cmd is a word list
$(mpirun_cmd) -np 2 bin/gsum -p pathmaps/demo.pathmap -n 60 -w 5 --trace "$T/good" \
    > "$T/gsum.out" 2>&1 || { cat "$T/gsum.out" >&2; fail "gsum --trace failed"; }
$PA -q "$T/good/traces.otf2" || fail "papanalyze on a good trace failed"
[ -s "$T/good/traces.db" ] || fail "no database written"
cp "$T/good/traces.db" "$T/keep.db"
KEEP=$(sum_of "$T/keep.db")

# --- files that are not a trace ---------------------------------------------
expect_error 1 "cannot open: No such file" $PA "$T/nothere/traces.otf2"
expect_error 1 "not a file" $PA "$T/good"
printf 'hello\n' > "$T/hello.otf2"
expect_error 1 "not an OTF2 archive" $PA "$T/hello.otf2"
: > "$T/empty.otf2"
expect_error 1 "error:" $PA "$T/empty.otf2"
build/tests/synth_trace foreign "$T/foreign" > "$T/out" 2>&1 || { cat "$T/out"; fail "synth_trace foreign"; }
expect_error 1 "not a paptree trace" $PA -o "$T/keep.db" "$T/foreign/traces.otf2"
[ "$(sum_of "$T/keep.db")" = "$KEEP" ] || fail "a failed run changed the existing database"

# --- outputs ----------------------------------------------------------------
printf 'precious\n' > "$T/notes.txt"
expect_error 1 "not a papanalyze database" $PA -q -o "$T/notes.txt" "$T/good/traces.otf2"
[ "$(cat "$T/notes.txt")" = precious ] || fail "a file that is not a database was replaced"
run_rc 60 "$T/out" $PA -q --force -o "$T/notes.txt" "$T/good/traces.otf2"
[ "$rc" -eq 0 ] && [ "$(head -c 15 "$T/notes.txt")" = "SQLite format 3" ] \
    || fail "--force did not replace the file"
expect_error 1 "is a directory" $PA -q -o "$T" "$T/good/traces.otf2"
expect_error 1 "cannot create a file beside it" $PA -q -o "$T/no/such/dir.db" "$T/good/traces.otf2"
# rerunning replaces the database (another --skip is visible in meta)
cp "$T/keep.db" "$T/re.db"
run_rc 60 "$T/out" $PA -q --skip 3 -o "$T/re.db" "$T/good/traces.otf2"
[ "$rc" -eq 0 ] || { cat "$T/out" >&2; fail "rerun failed"; }
[ "$(sqlite3 "$T/re.db" "SELECT value FROM meta WHERE key = 'skip'")" = 3 ] \
    || fail "rerun did not replace the database"
no_partials

# --- special files: refused before they are opened, never a hang --------------
# A FIFO (or any file that is not a regular file) as the trace, as a file of
# the archive, as a database to report or as -o: exit 1 with a message naming
# it, within seconds (a FIFO with no writer blocks whoever opens it to read).
# expect_quick RC TEXT CMD...: as expect_error, but a hang is 10 s.
expect_quick() {
    want=$1 text=$2; shift 2
    run_rc 10 "$T/out" "$@"
    [ "$rc" -eq "$want" ] || { cat "$T/out" >&2; fail "exit $rc, expected $want: $*"; }
    grep -qF -- "$text" "$T/out" || { cat "$T/out" >&2; fail "no '$text' from: $*"; }
}
mkfifo "$T/fifo.otf2" "$T/fifo.db"
expect_quick 1 "$T/fifo.otf2: error: is a FIFO, not a regular file" $PA "$T/fifo.otf2"
expect_quick 1 "$T/fifo.db: error: is a FIFO, not a regular file" $PA "$T/fifo.db"
expect_quick 1 "$T/fifo.db: error: is a FIFO, not a regular file" $PA -f csv "$T/fifo.db"
expect_quick 1 "is a character device, not a regular file" $PA /dev/null
# every file of an archive: the anchor, the global definitions, a location's
# definitions and events
for f in traces.otf2 traces.def traces/0.def traces/0.evt; do
    rm -rf "$T/ff"
    cp -r "$T/good" "$T/ff"
    rm -f "$T/ff/traces.db" "$T/ff/$f"
    mkfifo "$T/ff/$f"
    cp "$T/keep.db" "$T/ff.db"
    expect_quick 1 "$T/ff/$f: error: is a FIFO, not a regular file" $PA -q -o "$T/ff.db" "$T/ff/traces.otf2"
    [ "$(sum_of "$T/ff.db")" = "$KEEP" ] || fail "a refused archive ($f a FIFO) changed the database"
done
# the archive's directory of location files replaced by a FIFO
rm -rf "$T/ff"
cp -r "$T/good" "$T/ff"
rm -rf "$T/ff/traces.db" "$T/ff/traces"
mkfifo "$T/ff/traces"
expect_quick 1 "$T/ff/traces: error: is a FIFO, not the archive's directory" $PA -q -o "$T/ff.db" "$T/ff/traces.otf2"
rm -rf "$T/ff"
cp -r "$T/good" "$T/ff"
rm -f "$T/ff/traces.db" "$T/ff/traces.otf2"
mkfifo "$T/ff/traces.otf2"
# the archive's directory given instead of its anchor, whose anchor is a FIFO
expect_quick 1 "$T/ff: error: is a directory" $PA -q "$T/ff"
# an output that is a FIFO is not opened to see whether it is a database
expect_quick 1 "$T/fifo.db: error: is a FIFO, not a regular file" $PA -q -o "$T/fifo.db" "$T/good/traces.otf2"
expect_quick 1 "$T/fifo.db: error: is a FIFO, not a regular file" $PA -q --force -o "$T/fifo.db" "$T/good/traces.otf2"
[ -p "$T/fifo.db" ] || fail "papanalyze --force replaced a FIFO"
rm -rf "$T/ff" "$T/ff.db"
no_partials

# --- an output is never one of the inputs ------------------------------------
# Not even with --force: the anchor, the global definitions, a location's file,
# directly, through a symlink or a hard link, or with the trace named through
# a symlinked directory.  The archive stays byte-identical.
rm -rf "$T/og"
cp -r "$T/good" "$T/og"
rm -f "$T/og/traces.db"
(cd "$T/og" && find . -type f -exec cksum {} + | LC_ALL=C sort) > "$T/og.sums"
ln -s "$T/og/traces.otf2" "$T/og-link.db"
ln "$T/og/traces/0.evt" "$T/og-hard.db"
ln -s "$T/og" "$T/og-dir"
for o in "$T/og/traces.otf2" "$T/og/traces.def" "$T/og/traces/0.def" "$T/og/traces/1.evt" \
           "$T/og-link.db" "$T/og-hard.db"; do
    for trace in "$T/og/traces.otf2" "$T/og-dir/traces.otf2"; do
        expect_quick 1 "$o: error: is " $PA -q --force -o "$o" "$trace"
        grep -qF "must not replace its input" "$T/out" || { cat "$T/out" >&2; fail "no reason given: -o $o $trace"; }
        (cd "$T/og" && find . -type f -exec cksum {} + | LC_ALL=C sort) > "$T/og.now"
        cmp -s "$T/og.sums" "$T/og.now" || fail "papanalyze --force -o $o $trace changed the trace"
    done
done
run_rc 60 "$T/out" $PA -q "$T/og-dir/traces.otf2"     # the default output is not an input
[ "$rc" -eq 0 ] || { cat "$T/out" >&2; fail "papanalyze through a symlinked directory failed"; }
rm -rf "$T/og" "$T/og-link.db" "$T/og-hard.db" "$T/og-dir"
no_partials

# --- usage and report options -------------------------------------------------
expect_error 2 "usage:" $PA
expect_error 2 "papanalyze: --format: unknown 'xml', expected text, csv or json" $PA --format xml "$T/good/traces.otf2"
expect_error 2 "papanalyze: --skip: '-1' is out of range, expected 0..4294967295" $PA --skip -1 "$T/good/traces.otf2"
expect_error 2 "papanalyze: --thread: 'x' is not an integer, expected 0..1073741824" $PA --thread x "$T/good/traces.otf2"
expect_error 2 "papanalyze: unknown option '--bogus'" $PA --bogus "$T/good/traces.otf2"
expect_error 1 "--thread 99: no such thread" $PA --thread 99 "$T/keep.db"
expect_error 1 "--wrapper nosuch: no such wrapper" $PA --wrapper nosuch "$T/keep.db"
# --skip at or above the operations of every series leaves nothing to analyse:
# exit 1, with or without -q, and an existing database stays byte-identical
# (no empty one in its place).  NOPS: the operations of the longest series.
NOPS=$(sqlite3 "$T/keep.db" "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM ops GROUP BY instance, bytes)")
for q in "" -q; do
    for skip in "$NOPS" 1000; do
        cp "$T/keep.db" "$T/s.db"
        expect_error 1 "no operation left after --skip" $PA $q --skip "$skip" -o "$T/s.db" "$T/good/traces.otf2"
        [ "$(sum_of "$T/s.db")" = "$KEEP" ] || fail "papanalyze $q --skip $skip changed the existing database"
    done
done
rm -f "$T/s.db"
expect_error 1 "no operation left after --skip" $PA -q --skip "$NOPS" -o "$T/s.db" "$T/good/traces.otf2"
[ ! -e "$T/s.db" ] || fail "papanalyze -q --skip $NOPS wrote a database with no operation in it"
# one operation fewer leaves one in the longest series
run_rc 60 "$T/out" $PA -q --skip $((NOPS - 1)) -o "$T/s.db" "$T/good/traces.otf2"
[ "$rc" -eq 0 ] || { cat "$T/out" >&2; fail "--skip $((NOPS - 1)) failed"; }
no_partials

# --- databases papanalyze did not write, or wrote in another version ---------
# papanalyze DB refuses them as papviz does: exit 1, the same message.
PV=bin/papviz
# same_error DB TEXT: papanalyze (every format) and papviz exit 1 with the same
# error line, less the program name, and it says TEXT
same_error() {
    run_rc 10 "$T/pv.out" $PV timemap "$1"
    [ "$rc" -eq 1 ] || { cat "$T/pv.out" >&2; fail "papviz timemap $1: exit $rc, expected 1"; }
    grep -qF -- "$2" "$T/pv.out" || { cat "$T/pv.out" >&2; fail "papviz: no '$2'"; }
    pv=$(sed -n 's/^papviz: \(.*error: .*\)$/\1/p' "$T/pv.out")
    for fmt in text csv json; do
        expect_quick 1 "$2" $PA -f $fmt "$1"
        pa=$(sed -n 's/^papanalyze: \(.*error: .*\)$/\1/p' "$T/out")
        [ -n "$pa" ] && [ "$pa" = "$pv" ] || fail "papanalyze -f $fmt and papviz differ on $1: '$pa' / '$pv'"
    done
}
for sql in "DELETE FROM meta WHERE key = 'papanalyze'|not a papanalyze database (no meta 'papanalyze')" \
           "DROP TABLE meta|not a papanalyze database (no meta 'papanalyze')" \
           "UPDATE meta SET value = '1' WHERE key = 'schema_version'|database schema version 1," \
           "DELETE FROM meta WHERE key = 'schema_version'|database schema version (none),"; do
    cp "$T/keep.db" "$T/meta.db"
    sqlite3 "$T/meta.db" "${sql%%|*}"
    same_error "$T/meta.db" "$T/meta.db: error: ${sql#*|}"
done
# not SQLite at all, and a database another tool wrote
printf 'SQLite format 3\000 and then garbage, not a database at all\n' > "$T/meta.db"
same_error "$T/meta.db" "$T/meta.db: error: not a papanalyze database"
rm -f "$T/meta.db"
sqlite3 "$T/meta.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
same_error "$T/meta.db" "$T/meta.db: error: not a papanalyze database"

# --- a database locked by another process: said so, within seconds ------------
cp "$T/keep.db" "$T/lock.db"
mkfifo "$T/lock.in"
sqlite3 "$T/lock.db" < "$T/lock.in" > "$T/lock.out" 2>&1 &
lockpid=$!
exec 3> "$T/lock.in"
echo "BEGIN EXCLUSIVE; UPDATE meta SET value = value; SELECT 'locked';" >&3
i=0
until grep -q locked "$T/lock.out"; do
    i=$((i + 1)); [ $i -lt 100 ] || fail "sqlite3 did not take the lock"; sleep 0.1
done
for fmt in text csv json; do
    expect_quick 1 "$T/lock.db: error: is locked by another process" $PA -f $fmt "$T/lock.db"
done
expect_quick 1 "$T/lock.db: error: is locked by another process" $PV timemap "$T/lock.db"
expect_quick 1 "$T/lock.db: error: is locked by another process" $PA -q -o "$T/lock.db" "$T/good/traces.otf2"
echo "ROLLBACK;" >&3
exec 3>&-
wait $lockpid
[ "$(sum_of "$T/lock.db")" = "$KEEP" ] || fail "the locked database was changed"
# unlocked, it is a database again
run_rc 60 "$T/out" $PA -f csv "$T/lock.db"
[ "$rc" -eq 0 ] || { cat "$T/out" >&2; fail "papanalyze on the unlocked database failed"; }
rm -f "$T/lock.db" "$T/lock.in" "$T/lock.out" "$T/meta.db"
no_partials

# --- interrupted while the database is written: no partial file ----------------
# SIGINT or SIGTERM while papanalyze writes (a trace big enough to take a few
# seconds): it removes its temporary *.partial-* file, says so in one line,
# and dies of the signal; the old database is intact.  (env --default-signal:
# a background job of a non-interactive shell starts with SIGINT ignored.)
# shellcheck disable=SC2046 # mpirun_cmd is a word list
$(mpirun_cmd) -np 2 bin/gsum -p pathmaps/demo.pathmap -n 200000 -w 5 --trace "$T/big" \
    > "$T/gsum.out" 2>&1 || { cat "$T/gsum.out" >&2; fail "gsum --trace (big) failed"; }
for sig in INT:2 TERM:15; do
    num=${sig#*:} sig=${sig%:*}
    cp "$T/keep.db" "$T/big.db"
    env --default-signal=INT,TERM $PA -q -o "$T/big.db" "$T/big/traces.otf2" > "$T/sig.out" 2>&1 &
    pid=$!
    i=0
    until ls "$T"/big.db.partial-* > /dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 1000 ] || { kill -KILL $pid; fail "no temporary database appeared"; }
        sleep 0.01
    done
    sleep 0.3
    kill -$sig $pid
    set +e
    { wait $pid; } 2> /dev/null           # not the shell's "Terminated"
    rc=$?
    set -e
    [ $rc -eq $((128 + num)) ] || { cat "$T/sig.out" >&2; fail "SIG$sig: exit $rc, expected death by the signal"; }
    grep -q "^papanalyze: interrupted (SIG$sig): removed the unfinished database $T/big.db.partial-" "$T/sig.out" \
        || { cat "$T/sig.out" >&2; fail "SIG$sig: no line saying the temporary file was removed"; }
    [ "$(wc -l < "$T/sig.out")" -eq 1 ] || { cat "$T/sig.out" >&2; fail "SIG$sig: more than one line"; }
    no_partials
    [ "$(sum_of "$T/big.db")" = "$KEEP" ] || fail "SIG$sig changed the existing database"
done
rm -rf "$T/big" "$T/big.db"

# --- random damage ------------------------------------------------------------
# Each round copies the archive, damages one file, and analyses it into a copy
# of the good database: exit 0 (damage the format cannot see, e.g. in a
# timestamp) or 1 with an error line; never a signal or another status; on
# failure the database is unchanged.
find "$T/good" -type f ! -name traces.db | LC_ALL=C sort > "$T/files"
nfiles=$(wc -l < "$T/files")
awk -v n="$NCORRUPT" -v nf="$nfiles" 'BEGIN {
    srand(20261121)
    for (i = 0; i < n; i++)
        printf "%d %d %.6f %d\n", i, 1 + int(rand() * nf), rand(), int(rand() * 4)
}' > "$T/plan"
failed=0 ok=0
while read -r i f frac kind; do
    rm -rf "$T/d"
    cp -r "$T/good" "$T/d"
    rel=$(sed -n "${f}p" "$T/files")
    file="$T/d/${rel#"$T/good/"}"
    size=$(wc -c < "$file")
    at=$(awk -v s="$size" -v f="$frac" 'BEGIN { print int(s * f) }')
    case $kind in
        0) truncate -s "$at" "$file" ;;                                   # cut
        1) printf '\377\377\377\377' | dd of="$file" bs=1 seek="$at" conv=notrunc 2>/dev/null ;;
        2) printf '\000' | dd of="$file" bs=1 seek="$at" conv=notrunc 2>/dev/null ;;
        3) head -c 64 /dev/urandom | dd of="$file" bs=1 seek="$at" conv=notrunc 2>/dev/null ;;
    esac
    cp "$T/keep.db" "$T/d.db"
    run_rc 30 "$T/out" $PA -q -o "$T/d.db" "$T/d/traces.otf2"
    case $rc in
        0) ok=$((ok + 1)) ;;
        1) grep -q "^papanalyze: .*error: " "$T/out" \
               || { cat "$T/out" >&2; fail "round $i ($rel kind $kind at $at): exit 1 without an error line"; }
           [ "$(sum_of "$T/d.db")" = "$KEEP" ] \
               || fail "round $i ($rel kind $kind at $at): the database changed on failure"
           failed=$((failed + 1)) ;;
        *) cat "$T/out" >&2; fail "round $i ($rel kind $kind at $at): exit status $rc (crash?)" ;;
    esac
done < "$T/plan"
no_partials
echo "bad-input: $NCORRUPT damaged archives: $failed refused with an error, $ok accepted"
[ "$failed" -gt 0 ] || fail "no damaged archive was refused: the damage did not happen?"
