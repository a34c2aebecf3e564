#!/bin/sh
# pathmaps.sh - write the sample pathmaps from pathmaps/MANIFEST (`make pathmaps`).
#
#   scripts/pathmaps.sh [DIR]   write every generated sample under DIR (default
#                               pathmaps/), each through a temporary file renamed
#                               over it; the hand-written ones are left alone
#   scripts/pathmaps.sh --list  print "generated FILE" or "hand-written FILE" for
#                               each sample the manifest lists
#
# Each line "FILE ARGS..." of the manifest is `$PATHGEN ARGS... --note LINE...`
# (PATHGEN defaults to bin/pathgen), one --note per "note" line of the
# manifest.  Run from anywhere; paths in ARGS are relative to the checkout.
# Exit status: 0 done, 1 a pathgen run or a manifest line failed (named on
# stderr), 2 usage.
set -u
cd "$(dirname "$0")/.." || exit 1
MANIFEST=pathmaps/MANIFEST
PATHGEN=${PATHGEN:-bin/pathgen}
list=0
out=pathmaps
case ${1:-} in
    --list) list=1 ;;
    -h|--help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "pathmaps.sh: unknown option '$1'" >&2; exit 2 ;;
    ?*) out=$1 ;;
esac

# The "note" lines, as words for eval: --note 'TEXT' ...
notes=
while IFS= read -r line; do
    case $line in
        note|note\ *)
            text=$(printf '%s\n' "${line#note}" | sed "s/^ //; s/'/'\\\\''/g")
            notes="$notes --note '$text'" ;;
    esac
done <"$MANIFEST"

fails=0
n=0
lineno=0
while IFS= read -r line; do
    lineno=$((lineno + 1))
    case $line in
        ''|'#'*|note|note\ *) continue ;;
    esac
    file=${line%% *}
    args=${line#"$file"}
    case $file in
        hand-written)
            [ "$list" -eq 1 ] && echo "hand-written ${args# }"
            continue ;;
        *.pathmap) ;;
        *)
            echo "$MANIFEST:$lineno: expected FILE.pathmap ARGS, 'note' or 'hand-written'" >&2
            fails=$((fails + 1))
            continue ;;
    esac
    if [ "$list" -eq 1 ]; then
        echo "generated $file"
        continue
    fi
    n=$((n + 1))
    dest=$out/$file
    mkdir -p "$(dirname "$dest")" || exit 1
    if ! eval "\"\$PATHGEN\" $args $notes" >"$dest.tmp" </dev/null; then
        echo "$MANIFEST:$lineno: $file: pathgen$args failed" >&2
        rm -f "$dest.tmp"
        fails=$((fails + 1))
        continue
    fi
    mv -f "$dest.tmp" "$dest" || exit 1
done <"$MANIFEST"

[ "$list" -eq 1 ] || echo "pathmaps.sh: $n samples written under $out/"
[ "$fails" -eq 0 ]
