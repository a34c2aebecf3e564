#!/bin/sh
# advise.sh - the advice (pathgen advise DB, papanalyze --advise) against
# values worked out by hand, and on real Gsum runs for its structure.
#
#   sh tests/analyze/advise.sh           (from the repository root, after make)
#
# Part 1: the synthetic traces of build/tests/synth_trace (their tables are
# in tests/oracles/synth_trace.c; tests/analyze/synthetic.sh checks the
# databases they give).  From those tables and the rules of docs/pathgen.md
# ("Advice"), each expected advice, gain and figure is worked out below with
# the arithmetic next to it, never from the program's output.  T is the
# slowest thread's mean time per allreduce (t4 - t1 at its entry wrapper).
# The move rule (8) fires on movable, a scenario made for it (every
# condition and figure worked out below); gred3 with --skip 2 meets all its
# conditions but the lateness of its own.  Its edit must apply to movable's
# pathmap and to the tree of t_advise.c's move cases, and give the trees
# worked out by hand.
# Part 2: the command lines (formats, --max, --pathmap, refusals, usage).
# Part 3: three small Gsum runs (mpirun, about 2 s each): whatever fires
# must name wrappers and hosts of the pathmap, and edits that cannot apply
# to that tree must not be advised.  When `pathgen edit` is built, every
# advised edit must apply to the pathmap.
# Environment: KEEP=1 keeps the temporary directory; NO_MPI=1 skips part 3.
set -eu
. tests/lib.sh

PA=bin/papanalyze
PG=bin/pathgen
SYNTH=build/tests/synth_trace
CHECK=build/tests/trace_check
ME=advise.sh
for p in $PA $PG $SYNTH $CHECK; do
    [ -x "$p" ] || fail "$p is not built (run make first)"
done
T=$(mktemp -d "${TMPDIR:-/tmp}/advise.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "$ME: keeping $T"; else trap 'rm -rf "$T"' EXIT; fi
NCHECKS=0

ok() { NCHECKS=$((NCHECKS + 1)); }

# synth SCENARIO: writes the trace and its pathmap, analyses it (--skip 0)
synth() {
    "$SYNTH" --pathmap-out "$T/$1.pathmap" "$1" "$T/$1" >/dev/null 2>&1 ||
        fail "[$1] $SYNTH $1 failed"
    $PA --skip 0 -q "$T/$1/traces.otf2" || fail "[$1] papanalyze failed"
    DB=$T/$1/traces.db
}

# csv SCENARIO: the CSV advice of $DB into $T/SCENARIO.csv
csv() {
    $PG advise --format csv "$DB" >"$T/$1.csv" 2>"$T/$1.err" ||
        fail "[$1] pathgen advise --format csv: exit $?: $(cat "$T/$1.err")"
    [ "$(sed -n 1p "$T/$1.csv")" = "rank,rule,gain_us,edit,reason" ] ||
        fail "[$1] CSV header: $(sed -n 1p "$T/$1.csv")"
    ok
}

# row SCENARIO RANK "rank,rule,gain_us,edit": the row's first four fields
row() {
    got=$(awk -F, -v r="$2" 'NR > 1 && $1 == r { print $1 "," $2 "," $3 "," $4 }' "$T/$1.csv")
    [ "$got" = "$3" ] || fail "[$1] advice $2: expected '$3', got '$got'"
    ok
}

# rows SCENARIO N: N advice
rows() {
    n=$(($(wc -l <"$T/$1.csv") - 1))
    [ "$n" -eq "$2" ] || fail "[$1] $n advice, expected $2: $(cat "$T/$1.csv")"
    ok
}

# reason SCENARIO RANK TEXT: the reason of that advice contains TEXT
reason() {
    awk -F, -v r="$2" 'NR > 1 && $1 == r' "$T/$1.csv" | grep -qF -- "$3" ||
        fail "[$1] advice $2: no '$3' in: $(awk -F, -v r="$2" 'NR > 1 && $1 == r' "$T/$1.csv")"
    ok
}

# names PATHMAP CSV: every advised edit names a gred or a host of PATHMAP and
# is one of the operators of gen/api/gen_edit.h
names() {
    tail -n +2 "$2" | cut -d, -f4 | while read -r op a1 a2; do
        case $op in
        add-level | remove-level | add-link | remove-link)
            awk -v n="$a1" '$1 == "gred" && $2 == n { f = 1 } END { exit !f }' "$1" ||
                fail "$2: $op $a1: no gred $a1 in $1" ;;
        root)
            awk -v n="$a1" '$1 == "host" && $2 == n { f = 1 } END { exit !f }' "$1" ||
                fail "$2: root $a1: no host $a1 in $1" ;;
        move)
            awk -v n="$a1" '$1 == "gred" && $2 == n { f = 1 } END { exit !f }' "$1" ||
                fail "$2: move $a1: no gred $a1 in $1"
            awk -v n="$a2" '$1 == "host" && $2 == n { f = 1 } END { exit !f }' "$1" ||
                fail "$2: move $a1 $a2: no host $a2 in $1" ;;
        split)
            case "$a1 $a2" in [1-9]*" last" | [1-9]*" first") ;; *) fail "$2: split $a1 $a2" ;; esac ;;
        unsplit) ;;
        algo)
            case $a1 in run=*) ;; *) fail "$2: algo $a1" ;; esac ;;
        *) fail "$2: unknown edit '$op $a1 $a2'" ;;
        esac
    done
    ok
}

