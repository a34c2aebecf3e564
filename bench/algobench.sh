#!/usr/bin/env bash
# bench/algobench.sh - our ring, recursive doubling and Rabenseifner (the schedule
# executor, bin/algobench) against Open MPI's tuned implementation of the same
# algorithm, forced with coll_tuned_use_dynamic_rules / coll_tuned_allreduce_algorithm,
# at np 2 and 4, 4 B to 16 MiB of int32 sums.  Interleaved inside each run (blocks
# of ours and Open MPI's alternate, REPEATS each); prints one markdown table of
# medians and minima (us per operation) and the ratio of the medians, ours / Open MPI
# (below 1.0: ours faster).
#
#   bench/algobench.sh [-r REPEATS] [-s BYTES,...] [-n NP,...] [-w auto|nosleep]
#
# Defaults: -r 9 -s 4,16,64K,1M,16M -n 2,4 (16 B: the smallest size at which Open MPI
# runs its ring at np 4 rather than switching to recursive doubling), -w auto (our side
# waits with the runtime's policy; nosleep: it never sleeps, see bin/algobench).
# This machine has 2 cores: np 4 is oversubscribed, and both sides then measure the
# scheduler as much as the algorithm.
set -euo pipefail
cd "$(dirname "$0")/.."

repeats=9 sizes=4,16,64K,1M,16M nps=2,4 wait=auto
while getopts "r:s:n:w:h" opt; do
  case $opt in
    r) repeats=$OPTARG ;;
    s) sizes=$OPTARG ;;
    n) nps=$OPTARG ;;
    w) wait=$OPTARG ;;
    h) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bench/algobench.sh [-r REPEATS] [-s BYTES,...] [-n NP,...] [-w auto|nosleep]" >&2; exit 2 ;;
  esac
done
[ -x bin/algobench ] || { echo "algobench: bin/algobench missing; run make" >&2; exit 1; }

# Open MPI's numbers for the algorithms, checked against ompi_info rather than assumed.
declare -A ompi_alg=([rd]=recursive_doubling [ring]=ring [rabenseifner]=rabenseifner)
valid=$(ompi_info --param coll tuned --level 9 2>/dev/null |
        sed -n '/coll_tuned_allreduce_algorithm"/,/Valid values/p' | grep 'Valid values' || true)
ompi_num() {
  local n
  n=$(printf '%s\n' "$valid" | grep -o "[0-9]*:\"$1\"" | cut -d: -f1)
  [ -n "$n" ] || { echo "algobench: Open MPI has no allreduce algorithm '$1'" >&2; exit 1; }
  echo "$n"
}

# shellcheck disable=SC2054 # "self,vader" is one argument
. bench/lib.sh   # paptree_mpirun: the one mpirun command line

# The machine may be shared: say how busy it was before the first run (the load
# average then counts other programs only).
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "| algorithm | np | bytes | ours (us): median (min) | Open MPI (us): median (min) | ours / Open MPI | note |"
echo "|---|---:|---:|---:|---:|---:|---|"
for np in ${nps//,/ }; do
  for algo in rd ring rabenseifner; do
    num=$(ompi_num "${ompi_alg[$algo]}")
    paptree_mpirun "$np" --mca coll_tuned_use_dynamic_rules 1 \
        --mca coll_tuned_allreduce_algorithm "$num" -- \
        bin/algobench -a "$algo" -s "$sizes" -r "$repeats" -w "$wait" --no-header |
    while read -r name p bytes omed omin mmed mmin ratio rest; do
      note=""
      [ "$np" -gt "$(nproc)" ] && note="oversubscribed ($np ranks, $(nproc) cores)"
      if [ "$omed" = "-" ]; then
        note="ours refused: ${rest#refused: }"
      fi
      echo "| $name ($num) | $p | $bytes | $omed ($omin) | $mmed ($mmin) | $ratio | $note |"
    done
  done
done
echo
echo "load average (1, 5, 15 min) before the runs: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg)"
