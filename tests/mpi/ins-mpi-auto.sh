#!/bin/sh
# The choices of `auto` in an application trace (instrument/api/ins_schema.h,
# "what `auto` chose"), read back with otf2-print, an independent reader.
# build/tests/ins_mpi_write DIR auto records, on each of 2 ranks, three
# MPI_Allreduce calls (tests/mpi/ins_mpi_write.c, mode_auto): two with choices
# made by hand, one without.  Expected, written out from those choices:
#   - call 1: algo "prr", candidates "ring,prr,native", reason "model",
#     spread 5000, pred0 100, pred1 200, corr0 110, corr1 190 (nothing for
#     native, whose values are -1), skipped 0;
#   - call 2: algo "ring", reason "kept", spread 0, pred0 100, pred2 300,
#     corr0 100, corr2 330, skipped 2;
#   - call 3: algo "native" and none of the choice's attributes;
#   - the definitions: the parameter paptree::auto and the attributes 13
#     to 32 with their names; no warning from otf2-print.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
PROG=build/tests/ins_mpi_write
[ -x "$PROG" ] || fail "$PROG is missing (make all)"
command -v otf2-print > /dev/null || fail "otf2-print is missing (make deps)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP

timeout 120 $MPIRUN -np 2 $PROG "$tmp/a" auto > "$tmp/a.out" 2>&1 ||
  { cat "$tmp/a.out" >&2; fail "auto: ins_mpi_write failed"; }
for opt in "" -G; do
  otf2-print $opt "$tmp/a/traces.otf2" > "$tmp/a.print$opt" 2> "$tmp/a.err" ||
    { cat "$tmp/a.err" >&2; fail "auto: otf2-print $opt failed"; }
  [ ! -s "$tmp/a.err" ] || { cat "$tmp/a.err" >&2; fail "auto: otf2-print $opt wrote to stderr"; }
done

# (string ids, "<N>" after a string value, are dropped: they are numbered per rank.)
# Each Enter with its attributes on one line, per location in order.
awk 'NR <= 5 { next }
  function out() { if (cur != "") print loc, cur; cur = "" }
  $1 == "ADDITIONAL" { sub(/^ *ADDITIONAL ATTRIBUTES: /, ""); cur = cur " | " $0; next }
  { out(); if ($1 == "ENTER") { loc = $2; cur = $0 } }
  END { out() }' "$tmp/a.print" > "$tmp/enters"
for loc in 0 65536; do
  grep "^$loc " "$tmp/enters" | sed -e 's/.* | //' -e 's/" <[0-9]*>)/")/g' > "$tmp/e$loc"
  [ "$(wc -l < "$tmp/e$loc")" -eq 3 ] || { cat "$tmp/enters" >&2; fail "location $loc: expected 3 Enter events"; }
  e1=$(sed -n 1p "$tmp/e$loc"); e2=$(sed -n 2p "$tmp/e$loc"); e3=$(sed -n 3p "$tmp/e$loc")
  want1='("paptree::candidates" <13>; STRING; "ring,prr,native"), ("paptree::reason" <14>; STRING; "model"), ("paptree::spread_ns" <15>; INT64; 5000), ("paptree::pred0_ns" <17>; INT64; 100), ("paptree::pred1_ns" <18>; INT64; 200), ("paptree::corr0_ns" <25>; INT64; 110), ("paptree::corr1_ns" <26>; INT64; 190), ("paptree::skipped" <16>; UINT64; 0)'
  want2='("paptree::candidates" <13>; STRING; "ring,prr,native"), ("paptree::reason" <14>; STRING; "kept"), ("paptree::spread_ns" <15>; INT64; 0), ("paptree::pred0_ns" <17>; INT64; 100), ("paptree::pred2_ns" <19>; INT64; 300), ("paptree::corr0_ns" <25>; INT64; 100), ("paptree::corr2_ns" <27>; INT64; 330), ("paptree::skipped" <16>; UINT64; 2)'
  case "$e1" in *'("paptree::algo" <8>; STRING; "prr")'*"$want1") ;;
    *) fail "location $loc, call 1: got: $e1" ;; esac
  case "$e2" in *'("paptree::algo" <8>; STRING; "ring")'*"$want2") ;;
    *) fail "location $loc, call 2: got: $e2" ;; esac
  case "$e3" in *'("paptree::algo" <8>; STRING; "native")'*) ;;
    *) fail "location $loc, call 3: got: $e3" ;; esac
  case "$e3" in *candidates*|*reason*|*pred*|*corr*|*skipped*|*spread*)
    fail "location $loc, call 3 (no choice) has a choice attribute: $e3" ;; esac
done

# Definitions: the parameter and the 20 attributes, ids as the schema says.
grep -q 'PARAMETER .*1 .*Name: "paptree::auto"' "$tmp/a.print-G" ||
  { grep PARAMETER "$tmp/a.print-G" >&2 || true; fail "no parameter paptree::auto <1>"; }
n=0
for id in 13 14 15 16; do
  grep -Eq "^ATTRIBUTE +$id +Name: \"paptree::" "$tmp/a.print-G" || fail "attribute $id not defined"
done
for i in 0 1 2 3 4 5 6 7; do
  grep -Eq "^ATTRIBUTE +$((17 + i)) +Name: \"paptree::pred${i}_ns\"" "$tmp/a.print-G" || fail "pred$i not attribute $((17 + i))"
  grep -Eq "^ATTRIBUTE +$((25 + i)) +Name: \"paptree::corr${i}_ns\"" "$tmp/a.print-G" || fail "corr$i not attribute $((25 + i))"
  n=$((n + 2))
done
[ "$n" -eq 16 ] || fail "internal: counted $n"
echo "ok: choices of auto in an application trace"
