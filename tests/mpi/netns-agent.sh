#!/bin/sh
# netns-agent.sh - Open MPI's rsh agent for tests/mpi/netns-tcp.sh: "logs
# in" to a host that is a network namespace of this machine.
#
# Open MPI's rsh launcher runs the agent as `AGENT [options] HOST WORD...`
# and, like ssh, expects WORD... to be joined into one command for a shell
# (it quotes them for one: `-mca ess "env" ...`).  HOST is looked up in
# PT_NETNS_MAP ("HOST=NAMESPACE[/HOSTNAME] ...", set by the test and
# inherited through mpirun); the command runs under `ip netns exec
# NAMESPACE`, in a UTS namespace of its own whose host name is HOSTNAME (so
# that each "host" has its own name, as a real one does).  Leading options
# (ssh's -x and the like) are ignored.  Exit status: the command's, or 255
# (as ssh) when the host is unknown or the namespace cannot be entered.
set -eu
while [ $# -gt 0 ]; do
  case $1 in
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "netns-agent: usage: netns-agent.sh [options] HOST COMMAND..." >&2; exit 255; }
host=$1; shift
entry=""
for e in ${PT_NETNS_MAP:-}; do
  case $e in "$host="*) entry=${e#*=} ;; esac
done
[ -n "$entry" ] || { echo "netns-agent: host '$host' is not in PT_NETNS_MAP" >&2; exit 255; }
ns=${entry%%/*} name=${entry#*/}
[ "$name" != "$entry" ] || name=$ns
# $* is the remote command line, as ssh would hand it to the remote shell.
# shellcheck disable=SC2016 # the inner sh's arguments
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$1" && shift && exec sh -c "$*"' netns-agent "$name" "$*"
