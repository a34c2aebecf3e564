#!/bin/sh
# netns-tcp.sh - Gsum across "hosts" that talk only over TCP: each host is a
# network namespace of this machine, joined to the others by a veth pair on
# a bridge; mpirun starts the remote daemons through an rsh agent of ours
# (tests/mpi/netns-agent.sh) that enters the host's namespace.
#
#   namespace P-br: bridge br0, ports v0 v1 ...          (no address)
#   namespace P-hI: lo, pteth = 10.250.0.(I+1)/24        (veth peer of vI)
#
# P is unique to this run.  Nothing is configured in the root namespace:
# the bridge lives in a namespace of its own, mpirun runs in P-h0 (it is
# rank 0's host, which it recognises by its address), and no namespace has
# a route beyond 10.250.0.0/24, so no packet can leave them.  Each command
# in a host also gets a UTS namespace with host name pt-hI, so that the
# trace's per-host machine names tell the hosts apart.  Everything is
# removed on every exit path: by the EXIT trap (after a failure, a timeout,
# SIGTERM), and by a reaper if this shell is killed outright.
#
# Per case (netns_case, one line each at the end), with the case's pathmap
# on as many hosts as it declares:
#  - Gsum exits 0 (it aborts on a wrong result) and prints its description
#    line, one row per size with the iterations asked for and
#    Min <= Avg <= Max, and its trace summary;
#  - every host received, over its veth, at least one tuple per operation
#    and size (its interface's rx_bytes), so the job really ran over TCP;
#  - papanalyze exits 0; its database has every host, each on the machine
#    (host name) of its namespace, with a clock offset measured to rank 0
#    whose stated error is finite, positive and below 20 ms, and - as all
#    namespaces share one clock, the true offset is 0 - an offset no larger
#    than that error (+ 1 us for the cores' clocks); the operation count
#    Gsum's options imply, the events Gsum reported, every thread in every
#    operation.
# And netns_paprun: an unmodified MPI program under bin/paprun across the
# hosts, its collectives on rules' algorithms, traced and analysed.
# Without root, `ip`, `unshare` or the permission to create a namespace it
# prints "netns-tcp: SKIP: <reason>" and exits 0 (a developer's machine, an
# unprivileged container).  With CI=true (set by CI, which runs .ci/run as
# root after `make deps` has installed iproute2) the same reason is a
# failure: there the test must run, and a skip would pass it unseen.
set -eu
. tests/lib.sh

skip() {
  [ "${CI:-}" != true ] || fail "CI=true, but cannot run: $*"
  echo "netns-tcp: SKIP: $*"; exit 0
}

# 3 hosts share this machine's few cores: blocking ranks must yield (as
# mpirun does by itself when it knows it oversubscribes), or a run takes 3x
# as long.  Over TCP only, pinned to the veths, for OOB and the BTL alike.
MPIRUN_NETNS="mpirun --allow-run-as-root --bind-to none --map-by ppr:1:node
  --mca plm_rsh_no_tree_spawn 1 --mca btl tcp,self --mca btl_tcp_if_include pteth
  --mca oob_tcp_if_include pteth --mca mpi_yield_when_idle 1"
NET=10.250.0      # a /24 that exists only inside our namespaces
AGENT=$(pwd)/tests/mpi/netns-agent.sh
GSUM_SECS=150 ANALYZE_SECS=60

P=paptree-$$-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
tmp="" nhosts=0 job="" PT_NETNS_MAP=""
# unmake PREFIX: kill the processes in the namespaces PREFIX-* (mpirun, the
# daemons, the ranks: all started by this run), then delete the namespaces.
# shellcheck disable=SC2016 # expanded by the sh that runs it
UNMAKE='for ns in $(ip netns list 2>/dev/null | awk "{ print \$1 }"); do
          case $ns in "$1"-*)
            kill -KILL $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null
            ip netns delete "$ns" 2>/dev/null ;;
          esac
        done; exit 0'
