# tests/analyze/expect.sh - sourced by the analysis tests (synthetic.sh,
# algo.sh): compare query results on $DB with values worked out by hand.
# The caller defines ME (its name), die() and sets DB and CTX (what is being
# checked, for messages) before each check; NCHECKS counts the checks.

NCHECKS=0
DB=
CTX=

# One field of an expected value: an arithmetic expression (digits, spaces and
# + - * / ( ) .), or any awk expression after a leading '=' (=20/sqrt(3)), is
# computed by awk; anything else (a name, NULL) is compared as a string.
field_value() {
    case $1 in
    =*) awk "BEGIN { printf \"%.17g\", (${1#=}) }" ;;
    *[!-0-9+*/\(\).\ ]* | '') printf '%s' "$1" ;;
    *) awk "BEGIN { printf \"%.17g\", ($1) }" ;;
    esac
}

# The expected value with each '|'-separated field through field_value.
expand_value() {
    ev_rest=$1
    ev_out=
    ev_sep=
    while :; do
        ev_out=$ev_out$ev_sep$(field_value "${ev_rest%%|*}")
        ev_sep='|'
        case $ev_rest in
        *'|'*) ev_rest=${ev_rest#*|} ;;
        *) break ;;
        esac
    done
    printf '%s' "$ev_out"
}

# same TOL GOT EXPECTED: the same fields; numbers within TOL relative (and
# TOL absolute below 1), strings equal.  Otherwise prints which column differs.
same() {
    TOL=$1 G=$2 E=$3 awk '
        function isnum(s) { return s ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
        BEGIN {
            tol = ENVIRON["TOL"] + 0
            ng = split(ENVIRON["G"], g, "|"); ne = split(ENVIRON["E"], e, "|")
            if (ng != ne) { print "the number of columns"; exit 1 }
            for (i = 1; i <= ng; i++) {
                bad = 0
                if (isnum(g[i]) && isnum(e[i])) {
                    d = g[i] - e[i]; if (d < 0) d = -d
                    t = e[i] + 0; if (t < 0) t = -t; if (t < 1) t = 1
                    bad = d > tol * t
                } else
                    bad = g[i] != e[i]
                if (bad) { print "column " i; exit 1 }
            }
        }'
}

query() {
    sqlite3 -batch -bail -noheader -list -nullvalue NULL "$DB" "$1" 2>&1
}

# expect_tol TOL SQL VALUE: the query's result (one row, columns joined by
# '|', NULL as NULL) must equal VALUE field by field.
expect_tol() {
    got=$(query "$2") || die "[$CTX] query failed: $2: $got"
    want=$(expand_value "$3")
    if ! where=$(same "$1" "$got" "$want"); then
        header=$(sqlite3 -batch -header -list "$DB" "$2" 2>/dev/null | head -1)
        {
            echo "$ME: FAIL [$CTX]: $2"
            echo "  columns:  $header"
            echo "  expected: $3  (= $want)"
            echo "  got:      $got"
            echo "  first difference: $where"
        } >&2
        exit 1
    fi
    NCHECKS=$((NCHECKS + 1))
}

# expect SQL VALUE: numbers equal within 1e-9 relative (exact for integers).
expect() {
    expect_tol 1e-9 "$1" "$2"
}
