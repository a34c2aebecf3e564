#!/bin/sh
# regen.sh - the paper's configurations come out of `pathgen generate`
# (docs/pathgen.md, "The paper's configurations"), as an independent
# generator builds them.
#
# tests/oracles/gen-pathmaps.py is an independent implementation of the
# shapes and placements of pathmaps/README.md; it writes its own copy of
# every sample into a temporary directory.  Each command below must give
# the same tree as the oracle's file (`pathgen compare`), with the same
# names where the row says "names".  Each output must also validate
# (bin/pathmap-check), and the longest path its header states must be the
# one pathmap-check computes.  The commands are the ones documented in
# docs/pathgen.md; change both together.
#
# Then every sample that pathmaps/MANIFEST generates (replayed by
# scripts/pathmaps.sh) must be the oracle's text below the header comment,
# byte for byte but for the wrappers' trailing comments.  That the
# committed samples are the manifest's output is tests/pathgen/manifest.sh.
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/pathgen-regen.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
E=examples/pathgen
O=$T/oracle
fails=0
n=0
if ! python3 tests/oracles/gen-pathmaps.py "$O" >"$T/err" 2>&1; then
    echo "FAIL tests/oracles/gen-pathmaps.py: $(tail -1 "$T/err")"
    exit 1
fi

# check MODE SAMPLE ARGS...: MODE names (names equal too) or trees; SAMPLE
# is the oracle's file of that name.
check() {
    mode=$1 name=$2 sample=$O/$2.pathmap
    shift 2
    n=$((n + 1))
    out=$T/out.pathmap
    rm -f "$out"
    if ! bin/pathgen "$@" -o "$out" 2>"$T/err"; then
        echo "FAIL $name: pathgen $*: $(head -1 "$T/err")"
        fails=$((fails + 1))
        return
    fi
    if ! bin/pathmap-check "$out" >"$T/check" 2>&1; then
        echo "FAIL $name: the output does not validate: $(head -1 "$T/check")"
        fails=$((fails + 1))
        return
    fi
    said=$(sed -n 's/^# Size: .*longest path \([0-9]*\) wrappers$/\1/p' "$out")
    real=$(sed -n 's/.*longest path \([0-9]*\) wrappers.*/\1/p' "$T/check")
    if [ -z "$said" ] || [ "$said" != "$real" ]; then
        echo "FAIL $name: header says longest path '$said', pathmap-check '$real'"
        fails=$((fails + 1))
    fi
    flag=
    [ "$mode" = names ] && flag=--names
    if ! bin/pathgen compare $flag "$out" "$sample" >/dev/null 2>"$T/cmp"; then
        echo "FAIL $name ($mode): pathgen $*"
        sed 's/^/    /' "$T/cmp"
        fails=$((fails + 1))
        return
    fi
    echo "ok   $name ($mode)"
}

G="--hosts 4 --threads-per-host 8"      # the 8W cluster, section 6.1
F="--hosts 8 --threads-per-host 4"      # the 4W cluster, section 6.2
N="--hosts 30 --threads-per-host 2"     # NOW, section 6.3
B="--hosts 10 --threads-per-host 1"     # Blade, section 6.4

check names paper/nary8w               $G
check names paper/quad8w               $G --shape quad
check names paper/binaryquad8w         $G --shape binary-quad
check names paper/binary8w             $G --shape binary
check names paper/binary8w-extralinks  $G --shape binary --extra-links
check names paper/nary4w               $F
check names paper/nary4w-extralinks    $F --extra-links
check names paper/binary4w             $F --shape binary
check names paper/split4w              $F --shape binary --split 2:last
check names paper/split4w-2            $F --shape binary --split 2:last --host-shape nary@1,2,4,6
check names paper/quadnow              $N --root-shape quad
check names paper/splitnow             $N --root-shape quad --split 4:first
check names paper/binarynow            $N --root-shape 2 --split 4:first
check names paper/flatblade            $B
check names paper/binaryblade          $B --root-shape binary
check names paper/multicluster-split4w-binary8w \
    --cluster $E/multicluster.cluster --app $E/multicluster.app \
    --mapping $E/multicluster.mapping --shape binary --split 2:last@a

