/*
 * t_model_algo.c - papviz's model of an algorithm node (an_model_algo_ops,
 * an_model_schedule in analyze/api/an_model.h), read from the database of
 * synth_trace's "algo" scenario.  The expectations come from that scenario's
 * table in tests/oracles/synth_trace.c (times relative to each operation's
 * first arrival at the node: 200 in op 0, 10200 in op 1), worked out by hand
 * as in tests/analyze/algo.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "analyze/api/an_analyze.h"
#include "analyze/api/an_model.h"

/* Writes the scenario into a new directory and analyses it; returns the model. */
static an_model_t *algo_model(char *dir, size_t n)
{
    char cmd[512], trace[600], db[600];
    cm_err_t err;
    an_result_t res;
    an_model_t *m = NULL;

    snprintf(dir, n, "/tmp/paptree-model-algo-XXXXXX");
    if (mkdtemp(dir) == NULL)
        TST_FAIL("mkdtemp failed");
    snprintf(cmd, sizeof cmd, "build/tests/synth_trace algo %s/t", dir);
    if (system(cmd) != 0)
        TST_FAIL("%s failed (run from the repository root, after make)", cmd);
    snprintf(trace, sizeof trace, "%s/t/traces.otf2", dir);
    snprintf(db, sizeof db, "%s/t.db", dir);
    an_opts_t o = { .trace = trace, .db = db, .skip = 0, .command = "t_model_algo" };
    TST_EQ_STATUS(an_analyze(&o, &res, &err), CM_OK);
    TST_EQ_STATUS(an_model_open(db, &m, &err), CM_OK);
    return m;
}

static void cleanup(an_model_t *m, const char *dir)
{
    char cmd[512];

    an_model_close(m);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        TST_FAIL("cannot remove %s", dir);
}

void t_model_algo_tree(void)
{
    char dir[128];
    an_model_t *m = algo_model(dir, sizeof dir);
    const an_model_wrapper_t *w = &m->tree.wrappers[0];
    const an_model_algo_ops_t *ops;
    cm_err_t err;

    TST_EQ_INT(w->kind, AN_KIND_ALGO);
    TST_EQ_INT(w->parent, -1);
    TST_NOT_NULL(w->algo);
    TST_EQ_STR(w->algo->algo, "binomial-reduce");
    TST_EQ_STR(w->algo->bcast, "binomial-bcast");
    TST_EQ_STR(w->algo->arrival, "equal");
    TST_EQ_INT(w->algo->root, 0);
    TST_EQ_INT(w->algo->nranks, 3);
    for (int r = 0; r < 3; r++)
        TST_EQ_INT(w->algo->hosts[r], r);
    TST_NULL(m->tree.wrappers[1].algo);
    /* thread 4 enters the node directly: one stage, host C's latency (2500 + 1500) / 2 */
    int t4 = an_model_thread_index(&m->tree, 4);
    TST_EQ_INT(m->tree.threads[t4].nstages, 1);
    const an_model_size_t *sz = an_model_size(m, 4);
    TST_NOT_NULL(sz);
    TST_EQ_INT(sz->paths[t4].nstages, 1);
    TST_EQ_INT(sz->paths[t4].stages[0].kind, AN_STAGE_LATENCY);
    TST_EQ_DBL(sz->paths[t4].stages[0].s.mean, 2000.0, 1e-9);

    TST_EQ_STATUS(an_model_algo_ops(m, -1, 0, &ops, &err), CM_OK);
    TST_EQ_INT(ops->nops, 2);
    TST_EQ_INT(ops->ops[0].op, 0);
    TST_EQ_INT(ops->ops[0].used, 1);
    TST_EQ_DBL(ops->ops[0].span, 2800.0, 1e-9);      /* B leaves at 3000 - 200 */
    TST_EQ_DBL(ops->ops[0].spread, 600.0, 1e-9);     /* B arrives at 800 - 200 */
    TST_EQ_DBL(ops->ops[1].span, 2420.0, 1e-9);
    TST_EQ_DBL(ops->ops[1].spread, 700.0, 1e-9);
    TST_EQ_STATUS(an_model_algo_ops(m, -1, 1, &ops, &err), CM_ERR_INVALID);  /* gA */
    cleanup(m, dir);
}

