#!/bin/sh
# The benchmarks of the profiling library (issue 25, point 8): bin/mpicall
# and bench/paprun-overhead.sh, paprun-osu.sh, paprun-app.sh.  Their option
# errors (exit 2, "PROG: OPTION: what is wrong, expected RANGE", the usage
# line), the order of the interleaved runs (--dry-run), and the table
# arithmetic on figures written here, whose medians, differences and
# ratios are worked out by hand in the comments.  mpicall runs for real
# (100 calls at np 2, checked results), and one tiny round of
# paprun-overhead.sh under the real library (bin/paprun,
# lib/libpaptree-mpi.so); nothing is judged by its timing.  About 10 s.
set -eu
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# bad PROG MESSAGE CMD...: exit 2, "PROG: MESSAGE" first, a usage line second.
bad() {
    p=$1 msg=$2; shift 2
    set +e
    timeout 60 "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || { cat "$tmp/err" >&2; fail "$*: exit $rc, expected 2"; }
    [ "$(sed -n 1p "$tmp/err")" = "$p: $msg" ] ||
        { cat "$tmp/err" >&2; fail "$*: first line is not '$p: $msg'"; }
    sed -n 2p "$tmp/err" | grep -q "^usage: " || fail "$*: no usage line"
    [ ! -s "$tmp/out" ] || fail "$*: wrote to stdout"
}

# has FILE LINE: FILE has LINE, exactly, as a whole line.
has() { grep -qxF -- "$2" "$1" || { cat "$1" >&2; fail "$1 lacks the line: $2"; }; }

# ---- bin/mpicall -----------------------------------------------------------
bad mpicall "-s: '6' is not a multiple of 4, expected a multiple of 4 in 4..1073741824" bin/mpicall -s 6
bad mpicall "-s: '0' is out of range, expected 4..1073741824" bin/mpicall -s 0
bad mpicall "-n: '1e5' is not an integer, expected 1..1000000000" bin/mpicall -n 1e5
bad mpicall "-w: '-1' is out of range, expected 0..1000000000" bin/mpicall -w -1
bad mpicall "-c: 'gather' is not a collective, expected allreduce, reduce, bcast or barrier" bin/mpicall -c gather
bad mpicall "option '-n' requires an argument" bin/mpicall -n
bad mpicall "unknown option '--bogus'" bin/mpicall --bogus
bad mpicall "-b: '11' is more blocks than calls, expected 1..10 (CALLS)" bin/mpicall -n 10 -b 11
bin/mpicall --help > "$tmp/help" || fail "mpicall --help exited non-zero"
expect_count "$tmp/help" 1 "usage: mpicall"
bin/mpicall --clock -n 1000 > "$tmp/clock"
grep -qE '^clock=monotonic_raw reads=1000 ns_per_read=[0-9]+\.[0-9]+$' "$tmp/clock" ||
    { cat "$tmp/clock" >&2; fail "mpicall --clock: no monotonic_raw line"; }
# Real runs: every collective, its result checked by mpicall itself.
for c in allreduce reduce bcast barrier; do
    $(mpirun_cmd) -np 2 bin/mpicall -c "$c" -s 64 -n 100 -w 10 -b 7 > "$tmp/run" 2> "$tmp/err" ||
        { cat "$tmp/err" >&2; fail "mpicall -c $c failed"; }
    grep -qE "^coll=$c bytes=64 np=2 calls=100 blocks=7 ns_per_call=[0-9]+\.[0-9] least_block=[0-9]+\.[0-9]$" "$tmp/run" ||
        { cat "$tmp/run" >&2; fail "mpicall -c $c: no result line"; }
done

# ---- the shared arithmetic (bench/paprun-lib.sh) ---------------------------
bash -c '. bench/paprun-lib.sh
  [ "$(printf "3\n1\n2\n" | pb_median)" = 2 ] || exit 11          # odd count: the middle one
  [ "$(printf "4\n1\n3\n2\n" | pb_median)" = 2.5 ] || exit 12     # even: (2 + 3) / 2
  [ "$(printf "10\n9\n" | pb_median)" = 9.5 ] || exit 13          # numeric, not text, order
  [ "$(: | pb_median)" = nan ] || exit 14
  [ "$(pb_bytes 64K)" = 65536 ] && [ "$(pb_bytes 1M)" = 1048576 ] && [ "$(pb_bytes 4)" = 4 ] || exit 15
  [ -z "$(pb_bytes 1G)" ] && [ -z "$(pb_bytes K)" ] && [ -z "$(pb_bytes 4KK)" ] || exit 16
  [ "$(pb_order 1 a b c)" = "a b c" ] && [ "$(pb_order 2 a b c)" = "b c a" ] && [ "$(pb_order 4 a b c)" = "a b c" ] || exit 17
  [ "$(pb_ratio 110 100)" = 1.10 ] && [ "$(pb_ratio 1 0)" = nan ] && [ "$(pb_ratio nan 2)" = nan ] || exit 18
