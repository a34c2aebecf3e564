#!/bin/sh
# tests/fuzz/run.sh SECONDS NAME... - runs each libFuzzer target of
# build/san/fuzz (make fuzz builds them) for SECONDS, all at once (each is
# one single-threaded process: two targets on CI's 2 cores take SECONDS,
# not twice; results are printed in the order given).
#
# Seeds come from tests/fuzz/NAME/ (read only); what the fuzzer adds goes to
# build/fuzz-corpus/NAME/ and is kept between runs; a crash, leak, timeout or
# out-of-memory input is written to build/fuzz-crashes/NAME/ and fails the
# target.  tests/fuzz/NAME.dict is used as a dictionary when it exists, and
# the directories listed in tests/fuzz/NAME.seeds are more seeds, read in place.
# Output: one "ok"/"not ok" line per target (a failure shows the end of its
# log, build/fuzz-logs/NAME.log), and last "N passed, N failed"; the exit
# status is 0 iff every target passed.  Run from the repository root.
set -u
secs=$1; shift
# Leaks of OTF2 on its own failure paths are not ours (tests/sanitizers/
# lsan.supp says which).  An allocation over 256 MB returns NULL (as in a
# process with little memory) instead of being an out-of-memory crash: a
# 437-byte anchor file makes OTF2_AnchorFile_Load (3.0.2) ask for GBs and
# touch them (7 s and 2 GB under ASan), which is OTF2's, not ours.  The trace
# target writes an archive and a database per input: on tmpfs if there is one.
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
# fast_unwind_on_malloc=0, as in check-asan: OTF2 is built without frame
# pointers, so the fast unwinder stops at its first frame and the
# suppressions, which name OTF2's entry points (OTF2_Reader_Open), could not
# match its leaks.
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=256:fast_unwind_on_malloc=0"
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
# seed_dirs NAME: the directories of tests/fuzz/NAME.seeds (no comments).
seed_dirs() {
  [ ! -f "tests/fuzz/$1.seeds" ] || sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "tests/fuzz/$1.seeds"
}
# fuzz_one NAME: runs one target; its result line goes to build/fuzz-logs/NAME.result.
fuzz_one() {
  t=$1
  bin=build/san/fuzz/build/fuzz/fuzz_$t
  log=build/fuzz-logs/$t.log
  mkdir -p "build/fuzz-corpus/$t" "build/fuzz-crashes/$t"
  dict=
  [ -f "tests/fuzz/$t.dict" ] && dict=-dict=tests/fuzz/$t.dict
  seeds=$(seed_dirs "$t")
  start=$(date +%s)
  # -timeout: one input taking 10 s is a hang; the outer timeout is a backstop.
  # -close_fd_mask=3: the targets' own messages (rejected inputs) are noise;
  # sanitizer reports still reach the log.
  # shellcheck disable=SC2086 # $dict is one word or none, $seeds directories
  timeout -k 10 $((secs + 120)) "$bin" -max_total_time="$secs" -timeout=10 \
      -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 $dict \
      -artifact_prefix="build/fuzz-crashes/$t/" \
      "build/fuzz-corpus/$t" "tests/fuzz/$t" $seeds > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(sed -n 's/^#[0-9]*.*DONE *cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    echo "ok - fuzz_$t (${took} s, ${execs:-?} runs, cov ${cov:-?}," \
         "corpus $(ls "build/fuzz-corpus/$t" | wc -l) new)"
  else
    echo "not ok - fuzz_$t (exit $rc after ${took} s; inputs in build/fuzz-crashes/$t/)"
    tail -n 40 "$log" | sed 's/^/#   /'
  fi > "build/fuzz-logs/$t.result"
}
passed=0 failed=0
mkdir -p build/fuzz-logs
for t in "$@"; do
  rm -f "build/fuzz-logs/$t.result"
  fuzz_one "$t" &
done
wait
for t in "$@"; do
  if [ -f "build/fuzz-logs/$t.result" ]; then
    cat "build/fuzz-logs/$t.result"
  else
    echo "not ok - fuzz_$t (no result: the runner itself failed)"
  fi
  if grep -q '^ok - ' "build/fuzz-logs/$t.result" 2>/dev/null; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
