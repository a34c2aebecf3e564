#!/usr/bin/env bash
# bench/viz-bench.sh - how long papviz takes to draw a trace's pictures (issue 5), and
# whether that time grows with the trace.  Makes one Gsum trace per
# ITERATIONS (pathmaps/demo.pathmap, -np hosts, 4 B) in a temporary
# directory, removed at the end, analyses it once with bin/papanalyze -q into
# a database DB, then runs ROUNDS interleaved rounds (the order reversed
# every other round) of:
#   text:       bin/papanalyze DB > /dev/null, the text report of the same
#               database (SQL over the same tables): the baseline;
#   analysis:   bin/papanalyze -q -o FRESH.db TRACE/traces.otf2, the
#               analysis itself, a second reference;
#   report:     bin/papviz report DB -o DIR (every chart + index.html, into
#               an emptied DIR);
#   and each chart alone, to a file: timemap DB; departures DB --subtree
#   CORE; orders DB --wrapper GRED; tree DB --db DB; pap DB.  CORE is the
#   pathmap's core and GRED the first gred below it (demo: root and cr0).
# Wall time of each: date +%s%N around the command (process start to exit).
# Prints per trace: operations, visits (rows of the visits table), the
# medians in ms, report/text and report/analysis (time ratios of the
# medians), the slowest single chart, and the report's SVG bytes (all its
# .svg files; index.html apart).  Then, per command, its median at the
# largest trace / at the smallest against the visits ratio: ~1 for a chart
# that reads only statistics (timemap, tree, orders), ~the visits ratio for
# one whose queries scan the visits table (departures, pap, report).
#
#   bench/viz-bench.sh [-r ROUNDS] [-n ITERATIONS,...] [-p PATHMAP]
#
# Default: -r 3 -n 25000,100000,200000 (the paper ran 25 000 iterations).
# The machine has 2 cores and is shared: one run of the figures is noisy;
# compare them as ratios within the run.  Needs the sqlite3 shell (for the
# row counts).  Exits 1 if a run fails or writes no output.
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) ends the script too
cd "$(dirname "$0")/.."

rounds=3 iters_list=25000,100000,200000 pathmap=pathmaps/demo.pathmap
usage() { echo "usage: bench/viz-bench.sh [-r ROUNDS] [-n ITERATIONS,...] [-p PATHMAP]"; }
help() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; }
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
for b in bin/gsum bin/pathmap-check bin/papanalyze bin/papviz; do
  [ -x "$b" ] || { echo "viz-bench: $b missing; run make" >&2; exit 1; }
done
command -v sqlite3 > /dev/null || { echo "viz-bench: the sqlite3 shell is missing" >&2; exit 1; }
hosts=$(bin/pathmap-check "$pathmap" | sed -n 's/.*ok: \([0-9]*\) hosts.*/\1/p') || hosts=
[ -n "$hosts" ] || { echo "viz-bench: $pathmap: not a valid pathmap" >&2; exit 1; }
# The first tree's core, and the first gred whose parent is the core.
read -r core gred < <(awk '{ sub(/#.*/, "") }
  $1 == "tree" && ++trees > 1 { exit }
  $1 == "core" && core == "" { core = $2 }
  $1 == "gred" { for (i = 3; i <= NF; i++) if ($i ~ /^parent=/) p[$2] = substr($i, 8);
                 g[++ng] = $2 }
  END { for (i = 1; i <= ng; i++) if (p[g[i]] == core) { pick = g[i]; break }
        if (pick == "" && ng) pick = g[1]
        print core, pick }' "$pathmap")
[ -n "$core" ] && [ -n "$gred" ] \
  || { echo "viz-bench: $pathmap: no core or no gred found" >&2; exit 1; }

. bench/lib.sh   # paptree_mpirun: the one mpirun command line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs "$@" with stdout to $out and stderr to $out.err (or $tmp/null.err);
# on failure shows them and exits 1.
run() {
  local what=$1 out=$2 err; shift 2
  err=$out.err; [ "$out" = /dev/null ] && err=$tmp/null.err
  if ! "$@" > "$out" 2> "$err"; then
    echo "viz-bench: $what failed: $*" >&2
    [ "$out" = /dev/null ] || cat "$out" >&2
    cat "$err" >&2
    exit 1
  fi
}
# Like run, and prints the wall time in ms.
timed() {
  local t0 t1
  t0=$(date +%s%N)
  run "$@"
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", (b - a) / 1e6 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
need() { [ -s "$1" ] || { echo "viz-bench: $2 wrote no $1" >&2; exit 1; }; }

kinds=(text analysis report timemap departures orders tree pap)
# One run of kind $1 on database $2 and trace $3: prints its ms.
one() {
  local db=$2 o=$tmp/out ms
  case $1 in
    text)       ms=$(timed "papanalyze (text report)" /dev/null bin/papanalyze "$db") ;;
    analysis)   rm -f "$tmp/fresh.db"
                ms=$(timed "papanalyze (analysis)" "$o" bin/papanalyze -q -o "$tmp/fresh.db" "$3")
                need "$tmp/fresh.db" papanalyze ;;
    report)     rm -rf "$tmp/report"
                ms=$(timed "papviz report" "$o" bin/papviz report "$db" -o "$tmp/report")
                need "$tmp/report/index.html" "papviz report" ;;
    timemap)    rm -f "$tmp/c.svg"
                ms=$(timed "papviz timemap" "$o" bin/papviz timemap "$db" -o "$tmp/c.svg") ;;
    departures) rm -f "$tmp/c.svg"
                ms=$(timed "papviz departures" "$o" bin/papviz departures "$db" \
                       --subtree "$core" -o "$tmp/c.svg") ;;
    orders)     rm -f "$tmp/c.svg"
                ms=$(timed "papviz orders" "$o" bin/papviz orders "$db" --wrapper "$gred" \
                       -o "$tmp/c.svg") ;;
    tree)       rm -f "$tmp/c.svg"
                ms=$(timed "papviz tree" "$o" bin/papviz tree "$db" --db "$db" -o "$tmp/c.svg") ;;
    pap)        rm -f "$tmp/c.svg"
                ms=$(timed "papviz pap" "$o" bin/papviz pap "$db" -o "$tmp/c.svg") ;;
  esac
  case $1 in timemap|departures|orders|tree|pap) need "$tmp/c.svg" "papviz $1" ;; esac
  echo "$ms"
}

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$({ git status --porcelain -- viz analyze bench/papviz.c 2>/dev/null || true; } | wc -l)
echo "# viz-bench $(date '+%Y-%m-%d %H:%M'): commit $rev" \
     "$([ "$dirty" != 0 ] && echo "+ $dirty uncommitted file(s) of viz/analyze" || echo clean)," \
     "$rounds round(s), $(nproc) CPUs"
