#!/bin/sh
# viz.sh - bin/papviz on small synthetic databases.
#
#   sh tests/viz/viz.sh            (from the repository root, after make)
#   RECORD=1 sh tests/viz/viz.sh   refresh tests/viz/expected/ (then LOOK at
#                                  the pictures and review the diff)
#
# The databases come from build/tests/synth_trace (hand-chosen timestamps,
# tests/analyze/synthetic.sh checks every number in them) through papanalyze.
# Checks, in order:
#   1. every chart of both scenarios is valid XML/SVG (xmllint) and identical
#      to its golden file in tests/viz/expected/ (deterministic output);
#   2. tooltips carry the exact values worked out by hand below;
#   3. a wrapper and a host whose names carry markup are escaped everywhere,
#      and names with characters XML cannot carry are still well-formed;
#   4. -o writes through symbolic links (the link stays) and streams to
#      what is not a regular file (a FIFO, the standard output, a device);
#   5. bad input: clear errors, exit 1 or 2, no partial or clobbered output;
#   6. papviz report's index.html, rendered by headless Chromium, is not blank
#      (not under ASan: Chromium is not our C).
# Stops at the first failure.
set -eu
. tests/lib.sh
# Under ASan (make check-asan) the tier unwinds every malloc the slow way, so
# that leaks inside Open MPI (built without frame pointers) match their
# suppressions; nothing here runs MPI, and the fast unwinder makes the
# hundreds of papviz runs below 10x quicker.
if [ "${PAPTREE_SANITIZER:-}" = address ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=1"
    export ASAN_OPTIONS
fi

PAPVIZ=${PAPVIZ:-bin/papviz}
PAPANALYZE=${PAPANALYZE:-bin/papanalyze}
SYNTH_TRACE=${SYNTH_TRACE:-build/tests/synth_trace}
EXPECTED=tests/viz/expected
# A fixed directory, not mktemp: the charts' titles name the trace, and the
# golden files must not depend on a random path.
W=build/viz-test

for prog in "$PAPVIZ" "$PAPANALYZE" "$SYNTH_TRACE"; do
    [ -x "$prog" ] || fail "$prog is not built (run make first)"
done
for tool in xmllint sqlite3; do
    command -v $tool >/dev/null 2>&1 || fail "$tool is not installed (make deps)"
done
rm -rf "$W"
mkdir -p "$W"

for s in gred3 chain algo; do
    "$SYNTH_TRACE" --pathmap-out "$W/$s.pathmap" "$s" "$W/$s" > /dev/null
    "$PAPANALYZE" -q --skip 0 "$W/$s/traces.otf2"
done
G=$W/gred3/traces.db
C=$W/chain/traces.db
A=$W/algo/traces.db       # an algorithm node at the root (3 hosts, 2 operations)

# ---- 1. every chart: valid, deterministic, as recorded -----------------------
# name | arguments (word-split; no spaces inside an argument)
cat > "$W/charts" <<EOF
gred3-timemap|timemap $G
gred3-timemap-wait|timemap $G --with-arrival-wait --thread 0 --thread 4
gred3-timemap-compare|timemap $G --compare $C --thread 0 --label gred3 --label chain
gred3-departures-top|departures $G --wrapper top
gred3-departures-root|departures $G --subtree root
gred3-orders-g0|orders $G --wrapper g0
gred3-orders-root|orders $G --subtree root
gred3-tree|tree $W/gred3.pathmap
gred3-tree-db|tree --db $G
gred3-pap|pap $G
chain-timemap|timemap $C
chain-departures-c|departures $C --subtree c
chain-tree|tree $W/chain.pathmap
chain-pap|pap $C
algo-tree|tree $W/algo.pathmap
algo-tree-db|tree --db $A
algo-timemap|timemap $A
algo-schedule|schedule $A
algo-schedule-op0|schedule $A --op 0
algo-schedule-op1|schedule $A --op 1 --instance 0 --wrapper across
algo-schedule-mean|schedule $A --mean
EOF
mkdir -p "$W/svg"
[ "${RECORD:-0}" = 1 ] && mkdir -p "$EXPECTED"
while IFS='|' read -r name args; do
    # shellcheck disable=SC2086 # word splitting of $args is wanted
    "$PAPVIZ" $args -o "$W/svg/$name.svg" > "$W/said" || fail "papviz $args"
    # Its one line on success: what it drew and where.
    case $args in
    timemap*) what=Timemap ;; departures*) what=Departures ;; orders*) what=Orders ;;
    pap*) what="Arrival pattern" ;; tree*) what=Tree ;; schedule*) what=Schedule ;;
    esac
    [ "$(cat "$W/said")" = "$what: $W/svg/$name.svg" ] \
        || fail "papviz $args -o: said '$(cat "$W/said")', expected '$what: $W/svg/$name.svg'"
    xmllint --noout "$W/svg/$name.svg" || fail "$name.svg is not well-formed XML"
    # shellcheck disable=SC2086
    "$PAPVIZ" $args > "$W/svg/$name.again.svg" || fail "papviz $args (stdout)"
    cmp -s "$W/svg/$name.svg" "$W/svg/$name.again.svg" || fail "$name: two runs differ"
    grep -q '<title>' "$W/svg/$name.svg" || fail "$name.svg has no tooltip"
    if [ "${RECORD:-0}" = 1 ]; then
        cp "$W/svg/$name.svg" "$EXPECTED/$name.svg"
    else
        [ -f "$EXPECTED/$name.svg" ] || fail "no golden file $EXPECTED/$name.svg (RECORD=1)"
        diff -u "$EXPECTED/$name.svg" "$W/svg/$name.svg" > "$W/diff" \
            || { head -40 "$W/diff" >&2; fail "$name.svg differs from its golden file"; }
    fi
