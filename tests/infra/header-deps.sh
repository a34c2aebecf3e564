#!/bin/sh
# tests/infra/header-deps.sh - touching any header rebuilds exactly the objects
# whose source includes it, directly or through other headers.
#
# The expected sets come from the #include lines of the tree (read here, not
# from the compiler's .d files), and `make -n -W HEADER all` says what make
# would recompile if HEADER changed.  Run after a full build (make test builds
# first).  Catches a directory whose dependency files are not included, as
# viz/ once was: touching viz/viz_svg_int.h then rebuilt nothing.
set -eu
. tests/lib.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/header-deps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Runs make as a user would, not as a child of the make that runs the tests.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory "$@"; }

# Every object `make all` builds must be up to date first, or -W says nothing.
mk -q all 2>/dev/null || fail "the build is not up to date: run make all first"

# header -> the .c files that include it, transitively (one "H C" line each).
# Asked of the checkout this script is in: under make check-asan the current
# directory is build/san/asan, whose sources are symlinks into it.
src=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
git -C "$src" ls-files --cached --others --exclude-standard '*.c' '*.h' > "$tmp/files"
python3 - "$tmp/files" > "$tmp/expect" <<'PYEND'
import re, sys
files = open(sys.argv[1]).read().split()
inc = {}
for f in files:
    inc[f] = [m.group(1) for m in
              re.finditer(r'^\s*#\s*include\s*"([^"]+)"', open(f).read(), re.M)
              if m.group(1) in files]
def closure(f, seen):
    for h in inc.get(f, []):
        if h not in seen:
            seen.add(h)
            closure(h, seen)
    return seen
for c in (f for f in files if f.endswith('.c')):
    for h in sorted(closure(c, set())):
        print(h, c)
PYEND

# Which of those sources make compiles into build/obj (not the ASan one-shot
# build): asked once for all of them, not once per header and source.  -B
# prints the compile command of every object make knows how to build,
# up to date or not; -k goes on past one it does not know (which then
# prints nothing, as `make -n build/obj/X.o` would fail on it).
awk '{ print $2 }' "$tmp/expect" | LC_ALL=C sort -u | sed 's|^\(.*\)\.c$|build/obj/\1.o|' > "$tmp/objs"
# shellcheck disable=SC2046 # one word per object
mk -n -B -k $(cat "$tmp/objs") 2>/dev/null |
    sed -n 's/.* -c \([^ ]*\.c\) -o build\/obj\/.*/\1/p' | LC_ALL=C sort -u > "$tmp/compiled"

nheaders=0 nobj=0
for h in $(grep '\.h$' "$tmp/files"); do
    # What make would compile: "... -c SRC -o build/obj/X.o".
    mk -n -W "$h" all 2>/dev/null |
        sed -n 's/.* -c \([^ ]*\.c\) -o build\/obj\/.*/\1/p' | LC_ALL=C sort -u > "$tmp/got"
    # Only sources that are compiled to build/obj (not the ASan one-shot build).
    awk -v h="$h" '$1 == h { print $2 }' "$tmp/expect" | LC_ALL=C sort -u |
        LC_ALL=C comm -12 - "$tmp/compiled" > "$tmp/want"
    if ! cmp -s "$tmp/want" "$tmp/got"; then
        echo "touching $h: objects that should rebuild (<) vs would rebuild (>):" >&2
        diff "$tmp/want" "$tmp/got" >&2 || :
        fail "wrong rebuild set for $h"
    fi
    nheaders=$((nheaders + 1))
    nobj=$((nobj + $(wc -l < "$tmp/want")))
done
[ "$nheaders" -ge 30 ] || fail "only $nheaders headers checked"
echo "header-deps: ok ($nheaders headers, $nobj header-object pairs)"
