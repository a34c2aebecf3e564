#!/bin/sh
# auto's choice records in a tree trace (instrument/api/ins_schema.h, "what
# `auto` chose"), end to end, read back with otf2-print (an independent reader):
# gsum with examples/auto-4x1.pathmap (np 4, one algorithm location per host,
# 2 instances alternating, so every algorithm location visits the node OPS
# times), traced, twice (OPS = 4 and 12). Expected:
#   - otf2-print and otf2-print -G: nothing on stderr;
#   - per algorithm location ("algo hN"): OPS ParameterString records
#     "paptree::auto" <1>, none on the threads' locations;
#   - each record: its value one of the pathmap's candidates, the attribute
#     candidates = "rd,ring,rabenseifner,prr,slt,native", reason one of
#     only/model/kept/explore, pred/corr attributes only for candidates 0..5
#     (ids 17..22, 25..30), never 23, 24, 31, 32;
#   - every string defined once (no two STRING definitions with one value) and
#     as many STRING definitions with OPS = 12 as with OPS = 4: no string is
#     defined per operation.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
command -v otf2-print > /dev/null || fail "otf2-print is missing (make deps)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
CANDS="rd,ring,rabenseifner,prr,slt,native"

for OPS in 4 12; do
  d="$tmp/g$OPS"
  timeout 120 $MPIRUN -np 4 bin/gsum -p examples/auto-4x1.pathmap -n $OPS -w 0 -s 65536 \
    --trace "$d" > "$d.out" 2>&1 || { cat "$d.out" >&2; fail "gsum -n $OPS with auto failed"; }
  for opt in "" -G; do
    otf2-print $opt "$d/traces.otf2" > "$d.print$opt" 2> "$d.err" ||
      { cat "$d.err" >&2; fail "OPS $OPS: otf2-print $opt failed"; }
    [ ! -s "$d.err" ] || { cat "$d.err" >&2; fail "OPS $OPS: otf2-print $opt wrote to stderr"; }
  done
  # Each PARAMETER_STRING record "paptree::auto" with its attributes on one line.
  awk '$1 == "PARAMETER_STRING" && /"paptree::auto" <1>/ { if (cur != "") print cur; cur = $0; next }
    cur != "" && $1 == "ADDITIONAL" { print cur " | " $0; cur = ""; next }
    cur != "" { print cur; cur = "" }
    END { if (cur != "") print cur }' "$d.print" > "$d.rec"
  for loc in $(awk '$1 == "LOCATION" && /Name: "algo h[0-9]"/ { print $2 }' "$d.print-G"); do
    n=$(awk -v l="$loc" '$2 == l' "$d.rec" | wc -l)
    [ "$n" -eq "$OPS" ] || fail "OPS $OPS: location $loc has $n choice records, expected $OPS"
  done
  nalgo=$(grep -c 'Name: "algo h[0-9]"' "$d.print-G")
  [ "$nalgo" -eq 4 ] || fail "OPS $OPS: expected 4 algorithm locations, got $nalgo"
  [ "$(wc -l < "$d.rec")" -eq $((4 * OPS)) ] ||
    fail "OPS $OPS: $(wc -l < "$d.rec") choice records in all, expected $((4 * OPS)) (some on a thread's location?)"
  while IFS= read -r r; do
    v=$(printf '%s\n' "$r" | sed -n 's/.*"paptree::auto" <1>, Value: "\([a-z]*\)".*/\1/p')
    case ",$CANDS," in *",$v,"*) ;; *) fail "OPS $OPS: chosen '$v' is not a candidate: $r" ;; esac
    case "$r" in *"(\"paptree::candidates\" <13>; STRING; \"$CANDS\""*) ;;
      *) fail "OPS $OPS: candidates attribute missing or wrong: $r" ;; esac
    printf '%s\n' "$r" | grep -Eq '"paptree::reason" <14>; STRING; "(only|model|kept|explore)"' ||
      fail "OPS $OPS: reason missing or unknown: $r"
    case "$r" in *'<23>;'*|*'<24>;'*|*'<31>;'*|*'<32>;'*)
      fail "OPS $OPS: a prediction for a candidate index >= 6: $r" ;; esac
    printf '%s\n' "$r" | grep -q '"paptree::pred[0-5]_ns" <\(1[7-9]\|2[0-2]\)>; INT64; [0-9]' ||
      fail "OPS $OPS: no prediction: $r"
  done < "$d.rec"
  awk '$1 == "STRING" { sub(/^STRING +[0-9]+ +/, ""); print }' "$d.print-G" | sort > "$d.strings"
  dup=$(uniq -d "$d.strings" | head -3)
  [ -z "$dup" ] || fail "OPS $OPS: strings defined more than once: $dup"
  wc -l < "$d.strings" > "$d.nstrings"
done
[ "$(cat "$tmp/g4.nstrings")" -eq "$(cat "$tmp/g12.nstrings")" ] ||
  fail "string definitions grow with the operations: $(cat "$tmp/g4.nstrings") with 4, $(cat "$tmp/g12.nstrings") with 12"
echo "trace-auto: ok"
