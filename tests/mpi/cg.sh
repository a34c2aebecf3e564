#!/bin/sh
# cg.sh - examples/cg.c, the conjugate-gradient example, end to end.
#
#  1. One job, 2 hosts x 2 threads, examples/cg-2x2.pathmap: PRR with
#     arrival=edge, ring and native, rows split 1:2:1:3, traced, each
#     answer saved.  The program must exit 0, with one row and one "ok"
#     check per tree.  The oracle is not the program: this script's Python
#     rebuilds A and b from the problem's definition (the 5-point Laplacian,
#     b = A x* with x*(x,y) = (x^2 + 3y^2 + xy) mod 13 - 6), recomputes
#     ||b - A x|| / ||b|| from each saved x, requires it below the tolerance
#     (with the same factor 2 as the program: the recursive residual that
#     stops CG drifts from the true one only by rounding, orders below tol
#     here) and equal to the value the program printed to its 4 significant
#     digits (1e-3 relative: the printing rounds by at most 5e-4, and both
#     sums of the same terms in double agree far closer than that),
#     and bounds the error against x* by ||r|| / lambda_min, lambda_min of the
#     Dirichlet Laplacian in closed form.
#  2. The traces: papanalyze loads each tree's archive and finds the tree,
#     its algorithm node and as many operations as the program made
#     (--warmup + iterations + 2: the pass that finds convergence and the
#     stop vote, examples/cg.c; one solve per tree, --repeat 1).
#  3. The built-in trees with 3 hosts x 1 thread (a halo with two
#     neighbours for the middle rank), the default split: converge and check.
#  4. Bad options exit 2 with a usage line (no mpirun: a singleton run parses
#     and stops before any tree), --help exits 0; on one rank the built-in
#     trees and a 2-host pathmap are refused with exit 1 and a reason.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
TOL=1e-8

# ---- 1. three trees, traced, answers checked by an oracle of our own ----
timeout 120 $MPIRUN -np 2 bin/cg -p examples/cg-2x2.pathmap --grid 70x60 --split 1:2:1:3 \
    --tol $TOL --warmup 20 --repeat 1 --trace "$tmp/tr" --save-x "$tmp/x" > "$tmp/out" 2>&1 ||
    { cat "$tmp/out" >&2; fail "cg on examples/cg-2x2.pathmap failed"; }
for t in prr ring native; do
    grep -q "^$t  *[a-z]" "$tmp/out" || { cat "$tmp/out" >&2; fail "no row for tree $t"; }
    grep -q "^#   $t: ||b-Ax||/||b|| = .*: ok\$" "$tmp/out" ||
        { cat "$tmp/out" >&2; fail "tree $t: no passing check line"; }
done
grep -q "^prr  *prr arrival=edge " "$tmp/out" || { cat "$tmp/out" >&2; fail "prr: not PRR+edge"; }
grep -q "rows per thread (thread-id order): 600 1200 600 1800\$" "$tmp/out" ||
    { cat "$tmp/out" >&2; fail "--split 1:2:1:3 of 4200 rows is not 600 1200 600 1800"; }

python3 - "$tmp/out" "$tmp/x" $TOL <<'PYEND' || fail "the oracle rejected an answer (above)"
import math, re, sys
out, xdir, tol = open(sys.argv[1]).read(), sys.argv[2], float(sys.argv[3])
nx, ny = 70, 60
n = nx * ny
def ax(v, gx, gy):
    s = 4.0 * v[gy * nx + gx]
    for qx, qy in ((gx - 1, gy), (gx + 1, gy), (gx, gy - 1), (gx, gy + 1)):
        if 0 <= qx < nx and 0 <= qy < ny:
            s -= v[qy * nx + qx]
    return s
xs = [float((gx * gx + 3 * gy * gy + gx * gy) % 13 - 6) for gy in range(ny) for gx in range(nx)]
b = [ax(xs, gx, gy) for gy in range(ny) for gx in range(nx)]
bn = math.sqrt(sum(v * v for v in b))
lam = 4 * (math.sin(math.pi / (2 * (nx + 1))) ** 2 + math.sin(math.pi / (2 * (ny + 1))) ** 2)
bad = 0
for t in ("prr", "ring", "native"):
    x = [float(l) for l in open("%s/%s.x" % (xdir, t))]
    assert len(x) == n, "%s: %d values, expected %d" % (t, len(x), n)
    r = math.sqrt(sum((b[gy * nx + gx] - ax(x, gx, gy)) ** 2
                      for gy in range(ny) for gx in range(nx)))
    err = max(abs(a - e) for a, e in zip(x, xs))
    m = re.search(r"^#   %s: \|\|b-Ax\|\|/\|\|b\|\| = (\S+)" % t, out, re.M)
    said = float(m.group(1))
    print("cg oracle: %s: ||b-Ax||/||b|| = %.4e (program: %.4e), max|x-x*| = %.3e <= %.3e"
          % (t, r / bn, said, err, r / lam))
    if not r / bn <= 2 * tol:
        print("FAIL: %s: residual %.3e above 2 tol" % (t, r / bn)); bad = 1
    if abs(r / bn - said) > 1e-3 * said:
        print("FAIL: %s: the program said %.6e" % (t, said)); bad = 1
    if not err <= r / lam * 1.001:
        print("FAIL: %s: error against x* above ||r|| / lambda_min" % t); bad = 1
