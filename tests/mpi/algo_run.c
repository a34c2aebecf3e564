/*
 * algo_run - checks the schedule executor (rt_algo_run.h) against MPI.
 *
 *   mpirun -np P build/tests/algo_run [--big] [--only NAME]
 *
 * For every row of rt_algo_table():
 *  - allreduce rows run through rt_algo_plan_run (a spec built here), and
 *    every rank's result must equal MPI_Allreduce's on the same inputs;
 *  - reduce rows run alone with rt_sched_run (a schedule generated here for
 *    this rank), and the root's result must equal MPI_Reduce's;
 *  - broadcast rows run alone with rt_sched_run from a root holding data
 *    (the others hold garbage), and every rank must end with MPI_Bcast's;
 *  - every reduce row followed by every broadcast row runs as a plan (the
 *    reduce + broadcast allreduce) against MPI_Allreduce;
 * and `native` (MPI_Allreduce through the plan) as well.  Counts 0, 1,
 * P-1, P, 2P+1 (odd), 101, in that order and again, so that the plans'
 * caches (four counts) evict and refill; int32, int64, float and double;
 * sum, min and max; roots 0, P/2 and P-1; the PAP-aware rows with no
 * arrival vector, all-equal arrivals and skewed ones (the same on every
 * rank).  Values are small integers (int64: scaled past 32 bits), so that
 * every sum is exact in float and double whatever the order of the
 * additions: results are compared byte for byte.
 *
 * A failed precondition must come back as CM_ERR_UNSUPPORTED with the same
 * message on every rank: Rabenseifner below pof2 elements is expected to,
 * and any other failure is a test failure; so must a vector over INT_MAX
 * elements (MPI's int counts).  One more check watches the
 * observer: ring, P = 2 or 3, count P, int32, must report exactly the
 * messages computed by hand in observer_check.  --big adds 1 M-element
 * vectors for ring, ring-seg, rd, rabenseifner, prr and native.
 *
 * Exit 0 iff every check passed on every rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/api/rt_algo_run.h"
#include "runtime/api/rt_reduce.h"

#define MAX_VARIANTS 256
#define MAX_EVENTS   64

typedef struct ctx {
    int              P, rank;
    MPI_Comm         comm;          /* the plans' communicator (a dup) */
    rt_wait_policy_t policy;
    rt_host_id_t    *hosts;
    int64_t         *arr_equal, *arr_skew;
    long             checks;
    int              failures;
    const char      *only;
} ctx_t;

/* One thing to run: an allreduce plan, or a reduce/bcast row alone. */
typedef struct variant {
    char                  label[96];
    rt_algo_spec_t        spec;
    rt_algo_plan_t       *plan;      /* allreduce variants */
    const rt_algo_info_t *alone;     /* reduce or bcast run with rt_sched_run */
    rt_algo_params_t      params;    /* for `alone` (count, arrival filled per run) */
    int                   arrival;   /* 0 none, 1 equal, 2 skewed */
} variant_t;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Rank r's element j in test case `seed`: an integer in [-20, 20]. */
static void fill(rt_dtype_t t, void *buf, int64_t count, int r, uint64_t seed)
{
    for (int64_t j = 0; j < count; j++) {
        int64_t v = (int64_t)(mix(seed ^ ((uint64_t)r << 48) ^ (uint64_t)j) % 41) - 20;

        switch (t) {
        case RT_DTYPE_INT32:  ((int32_t *)buf)[j] = (int32_t)v; break;
        case RT_DTYPE_INT64:  ((int64_t *)buf)[j] = v * 3000000001ll; break;
        case RT_DTYPE_FLOAT:  ((float *)buf)[j] = (float)v; break;
        case RT_DTYPE_DOUBLE: ((double *)buf)[j] = (double)v; break;
        }
    }
}

static uint64_t hash_str(const char *s)
{
    return rt_hash_fnv1a(s, strlen(s));
}

/*
 * Every rank's status and message must agree; returns 1 if the run may be
 * checked for data (all OK), 0 otherwise (and counts a failure unless the
 * failure was expected and identical everywhere).
 */
