#!/bin/sh
# tests/pathgen/edit.sh - `pathgen edit`: --help, usage errors (exit 2),
# the paper's sequences through the command line (several operators
# separated by ',', globs over wrapper names) compared with the samples by
# `pathgen compare --names`, a round trip that gives the file back but for
# the history lines, refusals (exit 1, the reason, nothing written), the
# parser's path:line:col for a bad input (the message of the bad-pathmap
# corpus), -o / --force, and --tree.  Expected texts are written by hand.
set -eu
. tests/lib.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pathgen-edit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
P=pathmaps/paper
L=pathmaps/local

# run WANT_RC ARGS...: bin/pathgen edit ARGS, stdout in $tmp/out, stderr in
# $tmp/err (without a trailing " [src.c:N]"), exit status checked.
run() {
  want=$1; shift
  set +e
  bin/pathgen edit "$@" > "$tmp/out" 2> "$tmp/err.raw"
  rc=$?
  set -e
  no_sanitizer_report "$tmp/err.raw" "edit $*"
  sed 's/ \[[^]]*\.c:[0-9]*\]$//' "$tmp/err.raw" > "$tmp/err"
  [ "$rc" -eq "$want" ] || { cat "$tmp/out" "$tmp/err" >&2; fail "edit $*: exit $rc, want $want"; }
}

# first FILE TEXT: the first line of FILE is TEXT.
first() {
  got=$(sed -n 1p "$1")
  [ "$got" = "$2" ] || fail "got '$got', want '$2'"
}

# same_as SAMPLE: $tmp/out is SAMPLE's tree, names included.
same_as() {
  cp "$tmp/out" "$tmp/got.pathmap"
  bin/pathgen compare --names "$tmp/got.pathmap" "$1" || fail "edit result differs from $1"
}

# ---- help and usage -------------------------------------------------------
run 0 --help
first "$tmp/out" "usage: pathgen edit FILE OP [ARGS] [, OP [ARGS]]... [-o OUT] [--force] [--tree NAME]"
[ ! -s "$tmp/err" ] || fail "--help wrote to stderr"
for op in add-level remove-level move split unsplit add-link remove-link root algo merge; do
  grep -q "^  $op " "$tmp/out" || fail "--help does not list $op"
done
run 0 $L/nary-2x2.pathmap -h

run 2
first "$tmp/err" "pathgen edit: needs a FILE and an operator"
expect_count "$tmp/err" 1 "usage: pathgen edit FILE OP"
run 2 $L/nary-2x2.pathmap
first "$tmp/err" "pathgen edit: needs a FILE and an operator"
run 2 $L/nary-2x2.pathmap shuffle h0
first "$tmp/err" "pathgen edit: unknown operator 'shuffle' (pathgen edit --help lists them)"
run 2 $L/nary-2x2.pathmap add-level h0 --bogus
first "$tmp/err" "pathgen edit: unknown option '--bogus'"
run 2 $L/nary-2x2.pathmap move h1
first "$tmp/err" "pathgen edit: move takes WRAPPER HOST"
run 2 $L/nary-2x2.pathmap add-level h0 , , unsplit
first "$tmp/err" "pathgen edit: an empty operator between ','"
run 2 $L/nary-2x2.pathmap split two
first "$tmp/err" "pathgen edit: split takes SPAN [first|last] (a number of host subtrees)"
run 2 $L/nary-2x2.pathmap add-level h0 -o
first "$tmp/err" "pathgen edit: option '-o' requires an argument"
run 2 $L/nary-2x2.pathmap add-level h0 --tree
first "$tmp/err" "pathgen edit: option '--tree' requires an argument"
run 2 $L/gred-1x2.pathmap merge $L/gred-1x2.pathmap
first "$tmp/err" "pathgen edit: merge needs a gateway host name: merge FILE2 GATEWAY"

# ---- the paper's sequences ------------------------------------------------
run 0 $P/nary8w.pathmap add-level 'h*'
same_as $P/quad8w.pathmap
run 0 $P/nary8w.pathmap add-level 'h*' , add-level 'h*' , add-level cr0
same_as $P/binary8w.pathmap
# the history: one header line per edit, after the file's own header
[ "$(grep -c '^# pathgen edit: add-level h[0-3]$' "$tmp/out")" -eq 8 ] || fail "history lines"
grep -q '^# pathgen edit: add-level cr0$' "$tmp/out" || fail "history line of cr0"
run 0 $P/nary4w.pathmap add-level h0 h1 h2 h3 h4 h5 h6 h7 , add-level cr0 , add-level cr0
same_as $P/binary4w.pathmap
run 0 $P/binary4w.pathmap split 2 last
same_as $P/split4w.pathmap
run 0 $P/binary4w.pathmap move cr2.1 host3 , move cr2.2 host5 , move cr2.3 host7
same_as $P/split4w.pathmap
run 0 $P/split4w.pathmap remove-level h1 h2 h4 h6
same_as $P/split4w-2.pathmap
run 0 $P/binary8w.pathmap add-link h1 h2 h3
same_as $P/binary8w-extralinks.pathmap
run 0 $P/nary4w.pathmap add-link 'h*'
same_as $P/nary4w-extralinks.pathmap
run 0 $P/quadnow.pathmap split 4 first
same_as $P/splitnow.pathmap
run 0 $P/split4w.pathmap merge $P/binary8w.pathmap gw a b
same_as $P/multicluster-split4w-binary8w.pathmap
grep -q "^# pathgen edit: merge: A is $P/split4w.pathmap, B is $P/binary8w.pathmap$" "$tmp/out" ||
  fail "merge's history line"