# ============================================================ part 1: by hand
#
# gred3: root (core, A) <- top (gred, A) <- g0 (gred, A, threads 0-2) and
# p1 (proxy, B) <- g1 (gred, B, threads 3, 4); 3 operations.
#   thread totals: th0 (800 + 220 + 490) / 3 = 503.33, th1 (580 + 600 + 300)
#   / 3, th2 (380 + 500 + 590) / 3, th3 (890 + 830 + 750) / 3 = 823.33,
#   th4 (700 + 870 + 620) / 3 = 730: T = 823.33 (thread 3).
#   algo: p1's latency (t4 - t1) - (t3 - t2) = 530, 430, 460, mean 473.33 =
#   threads 3's and 4's proxy stages (down + up); 473.33 / 823.33 = 57.5 %
#   >= 40 %: fires, gain 0.473 us (thread 3 first of the tie).
#   add-level g0 (host subtree, fan-in 3): up 20, 30, 20 (mean 23.33) +
#   mean departure wait (20 + 50 + 0 + 40 + 0 + 20 + 40 + 0 + 40) / 9 =
#   23.33: 46.67 < 10 % of T (82.33): does not fire.  g1, top: fan-in 2.
#   root: host A (the root host) arrives last in every operation: no.
synth gred3
csv gred3
rows gred3 1
row gred3 1 "1,algo,0.473,algo run=rd"
reason gred3 1 "proxy stages take 0.47 us of thread 3's 0.82 us per allreduce (57.5 % of the slowest thread's time, 0.82 us)"
names "$T/gred3.pathmap" "$T/gred3.csv"
# text: the command edits the traced pathmap (meta pathmap_path) or --pathmap
$PG advise "$DB" >"$T/gred3.txt" || fail "[gred3] text"
[ "$(sed -n 1p "$T/gred3.txt")" = "advice 1: algo run=rd" ] || fail "[gred3] text line 1: $(sed -n 1p "$T/gred3.txt")"
[ "$(sed -n 2p "$T/gred3.txt")" = "  gain: at most 0.47 us per allreduce" ] || fail "[gred3] text gain"
grep -q '^  why: proxy stages take 0.47 us' "$T/gred3.txt" || fail "[gred3] text why"
grep -qx '  run: pathgen edit synthetic/gred3.pathmap algo run=rd -o NEW.pathmap' "$T/gred3.txt" ||
    fail "[gred3] text run: $(grep run: "$T/gred3.txt")"
$PG advise --pathmap "my dir/x.pathmap" "$DB" | grep -qx "  run: pathgen edit 'my dir/x.pathmap' algo run=rd -o NEW.pathmap" ||
    fail "[gred3] --pathmap with a space is not quoted for the shell"
ok

