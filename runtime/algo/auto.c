/*
 * auto.c - the chooser of `auto` (rt_auto.h; docs/auto.md, "How auto
 * chooses").
 *
 * Prediction.  Each candidate's time under an arrival vector is what the
 * cost-model simulator (sched_sim.c) gives for its all-ranks schedule: the
 * mean over ranks of finish - arrival (avg_elapsed), with netfit's alpha,
 * beta and gamma.  `native` (Open MPI's MPI_Allreduce) has no schedule: it
 * is modelled as the best of rd, ring and rabenseifner, which is what
 * Open MPI's tuned component picks among, and learning corrects it.
 *
 * What is cheap when nobody is late.  A PAP-aware candidate (one whose
 * generator reads arrival times: prr, slt) can gain over its static twin
 * (prr with equal arrivals is the ring) at most about the spread of the
 * arrivals, the time the early ranks can use while they wait; making its
 * schedule costs every rank gen_ns_per_step per step.  So it is predicted
 * only when the spread exceeds that cost (plus exchange_ns): otherwise it
 * is skipped without making anything.  While every PAP-aware candidate is
 * skipped, the static candidates are predicted from their schedules at
 * equal arrivals, simulated once per count and kept: choosing then costs a
 * few comparisons.  Above the threshold every candidate is simulated under
 * the vector.
 *
 * Learning.  Per class (site, floor(log2(bytes))) and candidate, a Q16
 * fixed-point ratio of measured to predicted time, moved 1/2^learn_shift of
 * the way towards each new sample (an exponentially weighted mean),
 * clamped to [1/8, 8] so that one descheduled operation cannot wreck a
 * model.  The prediction a sample is compared with is made again under the
 * arrivals that actually happened (rt_auto_learn's vector), so that the
 * ratio corrects the model, not the estimate of the arrivals.
 *
 * Choice.  The lowest corrected prediction, unless the class's previous
 * choice is within hysteresis_pct of it (kept: noise does not flip the
 * choice), or the operation is one of the class's exploring ones (every
 * explore_every-th: a candidate predicted within explore_pct of the best
 * that has fewer samples than it is run, so that a model that is wrong
 * against a candidate can be corrected; STAR-MPI tunes the same way,
 * once per candidate during a tuning phase).
 *
 * Determinism: integers wherever state is kept, the simulator on the same
 * inputs, no time, pointers or randomness in any decision.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_hash.h"
#include "runtime/api/rt_algo.h"
#include "runtime/api/rt_auto.h"
#include "runtime/api/rt_pathmap.h"

#define AUTO_CACHE     4            /* counts kept per model row */
#define AUTO_CLASSES   256          /* classes learned */
#define AUTO_ONE       65536        /* 1.0 in Q16 */
#define AUTO_RATIO_MIN (AUTO_ONE / 8)
#define AUTO_RATIO_MAX (AUTO_ONE * 8)
#define AUTO_ROWS      (RT_AUTO_CAND_MAX + 3)

/* The built-in cost model: bin/netfit on the development machine
   (docs/netfit.md, "The net file"; docs/auto.md says when). */
#define AUTO_ALPHA 4.1152e-07
#define AUTO_BETA  2.79541e-10
#define AUTO_GAMMA 9.92404e-11

typedef struct auto_slot {
    int64_t    count;               /* -1: empty */
    int32_t    elem_bytes;
    int64_t    pred0;               /* prediction at equal arrivals, ns; -1: refused */
    rt_sched_t sched;               /* the all-ranks schedule (static rows) */
    uint64_t   used;                /* for the least recently used */
} auto_slot_t;

/* A schedule the model simulates: a candidate, or rd/ring/rabenseifner for native. */
typedef struct auto_row {
    const rt_algo_info_t *info;
    int                   pap;      /* reads arrival times */
    auto_slot_t           slot[AUTO_CACHE];
} auto_row_t;

typedef struct auto_class {
    uint64_t site;
    int32_t  size_class;
    int32_t  previous;              /* -1: none yet */
    uint64_t nops;
    uint64_t last;                  /* the chooser's op of its last use (replacement) */
    int32_t  ratio[RT_AUTO_CAND_MAX];   /* Q16 measured / predicted */
    uint32_t samples[RT_AUTO_CAND_MAX];
    int      used;
} auto_class_t;

