#!/bin/sh
# schema-version.sh - the trace's and the database's schema versions, both
# ways (issue 24: the algorithm-node and arrival records came without a bump,
# so an older papanalyze met a newer trace with a count mismatch).
#
#   new trace, older reader: a trace whose PAPTREE::SCHEMA_VERSION is above
#     what this papanalyze reads (4; it reads up to 3) is refused by its
#     version, saying that a newer paptree made it; likewise a database whose
#     schema_version is above 2, for papanalyze and papviz.
#   old trace, newer reader: a trace of schema 1 without algorithm-node or
#     arrival records (synth_trace gred3) still loads; a database of schema 1
#     is refused with "run papanalyze on the trace again" (its tables are not
#     those of version 2).
#   today's writers: synth_trace and the tracer write 3, papanalyze 2.
set -eu
. tests/lib.sh
SYN=build/tests/synth_trace PA=bin/papanalyze PV=bin/papviz
T=$(mktemp -d /tmp/schema.XXXXXX)
trap 'rm -rf "$T"' EXIT

# expect_refusal OUT TEXT CMD...: CMD exits 1 and its first line, less the
# source location, is TEXT.
expect_refusal() {
    out=$1 text=$2; shift 2
    set +e; "$@" > "$out" 2>&1; rc=$?; set -e
    [ "$rc" -eq 1 ] || { cat "$out" >&2; fail "exit $rc, expected 1: $*"; }
    got=$(head -1 "$out" | sed 's/ \[[^]]*\]$//')
    [ "$got" = "$text" ] || fail "$*:
  got:      $got
  expected: $text"
}

# ---- a newer trace -------------------------------------------------------------
$SYN --schema 4 gred3 "$T/v4" || fail "synth_trace --schema 4"
expect_refusal "$T/out" "papanalyze: $T/v4/traces.otf2: error: paptree trace schema version 4: made by a newer paptree; this papanalyze reads up to 3" \
    $PA -q "$T/v4/traces.otf2"
[ ! -e "$T/v4/traces.db" ] || fail "a refused trace left a database"
# not a number at all: refused, naming what this papanalyze reads
$SYN --schema 3a gred3 "$T/v3a" || fail "synth_trace --schema 3a"
expect_refusal "$T/out" "papanalyze: $T/v3a/traces.otf2: error: paptree trace schema version 3a: unknown; this papanalyze reads 1 to 3" \
    $PA -q "$T/v3a/traces.otf2"

# ---- an older trace, still read --------------------------------------------------
$SYN --schema 1 gred3 "$T/v1" || fail "synth_trace --schema 1"
$PA -q --skip 0 "$T/v1/traces.otf2" > "$T/out" 2>&1 || { cat "$T/out" >&2; fail "a schema-1 trace was refused"; }
[ "$(sqlite3 "$T/v1/traces.db" "SELECT value FROM meta WHERE key = 'trace_schema_version'")" = 1 ] ||
    fail "trace_schema_version of the schema-1 trace is not 1"
# gred3 has 3 operations on 5 threads: 3 used operations at its core
[ "$(sqlite3 "$T/v1/traces.db" "SELECT COUNT(*) FROM ops")" = 3 ] || fail "schema 1: expected 3 operations"

# ---- today's versions ------------------------------------------------------------
$SYN gred3 "$T/now" || fail "synth_trace gred3"
$PA -q --skip 0 "$T/now/traces.otf2" > "$T/out" 2>&1 || { cat "$T/out" >&2; fail "today's trace was refused"; }
[ "$(sqlite3 "$T/now/traces.db" "SELECT value FROM meta WHERE key = 'trace_schema_version'")" = 3 ] ||
    fail "synth_trace does not write schema 3"
[ "$(sqlite3 "$T/now/traces.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 2 ] ||
    fail "papanalyze does not write database schema 2"

# ---- databases: newer and older ----------------------------------------------------
cp "$T/now/traces.db" "$T/v3.db"
sqlite3 "$T/v3.db" "UPDATE meta SET value = '3' WHERE key = 'schema_version'"
expect_refusal "$T/out" "papanalyze: $T/v3.db: error: database schema version 3: made by a newer paptree; papanalyze and papviz read up to 2" \
    $PA "$T/v3.db"
expect_refusal "$T/out" "papviz: $T/v3.db: error: database schema version 3: made by a newer paptree; papanalyze and papviz read up to 2" \
    $PV timemap "$T/v3.db" -o "$T/tm.svg"
cp "$T/now/traces.db" "$T/v1.db"
sqlite3 "$T/v1.db" "UPDATE meta SET value = '1' WHERE key = 'schema_version'"
expect_refusal "$T/out" "papanalyze: $T/v1.db: error: database schema version 1, papanalyze and papviz read version 2: run papanalyze on the trace again" \
    $PA "$T/v1.db"
echo "schema-version: ok"
