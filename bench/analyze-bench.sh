#!/usr/bin/env bash
# bench/analyze-bench.sh - how fast papanalyze turns a trace into SQLite (issue 4), and
# whether its memory stays bounded as traces grow.  Makes one Gsum trace per
# ITERATIONS (pathmaps/demo.pathmap, -np hosts, 4 B; the demo writes 16
# events per allreduce) in a temporary directory, removed at the end.  Then,
# for each trace, ROUNDS interleaved rounds (the order alternating) of:
#   the floor: bin/otf2-readbench -r 1, OTF2's global event reader alone
#     (Enter/Leave callbacks that count events and read the two attributes);
#     its rate is its own, from OTF2_Reader_Open to OTF2_Reader_Close;
#   bin/papanalyze -q -o DB TRACE/traces.otf2 into a fresh DB, timed end to
#     end (process start to exit: reading, analysis, SQLite, indexes), wall
#     time from date +%s%N around /usr/bin/time -f '%e %M' (whose 10 ms %e
#     is too coarse for the small traces), max RSS from %M.
# The trace is read once before the rounds, so both read it from the page
# cache.  Prints per trace: events, the medians of floor and papanalyze M
# events/s, their time ratio papanalyze/floor (how many times the floor's
# time papanalyze takes), papanalyze's max RSS (the largest of the rounds)
# and the database's bytes per event; then RSS at the largest trace / RSS
# at the smallest (about 1 if memory does not grow with the trace) and the
# goal: >= 2 M events/s end to end.
#
#   bench/analyze-bench.sh [-r ROUNDS] [-n ITERATIONS,...] [-p PATHMAP]
#
# Default: -r 3 -n 25000,100000,200000 (the paper ran 25 000 iterations).
# The machine has 2 cores and is shared: one run of the figures is noisy.
# The floor is single-threaded; papanalyze writes SQLite from a second
# thread when it has one, which needs the second core.  Exits 1 if a run
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3 iters_list=25000,100000,200000 pathmap=pathmaps/demo.pathmap
GOAL=2
usage() { echo "usage: bench/analyze-bench.sh [-r ROUNDS] [-n ITERATIONS,...] [-p PATHMAP]"; }
help() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; }
while getopts "r:n:p:h-:" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    n) iters_list=$OPTARG ;;
    p) pathmap=$OPTARG ;;
    h) help; exit 0 ;;
    -) if [ "$OPTARG" = help ]; then help; exit 0; fi
       usage >&2; exit 2 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
case "$rounds" in ''|*[!0-9]*) usage >&2; exit 2 ;; esac
case "$iters_list" in ''|*[!0-9,]*|*,,*|,*|*,) usage >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] || { usage >&2; exit 2; }
for b in bin/gsum bin/pathmap-check bin/papanalyze bin/otf2-readbench /usr/bin/time; do
  [ -x "$b" ] || { echo "analyze-bench: $b missing; run make" >&2; exit 1; }
done
hosts=$(bin/pathmap-check "$pathmap" | sed -n 's/.*ok: \([0-9]*\) hosts.*/\1/p') || hosts=
[ -n "$hosts" ] || { echo "analyze-bench: $pathmap: not a valid pathmap" >&2; exit 1; }