# The same from mapping files, and the one-line form spelled otherwise.
check names paper/nary8w   --cluster $E/8w.cluster --app $E/8w.app --mapping $E/8w.mapping
check names paper/split4w  --cluster $E/4w.cluster --app $E/4w.app --mapping $E/fill.mapping \
    --shape binary --split 2:last
check names paper/binary8w generate $G --host-shape binary --root-shape binary

# The scaled trees of pathmaps/local/.
check names local/gred-1x2              --hosts 1 --threads-per-host 2
check names local/binary-1x4            --hosts 1 --threads-per-host 4 --shape binary
check names local/nary-2x2              --hosts 2 --threads-per-host 2
check names local/quad-2x4              --hosts 2 --threads-per-host 4 --shape quad
check names local/binaryquad-2x4        --hosts 2 --threads-per-host 4 --shape binary-quad
check names local/binary-2x4            --hosts 2 --threads-per-host 4 --shape binary
check names local/binary-extralinks-2x4 --hosts 2 --threads-per-host 4 --shape binary --extra-links
check names local/nary-4x2              --hosts 4 --threads-per-host 2
check names local/binary-4x2            --hosts 4 --threads-per-host 2 --shape binary
check names local/split-4x2             --hosts 4 --threads-per-host 2 --shape binary --split 2:last
check names local/split2-4x2            --hosts 4 --threads-per-host 2 --shape binary \
    --split 2:last --host-shape nary@1,2
check names local/nary-extralinks-2x2   --hosts 2 --threads-per-host 2 --extra-links
check names local/pair-2x1              --hosts 2 --threads-per-host 1
check names local/flat-4x1              --hosts 4 --threads-per-host 1
check names local/binary-4x1            --hosts 4 --threads-per-host 1 --root-shape binary
check names local/gateway-3x2 --cluster $E/gateway.cluster --app $E/gateway.app \
    --mapping $E/fill.mapping
check names demo                        --hosts 2 --threads-per-host 2

# Algorithm nodes across the hosts.
check names algo-demo                   --hosts 2 --threads-per-host 2 --algo rd
check names local/algo/prr-4x2          --hosts 4 --threads-per-host 2 \
    --algo 'run=prr round=2000 arrival=history'
check names paper/algo/binary8w-rd      $G --host-shape binary --algo rd
check names paper/algo/blade-ring       $B --algo ring
check names paper/algo/proficz2018-prr-16x24 --hosts 16 --threads-per-host 24 --type float \
    --algo 'prr round=700000 arrival=history'

echo "$((n - fails)) of $n configurations as the oracle's"

# The text of every generated sample: the manifest's command against the
# oracle, header comment and trailing comments left out.
body() {
    sed '/^#/d; s/ *#.*$//' "$1"
}
if ! scripts/pathmaps.sh "$T/replay" >"$T/err" 2>&1; then
    echo "FAIL scripts/pathmaps.sh: $(tail -1 "$T/err")"
    exit 1
fi
same=0
for f in $(scripts/pathmaps.sh --list | sed -n 's/^generated //p'); do
    if [ ! -f "$O/$f" ]; then
        echo "FAIL pathmaps/$f: no such file from tests/oracles/gen-pathmaps.py"
        fails=$((fails + 1))
        continue
    fi
    body "$O/$f" >"$T/want"
    body "$T/replay/$f" >"$T/got"
    if cmp -s "$T/want" "$T/got"; then
        same=$((same + 1))
    else
        echo "FAIL pathmaps/$f: pathgen's text differs from the oracle's:"
        diff "$T/want" "$T/got" | head -5 | sed 's/^/    /'
        fails=$((fails + 1))
    fi
done
echo "$same manifest samples as the oracle's text"
[ "$same" -ge 62 ] || { echo "FAIL only $same samples compared (62 when this was written)"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ]
