#!/bin/sh
# soak.sh - long runs at the paper's sizes (`make soak`; not part of `make test`):
#
#  1. scale: pathmaps/paper/binary8w.pathmap, the paper's 8W cluster (4 hosts
#     x 8 threads = 32 threads, 3 proxies), 25,000 allreduces per thread of
#     4 and 256 bytes (the paper's N and sizes).  Gsum checks every result in
#     closed form and exits non-zero on a wrong one; the script checks both
#     rows and their iteration counts.
#  2. flat: 1,000,000 allreduces per thread on pathmaps/demo.pathmap (2
#     ranks), untraced; while it runs the script samples each rank's VmRSS
#     (/proc/PID/status) every SOAK_SAMPLE_S seconds and fails if any sample
#     of a rank from 10 % of its run to its end exceeds its RSS at 10 % by
#     more than SOAK_RSS_BOUND_KB (the runtime allocates everything when the
#     executor is created: nothing may grow per operation).
#  3. traced: the same run traced with --trace-mem SOAK_TRACE_MEM, small
#     enough that every location flushes its buffer many times during the
#     loops; the same RSS bound (the buffers are allocated and touched at
#     open, OTF2's chunks are reused); then papanalyze reads the whole
#     trace, and its database must hold every operation.
#
# "10 %, 50 %, 100 %" are of each rank's lifetime as the sampler saw it,
# from its first sample to its last (the last is within SOAK_SAMPLE_S of
# the exit, after the trace is written).  Every part runs under `timeout`.
# At the end a table of times and RSS figures (docs/benchmarks.md, "Soak",
# records one run).  Variables (for a quick try: SOAK_N=2000 SOAK_DEMO_N=20000):
#   SOAK_N (25000) SOAK_DEMO_N (1000000) SOAK_RSS_BOUND_KB (2048)
#   SOAK_TRACE_MEM (8M) SOAK_SAMPLE_S (0.5) SOAK_TMP (a new dir under /tmp)
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
N=${SOAK_N:-25000}
DEMO_N=${SOAK_DEMO_N:-1000000}
BOUND_KB=${SOAK_RSS_BOUND_KB:-2048}
TRACE_MEM=${SOAK_TRACE_MEM:-8M}
SAMPLE_S=${SOAK_SAMPLE_S:-0.5}
WARM=100
tmp=${SOAK_TMP:-$(mktemp -d /tmp/paptree-soak.XXXXXX)}
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
for p in bin/gsum bin/papanalyze; do [ -x $p ] || fail "$p is missing (make all)"; done
: > "$tmp/summary"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# row PART WALL_S US_PER_OP RSS10 RSS50 RSS100 MAX GROWTH VERDICT: a summary line.
row() { printf '%-9s %8s %14s %9s %9s %9s %9s %7s  %s\n' "$@" >> "$tmp/summary"; }

# gsum_us OUT SIZE: Gsum's mean time per allreduce for SIZE bytes.
gsum_us() { awk -v s="$2" '$1 == s && NF == 5 { print $2 }' "$1"; }

