#!/bin/sh
# compare-native-label.sh - bench/compare-native.sh's "hosts x threads"
# column: hosts times threads per host, not times the total (it printed
# "pair-2x1 | 2 x 2" and "demo | 2 x 4").  -l prints the rows' labels and
# runs nothing.  Expected values from the pathmaps' text: pair-2x1 has 2
# hosts of 1 thread, demo 2 hosts of 2, binary-4x2 4 hosts of 2, and
# gateway-3x2 3 hosts of which the gateway has no thread (4 threads: no
# whole number per host).
set -eu
. tests/lib.sh
out=$(bash bench/compare-native.sh -l pathmaps/local/pair-2x1.pathmap pathmaps/demo.pathmap \
      pathmaps/local/binary-4x2.pathmap pathmaps/local/gateway-3x2.pathmap) ||
  fail "compare-native.sh -l failed"
want='| pair-2x1 | 2 x 1 |
| demo | 2 x 2 |
| binary-4x2 | 4 x 2 |
| gateway-3x2 | 3 hosts, 4 threads |'
[ "$out" = "$want" ] || fail "labels:
$out
expected:
$want"
echo "compare-native-label: ok"
