#!/usr/bin/env bash
# bench/paprun-osu.sh - OSU's osu_allreduce and osu_bcast, unmodified, under
# bin/paprun with each fitting algorithm against Open MPI running the same
# algorithm (issue 25, point 8b).  The OSU binaries are the user's own
# build of the OSU micro-benchmarks 7 with the MPI paptree uses; paptree
# carries neither their source nor a recipe to build them.
#
#   bench/paprun-osu.sh [-r ROUNDS] [-p NPS] [-m MIN:MAX] [-i ITERS] [-k DIR]
#                       [--no-check] [--dry-run] OSU_DIR
#   bench/paprun-osu.sh --table DIR
#
# OSU_DIR: a directory holding osu_allreduce and osu_bcast, directly, in
# c/mpi/collective/blocking/ (OSU's build tree) or in
# libexec/osu-micro-benchmarks/mpi/collective/ (its install tree); env
# OSU_ALLREDUCE and OSU_BCAST name the binaries one by one instead.
#
# Arms (the same mpirun line, bench/lib.sh's, for all):
#   allreduce  ompi             Open MPI as it chooses (coll/tuned's fixed rules)
#              ompi-ALG         --mca coll_tuned_use_dynamic_rules 1 --mca
#                               coll_tuned_allreduce_algorithm N, for ALG = rd,
#                               ring, rabenseifner (N read from ompi_info:
#                               recursive_doubling, ring, rabenseifner)
#              pap-ALG          bin/paprun --algo 'allreduce:*=ALG' --
#   bcast      ompi, ompi-binomial (binomial), ompi-chain (pipeline: Open MPI's
#              chain of fan-out 1, which runtime/algo's chain-bcast follows),
#              pap-binomial, pap-chain ('bcast:*=binomial', 'bcast:*=chain')
# Both sides unsegmented: Open MPI's forced algorithms with segment size 0,
# runtime/algo's with its default of one segment.
#
# Each round runs every arm once per NP, over every size of -m in one OSU
# run (`-T mpi_int -f -m MIN:MAX`, OSU's default iterations unless -i),
# the arms' order rotated by one per round.  Prints per collective and NP a
# markdown table: per size, the median over the rounds of OSU's average
# latency (µs) of each arm, and per algorithm paprun / Open MPI (ratio of
# the medians; above 1.00 paprun is slower), then the goal (issue 25):
# rd, ring and Rabenseifner within 1.10x of Open MPI's same algorithm from
# 64 KiB up.  Then, unless --no-check, OSU's own validation (-c) once per
# arm and NP, every size: passed sizes / sizes, and the exit status.
#
# Defaults: -r 5, -p "2 4", -m 4:1048576.  -k DIR keeps the figures
# (ARM.NP: "round size avg" lines; check: "ARM NP passed total status"),
# --table DIR prints the tables from them again.  --dry-run prints the
# commands in order.  With 4 ranks on this 2-core machine everything is
# oversubscribed; the tables say so.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
. bench/paprun-lib.sh
prog=paprun-osu.sh
pb_usage="usage: bench/paprun-osu.sh [-r ROUNDS] [-p NPS] [-m MIN:MAX] [-i ITERS] [-k DIR] [--no-check] [--dry-run] OSU_DIR | --table DIR"

rounds=5 nps="2 4" range="4:1048576" iters="" keep="" check=1 dry=0 table="" osu_dir=""
while [ $# -gt 0 ]; do
  case $1 in
    -r|-p|-m|-i|-k|--table)
      [ $# -ge 2 ] || pb_die "$prog" "option '$1' requires an argument" ;;
  esac
  case $1 in
    -r) pb_int "$prog" -r "$2" 1 101; rounds=$2; shift 2 ;;
    -p) [ -n "$2" ] || pb_die "$prog" "-p: '' is empty, expected rank counts in 1..64"
        for n in $2; do pb_int "$prog" -p "$n" 1 64; done
        nps=$2; shift 2 ;;
    -m) lo=$(pb_bytes "${2%%:*}"); hi=$(pb_bytes "${2#*:}")
        { [[ $2 == *:* ]] && [ -n "$lo" ] && [ -n "$hi" ]; } ||
          pb_die "$prog" "-m: '$2' is not MIN:MAX, expected sizes in 4..1M (K, M suffixes)"
        { [ "$lo" -ge 4 ] && [ "$hi" -le 1048576 ] && [ "$lo" -le "$hi" ]; } ||
          pb_die "$prog" "-m: '$2' is out of range, expected 4 <= MIN <= MAX <= 1M"
        range=$lo:$hi; shift 2 ;;
    -i) pb_int "$prog" -i "$2" 1 1000000; iters=$2; shift 2 ;;
    -k) keep=$2; shift 2 ;;
    --table) table=$2; shift 2 ;;
    --no-check) check=0; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,48p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) pb_die "$prog" "unknown option '$1'" ;;
    *) [ -z "$osu_dir" ] || pb_die "$prog" "unexpected argument '$1', expected one OSU_DIR"
       osu_dir=$1; shift ;;
  esac
