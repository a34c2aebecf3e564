/*
 * gen_input_map.c - pathgen's application mapping and application-to-cluster
 * mapping (gen/api/gen_build.h; formats in docs/pathgen.md, "Input formats").
 *
 * Application mapping, one line:
 *   tree NAME [type=T] [op=O] threads=N     (or threads=0-LAST)
 * Application-to-cluster mapping:
 *   threads RANGE[,RANGE...] host=H        RANGE = N or A-B
 *   fill                                    the threads no line maps, in
 *                                           order, onto the hosts in order,
 *                                           each up to its cpus=
 *
 * The mapping needs the other two read first (it names their hosts and
 * threads).  At its end every thread must be on exactly one host, no thread
 * on a gateway, and with two clusters each cluster's threads after the
 * previous cluster's (the merged tree numbers them so).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_input_int.h"
#include "gen/gen_lines_int.h"

/* ---- the application mapping ------------------------------------------------- */

static int one_of(const char *v, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(v, *set) == 0)
            return 1;
    return 0;
}

/* threads=N or threads=0-LAST into *n. */
static cm_status_t app_threads(const gen_lines_t *r, const char *v, unsigned col, uint32_t *n,
                               cm_err_t *err)
{
    const char *dash = strchr(v, '-');
    uint32_t lo = 0, hi;
    char first[16];

    if (dash == NULL) {
        if (gen_parse_u32(v, 1, GEN_INPUT_THREADS_MAX, n) != 0)
            return gen_lines_err_at(r->path, r->line, col, CM_ERR_RANGE, err,
                                    "threads: expected a count from 1 to %u or a range 0-LAST, "
                                    "got '%s'", GEN_INPUT_THREADS_MAX, v);
        return CM_OK;
    }
    snprintf(first, sizeof(first), "%.*s", (int)(dash - v < 15 ? dash - v : 15), v);
    if (gen_parse_u32(first, 0, GEN_INPUT_THREADS_MAX, &lo) != 0 ||
        gen_parse_u32(dash + 1, 0, GEN_INPUT_THREADS_MAX - 1, &hi) != 0 || hi < lo)
        return gen_lines_err_at(r->path, r->line, col, CM_ERR_SYNTAX, err,
                                "threads: bad range '%s' (expected 0-LAST)", v);
    if (lo != 0)
        return gen_lines_err_at(r->path, r->line, col, CM_ERR_INVALID, err,
                                "threads: the range must start at thread 0, not %u",
                                (unsigned)lo);
    *n = hi + 1;
    return CM_OK;
}

static cm_status_t app_params(const gen_lines_t *r, gen_input_t *in, char *params,
                              size_t size, cm_err_t *err)
{
    static const char *const types[] = { "int32", "int64", "float", "double", NULL };
    static const char *const ops[] = { "sum", "min", "max", NULL };
    const char *type = "int32", *op = "sum", *v;
    int seen[3] = { 0, 0, 0 };
    unsigned col;
    cm_status_t st;

    for (int w = 2; w < r->nwords; w++) {
        int k = gen_lines_value(r, w, "type", &col) ? 0
              : gen_lines_value(r, w, "op", &col) ? 1
              : gen_lines_value(r, w, "threads", &col) ? 2 : -1;

        if (k < 0)
            return gen_lines_err(r, w, CM_ERR_SYNTAX, err,
                                 "unknown parameter '%s' (expected type=, op= or threads=)",
                                 r->word[w]);
        if (seen[k]++)
            return gen_lines_err(r, w, CM_ERR_SYNTAX, err, "%s= given twice",
                                 k == 0 ? "type" : k == 1 ? "op" : "threads");
        v = strchr(r->word[w], '=') + 1;
        if (k == 0 && !one_of(v, types))
            return gen_lines_err_at(r->path, r->line, col, CM_ERR_SYNTAX, err,
                                    "type: unknown type '%s' (expected int32, int64, float or "
                                    "double)", v);
        if (k == 1 && !one_of(v, ops))
            return gen_lines_err_at(r->path, r->line, col, CM_ERR_SYNTAX, err,
                                    "op: unknown operation '%s' (expected sum, min or max)", v);
        if (k == 0)
            type = v;
        else if (k == 1)
            op = v;
        else if ((st = app_threads(r, v, col, &in->nthreads, err)) != CM_OK)
            return st;
    }
    if (!seen[2])
        return gen_lines_err(r, 1, CM_ERR_SYNTAX, err,
                             "tree '%s' needs threads=N (or threads=0-LAST)", r->word[1]);
    snprintf(params, size, "type=%s op=%s", type, op);
    return CM_OK;
}