void t_model_algo_schedule(void)
{
    char dir[128];
    an_model_t *m = algo_model(dir, sizeof dir);
    const an_model_schedule_t *s, *again;
    cm_err_t err;

    TST_EQ_STATUS(an_model_schedule(m, -1, 0, 0, 0, &s, &err), CM_OK);
    TST_EQ_INT(s->ops, 1);
    TST_EQ_INT(s->t0, 200);
    TST_EQ_INT(s->bytes, 4);
    TST_EQ_DBL(s->span, 2800.0, 1e-9);
    TST_EQ_INT(s->nranks, 3);
    TST_EQ_INT(s->nrounds, 3);
    TST_EQ_DBL(s->ranks[0].t1, 300.0, 1e-9);         /* A: [500, 2900] */
    TST_EQ_DBL(s->ranks[0].t4, 2700.0, 1e-9);
    TST_EQ_DBL(s->ranks[2].t1, 0.0, 1e-9);           /* C: [200, 2700] */
    TST_EQ_INT(s->ranks[1].host, 1);
    /* A in round 0: receive posted 600, done 1100, its sender posted at 900 */
    const an_model_round_t *r = &s->ranks[0].rounds[0];
    TST_EQ_INT(r->n, 1);
    TST_EQ_DBL(r->start, 400.0, 1e-9);
    TST_EQ_DBL(r->end, 900.0, 1e-9);
    TST_EQ_DBL(r->late, 300.0, 1e-9);
    TST_EQ_INT(s->ranks[1].rounds[1].n, 0);          /* B has no message in round 1 */
    TST_EQ_INT(s->ranks[0].rounds[2].n, 1);          /* A sends to B and C: 1500 .. 1720 */
    TST_EQ_DBL(s->ranks[0].rounds[2].start, 1300.0, 1e-9);
    TST_EQ_DBL(s->ranks[0].rounds[2].end, 1520.0, 1e-9);
    /* messages by send post: C->A (300), B->A (900), A->B (1500), A->C (1510) */
    TST_EQ_INT(s->nmsgs, 4);
    TST_EQ_INT(s->msgs[0].src, 2);
    TST_EQ_INT(s->msgs[0].dst, 0);
    TST_EQ_INT(s->msgs[0].round, 1);
    TST_EQ_DBL(s->msgs[0].send_post, 100.0, 1e-9);
    TST_EQ_DBL(s->msgs[0].recv_done, 1200.0, 1e-9);
    TST_EQ_DBL(s->msgs[0].late, 0.0, 1e-9);
    TST_EQ_INT(s->msgs[1].src, 1);
    TST_EQ_DBL(s->msgs[1].late, 300.0, 1e-9);
    TST_EQ_INT(s->msgs[2].dst, 1);
    TST_EQ_INT(s->msgs[2].send_step, 2);
    TST_EQ_INT(s->msgs[2].recv_step, 1);
    TST_EQ_DBL(s->msgs[2].late, 400.0, 1e-9);
    TST_EQ_INT(s->msgs[3].bytes, 4);
    TST_EQ_STATUS(an_model_schedule(m, -1, 0, 0, 0, &again, &err), CM_OK);
    TST_EQ_PTR(again, s);                            /* cached */

    /* the mean over both operations */
    TST_EQ_STATUS(an_model_schedule(m, 4, 0, -1, -1, &s, &err), CM_OK);
    TST_EQ_INT(s->ops, 2);
    TST_EQ_INT(s->op, -1);
    TST_EQ_INT(s->nmsgs, 0);
    TST_EQ_DBL(s->span, (2800.0 + 2420.0) / 2, 1e-9);
    TST_EQ_DBL(s->ranks[1].t1, (600.0 + 250.0) / 2, 1e-9);
    TST_EQ_DBL(s->ranks[1].t4, (2800.0 + 2420.0) / 2, 1e-9);
    r = &s->ranks[1].rounds[2];                      /* B's receive from A */
    TST_EQ_INT(r->n, 2);
    TST_EQ_DBL(r->start, (900.0 + 450.0) / 2, 1e-9);
    TST_EQ_DBL(r->end, (1600.0 + 1350.0) / 2, 1e-9);
    TST_EQ_DBL(r->late, (400.0 + 650.0) / 2, 1e-9);

    TST_EQ_STATUS(an_model_schedule(m, -1, 0, 0, 7, &s, &err), CM_ERR_INVALID);
    TST_EQ_STATUS(an_model_schedule(m, -1, 2, 0, 0, &s, &err), CM_ERR_INVALID);
    cleanup(m, dir);
}