static int agree(ctx_t *c, const char *what, cm_status_t st, const cm_err_t *err,
                 int expect_unsupported)
{
    uint64_t h = st == CM_OK ? 0 : hash_str(err->msg);
    /* One reduction: max of status, of -status, of the hash and of ~hash. */
    uint64_t v[4] = { (uint64_t)(1000 + st), (uint64_t)(1000 - st), h, ~h };
    int lo, hi;
    uint64_t hlo, hhi;

    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    hi = (int)v[0] - 1000;
    lo = 1000 - (int)v[1];
    hhi = v[2];
    hlo = ~v[3];
    c->checks++;
    if (expect_unsupported) {
        if (lo == CM_ERR_UNSUPPORTED && hi == CM_ERR_UNSUPPORTED && hlo == hhi)
            return 0;
        fprintf(stderr, "rank %d: %s: expected CM_ERR_UNSUPPORTED on every rank with one "
                "message, got status %d..%d (this rank %d: %s)\n", c->rank, what, lo, hi,
                (int)st, st == CM_OK ? "ok" : err->msg);
        c->failures++;
        return 0;
    }
    if (lo == CM_OK && hi == CM_OK)
        return 1;
    fprintf(stderr, "rank %d: %s: status %d (%s)\n", c->rank, what, (int)st,
            st == CM_OK ? "ok" : err->msg);
    c->failures++;
    return 0;
}

static void compare(ctx_t *c, const char *what, rt_dtype_t t, const void *got,
                    const void *want, int64_t count)
{
    size_t esz = rt_dtype_size(t);

    if (count == 0 || memcmp(got, want, (size_t)count * esz) == 0)
        return;
    for (int64_t j = 0; j < count; j++) {
        const unsigned char *g = (const unsigned char *)got + (size_t)j * esz;
        const unsigned char *w = (const unsigned char *)want + (size_t)j * esz;
        double gv, wv;

        if (memcmp(g, w, esz) == 0)
            continue;
        switch (t) {
        case RT_DTYPE_INT32:  gv = *(const int32_t *)g; wv = *(const int32_t *)w; break;
        case RT_DTYPE_INT64:  gv = (double)*(const int64_t *)g;
                              wv = (double)*(const int64_t *)w; break;
        case RT_DTYPE_FLOAT:  gv = *(const float *)g; wv = *(const float *)w; break;
        default:              gv = *(const double *)g; wv = *(const double *)w; break;
        }
        fprintf(stderr, "rank %d: %s: element %lld of %lld is %g, MPI says %g\n", c->rank,
                what, (long long)j, (long long)count, gv, wv);
        break;
    }
    c->failures++;
}

/* ---- variants ------------------------------------------------------------ */

static int wanted(const ctx_t *c, const rt_algo_info_t *a, const rt_algo_info_t *b)
{
    if (!c->only)
        return 1;
    return (a && strcmp(a->name, c->only) == 0) || (b && strcmp(b->name, c->only) == 0) ||
           (!a && strcmp(c->only, "native") == 0);
}

static int reads_arrival(const rt_algo_info_t *a)
{
    return a && strstr(a->params, "arrival") != NULL;
}

static void spec_init(const ctx_t *c, rt_algo_spec_t *s)
{
    memset(s, 0, sizeof *s);
    s->hosts = c->hosts;
    s->nhosts = (uint32_t)c->P;
    s->round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    s->port = RT_PORT_U;
    s->shape = RT_TREE_HEAP;
    s->arrival = RT_ARRIVAL_EQUAL;
}

