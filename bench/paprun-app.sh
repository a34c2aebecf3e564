#!/usr/bin/env bash
# bench/paprun-app.sh - a real MPI application from Debian's archive, HPC
# Challenge (package hpcc), run unchanged under bin/paprun (issue 25, point
# 8c): plainly, traced, and under two rule sets; its results compared with
# the plain run's, its time per run, and papanalyze's per-call-site table
# of the traced run.
#
#   bench/paprun-app.sh [-r ROUNDS] [-p NP] [-N N] [-1 RULES] [-2 RULES] [-k DIR]
#                       [--dry-run]
#   bench/paprun-app.sh --compare PLAIN_OUT OTHER_OUT
#
# hpcc is installed with `apt-get install -y hpcc` when missing (as root;
# otherwise the script says what to install).  It is never part of
# paptree.  Each run gets a fresh directory with an hpccinf.txt written
# here: HPL with N = -N (default 1000), NB 80, a P x Q grid as square as
# NP allows; the other HPCC tests size themselves from it (a run takes a
# few seconds).  Arms, interleaved (the order rotated by one per round):
#
#   plain   mpirun ... hpcc
#   trace   mpirun ... bin/paprun --trace DIR -- hpcc         (pass-through, traced)
#   rules1  mpirun ... bin/paprun --algo RULES1 -- hpcc
#           (default 'allreduce:<=4K=rd,>4K=ring; bcast:*=binomial')
#   rules2  mpirun ... bin/paprun --algo RULES2 -- hpcc
#           (default 'allreduce:*=prr(arrival=history)')
#
# Results: from each run's hpccoutf.txt, the lines that must not depend on
# timing: every PASSED/FAILED and "N errors" verdict, HPL's scaled residual
# and norms, PTRANS's checks and residual, DGEMM's failed nodes, FFT's
# largest error, RandomAccess's error counts (not StarDGEMM's "Scaled
# residual": its matrices are random per run, and two plain runs differ) (--compare prints them for two output files,
# and whether they are identical).  Every run's must equal the first plain
# run's, or the script says which differ and exits 1 at the end.  Times:
# wall time of each mpirun, median, least and largest per arm, and the
# ratio of the medians to plain's.  Then `bin/papanalyze` on the last
# traced run's trace: its report (the per-call-site table).
#
# Defaults: -r 3, -p 4, -N 1000.  -k DIR keeps every run's directory and
# the trace.  With NP above the core count (4 on this 2-core machine) the
# ranks are oversubscribed, and the output says so.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. bench/lib.sh
. bench/paprun-lib.sh
prog=paprun-app.sh
pb_usage="usage: bench/paprun-app.sh [-r ROUNDS] [-p NP] [-N N] [-1 RULES] [-2 RULES] [-k DIR] [--dry-run] | --compare OUT1 OUT2"

rounds=3 np=4 n=1000 keep="" dry=0
rules1='allreduce:<=4K=rd,>4K=ring; bcast:*=binomial'
rules2='allreduce:*=prr(arrival=history)'
compare=()
while [ $# -gt 0 ]; do
  case $1 in
    -r|-p|-N|-1|-2|-k)
      [ $# -ge 2 ] || pb_die "$prog" "option '$1' requires an argument" ;;
    --compare)
      [ $# -ge 3 ] || pb_die "$prog" "option '--compare' requires two hpccoutf.txt files" ;;
  esac
  case $1 in
    -r) pb_int "$prog" -r "$2" 1 101; rounds=$2; shift 2 ;;
    -p) pb_int "$prog" -p "$2" 1 64; np=$2; shift 2 ;;
    -N) pb_int "$prog" -N "$2" 100 100000; n=$2; shift 2 ;;
    -1) rules1=$2; shift 2 ;;
    -2) rules2=$2; shift 2 ;;
    -k) keep=$2; shift 2 ;;
    --compare) compare=("$2" "$3"); shift 3 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pb_die "$prog" "unknown option '$1'" ;;
  esac
done