static cm_status_t app_tree_line(const gen_lines_t *r, gen_input_t *in, unsigned *tree_line,
                                 cm_err_t *err)
{
    char params[64];
    cm_status_t st;

    if (*tree_line != 0)
        return gen_lines_err(r, 0, CM_ERR_SYNTAX, err,
                             "a second tree (the first on line %u): the application mapping "
                             "has one tree", *tree_line);
    if (r->nwords < 2)
        return gen_lines_err(r, 0, CM_ERR_SYNTAX, err, "tree: a name is missing");
    if (!gen_name_ok(r->word[1]))
        return gen_lines_err(r, 1, CM_ERR_SYNTAX, err,
                             "bad tree name '%s' (a letter or _, then letters, digits, _, - "
                             "or .; at most 63 bytes)", r->word[1]);
    if ((st = app_params(r, in, params, sizeof(params), err)) != CM_OK)
        return st;
    if ((in->tree_name = strdup(r->word[1])) == NULL ||
        (in->tree_params = strdup(params)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    *tree_line = r->line;
    return CM_OK;
}

cm_status_t gen_input_read_app(const char *path, gen_input_t *in, cm_err_t *err)
{
    gen_lines_t r;
    unsigned tree_line = 0;
    cm_status_t st = CM_OK;
    int got;

    if (in->tree_name != NULL)
        return CM_ERR(err, CM_ERR_INVALID, "%s: an application mapping was read already", path);
    if ((st = gen_lines_open(&r, path, err)) != CM_OK)
        return st;
    while (st == CM_OK && (got = gen_lines_next(&r, err)) != 0) {
        if (got < 0)
            st = err->status;
        else if (strcmp(r.word[0], "tree") == 0)
            st = app_tree_line(&r, in, &tree_line, err);
        else
            st = gen_lines_err(&r, 0, CM_ERR_SYNTAX, err,
                               "unknown keyword '%s' (expected tree)", r.word[0]);
    }
    if (st == CM_OK && tree_line == 0)
        st = gen_lines_err_at(path, 0, 0, CM_ERR_INVALID, err,
                              "no tree line (tree NAME type=T op=O threads=N)");
    if (st == CM_OK && gen_input_add_source(in, "--app %s", path) != 0)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    gen_lines_close(&r);
    return st;
}

/* ---- the application-to-cluster mapping ----------------------------------------- */

typedef struct map_rd {
    gen_lines_t  r;
    gen_input_t *in;
    unsigned    *line_of;     /* [nthreads]: the line mapping it, 0 none */
    unsigned     fill_line;
} map_rd_t;

/* Maps threads lo..hi to host h (word w is the range, for errors). */
static cm_status_t map_range(map_rd_t *m, int w, unsigned col, uint32_t lo, uint32_t hi,
                             uint32_t h, cm_err_t *err)
{
    gen_input_t *in = m->in;

    if (hi >= in->nthreads)
        return gen_lines_err_at(m->r.path, m->r.line, col, CM_ERR_RANGE, err,
                                "thread %u out of range: the application has threads 0-%u",
                                (unsigned)hi, (unsigned)in->nthreads - 1);
    for (uint32_t t = lo; t <= hi; t++)
        if (m->line_of[t] != 0)
            return gen_lines_err_at(m->r.path, m->r.line, col, CM_ERR_INVALID, err,
                                    "thread %u is already on host '%s' (line %u)", (unsigned)t,
                                    in->hosts[in->thread_host[t]].name, m->line_of[t]);
    for (uint32_t t = lo; t <= hi; t++) {
        m->line_of[t] = m->r.line;
        in->thread_host[t] = h;
    }
    (void)w;
    return CM_OK;
}

/* Word 1: RANGE[,RANGE...] onto host h. */
static cm_status_t map_ranges(map_rd_t *m, uint32_t h, cm_err_t *err)
{
    const char *p = m->r.word[1];
    unsigned col = m->r.col[1];

    while (*p) {
        size_t len = strcspn(p, ",");
        char item[32], *dash;
        uint32_t lo, hi;
        cm_status_t st;

        snprintf(item, sizeof(item), "%.*s", (int)(len < 31 ? len : 31), p);
        dash = strchr(item, '-');
        if (dash != NULL)
            *dash = '\0';
        if (len == 0 || len > 30 ||
            gen_parse_u32(item, 0, GEN_INPUT_THREADS_MAX, &lo) != 0 ||
            gen_parse_u32(dash ? dash + 1 : item, 0, GEN_INPUT_THREADS_MAX, &hi) != 0 ||
            hi < lo)
            return gen_lines_err_at(m->r.path, m->r.line, col, CM_ERR_SYNTAX, err,
                                    "bad thread range '%.*s' (expected N or A-B, A <= B)",
                                    (int)len, p);
        if ((st = map_range(m, 1, col, lo, hi, h, err)) != CM_OK)
            return st;
        p += len;
        col += (unsigned)len;
        if (*p == ',') {
            p++;
            col++;
            if (*p == '\0')
                return gen_lines_err_at(m->r.path, m->r.line, col, CM_ERR_SYNTAX, err,
                                        "a range is missing after ','");
        }
    }
    return CM_OK;
}

static cm_status_t map_threads_line(map_rd_t *m, cm_err_t *err)
{
    gen_lines_t *r = &m->r;
    gen_input_t *in = m->in;
    const char *host = NULL;
    unsigned col = 0;
    uint32_t h;

    if (r->nwords < 2 || strchr(r->word[1], '=') != NULL)
        return gen_lines_err(r, 0, CM_ERR_SYNTAX, err, "threads: the thread range is missing");
    for (int w = 2; w < r->nwords; w++) {
        const char *v = gen_lines_value(r, w, "host", NULL);

        if (v == NULL)
            return gen_lines_err(r, w, CM_ERR_SYNTAX, err,
                                 "unknown parameter '%s' (expected host=)", r->word[w]);
        if (host != NULL)
            return gen_lines_err(r, w, CM_ERR_SYNTAX, err, "host= given twice");
        host = gen_lines_value(r, w, "host", &col);
    }
    if (host == NULL)
        return gen_lines_err(r, 0, CM_ERR_SYNTAX, err, "threads %s: host= is missing",
                             r->word[1]);
    if ((h = gen_input_find_host(in, host)) == GEN_NONE)
        return gen_lines_err_at(r->path, r->line, col, CM_ERR_NAME, err,
                                "unknown host '%s' (not in the cluster mapping)", host);
    if (in->hosts[h].gateway)
        return gen_lines_err_at(r->path, r->line, col, CM_ERR_INVALID, err,
                                "host '%s' is a gateway: a gateway runs no threads", host);
    return map_ranges(m, h, err);
}

/* `fill`: the threads no line maps, onto the hosts in order, up to cpus=. */
static cm_status_t map_fill(map_rd_t *m, cm_err_t *err)
{
    gen_input_t *in = m->in;
    uint32_t t = 0, left = 0;

    for (uint32_t h = 0; h < in->nhosts; h++) {
        uint32_t used = 0;

        while (t < in->nthreads && m->line_of[t] != 0)
            t++;
        if (t == in->nthreads)
            break;
        if (in->hosts[h].gateway)
            continue;
        if (in->hosts[h].cpus == 0)
            return gen_lines_err_at(m->r.path, m->fill_line, 1, CM_ERR_INVALID, err,
                                    "fill: host '%s' has no cpus= in the cluster mapping",
                                    in->hosts[h].name);
        for (uint32_t i = 0; i < in->nthreads; i++)
            used += m->line_of[i] != 0 && in->thread_host[i] == h;
        for (; t < in->nthreads && used < in->hosts[h].cpus; t++) {
            if (m->line_of[t] != 0)
                continue;
            in->thread_host[t] = h;
            m->line_of[t] = m->fill_line;
            used++;
        }
    }
    for (t = 0; t < in->nthreads; t++)
        left += m->line_of[t] == 0;
    if (left > 0)
        return gen_lines_err_at(m->r.path, m->fill_line, 1, CM_ERR_INVALID, err,
                                "fill: %u threads left when every host has its cpus= threads",
                                (unsigned)left);
    return CM_OK;
}

/* Every thread mapped; with two clusters, the first cluster's threads first. */
static cm_status_t map_check_end(map_rd_t *m, cm_err_t *err)
{
    gen_input_t *in = m->in;
    uint32_t t, last_a = GEN_NONE, first_b = GEN_NONE;

    for (t = 0; t < in->nthreads && m->line_of[t] != 0; t++)
        ;
    if (t < in->nthreads) {
        uint32_t e = t;

        while (e + 1 < in->nthreads && m->line_of[e + 1] == 0)
            e++;
        if (e == t)
            return gen_lines_err_at(m->r.path, 0, 0, CM_ERR_INVALID, err,
                                    "thread %u is not mapped to a host", (unsigned)t);
        return gen_lines_err_at(m->r.path, 0, 0, CM_ERR_INVALID, err,
                                "threads %u-%u are not mapped to a host", (unsigned)t,
                                (unsigned)e);
    }
    if (in->nclusters < 2)
        return CM_OK;
    for (t = 0; t < in->nthreads; t++) {
        uint32_t k = in->hosts[in->thread_host[t]].cluster;

        if (k == 0)
            last_a = t;
        else if (first_b == GEN_NONE)
            first_b = t;
    }
    for (uint32_t k = 0; k < 2; k++)
        if ((k == 0 ? last_a : first_b) == GEN_NONE)
            return gen_lines_err_at(m->r.path, 0, 0, CM_ERR_INVALID, err,
                                    "cluster '%s' has no threads", in->clusters[k]);
    if (first_b < last_a)
        return gen_lines_err_at(m->r.path, m->line_of[first_b], 0, CM_ERR_INVALID, err,
                                "thread %u on cluster '%s' comes before thread %u on cluster "
                                "'%s': the threads of '%s' must follow those of '%s'",
                                (unsigned)first_b, in->clusters[1], (unsigned)last_a,
                                in->clusters[0], in->clusters[1], in->clusters[0]);
    return CM_OK;
}

static cm_status_t map_lines(map_rd_t *m, cm_err_t *err)
{
    gen_lines_t *r = &m->r;
    cm_status_t st = CM_OK;
    int got;

    while (st == CM_OK && (got = gen_lines_next(r, err)) != 0) {
        if (got < 0)
            return err->status;
        if (strcmp(r->word[0], "threads") == 0) {
            st = map_threads_line(m, err);
        } else if (strcmp(r->word[0], "fill") == 0) {
            if (r->nwords > 1)
                st = gen_lines_err(r, 1, CM_ERR_SYNTAX, err, "unexpected '%s'", r->word[1]);
            else if (m->fill_line != 0)
                st = gen_lines_err(r, 0, CM_ERR_SYNTAX, err, "fill given twice (line %u)",
                                   m->fill_line);
            m->fill_line = r->line;
        } else {
            st = gen_lines_err(r, 0, CM_ERR_SYNTAX, err,
                               "unknown keyword '%s' (expected threads or fill)", r->word[0]);
        }
    }
    if (st == CM_OK && m->fill_line != 0)
        st = map_fill(m, err);
    return st == CM_OK ? map_check_end(m, err) : st;
}

cm_status_t gen_input_read_mapping(const char *path, gen_input_t *in, cm_err_t *err)
{
    map_rd_t m;
    cm_status_t st;

    if (in->nhosts == 0 || in->nthreads == 0)
        return CM_ERR(err, CM_ERR_INVALID,
                      "%s: read the cluster and application mappings first", path);
    if (in->thread_host != NULL)
        return CM_ERR(err, CM_ERR_INVALID, "%s: a mapping was read already", path);
    memset(&m, 0, sizeof(m));
    m.in = in;
    in->thread_host = malloc(in->nthreads * sizeof(*in->thread_host));
    m.line_of = calloc(in->nthreads, sizeof(*m.line_of));
    if (in->thread_host == NULL || m.line_of == NULL) {
        free(m.line_of);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if ((st = gen_lines_open(&m.r, path, err)) == CM_OK) {
        st = map_lines(&m, err);
        gen_lines_close(&m.r);
    }
    if (st == CM_OK && gen_input_add_source(in, "--mapping %s", path) != 0)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    free(m.line_of);
    return st;
}