done

ar_algos=(rd ring rabenseifner)
bc_algos=(binomial chain)
declare -A ompi_name=([rd]=recursive_doubling [ring]=ring [rabenseifner]=rabenseifner
                      [binomial]=binomial [chain]=pipeline)
ar_arms=(ompi ompi-rd pap-rd ompi-ring pap-ring ompi-rabenseifner pap-rabenseifner)
bc_arms=(ompi ompi-binomial pap-binomial ompi-chain pap-chain)

# ---- tables -------------------------------------------------------------

# med FILE SIZE: the median over the rounds of SIZE's latency in FILE.
med() { [ -s "$1" ] && awk -v s="$2" '$2 == s { print $3 }' "$1" | pb_median || echo nan; }

# cell X: X for a table, 2 decimals, "-" if not measured.
cell() { case $1 in nan|'') echo "-" ;; *) pb_fmt 2 "$1" ;; esac; }

# sizes_of DIR [COLL]: every size measured (of COLL), ascending.
sizes_of() { cat "$1/${2:-}"*.[0-9]* 2>/dev/null | awk '{ print $2 }' | sort -n -u; }

human() { awk -v b="$1" 'BEGIN { if (b >= 1048576 && b % 1048576 == 0) print b / 1048576 " MiB"; else if (b >= 1024 && b % 1024 == 0) print b / 1024 " KiB"; else print b " B" }'; }

# table_coll DIR COLL NP: one table.
table_coll() {
  local d=$1 coll=$2 np=$3 s row o p r algos
  if [ "$coll" = allreduce ]; then algos=("${ar_algos[@]}"); else algos=("${bc_algos[@]}"); fi
  echo "**$coll, np $np$(pb_oversub "$np")**: median of OSU's average latency, µs; ratio = paprun / Open MPI, same algorithm"
  echo
  row="| size | Open MPI default |"; sep="|---:|---:|"
  for a in "${algos[@]}"; do row="$row $a: Open MPI | $a: paprun | **ratio** |"; sep="$sep---:|---:|---:|"; done
  echo "$row"; echo "$sep"
  for s in $(sizes_of "$d" "$coll."); do
    row="| $(human "$s") | $(cell "$(med "$d/$coll.ompi.$np" "$s")") |"
    for a in "${algos[@]}"; do
      o=$(med "$d/$coll.ompi-$a.$np" "$s"); p=$(med "$d/$coll.pap-$a.$np" "$s")
      r=$(pb_ratio "$p" "$o")
      [ "$r" != nan ] || r=-
      row="$row $(cell "$o") | $(cell "$p") | **$r** |"
    done
    echo "$row"
  done
  echo
}

# goal DIR NP...: allreduce rows from 64 KiB up within 1.10x.
goal() {
  local d=$1 np s a r n=0 ok=0 miss=""
  shift
  for np in "$@"; do
    for s in $(sizes_of "$d" allreduce.); do
      [ "$s" -ge 65536 ] || continue
      for a in "${ar_algos[@]}"; do
        r=$(pb_ratio "$(med "$d/allreduce.pap-$a.$np" "$s")" "$(med "$d/allreduce.ompi-$a.$np" "$s")")
        [ "$r" != nan ] || continue
        n=$((n + 1))
        if awk -v r="$r" 'BEGIN { exit !(r <= 1.10) }'; then ok=$((ok + 1)); else miss="$miss $a np $np $(human "$s") ${r}x;"; fi
      done
    done
  done
  echo "Goal (allreduce, rd, ring and Rabenseifner within 1.10x of Open MPI's same algorithm from 64 KiB up): $ok of $n rows within 1.10x${miss:+; not within:$miss}"
}

