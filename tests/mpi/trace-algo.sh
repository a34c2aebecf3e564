#!/bin/sh
# An algorithm node in the trace (docs/trace-format.md, "Algorithm nodes"),
# read back with otf2-print, an independent reader.  build/tests/trace_algo
# drives the tracer's hooks with a known sequence (its header says which) on
# 2 and 3 hosts, 300 operations alternating 2 instances, with the smallest
# --trace-mem, so that each host's algorithm location (2730 records per
# buffer) flushes while recording, on whichever thread recorded last.
# Checked, against expectations derived by hand below from that sequence:
#   - every event of every location, in order, its fields exactly (the
#     timestamps only non-decreasing per location), with P = 3 (clv, PAP-aware,
#     arrival=edge) one arrival report per operation and host: its source
#     used, fallback host, error, lead and wait as trace_algo.c's
#     arrival_report() sets them, worked out again below;
#   - the MPI definitions: the COMM_LOCATIONS group of the algorithm
#     locations in rank order, the COMM_GROUP of ranks 0..P-1, one COMM per
#     instance named after the node's region in it;
#   - every LOCATION (events, group) and its properties: role, thread or
#     enter, flushes; the algorithm node's REGION description;
#   - the summary's totals;
#   - build/tests/trace_check (the independent reader) on each archive with
#     the pathmap as text;
# and a Gsum run through a real algorithm node (the executor calling the
# hooks): trace_check, and the MPI events per location counted by hand.
set -eu
. tests/lib.sh
MPIRUN=$(mpirun_cmd)
PROG=build/tests/trace_algo
OPS=300
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP
[ -x "$PROG" ] || fail "$PROG is missing (make all)"

