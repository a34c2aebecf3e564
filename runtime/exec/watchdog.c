/*
 * watchdog.c - notices that a rank's tree has stopped moving, says where
 * each of its threads waits and for what, and aborts the job (the contract
 * is in rt_exec.h, the report in docs/runtime.md).
 *
 * A thread that never arrives (a program that skips an allreduce, a rank
 * stuck elsewhere) leaves every other thread of the tree waiting in a gred
 * or a proxy forever, and the job hangs until a batch system kills it,
 * saying nothing.  The watchdog turns that into a report and an abort.
 *
 * Detecting.  Each location counts the operations it starts and notes
 * where it is when it enters the tree, starts a wait and leaves the tree,
 * in its own record (watchdog_int.h).  The thread here wakes every tick
 * (timeout / 8, within 10 ms..500 ms, on a condition variable so that
 * rt_exec_destroy stops it at once), sums the operation counts of every
 * location and instance, and looks whether some location is inside the
 * tree.  The clock restarts whenever the sum changes or nobody is inside,
 * so time between allreduces never counts; when it reaches the timeout, it
 * fires.  Operations started are the right measure: a stuck operation
 * stops every location of the tree before its next one, and an operation
 * that ends lets its threads start the next one or leave the tree.  One
 * counter shared by the executor would be a cache line written by every
 * thread in every operation, the very traffic the gred avoids.
 *
 * Reporting.  Read racily, good enough for a job that stands still.  Who
 * has contributed to gred g in operation s of an instance: a thread that
 * enters at g iff it has started operation s (its ops > s); a child proxy
 * iff the link that serves it on this host has received request s (the
 * link's ops > s); a child gred iff every thread and link of this host
 * that feeds it has (a gred carries on as soon as its last contribution is
 * in), which costs the walk no store of its own.
 *
 * Every rank prints.  The rank whose clock runs out prints, sends a
 * one-int notice to every other rank on tag WD_TAG of the executor's
 * communicator (links use tags >= 1), waits RT_EXEC_WATCHDOG_GRACE_S and
 * calls MPI_Abort.  Every watchdog keeps a receive for the notice posted
 * and tests it at each tick, so that a rank with nobody inside the tree (a
 * gateway whose link never got the request) prints its state too.  Only
 * point-to-point calls that never wait: some ranks are stuck, and a
 * collective would hang with them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/exec/exec_int.h"

#define WD_TAG         0
#define WD_TICK_MIN_NS (10 * 1000 * 1000ull)
#define WD_TICK_MAX_NS (500 * 1000 * 1000ull)
#define WD_LINE        2048        /* bytes of one report line */
#define WD_DEPTH       3           /* nested greds described per missing one */

struct rt_watchdog {
    rt_exec_t      *ex;
    uint64_t        timeout_ns, tick_ns;
    pthread_t       thread;
    pthread_mutex_t mutex;         /* guards stop */
    pthread_cond_t  cond;          /* CLOCK_MONOTONIC */
    bool            stop;
    MPI_Request     notice;        /* another rank fired */
    int             notice_buf;
    bool            printed;       /* this rank's report is out */
    char            prefix[128];
};

/* ---- text ------------------------------------------------------------- */

typedef struct wd_text {
    char   *buf;
    size_t  cap, len;
} wd_text_t;

static void text_init(wd_text_t *t, char *buf, size_t cap)
{
    t->buf = buf;
    t->cap = cap;
    t->len = 0;
    buf[0] = '\0';
}

/* Appends; a line too long for the buffer is cut, never overrun. */
static void __attribute__((format(printf, 2, 3))) text_add(wd_text_t *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len = t->len + (size_t)n < t->cap ? t->len + (size_t)n : t->cap - 1;
}

/* ---- reading the records ---------------------------------------------- */

static uint64_t site_ops(const rt_site_t *site, unsigned instance)
{
    return atomic_load_explicit(&site->ops[instance], memory_order_relaxed);
}

