#!/bin/sh
# tests/infra/runner-first.sh - the runner's --first NAME: the named registry
# entries start before the others, in the order the options give (a corpus
# entry with all its files), the rest in registry order; --list shows that
# start order; the results are still printed in registry order; a name that
# is no entry is refused (exit 2), as a stale --skip is.
set -eu
. tests/lib.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/runner-first.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Registry order: the unit tests come before the good pathmaps, and
# stats_small_odd before stats_ten (tests/test_list.h).
build/run_tests --list stats_small_odd stats_ten test_pathmaps_good > "$tmp/plain"
ngood=$(grep -c '^good  *test_pathmaps_good/' "$tmp/plain" || true)
[ "$ngood" -ge 2 ] || fail "expected at least 2 files in tests/pathmap/good, found $ngood"
[ "$(sed -n 1p "$tmp/plain")" = "unit   stats_small_odd" ] || fail "registry order: stats_small_odd should be first"
[ "$(sed -n 2p "$tmp/plain")" = "unit   stats_ten" ] || fail "registry order: stats_ten should be second"

# --first, twice: every file of the corpus entry first, then stats_ten, then
# the rest (stats_small_odd) in registry order.
build/run_tests --list stats_small_odd stats_ten test_pathmaps_good \
    --first test_pathmaps_good --first=stats_ten > "$tmp/first"
[ "$(wc -l < "$tmp/first")" -eq "$(wc -l < "$tmp/plain")" ] || fail "--first changed the selection"
head -n "$ngood" "$tmp/first" > "$tmp/head"
[ "$(grep -c '^good  *test_pathmaps_good/' "$tmp/head")" -eq "$ngood" ] ||
    { cat "$tmp/first" >&2; fail "the corpus entry's $ngood files should start first"; }
[ "$(sed -n "$((ngood + 1))p" "$tmp/first")" = "unit   stats_ten" ] ||
    { cat "$tmp/first" >&2; fail "stats_ten should start right after the corpus"; }
[ "$(sed -n "$((ngood + 2))p" "$tmp/first")" = "unit   stats_small_odd" ] ||
    { cat "$tmp/first" >&2; fail "stats_small_odd should start last"; }

# A --first entry that the selection leaves out changes nothing.
build/run_tests --list stats_small_odd stats_ten --first test_pathmaps_good > "$tmp/unsel"
[ "$(sed -n 1p "$tmp/unsel")" = "unit   stats_small_odd" ] && [ "$(wc -l < "$tmp/unsel")" -eq 2 ] ||
    { cat "$tmp/unsel" >&2; fail "--first of an unselected entry changed the list"; }

# Running: the results come in registry order, whatever started first.
build/run_tests -j 2 -x stats_small_odd stats_ten --first stats_ten > "$tmp/run"
[ "$(grep '^ok ' "$tmp/run" | sed 's/ (.*//')" = "ok 1 - stats_small_odd
ok 2 - stats_ten" ] || { cat "$tmp/run" >&2; fail "results not in registry order with --first"; }

# A name that is no entry (or a corpus file's name) is refused, nothing runs.
for bad in nosuch test_pathmaps_good/double-max-2x2; do
    st=0
    build/run_tests -x stats_ten --first "$bad" > "$tmp/bad" 2>&1 || st=$?
    [ "$st" -eq 2 ] || fail "--first $bad: exit $st, want 2"
    expect_count "$tmp/bad" 1 "run_tests: --first '$bad': no test has that name"
    ! grep -q '^ok ' "$tmp/bad" || fail "--first $bad: a test ran"
done
st=0
build/run_tests --list --first > "$tmp/bad" 2>&1 || st=$?
[ "$st" -eq 2 ] || fail "--first without a NAME: exit $st, want 2"
echo "runner-first: ok"