# Numbers for P hosts (per rank): ring rounds R = 2(P-1), each with a
# receive (post + completion) and a send (post + completion); the algorithm
# location records per operation ENTER, BEGIN, (P = 3, PAP-aware: one
# arrival event, three records in the buffer), 4R messages, END, LEAVE; each
# thread location ENTER and LEAVE of its gred.  Flushes: the buffer holds
# 65536 / 24 = 2730 records, and the n-th record with n = 2730 k + 1 flushes.
for P in 2 3; do
  name=p$P
  R=$((2 * (P - 1)))
  ARR=$((P >= 3 ? 1 : 0))
  ALGO_EV=$((OPS * (4 + 4 * R + ARR)))
  ALGO_REC=$((OPS * (4 + 4 * R + 3 * ARR)))
  THREAD_EV=$((OPS * 2))
  ALGO_FL=$(((ALGO_REC - 1) / 2730))
  TOTAL=$((P * (ALGO_EV + 2 * THREAD_EV)))

  timeout 120 $MPIRUN -np $P $PROG "$tmp/$name" $OPS min > "$tmp/$name.out" 2> "$tmp/$name.err" ||
    { cat "$tmp/$name.out" "$tmp/$name.err" >&2; fail "$name: trace_algo failed"; }
  [ "$(cat "$tmp/$name.out")" = "events $TOTAL flushes $((P * ALGO_FL))" ] ||
    { cat "$tmp/$name.out" >&2; fail "$name: expected 'events $TOTAL flushes $((P * ALGO_FL))'"; }
  for opt in "" -G; do
    otf2-print $opt "$tmp/$name/traces.otf2" > "$tmp/$name.print" 2> "$tmp/$name.perr" ||
      { cat "$tmp/$name.perr" >&2; fail "$name: otf2-print $opt exited non-zero"; }
    [ ! -s "$tmp/$name.perr" ] ||
      { cat "$tmp/$name.perr" >&2; fail "$name: otf2-print $opt wrote to stderr"; }
    if [ -z "$opt" ]; then mv "$tmp/$name.print" "$tmp/$name.ev"; else mv "$tmp/$name.print" "$tmp/$name.defs"; fi
  done

  # ---- events: per location, in order, without timestamps -------------------
  # "location serial text", text = the event's fields with single spaces and,
  # for ENTER/LEAVE, " | " and its attributes.
  awk -v name=$name '
    function bad(m) { print name ": " m > "/dev/stderr"; err = 1 }
    function out() { if (cur != "") print loc, ++serial[loc], cur; cur = "" }
    NR <= 5 { next }
    $1 == "ADDITIONAL" { sub(/^ *ADDITIONAL ATTRIBUTES: /, ""); $1 = $1; cur = cur " | " $0; next }
    {
      out()
      loc = $2; t = $3 + 0
      if ((loc in last) && t < last[loc]) bad("location " loc ": time goes back at " $0)
      last[loc] = t
      $2 = ""; $3 = ""; $0 = $0; $1 = $1; cur = $0
    }
    END { out(); exit err }' "$tmp/$name.ev" | sort -k1,1n -k2,2n | cut -d' ' -f1,3- \
    > "$tmp/$name.got" || fail "$name: events (see above)"

  # The expected events, from the sequence: region id = instance x (P+1) +
  # node (node 0 across, 1+h g<h>); location = rank << 16 | index (threads
  # 2h, 2h+1 at 0, 1; the algorithm location at 2); request = seq << 32 | step.
  awk -v P=$P -v OPS=$OPS 'BEGIN {
    piece = 24 / P; R = 2 * (P - 1)
    for (r = 0; r < P; r++) {
      for (i = 0; i < 2; i++) {
        loc = r * 65536 + i
        for (k = 0; k < OPS; k++) {
          inst = k % 2; seq = int(k / 2); reg = inst * (P + 1) + 1 + r
          attrs = sprintf("(\"paptree::op\" <0>; UINT64; %d), (\"paptree::bytes\" <1>; UINT64; 24)", seq)
          printf "%d ENTER Region: \"g%d\" <%d> | %s\n", loc, r, reg, attrs
          printf "%d LEAVE Region: \"g%d\" <%d> | %s\n", loc, r, reg, attrs
        }
      }
      loc = r * 65536 + 2
      left = (r + P - 1) % P; right = (r + 1) % P
      for (k = 0; k < OPS; k++) {
        inst = k % 2; seq = int(k / 2); reg = inst * (P + 1)
        comm = sprintf("Communicator: \"sum#%d/across\" <%d>", inst, inst)
        attrs = sprintf("(\"paptree::op\" <0>; UINT64; %d), (\"paptree::bytes\" <1>; UINT64; 24)", seq)
        printf "%d ENTER Region: \"across\" <%d> | %s\n", loc, reg, attrs
        printf "%d MPI_COLLECTIVE_BEGIN\n", loc
        if (P >= 3) {
          # arrival_report(r, P, seq) of trace_algo.c, asked edge
          used = "edge"; miss = -1; err = ""; lead = ""; wait = 10 * seq + r
          if (seq % 3 == 0) {
            used = seq == 0 ? "equal" : "history"; miss = (r + 1) % P
            if (seq > 0) err = -(1000 * r + seq)
          } else if (seq % 3 == 1) { err = 1000 * r + seq; lead = 5000 + seq }
          else { err = -(100 * (r + 1) * seq); lead = 7 }
          a = sprintf("(\"paptree::op\" <0>; UINT64; %d), (\"paptree::asked\" <2>; STRING; \"edge\" <2>)", seq)
          if (miss >= 0) a = a sprintf(", (\"paptree::missing\" <3>; INT64; %d)", miss)
          if (err != "") a = a sprintf(", (\"paptree::error_ns\" <4>; INT64; %d)", err)
          if (lead != "") a = a sprintf(", (\"paptree::lead_ns\" <5>; INT64; %d)", lead)
          a = a sprintf(", (\"paptree::wait_ns\" <6>; INT64; %d)", wait)
          printf "%d PARAMETER_STRING Parameter: \"paptree::arrival\" <0>, Value: \"%s\" <%d> | %s\n", loc, used, used == "equal" ? 0 : used == "history" ? 1 : 2, a
        }
        for (j = 0; j < R; j++) {
          rq = sprintf("%.0f", seq * 4294967296 + 2 * j)
          sq = sprintf("%.0f", seq * 4294967296 + 2 * j + 1)
          printf "%d MPI_IRECV_REQUEST Request: %s\n", loc, rq
          printf "%d MPI_ISEND Receiver: %d (\"algo h%d\" <%d>), %s, Tag: %d, Length: %d, Request: %s\n", loc, right, right, right * 65536 + 2, comm, j, piece, sq
          printf "%d MPI_ISEND_COMPLETE Request: %s\n", loc, sq
          printf "%d MPI_IRECV Sender: %d (\"algo h%d\" <%d>), %s, Tag: %d, Length: %d, Request: %s\n", loc, left, left, left * 65536 + 2, comm, j, piece, rq
        }
        printf "%d MPI_COLLECTIVE_END Operation: ALLREDUCE, %s, Root: NONE, Sent: 24, Received: 24\n", loc, comm
        printf "%d LEAVE Region: \"across\" <%d> | %s\n", loc, reg, attrs
      }
    }
  }' > "$tmp/$name.want"
  [ "$(wc -l < "$tmp/$name.want")" -eq "$TOTAL" ] || fail "$name: the expectation has $(wc -l < "$tmp/$name.want") events, not $TOTAL"
  diff "$tmp/$name.got" "$tmp/$name.want" > "$tmp/$name.diff" ||
    { head -20 "$tmp/$name.diff" >&2; fail "$name: events (<) differ from the expected ones (>)"; }

  # ---- definitions -------------------------------------------------------------
  # Single spaces; a string's id after "Name:" and "Value:" dropped (ids of
  # strings depend on the order of writing), every other reference kept.
  awk '{ $1 = $1; print }' "$tmp/$name.defs" |
    sed -E 's/(Name|Value|Descr\.): ("[^"]*") <[0-9]+>/\1: \2/g; s/ \(Aka\. "[^"]*" <[0-9]+>\)//' \
    > "$tmp/$name.d"
  grep -E '^(GROUP|COMM) ' "$tmp/$name.d" > "$tmp/$name.dgot" || true
  grep -E '^LOCATION(_PROPERTY)? ' "$tmp/$name.d" >> "$tmp/$name.dgot" || true
  grep -E '^REGION [0-9]+ Name: "across"' "$tmp/$name.d" >> "$tmp/$name.dgot" || true
  awk -v P=$P -v AE=$ALGO_EV -v TE=$THREAD_EV -v AF=$ALGO_FL 'BEGIN {
    m = ""; g = ""
    for (r = 0; r < P; r++) {
      m = m sprintf("%s\"algo h%d\" <%d>", r ? ", " : "", r, r * 65536 + 2)
      g = g sprintf("%s%d (\"algo h%d\" <%d>)", r ? ", " : "", r, r, r * 65536 + 2)
    }
    printf "GROUP 0 Name: \"paptree algorithm locations\", Type: COMM_LOCATIONS, Paradigm: MPI, Flags: NONE, %d Members: %s\n", P, m
    printf "GROUP 1 Name: \"paptree algorithm ranks\", Type: COMM_GROUP, Paradigm: MPI, Flags: NONE, %d Members: %s\n", P, g
    for (i = 0; i < 2; i++)
      printf "COMM %d Name: \"sum#%d/across\", Group: \"paptree algorithm ranks\" <1>, Parent: UNDEFINED, Flags: NONE\n", i, i
    for (r = 0; r < P; r++) {
      grp = sprintf("Group: \"h%d (rank %d)\" <%d>", r, r, r)
      for (i = 0; i < 2; i++) {
        id = r * 65536 + i; th = 2 * r + i; ln = sprintf("Location: \"thread %d\" <%d>", th, id)
        printf "LOCATION %d Name: \"thread %d\", Type: CPU_THREAD, # Events: %d, %s\n", id, th, TE, grp
        printf "LOCATION_PROPERTY %s, Name: \"paptree::role\", Type: STRING, Value: \"compute\"\n", ln
        printf "LOCATION_PROPERTY %s, Name: \"paptree::thread\", Type: UINT64, Value: %d\n", ln, th
        printf "LOCATION_PROPERTY %s, Name: \"paptree::enter\", Type: STRING, Value: \"g%d\"\n", ln, r
        printf "LOCATION_PROPERTY %s, Name: \"paptree::flushes\", Type: UINT64, Value: 0\n", ln
      }
      id = r * 65536 + 2; ln = sprintf("Location: \"algo h%d\" <%d>", r, id)
      printf "LOCATION %d Name: \"algo h%d\", Type: CPU_THREAD, # Events: %d, %s\n", id, r, AE, grp
      printf "LOCATION_PROPERTY %s, Name: \"paptree::role\", Type: STRING, Value: \"algo\"\n", ln
      printf "LOCATION_PROPERTY %s, Name: \"paptree::enter\", Type: STRING, Value: \"across\"\n", ln
      printf "LOCATION_PROPERTY %s, Name: \"paptree::flushes\", Type: UINT64, Value: %d\n", ln, AF
    }
    hosts = "h0"
    for (r = 1; r < P; r++) hosts = hosts ",h" r
    algo = P == 2 ? "algo=rd bcast=- hosts=" hosts " root=- arrival=equal pap=no" \
                  : "algo=clv bcast=binomial-bcast hosts=" hosts " root=1 arrival=edge pap=yes"
    for (i = 0; i < 2; i++)
      printf "REGION %d Name: \"across\", Descr.: \"kind=algo host=h0 parent=- tree=sum instance=%d node=0 fanin=%d %s\", Role: WRAPPER, Paradigm: USER, Flags: NONE, File: \"trace_algo.pathmap\" <0>, Begin: %d, End: %d\n", i * (P + 1), i, P, algo, P + 2, P + 2
  }' > "$tmp/$name.dwant"
  # The file's string id is the first one written by the regions: keep it out.
  sed -E -i 's/File: "trace_algo.pathmap" <[0-9]+>/File: "trace_algo.pathmap" <0>/' "$tmp/$name.dgot"
  diff "$tmp/$name.dgot" "$tmp/$name.dwant" > "$tmp/$name.ddiff" ||
    { cat "$tmp/$name.ddiff" >&2; fail "$name: definitions (<) differ from the expected ones (>)"; }
  # The same archive against the pathmap text, parsed (trace_check derives
  # everything from the file; trace_algo's hand-built model must agree).
  {
    for h in $(seq 0 $((P - 1))); do echo "host h$h"; done
    echo "tree sum type=int32 op=sum"
    if [ $P -eq 2 ]; then echo "algo across run=rd"
    else echo "algo across run=clv bcast=binomial-bcast root=h1 arrival=edge"; fi
    for h in $(seq 0 $((P - 1))); do echo "gred g$h host=h$h parent=across"; done
    for h in $(seq 0 $((P - 1))); do echo "threads $((2 * h))-$((2 * h + 1)) host=h$h enter=g$h"; done
  } > "$tmp/$name.pathmap"
  build/tests/trace_check --ops $OPS "$tmp/$name" "$tmp/$name.pathmap" > "$tmp/$name.tc" 2>&1 ||
    { cat "$tmp/$name.tc" >&2; fail "$name: trace_check"; }
  echo "$name: $TOTAL events ($ALGO_EV per algorithm location, $ALGO_FL flushes each), groups, comms, locations, regions: as expected; trace_check ok"
