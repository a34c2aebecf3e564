/*
 * ip_init.c - the life of lib/libpaptree-mpi.so in a process: its settings
 * (PAPTREE_* environment variables, which bin/paprun sets, or `mpirun -x`),
 * what MPI_Init sets up, what MPI_Finalize tears down, and the ways a run
 * can end short.
 *
 *   load         the constructor parses PAPTREE_ALGO and PAPTREE_TRACE_MEM:
 *                a bad one ends the process (exit 2) before main runs, with
 *                one line `paptree: PAPTREE_ALGO:1:COL: error: ...`
 *   MPI_Init     ip_after_init: a private duplicate of MPI_COMM_WORLD; the
 *                ranks' rules compared (a job whose ranks got different
 *                rules would deadlock in the first collective they decide
 *                differently: it is stopped with one message), and so are
 *                the auto rules' configurations (PAPTREE_NET's net model); the trace
 *                opened; the keyvals; the signal and exit handlers
 *   MPI_Finalize MPI_COMM_SELF's attribute is deleted first, while MPI
 *                still works (MPI-3.1 8.7.1): its callback frees the
 *                communicators' states, prints the report, closes the trace
 *   MPI_Abort, SIGINT, SIGTERM, exit without MPI_Finalize
 *                the trace is abandoned (no archive appears; ins_mpi.h)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/cm_opt.h"
#include "interpose/ip_int.h"

ip_lib_t ip_lib = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .world = MPI_COMM_NULL,
    .comm_keyval = MPI_KEYVAL_INVALID,
    .self_keyval = MPI_KEYVAL_INVALID,
};

/* Settings read by the constructor for MPI_Init. */
static uint64_t trace_mem;

/* The handlers SIGINT and SIGTERM had before ip_after_init's. */
static struct sigaction old_int, old_term;

static int env_on(const char *name)
{
    const char *v = getenv(name);

    return v && *v && strcmp(v, "0") != 0;
}

/* ---- load ---------------------------------------------------------------- */

__attribute__((constructor)) static void ip_load(void)
{
    const char *algo = getenv("PAPTREE_ALGO");
    const char *mem = getenv("PAPTREE_TRACE_MEM");

    if (algo) {
        cm_err_t err;

        cm_err_clear(&err);
        if (ip_rules_parse(algo, "PAPTREE_ALGO", &ip_lib.rules, &err) != CM_OK) {
            cm_err_print(stderr, "paptree: ", &err);
            _exit(2);
        }
        if (ip_rules_count(ip_lib.rules) == 0) {
            ip_rules_free(ip_lib.rules);
            ip_lib.rules = NULL;
        }
    }
    if (mem && *mem) {
        cm_opt_t ctx;

        cm_opt_init(&ctx, "paptree");
        if (cm_opt_size(&ctx, "PAPTREE_TRACE_MEM", mem, 1 << 16, UINT64_C(1) << 40,
                        &trace_mem) != CM_OK) {
            cm_opt_print(&ctx, stderr);
            _exit(2);
        }
    }
}

/* ---- the ways a run ends short ----------------------------------------- */

void ip_trace_abandon(void)
{
    ins_mpi_t *tr = (ins_mpi_t *)atomic_exchange(&ip_lib.open_trace, (uintptr_t)0);

    if (tr)
        ins_mpi_abandon(tr);
}

void ip_before_abort(void)
{
    ip_trace_abandon();
}

/* Chains to the handler that was there before ours: calls it, or, for the
   default action, restores it and raises the signal again (it is
   delivered when this handler returns and ends the process as it would
   have without the library). */
static void on_signal(int sig, siginfo_t *info, void *uctx)
{
    const struct sigaction *old = sig == SIGINT ? &old_int : &old_term;

    ip_trace_abandon();
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction)
            old->sa_sigaction(sig, info, uctx);
    } else if (old->sa_handler == SIG_DFL) {
        sigaction(sig, old, NULL);
        raise(sig);
    } else if (old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    }
}

static void signals_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
}

/* exit() without MPI_Finalize: the trace is still open. */
static void on_exit_open(void)
{
    ip_trace_abandon();
}

/* ---- MPI_Init ------------------------------------------------------------ */

/* Stops the job with one message from rank 0 (the other ranks wait for
   its abort in a barrier that rank 0 never joins). */
static void job_stop(const char *msg)
{
    if (ip_lib.world_rank == 0) {
        fprintf(stderr, "paptree: %s\n", msg);
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    PMPI_Barrier(ip_lib.world);
    PMPI_Abort(MPI_COMM_WORLD, 2);
}

/* Every rank must have the same rules: the hashes' minimum and maximum. */
static void rules_agree(void)
{
    uint64_t h = ip_rules_hash(ip_lib.rules), mine[2] = { h, ~h }, all[2];
    char msg[256];

    if (PMPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, ip_lib.world) != MPI_SUCCESS)
        job_stop("MPI_Init: cannot compare the ranks' PAPTREE_ALGO rules");
    if (all[0] == h && ~all[1] == h)
        return;
    snprintf(msg, sizeof msg,
             "PAPTREE_ALGO: the ranks were given different rules (rank 0: \"%s\"); "
             "every rank must run the same --algo",
             ip_lib.world_rank == 0 ? ip_rules_normal(ip_lib.rules) : "");
    job_stop(msg);
}

