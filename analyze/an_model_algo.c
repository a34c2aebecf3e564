/*
 * an_model_algo.c - analyze's model of an algorithm node (api/an_model.h):
 * what it runs and its hosts (algo_nodes, algo_ranks), its operations
 * (algo_ops) and their schedules as the hosts lived them (algo_visits,
 * algo_rounds, algo_msgs, and the mean over the used operations from the
 * algo_host_means and algo_round_means views).  docs/analysis-db.md,
 * "Algorithm nodes".
 */
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_model_int.h"

/* What each algorithm node runs and its hosts (algo_nodes, algo_ranks).  A
 * database written before algorithm nodes existed has neither table and
 * no such node. */
cm_status_t an__model_load_algo_nodes(an_model_t *m, cm_err_t *err)
{
    an_model_tree_t *t = &m->tree;
    sqlite3_stmt *st = an__model_prepare(m, "SELECT node, algo, bcast, root, arrival, nranks"
                                         " FROM algo_nodes ORDER BY node", NULL, 0);
    int rc = SQLITE_ERROR;

    if (st == NULL)
        return CM_OK;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int node = sqlite3_column_int(st, 0), n = sqlite3_column_int(st, 5);
        an_model_algo_t *a;
        if (node < 0 || node >= t->nwrappers || t->wrappers[node].kind != AN_KIND_ALGO
            || n < 1 || n > t->nhosts)
            return sqlite3_finalize(st),
                   an__model_sql_fail(m, err, "algorithm nodes are inconsistent");
        if ((a = an_model_algo_alloc(m, n)) == NULL)
            return sqlite3_finalize(st), an__model_nomem(err);
        a->algo = an__model_col_str(m, st, 1);
        a->bcast = an__model_col_str(m, st, 2);
        a->root = an__model_col_int(st, 3, -1);
        a->arrival = an__model_col_str(m, st, 4);
        for (int r = 0; r < n; r++)
            a->hosts[r] = -1;
        t->wrappers[node].algo = a;
    }
    if (an__model_finish(m, st, rc, err, "reading algorithm nodes") != CM_OK)
        return err->status;
    st = an__model_prepare(m, "SELECT node, rank, host FROM algo_ranks", NULL, 0);
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int node = sqlite3_column_int(st, 0), r = sqlite3_column_int(st, 1);
        int h = sqlite3_column_int(st, 2);
        an_model_algo_t *a = node >= 0 && node < t->nwrappers ? t->wrappers[node].algo : NULL;
        if (a == NULL || r < 0 || r >= a->nranks || h < 0 || h >= t->nhosts)
            return sqlite3_finalize(st),
                   an__model_sql_fail(m, err, "algorithm ranks are inconsistent");
        a->hosts[r] = h;
    }
    rc = st != NULL ? rc : SQLITE_ERROR;
    if (an__model_finish(m, st, rc, err, "reading algorithm ranks") != CM_OK)
        return err->status;
    for (int i = 0; i < t->nwrappers; i++)
        for (int r = 0; t->wrappers[i].algo != NULL && r < t->wrappers[i].algo->nranks; r++)
            if (t->wrappers[i].algo->hosts[r] < 0)
                return an__model_sql_fail(m, err, "an algorithm node's rank without host");
    return CM_OK;
}

an_model_algo_t *an_model_algo_alloc(an_model_t *m, int nranks)
{
    an_model_algo_t *a = an__model_alloc(m, 1, sizeof *a);
    size_t n = (size_t)(nranks > 0 ? nranks : 0);
    if (a == NULL || (a->hosts = an__model_alloc(m, n, sizeof *a->hosts)) == NULL)
        return NULL;
    a->algo = a->bcast = a->arrival = "";
    a->root = -1;
    a->nranks = nranks > 0 ? nranks : 0;
    return a;
}

/* ------------------------------------------------- operations, schedules */

/* node must be an algorithm node; *bytes < 0 becomes its smallest size. */
static cm_status_t check_algo(an_model_t *m, int64_t *bytes, int node, cm_err_t *err)
{
    if (node < 0 || node >= m->tree.nwrappers)
        return CM_ERR_AT(err, CM_ERR_NAME, m->db, 0, 0, "no wrapper number %d", node);
    const an_model_wrapper_t *w = &m->tree.wrappers[node];
    if (w->kind != AN_KIND_ALGO || w->algo == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "'%s' is a %s, not an algorithm "
                         "node", w->name, w->kind_name);
    if (*bytes < 0) {
        int64_t arg = node;
        sqlite3_stmt *st = an__model_prepare(m, "SELECT MIN(bytes) FROM algo_ops"
                                             " WHERE node = ?", &arg, 1);
        if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            *bytes = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (*bytes < 0)
            return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "'%s': no operations",
                             w->name);
    }
    return CM_OK;
}

