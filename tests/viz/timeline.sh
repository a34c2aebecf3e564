#!/bin/sh
# timeline.sh - papviz timeline on real traces, checked from outside
# (docs/timeline.md):
#
#   sh tests/viz/timeline.sh            (from the repository root, after make)
#
# Four traces: the demo (a proxy and its service threads), a tree whose root
# is an algorithm node running auto (rounds and messages), and two
# applications under bin/paprun (blocking collectives; nonblocking ones
# completed by every kind of wait and test).  For each, the timeline must
# pass tests/viz/timeline_check.py (written apart from the writer), and its
# counts must be otf2-print's on the same trace:
#   wrapper slices = LEAVE events, in all and per location (pid = rank + 1,
#     tid = the location id's index part + 1);
#   proxy flows = 2 x the LEAVE events of the pathmap's proxies' regions;
#   message flows = MPI_ISEND events = MPI_IRECV events;
#   MPI slices = ENTER events of MPI_ regions other than MPI_Wait*/MPI_Test*
#     (a nonblocking call is one slice from its start to its completion).
# Then windows (--ops against otf2-print's paptree::op of each LEAVE,
# --from/--to), a trace given directly, --estimate, --max-mb, and errors.
set -eu

. tests/lib.sh
ME=timeline.sh
PAPVIZ=${PAPVIZ:-bin/papviz}
CHECK="python3 tests/viz/timeline_check.py"
for prog in "$PAPVIZ" bin/papanalyze bin/gsum bin/paprun build/mpiapps/coll_matrix \
            build/mpiapps/nbc; do
    [ -x "$prog" ] || fail "$ME: $prog is not built (run make first)"
done
command -v otf2-print >/dev/null || fail "$ME: otf2-print is not installed (make deps)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/timeline.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
MPIRUN=$(mpirun_cmd)

