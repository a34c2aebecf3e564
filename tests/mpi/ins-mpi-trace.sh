#!/bin/sh
# The application-trace writer (instrument/api/ins_mpi.h) read back with
# otf2-print, an independent reader.  build/tests/ins_mpi_write records
# known calls (its header lists them) at np 2; checked against expectations
# written out below from those calls:
#   - calls: per location, in order, every event's kind and fields (no
#     timestamps), the Enter attributes with the call site string, whose
#     offset is `nm`'s address of ins_mpi_write_site_a plus the call's k;
#     the regions (paradigm MPI, roles), the COMM_LOCATIONS group, the
#     communicators and their groups, the archive's properties;
#   - threads: the rules from PAPTREE_ALGO; three locations per rank, 4 events per call, one flush for
#     each of the two threads that recorded 1000 calls in 819 records;
#   - no rules and no command: those properties absent, the others there;
#   - an existing directory without force: refused, untouched; with force
#     a trace is replaced, a directory holding another file refused;
#   - abandon: neither the directory nor its .partial remains.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
PROG=build/tests/ins_mpi_write
[ -x "$PROG" ] || fail "$PROG is missing (make all)"
command -v otf2-print > /dev/null || fail "otf2-print is missing (make deps)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP

timeout 120 $MPIRUN -np 2 $PROG "$tmp/c" calls > "$tmp/c.out" 2>&1 ||
  { cat "$tmp/c.out" >&2; fail "calls: ins_mpi_write failed"; }
[ ! -e "$tmp/c.partial" ] || fail "calls: $tmp/c.partial left behind"
for opt in "" -G -A; do
  otf2-print $opt "$tmp/c/traces.otf2" > "$tmp/c.print$opt" 2> "$tmp/c.err" ||
    { cat "$tmp/c.err" >&2; fail "calls: otf2-print $opt failed"; }
  [ ! -s "$tmp/c.err" ] || { cat "$tmp/c.err" >&2; fail "calls: otf2-print $opt wrote to stderr"; }
done

# ---- events ------------------------------------------------------------------
# "location text": the fields with single spaces, string ids dropped, an
# Enter's attributes after " | ".
awk 'NR <= 5 { next }
  function out() { if (cur != "") print loc, ++n[loc], cur; cur = "" }
  $1 == "ADDITIONAL" { sub(/^ *ADDITIONAL ATTRIBUTES: /, ""); $1 = $1; cur = cur " | " $0; next }
  { out(); loc = $2; $2 = ""; $3 = ""; $0 = $0; $1 = $1; cur = $0 }
  END { out() }' "$tmp/c.print" | sort -k1,1n -k2,2n | cut -d' ' -f1,3- |
  sed -E 's/ <1677[0-9]{4}>//g; s/ <1679[0-9]{4}>//g' > "$tmp/c.got"