static uint64_t site_where(const rt_site_t *site)
{
    return atomic_load_explicit(&site->where, memory_order_relaxed);
}

static const char *host_name(const rt_exec_t *ex, rt_host_id_t host)
{
    return ex->pm->hosts[host].name;
}

/* The site of the link that serves proxy `proxy` of `instance` here, or NULL. */
static const rt_site_t *link_site(const rt_exec_t *ex, rt_node_id_t proxy, unsigned instance)
{
    for (uint32_t i = 0; i < ex->nlinks; i++) {
        if (ex->links[i].proxy == proxy && ex->links[i].instance == instance)
            return ex->links[i].site;
    }
    return NULL;
}

/* Whether `top` is on this host's part of the path that starts at `from`. */
static bool feeds(const rt_tree_t *tree, rt_node_id_t from, rt_node_id_t top)
{
    for (rt_node_id_t n = from; n != RT_ID_NONE; n = tree->nodes[n].parent) {
        if (n == top)
            return true;
        if (tree->nodes[n].kind != RT_NODE_GRED)
            break;
    }
    return false;
}

/* Whether gred g has carried operation op of instance on to its parent. */
static bool gred_carried(const rt_exec_t *ex, rt_node_id_t g, unsigned instance, uint64_t op)
{
    for (uint32_t i = 0; i < ex->nlocations; i++) {
        const rt_location_t *loc = &ex->locations[i];

        if (loc->kind == RT_LOCATION_LINK && loc->instance != instance)
            continue;
        if (feeds(ex->tree, loc->enter, g) && site_ops(&ex->sites[i], instance) <= op)
            return false;
    }
    return true;
}

static void add_location_name(const rt_exec_t *ex, const rt_location_t *loc, wd_text_t *t)
{
    if (loc->kind == RT_LOCATION_COMPUTE)
        text_add(t, "thread %u", loc->thread->id);
    else if (loc->kind == RT_LOCATION_ALGO)
        text_add(t, "algorithm node %s", ex->tree->nodes[loc->enter].name);
    else
        text_add(t, "link %s#%u", ex->tree->nodes[loc->proxy].name, loc->instance);
}

static void add_where(rt_exec_t *ex, uint32_t index, bool full, wd_text_t *t);

/* A contributor of a gred that has not arrived: a thread entering it. */
static void add_missing_thread(rt_exec_t *ex, uint32_t index, unsigned instance, wd_text_t *t)
{
    const rt_site_t *site = &ex->sites[index];

    text_add(t, "thread %u (", ex->locations[index].thread->id);
    if (rt__where_what(site_where(site)) == RT_WHERE_OUTSIDE)
        text_add(t, "outside the tree, has not started op %llu of instance %u",
                 (unsigned long long)site_ops(site, instance), instance);
    else
        add_where(ex, index, false, t);
    text_add(t, ")");
}

/*
 * "k of n contributions arrived; missing: ..." for gred g in operation op
 * of instance: threads entering g, child greds (described WD_DEPTH deep),
 * child proxies.
 */
