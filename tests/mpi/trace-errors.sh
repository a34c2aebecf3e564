#!/bin/sh
# gsum --trace DIR when DIR cannot or must not be written: a clear message
# on every rank, a non-zero exit, no hang, and nothing destroyed or left
# half-written.  An existing archive is kept without --force and replaced
# with it (with the traces.db made from it), unless the directory holds any
# other file; a directory that is not an archive is never replaced; a stale
# DIR.partial is refused without --force, and with it unless it holds only
# an archive's files; a read-only file system, a path
# under a file, a full disk; --trace-mem below the minimum; usage errors.
# Needs root for the tmpfs mounts (as the CI has).
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
tmp=$(mktemp -d)
mounts=""
cleanup() {
  for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
[ "$(id -u)" = 0 ] || fail "needs root (mount -t tmpfs)"
DEMO="-p pathmaps/demo.pathmap -n 300 -w 10"

# sums DIR: a checksum of every file under DIR with its path, and the listing.
sums() { (cd "$1" && find . -print | LC_ALL=C sort && find . -type f -print | LC_ALL=C sort | xargs -r md5sum); }

# events ARCHIVE: the number of ENTER and LEAVE events otf2-print reads.
events() {
  otf2-print "$1/traces.otf2" > "$tmp/print" 2> "$tmp/print.err" || { cat "$tmp/print.err" >&2; fail "otf2-print $1"; }
  [ ! -s "$tmp/print.err" ] || { cat "$tmp/print.err" >&2; fail "otf2-print $1 wrote to stderr"; }
  awk '$1 == "ENTER" || $1 == "LEAVE" { n++ } END { print n + 0 }' "$tmp/print"
}

# ---- an existing archive --------------------------------------------------
# demo, -n 100 -w 10: 110 operations, 55 per instance, 8 visits per instance
# and operation (root 1, cr0 2, h0 2, p1 1, h1 2): 2 x 55 x 8 x 2 = 1760
# events; with -n 300 -w 10: 2 x 155 x 8 x 2 = 4960.
d=$tmp/arch
timeout 120 $MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 100 -w 10 --trace "$d" > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "first traced run"; }
[ "$(events "$d")" -eq 1760 ] || fail "first archive: expected 1760 events"
sums "$d" > "$tmp/sums.before"

# Without --force: refused on every rank, the archive byte for byte unchanged.
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$d"
expect_count "$tmp/out" 2 "trace directory '$d' exists; pass --force to replace it"
sums "$d" | diff "$tmp/sums.before" - || fail "the existing archive changed without --force"
[ ! -e "$d.partial" ] || fail "$d.partial left behind"

# With --force: replaced by the new run's archive, which is complete.
timeout 120 $MPIRUN -np 2 bin/gsum $DEMO --trace "$d" --force > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "--force run failed"; }
expect_count "$tmp/out" 1 "# trace: $d/traces.otf2: 4960 events from 6 threads"
[ "$(events "$d")" -eq 4960 ] || fail "--force: the archive is not the new run's"
build/tests/trace_check --ops 310 "$d" pathmaps/demo.pathmap > "$tmp/tc" 2>&1 ||
  { cat "$tmp/tc" >&2; fail "--force: trace_check"; }
[ ! -e "$d.partial" ] && [ ! -e "$d.partial.old" ] || fail "--force left $d.partial or $d.partial.old"

# ---- --force replaces a trace, never anything else -------------------------
# The archive and the database made from it (traces.db, which described the
# old archive): both replaced, the old database gone.
echo "the old archive's database" > "$d/traces.db"
timeout 120 $MPIRUN -np 2 bin/gsum $DEMO --trace "$d" --force > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "--force over an archive and its traces.db failed"; }
[ "$(events "$d")" -eq 4960 ] || fail "--force over archive + traces.db: no new archive"
[ ! -e "$d/traces.db" ] || fail "--force kept the old archive's traces.db"
# Anything else beside the archive (a report folder, a user's file): refused
# on every rank, naming the first such file in byte order, nothing changed.
mkdir "$d/report"; echo page > "$d/report/index.html"; echo mine > "$d/notes.txt"
sums "$d" > "$tmp/sums.before"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$d" --force
expect_count "$tmp/out" 2 "'$d' holds 'notes.txt', which is not a trace's file; --force replaces only a trace (traces.otf2, traces/, traces.def, traces.pathmap, traces.db), never other files: move 'notes.txt' out of it, or trace to another directory"
sums "$d" | diff "$tmp/sums.before" - || fail "--force changed a trace directory holding a user's file"
[ ! -e "$d.partial" ] && [ ! -e "$d.partial.old" ] || fail "refused --force left $d.partial or $d.partial.old"
rm "$d/notes.txt"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$d" --force
expect_count "$tmp/out" 2 "'$d' holds 'report', which is not a trace's file"
[ "$(cat "$d/report/index.html")" = page ] || fail "--force changed $d/report"
rm -r "$d/report"
# ... and inside the archive's own folder, where OTF2 writes only N.evt, N.def.
echo mine > "$d/traces/notes"
sums "$d" > "$tmp/sums.before"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$d" --force
expect_count "$tmp/out" 2 "'$d' holds 'traces/notes', which is not a trace's file"
sums "$d" | diff "$tmp/sums.before" - || fail "--force changed a trace holding a user's file in traces/"
rm "$d/traces/notes"

