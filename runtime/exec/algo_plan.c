/*
 * algo_plan.c - one host's side of an algorithm node (rt_algo_run.h):
 * which schedule each operation runs, and the native path.
 *
 * Static schedules depend only on the element count: a plan keeps the
 * compiled programs of its RT_ALGO_PLAN_CACHE most recent counts (most
 * recently used first; a miss evicts the least recent), each generated for
 * this rank only.  A PAP-aware algorithm (one whose table row reads
 * `arrival`, or a spec that says so) given an arrival vector is generated
 * per operation from it, into one slot whose arrays are reused (kept as it
 * is when the next operation brings the same count and a bit-identical
 * vector, which is how rt_algo_plan_prepare makes a schedule ahead of its
 * run: the arrival estimator's background thread, estimate.c); without a
 * vector every arrival is 0 and its schedule depends on the count alone, so
 * it is cached like a static one.  A generator's failure (a precondition
 * such as Rabenseifner's count >= pof2) is returned as it is, the same on
 * every rank; it is not cached.
 *
 * `native` is MPI_Iallreduce in place on the call's communicator, waited
 * for with MPI_Test under the wait policy like the schedules' rounds
 * (rt__algo_wait; Open MPI's blocking calls poll without pause).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/exec/algo_int.h"

typedef struct plan_slot {
    int64_t     count;       /* -1: empty */
    rt_sched_t  sched;
    rt__xprog_t prog;
} plan_slot_t;

struct rt_algo_plan {
    const rt_algo_spec_t *spec;
    int32_t               rank;
    int                   pap;                       /* run or bcast reads arrival */
    plan_slot_t           slot[RT_ALGO_PLAN_CACHE];
    int                   order[RT_ALGO_PLAN_CACHE]; /* slot indices, most recent first */
    plan_slot_t           pap_slot;                  /* the per-operation schedule */
    int64_t              *pap_arrival;               /* the vector pap_slot was made from */
    rt__xmem_t            mem;
    MPI_Comm              comm_ok;                   /* last communicator checked */
    rt__auto_t           *au;                        /* auto: the candidates and chooser */
};

static int reads_arrival(const rt_algo_info_t *a)
{
    return a && a->params && strstr(a->params, "arrival") != NULL;
}

static cm_status_t spec_check(const rt_algo_spec_t *spec, int32_t rank, cm_err_t *err)
{
    if (spec->nhosts < 1 || spec->nhosts > RT_SCHED_RANKS_MAX)
        return CM_ERR(err, CM_ERR_INVALID, "algorithm node: %u hosts", spec->nhosts);
    if (rank < 0 || (uint32_t)rank >= spec->nhosts)
        return CM_ERR(err, CM_ERR_INVALID, "algorithm node: rank %d of %u hosts",
                      (int)rank, spec->nhosts);
    if (spec->native || spec->autocfg != NULL)
        return CM_OK;
    if (!spec->run)
        return CM_ERR(err, CM_ERR_INVALID, "algorithm node: no algorithm and not native");
    if (spec->run->coll == RT_COLL_ALLREDUCE) {
        if (spec->bcast)
            return CM_ERR(err, CM_ERR_INVALID, "%s is an allreduce: it takes no broadcast (%s)",
                          spec->run->name, spec->bcast->name);
        return CM_OK;
    }
    if (spec->run->coll != RT_COLL_REDUCE)
        return CM_ERR(err, CM_ERR_INVALID, "%s is a broadcast, not an allreduce or a reduce",
                      spec->run->name);
    if (!spec->bcast || spec->bcast->coll != RT_COLL_BCAST)
        return CM_ERR(err, CM_ERR_INVALID, "%s is a reduce: it needs a broadcast after it",
                      spec->run->name);
    return CM_OK;
}

cm_status_t rt_algo_plan_create(const rt_algo_spec_t *spec, int32_t rank,
                                rt_algo_plan_t **plan_p, cm_err_t *err)
{
    rt_algo_plan_t *plan;
    cm_status_t st = spec_check(spec, rank, err);

    if (st != CM_OK)
        return st;
    plan = calloc(1, sizeof *plan);
    if (!plan)
        return CM_ERR(err, CM_ERR_NOMEM, "algorithm node: no memory for a plan");
    plan->spec = spec;
    plan->rank = rank;
    if (spec->autocfg != NULL) {
        plan->comm_ok = MPI_COMM_NULL;
        if ((st = rt__auto_create(spec, rank, &plan->au, err)) != CM_OK) {
            free(plan);
            return st;
        }
        *plan_p = plan;
        return CM_OK;
    }
    plan->pap = !spec->native &&
                (spec->pap || reads_arrival(spec->run) || reads_arrival(spec->bcast));
    for (int i = 0; i < RT_ALGO_PLAN_CACHE; i++) {
        plan->slot[i].count = -1;
        rt_sched_init(&plan->slot[i].sched);
        rt__xprog_init(&plan->slot[i].prog);
        plan->order[i] = i;
    }
    plan->pap_slot.count = -1;
    plan->pap_arrival = calloc(spec->nhosts, sizeof *plan->pap_arrival);
    if (!plan->pap_arrival) {
        free(plan);
        return CM_ERR(err, CM_ERR_NOMEM, "algorithm node: no memory for a plan");
    }
    rt_sched_init(&plan->pap_slot.sched);
    rt__xprog_init(&plan->pap_slot.prog);
    rt__xmem_init(&plan->mem);
    plan->comm_ok = MPI_COMM_NULL;
    *plan_p = plan;
    return CM_OK;
}