# gred3 with --skip 2 (op 2 alone; times below relative to its first
# arrival, th2's 20050): rule 8 (move) sees its conditions met but one.  At
# top (on A), p1 (contributor 1, from B) arrives last (20450 > g0's 20330:
# 100 % >= 75 %) and g0 waits 120 ns for it; T = th3's 20850 - 20100 =
# 750, 10 % = 75 <= 120.  Its own lateness: threads 3, 4 arrive at a = 50,
# 150 (mean 100), threads 0-2 at 100, 250, 0 (mean 116.67): -16.67; they
# leave at f = 800, 770 (mean 785) and 590, 550, 590 (576.67): the echo
# 208.33; own -16.67 - 208.33 = -225 < 75: no move.  g0's last arrival is
# thread 1 and g1's thread 4, local: nothing to move there.  The rest:
# algo, p1's 20800 - 20220 - (20570 - 20450) = 460 of th3's 750 (61.3 %);
# add-level g0: up 20600 - 20580 = 20 + departure waits (40 + 0 + 40) / 3 =
# 46.67 < 75; root: host A's last thread (20300) arrives after B's (20200).
$PA --skip 2 -q -o "$T/gred3-skip2.db" "$T/gred3/traces.otf2" || fail "[gred3 --skip 2] papanalyze"
DB=$T/gred3-skip2.db
csv gred3-skip2
rows gred3-skip2 1
row gred3-skip2 1 "1,algo,0.460,algo run=rd"
reason gred3-skip2 1 "proxy stages take 0.46 us of thread 3's 0.75 us per allreduce (61.3 % of the slowest thread's time"

# wide: g (gred, A) has 100 contributors: c0 = q (proxy from B, thread 99),
# c1..c99 = threads 0..98; per operation (r0 = its start):
#   T = thread 99's q visit, 5000 (threads 0-97: 1300, thread 98: 220).
#   algo: q's latency 5000 - (2500 - 50) = 2550 (its parent g's visit by the
#   service), 2550 / 5000 = 51.0 %: fires, gain 2.550 us.
#   add-level g: g is in the cluster root (thread 99 of B is below it), its
#   only member; up = t4,f - t3 = 1300 - 1200 = 100; departure waits c0 2500
#   - 1300 = 1200, c(1+i) 100 + 10 i (i = 0..97: 9800 + 10 x 4753 = 57330),
#   c99 0: mean 58530 / 100 = 585.3; cost 685.3 = 13.7 % of 5000: fires,
#   gain 0.685 us, gap 2 x 585.3 / 99 = 11.8 ns ("0.01 us").
#   ranked: algo (2550) before add-level (685.3).
#   root: A arrives last (thread 98 at r0 + 1080, B's at r0): no.
synth wide
csv wide
rows wide 2
row wide 1 "1,algo,2.550,algo run=rd"
row wide 2 "2,add-level,0.685,add-level g"
reason wide 1 "proxy stages take 2.55 us of thread 99's 5.00 us per allreduce (51.0 %"
reason wide 2 "gred g (fan-in 100): its contributors leave 0.01 us apart on average (mean departure wait 0.59 us) and its up latency is 0.10 us, 13.7 % of the slowest thread's time (5.00 us)"
names "$T/wide.pathmap" "$T/wide.csv"
$PG advise --format csv --max 1 "$DB" >"$T/wide1.csv" || fail "[wide] --max 1"
[ "$(wc -l <"$T/wide1.csv")" -eq 2 ] && grep -q '^1,algo,' "$T/wide1.csv" || fail "[wide] --max 1: $(cat "$T/wide1.csv")"
ok

# lastarr: g (gred, A) <- q (proxy, B; thread 2), threads 0 and 1; 2 ops.
#   T = thread 2's 900 (threads 0: (720 + 670) / 2, 1: (740 + 750) / 2).
#   algo: q's latency 900 - (800 - 50) = 150 = 16.7 % < 40 %: no.
#   add-level g (cluster root, fan-in 3): up 800 - 400 = 400 both ops;
#   departure waits 0, 20, 40 and 0, 20, 50: mean 130 / 6 = 21.67; cost
#   421.67 = 46.9 % of 900: fires, gain 0.422 us; gap 2 x 21.67 / 2 = 21.67.
synth lastarr
csv lastarr
rows lastarr 1
row lastarr 1 "1,add-level,0.422,add-level g"
reason lastarr 1 "gred g (fan-in 3): its contributors leave 0.02 us apart on average (mean departure wait 0.02 us) and its up latency is 0.40 us, 46.9 % of the slowest thread's time (0.90 us)"
names "$T/lastarr.pathmap" "$T/lastarr.csv"

