#!/bin/sh
# mpi-part.sh - part of an application trace (docs/analysis-db.md, "Part of
# an application trace"): papanalyze --ranks, --ops and --call-site on a
# trace of build/mpiapps/coll_matrix under bin/paprun (4 ranks, every
# intercepted collective on world and on split communicators).
#
#   sh tests/analyze/mpi-part.sh        (from the repository root, after make)
#
# The oracles: the whole trace's database (each part's rows are its rows,
# times included) and otf2-print (the events --ranks reads are those of the
# chosen ranks' locations, and no others).
set -eu

. tests/lib.sh
ME=mpi-part.sh
PA=${PAPANALYZE:-bin/papanalyze}
for prog in "$PA" bin/paprun build/mpiapps/coll_matrix; do
    [ -x "$prog" ] || fail "$ME: $prog is not built (run make first)"
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpipart.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
$(mpirun_cmd) -np 4 bin/paprun --trace "$TMP/app" -- build/mpiapps/coll_matrix \
    >"$TMP/app.out" 2>&1 || { cat "$TMP/app.out" >&2; fail "$ME: paprun coll_matrix"; }
T=$TMP/app/traces.otf2
"$PA" --no-report -o "$TMP/all.db" "$T" >/dev/null 2>&1 || fail "$ME: the whole trace"
meta() { sqlite3 "$1" "SELECT value FROM meta WHERE key = '$2'"; }
rows() { sqlite3 "$1" "SELECT rank, comm, seq, site, enter, leave, bytes FROM mpi_calls $2 ORDER BY 1, 2, 3"; }
same() {    # same WHAT DB WHERE: DB's calls are the whole trace's calls WHERE
    rows "$2" "" >"$TMP/got"
    rows "$TMP/all.db" "$3" >"$TMP/want"
    [ -s "$TMP/want" ] || fail "$ME: $1: the whole trace has no such call"
    cmp -s "$TMP/got" "$TMP/want" || { diff "$TMP/want" "$TMP/got" | head >&2; fail "$ME: $1: not the whole trace's calls $3"; }
}

# --ranks: their calls only, their times on the whole trace's time line (which
# starts at the earliest event of any rank: one of the two halves has not it)
"$PA" --no-report --ranks 3,1 -o "$TMP/r13.db" "$T" >"$TMP/r13.out" 2>&1 || { cat "$TMP/r13.out" >&2; fail "$ME: --ranks 3,1"; }
same "--ranks 1,3" "$TMP/r13.db" "WHERE rank IN (1, 3)"
"$PA" --no-report --ranks 2,0 -o "$TMP/r.db" "$T" >"$TMP/r.out" 2>&1 || { cat "$TMP/r.out" >&2; fail "$ME: --ranks"; }
same "--ranks 0,2" "$TMP/r.db" "WHERE rank IN (0, 2)"
want=$(otf2-print "$T" | awk '$2 ~ /^[0-9]+$/ && $1 ~ /^[A-Z_]+$/ && $1 != "Event" { r = int($2 / 65536); if (r == 0 || r == 2) n++ } END { print n }')
[ "$(meta "$TMP/r.db" events_read)" = "$want" ] ||
    fail "$ME: --ranks 0,2 read $(meta "$TMP/r.db" events_read) events, their locations have $want (otf2-print)"
[ "$(meta "$TMP/r.db" part_ranks)" = "0,2" ] || fail "$ME: meta part_ranks"
grep -q "M events read" "$TMP/r.out" || fail "$ME: --ranks: the summary line"
# an operation is complete when the chosen members of its communicator all called:
# world's operations are, with two calls each
[ "$(sqlite3 "$TMP/r.db" "SELECT COUNT(*) FROM mpi_ops WHERE comm = 0 AND (complete <> 1 OR nranks <> 2)")" = 0 ] ||
    fail "$ME: --ranks 0,2: a world operation not complete with 2 calls"
[ "$(sqlite3 "$TMP/r.db" "SELECT COUNT(*) FROM mpi_ops WHERE comm = 0")" = \
  "$(sqlite3 "$TMP/all.db" "SELECT COUNT(*) FROM mpi_ops WHERE comm = 0")" ] ||
    fail "$ME: --ranks 0,2: not every world operation"

# --ops 3:5: seq 3..5 on each communicator (numbered over the whole trace)
"$PA" --no-report --ops 3:5 -o "$TMP/o.db" "$T" >/dev/null 2>&1 || fail "$ME: --ops"
same "--ops 3:5" "$TMP/o.db" "WHERE seq BETWEEN 3 AND 5"
[ "$(meta "$TMP/o.db" ops_first):$(meta "$TMP/o.db" ops_last)" = "3:5" ] || fail "$ME: meta ops"

# --call-site: by label
site=$(sqlite3 "$TMP/all.db" "SELECT label FROM mpi_callsites ORDER BY site LIMIT 1 OFFSET 1")
"$PA" --no-report --call-site "$site" -o "$TMP/s.db" "$T" >/dev/null 2>&1 || fail "$ME: --call-site"
same "--call-site $site" "$TMP/s.db" "WHERE site = (SELECT site FROM mpi_callsites WHERE label = '$site')"
[ "$(meta "$TMP/s.db" part_call_site)" = "$site" ] || fail "$ME: meta part_call_site"

# errors: nothing replaced
cp "$TMP/all.db" "$TMP/keep.db"
sum=$(cksum <"$TMP/keep.db")
run_fails 60 "$TMP/e1" "$PA" -q --call-site nowhere.c:1 -o "$TMP/keep.db" "$T"
grep -q "no call site of the trace is called so" "$TMP/e1" || { cat "$TMP/e1" >&2; fail "$ME: unknown site: the message"; }
grep -q "its sites: .*coll_matrix.c:" "$TMP/e1" || fail "$ME: unknown site: no known site named"
run_fails 60 "$TMP/e2" "$PA" -q --ranks 1,9 -o "$TMP/keep.db" "$T"
grep -q "rank 9 is not in the trace (ranks 0 to 3)" "$TMP/e2" || { cat "$TMP/e2" >&2; fail "$ME: rank 9: the message"; }
run_fails 60 "$TMP/e3" "$PA" -q --ops 900000:900001 -o "$TMP/keep.db" "$T"
grep -q "no call of the trace is in the part asked" "$TMP/e3" || { cat "$TMP/e3" >&2; fail "$ME: empty part: the message"; }
[ "$(cksum <"$TMP/keep.db")" = "$sum" ] || fail "$ME: a refused part replaced the database"

# progress lines on an application trace too
PAPTREE_PROGRESS_S=0 "$PA" --no-report -o "$TMP/p.db" "$T" >/dev/null 2>"$TMP/p.err" || fail "$ME: progress run"
grep -Eq "^papanalyze: +[0-9.]+ % \(.* M events/s" "$TMP/p.err" || { cat "$TMP/p.err" >&2; fail "$ME: no progress line"; }
echo "$ME: ok"
