#!/bin/sh
# auto.sh NP - `auto` in the profiling library's rules (docs/paprun.md,
# "auto"): build/mpiapps/imbalance (tests/mpiapps/imbalance.c: allreduces
# from two call sites, the last rank 3 ms late before every other "big"
# one; every result checked against Open MPI's PMPI_Allreduce and its
# closed form) under bin/paprun on NP ranks:
#   - two auto cases, by size: the 128-byte site among rd and ring, the
#     big sites (128 KiB int64 sums, 64 KiB int32 maxima) among ring, prr
#     and native with arrival=history: the results are right, the report's
#     algorithm column shows each auto row's choices ("auto: NAME P%, ...",
#     names from that case's candidates only, shares summing to 100 within
#     rounding, no fallback), and every MPI_Allreduce of the trace names
#     the candidate it ran;
#   - bare `auto` (the default candidates): right results, choices shown;
#   - ranks with different net models (PAPTREE_NET) or different
#     candidates: the job stops at MPI_Init with one message, the program
#     never runs on.
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
np=${1:?usage: auto.sh NP}
apps_setup
[ -x build/mpiapps/imbalance ] || fail "build/mpiapps/imbalance is missing (make)"

BIG='auto(candidates=ring,prr,native arrival=history round=5us)'
RULES="allreduce:>=64K=$BIG,*=auto(candidates=rd,ring)"

# check_rows OUT: every MPI_Allreduce row of the report shows auto's
# choices from its case's candidates, shares summing to 99..101, no fallback.
check_rows() {
  rows=$(grep -Ec 'MPI_Allreduce +[0-9]+ +[0-9]+ ' "$1" || true)
  [ "$rows" -ge 2 ] || { cat "$1" >&2; fail "np $np: expected MPI_Allreduce rows in the report"; }
  grep -E 'MPI_Allreduce +[0-9]+ +[0-9]+ ' "$1" | awk -v np="$np" '
    { line = $0; sub(/.*MPI_Allreduce +[0-9]+ +/, "", line)
      bytes = line + 0; sub(/^[0-9]+ +/, "", line)
      if (line !~ /^auto: /) { print "not an auto row: " $0; bad = 1; next }
      sub(/^auto: /, "", line)
      ok = bytes == 128 ? " rd ring " : " ring prr native "
      total = 0
      while (match(line, /^[a-z]+ [0-9]+%/)) {
        split(substr(line, RSTART, RLENGTH), f, " ")
        if (index(ok, " " f[1] " ") == 0) { print "candidate " f[1] " not of its case: " $0; bad = 1 }
        total += f[2] + 0
        line = substr(line, RLENGTH + 1); sub(/^, /, "", line)
      }
      if (total < 99 || total > 101) { print "shares sum to " total ": " $0; bad = 1 }
    }
    END { exit bad }' >&2 || { cat "$1" >&2; fail "np $np: the report's auto rows (above)"; }
  if grep -Eq '(count|datatype|op|user-op|args|other): [0-9]' "$1"; then
    cat "$1" >&2; fail "np $np: an auto call fell back (above)"
  fi
}

# ---- two auto cases, traced and reported ----------------------------------------
papp 150 "$np" "$tmp/out" --report --trace "$tmp/t" --algo "$RULES" -- \
  build/mpiapps/imbalance 40 16384 3 ||
  { cat "$tmp/out" >&2; fail "np $np, --algo '$RULES': imbalance failed (above)"; }
expect_count "$tmp/out" 1 "imbalance: ok, 120 MPI_Allreduce calls per rank"
check_rows "$tmp/out"
trace_counts "$tmp/t" "$tmp/counts" "$tmp/out"
want_count "$tmp/counts" ENTER:MPI_Allreduce $((120 * np)) "np $np"
# Each call's algorithm attribute is the candidate that ran, never the rule.
sed -n 's/.*"paptree::algo" <[0-9]*>; STRING; "\([^"]*\)".*/\1/p' "$tmp/counts.print" |
  sort | uniq -c > "$tmp/algos"
bad=$(awk '$2 != "rd" && $2 != "ring" && $2 != "prr" && $2 != "native"' "$tmp/algos")
[ -z "$bad" ] || { cat "$tmp/algos" >&2; fail "np $np: a traced call's algorithm is not a candidate"; }
n=$(awk '$2 != "native" { n += $1 } END { print n + 0 }' "$tmp/algos")
[ "$n" -gt 0 ] || { cat "$tmp/algos" >&2; fail "np $np: no call ran one of paptree's candidates"; }
echo "ok 1 - np $np --algo '$RULES'"

# ---- bare auto: the default candidates -------------------------------------------
papp 120 "$np" "$tmp/out2" --report --algo 'allreduce:*=auto' -- build/mpiapps/imbalance 8 4096 1 ||
  { cat "$tmp/out2" >&2; fail "np $np, --algo 'allreduce:*=auto': imbalance failed (above)"; }
expect_count "$tmp/out2" 1 "imbalance: ok, 24 MPI_Allreduce calls per rank"
expect_count "$tmp/out2" 3 "auto: "
echo "ok 2 - np $np --algo 'allreduce:*=auto'"

# ---- the ranks disagree: one message at MPI_Init ---------------------------------
printf 'alpha=3e-6\nbeta=1e-9\ngamma=2e-10\n' > "$tmp/netA"
printf 'alpha=4e-6\nbeta=1e-9\ngamma=2e-10\n' > "$tmp/netB"
# Rank 1 reads the other net file (set by a shell between paprun and the program).
set +e
PAPTREE_NET=$tmp/netA papp 60 "$np" "$tmp/net.log" --algo "$RULES" -- sh -c \
  "[ \"\$OMPI_COMM_WORLD_RANK\" = 1 ] && PAPTREE_NET=$tmp/netB; export PAPTREE_NET; exec \"\$0\" 4 64 0" \
  build/mpiapps/imbalance
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$tmp/net.log" >&2; fail "np $np, PAPTREE_NET differs: exit $rc"; }
[ "$(grep -c "the ranks' auto rules have different net models" "$tmp/net.log")" -eq 1 ] ||
  { cat "$tmp/net.log" >&2; fail "np $np, PAPTREE_NET differs: not one message"; }
if grep -q 'imbalance: ok' "$tmp/net.log"; then fail "np $np, PAPTREE_NET differs: the program ran on"; fi
# Rank 1 has other candidates.
set +e
papp 60 "$np" "$tmp/cand.log" --algo 'allreduce:*=auto(candidates=ring,prr)' -- sh -c \
  '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && PAPTREE_ALGO="allreduce:*=auto(candidates=ring,rd)"; export PAPTREE_ALGO; exec "$0" 4 64 0' \
  build/mpiapps/imbalance
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$tmp/cand.log" >&2; fail "np $np, candidates differ: exit $rc"; }
[ "$(grep -c 'the ranks were given different rules' "$tmp/cand.log")" -eq 1 ] ||
  { cat "$tmp/cand.log" >&2; fail "np $np, candidates differ: not one message"; }
if grep -q 'imbalance: ok' "$tmp/cand.log"; then fail "np $np, candidates differ: the program ran on"; fi
echo "ok 3 - np $np, ranks that disagree stop at MPI_Init"