struct rt_auto {
    rt_auto_cfg_t cfg;
    int32_t       nranks;
    auto_row_t    row[AUTO_ROWS];
    int           nrows;
    int           cand_row[RT_AUTO_CAND_MAX];   /* candidate -> row; -1: native */
    int           native_rows[3];               /* rd, ring, rabenseifner; -1 absent */
    auto_class_t  cls[AUTO_CLASSES];
    uint64_t      op, tick;
    /* the last choice, until rt_auto_learn */
    int           have_last;
    int           last_class, last_chosen;
    int64_t       last_count;
    int32_t       last_elem;
    int64_t      *last_vec;                     /* [nranks] the vector it was made from */
    int64_t       noise_ns;                     /* moving mean of the vectors' error */
    double       *arr_s;                        /* [nranks] scratch */
};

static const char *const reason_names[] = { "only", "model", "kept", "explore" };

const char *rt_auto_reason_name(rt_auto_reason_t r)
{
    return (unsigned)r < 4 ? reason_names[r] : "?";
}

/* ---- configuration ------------------------------------------------------ */

void rt_auto_cfg_default(rt_auto_cfg_t *cfg)
{
    cm_err_t err;

    memset(cfg, 0, sizeof(*cfg));
    rt_auto_cfg_candidates(cfg, RT_AUTO_DEFAULT_CANDIDATES, &err);
    cfg->net = (rt_net_t){ AUTO_ALPHA, AUTO_BETA, AUTO_GAMMA };
    cfg->round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    cfg->hysteresis_pct = 10;
    cfg->explore_every = 16;
    cfg->explore_pct = 50;
    cfg->learn_shift = 2;
    cfg->gen_ns_per_step = RT_AUTO_GEN_NS_PER_STEP;
    cfg->exchange_ns = 0;
}

/* The allreduce rows of the table, for messages ("ring, rd, ..., native"). */
static void valid_names(char *buf, size_t n)
{
    size_t nt, len = 0;
    const rt_algo_info_t *t = rt_algo_table(&nt);

    buf[0] = '\0';
    for (size_t i = 0; i < nt && len < n; i++)
        if (t[i].coll == RT_COLL_ALLREDUCE)
            len += (size_t)snprintf(buf + len, n - len, "%s, ", t[i].name);
    if (len < n)
        snprintf(buf + len, n - len, "%s", RT_AUTO_NATIVE);
}

cm_status_t rt_auto_cfg_candidates(rt_auto_cfg_t *cfg, const char *list, cm_err_t *err)
{
    const char *p = list != NULL ? list : "";
    const char *names[RT_AUTO_CAND_MAX];
    uint32_t n = 0;
    char valid[512], name[RT_PATHMAP_NAME_MAX + 1];

    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        const rt_algo_info_t *a;

        if (n == RT_AUTO_CAND_MAX)
            return CM_ERR(err, CM_ERR_RANGE, "candidates: more than %d", RT_AUTO_CAND_MAX);
        if (len == 0)
            return CM_ERR(err, CM_ERR_SYNTAX, "candidates: an empty name in '%s' (a list of "
                          "names separated by commas)", list != NULL ? list : "");
        if (len > RT_PATHMAP_NAME_MAX)
            return CM_ERR(err, CM_ERR_NAME, "candidates: '%.*s...' is no algorithm", 20, p);
        memcpy(name, p, len);
        name[len] = '\0';
        if (strcmp(name, RT_AUTO_NATIVE) == 0) {
            names[n] = RT_AUTO_NATIVE;
        } else if ((a = rt_algo_find(name)) != NULL && a->coll == RT_COLL_ALLREDUCE) {
            names[n] = a->name;
        } else {
            valid_names(valid, sizeof(valid));
            return CM_ERR(err, CM_ERR_NAME, "candidates: '%s' is not an allreduce of the "
                          "algorithm table (expected one of %s)", name, valid);
        }
        for (uint32_t i = 0; i < n; i++)
            if (strcmp(names[i], names[n]) == 0)
                return CM_ERR(err, CM_ERR_INVALID, "candidates: '%s' given twice", name);
        n++;
        if (e == NULL)
            break;
        p = e + 1;
    }
    cfg->ncand = n;
    for (uint32_t i = 0; i < n; i++)
        cfg->cand[i] = names[i];
    return CM_OK;
}

