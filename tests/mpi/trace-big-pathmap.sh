#!/bin/sh
# A pathmap too long for an OTF2 archive property is stored in a file of
# the archive (docs/trace-format.md, "The pathmap text") and read back whole:
#
#  - a valid ~300 KB pathmap (the demo's tree, 2 hosts, and a block of
#    comments; OTF2 3.0.2 keeps all properties in one 256 KiB buffer and
#    failed the archive at close) is traced; the archive (schema version
#    3) names PAPTREE::PATHMAP_FILE, its traces.pathmap equals the file byte for byte; trace_check (which
#    compares the text with the file and the stored hash with the file's)
#    passes; papanalyze analyses it and the pathmap it stores in its
#    database equals the file byte for byte;
#  - the boundary: a text of exactly INS_PATHMAP_PROP_MAX bytes stays in
#    PAPTREE::PATHMAP (no file), one byte more goes to the file (before
#    schema 3 these were versions 1 and 2);
#  - the stored text damaged (a byte changed, the file missing):
#    papanalyze and trace_check refuse the archive, papanalyze with exit
#    status 1 and no database.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
CHECK=build/tests/trace_check
PROPMAX=131072   # INS_PATHMAP_PROP_MAX, the longest pathmap kept as a property
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$CHECK" ] || fail "$CHECK is missing (make all)"

# pad FILE BYTES: the demo pathmap followed by comment lines, cut (at the end
# of the last comment) to exactly BYTES bytes, ending in a newline.
pad() {
  { cat pathmaps/demo.pathmap
    awk 'BEGIN { for (i = 0; i < 40000; i++)
                   printf "# padding %06d: a long comment block, as a pathmap with notes may have\n", i }'
  } | head -c "$(($2 - 1))" > "$1"
  echo >> "$1"
  [ "$(wc -c < "$1")" -eq "$2" ] || fail "pad: $1 is not $2 bytes"
  bin/pathmap-check "$1" > /dev/null || fail "pad: $1 is not a valid pathmap"
}

# traced NAME PATHMAP: gsum -n 100 -w 10 traced into $tmp/NAME, then
# trace_check (110 operations per thread).
traced() {
  timeout 120 $MPIRUN -np 2 bin/gsum -p "$2" -n 100 -w 10 --trace "$tmp/$1" \
    > "$tmp/$1.out" 2>&1 || { cat "$tmp/$1.out" >&2; fail "$1: traced gsum failed"; }
  "$CHECK" --ops 110 "$tmp/$1" "$2" > "$tmp/$1.tc" 2>&1 ||
    { cat "$tmp/$1.tc" >&2; fail "$1: trace_check"; }
}

# prop NAME PROPERTY: the property's value as otf2-print -I prints it
# (first line only), or nothing if the archive does not have it.
prop() {
  otf2-print -I "$tmp/$1/traces.otf2" |
    awk -v p="$2" '$1 == "Property" && $2 == "name" && $3 == p { getline; sub(/^Property value */, ""); print; exit }'
}

# stored NAME: papanalyze's database of $tmp/NAME, its meta 'pathmap'
# written out to $tmp/NAME.stored.
stored() {
  bin/papanalyze --no-report "$tmp/$1/traces.otf2" > "$tmp/pa.out" 2>&1 ||
    { cat "$tmp/pa.out" >&2; fail "$1: papanalyze failed"; }
  sqlite3 "$tmp/$1/traces.db" \
    "SELECT writefile('$tmp/$1.stored', value) FROM meta WHERE key = 'pathmap'" > /dev/null
}

# ---- about 300 KB: the hardening issue's case ------------------------------
pad "$tmp/big.pathmap" 307200
traced big "$tmp/big.pathmap"
[ "$(prop big PAPTREE::SCHEMA_VERSION)" = 3 ] || fail "big: schema version is not 3"
[ "$(prop big PAPTREE::PATHMAP_FILE)" = traces.pathmap ] || fail "big: no PAPTREE::PATHMAP_FILE"
[ -z "$(prop big PAPTREE::PATHMAP)" ] || fail "big: PAPTREE::PATHMAP is set too"
cmp "$tmp/big.pathmap" "$tmp/big/traces.pathmap" || fail "big: traces.pathmap differs from the file"
stored big
cmp "$tmp/big.pathmap" "$tmp/big.stored" || fail "big: papanalyze's pathmap differs from the file"

# ---- exactly the largest property: in it; one byte more: in the file ------
pad "$tmp/one.pathmap" $PROPMAX
traced one "$tmp/one.pathmap"
[ "$(prop one PAPTREE::SCHEMA_VERSION)" = 3 ] || fail "one: schema version is not 3"
[ -z "$(prop one PAPTREE::PATHMAP_FILE)" ] || fail "one: PAPTREE::PATHMAP_FILE is set"
[ ! -e "$tmp/one/traces.pathmap" ] || fail "one: a pathmap in the property, and traces.pathmap"
stored one
cmp "$tmp/one.pathmap" "$tmp/one.stored" || fail "one: papanalyze's pathmap differs from the file"
pad "$tmp/two.pathmap" $((PROPMAX + 1))
traced two "$tmp/two.pathmap"
[ "$(prop two PAPTREE::SCHEMA_VERSION)" = 3 ] || fail "two: schema version is not 3"
[ "$(prop two PAPTREE::PATHMAP_FILE)" = traces.pathmap ] || fail "two: no PAPTREE::PATHMAP_FILE"
stored two
cmp "$tmp/two.pathmap" "$tmp/two.stored" || fail "two: papanalyze's pathmap differs from the file"

# ---- the stored text damaged: refused -------------------------------------
# One byte changed (same length), then the file removed.
rm -f "$tmp/big/traces.db"
printf 'X' | dd of="$tmp/big/traces.pathmap" bs=1 seek=200000 conv=notrunc 2> /dev/null
run_fails 60 "$tmp/pa.out" bin/papanalyze --no-report "$tmp/big/traces.otf2"
expect_count "$tmp/pa.out" 1 "the pathmap stored in the archive does not match its hash"
[ ! -e "$tmp/big/traces.db" ] || fail "damaged: papanalyze wrote a database"
run_fails 60 "$tmp/tc.out" "$CHECK" --ops 110 "$tmp/big" "$tmp/big.pathmap"
expect_count "$tmp/tc.out" 1 "trace_check: FAIL: $tmp/big/traces.pathmap: expected the 307200 bytes"
rm "$tmp/big/traces.pathmap"
run_fails 60 "$tmp/pa.out" bin/papanalyze --no-report "$tmp/big/traces.otf2"
expect_count "$tmp/pa.out" 1 "$tmp/big/traces.pathmap: error: cannot open the archive's pathmap"
echo "trace-big-pathmap: ok"
