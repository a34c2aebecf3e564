#!/usr/bin/env bash
# bench/papbench-sweep.sh - the measurement set of issue 17 (point 4) with bin/papbench
# (Proficz 2018, Figure 9; docs/papbench.md): one-late and rand-late, the paper's max
# delays 0/1/5/10/50/100 ms plus a fine sweep around ring's own time at each size (a
# PAP-aware algorithm gains at most what the late host's delay lets the others overlap,
# so on one machine the gain is expected at delays of the order of the operation
# itself), 128 K and 1 M floats (512 KiB, 4 MiB), ring, Rabenseifner, recursive doubling, SLT, PRR,
# Clairvoyant + binomial broadcast and native, the PAP-aware ones with the equal,
# history and edge arrival sources.
#
#   bench/papbench-sweep.sh [-o FILE] [-n NP] [-s SIZES] [-M MODES] [-d DELAYS]
#                           [-f FACTORS] [-i ITERS] [-w WARMUP] [-m MARGIN_MS]
#                           [-a ALGOS] [-A SOURCES]
#
# Defaults: -o out/papbench-sweep.txt -n 4 -s 512K,4M -M one-late,rand-late
# -d 0,1,5,10,50,100 -f 0.25,0.5,1,2,4 -i 40 -w 3 -m 5 (papbench's default algorithms
# and sources); SIZES in bytes, as papbench's --sizes.  Per size, ring's time at 0 ms
# is measured first (the median of 20 iterations); the fine delays are FACTORS x that
# time.  Then one papbench run per size
# and mode with every delay, the algorithms interleaved.  The tables go to FILE, every cell to
# FILE.csv, papbench's progress lines to stderr.  At np 4 on this 2-core machine the
# ranks are oversubscribed (papbench's header says so): 4 processes share 2 cores.
# About 20 minutes with the defaults on a quiet machine (an estimate is printed
# first); run it when nothing else runs.
set -euo pipefail
cd "$(dirname "$0")/.."

out=out/papbench-sweep.txt np=4 sizes=512K,4M modes=one-late,rand-late
delays=0,1,5,10,50,100 factors=0.25,0.5,1,2,4 iters=40 warmup=3 margin=5 algos="" sources=""
usage() {
  echo "usage: bench/papbench-sweep.sh [-o FILE] [-n NP] [-s SIZES] [-M MODES] [-d DELAYS]" \
       "[-f FACTORS] [-i ITERS] [-w WARMUP] [-m MARGIN_MS] [-a ALGOS] [-A SOURCES]" >&2
  exit 2
}
while getopts "o:n:s:M:d:f:i:w:m:a:A:h" opt; do
  case $opt in
    o) out=$OPTARG ;;  n) np=$OPTARG ;;  s) sizes=$OPTARG ;;  M) modes=$OPTARG ;;
    d) delays=$OPTARG ;;  f) factors=$OPTARG ;;  i) iters=$OPTARG ;;  w) warmup=$OPTARG ;;
    m) margin=$OPTARG ;;  a) algos=$OPTARG ;;  A) sources=$OPTARG ;;
    h) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
[ $OPTIND -gt $# ] || usage
[ -x bin/papbench ] || { echo "papbench-sweep: bin/papbench missing; run make" >&2; exit 1; }

# shellcheck disable=SC2054 # "self,vader" is one argument
. bench/lib.sh   # paptree_mpirun: the one mpirun command line
common=(--iters "$iters" --warmup "$warmup" --margin "$margin")
[ -n "$algos" ] && common+=(--algo "$algos")
[ -n "$sources" ] && common+=(--arrival "$sources")
pb() { paptree_mpirun "$np" -- bin/papbench "$@"; }

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
{
  echo "# papbench-sweep: $(date -u '+%Y-%m-%d %H:%M UTC'), revision $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# np $np on $(nproc) cores, sizes $sizes, modes $modes, delays $delays + factors $factors of ring's time,"
  echo "# $iters iterations + $warmup warm-up, margin $margin ms; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out"
: > "$out.csv"

# Ring's median time at 0 ms at one size (ms), from papbench's CSV (the median: one
# iteration in which a rank was descheduled must not stretch the whole fine sweep).
ring_ms() {
  pb --algo ring --sizes "$1" --delays 0 --margin "$margin" --iters 20 --warmup 3 -q \
     --csv "$tmp/ring.csv" > /dev/null
  awk -F, 'NR == 2 { print $12 }' "$tmp/ring.csv"
}

# Rows of the runs (for the estimate): static algorithms once, PAP-aware once per source.
nsrc=$(echo "${sources:-equal,history,edge}" | tr ',' '\n' | grep -c .)
nrows=0
for a in $(echo "${algos:-ring,rabenseifner,rd,slt,prr,clv,native}" | tr ',' ' '); do
  case ${a%%:*} in slt|prr|clv|clv-linear) nrows=$((nrows + nsrc)) ;; *) nrows=$((nrows + 1)) ;; esac
done

declare -A dl ring_of
for size in ${sizes//,/ }; do
  ring=$(ring_ms "$size")
  ring_of[$size]=$ring
  fine=$(awk -v f="$factors" -v r="$ring" 'BEGIN { n = split(f, x, ",")
           for (i = 1; i <= n; i++) printf "%s%.3f", (i > 1 ? "," : ""), x[i] * r }')
  dl[$size]=$(echo "$delays,$fine" | tr ',' '\n' | sort -g -u | paste -sd, -)
  echo "papbench-sweep: $size bytes: ring takes $ring ms at 0 ms; delays ${dl[$size]}" >&2
  echo "# $size bytes: ring's time at 0 ms $ring ms (median of 20 iterations); delays ${dl[$size]}" >> "$out"
done
est=0
for size in ${sizes//,/ }; do
  # per iteration beyond the delay and margin: the operation, the check (an MPI_Allreduce),
  # the barriers and the data, about 3 ms + 2.5 x ring's time + 3 ms per M floats (np 4 here)
  floats=$(echo "$size" | awk '{ n = $0 + 0; if ($0 ~ /[Kk](iB)?$/) n *= 1024; if ($0 ~ /[Mm](iB)?$/) n *= 1048576
                               if ($0 ~ /[Gg](iB)?$/) n *= 1073741824; print n / 4 }')
  ms=$(echo "${dl[$size]}" | tr ',' '\n' |
       awk -v m="$margin" -v f="$floats" -v r="${ring_of[$size]}" \
           '{ s += $1 + m + 3 + 2.5 * r + 3 * f / 1048576 } END { print s }')
  est=$(awk -v e="$est" -v ms="$ms" -v r=$nrows -v k=$((iters + warmup)) -v M="$modes" \
        'BEGIN { print e + ms * r * k * split(M, x, ",") / 1000 }')
done
echo "papbench-sweep: about $(awk -v e="$est" 'BEGIN { printf "%.0f s (%.0f min)", e, e / 60 }') of measurement, $nrows rows; tables to $out" >&2
echo >> "$out"

first=1
for mode in ${modes//,/ }; do
  for size in ${sizes//,/ }; do
    echo "papbench-sweep: $mode, $size bytes ($(( $(date +%s) - start )) s so far)" >&2
    pb --mode "$mode" --sizes "$size" --delays "${dl[$size]}" "${common[@]}" --csv "$tmp/run.csv" >> "$out"
    if [ $first = 1 ]; then cat "$tmp/run.csv" >> "$out.csv"; first=0
    else tail -n +2 "$tmp/run.csv" >> "$out.csv"; fi
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - start )) s in all" >> "$out"
echo "papbench-sweep: done in $(( $(date +%s) - start )) s: $out and $out.csv" >&2