cm_status_t rt_auto_net_default(rt_net_t *net, cm_err_t *err)
{
    const char *path = getenv("PAPTREE_NET");

    if (path != NULL && path[0] != '\0')
        return rt_net_read(path, net, err);
    *net = (rt_net_t){ AUTO_ALPHA, AUTO_BETA, AUTO_GAMMA };
    return CM_OK;
}

uint64_t rt_auto_cfg_hash(const rt_auto_cfg_t *cfg)
{
    char buf[1024];
    int n = snprintf(buf, sizeof(buf), "%.17g %.17g %.17g %lld %lld %d %d %d %d %lld %lld",
                     cfg->net.alpha, cfg->net.beta, cfg->net.gamma, (long long)cfg->round_ns,
                     (long long)cfg->segcount, cfg->hysteresis_pct, cfg->explore_every,
                     cfg->explore_pct, cfg->learn_shift, (long long)cfg->gen_ns_per_step,
                     (long long)cfg->exchange_ns);

    for (uint32_t i = 0; i < cfg->ncand && n > 0 && (size_t)n < sizeof(buf); i++)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, ",%s", cfg->cand[i]);
    return cm_hash_fnv1a(buf, n > 0 && (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf));
}

/* ---- the chooser -------------------------------------------------------- */

static int add_row(rt_auto_t *a, const rt_algo_info_t *info)
{
    for (int r = 0; r < a->nrows; r++)
        if (a->row[r].info == info)
            return r;
    a->row[a->nrows].info = info;
    a->row[a->nrows].pap = info->params != NULL && strstr(info->params, "arrival") != NULL;
    for (int k = 0; k < AUTO_CACHE; k++) {
        a->row[a->nrows].slot[k].count = -1;
        rt_sched_init(&a->row[a->nrows].slot[k].sched);
    }
    return a->nrows++;
}

cm_status_t rt_auto_create(const rt_auto_cfg_t *cfg, int32_t nranks, rt_auto_t **a_p,
                           cm_err_t *err)
{
    static const char *const nat[3] = { "rd", "ring", "rabenseifner" };
    rt_auto_t *a;
    int native = 0;

    if (cfg->ncand < 1 || cfg->ncand > RT_AUTO_CAND_MAX)
        return CM_ERR(err, CM_ERR_INVALID, "auto: %u candidates (1..%d)", cfg->ncand,
                      RT_AUTO_CAND_MAX);
    if (nranks < 1 || nranks > RT_SCHED_RANKS_MAX)
        return CM_ERR(err, CM_ERR_INVALID, "auto: %d ranks", (int)nranks);
    if ((a = calloc(1, sizeof(*a))) == NULL
        || (a->arr_s = calloc((size_t)nranks, sizeof(*a->arr_s))) == NULL
        || (a->last_vec = calloc((size_t)nranks, sizeof(*a->last_vec))) == NULL) {
        if (a != NULL)
            free(a->arr_s);
        free(a);
        return CM_ERR(err, CM_ERR_NOMEM, "auto: no memory for a chooser");
    }
    a->cfg = *cfg;
    a->nranks = nranks;
    for (uint32_t i = 0; i < cfg->ncand; i++) {
        const rt_algo_info_t *info;

        if (strcmp(cfg->cand[i], RT_AUTO_NATIVE) == 0) {
            a->cand_row[i] = -1;
            native = 1;
            continue;
        }
        if ((info = rt_algo_find(cfg->cand[i])) == NULL || info->coll != RT_COLL_ALLREDUCE) {
            rt_auto_destroy(a);
            return CM_ERR(err, CM_ERR_NAME, "auto: '%s' is not an allreduce", cfg->cand[i]);
        }
        a->cand_row[i] = add_row(a, info);
    }
    for (int k = 0; k < 3; k++)
        a->native_rows[k] = native ? add_row(a, rt_algo_find(nat[k])) : -1;
    for (int c = 0; c < AUTO_CLASSES; c++)
        a->cls[c].previous = -1;
    *a_p = a;
    return CM_OK;
}

