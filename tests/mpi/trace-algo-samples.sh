#!/bin/sh
# Every algorithm-node sample (pathmaps/algo-demo.pathmap and
# pathmaps/local/algo/*.pathmap) traced by Gsum through the executor and
# checked by build/tests/trace_check, the independent reader, against its
# pathmap: the algorithm locations, their collective and messages (every
# post completed, every message received by its peer with its tag and
# length), the MPI groups and communicators, the region keys, and with
# --ops the exact share of operations of every location (-n 100 -w 10, one
# size: 110 operations per thread).  otf2-print must read each archive
# without a word on stderr.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
CHECK=build/tests/trace_check
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$CHECK" ] || fail "$CHECK is missing (make all)"

n=0
for pm in pathmaps/algo-demo.pathmap pathmaps/local/algo/*.pathmap; do
  name=$(basename "$pm" .pathmap)
  np=$(grep -c '^host ' "$pm")
  timeout 120 $MPIRUN -np "$np" bin/gsum -p "$pm" -n 100 -w 10 -s 64 --trace "$tmp/$name" \
    > "$tmp/$name.out" 2>&1 || { cat "$tmp/$name.out" >&2; fail "$name: traced gsum failed"; }
  "$CHECK" --ops 110 "$tmp/$name" "$pm" > "$tmp/$name.tc" 2>&1 ||
    { cat "$tmp/$name.tc" >&2; fail "$name: trace_check"; }
  otf2-print "$tmp/$name/traces.otf2" > /dev/null 2> "$tmp/$name.perr" && [ ! -s "$tmp/$name.perr" ] ||
    { cat "$tmp/$name.perr" >&2; fail "$name: otf2-print"; }
  echo "$name (np $np): $(cat "$tmp/$name.tc")"
  rm -rf "$tmp/$name"
  n=$((n + 1))
done
[ "$n" -ge 16 ] || fail "expected at least 16 algorithm samples, found $n"
