#!/bin/sh
# gsum --trace writes an OTF2 archive that otf2-print reads without a
# complaint and that holds exactly the visits the tree makes: per region
# (instance x wrapper) ENTER = LEAVE = operations on the instance x fan-in,
# with the tables below worked out by hand from the pathmaps; per location
# non-decreasing timestamps and proper nesting; every region defined; each
# location's "# Events" and the total equal to what was counted and to
# Gsum's summary.  Where the tree makes it exact, the count of every
# location too.  Then build/tests/trace_check on each archive.  Also: no
# directory without --trace, exact counts when small --trace-mem forces
# flushes during the loops, and the monotonic_raw clock.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
CHECK=build/tests/trace_check
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$CHECK" ] || fail "$CHECK is missing (make all)"

# traced NAME NP GSUM-ARGS...: a traced Gsum run into $tmp/NAME; its output in
# $tmp/NAME.out, the events and definitions as otf2-print prints them in
# $tmp/NAME.ev and $tmp/NAME.defs (otf2-print must exit 0, silent on stderr).
traced() {
  name=$1 np=$2; shift 2
  timeout 120 $MPIRUN -np "$np" bin/gsum "$@" --trace "$tmp/$name" \
    > "$tmp/$name.out" 2> "$tmp/$name.err" ||
    { cat "$tmp/$name.out" "$tmp/$name.err" >&2; fail "$name: traced gsum failed"; }
  [ -f "$tmp/$name/traces.otf2" ] || fail "$name: no $tmp/$name/traces.otf2"
  [ ! -e "$tmp/$name.partial" ] || fail "$name: $tmp/$name.partial left behind"
  for opt in "" -G; do
    otf2-print $opt "$tmp/$name/traces.otf2" > "$tmp/$name.print" 2> "$tmp/$name.perr" ||
      { cat "$tmp/$name.perr" >&2; fail "$name: otf2-print $opt exited non-zero"; }
    [ ! -s "$tmp/$name.perr" ] ||
      { cat "$tmp/$name.perr" >&2; fail "$name: otf2-print $opt wrote to stderr"; }
    if [ -z "$opt" ]; then mv "$tmp/$name.print" "$tmp/$name.ev"; else mv "$tmp/$name.print" "$tmp/$name.defs"; fi
  done
}