void rt_auto_destroy(rt_auto_t *a)
{
    if (a == NULL)
        return;
    for (int r = 0; r < a->nrows; r++)
        for (int k = 0; k < AUTO_CACHE; k++)
            rt_sched_free(&a->row[r].slot[k].sched);
    free(a->arr_s);
    free(a->last_vec);
    free(a);
}

const char *rt_auto_cand_name(const rt_auto_t *a, int32_t i)
{
    return i >= 0 && (uint32_t)i < a->cfg.ncand ? a->cfg.cand[i] : "?";
}

const rt_auto_cfg_t *rt_auto_cfg(const rt_auto_t *a)
{
    return &a->cfg;
}

/* The generator's parameters for row r: only those it reads. */
static void row_params(const rt_auto_t *a, const auto_row_t *row, int64_t count,
                       const int64_t *arrival, rt_algo_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->nranks = a->nranks;
    p->count = count;
    if (row->pap)
        p->arrival = arrival;
    if (strstr(row->info->params, "round_len") != NULL)
        p->round_len = a->cfg.round_ns;
    if (strstr(row->info->params, "segcount") != NULL)
        p->segcount = a->cfg.segcount;
}

/* What making row's one-rank schedule costs a rank, ns (the model of docs/auto.md). */
static int64_t gen_cost(const rt_auto_t *a, const auto_row_t *row, int64_t count)
{
    rt_algo_params_t p;
    double steps;

    row_params(a, row, count, NULL, &p);
    steps = rt_algo_steps_estimate(row->info, &p) / (double)a->nranks;
    return (int64_t)llround(steps * (double)a->cfg.gen_ns_per_step);
}

/* Simulates s under arrival (ns; NULL: all 0): avg_elapsed in ns, or -1. */
static int64_t simulate(rt_auto_t *a, const rt_sched_t *s, int32_t elem_bytes,
                        const int64_t *arrival)
{
    rt_cost_t cost = { a->cfg.net.alpha, a->cfg.net.beta, a->cfg.net.gamma,
                       (double)elem_bytes };
    rt_sim_result_t res;
    cm_err_t err;
    int64_t ns;

    for (int32_t r = 0; r < a->nranks; r++)
        a->arr_s[r] = arrival != NULL ? (double)arrival[r] * 1e-9 : 0.0;
    memset(&res, 0, sizeof(res));
    if (rt_sched_simulate(s, &cost, a->arr_s, &res, &err) != CM_OK)
        return -1;
    ns = (int64_t)llround(res.avg_elapsed * 1e9);
    rt_sim_result_free(&res);
    return ns;
}

/* Row r's cached slot for (count, elem_bytes), made (and predicted at equal
   arrivals) if missing; NULL when its generator refuses the count. */
static auto_slot_t *row_slot(rt_auto_t *a, int r, int64_t count, int32_t elem_bytes)
{
    auto_row_t *row = &a->row[r];
    auto_slot_t *s = NULL, *lru = &row->slot[0];
    rt_algo_params_t p;
    cm_err_t err;

    for (int k = 0; k < AUTO_CACHE; k++) {
        if (row->slot[k].count == count && row->slot[k].elem_bytes == elem_bytes)
            s = &row->slot[k];
        if (row->slot[k].used < lru->used)
            lru = &row->slot[k];
    }
    if (s == NULL) {
        s = lru;
        rt_sched_free(&s->sched);
        rt_sched_init(&s->sched);
        s->count = count;
        s->elem_bytes = elem_bytes;
        row_params(a, row, count, NULL, &p);
        if (row->info->gen(&s->sched, &p, -1, &err) != CM_OK) {
            rt_sched_free(&s->sched);
            rt_sched_init(&s->sched);
            s->pred0 = -1;
        } else {
            s->pred0 = simulate(a, &s->sched, elem_bytes, NULL);
        }
    }
    s->used = ++a->tick;
    return s->pred0 >= 0 ? s : NULL;
}

