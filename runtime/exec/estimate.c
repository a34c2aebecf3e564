/*
 * estimate.c - arrival estimation with edge() (rt_exec.h; Proficz 2018,
 * section 3 and Figure 4; docs/runtime.md, "Arrival estimation with
 * edge()").
 *
 * Only for an algorithm node with arrival=edge that spans this host
 * (ex->est != NULL); otherwise rt_exec_edge and rt_exec_phase_begin check
 * their arguments and return, and rt_exec_allreduce pays one pointer test.
 *
 * Phases.  Thread t's phase k is its computation before its k-th
 * allreduce (k counts its calls from 0): it begins when its previous
 * rt_exec_allreduce returns (phase 0: when the estimator starts, at the end
 * of rt_exec_create) or at rt_exec_phase_begin.  Every thread makes the
 * same calls and a host's operations reach the node one at a time in that
 * order, so phase k is the host's k-th operation at the node, whatever its
 * instance.  Threads whose walk on this host ends at the node "count"
 * (those ending at a proxy feed another host: their edge() is ignored).
 *
 * Reports.  edge(f) reports begin + (now - begin) / f; a counting thread
 * entering rt_exec_allreduce without having reported reports its actual
 * arrival.  When every counting thread has reported phase k, the host's
 * estimate is the latest report, flagged EDGE if any report came from
 * edge().  No thread can report phase k + 1 before every one reported k
 * (it must first return from operation k, which needs all of them), so one
 * accumulator serves.  A host without counting threads never has one:
 * the node completes the phase itself, unflagged, at its arrival.
 *
 * Exchange.  A background thread per process sleeps on a condition
 * variable until the host's estimate for the next phase is complete, then
 * shares {estimate, flag, this host's arrival at the node in the previous
 * operation} in rank 0's clock (algo_node.c's offset) with the node's
 * hosts by MPI_Iallgather on a communicator of its own, one exchange per
 * phase in phase order, and polls it with naps (100 us doubling to 2 ms,
 * then 1/32 of the time waited up to 32 ms, as rt_wait_until).
 * Whoever sees it complete (the background thread, or the node thread,
 * which also posts the phase's exchange itself when it gets there first)
 * publishes the phase's vector: the estimates relative to the earliest if
 * every host's flag is EDGE, else the previous operation's arrivals
 * (history; all equal on the first), a function of the gathered data only,
 * so every host decides alike.  A dead band keeps estimation noise from
 * passing for lateness: each host also shares its recent estimation error
 * (a moving mean of |estimate - arrival|), and an estimate no further from
 * the earliest than the largest of those errors counts as on time (0);
 * otherwise PRR, with arrivals that differ only by noise of the order of
 * its round, plans pre-reductions for hosts that are not late
 * (docs/benchmarks.md, issue 17).  Every host contributes to phase k at the
 * latest when it reaches the node in operation k, so the exchange always
 * completes.
 *
 * Ahead.  Once phase k is published, the background thread makes
 * operation k's schedule on a plan of its own (rt_algo_plan_prepare) from
 * the vector and operation k-1's count, then with params->edge_warmup
 * sends and receives one zero-byte message with every peer of that
 * schedule (tag 1 of its communicator).  Every host warms up for the same
 * phases with the same peers (all inputs are gathered data, and set-up
 * checks that the hosts agree on edge_warmup), so the messages pair up.
 * A background thread waits only for the exchange and the warm-up of the
 * phase it handles, which every host completes, never for a node.  The node thread uses the made schedule when the count
 * matches; `owner` hands the plan over, and the node waits while the
 * background thread is making it.
 *
 * Two slots hold a phase's exchange and vector (phase k in slot k & 1).
 * The node posts phase k itself only once the background thread has
 * finished phase k - 2, the slot's previous user, so that a slow
 * background thread never sees its phase's data overwritten.
 *
 * Teardown (rt__est_stop, after rt_exec_destroy's barrier): every host
 * completes one last phase (the one after its last operation) if its
 * threads did not, so that all post as many exchanges; the thread handles
 * it and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/exec/exec_int.h"

#define EST_NAP_MIN_NS   (100 * 1000L)
#define EST_NAP_MAX_NS   (2 * 1000 * 1000L)
#define EST_TAG_WARMUP   1
#define EST_AHEAD_MAX_NS 1e15               /* an estimate's cap: ~11 days ahead */
#define EST_SPAN_ROUNDS  ((int64_t)1 << 30) /* a vector's span cap, in rounds */
#define EST_FIELDS       4                  /* shared per host: see est_slot_t.mine */
#define EST_ERR_WEIGHT   8                  /* the error's moving mean: 1/8 per op */

