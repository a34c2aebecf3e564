#!/usr/bin/env bash
# bench/analyze-bench.sh - how fast papanalyze turns a trace into SQLite (issue 4), and
# whether its memory stays bounded as traces grow.  Makes one Gsum trace per
# ITERATIONS (pathmaps/demo.pathmap, -np hosts, 4 B; the demo writes 16
# events per allreduce) in a temporary directory, removed at the end.  Then,
# for each trace, ROUNDS interleaved rounds (the order alternating) of:
#   the floor: bin/otf2-readbench -r 1, OTF2's global event reader alone
#     (Enter/Leave callbacks that count events and read the two attributes);
#     its rate is its own, from OTF2_Reader_Open to OTF2_Reader_Close;
#   the floor with 2 threads: bin/otf2-readbench -r 1 -t 2, two OTF2
#     readers each over half of the locations, no merge: what reading alone
#     gains from a second core;
#   bin/papanalyze -q --read-threads J -o DB TRACE/traces.otf2 for each J of
#     -j (default 1,2) into a fresh DB, timed end to end (process start to
#     exit: reading, analysis, SQLite, indexes), wall time from date +%s%N
#     around /usr/bin/time -f '%e %M' (whose 10 ms %e is too coarse for the
#     small traces), max RSS from %M.
# The trace is read once before the rounds, so both read it from the page
# cache.  Prints per trace: events, the medians of the floors' and of each
# papanalyze's M events/s, papanalyze's time ratio to the floor (how many
# times the floor's time it takes), its max RSS (the largest of the rounds)
# and the database's bytes per event; then RSS at the largest trace / RSS
# at the smallest (about 1 if memory does not grow with the trace) and the
# goals: >= 2 M events/s end to end (issue 4), and a time within 2x the
# floor's (issue 27).  -n 6250000 makes the 100 M-event trace (2.6 GB of
# trace, 3.4 GB of database in the temporary directory: TMPDIR).
#
#   bench/analyze-bench.sh [-r ROUNDS] [-n ITERATIONS,...] [-j THREADS,...] [-p PATHMAP]
#
# Default: -r 3 -n 25000,100000,200000 -j 1,2 (the paper ran 25 000 iterations).
# The machine has 2 cores and is shared: one run of the figures is noisy.
# The floor is single-threaded; papanalyze writes SQLite from a second
# thread when it has one, which needs the second core.  Exits 1 if a run
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3 iters_list=25000,100000,200000 jlist=1,2 pathmap=pathmaps/demo.pathmap
GOAL=2 GOAL_RATIO=2
usage() { echo "usage: bench/analyze-bench.sh [-r ROUNDS] [-n ITERATIONS,...] [-j THREADS,...] [-p PATHMAP]"; }
help() { sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; }
while getopts "r:n:j:p:h-:" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    n) iters_list=$OPTARG ;;
    j) jlist=$OPTARG ;;
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
case "$jlist" in ''|*[!0-9,]*|*,,*|,*|*,) usage >&2; exit 2 ;; esac
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

# One floor run on trace $1 with $2 threads (default 1): "events rate rss_kb"
floor() {
  local o=$tmp/floor.out
  run otf2-readbench "$o" /usr/bin/time -f '%e %M' -o "$o.time" bin/otf2-readbench -r 1 \
    -t "${2:-1}" "$1"
  # "best: E events from L locations, S s, R M events/s (checksum C)"
  sed -n 's/^best: \([0-9]*\) events from .*, \([0-9.]*\) M events\/s.*/\1 \2/p' "$o" \
    | tr '\n' ' '
  awk '{ print $2 }' "$o.time"
}
# One papanalyze run on trace $1 into database $2 with $3 reading threads:
# "seconds rss_kb db_bytes"
analyze() {
  local o=$tmp/pa.out t0 t1
  rm -f "$2"
  t0=$(date +%s%N)
  run papanalyze "$o" /usr/bin/time -f '%e %M' -o "$o.time" bin/papanalyze -q \
    --read-threads "$3" -o "$2" "$1"
  t1=$(date +%s%N)
  [ -s "$2" ] || { echo "analyze-bench: papanalyze wrote no $2" >&2; exit 1; }
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')" \
       "$(awk '{ print $2 }' "$o.time")" "$(stat -c %s "$2")"
}

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$({ git status --porcelain -- analyze bench/otf2-readbench.c 2>/dev/null || true; } | wc -l)
echo "# analyze-bench $(date '+%Y-%m-%d %H:%M'): commit $rev" \
     "$([ "$dirty" != 0 ] && echo "+ $dirty uncommitted file(s) of papanalyze's sources" || echo clean)," \
     "$rounds round(s), $(nproc) CPUs, papanalyze --read-threads {$jlist}"