/* The mean over ranks of the latest arrival minus the rank's own. */
static int64_t mean_wait(const int64_t *v, int32_t n)
{
    int64_t hi = v[0], sum = 0;

    for (int32_t r = 1; r < n; r++)
        hi = v[r] > hi ? v[r] : hi;
    for (int32_t r = 0; r < n; r++)
        sum += hi - v[r];
    return sum / n;
}

/*
 * Row r's prediction under arrival (NULL or `cheap`: equal arrivals), ns;
 * -1: refused.  A static schedule is predicted as its time at equal
 * arrivals plus each rank's mean wait for the last one: its ranks cannot
 * finish before every contribution is in, and simulating it under every
 * vector would cost more than the choice is worth (docs/auto.md).  A
 * PAP-aware one is made for the vector and simulated: what it overlaps is
 * the point.
 */
static int64_t row_pred(rt_auto_t *a, int r, int64_t count, int32_t elem_bytes,
                        const int64_t *arrival, int cheap)
{
    auto_row_t *row = &a->row[r];
    auto_slot_t *s = row_slot(a, r, count, elem_bytes);
    rt_sched_t pap;
    rt_algo_params_t p;
    cm_err_t err;
    int64_t ns;

    if (s == NULL)
        return -1;
    if (cheap || arrival == NULL)
        return s->pred0;
    if (!row->pap)   /* a static schedule cannot finish before the last arrival */
        return s->pred0 + mean_wait(arrival, a->nranks);
    rt_sched_init(&pap);
    row_params(a, row, count, arrival, &p);
    ns = row->info->gen(&pap, &p, -1, &err) == CM_OK ? simulate(a, &pap, elem_bytes, arrival)
                                                      : -1;
    rt_sched_free(&pap);
    return ns;
}

/* Candidate i's prediction (native: the best of its rows), ns; -1: none. */
static int64_t cand_pred(rt_auto_t *a, uint32_t i, int64_t count, int32_t elem_bytes,
                         const int64_t *arrival, int cheap)
{
    int64_t best = -1;

    if (a->cand_row[i] >= 0)
        return row_pred(a, a->cand_row[i], count, elem_bytes, arrival, cheap);
    for (int k = 0; k < 3; k++) {
        int64_t ns = row_pred(a, a->native_rows[k], count, elem_bytes, arrival, cheap);
        if (ns >= 0 && (best < 0 || ns < best))
            best = ns;
    }
    return best;
}

static int is_pap(const rt_auto_t *a, uint32_t i)
{
    return a->cand_row[i] >= 0 && a->row[a->cand_row[i]].pap;
}

static int has_static(const rt_auto_t *a)
{
    for (uint32_t i = 0; i < a->cfg.ncand; i++)
        if (!is_pap(a, i))
            return 1;
    return 0;
}

static int64_t spread_of(const int64_t *v, int32_t n)
{
    int64_t lo, hi;

    if (v == NULL)
        return 0;
    lo = hi = v[0];
    for (int32_t r = 1; r < n; r++) {
        lo = v[r] < lo ? v[r] : lo;
        hi = v[r] > hi ? v[r] : hi;
    }
    return hi - lo;
}

/* Which PAP-aware candidates can pay for their schedule at this spread
   (bit i), and each one's cost into cost[]. */
static uint32_t pap_pays(rt_auto_t *a, int64_t count, int64_t spread, int64_t *cost)
{
    uint32_t pays = 0;

    for (uint32_t i = 0; i < a->cfg.ncand; i++) {
        cost[i] = 0;
        if (!is_pap(a, i))
            continue;
        cost[i] = gen_cost(a, &a->row[a->cand_row[i]], count);
        if (spread >= cost[i] + a->cfg.exchange_ns)
            pays |= 1u << i;
    }
    return pays;
}

static int size_class_of(int64_t count, int32_t elem_bytes)
{
    uint64_t b = (uint64_t)count * (uint64_t)(elem_bytes > 0 ? elem_bytes : 1);
    int c = 0;

    while (b > 1) {
        b >>= 1;
        c++;
    }
    return c;
}

