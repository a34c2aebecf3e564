#!/usr/bin/env bash
# bench/ab-compare.sh - this checkout's build against another revision's, on
# the same machine in the same run: for a change that must not change speed
# (a refactor, a file split), the ratios new/old of what users wait for.
#
#   bench/ab-compare.sh [-r ROUNDS] [-n ITERATIONS] [-p PATHMAP] REV
#
# Builds REV in a temporary git worktree (make all), then runs ROUNDS rounds;
# each round runs every arm once with the old build and once with the new,
# the order alternating from round to round to cancel drift:
#   gsum       Gsum on PATHMAP untraced: Avg Latency(us) of the 4-byte row
#   gsum-trace the same, traced (--trace into a fresh directory)
#   trace-hot  bin/tracebench's hot loop with the tsc clock, ns per event (the
#              collector's own cost, one rank)
#   analyze    papanalyze -q of one trace (written once by REV's Gsum, which
#              both builds read when REV is the older),
#              wall seconds
#   report     papviz report of each build's own database, wall seconds
# Prints per arm the medians and the ratio new/old of the medians, and the
# per-round ratios' min and max.  Run it on a quiet machine: with 2 cores,
# a Gsum run of H hosts x T threads above 2 threads is oversubscribed.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5 iters=20000 pathmap=pathmaps/demo.pathmap
usage() { echo "usage: bench/ab-compare.sh [-r ROUNDS] [-n ITERATIONS] [-p PATHMAP] REV"; }
while getopts "r:n:p:h-:" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    n) iters=$OPTARG ;;
    p) pathmap=$OPTARG ;;
    h) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -) if [ "$OPTARG" = help ]; then sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
       usage >&2; exit 2 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { usage >&2; exit 2; }
rev=$1
case "$rounds$iters" in *[!0-9]*) usage >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] && [ "$iters" -ge 1 ] || { usage >&2; exit 2; }
git rev-parse --verify -q "$rev^{commit}" > /dev/null || { echo "ab-compare: $rev: no such revision" >&2; exit 1; }
for b in bin/gsum bin/tracebench bin/papanalyze bin/papviz bin/pathmap-check; do
  [ -x "$b" ] || { echo "ab-compare: $b missing; run make" >&2; exit 1; }
done
hosts=$(bin/pathmap-check "$pathmap" | sed -n 's/.*ok: \([0-9]*\) hosts.*/\1/p') || hosts=
[ -n "$hosts" ] || { echo "ab-compare: $pathmap: not a valid pathmap" >&2; exit 1; }

tmp=$(mktemp -d)
old=$tmp/old
cleanup() { git worktree remove --force "$old" > /dev/null 2>&1 || :; rm -rf "$tmp"; }
trap cleanup EXIT
echo "# building $rev in a temporary worktree" >&2
git worktree add -q --detach "$old" "$rev"
make -C "$old" --no-print-directory -j2 all > "$tmp/build.log" 2>&1 ||
  { echo "ab-compare: building $rev failed:" >&2; tail -20 "$tmp/build.log" >&2; exit 1; }

. bench/lib.sh   # paptree_mpirun: the one mpirun command line

# gsum DIR OUT [args]: Gsum of the build in DIR; the 4-byte row's latency.
gsum_lat() {
  local dir=$1 out=$2; shift 2
  paptree_mpirun -t 300 "$hosts" -- "$dir/bin/gsum" -p "$pathmap" \
      -n "$iters" -w 1000 -s 4 "$@" > "$out" 2>&1 ||
    { echo "ab-compare: $dir/bin/gsum $* failed:" >&2; cat "$out" >&2; exit 1; }
  awk '!/^#/ && NF == 5 && $1 == 4 { print $2 }' "$out"
}
# secs CMD...: wall seconds of one run.
secs() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > "$tmp/cmd.out" 2>&1 || { echo "ab-compare: $* failed:" >&2; cat "$tmp/cmd.out" >&2; exit 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
# arm NAME DIR: one measurement of arm NAME with the build in DIR.
arm() {
  local name=$1 dir=$2 side
  side=$([ "$dir" = . ] && echo new || echo old)
  case $name in
    gsum) gsum_lat "$dir" "$tmp/g.out" ;;
    gsum-trace) rm -rf "$tmp/tr-$side"; gsum_lat "$dir" "$tmp/g.out" --trace "$tmp/tr-$side" ;;
    trace-hot) paptree_mpirun -t 300 1 -- "$dir/bin/tracebench" > "$tmp/tb.out" 2>&1 ||
                 { echo "ab-compare: $dir/bin/tracebench failed:" >&2; cat "$tmp/tb.out" >&2; exit 1; }
               awk '/^hot loop, ns\/event/ { print $4 }' "$tmp/tb.out" ;;
    analyze) rm -f "$tmp/$side.db"; secs "$dir/bin/papanalyze" -q -o "$tmp/$side.db" "$tmp/trace/traces.otf2" ;;
    report) rm -rf "$tmp/rep-$side"; secs "$dir/bin/papviz" report "$tmp/$side.db" -o "$tmp/rep-$side" ;;
  esac
}

# Written by REV's Gsum: a newer papanalyze reads every older trace schema,
# an older one refuses a newer schema (docs/trace-format.md), so REV is
# taken to be the older of the two builds.
echo "# one trace for the analysis arms: Gsum -n $iters on $pathmap, REV's build" >&2
gsum_lat "$old" "$tmp/g.out" --trace "$tmp/trace" > /dev/null
arms="gsum gsum-trace trace-hot analyze report"
: > "$tmp/rows"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=". $old"; else order="$old ."; fi
  for a in $arms; do
    for d in $order; do
      v=$(arm "$a" "$d")
      [ -n "$v" ] || { echo "ab-compare: no figure for $a ($d)" >&2; exit 1; }
      echo "$r $a $([ "$d" = . ] && echo new || echo old) $v" >> "$tmp/rows"
    done
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# ab-compare: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes') (new)" \
     "against $(git rev-parse --short "$rev") (old), $rounds rounds, order alternating;" \
     "-np $hosts $pathmap -n $iters"
printf '# %-11s %12s %12s %9s %9s %9s\n' arm old new new/old min max
for a in $arms; do
  o=$(awk -v a="$a" '$2 == a && $3 == "old" { print $4 }' "$tmp/rows" | median)
  n=$(awk -v a="$a" '$2 == a && $3 == "new" { print $4 }' "$tmp/rows" | median)
  rr=$(awk -v a="$a" '$2 == a { v[$1 " " $3] = $4; r[$1] = 1 }
        END { for (i in r) print v[i " new"] / v[i " old"] }' "$tmp/rows" | sort -g)
  printf '  %-11s %12s %12s %9.3f %9.3f %9.3f\n' "$a" "$o" "$n" \
    "$(awk -v n="$n" -v o="$o" 'BEGIN { print n / o }')" \
    "$(echo "$rr" | head -1)" "$(echo "$rr" | tail -1)"
done
echo "# units: gsum, gsum-trace: us per allreduce (4 B); trace-hot: ns per event; analyze, report: s per run"
threads=$(awk '/^# /' "$tmp/g.out" | sed -n 's/.* \([0-9]*\) threads.*/\1/p' | head -1)
[ -n "$threads" ] && [ "$threads" -gt "$(nproc)" ] &&
  echo "# oversubscribed: $threads threads on $(nproc) CPUs"
exit 0
