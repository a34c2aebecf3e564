#!/usr/bin/env bash
# bench/osu-compare.sh - `gsum --native` against the OSU micro-benchmarks'
# osu_allreduce, in one run, interleaved (osu, gsum, next size, ...; the order
# of the two swaps every round), with the same mpirun flags, the same element
# type (int32 sum: `osu_allreduce -T mpi_int`), the same iterations and the
# same warm-up.  Prints a markdown table of the median and the best (least)
# latency over the rounds and the ratios gsum / OSU (above 1.0: gsum reports
# a slower allreduce).  On a shared machine the best rounds are the ones
# nobody else disturbed; OSU_COMPARE_KEEP=DIR keeps every round's figures.
#
#   bench/osu-compare.sh [-r ROUNDS] [-p NPS] [-s SIZES] [-g GSUM2] [OSU_BINARY]
#
# OSU_BINARY (or env OSU_ALLREDUCE): an osu_allreduce that the user built
# from the OSU micro-benchmarks with the MPI paptree uses; not part of
# paptree, which takes the binary and builds nothing.  Defaults: -r 7,
# -p "2 4", -s "4 256 64K 1M".  -g adds a second Gsum binary (e.g. an older
# build) as a third arm.  With 4 ranks on this 2-core machine everything is
# oversubscribed.
#
# Columns: OSU's "Avg Latency" is the mean over ranks of each rank's own
# time inside MPI_Allreduce, timed one call at a time with a barrier after
# each; its "Max Latency" is the slowest rank's.  Gsum's figure is the time
# of its whole timed loop over the iterations (back to back, every result
# verified), the same on every rank.  See docs/benchmarks.md, issue 15, for
# why the two differ when ranks outnumber cores.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=7 nps="2 4" sizes="4 256 64K 1M" gsum2=""
usage() { echo "usage: bench/osu-compare.sh [-r ROUNDS] [-p NPS] [-s SIZES] [-g GSUM2] [OSU_BINARY]" >&2; exit 2; }
while getopts "r:p:s:g:h" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    p) nps=$OPTARG ;;
    s) sizes=$OPTARG ;;
    g) gsum2=$OPTARG ;;
    h) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
osu=${1:-${OSU_ALLREDUCE:-}}
[ -n "$osu" ] || { echo "osu-compare: give the osu_allreduce binary (argument or OSU_ALLREDUCE)" >&2; exit 2; }
[ -x "$osu" ] || { echo "osu-compare: $osu: not an executable" >&2; exit 1; }
[ -x bin/gsum ] || { echo "osu-compare: bin/gsum missing; run make" >&2; exit 1; }
[ -z "$gsum2" ] || [ -x "$gsum2" ] || { echo "osu-compare: $gsum2: not an executable" >&2; exit 1; }

. bench/lib.sh   # paptree_mpirun: the one mpirun command line
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bytes_of() {
  case $1 in
    *K) echo $(( ${1%K} * 1024 )) ;;
    *M) echo $(( ${1%M} * 1048576 )) ;;
    *) echo "$1" ;;
  esac
}
# Iterations and warm-up by size: each run takes well under a second here.
iters_of() { local b; b=$(bytes_of "$1"); if [ "$b" -le 8192 ]; then echo 10000; elif [ "$b" -le 65536 ]; then echo 1000; else echo 200; fi; }
warm_of() { local b; b=$(bytes_of "$1"); if [ "$b" -le 8192 ]; then echo 200; else echo 20; fi; }

# run ARM NP SIZE: appends "avg max" (us) to $tmp/ARM.NP.SIZE.
run() {
  local arm=$1 np=$2 size=$3 b n w out
  b=$(bytes_of "$size"); n=$(iters_of "$size"); w=$(warm_of "$size")
  out=$tmp/$arm.$np.$size
  case $arm in
    osu)   paptree_mpirun -t 300 "$np" -- "$osu" -T mpi_int -f \
             -m "$b:$b" -i "$n" -x "$w" 2>/dev/null |
             awk -v b="$b" '$1 == b && NF >= 4 { print $2, $4 }' >> "$out" ;;
    gsum)  paptree_mpirun -t 300 "$np" -- bin/gsum --native \
             -s "$b" -n "$n" -w "$w" 2>/dev/null |
             awk -v b="$b" '!/^#/ && $1 == b { print $2, $4 }' >> "$out" ;;
    gsum2) paptree_mpirun -t 300 "$np" -- "$gsum2" --native \
             -s "$b" -n "$n" -w "$w" 2>/dev/null |
             awk -v b="$b" '!/^#/ && $1 == b { print $2, $4 }' >> "$out" ;;
  esac
}

arms=(osu gsum)
[ -n "$gsum2" ] && arms+=(gsum2)
for ((r = 1; r <= rounds; r++)); do
  for np in $nps; do
    for size in $sizes; do
      if (( r % 2 )); then order=("${arms[@]}"); else order=(); for ((i = ${#arms[@]} - 1; i >= 0; i--)); do order+=("${arms[i]}"); done; fi
      for arm in "${order[@]}"; do run "$arm" "$np" "$size"; done
    done
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
least() { sort -g | awk 'NR == 1 { print $1; n = 1 } END { if (!n) print "nan" }'; }
# col FILE COLUMN median|least
col() { if [ -s "$1" ]; then awk -v c="$2" '{ print $c }' "$1" | $3; else echo nan; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b <= 0) print "nan"; else printf "%.2f", a / b }'; }
# Per-round ratios gsum / OSU avg: "min..max".
spread() {
  [ -s "$1" ] && [ -s "$2" ] || { echo "-"; return; }
  paste -d ' ' "$1" "$2" | awk '$3 > 0 { r = $1 / $3; if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
    END { if (n) printf "%.2f..%.2f", lo, hi; else print "-" }'
}

echo "# osu-compare: $rounds interleaved rounds, us per allreduce (int32 sum), median and best (least) of the rounds;"
echo "# $(basename "$osu") = $osu; load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo
hdr="| np | size | OSU avg: median / best | OSU max: median | gsum --native: median / best | **gsum / OSU avg: medians** | best | per round |"
sep="|---|---|---|---|---|---|---|---|"
if [ -n "$gsum2" ]; then hdr="$hdr gsum2: median / best | gsum2 / OSU avg: medians | best |"; sep="$sep---|---|---|"; fi
echo "$hdr"; echo "$sep"
for np in $nps; do
  for size in $sizes; do
    o=$tmp/osu.$np.$size g=$tmp/gsum.$np.$size
    oa=$(col "$o" 1 median); ob=$(col "$o" 1 least); om=$(col "$o" 2 median)
    ga=$(col "$g" 1 median); gb=$(col "$g" 1 least)
    note=""; [ "$np" -gt "$(nproc)" ] && note=" (oversubscribed)"
    row="| $np$note | ${size}B | $oa / $ob | $om | $ga / $gb | **$(ratio "$ga" "$oa")** | $(ratio "$gb" "$ob") | $(spread "$g" "$o") |"
    if [ -n "$gsum2" ]; then
      g2=$tmp/gsum2.$np.$size
      row="$row $(col "$g2" 1 median) / $(col "$g2" 1 least) | $(ratio "$(col "$g2" 1 median)" "$oa") | $(ratio "$(col "$g2" 1 least)" "$ob") |"
    fi
    echo "$row"
  done
done
if [ -n "${OSU_COMPARE_KEEP:-}" ]; then mkdir -p "$OSU_COMPARE_KEEP" && cp "$tmp"/* "$OSU_COMPARE_KEEP"/; fi
