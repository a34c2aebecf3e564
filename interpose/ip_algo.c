/*
 * ip_algo.c - running a rule's algorithm for an application's collective,
 * on the communicator's private duplicate (ip_comm.c), with runtime/exec's
 * executor (rt_algo_run.h).
 *
 *   allreduce  an rt_algo_plan_t per (choice, datatype), which caches its
 *              schedules per count; the result is made in recvbuf (sendbuf
 *              copied in first unless MPI_IN_PLACE)
 *   reduce     the generator for this rank alone and rt_sched_run, the
 *   bcast      schedule kept per (choice, datatype, count, root); a reduce
 *              off the root works on a scratch copy of sendbuf (its partial
 *              sums must not land in the application's memory); a bcast
 *              moves the buffer's bytes as int64 or int32 elements
 *
 * The spec is the choice's (ip_rules.h) with this communicator's hosts
 * 0..size-1, root 0 for an allreduce and the call's root otherwise, and
 * segsize= turned from bytes into elements of the call's type.
 *
 * A schedule that cannot be made (a generator's precondition, such as a
 * count smaller than the algorithm accepts) is found before anything is
 * sent or written: the caller falls back to Open MPI (reason count), the
 * same on every rank since the inputs are.  An MPI error while the
 * schedule runs cannot be taken back: the application's error handler is
 * called on its communicator, and the call returns the code.
 *
 * arrival=history: per communicator and collective, each rank's time in
 * the previous call that ran the algorithm is gathered in the background
 * (a PMPI_Iallgather on the duplicate, posted as the call ends, completed
 * as the next one begins); host i's arrival is max_j W_j - W_i, so the rank
 * that waited least, the last to arrive, arrives latest.  It needs no
 * common clock, and the vector is identical on every rank, so the PAP-aware
 * schedule is too.  The first call has no history: all arrive at 0.
 *
 * auto (an allreduce rule's `auto`): the run's plan is an auto plan
 * (rt_algo_run.h) whose chooser's configuration is the rule's, segsize=
 * made elements of the call's type.  Per call, after the fallbacks above
 * (datatype, op, ...), rt_algo_plan_choose gets the call's entry time,
 * its class key (the hash of the call site's module+offset name, the same
 * on every rank) and the history vector when arrival=history; its choice
 * is recorded (the candidate's name as the call's algorithm).  No
 * candidate for the count: Open MPI's own (reason count).  A disagreement
 * between the ranks (CM_ERR_MISMATCH, from choose or run) or any other
 * error of choosing stops the job with the message: the ranks cannot go
 * on with different algorithms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_hash.h"
#include "common/cm_site.h"
#include "interpose/ip_int.h"

/* Runs kept per communicator; the least recently made beyond are freed. */
#define IP_RUNS_MAX 16

static const char *const coll_func[IP_RULE_NCOLL] = { "MPI_Allreduce", "MPI_Reduce",
                                                      "MPI_Bcast" };

static void run_free(ip_run_t *r)
{
    rt_algo_plan_destroy(r->plan);
    rt_sched_free(&r->sched);
    free(r);
}

void ip_algo_comm_free(ip_comm_t *c)
{
    for (int i = 0; i < IP_RULE_NCOLL; i++)
        if (c->hist[i].posted) {
            PMPI_Wait(&c->hist[i].req, MPI_STATUS_IGNORE);
            c->hist[i].posted = 0;
        }
    while (c->runs) {
        ip_run_t *r = c->runs;

        c->runs = r->next;
        run_free(r);
    }
}

static int history(const ip_job_t *job)
{
    return job->choice->spec.arrival == RT_ARRIVAL_HISTORY;
}