echo "# traces: gsum -p $pathmap -np $hosts -n {$iters_list} -s 4 --trace"
: > "$tmp/table"
IFS=, read -r -a iters_arr <<< "$iters_list"
IFS=, read -r -a j_arr <<< "$jlist"
kinds="floor floor2"
for j in "${j_arr[@]}"; do kinds="$kinds pa$j"; done
for iters in "${iters_arr[@]}"; do
  tr=$tmp/trace-$iters
  run gsum "$tmp/gsum.out" paptree_mpirun -t 1800 "$hosts" -- bin/gsum \
    -p "$pathmap" -n "$iters" -s 4 --trace "$tr" --force
  # "# trace: DIR/traces.otf2: E events from L threads; ..."
  ev=$(sed -n 's/^# trace: .*: \([0-9]*\) events from.*/\1/p' "$tmp/gsum.out")
  [ -n "$ev" ] || { echo "analyze-bench: no trace summary:" >&2; cat "$tmp/gsum.out" >&2; exit 1; }
  anchor=$tr/traces.otf2
  floor "$anchor" > /dev/null            # into the page cache
  : > "$tmp/rounds"
  for ((r = 1; r <= rounds; r++)); do
    # each round starts with the next kind: every kind runs first in turn
    set -- $kinds
    for ((k = 1; k < r; k++)); do set -- "${@:2}" "$1"; done
    line="$r"
    for kind in "$@"; do
      case $kind in
        floor|floor2)
          floor "$anchor" "$([ $kind = floor2 ] && echo 2 || echo 1)" > "$tmp/res"
          read -r fev frate frss < "$tmp/res"
          [ "$fev" = "$ev" ] || { echo "analyze-bench: floor read $fev events, gsum wrote $ev" >&2; exit 1; }
          echo "$kind $frate $frss 0" ;;
        pa*)
          analyze "$anchor" "$tmp/db-$iters.db" "${kind#pa}" > "$tmp/res"
          read -r psec prss pbytes < "$tmp/res"
          echo "$kind $(awk -v e="$ev" -v s="$psec" 'BEGIN { printf "%.4f", e / s / 1e6 }') $prss $pbytes" ;;
      esac
    done | sort > "$tmp/round"
    echo "# n=$iters round $r:" $(awk '{ printf "%s %s M ev/s (rss %s KB);", $1, $2, $3 }' "$tmp/round")
    awk -v r="$r" '{ print r, $0 }' "$tmp/round" >> "$tmp/rounds"
  done
  row="$iters $ev"
  for kind in $kinds; do
    med=$(awk -v k="$kind" '$2 == k { print $3 }' "$tmp/rounds" | median)
    rss=$(awk -v k="$kind" '$2 == k { print $4 }' "$tmp/rounds" | sort -g | tail -1)
    row="$row $kind $med $rss"
  done
  pbytes=$(awk '$2 ~ /^pa/ { print $5 }' "$tmp/rounds" | sort -g | tail -1)
  echo "$row bytes $pbytes" >> "$tmp/table"
  rm -rf "$tr" "$tmp/db-$iters.db"
done

# per trace: floor and floor2 rates, each papanalyze's rate, time ratio and RSS
echo "# iterations  events      floor  floor_2thr  | papanalyze --read-threads J: Mev/s, time/floor, max RSS KB | db B/event"
awk '{ printf "  %-11d %-11d %5.2f  %6.2f    |", $1, $2, $4, $7;
       for (i = 9; i + 2 <= NF - 2; i += 3)
         printf " J=%s %5.2f %5.2fx %7d |", substr($i, 3), $(i + 1), $4 / $(i + 1), $(i + 2);
       printf " %.1f\n", $NF / $2 }' "$tmp/table"
echo "# M events/s, medians of $rounds round(s); RSS: the largest of the rounds; time/floor ="
echo "# the one-thread floor's rate / papanalyze's rate (its time in floor times)"
awk 'NR == 1 { e0 = $2; r0 = $11 } { e1 = $2; r1 = $11 }
     END { printf "papanalyze RSS at the largest trace / at the smallest: %.2f (%d / %d KB; %.1fx the events)\n",
           r1 / r0, r1, r0, e1 / e0 }' "$tmp/table"
awk -v g="$GOAL" -v q="$GOAL_RATIO" '{
       best = 0; for (i = 9; i + 2 <= NF - 2; i += 3) if ($(i + 1) > best) best = $(i + 1);
       n++; if (best >= g) m++; if (min == "" || best < min) { min = best; at = $2 }
       ratio = $4 / best; if (ratio <= q) mq++; if (worst == "" || ratio > worst) { worst = ratio; wat = $2 } }
     END { printf "goal >= %g M events/s end to end: %s (%d of %d traces; slowest %.2f M events/s, %.2fx the goal, at %d events)\n",
           g, (m == n) ? "met" : "NOT met", m, n, min, min / g, at;
           printf "goal time <= %gx the floor: %s (%d of %d traces; worst %.2fx, at %d events)\n",
           q, (mq == n) ? "met" : "NOT met", mq, n, worst, wat }' "$tmp/table"
