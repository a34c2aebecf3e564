#!/bin/sh
# papbench.sh - bin/papbench (Proficz 2018, Figure 9; docs/papbench.md), with
# tiny sizes, delays and margin so that each launch takes seconds.  No timing
# is asserted (the machine is shared): structure, counts and correctness.
#   1. np 4, every default algorithm with every source (13 rows), one-late,
#      two sizes (--sizes 64,4000 bytes: 16 and 1000 floats; 1000 does not
#      divide by 4), delays 0
#      and 1 ms: each operation is checked by papbench against MPI_Allreduce
#      (it aborts otherwise); the tables have the rows and columns listed
#      here by hand, ring's speedup line is 1.00 everywhere, and the CSV file
#      has one line per row, size and delay with the iterations asked for.
#   2. np 3, rand-late, not interleaved, plus a --pathmap file with a core
#      and proxies (any tree with one thread per host), sizes 3 and 7 floats
#      (12 and 28 bytes).
#   3. PAPTREE_PAPBENCH_TEST_WRONG=RANK:ITER:INDEX adds 1 to one element of
#      one rank's result: the check must abort naming that rank, iteration
#      and element, with got = expected + 1.
#   4. Refused pathmaps (two threads on a host, an int32 tree), a bad --algo
#      parameter and an algorithm given twice: clear errors, non-zero exits
#      (2 for the options).
#   5. --trace: one archive per row and delay, which papanalyze loads; its
#      PAP metrics have one sample per operation (warm-up + iterations).
#   6. Bad options exit 2 with an error and the usage line; --help exits 0.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
PB=bin/papbench
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$PB" ] || fail "$PB is missing (make all)"
[ -x bin/papanalyze ] || fail "bin/papanalyze is missing (make all)"
command -v sqlite3 >/dev/null 2>&1 || fail "the sqlite3 shell is not installed"

