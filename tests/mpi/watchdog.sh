#!/bin/sh
# The stall watchdog (docs/runtime.md, Stall watchdog): a thread that never
# arrives makes every rank print where its threads wait, within a bounded
# time, and the job abort with MPI_Abort code 3; a slow run that progresses,
# and idle time between allreduces, never fire it.  build/tests/exec_stall
# holds a thread back (tests/mpi/exec_stall.c); Gsum only carries the option.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
# One rank that must fail: when a rank exits non-zero, mpirun's daemon gives
# the job's ranks 1 s before SIGTERM and 1 s more before SIGKILL
# (odls_base_sigkill_timeout), even when the only rank has ended already:
# 2 s per failing run.  With one rank there is nobody to wait for.  (Jobs of
# several ranks keep the grace: a rank may still be printing its message.)
MPIRUN1="$MPIRUN --mca odls_base_sigkill_timeout 0 -np 1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
STALL=build/tests/exec_stall
W='watchdog:  '                 # the prefix's end and the indent of a state line

# expect_re FILE N REGEX: REGEX (grep -E) matches at least N lines of FILE.
expect_re() {
  n=$(grep -cE -- "$3" "$1" || true)
  [ "$n" -ge "$2" ] || { cat "$1" >&2; fail "expected /$3/ on >= $2 lines of $1, found $n"; }
}

# stalls SECONDS OUT CMD...: must fail with MPI_Abort's code 3 in under SECONDS.
stalls() {
  secs=$1 out=$2; shift 2
  t0=$(date +%s)
  run_fails "$secs" "$out" "$@"
  [ "$rc" -eq 3 ] || { cat "$out" >&2; fail "exit status $rc, expected 3 (MPI_Abort by the watchdog)"; }
  [ $(($(date +%s) - t0)) -lt "$secs" ] || fail "took more than ${secs}s: $*"
  expect_count "$out" 1 "watchdog: aborting the job in 2 s (MPI_Abort code 3)"
}

# Thread 1 of host0 skips operation 5 (op 2 of instance 1).  Host0: thread 0
# waits in h0 for thread 1, the link's service thread waits in cr0 for h0;
# host1: the last arrival at h1 waits in the proxy, the other in h1.
stalls 30 "$tmp/out" $MPIRUN -np 2 $STALL pathmaps/demo.pathmap 1 20 stall 1 5
expect_count "$tmp/out" 1 "exec_stall: thread 1 skips operation 5"
expect_count "$tmp/out" 1 "paptree: rank 0 (host host0): watchdog: no progress for"
expect_count "$tmp/out" 1 "rank 0 (host host0): $W thread 0: waits in gred h0, instance 1, op 2: 1 of 2 contributions arrived; missing: thread 1 (outside the tree, has not started op 2 of instance 1)"
expect_count "$tmp/out" 1 "rank 0 (host host0): $W thread 1: outside the tree; operations started: 3 on instance 0, 2 on instance 1"
expect_count "$tmp/out" 1 "rank 0 (host host0): $W link p1#1: waits in gred cr0, instance 1, op 2: 1 of 2 contributions arrived; missing: gred h0 (1 of 2 contributions arrived; missing: thread 1 (outside"
expect_count "$tmp/out" 1 "rank 0 (host host0): $W link p1#0: waits for request 3 of instance 0 from host host1"
expect_re "$tmp/out" 1 "rank 1 \(host host1\): $W thread [23]: waits in proxy p1, instance 1, op 2 for the reply from host host0\$"
expect_re "$tmp/out" 1 "rank 1 \(host host1\): $W thread [23]: waits in gred h1, instance 1, op 2: all 2 contributions arrived, the result comes from proxy p1\$"
expect_re "$tmp/out" 1 "rank 1 \(host host1\): watchdog: (no progress for|rank 0 found no progress)"

# Thread 3 of host1 skips operation 4 (op 2 of instance 0): host0's cr0
# misses the proxy's contribution, which never came.
stalls 30 "$tmp/out" $MPIRUN -np 2 $STALL pathmaps/demo.pathmap 1 20 stall 3 4
expect_re "$tmp/out" 1 "rank 0 \(host host0\): $W thread [01]: waits in gred cr0, instance 0, op 2: 1 of 2 contributions arrived; missing: proxy p1 \(no request from host host1 yet\)\$"
expect_re "$tmp/out" 1 "rank 0 \(host host0\): $W thread [01]: waits in gred h0, instance 0, op 2: all 2 contributions arrived, the result comes from gred cr0\$"
expect_count "$tmp/out" 1 "rank 1 (host host1): $W thread 2: waits in gred h1, instance 0, op 2: 1 of 2 contributions arrived; missing: thread 3 (outside the tree, has not started op 2 of instance 0)"