static variant_t *add(ctx_t *c, variant_t *v, int *n, const char *label)
{
    variant_t *x;

    if (*n >= MAX_VARIANTS) {
        fprintf(stderr, "algo_run: too many variants\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    x = &v[(*n)++];
    memset(x, 0, sizeof *x);
    snprintf(x->label, sizeof x->label, "%s", label);
    spec_init(c, &x->spec);
    return x;
}

/* The parameter settings each row is run with (a few per row). */
typedef struct setting {
    const char     *tag;
    int64_t         segcount;
    int32_t         nsegs;
    rt_port_t       port;
    rt_tree_shape_t shape;
    int32_t         ppn;
} setting_t;

static int settings(const ctx_t *c, const rt_algo_info_t *a, setting_t *out)
{
    const char *n = a->name;
    int k = 0;

    memset(out, 0, 4 * sizeof *out);
    if (strcmp(n, "ring-seg") == 0) {
        out[k++] = (setting_t){ "segcount=2", 2, 0, RT_PORT_U, RT_TREE_HEAP, 0 };
        out[k++] = (setting_t){ "segcount=7", 7, 0, RT_PORT_U, RT_TREE_HEAP, 0 };
    } else if (strcmp(n, "nap") == 0) {
        if (c->P % 2 == 0)
            out[k++] = (setting_t){ "ppn=2", 0, 0, RT_PORT_U, RT_TREE_HEAP, 2 };
        if (c->P % 4 == 0 && c->P > 4)
            out[k++] = (setting_t){ "ppn=4", 0, 0, RT_PORT_U, RT_TREE_HEAP, 4 };
    } else if (strcmp(n, "slt") == 0 || strcmp(n, "clv") == 0 ||
               strcmp(n, "clv-linear") == 0) {
        out[k++] = (setting_t){ "default", 0, 0, RT_PORT_U, RT_TREE_HEAP, 0 };
        out[k++] = (setting_t){ "nsegs=3", 0, 3, RT_PORT_U, RT_TREE_HEAP, 0 };
    } else if (strcmp(n, "chain-reduce") == 0 || strcmp(n, "chain-bcast") == 0) {
        out[k++] = (setting_t){ "U,nsegs=3", 0, 3, RT_PORT_U, RT_TREE_HEAP, 0 };
        out[k++] = (setting_t){ "B,segcount=2", 2, 0, RT_PORT_B, RT_TREE_HEAP, 0 };
    } else if (strcmp(n, "bintree-reduce") == 0) {
        out[k++] = (setting_t){ "U,heap,nsegs=2", 0, 2, RT_PORT_U, RT_TREE_HEAP, 0 };
        out[k++] = (setting_t){ "B,ompi,segcount=3", 3, 0, RT_PORT_B, RT_TREE_OMPI, 0 };
    } else if (strcmp(n, "greedy-reduce") == 0) {
        out[k++] = (setting_t){ "U,nsegs=3", 0, 3, RT_PORT_U, RT_TREE_HEAP, 0 };
    } else {
        out[k++] = (setting_t){ "default", 0, 0, RT_PORT_U, RT_TREE_HEAP, 0 };
    }
    return k;
}

static void apply_setting(rt_algo_spec_t *s, const setting_t *st)
{
    s->segcount = st->segcount;
    s->nsegs = st->nsegs;
    s->port = st->port;
    s->shape = st->shape;
    s->ppn = st->ppn;
}

static void plan_or_die(ctx_t *c, variant_t *v)
{
    cm_err_t err;

    cm_err_clear(&err);
    if (rt_algo_plan_create(&v->spec, c->rank, &v->plan, &err) != CM_OK) {
        fprintf(stderr, "rank %d: %s: rt_algo_plan_create: %s\n", c->rank, v->label, err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Allreduce variants: allreduce rows, native, and reduce+bcast pairs at `root`. */
static int allreduce_variants(ctx_t *c, variant_t *v, int root)
{
    size_t nt;
    const rt_algo_info_t *t = rt_algo_table(&nt);
    int n = 0;
    char label[96];
    setting_t set[4];

    for (size_t i = 0; i < nt && root == 0; i++) {
        int ns;

        if (t[i].coll != RT_COLL_ALLREDUCE || !wanted(c, &t[i], NULL))
            continue;
        ns = settings(c, &t[i], set);
        for (int s = 0; s < ns; s++)
            for (int arr = 0; arr < (reads_arrival(&t[i]) ? 3 : 1); arr++) {
                variant_t *x;

                snprintf(label, sizeof label, "%s(%s)%s", t[i].name, set[s].tag,
                         arr == 1 ? " arrival=equal" : arr == 2 ? " arrival=skewed" : "");
                x = add(c, v, &n, label);
                x->spec.run = &t[i];
                x->spec.pap = reads_arrival(&t[i]);
                apply_setting(&x->spec, &set[s]);
                x->arrival = arr;
                plan_or_die(c, x);
            }
    }
    if (root == 0 && wanted(c, NULL, NULL)) {
        variant_t *x = add(c, v, &n, "native");

        x->spec.native = 1;
        plan_or_die(c, x);
    }
    for (size_t i = 0; i < nt; i++) {
        if (t[i].coll != RT_COLL_REDUCE)
            continue;
        for (size_t j = 0; j < nt; j++) {
            setting_t sb[4];
            int ns, nb;

            if (t[j].coll != RT_COLL_BCAST || !wanted(c, &t[i], &t[j]))
                continue;
            ns = settings(c, &t[i], set);
            nb = settings(c, &t[j], sb);
            /* Each reduce setting once, each bcast setting once (paired by index). */
            for (int s = 0; s < (ns > nb ? ns : nb); s++) {
                const setting_t *rs = &set[s % ns], *bs = &sb[s % nb];
                int pap = reads_arrival(&t[i]) || reads_arrival(&t[j]);
                variant_t *x;

                /* One port model for both halves: the reduce's, or the
                   broadcast's when the reduce reads none. */
                snprintf(label, sizeof label, "%s(%s)+%s(%s) root=%d%s", t[i].name, rs->tag,
                         t[j].name, bs->tag, root, pap ? " arrival=skewed" : "");
                x = add(c, v, &n, label);
                x->spec.run = &t[i];
                x->spec.bcast = &t[j];
                x->spec.root = root;
                x->spec.pap = pap;
                apply_setting(&x->spec, rs);
                if (!strstr(t[i].params, "port"))
                    x->spec.port = bs->port;
                x->arrival = pap ? 2 : 0;
                plan_or_die(c, x);
            }
        }
    }
    return n;
}

/* Reduce and bcast rows alone (rt_sched_run) at `root`. */
static int alone_variants(ctx_t *c, variant_t *v, rt_coll_t coll, int root)
{
    size_t nt;
    const rt_algo_info_t *t = rt_algo_table(&nt);
    int n = 0;
    char label[96];
    setting_t set[4];

    for (size_t i = 0; i < nt; i++) {
        int ns;

        if (t[i].coll != coll || !wanted(c, &t[i], NULL))
            continue;
        ns = settings(c, &t[i], set);
        for (int s = 0; s < ns; s++)
            for (int arr = 0; arr < (reads_arrival(&t[i]) ? 3 : 1); arr++) {
                variant_t *x;

                snprintf(label, sizeof label, "%s(%s) alone root=%d%s", t[i].name, set[s].tag,
                         root, arr == 1 ? " arrival=equal" : arr == 2 ? " arrival=skewed" : "");
                x = add(c, v, &n, label);
                x->alone = &t[i];
                x->params.nranks = c->P;
                x->params.root = root;
                x->params.segcount = set[s].segcount;
                x->params.nsegs = set[s].nsegs;
                x->params.round_len = RT_ALGO_ROUND_NS_DEFAULT;
                x->params.port = set[s].port;
                x->params.tree = set[s].shape;
                x->arrival = arr;
            }
    }
    return n;
}

static void free_variants(variant_t *v, int n)
{
    for (int i = 0; i < n; i++)
        rt_algo_plan_destroy(v[i].plan);
}

/* ---- running ------------------------------------------------------------- */

static const int64_t *arrival_of(const ctx_t *c, int which)
{
    return which == 1 ? c->arr_equal : which == 2 ? c->arr_skew : NULL;
}

static rt_algo_call_t make_call(const ctx_t *c, rt_dtype_t t, rt_op_t op, int arrival)
{
    rt_algo_call_t call;

    memset(&call, 0, sizeof call);
    call.comm = c->comm;
    call.dtype = t;
    call.op = op;
    call.arrival = arrival_of(c, arrival);
    call.policy = &c->policy;
    return call;
}

static int expect_unsupported(const rt_algo_spec_t *s, int64_t count, int P)
{
    int pof2 = 1;

    while (pof2 * 2 <= P)
        pof2 *= 2;
    return s->run && strcmp(s->run->name, "rabenseifner") == 0 && count < pof2;
}

typedef struct tcase {
    rt_dtype_t t;
    rt_op_t    op;
    int64_t    count;
    uint64_t   seed;
    void      *in, *buf, *want;
} tcase_t;

static void describe(char *out, size_t size, const char *label, const tcase_t *k)
{
    snprintf(out, size, "%s %s %s count=%lld", label, rt_dtype_name(k->t), rt_op_name(k->op),
             (long long)k->count);
}

static void run_allreduce(ctx_t *c, variant_t *v, const tcase_t *k)
{
    rt_algo_call_t call = make_call(c, k->t, k->op, v->arrival);
    size_t bytes = (size_t)k->count * rt_dtype_size(k->t);
    char what[200];
    cm_err_t err;
    cm_status_t st;
    int exp = expect_unsupported(&v->spec, k->count, c->P);

    describe(what, sizeof what, v->label, k);
    memcpy(k->buf, k->in, bytes);
    cm_err_clear(&err);
    st = rt_algo_plan_run(v->plan, &call, k->buf, k->count, NULL, &err);
    if (agree(c, what, st, &err, exp))
        compare(c, what, k->t, k->buf, k->want, k->count);
}

static void run_alone(ctx_t *c, variant_t *v, const tcase_t *k, int root)
{
    rt_algo_call_t call = make_call(c, k->t, k->op, v->arrival);
    size_t bytes = (size_t)k->count * rt_dtype_size(k->t);
    char what[200];
    cm_err_t err;
    cm_status_t st;
    rt_sched_t s;

    describe(what, sizeof what, v->label, k);
    v->params.count = k->count;
    v->params.arrival = arrival_of(c, v->arrival);
    if (v->alone->coll == RT_COLL_BCAST && c->rank != root)
        memset(k->buf, 0xa5, bytes);
    else
        memcpy(k->buf, k->in, bytes);
    cm_err_clear(&err);
    rt_sched_init(&s);
    st = v->alone->gen(&s, &v->params, c->rank, &err);
    if (st == CM_OK)
        st = rt_sched_run(&s, c->rank, &call, k->buf, &err);
    rt_sched_free(&s);
    if (agree(c, what, st, &err, 0) && (v->alone->coll == RT_COLL_BCAST || c->rank == root))
        compare(c, what, k->t, k->buf, k->want, k->count);
}

static const int64_t counts_small[] = { 0, 1, -1 /* P-1 */, -2 /* P */, -3 /* 2P+1 */, 101 };

static int64_t count_at(const ctx_t *c, size_t i)
{
    int64_t n = counts_small[i % 6];

    return n == -1 ? c->P - 1 : n == -2 ? c->P : n == -3 ? 2 * c->P + 1 : n;
}

/* Every type and op on every variant, counts twice over. */
static void sweep(ctx_t *c, int big)
{
    static variant_t all[MAX_VARIANTS], red[MAX_VARIANTS], bc[MAX_VARIANTS];
    int roots[3] = { 0, c->P / 2, c->P - 1 }, nroots = 3;
    int64_t maxn = 2 * c->P + 101;
    size_t maxb = (size_t)maxn * 8;
    tcase_t k;

    if (c->P == 1)
        nroots = 1;
    else if (c->P == 2)
        nroots = 2, roots[1] = 1;
    k.in = malloc(maxb);
    k.buf = malloc(maxb);
    k.want = malloc(maxb);
    for (int ri = 0; ri < nroots; ri++) {
        int root = roots[ri];
        int na = allreduce_variants(c, all, root);
        int nr = alone_variants(c, red, RT_COLL_REDUCE, root);
        int nb = alone_variants(c, bc, RT_COLL_BCAST, root);

        for (size_t ci = 0; ci < 12; ci++)
            for (int t = 0; t < 4; t++)
                for (int op = 0; op < 3; op++) {
                    MPI_Datatype mt = rt_mpi_dtype((rt_dtype_t)t);
                    MPI_Op mo = rt_mpi_op((rt_op_t)op);

                    k.t = (rt_dtype_t)t;
                    k.op = (rt_op_t)op;
                    k.count = count_at(c, ci);
                    k.seed = mix(ci * 131 + (size_t)t * 7 + (size_t)op + 1000 * (size_t)root);
                    fill(k.t, k.in, k.count, c->rank, k.seed);
                    MPI_Allreduce(k.in, k.want, (int)k.count, mt, mo, MPI_COMM_WORLD);
                    for (int i = 0; i < na; i++)
                        run_allreduce(c, &all[i], &k);
                    MPI_Reduce(k.in, k.want, (int)k.count, mt, mo, root, MPI_COMM_WORLD);
                    for (int i = 0; i < nr; i++)
                        run_alone(c, &red[i], &k, root);
                    memcpy(k.want, k.in, (size_t)k.count * rt_dtype_size(k.t));
                    MPI_Bcast(k.want, (int)k.count, mt, root, MPI_COMM_WORLD);
                    for (int i = 0; i < nb; i++)
                        run_alone(c, &bc[i], &k, root);
                }
        free_variants(all, na);
    }
    free(k.in);
    free(k.buf);
    free(k.want);
    (void)big;
}

/* 1 M elements on the bandwidth algorithms and the PAP-aware ring. */
static void sweep_big(ctx_t *c)
{
    static const char *names[] = { "ring", "ring-seg", "rd", "rabenseifner", "prr", "native" };
    const int64_t n = 1 << 20;
    tcase_t k;

    k.in = malloc((size_t)n * 8);
    k.buf = malloc((size_t)n * 8);
    k.want = malloc((size_t)n * 8);
    for (size_t a = 0; a < sizeof names / sizeof names[0]; a++) {
        variant_t v;

        memset(&v, 0, sizeof v);
        spec_init(c, &v.spec);
        if (strcmp(names[a], "native") == 0) {
            v.spec.native = 1;
        } else {
            v.spec.run = rt_algo_find(names[a]);
            v.spec.pap = reads_arrival(v.spec.run);
        }
        if (strcmp(names[a], "ring-seg") == 0)
            v.spec.segcount = 65536;
        v.arrival = v.spec.pap ? 2 : 0;
        snprintf(v.label, sizeof v.label, "%s 1M%s", names[a], v.arrival ? " arrival=skewed" : "");
        if (c->only && strcmp(c->only, names[a]) != 0)
            continue;
        plan_or_die(c, &v);
        for (int t = 0; t < 4; t += 3) {         /* int32 and double */
            for (int op = 0; op < 3; op += 2) {  /* sum and max */
                k.t = (rt_dtype_t)t;
                k.op = (rt_op_t)op;
                k.count = n;
                k.seed = mix(777 + a * 10 + (size_t)t * 3 + (size_t)op);
                fill(k.t, k.in, n, c->rank, k.seed);
                MPI_Allreduce(k.in, k.want, (int)n, rt_mpi_dtype(k.t), rt_mpi_op(k.op),
                              MPI_COMM_WORLD);
                run_allreduce(c, &v, &k);
            }
        }
        rt_algo_plan_destroy(v.plan);
    }
    free(k.in);
    free(k.buf);
    free(k.want);
}

/* ---- the observer -------------------------------------------------------- */

typedef struct event {
    rt_msg_t what;
    int32_t  peer, round;
    uint32_t step;
    size_t   bytes;
} event_t;

typedef struct recorder {
    event_t  ev[MAX_EVENTS];
    int      n;
    unsigned instance_seen;
} recorder_t;

static void record(void *loc, rt_msg_t what, unsigned instance, int32_t peer, int32_t round,
                   uint32_t step, size_t bytes)
{
    recorder_t *r = loc;

    r->instance_seen = instance;
    if (r->n < MAX_EVENTS)
        r->ev[r->n] = (event_t){ what, peer, round, step, bytes };
    r->n++;
}

static int event_is(const event_t *e, rt_msg_t what, int32_t peer, int32_t round,
                    uint32_t step, size_t bytes)
{
    return e->what == what && e->peer == peer && e->round == round && e->step == step &&
           e->bytes == bytes;
}

/*
 * Ring, P = 2 or 3, count P (int32): by ring.c's schedule rank r does
 * 2(P-1) rounds; in round k its step 2k sends one element (4 bytes) to
 * r+1 and its step 2k+1 receives one from r-1.  The executor posts the
 * round's receive, then its send, then reports their completions in the
 * order it sees them: so per round exactly RECV_POST(2k+1), SEND(2k), then
 * SEND_DONE(2k) and RECV(2k+1) in either order, and nothing else.
 */
static void observer_check(ctx_t *c)
{
    rt_algo_spec_t spec;
    rt_algo_plan_t *plan = NULL;
    recorder_t rec;
    rt_algo_observer_t obs = { record, &rec, 7 };
    rt_algo_call_t call = make_call(c, RT_DTYPE_INT32, RT_OP_SUM, 0);
    int32_t buf[3] = { 1, 2, 3 };
    const int P = c->P, right = (c->rank + 1) % P, left = (c->rank + P - 1) % P;
    const int rounds = 2 * (P - 1);
    cm_err_t err;
    int bad = 0;

    spec_init(c, &spec);
    spec.run = rt_algo_find("ring");
    memset(&rec, 0, sizeof rec);
    call.observer = &obs;
    cm_err_clear(&err);
    if (rt_algo_plan_create(&spec, c->rank, &plan, &err) != CM_OK ||
        rt_algo_plan_run(plan, &call, buf, P, NULL, &err) != CM_OK) {
        fprintf(stderr, "rank %d: observer: %s\n", c->rank, err.msg);
        c->failures++;
        rt_algo_plan_destroy(plan);
        return;
    }
    c->checks++;
    if (rec.n != 4 * rounds || rec.instance_seen != 7)
        bad = 1;
    for (int k = 0; k < rounds && !bad; k++) {
        const event_t *e = &rec.ev[4 * k];
        uint32_t s = (uint32_t)(2 * k), r = s + 1;

        if (!event_is(&e[0], RT_MSG_RECV_POST, left, k, r, 4) ||
            !event_is(&e[1], RT_MSG_SEND, right, k, s, 4))
            bad = 1;
        else if (!(event_is(&e[2], RT_MSG_SEND_DONE, right, k, s, 4) &&
                   event_is(&e[3], RT_MSG_RECV, left, k, r, 4)) &&
                 !(event_is(&e[2], RT_MSG_RECV, left, k, r, 4) &&
                   event_is(&e[3], RT_MSG_SEND_DONE, right, k, s, 4)))
            bad = 1;
    }
    if (bad) {
        fprintf(stderr, "rank %d: observer: %d events (want %d), instance %u:\n", c->rank,
                rec.n, 4 * rounds, rec.instance_seen);
        for (int i = 0; i < rec.n && i < MAX_EVENTS; i++)
            fprintf(stderr, "  what %d peer %d round %d step %u bytes %zu\n", rec.ev[i].what,
                    rec.ev[i].peer, rec.ev[i].round, rec.ev[i].step, rec.ev[i].bytes);
        c->failures++;
    }
    rt_algo_plan_destroy(plan);
}

/* A schedule made for another rank is refused, locally, with no message sent. */
static void wrong_rank_check(ctx_t *c)
{
    rt_algo_params_t p;
    rt_sched_t s;
    rt_algo_call_t call = make_call(c, RT_DTYPE_INT32, RT_OP_SUM, 0);
    int32_t buf[4] = { 0 };
    cm_err_t err;
    cm_status_t st;

    if (c->P < 2)
        return;
    memset(&p, 0, sizeof p);
    p.nranks = c->P;
    p.count = 4;
    rt_sched_init(&s);
    cm_err_clear(&err);
    st = rt_algo_find("ring")->gen(&s, &p, (c->rank + 1) % c->P, &err);
    if (st == CM_OK)
        st = rt_sched_run(&s, c->rank, &call, buf, &err);
    rt_sched_free(&s);
    c->checks++;
    if (st != CM_ERR_INVALID) {
        fprintf(stderr, "rank %d: another rank's schedule: status %d, want CM_ERR_INVALID\n",
                c->rank, (int)st);
        c->failures++;
    }
}

/*
 * A vector over INT_MAX elements is refused before anything is sent or
 * touched (so a tiny buffer is safe), the same way on every rank: by the
 * executor for a schedule, by the plan for native.
 */
static void huge_count_check(ctx_t *c)
{
    static const char *names[] = { "ring", "native" };
    int32_t buf[1] = { 0 };

    for (int i = 0; i < 2; i++) {
        rt_algo_spec_t spec;
        rt_algo_plan_t *plan = NULL;
        rt_algo_call_t call = make_call(c, RT_DTYPE_INT32, RT_OP_SUM, 0);
        char what[64];
        cm_err_t err;
        cm_status_t st;

        spec_init(c, &spec);
        if (i == 0)
            spec.run = rt_algo_find(names[i]);
        else
            spec.native = 1;
        snprintf(what, sizeof what, "%s with 2^31 elements", names[i]);
        cm_err_clear(&err);
        st = rt_algo_plan_create(&spec, c->rank, &plan, &err);
        if (st == CM_OK)
            st = rt_algo_plan_run(plan, &call, buf, (int64_t)1 << 31, NULL, &err);
        agree(c, what, st, &err, 1);
        rt_algo_plan_destroy(plan);
    }
}

int main(int argc, char **argv)
{
    ctx_t c;
    int big = 0, total = 0;
    long checks = 0;
    double t0;

    MPI_Init(&argc, &argv);
    memset(&c, 0, sizeof c);
    MPI_Comm_size(MPI_COMM_WORLD, &c.P);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--big") == 0)
            big = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            c.only = argv[++i];
        else {
            if (c.rank == 0)
                fprintf(stderr, "usage: algo_run [--big] [--only NAME]\n");
            MPI_Finalize();
            return 2;
        }
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &c.comm);
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    c.policy = rt_wait_policy_auto((uint32_t)c.P > rt_wait_cpus_available());
    c.hosts = calloc((size_t)c.P, sizeof *c.hosts);
    c.arr_equal = calloc((size_t)c.P, sizeof *c.arr_equal);
    c.arr_skew = calloc((size_t)c.P, sizeof *c.arr_skew);
    for (int i = 0; i < c.P; i++) {
        c.hosts[i] = (rt_host_id_t)i;
        /* Ranks arrive in a shuffled order, some tied, up to ~4 rounds apart. */
        c.arr_skew[i] = (int64_t)((i * 5 + 3) % c.P) * 4000 + (i % 3 == 1 ? 0 : 1700);
    }
    t0 = MPI_Wtime();
    if (c.P == 2 || c.P == 3)
        observer_check(&c);
    wrong_rank_check(&c);
    huge_count_check(&c);
    sweep(&c, big);
    if (big)
        sweep_big(&c);
    MPI_Allreduce(&c.failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    checks = c.checks;
    if (c.rank == 0)
        printf("algo_run: P=%d: %ld checks per rank, %d failures, %.1f s\n", c.P, checks, total,
               MPI_Wtime() - t0);
    MPI_Comm_free(&c.comm);
    free(c.hosts);
    free(c.arr_equal);
    free(c.arr_skew);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
