# shellcheck shell=sh
# bench/lib.sh - the one mpirun command line of paptree's scripts.  Sourced
# (POSIX sh or bash, from the repository root) by bench/*.sh, scripts/demo.sh
# and tests/lib.sh.  This file is the reference: tests/run_tests.c
# (tst_mpi_cmd) and tools/sweep (paptree_mpirun) build the same line, and
# tests/infra/mpirun-line.sh checks that the three agree.
#
# The line, for NP ranks:
#
#   mpirun [--allow-run-as-root] --oversubscribe --bind-to none
#          --mca btl self,vader [$PAPTREE_MPIRUN_ARGS] -np NP [EXTRA...] CMD...
#
#   --allow-run-as-root  only as root, which Open MPI refuses without it
#   --oversubscribe      more ranks than cores (this machine has 2): every
#                        script runs np 4 and more on one machine
#   --bind-to none       at np <= 2 Open MPI binds each rank to one core,
#                        which would serialise the rank's threads
#   --mca btl self,vader shared memory between the ranks of one machine; keeps
#                        the TCP BTL (and its TSan reports) out
#   PAPTREE_MPIRUN_ARGS  more mpirun arguments for every job, split at blanks
#                        (e.g. "--mca btl_vader_single_copy_mechanism none");
#                        empty by default
#
# mpi_yield_when_idle stays mpirun's choice: forcing 0 made an np=4
# allreduce about 1000x slower.

# paptree_mpirun_prefix: prints the line up to -np (the words above; no word
# contains a blank).  For callers that add -np and the command themselves.
paptree_mpirun_prefix() {
    if [ "$(id -u)" = 0 ]; then
        printf 'mpirun --allow-run-as-root'
    else
        printf 'mpirun'
    fi
    printf ' --oversubscribe --bind-to none --mca btl self,vader%s\n' \
        "${PAPTREE_MPIRUN_ARGS:+ $PAPTREE_MPIRUN_ARGS}"
}

# paptree_mpirun [-t SECONDS] NP [EXTRA...] -- CMD [ARG...]: runs CMD on NP
# ranks; EXTRA are more mpirun arguments for this job (a hostfile, an MCA
# parameter, -x VAR), placed after -np.  -t: under timeout(1), which kills
# mpirun after SECONDS (exit status 124).  The "--" is required, so that a
# "--" of CMD's own is never taken for it.  Returns CMD's (mpirun's) status.
paptree_mpirun() {
    _paptree_mpirun run "$@"
}

# paptree_mpirun_print: the same arguments; prints the command line (words
# joined by blanks) instead of running it.
paptree_mpirun_print() {
    _paptree_mpirun print "$@"
}

_paptree_mpirun() {
    _pm_mode=$1 _pm_timeout=""
    shift
    if [ "${1:-}" = -t ]; then
        _pm_timeout=${2:?paptree_mpirun: -t needs SECONDS}
        shift 2
    fi
    _pm_np=${1:?paptree_mpirun: usage: paptree_mpirun [-t SECONDS] NP [EXTRA...] -- CMD...}
    shift
    # Drop the first "--", keeping EXTRA and CMD in order: each word moves
    # from the front to the back once.
    _pm_seen=0
    for _pm_a in "$@"; do
        shift
        if [ "$_pm_seen" = 0 ] && [ "$_pm_a" = -- ]; then
            _pm_seen=1
            continue
        fi
        set -- "$@" "$_pm_a"
    done
    if [ "$_pm_seen" = 0 ] || [ $# -eq 0 ]; then
        echo "paptree_mpirun: usage: paptree_mpirun [-t SECONDS] NP [EXTRA...] -- CMD..." >&2
        return 2
    fi
    # shellcheck disable=SC2046 # the prefix is a word list
    set -- $(paptree_mpirun_prefix) -np "$_pm_np" "$@"
    [ -z "$_pm_timeout" ] || set -- timeout "$_pm_timeout" "$@"
    if [ "$_pm_mode" = print ]; then
        printf '%s\n' "$*"
    else
        "$@"
    fi
}
