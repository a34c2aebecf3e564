#!/bin/sh
# lib/libpaptree-mpi.so preloaded into a plain MPI program
# (tests/interpose/ip_smoke.c, built with mpicc's flags alone), which
# compares every MPI_Allreduce, MPI_Reduce, MPI_Bcast and MPI_Iallreduce
# result with Open MPI's own (PMPI_) on the same input:
#   - no settings (pass-through), np 2;
#   - rules rd / binomial / binomial at np 2 and 4, with the report: the
#     allreduces ran rd with no fallback but the user op's (user-op), the
#     reduces and bcasts binomial;
#   - rabenseifner at np 4: its count-1 calls fall back (count), the
#     larger ones run it, every result still Open MPI's;
#   - prr and clv+binomial with arrival=history at np 4;
#   - a bad PAPTREE_ALGO: one line `paptree: PAPTREE_ALGO:1:COL: error:`,
#     exit 2, before main (the program prints nothing);
#   - ranks given different rules: the job stops with one message;
#   - two threads at once on two communicators (MPI_THREAD_MULTIPLE), traced:
#     a complete archive;
#   - MPI_Abort, exit without MPI_Finalize, SIGTERM, traced: no archive and
#     no partial one left (ins_mpi.h: a complete archive or nothing).
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
PROG=build/tests/ip_smoke
LIB=$PWD/lib/libpaptree-mpi.so
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$PROG" ] && [ -f "$LIB" ] || fail "$PROG or $LIB is missing (make all)"
# Under ASan the library needs the sanitizer's runtime loaded first.
PRELOAD=$LIB
if [ "${PAPTREE_SANITIZER:-}" = address ]; then
  PRELOAD="$(${CC:-cc} -print-file-name=libasan.so) $LIB"
fi

run() {  # run NP LOG [mpirun args...]
  np=$1 log=$2; shift 2
  timeout 120 $MPIRUN -np "$np" -x LD_PRELOAD="$PRELOAD" "$@" $PROG 2 > "$log" 2>&1 ||
    { cat "$log" >&2; fail "ip_smoke at np $np failed: $*"; }
  expect_count "$log" 1 "ip_smoke: ok (2 iterations)"
}

run 2 "$tmp/plain.log"

RULES='allreduce:*=rd; reduce:*=binomial; bcast:*=binomial'
for np in 2 4; do
  log=$tmp/rd$np.log
  run "$np" "$log" -x PAPTREE_ALGO="$RULES" -x PAPTREE_REPORT=1
  # The report's rows (ip_report_int.h): collective, calls, bytes, algorithm, ...,
  # fallbacks last ("-" for none), or on a line of their own.
  grep -Eq 'MPI_Allreduce +[0-9]+ +[0-9]+ +rd +.* -$' "$log" ||
    { cat "$log" >&2; fail "np $np: no allreduce row that ran rd without a fallback"; }
  expect_count "$log" 1 "user-op: "
  grep -Eq 'MPI_Reduce +[0-9]+ +[0-9]+ +binomial +.* -$' "$log" ||
    { cat "$log" >&2; fail "np $np: no reduce row that ran binomial"; }
  grep -Eq 'MPI_Bcast +[0-9]+ +[0-9]+ +binomial +.* -$' "$log" ||
    { cat "$log" >&2; fail "np $np: no bcast row that ran binomial"; }
  if grep -Eq 'count: |datatype: |args: |other: ' "$log"; then
    cat "$log" >&2; fail "np $np: a fallback other than the user op's"
  fi
done

log=$tmp/raben.log
run 4 "$log" -x PAPTREE_ALGO='allreduce:*=rabenseifner' -x PAPTREE_REPORT=1
expect_count "$log" 1 "count: "

# PAP-aware, arrival=history (the ranks' previous times gathered between calls): prr for
# allreduce, a reduce completed by a broadcast from the same tree.
log=$tmp/prr.log
run 4 "$log" -x PAPTREE_ALGO='allreduce:<=64=prr(arrival=history),>64=clv+binomial(arrival=history)' \
  -x PAPTREE_REPORT=1
grep -Eq 'MPI_Allreduce +[0-9]+ +[0-9]+ +prr\(arrival=history\)' "$log" ||
  { cat "$log" >&2; fail "no allreduce row that ran prr(arrival=history)"; }
if grep -Eq 'count: |datatype: |args: |other: ' "$log"; then
  cat "$log" >&2; fail "arrival=history: a fallback other than the user op's"
fi

# A bad rule stops the program before main, without mpirun.
set +e
PAPTREE_ALGO='allreduce:*=nosuch' LD_PRELOAD="$PRELOAD" $PROG > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
set -e
[ "$rc" -eq 2 ] || { cat "$tmp/bad.err" >&2; fail "bad rule: exit $rc, expected 2"; }
[ ! -s "$tmp/bad.out" ] || fail "bad rule: the program ran: $(cat "$tmp/bad.out")"
[ "$(wc -l < "$tmp/bad.err")" -eq 1 ] || { cat "$tmp/bad.err" >&2; fail "bad rule: not one line"; }
grep -q '^paptree: PAPTREE_ALGO:1:13: error: ' "$tmp/bad.err" ||
  { cat "$tmp/bad.err" >&2; fail "bad rule: not located at PAPTREE_ALGO:1:13"; }

# Different rules on different ranks: one message, the job stopped.
# (Rank 1's rules are set by a shell: the library reads them in the program.)
run_fails 60 "$tmp/mix.log" $MPIRUN -np 2 -x LD_PRELOAD="$PRELOAD" \
  -x PAPTREE_ALGO='allreduce:*=rd' sh -c \
  '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && PAPTREE_ALGO="allreduce:*=ring"; export PAPTREE_ALGO; exec "$0" 1' \
  $PROG
[ "$(grep -c 'the ranks were given different rules' "$tmp/mix.log")" -eq 1 ] ||
  { cat "$tmp/mix.log" >&2; fail "different rules: not one message"; }
if grep -q 'ip_smoke: ok' "$tmp/mix.log"; then fail "different rules: the program ran on"; fi
log=$tmp/threads.log
timeout 120 $MPIRUN -np 2 -x LD_PRELOAD="$PRELOAD" -x PAPTREE_ALGO="$RULES" \
  -x PAPTREE_TRACE="$tmp/threads" $PROG threads 2 > "$log" 2>&1 ||
  { cat "$log" >&2; fail "two threads failed"; }
expect_count "$log" 1 "ip_smoke: ok (2 threads, 2 iterations)"
[ -f "$tmp/threads/traces.otf2" ] || fail "two threads: no archive"

for how in abort exit term; do
  run_fails 60 "$tmp/$how.log" $MPIRUN -np 2 -x LD_PRELOAD="$PRELOAD" -x PAPTREE_ALGO="$RULES" \
    -x PAPTREE_TRACE="$tmp/cut-$how" $PROG end $how
  if ls -d "$tmp/cut-$how"* > /dev/null 2>&1; then
    ls -la "$tmp"/cut-$how* >&2; fail "$how: a trace was left behind"
  fi
done
echo "ip-smoke: ok"