check_table() {
  local d=$1 coll arm np cell
  [ -s "$d/check" ] || return 0
  echo
  echo "OSU validation (\`-c\`, every size): passed sizes / sizes, exit status"
  echo
  row="| collective | arm |"; sep="|---|---|"
  for np in $nps; do row="$row np $np |"; sep="$sep---|"; done
  echo "$row"; echo "$sep"
  for coll in allreduce bcast; do
    for arm in $(awk -v c="$coll" '$1 == c { print $2 }' "$d/check" | awk '!seen[$0]++'); do
      row="| $coll | $arm |"
      for np in $nps; do
        cell=$(awk -v c="$coll" -v a="$arm" -v n="$np" '$1 == c && $2 == a && $3 == n {
                 v = ($4 == $5 && $5 > 0 && $6 == 0) ? "pass" : "**FAIL**"; printf "%s %d/%d (exit %d)", v, $4, $5, $6 }' "$d/check")
        row="$row ${cell:--} |"
      done
      echo "$row"
    done
  done
}

tables() {
  local d=$1 np
  [ -n "$(sizes_of "$d")" ] || { echo "$prog: $d: no figures" >&2; exit 1; }
  for np in $nps; do table_coll "$d" allreduce "$np"; done
  goal "$d" $nps
  echo
  for np in $nps; do table_coll "$d" bcast "$np"; done
  check_table "$d"
}

if [ -n "$table" ]; then
  # The NPs are the ones the figures have.
  nps=$(cd "$table" && ls | sed -n 's/^[a-z]*\.[a-z-]*\.\([0-9]*\)$/\1/p' | sort -n -u | xargs)
  tables "$table"
  exit 0
fi

# ---- the runs -------------------------------------------------------------

[ -n "$osu_dir" ] || [ -n "${OSU_ALLREDUCE:-}" ] || pb_die "$prog" "no OSU_DIR given, expected the directory of the user's osu_allreduce and osu_bcast"
find_osu() {
  local name=$1 d
  for d in "$osu_dir" "$osu_dir/c/mpi/collective/blocking" "$osu_dir/libexec/osu-micro-benchmarks/mpi/collective" "$osu_dir/mpi/collective"; do
    [ -n "$osu_dir" ] && [ -x "$d/$name" ] && { echo "$d/$name"; return; }
  done
  echo ""
}
osu_allreduce=${OSU_ALLREDUCE:-$(find_osu osu_allreduce)}
osu_bcast=${OSU_BCAST:-$(find_osu osu_bcast)}
[ -n "$osu_allreduce" ] && [ -x "$osu_allreduce" ] || { echo "$prog: no executable osu_allreduce in ${osu_dir:-OSU_ALLREDUCE}" >&2; exit 1; }
[ -n "$osu_bcast" ] && [ -x "$osu_bcast" ] || { echo "$prog: no executable osu_bcast in ${osu_dir:-OSU_BCAST}" >&2; exit 1; }
if [ "$dry" = 0 ]; then
  [ -x bin/paprun ] && [ -e lib/libpaptree-mpi.so ] || { echo "$prog: bin/paprun or lib/libpaptree-mpi.so missing; run make" >&2; exit 1; }
fi

# Open MPI's numbers for the algorithms, from ompi_info, never assumed.
declare -A ompi_num
for coll in allreduce bcast; do
  valid=$(ompi_info --param coll tuned --level 9 2>/dev/null |
          sed -n "/coll_tuned_${coll}_algorithm\"/,/Valid values/p" | grep 'Valid values' || true)
  if [ "$coll" = allreduce ]; then algos=("${ar_algos[@]}"); else algos=("${bc_algos[@]}"); fi
  for a in "${algos[@]}"; do
    n=$(printf '%s\n' "$valid" | grep -o "[0-9]*:\"${ompi_name[$a]}\"" | cut -d: -f1 || true)
    [ -n "$n" ] || { echo "$prog: Open MPI has no $coll algorithm '${ompi_name[$a]}' (ompi_info --param coll tuned --level 9)" >&2; exit 1; }
    ompi_num[$coll.$a]=$n
  done
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
figs=${keep:-$tmp/figs}
mkdir -p "$figs"