# chain: one thread (on B) through a (B), p (proxy), b and c (A).
#   T = (12012 + 7007 + 9009 + 6006) / 4 = 8508.5; p's latency 6008, 2404,
#   3506, 2404: mean 3580.5 = 42.1 %, but one host has threads: an
#   algorithm node would span one host (gen_edit_algo refuses it), and
#   nobody waits for B (no root).  Greds of fan-in 1: no advice.
synth chain
csv chain
rows chain 0

# algo: an algorithm node at the root, gA and gB of fan-in 2 below it: no
# edit applies (only host subtrees could change, and theirs have 2
# contributors).  "no advice", also through papanalyze --advise.
synth algo
csv algo
rows algo 0
$PG advise "$DB" >"$T/algo.txt" || fail "[algo] text"
[ "$(cat "$T/algo.txt")" = 'no advice: no hotspot reaches the thresholds of docs/pathgen.md ("Advice")' ] ||
    fail "[algo] text: $(cat "$T/algo.txt")"
$PA --advise "$DB" >"$T/algo.pa" 2>&1 || fail "[algo] papanalyze --advise DB failed"
cmp -s "$T/algo.pa" "$T/algo.txt" || fail "[algo] papanalyze --advise DB: $(cat "$T/algo.pa")"
ok

# movable: root (core, A) <- cr0 (A) <- cr1.0 (A) <- pB (proxy, B; thread 1)
# and thread 0 (A); pC (proxy, C; thread 2) <- cr0.  2 ops; times of op 1
# after its r0 = 10000 (the table in synth_trace.c).
#   thread totals (t4 - t1 at the entry wrapper): th0 (750 - 100 + 950 -
#   100) / 2 = 750, th1 (840 - 340 + 1040 - 340) / 2 = 600, th2 (830 - 50 +
#   1000 - 700) / 2 = 540: T = 750 (thread 0), 10 % = 75, 40 % = 300.
#   proxy latencies: pB (840 - 340) - (740 - 440) = 200, (1040 - 340) - (940
#   - 440) = 200; pC (830 - 50) - (730 - 150) = 200, (1000 - 700) - (900 -
#   800) = 200.
#   move (rule 8) at cr1.0: pB (contributor 0) continues in both ops: last
#   in 100 % >= 75 %; it comes from B (thread 1 enters pB), cr1.0 is on A,
#   and thread 0 is from A; cr1.0 is not the core's child.  Thread 0 waits
#   440 - 100 = 340 in both ops: 340 >= 75.  pap_threads (t0 = the first
#   thread's t1: 50, th2's, in op 0; 10100, th0's, in op 1): a th0 50, 0
#   (mean 25), th1 290, 240 (mean 265): late 265 - 25 = 240; f th0 700, 850
#   (mean 775), th1 790, 940 (mean 865): echo 865 - 775 = 90; own 240 - 90 =
#   150 = 20.0 % of 750 >= 75.  gain min(200, 150, 340) = 150: 0.150 us.
#   algo: each thread's proxy stages (down + up = latency) 200 < 300: no.
#   root (rule 7): the last host (pap_hosts a, = the threads' a) is B in op 0
#   (290 > 50 > 0) and C in op 1 (600 > 240 > 0): 50 % each < 75 %: no.
#   move at cr0: the last arrival is cr1.0 in op 0 and pC in op 1: 50 %: no.
#   remove-level cr0 (cr1.0, toplevel, on cr0's host A): cr1.0's down 460 -
#   440 = 20 (both ops), up t4,f - t3 = 740 - 720 = 20 and 940 - 910 = 30
#   (25), departure waits 0, 10, 0, 10 (5): cost 50; minus cr0's added wait
#   (departure waits 0, 10, 10, 0: mean 5, gap 2 x 5 / 1 = 10; fan-in 2 -> 3:
#   10 x 1 / 2 = 5): 45 < 75: no.  add-level: no gred has 3 contributors;
#   split: cr1.0, the only toplevel member, holds thread 0 of the root host;
#   no host subtree (remove-link) and nothing off A (unsplit).
synth movable
$CHECK --ops 2 "$T/movable" "$T/movable.pathmap" >/dev/null 2>"$T/check.err" ||
    fail "[movable] trace_check rejects the trace: $(cat "$T/check.err")"