done < "$W/charts"
[ "${RECORD:-0}" = 1 ] && echo "viz.sh: recorded $EXPECTED; look at them before committing"

# Every data mark has its tooltip: each <g> opens with a <title>.
for f in "$W"/svg/*.svg; do
    n=$(grep -c '<g' "$f" || true)
    t=$(grep -c '<g[^>]*><title>' "$f" || true)
    [ "$n" = "$t" ] || fail "$f: $n groups, only $t start with a tooltip"
done

# ---- 2. values worked out by hand -------------------------------------------
# has FILE TEXT: TEXT (a fixed string, may span lines) is in FILE.
has() {
    case "$(cat "$1")" in
    *"$2"*) ;;
    *) fail "$(basename "$1"): expected to find: $2" ;;
    esac
}
. tests/viz/hand.sh

# ---- 3. names with markup are escaped ----------------------------------------
E=$W/evil/traces.db
mkdir -p "$W/evil"
cp "$G" "$E"
sqlite3 "$E" "UPDATE wrappers SET name = '<script>alert(1)</script>' WHERE node = 2;
              UPDATE hosts SET name = 'A&B\"<i>' WHERE host = 0;
              UPDATE meta SET value = '</title><script>x</script>' WHERE key = 'pathmap_path'"
# evil ARGS...: papviz on the escaping database writes valid, inert SVG.
evil() {
    "$PAPVIZ" "$@" -o "$W/evil/x.svg" || fail "papviz $* on the escaping database"
    xmllint --noout "$W/evil/x.svg" || fail "papviz $1: markup in a name broke the XML"
    ! grep -q '<script' "$W/evil/x.svg" || fail "papviz $1: a name injected <script>"
    ! grep -q '<i>' "$W/evil/x.svg" || fail "papviz $1: a host name injected <i>"
}
evil timemap "$E"
evil departures "$E" --wrapper top
evil orders "$E" --wrapper '<script>alert(1)</script>'
evil tree --db "$E"
evil pap "$E"
has "$W/evil/x.svg" '&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;'   # pap: the pathmap path
# an algorithm node whose name carries markup (its pathmap line no longer
# names it: the label falls back to the database's description)
EA=$W/evil/algo.db
cp "$A" "$EA"
sqlite3 "$EA" "UPDATE wrappers SET name = '<script>a</script>' WHERE kind = 'algo'"
evil tree --db "$EA"
evil timemap "$EA"
"$PAPVIZ" tree --db "$E" -o "$W/evil/tree.svg"
has "$W/evil/tree.svg" '&lt;script&gt;alert(1)&lt;/script&gt;'
has "$W/evil/tree.svg" 'A&amp;B&quot;&lt;i&gt;'
"$PAPVIZ" report "$E" -o "$W/evil/report" > /dev/null || fail "papviz report (escaping)"
for f in "$W"/evil/report/*.svg; do
    xmllint --noout "$f" || fail "$f: not well-formed"
done
xmllint --html --noout "$W/evil/report/index.html" 2> "$W/evil/html.err" || :
! grep -qi '<script' "$W"/evil/report/* || fail "report: a name injected <script>"

# Characters XML 1.0 forbids (a C0 control, U+FFFE, U+FFFF, a surrogate) or
# discourages (U+FDD0), and bytes that are not UTF-8 (ED A0 80 encodes the
# surrogate U+D800, E2 82 is cut short), in a wrapper's and a host's name
# and in a legend label: every chart is still well-formed, with U+FFFD
# (EF BF BD) in their place.
N=$W/nonchar/traces.db
mkdir -p "$W/nonchar"
cp "$G" "$N"
sqlite3 "$N" "UPDATE wrappers SET name = 'g' || char(65534) || char(65535) || char(64976)
                  || char(1) || 'x' WHERE node = 4;
              UPDATE hosts SET name = CAST(X'42EDA080E282' AS TEXT) WHERE host = 1"
g1=$(printf 'g\357\277\276\357\277\277\357\267\220\001x')
bad_label=$(printf 'a\357\277\276b\355\240\200')
# nonchar ARGS...: papviz writes a document xmllint accepts.
nonchar() {
    "$PAPVIZ" "$@" -o "$W/nonchar/x.svg" || fail "papviz $* on the database of non-characters"
    xmllint --noout "$W/nonchar/x.svg" \
        || fail "papviz $1: a non-character or bad UTF-8 in a name broke the XML"
}
nonchar tree --db "$N"
has "$W/nonchar/x.svg" "$(printf 'g\357\277\275\357\277\275\357\277\275\357\277\275x')"
nonchar orders "$N" --wrapper "$g1"
nonchar departures "$N" --wrapper "$g1"
nonchar pap "$N"
nonchar timemap "$N" --compare "$C" --label "$bad_label" --label chain
has "$W/nonchar/x.svg" "$(printf 'a\357\277\275b\357\277\275\357\277\275\357\277\275')"
"$PAPVIZ" report "$N" -o "$W/nonchar/report" > /dev/null || fail "papviz report (non-characters)"
for f in "$W"/nonchar/report/*.svg; do
    xmllint --noout "$f" || fail "$f: not well-formed"
done

# ---- 4. where -o writes: through links, and streams to what is not a file ----
# Every output is compared with the same chart written to a plain file
# (plain.svg).  The links are made here, in $W: /dev/stdout and /dev/null
# themselves are not used, since a papviz that replaced them would replace
# the machine's when the tests run as root; $O/stdout and $O/null are the
# same links.
# expect_rc STATUS CMD...: CMD exits with STATUS (its output in $W/out).
expect_rc() {
    want=$1; shift
    set +e
    timeout 60 "$@" > "$W/out" 2>&1
    rc=$?
    set -e
    [ "$rc" = "$want" ] || { cat "$W/out" >&2; fail "exit $rc, expected $want: $*"; }
}
O=$W/out-links
mkdir -p "$O/sub"
"$PAPVIZ" tree "$W/gred3.pathmap" -o "$O/plain.svg"
# is_link LINK TARGET: LINK is still a symbolic link to TARGET.
is_link() {
    [ -L "$1" ] || fail "-o $1 replaced the link with a file"
    [ "$(readlink "$1")" = "$2" ] || fail "-o $1: the link now points to $(readlink "$1")"
}
# A link to a regular file, a relative link from another directory, a chain
# of two links, a dangling link: the target is replaced (atomically, through
# TARGET.tmp), the links stay.
echo old > "$O/real.svg"
ln -s real.svg "$O/link.svg"
ln -s ../real2.svg "$O/sub/link.svg"
ln -s link.svg "$O/chain.svg"
ln -s new.svg "$O/dangling.svg"
for l in link.svg sub/link.svg chain.svg dangling.svg; do
    "$PAPVIZ" tree "$W/gred3.pathmap" -o "$O/$l" || fail "papviz -o $l (a link)"
done
is_link "$O/link.svg" real.svg
is_link "$O/sub/link.svg" ../real2.svg
is_link "$O/chain.svg" link.svg
is_link "$O/dangling.svg" new.svg
for f in real.svg real2.svg new.svg; do
    cmp -s "$O/plain.svg" "$O/$f" || fail "-o through a link: $f is not the chart"
done
! ls "$O"/*.tmp "$O"/sub/*.tmp > /dev/null 2>&1 || fail "-o through a link left a .tmp"
# A failure leaves the link and its target as they were.
expect_rc 1 "$PAPVIZ" orders "$G" --wrapper nosuch -o "$O/link.svg"
is_link "$O/link.svg" real.svg
cmp -s "$O/plain.svg" "$O/real.svg" || fail "a failed papviz -o LINK changed the target"
# What is not a regular file is written to as it is: a FIFO, the standard
# output through a link (a pipe, then a file), a device through a link.
mkfifo "$O/fifo"
timeout 60 cat "$O/fifo" > "$O/from-fifo.svg" &
reader=$!
timeout 60 "$PAPVIZ" tree "$W/gred3.pathmap" -o "$O/fifo" || fail "papviz -o FIFO"
wait "$reader"
[ -p "$O/fifo" ] || fail "-o FIFO replaced the FIFO"
cmp -s "$O/plain.svg" "$O/from-fifo.svg" || fail "-o FIFO: the reader did not get the chart"
ln -s /proc/self/fd/1 "$O/stdout"
"$PAPVIZ" tree "$W/gred3.pathmap" -o "$O/stdout" | cat > "$O/from-pipe.svg" \
    || fail "papviz -o LINK-TO-STDOUT | cat"
is_link "$O/stdout" /proc/self/fd/1
cmp -s "$O/plain.svg" "$O/from-pipe.svg" || fail "-o LINK-TO-STDOUT (a pipe): not the chart"
"$PAPVIZ" tree "$W/gred3.pathmap" -o "$O/stdout" > "$O/from-stdout.svg" \
    || fail "papviz -o LINK-TO-STDOUT > FILE"
is_link "$O/stdout" /proc/self/fd/1
cmp -s "$O/plain.svg" "$O/from-stdout.svg" || fail "-o LINK-TO-STDOUT (a file): not the chart"
ln -s /dev/null "$O/null"
"$PAPVIZ" tree "$W/gred3.pathmap" -o "$O/null" || fail "papviz -o LINK-TO-/dev/null"
is_link "$O/null" /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a device"

# ---- 5. bad input -------------------------------------------------------------
# usage errors exit 2
expect_rc 2 "$PAPVIZ"
expect_rc 2 "$PAPVIZ" frobnicate "$G"
expect_rc 2 "$PAPVIZ" timemap
expect_rc 2 "$PAPVIZ" orders "$G"                          # no --wrapper
expect_rc 2 "$PAPVIZ" orders "$G" "$G" --wrapper g0         # one database only
expect_rc 2 "$PAPVIZ" timemap "$G" --bytes x
has "$W/out" "papviz: --bytes: 'x' is not a size, expected bytes 0..1TiB (K, M, G, T: powers of 1024)"
expect_rc 2 "$PAPVIZ" timemap "$G" --thread -1
has "$W/out" "papviz: --thread: '-1' is out of range, expected 0..1073741824"
expect_rc 2 "$PAPVIZ" timemap "$G" --bogus
has "$W/out" "papviz: unknown option '--bogus'"
expect_rc 2 "$PAPVIZ" timemap "$G" --label a --label b
expect_rc 2 "$PAPVIZ" schedule "$A" --op 1 --mean           # one or the other
expect_rc 2 "$PAPVIZ" schedule "$A" --instance 1            # --instance needs --op
expect_rc 2 "$PAPVIZ" schedule "$A" --op x
has "$W/out" "papviz: --op: 'x' is not an integer, expected 0..9223372036854775807"
expect_rc 2 "$PAPVIZ" timemap "$G" --op 1                   # an option of schedule only
expect_rc 2 "$PAPVIZ" schedule "$A" --subtree across
has "$W/out" "--wrapper NAME"
expect_rc 0 "$PAPVIZ" --help
has "$W/out" "usage: papviz"
# bad input exits 1 with "papviz: PATH: error: ..."
expect_rc 1 "$PAPVIZ" timemap "$W/nonexistent.db"
has "$W/out" "papviz: $W/nonexistent.db: error: cannot open the database"
printf 'host a\n' > "$W/text.db"
expect_rc 1 "$PAPVIZ" timemap "$W/text.db"
has "$W/out" "error: not a papanalyze database"
expect_rc 1 "$PAPVIZ" timemap "$G" --thread 9
has "$W/out" "thread 9"
expect_rc 1 "$PAPVIZ" timemap "$G" --bytes 8
has "$W/out" "8"
expect_rc 1 "$PAPVIZ" orders "$G" --wrapper nosuch
has "$W/out" "nosuch"
expect_rc 1 "$PAPVIZ" orders "$G" --wrapper p1               # a proxy has no orders
has "$W/out" "not a gred"
expect_rc 1 "$PAPVIZ" departures "$G" --wrapper g0 --compare "$C"   # chain has no g0
has "$W/out" "g0"
expect_rc 1 "$PAPVIZ" tree "$W/chain.pathmap" --db "$G"      # another tree
has "$W/out" "not the tree of"
# schedule on a tree without an algorithm node, or naming another wrapper
expect_rc 1 "$PAPVIZ" schedule "$G"
has "$W/out" "papviz: $G: error: this database has no algorithm node"
expect_rc 1 "$PAPVIZ" schedule "$A" --wrapper gA
has "$W/out" "gA is a gred, not an algorithm node"
expect_rc 1 "$PAPVIZ" schedule "$A" --wrapper nosuch
has "$W/out" "no wrapper called 'nosuch'"
printf 'host a\ntree t\nfrob x\n' > "$W/bad.pathmap"
expect_rc 1 "$PAPVIZ" tree "$W/bad.pathmap"
has "$W/out" "$W/bad.pathmap:3:1: error:"
# a failure leaves an existing output as it was, and no temporary file
echo keep > "$W/keep.svg"
expect_rc 1 "$PAPVIZ" orders "$G" --wrapper nosuch -o "$W/keep.svg"
[ "$(cat "$W/keep.svg")" = keep ] || fail "a failed papviz clobbered its -o file"
[ ! -e "$W/keep.svg.tmp" ] || fail "a failed papviz left keep.svg.tmp"
echo file > "$W/afile"
expect_rc 1 "$PAPVIZ" report "$G" -o "$W/afile"
has "$W/out" "$W/afile"
# a database whose statistics are empty (every operation skipped): papanalyze
# refuses to write one (--skip 5 is above gred3's 3 operations), so make it
# from gred3's database as such a run used to write it
expect_rc 1 "$PAPANALYZE" -q --skip 5 -o "$W/empty.db" "$W/gred3/traces.otf2"
[ ! -e "$W/empty.db" ] || fail "papanalyze wrote a database with no operation left"
cp "$W/gred3/traces.db" "$W/empty.db"
sqlite3 "$W/empty.db" "UPDATE ops SET used = 0; DELETE FROM stats; DELETE FROM orders;
    DELETE FROM subtree_orders; UPDATE meta SET value = '5' WHERE key = 'skip';
    UPDATE meta SET value = '0' WHERE key = 'ops_used'"
expect_rc 1 "$PAPVIZ" timemap "$W/empty.db"
expect_rc 1 "$PAPVIZ" report "$W/empty.db" -o "$W/empty-report"
has "$W/out" "no operation left after --skip"
expect_rc 0 "$PAPVIZ" tree "$W/empty.db" -o "$W/empty-tree.svg"   # the tree needs no statistics

# damaged databases: exit 0 or 1 with a message, never a crash or a hang
# survives DB: papviz report and tree on DB end with status 0 or 1.
survives() {
    for cmd in report tree; do
        set +e
        if [ $cmd = report ]; then
            timeout 60 "$PAPVIZ" report "$1" -o "$W/damaged-report" > "$W/out" 2>&1
        else
            timeout 60 "$PAPVIZ" tree --db "$1" -o "$W/damaged.svg" > "$W/out" 2>&1
        fi
        rc=$?
        set -e
        [ "$rc" -le 1 ] || { cat "$W/out" >&2; fail "papviz $cmd on $2: exit $rc"; }
        [ "$rc" = 0 ] || grep -q "error:" "$W/out" || fail "papviz $cmd on $2: no message"
    done
}
size=$(wc -c < "$G")
for cut in 100 4096 $((size / 3)) $((size / 2)) $((size - 4096)); do
    head -c "$cut" "$G" > "$W/cut.db"
    survives "$W/cut.db" "the database cut at $cut bytes"
done
for sql in "UPDATE wrappers SET parent = 99 WHERE node = 2" \
           "UPDATE wrappers SET host = 7 WHERE node = 1" \
           "UPDATE threads SET enter = 77 WHERE thread = 1" \
           "UPDATE paths SET node = 42 WHERE thread = 0 AND step = 1" \
           "DELETE FROM stats" "DELETE FROM hosts" "DROP TABLE orders" \
           "UPDATE orders SET arrival = 9" "UPDATE visits SET departure = 0"; do
    cp "$G" "$W/bent.db"
    sqlite3 "$W/bent.db" "$sql"
    survives "$W/bent.db" "a database after: $sql"
done

# ---- 6. the report page in headless Chromium ----------------------------------
"$PAPVIZ" report "$G" -o "$W/report" > "$W/out" || fail "papviz report"
has "$W/out" "Report: $W/report/index.html"
# --compare's legend names each configuration by its pathmap's file name
# (synthetic/gred3.pathmap -> gred3), by its trace directory when the
# pathmaps' names are equal, by its database's path when those are too.
# (Labels from the directory alone made the demo's legend "trace", "trace".)
mkdir -p "$W/cmpA" "$W/cmpB" "$W/x/cmpA"
cp "$G" "$W/cmpA/traces.db"; cp "$C" "$W/cmpB/traces.db"
"$PAPVIZ" -q timemap "$W/cmpA/traces.db" --compare "$W/cmpB/traces.db" -o "$W/l.svg" || fail "compare (1)"
has "$W/l.svg" ">gred3</text>"
has "$W/l.svg" ">chain</text>"
cp "$G" "$W/cmpB/traces.db"
"$PAPVIZ" -q timemap "$W/cmpA/traces.db" --compare "$W/cmpB/traces.db" -o "$W/l.svg" || fail "compare (2)"
has "$W/l.svg" ">cmpA</text>"
has "$W/l.svg" ">cmpB</text>"
cp "$G" "$W/x/cmpA/traces.db"
"$PAPVIZ" -q timemap "$W/cmpA/traces.db" --compare "$W/x/cmpA/traces.db" -o "$W/l.svg" || fail "compare (3)"
has "$W/l.svg" ">$W/cmpA/traces.db</text>"
has "$W/l.svg" ">$W/x/cmpA/traces.db</text>"

# schedule draws intervals that nest.  By default one real operation, the
# used one of median span: A's spans are 2800 (op 0) and 2420 (op 1), so op
# 1 (the lower median of 2); C's round 2 there: 11250 - 10200 to 11600 - 10200.
"$PAPVIZ" -q schedule "$A" -o "$W/sched.svg" || fail "papviz schedule (median)"
has "$W/sched.svg" "operation 1 of instance 0 (the median span of 2), 4 bytes</title>"
has "$W/sched.svg" "C (rank 2), round 2
from 1.050 to 1.400 µs"
has "$W/sched.svg" "e = t4 - t1: how long the host was in the node, from its arrival (t1) to its departure with the result (t4)."
# --mean: a round starts after its host's own arrival.  C (rank 2) had
# round 1 only in op 0 once op 1's row is gone: its mean arrival is
# (0 + 700) / 2 = 350 ns after t0, and its round 1 ran 300 - 200 = 100 to
# 1500 - 200 = 1300 ns after its own arrival: drawn 450 to 1650 ns (a mean
# of first_post - t0 over its one operation drew it at 100 ns, before the
# host's mean arrival).
cp "$A" "$W/late.db"
sqlite3 "$W/late.db" "DELETE FROM algo_rounds WHERE instance = 0 AND op = 1 AND rank = 2 AND round = 1"
"$PAPVIZ" -q schedule "$W/late.db" --mean -o "$W/late.svg" || fail "papviz schedule --mean"
has "$W/late.svg" "C (rank 2), round 1 (mean over the operations)
from 0.450 to 1.650 µs"
has "$W/late.svg" "arrives t1 = 0.350 µs"

# The fastest and the slowest thread, as papanalyze's report names them
# (mean time per allreduce without arrival waits, ties to the lower thread):
# the report's timemap-ends chart draws those two.  A copy of G where a
# middle thread's total with waits is made the largest: a chart that ranked
# by it (as the report page once did) would draw that thread instead.
cp "$G" "$W/ends.db"
eb=$(sqlite3 "$W/ends.db" "SELECT MIN(bytes) FROM thread_parts")
order="FROM thread_parts WHERE bytes = $eb ORDER BY total_no_wait, thread"
fast=$(sqlite3 "$W/ends.db" "SELECT thread $order LIMIT 1")
mid=$(sqlite3 "$W/ends.db" "SELECT thread $order LIMIT 1 OFFSET 1")
slow=$(sqlite3 "$W/ends.db" "SELECT thread FROM thread_parts WHERE bytes = $eb ORDER BY total_no_wait DESC, thread LIMIT 1")
[ -n "$fast" ] && [ -n "$slow" ] && [ "$mid" != "$slow" ] || fail "ends.db: needs 3 threads"
sqlite3 "$W/ends.db" "UPDATE stats SET mean = 1e9 WHERE scope = 'thread' AND node IS NULL AND metric = 'total' AND thread = $mid AND bytes = $eb"
"$PAPVIZ" -q report "$W/ends.db" -o "$W/ends" || fail "papviz report (ends)"
drawn=$(grep -o '<title>thread [0-9]*' "$W/ends/timemap-ends-$eb.svg" | sed 's/.* //' | sort -un | tr '\n' ' ')
want=$(printf '%s\n%s\n' "$fast" "$slow" | sort -un | tr '\n' ' ')
[ "$drawn" = "$want" ] || fail "timemap-ends draws threads '$drawn', papanalyze's fastest and slowest are '$want'"
has "$W/ends/index.html" "the fastest thread ($fast) and the slowest ($slow)"
has "$W/ends/index.html" "slowest ($slow)"           # the report's Parts table, same page
# The chart's title lists them with "and": "threads 0 and 3; 4-byte tuples".
has "$W/ends/timemap-ends-$eb.svg" "<title>Timemap: threads $fast and $slow; $eb-byte tuples</title>"

# -q: nothing on success, for every command.
"$PAPVIZ" -q report "$G" -o "$W/report-q" > "$W/out" || fail "papviz -q report"
"$PAPVIZ" timemap -q "$G" -o "$W/q.svg" >> "$W/out" || fail "papviz timemap -q"
"$PAPVIZ" tree --quiet "$W/gred3.pathmap" -o "$W/q.svg" >> "$W/out" || fail "papviz tree --quiet"
[ ! -s "$W/out" ] || { cat "$W/out" >&2; fail "papviz -q printed something"; }
[ -s "$W/report-q/index.html" ] && [ -s "$W/q.svg" ] || fail "papviz -q wrote nothing"
# Without -o, a trace directory's database gets its report beside the
# directory (gsum --force replaces a trace directory only while it holds
# nothing but the trace), any other database report/ beside it.
rm -rf "$W/tdir" "$W/tdir-report"; mkdir "$W/tdir"; cp "$G" "$W/tdir/traces.db"
"$PAPVIZ" report "$W/tdir/traces.db" > "$W/out" || fail "papviz report DIR/traces.db"
[ "$(cat "$W/out")" = "Report: $W/tdir-report/index.html" ] || fail "papviz report: said $(cat "$W/out")"
[ -s "$W/tdir-report/index.html" ] && [ ! -e "$W/tdir/report" ] || fail "report not beside $W/tdir"
cp "$G" "$W/tdir/other.db"
"$PAPVIZ" report "$W/tdir/other.db" > "$W/out" || fail "papviz report other.db"
[ "$(cat "$W/out")" = "Report: $W/tdir/report/index.html" ] || fail "papviz report other.db: said $(cat "$W/out")"
for f in $(sed -n 's/.*data="\([^"]*\)".*/\1/p' "$W/report/index.html"); do
    [ -s "$W/report/$f" ] || fail "index.html shows $f, which was not written"
    xmllint --noout "$W/report/$f" || fail "report/$f is not well-formed"
