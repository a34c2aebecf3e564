#!/bin/sh
# errhandler.sh - build/mpiapps/errhandler: on a communicator with
# MPI_ERRORS_RETURN, invalid calls (negative counts, invalid roots, null
# op and datatype) return the error class Open MPI's own function returns
# for the same call, and the program goes on with correct calls.  Without
# rules, and with rules that choose paptree's algorithms for every size, at
# np 3 (the roots and counts that are invalid are the same everywhere).
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
apps_setup

for rules in '' 'allreduce:*=rd; reduce:*=binomial; bcast:*=binomial' \
             'allreduce:*=prr(arrival=history); reduce:*=clv; bcast:*=chain'; do
  papp 90 3 "$tmp/out" ${rules:+--algo "$rules"} -- build/mpiapps/errhandler ||
    { cat "$tmp/out" >&2; fail "errhandler, rules '$rules': failed"; }
  grep -q '^errhandler: 0 failures' "$tmp/out" || { cat "$tmp/out" >&2; fail "errhandler: no summary"; }
  echo "ok - rules '$rules'"
done