void rt_algo_plan_destroy(rt_algo_plan_t *plan)
{
    if (!plan)
        return;
    if (plan->au != NULL) {
        rt__auto_destroy(plan->au);
        free(plan);
        return;
    }
    for (int i = 0; i < RT_ALGO_PLAN_CACHE; i++) {
        rt_sched_free(&plan->slot[i].sched);
        rt__xprog_free(&plan->slot[i].prog);
    }
    rt_sched_free(&plan->pap_slot.sched);
    rt__xprog_free(&plan->pap_slot.prog);
    rt__xmem_free(&plan->mem);
    free(plan->pap_arrival);
    free(plan);
}

/* (Re)makes slot's schedule and program for count (arrival may be NULL). */
static cm_status_t slot_make(const rt_algo_plan_t *plan, plan_slot_t *slot, int64_t count,
                             const int64_t *arrival, cm_err_t *err)
{
    const rt_algo_spec_t *spec = plan->spec;
    rt_algo_params_t p;
    cm_status_t st;

    memset(&p, 0, sizeof p);
    p.nranks = (int32_t)spec->nhosts;
    p.root = spec->root;
    p.count = count;
    p.segcount = spec->segcount;
    p.nsegs = spec->nsegs;
    p.arrival = arrival;
    p.round_len = spec->round_ns;
    p.ppn = spec->ppn;
    p.port = spec->port;
    p.tree = spec->shape;
    slot->count = -1;
    rt_sched_free(&slot->sched);
    rt_sched_init(&slot->sched);
    if (spec->bcast)
        st = rt_algo_reduce_bcast(&slot->sched, spec->run, spec->bcast, &p, plan->rank, err);
    else
        st = spec->run->gen(&slot->sched, &p, plan->rank, err);
    if (st == CM_OK)
        st = rt__xprog_build(&slot->prog, &slot->sched, plan->rank, err);
    if (st != CM_OK) {
        rt_sched_free(&slot->sched);
        rt_sched_init(&slot->sched);
        return st;
    }
    slot->count = count;
    return CM_OK;
}

/* The cached slot for count, made if missing, moved to the front. */
static cm_status_t cache_get(rt_algo_plan_t *plan, int64_t count, plan_slot_t **slot_p,
                             cm_err_t *err)
{
    int pos = 0, s;

    while (pos < RT_ALGO_PLAN_CACHE - 1 && plan->slot[plan->order[pos]].count != count)
        pos++;
    s = plan->order[pos];
    if (plan->slot[s].count != count) {
        cm_status_t st = slot_make(plan, &plan->slot[s], count, NULL, err);

        if (st != CM_OK)
            return st;
    }
    memmove(plan->order + 1, plan->order, (size_t)pos * sizeof *plan->order);
    plan->order[0] = s;
    *slot_p = &plan->slot[s];
    return CM_OK;
}

typedef struct native_wait {
    MPI_Request req;
    int         rc;
    rt__xtag_t *tag;        /* an auto plan's candidate: probe for the others */
    MPI_Comm    comm;
    int64_t     probe_at;
} native_wait_t;

static bool native_ready(void *arg)
{
    native_wait_t *w = arg;
    int done = 0;

    w->rc = MPI_Test(&w->req, &done, MPI_STATUS_IGNORE);
    if (done || w->rc != MPI_SUCCESS)
        return true;
    if (w->tag->ntags > 0 && (int64_t)rt_wait_now_ns() >= w->probe_at) {
        w->probe_at = (int64_t)rt_wait_now_ns() + RT_AUTO_PROBE_NS;
        return rt__algo_probe_foreign(w->comm, w->tag);
    }
    return false;
}

void rt__algo_plan_set_tag(rt_algo_plan_t *plan, int tag, int ntags)
{
    plan->mem.tag.tag = tag;
    plan->mem.tag.ntags = ntags;
    plan->mem.tag.foreign_tag = -1;
    plan->mem.tag.foreign_since = 0;
}

int rt__algo_plan_foreign(const rt_algo_plan_t *plan, int *src)
{
    *src = plan->mem.tag.foreign_src;
    return plan->mem.tag.foreign_tag;
}

