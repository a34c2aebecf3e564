#!/bin/sh
# papsim auto (tools/papsim/auto.c): auto's choices under papsim's own model.
#   - no one late, 15 operations (before the first exploring one, the 16th):
#     auto's mean is the best static candidate's time, which papsim's
#     ordinary rows for rd, ring and rabenseifner give independently (ms, 4
#     decimals: within 0.06 us); the PAP-aware candidates are never predicted;
#   - one host 1 ms late: prr, whose schedule overlaps the wait, is chosen in
#     most of 50 operations;
#   - errors: an unknown candidate, auto given with another algorithm.
set -eu
. tests/lib.sh
P="bin/papsim -P 4 --bytes 128K --net measured"
out=$($P --ops 15 auto) || fail "papsim auto failed"
best=$($P rd ring rabenseifner | awk '$1 == "rd" || $1 == "ring" || $1 == "rabenseifner" {
         v = $2 * 1000; if (b == "" || v < b) b = v } END { print b }')
mine=$(echo "$out" | awk '$1 == "auto" { print $2 }')
awk -v a="$mine" -v b="$best" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.06) }' ||
  fail "no delay: auto's mean $mine us, the best static row $best us"
echo "$out" | grep -Eq '^  prr +- +0 predicted +0 chosen$' || fail "no delay: prr was predicted"
out=$($P --arrival one-late:1 --ops 50 auto) || fail "papsim auto one-late failed"
n=$(echo "$out" | awk '$1 == "prr" { print $(NF - 1) }')
[ "$n" -ge 40 ] || fail "one-late 1 ms: prr chosen $n times of 50, expected most"
err=$($P auto:ring,bogus 2>&1 >/dev/null) && fail "an unknown candidate was accepted"
echo "$err" | grep -q "'bogus' is not an allreduce" || fail "unknown candidate: message: $err"
err=$($P auto ring 2>&1 >/dev/null) && fail "auto with another algorithm was accepted"
echo "$err" | grep -q "auto runs alone" || fail "auto with another algorithm: message: $err"
echo "ok: papsim auto"