' || fail "bench/paprun-lib.sh: check $? failed (see the exit numbers in this script)"

# ---- bench/paprun-overhead.sh ----------------------------------------------
P=paprun-overhead.sh
bad $P "-r: '0' is out of range, expected 1..101" bash bench/paprun-overhead.sh -r 0
bad $P "-p: 'x' is not a whole number, expected 1..64" bash bench/paprun-overhead.sh -p x
bad $P "-s: '6' is not a multiple of 4 (int32 elements), expected a multiple of 4 in 4..1G" bash bench/paprun-overhead.sh -s 6
bad $P "-s: '2M2' is not a size, expected a multiple of 4 in 4..1G (K, M suffixes)" bash bench/paprun-overhead.sh -s 2M2
bad $P "-C: 'hpet' is not a clock, expected rdtsc or monotonic_raw" bash bench/paprun-overhead.sh -C hpet
bad $P "option '-k' requires an argument" bash bench/paprun-overhead.sh -k
bad $P "-b: '200' is more blocks than calls, expected 1..100 (CALLS)" bash bench/paprun-overhead.sh -n 100 -b 200
bad $P "unknown option 'extra'" bash bench/paprun-overhead.sh extra
# Two rounds: the arms rotate by one, the clock once per round.
bash bench/paprun-overhead.sh --dry-run -r 2 -n 1000 | sed 's/: .*//' > "$tmp/order"
printf '%s\n' "round 1 plain" "round 1 pass" "round 1 trace" "round 1 report" "round 1 clock" \
    "round 2 pass" "round 2 trace" "round 2 report" "round 2 plain" "round 2 clock" > "$tmp/order.want"
cmp -s "$tmp/order" "$tmp/order.want" || { cat "$tmp/order" >&2; fail "$P --dry-run: wrong order"; }
bash bench/paprun-overhead.sh --dry-run -r 1 -n 1000 -b 10 -p 3 -s 1K > "$tmp/dry"
grep -q "^round 1 trace: .* -np 3 bin/paprun --trace [^ ]*/trace.1 -- bin/mpicall -s 1024 -n 1000 -b 10\$" "$tmp/dry" ||
    { cat "$tmp/dry" >&2; fail "$P --dry-run: wrong traced command"; }
# Figures of three rounds:  plain 300 310 290 (median 300, 290..310);
# pass 320 330 300 (median 320; per round +20 +20 +10: median +20);
# trace 400 390 350 (median 390, +90 to plain's median; per round
# +100 +80 +60: median +80); report missing; rdtsc 10 12 11 (median 11):
# budget 2 x 11 + 100 = 122, 80 / 122 = 0.66.  Least blocks: plain 280
# 270 (median 275), trace 320 340 (330: +55), pass none.
mkdir "$tmp/ov"
printf '300\n310\n290\n' > "$tmp/ov/plain"
printf '320\n330\n300\n' > "$tmp/ov/pass"
printf '400\n390\n350\n' > "$tmp/ov/trace"
printf '280\n270\n' > "$tmp/ov/plain.least"
printf '320\n340\n' > "$tmp/ov/trace.least"
printf 'rdtsc 10\nmonotonic_raw 22\nrdtsc 12\nmonotonic_raw 20\nrdtsc 11\nmonotonic_raw 21\n' > "$tmp/ov/clock"
bash bench/paprun-overhead.sh --table "$tmp/ov" > "$tmp/t"
has "$tmp/t" "| plain | 300.0 | 290.0 | 310.0 | - | - | 275.0 | - |"
has "$tmp/t" "| pass | 320.0 | 300.0 | 330.0 | +20.0 | +20.0 (+10.0..+20.0) | nan | nan |"
has "$tmp/t" "| trace | 390.0 | 350.0 | 400.0 | +90.0 | +80.0 (+60.0..+100.0) | 330.0 | +55.0 |"
has "$tmp/t" "| report | not measured | | | | | | |"
has "$tmp/t" "clock (rdtsc): 11.00 ns per read (median of 3 rounds); goal: traced - plain <= 2 x clock + 100 = 122.0 ns per call"
has "$tmp/t" "trace (median of the per-round differences): met: +80.0 ns <= 122.0 ns (0.66x the budget)"
has "$tmp/t" "trace (least blocks, difference of the medians): +55.0 ns, 0.45x the budget"
# A real round, tiny: every arm runs under the library and gives its figures.
bash bench/paprun-overhead.sh -r 1 -n 2000 -b 2 -k "$tmp/real" > "$tmp/t" 2> "$tmp/err" ||
    { cat "$tmp/err" >&2; fail "$P -r 1 -n 2000: failed"; }
