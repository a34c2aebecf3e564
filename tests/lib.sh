# tests/lib.sh - sourced by the shell tests: the mpirun command line
# (bench/lib.sh's, the same as the runner's TST_MPI entries) and small
# assertions.  Run from the repository root.

. bench/lib.sh

# mpirun_cmd: the mpirun command line up to -np (a word list), which the
# tests complete with -np N and the program.
mpirun_cmd() {
  paptree_mpirun_prefix
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_count FILE N TEXT: TEXT occurs on at least N lines of FILE.
expect_count() {
  n=$(grep -cF -- "$3" "$1" || true)
  [ "$n" -ge "$2" ] || { cat "$1" >&2; fail "expected '$3' on >= $2 lines of $1, found $n"; }
}

# no_sanitizer_report FILE WHAT: fails if FILE holds a sanitizer's report.
# Under `make check-asan`/`check-tsan` a report also makes the program exit
# non-zero, which a command that must fail would take for the failure it
# expects; every sanitizer ends its report with this SUMMARY line.
no_sanitizer_report() {
  if grep -q '^SUMMARY: [A-Za-z]*Sanitizer' "$1"; then
    cat "$1" >&2; fail "sanitizer report: $2"
  fi
}

# run_fails SECONDS OUTFILE CMD...: CMD must exit non-zero (not by timeout,
# not by a sanitizer's report).
run_fails() {
  secs=$1 out=$2; shift 2
  set +e
  timeout "$secs" "$@" > "$out" 2>&1
  rc=$?
  set -e
  [ "$rc" -ne 124 ] || { cat "$out" >&2; fail "hung: killed after ${secs}s: $*"; }
  [ "$rc" -ne 0 ] || { cat "$out" >&2; fail "succeeded but should have failed: $*"; }
  no_sanitizer_report "$out" "$*"
}

# mem_cap TOTAL_KB [ONE_KB]: caps the memory of what this (sub)shell runs
# next, to show that a bad size drives no allocation.  Plain builds: the
# address space, `ulimit -v TOTAL_KB`.  Under a sanitizer (PAPTREE_SANITIZER
# = address or thread, set by make check-asan / check-tsan), whose shadow
# memory reserves terabytes of address space, the same cap through the
# sanitizer's allocator: any one allocation over ONE_KB (default TOTAL_KB)
# returns NULL, as it would fail under the ulimit.
mem_cap() {
  cap="max_allocation_size_mb=$(( ${2:-$1} / 1024 )):allocator_may_return_null=1"
  case ${PAPTREE_SANITIZER:-} in
    address) ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$cap"; export ASAN_OPTIONS ;;
    thread) TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}$cap"; export TSAN_OPTIONS ;;
    *) ulimit -v "$1" ;;
  esac
}
