#!/bin/sh
# generate-args.sh - `pathgen generate`'s options: --help, usage errors
# (exit 2 with a usage line), input errors (exit 1, nothing written), -o
# with and without --force, and the options that change the tree, each
# checked on the text written (expectations from docs/pathgen.md).
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/pathgen-args.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
P=bin/pathgen
E=examples/pathgen
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# usage_err MESSAGE ARGS...: exit 2, first line "pathgen: MESSAGE", a usage line.
usage_err() {
    want=$1
    shift
    $P "$@" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 2 ] || fail "pathgen $*: exit $rc, want 2"
    [ "$(head -1 "$T/err")" = "pathgen: $want" ] ||
        fail "pathgen $*: '$(head -1 "$T/err")', want 'pathgen: $want'"
    grep -q '^usage: pathgen' "$T/err" || fail "pathgen $*: no usage line"
    [ -s "$T/out" ] && fail "pathgen $*: wrote to stdout"
}

# has ARGS... -- PATTERN: the tree written matches the grep pattern.
has() {
    args=
    while [ "$1" != -- ]; do args="$args $1"; shift; done
    # shellcheck disable=SC2086
    $P $args >"$T/tree" 2>"$T/err" || { fail "pathgen$args: $(head -1 "$T/err")"; return; }
    grep -q -- "$2" "$T/tree" || fail "pathgen$args: no line matching '$2'"
    bin/pathmap-check "$T/tree" >/dev/null 2>&1 || fail "pathgen$args: does not validate"
}

# --help on stdout, exit 0; with or without the word generate.
$P generate --help >"$T/out" 2>"$T/err" || fail "generate --help: exit $?"
grep -q -- '--threads-per-host' "$T/out" || fail "generate --help: no options listed"
[ -s "$T/err" ] && fail "generate --help wrote to stderr"
$P --hosts 2 --help >/dev/null || fail "--help after an option: exit $?"

usage_err "unknown option '--hots'" --hots 4 --threads-per-host 2
usage_err "option '--hosts' requires an argument" --threads-per-host 2 --hosts
usage_err "--hosts: 'x' is not an integer, expected 1..1000000" --hosts x --threads-per-host 2
usage_err "--threads-per-host: '0' is out of range, expected 1..1000000" --hosts 2 \
    --threads-per-host 0
usage_err "--hosts and --threads-per-host go together" --hosts 4
usage_err "give either --hosts/--threads-per-host or the three mappings" \
    --hosts 4 --threads-per-host 2 --cluster $E/8w.cluster
usage_err "give --hosts H --threads-per-host T, or --cluster F --app F --mapping F" \
    --cluster $E/8w.cluster --app $E/8w.app
usage_err "--shape: unknown shape 'tri' (expected nary, flat, quad, binary or a fan-out list such as 4,2)" \
    --hosts 4 --threads-per-host 2 --shape tri
usage_err "--host-shape: no host '9' in the inputs" --hosts 4 --threads-per-host 2 \
    --host-shape nary@1,9
usage_err "--root-host: no host 'host7' in the inputs" --hosts 4 --threads-per-host 2 \
    --root-host host7
usage_err "--split: unknown 'middle', expected first or last" --hosts 4 --threads-per-host 2 \
    --split 2:middle
usage_err "--split: no cluster 'z' in the inputs" --hosts 4 --threads-per-host 2 --split 2@z
usage_err "--split: '0' is out of range, expected 1..1000000" --hosts 4 --threads-per-host 2 \
    --split 0:last
usage_err "--host-shape: item 2 of '0,,1' is empty, expected items separated by ','" --hosts 4 \
    --threads-per-host 2 --host-shape quad@0,,1
usage_err "--type: unknown 'int8', expected int32, int64, float or double" --hosts 4 \
    --threads-per-host 2 --type int8
usage_err "--op: unknown 'avg', expected sum, min or max" --hosts 4 --threads-per-host 2 --op avg
usage_err "--shape given twice" --hosts 4 --threads-per-host 2 --shape quad --shape binary
usage_err "unexpected argument 'extra'" --hosts 4 --threads-per-host 2 extra
usage_err "subcommand: unknown 'frobnicate', expected generate, edit, compare or advise" frobnicate