sys.exit(bad)
PYEND

# ---- 2. the traces load in papanalyze ----
# cg ends by naming them, one line per tree, where papanalyze reads.
printf 'Trace: %s/%s/traces.otf2\n' "$tmp/tr" prr "$tmp/tr" ring "$tmp/tr" native > "$tmp/want"
tail -3 "$tmp/out" | diff "$tmp/want" - || { cat "$tmp/out" >&2; fail "cg does not end with its traces' paths"; }
for t in prr ring native; do
    iters=$(sed -n "s/^$t  *[a-z]\{1,\}\( arrival=[a-z]*\)\{0,1\}  *\([0-9]\{1,\}\) .*/\2/p" "$tmp/out")
    [ -n "$iters" ] || { cat "$tmp/out" >&2; fail "$t: no iteration count in its row"; }
    timeout 60 bin/papanalyze "$tmp/tr/$t/traces.otf2" > "$tmp/pa" 2>&1 ||
        { cat "$tmp/pa" >&2; fail "papanalyze could not load the $t trace"; }
    grep -q "^tree  *$t of examples/cg-2x2.pathmap: 2 hosts, 4 threads" "$tmp/pa" ||
        { cat "$tmp/pa" >&2; fail "$t: papanalyze does not name the tree"; }
    grep -q "^operations $((20 + iters + 2))," "$tmp/pa" ||
        { grep "^operations" "$tmp/pa" >&2; fail "$t: not 20 + $iters + 2 operations in the trace"; }
    grep -q "^Algorithm node across (run=$t" "$tmp/pa" ||
        { cat "$tmp/pa" >&2; fail "$t: papanalyze has no section for the algorithm node"; }
done
echo "cg: three trees converged, checked by the oracle, traced and analysed"

# ---- 3. the built-in trees, 3 hosts x 1 thread ----
timeout 120 $MPIRUN -np 3 bin/cg --threads 1 --grid 40x30 --warmup 5 --repeat 2 > "$tmp/out3" 2>&1 ||
    { cat "$tmp/out3" >&2; fail "cg with the built-in trees on 3 hosts failed"; }
[ "$(grep -c ': ok$' "$tmp/out3")" -eq 3 ] || { cat "$tmp/out3" >&2; fail "built-in: not 3 checks ok"; }
grep -q "rows per thread (thread-id order): 267 400 533\$" "$tmp/out3" ||
    { cat "$tmp/out3" >&2; fail "default split 1:1.5:2 of 1200 rows is not 267 400 533"; }

# ---- 4. bad options, --help, one rank ----
# Each bad option: exit 2, its message (worked out from the option's range and
# cm_opt's one form), then the usage line.
while IFS='|' read -r args msg; do
    set +e
    # shellcheck disable=SC2086 # the words of $args are the options
    bin/cg $args > "$tmp/bad" 2>&1
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || { cat "$tmp/bad" >&2; fail "cg $args: exit $rc, expected 2"; }
    [ "$(sed -n 1p "$tmp/bad")" = "cg: $msg" ] && sed -n 2p "$tmp/bad" | grep -q "^usage: " ||
        { cat "$tmp/bad" >&2; fail "cg $args: not 'cg: $msg' and the usage line"; }
done <<'EOF'
--bogus|unknown option '--bogus'
--grid 9y9|--grid: '9y9' is not an integer, expected 2..4096
--grid 9x1|--grid: '1' is out of range, expected 2..4096
--grid 9x9x9|--grid: 3 items, expected at most 2
--split 1::2|--split: item 2 of '1::2' is empty, expected items separated by ':'
--tol 0.5|--tol: '0.5' is out of range, expected 1e-12..0.1
--tol nan|--tol: 'nan' is not a finite number, expected 1e-12..0.1
--threads 2 -p examples/cg-2x2.pathmap|--threads shapes the built-in trees; a pathmap says its own threads
--force|--force needs --trace DIR
extra|unexpected argument 'extra'
EOF
bin/cg --help > "$tmp/help" 2>&1 || fail "cg --help did not exit 0"
grep -q "^usage: mpirun -np HOSTS cg" "$tmp/help" || fail "cg --help: no usage"
run_fails 60 "$tmp/one" bin/cg
grep -q "built-in trees need 2 or more ranks" "$tmp/one" || { cat "$tmp/one" >&2; fail "one rank"; }
run_fails 60 "$tmp/one" bin/cg -p examples/cg-2x2.pathmap
grep -q "^cg: error: examples/cg-2x2.pathmap has 2 hosts; run it with mpirun -np 2" "$tmp/one" ||
    { cat "$tmp/one" >&2; fail "a 2-host pathmap on one rank: no clear error"; }
echo "cg: ok"
