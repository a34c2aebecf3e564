#!/bin/sh
# manifest.sh - pathgen is the generator of record of the sample pathmaps.
#
# pathmaps/MANIFEST gives, for each generated sample, the pathgen command
# that writes it (`make pathmaps`, scripts/pathmaps.sh).  Replayed into a
# temporary directory, every generated sample must be the committed file
# byte for byte; every committed sample must be in the manifest, generated
# or listed as hand-written; and every file the manifest names must be
# committed.  (That pathgen's trees are the right ones is regen.sh: an
# independent generator.)
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/pathgen-manifest.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
fail() {
    echo "FAIL $*"
    fails=$((fails + 1))
}

if ! scripts/pathmaps.sh --list >"$T/list" 2>"$T/err"; then
    echo "FAIL scripts/pathmaps.sh --list: $(head -1 "$T/err")"
    exit 1
fi
if ! scripts/pathmaps.sh "$T/out" >/dev/null 2>"$T/err"; then
    echo "FAIL scripts/pathmaps.sh: $(head -1 "$T/err")"
    exit 1
fi

# Each generated sample as committed.
ngen=0
for f in $(sed -n 's/^generated //p' "$T/list"); do
    ngen=$((ngen + 1))
    if [ ! -f "pathmaps/$f" ]; then
        fail "pathmaps/$f: in the manifest, not committed"
    elif ! cmp -s "$T/out/$f" "pathmaps/$f"; then
        fail "pathmaps/$f: not what its manifest line writes (make pathmaps):"
        diff "pathmaps/$f" "$T/out/$f" | head -6 | sed 's/^/    /'
    fi
done
for f in $(sed -n 's/^hand-written //p' "$T/list"); do
    [ -f "pathmaps/$f" ] || fail "pathmaps/$f: listed as hand-written, not committed"
done

# Each committed sample in the manifest, once.
sed 's/^[a-z-]* //' "$T/list" | sort >"$T/listed"
sort "$T/listed" | uniq -d | while read -r f; do
    echo "FAIL pathmaps/$f: in the manifest twice"
done | tee "$T/dups"
[ -s "$T/dups" ] && fails=$((fails + 1))
(cd pathmaps && find . -name '*.pathmap' | sed 's|^\./||' | sort) >"$T/committed"
for f in $(comm -23 "$T/committed" "$T/listed"); do
    fail "pathmaps/$f: a sample not in pathmaps/MANIFEST (a pathgen line, or hand-written)"
done

echo "$ngen generated samples as committed; $(wc -l <"$T/committed") committed samples, each in the manifest"
# 62 samples, all generated, when this was written.
[ "$ngen" -ge 62 ] || fail "only $ngen generated samples"
[ "$fails" -eq 0 ]
