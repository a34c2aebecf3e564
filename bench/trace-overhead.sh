#!/usr/bin/env bash
# bench/trace-overhead.sh - what tracing costs a whole allreduce (issue 3): Gsum on
# pathmaps/demo.pathmap (-np 2), untraced and traced (--trace into a fresh
# directory each round, default --trace-mem), interleaved: ROUNDS rounds of
# one untraced and one traced run, the order alternating from round to round
# to cancel drift.  From each run the "Avg Latency(us)" of the 4-byte row;
# from each traced run its summary (events, flushes).  Prints the median
# untraced and traced latencies, their ratio traced/untraced, and the
# median, min and max of the per-round ratios.  Goal: ratio <= 1.02.
#
#   bench/trace-overhead.sh [-r ROUNDS] [-n ITERATIONS] [-w WARMUP] [-p PATHMAP] [-a]
#
# Default: -r 7 -n 20000 -w 1000, pathmaps/demo.pathmap.  -a (A/A): the
# "traced" arm runs untraced too, to measure the noise floor of the ratio.
# The demo runs 2 ranks, 4 computational threads and 2 service threads (one
# per tree instance, for proxy p1, on host0) on this machine's 2 cores: it
# is oversubscribed, and the figures measure the scheduler as much as the
# tracer (docs/benchmarks.md).  Exits 1 if a run fails or a traced run
# flushed a buffer during its measured loop (the figure would not be the
# recording cost alone).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=7 iters=20000 warmup=1000 pathmap=pathmaps/demo.pathmap
usage() { echo "usage: bench/trace-overhead.sh [-r ROUNDS] [-n ITERATIONS] [-w WARMUP] [-p PATHMAP] [-a]"; }
aa=0
while getopts "r:n:w:p:ah-:" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    n) iters=$OPTARG ;;
    w) warmup=$OPTARG ;;
    p) pathmap=$OPTARG ;;
    a) aa=1 ;;
    h) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -) if [ "$OPTARG" = help ]; then sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
       usage >&2; exit 2 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
case "$rounds$iters$warmup" in *[!0-9]*) usage >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] || { usage >&2; exit 2; }
for b in bin/gsum bin/pathmap-check; do
  [ -x "$b" ] || { echo "trace-overhead: $b missing; run make" >&2; exit 1; }
done
hosts=$(bin/pathmap-check "$pathmap" | sed -n 's/.*ok: \([0-9]*\) hosts.*/\1/p') || hosts=
[ -n "$hosts" ] || { echo "trace-overhead: $pathmap: not a valid pathmap" >&2; exit 1; }

. bench/lib.sh   # paptree_mpirun: the one mpirun command line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One Gsum run; its output to $1.  Extra arguments go to gsum.
gsum() {
  local out=$1; shift
  if ! paptree_mpirun -t 300 "$hosts" -- bin/gsum -p "$pathmap" \
       -n "$iters" -w "$warmup" -s 4 "$@" > "$out" 2> "$out.err"; then
    echo "trace-overhead: gsum $* failed:" >&2
    cat "$out" "$out.err" >&2
    exit 1
  fi
}
# The 4-byte row's average latency, in us.
latency() {
  local v
  v=$(awk '!/^#/ && NF == 5 && $1 == 4 { print $2 }' "$1")
  [ -n "$v" ] || { echo "trace-overhead: no 4-byte row in $1:" >&2; cat "$1" >&2; exit 1; }
  echo "$v"
}

