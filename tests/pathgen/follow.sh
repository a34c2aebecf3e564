#!/bin/sh
# The whole loop with the real programs (docs/pathgen.md): pathgen makes an
# n-ary tree, bin/sweep --follow-advice traces it with Gsum, papanalyze and
# pathgen advise read the trace, pathgen edit applies the advice, and each
# step is measured against the current tree.  Timing decides which steps are
# kept, so this checks what must hold whatever the machine's speed: every
# advised edit applied (no "edit failed"), each step's result is one of the
# documented ones and agrees with its own printed speedup, the final pathmap
# is valid and is the start (nothing kept) or a different tree reached by
# the printed pathgen edit commands.  tests/pathgen/sweep.sh checks the
# sweep's logic with fixed times; this one, that the parts fit.  ~10 s.
set -eu
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

bin/pathgen --hosts 4 --threads-per-host 2 -o "$tmp/nary.pathmap"
bin/sweep --follow-advice 2 --tries 2 -n 300 -w 20 -r 1 --work "$tmp/w" "$tmp/nary.pathmap" \
  > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/out" "$tmp/err" >&2; fail "sweep --follow-advice failed"; }
cat "$tmp/out"

grep -q '^step  *try  *edit  *current us  *new us  *speedup  *result$' "$tmp/out" || fail "no steps table"
# Step rows: "N  T  EDIT...  CUR  NEW  SPEEDUP  RESULT"; at least the first step tried one edit.
awk '/^ *[0-9]+ +[0-9]+ /' "$tmp/out" > "$tmp/steps"
if [ ! -s "$tmp/steps" ]; then
  # Timing decides whether a hotspot reaches its threshold (usually the
  # proxies, over half of a thread's time here); with none, sweep must say so
  # and stay at the start.
  grep -q '^# kept 0 step(s).*stopped: no advice for ' "$tmp/out" || fail "no step tried, and no 'no advice' stop"
  final=$(sed -n 's/^# final pathmap: //p' "$tmp/out")
  [ -z "$final" ] || bin/pathgen compare "$tmp/nary.pathmap" "$final" || fail "no step, yet another tree"
  echo "follow-advice: ok (no advice on this run)"
  exit 0
fi
! grep -q 'edit failed' "$tmp/steps" || fail "an advised edit did not apply"
# Results: "kept" exactly when the speedup (current / new) is above 1.00
# (--min-speedup's default), else "slower, dropped"; "no change" has no figures.
awk '{ line = $0; r = ""
       if (line ~ / kept$/) { r = "kept"; sub(/ kept$/, "", line) }
       else if (line ~ / slower, dropped$/) { r = "dropped"; sub(/ slower, dropped$/, "", line) }
       else if (line ~ / no change$/) next
       else { print "unknown result: " $0; exit 1 }
       n = split(line, f, " "); s = f[n]; b = f[n-1]; c = f[n-2]
       # (printed with two decimals: 1.004 is kept and shows as 1.00)
       if ((r == "kept" && s + 0 < 1.0) || (r == "dropped" && s + 0 > 1.0)) { print "result " r " with speedup " s; exit 1 }
       if (b > 0 && (c / b < s - 0.011 || c / b > s + 0.011)) { print "speedup " s " is not " c "/" b; exit 1 } }' \
  "$tmp/steps" || fail "a step's result disagrees with its figures"

final=$(sed -n 's/^# final pathmap: //p' "$tmp/out")
if grep -q ' kept$' "$tmp/steps"; then
  [ -n "$final" ] && [ -f "$final" ] || fail "steps kept, but no final pathmap named"
  bin/pathmap-check "$final" > /dev/null || fail "the final pathmap does not validate"
  ! bin/pathgen compare "$tmp/nary.pathmap" "$final" 2> /dev/null || fail "kept steps but the same tree"
  # the printed commands rebuild it
  sed -n 's/^#   pathgen edit /bin\/pathgen edit /p' "$tmp/out" > "$tmp/cmds"
  [ -s "$tmp/cmds" ] || fail "no pathgen edit commands printed"
  i=0
  while IFS= read -r cmd; do
    i=$((i + 1))
    cmd=$(echo "$cmd" | sed "s|-o [^ ]*\$|-o $tmp/re$i.pathmap|")
    sh -c "$cmd" || fail "printed command failed: $cmd"
    grep -q "^# pathgen edit: " "$tmp/re$i.pathmap" || fail "no edit line in the header"
  done < "$tmp/cmds"
  bin/pathgen compare --names "$final" "$tmp/re$i.pathmap" || fail "the printed commands give another tree"
else
  # nothing faster on this run: sweep stays at the start and names no final tree
  grep -q '^# kept 0 step(s)' "$tmp/out" || fail "nothing kept, yet steps counted"
  [ -z "$final" ] || fail "nothing kept, yet a final pathmap: $final"
fi
echo "follow-advice: ok"