# check NAME OPS TABLE: OPS = operations on each tree instance; TABLE = one
# "region-id name fan-in" per line, every region of the archive.  Writes
# "location events" lines, sorted, to $tmp/NAME.locs.
check() {
  name=$1 ops=$2 table=$3
  ev=$tmp/$name.ev defs=$tmp/$name.defs
  echo "$table" | awk 'NF' > "$tmp/$name.table"
  # Events: only ENTER and LEAVE, each followed by its attributes; counts per
  # region; per location non-decreasing timestamps and ENTER/LEAVE nesting.
  awk -v ops="$ops" -v tab="$tmp/$name.table" -v locs="$tmp/$name.locs" '
    BEGIN { while ((getline l < tab) > 0) { split(l, f, " "); fanin[f[1]] = f[3] } }
    function bad(m) { print "'"$name"': " m > "/dev/stderr"; err = 1 }
    NR <= 5 { next }                       # the header of otf2-print
    $1 == "ENTER" || $1 == "LEAVE" {
      loc = $2; t = $3 + 0; r = $NF; gsub(/[<>]/, "", r)
      if (!(r in fanin)) bad("event in region " r ", not in the table: " $0)
      if ((loc in last) && t < last[loc]) bad("location " loc ": time goes back at " $0)
      last[loc] = t; n[loc]++; total++
      if ($1 == "ENTER") { enter[r]++; stack[loc, ++depth[loc]] = r }
      else {
        leave[r]++
        if (depth[loc] < 1 || stack[loc, depth[loc]] != r) bad("location " loc ": unmatched " $0)
        else depth[loc]--
      }
      want_attr = 1; next
    }
    $1 == "ADDITIONAL" && want_attr {
      op = $0; sub(/.*"paptree::op" <0>; UINT64; /, "", op); op += 0
      if (op >= ops) bad("op " op " >= " ops " in region " r)
      want_attr = 0; next
    }
    { bad("unexpected line " NR ": " $0) }
    END {
      for (r in fanin) {
        if (enter[r] != ops * fanin[r]) bad("region " r ": " enter[r] + 0 " ENTER, expected " ops * fanin[r])
        if (leave[r] != ops * fanin[r]) bad("region " r ": " leave[r] + 0 " LEAVE, expected " ops * fanin[r])
      }
      for (loc in depth) if (depth[loc] != 0) bad("location " loc ": " depth[loc] " visits not left")
      for (loc in n) print loc, n[loc] | "sort -n > " locs
      close("sort -n > " locs)
      if (total == 0) bad("no events")
      exit err
    }' "$ev" || fail "$name: events (see above)"

  # Definitions: the regions exactly as in the table (id, name, fan-in),
  # one LOCATION per location with events, its "# Events" = events counted.
  awk '$1 == "REGION" {
         name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
         fi = $0; sub(/.* fanin=/, "", fi); sub(/[^0-9].*/, "", fi)
         print $2, name, fi }' "$defs" | sort -n > "$tmp/$name.regions"
  sort -n "$tmp/$name.table" | diff "$tmp/$name.regions" - ||
    fail "$name: REGION definitions (<) differ from the table (>)"
  awk '$1 == "LOCATION" { e = $0; sub(/.*# Events: /, "", e); sub(/,.*/, "", e); print $2, e }' \
    "$defs" | sort -n > "$tmp/$name.deflocs"
  diff "$tmp/$name.deflocs" "$tmp/$name.locs" ||
    fail "$name: LOCATION '# Events' (<) differ from the events counted (>)"

  # Gsum's summary: the archive, the events and the locations.
  line=$(grep "^# trace: $tmp/$name/traces.otf2: " "$tmp/$name.out") ||
    { cat "$tmp/$name.out" >&2; fail "$name: no summary line"; }
  e=$(echo "$line" | sed -n 's/.*: \([0-9]*\) events from \([0-9]*\) threads;.*/\1/p')
  l=$(echo "$line" | sed -n 's/.*: \([0-9]*\) events from \([0-9]*\) threads;.*/\2/p')
  counted=$(awk '{ s += $2 } END { print s }' "$tmp/$name.locs")
  [ "$e" = "$counted" ] || fail "$name: summary says $e events, the archive has $counted"
  [ "$l" = "$(wc -l < "$tmp/$name.locs")" ] || fail "$name: summary says $l threads"
}

# loc_is NAME LOCATION N: that location recorded exactly N events.
loc_is() {
  got=$(awk -v l="$2" '$1 == l { print $2 }' "$tmp/$1.locs")
  [ "$got" = "$3" ] || fail "$1: location $2 has ${got:-no} events, expected $3"
}

# visits NAME TABLE: TABLE = one "location region-id N" per line: that
# location entered that region exactly N times.
visits() {
  echo "$2" | awk 'NF' > "$tmp/$1.visits"
  awk -v tab="$tmp/$1.visits" '
    BEGIN { while ((getline l < tab) > 0) { split(l, f, " "); want[f[1] " " f[2]] = f[3] } }
    $1 == "ENTER" { r = $NF; gsub(/[<>]/, "", r); n[$2 " " r]++ }
    END { for (k in want) if (n[k] != want[k]) { print "location region " k ": " n[k] + 0 " visits, expected " want[k]; bad = 1 }
          exit bad }' "$tmp/$1.ev" || fail "$1: visits per location"
}

# trace_check NAME PATHMAP OPS_PER_THREAD: the independent reader agrees.
trace_check() {
  "$CHECK" --ops "$3" "$tmp/$1" "$2" > "$tmp/$1.tc" 2>&1 || { cat "$tmp/$1.tc" >&2; fail "$1: trace_check"; }
  expect_count "$tmp/$1.tc" 1 "trace_check: ok:"
}

