#!/bin/sh
# cut-short.sh - programs that do not end normally leave no archive that
# looks whole (docs/paprun.md, "The trace"), and nothing hangs:
#  1. build/mpiapps/abort: rank 1 calls MPI_Abort while the others wait in
#     an allreduce (native, and under a rule: paptree's ring): mpirun exits
#     non-zero within 30 s; no DIR, no archive anchor under DIR.partial
#     (leftovers there are noted: no_archive says why);
#  2. build/mpiapps/nofinalize returns from main without MPI_Finalize: the
#     same;
#  3. build/mpiapps/sigterm loops on collectives; SIGTERM, then SIGINT, to
#     mpirun: it ends within 30 s, no archive (as in 1);
#  4. the same program with its own SIGTERM handler (installed before
#     MPI_Init, writes DIR/marker.RANK); SIGTERM to every rank: each
#     rank's marker appears (the program's handler still runs), no archive.
set -eu
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/interpose/apps-lib.sh
apps_setup
for f in abort nofinalize sigterm; do
  [ -x build/mpiapps/$f ] || fail "build/mpiapps/$f is missing (make)"
done

# no_archive DIR WHAT: nothing at DIR, and nothing that looks like an archive
# (a traces.otf2 anchor) under DIR.partial.  Leftovers in DIR.partial are
# noted, not failed: the library's contract (ins_mpi.h, ins_mpi_abandon) is
# that every rank removes its files and rank 0 the directory, but SIGINT or
# SIGTERM to mpirun leaves, now and then (about 1 run in 8 here), an empty
# DIR.partial or one holding traces/0.evt: a race between the ranks'
# cleanup and mpirun's kill, which the issue's rule ("never a partial
# archive that looks whole") still allows; reported to the library's owner.
no_archive() {
  [ ! -e "$1/traces.otf2" ] || fail "$2: a complete-looking archive $1/traces.otf2 was left"
  [ ! -e "$1" ] || { ls -lR "$1" >&2; fail "$2: $1 was left"; }
  if [ -e "$1.partial" ]; then
    [ -z "$(find "$1.partial" -name '*.otf2')" ] ||
      { ls -lR "$1.partial" >&2; fail "$2: $1.partial holds an archive anchor"; }
    echo "note: $2: $1.partial was left, holding: $(cd "$1.partial" && find . ! -type d | tr '\n' ' ')"
  fi
}

# quick SECS_START WHAT: fails if more than 30 s passed since SECS_START.
quick() {
  el=$(( $(date +%s) - $1 ))
  [ "$el" -le 30 ] || fail "$2 took $el s (at most 30 s expected)"
}

# 1, 2
for run in "abort:" "abort:allreduce:*=ring; bcast:*=binomial" "nofinalize:" \
           "nofinalize:allreduce:*=rd"; do
  prog=${run%%:*} rules=${run#*:}
  t0=$(date +%s)
  set +e
  papp 60 3 "$tmp/out" --trace "$tmp/$prog" ${rules:+--algo "$rules"} -- "build/mpiapps/$prog"
  st=$?
  set -e
  [ $st -ne 124 ] || { cat "$tmp/out" >&2; fail "$prog (rules '$rules') hung"; }
  if [ "$prog" = abort ]; then
    [ $st -ne 0 ] || { cat "$tmp/out" >&2; fail "abort: mpirun exited 0"; }
    grep -q 'abort: rank 1 calls MPI_Abort' "$tmp/out" || { cat "$tmp/out" >&2; fail "abort: rank 1 never aborted"; }
  else
    grep -q 'nofinalize: rank 0 returns without MPI_Finalize' "$tmp/out" ||
      { cat "$tmp/out" >&2; fail "nofinalize: the program did not run to its end"; }
  fi
  if grep -q 'FAIL' "$tmp/out"; then cat "$tmp/out" >&2; fail "$prog: a wrong result"; fi
  quick "$t0" "$prog (rules '$rules')"
  no_archive "$tmp/$prog" "$prog (rules '$rules')"
  echo "ok - $prog, rules '$rules': status $st, no archive"
done

# start_loop NAME [handler]: sigterm under paprun on 3 ranks in the
# background (mpirun's pid in $mpid), once every rank has written its pid.
start_loop() {
  mkdir "$tmp/$1.d"
  if [ "${PAPTREE_SANITIZER:-}" = address ]; then
    # apps-lib.sh's papp_asan says why; mpirun must be $! here.
    # shellcheck disable=SC2046 # mpirun_cmd's words
    PAPTREE_TRACE="$tmp/$1" $(mpirun_cmd) -np 3 -x PAPTREE_TRACE \
      -x LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so) $PWD/lib/libpaptree-mpi.so" \
      build/mpiapps/sigterm "$tmp/$1.d" 60 ${2:-} < /dev/null > "$tmp/$1.out" 2>&1 &
  else
    # shellcheck disable=SC2046 # mpirun_cmd's words
    $(mpirun_cmd) -np 3 bin/paprun --trace "$tmp/$1" -- build/mpiapps/sigterm "$tmp/$1.d" 60 ${2:-} \
      < /dev/null > "$tmp/$1.out" 2>&1 &
  fi
  mpid=$!
  i=0
  while [ ! -s "$tmp/$1.d/pid.0" ] || [ ! -s "$tmp/$1.d/pid.1" ] || [ ! -s "$tmp/$1.d/pid.2" ]; do
    i=$((i + 1))
    [ $i -le 300 ] || { kill -KILL $mpid; cat "$tmp/$1.out" >&2; fail "$1: the ranks never looped"; }
    kill -0 $mpid 2>/dev/null || { cat "$tmp/$1.out" >&2; fail "$1: mpirun ended before looping"; }
    sleep 0.1
  done
  sleep 0.3
  # The trace is being written: its absence afterwards means something.
  [ -d "$tmp/$1.partial" ] || { kill -KILL $mpid; ls -la "$tmp" >&2; fail "$1: no $tmp/$1.partial while the ranks loop"; }
}

# wait_end NAME: mpirun ($mpid) ends within 30 s.
wait_end() {
  i=0
  while kill -0 $mpid 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 300 ]; then
      kill -KILL $mpid; cat "$tmp/$1.out" >&2; fail "$1: mpirun still runs 30 s after the signal"
    fi
    sleep 0.1
  done
  wait $mpid || true
  if grep -q 'looped 60 s without a signal\|FAIL' "$tmp/$1.out"; then
    cat "$tmp/$1.out" >&2; fail "$1: the signal did not stop the program"
  fi
}

# 3
for sig in TERM INT; do
  start_loop "mpirun-$sig"
  kill -$sig $mpid
  wait_end "mpirun-$sig"
  no_archive "$tmp/mpirun-$sig" "SIG$sig to mpirun"
  echo "ok - SIG$sig to mpirun: ended, no archive"
done

# 4
start_loop own handler
# One kill for the three: a rank whose handler has exited makes mpirun end
# the others, which must not happen before each has its signal.
kill -TERM "$(cat "$tmp/own.d/pid.0")" "$(cat "$tmp/own.d/pid.1")" "$(cat "$tmp/own.d/pid.2")" 2>/dev/null || true
wait_end own
for r in 0 1 2; do
  [ -s "$tmp/own.d/marker.$r" ] || { cat "$tmp/own.out" >&2; fail "SIGTERM to rank $r: the program's own handler did not run (no marker)"; }
done
no_archive "$tmp/own" "SIGTERM to the ranks, the program's handler"
echo "ok - SIGTERM to the ranks: the program's own handler ran on each, no archive"
