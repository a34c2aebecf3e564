#!/bin/sh
# paprun --report's table (interpose/ip_report.c) from calls of known cost:
# build/tests/ip_report (tests/mpi/ip_report.c, whose header lists the
# calls) adds them on 3 ranks, or from 2 threads per rank on 2 ranks, and
# rank 0 prints the table.  Checked against the table worked out by hand
# below, character for character:
#   - per row: calls per rank (the most of any rank), bytes per call over
#     all ranks' calls, the algorithm, the mean time in the call (the mean
#     of the ranks' means), the spread (largest minus smallest rank mean),
#     the rank with the smallest mean ("last"), fallbacks per reason (the
#     most of any rank; most first), on a line of their own under the
#     collective when the row would be wider than 100 columns;
#   - the order: time lost waiting (spread x calls) first;
#   - the sites labelled by addr2line: function and file:line of the call
#     in tests/mpi/ip_report.c (the program is built with -g); a label
#     longer than the site column on a line of its own;
#   - two rows of one rank with the same algorithm text joined;
#   - two threads adding to one row at once: exact totals;
# with an addr2line that fails, every site of the program named
# module+offset; a site in the C library (no debug information) named by
# addr2line's symbol, or by dladdr's (qsort) when addr2line fails or is
# missing; an auto rule's row with its choices ("auto: prr 62%, ring 38%").
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
PROG=build/tests/ip_report
SRC=tests/mpi/ip_report.c
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$PROG" ] || fail "$PROG is missing (make all)"

line_of() { grep -n "/\* $1 \*/" "$SRC" | cut -d: -f1; }
LA=$(line_of SITE_A) LB=$(line_of SITE_B) LC=$(line_of SITE_C)
[ -n "$LA" ] && [ -n "$LB" ] && [ -n "$LC" ] || fail "SITE_ markers missing in $SRC"

run() {  # run NP MODE OUT [mpirun args...]
  np=$1 mode=$2 out=$3; shift 3
  timeout 60 $MPIRUN -np "$np" "$@" $PROG "$mode" "$out" > "$tmp/run.log" 2>&1 ||
    { cat "$tmp/run.log" >&2; fail "ip_report $mode on $np ranks failed"; }
}

same() {  # same EXPECTED ACTUAL WHAT
  diff -u "$1" "$2" >&2 || fail "$3: the table differs from the expected one (above)"
}

LEGEND='calls: per rank (the most of any rank); bytes: per call; mean: us in the call, over ranks;
spread: us, the slowest rank'"'"'s mean minus the fastest'"'"'s; last: the fastest rank, last to arrive'

# ---- 3 ranks --------------------------------------------------------------
# site_a, MPI_Allreduce, ring: rank means 1, 2, 3 us: mean 2.00, spread
#   2.00, last rank 0; 10 calls; lost 2 us x 10 = 20 us.
# site_b, MPI_Bcast, native: rank means 10, 7, 4 us: mean 7.00, spread
#   6.00, last rank 2; 5 calls; lost 6 x 5 = 30 us: first.  Fallbacks: count
#   3, 3, 4 -> 4; datatype 1, 1, 0 -> 1.
# site_with_a_long..., MPI_Reduce, rd: calls 1, 2, 3 -> 3; bytes 8 + 2 x 16
#   + 3 x 24 = 112 over 6 calls = 18.67 -> 19; every call 0.5 us: spread 0,
#   no last; lost 0: last.  Its label (61 characters) is longer than the
#   site column (24, the most) and gets a line of its own.
# site_b, MPI_Barrier, native: rank 1 only, 2 calls of 3 us: mean 3.00,
#   spread 0 (one rank), no last; lost 0 like the Reduce, but 6 us in the
#   call against 3 x 0.5 = 1.5 us: before it.
run 3 ranks "$tmp/ranks.txt"
{
  echo "paptree report: 3 ranks; per call site and collective, most time lost waiting first"
  echo "$LEGEND"
  echo "site                      collective     calls  bytes  algorithm  mean  spread  last  fallbacks"
  printf '%-24s  %s\n' "site_b ip_report.c:$LB" \
    "MPI_Bcast          5    100  native     7.00    6.00     2"
  echo "                          fallbacks: count: 4, datatype: 1"
  printf '%-24s  %s\n' "site_a ip_report.c:$LA" \
    "MPI_Allreduce     10     64  ring       2.00    2.00     0  -"
  printf '%-24s  %s\n' "site_b ip_report.c:$LB" \
    "MPI_Barrier        2      0  native     3.00    0.00     -  -"
  echo "site_with_a_long_function_name_for_the_report ip_report.c:$LC"
  echo "                          MPI_Reduce         3     19  rd         0.50    0.00     -  -"
} > "$tmp/ranks.expect"
same "$tmp/ranks.expect" "$tmp/ranks.txt" "3 ranks"