cleanup() {
  [ -z "$job" ] || kill "$job" 2>/dev/null || true
  sh -c "$UNMAKE" unmake "$P"
  [ -z "$tmp" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

[ "$(id -u)" = 0 ] || skip "not root (network namespaces need CAP_SYS_ADMIN)"
command -v ip > /dev/null 2>&1 || skip "no 'ip' command (iproute2)"
command -v unshare > /dev/null 2>&1 || skip "no 'unshare' command (util-linux)"
[ -x "$AGENT" ] || fail "$AGENT is missing or not executable"

# Namespaces of a run whose shell and reaper both died (a reboot of the
# container, say) are only unnamed here: their processes are not ours.
for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
  case $ns in
    paptree-*-*-*) pid=${ns#paptree-}; pid=${pid%%-*}
      kill -0 "$pid" 2>/dev/null || ip netns delete "$ns" 2>/dev/null || true ;;
  esac
done

tmp=$(mktemp -d)
# The trap cannot run when this shell is killed (the test runner's
# SIGKILL to the group follows at once if the "sh -c" above us dies of its
# SIGTERM): a reaper in a session of its own waits for this shell to end,
# then does the same.  Its whole life is bounded by ours.
# shellcheck disable=SC2016 # the reaper's own arguments
setsid sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done
              sh -c "$3" unmake "$2"; rm -rf "$4"' \
  reaper $$ "$P" "$UNMAKE" "$tmp" > /dev/null 2>&1 < /dev/null &
# The first namespace is the test of whether we may make any.
ip netns add "$P-br" 2> "$tmp/err" ||
  skip "cannot create a network namespace: $(head -n 1 "$tmp/err")"
ip -n "$P-br" link set lo up
ip -n "$P-br" link add br0 type bridge || fail "cannot create a bridge in $P-br"
ip -n "$P-br" link set br0 up

# hosts_up N: hosts 0..N-1 exist (made when first needed), and
# PT_NETNS_MAP maps each one's address to its namespace and host name.
hosts_up() {
  while [ "$nhosts" -lt "$1" ]; do
    i=$nhosts ns=$P-h$nhosts
    ip netns add "$ns" || fail "cannot create namespace $ns"
    ip -n "$ns" link set lo up
    ip -n "$P-br" link add "v$i" type veth peer name pteth netns "$ns" ||
      fail "cannot create a veth pair for $ns"
    ip -n "$P-br" link set "v$i" master br0 up
    ip -n "$ns" addr add "$NET.$((i + 1))/24" dev pteth
    ip -n "$ns" link set pteth up
    PT_NETNS_MAP="$PT_NETNS_MAP $NET.$((i + 1))=$ns/pt-h$i"
    nhosts=$((i + 1))
  done
  export PT_NETNS_MAP
}

# rx_bytes I: bytes received so far on host I's veth.
rx_bytes() { ip netns exec "$P-h$1" cat /sys/class/net/pteth/statistics/rx_bytes; }

# bounded SECS OUT CMD...: CMD with its output in OUT, killed after SECS
# seconds (a failure, "timed out").  In the background, so that a SIGTERM
# to this script runs the trap at once.  Returns CMD's status.
bounded() {
  secs=$1 out=$2; shift 2
  timeout -k 10 "$secs" "$@" > "$out" 2>&1 < /dev/null &
  job=$!
  rc=0; wait "$job" || rc=$?
  job=""
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    cat "$out" >&2; fail "timed out after ${secs}s: $*"
  fi
  return "$rc"
}

# netns_case PATHMAP GSUM-OPTION...: Gsum on PATHMAP, one rank per host of
# the pathmap, traced, then analysed; the checks listed at the top.  -n, -w
# and -s are read from the options (Gsum's defaults otherwise) for the
# expected counts.  No option, nor the checkout's path, may contain a space
# (the agent hands the command line to a shell, as ssh does).
netns_case() {
  pm=$1; shift
  name=$(basename "$pm" .pathmap)
  iters=10000 warm=100 sizes=4 prev=""
  for a in "$@"; do
    case $prev in -n) iters=$a ;; -w) warm=$a ;; -s) sizes=$a ;; esac
    prev=$a
  done
  h=$(bin/pathmap-check "$pm" | sed -n 's/^.*: ok: \([0-9]*\) hosts.*/\1/p')
  [ -n "$h" ] || fail "$name: bin/pathmap-check $pm gives no host count"
  hosts_up "$h"
  i=0; : > "$tmp/$name.hosts"
  while [ "$i" -lt "$h" ]; do
    echo "$NET.$((i + 1)) slots=1" >> "$tmp/$name.hosts"
    rx_bytes "$i" > "$tmp/$name.rx$i"
    i=$((i + 1))
  done
  d=$tmp/$name.trace
  # shellcheck disable=SC2086 # MPIRUN_NETNS is a word list
  bounded "$GSUM_SECS" "$tmp/$name.out" "$AGENT" "$NET.1" exec $MPIRUN_NETNS \
    --mca plm_rsh_agent "$AGENT" --hostfile "$tmp/$name.hosts" -np "$h" \
    bin/gsum -p "$pm" "$@" --trace "$d" ||
    { cat "$tmp/$name.out" >&2; fail "$name: gsum over TCP failed"; }
  out=$tmp/$name.out

  # Gsum's report (it aborts at a wrong result, so exit 0 says all were right)
  ! grep -q "wrong result" "$out" || { cat "$out" >&2; fail "$name: a wrong result"; }
  expect_count "$out" 1 "# paptree gsum: pathmap $pm, "
  expect_count "$out" 1 ", $h hosts, "
  echo "$sizes" | tr ',' '\n' > "$tmp/$name.sizes"
  awk -v n="$iters" -v want="$tmp/$name.sizes" '
    BEGIN { while ((getline s < want) > 0) { need[s] = 1; k++ } }
    /^[0-9]/ { if (NF == 5 && ($1 in need) && $5 == n && $3 <= $2 && $2 <= $4) { seen[$1]++; got++ }
               else { print "bad row: " $0; bad = 1 } }
    END { if (got != k) { print "expected one row per size (" k "), got " got; bad = 1 }
          for (s in seen) if (seen[s] != 1) { print "size " s ": " seen[s] " rows"; bad = 1 }
          exit bad }' "$out" || { cat "$out" >&2; fail "$name: Gsum's rows"; }
  events=$(sed -n 's|^# trace: .*/traces.otf2: \([0-9]*\) events from.*|\1|p' "$out")
  [ -n "$events" ] || { cat "$out" >&2; fail "$name: no trace summary in Gsum's output"; }

  # TCP traffic: each host received at least one tuple per operation and size.
  nsizes=$(wc -l < "$tmp/$name.sizes")
  ops=$(( (iters + warm) * nsizes ))
  floor=$(awk -v k=$((iters + warm)) '{ s += $1 } END { print k * s }' "$tmp/$name.sizes")
  i=0
  while [ "$i" -lt "$h" ]; do
    got=$(( $(rx_bytes "$i") - $(cat "$tmp/$name.rx$i") ))
    [ "$got" -ge "$floor" ] || fail "$name: host $i received $got bytes on its veth, expected >= $floor"
    i=$((i + 1))
  done

  # The analysis
  bounded "$ANALYZE_SECS" "$tmp/$name.pa" bin/papanalyze "$d/traces.otf2" ||
    { cat "$tmp/$name.pa" >&2; fail "$name: papanalyze failed"; }
  db=$d/traces.db
  q() { sqlite3 "$db" "$1"; }
  [ "$(q "SELECT COUNT(*) FROM hosts")" = "$h" ] || fail "$name: hosts table: expected $h hosts"
  # Each host's row: the machine of its namespace, and a measured offset.
  bad=$(q "SELECT host, hostname, offset_ns, error_ns, drift_ppm FROM hosts WHERE
             hostname IS NOT ('pt-h' || host)
             OR typeof(offset_ns) <> 'real' OR typeof(error_ns) <> 'real'
             OR typeof(drift_ppm) <> 'real' OR abs(drift_ppm) > 1e6
             OR (host = 0 AND (offset_ns <> 0 OR error_ns <> 0))
             OR (host > 0 AND NOT (error_ns > 0 AND error_ns < 2e7
                                   AND abs(offset_ns) <= error_ns + 1000))")
  [ -z "$bad" ] || { q "SELECT * FROM hosts" >&2; fail "$name: bad hosts rows: $bad"; }
  skipped=$(q "SELECT value FROM meta WHERE key = 'skip'")
  [ "$(q "SELECT value FROM meta WHERE key = 'ops'")" = "$ops" ] || fail "$name: ops: expected $ops"
  [ "$(q "SELECT COUNT(*) FROM ops")" = "$ops" ] || fail "$name: ops table: expected $ops rows"
  [ "$(q "SELECT COUNT(*) FROM ops WHERE used")" = "$((ops - 2 * nsizes * skipped))" ] ||
    fail "$name: used ops: expected $((ops - 2 * nsizes * skipped))"
  [ "$(q "SELECT value FROM meta WHERE key = 'events'")" = "$events" ] ||
    fail "$name: events in the database differ from Gsum's count ($events)"
  bad=$(q "SELECT COUNT(*) FROM (SELECT t.thread, COUNT(p.op) AS k FROM threads t
            LEFT JOIN pap_threads p ON p.thread = t.thread GROUP BY t.thread) WHERE k <> $ops")
  [ "$bad" -eq 0 ] || fail "$name: $bad threads miss visits of some operations"
  echo "netns-tcp: $name: ok ($h hosts over TCP, $ops operations," \
       "offsets to rank 0 within $(q "SELECT printf('%.1f', max(error_ns) / 1e3) FROM hosts") us)"
}