# ---- demo: 2 hosts, the proxy p1 joins host1 to cr0 on host0 ---------------
# Nodes in declaration order: root 0, cr0 1, h0 2, p1 3, h1 4 (nnodes 5;
# instance 1 adds 5).  Fan-in: root 1 (cr0), cr0 2 (h0, p1), h0 2 (threads
# 0-1), p1 1 (h1), h1 2 (threads 2-3).  -n 300 -w 10: 310 operations per
# thread alternating the 2 instances, 155 on each.
DEMO_TABLE='0 root 1
1 cr0 2
2 h0 2
3 p1 1
4 h1 2
5 root 1
6 cr0 2
7 h0 2
8 p1 1
9 h1 2'
traced demo 2 -p pathmaps/demo.pathmap -n 300 -w 10
check demo 155 "$DEMO_TABLE"
# 4 compute threads and 2 service threads (p1#0, p1#1 on host0).  Total
# 2 x 155 x (1+2+2+1+2) x 2 instances = 4960.  Who goes on above the first
# wrapper depends on who arrives last, but every thread visits its first
# wrapper once per operation: threads 0, 1 (locations 0, 1) h0, threads 2, 3
# (65536, 65537) h1, on both instances; the service of p1#i (location 2+i)
# cr0 of instance i only.
[ "$(wc -l < "$tmp/demo.locs")" -eq 6 ] || fail "demo: expected 6 locations"
[ "$(awk '{ s += $2 } END { print s }' "$tmp/demo.locs")" -eq 4960 ] || fail "demo: expected 4960 events"
visits demo '0 2 155
0 7 155
1 2 155
1 7 155
65536 4 155
65536 9 155
65537 4 155
65537 9 155
2 1 155
2 6 0
3 6 155
3 1 0'
trace_check demo pathmaps/demo.pathmap 310

# ---- binary-2x4, two sizes: 8 threads in binary subtrees, proxy p1 ----------
# Nodes: root 0, cr0 1, h0 2, h0.l1.0 3, h0.l1.1 4, p1 5, h1 6, h1.l1.0 7,
# h1.l1.1 8 (nnodes 9; instance 1 adds 9).  Fan-in: root 1, cr0 2 (h0, p1),
# every other gred 2, p1 1.  -n 300 -w 10 -s 4,256: 620 operations per
# thread, 310 per instance.
BIN_TABLE='0 root 1
1 cr0 2
2 h0 2
3 h0.l1.0 2
4 h0.l1.1 2
5 p1 1
6 h1 2
7 h1.l1.0 2
8 h1.l1.1 2
9 root 1
10 cr0 2
11 h0 2
12 h0.l1.0 2
13 h0.l1.1 2
14 p1 1
15 h1 2
16 h1.l1.0 2
17 h1.l1.1 2'
traced binary 2 -p pathmaps/local/binary-2x4.pathmap -n 300 -w 10 -s 4,256
check binary 310 "$BIN_TABLE"
# 8 compute + 2 service threads; 2 x 310 x 16 x 2 = 19840 events, half of
# the visits with 4-byte tuples and half with 256-byte ones.
[ "$(wc -l < "$tmp/binary.locs")" -eq 10 ] || fail "binary: expected 10 locations"
[ "$(awk '{ s += $2 } END { print s }' "$tmp/binary.locs")" -eq 19840 ] || fail "binary: expected 19840 events"
for b in 4 256; do
  n=$(grep -c "(\"paptree::bytes\" <1>; UINT64; $b)\$" "$tmp/binary.ev" || true)
  [ "$n" -eq 9920 ] || fail "binary: $n events with $b-byte tuples, expected 9920"
done
trace_check binary pathmaps/local/binary-2x4.pathmap 620

