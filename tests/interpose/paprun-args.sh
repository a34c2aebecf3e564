#!/bin/sh
# paprun-args.sh - bin/paprun's command line and what it hands the program
# (docs/paprun.md): every refusal is one line on stderr, a non-zero exit,
# and the program never starts (it would create $tmp/ran); a good command
# line sets PAPTREE_*, LD_PRELOAD and execs the program with its own
# arguments.  PAPTREE_LIB points at a dummy file so that the test does not
# depend on the real library (ld.so says it cannot preload it and goes on).
# Last, one mpirun -np 2 job with a bad rule: both ranks print their line.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
real=$(cd "$tmp" && pwd -P)
unset PAPTREE_DEBUG PAPTREE_TRACE PAPTREE_ALGO PAPTREE_REPORT PAPTREE_FORCE PAPTREE_TRACE_MEM \
      PAPTREE_LIB LD_PRELOAD
PR=$PWD/bin/paprun
# A paprun built with a sanitizer (the suite's ASan and TSan tiers) puts its
# runtime first in LD_PRELOAD, before the library built alike.
san=$(ldd "$PR" 2>/dev/null | awk '$1 ~ /^lib[at]san\.so/ { print $3 ":"; exit }')
: > "$tmp/dummy.so"
fails=0
bad() { echo "not ok: $*"; fails=$((fails + 1)); }

# refused STATUS LINE ARGS...: paprun ARGS exits STATUS, its stderr is
# exactly LINE, and the program (sh -c 'touch $tmp/ran') did not run.
refused() {
    want_st=$1 want=$2; shift 2
    rm -f "$tmp/ran"
    PAPTREE_LIB="$tmp/dummy.so" "$PR" "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq "$want_st" ] && [ "$(cat "$tmp/err")" = "$want" ] && [ ! -s "$tmp/out" ] &&
        [ ! -e "$tmp/ran" ] ||
        bad "paprun $*: exit $st (expected $want_st), program ran: $([ -e "$tmp/ran" ] && echo yes || echo no)
  got:      $(cat "$tmp/err")
  expected: $want"
}

# --help: exit 0, the whole text on stdout.
"$PR" --help >"$tmp/out" 2>"$tmp/err" || bad "--help: exit $?"
[ ! -s "$tmp/err" ] && [ "$(head -n 1 "$tmp/out")" = "usage: mpirun -np N paprun [OPTIONS] [--] PROGRAM [ARGS...]" ] ||
    bad "--help: $(head -n 2 "$tmp/out" "$tmp/err")"
for w in --trace --algo --report --force --trace-mem PAPTREE_TRACE= PAPTREE_ALGO= PAPTREE_REPORT=1 \
         PAPTREE_FORCE=1 PAPTREE_TRACE_MEM= PAPTREE_LIB= LD_PRELOAD Examples: "mpirun -np 4 bin/paprun --trace out/app -- ./a.out"; do
    grep -qF -- "$w" "$tmp/out" || bad "--help does not mention '$w'"
done
# The algorithms of each collective, as runtime/algo's table has them.
grep -qx "           allreduce ring, ring-seg, rd, rabenseifner, slt, prr, nap" "$tmp/out" &&
    grep -qx "           reduce    binomial, chain, bintree, greedy, clv-linear, clv" "$tmp/out" &&
    grep -qx "           bcast     binomial, chain" "$tmp/out" || bad "--help: the algorithms"
"$PR" -h >"$tmp/out2" 2>&1 && cmp -s "$tmp/out" "$tmp/out2" || bad "-h differs from --help"

# Options (cm_opt's words).
refused 2 "paprun: unknown option '--bogus'" --bogus sh -c "touch $tmp/ran"
refused 2 "paprun: option '--trace' requires an argument" --trace
refused 2 "paprun: no program given (usage: paprun [OPTIONS] [--] PROGRAM [ARGS...]; paprun --help)" --report
refused 2 "paprun: no program given (usage: paprun [OPTIONS] [--] PROGRAM [ARGS...]; paprun --help)" --report --
refused 2 "paprun: --trace-mem: 'lots' is not a size, expected bytes 1..18446744073709551615 (K, M, G, T: powers of 1024)" \
    --trace "$tmp/t" --trace-mem lots sh -c "touch $tmp/ran"