# ranks_of PID: "pid rank" of every gsum process below PID.
ranks_of() {
  ps -e -o pid=,ppid=,comm= | awk -v top="$1" '
    { parent[$1] = $2; comm[$1] = $3 }
    END { for (p in comm) if (comm[p] == "gsum") {
            for (q = parent[p]; q != "" && q > 1; q = parent[q]) if (q == top) { print p; break } } }' |
  while read -r p; do
    r=$(tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    [ -n "$r" ] && echo "$p $r"
  done
}

# sampled NAME SECONDS GSUM-ARGS...: runs the 2-rank Gsum in the background
# under timeout, and samples "ms rank rss_kb" into $tmp/NAME.rss until it
# exits; $tmp/NAME.out holds its output; fails if it fails.  The ranks are
# looked up until both are found, then only their status files are read
# (one awk per sample: the sampler shares the CPUs with the run).
sampled() {
  name=$1 secs=$2; shift 2
  t0=$(now_ms)
  timeout "$secs" $MPIRUN -np 2 bin/gsum "$@" > "$tmp/$name.out" 2>&1 &
  pid=$!
  : > "$tmp/$name.rss" ; : > "$tmp/ranks"
  while kill -0 "$pid" 2> /dev/null; do
    if [ "$(wc -l < "$tmp/ranks")" -lt 2 ]; then
      ranks_of "$pid" > "$tmp/ranks" || true
    else
      # shellcheck disable=SC2046 # the status files of both ranks
      awk -v ms="$(now_ms)" -v ranks="$(tr '\n' ' ' < "$tmp/ranks")" '
        BEGIN { n = split(ranks, a, " "); for (i = 1; i < n; i += 2) rank["/proc/" a[i] "/status"] = a[i + 1] }
        /^VmRSS:/ { print ms, rank[FILENAME], $2 }' \
        $(awk '{ printf "/proc/%s/status ", $1 }' "$tmp/ranks") >> "$tmp/$name.rss" 2> /dev/null || true
    fi
    sleep "$SAMPLE_S"
  done
  set +e; wait "$pid"; rc=$?; set -e
  wall=$(( $(now_ms) - t0 ))
  [ "$rc" -ne 124 ] || { tail -20 "$tmp/$name.out" >&2; fail "$name: killed after ${secs}s"; }
  [ "$rc" -eq 0 ] || { tail -20 "$tmp/$name.out" >&2; fail "$name: gsum exited with $rc"; }
  echo "$wall" > "$tmp/$name.wall"
}

# rss_check NAME: per rank, RSS at 10 %, 50 % and 100 % of its sampled
# lifetime, and the largest sample from 10 % on (so that memory grown in
# the loop and freed when the trace closes still counts); a summary row
# per rank; fails if that largest sample exceeds the one at 10 % by more
# than BOUND_KB.
rss_check() {
  name=$1 rc=0
  awk -v name="$name" -v bound="$BOUND_KB" '
    { t[$2, ++n[$2]] = $1; kb[$2, n[$2]] = $3; if (!($2 in seen)) { seen[$2] = 1; nr++ } }
    function at(r, f,   i, T) {
      T = t[r, 1] + f * (t[r, n[r]] - t[r, 1])
      for (i = 1; i < n[r] && t[r, i] < T; i++) ;
      return i
    }
    END {
      if (nr != 2) { print name ": RSS of " nr + 0 " ranks sampled, expected 2" > "/dev/stderr"; exit 1 }
      for (r in seen) {
        if (n[r] < 10) { print name ": rank " r ": only " n[r] " samples" > "/dev/stderr"; bad = 1 }
        i10 = at(r, 0.1); max = kb[r, i10]
        for (i = i10; i <= n[r]; i++) if (kb[r, i] > max) max = kb[r, i]
        g = max - kb[r, i10]
        printf "%s %d %d %d %d %d %d %s\n", r, n[r], kb[r, i10], kb[r, at(r, 0.5)], kb[r, n[r]], max, g,
               (g > bound ? "FAIL" : "ok")
        if (g > bound) bad = 1
      }
      exit bad
    }' "$tmp/$name.rss" > "$tmp/$name.rssrow" || rc=1
  sort -n "$tmp/$name.rssrow" | while read -r r ns a b c m g v; do
    row "$name/r$r" "" "" "${a}k" "${b}k" "${c}k" "${m}k" "${g}k" "$v ($ns samples)"
  done
  [ "$rc" -eq 0 ] || { cat "$tmp/$name.rssrow" >&2; fail "$name: RSS grew by more than ${BOUND_KB} kB after 10 % of the run (rank samples ms/rank/kB in $tmp/$name.rss)"; }
}

echo "soak: scale: binary8w, 4 ranks x 8 threads, -n $N -s 4,256 (oversubscribed on $(nproc) CPUs)"
t0=$(now_ms)
timeout 900 $MPIRUN -np 4 bin/gsum -p pathmaps/paper/binary8w.pathmap -n "$N" -w $WARM -s 4,256 \
  > "$tmp/scale.out" 2>&1 || { tail -20 "$tmp/scale.out" >&2; fail "scale: gsum failed (a wrong result aborts it)"; }
wall=$(( $(now_ms) - t0 ))
for s in 4 256; do
  awk -v s=$s -v n="$N" '$1 == s && NF == 5 && $5 == n { ok = 1 } END { exit !ok }' "$tmp/scale.out" ||
    { cat "$tmp/scale.out" >&2; fail "scale: no row for $s bytes x $N iterations"; }
done
row scale "$(echo "$wall" | awk '{ printf "%.1f", $1 / 1000 }')" \
  "$(gsum_us "$tmp/scale.out" 4)/$(gsum_us "$tmp/scale.out" 256)" "" "" "" "" "ok: 32 threads, every result checked"

echo "soak: flat: demo, 2 ranks, -n $DEMO_N, untraced, RSS sampled every ${SAMPLE_S}s"
sampled flat 900 -p pathmaps/demo.pathmap -n "$DEMO_N" -w $WARM
awk -v n="$DEMO_N" '$1 == 4 && NF == 5 && $5 == n { ok = 1 } END { exit !ok }' "$tmp/flat.out" ||
  { cat "$tmp/flat.out" >&2; fail "flat: no row of $DEMO_N iterations"; }
row flat "$(awk '{ printf "%.1f", $1 / 1000 }' "$tmp/flat.wall")" "$(gsum_us "$tmp/flat.out" 4)" "" "" "" "" "" "ok"
rss_check flat

echo "soak: traced: the same, --trace $tmp/trace --trace-mem $TRACE_MEM"
sampled traced 900 -p pathmaps/demo.pathmap -n "$DEMO_N" -w $WARM --trace "$tmp/trace" \
  --trace-mem "$TRACE_MEM"
set -- $(sed -n 's/^# trace: \([0-9]*\) buffer flushes, \([0-9]*\) of them during the measured loops.*/\1 \2/p' \
  "$tmp/traced.out")
[ $# -eq 2 ] && [ "$2" -gt 0 ] || { cat "$tmp/traced.out" >&2; fail "traced: no flushes during the loops"; }
flushes=$1
events=$(sed -n 's/^# trace: .*: \([0-9]*\) events from.*/\1/p' "$tmp/traced.out")
row traced "$(awk '{ printf "%.1f", $1 / 1000 }' "$tmp/traced.wall")" "$(gsum_us "$tmp/traced.out" 4)" \
  "" "" "" "" "" "ok: $events events, $flushes flushes"
rss_check traced

echo "soak: papanalyze of the traced run"
t0=$(now_ms)
timeout 900 bin/papanalyze --no-report "$tmp/trace/traces.otf2" > "$tmp/pa.out" 2>&1 ||
  { cat "$tmp/pa.out" >&2; fail "papanalyze of the traced run failed"; }
wall=$(( $(now_ms) - t0 ))
ops=$(sqlite3 "$tmp/trace/traces.db" "SELECT COUNT(*) FROM ops")
[ "$ops" -eq $((DEMO_N + WARM)) ] || fail "papanalyze: $ops operations, expected $((DEMO_N + WARM))"
[ "$(sqlite3 "$tmp/trace/traces.db" "SELECT value FROM meta WHERE key = 'events'")" = "$events" ] ||
  fail "papanalyze: the database's event count differs from Gsum's ($events)"
row analyze "$(echo "$wall" | awk '{ printf "%.1f", $1 / 1000 }')" "" "" "" "" "" "" "ok: $ops operations"

echo
printf '%-9s %8s %14s %9s %9s %9s %9s %7s  %s\n' part wall_s us/allreduce rss@10% rss@50% rss@100% 'max>=10%' growth result
cat "$tmp/summary"
echo "soak: ok (RSS bound ${BOUND_KB} kB from 10 % to 100 %; $(nproc) CPUs, oversubscribed)"