/* The class of (site, size class), made if missing (replacing the least
   recently used when the table is full). */
static int class_of(rt_auto_t *a, uint64_t site, int32_t sc)
{
    int free_c = -1, lru = 0;

    for (int c = 0; c < AUTO_CLASSES; c++) {
        if (a->cls[c].used && a->cls[c].site == site && a->cls[c].size_class == sc)
            return c;
        if (!a->cls[c].used && free_c < 0)
            free_c = c;
        if (a->cls[c].used && a->cls[c].last < a->cls[lru].last)
            lru = c;
    }
    if (free_c < 0)
        free_c = lru;
    memset(&a->cls[free_c], 0, sizeof(a->cls[free_c]));
    a->cls[free_c].used = 1;
    a->cls[free_c].site = site;
    a->cls[free_c].size_class = sc;
    a->cls[free_c].previous = -1;
    for (int i = 0; i < RT_AUTO_CAND_MAX; i++)
        a->cls[free_c].ratio[i] = AUTO_ONE;
    return free_c;
}

cm_status_t rt_auto_choose(rt_auto_t *a, const rt_auto_op_t *op, rt_auto_choice_t *out,
                           cm_err_t *err)
{
    int64_t cost[RT_AUTO_CAND_MAX];
    uint32_t n = a->cfg.ncand, pays;
    int best = -1, npred = 0, c, chosen;
    auto_class_t *k;

    memset(out, 0, sizeof(*out));
    out->ncand = n;
    out->op = a->op;
    out->spread_ns = spread_of(op->arrival, a->nranks);
    out->size_class = size_class_of(op->count, op->elem_bytes);
    /* a spread within twice the vectors' own error is noise, not lateness */
    pays = pap_pays(a, op->count, out->spread_ns - 2 * a->noise_ns, cost);
    for (uint32_t i = 0; i < n; i++) {
        out->pred_ns[i] = out->corr_ns[i] = -1;
        /* skipped only when a static candidate can run instead */
        if (is_pap(a, i) && !(pays & (1u << i)) && has_static(a)) {
            out->skipped |= 1u << i;
            continue;
        }
        out->pred_ns[i] = cand_pred(a, i, op->count, op->elem_bytes, op->arrival, pays == 0);
        if (out->pred_ns[i] >= 0)
            out->pred_ns[i] += cost[i];
    }
    c = class_of(a, op->site, out->size_class);
    k = &a->cls[c];
    for (uint32_t i = 0; i < n; i++) {
        if (out->pred_ns[i] < 0)
            continue;
        out->corr_ns[i] = (int64_t)(((__int128)out->pred_ns[i] * k->ratio[i]) >> 16);
        npred++;
        if (best < 0 || out->corr_ns[i] < out->corr_ns[best])
            best = (int)i;
    }
    if (best < 0) {
        a->have_last = 0;
        return CM_ERR(err, CM_ERR_UNSUPPORTED, "auto: no candidate can run %lld elements on %d "
                      "ranks", (long long)op->count, (int)a->nranks);
    }
    chosen = best;
    out->reason = npred == 1 ? RT_AUTO_ONLY : RT_AUTO_MODEL;
    out->previous = k->previous;
    if (npred > 1 && a->cfg.explore_every > 0
        && k->nops % (uint64_t)a->cfg.explore_every == (uint64_t)a->cfg.explore_every - 1) {
        int e = -1;
        for (uint32_t i = 0; i < n; i++)
            if ((int)i != best && out->corr_ns[i] >= 0 && k->samples[i] < k->samples[best]
                && out->corr_ns[i] * 100 <= out->corr_ns[best] * (100 + a->cfg.explore_pct)
                && (e < 0 || k->samples[i] < k->samples[e]))
                e = (int)i;
        if (e >= 0) {
            chosen = e;
            out->reason = RT_AUTO_EXPLORE;
        }
    }
    if (out->reason == RT_AUTO_MODEL && k->previous >= 0 && k->previous != best
        && out->corr_ns[k->previous] >= 0
        && out->corr_ns[best] * 100 >= out->corr_ns[k->previous] * (100 - a->cfg.hysteresis_pct)) {
        chosen = k->previous;
        out->reason = RT_AUTO_KEPT;
    }
    out->chosen = chosen;
    if (out->reason != RT_AUTO_EXPLORE)  /* an exploration does not become the incumbent */
        k->previous = chosen;
    k->nops++;
    k->last = a->op;
    a->have_last = 1;
    a->last_class = c;
    a->last_chosen = chosen;
    a->last_count = op->count;
    a->last_elem = op->elem_bytes;
    for (int32_t r = 0; r < a->nranks; r++)
        a->last_vec[r] = op->arrival != NULL ? op->arrival[r] : 0;
    a->op++;
    return CM_OK;
}