done

# ---- Gsum traced through a real algorithm node ------------------------------
# The executor (runtime/exec/algo_node.c) calling the hooks: 2 hosts x 2
# threads, recursive doubling across; -n 400 -w 10, one size: 410 operations
# per thread, 205 per instance.  With 2 ranks rd is one exchange per
# operation, so each algorithm location records per operation Enter and
# Leave of the node, the collective's Begin and End, and one message each
# way (Isend, IsendComplete, IrecvRequest, Irecv): 410 of each, 3280 in
# all.  --trace-mem at its minimum (3776 KiB for 3 locations: 2730 records
# each) makes the algorithm location flush once while recording, on
# whichever thread ran the node then; a thread location (820 events) never.
cp "$tmp/p2.pathmap" "$tmp/gsum.pathmap"
timeout 120 $MPIRUN -np 2 bin/gsum -p "$tmp/gsum.pathmap" -n 400 -w 10 --trace "$tmp/gsum" \
  --trace-mem 3776K > "$tmp/gsum.out" 2>&1 || { cat "$tmp/gsum.out" >&2; fail "gsum: traced run failed"; }
build/tests/trace_check --ops 410 "$tmp/gsum" "$tmp/gsum.pathmap" > "$tmp/gsum.tc" 2>&1 ||
  { cat "$tmp/gsum.tc" >&2; fail "gsum: trace_check"; }
