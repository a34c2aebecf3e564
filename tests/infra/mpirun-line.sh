#!/bin/sh
# tests/infra/mpirun-line.sh - the three builders of the mpirun command line
# agree: paptree_mpirun of bench/lib.sh (the reference), its C twin in
# tests/run_tests.c (--mpirun-line) and its Python twin in tools/sweep
# (--print-mpirun), and tests/lib.sh's mpirun_cmd is the reference's prefix.
# Compared for np 4 and a command, without and with PAPTREE_MPIRUN_ARGS, so
# that a flag changed in one of them and not the others fails here.
set -eu
. tests/lib.sh

cmd="bin/gsum -p pathmaps/demo.pathmap -n 10 -s 4,256"
for more in "" "--mca btl_vader_single_copy_mechanism none -x PAPTREE_X=1"; do
  PAPTREE_MPIRUN_ARGS=$more
  export PAPTREE_MPIRUN_ARGS
  # shellcheck disable=SC2086 # cmd is a word list
  ref=$(paptree_mpirun_print 4 -- $cmd)
  c=$(build/run_tests --mpirun-line 4 "$cmd")
  # shellcheck disable=SC2086 # cmd is a word list
  py=$(python3 tools/sweep --print-mpirun 4 $cmd)
  tl="$(mpirun_cmd) -np 4 $cmd"
  for twin in "tests/run_tests.c|$c" "tools/sweep|$py" "tests/lib.sh mpirun_cmd|$tl"; do
    [ "${twin#*|}" = "$ref" ] ||
      fail "${twin%%|*} builds another mpirun line than bench/lib.sh (PAPTREE_MPIRUN_ARGS='$more'):
  bench/lib.sh: $ref
  ${twin%%|*}: ${twin#*|}"
  done
  echo "mpirun-line: all agree: $ref"
done

# The reference itself: every flag it promises, in its place.
root=""
[ "$(id -u)" != 0 ] || root=" --allow-run-as-root"
want="mpirun$root --oversubscribe --bind-to none --mca btl self,vader"
want="$want --mca btl_vader_single_copy_mechanism none -x PAPTREE_X=1 -np 4 $cmd"
[ "$ref" = "$want" ] || fail "bench/lib.sh: $ref
  want: $want"

# EXTRA words go after -np, the first "--" is dropped and a later one kept,
# -t runs under timeout(1), and a missing "--" is refused.
PAPTREE_MPIRUN_ARGS=""
got=$(paptree_mpirun_print -t 30 2 --mca coll_tuned_use_dynamic_rules 1 -- prog -- x)
[ "$got" = "timeout 30 mpirun$root --oversubscribe --bind-to none --mca btl self,vader -np 2 --mca coll_tuned_use_dynamic_rules 1 prog -- x" ] ||
  fail "paptree_mpirun_print -t 30 2 EXTRA -- prog -- x: $got"
if paptree_mpirun_print 2 prog 2>/dev/null; then
  fail "paptree_mpirun without -- was accepted"
fi
echo "mpirun-line: ok"
