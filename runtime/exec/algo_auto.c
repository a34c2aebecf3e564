/*
 * algo_auto.c - an auto plan (rt_algo_run.h, "auto plans"; docs/auto.md):
 * one plan per candidate, a chooser (rt_auto.h), and the exchange that
 * lets every rank learn alike and check that they chose alike.
 *
 * Per operation k: rt__auto_choose completes the exchange operation k-1
 * posted, checks it (the same choice and the same learned state on every
 * rank, else CM_ERR_MISMATCH naming both), learns from it (the measured
 * times of every rank; the arrivals that actually happened are taken as
 * max elapsed - elapsed_i, since every rank leaves an allreduce at about
 * the same time: no shared clock is needed), then chooses from the
 * caller's arrival vector.  rt__auto_run runs the chosen candidate's plan
 * with its tag, so that ranks that chose differently cannot match each
 * other's messages and a rank that waits long finds the other's message
 * by probing (algo_run.c), then posts the exchange of {elapsed, choice,
 * state hash}.  The exchange is in flight while the program computes.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/exec/algo_int.h"

#define AUTO_REC 3                  /* int64 per rank: elapsed ns, choice, state hash */

struct rt__auto {
    const rt_algo_spec_t *spec;
    rt_algo_spec_t        cand_spec[RT_AUTO_CAND_MAX];
    rt_algo_plan_t       *cand_plan[RT_AUTO_CAND_MAX];
    rt_auto_t            *chooser;
    int32_t               nranks, rank;
    uint64_t              op;        /* operations run */
    int                   chosen;    /* op's choice was made (rt__auto_choose) */
    int64_t               t_choose;  /* when, for an operation without arrived_ns */
    rt_auto_choice_t      choice;
    int64_t               rec[AUTO_REC];
    int64_t              *gathered;  /* [nranks * AUTO_REC] */
    int64_t              *arr, *el;  /* [nranks] */
    MPI_Request           req;
    MPI_Comm              req_comm;
};

cm_status_t rt__auto_create(const rt_algo_spec_t *spec, int32_t rank, rt__auto_t **au_p,
                            cm_err_t *err)
{
    const rt_auto_cfg_t *cfg = spec->autocfg;
    rt__auto_t *au = calloc(1, sizeof(*au));
    cm_status_t st = CM_OK;

    if (au == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "auto: no memory for a plan");
    au->spec = spec;
    au->nranks = (int32_t)spec->nhosts;
    au->rank = rank;
    au->req = MPI_REQUEST_NULL;
    au->gathered = calloc((size_t)au->nranks * AUTO_REC, sizeof(int64_t));
    au->arr = calloc((size_t)au->nranks, sizeof(int64_t));
    au->el = calloc((size_t)au->nranks, sizeof(int64_t));
    if (au->gathered == NULL || au->arr == NULL || au->el == NULL)
        st = CM_ERR(err, CM_ERR_NOMEM, "auto: no memory for a plan");
    if (st == CM_OK)
        st = rt_auto_create(cfg, au->nranks, &au->chooser, err);
    for (uint32_t i = 0; st == CM_OK && i < cfg->ncand; i++) {
        rt_algo_spec_t *s = &au->cand_spec[i];

        *s = *spec;
        s->autocfg = NULL;
        s->bcast = NULL;
        s->native = strcmp(cfg->cand[i], RT_AUTO_NATIVE) == 0;
        s->run = s->native ? NULL : rt_algo_find(cfg->cand[i]);
        s->pap = s->run != NULL && strstr(s->run->params, "arrival") != NULL;
        s->round_ns = cfg->round_ns > 0 ? cfg->round_ns : spec->round_ns;
        s->segcount = s->run != NULL && strstr(s->run->params, "segcount") != NULL
                      ? cfg->segcount : 0;
        s->nsegs = 0;
        if (!s->native && (s->run == NULL || s->run->coll != RT_COLL_ALLREDUCE))
            st = CM_ERR(err, CM_ERR_INVALID, "auto: candidate '%s' is not an allreduce",
                        cfg->cand[i]);
        else
            st = rt_algo_plan_create(s, rank, &au->cand_plan[i], err);
    }
    if (st != CM_OK) {
        rt__auto_destroy(au);
        return st;
    }
    *au_p = au;
    return CM_OK;
}

void rt__auto_destroy(rt__auto_t *au)
{
    if (au == NULL)
        return;
    if (au->req != MPI_REQUEST_NULL)      /* collective: every rank has one in flight */
        MPI_Wait(&au->req, MPI_STATUS_IGNORE);
    for (int i = 0; i < RT_AUTO_CAND_MAX; i++)
        rt_algo_plan_destroy(au->cand_plan[i]);
    rt_auto_destroy(au->chooser);
    free(au->gathered);
    free(au->arr);
    free(au->el);
    free(au);
}

const rt_auto_t *rt__auto_chooser(const rt__auto_t *au)
{
    return au->chooser;
}

/*
 * A candidate's identity in the tags: its row of the algorithm table, or
 * the table's size for native (the same on every rank whatever its
 * candidate list, so that a rank whose list differs is still told apart).
 */
static int algo_id(const char *name)
{
    size_t n;
    const rt_algo_info_t *t = rt_algo_table(&n);

    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return (int)i;
    return (int)n;
}

static const char *algo_of_tag(int tag)
{
    size_t n;
    const rt_algo_info_t *t = rt_algo_table(&n);
    int id = (tag - 1) / 2;

    return id >= 0 && (size_t)id < n ? t[id].name : RT_AUTO_NATIVE;
}

typedef struct auto_wait {
    MPI_Request *req;
    int          rc;
} auto_wait_t;