enum { EST_FREE, EST_BG, EST_NODE };        /* who holds e->plan */

typedef struct est_thread {
    int64_t  begin;      /* the phase's start, this host's clock */
    uint64_t phase;      /* allreduces started: the current phase */
    uint64_t edged;      /* 1 + the phase edge() reported in; 0: none */
    bool     counts;     /* its walk on this host ends at the node */
} __attribute__((aligned(64))) est_thread_t;

/* One phase's exchange and its outcome. */
typedef struct est_slot {
    int64_t      mine[EST_FIELDS]; /* estimate, flag, previous arrival (rank 0's
                                      clock), recent estimation error (ns) */
    int64_t     *gathered;     /* EST_FIELDS per host */
    int64_t     *vec;          /* the published vector */
    bool         vec_null;     /* all equal */
    rt_arrival_t used;
    int32_t      missing;
    int64_t      est;          /* this host's estimate, its own clock */
    bool         edge;
    int64_t      shared_ns;    /* when it was posted */
    int64_t      count;        /* the previous operation's elements; 0: none */
} est_slot_t;

struct rt_est {
    rt_exec_t            *ex;
    const rt_algo_spec_t *spec;
    int32_t               rank, nranks;
    int64_t               offset_ns;
    MPI_Comm              comm;
    rt_algo_plan_t       *plan;        /* the schedules made ahead */
    bool                  warmup;
    est_thread_t         *thr;         /* [ex->nlocal] */
    uint32_t              ncount;      /* counting threads */
    int32_t              *peers;       /* warm-up: [nranks] */
    MPI_Request          *wreq;        /* warm-up: [2 * nranks] */
    pthread_t             thread;
    bool                  started;
    pthread_mutex_t       lock;
    pthread_cond_t        cv;
    /* Under lock. */
    uint32_t              acc_n;       /* reports of phase `ready` so far */
    int64_t               acc_max;
    bool                  acc_edge;
    int64_t               pend_est;    /* phase ready - 1's estimate */
    bool                  pend_edge;
    uint64_t              ready;       /* phases with the host's estimate complete */
    uint64_t              posted;      /* exchanges posted */
    uint64_t              done;        /* exchanges complete, vector published */
    uint64_t              handled;     /* phases the background thread is done with */
    MPI_Request           req;         /* exchange posted - 1 */
    est_slot_t            slot[2];
    uint64_t              ops;         /* the node's operations started */
    int64_t               last_arrival;  /* op ops - 1: t1, rank 0's clock */
    int64_t               last_count;    /* op ops - 1: elements */
    int64_t               err_mean;      /* moving mean of |estimate - arrival| */
    int                   owner;
    uint64_t              prepared;    /* 1 + the phase e->plan was made for; 0: none */
    int64_t               prep_count;
    bool                  stop;
};

static atomic_int est_warned;   /* the misuse warning: once per process */

static int64_t est_now(void)
{
    return (int64_t)rt_wait_now_ns();
}

/* A poll's naps: 100 us doubling to 2 ms, then 1/32 of the time waited so
   far, up to 32 ms, as rt_wait_until's (a host waiting a second for a late
   one wakes ~30 times a second, not 500). */
typedef struct est_napper {
    int64_t start;
    long    nap;
} est_napper_t;

static est_napper_t est_napper(void)
{
    return (est_napper_t){ est_now(), EST_NAP_MIN_NS };
}

static void est_nap(est_napper_t *n)
{
    struct timespec ts = { 0, n->nap };
    int64_t share = (est_now() - n->start) / RT_WAIT_NAP_SHARE;

    nanosleep(&ts, NULL);
    n->nap = n->nap * 2 > EST_NAP_MAX_NS ? EST_NAP_MAX_NS : n->nap * 2;
    if (share > n->nap)
        n->nap = share > RT_WAIT_NAP_LONG_NS ? RT_WAIT_NAP_LONG_NS : (long)share;
}

