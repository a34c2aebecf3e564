# shellcheck shell=bash
# bench/paprun-lib.sh - what bench/paprun-overhead.sh, paprun-osu.sh and
# paprun-app.sh share (issue 25, point 8): option values checked with the
# project's message form ("PROG: OPTION: what is wrong, expected RANGE",
# common/cm_opt.h), the interleaving order of a round, and the table
# arithmetic (medians, differences, ratios), kept here so that
# tests/bench/paprun-scripts.sh checks them once, on figures worked out by
# hand.  Sourced by bash, from the repository root; sets nothing else.

# pb_die PROG MESSAGE: the message, the usage (pb_usage, set by the
# script) and exit 2.
pb_die() {
  echo "$1: $2" >&2
  # shellcheck disable=SC2154 # set by the sourcing script
  echo "$pb_usage" >&2
  exit 2
}

# pb_int PROG OPT VALUE LO HI: VALUE is a whole number in LO..HI, or exit 2.
pb_int() {
  case $3 in
    ''|*[!0-9]*) pb_die "$1" "$2: '$3' is not a whole number, expected $4..$5" ;;
  esac
  if [ "${#3}" -gt 12 ] || [ "$3" -lt "$4" ] || [ "$3" -gt "$5" ]; then
    pb_die "$1" "$2: '$3' is out of range, expected $4..$5"
  fi
}

# pb_bytes SIZE: bytes of 4, 64K, 1M (K = 1024, M = 1048576); empty if SIZE
# is not one.
pb_bytes() {
  if [[ $1 =~ ^([0-9]{1,9})([KM]?)$ ]]; then
    case ${BASH_REMATCH[2]} in
      K) echo $(( 10#${BASH_REMATCH[1]} * 1024 )) ;;
      M) echo $(( 10#${BASH_REMATCH[1]} * 1048576 )) ;;
      *) echo $(( 10#${BASH_REMATCH[1]} )) ;;
    esac
  else
    echo ""
  fi
}

# pb_order ROUND ARM...: the arms in the order round ROUND (1, 2, ...) runs
# them: rotated left by ROUND - 1, so that each arm runs first, second, ...
# in turn and none always follows the same one.
pb_order() {
  local r=$1 n i
  shift
  n=$#
  local a=("$@") ord=()
  for ((i = 0; i < n; i++)); do ord+=("${a[(i + r - 1) % n]}"); done
  echo "${ord[*]}"
}

# pb_median: the median of the numbers on stdin (one a line; the mean of
# the middle two for an even count); "nan" if none.
pb_median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pb_min, pb_max: the least and the largest number on stdin; "nan" if none.
pb_min() { sort -g | awk 'NR == 1 { print $1 } END { if (NR == 0) print "nan" }'; }
pb_max() { sort -g | awk '{ v = $1 } END { print NR ? v : "nan" }'; }

# pb_fmt PLACES X: X with PLACES decimals; "nan" stays "nan".
pb_fmt() { awk -v p="$1" -v x="$2" 'BEGIN { if (x == "nan" || x == "") print "nan"; else printf "%.*f\n", p, x }'; }

# pb_ratio A B: A / B with 2 decimals; "nan" if either is missing or B <= 0.
pb_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || a == "" || b == "" || b <= 0) print "nan"; else printf "%.2f\n", a / b }'; }

# pb_diffs FILE_A FILE_B: per line (round), A - B; lines where either is
# missing or not a number are left out.
pb_diffs() {
  paste -d ' ' "$1" "$2" | awk 'NF == 2 && $1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ { print $1 - $2 }'
}

# pb_col FILE: the numbers of FILE (one a line), or nothing if it is missing.
pb_col() { [ -s "$1" ] && grep -E '^[0-9.]+$' "$1" || true; }

# pb_oversub NP: " (oversubscribed: NP ranks on C cores)" when NP > cores.
pb_oversub() {
  local c
  c=$(nproc)
  if [ "$1" -gt "$c" ]; then echo " (oversubscribed: $1 ranks on $c cores)"; fi
}
