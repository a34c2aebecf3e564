#!/bin/sh
# End-to-end: the commands of README.md's "user's loop" run as a user would
# type them (taken from the README itself, so the README cannot drift from
# the code), with fewer iterations, in a directory as fresh as a new clone's
# (bin/ and pathmaps/ linked in, no out/ of earlier runs); then the first
# traced run again, as a user reruns the loop; then the demo script; then
# --help of every program.
set -eu
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$(pwd)
loop=$tmp/loop
mkdir "$loop"; ln -s "$top/bin" "$loop/bin"; ln -s "$top/pathmaps" "$loop/pathmaps"

# The indented lines of the loop section that start with bin/, mpirun,
# sqlite3 or otf2-print (its pager left out).
sed -n '/^## The user.s loop/,/^## /p' README.md |
  sed -n 's/^    \(\(bin\/\|mpirun \|sqlite3 \|otf2-print \).*\)$/\1/p' |
  sed 's/ *#.*//; s/ | less$/ | head -20/' > "$tmp/cmds"
[ "$(wc -l < "$tmp/cmds")" -ge 3 ] || fail "found fewer than 3 commands in README.md"
# run CMD: one README command in $loop, its output appended to $tmp/all.
run() {
  cmd=$(echo "$1" | sed 's/-n 20000/-n 300/')
  [ "$(id -u)" = 0 ] && cmd=$(echo "$cmd" | sed 's/^mpirun /mpirun --allow-run-as-root /')
  echo "+ $cmd" | tee -a "$tmp/all"
  (cd "$loop" && timeout 120 sh -c "$cmd") > "$tmp/out" 2>&1 < /dev/null ||
    { cat "$tmp/out" >&2; fail "README command failed: $cmd"; }
  cat "$tmp/out" | tee -a "$tmp/all"
}
while IFS= read -r cmd; do
  run "$cmd"
done < "$tmp/cmds"
# What the loop's commands say they wrote, where the next ones read.
expect_count "$tmp/all" 1 "Report: out/split-report/index.html"
expect_count "$tmp/all" 1 "Timemap: out/split-timemap-5.svg"
expect_count "$tmp/all" 1 "Tree: out/split-tree.svg"
expect_count "$tmp/all" 1 "Timeline: out/split-timeline.json"
python3 tests/viz/timeline_check.py "$loop/out/split-timeline.json" ||
  fail "the README's timeline fails the outside check"
expect_count "$tmp/all" 1 "Schedule: out/prr-schedule.svg"
expect_count "$tmp/all" 1 "Trace: out/cg/prr/traces.otf2"
grep -q "^node  *name  *kind  *part  *metric" "$tmp/all" || fail "the sqlite3 command printed no hotspots"
# The loop rerun: the first traced run replaces its trace (and the database
# made from it); the pictures beside the folder stay.
first=$(grep -m1 -- '--trace out/split' "$tmp/cmds")
run "$first"
[ -s "$loop/out/split/traces.otf2" ] && [ ! -e "$loop/out/split/traces.db" ] ||
  fail "rerun: out/split is not the new trace alone"
[ -s "$loop/out/split-report/index.html" ] && [ -s "$loop/out/split-tree.svg" ] ||
  fail "rerun: the pictures beside out/split are gone"
run "$(grep -m1 '^bin/papanalyze out/split/traces.otf2' "$tmp/cmds")"

# make demo's script (deps and build are make's part), with a short run.
N=300 sh scripts/demo.sh > "$tmp/demo" 2>&1 || { cat "$tmp/demo" >&2; fail "scripts/demo.sh"; }
expect_count "$tmp/demo" 2 "Avg Latency(us)"
[ -s out/demo/gsum.txt ] && [ -s out/demo/native.txt ] || fail "demo wrote no results"
[ -f out/demo/trace/traces.otf2 ] || fail "demo wrote no trace"
expect_count "$tmp/demo" 1 "Trace: out/demo/trace/traces.otf2"
# ... analysed, ending with the report (4- and 256-byte tuples), saved in three formats
expect_count "$tmp/demo" 1 "Database: out/demo/trace/traces.db"
expect_count "$tmp/demo" 2 "Stages of thread"
expect_count "$tmp/demo" 1 "ops imbalanced"          # the text report
# ... and ends with the pictures: the path of the report page, which exists.
tail -1 "$tmp/demo" | grep -q "^Report: $(pwd)/out/demo/report/index.html$" \
  || { tail -5 "$tmp/demo" >&2; fail "demo does not end with the report page's path"; }