refused 2 "paprun: --trace-mem and --force need --trace DIR (or PAPTREE_TRACE)" -f sh -c "touch $tmp/ran"
refused 2 "paprun: --trace-mem and --force need --trace DIR (or PAPTREE_TRACE)" --trace-mem 1M -- sh -c "touch $tmp/ran"

# Rules: the parser's located message, after "paprun: ".
refused 2 "paprun: --algo:1:13: error: unknown algorithm 'foo' for allreduce (expected native, auto, ring, ring-seg, rd, rabenseifner, slt, prr or nap, or REDUCE+BCAST with REDUCE binomial, chain, bintree, greedy, clv-linear or clv and BCAST binomial or chain)" \
    --algo 'allreduce:*=foo' -- sh -c "touch $tmp/ran"
refused 2 "paprun: --algo:1:25: error: arrival=edge needs the program's edge() calls, which an unmodified program does not make (expected equal or history)" \
    -a 'allreduce:*=prr(arrival=edge)' sh -c "touch $tmp/ran"
refused 2 "paprun: --algo:1:10: error: auto chooses among allreduce algorithms; a rule for reduce cannot take it" \
    --algo 'reduce:*=auto' -- sh -c "touch $tmp/ran"
refused 2 "paprun: --algo:1:34: error: unknown candidate 'foo' for auto (expected native, ring, rd, rabenseifner, slt or prr)" \
    --algo 'allreduce:*=auto(candidates=ring,foo)' -- sh -c "touch $tmp/ran"
printf '# two rules\nallreduce:<=4K=rd,\n  >4K=rung\n' > "$tmp/rules"
refused 2 "paprun: $tmp/rules:3:7: error: unknown algorithm 'rung' for allreduce (expected native, auto, ring, ring-seg, rd, rabenseifner, slt, prr or nap, or REDUCE+BCAST with REDUCE binomial, chain, bintree, greedy, clv-linear or clv and BCAST binomial or chain)" \
    --algo "@$tmp/rules" sh -c "touch $tmp/ran"
refused 2 "paprun: --algo: cannot read '$tmp/none': No such file or directory" --algo "@$tmp/none" sh -c "touch $tmp/ran"
rm -f "$tmp/ran"
PAPTREE_ALGO='bcast:*=ring' PAPTREE_LIB="$tmp/dummy.so" "$PR" sh -c "touch $tmp/ran" 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && [ ! -e "$tmp/ran" ] &&
    [ "$(cat "$tmp/err")" = "paprun: PAPTREE_ALGO:1:9: error: 'ring' is an allreduce; a rule for bcast takes native, binomial or chain" ] ||
    bad "PAPTREE_ALGO with a bad rule: exit $st: $(cat "$tmp/err")"

# The trace directory.
mkdir "$tmp/trace" "$tmp/plain" "$tmp/res"
: > "$tmp/trace/traces.otf2"
refused 2 "paprun: --trace: '$tmp/trace' holds a trace already; --force (or PAPTREE_FORCE=1) replaces it" \
    --trace "$tmp/trace" sh -c "touch $tmp/ran"
refused 2 "paprun: --trace: '$tmp/plain' exists and is not a trace (no traces.otf2 in it), expected a new directory or a trace to replace" \
    --trace "$tmp/plain" --force sh -c "touch $tmp/ran"
refused 2 "paprun: --trace: '$tmp/dummy.so' exists and is not a trace (not a directory), expected a new directory or a trace to replace" \
    --trace "$tmp/dummy.so" -f sh -c "touch $tmp/ran"
refused 2 "paprun: --trace: the directory '$tmp/nodir' (for '$tmp/nodir/app') does not exist: No such file or directory" \
    --trace "$tmp/nodir/app" sh -c "touch $tmp/ran"
if [ "$(id -u)" != 0 ]; then      # root writes anywhere
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    refused 2 "paprun: --trace: cannot write in '$tmp/ro' (for '$tmp/ro/app'): Permission denied" \
        --trace "$tmp/ro/app" sh -c "touch $tmp/ran"
fi

# The program: as execvp finds it.
chmod 644 "$tmp/rules"
refused 127 "paprun: 'paprun-no-such-program': command not found in PATH" paprun-no-such-program
refused 127 "paprun: './no-such-program': no such file" ./no-such-program
refused 126 "paprun: '$tmp/rules': not an executable file" "$tmp/rules"
refused 126 "paprun: '$tmp/plain': not an executable file" "$tmp/plain"