csv movable
rows movable 1
row movable 1 "1,move,0.150,move cr1.0 B"
reason movable 1 "at gred cr1.0, pB (from B) arrives last in 100.0 % of the operations and the others wait 0.34 us for it on average; its threads arrive 0.24 us after the others' and leave 0.09 us after them (the loop's echo): 0.15 us of lateness their own, 20.0 % of the slowest thread's time (0.75 us); its route costs 0.20 us per allreduce: with cr1.0 on B that hop"
names "$T/movable.pathmap" "$T/movable.csv"
$PG advise "$DB" >"$T/movable.txt" || fail "[movable] text"
[ "$(sed -n 1p "$T/movable.txt")" = "advice 1: move cr1.0 B" ] || fail "[movable] text line 1: $(sed -n 1p "$T/movable.txt")"
[ "$(sed -n 2p "$T/movable.txt")" = "  gain: at most 0.15 us per allreduce" ] || fail "[movable] text gain: $(sed -n 2p "$T/movable.txt")"
grep -qx '  run: pathgen edit synthetic/movable.pathmap move cr1.0 B -o NEW.pathmap' "$T/movable.txt" ||
    fail "[movable] text run: $(grep run: "$T/movable.txt")"
ok

# applies PATHMAP CSV: every advised edit of CSV applies to PATHMAP
applies() {
    tail -n +2 "$2" | cut -d, -f4 | while read -r e; do
        # shellcheck disable=SC2086 # the edit's words
        $PG edit "$1" $e -o "$T/edited.pathmap" --force >/dev/null 2>"$T/edit.err" ||
            fail "the advised 'pathgen edit $1 $e' fails: $(cat "$T/edit.err")"
    done
    ok
}
for s in gred3 wide lastarr movable; do applies "$T/$s.pathmap" "$T/$s.csv"; done

# moved TAG STEM WRAPPER TO FROM: `pathgen edit STEM.pathmap move WRAPPER TO`
# gives the tree of STEM-want.pathmap (written by hand), and moving it back
# to FROM gives STEM.pathmap again, names included (gen_edit.h: move then
# move back).
moved() {
    $PG edit "$T/$2.pathmap" move "$3" "$4" -o "$T/$2-got.pathmap" 2>"$T/edit.err" ||
        fail "[$1] pathgen edit move $3 $4: $(cat "$T/edit.err")"
    $PG compare "$T/$2-want.pathmap" "$T/$2-got.pathmap" >/dev/null 2>"$T/cmp.err" ||
        fail "[$1] the moved tree differs: $(cat "$T/cmp.err")"
    $PG edit "$T/$2-got.pathmap" move "$3" "$5" -o "$T/$2-back.pathmap" 2>"$T/edit.err" ||
        fail "[$1] moving back: $(cat "$T/edit.err")"
    $PG compare --names "$T/$2.pathmap" "$T/$2-back.pathmap" >/dev/null 2>"$T/cmp.err" ||
        fail "[$1] moved back, not the original: $(cat "$T/cmp.err")"
    ok
}

# move on movable's pathmap, as advised: cr1.0 on B, reached from cr0
# through a proxy of B; thread 1 enters it directly, thread 0 through a proxy
# of A; cr0, pC and thread 2 as they were.  Moving it back to A gives the
# original tree, names included (pB: the proxy of thread 1's host).
{
    cat >"$T/movable-want.pathmap" <<'PM'
host A
host B
host C
tree sum type=int32 op=sum
core  root  host=A
gred  cr0   host=A parent=root
proxy x     host=B parent=cr0
gred  cr1.0 host=B parent=x
proxy y     host=A parent=cr1.0
proxy pC    host=C parent=cr0
threads 0 host=A enter=y
threads 1 host=B enter=cr1.0
threads 2 host=C enter=pC
PM
    moved movable movable cr1.0 B A
}