for a in plain pass trace report plain.least trace.least; do
    grep -qE '^[0-9]+\.[0-9]$' "$tmp/real/$a" || { cat "$tmp/t" >&2; fail "$P: no figure for $a"; }
done
[ "$(grep -c '^rdtsc \|^monotonic_raw ' "$tmp/real/clock")" -ge 1 ] || fail "$P: no clock figure"
expect_count "$tmp/t" 1 "trace (median of the per-round differences): "
# monotonic_raw 22 20 21: median 21, budget 142; a slower trace misses it:
# 450 460 440 against 300 310 290 is +150 each round, 150 / 142 = 1.06.
printf '450\n460\n440\n' > "$tmp/ov/trace"
bash bench/paprun-overhead.sh -C monotonic_raw --table "$tmp/ov" > "$tmp/t"
has "$tmp/t" "trace (median of the per-round differences): NOT met: +150.0 ns > 142.0 ns (1.06x the budget)"

# ---- bench/paprun-osu.sh ---------------------------------------------------
P=paprun-osu.sh
bad $P "-m: '4:2M' is out of range, expected 4 <= MIN <= MAX <= 1M" bash bench/paprun-osu.sh -m 4:2M x
bad $P "-m: '64' is not MIN:MAX, expected sizes in 4..1M (K, M suffixes)" bash bench/paprun-osu.sh -m 64 x
bad $P "-p: '0' is out of range, expected 1..64" bash bench/paprun-osu.sh -p "2 0" x
bad $P "no OSU_DIR given, expected the directory of the user's osu_allreduce and osu_bcast" env -u OSU_ALLREDUCE bash bench/paprun-osu.sh
bad $P "unexpected argument 'b', expected one OSU_DIR" bash bench/paprun-osu.sh a b
# A dry run against stand-ins for the OSU binaries (never run): 12 arms
# per NP and round, Open MPI's algorithm numbers from ompi_info.
mkdir "$tmp/osu"
printf '#!/bin/sh\nexit 1\n' > "$tmp/osu/osu_allreduce"; cp "$tmp/osu/osu_allreduce" "$tmp/osu/osu_bcast"
chmod +x "$tmp/osu/osu_allreduce" "$tmp/osu/osu_bcast"
bash bench/paprun-osu.sh --dry-run -r 2 -p 2 "$tmp/osu" > "$tmp/dry"
[ "$(grep -c '^round 1: ' "$tmp/dry")" -eq 12 ] && [ "$(grep -c '^round 2: ' "$tmp/dry")" -eq 12 ] &&
    [ "$(grep -c '^check: ' "$tmp/dry")" -eq 12 ] || { cat "$tmp/dry" >&2; fail "$P --dry-run: not 12 runs a round"; }
rd=$(ompi_info --param coll tuned --level 9 | grep -o '[0-9]*:"recursive_doubling"' | cut -d: -f1)
grep -q "^round 1: .* -np 2 --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm $rd --mca coll_tuned_allreduce_algorithm_segmentsize 0 $tmp/osu/osu_allreduce -T mpi_int -f -m 4:1048576\$" "$tmp/dry" ||
    { cat "$tmp/dry" >&2; fail "$P --dry-run: no Open MPI rd arm (algorithm $rd)"; }
grep -q "^round 2: .* -np 2 bin/paprun --algo bcast:\*=chain -- $tmp/osu/osu_bcast -T mpi_int -f -m 4:1048576\$" "$tmp/dry" ||
    { cat "$tmp/dry" >&2; fail "$P --dry-run: no paprun chain arm"; }
# Round 2 starts with the second arm of round 1.
[ "$(grep '^round 1: ' "$tmp/dry" | sed -n 2p)" = "$(grep '^round 2: ' "$tmp/dry" | sed -n 1p | sed 's/^round 2/round 1/')" ] ||
    fail "$P --dry-run: round 2 is not round 1 rotated by one"