# The library.
rm -f "$tmp/ran"
PAPTREE_LIB="$tmp/none.so" "$PR" sh -c "touch $tmp/ran" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && [ ! -e "$tmp/ran" ] &&
    [ "$(cat "$tmp/err")" = "paprun: PAPTREE_LIB: '$tmp/none.so' is no library file" ] ||
    bad "PAPTREE_LIB missing: exit $st: $(cat "$tmp/err")"
# Without PAPTREE_LIB: ../lib/libpaptree-mpi.so beside paprun's directory,
# through a symbolic link to paprun too.
mkdir "$tmp/inst" "$tmp/inst/bin" "$tmp/links"
cp "$PR" "$tmp/inst/bin/paprun"
ln -s "$tmp/inst/bin/paprun" "$tmp/links/paprun"
"$tmp/links/paprun" sh -c "touch $tmp/ran" 2>"$tmp/err"
st=$?
[ $st -eq 1 ] && [ ! -e "$tmp/ran" ] &&
    [ "$(cat "$tmp/err")" = "paprun: the profiling library '$real/inst/lib/libpaptree-mpi.so' does not exist; \`make\` builds it (or set PAPTREE_LIB)" ] ||
    bad "no library: exit $st: $(cat "$tmp/err")"
mkdir "$tmp/inst/lib" && : > "$tmp/inst/lib/libpaptree-mpi.so"
"$tmp/links/paprun" sh -c 'printf "%s\n" "$LD_PRELOAD"' >"$tmp/out" 2>/dev/null
[ "$(cat "$tmp/out")" = "$san$real/inst/lib/libpaptree-mpi.so" ] || bad "default library: LD_PRELOAD=$(cat "$tmp/out")"

# A good command line: the environment the program gets.  Run from $tmp
# with a relative trace directory: PAPTREE_TRACE is absolute.
: > "$tmp/other.so"
(cd "$tmp" && LD_PRELOAD="$tmp/other.so" PAPTREE_LIB=dummy.so "$PR" --trace res/app/ -r \
    --algo "@$tmp/rules2" --trace-mem 64M -- env) >"$tmp/env" 2>"$tmp/err" &&
    bad "rules2 does not exist yet, paprun ran"
printf 'allreduce:<=4K=rd,\n  >4K=ring # big\n' > "$tmp/rules2"
(cd "$tmp" && LD_PRELOAD="$tmp/other.so" PAPTREE_LIB=dummy.so "$PR" --trace res/app/ -r \
    --algo "@$tmp/rules2" --trace-mem 64M -- env) >"$tmp/env" 2>"$tmp/err" ||
    bad "good command line: exit $?: $(cat "$tmp/err")"
grep -q "^LD_PRELOAD=$san$real/dummy.so:$tmp/other.so\$" "$tmp/env" || bad "LD_PRELOAD: $(grep LD_PRELOAD "$tmp/env")"
grep -q "^PAPTREE_TRACE=$real/res/app\$" "$tmp/env" || bad "PAPTREE_TRACE: $(grep PAPTREE_TRACE= "$tmp/env")"
grep -q "^PAPTREE_REPORT=1\$" "$tmp/env" || bad "PAPTREE_REPORT not 1"
grep -q "^PAPTREE_FORCE=" "$tmp/env" && bad "PAPTREE_FORCE set without --force"
grep -q "^PAPTREE_TRACE_MEM=64M\$" "$tmp/env" || bad "PAPTREE_TRACE_MEM: $(grep TRACE_MEM "$tmp/env")"
grep -q "^PAPTREE_COMMAND=env\$" "$tmp/env" || bad "PAPTREE_COMMAND: $(grep COMMAND "$tmp/env")"
# The rules' text, both lines of it, is the variable's value.
awk '/^PAPTREE_ALGO=/ { print; getline; print }' "$tmp/env" > "$tmp/algo"
printf 'PAPTREE_ALGO=allreduce:<=4K=rd,\n  >4K=ring # big\n' | cmp -s - "$tmp/algo" ||
    bad "PAPTREE_ALGO: $(cat "$tmp/algo")"