# netns_paprun NP: an unmodified MPI program (build/mpiapps/coll_matrix, every
# result against Open MPI's own) under bin/paprun on NP hosts over TCP, its
# allreduce, reduce and bcast on the rules' algorithms (from a file: the agent
# hands the command line to a shell, and rules hold ';' and '*'), traced;
# then every host received TCP traffic, the program's checks all passed,
# papanalyze reads the trace (its ranks' clocks put on rank 0's by the
# offsets measured; a rank without them is refused): every rank, every call
# of the world's matched into complete operations, the rules' algorithms ran.
netns_paprun() {
  h=$1 name=paprun
  hosts_up "$h"
  i=0; : > "$tmp/$name.hosts"
  while [ "$i" -lt "$h" ]; do
    echo "$NET.$((i + 1)) slots=1" >> "$tmp/$name.hosts"
    rx_bytes "$i" > "$tmp/$name.rx$i"
    i=$((i + 1))
  done
  echo 'allreduce:<=64=rd,*=ring; reduce:*=binomial; bcast:*=chain' > "$tmp/$name.rules"
  d=$tmp/$name.trace
  # shellcheck disable=SC2086 # MPIRUN_NETNS is a word list
  bounded "$GSUM_SECS" "$tmp/$name.out" "$AGENT" "$NET.1" exec $MPIRUN_NETNS \
    --mca plm_rsh_agent "$AGENT" --hostfile "$tmp/$name.hosts" -np "$h" \
    bin/paprun --trace "$d" --algo "@$tmp/$name.rules" -- \
    build/mpiapps/coll_matrix --quick --colls allreduce,reduce,bcast ||
    { cat "$tmp/$name.out" >&2; fail "$name: coll_matrix under paprun over TCP failed"; }
  grep -q '^coll_matrix: [0-9]* cases, 0 failures' "$tmp/$name.out" ||
    { cat "$tmp/$name.out" >&2; fail "$name: coll_matrix's summary line is missing"; }
  i=0
  while [ "$i" -lt "$h" ]; do
    got=$(( $(rx_bytes "$i") - $(cat "$tmp/$name.rx$i") ))
    [ "$got" -gt 0 ] || fail "$name: host $i received nothing on its veth"
    i=$((i + 1))
  done
  bounded "$ANALYZE_SECS" "$tmp/$name.pa" bin/papanalyze "$d/traces.otf2" ||
    { cat "$tmp/$name.pa" >&2; fail "$name: papanalyze failed"; }
  q() { sqlite3 "$d/traces.db" "$1"; }
  [ "$(q "SELECT COUNT(DISTINCT rank) FROM mpi_calls")" = "$h" ] ||
    fail "$name: mpi_calls: expected $h ranks"
  bad=$(q "SELECT COUNT(*) FROM mpi_ops WHERE comm = 0 AND NOT complete")
  [ "$bad" -eq 0 ] || fail "$name: $bad operations on the world are incomplete"
  for a in rd ring binomial chain; do
    [ "$(q "SELECT COUNT(*) FROM mpi_calls WHERE algorithm = '$a' AND fallback IS NULL")" -gt 0 ] ||
      fail "$name: algorithm $a never ran"
  done
  echo "netns-tcp: $name: ok ($h hosts over TCP, coll_matrix under paprun," \
       "$(q "SELECT COUNT(*) FROM mpi_calls") calls traced)"
}

netns_case pathmaps/local/gateway-3x2.pathmap -n 2000 -s 4,256
# an algorithm node (SLT, arrival times from the previous operation) over TCP
netns_case pathmaps/local/algo/slt-3x2.pathmap -n 2000 -s 4,256
# an unmodified MPI program under paprun, its collectives on the rules' algorithms
netns_paprun 3
echo "netns-tcp: ok"