cm_status_t rt__est_create(rt_exec_t *ex, const rt_algo_spec_t *spec, int32_t rank,
                           int64_t offset_ns, MPI_Comm comm, bool warmup, rt_est_t **est_p,
                           cm_err_t *err)
{
    rt_est_t *e = calloc(1, sizeof(*e));
    size_t n = (size_t)spec->nhosts;
    bool ok;

    *est_p = e;
    if (e == NULL) {
        MPI_Comm_free(&comm);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory for the arrival estimator");
    }
    e->ex = ex;
    e->spec = spec;
    e->rank = rank;
    e->nranks = (int32_t)n;
    e->offset_ns = offset_ns;
    e->comm = comm;
    e->warmup = warmup;
    e->req = MPI_REQUEST_NULL;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cv, NULL);
    e->thr = aligned_alloc(64, (ex->nlocal + 1) * sizeof(*e->thr));
    e->peers = calloc(n, sizeof(*e->peers));
    e->wreq = calloc(2 * n, sizeof(*e->wreq));
    ok = e->thr && e->peers && e->wreq;
    for (int s = 0; s < 2; s++) {
        e->slot[s].gathered = calloc(EST_FIELDS * n, sizeof(int64_t));
        e->slot[s].vec = calloc(n, sizeof(int64_t));
        ok = ok && e->slot[s].gathered && e->slot[s].vec;
    }
    if (!ok)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory for the arrival estimator");
    memset(e->thr, 0, (ex->nlocal + 1) * sizeof(*e->thr));
    for (uint32_t i = 0; i < ex->nlocal; i++) {
        const rt_path_t *p = &ex->local_paths[i];

        e->thr[i].counts = ex->tree->nodes[p->nodes[p->len - 1]].kind == RT_NODE_ALGO;
        e->ncount += e->thr[i].counts;
    }
    return rt_algo_plan_create(spec, rank, &e->plan, err);
}

/* ---- Reports ------------------------------------------------------------- */

/* Under lock: the host's estimate of phase `ready` is complete. */
static void est_complete(rt_est_t *e)
{
    e->pend_est = e->acc_max;
    e->pend_edge = e->acc_edge;
    e->acc_n = 0;
    e->acc_edge = false;
    e->ready++;
    pthread_cond_signal(&e->cv);
}

static void est_report(rt_est_t *e, uint64_t phase, int64_t t, bool edge)
{
    pthread_mutex_lock(&e->lock);
    if (phase != e->ready)
        rt__exec_fatal(e->ex, "arrival estimator: a thread reported phase %llu while the "
                       "host collects phase %llu (do all threads make the same calls?)",
                       (unsigned long long)phase, (unsigned long long)e->ready);
    if (e->acc_n == 0 || t > e->acc_max)
        e->acc_max = t;
    e->acc_edge |= edge;
    if (++e->acc_n == e->ncount)
        est_complete(e);
    pthread_mutex_unlock(&e->lock);
}

void rt__est_arrive(rt_est_t *e, uint32_t local)
{
    est_thread_t *t = &e->thr[local];

    if (t->counts && t->edged != t->phase + 1)
        est_report(e, t->phase, est_now(), false);
    t->phase++;
}

void rt__est_returned(rt_est_t *e, uint32_t local)
{
    e->thr[local].begin = est_now();
}

static void est_check_local(const rt_exec_t *ex, uint32_t local, const char *what)
{
    if (local >= ex->nlocal)
        rt__exec_fatal(ex, "%s(local %u): out of range (%u local threads)", what, local,
                       ex->nlocal);
}

void rt_exec_phase_begin(rt_exec_t *ex, uint32_t local)
{
    est_check_local(ex, local, "rt_exec_phase_begin");
    if (ex->est != NULL)
        ex->est->thr[local].begin = est_now();
}

