#!/bin/sh
# tests/fuzz/replay.sh - every fuzz target's committed corpus (seeds, and the
# inputs that once crashed it) through build/tests/fuzz_NAME, the target
# built with tests/fuzz/replay.c instead of libFuzzer (and the directories
# of tests/fuzz/NAME.seeds): in the plain build it
# checks that nothing crashes, in build/san/asan that nothing trips ASan,
# UBSan or LSan.  Targets are the fuzz_*.c files next to this script.
set -eu
. tests/lib.sh
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
n=0
for src in tests/fuzz/fuzz_*.c; do
  t=${src#tests/fuzz/fuzz_}; t=${t%.c}
  [ -x "build/tests/fuzz_$t" ] || fail "build/tests/fuzz_$t is not built"
  [ -n "$(ls "tests/fuzz/$t")" ] || fail "tests/fuzz/$t/ is empty"
  # The directories of tests/fuzz/NAME.seeds too (no comments, no blanks).
  seeds=
  [ ! -f "tests/fuzz/$t.seeds" ] ||
    seeds=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "tests/fuzz/$t.seeds")
  # shellcheck disable=SC2086 # one word per directory
  "build/tests/fuzz_$t" "tests/fuzz/$t" $seeds > "$tmp" ||
    { tail -n 5 "$tmp"; fail "fuzz_$t failed on tests/fuzz/$t $seeds"; }
  tail -n 1 "$tmp"
  n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "found $n fuzz targets"
echo "replay: ok ($n targets)"
