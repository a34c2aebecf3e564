#!/bin/sh
# coll-matrix.sh NP - build/mpiapps/coll_matrix (tests/mpiapps/coll_matrix.c:
# every collective x type x op x MPI_IN_PLACE x communicator x count, each
# result against Open MPI's own PMPI_ result) under bin/paprun on NP ranks,
# once per rule set below.  Together the sets run every algorithm that fits
# each collective (docs/paprun.md, "Which algorithms fit"), the PAP-aware
# ones with arrival=equal and arrival=history, segmented ones with several
# segments at 1000 elements; nap(ppn=2) falls back at odd NP.  The first set
# runs the whole matrix (counts up to 100000, every collective); the others
# the quick one (counts 0, 1, 3, 1000) on the collectives rules choose for.
# A wrong result makes coll_matrix exit 1 with the case; a hang is killed.
# Each run is traced, and each algorithm of its rules must have run without
# a fallback on some call (check_ran).
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
np=${1:?usage: coll-matrix.sh NP}
apps_setup

rules_full='allreduce:*=rd; reduce:*=binomial; bcast:*=binomial'

# check_ran RULES: in the trace at $tmp/t, each algorithm of RULES ran
# without a fallback on some call (else the results would prove nothing).
# At an odd NP, nap(ppn=2) runs on the split's two-rank half and falls back
# on the world.
check_ran() {
  [ -f "$tmp/t/traces.otf2" ] || { cat "$tmp/out" >&2; fail "np $np, --algo '$1': no trace"; }
  otf2-print "$tmp/t/traces.otf2" 2> /dev/null |
    sed -n 's/.*"paptree::algo" <[0-9]*>; STRING; "\([^"]*\)" <[0-9]*>), ("paptree::fallback" <[0-9]*>; STRING; "\([^"]*\)".*/\1|\2/p' |
    sort | uniq -c > "$tmp/algos"
  echo "$1" | tr ';,' '\n\n' | sed -e 's/^[^:]*://' -e 's/^ *//' -e 's/^[<>]=*//' -e 's/^[^=]*=//' -e 's/ *$//' |
  while IFS= read -r a; do
    [ "$a" != native ] || continue
    ran=$(awk -v a="$a" '{ c = $1; sub(/^ *[0-9]+ /, ""); split($0, f, "|") }
                         f[1] == a && f[2] == "" { n += c } END { print n + 0 }' "$tmp/algos")
    [ "$ran" -gt 0 ] || { cat "$tmp/algos" >&2
      fail "np $np, --algo '$1': '$a' never ran without a fallback (above: calls per algorithm|fallback)"; }
  done
}
n=0
while IFS= read -r rules; do
  [ -n "$rules" ] || continue
  n=$((n + 1))
  if [ "$rules" = "$rules_full" ]; then
    args=""
  else
    args="--quick --colls allreduce,reduce,bcast"
  fi
  rm -rf "$tmp/t"
  # shellcheck disable=SC2086 # $args is a word list
  if ! papp 150 "$np" "$tmp/out" --trace "$tmp/t" --algo "$rules" -- build/mpiapps/coll_matrix $args; then
    cat "$tmp/out" >&2
    fail "np $np, --algo '$rules': coll_matrix failed (above)"
  fi
  grep -q '^coll_matrix: [0-9]* cases, 0 failures' "$tmp/out" ||
    { cat "$tmp/out" >&2; fail "np $np, --algo '$rules': no summary line"; }
  check_ran "$rules"
  echo "ok $n - np $np --algo '$rules' $args"
done <<'RULES'
allreduce:*=rd; reduce:*=binomial; bcast:*=binomial
allreduce:*=ring; reduce:*=chain; bcast:*=chain
allreduce:*=ring-seg(segsize=256); reduce:*=chain(segsize=256 port=b); bcast:*=chain(segments=4)
allreduce:*=rabenseifner; reduce:*=bintree; bcast:*=binomial
allreduce:*=slt; reduce:*=bintree(shape=ompi segsize=512); bcast:*=chain(port=b)
allreduce:*=slt(arrival=history segments=3); reduce:*=greedy(segsize=256); bcast:*=binomial
allreduce:*=prr; reduce:*=clv; bcast:*=binomial
allreduce:*=prr(arrival=history round=2us); reduce:*=clv(arrival=history); bcast:*=chain
allreduce:*=clv+binomial; reduce:*=clv-linear; bcast:*=binomial
allreduce:*=clv+chain(arrival=history); reduce:*=clv-linear(arrival=history segments=2)
allreduce:*=greedy+binomial; reduce:*=bintree(port=b)
allreduce:*=binomial+binomial; reduce:*=greedy(segments=3)
allreduce:*=chain+chain(segsize=256); reduce:*=native; bcast:*=native
allreduce:*=bintree+binomial
allreduce:*=clv-linear+binomial(arrival=history)
allreduce:*=nap(ppn=2)
allreduce:<=8=rd,9-4000=ring,>4000=rabenseifner; reduce:<16=binomial,*=chain(segsize=1K)
RULES
echo "coll-matrix: np $np: $n rule sets passed"