# Figures (round size µs): Open MPI's rd at 64 KiB 100 102 98 (median 100),
# paprun's 104 120 105 (median 105): 1.05; ring 200 / paprun 230 220 240
# (median 230): 1.15, over the goal; rabenseifner at 64 KiB missing; at
# 4 B rd 1.0 / 1.5 and 2.0 (median 1.75): 1.75, below 64 KiB so not a
# goal row.  np 4: ring at 1 MiB 1000 / 1050: 1.05.
mkdir "$tmp/osu-f"
printf '1 4 1.0\n1 65536 100\n2 65536 102\n3 65536 98\n' > "$tmp/osu-f/allreduce.ompi-rd.2"
printf '1 4 1.5\n2 4 2.0\n1 65536 104\n2 65536 120\n3 65536 105\n' > "$tmp/osu-f/allreduce.pap-rd.2"
printf '1 65536 200\n' > "$tmp/osu-f/allreduce.ompi-ring.2"
printf '1 65536 230\n2 65536 220\n3 65536 240\n' > "$tmp/osu-f/allreduce.pap-ring.2"
printf '1 4 3.0\n1 65536 90\n' > "$tmp/osu-f/allreduce.ompi.2"
printf '1 1048576 1000\n' > "$tmp/osu-f/allreduce.ompi-ring.4"
printf '1 1048576 1050\n' > "$tmp/osu-f/allreduce.pap-ring.4"
printf '1 4 2.5\n' > "$tmp/osu-f/bcast.ompi-binomial.2"
printf '1 4 2.0\n' > "$tmp/osu-f/bcast.pap-binomial.2"
printf 'allreduce pap-rd 2 19 19 0\nallreduce pap-ring 2 3 19 1\n' > "$tmp/osu-f/check"
bash bench/paprun-osu.sh --table "$tmp/osu-f" > "$tmp/t"
has "$tmp/t" "| 4 B | 3.00 | 1.00 | 1.75 | **1.75** | - | - | **-** | - | - | **-** |"
has "$tmp/t" "| 64 KiB | 90.00 | 100.00 | 105.00 | **1.05** | 200.00 | 230.00 | **1.15** | - | - | **-** |"
has "$tmp/t" "| 1 MiB | - | - | - | **-** | 1000.00 | 1050.00 | **1.05** | - | - | **-** |"
has "$tmp/t" "Goal (allreduce, rd, ring and Rabenseifner within 1.10x of Open MPI's same algorithm from 64 KiB up): 2 of 3 rows within 1.10x; not within: ring np 2 64 KiB 1.15x;"
has "$tmp/t" "| 4 B | - | 2.50 | 2.00 | **0.80** | - | - | **-** |"
has "$tmp/t" "| allreduce | pap-rd | pass 19/19 (exit 0) | - |"
has "$tmp/t" "| allreduce | pap-ring | **FAIL** 3/19 (exit 1) | - |"
expect_count "$tmp/t" 1 "**allreduce, np 4 (oversubscribed: 4 ranks on $(nproc) cores)**"

# ---- bench/paprun-app.sh ---------------------------------------------------
P=paprun-app.sh
bad $P "-N: '5' is out of range, expected 100..100000" bash bench/paprun-app.sh -N 5
bad $P "-r: 'two' is not a whole number, expected 1..101" bash bench/paprun-app.sh -r two
bad $P "option '--compare' requires two hpccoutf.txt files" bash bench/paprun-app.sh --compare a
bash bench/paprun-app.sh --dry-run -r 1 -1 'allreduce:*=rd' > "$tmp/dry"
[ "$(grep -c '^round 1 ' "$tmp/dry")" -eq 4 ] || { cat "$tmp/dry" >&2; fail "$P --dry-run: not 4 arms"; }
grep -q "^round 1 rules1: .* -np 4 $PWD/bin/paprun --algo allreduce:\*=rd -- " "$tmp/dry" ||
    { cat "$tmp/dry" >&2; fail "$P --dry-run: -1 not used"; }
# Two hpccoutf.txt fragments: timings differ (ignored), a residual differs (not).
cat > "$tmp/a.txt" <<'EOF'
WALL   500   500  80  80   2   2     0.00 PASSED    1.191  0.00
Scaled residual: 0.03425
||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=        0.0072510 ...... PASSED
HPL_Tflops=0.00301286
HPL_RnormI=2.40163e-12
MPIFFT_maxErr=1.29948e-15
EOF
sed -e 's/1.191/2.5/' -e 's/0.03425/0.0302926/' -e 's/=0.00301286/=0.004/' "$tmp/a.txt" > "$tmp/b.txt"
sed 's/2.40163e-12/2.40164e-12/' "$tmp/a.txt" > "$tmp/c.txt"
bash bench/paprun-app.sh --compare "$tmp/a.txt" "$tmp/b.txt" > "$tmp/t" || fail "$P --compare: timings counted as results"
has "$tmp/t" "identical: 4 result lines"
has "$tmp/t" "PTRANS WALL 500 500 check PASSED resid 0.00"
if bash bench/paprun-app.sh --compare "$tmp/a.txt" "$tmp/c.txt" > "$tmp/t"; then fail "$P --compare: a changed residual passed"; fi
has "$tmp/t" "> HPL_RnormI=2.40164e-12"
echo "paprun bench scripts: ok"