static void add_contributors(rt_exec_t *ex, rt_node_id_t g, unsigned instance, uint64_t op,
                             int depth, wd_text_t *t)
{
    const rt_tree_t *tree = ex->tree;
    char buf[WD_LINE];
    wd_text_t miss;
    uint32_t arrived = 0, fanin = rt_node_fanin(&tree->nodes[g]);

    text_init(&miss, buf, sizeof(buf));
    for (uint32_t i = 0; i < ex->nlocal; i++) {
        if (ex->locations[i].enter != g)
            continue;
        if (site_ops(&ex->sites[i], instance) > op) {
            arrived++;
            continue;
        }
        text_add(&miss, "%s", miss.len ? ", " : "");
        add_missing_thread(ex, i, instance, &miss);
    }
    for (rt_node_id_t n = 0; n < tree->nnodes; n++) {
        const rt_node_t *child = &tree->nodes[n];
        const rt_site_t *link;

        if (child->parent != g || n == g)
            continue;
        if (child->kind == RT_NODE_GRED) {
            if (gred_carried(ex, n, instance, op)) {
                arrived++;
                continue;
            }
            text_add(&miss, "%sgred %s (", miss.len ? ", " : "", child->name);
            if (depth < WD_DEPTH)
                add_contributors(ex, n, instance, op, depth + 1, &miss);
            else
                text_add(&miss, "...");
            text_add(&miss, ")");
        } else if (child->kind == RT_NODE_PROXY) {
            link = link_site(ex, n, instance);
            if (link != NULL && site_ops(link, instance) > op) {
                arrived++;
                continue;
            }
            text_add(&miss, "%sproxy %s (no request from host %s yet)", miss.len ? ", " : "",
                     child->name, host_name(ex, child->host));
        }
    }
    if (arrived >= fanin && tree->nodes[g].parent != RT_ID_NONE)
        text_add(t, "all %u contributions arrived, the result comes from %s %s", fanin,
                 rt_node_kind_name(tree->nodes[tree->nodes[g].parent].kind),
                 tree->nodes[tree->nodes[g].parent].name);
    else
        text_add(t, "%u of %u contributions arrived; missing: %s", arrived, fanin, buf);
}

/*
 * What location `index` does, from its record.  full: with a gred's
 * missing contributors (the line of the location itself).
 */
static void add_where(rt_exec_t *ex, uint32_t index, bool full, wd_text_t *t)
{
    const rt_site_t *site = &ex->sites[index];
    uint64_t w = site_where(site);
    unsigned inst = rt__where_instance(w) < ex->ninstances ? rt__where_instance(w) : 0;
    rt_node_id_t id = rt__where_node(w) < ex->tree->nnodes ? rt__where_node(w) : 0;
    const rt_node_t *node = &ex->tree->nodes[id];
    uint64_t ops = site_ops(site, inst), op = ops > 0 ? ops - 1 : 0;

    switch (rt__where_what(w)) {
    case RT_WHERE_OUTSIDE:
        text_add(t, "outside the tree; operations started:");
        for (unsigned i = 0; i < ex->ninstances && i < 8; i++)
            text_add(t, " %llu on instance %u%s", (unsigned long long)site_ops(site, i), i,
                     i + 1 < ex->ninstances ? "," : "");
        break;
    case RT_WHERE_LISTEN:
        text_add(t, "waits for request %llu of instance %u from host %s", (unsigned long long)ops,
                 inst, host_name(ex, node->host));
        break;
    case RT_WHERE_RUN:
        text_add(t, "runs its path from %s %s, instance %u, op %llu, without waiting",
                 rt_node_kind_name(node->kind), node->name, inst, (unsigned long long)op);
        break;
    case RT_WHERE_GRED:
        text_add(t, "waits in gred %s, instance %u, op %llu", node->name, inst,
                 (unsigned long long)op);
        if (full) {
            text_add(t, ": ");
            add_contributors(ex, id, inst, op, 1, t);
        }
        break;
    case RT_WHERE_PROXY:
        text_add(t, "waits in proxy %s, instance %u, op %llu for the reply from host %s",
                 node->name, inst, (unsigned long long)op,
                 host_name(ex, ex->tree->nodes[node->parent].host));
        break;
    case RT_WHERE_REPLY:
        text_add(t, "sends the reply of op %llu, instance %u, to host %s",
                 (unsigned long long)op, inst, host_name(ex, node->host));
        break;
    case RT_WHERE_ALGO:
        text_add(t, "runs algorithm node %s (%s), instance %u, op %llu, with hosts",
                 node->name, rt_algo_spec_name(node->algo), inst,
                 (unsigned long long)op);
        for (uint32_t h = 0; h < node->algo->nhosts; h++)
            text_add(t, "%s%s", h ? "," : " ", host_name(ex, node->algo->hosts[h]));
        break;
    }
}