# ---- int64-min-relay-3x1: thread 1 on c -> pc -> pgw on b -> top on a ------
# Nodes: root 0, top 1, pgw 2, pc 3 (nnodes 4).  Fan-in: root 1, top 2
# (thread 0 and pgw), pgw 1 (pc), pc 1 (thread 1).  -s 8 (int64): 310
# operations per thread, 155 per instance.
RELAY=tests/pathmap/good/int64-min-relay-3x1.pathmap
RELAY_TABLE='0 root 1
1 top 2
2 pgw 1
3 pc 1
4 root 1
5 top 2
6 pgw 1
7 pc 1'
traced relay 3 -p $RELAY -n 300 -w 10 -s 8
check relay 155 "$RELAY_TABLE"
# Locations (rank << 16 | index): a: thread 0 = 0, service pgw#0 = 1,
# pgw#1 = 2; b: service pc#0 = 65536, pc#1 = 65537; c: thread 1 = 131072.
# Exact where the path stops at a proxy: thread 1 runs pc (a proxy): 310
# operations x 1 wrapper x 2 events = 620; the service of pc#i runs pgw (a
# proxy) for the 155 operations of instance i: 155 x 1 x 2 = 310.  On a,
# top's two arrivals (thread 0, pgw#i) share root, visited by the last one:
# thread 0 visits top 155 times per instance, each pgw#i 155 times, and
# root<i> is entered 155 times by thread 0 and pgw#i together; a's three
# locations sum to 2 x (310 + 155 + 155 + 310) = 1860.
loc_is relay 131072 620
loc_is relay 65536 310
loc_is relay 65537 310
visits relay '0 1 155
0 5 155
1 1 155
1 5 0
1 4 0
2 5 155
2 1 0
2 0 0
131072 3 155
131072 7 155
65536 2 155
65537 6 155'
awk '$1 == "ENTER" && ($NF == "<0>" || $NF == "<4>") { n[$NF]++; if ($2 > 2) bad = 1 }
     END { exit bad || n["<0>"] != 155 || n["<4>"] != 155 }' "$tmp/relay.ev" ||
  fail "relay: root should be entered 155 times per instance, only on host a"
[ "$(awk '$1 < 65536 { s += $2 } END { print s }' "$tmp/relay.locs")" -eq 1860 ] ||
  fail "relay: host a should have 1860 events"
trace_check relay $RELAY 310

# ---- a chain with fan-in 1 everywhere: every location's count is exact -----
# (int64-min-relay-3x1 has top with fan-in 2.)  Thread 0 on c runs leaf, pc;
# the service of pc#i on b runs gw, pgw; the service of pgw#i on a runs top,
# root.  Nodes: root 0, top 1, pgw 2, gw 3, pc 4, leaf 5 (nnodes 6).
printf '%s\n' 'host a' 'host b' 'host c' 'tree chain type=int64 op=max' \
  'core  root host=a' 'gred  top  host=a parent=root' 'proxy pgw  host=b parent=top' \
  'gred  gw   host=b parent=pgw' 'proxy pc   host=c parent=gw' \
  'gred  leaf host=c parent=pc' 'threads 0 host=c enter=leaf' > "$tmp/chain.pathmap"
CHAIN_TABLE='0 root 1
1 top 1
2 pgw 1
3 gw 1
4 pc 1
5 leaf 1
6 root 1
7 top 1
8 pgw 1
9 gw 1
10 pc 1
11 leaf 1'
traced chain 3 -p "$tmp/chain.pathmap" -n 300 -w 10 -s 8
check chain 155 "$CHAIN_TABLE"
# operations x path length x 2: thread 0 (131072): 310 x 2 x 2 = 1240; each
# service thread serves one instance: 155 x 2 x 2 = 620.
loc_is chain 131072 1240
loc_is chain 65536 620
loc_is chain 65537 620
loc_is chain 0 620
loc_is chain 1 620
[ "$(wc -l < "$tmp/chain.locs")" -eq 5 ] || fail "chain: expected 5 locations"
trace_check chain "$tmp/chain.pathmap" 310

# ---- gateway-3x2: links served on two hosts, a host with no thread ---------
# The location ids and names, written by hand in the order the runtime
# enumerates them (docs/runtime.md, "Locations"): a = rank 0: threads 0-1,
# then the links of pgw#0, pgw#1; gw = rank 1: pb#0, pb#1; b = rank 2:
# threads 2-3.  -n 100 -w 10: 110 operations per thread.
traced gateway 3 -p pathmaps/local/gateway-3x2.pathmap -n 100 -w 10
got=$(sed -n 's/^LOCATION  *\([0-9]*\)  *Name: "\([^"]*\)".*/\1 \2/p' "$tmp/gateway.defs" |
  tr '\n' ',')