for opt in "" -G; do
  otf2-print $opt "$tmp/gsum/traces.otf2" > "$tmp/gsum.ev$opt" 2> "$tmp/gsum.perr" && [ ! -s "$tmp/gsum.perr" ] ||
    { cat "$tmp/gsum.perr" >&2; fail "gsum: otf2-print $opt"; }
done
for loc in 2 65538; do
  awk -v loc=$loc '$2 == loc { n[$1]++ } END { for (k in n) print k, n[k] }' "$tmp/gsum.ev" | sort \
    > "$tmp/gsum.$loc"
  printf '%s\n' "ENTER 410" "LEAVE 410" "MPI_COLLECTIVE_BEGIN 410" "MPI_COLLECTIVE_END 410" \
    "MPI_IRECV 410" "MPI_IRECV_REQUEST 410" "MPI_ISEND 410" "MPI_ISEND_COMPLETE 410" | sort |
    diff "$tmp/gsum.$loc" - || fail "gsum: location $loc: event counts (<) differ from the expected (>)"
done
awk '/^LOCATION_PROPERTY/ && /paptree::flushes/ {
       id = $0; sub(/^[^<]*</, "", id); sub(/>.*/, "", id); print id, $NF }' "$tmp/gsum.ev-G" |
  sort -n > "$tmp/gsum.flushes"
printf '%s\n' "0 0" "1 0" "2 1" "65536 0" "65537 0" "65538 1" |
  diff "$tmp/gsum.flushes" - || fail "gsum: flushes per location (<) differ from the expected (>)"
echo "gsum: rd across 2 hosts, 410 operations: trace_check ok, 410 of each event and 1 flush on each algorithm location"
