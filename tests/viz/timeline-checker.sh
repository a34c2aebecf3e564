#!/bin/sh
# timeline-checker.sh - the outside checker of papviz timeline's files,
# tests/viz/timeline_check.py, on small hand-written files: a good one
# passes, and each bad one, wrong in exactly one way, fails with the rule it
# breaks.
#
#   sh tests/viz/timeline-checker.sh    (from the repository root)
set -eu

ME=timeline-checker.sh
CHECK="python3 tests/viz/timeline_check.py"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tlcheck.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $ME: $*" >&2; exit 1; }

# A good file: host 1 with a thread (tid 1) and a link (tid 3), host 2 with an
# algorithm location (tid 2) and its rounds' lane (tid 1200); nested and
# disjoint slices, a proxy request/reply pair, one message.
META='"metadata":{"paptree":"x","kind":"tree","database":"d","trace":"t","pathmap":"p","window":{"ops":null,"from_ns":null,"to_ns":null},"headline":{}'
good_events() {
    cat <<'EOF'
{"ph":"M","pid":1,"name":"process_name","args":{"name":"host0 (m)"}},
{"ph":"M","pid":1,"name":"process_sort_index","args":{"sort_index":1}},
{"ph":"M","pid":2,"name":"process_name","args":{"name":"host1 (m)"}},
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"thread 0"}},
{"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"service p1#0"}},
{"ph":"M","pid":2,"tid":2,"name":"thread_name","args":{"name":"algo h1"}},
{"ph":"M","pid":2,"tid":1200,"name":"thread_name","args":{"name":"algo h1: rounds 0"}},
{"ph":"M","pid":1,"tid":1,"name":"thread_sort_index","args":{"sort_index":1}},
{"ph":"X","pid":1,"tid":1,"ts":1.000,"dur":9.000,"name":"p1","cat":"wrapper"},
{"ph":"X","pid":1,"tid":1,"ts":1.000,"dur":2.000,"name":"h0","cat":"wrapper"},
{"ph":"s","pid":1,"tid":1,"ts":1.000,"id":4,"name":"request","cat":"proxy"},
{"ph":"f","pid":1,"tid":1,"ts":10.000,"id":5,"bp":"e","name":"reply","cat":"proxy"},
{"ph":"X","pid":1,"tid":1,"ts":12.500,"dur":0.001,"name":"h0","cat":"wrapper"},
{"ph":"X","pid":1,"tid":3,"ts":4.000,"dur":3.000,"name":"cr0","cat":"wrapper"},
{"ph":"f","pid":1,"tid":3,"ts":4.000,"id":4,"bp":"e","name":"request","cat":"proxy"},
{"ph":"s","pid":1,"tid":3,"ts":7.000,"id":5,"name":"reply","cat":"proxy"},
{"ph":"X","pid":2,"tid":2,"ts":2.000,"dur":6.000,"name":"across","cat":"wrapper"},
{"ph":"X","pid":2,"tid":1200,"ts":2.500,"dur":1.000,"name":"round 0","cat":"round"},
{"ph":"s","pid":2,"tid":1200,"ts":3.000,"id":6,"name":"message","cat":"msg"},
{"ph":"X","pid":2,"tid":1200,"ts":3.500,"dur":1.000,"name":"round 1","cat":"round"},
{"ph":"f","pid":2,"tid":1200,"ts":4.500,"id":6,"bp":"e","name":"message","cat":"msg"}
EOF
}
COUNTS='"counts":{"wrapper":5,"round":2,"mpi":0,"proxy":2,"msg":1}'

# write NAME SED-EXPRESSION [COUNTS]: the good file changed by the expression
write() {
    {
        printf '{"displayTimeUnit":"ns","traceEvents":[\n'
        good_events | sed "$2"
        printf '],\n%s,%s}}\n' "$META" "${3:-$COUNTS}"
    } >"$TMP/$1.json"
}

write good ''
$CHECK --summary "$TMP/good.json" >"$TMP/good.sum" || fail "the good file fails"
grep -q '"wrapper": 5' "$TMP/good.sum" || fail "the summary's slices"
grep -q '"1:1": 3' "$TMP/good.sum" || fail "the summary's slices per track"

# bad NAME EXPECTED-MESSAGE SED-EXPRESSION [COUNTS]
bad() {
    write "$1" "$3" "${4:-}"
    if $CHECK "$TMP/$1.json" >"$TMP/$1.out" 2>&1; then
        fail "$1: passed, expected '$2'"
    fi
    grep -q -- "$2" "$TMP/$1.out" || { cat "$TMP/$1.out" >&2; fail "$1: not '$2'"; }
}
bad partial-overlap "a partial overlap" 's/"ts":1.000,"dur":2.000/"ts":9.000,"dur":2.000/; s/"ts":12.500/"ts":13.500/'
bad longer-second "a partial overlap" 's/"ts":1.000,"dur":9.000,"name":"p1"/"ts":1.000,"dur":1.000,"name":"p1"/'
bad time-back "time goes back" 's/"ts":12.500/"ts":0.500/'
bad no-finish "has 1 start(s) and 0 finish" 's/"id":6,"bp":"e"/"id":7,"bp":"e"/'
bad outside "inside no slice" 's/"ts":4.000,"id":4/"ts":8.000,"id":4/'
bad no-bp "without \"bp\"" 's/"id":5,"bp":"e",/"id":5,/'
bad cat-differs "flow id 5: start" 's/"id":5,"name":"reply","cat":"proxy"/"id":5,"name":"reply","cat":"msg"/'
bad no-thread-name "has events but no thread_name" '/"tid":3,"name":"thread_name"/d'
bad no-process-name "has events but no process_name" '/"pid":2,"name":"process_name"/d'
bad negative-dur "dur -1" 's/"dur":3.000/"dur":-1/'
bad sub-ns "not microseconds with at most 3 decimals" 's/"ts":12.500/"ts":12.5004/'
bad lane "no lane of a location" 's/"tid":1200/"tid":1300/g'
bad counts "counts wrapper = 6" '' '"counts":{"wrapper":6,"round":2,"mpi":0,"proxy":2,"msg":1}'
bad unmatched-e "an E without its B" 's/{"ph":"X","pid":1,"tid":1,"ts":12.500,"dur":0.001,"name":"h0","cat":"wrapper"}/{"ph":"E","pid":1,"tid":1,"ts":12.5,"name":"h0","cat":"wrapper"}/' '"counts":{"wrapper":4,"round":2,"mpi":0,"proxy":2,"msg":1}'
printf '{"traceEvents":[]}' >"$TMP/nometa.json"
$CHECK "$TMP/nometa.json" >"$TMP/nometa.out" 2>&1 && fail "no metadata: passed"
grep -q "no metadata object" "$TMP/nometa.out" || fail "no metadata: the message"
printf '[1, 2' >"$TMP/notjson.json"
$CHECK "$TMP/notjson.json" >"$TMP/notjson.out" 2>&1 && fail "not JSON: passed"
grep -q "cannot read it as JSON" "$TMP/notjson.out" || fail "not JSON: the message"
echo "$ME: ok"