exe=$(readlink -f "$PROG")
base=$(nm "$PROG" | awk '$3 == "ins_mpi_write_site_a" { print $1 }')
[ -n "$base" ] || fail "nm finds no ins_mpi_write_site_a in $PROG"
awk -v exe="$exe" -v base="$base" 'BEGIN {
  b = 0; for (i = 1; i <= length(base); i++) b = b * 16 + index("0123456789abcdef", substr(base, i, 1)) - 1
  split("MPI_Allreduce MPI_Reduce MPI_Bcast MPI_Barrier MPI_Allgather MPI_Reduce_scatter_block MPI_Iallreduce MPI_Wait MPI_Ibcast MPI_Test", fn, " ")
  split("0 1 2 3 4 5 6 9 8 10", reg, " ")
  split("ring native binomial native native ring native native native native", algo, " ")
  split("- - datatype - - user-op - - - -", fb, " ")
  split("4 3 10 0 1 1 2 2 5 5", cnt, " ")
  split("MPI_INT MPI_DOUBLE MPI_BYTE - pair_t derived MPI_INT64_T MPI_INT64_T MPI_FLOAT MPI_FLOAT", dt, " ")
  split("MPI_SUM MPI_MAX - - - user MPI_MIN MPI_MIN - -", op, " ")
  for (r = 0; r < 2; r++) {
    loc = r * 65536; peer = 1 - r
    for (k = 1; k <= 10; k++) {
      a = sprintf("(\"paptree::callsite\" <7>; STRING; \"%s+0x%x\"), (\"paptree::algo\" <8>; STRING; \"%s\"), (\"paptree::fallback\" <9>; STRING; \"%s\"), (\"paptree::count\" <10>; INT64; %d), (\"paptree::dtype\" <11>; STRING; \"%s\"), (\"paptree::mpi_op\" <12>; STRING; \"%s\")",
                  exe, b + k, algo[k], fb[k] == "-" ? "" : fb[k], cnt[k], dt[k] == "-" ? "" : dt[k], op[k] == "-" ? "" : op[k])
      printf "%d ENTER Region: \"%s\" <%d> | %s\n", loc, fn[k], reg[k], a
      if (k == 7 || k == 9) printf "%d NON_BLOCKING_COLLECTIVE_REQUEST Request: %d\n", loc, k == 7 ? 77 : 78
      else if (k == 8) printf "%d NON_BLOCKING_COLLECTIVE_COMPLETE Operation: ALLREDUCE, Communicator: \"MPI_COMM_WORLD\" <0>, Root: NONE, Sent: 16, Received: 16, Request: 77\n", loc
      else if (k == 10) printf "%d NON_BLOCKING_COLLECTIVE_COMPLETE Operation: BCAST, Communicator: \"MPI_COMM_WORLD\" <0>, Root: 0 (\"rank 0 thread 0\" <0>), Sent: %d, Received: %d, Request: 78\n", loc, r == 0 ? 20 : 0, r == 0 ? 0 : 20
      else {
        printf "%d MPI_COLLECTIVE_BEGIN\n", loc
        if (k == 1) {
          w = sprintf("(\"rank %d thread 0\" <%d>), Communicator: \"MPI_COMM_WORLD\" <0>, Tag: 0, Length: 16", peer, peer * 65536)
          printf "%d MPI_IRECV_REQUEST Request: 0\n", loc
          printf "%d MPI_ISEND Receiver: %d %s, Request: 1\n", loc, peer, w
          printf "%d MPI_ISEND_COMPLETE Request: 1\n", loc
          printf "%d MPI_IRECV Sender: %d %s, Request: 0\n", loc, peer, w
          e = "ALLREDUCE, Communicator: \"MPI_COMM_WORLD\" <0>, Root: NONE, Sent: 16, Received: 16"
        } else if (k == 2) e = sprintf("REDUCE, Communicator: \"comm %d\" <%d>, Root: 0 (\"rank %d thread 0\" <%d>), Sent: 24, Received: 24", 2 + r, 2 + r, r, loc)
        else if (k == 3) e = sprintf("BCAST, Communicator: \"MPI_COMM_WORLD\" <0>, Root: 1 (\"rank 1 thread 0\" <65536>), Sent: %d, Received: %d", r == 1 ? 10 : 0, r == 1 ? 0 : 10)
        else if (k == 4) e = "BARRIER, Communicator: \"MPI_COMM_SELF\" <1>, Root: NONE, Sent: 0, Received: 0"
        else if (k == 5) e = "ALLGATHER, Communicator: \"MPI_COMM_WORLD\" <0>, Root: NONE, Sent: 8, Received: 16"
        else e = "REDUCE_SCATTER_BLOCK, Communicator: \"MPI_COMM_WORLD\" <0>, Root: NONE, Sent: 24, Received: 12"
        printf "%d MPI_COLLECTIVE_END Operation: %s\n", loc, e
      }
      printf "%d LEAVE Region: \"%s\" <%d>\n", loc, fn[k], reg[k]
    }
  }
}' > "$tmp/c.want"
diff "$tmp/c.got" "$tmp/c.want" > "$tmp/c.diff" ||
  { head -30 "$tmp/c.diff" >&2; fail "calls: events (<) differ from the expected ones (>)"; }

