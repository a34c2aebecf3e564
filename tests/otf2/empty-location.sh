#!/bin/sh
# empty-location.sh - OTF2 3.0.2 reads freed memory when a location with an
# event reader has no events (tests/otf2/otf2_empty_location.c, OTF2 only).
# papanalyze gives such a location no reader (analyze/an_read_events.c);
# this pins both halves under valgrind (OTF2 is not built with ASan, so ASan
# cannot see a fault inside it):
#   - without a reader for the empty location (papanalyze's way): no error;
#   - with one: valgrind's "Invalid read" inside OTF2's global event reader,
#     of a block freed by OTF2 itself.  When an OTF2 release fixes it, this
#     part fails: then the workaround and this note may go.
set -eu
. tests/lib.sh
R=build/tests/otf2_empty_location
command -v valgrind > /dev/null || fail "valgrind is missing (make deps)"
[ -x "$R" ] || fail "$R is missing (make all)"
T=$(mktemp -d /tmp/otf2-empty.XXXXXX)
# A sanitized build cannot run under valgrind: there, only that both runs
# read the 2 events (the reproducer's own code under the sanitizer).
if [ -n "${PAPTREE_SANITIZER:-}" ]; then
    trap 'rm -rf "$T"' EXIT
    for a in "" --empty-reader; do
        # shellcheck disable=SC2086 # $a is empty or one word
        "$R" "$T/x$a" $a > "$T/out" 2>&1 && grep -qx "2 events" "$T/out" ||
            { cat "$T/out" >&2; fail "$R $a under $PAPTREE_SANITIZER"; }
    done
    echo "empty-location: valgrind part left to the plain tier ($PAPTREE_SANITIZER)"
    exit 0
fi
trap 'rm -rf "$T"' EXIT
VG="valgrind -q --error-exitcode=9"

$VG "$R" "$T/a" > "$T/a.out" 2>&1 || { cat "$T/a.out" >&2; fail "without a reader for the empty location"; }
grep -qx "2 events" "$T/a.out" || { cat "$T/a.out" >&2; fail "expected '2 events' (one Enter, one Leave)"; }

set +e; $VG "$R" "$T/b" --empty-reader > "$T/b.out" 2>&1; rc=$?; set -e
[ "$rc" -eq 9 ] || { cat "$T/b.out" >&2; fail "with a reader for the empty location: exit $rc, expected valgrind's 9"; }
grep -q "Invalid read" "$T/b.out" || { cat "$T/b.out" >&2; fail "no 'Invalid read' from valgrind"; }
grep -q "free'd" "$T/b.out" && grep -q "otf2_evt_reader_delete" "$T/b.out" ||
    { cat "$T/b.out" >&2; fail "the block read was not one OTF2 freed"; }
echo "empty-location: OTF2 reads a freed event reader (only with a reader for an empty location)"
