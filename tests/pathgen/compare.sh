#!/bin/sh
# tests/pathgen/compare.sh - `pathgen compare`: --help, usage errors (exit
# 2), equal trees (exit 0), different ones with the first difference on
# stderr (exit 1), --names, --tree, and files that do not load (exit 1,
# the parser's path:line:col).  Expected texts are written by hand.
set -eu
. tests/lib.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pathgen-compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
L=pathmaps/local

# run WANT_RC ARGS...: bin/pathgen compare ARGS, stdout in $tmp/out, stderr
# in $tmp/err (without a trailing " [src.c:N]"), exit status checked.
run() {
  want=$1; shift
  set +e
  bin/pathgen compare "$@" > "$tmp/out" 2> "$tmp/err.raw"
  rc=$?
  set -e
  no_sanitizer_report "$tmp/err.raw" "compare $*"
  sed 's/ \[[^]]*\.c:[0-9]*\]$//' "$tmp/err.raw" > "$tmp/err"
  [ "$rc" -eq "$want" ] || { cat "$tmp/out" "$tmp/err" >&2; fail "compare $*: exit $rc, want $want"; }
}

# same FILE TEXT: the first line of FILE is TEXT.
same() {
  got=$(sed -n 1p "$1")
  [ "$got" = "$2" ] || fail "got '$got', want '$2'"
}

run 0 --help
same "$tmp/out" "usage: pathgen compare A B [--names] [--tree NAME]"
[ ! -s "$tmp/err" ] || fail "--help wrote to stderr"
run 0 $L/nary-2x2.pathmap -h
same "$tmp/out" "usage: pathgen compare A B [--names] [--tree NAME]"

run 2
same "$tmp/err" "pathgen: compare: needs two pathmaps, A and B"
expect_count "$tmp/err" 1 "usage: pathgen compare A B"
run 2 $L/nary-2x2.pathmap
same "$tmp/err" "pathgen: compare: needs two pathmaps, A and B"
run 2 --bogus $L/nary-2x2.pathmap $L/nary-2x2.pathmap
same "$tmp/err" "pathgen: compare: unknown option '--bogus'"
run 2 a b c
same "$tmp/err" "pathgen: compare: one file too many: 'c'"
run 2 a b --tree
same "$tmp/err" "pathgen: compare: option '--tree' requires an argument"

# pathmaps/README.md, "Coincident local trees"
run 0 $L/binaryquad-2x4.pathmap $L/binary-2x4.pathmap
same "$tmp/out" "same tree: $L/binaryquad-2x4.pathmap $L/binary-2x4.pathmap"
[ ! -s "$tmp/err" ] || fail "equal trees wrote to stderr"
run 0 $L/split-4x2.pathmap $L/split2-4x2.pathmap --names
run 1 $L/nary-4x2.pathmap $L/binary-4x2.pathmap
same "$tmp/err" "pathgen: compare: $L/nary-4x2.pathmap (a) and $L/binary-4x2.pathmap (b) differ: node cr0 (host 0): 4 contributors in a, 2 in b"
[ ! -s "$tmp/out" ] || fail "different trees wrote to stdout"

# Renamed wrappers: the same tree unless --names.
cat > "$tmp/a.pathmap" <<'PM'
host a
host b
tree sum
core  r  host=a
gred  g0 host=a parent=r
proxy q  host=b parent=g0
gred  g1 host=b parent=q
threads 0-1 host=a enter=g0
threads 2-3 host=b enter=g1
PM
sed -e 's/g1/hb/g' -e 's/ q / pb /; s/=q$/=pb/' "$tmp/a.pathmap" > "$tmp/b.pathmap"
grep -q 'parent=pb' "$tmp/b.pathmap" || fail "sed did not rename q"
run 0 "$tmp/a.pathmap" "$tmp/b.pathmap"
run 1 "$tmp/a.pathmap" "$tmp/b.pathmap" --names
same "$tmp/err" "pathgen: compare: $tmp/a.pathmap (a) and $tmp/b.pathmap (b) differ: node g0 (host 0): proxy q of node g1 is called pb in b"
# wait=block on g0
sed 's/parent=r$/parent=r wait=block/' "$tmp/a.pathmap" > "$tmp/c.pathmap"
run 1 "$tmp/a.pathmap" "$tmp/c.pathmap"
same "$tmp/err" "pathgen: compare: $tmp/a.pathmap (a) and $tmp/c.pathmap (b) differ: node g0 (host 0): params none in a, wait=block in b"

# Files that do not load: the parser's error, exit 1.
printf 'host a\ntree sum\ncore r host=a\ngred g host=b parent=r\n' > "$tmp/bad.pathmap"
run 1 "$tmp/bad.pathmap" "$tmp/a.pathmap"
same "$tmp/err" "$tmp/bad.pathmap:4:13: error: unknown host 'b' (declare it with a 'host' line above)"
run 1 "$tmp/a.pathmap" "$tmp/none.pathmap"
same "$tmp/err" "$tmp/none.pathmap: error: cannot open: No such file or directory"
T=tests/pathmap/good/two-trees-2x2.pathmap
run 1 $T $T
same "$tmp/err" "$T: error: 2 trees (flat, deep): say which one"
run 0 $T $T --tree deep --names
run 0 $T $T --tree=flat
echo "pathgen-compare: ok"
