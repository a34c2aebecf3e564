/*
 * auto.c - `papsim auto[:LIST]`: auto (runtime/api/rt_auto.h) under
 * papsim's arrival pattern and cost model, over --ops operations (a new
 * seed per operation for random:).  Per operation the chooser predicts
 * every candidate with the same simulator papsim uses and picks one; this
 * prints, per candidate, the mean over the operations of its predicted
 * average elapsed time (what running it every time would cost, where it
 * was predicted) and how often auto chose it, then auto's own mean: the
 * chosen candidates' predictions.  The measured times auto learns from are
 * the predictions themselves (the model is exact here), so what this shows
 * is the choice rule: hysteresis, exploration and the PAP threshold.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/api/rt_auto.h"
#include "tools/papsim/papsim_int.h"

int run_auto(const opts_t *o, const char *text)
{
    rt_auto_cfg_t cfg;
    rt_auto_t *a = NULL;
    rt_auto_choice_t c;
    cm_err_t err;
    int64_t count = (int64_t)((double)o->bytes / o->elem_bytes), seg;
    int64_t *ticks = calloc((size_t)o->nranks, sizeof(int64_t));
    int64_t *el = calloc((size_t)o->nranks, sizeof(int64_t));
    double sum[RT_AUTO_CAND_MAX] = { 0 }, mine = 0;
    long n[RT_AUTO_CAND_MAX] = { 0 }, chosen[RT_AUTO_CAND_MAX] = { 0 };
    int rc = 1;

    cm_err_clear(&err);
    rt_auto_cfg_default(&cfg);
    cfg.net = (rt_net_t){ o->alpha, o->beta, o->gamma };
    seg = (count + o->nranks - 1) / o->nranks;       /* PRR's tau, as papsim's rows */
    cfg.round_ns = (int64_t)llround((o->alpha + (o->beta + o->gamma) * (double)seg *
                                     o->elem_bytes) * 1e9);
    if (cfg.round_ns < 1)
        cfg.round_ns = 1;
    if (ticks == NULL || el == NULL) {
        fprintf(stderr, "papsim: out of memory\n");
        goto out;
    }
    if ((text[4] == ':' && rt_auto_cfg_candidates(&cfg, text + 5, &err) != CM_OK) ||
        rt_auto_create(&cfg, o->nranks, &a, &err) != CM_OK) {
        cm_err_print(stderr, "papsim: auto: ", &err);
        goto out;
    }
    for (long k = 0; k < o->ops; k++) {
        rt_sim_arrival_t arr = { o->arr, o->arr_ms, o->arr_rank, o->seed + (uint64_t)k };
        rt_auto_op_t op = { count, (int32_t)o->elem_bytes, 1, ticks };

        if (rt_sim_arrival_make(&arr, o->nranks, ticks, &err) != CM_OK ||
            rt_auto_choose(a, &op, &c, &err) != CM_OK) {
            cm_err_print(stderr, "papsim: auto: ", &err);
            goto out;
        }
        for (uint32_t i = 0; i < c.ncand; i++)
            if (c.pred_ns[i] >= 0) {
                sum[i] += (double)c.pred_ns[i];
                n[i]++;
            }
        chosen[c.chosen]++;
        mine += (double)c.pred_ns[c.chosen];
        for (int32_t r = 0; r < o->nranks; r++)
            el[r] = c.pred_ns[c.chosen];
        rt_auto_learn(a, ticks, el);
    }
    printf("# papsim auto: P = %d, %" PRId64 " bytes, arrival %s, %ld operations, alpha %g s, "
           "beta %g s/B, gamma %g s/B, round %lld ns\n", (int)o->nranks, o->bytes, o->arr_text,
           o->ops, o->alpha, o->beta, o->gamma, (long long)cfg.round_ns);
    printf("# candidate: its mean predicted avg elapsed (us) over the operations where it "
           "was predicted (PAP-aware ones only when the spread pays for them), and how "
           "often auto chose it\n");
    for (uint32_t i = 0; i < cfg.ncand; i++) {
        char mean[32] = "-";

        if (n[i] > 0)
            snprintf(mean, sizeof(mean), "%.3f", sum[i] / (double)n[i] / 1e3);
        printf("  %-14s %12s %6ld predicted %6ld chosen\n", rt_auto_cand_name(a, (int32_t)i),
               mean, n[i], chosen[i]);
    }
    printf("  %-14s %12.3f\n", "auto", mine / (double)o->ops / 1e3);
    rc = 0;
out:
    rt_auto_destroy(a);
    free(ticks);
    free(el);
    return rc;
}
