#!/bin/sh
# bin/sweep (tools/sweep, docs/pathgen.md "Sweeps"): --help and usage errors;
# a missing or invalid pathmap; a real sweep of two local pathmaps with
# tracing (the table's structure and arithmetic, the CSV, the interleaved
# order); --vary and --analyze through a fake pathgen (what it was asked to
# generate, the reports, the timemap, the advice); --follow-advice through the
# fake pathgen's advice (a failing edit skipped, a faster tree kept, an
# unchanged one and a slower one refused).  The fake pathgen keeps this test
# independent of pathgen's own state; its advice CSV is the documented one
# (rank,rule,gain_us,edit,reason).  About 25 mpirun launches, ~15 s.
set -eu
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
S=bin/sweep
L=pathmaps/local

# --- help, usage errors (exit 2, a usage line on stderr)
$S --help > "$tmp/help" 2>&1 || fail "--help failed"
grep -q '^usage: sweep ' "$tmp/help" || fail "--help: no usage line"
grep -q -- '--follow-advice' "$tmp/help" || fail "--help: --follow-advice missing"
usage_error() {
  set +e; $S "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?; set -e
  [ "$rc" -eq 2 ] || { cat "$tmp/err" >&2; fail "exit $rc, not 2: sweep $*"; }
  grep -q '^usage: sweep ' "$tmp/err" || { cat "$tmp/err" >&2; fail "no usage line: sweep $*"; }
}
usage_error --bogus $L/nary-2x2.pathmap
usage_error
usage_error -n 0 $L/nary-2x2.pathmap
usage_error -r x $L/nary-2x2.pathmap
usage_error --vary 'shape=quad,binary' $L/nary-2x2.pathmap
usage_error --pathgen '--hosts 2' --vary 'shape'
usage_error --bench osu $L/nary-2x2.pathmap
grep -q "invalid choice: 'osu'" "$tmp/err" || fail "--bench osu: message"

# --- bad input: exit 1, the file named
set +e
$S $L/nary-2x2.pathmap "$tmp/no-such.pathmap" -n 10 > "$tmp/out" 2> "$tmp/err"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "missing pathmap: exit $rc, not 1"
grep -qx "sweep: $tmp/no-such.pathmap: no such pathmap" "$tmp/err" || { cat "$tmp/err" >&2; fail "missing pathmap: message"; }
printf 'host a\ntree t type=int32 op=sum\nbogus\n' > "$tmp/bad.pathmap"
run_fails 30 "$tmp/err" $S "$tmp/bad.pathmap" -n 10
grep -q "sweep: $tmp/bad.pathmap: not a valid pathmap" "$tmp/err" || { cat "$tmp/err" >&2; fail "bad pathmap: message"; }

: > "$tmp/exists.csv"
run_fails 30 "$tmp/err" $S $L/nary-2x2.pathmap -n 10 --csv "$tmp/exists.csv"
grep -qx "sweep: $tmp/exists.csv: exists (--force replaces it)" "$tmp/err" || { cat "$tmp/err" >&2; fail "existing csv"; }
[ ! -s "$tmp/exists.csv" ] || fail "existing csv written"

# --- a traced sweep of two pathmaps, 2 rounds
$S $L/nary-2x2.pathmap $L/binary-2x4.pathmap -n 200 -w 10 -r 2 --trace --csv "$tmp/t.csv" \
  > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/out" "$tmp/err" >&2; fail "sweep failed"; }
cat "$tmp/out"
rows=$(grep -vc '^#' "$tmp/out")
[ "$rows" -eq 3 ] || fail "expected a header and 2 rows, got $rows lines"
grep -q '^config  *hosts x thr  *depth  *us/allreduce  *min\.\.max  *speedup  *step  *traced us  *slowdown$' "$tmp/out" ||
  fail "table header"
# Shapes and depths from pathmaps/README.md's table (nary-2x2: 2 x 2, depth 4;
# binary-2x4: 2 x 4, depth 5).
grep -q '^nary-2x2  *2x2  *4 ' "$tmp/out" || fail "nary-2x2 row"
grep -q '^binary-2x4  *2x4  *5 ' "$tmp/out" || fail "binary-2x4 row"
# Each row: min <= median <= max, speedup = first median / median, step =
# previous median / median, slowdown = traced / untraced (to the printed
# precision), the first row's speedup and step exactly 1.00.
awk '!/^#/ && $1 != "config" {
       split($5, mm, /\.\./); med = $4 + 0
       if (!(med > 0 && mm[1] + 0 <= med && med <= mm[2] + 0)) { print "min/median/max: " $0; bad = 1 }
       n++; if (n == 1) { first = med; if ($6 != "1.00" || $7 != "1.00") { print "first: " $0; bad = 1 } }
       d = first / med - $6; if (d < -0.011 || d > 0.011) { print "speedup: " $0; bad = 1 }
       if (n > 1) { d = prev / med - $7; if (d < -0.011 || d > 0.011) { print "step: " $0; bad = 1 } }
       if (!($8 > 0)) { print "traced: " $0; bad = 1 }
       d = $8 / med - $9; if (d < -0.011 || d > 0.011) { print "slowdown: " $0; bad = 1 }
       prev = med }
     END { exit bad + (n != 2) }' "$tmp/out" || fail "table arithmetic"
