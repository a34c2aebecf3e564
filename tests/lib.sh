# tests/lib.sh - sourced by the shell tests: the mpirun command line
# (the same flags as the runner's TST_MPI entries) and small assertions.
# Run from the repository root.

mpirun_cmd() {
  if [ "$(id -u)" = 0 ]; then
    echo "mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader"
  else
    echo "mpirun --oversubscribe --bind-to none --mca btl self,vader"
  fi
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_count FILE N TEXT: TEXT occurs on at least N lines of FILE.
expect_count() {
  n=$(grep -cF -- "$3" "$1" || true)
  [ "$n" -ge "$2" ] || { cat "$1" >&2; fail "expected '$3' on >= $2 lines of $1, found $n"; }
}

# run_fails SECONDS OUTFILE CMD...: CMD must exit non-zero (not by timeout).
run_fails() {
  secs=$1 out=$2; shift 2
  set +e
  timeout "$secs" "$@" > "$out" 2>&1
  rc=$?
  set -e
  [ "$rc" -ne 124 ] || { cat "$out" >&2; fail "hung: killed after ${secs}s: $*"; }
  [ "$rc" -ne 0 ] || { cat "$out" >&2; fail "succeeded but should have failed: $*"; }
}