void rt_exec_edge(rt_exec_t *ex, uint32_t local, double fraction)
{
    rt_est_t *e = ex->est;
    est_thread_t *t;
    double ahead;
    int64_t now;

    est_check_local(ex, local, "rt_exec_edge");
    if (!(fraction > 0 && fraction <= 1)) {
        if (!atomic_exchange(&est_warned, 1))
            fprintf(stderr, "paptree: rank %d: edge(%g) ignored: the fraction must be in "
                    "(0, 1]\n", ex->rank, fraction);
        return;
    }
    if (e == NULL)
        return;
    t = &e->thr[local];
    if (!t->counts || t->edged == t->phase + 1)
        return;                          /* feeds another host, or a second call */
    t->edged = t->phase + 1;
    now = est_now();
    ahead = (double)(now - t->begin) / fraction;
    if (ahead > EST_AHEAD_MAX_NS)
        ahead = EST_AHEAD_MAX_NS;
    est_report(e, t->phase, t->begin + (int64_t)ahead, true);
}

/* ---- The exchange -------------------------------------------------------- */

/* Under lock: shares phase `posted` (complete) in its slot. */
static void est_post(rt_est_t *e)
{
    est_slot_t *s = &e->slot[e->posted & 1];

    s->est = e->pend_est;
    s->edge = e->pend_edge;
    s->count = e->posted == 0 ? 0 : e->last_count;
    s->mine[0] = e->pend_est + e->offset_ns;
    s->mine[1] = e->pend_edge;
    s->mine[2] = e->posted == 0 ? 0 : e->last_arrival;
    s->mine[3] = e->err_mean;
    s->shared_ns = est_now();
    rt__exec_mpi_check(e->ex, MPI_Iallgather(s->mine, EST_FIELDS, MPI_INT64_T, s->gathered, EST_FIELDS,
                                             MPI_INT64_T, e->comm, &e->req),
                       "MPI_Iallgather (arrival estimates)");
    e->posted++;
}

/*
 * The arrival vector from n hosts' gathered records (EST_FIELDS each): the
 * `field`'s times relative to the earliest, capped at `cap`; with `band`,
 * a time no later than the earliest + the largest shared error is 0.
 */
void rt__est_vector(const int64_t *g, int32_t n, int field, int64_t cap, bool band,
                    int64_t *vec)
{
    int64_t low = INT64_MAX, noise = 0;

    for (int32_t i = 0; i < n; i++) {
        if (g[EST_FIELDS * i + field] < low)
            low = g[EST_FIELDS * i + field];
        if (band && g[EST_FIELDS * i + 3] > noise)
            noise = g[EST_FIELDS * i + 3];
    }
    for (int32_t i = 0; i < n; i++) {
        int64_t d = g[EST_FIELDS * i + field] - low;

        vec[i] = d <= noise ? 0 : d > cap ? cap : d;
    }
}

/* Under lock: the vector of phase k from its gathered data (see the top). */
static void est_publish(rt_est_t *e, uint64_t k)
{
    est_slot_t *s = &e->slot[k & 1];
    const int64_t *g = s->gathered;
    int64_t cap = INT64_MAX;

    s->missing = -1;
    for (int32_t i = 0; i < e->nranks && s->missing < 0; i++)
        if (g[EST_FIELDS * i + 1] == 0)
            s->missing = i;
    s->used = s->missing < 0 ? RT_ARRIVAL_EDGE : k == 0 ? RT_ARRIVAL_EQUAL
                                                        : RT_ARRIVAL_HISTORY;
    s->vec_null = s->used == RT_ARRIVAL_EQUAL;
    if (s->vec_null)
        return;
    /* A wild estimate must not make a generator give up (Clairvoyant
       counts rounds in an int32): a host that late is the last anyway. */
    if (e->spec->round_ns < INT64_MAX / EST_SPAN_ROUNDS)
        cap = EST_SPAN_ROUNDS * e->spec->round_ns;
    rt__est_vector(g, e->nranks, s->used == RT_ARRIVAL_EDGE ? 0 : 2, cap,
                   s->used == RT_ARRIVAL_EDGE, s->vec);
}

/* Under lock: tests the exchange in flight; true once phase k is published. */
static bool est_poll(rt_est_t *e, uint64_t k)
{
    int flag = 0;

    if (e->done > k)
        return true;
    if (e->posted <= k)
        return false;
    rt__exec_mpi_check(e->ex, MPI_Test(&e->req, &flag, MPI_STATUS_IGNORE),
                       "MPI_Test (arrival estimates)");
    if (!flag)
        return false;
    est_publish(e, e->done);
    e->done++;
    return e->done > k;
}