cm_status_t an_model_algo_ops(an_model_t *m, int64_t bytes, int node,
                              const an_model_algo_ops_t **o_p, cm_err_t *err)
{
    if (check_algo(m, &bytes, node, err) != CM_OK)
        return err->status;
    const an_model_algo_ops_t *hit = an__model_cached(m, C_ALGO_OPS, bytes, node, 0, 0);
    if (hit != NULL)
        return *o_p = hit, CM_OK;
    int64_t args[2] = { node, bytes };
    sqlite3_stmt *st = an__model_prepare(m, "SELECT COUNT(*) FROM algo_ops WHERE node = ?"
                                         " AND bytes = ?", args, 2);
    int64_t n = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (n == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "'%s': no operations of %lld bytes",
                         m->tree.wrappers[node].name, (long long)bytes);
    an_model_algo_ops_t *o = an__model_alloc(m, 1, sizeof *o);
    if (o == NULL || (o->ops = an__model_alloc(m, (size_t)n, sizeof *o->ops)) == NULL)
        return an__model_nomem(err);
    o->node = node;
    st = an__model_prepare(m, "SELECT instance, op, used, span, arrival_spread FROM algo_ops"
                           " WHERE node = ? AND bytes = ? ORDER BY instance, op", args, 2);
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && o->nops < n) {
        an_model_algo_op_t *x = &o->ops[o->nops++];
        x->instance = sqlite3_column_int(st, 0);
        x->op = sqlite3_column_int64(st, 1);
        x->used = sqlite3_column_int(st, 2);
        x->span = sqlite3_column_double(st, 3);
        x->spread = sqlite3_column_double(st, 4);
    }
    rc = st == NULL ? SQLITE_ERROR : rc == SQLITE_ROW ? SQLITE_DONE : rc;
    if (an__model_finish(m, st, rc, err, "reading algorithm operations") != CM_OK)
        return err->status;
    an__model_remember(m, C_ALGO_OPS, bytes, node, 0, 0, o);
    return *o_p = o, CM_OK;
}

/* The schedule's ranks and rounds, allocated; nrounds from the rounds' rows. */
static cm_status_t sched_alloc(an_model_t *m, an_model_schedule_t *s, const an_model_algo_t *a,
                               int nrounds, cm_err_t *err)
{
    s->nranks = a->nranks;
    s->nrounds = nrounds;
    if ((s->ranks = an__model_alloc(m, (size_t)a->nranks, sizeof *s->ranks)) == NULL)
        return an__model_nomem(err);
    for (int r = 0; r < a->nranks; r++) {
        s->ranks[r].rank = r;
        s->ranks[r].host = a->hosts[r];
        s->ranks[r].rounds = an__model_alloc(m, (size_t)nrounds, sizeof(an_model_round_t));
        if (s->ranks[r].rounds == NULL)
            return an__model_nomem(err);
        for (int k = 0; k < nrounds; k++)
            s->ranks[r].rounds[k].round = k;
    }
    return CM_OK;
}

/* Reads rows (rank, round, n, start, end, late) into s's rounds. */
static cm_status_t sched_rounds(an_model_t *m, an_model_schedule_t *s, sqlite3_stmt *st,
                                cm_err_t *err)
{
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = sqlite3_column_int(st, 0), k = sqlite3_column_int(st, 1);
        if (r < 0 || r >= s->nranks || k < 0 || k >= s->nrounds)
            return sqlite3_finalize(st),
                   an__model_sql_fail(m, err, "algorithm rounds are inconsistent");
        an_model_round_t *x = &s->ranks[r].rounds[k];
        x->n = sqlite3_column_int64(st, 2);
        x->start = sqlite3_column_double(st, 3);
        x->end = sqlite3_column_double(st, 4);
        x->late = sqlite3_column_double(st, 5);
    }
    return an__model_finish(m, st, st ? rc : SQLITE_ERROR, err, "reading algorithm rounds");
}