static void wd_report(rt_watchdog_t *wd, const char *why)
{
    rt_exec_t *ex = wd->ex;
    char buf[WD_LINE];
    wd_text_t line;

    fprintf(stderr, "%s%s; where this rank's %u threads and links are:\n", wd->prefix, why,
            ex->nlocations);
    for (uint32_t i = 0; i < ex->nlocations; i++) {
        text_init(&line, buf, sizeof(buf));
        add_location_name(ex, &ex->locations[i], &line);
        text_add(&line, ": ");
        add_where(ex, i, true, &line);
        fprintf(stderr, "%s  %s\n", wd->prefix, buf);
    }
    fflush(stderr);
    wd->printed = true;
}

/* ---- firing ----------------------------------------------------------- */

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Prints, tells the other ranks, leaves them the grace to print, aborts. */
static void __attribute__((noreturn)) wd_fire(rt_watchdog_t *wd, uint64_t stalled_ns)
{
    rt_exec_t *ex = wd->ex;
    MPI_Request *reqs = calloc((size_t)ex->size + 1, sizeof(*reqs));
    int one = 1, nreq = 0, done = 0;
    uint64_t end;
    char why[160];

    snprintf(why, sizeof(why), "no progress for %.1f s with threads inside tree '%s'",
             (double)stalled_ns / 1e9, ex->tree->name);
    if (!wd->printed)
        wd_report(wd, why);
    else
        fprintf(stderr, "%s%s here too\n", wd->prefix, why);
    for (int r = 0; reqs != NULL && r < ex->size; r++) {
        if (r != ex->rank && MPI_Isend(&one, 1, MPI_INT, r, WD_TAG, ex->comm,
                                       &reqs[nreq]) == MPI_SUCCESS)
            nreq++;
    }
    fprintf(stderr, "%saborting the job in %d s (MPI_Abort code %d)\n", wd->prefix,
            RT_EXEC_WATCHDOG_GRACE_S, RT_EXEC_WATCHDOG_CODE);
    fflush(stderr);
    /* Test the notices while waiting: some transports only move a message
     * when the sender's library is called. */
    end = rt_wait_now_ns() + RT_EXEC_WATCHDOG_GRACE_S * 1000000000ull;
    while (rt_wait_now_ns() < end) {
        if (!done && nreq > 0)
            MPI_Testall(nreq, reqs, &done, MPI_STATUSES_IGNORE);
        sleep_ns(20 * 1000 * 1000);
    }
    MPI_Abort(MPI_COMM_WORLD, RT_EXEC_WATCHDOG_CODE);
    abort();                             /* MPI_Abort does not return */
}

static void wd_check_notice(rt_watchdog_t *wd)
{
    MPI_Status status;
    int done = 0;
    char why[96];

    if (wd->notice == MPI_REQUEST_NULL ||
        MPI_Test(&wd->notice, &done, &status) != MPI_SUCCESS || !done)
        return;
    if (!wd->printed) {
        snprintf(why, sizeof(why), "rank %d found no progress", status.MPI_SOURCE);
        wd_report(wd, why);
    }
}

/* One tick: restart the clock on progress or when nobody is inside. */
static void wd_tick(rt_watchdog_t *wd, uint64_t *last_ops, uint64_t *since)
{
    rt_exec_t *ex = wd->ex;
    uint64_t ops = 0, now = rt_wait_now_ns();
    bool inside = false;

    for (uint32_t i = 0; i < ex->nlocations; i++) {
        rt_where_t what = rt__where_what(site_where(&ex->sites[i]));

        for (unsigned k = 0; k < ex->ninstances; k++)
            ops += site_ops(&ex->sites[i], k);
        inside |= what != RT_WHERE_OUTSIDE && what != RT_WHERE_LISTEN;
    }
    if (!inside || ops != *last_ops) {
        *last_ops = ops;
        *since = now;
    } else if (now - *since >= wd->timeout_ns) {
        wd_fire(wd, now - *since);
    }
    wd_check_notice(wd);
}

