#!/bin/sh
# bench/papsim-measured.sh - papsim's prediction for issue 17's measurement set,
# as Markdown tables (docs/papsim-measured.md holds a run of it):
#
#   sh bench/papsim-measured.sh [-n NET] [-s SEEDS] [-P P]
#
# NET: a papsim --net preset or file (default measured: this machine, by
# bin/netfit); P ranks (default 4); 128 K and 1 M floats; one-late (rank 1
# late by the delay) and rand-late (every rank late by a uniform draw in
# [0, delay], averaged over seeds 1..SEEDS, default 100: the mean of each
# algorithm's average elapsed time over the draws, as papbench averages over
# its iterations); delays 0, 1, 5, 10, 50, 100 ms, and a fine sweep at
# 0.25 to 4 times the ring's own time at delay 0.  Algorithms ring,
# rabenseifner, rd, slt, prr, clv+binomial-bcast with papsim's defaults
# (slt: P segments; prr: tau = alpha + (beta + gamma) * N/P bytes; clv: one
# segment, d = alpha + (beta + gamma) * N bytes).  Each cell: average
# elapsed ms, and the speedup over ring (ring / algorithm).
set -eu
cd "$(dirname "$0")/.." || exit 1
NET=measured SEEDS=100 P=4
usage="usage: sh bench/papsim-measured.sh [-n NET] [-s SEEDS] [-P P] [-h]"
while getopts n:s:P:h c; do
    case $c in
    n) NET=$OPTARG ;;
    s) SEEDS=$OPTARG ;;
    P) P=$OPTARG ;;
    h) echo "$usage"; sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done
case $SEEDS in
''|*[!0-9]*|0) echo "papsim-measured.sh: error: -s $SEEDS: expected a count of seeds, 1 or more" >&2
    echo "$usage" >&2; exit 2 ;;
esac
ALGOS="ring rabenseifner rd slt prr clv+binomial-bcast"
PAPSIM=bin/papsim
[ -x $PAPSIM ] || { echo "papsim-measured.sh: build first (make all)" >&2; exit 1; }

# avg BYTES ARRIVAL: "ALGO AVG_MS" per algorithm.
avg() {
    $PAPSIM -P "$P" --bytes "$1" --net "$NET" --arrival "$2" $ALGOS |
        awk '/^#/ { next } NF > 3 { print $1, $2 }'
}

# cells BYTES MODE DELAY: "ALGO AVG_MS" per algorithm, rand-late averaged.
cells() {
    if [ "$2" = one-late ] || [ "$3" = 0 ]; then
        avg "$1" "one-late:$3:1"
        return
    fi
    s=1
    while [ $s -le "$SEEDS" ]; do
        avg "$1" "random:$3:$s"
        s=$((s + 1))
    done | awk -v n="$SEEDS" '{ sum[$1] += $2; if (!($1 in seen)) { seen[$1] = 1; ord[k++] = $1 } }
        END { for (i = 0; i < k; i++) printf "%s %.6f\n", ord[i], sum[ord[i]] / n }'
}

# table BYTES MODE DELAYS...: one Markdown table.
table() {
    bytes=$1 mode=$2; shift 2
    for d in "$@"; do
        cells "$bytes" "$mode" "$d" | sed "s/^/$d /"
    done | awk -v algos="$ALGOS" -v delays="$*" '
        { t[$1, $2] = $3 }
        END {
            na = split(algos, a, " "); nd = split(delays, d, " ")
            printf "| algorithm |"; for (j = 1; j <= nd; j++) printf " %s ms |", d[j]; printf "\n"
            printf "|---|"; for (j = 1; j <= nd; j++) printf "---|"; printf "\n"
            for (i = 1; i <= na; i++) {
                printf "| %s |", a[i]
                for (j = 1; j <= nd; j++) {
                    v = t[d[j], a[i]]; r = t[d[j], "ring"]
                    if (a[i] == "ring") printf " %.3f |", v
                    else printf " %.3f (%.2fx) |", v, r / v
                }
                printf "\n"
            }
        }'
}

header=$($PAPSIM -P "$P" --net "$NET" ring | grep '^# cost')
echo "papsim, P = $P, ${header#\# }; average elapsed ms (speedup over ring);"
echo "rand-late: mean over seeds 1..$SEEDS."
for floats in 131072 1048576; do
    bytes=$((floats * 4))
    ring0=$($PAPSIM -P "$P" --bytes $bytes --net "$NET" ring | awk '$1 == "ring" { print $2 }')
    fine=$(awk -v r="$ring0" 'BEGIN { printf "%.4g %.4g %.4g %.4g %.4g %.4g",
        r / 4, r / 2, r, 1.5 * r, 2 * r, 4 * r }')
    for mode in one-late rand-late; do
        echo
        label="$((floats / 1024)) K"
        [ $floats -lt 1048576 ] || label="$((floats / 1048576)) M"
        echo "### $label floats ($bytes B), $mode"
        echo
        table $bytes $mode 0 1 5 10 50 100
        echo
        echo "Fine sweep around the ring's own time ($ring0 ms at 0 ms):"
        echo
        table $bytes $mode $fine
    done
done