static bool exchange_done(void *arg)
{
    auto_wait_t *w = arg;
    int done = 0;

    w->rc = MPI_Test(w->req, &done, MPI_STATUS_IGNORE);
    return done || w->rc != MPI_SUCCESS;
}

/* The previous operation's exchange: completed, checked, learned from. */
static cm_status_t auto_exchange(rt__auto_t *au, const rt_algo_call_t *call, cm_err_t *err)
{
    const rt_auto_t *a = au->chooser;
    auto_wait_t w = { &au->req, MPI_SUCCESS };
    int64_t top = 0;
    uint64_t prev = au->op - 1;

    if (au->req == MPI_REQUEST_NULL)
        return CM_OK;
    rt__algo_wait(rt__algo_policy(call), 0, exchange_done, &w);
    if (w.rc != MPI_SUCCESS)
        return rt__algo_mpi_err(err, w.rc, "MPI_Iallgather (auto's exchange)", -1, 0);
    for (int32_t r = 1; r < au->nranks; r++) {
        const int64_t *g0 = au->gathered, *g = au->gathered + (size_t)r * AUTO_REC;

        if (g[1] != g0[1])
            return CM_ERR(err, CM_ERR_MISMATCH, "auto: operation %llu ran %s on rank 0 but "
                          "%s on rank %d: the ranks must choose alike (the same "
                          "configuration, counts and arrival vectors on every rank)",
                          (unsigned long long)prev, rt_auto_cand_name(a, (int32_t)g0[1]),
                          rt_auto_cand_name(a, (int32_t)g[1]), (int)r);
        if (g[2] != g0[2])
            return CM_ERR(err, CM_ERR_MISMATCH, "auto: after operation %llu rank %d's learned "
                          "state differs from rank 0's (both chose %s): their next choices "
                          "could differ", (unsigned long long)prev, (int)r,
                          rt_auto_cand_name(a, (int32_t)g0[1]));
    }
    for (int32_t r = 0; r < au->nranks; r++) {
        au->el[r] = au->gathered[(size_t)r * AUTO_REC];
        top = au->el[r] > top ? au->el[r] : top;
    }
    for (int32_t r = 0; r < au->nranks; r++)
        au->arr[r] = top - au->el[r];
    rt_auto_learn(au->chooser, au->arr, au->el);
    return CM_OK;
}

cm_status_t rt__auto_choose(rt__auto_t *au, const rt_algo_call_t *call, int64_t count,
                            const rt_auto_choice_t **choice_p, cm_err_t *err)
{
    rt_auto_op_t op = { count, (int32_t)rt_dtype_size(call->dtype), call->site, call->arrival };
    cm_status_t st;
    int learned;

    if (au->chosen) {
        *choice_p = &au->choice;
        return CM_OK;
    }
    au->t_choose = (int64_t)rt_wait_now_ns();
    learned = au->req != MPI_REQUEST_NULL;
    if ((st = auto_exchange(au, call, err)) != CM_OK)
        return st;
    /* history without a vector from the caller: the arrivals of the previous
       operation, from the exchange (max elapsed - elapsed: no shared clock) */
    if (op.arrival == NULL && au->spec->arrival == RT_ARRIVAL_HISTORY && learned)
        op.arrival = au->arr;
    if ((st = rt_auto_choose(au->chooser, &op, &au->choice, err)) != CM_OK)
        return st;
    au->chosen = 1;
    *choice_p = &au->choice;
    return CM_OK;
}

cm_status_t rt__auto_run(rt__auto_t *au, const rt_algo_call_t *call, void *buf, int64_t count,
                         const rt_sched_t **sched_p, cm_err_t *err)
{
    const rt_auto_choice_t *c;
    int32_t i;
    int64_t start;
    cm_status_t st;
    int src;

    if ((st = rt__auto_choose(au, call, count, &c, err)) != CM_OK)
        return st;
    i = c->chosen;
    start = call->arrived_ns > 0 ? call->arrived_ns : au->t_choose;
    {
        size_t ntable;

        rt_algo_table(&ntable);
        rt__algo_plan_set_tag(au->cand_plan[i],
                              1 + 2 * algo_id(rt_auto_cand_name(au->chooser, i)) +
                                  (int)(au->op & 1), (int)ntable + 1);
    }
    st = rt_algo_plan_run(au->cand_plan[i], call, buf, count, sched_p, err);
    if (st == CM_ERR_MISMATCH && rt__algo_plan_foreign(au->cand_plan[i], &src) >= 0) {
        int tag = rt__algo_plan_foreign(au->cand_plan[i], &src);
        return CM_ERR(err, CM_ERR_MISMATCH, "auto: operation %llu: this rank (%d) chose %s "
                      "but rank %d chose %s (its message's tag %d): the ranks must choose "
                      "alike", (unsigned long long)au->op, (int)au->rank,
                      rt_auto_cand_name(au->chooser, i), src,
                      algo_of_tag(tag), tag);
    }
    if (st != CM_OK)
        return st;
    au->rec[0] = (int64_t)rt_wait_now_ns() - start;
    au->rec[1] = i;
    au->rec[2] = (int64_t)rt_auto_state_hash(au->chooser);
    au->chosen = 0;
    au->op++;
    st = MPI_Iallgather(au->rec, AUTO_REC, MPI_INT64_T, au->gathered, AUTO_REC, MPI_INT64_T,
                        call->comm, &au->req);
    if (st != MPI_SUCCESS)
        return rt__algo_mpi_err(err, st, "MPI_Iallgather (auto's exchange)", -1, 0);
    return CM_OK;
}