# results FILE: the lines of an hpccoutf.txt that do not depend on timing.
results() {
  awk '
    /PASSED|FAILED|\(passed\)|\(failed\)/ && /^(WALL|CPU) / { print "PTRANS " $1 " " $2 " " $3 " check " $9 " resid " $11; next }
    /tests completed and (passed|failed)/ { $1 = $1; print; next }
    /tests skipped because of illegal/ { $1 = $1; print; next }
    /^Found [0-9]+ errors in/ { $1 = $1; print; next }
    /^\|\|Ax-b\|\|/ { $1 = $1; print; next }
    /^Node\(s\) with error/ { print; next }
    /^(HPL_RnormI|HPL_Anorm1|HPL_AnormI|HPL_Xnorm1|HPL_XnormI|HPL_BnormI|HPL_N|PTRANS_residual|PTRANS_n|MPIRandomAccess_LCG_Errors|MPIRandomAccess_Errors|MPIRandomAccess_N|MPIFFT_maxErr|MPIFFT_N|CommWorldProcs)=/ { print; next }
  ' "$1"
}

if [ ${#compare[@]} -eq 2 ]; then
  for f in "${compare[@]}"; do [ -r "$f" ] || { echo "$prog: $f: cannot read" >&2; exit 1; }; done
  results "${compare[0]}" > "${TMPDIR:-/tmp}/paprun-app.$$.a"
  results "${compare[1]}" > "${TMPDIR:-/tmp}/paprun-app.$$.b"
  cat "${TMPDIR:-/tmp}/paprun-app.$$.a"
  st=0
  if [ ! -s "${TMPDIR:-/tmp}/paprun-app.$$.a" ]; then echo "$prog: ${compare[0]}: no HPCC results"; st=1
  elif diff "${TMPDIR:-/tmp}/paprun-app.$$.a" "${TMPDIR:-/tmp}/paprun-app.$$.b" > "${TMPDIR:-/tmp}/paprun-app.$$.d"; then echo "identical: $(wc -l < "${TMPDIR:-/tmp}/paprun-app.$$.a") result lines"
  else echo "DIFFERENT:"; cat "${TMPDIR:-/tmp}/paprun-app.$$.d"; st=1; fi
  rm -f "${TMPDIR:-/tmp}/paprun-app.$$".[abd]
  exit $st
fi

# grid NP: "P Q", P <= Q, P x Q = NP, as square as possible.
grid() { awk -v n="$1" 'BEGIN { p = int(sqrt(n)); while (n % p) p--; print p, n / p }'; }

# hpccinf N P Q: the input file (HPL's format; the PTRANS lines at the end).
hpccinf() {
  cat <<EOF
HPLinpack benchmark input file
paptree bench/paprun-app.sh: a small HPCC run (issue 25)
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$1         Ns
1            # of NBs
80           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$2            Ps
$3            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
EOF
}

if [ "$dry" = 0 ]; then
  if ! command -v hpcc > /dev/null; then
    if [ "$(id -u)" = 0 ]; then
      echo "$prog: installing Debian's hpcc (apt-get install -y hpcc)" >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y hpcc > /dev/null ||
        { echo "$prog: apt-get install -y hpcc failed" >&2; exit 1; }
    else
      echo "$prog: hpcc is not installed; as root: apt-get install -y hpcc" >&2; exit 1
    fi
  fi
  for f in bin/paprun lib/libpaptree-mpi.so bin/papanalyze; do
    [ -e "$f" ] || { echo "$prog: $f missing; run make" >&2; exit 1; }
  done
fi
hpcc_bin=$(command -v hpcc || echo /usr/bin/hpcc)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=${keep:-$tmp/runs}
mkdir -p "$work"
read -r gp gq <<< "$(grid "$np")"

arms=(plain trace rules1 rules2)
# args ARM DIR: sets cmd_args (paptree_mpirun's arguments) for one run in DIR.
args() {
  case $1 in
    plain)  cmd_args=("$np" -- "$hpcc_bin") ;;
    trace)  cmd_args=("$np" -- "$root/bin/paprun" --trace "$2/trace" -- "$hpcc_bin") ;;
    rules1) cmd_args=("$np" -- "$root/bin/paprun" --algo "$rules1" -- "$hpcc_bin") ;;
    rules2) cmd_args=("$np" -- "$root/bin/paprun" --algo "$rules2" -- "$hpcc_bin") ;;
  esac
}

