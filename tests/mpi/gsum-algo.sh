#!/bin/sh
# gsum-algo.sh - Gsum through algorithm nodes beyond the samples' int32 sums.
#
#  1. The samples with other element types and operations (the tree line of
#     a sample rewritten), sizes whose element counts are 1, 3 (fewer than
#     the hosts for 4 hosts), odd, and 1 Mi elements for two of them.  Gsum
#     checks every result against the closed form and aborts at a wrong one,
#     so exit 0 says every element of every operation was right.
#  Under ASan (make check-asan) only one run per element type other than
#  int32 (marked asan below): what the others add, each type and op through
#  every schedule, algo_run_np* runs under ASan, as gsum_algo_* runs every
#  sample; Gsum's own code differs by type only (its inputs and expected
#  results, the float sums' exactness).  (Rabenseifner's precondition through
#  Gsum, the algorithm node's fatal path, is gsum-algo-precondition.sh.)
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# variant SAMPLE TYPE OP HOSTS SIZES [asan]: SAMPLE's tree with type=TYPE
# op=OP (under ASan only if marked asan).
variant() {
    if [ "${PAPTREE_SANITIZER:-}" = address ] && [ "${6:-}" != asan ]; then
        echo "gsum-algo: $1 $2 $3: left to the plain tier (ASan)"
        return 0
    fi
    src=pathmaps/local/algo/$1.pathmap
    pm=$tmp/$1-$2-$3.pathmap
    sed "s/^tree \([A-Za-z0-9_]*\).*/tree \1 type=$2 op=$3/" "$src" > "$pm"
    grep -q "^tree .* type=$2 op=$3" "$pm" || fail "$1: could not rewrite its tree line"
    timeout 300 $MPIRUN -np "$4" bin/gsum -p "$pm" -n 40 -w 2 -s "$5" > "$tmp/out" 2>&1 ||
        { cat "$tmp/out" >&2; fail "$1 with $2 $3 failed"; }
    rows=$(grep -c '^[0-9]' "$tmp/out" || true)
    want=$(echo "$5" | tr ',' '\n' | wc -l)
    [ "$rows" -eq "$want" ] || { cat "$tmp/out" >&2; fail "$1 $2 $3: $rows rows, expected $want"; }
    echo "gsum-algo: $1 $2 $3 -s $5: ok"
}

variant prr-4x2                 double max 4 8,24,8008      asan
variant clv-binomial-bcast-4x2  float  sum 4 4,12,4004      asan
variant ring-4x1                int64  min 4 8,24,8008,8388608
variant greedy-reduce-3x2       float  max 3 4,12,4004
variant slt-3x2                 int64  sum 3 8,24,8008      asan
variant nap-4x2                 double sum 4 8,24,8008
variant rabenseifner-4x2        int32  max 4 16,4004,4194304
variant native-2x2              float  min 2 4,12,4004
variant chain-reduce-chain-bcast-2x2 double min 2 8,24,8008
variant binomial-reduce-binomial-bcast-3x1 int64 max 3 8,24,8008
variant bintree-reduce-4x1      float  sum 4 4,12,4004
variant clv-linear-2x2          double sum 2 8,24,8008
variant ring-seg-2x2            int64  sum 2 8,24,8008
variant rd-4x2                  float  max 4 4,12,4004

echo "gsum-algo: ok"