# otf2-print's events as "EVENT LOCATION REGION OP" lines (REGION and OP
# empty when the event has none)
events() {
    otf2-print "$1" | awk '
        /^(ENTER|LEAVE|MPI_[A-Z_]*|PARAMETER_STRING|BUFFER_FLUSH) / {
            if (ev != "") print ev, loc, reg, op
            ev = $1; loc = $2; reg = ""; op = ""
            if (match($0, /Region: "[^"]*"/)) reg = substr($0, RSTART + 9, RLENGTH - 10)
            next
        }
        /ADDITIONAL ATTRIBUTES/ && ev != "" {
            if (match($0, /"paptree::op" <[0-9]*>; UINT64; [0-9]*/)) {
                s = substr($0, RSTART, RLENGTH); sub(/.*; /, "", s); op = s
            }
        }
        END { if (ev != "") print ev, loc, reg, op }'
}

summary_get() {      # summary_get FILE PYTHON-EXPRESSION-ON-s
    python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print($2)" "$1"
}

expect_eq() {        # expect_eq WHAT GOT WANT
    [ "$2" = "$3" ] || fail "$ME: $1: got $2, expected $3"
}

timeline_of() {      # timeline_of NAME [papviz options]: TMP/NAME.json, checked
    name=$1; shift
    "$PAPVIZ" timeline "$TMP/$name/traces.db" -q -o "$TMP/$name.json" "$@" \
        >"$TMP/$name.pv" 2>&1 || { cat "$TMP/$name.pv" >&2; fail "$ME: $name: papviz timeline $*"; }
    $CHECK --summary "$TMP/$name.json" >"$TMP/$name.sum" ||
        fail "$ME: $name: the timeline fails the outside check"
}

# ---- the traces ------------------------------------------------------------
$MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 300 -s 4 --trace "$TMP/demo" \
    >"$TMP/demo.out" 2>&1 || { cat "$TMP/demo.out" >&2; fail "$ME: gsum demo"; }
$MPIRUN -np 4 bin/gsum -p examples/auto-4x1.pathmap -n 40 -s 4096 --trace "$TMP/auto" \
    >"$TMP/auto.out" 2>&1 || { cat "$TMP/auto.out" >&2; fail "$ME: gsum auto"; }
$MPIRUN -np 3 bin/paprun --trace "$TMP/app" -- build/mpiapps/coll_matrix \
    >"$TMP/app.out" 2>&1 || { cat "$TMP/app.out" >&2; fail "$ME: paprun coll_matrix"; }
$MPIRUN -np 3 bin/paprun --trace "$TMP/nbc" -- build/mpiapps/nbc \
    >"$TMP/nbc.out" 2>&1 || { cat "$TMP/nbc.out" >&2; fail "$ME: paprun nbc"; }
for t in demo auto app nbc; do
    bin/papanalyze -q "$TMP/$t/traces.otf2" || fail "$ME: papanalyze $t"
    events "$TMP/$t/traces.otf2" >"$TMP/$t.ev"
    [ -s "$TMP/$t.ev" ] || fail "$ME: otf2-print $t printed no event"
    timeline_of $t
done

# ---- counts against otf2-print ------------------------------------------------
for t in demo auto; do
    expect_eq "$t: wrapper slices" "$(summary_get "$TMP/$t.sum" 's["slices"]["wrapper"]')" \
        "$(grep -c '^LEAVE ' "$TMP/$t.ev")"
    # per track: "pid:tid count" both ways
    awk '$1 == "LEAVE" { n[$2]++ } END { for (l in n) printf "%d:%d %d\n", int(l / 65536) + 1, l % 65536 + 1, n[l] }' \
        "$TMP/$t.ev" | sort >"$TMP/$t.want"
    summary_get "$TMP/$t.sum" '"\n".join("%s %d" % kv for kv in s["wrapper_per_track"].items())' |
        sort >"$TMP/$t.got"
    cmp -s "$TMP/$t.want" "$TMP/$t.got" ||
        { diff "$TMP/$t.want" "$TMP/$t.got" >&2; fail "$ME: $t: wrapper slices per track differ from otf2-print's LEAVE events"; }
done
proxies=$(sed -n 's/^proxy  *\([^ ]*\).*/\1/p' pathmaps/demo.pathmap | tr '\n' ' ')
[ -n "$proxies" ] || fail "$ME: the demo pathmap has no proxy"
nproxy=0
for p in $proxies; do
    nproxy=$((nproxy + $(awk -v p="$p" '$1 == "LEAVE" && $3 == p' "$TMP/demo.ev" | wc -l)))
done
[ "$nproxy" -gt 0 ] || fail "$ME: no proxy visit in the demo trace"
expect_eq "demo: proxy flows" "$(summary_get "$TMP/demo.sum" 's["flows"]["proxy"]')" $((2 * nproxy))
isend=$(grep -c '^MPI_ISEND ' "$TMP/auto.ev")
[ "$isend" -gt 0 ] || fail "$ME: no message in the auto trace"
expect_eq "auto: MPI_IRECV against MPI_ISEND" "$(grep -c '^MPI_IRECV ' "$TMP/auto.ev")" "$isend"
expect_eq "auto: message flows" "$(summary_get "$TMP/auto.sum" 's["flows"]["msg"]')" "$isend"
[ "$(summary_get "$TMP/auto.sum" 's["slices"]["round"]')" -gt 0 ] || fail "$ME: auto: no round"
for t in app nbc; do
    calls=$(awk '$1 == "ENTER" && $3 ~ /^MPI_/ && $3 !~ /^MPI_(Wait|Test)/' "$TMP/$t.ev" | wc -l)
    [ "$calls" -gt 0 ] || fail "$ME: $t: no collective in the trace"
    expect_eq "$t: MPI slices" "$(summary_get "$TMP/$t.sum" 's["slices"]["mpi"]')" "$calls"
done
# nonblocking calls overlap the calls before their wait: lanes of their own
grep -q '"nonblocking 1"\|: nonblocking 1"' "$TMP/nbc.json" || fail "$ME: nbc: no lane for nonblocking calls"

# ---- windows ------------------------------------------------------------------
timeline_of demo --ops 100:149
expect_eq "demo --ops 100:149: wrapper slices" \
    "$(summary_get "$TMP/demo.sum" 's["slices"]["wrapper"]')" \
    "$(awk '$1 == "LEAVE" && $4 >= 100 && $4 <= 149' "$TMP/demo.ev" | wc -l)"
grep -q '"window":{"ops":\[100,149\]' "$TMP/demo.json" || fail "$ME: --ops not in the metadata"
# the same window straight from the trace: only those operations are read
"$PAPVIZ" timeline "$TMP/demo/traces.otf2" --ops 100:149 -q -o "$TMP/direct.json" ||
    fail "$ME: papviz timeline TRACE --ops"
$CHECK --summary "$TMP/direct.json" >"$TMP/direct.sum" || fail "$ME: TRACE --ops: the check"
expect_eq "TRACE --ops 100:149: wrapper slices" \
    "$(summary_get "$TMP/direct.sum" 's["slices"]["wrapper"]')" \
    "$(summary_get "$TMP/demo.sum" 's["slices"]["wrapper"]')"
# --from/--to: every slice overlaps the interval, and some are left out
timeline_of auto --from 1ms --to 3ms
python3 - "$TMP/auto.json" <<'EOF' || fail "$ME: --from 1ms --to 3ms keeps a slice outside it"
import json, sys
d = json.load(open(sys.argv[1]))
xs = [e for e in d["traceEvents"] if e["ph"] == "X"]
assert xs, "no slice in the window"
bad = [e for e in xs if e["ts"] + e["dur"] < 1000 or e["ts"] > 3000]
assert not bad, bad[:2]
EOF
[ "$(summary_get "$TMP/auto.sum" 's["slices"]["wrapper"]')" -lt "$(grep -c '^LEAVE ' "$TMP/auto.ev")" ] ||
    fail "$ME: --from 1ms --to 3ms left no visit out"

# ---- --estimate, --max-mb, errors -------------------------------------------------
"$PAPVIZ" timeline "$TMP/demo/traces.db" --estimate -o "$TMP/none.json" >"$TMP/est" 2>&1 ||
    { cat "$TMP/est" >&2; fail "$ME: --estimate failed"; }
grep -Eq "^papviz: timeline: [0-9]+ slices, [0-9]+ flows, about [0-9.]+ MB$" "$TMP/est" ||
    { cat "$TMP/est" >&2; fail "$ME: --estimate printed no estimate"; }
[ ! -e "$TMP/none.json" ] || fail "$ME: --estimate wrote a file"
echo keep >"$TMP/keep.json"
# a timeline over 1 MB
$MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 6000 -s 4 --trace "$TMP/long" \
    >"$TMP/long.out" 2>&1 || fail "$ME: gsum long"
bin/papanalyze -q "$TMP/long/traces.otf2"
run_fails 60 "$TMP/big" "$PAPVIZ" timeline "$TMP/long/traces.db" --max-mb 1 -o "$TMP/keep.json"
grep -q "more than --max-mb 1: take a window, such as --ops 0:" "$TMP/big" ||
    { cat "$TMP/big" >&2; fail "$ME: --max-mb: the message"; }
expect_eq "the file after refusals" "$(cat "$TMP/keep.json")" keep
set +e
"$PAPVIZ" timeline "$TMP/demo/traces.db" --from 5parsecs >"$TMP/e" 2>&1
rc=$?
set -e
expect_eq "--from 5parsecs: exit status" $rc 2
grep -q "is not a time" "$TMP/e" || fail "$ME: --from 5parsecs: the message"
run_fails 60 "$TMP/e" "$PAPVIZ" timeline "$TMP/nothing.db"
run_fails 60 "$TMP/e" "$PAPVIZ" timeline "$TMP/demo/traces.db" -o "$TMP/demo/traces.db"
[ -s "$TMP/demo/traces.db" ] && bin/papanalyze "$TMP/demo/traces.db" >/dev/null ||
    fail "$ME: -o the input damaged it"

echo "$ME: ok"