static void *wd_main(void *arg)
{
    rt_watchdog_t *wd = arg;
    uint64_t last_ops = UINT64_MAX, since = rt_wait_now_ns();

    pthread_mutex_lock(&wd->mutex);
    while (!wd->stop) {
        uint64_t until = rt_wait_now_ns() + wd->tick_ns;
        struct timespec ts = { (time_t)(until / 1000000000u), (long)(until % 1000000000u) };

        pthread_cond_timedwait(&wd->cond, &wd->mutex, &ts);
        if (wd->stop)
            break;
        pthread_mutex_unlock(&wd->mutex);
        wd_tick(wd, &last_ops, &since);
        pthread_mutex_lock(&wd->mutex);
    }
    pthread_mutex_unlock(&wd->mutex);
    return NULL;
}

/* ---- start and stop --------------------------------------------------- */

static cm_status_t wd_init_sync(rt_watchdog_t *wd)
{
    pthread_condattr_t attr;
    cm_status_t st = CM_OK;

    if (pthread_condattr_init(&attr) != 0)
        return CM_ERR_THREAD;
    if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&wd->cond, &attr) != 0)
        st = CM_ERR_THREAD;
    pthread_condattr_destroy(&attr);
    if (st == CM_OK && pthread_mutex_init(&wd->mutex, NULL) != 0) {
        pthread_cond_destroy(&wd->cond);
        st = CM_ERR_THREAD;
    }
    return st;
}

/* Cancels the notice's receive and frees wd; its thread has stopped. */
static void wd_free(rt_watchdog_t *wd)
{
    if (wd->notice != MPI_REQUEST_NULL) {
        MPI_Cancel(&wd->notice);
        MPI_Wait(&wd->notice, MPI_STATUS_IGNORE);
    }
    pthread_cond_destroy(&wd->cond);
    pthread_mutex_destroy(&wd->mutex);
    free(wd);
}

cm_status_t rt__watchdog_start(rt_exec_t *ex, double seconds, rt_watchdog_t **wd_p)
{
    rt_watchdog_t *wd = calloc(1, sizeof(*wd));
    cm_status_t st;

    if (wd == NULL)
        return CM_ERR_NOMEM;
    wd->ex = ex;
    wd->timeout_ns = (uint64_t)(seconds * 1e9);
    wd->tick_ns = wd->timeout_ns / 8;
    if (wd->tick_ns < WD_TICK_MIN_NS)
        wd->tick_ns = WD_TICK_MIN_NS;
    if (wd->tick_ns > WD_TICK_MAX_NS)
        wd->tick_ns = WD_TICK_MAX_NS;
    snprintf(wd->prefix, sizeof(wd->prefix), "paptree: rank %d (host %s): watchdog: ",
             ex->rank, host_name(ex, (rt_host_id_t)ex->rank));
    if ((st = wd_init_sync(wd)) != CM_OK) {
        free(wd);
        return st;
    }
    wd->notice = MPI_REQUEST_NULL;
    if (MPI_Irecv(&wd->notice_buf, 1, MPI_INT, MPI_ANY_SOURCE, WD_TAG, ex->comm,
                  &wd->notice) != MPI_SUCCESS) {
        wd->notice = MPI_REQUEST_NULL;
        st = CM_ERR_MPI;
    }
    else if (pthread_create(&wd->thread, NULL, wd_main, wd) != 0)
        st = CM_ERR_THREAD;
    if (st != CM_OK) {
        wd_free(wd);
        return st;
    }
    *wd_p = wd;
    return CM_OK;
}

void rt__watchdog_stop(rt_watchdog_t *wd)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->mutex);
    wd->stop = true;
    pthread_cond_signal(&wd->cond);
    pthread_mutex_unlock(&wd->mutex);
    pthread_join(wd->thread, NULL);
    wd_free(wd);
}
