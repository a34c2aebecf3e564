#!/usr/bin/env bash
# bench/perf-tree.sh - where the time of a tree goes: one Gsum run of a
# pathmap with every rank under `perf record -g` (the cpu-clock software
# event: this machine's VM has no hardware counters), then each rank's top
# symbols from `perf report --stdio` (self time, all of the rank's threads:
# computational, service, MPI's).
#
#   bench/perf-tree.sh [-n ITERATIONS] [-s BYTES] [-l threads|services] [-k TOP]
#                      [-g] [-o DIR] PATHMAP
#
#   -n  allreduces per thread (default 20000), -s tuple bytes (default 4)
#   -l  Gsum's --links (default threads: the engine Gsum runs by default)
#   -k  symbols shown per rank (default 25)
#   -g  also print the call graphs (caller view), long
#   -o  keep the perf data in DIR (perf.RANK.data; default: a temporary
#       directory, removed); `perf report -i DIR/perf.0.data` then browses it
#
# Needs perf (Debian: apt-get install linux-perf) and permission to sample
# (root, or kernel.perf_event_paranoid <= 1).  Short runs only: perf adds
# its own cost to every context switch, so compare shapes, not microseconds
# (docs/benchmarks.md has the benchmarks without it: bench/compare-native.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: bench/perf-tree.sh [-n ITERATIONS] [-s BYTES] [-l threads|services] [-k TOP] [-g] [-o DIR] PATHMAP" >&2; exit 2; }
iters=20000 size=4 links=threads top=25 graph=0 keep=""
while getopts "n:s:l:k:go:h" opt; do
  case $opt in
    n) iters=$OPTARG ;;
    s) size=$OPTARG ;;
    l) links=$OPTARG ;;
    k) top=$OPTARG ;;
    g) graph=1 ;;
    o) keep=$OPTARG ;;
    h) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
pm=$1
case $links in threads|services) ;; *) echo "perf-tree: -l: '$links' is not threads or services" >&2; exit 2 ;; esac
case $top in ''|*[!0-9]*) echo "perf-tree: -k: '$top' is not a number" >&2; exit 2 ;; esac
command -v perf >/dev/null 2>&1 ||
  { echo "perf-tree: perf not found; install it (Debian: apt-get install linux-perf)" >&2; exit 1; }
for b in bin/gsum bin/pathmap-check; do
  [ -x "$b" ] || { echo "perf-tree: $b missing; run make" >&2; exit 1; }
done
hosts=$(bin/pathmap-check "$pm" | sed -n 's/.*ok: \([0-9]*\) hosts.*/\1/p')
[ -n "$hosts" ] || { bin/pathmap-check "$pm" >&2 || true; echo "perf-tree: $pm: not a valid pathmap" >&2; exit 1; }

if [ -n "$keep" ]; then
  mkdir -p "$keep"; dir=$keep
else
  dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fi
. bench/lib.sh   # paptree_mpirun: the one mpirun command line

# Each rank records into its own file, named by Open MPI's rank variable.
# shellcheck disable=SC2016 # expanded by the rank's shell, not here
paptree_mpirun -t 600 "$hosts" -- sh -c \
  'exec perf record -q -e cpu-clock -g -o "$0/perf.$OMPI_COMM_WORLD_RANK.data" -- "$@"' "$dir" \
  bin/gsum -p "$pm" -n "$iters" -s "$size" --links "$links" > "$dir/gsum.out" 2> "$dir/gsum.err" ||
  { cat "$dir/gsum.out" "$dir/gsum.err" >&2; echo "perf-tree: the Gsum run failed" >&2; exit 1; }

echo "# perf-tree: $pm, $hosts ranks, -n $iters -s $size --links $links; perf record -e cpu-clock -g"
grep '^#' "$dir/gsum.out" | grep -v '^# Size' || true
grep -v '^#' "$dir/gsum.out" | sed 's/^/# gsum: /' || true
for ((r = 0; r < hosts; r++)); do
  echo
  echo "## rank $r (host $r): top $top symbols by self time, all threads"
  if [ "$graph" = 1 ]; then
    perf report -i "$dir/perf.$r.data" --stdio --no-children --sort dso,sym \
      -g caller,0.5,callee --percent-limit 0.5 2>/dev/null
  else
    perf report -i "$dir/perf.$r.data" --stdio --no-children --sort dso,sym -g none 2>/dev/null |
      grep -v '^#' | grep -v '^$' | awk -v n="$top" 'NR <= n'   # reads all: head's early exit killed the loop (pipefail)
  fi
done
