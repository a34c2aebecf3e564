#!/bin/sh
# bench/papsim-paper.sh - the papers' figures under papsim's cost model (issue 6).
#
#   (a) Proficz 2018, Table 3: P = 48, 1 M floats, 1 Gb/s Ethernet, one
#       process (rank 1) late by 0..1000 ms; ring, Rabenseifner, SLT, PRR.
#       Our average elapsed time and speedup over the ring next to the
#       paper's.  Cost model: --net 1gbe, i.e. beta = 8 ns/B (1 Gb/s line
#       rate), gamma = 0.1 ns/B (a float sum at 10 GB/s) and alpha = 20 us,
#       chosen so that the ring at delay 0 gives the paper's 67.8 ms: the
#       ring costs 2(P-1)(alpha + beta m) + (P-1) gamma m with m = 87 384 B
#       (the largest of 48 blocks of 1 M floats), 94 * 0.699 ms = 65.7 ms of
#       bandwidth alone, which leaves ~2 ms for 94 alpha + 47 gamma m;
#       alpha = 20 us, gamma = 0.1 ns/B give 68.0 ms.
#   (b) Tanaka 2017: P = 64, latency 20 us, 10 Gb/s, gamma = 0 (--net
#       10gbe), 64 B .. 64 MB, binomial reduce against the pipelined chain,
#       the pipelined binary tree and the greedy reduce with q = 1, 2, 4, 8,
#       16 segments, port model U as in the paper; the time is the
#       completion time (all arrive at 0, the root finishes last).  Which
#       wins at each size (the paper: binomial for small messages,
#       pipelines for large ones).
#   (c) Scale: generation + simulation time of one schedule at P = 4096
#       (ring, rd, rabenseifner, slt, prr, nap with ppn 16, binomial-reduce,
#       chain-reduce with 16 segments) and P = 512 (clv, clv-linear and
#       greedy-reduce with 16 segments), 1 M floats, rank 1 late by 50 ms
#       (clv: random arrivals in [0, 50] ms).  Goal: <= 1 s each.  Wall and
#       CPU time: the machine is shared, CPU time is the steadier figure.
#
#   bench/papsim-paper.sh [-p PARTS] [-h]
#
# PARTS: any of a, b, c (default abc).  PAPSIM=path overrides bin/papsim.
# Exits 1 if papsim fails.
set -eu
cd "$(dirname "$0")/.."

parts=abc
usage() { echo "usage: bench/papsim-paper.sh [-p PARTS]   (PARTS: a b c, default abc)"; }
while getopts "p:h" opt; do
  case $opt in
    p) parts=$OPTARG ;;
    h) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }
case $parts in *[!abc]*|'') usage >&2; exit 2 ;; esac
papsim=${PAPSIM:-bin/papsim}
[ -x "$papsim" ] || { echo "papsim-paper: $papsim missing; run make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {   # run OUTFILE ARGS...: papsim ARGS > OUTFILE, or show why and exit 1
  out=$1; shift
  if ! "$papsim" "$@" > "$out" 2> "$out.err"; then
    echo "papsim-paper: failed: $papsim $*" >&2
    cat "$out.err" >&2
    exit 1
  fi
}

# Proficz 2018, Table 3 (1 M floats, 1 Gb/s Ethernet, one process delayed,
# 48 processes): algorithm, then (average elapsed ms, speedup) per maximum
# delay 0 1 5 10 50 100 500 1000 ms.
paper_table3() {
  cat <<'EOF'
ring         67.8 1.00  67.6 1.00  70.1 1.00  75.6 1.00 115.9 1.00 165.5 1.00 558.6 1.00 1047.0 1.00
rabenseifner 76.3 0.89  75.9 0.89  82.9 0.85  85.7 0.88 125.0 0.93 181.6 0.91 572.0 0.98 1061.8 0.99
slt          90.3 0.75  90.3 0.75  89.7 0.78  89.7 0.84 101.0 1.15 149.8 1.10 542.1 1.03 1031.9 1.01
prr          70.9 0.96  70.8 0.95  71.1 0.99  73.0 1.04 101.0 1.15 149.7 1.11 541.7 1.03 1031.5 1.01
EOF
}