# ---- definitions -----------------------------------------------------------------
awk '{ $1 = $1; print }' "$tmp/c.print-G" | sed -E 's/(Name|Descr\.|Description|Value|Class): ("[^"]*") <[0-9]+>/\1: \2/g' |
  grep -E '^(REGION|GROUP|COMM|LOCATION) ' > "$tmp/c.dgot" || true
{
  i=0
  for f in MPI_Allreduce:COLL_ALL2ALL MPI_Reduce:COLL_ALL2ONE MPI_Bcast:COLL_ONE2ALL \
           MPI_Barrier:COLL_ALL2ALL MPI_Allgather:COLL_ALL2ALL MPI_Reduce_scatter_block:COLL_ALL2ALL \
           MPI_Iallreduce:COLL_ALL2ALL MPI_Ireduce:COLL_ALL2ONE MPI_Ibcast:COLL_ONE2ALL \
           MPI_Wait:FUNCTION MPI_Test:FUNCTION; do
    echo "REGION $i Name: \"${f%%:*}\" (Aka. \"${f%%:*}\"), Descr.: \"\", Role: ${f#*:}, Paradigm: MPI, Flags: NONE, File: \"\", Begin: 0, End: 0"
    i=$((i + 1))
  done
  echo 'LOCATION 0 Name: "rank 0 thread 0", Type: CPU_THREAD, # Events: 40, Group: "vm (rank 0)" <0>'
  echo 'LOCATION 65536 Name: "rank 1 thread 0", Type: CPU_THREAD, # Events: 40, Group: "vm (rank 1)" <1>'
  echo 'GROUP 0 Name: "paptree MPI locations", Type: COMM_LOCATIONS, Paradigm: MPI, Flags: NONE, 2 Members: "rank 0 thread 0" <0>, "rank 1 thread 0" <65536>'
  echo 'GROUP 1 Name: "MPI_COMM_WORLD", Type: COMM_GROUP, Paradigm: MPI, Flags: NONE, 2 Members: 0 ("rank 0 thread 0" <0>), 1 ("rank 1 thread 0" <65536>)'
  echo 'COMM 0 Name: "MPI_COMM_WORLD", Group: "MPI_COMM_WORLD" <1>, Parent: UNDEFINED, Flags: NONE'
  echo 'GROUP 2 Name: "MPI_COMM_SELF", Type: COMM_SELF, Paradigm: MPI, Flags: NONE, 0 Members'
  echo 'COMM 1 Name: "MPI_COMM_SELF", Group: "MPI_COMM_SELF" <2>, Parent: UNDEFINED, Flags: NONE'
  echo 'GROUP 3 Name: "comm 2", Type: COMM_GROUP, Paradigm: MPI, Flags: NONE, 1 Member: 0 ("rank 0 thread 0" <0>)'
  echo 'COMM 2 Name: "comm 2", Group: "comm 2" <3>, Parent: "MPI_COMM_WORLD" <0>, Flags: NONE'
  echo 'GROUP 4 Name: "comm 3", Type: COMM_GROUP, Paradigm: MPI, Flags: NONE, 1 Member: 1 ("rank 1 thread 0" <65536>)'
  echo 'COMM 3 Name: "comm 3", Group: "comm 3" <4>, Parent: "MPI_COMM_WORLD" <0>, Flags: NONE'
} > "$tmp/c.dwant"
host=$(hostname)
sed -i "s/\"vm (rank/\"$host (rank/g" "$tmp/c.dwant"
sed -E -i 's/File: "" <[0-9]+>/File: ""/; s/ \(Aka\. ("[^"]*") <[0-9]+>\)/ (Aka. \1)/' "$tmp/c.dgot"
diff "$tmp/c.dgot" "$tmp/c.dwant" > "$tmp/c.ddiff" ||
  { cat "$tmp/c.ddiff" >&2; fail "calls: definitions (<) differ from the expected ones (>)"; }
