/*
 * rows.c - papbench's algorithms as pathmaps (docs/pathmap.md, "Algorithm
 * nodes"), built in memory or read from --pathmap files.
 *
 * For --algo NAME the text is: one host per rank, a float sum tree whose
 * root is `algo across run=NAME`, one thread per host entering it directly.
 * A reduce (clv) is completed by bcast=binomial-bcast and cut into P
 * segments (as SLT is by default; the papers' N = P); an algorithm that
 * reads round= (PRR's tau, Clairvoyant's d) gets the size's round
 * (--round, or measured); one that reads arrival times gets arrival=SRC,
 * one row per source of --arrival.  The user's parameters (prr:round=...)
 * come last and replace those defaults.  A --pathmap file is run as it is,
 * if its first tree is a float sum with exactly one thread on every host.
 */
#include <stdlib.h>
#include <string.h>
#include "tools/papbench/papbench_int.h"

/* The user's parameters name `key` (" key=" in " a=1 key=2"). */
static int has_param(const pb_algo_t *a, const char *key)
{
    char k[40];

    snprintf(k, sizeof(k), " %s=", key);
    return strstr(a->params, k) != NULL;
}

/* Whether algorithm `name` reads `what`; auto (docs/auto.md) reads the
   arrival times, and round= for its default candidate prr. */
static int reads(const char *name, const char *what)
{
    const rt_algo_info_t *info = rt_algo_find(name);

    if (strcmp(name, "auto") == 0)
        return strcmp(what, "arrival") == 0 || strcmp(what, "round_len") == 0;
    return info != NULL && strstr(info->params, what) != NULL;
}

int pb_algo_default_round(const pb_algo_t *a)
{
    /* auto with its own candidates= gets round= only if the user gives it */
    return reads(a->name, "round_len") && !has_param(a, "round") &&
           !(strcmp(a->name, "auto") == 0 && has_param(a, "candidates"));
}

/* The pathmap of `name` for P hosts; malloc'ed, NULL when out of memory. */
static char *algo_text(const pb_run_t *r, const char *name, const char *params,
                       const char *arrival)
{
    const rt_algo_info_t *info = rt_algo_find(name);
    pb_algo_t a;
    size_t cap = 512 + (size_t)g_size * 64, len;
    char *t = malloc(cap);

    if (t == NULL)
        return NULL;
    snprintf(a.params, sizeof(a.params), "%s", params);
    len = (size_t)snprintf(t, cap, "# papbench: %s across %d hosts, one thread each\n", name,
                           g_size);
    for (int h = 0; h < g_size; h++)
        len += (size_t)snprintf(t + len, cap - len, "host h%d\n", h);
    len += (size_t)snprintf(t + len, cap - len, "tree bench type=float op=sum\n"
                            "algo across run=%s", name);
    if (info != NULL && info->coll == RT_COLL_REDUCE && !has_param(&a, "bcast"))
        len += (size_t)snprintf(t + len, cap - len, " bcast=binomial-bcast");
    if (info != NULL && info->coll == RT_COLL_REDUCE && reads(name, "nsegs") &&
        !has_param(&a, "segments") && !has_param(&a, "segsize"))
        len += (size_t)snprintf(t + len, cap - len, " segments=%d", g_size);
    if (pb_algo_default_round(&a))
        len += (size_t)snprintf(t + len, cap - len, " round=%lld",
                                (long long)(r->round_ns > 0 ? r->round_ns : 5000));
    if (arrival != NULL)
        len += (size_t)snprintf(t + len, cap - len, " arrival=%s", arrival);
    len += (size_t)snprintf(t + len, cap - len, "%s\n", params);
    for (int h = 0; h < g_size; h++)
        len += (size_t)snprintf(t + len, cap - len, "threads %d host=h%d enter=across\n", h, h);
    return t;
}

/*
 * The tree papbench can run: the first of the pathmap, a float sum, as
 * many hosts as ranks, exactly one thread on each.  CM_OK or err set.
 */