/* The same rules with auto cases must also have the same auto
   configurations: the net model (PAPTREE_NET) is not in the rules' text,
   and ranks whose choosers differ would choose differently. */
static void auto_agree(void)
{
    uint64_t h = ip_rules_auto_hash(ip_lib.rules), mine[2] = { h, ~h }, all[2];
    const rt_net_t *net = ip_rules_net(ip_lib.rules);
    char msg[320];

    if (PMPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, ip_lib.world) != MPI_SUCCESS)
        job_stop("MPI_Init: cannot compare the ranks' auto configurations");
    if (all[0] == h && ~all[1] == h)
        return;
    snprintf(msg, sizeof msg,
             "PAPTREE_NET: the ranks' auto rules have different net models (rank 0: "
             "alpha=%g beta=%g gamma=%g); every rank must read the same PAPTREE_NET",
             net ? net->alpha : 0.0, net ? net->beta : 0.0, net ? net->gamma : 0.0);
    job_stop(msg);
}

static void trace_open(const char *dir)
{
    ins_mpi_opts_t opts;
    cm_err_t err;
    char msg[CM_ERR_MSG_MAX + CM_ERR_PATH_MAX + 64];

    memset(&opts, 0, sizeof opts);
    opts.dir = dir;
    opts.force = env_on("PAPTREE_FORCE");
    opts.command = getenv("PAPTREE_COMMAND");
    opts.rules = getenv("PAPTREE_ALGO");
    opts.mem = (size_t)trace_mem;
    cm_err_clear(&err);
    if (ins_mpi_open(&opts, ip_lib.world, &ip_lib.trace, &err) != CM_OK) {
        cm_err_format(&err, msg, sizeof msg);
        ip_lib.trace = NULL;
        job_stop(msg);
    }
    atomic_store(&ip_lib.open_trace, (uintptr_t)ip_lib.trace);
}

static int self_delete(MPI_Comm comm, int keyval, void *attr, void *extra);

void ip_after_init(int provided)
{
    const char *dir = getenv("PAPTREE_TRACE");
    static int exit_hooked, initialised;

    if (initialised++)
        return;
    ip_lib.thread_multiple = provided == MPI_THREAD_MULTIPLE;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &ip_lib.world) != MPI_SUCCESS) {
        fprintf(stderr, "paptree: MPI_Init: cannot duplicate MPI_COMM_WORLD; "
                        "the program runs without the library\n");
        return;
    }
    PMPI_Comm_set_errhandler(ip_lib.world, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(ip_lib.world, &ip_lib.world_rank);
    PMPI_Comm_size(ip_lib.world, &ip_lib.world_size);
    PMPI_Comm_set_name(ip_lib.world, "paptree world");
    ip_lib.rank_bits = 1;
    while (ip_lib.rank_bits < 31 && (1 << ip_lib.rank_bits) < ip_lib.world_size)
        ip_lib.rank_bits++;
    ip_lib.next_id = 1;
    rules_agree();
    auto_agree();
    if (dir && *dir)
        trace_open(dir);
    if (env_on("PAPTREE_REPORT"))
        ip_lib.report = ip_report_create();
    if (ip_comm_setup() != MPI_SUCCESS ||
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &ip_lib.self_keyval,
                                NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, ip_lib.self_keyval, NULL) != MPI_SUCCESS)
        job_stop("MPI_Init: cannot create the library's attribute keys");
    if (ip_lib.trace) {
        signals_install();
        if (!exit_hooked)
            exit_hooked = atexit(on_exit_open) == 0;
    }
    /* Nothing to trace, report or decide: every wrapper is its PMPI_ call. */
    atomic_store(&ip_lib.on, ip_lib.trace || ip_lib.report || ip_lib.rules);
}

/* ---- MPI_Finalize -------------------------------------------------------- */

/*
 * MPI_COMM_SELF's attribute, deleted first in MPI_Finalize: every MPI call
 * of the program has completed, and MPI still works.
 */
static int self_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    cm_err_t err;

    (void)comm, (void)keyval, (void)attr, (void)extra;
    atomic_store(&ip_lib.on, 0);
    ip_comm_shutdown();
    if (ip_lib.report) {
        ip_report_print(ip_lib.report, ip_lib.world, stdout);
        fflush(stdout);
        ip_report_free(ip_lib.report);
        ip_lib.report = NULL;
    }
    if (ip_lib.trace) {
        /* From here a signal or exit has nothing to abandon: close either
           writes the archive or leaves nothing. */
        atomic_store(&ip_lib.open_trace, (uintptr_t)0);
        cm_err_clear(&err);
        if (ins_mpi_close(ip_lib.trace, &err) != CM_OK && ip_lib.world_rank == 0)
            cm_err_print(stderr, "paptree: ", &err);
        ip_lib.trace = NULL;
    }
    PMPI_Comm_free_keyval(&ip_lib.comm_keyval);
    PMPI_Comm_free(&ip_lib.world);
    ip_rules_free(ip_lib.rules);
    ip_lib.rules = NULL;
    return MPI_SUCCESS;
}