# rows_of OUT SIZE: the row labels of the table of SIZE floats, in order.
rows_of() {
  awk -v size="$2" '/^# paptree papbench:/ { on = index($0, ", " size " floats (") > 0; next }
                    on && /^[^# ]/ { print $1 }' "$1"
}
# speedups_of OUT SIZE LABEL: the speedup line under LABEL's row.
speedups_of() {
  awk -v size="$2" -v label="$3" '/^# paptree papbench:/ { on = index($0, ", " size " floats (") > 0; next }
       on && grep { $1 = $1; print; exit } on && $1 == label { grep = 1 }' "$1"
}

# ---- 1. np 4, every algorithm and source --------------------------------------------
ROWS4="ring rabenseifner rd slt/equal slt/history slt/edge prr/equal prr/history prr/edge clv/equal clv/history clv/edge native"
timeout 120 $MPIRUN -np 4 $PB --sizes 64,4000 --delays 0,1 --margin 1 --iters 3 --warmup 1 \
  --csv "$tmp/all.csv" > "$tmp/all.out" 2> "$tmp/all.err" ||
  { cat "$tmp/all.out" "$tmp/all.err" >&2; fail "np 4: papbench failed"; }
for size in 16 1000; do
  [ "$(rows_of "$tmp/all.out" $size | tr '\n' ' ')" = "$ROWS4 " ] ||
    { cat "$tmp/all.out" >&2; fail "np 4, $size floats: rows are not: $ROWS4"; }
  [ "$(speedups_of "$tmp/all.out" $size ring)" = "1.00 1.00" ] ||
    fail "np 4, $size floats: ring's speedups are not 1.00 1.00"
  # every row: a label and 2 times > 0, then 2 speedups > 0
  awk -v size=$size '/^# paptree papbench:/ { on = index($0, ", " size " floats (") > 0; next }
       on && /^# Algorithm/ { if ($5 != 0 || $6 != 1 || NF != 6) bad = "header " $0; next }
       on && /^[^# ]/ { n++; if (NF != 3 || !($2 > 0) || !($3 > 0)) bad = $0; sp = 1; next }
       on && sp && /^ / { sp = 0; if (NF != 2 || !($1 > 0) || !($2 > 0)) bad = $0 }
       END { if (bad != "") { print "bad line: " bad; exit 1 } if (n != 13) { print n " rows"; exit 1 } }' \
    "$tmp/all.out" || fail "np 4, $size floats: a row or the header is malformed (above)"
done
expect_count "$tmp/all.out" 2 "# P = 4 ranks = 4 hosts x 1 computational thread; 4 of them share this machine's $(nproc) CPUs"
expect_count "$tmp/all.out" 1 "one-late (host 1 delayed by the max delay), 16 floats (64 B), float sum"
expect_count "$tmp/all.out" 1 "one-late (host 1 delayed by the max delay), 1000 floats (3.90625 KiB), float sum"
expect_count "$tmp/all.out" 2 "# 3 iterations (+ 1 warm-up) per cell, margin 1 ms, seed 1, algorithms interleaved"
expect_count "$tmp/all.out" 2 "# MPI: "
if [ "$(nproc)" -lt 4 ]; then expect_count "$tmp/all.out" 2 "CPUs (oversubscribed)"; fi
# CSV: 13 rows x 2 sizes x 2 delays, 3 iterations each; ring's speedup 1
[ "$(sed -n 1p "$tmp/all.csv")" = "mode,ranks,floats,label,algorithm,arrival,max_delay_ms,margin_ms,iterations,avg_ms,stdev_ms,median_ms,slowest_rank_ms,speedup,reference,round_ns" ] ||
  fail "CSV header: $(sed -n 1p "$tmp/all.csv")"
awk -F, 'NR > 1 { n++; if ($1 != "one-late" || $2 != 4 || $9 != 3 || !($10 > 0) || $15 != "ring") bad = $0
                  if (!($12 > 0) || $13 < $10 * 0.999) bad = $0   # a median; the slowest rank >= the average
                  if ($4 == "ring" && $14 != "1.0000") bad = $0
                  if ($4 == "clv/edge" && ($5 != "clv+binomial-bcast" || $6 != "edge")) bad = $0
                  if ($4 == "rd" && $6 != "-") bad = $0
                  key[$3 " " $7]++ }
         END { if (bad != "") { print "bad: " bad; exit 1 }
               if (n != 52 || key["16 0"] != 13 || key["16 1"] != 13 || key["1000 0"] != 13 || key["1000 1"] != 13) {
                 print n " lines"; exit 1 } }' "$tmp/all.csv" || fail "CSV content (above)"
echo "np 4: 13 rows x 2 sizes x 2 delays, every result checked; tables and CSV as expected"

# ---- 2. np 3, rand-late, not interleaved, with a pathmap file ------------------------
cat > "$tmp/proxies-3x1.pathmap" <<'EOF'
# a core on h0 fed by proxies from h1 and h2, one thread per host
host h0
host h1
host h2
tree sum type=float op=sum
core  root host=h0
gred  top  host=h0 parent=root
proxy p1   host=h1 parent=top
proxy p2   host=h2 parent=top
threads 0 host=h0 enter=top
threads 1 host=h1 enter=p1
threads 2 host=h2 enter=p2
EOF
timeout 120 $MPIRUN -np 3 $PB --sizes 12,28 --delays 0,0.5 --margin 0.5 --iters 2 --warmup 1 \
  --mode rand-late --no-interleave --arrival history,edge --pathmap "$tmp/proxies-3x1.pathmap" \
  --algo ring,rabenseifner,rd,slt,prr,clv,native > "$tmp/np3.out" 2> "$tmp/np3.err" ||
  { cat "$tmp/np3.out" "$tmp/np3.err" >&2; fail "np 3: papbench failed"; }
ROWS3="ring rabenseifner rd slt/history slt/edge prr/history prr/edge clv/history clv/edge native proxies-3x1"
for size in 3 7; do
  [ "$(rows_of "$tmp/np3.out" $size | tr '\n' ' ')" = "$ROWS3 " ] ||
    { cat "$tmp/np3.out" >&2; fail "np 3, $size floats: rows are not: $ROWS3"; }
  [ "$(speedups_of "$tmp/np3.out" $size ring)" = "1.00 1.00" ] || fail "np 3: ring's speedups"
done
expect_count "$tmp/np3.out" 2 "rand-late (every host delayed uniformly up to the max delay, fixed seed)"
expect_count "$tmp/np3.out" 2 "seed 1, one algorithm at a time"
echo "np 3: rand-late, 11 rows (one a --pathmap file with proxies) x 2 sizes, every result checked"

# ---- 3. a wrong element is caught ------------------------------------------------------
run_fails 60 "$tmp/wrong.out" env PAPTREE_PAPBENCH_TEST_WRONG=2:1:5 \
  $MPIRUN -x PAPTREE_PAPBENCH_TEST_WRONG -np 3 $PB --algo ring --sizes 64 --delays 0 --margin 0 --iters 3 --warmup 0 -q
line=$(grep 'error: wrong result' "$tmp/wrong.out" || true)
[ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] || { cat "$tmp/wrong.out" >&2; fail "wrong: not exactly one report"; }
case $line in
  "papbench: rank 2: error: wrong result: ring, 16 floats, max delay 0 ms, iteration 1, element 5: got "*", expected "*" (MPI_Allreduce of the same data)") ;;
  *) fail "wrong: unexpected report: $line" ;;
