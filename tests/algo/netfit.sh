#!/bin/sh
# netfit.sh - bin/netfit end to end: a --quick run on 2 ranks writes a net
# file that papsim --net reads back with the same values; the table has
# the sizes of --quick; usage, the rank count and an unwritable file fail
# as documented.  No timing is checked (the machine is shared): only that
# every figure is a positive, finite number below a second.
#
# --quick's sizes, by its rule (powers of 16 from 4 B while <= 64 KiB, then
# 64 KiB itself): 4, 64, 1024, 16384, 65536.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "not ok: $*"; fails=$((fails + 1)); }

# Usage, without MPI.
bin/netfit --help >"$tmp/help" 2>&1 && grep -q "^usage: mpirun -np 2 netfit" "$tmp/help" ||
    fail "netfit --help: $(cat "$tmp/help")"
bin/netfit --bogus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(head -n 1 "$tmp/err")" = "netfit: unknown option '--bogus'" ] &&
    grep -q "^usage:" "$tmp/err" || fail "unknown option: $(cat "$tmp/err")"
bin/netfit -r 0 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -qxF "netfit: -r: '0' is out of range, expected 1..1001" "$tmp/err" ||
    fail "-r 0: $(cat "$tmp/err")"
bin/netfit --max-bytes 2G >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -qxF "netfit: --max-bytes: '2G' is out of range, expected 4..1GiB" \
    "$tmp/err" || fail "--max-bytes 2G: $(cat "$tmp/err")"

# A quick run and its file.
timeout 60 $MPIRUN -np 2 bin/netfit --quick -o "$tmp/q.net" >"$tmp/out" 2>"$tmp/err" ||
    fail "netfit --quick exited $?: $(cat "$tmp/err")"
sizes=$(awk '/^ +[0-9]/ { printf "%s ", $1 }' "$tmp/out")
[ "$sizes" = "4 64 1024 16384 65536 " ] || fail "--quick sizes: '$sizes'"
# Exactly one line of each key, each a number in (0, 1) seconds.
for k in alpha beta gamma; do
    n=$(grep -c "^$k=" "$tmp/q.net")
    [ "$n" -eq 1 ] || fail "$k= on $n lines of the file"
    v=$(sed -n "s/^$k=//p" "$tmp/q.net")
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0 && v + 0 < 1 && v ~ /^[0-9.e+-]+$/) }' ||
        fail "$k=$v is not in (0, 1)"
done
[ "$(grep -cv '^#' "$tmp/q.net")" -eq 3 ] || fail "the file has other lines: $(cat "$tmp/q.net")"
# papsim reads it: its header shows the file's alpha, beta and gamma (%.4g).
if bin/papsim -P 4 --net "$tmp/q.net" ring rd >"$tmp/sim" 2>"$tmp/err"; then
    want=$(awk -F= '$1 == "alpha" { a = $2 } $1 == "beta" { b = $2 } $1 == "gamma" { g = $2 }
        END { printf "alpha %.4g s, beta %.4g s/B", a, b; printf "|gamma %.4g s/B", g }' "$tmp/q.net")
    grep -qF "${want%|*}" "$tmp/sim" && grep -qF "${want#*|}" "$tmp/sim" ||
        fail "papsim's header '$(grep '^# cost' "$tmp/sim")' against the file's '$want'"
else
    fail "papsim --net (netfit's file) exited $?: $(cat "$tmp/err")"
fi

# Not 2 ranks: every rank exits 1, rank 0 says why.
timeout 60 $MPIRUN -np 1 bin/netfit --quick >"$tmp/out" 2>"$tmp/err"
[ $? -ne 0 ] && grep -qF "netfit: error: needs exactly 2 ranks, got 1 (mpirun -np 2)" "$tmp/err" ||
    fail "-np 1: $(cat "$tmp/err")"
# A file that cannot be written: exit 1 after the measurement, with the reason.
timeout 60 $MPIRUN -np 2 bin/netfit --quick -r 1 -o "$tmp/no/such/dir" >"$tmp/out" 2>"$tmp/err"
[ $? -ne 0 ] && grep -qF "netfit: error: cannot write $tmp/no/such/dir: No such file or directory" \
    "$tmp/err" || fail "unwritable -o: $(cat "$tmp/err")"

if [ "$fails" -eq 0 ]; then echo "ok: netfit"; exit 0; fi
exit 1