/* The vector of the previous call's gather, or NULL (no previous call). */
static const int64_t *hist_begin(ip_comm_t *c, ip_rule_coll_t coll)
{
    ip_hist_t *h = &c->hist[coll];
    int64_t top = INT64_MIN;

    if (!h->posted)
        return NULL;
    h->posted = 0;
    if (PMPI_Wait(&h->req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return NULL;
    for (int i = 0; i < c->size; i++)
        if (h->all[i] > top)
            top = h->all[i];
    for (int i = 0; i < c->size; i++)
        h->arrival[i] = top - h->all[i];
    return h->arrival;
}

static void hist_end(ip_comm_t *c, ip_rule_coll_t coll, uint64_t ns)
{
    ip_hist_t *h = &c->hist[coll];

    if (!h->all) {
        h->all = calloc((size_t)c->size, sizeof *h->all);
        h->arrival = calloc((size_t)c->size, sizeof *h->arrival);
        if (!h->all || !h->arrival)
            return;
    }
    h->mine = ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
    if (PMPI_Iallgather(&h->mine, 1, MPI_INT64_T, h->all, 1, MPI_INT64_T, c->dup, &h->req) ==
        MPI_SUCCESS)
        h->posted = 1;
}

/* The run of job on c: found (moved to the front) or made. */
static ip_run_t *run_get(ip_comm_t *c, const ip_job_t *job, int64_t count, int32_t root)
{
    int rooted = job->coll != IP_RULE_ALLREDUCE, n = 0;
    ip_run_t **pp = &c->runs, *r;
    size_t esz = rt_dtype_size(job->dtype);

    for (; (r = *pp) != NULL; pp = &r->next) {
        if (r->choice == job->choice && r->coll == job->coll && r->dtype == job->dtype &&
            (!rooted || (r->count == count && r->root == root))) {
            *pp = r->next;
            r->next = c->runs;
            c->runs = r;
            return r;
        }
    }
    r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->choice = job->choice;
    r->coll = job->coll;
    r->dtype = job->dtype;
    r->count = count;
    r->root = root;
    r->spec = job->choice->spec;
    r->spec.hosts = c->hosts;
    r->spec.nhosts = (uint32_t)c->size;
    r->spec.root = rooted ? root : 0;
    if (job->choice->segsize_bytes > 0)
        r->spec.segcount = job->choice->segsize_bytes / (int64_t)esz > 0
                           ? job->choice->segsize_bytes / (int64_t)esz : 1;
    if (job->choice->spec.autocfg) {
        r->autocfg = *job->choice->spec.autocfg;
        r->autocfg.segcount = r->spec.segcount;
        r->spec.autocfg = &r->autocfg;
    }
    rt_sched_init(&r->sched);
    r->next = c->runs;
    c->runs = r;
    for (pp = &c->runs; *pp; pp = &(*pp)->next)
        if (++n == IP_RUNS_MAX && (*pp)->next) {
            run_free((*pp)->next);
            (*pp)->next = NULL;
            break;
        }
    return r;
}

/* The schedule of a reduce or bcast: kept when it depends on the count and
   root alone, made per call from an arrival vector. */
static cm_status_t sched_make(ip_run_t *r, const ip_job_t *job, const int64_t *arrival,
                              cm_err_t *err)
{
    rt_algo_params_t p;
    cm_status_t st;

    if (r->sched_ok && !arrival)
        return CM_OK;
    memset(&p, 0, sizeof p);
    p.nranks = (int32_t)r->spec.nhosts;
    p.root = r->spec.root;
    p.count = job->count;
    p.segcount = r->spec.segcount;
    p.nsegs = r->spec.nsegs;
    p.arrival = arrival;
    p.round_len = r->spec.round_ns;
    p.ppn = r->spec.ppn;
    p.port = r->spec.port;
    p.tree = r->spec.shape;
    r->sched_ok = 0;
    rt_sched_free(&r->sched);
    rt_sched_init(&r->sched);
    st = r->spec.run->gen(&r->sched, &p, job->c->rank, err);
    if (st != CM_OK) {
        rt_sched_free(&r->sched);
        rt_sched_init(&r->sched);
        return st;
    }
    r->sched_ok = !arrival;
    return CM_OK;
}

/* The buffer the schedule works on, with this rank's contribution in it. */
static void *work_buffer(const ip_job_t *job)
{
    size_t bytes = (size_t)job->count * rt_dtype_size(job->dtype);

    if (job->coll == IP_RULE_BCAST)
        return job->buf;
    if (job->coll == IP_RULE_REDUCE && job->root != job->c->rank) {
        void *s = ip_comm_scratch(job->c, bytes);

        if (s)
            memcpy(s, job->sendbuf, bytes);
        return s;
    }
    if (job->sendbuf != MPI_IN_PLACE)
        memcpy(job->buf, job->sendbuf, bytes);
    return job->buf;
}

static ins_mpi_fallback_t prepare_fail(cm_status_t st)
{
    return st == CM_ERR_UNSUPPORTED ? INS_FB_COUNT : INS_FB_OTHER;
}

/* An error after messages went out: the application's handler decides. */
static int run_error(const ip_job_t *job, const cm_err_t *err, cm_status_t st)
{
    int code = st == CM_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
    char msg[CM_ERR_MSG_MAX + CM_ERR_PATH_MAX + 64];

    cm_err_format(err, msg, sizeof msg);
    fprintf(stderr, "paptree: rank %d: %s (%s): %s\n", ip_lib.world_rank,
            coll_func[job->coll], job->choice->text, msg);
    PMPI_Comm_call_errhandler(job->c->app, code);
    return code;
}

/* ---- auto ------------------------------------------------------------------ */

/* The chooser's class key of a call site: the hash of its name
   (cm_site_name: module and offset, the same on every rank whatever the
   address layout); the last few sites of the run are remembered, since
   dladdr is not cheap. */
static uint64_t site_key(ip_run_t *r, const void *site)
{
    char name[4096 + 64];
    size_t n = sizeof r->site_addr / sizeof *r->site_addr;
    uint64_t key;

    for (size_t i = 0; i < n; i++)
        if (r->site_addr[i] == site && site)
            return r->site_key[i];
    cm_site_name(site, name, sizeof name);
    key = cm_hash_fnv1a(name, strlen(name));
    memmove(r->site_addr + 1, r->site_addr, (n - 1) * sizeof *r->site_addr);
    memmove(r->site_key + 1, r->site_key, (n - 1) * sizeof *r->site_key);
    r->site_addr[0] = site;
    r->site_key[0] = key;
    return key;
}

/* The ranks disagree (or the choice failed): nothing can be taken back, and
   waiting would hang, so the job stops with the message. */
static void auto_stop(const ip_job_t *job, const cm_err_t *err)
{
    char msg[CM_ERR_MSG_MAX + CM_ERR_PATH_MAX + 64];

    cm_err_format(err, msg, sizeof msg);
    fprintf(stderr, "paptree: rank %d: %s (%s): %s\n", ip_lib.world_rank,
            coll_func[job->coll], job->choice->text, msg);
    fflush(stderr);
    ip_trace_abandon();
    PMPI_Abort(MPI_COMM_WORLD, 2);
}

/* Chooses the candidate of an auto run for this call and says so in rec.
   INS_FB_NONE, or INS_FB_COUNT when no candidate can run the count (the
   same on every rank). */
static ins_mpi_fallback_t auto_choose(const ip_job_t *job, ip_run_t *r, rt_algo_call_t *call,
                                      ins_mpi_call_t *rec)
{
    const rt_auto_choice_t *choice = NULL;
    const rt_auto_t *a;
    cm_status_t st;
    cm_err_t err;

    cm_err_clear(&err);
    call->arrived_ns = (int64_t)job->entry_ns;
    call->site = site_key(r, job->site);
    st = rt_algo_plan_choose(r->plan, call, job->count, &choice, &err);
    if (st == CM_ERR_UNSUPPORTED)
        return INS_FB_COUNT;
    if (st != CM_OK)
        auto_stop(job, &err);
    a = rt_algo_plan_auto(r->plan);
    if (choice && a) {
        r->chosen = *choice;            /* the plan's is borrowed until its next call */
        rec->algo = rt_auto_cand_name(a, choice->chosen);
        rec->auto_a = a;
        rec->auto_choice = &r->chosen;
    }
    return INS_FB_NONE;
}

ins_mpi_fallback_t ip_algo_run(const ip_job_t *job, int *rc_p, ins_mpi_call_t *rec)
{
    uint64_t ns0 = history(job) ? rt_wait_now_ns() : 0;
    const int64_t *arrival = NULL;
    rt_algo_observer_t obs;
    rt_algo_call_t call;
    ins_mpi_t *tr;
    ip_run_t *r;
    cm_status_t st;
    cm_err_t err;
    void *buf;

    cm_err_clear(&err);
    r = run_get(job->c, job, job->count, job->root);
    if (!r)
        return INS_FB_OTHER;
    if (job->coll == IP_RULE_ALLREDUCE && !r->plan &&
        rt_algo_plan_create(&r->spec, job->c->rank, &r->plan, &err) != CM_OK)
        return INS_FB_OTHER;
    if (history(job))
        arrival = hist_begin(job->c, job->coll);
    memset(&call, 0, sizeof call);
    call.comm = job->c->dup;
    call.dtype = job->dtype;
    call.op = job->op;
    call.arrival = arrival;
    if (r->spec.autocfg)
        st = auto_choose(job, r, &call, rec) == INS_FB_NONE ? CM_OK : CM_ERR_UNSUPPORTED;
    else if (job->coll == IP_RULE_ALLREDUCE)
        st = rt_algo_plan_prepare(r->plan, job->count, arrival, NULL, &err);
    else
        st = sched_make(r, job, arrival, &err);
    if (st != CM_OK)
        return prepare_fail(st);
    buf = work_buffer(job);
    if (!buf)
        return INS_FB_OTHER;
    tr = (ins_mpi_t *)atomic_load_explicit(&ip_lib.open_trace, memory_order_relaxed);
    if (tr) {
        ins_mpi_observer(tr, job->trace_comm, &obs);
        call.observer = &obs;
    }
    if (job->coll == IP_RULE_ALLREDUCE)
        st = rt_algo_plan_run(r->plan, &call, buf, job->count, NULL, &err);
    else
        st = rt_sched_run(&r->sched, job->c->rank, &call, buf, &err);
    if (st == CM_ERR_MISMATCH)
        auto_stop(job, &err);
    *rc_p = st == CM_OK ? MPI_SUCCESS : run_error(job, &err, st);
    if (st == CM_OK && history(job))
        hist_end(job->c, job->coll, rt_wait_now_ns() - ns0);
    return INS_FB_NONE;
}