done
has "$W/report/index.html" "Stages of thread"              # the text report is on the page
! ls "$W"/report/*.tmp > /dev/null 2>&1 || fail "papviz report left temporary files"
# Chromium and png_check.py are not our C: under ASan (make check-asan) the
# rendering adds nothing that the plain tier's run does not check, so it is
# left to that run (the report itself was written just above, under ASan).
if [ "${PAPTREE_SANITIZER:-}" != address ]; then
    sh tests/viz/screenshot.sh "$W/report/index.html" "$W/shot.png" 1200 1600
    python3 tests/viz/png_check.py "$W/shot.png" 2 16 || fail "the report page renders blank"
    # the checker can fail: an empty page is blank
    printf '<!DOCTYPE html><html><body></body></html>\n' > "$W/blank.html"
    sh tests/viz/screenshot.sh "$W/blank.html" "$W/blank.png" 400 300
    if python3 tests/viz/png_check.py "$W/blank.png" 2 16 2> /dev/null; then
        fail "png_check.py accepts a blank page"
    fi
fi

# ---- 6. robustness: special files, outputs, bent databases -------------------
# quick RC TEXT CMD...: CMD exits RC (a hang is 10 s) and prints TEXT.
quick() {
    want=$1 text=$2; shift 2
    set +e
    timeout 10 "$@" > "$W/out" 2>&1
    rc=$?
    set -e
    [ "$rc" -ne 124 ] || fail "hung: killed after 10 s: $*"
    [ "$rc" = "$want" ] || { cat "$W/out" >&2; fail "exit $rc, expected $want: $*"; }
    has "$W/out" "$text"
}
# a FIFO as a database or pathmap is refused before it is opened (no hang)
rm -f "$W/fifo.db" "$W/fifo.pathmap"
mkfifo "$W/fifo.db" "$W/fifo.pathmap"
for cmd in timemap pap report tree; do
    quick 1 "papviz: $W/fifo.db: error: is a FIFO, not a regular file" "$PAPVIZ" $cmd "$W/fifo.db"
done
quick 1 "papviz: $W/fifo.db: error: is a FIFO" "$PAPVIZ" orders "$W/fifo.db" --wrapper g0
quick 1 "papviz: $W/fifo.db: error: is a FIFO" "$PAPVIZ" timemap "$G" --compare "$W/fifo.db"
quick 1 "papviz: $W/fifo.pathmap: error: is a FIFO" "$PAPVIZ" tree "$W/fifo.pathmap"
quick 1 "papviz: $W/fifo.db: error: is a FIFO" "$PAPVIZ" tree "$W/gred3.pathmap" --db "$W/fifo.db"
quick 1 "error: is a directory" "$PAPVIZ" timemap "$W"
rm -f "$W/fifo.db" "$W/fifo.pathmap"
# -o is never one of the input databases (directly or through a symlink): the
# database stays as it was
cp "$G" "$W/in.db"
cp "$C" "$W/in2.db"
ln -sf in.db "$W/in-link.db"
sum_in=$(cksum < "$W/in.db") sum_in2=$(cksum < "$W/in2.db")
for args in "timemap $W/in.db -o $W/in.db" "pap $W/in.db -o $W/in-link.db" \
            "timemap $W/in.db --compare $W/in2.db -o $W/in2.db" \
            "tree $W/gred3.pathmap --db $W/in.db -o $W/in.db" "report $W/in.db -o $W/in-link.db"; do
    # shellcheck disable=SC2086 # word splitting of $args is wanted
    quick 1 "must not be one of the inputs" "$PAPVIZ" $args
    [ "$(cksum < "$W/in.db")" = "$sum_in" ] && [ "$(cksum < "$W/in2.db")" = "$sum_in2" ] \
        || fail "papviz $args changed its input"
done
rm -f "$W/in.db" "$W/in2.db" "$W/in-link.db"
# NULL in any column of any table (every row, or one statistics row): every
# chart, papviz report and papanalyze's report end with 0 or 1 and a message,
# never a crash (a NULL statistics key once reached strcmp)
# no_crash DB WHAT: every chart and report on DB exits 0, or 1 with an error line
no_crash() {
    for args in "timemap $1" "timemap $1 --with-arrival-wait" "departures $1 --wrapper top" \
                "departures $1 --subtree root" "orders $1 --wrapper g0" "orders $1 --subtree root" \
                "pap $1" "tree $1" "tree $W/gred3.pathmap --db $1" "report $1" \
                "schedule $1"; do
        set +e
        # shellcheck disable=SC2086 # word splitting of $args is wanted
        timeout 20 "$PAPVIZ" $args -o "$W/nul.out" > "$W/out" 2>&1
        rc=$?
        set -e
        [ "$rc" -le 1 ] || { cat "$W/out" >&2; fail "papviz $args after $2: exit $rc"; }
        [ "$rc" = 0 ] || grep -q "^papviz: .*error: " "$W/out" || { cat "$W/out" >&2; fail "papviz $args after $2: exit 1 without an error line"; }
        rm -rf "$W/nul.out"
    done
    for fmt in text json; do
        set +e
        timeout 20 "$PAPANALYZE" -f $fmt "$1" > "$W/out" 2>&1
        rc=$?
        set -e
        [ "$rc" -le 1 ] || { tail -5 "$W/out" >&2; fail "papanalyze -f $fmt after $2: exit $rc"; }
        [ "$rc" = 0 ] || grep -q "^papanalyze: .*error: " "$W/out" || { tail -5 "$W/out" >&2; fail "papanalyze -f $fmt after $2: exit 1 without an error line"; }
    done
}
sqlite3 "$G" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name" > "$W/tables"
n=0
while read -r t; do
    for c in $(sqlite3 "$G" "SELECT name FROM pragma_table_info('$t')"); do
        cp "$G" "$W/nul.db"
        sqlite3 "$W/nul.db" "UPDATE $t SET $c = NULL" 2> /dev/null || continue
        no_crash "$W/nul.db" "UPDATE $t SET $c = NULL"
        n=$((n + 1))
    done
done < "$W/tables"
# the same for the tables of an algorithm node, on the algo scenario
# no_crash_algo DB WHAT: its charts exit 0, or 1 with an error line (the
# report draws the tree, the timemaps and the schedules, the mean and one
# operation; stopping at the first error, so one operation is asked alone)
no_crash_algo() {
    for args in "tree $W/algo.pathmap --db $1" "schedule $1 --op 0" "schedule $1 --mean" \
                "report $1"; do
        set +e
        # shellcheck disable=SC2086 # word splitting of $args is wanted
        timeout 20 "$PAPVIZ" $args -o "$W/nul.out" > "$W/out" 2>&1
        rc=$?
        set -e
        [ "$rc" -le 1 ] || { cat "$W/out" >&2; fail "papviz $args after $2: exit $rc"; }
        [ "$rc" = 0 ] || grep -q "^papviz: .*error: " "$W/out" || { cat "$W/out" >&2; fail "papviz $args after $2: exit 1 without an error line"; }
        rm -rf "$W/nul.out"
    done
}
for t in $(sqlite3 "$A" "SELECT name FROM sqlite_master WHERE type = 'table'
                         AND (name LIKE 'algo%' OR name = 'wrappers') ORDER BY name"); do
    for c in $(sqlite3 "$A" "SELECT name FROM pragma_table_info('$t')"); do
        cp "$A" "$W/nul.db"
        sqlite3 "$W/nul.db" "UPDATE $t SET $c = NULL" 2> /dev/null || continue
        no_crash_algo "$W/nul.db" "UPDATE $t SET $c = NULL"
    done
done
[ "$n" -ge 50 ] || fail "only $n columns could be set to NULL"
for c in scope node thread metric bytes n mean; do
    cp "$G" "$W/nul.db"
    sqlite3 "$W/nul.db" "UPDATE stats SET $c = NULL WHERE rowid IN (SELECT rowid FROM stats LIMIT 1)
                         OR (scope = 'pap' AND metric = 'avg_elapsed')"
    no_crash "$W/nul.db" "a NULL $c in two stats rows"
done
rm -f "$W/nul.db" "$W/tables"
# a fan-in or path length that the database's rows do not hold is refused
# with a message (no allocation of that size: at most 2 GB of address space)
for sql in "UPDATE wrappers SET fanin = 2000000000|wrapper 'root': fan-in 2000000000, but 1 contributors" \
           "UPDATE wrappers SET fanin = 2000000000 WHERE name = 'g0'|wrapper 'g0': fan-in 2000000000, but 3 contributors" \
           "UPDATE wrappers SET fanin = -7 WHERE name = 'top'|wrapper 'top': fan-in -7, but 2 contributors" \
           "UPDATE threads SET nstages = 2000000000 WHERE thread = 3|thread 3: 2000000000 wrappers on its path, but 4 steps in paths"; do
    cp "$G" "$W/big.db"
    sqlite3 "$W/big.db" "${sql%%|*}"
    for args in "orders $W/big.db --wrapper g0" "departures $W/big.db --wrapper g0" \
                "orders $W/big.db --subtree root" "timemap $W/big.db" "pap $W/big.db" \
                "tree --db $W/big.db" "report $W/big.db"; do
        # shellcheck disable=SC2086 # word splitting of $args is wanted
        (mem_cap 2000000; quick 1 "big.db: error: ${sql#*|}" "$PAPVIZ" $args -o "$W/big.out") || exit 1
        has "$W/out" "the database is damaged"
    done
    (mem_cap 2000000; quick 1 "big.db: error: ${sql#*|}" "$PAPANALYZE" "$W/big.db") || exit 1
done
rm -rf "$W/big.db" "$W/big.out"
# a gred of 100 contributors (synth_trace wide, a 128-core node): every chart
# and the report page are drawn
"$SYNTH_TRACE" wide "$W/wide" > /dev/null
"$PAPANALYZE" -q --skip 0 "$W/wide/traces.otf2"
for args in "orders $W/wide/traces.db --wrapper g" "departures $W/wide/traces.db --wrapper g" \
            "timemap $W/wide/traces.db" "pap $W/wide/traces.db" "tree $W/wide/traces.db"; do
    # shellcheck disable=SC2086 # word splitting of $args is wanted
    quick 0 "" "$PAPVIZ" $args -o "$W/wide.svg"
    xmllint --noout "$W/wide.svg" || fail "papviz $args: not well-formed"
done
quick 0 "Report: $W/wide-report/index.html" "$PAPVIZ" report "$W/wide/traces.db" -o "$W/wide-report"
has "$W/wide-report/index.html" "departures 91-100 of 100"
rm -rf "$W/wide" "$W/wide.svg" "$W/wide-report"

echo "viz.sh: ok"
