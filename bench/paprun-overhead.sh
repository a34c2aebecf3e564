#!/usr/bin/env bash
# bench/paprun-overhead.sh - what the profiling library costs per call when
# it only traces (issue 25, point 8a).  One program compiled without
# paptree, bin/mpicall (bench/mpicall.c: CALLS back-to-back int32
# MPI_Allreduce of BYTES on NP ranks, the slowest rank's ns per call), run
# in four ways, interleaved in rounds (each round runs every arm once, the
# order rotated by one arm per round).  Each run times its calls in BLOCKS
# blocks and gives the median block's ns per call and the least block's
# (a block in which a rank lost its core on this shared machine is an
# outlier the median block leaves out):
#
#   plain    mpirun ... bin/mpicall                          (no library)
#   pass     mpirun ... bin/paprun -- bin/mpicall            (preloaded, no trace: pass-through)
#   trace    mpirun ... bin/paprun --trace DIR -- bin/mpicall
#   report   mpirun ... bin/paprun --report -- bin/mpicall   (no trace; the per-site report)
#
# and, once per round, `bin/mpicall --clock` (the cost of one read of the
# TSC and of CLOCK_MONOTONIC_RAW).  Prints a markdown table: per arm the
# median, least and largest ns per call over the rounds, the difference
# of its median to plain's, the median of the per-round differences to
# plain, and the goal (issue 25): a traced call costs at most two clock
# reads (enter, leave) + 100 ns more than a plain one.  The trace's clock
# is the TSC where it is invariant (instrument/clock.c), which
# `bin/mpicall --clock` reads as rdtsc; -C monotonic_raw measures that
# clock instead (PAPTREE_TRACE_CLOCK=monotonic_raw).
#
#   bench/paprun-overhead.sh [-r ROUNDS] [-n CALLS] [-b BLOCKS] [-p NP] [-s BYTES]
#                            [-C CLOCK] [-k DIR] [--dry-run]
#   bench/paprun-overhead.sh --table DIR
#
# Defaults: -r 7, -n 200000, -b 100, -p 2, -s 4.  -k DIR keeps the figures
# (per arm ARM, the median blocks, and ARM.least, the least blocks, a
# number per round; "clock": "rdtsc X" and "monotonic_raw Y" lines), which
# --table DIR turns into the table again
# without running anything.  --dry-run prints the commands in the order
# they would run.  NP above the core count oversubscribes, and the table
# says so.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
. bench/paprun-lib.sh
prog=paprun-overhead.sh
pb_usage="usage: bench/paprun-overhead.sh [-r ROUNDS] [-n CALLS] [-b BLOCKS] [-p NP] [-s BYTES] [-C rdtsc|monotonic_raw] [-k DIR] [--dry-run] | --table DIR"

rounds=7 calls=200000 blocks=100 np=2 bytes=4 clock=rdtsc keep="" dry=0 table=""
while [ $# -gt 0 ]; do
  case $1 in
    -r|-n|-b|-p|-s|-C|-k|--table)
      [ $# -ge 2 ] || pb_die "$prog" "option '$1' requires an argument" ;;
  esac
  case $1 in
    -r) pb_int "$prog" -r "$2" 1 101; rounds=$2; shift 2 ;;
    -n) pb_int "$prog" -n "$2" 1 1000000000; calls=$2; shift 2 ;;
    -b) pb_int "$prog" -b "$2" 1 100000; blocks=$2; shift 2 ;;
    -p) pb_int "$prog" -p "$2" 1 64; np=$2; shift 2 ;;
    -s) b=$(pb_bytes "$2")
        [ -n "$b" ] || pb_die "$prog" "-s: '$2' is not a size, expected a multiple of 4 in 4..1G (K, M suffixes)"
        { [ "$b" -ge 4 ] && [ "$b" -le 1073741824 ]; } ||
          pb_die "$prog" "-s: '$2' is out of range, expected a multiple of 4 in 4..1G"
        [ $((b % 4)) -eq 0 ] ||
          pb_die "$prog" "-s: '$2' is not a multiple of 4 (int32 elements), expected a multiple of 4 in 4..1G"
        bytes=$b; shift 2 ;;
    -C) case $2 in rdtsc|monotonic_raw) clock=$2 ;;
          *) pb_die "$prog" "-C: '$2' is not a clock, expected rdtsc or monotonic_raw" ;; esac
        shift 2 ;;
    -k) keep=$2; shift 2 ;;
    --table) table=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pb_die "$prog" "unknown option '$1'" ;;
  esac
done

[ "$blocks" -le "$calls" ] || pb_die "$prog" "-b: '$blocks' is more blocks than calls, expected 1..$calls (CALLS)"
arms=(plain pass trace report)

# signed X: X with a sign and one decimal; "nan" stays.
signed() { awk -v x="$1" 'BEGIN { if (x == "nan" || x == "") print "nan"; else printf "%+.1f\n", x }'; }