want='0 thread 0,1 thread 1,2 service pgw#0,3 service pgw#1,65536 service pb#0,65537 service pb#1,131072 thread 2,131073 thread 3,'
[ "$got" = "$want" ] || fail "gateway: locations are '$got', expected '$want'"
trace_check gateway pathmaps/local/gateway-3x2.pathmap 110

# ---- without --trace: no archive, nothing created, no trace summary ---------
mkdir "$tmp/cwd"
top=$(pwd)
(cd "$tmp/cwd" && timeout 120 $MPIRUN -np 2 "$top/bin/gsum" -p "$top/pathmaps/demo.pathmap" \
  -n 300 -w 10 > ../plain.out 2>&1) || { cat "$tmp/plain.out" >&2; fail "untraced gsum failed"; }
[ -z "$(ls -A "$tmp/cwd")" ] || { ls -la "$tmp/cwd" >&2; fail "an untraced run created files"; }
! grep -q '^# trace' "$tmp/plain.out" || fail "an untraced run printed a trace summary"

# ---- small --trace-mem: flushes during the measured loops, nothing lost ----
# -n 20000 -w 10: 20010 operations per thread, 10005 per instance.
traced flush 2 -p pathmaps/demo.pathmap -n 20000 -w 10 --trace-mem 5M
check flush 10005 "$DEMO_TABLE"
f=$(sed -n 's/^# trace: \([0-9]*\) buffer flushes, \([0-9]*\) of them during the measured loops.*/\1 \2/p' \
  "$tmp/flush.out")
[ -n "$f" ] || { cat "$tmp/flush.out" >&2; fail "flush: no flush summary"; }
set -- $f
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] || fail "flush: expected flushes during the loops, got: $f"
props=$(awk '/^LOCATION_PROPERTY/ && /"paptree::flushes"/ { v = $NF; s += v } END { print s + 0 }' \
  "$tmp/flush.defs")
[ "$props" -eq "$1" ] || fail "flush: paptree::flushes of the locations sum to $props, summary $1"
trace_check flush pathmaps/demo.pathmap 20010

# ---- the default --trace-mem fits README's PRR command ----------------------
# pathmaps/local/algo/prr-4x2, -n 20000 -s 4,256: each host's part in the
# algorithm node records about 8 times a thread's events (four per message);
# split evenly, 64 MiB made it flush during the measured loops.
timeout 120 $MPIRUN -np 4 bin/gsum -p pathmaps/local/algo/prr-4x2.pathmap -n 20000 -s 4,256 \
  --trace "$tmp/prr" > "$tmp/prr.out" 2>&1 || { cat "$tmp/prr.out" >&2; fail "prr: traced gsum failed"; }
expect_count "$tmp/prr.out" 1 "# trace: 0 buffer flushes, 0 of them during the measured loops"
rm -rf "$tmp/prr"

# ---- PAPTREE_TRACE_CLOCK=monotonic_raw ------------------------------------
plain=$MPIRUN
MPIRUN="$MPIRUN -x PAPTREE_TRACE_CLOCK=monotonic_raw"
traced mono 2 -p pathmaps/demo.pathmap -n 300 -w 10
MPIRUN=$plain
check mono 155 "$DEMO_TABLE"
expect_count "$tmp/mono.out" 1 "# trace: $tmp/mono/traces.otf2: 4960 events from 6 threads; clock monotonic_raw at 1.000 GHz"
expect_count "$tmp/mono.defs" 1 "Ticks per Seconds: 1000000000,"
otf2-print -I "$tmp/mono/traces.otf2" | grep -A1 -x 'Property name *PAPTREE::CLOCK' |
  grep -qx 'Property value *monotonic_raw' || fail "mono: PAPTREE::CLOCK is not monotonic_raw"
trace_check mono pathmaps/demo.pathmap 310
echo "trace-archive: ok"