static cm_status_t native_run(rt_algo_plan_t *plan, const rt_algo_call_t *call,
                              void *buf, int64_t count, cm_err_t *err)
{
    native_wait_t w = { MPI_REQUEST_NULL, MPI_SUCCESS, &plan->mem.tag, call->comm,
                        (int64_t)rt_wait_now_ns() + RT_AUTO_PROBE_NS };

    if (count > INT_MAX)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "native: %lld elements: over MPI's int count", (long long)count);
    if (count == 0)
        return CM_OK;
    plan->mem.tag.foreign_tag = -1;
    plan->mem.tag.foreign_since = 0;
    w.rc = MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count, rt_mpi_dtype(call->dtype),
                          rt_mpi_op(call->op), call->comm, &w.req);
    if (w.rc != MPI_SUCCESS)
        return rt__algo_mpi_err(err, w.rc, "MPI_Iallreduce", -1, 0);
    rt__algo_wait(rt__algo_policy(call), (uint64_t)count * rt_dtype_size(call->dtype),
                  native_ready, &w);
    if (w.rc != MPI_SUCCESS)
        return rt__algo_mpi_err(err, w.rc, "MPI_Test (MPI_Iallreduce)", -1, 0);
    if (plan->mem.tag.foreign_tag >= 0)   /* the ranks disagree: the job is aborted */
        return CM_ERR(err, CM_ERR_MISMATCH, "rank %d sent a message with tag %d",
                      plan->mem.tag.foreign_src, plan->mem.tag.foreign_tag);
    return CM_OK;
}

/*
 * The slot for count and arrival: the per-operation one for a PAP-aware
 * plan given a vector (remade unless it was made from the same count and a
 * bit-identical vector), else the cache's.
 */
static cm_status_t plan_slot(rt_algo_plan_t *plan, int64_t count, const int64_t *arrival,
                             plan_slot_t **slot_p, cm_err_t *err)
{
    size_t vec = plan->spec->nhosts * sizeof *plan->pap_arrival;
    cm_status_t st;

    if (!plan->pap || !arrival)
        return cache_get(plan, count, slot_p, err);
    *slot_p = &plan->pap_slot;
    if (plan->pap_slot.count == count && memcmp(plan->pap_arrival, arrival, vec) == 0)
        return CM_OK;
    st = slot_make(plan, &plan->pap_slot, count, arrival, err);
    if (st == CM_OK)
        memcpy(plan->pap_arrival, arrival, vec);
    return st;
}

static cm_status_t count_check(int64_t count, cm_err_t *err)
{
    if (count < 0)
        return CM_ERR(err, CM_ERR_INVALID, "algorithm node: count %lld", (long long)count);
    return CM_OK;
}

cm_status_t rt_algo_plan_prepare(rt_algo_plan_t *plan, int64_t count, const int64_t *arrival,
                                 const rt_sched_t **sched_p, cm_err_t *err)
{
    plan_slot_t *slot;
    cm_status_t st;

    if (sched_p)
        *sched_p = NULL;
    if ((st = count_check(count, err)) != CM_OK || plan->spec->native || plan->au != NULL)
        return st;
    if ((st = plan_slot(plan, count, arrival, &slot, err)) == CM_OK && sched_p)
        *sched_p = &slot->sched;
    return st;
}

cm_status_t rt_algo_plan_run(rt_algo_plan_t *plan, const rt_algo_call_t *call, void *buf,
                             int64_t count, const rt_sched_t **sched_p, cm_err_t *err)
{
    plan_slot_t *slot;
    cm_status_t st;

    if (sched_p)
        *sched_p = NULL;
    if ((st = count_check(count, err)) != CM_OK)
        return st;
    if ((unsigned)call->dtype > RT_DTYPE_FLOAT || (unsigned)call->op > RT_OP_MAX)
        return CM_ERR(err, CM_ERR_INVALID, "algorithm node: unknown type %d or op %d",
                      (int)call->dtype, (int)call->op);
    if (call->comm != plan->comm_ok) {
        st = rt__algo_comm_check(call->comm, (int32_t)plan->spec->nhosts, plan->rank,
                                 "algorithm node", err);
        if (st != CM_OK)
            return st;
        plan->comm_ok = call->comm;
    }
    if (plan->au != NULL)
        return rt__auto_run(plan->au, call, buf, count, sched_p, err);
    if (plan->spec->native)
        return native_run(plan, call, buf, count, err);
    if ((st = plan_slot(plan, count, call->arrival, &slot, err)) != CM_OK)
        return st;
    st = rt__xprog_exec(&slot->prog, call, buf, &plan->mem, err);
    if (st == CM_OK && sched_p)
        *sched_p = &slot->sched;
    return st;
}

cm_status_t rt_algo_plan_choose(rt_algo_plan_t *plan, const rt_algo_call_t *call,
                                int64_t count, const rt_auto_choice_t **choice_p,
                                cm_err_t *err)
{
    cm_status_t st;

    *choice_p = NULL;
    if (plan->au == NULL)
        return CM_OK;
    if ((st = count_check(count, err)) != CM_OK)
        return st;
    return rt__auto_choose(plan->au, call, count, choice_p, err);
}

const rt_auto_t *rt_algo_plan_auto(const rt_algo_plan_t *plan)
{
    return plan->au != NULL ? rt__auto_chooser(plan->au) : NULL;
}
