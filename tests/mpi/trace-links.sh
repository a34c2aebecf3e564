#!/bin/sh
# The link engine does not change a trace's shape: the same Gsum run traced
# with the waiting threads serving the links (--links threads) and with a
# service thread per link (--links services) gives the same definitions
# (locations with their names and roles, regions, groups, communicators;
# only the clock properties and the per-location event counts may differ,
# since which arrival is last at a gred depends on timing), both pass
# trace_check with exact counts, every link location has exactly one
# ENTER of its first wrapper per request (the operations of its instance),
# and papanalyze loads both.  gateway-3x2 has a link the threads serve
# (pgw, on host a) and one that keeps its service thread (pb, on the
# gateway gw, which has no thread); the demo only served links.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
OPS=40                                   # per thread: 20 on each of the 2 instances

run() {   # run NAME NP PATHMAP LINKS
  timeout 120 $MPIRUN -np "$2" bin/gsum -p "$3" -n "$OPS" -w 0 --links "$4" \
      --trace "$tmp/$1" > "$tmp/$1.out" 2>&1 ||
    { cat "$tmp/$1.out" >&2; fail "$1: traced gsum --links $4 failed"; }
  build/tests/trace_check --ops "$OPS" "$tmp/$1" "$3" > "$tmp/$1.tc" 2>&1 ||
    { cat "$tmp/$1.tc" >&2; fail "$1: trace_check"; }
  otf2-print -G "$tmp/$1/traces.otf2" |
    grep -v '^CLOCK_PROPERTIES' | sed 's/# Events: [0-9]*, //' > "$tmp/$1.defs"
  otf2-print "$tmp/$1/traces.otf2" > "$tmp/$1.ev"
  bin/papanalyze "$tmp/$1/traces.otf2" > "$tmp/$1.an" 2>&1 && [ -s "$tmp/$1/traces.db" ] ||
    { cat "$tmp/$1.an" >&2; fail "$1: papanalyze"; }
}

# enters NAME LOCATION-ID REGION-NAME: ENTER events of REGION on LOCATION.
enters() {
  awk -v loc="$2" -v reg="\"$3\"" '$1 == "ENTER" && $2 == loc && $5 == reg { n++ } END { print n + 0 }' "$tmp/$1.ev"
}

for case in "demo 2 pathmaps/demo.pathmap" "gateway 3 pathmaps/local/gateway-3x2.pathmap"; do
  set -- $case
  run "$1-threads" "$2" "$3" threads
  run "$1-services" "$2" "$3" services
  grep -q "service" "$tmp/$1-threads.defs" || fail "$1: no link location in the definitions"
  diff "$tmp/$1-threads.defs" "$tmp/$1-services.defs" >&2 ||
    fail "$1: the definitions differ between --links threads and --links services"
  echo "trace-links: $1: same definitions with both engines"
done

# Link locations (otf2-print ids rank << 16 | index), their first wrapper,
# and the requests each serves: OPS / 2 per instance.
for engine in threads services; do
  for spec in "demo 2 cr0" "demo 3 cr0" "gateway 2 mc" "gateway 3 mc" "gateway 65536 pgw" "gateway 65537 pgw"; do
    set -- $spec
    got=$(enters "$1-$engine" "$2" "$3")
    [ "$got" -eq $((OPS / 2)) ] ||
      fail "$1 --links $engine: location $2 entered $3 $got times, expected $((OPS / 2))"
  done
done
echo "trace-links: ok"