run 0 $L/nary-4x2.pathmap algo run=rd
same_as $L/algo/rd-4x2.pathmap

# ---- a round trip: the file back but for the two history lines -------------
run 0 $P/nary8w.pathmap add-level h0 , remove-level h0
grep -v '^# pathgen edit: ' "$tmp/out" > "$tmp/back"
cmp -s "$tmp/back" $P/nary8w.pathmap || { diff "$tmp/back" $P/nary8w.pathmap >&2; fail "round trip"; }

# ---- refusals: exit 1, the reason, nothing written --------------------------
run 1 $L/nary-2x2.pathmap add-level h9 -o "$tmp/never.pathmap"
first "$tmp/err" "pathgen: error: add-level: no wrapper 'h9' in tree sum"
[ ! -e "$tmp/never.pathmap" ] || fail "a refused edit wrote its output"
run 1 $L/nary-2x2.pathmap add-level h0
first "$tmp/err" "pathgen: error: add-level h0: nothing to group: no toplevel gred of the subtree has more than 2 contributors"
run 1 $L/nary-2x2.pathmap move p1 host0
first "$tmp/err" "pathgen: error: move: 'p1' is a proxy, not a gred or core"
# the second operator fails: nothing of the first is written either
run 1 $P/nary8w.pathmap add-level h0 , remove-level h1 -o "$tmp/never.pathmap"
first "$tmp/err" "pathgen: error: remove-level h1: the subtree has one level: nothing to remove"
[ ! -e "$tmp/never.pathmap" ] || fail "a failed command wrote its output"
run 1 $L/nary-2x2.pathmap add-level 'x*'
first "$tmp/err" "pathgen: error: add-level: no gred matches 'x*'"
run 1 $L/nary-4x2.pathmap algo run=nap ppn=3
first "$tmp/err" "pathgen: error: algo run=nap ppn=3: ppn=3 does not divide the 4 hosts of algorithm node 'across' (nap needs the same number of hosts on every node)"
run 1 $L/gred-1x2.pathmap merge $L/gred-1x2.pathmap gw
first "$tmp/err" "pathgen: error: merge: the trees have hosts of the same name; give prefixes"

# ---- a bad input: the parser's path:line:col (the corpus's message) ------
bad=tests/pathmap/bad/03-unknown-keyword
run 1 $bad.pm add-level g
[ "$(cat "$tmp/err")" = "pathgen: $(cat $bad.expect)" ] || { cat "$tmp/err" >&2; fail "bad input"; }
run 1 "$tmp/missing.pathmap" unsplit
expect_count "$tmp/err" 1 "$tmp/missing.pathmap"

# ---- -o and --force --------------------------------------------------------
run 0 $L/nary-4x2.pathmap add-level cr0 -o "$tmp/b.pathmap"
[ ! -s "$tmp/out" ] || fail "-o also wrote stdout"
bin/pathgen compare --names "$tmp/b.pathmap" $L/binary-4x2.pathmap || fail "-o output"
run 1 $L/nary-4x2.pathmap add-level cr0 -o "$tmp/b.pathmap"
first "$tmp/err" "pathgen: $tmp/b.pathmap: exists; give --force to replace it"
run 0 --force $L/binary-4x2.pathmap -o "$tmp/b.pathmap" split 2 last
bin/pathgen compare --names "$tmp/b.pathmap" $L/split-4x2.pathmap || fail "--force output"

# ---- --tree: one tree of a file of two --------------------------------------
cat > "$tmp/two.pathmap" <<'EOF'
host h0
host h1
tree a
core  root host=h0
gred  g    host=h0 parent=root
proxy p1   host=h1 parent=g
threads 0-1 host=h0 enter=g
threads 2 host=h1 enter=p1
tree b type=double
core  root host=h0
gred  g    host=h0 parent=root
proxy p1   host=h1 parent=g
threads 0-1 host=h0 enter=g
threads 2 host=h1 enter=p1
EOF
run 1 "$tmp/two.pathmap" add-level g
first "$tmp/err" "pathgen: $tmp/two.pathmap: error: 2 trees (a, b): say which one"
run 0 "$tmp/two.pathmap" add-level g --tree b
grep -q '^tree b type=double' "$tmp/out" || fail "--tree b: the tree line"
# g's three contributors halve into g.l1.0 (threads 0-1) and p1 alone
grep -q '^threads 0-1 host=h0 enter=g.l1.0$' "$tmp/out" || fail "--tree b: the grouping"
echo "pathgen edit: ok"
