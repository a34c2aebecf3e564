#!/usr/bin/env bash
# bench/compare-native.sh - Gsum on every scaled sample pathmap against the native
# MPI_Allreduce baseline with the same number of contributors, in one run,
# interleaved (tree with --links threads, tree with --links services, native,
# next pathmap, ...; repeated R rounds), for 4 B and 256 B tuples.  Prints a
# markdown table of median latencies and the ratios tree/native for both link
# engines (below 1.0: the tree is faster).  "threads": the computational
# threads waiting in the tree serve the proxy links (the default); "services":
# one service thread per link and instance, the PATHS paper's model.
#
#   bench/compare-native.sh [-n ITERATIONS] [-r ROUNDS] [PATHMAP...]
#   bench/compare-native.sh -l [PATHMAP...]    the rows' first two columns only, no run
#
# Default: every pathmaps/local/*.pathmap, -n 20000, -r 3.  This machine has
# 2 cores: with more than 2 ranks or threads everything is oversubscribed and
# the figures measure the scheduler as much as the tree (see docs/benchmarks.md).
# Where a tree's time goes: bench/perf-tree.sh PATHMAP.
set -euo pipefail
cd "$(dirname "$0")/.."

iters=20000 rounds=3 labels_only=0
while getopts "n:r:lh" opt; do
  case $opt in
    n) iters=$OPTARG ;;
    r) rounds=$OPTARG ;;
    l) labels_only=1 ;;
    h) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bench/compare-native.sh [-n ITERATIONS] [-r ROUNDS] [-l] [PATHMAP...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -gt 0 ]; then maps=("$@"); else maps=(pathmaps/local/*.pathmap); fi
for b in bin/gsum bin/pathmap-check; do
  [ -x "$b" ] || { echo "compare-native: $b missing; run make" >&2; exit 1; }
done

. bench/lib.sh   # paptree_mpirun: the one mpirun command line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Hosts and threads of a pathmap, from the validator's summary.
shape() {
  local hosts threads
  hosts=$(bin/pathmap-check "$1" | sed -n 's/.*ok: \([0-9]*\) hosts.*/\1/p')
  threads=$(bin/pathmap-check "$1" | sed -n '2s/.*, \([0-9]*\) threads,.*/\1/p')
  echo "$hosts $threads"
}

# The "hosts x threads" column: hosts x threads per host ("2 x 2" for 2 hosts
# of 2 threads), or both totals when the threads do not split evenly (a
# gateway host without threads).
label() {
  if [ "$1" -gt 0 ] && [ $(($2 % $1)) -eq 0 ]; then echo "$1 x $(($2 / $1))"
  else echo "$1 hosts, $2 threads"; fi
}

if [ "$labels_only" = 1 ]; then
  for m in "${maps[@]}"; do
    read -r hosts threads < <(shape "$m")
    echo "| $(basename "$m" .pathmap) | $(label "$hosts" "$threads") |"
  done
  exit 0
fi

# gsum OUT NP CMD...: appends the "size avg" lines of one Gsum run (CMD on NP
# ranks) to OUT.
gsum() {
  local out=$1 np=$2; shift 2
  paptree_mpirun -t 300 "$np" -- "$@" -n "$iters" -s 4,256 2>/dev/null |
    awk '!/^#/ && NF == 5 { print $1, $2 }' >> "$out"
}

for ((r = 1; r <= rounds; r++)); do
  for m in "${maps[@]}"; do
    read -r hosts threads < <(shape "$m")
    key=$(basename "$m" .pathmap)
    gsum "$tmp/$key.threads" "$hosts" bin/gsum -p "$m" --links threads
    gsum "$tmp/$key.services" "$hosts" bin/gsum -p "$m" --links services
    gsum "$tmp/$key.native" "$threads" bin/gsum --native
  done
done

ratio() { awk -v t="$1" -v n="$2" 'BEGIN { if (n > 0 && t == t + 0) printf "%.2f", t / n; else print "nan" }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# compare-native: $iters iterations, $rounds interleaved rounds, median time per allreduce (us)"
echo
head="| pathmap | hosts x threads" rule="|---|---"
for size in 4 256; do
  head="$head | $size B threads | $size B services | $size B native | $size B threads/native | $size B services/native"
  rule="$rule|---|---|---|---|---"
done
echo "$head |"
echo "$rule|"
for m in "${maps[@]}"; do
  read -r hosts threads < <(shape "$m")
  key=$(basename "$m" .pathmap)
  row="| $key | $(label "$hosts" "$threads")"
  for size in 4 256; do
    t=$(awk -v s=$size '$1 == s { print $2 }' "$tmp/$key.threads" | median)
    v=$(awk -v s=$size '$1 == s { print $2 }' "$tmp/$key.services" | median)
    n=$(awk -v s=$size '$1 == s { print $2 }' "$tmp/$key.native" | median)
    row="$row | $t | $v | $n | **$(ratio "$t" "$n")** | $(ratio "$v" "$n")"
  done
  echo "$row |"
done