for p in "PAPTREE::KIND mpi" "PAPTREE::RULES allreduce:\*=ring" "PAPTREE::RANKS 2" \
         "PAPTREE::COMMAND ins_mpi_write test" "PAPTREE::SCHEMA_VERSION 3"; do
  awk -v n="${p%% *}" '$1 == "Property" && $2 == "name" && $3 == n { getline; sub(/^ *Property value */, ""); print n, $0 }' \
    "$tmp/c.print-A" | grep -qx "$p" || { cat "$tmp/c.print-A" >&2; fail "calls: property '$p' missing"; }
done
echo "calls: 80 events, regions, locations, groups, communicators, properties as expected"

# ---- two threads more per rank, flushing ---------------------------------------------
PAPTREE_ALGO='bcast:*=binomial' timeout 120 $MPIRUN -np 2 $PROG "$tmp/t" threads > "$tmp/t.out" 2>&1 ||
  { cat "$tmp/t.out" >&2; fail "threads: ins_mpi_write failed"; }
otf2-print -A "$tmp/t/traces.otf2" | awk '$1 == "Property" && $2 == "name" && $3 == "PAPTREE::RULES" {
  getline; sub(/^ *Property value */, ""); print }' | grep -qx 'bcast:\*=binomial' ||
  fail "threads: PAPTREE::RULES is not the environment's PAPTREE_ALGO"
otf2-print -G "$tmp/t/traces.otf2" 2> "$tmp/t.err" | awk '{ $1 = $1; print }' |
  sed -E 's/ <[0-9]+>//g' | grep -E '^LOCATION(_PROPERTY)? ' > "$tmp/t.got"
[ ! -s "$tmp/t.err" ] || { cat "$tmp/t.err" >&2; fail "threads: otf2-print -G wrote to stderr"; }
for r in 0 1; do
  for i in 0 1 2; do
    ev=$((i == 0 ? 4 : 4000)); fl=$((i == 0 ? 0 : 1))
    echo "LOCATION $((r * 65536 + i)) Name: \"rank $r thread $i\", Type: CPU_THREAD, # Events: $ev, Group: \"$host (rank $r)\""
    echo "LOCATION_PROPERTY Location: \"rank $r thread $i\", Name: \"paptree::thread\", Type: UINT64, Value: $i"
    echo "LOCATION_PROPERTY Location: \"rank $r thread $i\", Name: \"paptree::flushes\", Type: UINT64, Value: $fl"
  done
done > "$tmp/t.want"
diff "$tmp/t.got" "$tmp/t.want" || fail "threads: locations (<) differ from the expected ones (>)"
otf2-print "$tmp/t/traces.otf2" | awk 'NR > 5 && $1 != "ADDITIONAL" { n[$2 " " $1]++ } END { for (k in n) print k, n[k] }' |
  sort > "$tmp/t.ev"
for l in 0 1 2 65536 65537 65538; do
  n=$((l % 65536 == 0 ? 1 : 1000))
  for e in ENTER LEAVE MPI_COLLECTIVE_BEGIN MPI_COLLECTIVE_END; do echo "$l $e $n"; done
done | sort > "$tmp/t.evwant"
diff "$tmp/t.ev" "$tmp/t.evwant" || fail "threads: events per location (<) differ from the expected (>)"
echo "threads: 3 locations per rank, 1000 calls each on two threads with one flush each"

