#!/bin/sh
# tests/infra/runner-select.sh - the runner selects tests by substring, or by
# whole name with -x, and refuses a selection that matches nothing.
set -eu
. tests/lib.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/runner-select.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Substring: every stats_* unit test (16 in tests/unit/analyze/t_stats.c).
build/run_tests --list stats_ > "$tmp/sub"
[ "$(grep -c '^unit  *stats_' "$tmp/sub")" -eq 16 ] || fail "stats_ should select the 16 stats tests"
# Whole name: gred_threads is also a substring of nothing else, stats_ten is
# a substring of nothing else, but "stats_small" names no test on its own.
build/run_tests --list -x stats_ten gred_threads > "$tmp/exact"
[ "$(wc -l < "$tmp/exact")" -eq 2 ] || fail "-x stats_ten gred_threads should select 2 tests"
expect_count "$tmp/exact" 1 "stats_ten"
expect_count "$tmp/exact" 1 "gred_threads"
st=0
build/run_tests --list --exact stats_small > "$tmp/none" 2>&1 || st=$?
[ "$st" -eq 2 ] || fail "--exact stats_small: exit $st, want 2 (no test has that name)"
expect_count "$tmp/none" 1 "no test matches"
# A corpus item by its whole name.
build/run_tests --list -x pathmap_bad/$(ls tests/pathmap/bad | sed -n 's/\.pm$//p' | sed -n 1p) > "$tmp/one"
[ "$(wc -l < "$tmp/one")" -eq 1 ] || fail "-x pathmap_bad/<first> should select 1 item"
echo "runner-select: ok"
