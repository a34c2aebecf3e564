#!/bin/sh
# Gsum's command line: --help, and bad arguments as clear errors with exit 2
# (usage) or 1 (bad input), never a hang.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
# One rank that must fail: when a rank exits non-zero, mpirun's daemon gives
# the job's ranks 1 s before SIGTERM and 1 s more before SIGKILL
# (odls_base_sigkill_timeout), even when the only rank has ended already:
# 2 s per failing run, most of this test's time.  With one rank there is
# nobody to wait for.  (Jobs of several ranks keep the grace: a rank may
# still be printing its message.)
MPIRUN1="$MPIRUN --mca odls_base_sigkill_timeout 0 -np 1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

$MPIRUN -np 1 bin/gsum --help > "$tmp/out" 2>&1 || fail "--help exited non-zero"
expect_count "$tmp/out" 1 "usage: mpirun -np HOSTS gsum -p PATHMAP"
expect_count "$tmp/out" 1 "--native"
expect_count "$tmp/out" 1 "--links HOW"

run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum
expect_count "$tmp/out" 1 "give either -p PATHMAP or --native"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -n abc
expect_count "$tmp/out" 1 "-n: 'abc' is not an integer, expected 1..2147483647"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -s 4,0
expect_count "$tmp/out" 1 "-s: '0' is out of range, expected 1..1GiB"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native --type float
expect_count "$tmp/out" 1 "--type: unknown 'float', expected int32, int64 or double"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native --type double -s 4
expect_count "$tmp/out" 1 "-s 4 is not a multiple of the 8-byte double element"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p pathmaps/local/gred-1x2.pathmap -s 6
expect_count "$tmp/out" 1 "-s 6 is not a multiple of the 4-byte int32 element"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p /nonexistent.pathmap
expect_count "$tmp/out" 1 "/nonexistent.pathmap: error: cannot open: No such file or directory"

# --links: threads or services, for a pathmap's tree only, the same on every
# rank; the header says which and how many service threads each host runs.
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p pathmaps/local/gred-1x2.pathmap --links paths
[ "$rc" -eq 2 ] || fail "--links paths: exit $rc, expected 2 (a usage error)"
expect_count "$tmp/out" 1 "--links: unknown 'paths', expected threads or services"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p pathmaps/local/gred-1x2.pathmap --links
expect_count "$tmp/out" 1 "option '--links' requires an argument"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native --links services
expect_count "$tmp/out" 1 "--links chooses who serves a pathmap's proxy links; it does not apply to --native"
run_fails 60 "$tmp/out" $MPIRUN -np 1 bin/gsum -p pathmaps/local/pair-2x1.pathmap -n 10 --links threads : \
    -np 1 bin/gsum -p pathmaps/local/pair-2x1.pathmap -n 10 --links services
expect_count "$tmp/out" 1 "gsum: rank 1: --links services differs from rank 0's --links threads"
# pair-2x1 has one link, p1 (host1) -> cr0 (host0): with services host0 runs one
# service thread for it per instance (Gsum runs 2), host1 none.
$MPIRUN -np 2 bin/gsum -p pathmaps/local/pair-2x1.pathmap -n 10 --links services > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "--links services failed"; }
expect_count "$tmp/out" 1 "# links: services (one service thread per link and instance); service threads: 2, per host: 2 0"
$MPIRUN -np 2 bin/gsum -p pathmaps/local/pair-2x1.pathmap -n 10 > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "default --links failed"; }
expect_count "$tmp/out" 1 "# links: threads (served by the threads waiting in the tree); service threads: "

# -s: say what is wrong with the list, not only "try --help".
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -s ,,,
expect_count "$tmp/out" 1 "-s: item 1 of ',,,' is empty, expected items separated by ','"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -s 4,,8
expect_count "$tmp/out" 1 "-s: item 2 of '4,,8' is empty, expected items separated by ','"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -s 4,
expect_count "$tmp/out" 1 "-s: item 2 of '4,' is empty, expected items separated by ','"
sizes33=$(seq -s, 4 4 132)
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -s "$sizes33"
expect_count "$tmp/out" 1 "-s: 33 items, expected at most 32"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -s 2G
expect_count "$tmp/out" 1 "-s: '2G' is out of range, expected 1..1GiB"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -s 4,x
expect_count "$tmp/out" 1 "-s: 'x' is not a size, expected bytes 1..1GiB (K, M, G, T: powers of 1024)"

# Numbers above an option's maximum say so (not "not an integer"), with the range.
for opt in -n:1 -w:0 --spin-ns:0 --yield-ns:0; do
    lo=${opt#*:}; opt=${opt%:*}
    for v in 3000000000 99999999999999999999999; do
        run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native $opt $v
        expect_count "$tmp/out" 1 "gsum: $opt: '$v' is out of range, expected $lo..2147483647"
    done
done
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum --native -n -5
expect_count "$tmp/out" 1 "-n: '-5' is out of range, expected 1..2147483647"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p pathmaps/demo.pathmap --trace "$tmp/t" --trace-mem 99999999999G
expect_count "$tmp/out" 1 "--trace-mem: '99999999999G' is out of range, expected 1..18446744073709551615"

# A FIFO given as the pathmap is refused, not opened (that blocks until a
# writer comes); so is a directory.  pathmap-check likewise.
mkfifo "$tmp/fifo.pm"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p "$tmp/fifo.pm" -n 10
expect_count "$tmp/out" 1 "$tmp/fifo.pm: error: not a regular file"
run_fails 60 "$tmp/out" bin/pathmap-check "$tmp/fifo.pm"
expect_count "$tmp/out" 1 "$tmp/fifo.pm: error: not a regular file"
run_fails 60 "$tmp/out" $MPIRUN1 bin/gsum -p "$tmp" -n 10
expect_count "$tmp/out" 1 "$tmp: error: not a regular file"
echo "gsum-args: ok"