part_a() {
  delays="0 1 5 10 50 100 500 1000"
  echo "## (a) Proficz 2018 Table 3: P=48, 1 M floats, --net 1gbe, rank 1 late by D ms"
  "$papsim" -P 48 --net 1gbe ring --bytes 4194304 | sed -n '2p'
  : > "$tmp/a"
  for d in $delays; do
    run "$tmp/a.$d" -P 48 --bytes 4194304 --net 1gbe --arrival "one-late:$d:1" \
      ring rabenseifner slt prr
    # rows: "  NAME avg completion max speedup ..."
    awk -v d="$d" '/^  [a-z]/ { print d, $1, $2, $5 }' "$tmp/a.$d" >> "$tmp/a"
  done
  paper_table3 > "$tmp/paper"
  echo "# avg elapsed ms (ours / paper) and speedup over ring (ours / paper)"
  printf '%-13s' "max delay"
  for d in $delays; do printf ' %-17s' "$d ms"; done
  echo
  awk -v delays="$delays" '
    NR == FNR { for (i = 0; i < 8; i++) { pe[$1, i] = $(2 + 2 * i); ps[$1, i] = $(3 + 2 * i) }
                next }
    { e[$2, $1] = $3; s[$2, $1] = $4 }
    END {
      n = split(delays, dl, " ")
      split("ring rabenseifner slt prr", al, " ")
      for (a = 1; a <= 4; a++) {
        printf "%-13s", al[a]
        for (i = 1; i <= n; i++) printf " %-17s", sprintf("%.1f/%.1f", e[al[a], dl[i]], pe[al[a], i - 1])
        printf "\n%-13s", ""
        for (i = 1; i <= n; i++) printf " %-17s", sprintf("%.2f/%.2f", s[al[a], dl[i]], ps[al[a], i - 1])
        printf "\n"
      }
    }' "$tmp/paper" "$tmp/a"
  echo
}

part_b() {
  algos=binomial-reduce
  for q in 1 2 4 8 16; do
    algos="$algos chain-reduce:segs=$q bintree-reduce:segs=$q greedy-reduce:segs=$q"
  done
  echo "## (b) Tanaka 2017: P=64, --net 10gbe (alpha 20 us, 10 Gb/s, gamma 0), port U,"
  echo "##     completion time in us; best q of each pipeline, and the winner"
  # shellcheck disable=SC2086
  run "$tmp/b" -P 64 --net 10gbe --metric completion --sizes 64:67108864 $algos
  awk '
    /^# bytes/ { for (i = 3; i <= NF; i++) name[i - 1] = $i; next }
    /^  [0-9]/ {
      printf "%-10s", $1
      bin = $2; best = bin; win = name[2]
      split("chain bintree greedy", fam, " ")
      for (f = 1; f <= 3; f++) {
        fb = ""; fq = ""
        for (i = 3; i < NF; i++) {
          split(name[i], parts, /[-:=]/)
          if (parts[1] != fam[f] || $i == "-") continue
          if (fb == "" || $i + 0 < fb + 0) { fb = $i; fq = parts[4] }
        }
        out[f] = sprintf("%12.1f (q=%-2s)", fb, fq)
        if (fb != "" && fb + 0 < best + 0) { best = fb; win = fam[f] "-reduce q=" fq }
      }
      if (win == name[2]) win = "binomial-reduce"
      printf " %12.1f %s %s %s  %s\n", bin, out[1], out[2], out[3], win
      next
    }' "$tmp/b" > "$tmp/b.sum"
  printf '%-10s %12s %19s %19s %19s  %s\n' bytes binomial chain bintree greedy winner
  cat "$tmp/b.sum"
  echo
}

part_c() {
  echo "## (c) scale: one schedule each, 1 M floats, --net 1gbe, rank 1 late by 50 ms"
  echo "# algorithm                 P     steps   rounds   gen_ms   sim_ms  gen_cpu  sim_cpu  total_cpu  <=1s"
  scale() {   # scale P ARGS...: one papsim run, one line per algorithm
    p=$1; shift
    run "$tmp/c" -P "$p" --bytes 4194304 --net 1gbe "$@"
    awk -v p="$p" '/^  [a-z]/ {
        t = ($11 + $12) / 1000
        printf "%-22s %5d %9d %8d %8.1f %8.1f %8.1f %8.1f %10.2f  %s\n",
               $1, p, $7, $8, $9, $10, $11, $12, t, t <= 1 ? "yes" : "NO" }' "$tmp/c"
  }
  for a in ring rd rabenseifner slt prr binomial-reduce chain-reduce:segs=16; do
    scale 4096 --arrival one-late:50:1 "$a"
  done
  scale 4096 --arrival one-late:50:1 --ppn 16 nap
  scale 512 --arrival one-late:50:1 greedy-reduce:segs=16
  scale 512 --arrival random:50:1 clv:segs=16 clv-linear:segs=16
  echo
}

echo "# papsim-paper $(date '+%Y-%m-%d %H:%M'): commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
case $parts in *a*) part_a ;; esac
case $parts in *b*) part_b ;; esac
case $parts in *c*) part_c ;; esac