# --force replaces a trace; the program's own options stay its own (the
# first word that is no option is the program); PAPTREE_COMMAND joins them.
PAPTREE_LIB="$tmp/dummy.so" "$PR" --trace "$tmp/trace" --force sh -c 'echo "$PAPTREE_FORCE $PAPTREE_COMMAND|$1 $2"' x --trace -r \
    >"$tmp/out" 2>/dev/null || bad "--force on a trace: exit $?"
[ "$(cat "$tmp/out")" = "1 sh -c echo \"\$PAPTREE_FORCE \$PAPTREE_COMMAND|\$1 \$2\" x --trace -r|--trace -r" ] ||
    bad "program arguments: $(cat "$tmp/out")"
# PAPTREE_FORCE=1 in the environment is --force.
PAPTREE_FORCE=1 PAPTREE_LIB="$tmp/dummy.so" "$PR" --trace "$tmp/trace" sh -c 'echo "$PAPTREE_FORCE"' \
    >"$tmp/out" 2>/dev/null && [ "$(cat "$tmp/out")" = 1 ] || bad "PAPTREE_FORCE=1: $(cat "$tmp/out")"
# The environment's settings are checked too, and an option wins over them.
PAPTREE_ALGO='bcast:*=ring' PAPTREE_LIB="$tmp/dummy.so" "$PR" --algo 'bcast:*=chain' sh -c 'echo "$PAPTREE_ALGO"' \
    >"$tmp/out" 2>/dev/null && [ "$(cat "$tmp/out")" = 'bcast:*=chain' ] || bad "--algo over PAPTREE_ALGO: $(cat "$tmp/out")"
rm -f "$tmp/ran"
(cd "$tmp" && PAPTREE_TRACE=plain PAPTREE_LIB=dummy.so "$PR" sh -c "touch $tmp/ran") 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && [ ! -e "$tmp/ran" ] &&
    [ "$(cat "$tmp/err")" = "paprun: PAPTREE_TRACE: 'plain' exists and is not a trace (no traces.otf2 in it), expected a new directory or a trace to replace" ] ||
    bad "PAPTREE_TRACE=plain: exit $st: $(cat "$tmp/err")"

# Under mpirun: mpirun fails and nothing ran.  It ends the job when the
# first rank exits non-zero, which may be before the other rank printed:
# at least one line here, each exact; every rank's line in the next job,
# which lets each rank end by itself.
MPIRUN=$(mpirun_cmd)
ERR="paprun: --algo:1:25: error: unknown algorithm 'rung' for allreduce (expected native, auto, ring, ring-seg, rd, rabenseifner, slt, prr or nap, or REDUCE+BCAST with REDUCE binomial, chain, bintree, greedy, clv-linear or clv and BCAST binomial or chain)"
rm -f "$tmp/ran"
timeout 60 $MPIRUN -np 2 "$PR" --algo 'allreduce:<=64K=rd,>64K=rung' -- sh -c "touch $tmp/ran" >"$tmp/mpi" 2>&1
st=$?
n=$(grep -cxF "$ERR" "$tmp/mpi")
m=$(grep -c "^paprun:" "$tmp/mpi")
[ $st -ne 0 ] && [ $st -ne 124 ] && [ "$n" -ge 1 ] && [ "$m" -eq "$n" ] && [ ! -e "$tmp/ran" ] ||
    bad "mpirun -np 2 with a bad rule: exit $st, $n error lines ($m paprun lines): $(cat "$tmp/mpi")"
timeout 60 $MPIRUN -np 2 --mca orte_abort_on_non_zero_status 0 "$PR" --algo 'allreduce:<=64K=rd,>64K=rung' \
    -- sh -c "touch $tmp/ran" >"$tmp/mpi" 2>&1
st=$?
n=$(grep -cxF "$ERR" "$tmp/mpi")
m=$(grep -c "^paprun:" "$tmp/mpi")
[ $st -ne 124 ] && [ "$n" -eq 2 ] && [ "$m" -eq 2 ] && [ ! -e "$tmp/ran" ] ||
    bad "mpirun -np 2, every rank to its end, a bad rule: exit $st, $n error lines ($m paprun lines): $(cat "$tmp/mpi")"

[ $fails -eq 0 ] || exit 1
echo "paprun-args.sh: ok"