failed=0 ref="" last_trace=""
for ((r = 1; r <= rounds; r++)); do
  for arm in $(pb_order "$r" "${arms[@]}"); do
    d=$work/$arm.$r
    args "$arm" "$d"
    if [ "$dry" = 1 ]; then echo "round $r $arm: (cd $d && $(paptree_mpirun_print -t 600 "${cmd_args[@]}"))"; continue; fi
    rm -rf "$d"; mkdir -p "$d"
    hpccinf "$n" "$gp" "$gq" > "$d/hpccinf.txt"
    t0=$(date +%s.%N)
    set +e
    (cd "$d" && paptree_mpirun -t 600 "${cmd_args[@]}" > "$d/stdout" 2> "$d/stderr")
    st=$?
    set -e
    if [ "$st" -ne 0 ]; then
      echo "$prog: round $r, $arm failed (exit status $st): $(paptree_mpirun_print -t 600 "${cmd_args[@]}")" >&2
      tail -5 "$d/stderr" >&2
      echo "$arm failed" >> "$tmp/failures"; failed=1
      continue
    fi
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$tmp/time.$arm"
    results "$d/hpccoutf.txt" > "$d/results"
    if [ -z "$ref" ] && [ "$arm" = plain ]; then ref=$d/results; fi
    [ "$arm" != trace ] || last_trace=$d/trace
  done
done
[ "$dry" = 0 ] || exit 0

echo "# paprun-app: hpcc ($(dpkg-query -W -f '${Version}' hpcc 2>/dev/null || echo '?')), np $np$(pb_oversub "$np"), HPL N=$n NB=80 grid ${gp}x$gq, $rounds interleaved rounds;"
echo "# rules1: $rules1"
echo "# rules2: $rules2"
echo "# $(git log -1 --format='commit %h' 2>/dev/null || echo 'no git'); load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo
[ -n "$ref" ] && [ -s "$ref" ] || { echo "$prog: no plain run gave HPCC results" >&2; exit 1; }

echo "| arm | runs | results as plain's | wall s per run: median (least..largest) | / plain |"
echo "|---|---:|---|---:|---:|"
pm=$(pb_col "$tmp/time.plain" | pb_median)
for arm in "${arms[@]}"; do
  same=0 differ=0
  for ((r = 1; r <= rounds; r++)); do
    [ -s "$work/$arm.$r/results" ] || continue
    if cmp -s "$ref" "$work/$arm.$r/results"; then same=$((same + 1)); else differ=$((differ + 1)); fi
  done
  verdict="identical ($same of $((same + differ)))"
  if [ "$differ" -gt 0 ]; then verdict="**DIFFER in $differ of $((same + differ))**"; failed=1; fi
  m=$(pb_col "$tmp/time.$arm" | pb_median)
  echo "| $arm | $(pb_col "$tmp/time.$arm" | wc -l) | $verdict | $(pb_fmt 2 "$m") ($(pb_col "$tmp/time.$arm" | pb_min)..$(pb_col "$tmp/time.$arm" | pb_max)) | $(pb_ratio "$m" "$pm") |"
done
echo
echo "The compared results ($(wc -l < "$ref") lines of the first plain run's hpccoutf.txt):"
echo
sed 's/^/    /' "$ref"
for arm in "${arms[@]}"; do
  for ((r = 1; r <= rounds; r++)); do
    f=$work/$arm.$r/results
    if [ -s "$f" ] && ! cmp -s "$ref" "$f"; then echo; echo "$arm, round $r differs:"; diff "$ref" "$f" | sed 's/^/    /' || true; fi
  done
done
[ ! -s "$tmp/failures" ] || { echo; echo "Runs that failed:"; sort "$tmp/failures" | uniq -c; }

if [ -n "$last_trace" ] && [ -e "$last_trace/traces.otf2" ]; then
  echo
  echo "papanalyze $last_trace/traces.otf2:"
  echo
  bin/papanalyze -o "$tmp/app.db" "$last_trace/traces.otf2" 2>&1 | sed 's/^/    /' || failed=1
else
  echo; echo "$prog: no trace of a traced run to analyse" >&2; failed=1
fi
exit $failed