# The CSV: the same medians, 2 runs each.
head -1 "$tmp/t.csv" | grep -q '^config,hosts,threads,depth,runs,median_us,min_us,max_us,speedup,step,traced_us' ||
  fail "csv header"
awk -F, 'NR > 1 { n++; if ($5 != 2) bad = 1; if ($1 == "nary-2x2" && ($2 != 2 || $3 != 4 || $4 != 4)) bad = 1
                  if ($1 == "binary-2x4" && ($2 != 2 || $3 != 8 || $4 != 5)) bad = 1 }
         END { exit bad + (n != 2) }' "$tmp/t.csv" || { cat "$tmp/t.csv" >&2; fail "csv rows"; }
for c in nary-2x2 binary-2x4; do
  t=$(awk -v c=$c '$1 == c { print $4 }' "$tmp/out")
  v=$(awk -F, -v c=$c '$1 == c { print $6 }' "$tmp/t.csv")
  awk -v t="$t" -v v="$v" 'BEGIN { d = t - v; exit !(t > 0 && d <= 0.0051 && d >= -0.0051) }' ||
    fail "csv median of $c: $v, table $t"
done
# Progress on stderr, in the interleaved order: round 1 as given, round 2 rotated.
grep 'sweep: run \[' "$tmp/err" | sed 's/.*round \([0-9]\)\/2, \([a-z0-9-]*\):.*/\1 \2/' | tr '\n' ' ' > "$tmp/order"
[ "$(cat "$tmp/order")" = "1 nary-2x2 1 binary-2x4 2 binary-2x4 2 nary-2x2 " ] ||
  { cat "$tmp/err" >&2; fail "run order: $(cat "$tmp/order")"; }
grep -q 'traced' "$tmp/err" || fail "progress: no traced times"

# --- a fake pathgen: generate copies pathmaps/local/SHAPE-2x4; edit "to NAME"
# copies NAME's pathmap, any other edit fails; advise prints three advices.
fake=$tmp/pathgen
cat > "$fake" <<EOF
#!/bin/sh
echo "\$*" >> "$tmp/pathgen.log"
out=; prev=; shape=
for a in "\$@"; do
  [ "\$prev" = -o ] && out=\$a
  [ "\$prev" = --shape ] && shape=\$a
  prev=\$a
done
case \$1 in
advise)
  case "\$*" in
  *"--format csv"*)
    echo 'rank,rule,gain_us,edit,reason'
    echo '1,split,9.5,bogus-op cr0,"a ""quoted"" reason, with a comma"'
    echo '2,root,8.0,to local/pair-2x1,"the fast one"'
    echo '3,add-level,1.0,to paper/nary8w,"the slow one"' ;;
  *) echo "advice 1: fake advice for \$2" ;;
  esac ;;
edit)
  [ "\$3" = to ] || { echo "pathgen: edit: unknown operator '\$3'" >&2; exit 1; }
  cp "pathmaps/\$4.pathmap" "\$out" ;;
compare) cmp -s "\$2" "\$3" ;;
*) cp "pathmaps/local/\$shape-2x4.pathmap" "\$out" ;;
esac
EOF
chmod +x "$fake"

# --- --vary through the fake pathgen, --analyze
$S --pathgen-bin "$fake" --pathgen '--hosts 2 --threads-per-host 4 --shape nary' --vary 'shape=quad,binary' \
  -n 200 -w 10 -r 1 --analyze "$tmp/an" > "$tmp/out" 2> "$tmp/err" ||
  { cat "$tmp/out" "$tmp/err" >&2; fail "sweep --vary --analyze failed"; }
cat "$tmp/out"
grep -q "^--hosts 2 --threads-per-host 4 --shape quad -o $tmp/an/pathmaps/shape=quad.pathmap\$" "$tmp/pathgen.log" ||
  { cat "$tmp/pathgen.log" >&2; fail "pathgen generate args (quad)"; }
grep -q "^--hosts 2 --threads-per-host 4 --shape binary -o $tmp/an/pathmaps/shape=binary.pathmap\$" "$tmp/pathgen.log" ||
  fail "pathgen generate args (binary)"