esac
printf '%s\n' "$line" | awk '{ for (i = 1; i < NF; i++) { if ($i == "got") g = $(i + 1); if ($i == "expected") e = $(i + 1) }
                              sub(/,$/, "", g); exit !(g == e + 1 && e >= 0 && e <= 45) }' ||
  fail "wrong: got is not expected + 1 (expected: a sum of 3 values 0..15): $line"
echo "wrong result: caught on rank 2, iteration 1, element 5"

# ---- 4. refused pathmaps and a bad --algo parameter -----------------------------------
printf 'host h0\nhost h1\ntree t type=float op=sum\nalgo x run=ring\ngred g0 host=h0 parent=x\nthreads 0-1 host=h0 enter=g0\nthreads 2 host=h1 enter=x\n' \
  > "$tmp/two.pathmap"
run_fails 60 "$tmp/two.out" $MPIRUN -np 2 $PB --pathmap "$tmp/two.pathmap" --sizes 16 --delays 0 --iters 1
expect_count "$tmp/two.out" 1 "papbench: error: $tmp/two.pathmap: tree 't' has 2 threads on host h0; papbench runs exactly one computational thread per host"
printf 'host h0\nhost h1\ntree t type=int32 op=sum\nalgo x run=ring\nthreads 0 host=h0 enter=x\nthreads 1 host=h1 enter=x\n' \
  > "$tmp/int.pathmap"
run_fails 60 "$tmp/int.out" $MPIRUN -np 2 $PB --pathmap "$tmp/int.pathmap" --sizes 16 --delays 0 --iters 1
expect_count "$tmp/int.out" 1 "papbench: error: $tmp/int.pathmap: tree 't' is int32 sum; papbench reduces float sums"
set +e
timeout 60 $MPIRUN -np 2 $PB --algo prr:segments=4 --sizes 16 --delays 0 > "$tmp/param.out" 2>&1
rc=$?
set -e
[ $rc = 2 ] || { cat "$tmp/param.out" >&2; fail "--algo prr:segments=4: exit $rc, not 2"; }
expect_count "$tmp/param.out" 1 "(--algo prr/equal):5:35: error: algorithm 'prr' takes no parameter 'segments' (it takes: round, arrival)"
expect_count "$tmp/param.out" 1 "usage: mpirun -np P papbench"
set +e
timeout 60 $MPIRUN -np 2 $PB --algo ring,prr,ring --sizes 16 --delays 0 > "$tmp/twice.out" 2>&1
rc=$?
set -e
[ $rc = 2 ] || { cat "$tmp/twice.out" >&2; fail "--algo ring,prr,ring: exit $rc, not 2"; }
expect_count "$tmp/twice.out" 1 "papbench: error: two rows would be labelled 'ring' (an algorithm given twice, or a pathmap file named like an algorithm)"
run_fails 60 "$tmp/few.out" $MPIRUN -np 2 $PB --algo ring --sizes 16,4 --delays 0 --iters 1
expect_count "$tmp/few.out" 1 "papbench: --sizes: 4 bytes are fewer floats than the 2 ranks, expected at least 8 bytes (a float per rank)"
echo "refused: two threads on a host, an int32 tree, an unknown algorithm parameter, a row twice, fewer floats than ranks"

# ---- 5. --trace --------------------------------------------------------------------------
timeout 120 $MPIRUN -np 3 $PB --algo ring,prr --arrival history --sizes 96 --delays 1 --margin 1 \
  --iters 12 --warmup 2 --trace "$tmp/tr" > "$tmp/tr.out" 2> "$tmp/tr.err" ||
  { cat "$tmp/tr.out" "$tmp/tr.err" >&2; fail "--trace: papbench failed"; }
[ "$(ls "$tmp/tr" | tr '\n' ' ')" = "prr-history.n24.d1ms ring.n24.d1ms " ] ||
  fail "--trace: archives: $(ls "$tmp/tr" | tr '\n' ' ')"
