#!/bin/sh
# auto-papbench-table.sh - bench/auto-papbench.sh -t: the table of issue 26's goals from a
# papbench CSV written by hand (4096 floats = 16 KiB; ring's time 0.100 ms at 0 ms):
#   one-late 0 ms:   auto 0.104, ring 0.100, prr 0.102, native 0.101: best ring;
#                    auto / best = 1.040 (a ok), native / auto = 0.971 (c: 1.03x slower, ok)
#   one-late 0.2 ms: auto 0.200, ring 0.300, prr 0.210, native 0.250: best prr/history;
#                    0.952 (a ok); 2 ring times late: native / auto = 1.250 (b ok)
#   rand-late 0.2:   auto 0.300, ring 0.250, prr 0.260, native 0.240: best native;
#                    1.250 (a MISS), native / auto = 0.800 (no b or c: not one-late, not 0)
set -eu
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
h="mode,ranks,floats,label,algorithm,arrival,max_delay_ms,margin_ms,iterations,avg_ms,stdev_ms,median_ms,slowest_rank_ms,speedup,reference,round_ns"
{
  echo "$h"
  echo "one-late,4,4096,auto/history,auto,history,0,5,30,0.104,0,0,0,1,ring,5000"
  echo "one-late,4,4096,ring,ring,-,0,5,30,0.100,0,0,0,1,ring,5000"
  echo "one-late,4,4096,prr/history,prr,history,0,5,30,0.102,0,0,0,1,ring,5000"
  echo "one-late,4,4096,native,native,-,0,5,30,0.101,0,0,0,1,ring,5000"
  echo "one-late,4,4096,auto/history,auto,history,0.2,5,30,0.200,0,0,0,1,ring,5000"
  echo "one-late,4,4096,ring,ring,-,0.2,5,30,0.300,0,0,0,1,ring,5000"
  echo "one-late,4,4096,prr/history,prr,history,0.2,5,30,0.210,0,0,0,1,ring,5000"
  echo "one-late,4,4096,native,native,-,0.2,5,30,0.250,0,0,0,1,ring,5000"
  echo "rand-late,4,4096,auto/history,auto,history,0.2,5,30,0.300,0,0,0,1,ring,5000"
  echo "rand-late,4,4096,ring,ring,-,0.2,5,30,0.250,0,0,0,1,ring,5000"
  echo "rand-late,4,4096,prr/history,prr,history,0.2,5,30,0.260,0,0,0,1,ring,5000"
  echo "rand-late,4,4096,native,native,-,0.2,5,30,0.240,0,0,0,1,ring,5000"
} > "$tmp/in.csv"
bash bench/auto-papbench.sh -t "$tmp/in.csv" > "$tmp/got" || fail "auto-papbench.sh -t failed"
cat > "$tmp/want" <<'T'
| mode | size | delay (ms) | delay / ring | auto/history | ring | prr/history | native | best fixed | auto / best | native / auto | goals |
|---|---|---|---|---|---|---|---|---|---|---|---|
| one-late | 16 KiB | 0 | 0.00 | 0.104 | 0.100 | 0.102 | 0.101 | ring | 1.040 | 0.971 | a ok, c ok |
| one-late | 16 KiB | 0.2 | 2.00 | 0.200 | 0.300 | 0.210 | 0.250 | prr/history | 0.952 | 1.250 | a ok, b ok |
| rand-late | 16 KiB | 0.2 | 2.00 | 0.300 | 0.250 | 0.260 | 0.240 | native | 1.250 | 0.800 | a MISS (1.25x) |
T
diff "$tmp/want" "$tmp/got" > "$tmp/diff" || { cat "$tmp/diff" >&2; fail "table differs"; }
echo "auto-papbench-table: ok"