grep -q '^shape=quad  *2x4  *4 ' "$tmp/out" || fail "quad row (quad-2x4: depth 4)"
grep -q '^shape=binary  *2x4  *5 ' "$tmp/out" || fail "binary row (binary-2x4: depth 5)"
for c in shape=quad shape=binary; do
  [ -s "$tmp/an/$c/report.txt" ] || fail "no report for $c"
  [ -s "$tmp/an/$c/traces.db" ] || fail "no database for $c"
done
grep -q '<svg' "$tmp/an/timemap-compare.svg" || fail "no timemap --compare"
grep -q 'shape=binary' "$tmp/an/timemap-compare.svg" || fail "timemap: label of the second"
slow=$(awk '!/^#/ && $1 != "config" { if ($4 + 0 > m) { m = $4 + 0; s = $1 } } END { print s }' "$tmp/out")
grep -q "^# advice for the slowest configuration, $slow " "$tmp/an/advice.txt" || fail "advice.txt header"
grep -q "^advice 1: fake advice for $tmp/an/$slow/traces.db\$" "$tmp/an/advice.txt" || fail "advice.txt body"
grep -q "^# advice for the slowest, $slow " "$tmp/out" || fail "advice on stdout"

# --- --follow-advice 2 from the 4 x 8 n-ary tree, through a fake mpirun whose
# untraced runs print gsum's row with a fixed time by the pathmap's first
# line (nary8w 100 us, pair-2x1 10 us; traced runs are real, for papanalyze): step 1 skips the failing edit
# and keeps pair-2x1 (speedup 10); step 2 finds pair-2x1 unchanged and the
# 4 x 8 tree slower (0.10), and stops.
cat > "$tmp/mpirun" <<EOF
#!/bin/sh
case "\$*" in *--trace*) exec $(mpirun_cmd) "\$@" ;; esac
prev=; for a in "\$@"; do [ "\$prev" = -p ] && pm=\$a; prev=\$a; done
case \$(head -1 "\$pm") in "# nary8w "*) t=100 ;; "# pair-2x1 "*) t=10 ;; *) exit 3 ;; esac
echo "# fake gsum"
echo "4  \$t  \$t  \$t  300"
EOF
chmod +x "$tmp/mpirun"
: > "$tmp/pathgen.log"
$S --pathgen-bin "$fake" --mpirun "$tmp/mpirun" pathmaps/paper/nary8w.pathmap --follow-advice 2 \
  -n 300 -w 10 -r 2 --work "$tmp/fw" > "$tmp/out" 2> "$tmp/err" ||
  { cat "$tmp/out" "$tmp/err" >&2; fail "--follow-advice failed"; }
cat "$tmp/out"
grep -q '^ *1  *1  *bogus-op cr0  *-  *-  *-  *edit failed: pathgen: edit: unknown operator .bogus-op.$' "$tmp/out" ||
  fail "step 1, advice 1: the failing edit"
grep -q '^ *1  *2  *to local/pair-2x1  *100.00  *10.00  *10.00  *kept$' "$tmp/out" || fail "step 1 kept"
grep -q '^ *2  *1  *bogus-op cr0 .*edit failed' "$tmp/out" || fail "step 2, advice 1: the failing edit"
grep -q '^ *2  *2  *to local/pair-2x1  *-  *-  *-  *no change$' "$tmp/out" || fail "step 2, advice 2: no change"
grep -q '^ *2  *3  *to paper/nary8w  *10.00  *100.00  *0.10  *slower, dropped$' "$tmp/out" || fail "step 2, advice 3: slower"
[ "$(grep -c '^ *[0-9]' "$tmp/out")" -eq 5 ] || fail "5 rows of follow-advice"
grep -q '^# kept 1 step(s); accumulated speedup 10.00 .*; stopped: step 2: no advice made step1.2 faster$' "$tmp/out" ||
  fail "summary"
grep -q '^# measured: nary8w 100.00 us -> final 10.00 us, speedup 10.00$' "$tmp/out" || fail "final measurement"
cmp -s "$tmp/fw/follow/step1-try2.pathmap" $L/pair-2x1.pathmap || fail "final pathmap"
grep -q "^# final pathmap: $tmp/fw/follow/step1-try2.pathmap\$" "$tmp/out" || fail "final pathmap line"
grep -q "^advise $tmp/fw/follow/step0.db --format csv\$" "$tmp/pathgen.log" || fail "advise of step 0's database"
grep -q "^edit pathmaps/paper/nary8w.pathmap bogus-op cr0 -o $tmp/fw/follow/step1-try1.pathmap\$" "$tmp/pathgen.log" ||
  fail "edit command"
echo "sweep: ok"