# args COLL ARM NP OSU_ARGS...: sets cmd_args to paptree_mpirun's arguments.
args() {
  local coll=$1 arm=$2 np=$3 osu a
  shift 3
  if [ "$coll" = allreduce ]; then osu=$osu_allreduce; else osu=$osu_bcast; fi
  a=${arm#*-}
  case $arm in
    ompi)   cmd_args=("$np" -- "$osu" "$@") ;;
    ompi-*) cmd_args=("$np" --mca coll_tuned_use_dynamic_rules 1
                      --mca "coll_tuned_${coll}_algorithm" "${ompi_num[$coll.$a]}"
                      --mca "coll_tuned_${coll}_algorithm_segmentsize" 0 -- "$osu" "$@") ;;
    pap-*)  cmd_args=("$np" -- bin/paprun --algo "$coll:*=$a" -- "$osu" "$@") ;;
  esac
}

osu_args=(-T mpi_int -f -m "$range")
[ -z "$iters" ] || osu_args+=(-i "$iters")
for ((r = 1; r <= rounds; r++)); do
  for np in $nps; do
    # shellcheck disable=SC2046 # the arms are words without blanks
    for ca in $(pb_order "$r" $(printf 'allreduce/%s ' "${ar_arms[@]}") $(printf 'bcast/%s ' "${bc_arms[@]}")); do
      coll=${ca%%/*} arm=${ca#*/}
      args "$coll" "$arm" "$np" "${osu_args[@]}"
      if [ "$dry" = 1 ]; then echo "round $r: $(paptree_mpirun_print -t 600 "${cmd_args[@]}")"; continue; fi
      if ! paptree_mpirun -t 600 "${cmd_args[@]}" > "$tmp/out" 2> "$tmp/err"; then
        echo "$prog: round $r, $coll $arm np $np failed: $(paptree_mpirun_print -t 600 "${cmd_args[@]}")" >&2
        tail -5 "$tmp/err" >&2
        continue
      fi
      awk -v r="$r" '/^[0-9]+[ \t]/ && NF >= 4 { print r, $1, $2 }' "$tmp/out" >> "$figs/$coll.$arm.$np"
    done
  done
done

if [ "$check" = 1 ]; then
  : > "$figs/check.new"
  for np in $nps; do
    for ca in $(printf 'allreduce/%s ' "${ar_arms[@]}") $(printf 'bcast/%s ' "${bc_arms[@]}"); do
      coll=${ca%%/*} arm=${ca#*/}
      args "$coll" "$arm" "$np" -T mpi_int -c -m "$range" -i 20 -x 5
      if [ "$dry" = 1 ]; then echo "check: $(paptree_mpirun_print -t 600 "${cmd_args[@]}")"; continue; fi
      set +e
      paptree_mpirun -t 600 "${cmd_args[@]}" > "$tmp/out" 2> "$tmp/err"
      st=$?
      set -e
      pass=$(awk '/^[0-9]+[ \t]/ && $NF == "Pass"' "$tmp/out" | wc -l)
      total=$(awk '/^[0-9]+[ \t]/ && ($NF == "Pass" || $NF == "Fail")' "$tmp/out" | wc -l)
      # Sizes OSU never reached (it stops at the first failure) count as failed.
      want=$(awk -v lo="${range%%:*}" -v hi="${range#*:}" 'BEGIN { n = 0; for (s = lo; s <= hi; s *= 2) n++; print n }')
      [ "$total" -ge "$want" ] || total=$want
      echo "$coll $arm $np $pass $total $st" >> "$figs/check.new"
    done
  done
  [ "$dry" = 1 ] || mv "$figs/check.new" "$figs/check"
  rm -f "$figs/check.new"
fi
[ "$dry" = 0 ] || exit 0

echo "# paprun-osu: $osu_allreduce, $osu_bcast; int32 (-T mpi_int), sizes $range, $rounds interleaved rounds, np $nps;"
echo "# Open MPI's algorithms: $(for k in "${!ompi_num[@]}"; do printf '%s=%s ' "$k" "${ompi_num[$k]}"; done | tr ' ' '\n' | sort | xargs)"
echo "# $(git log -1 --format='commit %h' 2>/dev/null || echo 'no git'); load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo
tables "$figs"