/* Reads rows (rank, t1, t4) into s's ranks. */
static cm_status_t sched_ranks(an_model_t *m, an_model_schedule_t *s, sqlite3_stmt *st,
                               cm_err_t *err)
{
    int rc = SQLITE_ERROR;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = sqlite3_column_int(st, 0);
        if (r < 0 || r >= s->nranks)
            return sqlite3_finalize(st),
                   an__model_sql_fail(m, err, "algorithm visits are inconsistent");
        s->ranks[r].t1 = sqlite3_column_double(st, 1);
        s->ranks[r].t4 = sqlite3_column_double(st, 2);
    }
    return an__model_finish(m, st, st ? rc : SQLITE_ERROR, err, "reading algorithm visits");
}

static int64_t one_int(an_model_t *m, const char *sql, const int64_t *args, int nargs,
                       int64_t def)
{
    sqlite3_stmt *st = an__model_prepare(m, sql, args, nargs);
    int64_t v = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
                ? sqlite3_column_int64(st, 0) : def;
    sqlite3_finalize(st);
    return v;
}

/* The queries of one operation (?1 node, ?2 instance, ?3 op, ?4 its t0). */
static const char *const one_sql[] = {
    "SELECT MAX(round) + 1 FROM algo_rounds WHERE node = ?1 AND instance = ?2 AND op = ?3",
    "SELECT rank, a, f FROM algo_visits WHERE node = ?1 AND instance = ?2 AND op = ?3",
    "SELECT rank, round, 1, first_post - ?4, last_done - ?4, wait FROM algo_rounds"
    " WHERE node = ?1 AND instance = ?2 AND op = ?3",
    "SELECT COUNT(*) FROM algo_msgs WHERE node = ?1 AND instance = ?2 AND op = ?3",
    "SELECT round, src, dst, send_step, recv_step, bytes, send_post - ?4, send_done - ?4,"
    " recv_post - ?4, recv_done - ?4, late FROM algo_msgs"
    " WHERE node = ?1 AND instance = ?2 AND op = ?3 ORDER BY send_post, src, send_step",
};

/* The messages of one operation (one_sql[4]). */
static cm_status_t sched_msgs(an_model_t *m, an_model_schedule_t *s, const int64_t *args,
                              cm_err_t *err)
{
    int64_t nm = one_int(m, one_sql[3], args, 3, 0);
    sqlite3_stmt *st;
    int rc = SQLITE_ERROR;

    if ((s->msgs = an__model_alloc(m, (size_t)nm, sizeof *s->msgs)) == NULL)
        return an__model_nomem(err);
    st = an__model_prepare(m, one_sql[4], args, 4);
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW && s->nmsgs < nm) {
        an_model_msg_t *x = &s->msgs[s->nmsgs++];
        x->round = sqlite3_column_int(st, 0);
        x->src = sqlite3_column_int(st, 1);
        x->dst = sqlite3_column_int(st, 2);
        x->send_step = sqlite3_column_int(st, 3);
        x->recv_step = sqlite3_column_int(st, 4);
        x->bytes = sqlite3_column_int64(st, 5);
        x->send_post = sqlite3_column_double(st, 6);
        x->send_done = sqlite3_column_double(st, 7);
        x->recv_post = sqlite3_column_double(st, 8);
        x->recv_done = sqlite3_column_double(st, 9);
        x->late = sqlite3_column_double(st, 10);
        if (x->src < 0 || x->src >= s->nranks || x->dst < 0 || x->dst >= s->nranks)
            return sqlite3_finalize(st),
                   an__model_sql_fail(m, err, "algorithm messages are inconsistent");
    }
    rc = st == NULL ? SQLITE_ERROR : rc == SQLITE_ROW ? SQLITE_DONE : rc;
    return an__model_finish(m, st, rc, err, "reading algorithm messages");
}

/* One operation: its rows relative to its t0. */
static cm_status_t sched_one(an_model_t *m, an_model_schedule_t *s, const an_model_algo_t *a,
                             cm_err_t *err)
{
    int64_t args[4] = { s->node, s->instance, s->op, 0 };
    sqlite3_stmt *st = an__model_prepare(m, "SELECT bytes, t0, span FROM algo_ops"
                                         " WHERE node = ? AND instance = ? AND op = ?",
                                         args, 3);
    int found = st && sqlite3_step(st) == SQLITE_ROW;

    if (found) {
        s->bytes = sqlite3_column_int64(st, 0);
        s->t0 = sqlite3_column_int64(st, 1);
        s->span = sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    if (!found)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "'%s': no operation %lld of "
                         "instance %d", m->tree.wrappers[s->node].name, (long long)s->op,
                         s->instance);
    s->ops = 1;
    args[3] = s->t0;
    if (sched_alloc(m, s, a, (int)one_int(m, one_sql[0], args, 3, 0), err) != CM_OK
        || sched_ranks(m, s, an__model_prepare(m, one_sql[1], args, 3), err) != CM_OK
        || sched_rounds(m, s, an__model_prepare(m, one_sql[2], args, 4), err) != CM_OK)
        return err->status;
    return sched_msgs(m, s, args, err);
}