# Through a gateway: host gw has no thread of its own and its links got no
# request, so nothing there is inside the tree; it prints because a stuck
# rank's watchdog tells it to.
stalls 30 "$tmp/out" $MPIRUN -np 3 $STALL pathmaps/local/gateway-3x2.pathmap 1 20 stall 2 3
expect_count "$tmp/out" 1 "rank 2 (host b): $W thread 3: waits in gred hb, instance 1, op 1: 1 of 2 contributions arrived; missing: thread 2 (outside the tree, has not started op 1 of instance 1)"
expect_re "$tmp/out" 1 "rank 0 \(host a\): $W thread [01]: waits in gred mc, instance 1, op 1: 1 of 2 contributions arrived; missing: proxy pgw \(no request from host gw yet\)\$"
expect_re "$tmp/out" 1 "rank 1 \(host gw\): watchdog: rank [02] found no progress; where this rank's 2 threads and links are:\$"
expect_count "$tmp/out" 1 "rank 1 (host gw): $W link pb#1: waits for request 1 of instance 1 from host b"
for r in 0 1 2; do expect_re "$tmp/out" 1 "paptree: rank $r \(host [a-z]+\): watchdog: .*where this rank's"; done

# Slow but progressing: thread 3 naps 0.3 s before each of 8 operations, so
# the others wait 0.3 s at a time inside the tree; a 1 s watchdog stays quiet.
$MPIRUN -np 2 $STALL pathmaps/demo.pathmap 1 8 nap 3 0.3 > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "a slow but progressing run was stopped"; }
! grep -q watchdog "$tmp/out" || { cat "$tmp/out" >&2; fail "the watchdog spoke on a progressing run"; }

# Idle between allreduces: every thread naps 1.5 s outside the tree.
$MPIRUN -np 2 $STALL pathmaps/demo.pathmap 1 3 nap all 1.5 > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "time outside the tree fired the watchdog"; }
! grep -q watchdog "$tmp/out" || { cat "$tmp/out" >&2; fail "the watchdog spoke about idle time"; }

# A watchdog the runtime refuses: every rank says so.
run_fails 60 "$tmp/out" $MPIRUN -np 2 $STALL pathmaps/demo.pathmap -1 3 nap all 0
expect_count "$tmp/out" 2 "watchdog of -1 s: give 0 (none) to 604800 seconds"

# Gsum: the option, its help, its checks, and runs with it short and off.
bin/gsum --help | grep -q -- "--watchdog S" || fail "gsum --help does not list --watchdog"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p pathmaps/local/gred-1x2.pathmap --watchdog -1
expect_count "$tmp/out" 1 "gsum: --watchdog: '-1' is out of range, expected 0..604800"
for w in 1 0; do
  $MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 2000 -w 10 -s 4,256 --watchdog $w \
    > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "gsum --watchdog $w failed"; }
  ! grep -q watchdog "$tmp/out" || { cat "$tmp/out" >&2; fail "gsum --watchdog $w: it spoke"; }
done
# An algorithm node: thread 3 of host1 skips operation 5 (op 2 of instance 1).
# Host0's last arrival at h0 runs the node and waits there for host1; the
# other waits in h0; host1's thread 2 waits in h1 for thread 3.
stalls 30 "$tmp/out" $MPIRUN -np 2 $STALL pathmaps/algo-demo.pathmap 1 20 stall 3 5
expect_re "$tmp/out" 1 "rank 0 \(host host0\): $W thread [01]: runs algorithm node across \(rd\), instance 1, op 2, with hosts host0,host1\$"
expect_re "$tmp/out" 1 "rank 0 \(host host0\): $W thread [01]: waits in gred h0, instance 1, op 2: all 2 contributions arrived, the result comes from algo across\$"
expect_count "$tmp/out" 1 "rank 0 (host host0): $W algorithm node across: runs algorithm node across (rd), instance 1, op 2, with hosts host0,host1"
expect_count "$tmp/out" 1 "rank 1 (host host1): $W thread 2: waits in gred h1, instance 1, op 2: 1 of 2 contributions arrived; missing: thread 3 (outside the tree, has not started op 2 of instance 1)"
expect_count "$tmp/out" 1 "rank 1 (host host1): $W algorithm node across: outside the tree"

echo "watchdog: ok"