# ---- not an archive: never replaced, even with --force ---------------------
na=$tmp/notarchive
mkdir -p "$na/sub"; echo precious > "$na/data"; echo more > "$na/sub/file"
sums "$na" > "$tmp/sums.before"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$na" --force
expect_count "$tmp/out" 2 "'$na' exists and is not an OTF2 archive (no traces.otf2 in it); not replacing it, even with --force"
sums "$na" | diff "$tmp/sums.before" - || fail "a directory that is not an archive changed"
# A regular file at DIR, with --force too.
echo precious > "$tmp/afile"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$tmp/afile" --force
expect_count "$tmp/out" 2 "'$tmp/afile' exists and is not an OTF2 archive"
[ "$(cat "$tmp/afile")" = precious ] || fail "a file at DIR changed"

# ---- a stale DIR.partial: refused without --force, untouched ---------------
s=$tmp/stale
mkdir -p "$s.partial/traces"; echo old > "$s.partial/traces/0.evt"
sums "$s.partial" > "$tmp/sums.before"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$s"
expect_count "$tmp/out" 2 "'$s.partial' exists (left by an interrupted run?); remove it or pass --force"
sums "$s.partial" | diff "$tmp/sums.before" - || fail "the stale $s.partial changed"
[ ! -e "$s" ] || fail "$s created although $s.partial was refused"
# With --force: a DIR.partial holding anything else than an archive's files
# is still refused and untouched; an archive's leftovers are replaced.
echo precious > "$s.partial/notes"
sums "$s.partial" > "$tmp/sums.before"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$s" --force
expect_count "$tmp/out" 2 "'$s.partial' exists (left by an interrupted run?); remove it (it holds files that are not an OTF2 archive's, so --force leaves it alone)"
sums "$s.partial" | diff "$tmp/sums.before" - || fail "--force changed a foreign $s.partial"
rm "$s.partial/notes"
timeout 120 $MPIRUN -np 2 bin/gsum $DEMO --trace "$s" --force > "$tmp/out" 2>&1 ||
  { cat "$tmp/out" >&2; fail "--force over an archive's leftover $s.partial"; }
[ "$(events "$s")" -eq 4960 ] && [ ! -e "$s.partial" ] || fail "--force: no new archive at $s"

# ---- unwritable: a read-only file system, a path under a regular file -------
ro=$tmp/ro; mkdir "$ro"; mounts="$mounts $ro"
mount -t tmpfs -o ro,size=1m tmpfs "$ro" || fail "cannot mount a read-only tmpfs on $ro"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$ro/t"
expect_count "$tmp/out" 2 "cannot create trace directory '$ro/t.partial': Read-only file system"
[ -z "$(ls -A "$ro")" ] || fail "something appeared on the read-only tmpfs"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$tmp/afile/t"
expect_count "$tmp/out" 2 "cannot create trace directory '$tmp/afile/t.partial': Not a directory"
[ "$(cat "$tmp/afile")" = precious ] || fail "the file above DIR changed"

# ---- a full disk: 200 KiB for several MB of events, written at the end -----
full=$tmp/full; mkdir "$full"; mounts="$mounts $full"
mount -t tmpfs -o size=200k tmpfs "$full" || fail "cannot mount a 200k tmpfs on $full"
run_fails 90 "$tmp/out" $MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 20000 -w 10 --trace "$full/t"
expect_count "$tmp/out" 2 "writing trace '$full/t' failed (events): No space left on device"
expect_count "$tmp/out" 1 "gsum: rank 0: error: writing trace '$full/t' failed"
expect_count "$tmp/out" 1 "gsum: rank 1: error: writing trace '$full/t' failed"
[ ! -e "$full/t" ] && [ ! -e "$full/t.partial" ] || { ls -laR "$full" >&2; fail "full disk: $full/t or $full/t.partial left"; }
[ -z "$(ls -A "$full")" ] || { ls -laR "$full" >&2; fail "full disk: files left on the tmpfs"; }