/* ---- The background thread ----------------------------------------------- */

/* The distinct peers of this rank's steps in s. */
static size_t est_peers(rt_est_t *e, const rt_sched_t *s)
{
    size_t n, np = 0;
    const rt_step_t *st = rt_sched_rank_steps(s, e->rank, &n);

    for (size_t i = 0; i < n; i++) {
        size_t j = 0;

        while (j < np && e->peers[j] != st[i].peer)
            j++;
        if (j == np && st[i].peer != e->rank)
            e->peers[np++] = st[i].peer;
    }
    return np;
}

static void est_warmup(rt_est_t *e, size_t np)
{
    est_napper_t nap = est_napper();
    int flag = 0;

    for (size_t i = 0; i < np; i++) {
        rt__exec_mpi_check(e->ex, MPI_Irecv(NULL, 0, MPI_BYTE, e->peers[i], EST_TAG_WARMUP,
                                            e->comm, &e->wreq[2 * i]), "MPI_Irecv (warm-up)");
        rt__exec_mpi_check(e->ex, MPI_Isend(NULL, 0, MPI_BYTE, e->peers[i], EST_TAG_WARMUP,
                                            e->comm, &e->wreq[2 * i + 1]),
                           "MPI_Isend (warm-up)");
    }
    for (;;) {
        rt__exec_mpi_check(e->ex, MPI_Testall((int)(2 * np), e->wreq, &flag,
                                              MPI_STATUSES_IGNORE), "MPI_Testall (warm-up)");
        if (flag)
            return;
        est_nap(&nap);
    }
}

/*
 * Phase k is published: operation k's schedule from its vector and
 * operation k-1's count, then the warm-up.  Called and returns with the
 * lock held; drops it while it works.
 */
static void est_ahead(rt_est_t *e, uint64_t k)
{
    const est_slot_t *s = &e->slot[k & 1];
    const rt_sched_t *sched = NULL;
    size_t np = 0;
    cm_status_t st;
    cm_err_t err;

    if (k == 0 || s->count <= 0)
        return;
    while (e->owner == EST_NODE) {       /* cannot happen (see the top): a guard */
        est_napper_t nap = est_napper();

        pthread_mutex_unlock(&e->lock);
        est_nap(&nap);
        pthread_mutex_lock(&e->lock);
    }
    e->owner = EST_BG;
    pthread_mutex_unlock(&e->lock);
    st = rt_algo_plan_prepare(e->plan, s->count, s->vec_null ? NULL : s->vec, &sched, &err);
    if (st == CM_ERR_NOMEM || st == CM_ERR_MPI)
        rt__exec_fatal(e->ex, "arrival estimator: %s", err.msg);
    if (st == CM_OK && sched != NULL && e->warmup)
        np = est_peers(e, sched);
    pthread_mutex_lock(&e->lock);
    e->owner = EST_FREE;
    if (st == CM_OK) {
        e->prepared = k + 1;
        e->prep_count = s->count;
    }
    if (np == 0)
        return;
    pthread_mutex_unlock(&e->lock);
    est_warmup(e, np);
    pthread_mutex_lock(&e->lock);
}