static cm_status_t check_tree(const rt_pathmap_t *pm, const char *what, cm_err_t *err)
{
    const rt_tree_t *t = rt_pathmap_tree(pm, NULL);
    uint32_t *count;

    if (t->dtype != RT_DTYPE_FLOAT || t->op != RT_OP_SUM)
        return CM_ERR(err, CM_ERR_UNSUPPORTED, "%s: tree '%s' is %s %s; papbench reduces float "
                      "sums (type=float op=sum)", what, t->name, rt_dtype_name(t->dtype),
                      rt_op_name(t->op));
    if (pm->nhosts != (uint32_t)g_size)
        return CM_ERR(err, CM_ERR_MISMATCH, "%s: %u hosts for %d ranks; run one rank per host",
                      what, pm->nhosts, g_size);
    if ((count = calloc(pm->nhosts, sizeof(*count))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nthreads; i++)
        count[t->threads[i].host]++;
    for (uint32_t h = 0; h < pm->nhosts; h++) {
        if (count[h] != 1) {
            cm_status_t st = CM_ERR(err, CM_ERR_UNSUPPORTED, "%s: tree '%s' has %u threads on "
                                    "host %s; papbench runs exactly one computational thread "
                                    "per host (Proficz 2018's setup)", what, t->name, count[h],
                                    pm->hosts[h].name);
            free(count);
            return st;
        }
    }
    free(count);
    return CM_OK;
}

/* The row's algorithm, source and PAP-awareness, from its parsed tree. */
static void describe(pb_row_t *row)
{
    const rt_node_t *n = rt_tree_algo(rt_pathmap_tree(row->pm, NULL));
    const rt_algo_spec_t *s = n != NULL ? n->algo : NULL;

    row->pap = s != NULL && s->pap;
    row->arrival = s != NULL ? s->arrival : RT_ARRIVAL_EQUAL;
    row->source = row->pap ? rt_arrival_name(row->arrival) : "-";
    if (row->file != NULL)
        return;
    if (s == NULL || s->native || s->autocfg != NULL)
        snprintf(row->algo, sizeof(row->algo), "%s", s != NULL ? rt_algo_spec_name(s) : "native");
    else if (s->bcast != NULL)
        snprintf(row->algo, sizeof(row->algo), "%s+%s", s->run->name, s->bcast->name);
    else
        snprintf(row->algo, sizeof(row->algo), "%s", s->run->name);
}

int pb_row_parse(pb_run_t *r, pb_row_t *row, const char *name, const char *params, int plain)
{
    char *text = algo_text(r, name, params, plain || !reads(name, "arrival") ? NULL
                                            : rt_arrival_name(row->arrival));
    char path[128];
    cm_err_t err;
    cm_status_t st;

    if (text == NULL)
        pb_die("out of memory building a pathmap");
    cm_err_clear(&err);
    snprintf(path, sizeof(path), "(--algo %s)", row->label);
    st = rt_pathmap_parse(path, text, strlen(text), &row->pm, &err);
    free(text);
    if (st == CM_OK && (st = check_tree(row->pm, path, &err)) != CM_OK) {
        rt_pathmap_destroy(row->pm);
        row->pm = NULL;
    }
    if (st != CM_OK)
        return pb_report(&err, NULL);
    describe(row);
    return 0;
}

int pb_row_load(pb_run_t *r, pb_row_t *row)
{
    cm_err_t err;
    cm_status_t st;

    (void)r;
    cm_err_clear(&err);
    st = rt_pathmap_load(row->file, &row->pm, &err);
    if (st == CM_OK && (st = check_tree(row->pm, row->file, &err)) != CM_OK) {
        rt_pathmap_destroy(row->pm);
        row->pm = NULL;
    }
    if (rt_mpi_agree(MPI_COMM_WORLD, st, &err) != CM_OK)
        return pb_report(&err, NULL);
    describe(row);
    return 0;
}

static pb_row_t *new_row(pb_run_t *r)
{
    pb_row_t *row;

    if (r->nrows == PB_ROWS_MAX)
        return NULL;
    row = &r->rows[r->nrows++];
    memset(row, 0, sizeof(*row));
    row->cells = calloc(PB_LIST_MAX, sizeof(*row->cells));
    if (row->cells == NULL)
        pb_die("out of memory");
    if ((size_t)r->o->ndelays * (size_t)r->o->iters <= PB_RESULTS_MAX &&
        (row->results = malloc((size_t)r->o->ndelays * (size_t)r->o->iters *
                               sizeof(double))) == NULL)
        pb_die("out of memory");
    return row;
}

/* A file's row: labelled by its name without directory and ".pathmap". */
static int file_row(pb_run_t *r, const char *file)
{
    pb_row_t *row = new_row(r);
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    size_t len = strcspn(base, ".");
    int rc;

    if (row == NULL)
        return -1;
    row->file = file;
    snprintf(row->algo, sizeof(row->algo), "%.*s", (int)(len < 60 ? len : 60), base);
    if ((rc = pb_row_load(r, row)) != 0)
        return rc;
    if (row->pap)
        snprintf(row->label, sizeof(row->label), "%s/%s", row->algo, row->source);
    else
        snprintf(row->label, sizeof(row->label), "%s", row->algo);
    return 0;
}

/* --algo a: one row, or one per source when it reads arrival times.  Each
   is parsed once here so that a bad parameter is an option error. */
static int algo_rows(pb_run_t *r, const pb_algo_t *a)
{
    int nsrc = reads(a->name, "arrival") ? r->o->narrivals : 1;

    for (int i = 0; i < nsrc; i++) {
        pb_row_t *row = new_row(r);

        if (row == NULL)
            return -1;
        row->gen = a;
        row->arrival = r->o->arrivals[i];
        if (nsrc > 1 || reads(a->name, "arrival"))
            snprintf(row->label, sizeof(row->label), "%s/%s", a->name,
                     rt_arrival_name(row->arrival));
        else
            snprintf(row->label, sizeof(row->label), "%s", a->name);
        if (pb_row_parse(r, row, a->name, a->params, 0) != 0)
            return 2;
        rt_pathmap_destroy(row->pm);
        row->pm = NULL;
    }
    return 0;
}

/* Rows name table lines, CSV lines and trace directories: no two alike. */
static int unique_labels(const pb_run_t *r)
{
    for (int i = 0; i < r->nrows; i++) {
        for (int j = 0; j < i; j++) {
            if (strcmp(r->rows[i].label, r->rows[j].label) != 0)
                continue;
            if (g_rank == 0) {
                fprintf(stderr, "papbench: error: two rows would be labelled '%s' (an "
                        "algorithm given twice, or a pathmap file named like an "
                        "algorithm)\n", r->rows[i].label);
                pb_usage_line(stderr);
            }
            return 2;
        }
    }
    return 0;
}

int pb_build_rows(pb_run_t *r)
{
    const pb_opts_t *o = r->o;
    int rc = 0;

    if (g_size < 2) {
        if (g_rank == 0)
            fprintf(stderr, "papbench: error: %d rank: an algorithm node needs at least 2 hosts "
                    "(mpirun -np P, P >= 2)\n", g_size);
        return 1;
    }
    for (int s = 0; s < o->nsizes; s++) {
        if (o->sizes[s] < (size_t)g_size) {
            if (g_rank == 0) {
                fprintf(stderr, "papbench: --sizes: %zu bytes are fewer floats than the %d "
                        "ranks, expected at least %zu bytes (a float per rank)\n",
                        o->sizes[s] * sizeof(float), g_size, (size_t)g_size * sizeof(float));
                pb_usage_line(stderr);
            }
            return 2;
        }
    }
    for (int i = 0; i < o->nalgos && rc == 0; i++)
        if ((rc = algo_rows(r, &o->algos[i])) == 2 && g_rank == 0)
            pb_usage_line(stderr);
    for (int i = 0; i < o->npathmaps && rc == 0; i++)
        rc = file_row(r, o->pathmaps[i]);
    if (rc == -1) {
        if (g_rank == 0)
            fprintf(stderr, "papbench: error: more than %d rows (algorithms x sources and "
                    "pathmaps)\n", PB_ROWS_MAX);
        rc = 2;
    }
    return rc == 0 ? unique_labels(r) : rc;
}

void pb_free_rows(pb_run_t *r)
{
    for (int j = 0; j < r->nrows; j++) {
        rt_pathmap_destroy(r->rows[j].pm);
        free(r->rows[j].cells);
        free(r->rows[j].results);
    }
    r->nrows = 0;
}