# table DIR: the markdown table of the figures in DIR.
table() {
  local d=$1 arm med lo hi dm dr c budget verdict tr diffs least dl
  [ -s "$d/plain" ] || { echo "$prog: $d/plain: no figures" >&2; exit 1; }
  c=$(grep "^$clock " "$d/clock" 2>/dev/null | awk '{ print $2 }' | pb_median)
  budget=$(awk -v c="$c" 'BEGIN { if (c == "nan") print "nan"; else printf "%.1f", 2 * c + 100 }')
  echo "| arm | ns/call (median block): median of the rounds | least | largest | median - plain's | per-round difference to plain: median (least..largest) | least block: median of the rounds | - plain's |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for arm in "${arms[@]}"; do
    [ -s "$d/$arm" ] || { echo "| $arm | not measured | | | | | | |"; continue; }
    med=$(pb_col "$d/$arm" | pb_median); lo=$(pb_col "$d/$arm" | pb_min); hi=$(pb_col "$d/$arm" | pb_max)
    least=$(pb_col "$d/$arm.least" | pb_median)
    if [ "$arm" = plain ]; then
      echo "| $arm | $(pb_fmt 1 "$med") | $(pb_fmt 1 "$lo") | $(pb_fmt 1 "$hi") | - | - | $(pb_fmt 1 "$least") | - |"
      continue
    fi
    dl=$(signed "$(awk -v a="$least" -v b="$(pb_col "$d/plain.least" | pb_median)" 'BEGIN { if (a == "nan" || b == "nan") print "nan"; else print a - b }')")
    dm=$(signed "$(awk -v a="$med" -v b="$(pb_col "$d/plain" | pb_median)" 'BEGIN { print a - b }')")
    diffs=$(pb_diffs "$d/$arm" "$d/plain")
    dr="$(signed "$(pb_median <<< "$diffs")") ($(signed "$(pb_min <<< "$diffs")")..$(signed "$(pb_max <<< "$diffs")"))"
    echo "| $arm | $(pb_fmt 1 "$med") | $(pb_fmt 1 "$lo") | $(pb_fmt 1 "$hi") | $dm | $dr | $(pb_fmt 1 "$least") | $dl |"
  done
  echo
  echo "clock ($clock): $(pb_fmt 2 "$c") ns per read (median of $(grep -c "^$clock " "$d/clock" 2>/dev/null || echo 0) rounds); goal: traced - plain <= 2 x clock + 100 = $budget ns per call"
  if [ -s "$d/trace" ]; then
    tr=$(pb_diffs "$d/trace" "$d/plain" | pb_median)
    verdict=$(awk -v t="$tr" -v b="$budget" 'BEGIN { if (b == "nan") print "no clock figure"; else if (t <= b) printf "met: %+.1f ns <= %.1f ns (%.2fx the budget)", t, b, t / b; else printf "NOT met: %+.1f ns > %.1f ns (%.2fx the budget)", t, b, t / b }')
    echo "trace (median of the per-round differences): $verdict"
  fi
  if [ -s "$d/trace.least" ] && [ -s "$d/plain.least" ]; then
    tr=$(awk -v a="$(pb_col "$d/trace.least" | pb_median)" -v b="$(pb_col "$d/plain.least" | pb_median)" 'BEGIN { print a - b }')
    echo "trace (least blocks, difference of the medians): $(awk -v t="$tr" -v b="$budget" 'BEGIN { if (b == "nan") print "no clock figure"; else printf "%+.1f ns, %.2fx the budget", t, t / b }')"
  fi
}

if [ -n "$table" ]; then
  table "$table"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
figs=${keep:-$tmp/figs}
mkdir -p "$figs"
[ "$dry" = 1 ] || for f in "${arms[@]}" "${arms[@]/%/.least}" clock; do : > "$figs/$f"; done

# cmd ARM ROUND: the command line of one run (words, one per line).
cmd() {
  local arm=$1 r=$2 app=(bin/mpicall -s "$bytes" -n "$calls" -b "$blocks")
  case $arm in
    plain)  paptree_mpirun_print -t 600 "$np" -- "${app[@]}" ;;
    pass)   paptree_mpirun_print -t 600 "$np" -- bin/paprun -- "${app[@]}" ;;
    trace)  paptree_mpirun_print -t 600 "$np" -- bin/paprun --trace "$tmp/trace.$r" -- "${app[@]}" ;;
    report) paptree_mpirun_print -t 600 "$np" -- bin/paprun --report -- "${app[@]}" ;;
  esac
}

if [ "$dry" = 0 ]; then
  for f in bin/mpicall bin/paprun lib/libpaptree-mpi.so; do
    [ -e "$f" ] || { echo "$prog: $f missing; run make" >&2; exit 1; }
  done
fi
env_clock=()
[ "$clock" = monotonic_raw ] && env_clock=(env PAPTREE_TRACE_CLOCK=monotonic_raw)
for ((r = 1; r <= rounds; r++)); do
  for arm in $(pb_order "$r" "${arms[@]}"); do
    line=$(cmd "$arm" "$r")
    if [ "$dry" = 1 ]; then echo "round $r $arm: $line"; continue; fi
    # shellcheck disable=SC2086 # the printed line is a word list without blanks in words
    out=$("${env_clock[@]}" $line 2>"$tmp/err") || {
      echo "$prog: round $r, $arm failed: $line" >&2; tail -5 "$tmp/err" >&2; exit 1; }
    grep -o 'ns_per_call=[0-9.]*' <<< "$out" | cut -d= -f2 >> "$figs/$arm"
    grep -o 'least_block=[0-9.]*' <<< "$out" | cut -d= -f2 >> "$figs/$arm.least"
    rm -rf "$tmp/trace.$r"
  done
  if [ "$dry" = 1 ]; then echo "round $r clock: bin/mpicall --clock"; continue; fi
  bin/mpicall --clock | sed -n 's/^clock=\([a-z_]*\) .*ns_per_read=\([0-9.]*\)$/\1 \2/p' >> "$figs/clock"
done
[ "$dry" = 0 ] || exit 0

echo "# paprun-overhead: bin/mpicall, $bytes B int32 MPI_Allreduce, np $np$(pb_oversub "$np"), $calls calls a run in $blocks blocks, $rounds interleaved rounds;"
echo "# $(git log -1 --format='commit %h' 2>/dev/null || echo 'no git'); load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo
table "$figs"