# ---- 2 ranks x 2 threads ----------------------------------------------------
# One row: per rank 2 x 200000 = 400000 calls; bytes (8 + 16) / 2 = 12;
# rank r's mean (1000 + 2000 r + 2000 + 2000 r) / 2 ns: 1.5 and 3.5 us, mean
# 2.50, spread 2.00, last rank 0; fallbacks op 200000 (thread 0), user-op
# 200000 / 4 = 50000 (thread 1).  Then 20 barrier rows x00..x19 of 2 calls
# (one per thread), 0 B, 1 us, no spread: in algorithm order.
run 2 threads "$tmp/threads.txt"
W=${#LA}; W=$((W + 19))   # "site_b ip_report.c:NN": 19 characters and the line number
{
  echo "paptree report: 2 ranks; per call site and collective, most time lost waiting first"
  echo "$LEGEND"
  printf '%-*s  %s\n' "$W" site \
    "collective      calls  bytes  algorithm  mean  spread  last  fallbacks"
  printf '%-*s  %s\n' "$W" "site_a ip_report.c:$LA" \
    "MPI_Allreduce  400000     12  ring       2.50    2.00     0"
  printf '%*s  fallbacks: op: 200000, user-op: 50000\n' "$W" ""
  i=0
  while [ $i -lt 20 ]; do
    printf '%-*s  MPI_Barrier         2      0  x%02d        1.00    0.00     -  -\n' \
      "$W" "site_b ip_report.c:$LB" $i
    i=$((i + 1))
  done
} > "$tmp/threads.expect"
same "$tmp/threads.expect" "$tmp/threads.txt" "2 threads"

# ---- no calls ------------------------------------------------------------------
run 2 empty "$tmp/empty.txt"
{
  echo "paptree report: 2 ranks; per call site and collective, most time lost waiting first"
  echo "$LEGEND"
  echo "no collective calls"
} > "$tmp/empty.expect"
same "$tmp/empty.expect" "$tmp/empty.txt" "no calls"

# ---- an addr2line that fails: module+offset ---------------------------------
# The sites are static functions of the executable, so dladdr has no
# symbol for them either: each is named by the program's base name and
# its offset, and the offsets are those of the functions (nm).
mkdir "$tmp/bin"
printf '#!/bin/sh\nexit 1\n' > "$tmp/bin/addr2line"
chmod +x "$tmp/bin/addr2line"
run 3 ranks "$tmp/noa2l.txt" -x PATH="$tmp/bin:$PATH"
n=$(grep -cE '^ip_report\+0x[0-9a-f]+ +MPI_(Bcast|Allreduce|Reduce|Barrier) ' "$tmp/noa2l.txt" || true)
[ "$n" = 4 ] || { cat "$tmp/noa2l.txt" >&2; fail "without addr2line: expected 4 rows named ip_report+0xOFFSET, found $n"; }
for f in site_b:MPI_Bcast site_a:MPI_Allreduce site_with_a_long_function_name_for_the_report:MPI_Reduce; do
  fn=${f%%:*} coll=${f#*:}
  off=$(grep -E "^ip_report\+0x[0-9a-f]+ +$coll " "$tmp/noa2l.txt" | sed 's/^ip_report+0x\([0-9a-f]*\) .*/\1/')
  [ -n "$off" ] || { cat "$tmp/noa2l.txt" >&2; fail "without addr2line: no $coll row"; }
  # The site lies in the function: start <= offset - 1 < start + size.
  set -- $(nm -S "$PROG" | awk -v fn="$fn" '$4 == fn { print $1, $2 }')
  [ $# = 2 ] || fail "nm -S $PROG: no single symbol $fn"
  o=$((0x$off - 1)) s=$((0x$1)) z=$((0x$2))
  [ "$s" -le "$o" ] && [ "$o" -lt $((s + z)) ] ||
    { cat "$tmp/noa2l.txt" >&2; fail "without addr2line: the $coll site 0x$off is not in $fn (0x$1, size 0x$2)"; }
done

# ---- a site in a shared library without debug information ---------------------
# 4 bytes into qsort.  Without addr2line: dladdr's symbol, qsort.  With
# it: what addr2line says of the C library's offset (function and
# file:line with libc's debug information installed, "__GI_qsort
# msort.c:307"; the function alone from its symbol table), or dladdr's
# symbol if it answers "??".  Rank means 1 and 2 us: mean 1.50, spread 1.00, last rank 0; 3
# calls of 32 B.
lib_expect() {  # lib_expect SITE
  w=${#1}; [ "$w" -ge 4 ] || w=4
  echo "paptree report: 2 ranks; per call site and collective, most time lost waiting first"
  echo "$LEGEND"
  printf '%-*s  %s\n' "$w" site "collective     calls  bytes  algorithm  mean  spread  last  fallbacks"
  printf '%-*s  %s\n' "$w" "$1" "MPI_Allgather      3     32  native     1.50    1.00     0  -"
}
LIBC=$(ldd "$PROG" | awk '$1 ~ /^libc\.so/ { print $3 }')
QSORT=$(nm -D --defined-only "$LIBC" | awk '$3 ~ /^qsort(@|$)/ { print $1 }')
[ -n "$LIBC" ] && [ -n "$QSORT" ] || fail "no qsort in the C library ($LIBC)"
addr2line -f -C -e "$LIBC" "$(printf '0x%x' $((0x$QSORT + 3)))" > "$tmp/a2l" 2>/dev/null || true
fn=$(sed -n 1p "$tmp/a2l") loc=$(sed -n 2p "$tmp/a2l" | sed 's/ (discriminator.*//')
case $loc in ''|'??'*|*:0|*:\?) loc= ;; *) loc=${loc##*/} ;; esac
case $fn in ''|'??') fn= ;; esac
name=${fn:-qsort}${fn:+${loc:+ $loc}}
[ -n "$fn" ] || [ -z "$loc" ] || name=$loc
lib_expect "$name" > "$tmp/lib.expect"
run 2 lib "$tmp/lib.txt"
same "$tmp/lib.expect" "$tmp/lib.txt" "a site in the C library"
lib_expect qsort > "$tmp/lib-noa2l.expect"
run 2 lib "$tmp/lib-noa2l.txt" -x PATH="$tmp/bin:$PATH"
same "$tmp/lib-noa2l.expect" "$tmp/lib-noa2l.txt" "a site in the C library, without addr2line"
# No addr2line at all (nothing on PATH): the same, and not a word on stderr.
run 2 lib "$tmp/lib-none.txt" -x PATH=/nonexistent
same "$tmp/lib-noa2l.expect" "$tmp/lib-none.txt" "a site in the C library, no addr2line on PATH"
[ ! -s "$tmp/run.log" ] || { cat "$tmp/run.log" >&2; fail "no addr2line on PATH: output on stdout or stderr"; }
echo "ok: ip_report ranks, threads, empty, without addr2line, lib"

# ---- an auto rule's choices -------------------------------------------------------
# 2 ranks, 9 calls each at site_a: 8 chose (prr 5, ring 3: 62.5% printed
# %.0f, rounded to even, 62; 37.5% -> 38), 1 fell back (count).  Rank means
# 1 and 2 us: mean 1.50, spread 1.00, last 0.  The algorithm column is 23
# wide; the row is 95 + 2 + 8 > 100 columns, so the fallbacks go below.
W=$((19 + ${#LA}))
{
  echo "paptree report: 2 ranks; per call site and collective, most time lost waiting first"
  echo "$LEGEND"
  printf '%-*s  %s\n' "$W" site "collective     calls  bytes  algorithm                mean  spread  last  fallbacks"
  printf '%-*s  %s\n' "$W" "site_a ip_report.c:$LA" "MPI_Allreduce      9     64  auto: prr 62%, ring 38%  1.50    1.00     0"
  printf '%*sfallbacks: count: 1\n' $((W + 2)) ""
} > "$tmp/auto.expect"
run 2 auto "$tmp/auto.txt"
same "$tmp/auto.expect" "$tmp/auto.txt" "an auto rule's choices"
