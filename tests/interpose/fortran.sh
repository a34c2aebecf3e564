#!/bin/sh
# fortran.sh - Fortran programs under bin/paprun: build/mpiapps/fcoll
# (`use mpi`) and fcoll08 (`use mpi_f08`), every result checked by hand in
# the program.  Open MPI's Fortran bindings call the PMPI_ C functions, so
# the library intercepts the Fortran symbols (interpose/ip_fortran.c); the
# trace must hold one event per Fortran call (the counts the programs
# print; their own checks go through pmpi_ and are not counted, in fcoll)
# with the call site in the Fortran executable, MPI_IN_PLACE recognised
# (results), and rules must run on Fortran calls as on C ones.
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
apps_setup
[ -x build/mpiapps/fcoll08 ] || fail "build/mpiapps/fcoll08 is missing (make)"

# check PROG OUT DIR FUNCS...: the trace's ENTER counts per region.
check() {
  prog=$1 out=$2 dir=$3
  shift 3
  grep -q "^ *$prog: 0 failures" "$out" || { cat "$out" >&2; fail "$prog: no summary line"; }
  trace_counts "$dir" "$tmp/counts" "$out"
  for f in "$@"; do
    c=$(calls_of "$out" "$f")
    [ -n "$c" ] || { cat "$out" >&2; fail "$prog printed no count of $f"; }
    want_count "$tmp/counts" "ENTER:$f" "$c" "$prog: ENTER events of region $f"
  done
  grep -q "mpiapps/$prog+0x" "$tmp/counts.print" ||
    { grep -m 3 'paptree::callsite' "$tmp/counts.print" >&2; fail "$prog: no call site in the Fortran executable"; }
  # Every site, the completions' too, is the Fortran program's own.
  if grep -o '"paptree::callsite" <[0-9]*>; STRING; "[^"]*"' "$tmp/counts.print" |
     grep -v "mpiapps/$prog+0x" | grep -q .; then
    grep -o '"paptree::callsite" <[0-9]*>; STRING; "[^"]*"' "$tmp/counts.print" |
      grep -v "mpiapps/$prog+0x" | sort | uniq -c | head -n 5 >&2
    fail "$prog: call sites outside the Fortran executable (above)"
  fi
}

# ran_rules PROG: under rules, Fortran's predefined types (MPI_INTEGER,
# MPI_DOUBLE_PRECISION: int32 and double) ran the rules' algorithms; no call
# fell back for its datatype.
ran_rules() {
  n=$(grep -c '"paptree::fallback" <[0-9]*>; STRING; "datatype"' "$tmp/counts.print" || true)
  [ "$n" -eq 0 ] || { grep -m 2 '"paptree::fallback" <[0-9]*>; STRING; "datatype"' "$tmp/counts.print" >&2
                      fail "$1: $n calls fell back for their datatype (Fortran's MPI_INTEGER or MPI_DOUBLE_PRECISION)"; }
}

F77="MPI_Allreduce MPI_Reduce MPI_Bcast MPI_Barrier MPI_Allgather MPI_Reduce_scatter_block MPI_Iallreduce MPI_Ireduce MPI_Ibcast"
F08="MPI_Allreduce MPI_Reduce MPI_Bcast MPI_Barrier MPI_Allgather MPI_Reduce_scatter_block MPI_Iallreduce"
for np in 2 3; do
  papp 90 $np "$tmp/a.out" --trace "$tmp/a$np" -- build/mpiapps/fcoll ||
    { cat "$tmp/a.out" >&2; fail "fcoll np $np, no rules: failed"; }
  # shellcheck disable=SC2086
  check fcoll "$tmp/a.out" "$tmp/a$np" $F77
  grep -F '"paptree::algo"' "$tmp/counts.print" | grep -qv '"native"' && fail "fcoll: an algorithm ran without rules"
  echo "ok - fcoll np $np, no rules, traced"
  papp 90 $np "$tmp/b.out" --trace "$tmp/b$np" --algo 'allreduce:<=4K=rd,*=ring; reduce:*=chain(segments=2); bcast:*=binomial' -- \
    build/mpiapps/fcoll || { cat "$tmp/b.out" >&2; fail "fcoll np $np, rules: failed"; }
  # shellcheck disable=SC2086
  check fcoll "$tmp/b.out" "$tmp/b$np" $F77
  for a in rd ring 'chain(segments=2)' binomial; do
    grep -F '"paptree::algo"' "$tmp/counts.print" | grep -qF "\"$a\"" || fail "fcoll np $np: '$a' never ran"
  done
  ran_rules fcoll
  echo "ok - fcoll np $np, rules, traced"
done
papp 90 3 "$tmp/c.out" --trace "$tmp/c" --algo 'allreduce:*=rabenseifner; reduce:*=binomial' -- build/mpiapps/fcoll08 ||
  { cat "$tmp/c.out" >&2; fail "fcoll08 np 3, rules: failed"; }
# shellcheck disable=SC2086
check fcoll08 "$tmp/c.out" "$tmp/c" $F08
ran_rules fcoll08
echo "ok - fcoll08 (use mpi_f08) np 3, rules, traced"
papp 90 2 "$tmp/d.out" --report -- build/mpiapps/fcoll08 ||
  { cat "$tmp/d.out" >&2; fail "fcoll08 np 2 --report: failed"; }
grep -q 'fcoll08.f90:' "$tmp/d.out" || { cat "$tmp/d.out" >&2; fail "fcoll08 --report: no line of fcoll08.f90"; }
echo "ok - fcoll08 np 2 --report names the Fortran lines"