# ---- --trace-mem below the minimum: each rank names its own ------------------
# host0 has 4 locations to trace (2 computational threads, 2 service threads
# of p1), host1 has 2.  The minimum printed is enough: host0's minimum M runs, M - 1
# is refused by rank 0 alone.
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$tmp/m" --trace-mem 1K
expect_count "$tmp/out" 1 "gsum: rank 0: error: --trace-mem 1024 is too small for the 4 locations (threads, links, algorithm node) of host host0: at least "
expect_count "$tmp/out" 1 "gsum: rank 1: error: --trace-mem 1024 is too small for the 2 locations (threads, links, algorithm node) of host host1: at least "
[ ! -e "$tmp/m" ] && [ ! -e "$tmp/m.partial" ] || fail "--trace-mem too small: $tmp/m created"
min=$(sed -n 's/.*too small for the 4 locations (threads, links, algorithm node) of host host0: at least \([0-9]*\) bytes.*/\1/p' "$tmp/out")
[ -n "$min" ] || fail "no minimum for host0"
timeout 120 $MPIRUN -np 2 bin/gsum $DEMO --trace "$tmp/m" --trace-mem "$min" > "$tmp/out2" 2>&1 ||
  { cat "$tmp/out2" >&2; fail "--trace-mem $min (the minimum printed) failed"; }
[ "$(events "$tmp/m")" -eq 4960 ] || fail "--trace-mem $min: expected 4960 events"
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum $DEMO --trace "$tmp/m1" --trace-mem $((min - 1))
expect_count "$tmp/out" 1 "gsum: rank 0: error: --trace-mem $((min - 1)) is too small for the 4 locations (threads, links, algorithm node) of host host0: at least $min bytes"
! grep -q "rank 1: error: --trace-mem" "$tmp/out" || fail "host1 needs less than host0"
# With an algorithm node each host has its part in it too: 2 threads + 1.
run_fails 60 "$tmp/out" $MPIRUN -np 2 bin/gsum -p pathmaps/algo-demo.pathmap -n 10 -w 0 --trace "$tmp/a" --trace-mem 1K
expect_count "$tmp/out" 1 "gsum: rank 0: error: --trace-mem 1024 is too small for the 3 locations (threads, links, algorithm node) of host host0: at least "
expect_count "$tmp/out" 1 "gsum: rank 1: error: --trace-mem 1024 is too small for the 3 locations (threads, links, algorithm node) of host host1: at least "

# ---- usage errors: exit status 2 and the reason ------------------------------
# usage_error TEXT GSUM-ARGS...: exit status exactly 2, TEXT on one line.
# Run without mpirun (a singleton): the options are checked before anything
# else, and mpirun -np 1 would add 2 s per failing run.
usage_error() {
  text=$1; shift
  set +e; timeout 60 bin/gsum "$@" > "$tmp/out" 2>&1 < /dev/null; rc=$?; set -e
  [ "$rc" -eq 2 ] || { cat "$tmp/out" >&2; fail "exit status $rc, expected 2 (usage): gsum $*"; }
  expect_count "$tmp/out" 1 "$text"
}
usage_error "--trace-mem and --force need --trace DIR" -p pathmaps/demo.pathmap --trace-mem 5M
usage_error "--trace-mem and --force need --trace DIR" -p pathmaps/demo.pathmap --force
usage_error "--trace, --trace-mem and --force trace a pathmap's tree; they do not apply to --native" \
  --native --trace "$tmp/n"
usage_error "they do not apply to --native" --native --trace-mem 5M
usage_error "they do not apply to --native" --native --force
usage_error "--trace-mem: '5Q' is not a size" -p pathmaps/demo.pathmap --trace "$tmp/n" --trace-mem 5Q
usage_error "--trace-mem: '0' is out of range, expected 1..18446744073709551615" -p pathmaps/demo.pathmap --trace "$tmp/n" --trace-mem 0
usage_error "--trace-mem: '99999999999G' is out of range, expected 1..18446744073709551615" -p pathmaps/demo.pathmap --trace "$tmp/n" --trace-mem 99999999999G
usage_error "option '--trace' requires an argument" -p pathmaps/demo.pathmap --trace
[ ! -e "$tmp/n" ] && [ ! -e "$tmp/n.partial" ] || fail "a usage error created $tmp/n"

# ---- a disk that fills up during the measured loops -------------------------
# --trace-mem 5M makes the threads flush while they run (about 38 MB of
# events a second here); 2 MiB fill up within the first second, so the
# write fails in a flush, not at the end.  Same outcome as above.
full2=$tmp/full2; mkdir "$full2"; mounts="$mounts $full2"
mount -t tmpfs -o size=2m tmpfs "$full2" || fail "cannot mount a 2m tmpfs on $full2"
run_fails 90 "$tmp/out" $MPIRUN -np 2 bin/gsum -p pathmaps/demo.pathmap -n 100000 -w 10 \
  --trace-mem 5M --trace "$full2/t"
expect_count "$tmp/out" 1 "gsum: rank 0: error: writing trace '$full2/t' failed (events): No space left on device"
expect_count "$tmp/out" 1 "gsum: rank 1: error: writing trace '$full2/t' failed (events): No space left on device"
[ -z "$(ls -A "$full2")" ] || { ls -laR "$full2" >&2; fail "disk full in a flush: files left on the tmpfs"; }
echo "trace-errors: ok"