: > "$tmp/rounds"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order="untraced traced"; else order="traced untraced"; fi
  for kind in $order; do
    if [ "$kind" = traced ] && [ "$aa" = 1 ]; then
      gsum "$tmp/t.out"
      echo "# trace: A/A: 0 events from 0 threads" >> "$tmp/t.out"
      echo "# trace: 0 buffer flushes, 0 of them during the measured loops" >> "$tmp/t.out"
    elif [ "$kind" = traced ]; then
      gsum "$tmp/t.out" --trace "$tmp/trace-$r"
      rm -rf "$tmp/trace-$r"
    else
      gsum "$tmp/u.out"
    fi
  done
  u=$(latency "$tmp/u.out")
  t=$(latency "$tmp/t.out")
  # "# trace: DIR/traces.otf2: E events from L threads; ..."
  events=$(sed -n 's/^# trace: .*: \([0-9]*\) events from \([0-9]*\) threads.*/\1 \2/p' "$tmp/t.out")
  # "# trace: F buffer flushes, L of them during the measured loops"
  flushes=$(sed -n 's/^# trace: \([0-9]*\) buffer flushes, \([0-9]*\) of them.*/\1 \2/p' "$tmp/t.out")
  if [ -z "$events" ] || [ -z "$flushes" ]; then
    echo "trace-overhead: no trace summary in:" >&2; cat "$tmp/t.out" >&2; exit 1
  fi
  echo "$r ${order%% *} $u $t $events $flushes" >> "$tmp/rounds"
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cpus=$(nproc)
if [ "$aa" = 1 ]; then a=untraced b="untraced again"; else a=untraced b=traced; fi
[ "$aa" = 1 ] && echo "# A/A run (-a): both arms untraced; the ratio shows the noise floor"
echo "# trace-overhead: gsum -p $pathmap -np $hosts -n $iters -w $warmup -s 4, $rounds rounds" \
     "of ($a, $b), order alternating; Avg Latency(us) of the 4-byte row"
echo "# round  first      untraced_us  traced_us  ratio  events  threads  flushes  in_loop"
awk '{ printf "  %-6s %-10s %11.2f %10.2f %6.3f %7d %8d %8d %8d\n", $1, $2, $3, $4, $4 / $3, $5, $6, $7, $8 }' \
  "$tmp/rounds"
mu=$(awk '{ print $3 }' "$tmp/rounds" | median)
mt=$(awk '{ print $4 }' "$tmp/rounds" | median)
mr=$(awk '{ print $4 / $3 }' "$tmp/rounds" | median)
lo=$(awk '{ print $4 / $3 }' "$tmp/rounds" | sort -g | head -1)
hi=$(awk '{ print $4 / $3 }' "$tmp/rounds" | sort -g | tail -1)
nthreads=$(awk '{ print $6 }' "$tmp/rounds" | sort -g | tail -1)
events=$(awk '{ print $5 }' "$tmp/rounds" | sort -g | tail -1)
loopfl=$(awk '{ s += $8 } END { print s + 0 }' "$tmp/rounds")
allfl=$(awk '{ s += $7 } END { print s + 0 }' "$tmp/rounds")
ratio=$(awk -v t="$mt" -v u="$mu" 'BEGIN { printf "%.3f", t / u }')
echo "median $a: $mu us"
echo "median $b: $mt us"
if [ "$aa" = 1 ]; then
  echo "ratio of the medians: $ratio"
else
  echo "ratio traced/untraced: $ratio (of the medians; goal <= 1.02:" \
       "$(awk -v r="$ratio" 'BEGIN { print (r <= 1.02) ? "met" : "NOT met" }'))"
fi
echo "per-round ratios: median $(printf %.3f "$mr"), min $(printf %.3f "$lo")," \
     "max $(printf %.3f "$hi")"
if [ "$aa" = 0 ]; then
  echo "# each traced run recorded $events events from $nthreads threads (locations); buffer" \
       "flushes: $allfl in all, $loopfl during the measured loops (default --trace-mem)"
  if [ "$nthreads" -gt "$cpus" ]; then
    echo "# oversubscribed: $hosts rank(s) run $nthreads computational + service threads on" \
         "$cpus CPUs, so the figures measure the scheduler as much as the tracer"
  else
    echo "# $hosts rank(s) run $nthreads computational + service threads on $cpus CPUs"
  fi
fi
if [ "$loopfl" != 0 ]; then
  echo "trace-overhead: buffers were flushed during the measured loops" >&2
  exit 1
fi