/* The queries of the mean (?1 node, ?2 bytes). */
static const char *const mean_sql[] = {
    "SELECT COUNT(*), AVG(span) FROM algo_ops WHERE node = ?1 AND bytes = ?2 AND used",
    "SELECT MAX(round) + 1 FROM algo_round_means WHERE node = ?1 AND bytes = ?2",
    "SELECT rank, a, f FROM algo_host_means WHERE node = ?1 AND bytes = ?2",
    /* Each round relative to its host's own arrival t1 in each operation;
       sched_mean adds the host's mean arrival.  (The mean of first_post - t0
       over the operations with the host in the round, beside the mean
       arrival over all of them, drew rounds that began before it arrived.) */
    ("SELECT r.rank, r.round, COUNT(*), AVG(r.first_post - v.t1), AVG(r.last_done - v.t1),"
     " AVG(r.wait) FROM algo_rounds r JOIN algo_ops o ON o.instance = r.instance"
     " AND o.op = r.op AND o.node = r.node JOIN algo_visits v ON v.instance = r.instance"
     " AND v.op = r.op AND v.node = r.node AND v.rank = r.rank"
     " WHERE o.used AND r.node = ?1 AND o.bytes = ?2 GROUP BY r.rank, r.round"),
};

/* The mean over the used operations of one tuple size. */
static cm_status_t sched_mean(an_model_t *m, an_model_schedule_t *s, const an_model_algo_t *a,
                              cm_err_t *err)
{
    int64_t args[2] = { s->node, s->bytes };
    sqlite3_stmt *st = an__model_prepare(m, mean_sql[0], args, 2);

    if (st && sqlite3_step(st) == SQLITE_ROW) {
        s->ops = sqlite3_column_int64(st, 0);
        s->span = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    if (s->ops == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "'%s': no used operations of %lld "
                         "bytes", m->tree.wrappers[s->node].name, (long long)s->bytes);
    if (sched_alloc(m, s, a, (int)one_int(m, mean_sql[1], args, 2, 0), err) != CM_OK
        || sched_ranks(m, s, an__model_prepare(m, mean_sql[2], args, 2), err) != CM_OK
        || sched_rounds(m, s, an__model_prepare(m, mean_sql[3], args, 2), err) != CM_OK)
        return err->status;
    for (int r = 0; r < s->nranks; r++)
        for (int k = 0; k < s->nrounds; k++)
            if (s->ranks[r].rounds[k].n > 0) {
                s->ranks[r].rounds[k].start += s->ranks[r].t1;
                s->ranks[r].rounds[k].end += s->ranks[r].t1;
            }
    return CM_OK;
}

cm_status_t an_model_schedule(an_model_t *m, int64_t bytes, int node, int instance,
                              int64_t op, const an_model_schedule_t **s_p, cm_err_t *err)
{
    if (op >= 0)
        bytes = 0;                       /* the operation's own; not part of the key */
    else
        instance = -1, op = -1;
    if (op < 0 && check_algo(m, &bytes, node, err) != CM_OK)
        return err->status;
    if (op >= 0 && check_algo(m, &(int64_t){ 0 }, node, err) != CM_OK)
        return err->status;
    const an_model_schedule_t *hit = an__model_cached(m, C_SCHEDULE, bytes, node, instance, op);
    if (hit != NULL)
        return *s_p = hit, CM_OK;
    an_model_schedule_t *s = an__model_alloc(m, 1, sizeof *s);
    if (s == NULL)
        return an__model_nomem(err);
    s->node = node;
    s->instance = instance;
    s->op = op;
    s->bytes = bytes;
    if ((op >= 0 ? sched_one(m, s, m->tree.wrappers[node].algo, err)
                 : sched_mean(m, s, m->tree.wrappers[node].algo, err)) != CM_OK)
        return err->status;
    an__model_remember(m, C_SCHEDULE, op >= 0 ? 0 : bytes, node, instance, op, s);
    return *s_p = s, CM_OK;
}