. bench/lib.sh   # paptree_mpirun: the one mpirun command line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs "$@" with stdout/stderr to $out/$out.err; on failure shows them, exits 1.
run() {
  local what=$1 out=$2; shift 2
  if ! "$@" > "$out" 2> "$out.err"; then
    echo "analyze-bench: $what failed: $*" >&2
    cat "$out" "$out.err" >&2
    exit 1
  fi
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One floor run on trace $1: "events rate rss_kb"
floor() {
  local o=$tmp/floor.out
  run otf2-readbench "$o" /usr/bin/time -f '%e %M' -o "$o.time" bin/otf2-readbench -r 1 "$1"
  # "best: E events from L locations, S s, R M events/s (checksum C)"
  sed -n 's/^best: \([0-9]*\) events from .*, \([0-9.]*\) M events\/s.*/\1 \2/p' "$o" \
    | tr '\n' ' '
  awk '{ print $2 }' "$o.time"
}
# One papanalyze run on trace $1 into database $2: "seconds rss_kb db_bytes"
analyze() {
  local o=$tmp/pa.out t0 t1
  rm -f "$2"
  t0=$(date +%s%N)
  run papanalyze "$o" /usr/bin/time -f '%e %M' -o "$o.time" bin/papanalyze -q -o "$2" "$1"
  t1=$(date +%s%N)
  [ -s "$2" ] || { echo "analyze-bench: papanalyze wrote no $2" >&2; exit 1; }
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')" \
       "$(awk '{ print $2 }' "$o.time")" "$(stat -c %s "$2")"
}

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$({ git status --porcelain -- analyze bench/papanalyze.c 2>/dev/null || true; } | wc -l)
echo "# analyze-bench $(date '+%Y-%m-%d %H:%M'): commit $rev" \
     "$([ "$dirty" != 0 ] && echo "+ $dirty uncommitted file(s) of papanalyze's sources" || echo clean)," \
     "$rounds round(s), $(nproc) CPUs"
echo "# traces: gsum -p $pathmap -np $hosts -n {$iters_list} -s 4 --trace"
: > "$tmp/table"
IFS=, read -r -a iters_arr <<< "$iters_list"
for iters in "${iters_arr[@]}"; do
  tr=$tmp/trace-$iters
  run gsum "$tmp/gsum.out" paptree_mpirun -t 900 "$hosts" -- bin/gsum \
    -p "$pathmap" -n "$iters" -s 4 --trace "$tr" --force
  # "# trace: DIR/traces.otf2: E events from L threads; ..."
  ev=$(sed -n 's/^# trace: .*: \([0-9]*\) events from.*/\1/p' "$tmp/gsum.out")
  [ -n "$ev" ] || { echo "analyze-bench: no trace summary:" >&2; cat "$tmp/gsum.out" >&2; exit 1; }
  anchor=$tr/traces.otf2
  floor "$anchor" > /dev/null            # into the page cache
  : > "$tmp/rounds"
  for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then order="floor analyze"; else order="analyze floor"; fi
    for kind in $order; do
      if [ "$kind" = floor ]; then
        floor "$anchor" > "$tmp/res"
        read -r fev frate frss < "$tmp/res"
        [ "$fev" = "$ev" ] || { echo "analyze-bench: floor read $fev events, gsum wrote $ev" >&2; exit 1; }
      else
        analyze "$anchor" "$tmp/db-$iters.db" > "$tmp/res"
        read -r psec prss pbytes < "$tmp/res"
      fi
    done
    echo "$r $frate $frss $psec $prss $pbytes" >> "$tmp/rounds"
    echo "# n=$iters round $r: floor $frate M ev/s (rss $frss KB); papanalyze $psec s," \
         "$(awk -v e="$ev" -v s="$psec" 'BEGIN { printf "%.2f", e / s / 1e6 }') M ev/s," \
         "rss $prss KB, db $pbytes B"
  done
  fmed=$(awk '{ print $2 }' "$tmp/rounds" | median)
  pmed=$(awk -v e="$ev" '{ print e / $4 / 1e6 }' "$tmp/rounds" | median)
  prss=$(awk '{ print $5 }' "$tmp/rounds" | sort -g | tail -1)
  frss=$(awk '{ print $3 }' "$tmp/rounds" | sort -g | tail -1)
  pbytes=$(awk '{ print $6 }' "$tmp/rounds" | sort -g | tail -1)
  echo "$iters $ev $fmed $pmed $prss $frss $pbytes" >> "$tmp/table"
  rm -rf "$tr" "$tmp/db-$iters.db"
done

echo "# iterations  events     floor_Mev/s  papanalyze_Mev/s  time_pa/floor  pa_rss_KB" \
     " floor_rss_KB  db_B/event"
awk '{ printf "  %-11d %-10d %11.2f %17.2f %14.2f %10d %13d %11.1f\n",
       $1, $2, $3, $4, $3 / $4, $5, $6, $7 / $2 }' "$tmp/table"
echo "# medians of $rounds round(s); RSS: the largest of the rounds; time_pa/floor = floor" \
     "rate / papanalyze rate"
awk 'NR == 1 { e0 = $2; r0 = $5 } { e1 = $2; r1 = $5 }
     END { printf "papanalyze RSS at the largest trace / at the smallest: %.2f (%d / %d KB; %.1fx the events)\n",
           r1 / r0, r1, r0, e1 / e0 }' "$tmp/table"
awk -v g="$GOAL" '{ n++; if ($4 >= g) m++; if (min == "" || $4 < min) { min = $4; at = $2 } }
     END { printf "goal >= %g M events/s end to end: %s (%d of %d traces; slowest %.2f M events/s, %.2fx the goal, at %d events)\n",
           g, (m == n) ? "met" : "NOT met", m, n, min, min / g, at }' "$tmp/table"
