#!/bin/sh
# An interrupted traced run leaves nothing behind: SIGINT to mpirun (which
# sends SIGTERM to the ranks) while the ranks record into memory, and
# SIGTERM to rank 1 alone after flushes have written event files into
# DIR.partial.  Each signalled rank says "interrupted: trace 'DIR' not
# written; its partial files were removed", the job exits non-zero, neither
# DIR nor DIR.partial exists afterwards and no rank process is left.
# Uninterrupted, the runs would take minutes; a watchdog ends them after 60 s
# (a failure), and as root the archive goes to a 128 MiB tmpfs, so that a
# run the signal failed to stop cannot fill the disk.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d)
base=$tmp mounted="" pid="" wd=""
cleanup() {
  # Only what this script started: the watchdog, mpirun and its children.
  [ -z "$wd" ] || kill "$wd" 2>/dev/null || true
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kids=$(pgrep -P "$pid" || true)
    kill -KILL "$pid" $kids 2>/dev/null || true
  fi
  [ -z "$mounted" ] || umount "$mounted" 2>/dev/null || umount -l "$mounted" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
if [ "$(id -u)" = 0 ]; then
  base=$tmp/fs; mkdir "$base"
  mount -t tmpfs -o size=128m tmpfs "$base" || fail "cannot mount a tmpfs on $base"
  mounted=$base
fi

# start NAME GSUM-ARGS...: a long traced Gsum on the demo tree, in the
# background: $pid is mpirun's, $d the archive directory; a watchdog kills
# the job (and writes $tmp/NAME.watchdog) if it still runs after 60 s.
start() {
  name=$1; shift
  d=$base/$name
  $MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 20000000 -w 10 --trace "$d" "$@" \
    > "$tmp/$name.out" 2>&1 < /dev/null &
  pid=$!
  (
    sleep 60 & s=$!
    trap 'kill "$s"; exit 0' TERM
    wait "$s"
    touch "$tmp/$name.watchdog"
    kids=$(pgrep -P "$pid" || true)
    kill -KILL "$pid" $kids
  ) > /dev/null 2>&1 &
  wd=$!
}

# wait_for CONDITION: evaluates the shell CONDITION every 0.05 s until it
# holds, for at most 30 s and only while the job runs.
wait_for() {
  i=0
  until eval "$1"; do
    i=$((i + 1))
    [ "$i" -le 600 ] || { cat "$tmp/$name.out" >&2; fail "$name: timed out waiting for: $1"; }
    kill -0 "$pid" 2>/dev/null || { cat "$tmp/$name.out" >&2; fail "$name: gsum ended before the signal"; }
    sleep 0.05
  done
}

# rank_pid R: the PID of rank R among mpirun's children (by its environment).
rank_pid() {
  for p in $(pgrep -P "$pid"); do
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$p"; return 0
    fi
  done
  return 1
}

# finish NAME RANKS: waits for mpirun; it must exit non-zero, before the
# watchdog, with "interrupted" from each rank in RANKS, and leave no DIR,
# no DIR.partial and none of the ranks it had.
finish() {
  name=$1 ranks=$2
  set +e; wait "$pid"; rc=$?; set -e
  kill "$wd" 2>/dev/null || true; wait "$wd" 2>/dev/null || true; wd=""
  out=$tmp/$name.out
  [ ! -e "$tmp/$name.watchdog" ] || { cat "$out" >&2; fail "$name: the signal did not end the run within 60 s"; }
  [ "$rc" -ne 0 ] || { cat "$out" >&2; fail "$name: exit status 0 after the signal"; }
  for r in $ranks; do
    expect_count "$out" 1 "paptree: rank $r: interrupted: trace '$d' not written; its partial files were removed"
  done
  [ ! -e "$d" ] || { ls -laR "$d" >&2; fail "$name: $d exists"; }
  [ ! -e "$d.partial" ] || { ls -laR "$d.partial" >&2; fail "$name: $d.partial left behind"; }
  ! grep -q '^# trace: ' "$out" || { cat "$out" >&2; fail "$name: a trace summary after the signal"; }
  # No rank of this job is left (mpirun has been waited for; its ranks were
  # $rank_pids): give them 5 s to go.
  i=0
  while left=$(pgrep -f -- "--trace $d" || true); [ -n "$left" ]; do
    i=$((i + 1))
    [ "$i" -le 50 ] || { ps -o pid,ppid,stat,args -p "$left" >&2; fail "$name: processes left: $left"; }
    sleep 0.1
  done
  for p in $rank_pids; do
    [ ! -d "/proc/$p" ] || [ "$(cat "/proc/$p/stat" 2>/dev/null | cut -d' ' -f3)" = Z ] ||
      fail "$name: rank process $p still exists"
  done
  pid=""
}

# ---- SIGINT to mpirun while every event is still in memory ----------------
# The warm-up line is printed just before the threads start; 0.5 s later the
# job is in its measured loop (about 100000 operations a second here), far
# from filling the 64 MiB of event buffers.
start sigint
wait_for '[ -d "$d.partial/traces" ] && grep -q "^# warm-up" "$tmp/sigint.out"'
sleep 0.5
r0=$(rank_pid 0) && r1=$(rank_pid 1) || fail "sigint: rank PIDs not found among the children of mpirun $pid"
rank_pids="$r0 $r1"
kill -INT "$pid"
finish sigint "0 1"

# ---- SIGTERM to rank 1 alone, after flushes wrote event files ---------------
# With --trace-mem 5M each buffer holds some thousands of events, so threads
# flush within the first second; signal once an event file exists.  Rank 1
# removes its files and dies of the signal; mpirun then ends rank 0 with
# SIGTERM, which removes the rest.
start sigterm --trace-mem 5M
wait_for 'ls "$d.partial/traces" 2>/dev/null | grep -q "\.evt$"'
r1=$(rank_pid 1) || fail "sigterm: rank 1 not found among the children of mpirun $pid"
rank_pids="$(rank_pid 0 || true) $r1"
kill -TERM "$r1"
finish sigterm "0 1"
echo "trace-interrupt: ok"