static void *est_main(void *arg)
{
    rt_est_t *e = arg;

    pthread_mutex_lock(&e->lock);
    for (;;) {
        uint64_t k = e->handled;
        est_napper_t nap = est_napper();

        while (e->ready == k && !e->stop)
            pthread_cond_wait(&e->cv, &e->lock);
        if (e->ready == k)
            break;                       /* stopped, nothing left */
        if (e->posted == k)
            est_post(e);
        while (!est_poll(e, k)) {
            pthread_mutex_unlock(&e->lock);
            est_nap(&nap);
            pthread_mutex_lock(&e->lock);
        }
        est_ahead(e, k);
        e->handled = k + 1;
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

cm_status_t rt__est_start(rt_est_t *e)
{
    int64_t now = est_now();

    for (uint32_t i = 0; i < e->ex->nlocal; i++)
        e->thr[i].begin = now;
    if (pthread_create(&e->thread, NULL, est_main, e) != 0)
        return CM_ERR_THREAD;
    e->started = true;
    return CM_OK;
}

/* Collective over the node's hosts (see the top). */
void rt__est_stop(rt_est_t *e)
{
    if (e == NULL || !e->started)
        return;
    pthread_mutex_lock(&e->lock);
    if (e->ready == e->ops) {
        if (e->acc_n == 0)
            e->acc_max = est_now();
        e->acc_edge = false;
        est_complete(e);
    }
    e->stop = true;
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->thread, NULL);
    e->started = false;
}

void rt__est_destroy(rt_est_t *e)
{
    if (e == NULL)
        return;
    if (e->started) {                    /* a failed set-up: nothing was posted */
        pthread_mutex_lock(&e->lock);
        e->stop = true;
        pthread_cond_signal(&e->cv);
        pthread_mutex_unlock(&e->lock);
        pthread_join(e->thread, NULL);
    }
    if (e->comm != MPI_COMM_NULL)
        MPI_Comm_free(&e->comm);
    rt_algo_plan_destroy(e->plan);
    for (int s = 0; s < 2; s++) {
        free(e->slot[s].gathered);
        free(e->slot[s].vec);
    }
    free(e->thr);
    free(e->peers);
    free(e->wreq);
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* ---- The node's side ----------------------------------------------------- */

typedef struct est_wait {
    rt_est_t *e;
    uint64_t  k;
} est_wait_t;

/* Phase k's vector is published and the plan not being made. */
static bool est_node_ready(void *arg)
{
    est_wait_t *w = arg;
    rt_est_t *e = w->e;
    bool ok;

    if (pthread_mutex_trylock(&e->lock) != 0)
        return false;
    /* Slot k & 1 is free once the background thread is done with k - 2. */
    if (e->posted == w->k && e->handled + 1 >= w->k) {
        est_post(e);
        pthread_cond_signal(&e->cv);
    }
    ok = est_poll(e, w->k) && e->owner != EST_BG;
    pthread_mutex_unlock(&e->lock);
    return ok;
}

const int64_t *rt__est_node_begin(rt_est_t *e, int64_t arrived, int64_t count,
                                  rt_arrival_report_t *rep, rt_algo_plan_t **plan_p)
{
    est_wait_t w = { e, 0 };
    const est_slot_t *s;
    const int64_t *vec;

    pthread_mutex_lock(&e->lock);
    w.k = e->ops;
    if (e->ready == w.k) {               /* no thread reported before arriving */
        if (e->acc_n == 0)
            e->acc_max = arrived;
        est_complete(e);
    }
    pthread_mutex_unlock(&e->lock);
    rt_wait_until_nap(&e->ex->policy, est_node_ready, &w, RT_WAIT_NAP_ROUND_NS);
    pthread_mutex_lock(&e->lock);
    s = &e->slot[w.k & 1];
    rep->asked = RT_ARRIVAL_EDGE;
    rep->used = s->used;
    rep->missing = s->missing;
    rep->error_ns = s->edge ? s->est - arrived : INT64_MIN;
    if (s->edge) {
        int64_t abs_err = rep->error_ns < 0 ? -rep->error_ns : rep->error_ns;

        e->err_mean += (abs_err - e->err_mean) / EST_ERR_WEIGHT;
    }
    rep->lead_ns = s->edge ? arrived - s->shared_ns : INT64_MIN;
    rep->wait_ns = est_now() - arrived;
    e->ops = w.k + 1;
    e->last_arrival = arrived + e->offset_ns;
    e->last_count = count;
    *plan_p = NULL;
    if (e->prepared == w.k + 1 && e->prep_count == count && e->owner == EST_FREE) {
        e->owner = EST_NODE;
        *plan_p = e->plan;
    }
    vec = s->vec_null ? NULL : s->vec;
    pthread_mutex_unlock(&e->lock);
    return vec;
}

void rt__est_node_end(rt_est_t *e)
{
    pthread_mutex_lock(&e->lock);
    if (e->owner == EST_NODE)
        e->owner = EST_FREE;
    pthread_mutex_unlock(&e->lock);
}