# move (rule 8): the tree of tests/unit/advise/t_advise.c's move cases,
# where the rule advises "move cr1.0 host1"; the edit must apply and give the
# tree worked out by hand: cr1.0 on host1, reached from cr0 through a proxy
# of host1; h1 enters it directly, h0 through a proxy of host0 (proxies
# are declared on the contributor's host, as p1 and p2 here); moving it back
# gives the original (gen_edit.h: move then move back).
{
    cat >"$T/move3.pathmap" <<'PM'
host host0
host host1
host host2
tree sum type=int32 op=sum
core  root  host=host0
gred  cr0   host=host0 parent=root
gred  cr1.0 host=host0 parent=cr0
gred  h0    host=host0 parent=cr1.0
proxy p1    host=host1 parent=cr1.0
gred  h1    host=host1 parent=p1
proxy p2    host=host2 parent=cr0
gred  h2    host=host2 parent=p2
threads 0-1 host=host0 enter=h0
threads 2-3 host=host1 enter=h1
threads 4-5 host=host2 enter=h2
PM
    cat >"$T/move3-want.pathmap" <<'PM'
host host0
host host1
host host2
tree sum type=int32 op=sum
core  root  host=host0
gred  cr0   host=host0 parent=root
proxy x     host=host1 parent=cr0
gred  cr1.0 host=host1 parent=x
proxy y     host=host0 parent=cr1.0
gred  h0    host=host0 parent=y
gred  h1    host=host1 parent=cr1.0
proxy p2    host=host2 parent=cr0
gred  h2    host=host2 parent=p2
threads 0-1 host=host0 enter=h0
threads 2-3 host=host1 enter=h1
threads 4-5 host=host2 enter=h2
PM
    printf '%s\n' "rank,rule,gain_us,edit,reason" "1,move,15.000,move cr1.0 host1,\"\"" >"$T/move3.csv"
    names "$T/move3.pathmap" "$T/move3.csv"
    moved move move3 cr1.0 host1 host0
}

# ============================================================ part 2: commands
DB=$T/gred3/traces.db
# papanalyze --advise on a database: the advice instead of the report
$PA --advise "$DB" >"$T/pa.txt" || fail "papanalyze --advise DB"
$PG advise "$DB" >"$T/pg.txt"
cmp -s "$T/pa.txt" "$T/pg.txt" || fail "papanalyze --advise DB differs from pathgen advise DB"
$PA --advise -f csv "$DB" >"$T/pa.csv" && cmp -s "$T/pa.csv" "$T/gred3.csv" ||
    fail "papanalyze --advise -f csv DB differs from pathgen advise --format csv"
ok
# on a trace: the report, then the advice under its title
rm -f "$T/gred3/traces.db"
$PA --skip 0 --advise "$T/gred3/traces.otf2" >"$T/pa-trace.txt" 2>"$T/pa-trace.err" ||
    fail "papanalyze --advise TRACE: $(cat "$T/pa-trace.err")"
grep -q '^Hotspots: wrapper stages by mean time' "$T/pa-trace.txt" || fail "papanalyze --advise TRACE: no report"
sed -n '/^Advice: reconfigurations, best first/,$p' "$T/pa-trace.txt" | tail -n +2 >"$T/pa-tail.txt"
cmp -s "$T/pa-tail.txt" "$T/pg.txt" || fail "papanalyze --advise TRACE: the advice after the report differs"
# CSV after the report: the advice as one more table
$PA --skip 0 --advise -f csv -o "$T/g3.db" "$T/gred3/traces.otf2" >"$T/pa-trace.csv" 2>/dev/null ||
    fail "papanalyze --advise -f csv TRACE"
sed -n '/^# table: advice$/,$p' "$T/pa-trace.csv" | tail -n +2 >"$T/pa-tail.csv"
cmp -s "$T/pa-tail.csv" "$T/gred3.csv" || fail "papanalyze --advise -f csv TRACE: the advice table differs"
ok
# --no-report --advise: the advice alone on stdout
$PA --skip 0 --no-report --advise "$T/gred3/traces.otf2" >"$T/pa-only.txt" 2>/dev/null ||
    fail "papanalyze --no-report --advise TRACE"
cmp -s "$T/pa-only.txt" "$T/pg.txt" || fail "papanalyze --no-report --advise TRACE: $(head -3 "$T/pa-only.txt")"
ok
# refusals: the same messages as papanalyze DB.db (exit 1)
sqlite3 "$T/other.db" "CREATE TABLE x(a)"
for f in "$T/other.db" "$T/none.db"; do
    st=0; $PG advise "$f" >/dev/null 2>"$T/pg.err" || st=$?
    [ $st -eq 1 ] || fail "pathgen advise $f: exit $st, expected 1"
    st=0; $PA "$f" >/dev/null 2>"$T/pa.err" || st=$?
    [ $st -eq 1 ] || fail "papanalyze $f: exit $st"
    [ "$(sed 's/^pathgen: advise: //' "$T/pg.err")" = "$(sed 's/^papanalyze: //' "$T/pa.err")" ] ||
        fail "pathgen advise $f: '$(cat "$T/pg.err")', papanalyze: '$(cat "$T/pa.err")'"
