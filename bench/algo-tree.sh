#!/usr/bin/env bash
# bench/algo-tree.sh - trees whose cross-host part is an algorithm node,
# against the native MPI_Allreduce with as many contributors, and the cost
# of arrival=history against arrival=equal, in one run, interleaved (every
# arm once per round, R rounds), for 4 B and 256 B tuples.  Prints a
# markdown table of median latencies (us) and the ratio arm/baseline.
#
#   bench/algo-tree.sh [-n ITERATIONS] [-r ROUNDS]
#
# Arms (pathmaps/, the second column of the table is the baseline's):
#   algo-demo (2 hosts x 2 threads, gred per host, rd)  vs  gsum --native -np 4
#   the same with run=native                            vs  gsum --native -np 4
#   demo (the proxy + core tree, for reference)         vs  gsum --native -np 4
#   local/algo/rd-4x2 (4 hosts x 2 threads)             vs  gsum --native -np 8
#   the same with run=native                            vs  gsum --native -np 8
#   local/algo/prr-4x2 arrival=history                  vs  the same, arrival=equal
# Default -n 20000, -r 5.  This machine has 2 cores: every arm runs 4 or 8
# threads or ranks, so all of it is oversubscribed (docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."

iters=20000 rounds=5
while getopts "n:r:h" opt; do
  case $opt in
    n) iters=$OPTARG ;;
    r) rounds=$OPTARG ;;
    h) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bench/algo-tree.sh [-n ITERATIONS] [-r ROUNDS]" >&2; exit 2 ;;
  esac
done
[ -x bin/gsum ] || { echo "algo-tree: bin/gsum missing; run make" >&2; exit 1; }

. bench/lib.sh   # paptree_mpirun: the one mpirun command line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed 's/run=rd/run=native/' pathmaps/algo-demo.pathmap > "$tmp/native-2x2.pathmap"
sed 's/run=rd/run=native/' pathmaps/local/algo/rd-4x2.pathmap > "$tmp/native-4x2.pathmap"
sed 's/arrival=history/arrival=equal/' pathmaps/local/algo/prr-4x2.pathmap > "$tmp/prr-equal-4x2.pathmap"
grep -q "run=native" "$tmp/native-2x2.pathmap" && grep -q "run=native" "$tmp/native-4x2.pathmap" &&
  grep -q "arrival=equal" "$tmp/prr-equal-4x2.pathmap" || { echo "algo-tree: sample pathmaps changed" >&2; exit 1; }

# name|ranks|gsum arguments
arms=(
  "algo-demo rd|2|-p pathmaps/algo-demo.pathmap"
  "2x2 native node|2|-p $tmp/native-2x2.pathmap"
  "demo proxy+core|2|-p pathmaps/demo.pathmap"
  "native 4 ranks|4|--native"
  "rd-4x2|4|-p pathmaps/local/algo/rd-4x2.pathmap"
  "4x2 native node|4|-p $tmp/native-4x2.pathmap"
  "native 8 ranks|8|--native"
  "prr-4x2 history|4|-p pathmaps/local/algo/prr-4x2.pathmap"
  "prr-4x2 equal|4|-p $tmp/prr-equal-4x2.pathmap"
)
# row: arm|baseline arm
rows=(
  "algo-demo rd|native 4 ranks"
  "2x2 native node|native 4 ranks"
  "demo proxy+core|native 4 ranks"
  "rd-4x2|native 8 ranks"
  "4x2 native node|native 8 ranks"
  "prr-4x2 history|prr-4x2 equal"
)

key() { echo "$1" | tr ' +' '__'; }
for ((r = 1; r <= rounds; r++)); do
  for a in "${arms[@]}"; do
    IFS='|' read -r name np args <<< "$a"
    # shellcheck disable=SC2086 # args is a word list
    paptree_mpirun -t 600 "$np" -- bin/gsum $args -n "$iters" -s 4,256 2>/dev/null |
      awk '!/^#/ && NF == 5 { print $1, $2 }' >> "$tmp/$(key "$name")"
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { awk -v s="$2" '$1 == s { print $2 }' "$tmp/$(key "$1")" | median; }

echo "# algo-tree: $iters iterations, $rounds interleaved rounds, median time per allreduce (us);"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| arm | baseline | 4 B arm | 4 B base | 4 B ratio | 256 B arm | 256 B base | 256 B ratio |"
echo "|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  IFS='|' read -r arm base <<< "$row"
  line="| $arm | $base"
  for size in 4 256; do
    t=$(med "$arm" $size) n=$(med "$base" $size)
    ratio=$(awk -v t="$t" -v n="$n" 'BEGIN { if (n > 0) printf "%.2f", t / n; else print "nan" }')
    line="$line | $t | $n | **$ratio**"
  done
  echo "$line |"
done