[ -s out/demo/report/index.html ] && [ -s out/demo/report/timemap-4.svg ] \
  && [ -s out/demo/report/tree.svg ] || fail "demo wrote no report page or SVGs"
for f in report.txt report.csv report.json; do [ -s "out/demo/$f" ] || fail "demo wrote no $f"; done
# ... and the same threads through an algorithm node: its trace, report, schedule, comparison.
[ -f out/demo/algo/trace/traces.otf2 ] && [ -s out/demo/algo/trace/traces.db ] \
  || fail "demo wrote no algorithm-node trace or database"
expect_count out/demo/algo/report.txt 1 "Algorithm node"
expect_count "$tmp/demo" 4 "Algorithm node"   # its three report sections, then its paths
python3 tests/viz/timeline_check.py out/demo/algo/timeline.json ||
  fail "the demo's timeline fails the outside check"
for f in algo/schedule.svg compare-timemap.svg algo/report/index.html; do
  [ -s "out/demo/$f" ] || fail "demo wrote no $f"
  case $f in *.svg) xmllint --noout "out/demo/$f" || fail "out/demo/$f is not well-formed";; esac
done
expect_count out/demo/compare-timemap.svg 1 "algo"
# The README's papanalyze commands left a database with the user's loop's thread.
[ "$(sqlite3 "$loop/out/split/traces.db" "SELECT COUNT(*) FROM threads WHERE thread = 5")" = 1 ] \
  || fail "out/split/traces.db has no thread 5"
# The README's traced run left a readable archive.
otf2-print "$loop/out/split/traces.otf2" > "$tmp/print" 2> "$tmp/print.err" || fail "otf2-print out/split"
[ ! -s "$tmp/print.err" ] || { cat "$tmp/print.err" >&2; fail "otf2-print wrote errors"; }
expect_count "$tmp/print" 1 "ENTER"

# Every program answers --help with its usage and exit 0.
for p in bin/pathmap-check bin/gredbench bin/tracebench bin/papanalyze bin/otf2-readbench \
         bin/papviz bin/papsim bin/clvbench bin/algobench bin/schedgen bin/papbench bin/cg \
         bin/netfit bin/pathgen bin/sweep; do
  "$p" --help > "$tmp/help" || fail "$p --help exited non-zero"
  expect_count "$tmp/help" 1 "usage:"
done
bench/compare-native.sh -h > "$tmp/help" || fail "compare-native -h"
expect_count "$tmp/help" 1 "compare-native"
bench/trace-overhead.sh -h > "$tmp/help" || fail "trace-overhead -h"
expect_count "$tmp/help" 1 "bench/trace-overhead.sh [-r ROUNDS]"
bench/analyze-bench.sh --help > "$tmp/help" || fail "analyze-bench --help"
expect_count "$tmp/help" 1 "analyze-bench"
bench/viz-bench.sh -h > "$tmp/help" || fail "viz-bench -h"
expect_count "$tmp/help" 1 "viz-bench"
bench/ab-compare.sh -h > "$tmp/help" || fail "ab-compare -h"
expect_count "$tmp/help" 1 "bench/ab-compare.sh [-r ROUNDS]"
bench/papsim-paper.sh -h > "$tmp/help" || fail "papsim-paper -h"
expect_count "$tmp/help" 1 "papsim-paper.sh - "
for b in algobench osu-compare algo-tree perf-tree papbench-sweep papsim-measured pathgen-paper; do
  bash "bench/$b.sh" -h > "$tmp/help" || fail "$b -h"
  expect_count "$tmp/help" 1 "bench/$b.sh - "
done
echo "e2e readme: ok"