done
grep -q "not a papanalyze database" "$T/pg.err" || grep -q "cannot open" "$T/pg.err" || fail "refusal text"
ok
# usage: --help on stdout exit 0; bad options exit 2 with a usage line
$PG advise --help | grep -q '^usage: pathgen advise DB' || fail "pathgen advise --help"
for args in "" "--format json $DB" "--max 0 $DB" "--bogus $DB" "$DB $DB"; do
    st=0
    # shellcheck disable=SC2086 # the words of each case
    $PG advise $args >/dev/null 2>"$T/usage.err" || st=$?
    [ $st -eq 2 ] && grep -q '^usage: pathgen advise' "$T/usage.err" ||
        fail "pathgen advise $args: exit $st: $(cat "$T/usage.err")"
done
# ... and the first line says what is wrong (cm_opt's one form).
$PG advise --bogus "$DB" >/dev/null 2>"$T/usage.err" || true
[ "$(head -n 1 "$T/usage.err")" = "pathgen: advise: unknown option '--bogus'" ] ||
    fail "pathgen advise --bogus: $(head -n 1 "$T/usage.err")"
$PG advise --max 0 "$DB" >/dev/null 2>"$T/usage.err" || true
[ "$(head -n 1 "$T/usage.err")" = "pathgen: advise: --max: '0' is out of range, expected 1..1000000" ] ||
    fail "pathgen advise --max 0: $(head -n 1 "$T/usage.err")"
st=0; $PA --advise -f json "$DB" >/dev/null 2>&1 || st=$?
[ $st -eq 2 ] || fail "papanalyze --advise -f json: exit $st, expected 2"
ok

# ============================================================ part 3: Gsum
if [ "${NO_MPI:-0}" = 1 ]; then echo "$ME: ok: $NCHECKS checks (no Gsum runs)"; exit 0; fi

# run PATHMAP: a traced Gsum run on it, analysed, advice into $T/NAME.csv
run() {
    name=$(basename "$1" .pathmap)
    np=$(grep -c '^host' "$1")
    # shellcheck disable=SC2046 # mpirun_cmd is a word list
    $(mpirun_cmd) -np "$np" bin/gsum -p "$1" -n 1000 -w 20 --trace "$T/$name" >"$T/$name.out" 2>&1 ||
        { cat "$T/$name.out" >&2; fail "[$name] gsum --trace failed"; }
    $PA -q --skip 10 "$T/$name/traces.otf2" || fail "[$name] papanalyze"
    DB=$T/$name/traces.db
    csv "$name"
    names "$1" "$T/$name.csv"
    applies "$1" "$T/$name.csv"
}

# quad-2x4: greds of fan-in 4 (h0, h1) under cr0 (fan-in 2): add-level may
# fire on h0 or h1, never on cr0; no remove-level (one level each); not
# split, no links: no unsplit, split (one cluster level), remove-link.
run pathmaps/local/quad-2x4.pathmap
! grep -Eq ',(remove-level|unsplit|split|remove-link|add-level cr0),' "$T/quad-2x4.csv" ||
    fail "[quad-2x4] an edit that cannot apply: $(cat "$T/quad-2x4.csv")"
ok
# split-4x2: already split (cr1.1 on host3): never split; binary greds:
# never add-level; no links
run pathmaps/local/split-4x2.pathmap
! grep -Eq ',(split [0-9]|add-level|remove-link)' "$T/split-4x2.csv" ||
    fail "[split-4x2] an edit that cannot apply: $(cat "$T/split-4x2.csv")"
ok
# binary-extralinks-2x4: h1 on host0 fed by p1.0, p1.1: remove-link can
# only name h1; greds of fan-in 2: no add-level
run pathmaps/local/binary-extralinks-2x4.pathmap
! grep -Eq ',(add-level|remove-link h0|remove-link cr0|unsplit)' "$T/binary-extralinks-2x4.csv" ||
    fail "[binary-extralinks-2x4] an edit that cannot apply: $(cat "$T/binary-extralinks-2x4.csv")"
ok

echo "$ME: ok: $NCHECKS checks"