/* The largest difference between two vectors, each relative to its earliest. */
static int64_t vec_error(const int64_t *x, const int64_t *y, int32_t n)
{
    int64_t x0 = x[0], y0 = y[0], e = 0;

    for (int32_t r = 1; r < n; r++) {
        x0 = x[r] < x0 ? x[r] : x0;
        y0 = y[r] < y0 ? y[r] : y0;
    }
    for (int32_t r = 0; r < n; r++) {
        int64_t d = (x[r] - x0) - (y[r] - y0);
        d = d < 0 ? -d : d;
        e = d > e ? d : e;
    }
    return e;
}

void rt_auto_learn(rt_auto_t *a, const int64_t *arrival, const int64_t *elapsed)
{
    auto_class_t *k;
    int64_t sum = 0, measured, pred, cost[RT_AUTO_CAND_MAX], ratio;
    uint32_t pays;
    int i;

    if (!a->have_last || elapsed == NULL)
        return;
    a->have_last = 0;
    k = &a->cls[a->last_class];
    i = a->last_chosen;
    if (!k->used)
        return;
    if (arrival != NULL)                 /* how far the vector chosen from was off */
        a->noise_ns += (vec_error(arrival, a->last_vec, a->nranks) - a->noise_ns) / 4;
    pays = pap_pays(a, a->last_count, spread_of(arrival, a->nranks) - 2 * a->noise_ns, cost);
    if (pays == 0) {
        /* Nobody late beyond the noise: the prediction is the algorithm's time
           at equal arrivals, which the last rank to arrive measures (the
           others' times add their wait for it). */
        measured = INT64_MAX;
        for (int32_t r = 0; r < a->nranks; r++)
            measured = elapsed[r] < measured ? elapsed[r] : measured;
    } else {
        for (int32_t r = 0; r < a->nranks; r++)
            sum += elapsed[r] > 0 ? elapsed[r] : 0;
        measured = sum / a->nranks;
    }
    pred = cand_pred(a, (uint32_t)i, a->last_count, a->last_elem, arrival, pays == 0);
    if (pred < 0 || measured <= 0)
        return;
    pred += cost[i];
    if (pred <= 0)
        return;
    ratio = (int64_t)(((__int128)measured << 16) / pred);
    ratio = ratio < AUTO_RATIO_MIN ? AUTO_RATIO_MIN : ratio > AUTO_RATIO_MAX ? AUTO_RATIO_MAX
                                                                              : ratio;
    k->ratio[i] += (int32_t)((ratio - k->ratio[i]) / (1 << a->cfg.learn_shift));
    k->samples[i]++;
}

uint64_t rt_auto_state_hash(const rt_auto_t *a)
{
    uint64_t h = (cm_hash_fnv1a(&a->op, sizeof(a->op)) ^ (uint64_t)a->noise_ns) ^
                 rt_auto_cfg_hash(&a->cfg);

    for (int c = 0; c < AUTO_CLASSES; c++) {
        const auto_class_t *k = &a->cls[c];
        if (!k->used)
            continue;
        h ^= cm_hash_fnv1a(&k->site, sizeof(k->site)) + (uint64_t)k->size_class;
        h = h * 1099511628211u + (uint64_t)(k->previous + 1) + k->nops;
        h ^= cm_hash_fnv1a(k->ratio, sizeof(k->ratio));
        h ^= cm_hash_fnv1a(k->samples, sizeof(k->samples)) << 1;
    }
    return h;
}