# ---- no rules, no command: their properties are absent (OTF2 writes none empty) -------
PAPTREE_ALGO='bcast:*=binomial' timeout 60 $MPIRUN -np 2 $PROG "$tmp/n" empty > "$tmp/n.out" 2>&1 ||
  { cat "$tmp/n.out" >&2; fail "empty: ins_mpi_write failed"; }
otf2-print -A "$tmp/n/traces.otf2" > "$tmp/n.A" 2>&1 || { cat "$tmp/n.A" >&2; fail "empty: otf2-print -A"; }
awk '$1 == "Property" && $2 == "name" { print $3 }' "$tmp/n.A" > "$tmp/n.props"
printf '%s\n' PAPTREE::KIND PAPTREE::SCHEMA_VERSION PAPTREE::RANKS PAPTREE::CLOCK |
  diff "$tmp/n.props" - || fail "empty: properties (<) differ from the expected (>)"
echo "empty: no rules and no command properties"

# ---- an existing directory, no force ---------------------------------------------------
mkdir "$tmp/e"; echo mine > "$tmp/e/mine"
timeout 60 $MPIRUN -np 2 $PROG "$tmp/e" exists > "$tmp/e.out" 2>&1 ||
  { cat "$tmp/e.out" >&2; fail "exists: ins_mpi_write failed"; }
grep -qx "trace directory '$tmp/e' exists; pass --force to replace it" "$tmp/e.out" ||
  { cat "$tmp/e.out" >&2; fail "exists: message"; }
[ "$(ls -A "$tmp/e")" = mine ] && [ "$(cat "$tmp/e/mine")" = mine ] && [ ! -e "$tmp/e.partial" ] ||
  fail "exists: the directory was touched"
echo "exists: refused, untouched"

# ---- force: replaces a trace (the calls archive), never a directory with other files ----
timeout 60 $MPIRUN -np 2 $PROG "$tmp/c" force > "$tmp/f.out" 2>&1 && [ "$(cat "$tmp/f.out")" = ok ] ||
  { cat "$tmp/f.out" >&2; fail "force: replacing a trace failed"; }
otf2-print -G "$tmp/c/traces.otf2" | grep -q '^LOCATION  *0 .*# Events: 4,' ||
  fail "force: the trace was not replaced (location 0 should have the barrier's 4 events)"
[ ! -e "$tmp/c.partial" ] && [ ! -e "$tmp/c.partial.old" ] || fail "force: partial files left"
echo mine > "$tmp/c/notes.txt"
timeout 60 $MPIRUN -np 2 $PROG "$tmp/c" force > "$tmp/f.out" 2>&1 ||
  { cat "$tmp/f.out" >&2; fail "force: ins_mpi_write failed"; }
grep -q "^'$tmp/c' holds 'notes.txt', which is not a trace's file; --force replaces only a trace" "$tmp/f.out" ||
  { cat "$tmp/f.out" >&2; fail "force: a foreign file should make it refuse"; }
[ "$(cat "$tmp/c/notes.txt")" = mine ] && [ -f "$tmp/c/traces.otf2" ] && [ ! -e "$tmp/c.partial" ] ||
  fail "force: the refused directory was touched"
echo "force: a trace replaced, a directory with another file refused untouched"

# ---- abandon ---------------------------------------------------------------------------
timeout 120 $MPIRUN -np 2 $PROG "$tmp/a" abandon > "$tmp/a.out" 2>&1 ||
  { cat "$tmp/a.out" >&2; fail "abandon: ins_mpi_write failed"; }
for r in 0 1; do
  grep -qx "rank $r before: $tmp/a.partial/traces/$((r * 65536)).evt exists" "$tmp/a.out" ||
    { cat "$tmp/a.out" >&2; fail "abandon: rank $r's event file did not exist before"; }
done
[ ! -e "$tmp/a" ] && [ ! -e "$tmp/a.partial" ] || { ls -R "$tmp" >&2; fail "abandon: files left"; }
echo "abandon: the partial archive existed and is gone"