echo "# traces: gsum -p $pathmap -np $hosts -n {$iters_list} -s 4 --trace;" \
     "departures --subtree $core, orders --wrapper $gred"
: > "$tmp/table"
IFS=, read -r -a iters_arr <<< "$iters_list"
for iters in "${iters_arr[@]}"; do
  tr=$tmp/trace-$iters db=$tmp/db-$iters.db
  run gsum "$tmp/gsum.out" paptree_mpirun -t 900 "$hosts" -- bin/gsum \
    -p "$pathmap" -n "$iters" -s 4 --trace "$tr" --force
  run papanalyze "$tmp/pa.out" bin/papanalyze -q -o "$db" "$tr/traces.otf2"
  need "$db" papanalyze
  read -r ops used visits < <(sqlite3 -batch -separator ' ' "$db" \
    "SELECT (SELECT COUNT(*) FROM ops), (SELECT COUNT(*) FROM ops WHERE used),
            (SELECT COUNT(*) FROM visits)")
  [ -n "$visits" ] || { echo "viz-bench: cannot count the rows of $db" >&2; exit 1; }
  : > "$tmp/rounds"
  for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then order=("${kinds[@]}"); else
      order=(); for ((i = ${#kinds[@]} - 1; i >= 0; i--)); do order+=("${kinds[i]}"); done
    fi
    declare -A ms=()
    for kind in "${order[@]}"; do
      ms[$kind]=$(one "$kind" "$db" "$tr/traces.otf2")
    done
    line="$r"; msg=""
    for kind in "${kinds[@]}"; do line+=" ${ms[$kind]}"; msg+=" $kind ${ms[$kind]}"; done
    echo "$line" >> "$tmp/rounds"
    echo "# n=$iters round $r (ms):$msg"
    unset ms
  done
  svgb=$(cat "$tmp/report"/*.svg | wc -c)
  nsvg=$(ls "$tmp/report"/*.svg | wc -l)
  htmlb=$(stat -c %s "$tmp/report/index.html")
  meds=""
  for ((i = 0; i < ${#kinds[@]}; i++)); do
    meds+=" $(awk -v c=$((i + 2)) '{ print $c }' "$tmp/rounds" | median)"
  done
  echo "$iters $ops $used $visits$meds $svgb $nsvg $htmlb" >> "$tmp/table"
  rm -rf "$tr" "$db" "$tmp/fresh.db" "$tmp/report"
done

# table columns: 1 iters 2 ops 3 used 4 visits 5 text 6 analysis 7 report 8 timemap
# 9 departures 10 orders 11 tree 12 pap 13 svg bytes 14 svg files 15 index.html bytes
echo "# medians of $rounds round(s), ms; rep/text, rep/analysis: time ratios of the medians"
echo "# iterations  ops      visits    text  analysis   report  timemap  departures  orders" \
     "    tree      pap  rep/text  rep/analysis  slowest_chart  report_svg_B (index.html_B)"
awk 'BEGIN { split("timemap departures orders tree pap", nm, " ") }
     { slow = 8; for (c = 9; c <= 12; c++) if ($c > $slow) slow = c
       printf "  %-11d %-8d %-8d %6.1f %9.1f %8.1f %8.1f %11.1f %7.1f %7.1f %8.1f %9.1f %13.2f  %-14s %d in %d files (%d)\n",
         $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $7 / $5, $7 / $6,
         nm[slow - 7], $13, $14, $15 }' "$tmp/table"
if [ "$(wc -l < "$tmp/table")" -ge 2 ]; then
  echo "# scaling: median at the largest trace / at the smallest, against the visits ratio"
  awk 'BEGIN { split("text analysis report timemap departures orders tree pap", nm, " ") }
       NR == 1 { for (c = 1; c <= 13; c++) a[c] = $c }
       { for (c = 1; c <= 13; c++) b[c] = $c }
       END { printf "visits %d -> %d: %.2fx\n", a[4], b[4], b[4] / a[4]
             for (c = 5; c <= 12; c++)
               printf "  %-11s %9.1f -> %9.1f ms: %6.2fx\n", nm[c - 4], a[c], b[c], b[c] / a[c]
             printf "  %-11s %9d -> %9d B:  %6.2fx\n", "report SVG", a[13], b[13], b[13] / a[13] }' \
    "$tmp/table"
fi