# Input errors: exit 1, the file's error first, nothing on stdout.
$P --cluster $T/none.cluster --app $E/8w.app --mapping $E/8w.mapping >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "missing cluster file: want exit 1"
grep -q "^$T/none.cluster: error: cannot open: " "$T/err" || fail "missing file: $(cat "$T/err")"
[ -s "$T/out" ] && fail "missing cluster file: wrote to stdout"

# -o: written once; an existing file is kept unless --force.
$P --hosts 2 --threads-per-host 2 -o "$T/a.pathmap" || fail "-o: exit $?"
bin/pathmap-check "$T/a.pathmap" >/dev/null || fail "-o: does not validate"
echo keep >"$T/b.pathmap"
$P --hosts 2 --threads-per-host 2 -o "$T/b.pathmap" 2>"$T/err"
[ $? -eq 1 ] || fail "-o over a file without --force: want exit 1"
[ "$(cat "$T/b.pathmap")" = keep ] || fail "-o without --force changed the file"
grep -q 'exists; give --force' "$T/err" || fail "-o without --force: $(cat "$T/err")"
$P --hosts 2 --threads-per-host 2 -o "$T/b.pathmap" --force || fail "--force: exit $?"
bin/pathmap-check "$T/b.pathmap" >/dev/null || fail "--force: not replaced"

# Options that change the tree.
has --hosts 4 --threads-per-host 2 --root-host 2 -- '^core  *root  *host=host2 '
has --hosts 4 --threads-per-host 2 --root-host host3 -- '^proxy p0  *host=host0 parent=cr0 '
has --hosts 2 --threads-per-host 2 --type double --op max --tree dot -- '^tree dot type=double op=max$'
has --hosts 2 --threads-per-host 2 --algo rd -- '^algo  *across run=rd  *#'
has --hosts 2 --threads-per-host 2 --algo=ring -- '^algo  *across run=ring  *#'
has --hosts 1 --threads-per-host 6 --shape 3,2 -- '^gred  *h0.l1.1 .*# fan-in 3$'
has --hosts 1 --threads-per-host 8 --host-shape quad --host-shape binary@0 -- 'h0.l2.3'
# --split without :first/:last moves to the last host, as pathgen edit's split
# does: host3 gets cr1.1 of hosts 2-3 (split4W's placement; :first gives host2).
has --hosts 4 --threads-per-host 2 --shape binary --split 2 -- '^proxy p3.cr1.1  *host=host3 parent=cr0 '
has --hosts 4 --threads-per-host 2 --shape binary --split 2:first -- '^proxy p2.cr1.1  *host=host2 parent=cr0 '
# The header gives the command (as `pathgen generate ...`, the word or not).
has --hosts 2 --threads-per-host 2 -- '^# Generated by: pathgen generate --hosts 2 --threads-per-host 2$'
$P --hosts 2 --threads-per-host 2 --algo 'run=prr round=2000' >"$T/tree" || fail "--algo 'run=prr ...'"
grep -q "^# Generated by: pathgen generate --hosts 2 --threads-per-host 2 --algo 'run=prr round=2000'$" \
    "$T/tree" || fail "the header does not quote --algo's value"
grep -q '^algo  *across run=prr round=2000 ' "$T/tree" || fail "--algo 'run=prr round=2000'"
# --note: lines that open the header, in order ('' an empty one), left out
# of the command the header gives.
$P --hosts 2 --threads-per-host 1 --note 'first note' --note '' --note='it'"'"'s last' \
    >"$T/tree" || fail "--note"
sed -n '1,/^$/p' "$T/tree" >"$T/head"
cat >"$T/want" <<'HEAD'
# first note
#
# it's last
# sum - made by pathgen (docs/pathgen.md)
# Generated by: pathgen generate --hosts 2 --threads-per-host 1
# Inputs: --hosts 2 --threads-per-host 1
# Shapes: host subtrees nary, cluster root nary
# Size: 2 hosts, 2 threads, 3 wrappers; longest path 3 wrappers

HEAD
cmp -s "$T/head" "$T/want" || { fail "--note: the header is not as expected:"; diff "$T/want" "$T/head"; }

[ "$fails" -eq 0 ] && echo "generate-args: all passed"
[ "$fails" -eq 0 ]
