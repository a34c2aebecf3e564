# shellcheck shell=sh
# apps-lib.sh - sourced by the tests that run tests/mpiapps/'s programs
# under bin/paprun (coll-matrix.sh, trace-apps.sh, fortran.sh, ...); not
# a test itself.  Run from the repository root, after tests/lib.sh.
#
# apps_setup: checks that the library, paprun and the programs are built,
#   makes $tmp (removed at exit), clears the library's environment.
# papp SECS NP OUT PAPRUN-ARGS... -- PROGRAM ARGS...: runs the program
#   under paprun on NP ranks (the project's mpirun line) with a timeout,
#   output (stdout and stderr) into OUT; returns mpirun's status (124:
#   killed by the timeout).
# trace_counts DIR OUT [LOG]: (no trace at DIR: fails, showing the run's LOG)
#   otf2-print DIR/traces.otf2 into OUT.print (failing
#   on any message of otf2-print's on stderr) and, per
#   line of OUT, "WHAT N": the number of ENTER events of each region
#   ("ENTER:MPI_Allreduce N") and of each event kind ("MPI_COLLECTIVE_END N").
# want_count OUT KEY N WHAT: OUT's KEY is N, or the test fails.
# calls_of OUT FUNC: the count FUNC=N of the "calls" line a program printed.

apps_setup() {
  for f in lib/libpaptree-mpi.so bin/paprun build/mpiapps/coll_matrix build/mpiapps/fcoll; do
    [ -e "$f" ] || fail "$f is missing (make)"
  done
  unset PAPTREE_DEBUG PAPTREE_TRACE PAPTREE_ALGO PAPTREE_REPORT PAPTREE_FORCE \
        PAPTREE_TRACE_MEM PAPTREE_LIB LD_PRELOAD
  tmp=$(mktemp -d) || exit 1
  trap 'rm -rf "$tmp"' EXIT
}

papp() {
  _secs=$1 _np=$2 _out=$3
  shift 3
  if [ "${PAPTREE_SANITIZER:-}" = address ]; then
    papp_asan "$@" < /dev/null > "$_out" 2>&1
  else
    paptree_mpirun -t "$_secs" "$_np" -- bin/paprun "$@" < /dev/null > "$_out" 2>&1
  fi
}

# Under ASan (make check-asan) the library is built with ASan, whose
# runtime must come first in the initial library list, and paprun puts the
# library first in LD_PRELOAD: so there the library is preloaded with the
# runtime before it, and paprun's options are given as the environment
# paprun would set (docs/paprun.md, "Environment"); paprun itself is tested
# in the plain tier (paprun_args).
papp_asan() (
  _x=""
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
      --trace) PAPTREE_TRACE="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
               export PAPTREE_TRACE; _x="$_x -x PAPTREE_TRACE"; shift 2 ;;
      --algo) PAPTREE_ALGO=$2; export PAPTREE_ALGO; _x="$_x -x PAPTREE_ALGO"; shift 2 ;;
      --report) PAPTREE_REPORT=1; export PAPTREE_REPORT; _x="$_x -x PAPTREE_REPORT"; shift ;;
      *) fail "papp: no ASan form of paprun option $1" ;;
    esac
  done
  shift
  # shellcheck disable=SC2086 # $_x is a word list
  paptree_mpirun -t "$_secs" "$_np" $_x \
    -x LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so) $PWD/lib/libpaptree-mpi.so" -- "$@"
)

trace_counts() {
  [ -f "$1/traces.otf2" ] || { [ -z "${3:-}" ] || cat "$3" >&2; fail "no trace at $1/traces.otf2"; }
  otf2-print "$1/traces.otf2" > "$2.print" 2> "$2.err" ||
    { cat "$2.err" >&2; fail "otf2-print $1/traces.otf2 failed"; }
  # A Score-P trace prints without a warning; so must ours.
  [ ! -s "$2.err" ] || { head -n 5 "$2.err" >&2; fail "otf2-print $1/traces.otf2 warned (above)"; }
  awk '$1 == "ENTER" { if (match($0, /Region: "[^"]*"/)) n["ENTER:" substr($0, RSTART + 9, RLENGTH - 10)]++ }
       $1 ~ /^[A-Z_]+$/ && NF >= 3 { n[$1]++ }
       END { for (k in n) print k, n[k] }' "$2.print" | sort > "$2"
}

want_count() {
  _got=$(awk -v k="$2" '$1 == k { print $2 }' "$1")
  [ "${_got:-0}" -eq "$3" ] || { cat "$1" >&2; fail "$4: $2 is ${_got:-0}, expected $3"; }
}

calls_of() {
  sed -n 's/.*: calls.* '"$2"'=\([0-9]*\).*/\1/p' "$1" | head -n 1
}