for a in prr-history ring; do
  bin/papanalyze --skip 0 -q "$tmp/tr/$a.n24.d1ms/traces.otf2" > "$tmp/$a.an" 2>&1 ||
    { cat "$tmp/$a.an" >&2; fail "--trace: papanalyze $a"; }
  # one sample per operation: 2 warm-up + 12 measured; per host elapsed rows: 3
  got=$(sqlite3 "$tmp/tr/$a.n24.d1ms/traces.db" \
    "SELECT (SELECT n FROM stats WHERE scope = 'pap' AND metric = 'avg_elapsed') || ' ' ||
            (SELECT n FROM stats WHERE scope = 'pap' AND metric = 'host_spread') || ' ' ||
            (SELECT count(*) FROM stats WHERE scope = 'pap' AND metric = 'elapsed' AND n = 14)")
  [ "$got" = "14 14 3" ] || fail "--trace: $a: PAP metrics 'n avg_elapsed, n host_spread, elapsed rows' = '$got', not '14 14 3'"
done
got=$(sqlite3 "$tmp/tr/prr-history.n24.d1ms/traces.db" "SELECT algo || ' ' || arrival || ' ' || nranks FROM algo_nodes")
[ "$got" = "prr history 3" ] || fail "--trace: algo_nodes of prr-history: '$got'"
echo "--trace: 2 archives, each loaded by papanalyze with 14 operations of PAP metrics"

# ---- 6. bad options and --help -------------------------------------------------------
OMPI_ALLOW_RUN_AS_ROOT=1; OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
bad() {   # bad EXPECTED-MESSAGE ARGS...: exit 2, the message, the usage line
  msg=$1; shift
  set +e
  timeout 60 $PB "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"
  rc=$?
  set -e
  [ $rc = 2 ] || { cat "$tmp/bad.err" >&2; fail "papbench $*: exit $rc, not 2"; }
  [ "$(sed -n 1p "$tmp/bad.err")" = "papbench: $msg" ] ||
    { cat "$tmp/bad.err" >&2; fail "papbench $*: first line is not 'papbench: $msg'"; }
  sed -n 2p "$tmp/bad.err" | grep -q '^usage: mpirun -np P papbench ' || fail "papbench $*: no usage line"
}
bad "--mode: unknown 'sideways', expected one-late or rand-late" --mode sideways
bad "--sizes: '0' is out of range, expected 4..1GiB" --sizes 0
bad "--sizes: '6' is not a whole number of floats, expected a multiple of 4 bytes" --sizes 8,6
bad "--sizes: '2G' is out of range, expected 4..1GiB" --sizes 2G
bad "--sizes: '2X' is not a size, expected bytes 4..1GiB (K, M, G, T: powers of 1024)" --sizes 4,2X
bad "--sizes: item 2 of '4,,8' is empty, expected items separated by ','" --sizes 4,,8
bad "--delays: '-1' is out of range, expected 0..10000" --delays 0,-1
bad "--algo: 'bogus' is not an allreduce or a reduce of the algorithm table, nor native or auto (papsim --help lists them)" --algo ring,bogus
bad "--algo: 'binomial-bcast' is not an allreduce or a reduce of the algorithm table, nor native or auto (papsim --help lists them)" --algo binomial-bcast
bad "--algo: 'prr:arrival=edge': the arrival source is chosen by --arrival" --algo prr:arrival=edge
bad "--arrival: unknown 'psychic', expected equal, history or edge" --arrival equal,psychic
bad "--arrival: 'edge' given twice, expected each source once" --arrival edge,edge
bad "--iters: '0' is out of range, expected 1..1000000" --iters 0
bad "--round: '0' is neither auto nor nanoseconds, expected auto or 1..1000000000" --round 0
bad "unknown option '--bogus'" --bogus
bad "option '--sizes' requires an argument" --sizes
bad "unexpected argument 'extra'" extra
bad "--force replaces archives: it needs --trace DIR" --force
bad "--watchdog 1 s is not longer than the largest delay plus the margin (1100 ms): a host waiting for the late one would be taken for stalled" --watchdog 1 --delays 1000
timeout 60 $PB --help > "$tmp/help.out" 2> "$tmp/help.err" || fail "--help exited non-zero"
[ ! -s "$tmp/help.err" ] || { cat "$tmp/help.err" >&2; fail "--help wrote to stderr"; }
sed -n 1p "$tmp/help.out" | grep -q '^usage: mpirun -np P papbench ' || fail "--help: no usage line first"
for opt in --algo --pathmap --sizes --iters --warmup --mode --delays --margin --seed --arrival \
           --interleave --trace --csv --help; do
  grep -q -- "$opt" "$tmp/help.out" || fail "--help does not mention $opt"
done
echo "bad options: 19 cases exit 2 with the message and the usage line; --help exits 0"
