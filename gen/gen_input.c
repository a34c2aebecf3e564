/*
 * gen_input.c - pathgen's cluster mapping and the one-line form
 * (gen/api/gen_build.h; the format is in docs/pathgen.md, "Input formats").
 *
 *   cluster NAME                   starts a cluster; the hosts below are in it
 *   host NAME [cpus=N]             a host of the last cluster
 *   gateway NAME joins=A,B [cpus=N]  a host joining clusters A and B (no threads)
 *
 * Hosts are ranks in the order declared.  The reader checks names,
 * duplicates and numbers as it goes (errors path:line:col at the word) and,
 * at the end, what needs the whole file: every cluster has hosts, the
 * gateway's clusters exist, and two clusters are joined by a gateway.
 * pathgen joins two clusters through one gateway (section 7.2 of the
 * PATHS/EventSpace paper), so a third cluster or a second gateway is refused
 * where it is declared.  The application mappings are in gen_input_map.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_input_int.h"
#include "gen/gen_lines_int.h"

#define CPUS_MAX 65536u

/* ---- the input structure ---------------------------------------------------- */

void gen_input_cleanup(gen_input_t *in)
{
    for (uint32_t i = 0; i < in->nclusters; i++)
        free(in->clusters[i]);
    for (uint32_t i = 0; i < in->nhosts; i++)
        free(in->hosts[i].name);
    free(in->clusters);
    free(in->hosts);
    free(in->gateways);
    free(in->tree_name);
    free(in->tree_params);
    free(in->thread_host);
    free(in->sources);
    memset(in, 0, sizeof(*in));
}

int gen_input_add_cluster(gen_input_t *in, const char *name)
{
    char **c = realloc(in->clusters, (in->nclusters + 1) * sizeof(*c));

    if (c == NULL)
        return -1;
    in->clusters = c;
    if ((c[in->nclusters] = strdup(name)) == NULL)
        return -1;
    in->nclusters++;
    return 0;
}

int gen_input_add_host(gen_input_t *in, const char *name, uint32_t cpus, uint32_t cluster,
                       int gateway)
{
    gen_host_spec_t *h = realloc(in->hosts, (in->nhosts + 1) * sizeof(*h));

    if (h == NULL)
        return -1;
    in->hosts = h;
    h += in->nhosts;
    memset(h, 0, sizeof(*h));
    if ((h->name = strdup(name)) == NULL)
        return -1;
    h->cpus = cpus;
    h->cluster = cluster;
    h->gateway = gateway;
    in->nhosts++;
    return 0;
}

uint32_t gen_input_find_host(const gen_input_t *in, const char *name)
{
    for (uint32_t i = 0; i < in->nhosts; i++)
        if (strcmp(in->hosts[i].name, name) == 0)
            return i;
    return GEN_NONE;
}

int gen_input_add_source(gen_input_t *in, const char *fmt, const char *arg)
{
    size_t old = in->sources ? strlen(in->sources) : 0;
    size_t add = strlen(fmt) + strlen(arg) + 2;
    char *s = realloc(in->sources, old + add);

    if (s == NULL)
        return -1;
    in->sources = s;
    if (old > 0)
        s[old++] = ' ';
    snprintf(s + old, add, fmt, arg);
    return 0;
}

cm_status_t gen_input_simple(uint32_t hosts, uint32_t threads_per_host, gen_input_t *in,
                             cm_err_t *err)
{
    char name[32], src[64];

    memset(in, 0, sizeof(*in));
    if (hosts == 0 || threads_per_host == 0 || hosts > GEN_INPUT_HOSTS_MAX ||
        (uint64_t)hosts * threads_per_host > GEN_INPUT_THREADS_MAX)
        return CM_ERR(err, CM_ERR_RANGE,
                      "--hosts %u --threads-per-host %u: from 1 host and 1 thread up to %u "
                      "hosts and %u threads in all", (unsigned)hosts, (unsigned)threads_per_host,
                      GEN_INPUT_HOSTS_MAX, GEN_INPUT_THREADS_MAX);
    snprintf(src, sizeof(src), "--hosts %u --threads-per-host %u", (unsigned)hosts,
             (unsigned)threads_per_host);
    if (gen_input_add_cluster(in, "cluster") != 0 || (in->sources = strdup(src)) == NULL ||
        (in->tree_name = strdup("sum")) == NULL ||
        (in->tree_params = strdup("type=int32 op=sum")) == NULL)
        goto oom;
    for (uint32_t h = 0; h < hosts; h++) {
        snprintf(name, sizeof(name), "host%u", (unsigned)h);
        if (gen_input_add_host(in, name, threads_per_host, 0, 0) != 0)
            goto oom;
    }
    in->nthreads = hosts * threads_per_host;
    if ((in->thread_host = malloc(in->nthreads * sizeof(*in->thread_host))) == NULL)
        goto oom;
    for (uint32_t t = 0; t < in->nthreads; t++)
        in->thread_host[t] = t / threads_per_host;
    return CM_OK;
oom:
    gen_input_cleanup(in);
    return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
}

/* ---- the cluster mapping ------------------------------------------------------ */

typedef struct cluster_rd {
    gen_lines_t r;
    gen_input_t *in;
    unsigned    *cluster_line;  /* [nclusters] */
    unsigned    *cluster_col;   /* of its name */
    unsigned    *host_line;     /* [nhosts] */
    unsigned     gw_line;       /* the gateway's line, 0 when none */
    char        *gw_join[2];    /* the clusters it names */
    unsigned     gw_col[2];
} cluster_rd_t;

static int remember_line(unsigned **arr, uint32_t n, unsigned line)
{
    unsigned *a = realloc(*arr, (n + 1) * sizeof(*a));

    if (a == NULL)
        return -1;
    a[n] = line;
    *arr = a;
    return 0;
}

/* Word 1 of the line: a name, checked; NULL with err set. */
static const char *line_name(cluster_rd_t *c, const char *what, cm_err_t *err)
{
    gen_lines_t *r = &c->r;

    if (r->nwords < 2) {
        gen_lines_err(r, 0, CM_ERR_SYNTAX, err, "%s: a name is missing", what);
        return NULL;
    }
    if (!gen_name_ok(r->word[1])) {
        gen_lines_err(r, 1, CM_ERR_SYNTAX, err,
                      "bad %s name '%s' (a letter or _, then letters, digits, _, - or .; "
                      "at most 63 bytes)", what, r->word[1]);
        return NULL;
    }
    return r->word[1];
}

static cm_status_t read_cluster_line(cluster_rd_t *c, cm_err_t *err)
{
    gen_lines_t *r = &c->r;
    gen_input_t *in = c->in;
    const char *name = line_name(c, "cluster", err);

    if (name == NULL)
        return err->status;
    if (r->nwords > 2)
        return gen_lines_err(r, 2, CM_ERR_SYNTAX, err, "unexpected '%s'", r->word[2]);
    for (uint32_t i = 0; i < in->nclusters; i++)
        if (strcmp(in->clusters[i], name) == 0)
            return gen_lines_err(r, 1, CM_ERR_NAME, err, "duplicate cluster '%s' (line %u)",
                                 name, c->cluster_line[i]);
    if (in->nclusters == 2)
        return gen_lines_err(r, 1, CM_ERR_UNSUPPORTED, err,
                             "a third cluster '%s': pathgen joins two clusters at most", name);
    if (gen_input_add_cluster(in, name) != 0 ||
        remember_line(&c->cluster_line, in->nclusters - 1, r->line) != 0 ||
        remember_line(&c->cluster_col, in->nclusters - 1, r->col[1]) != 0)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    return CM_OK;
}

/* cpus=N and (gateway) joins=A,B from word 2 on. */
static cm_status_t host_params(cluster_rd_t *c, int gateway, uint32_t *cpus, cm_err_t *err)
{
    gen_lines_t *r = &c->r;
    const char *v;
    unsigned col;
    int seen_cpus = 0, seen_joins = 0;

    for (int w = 2; w < r->nwords; w++) {
        if ((v = gen_lines_value(r, w, "cpus", &col)) != NULL) {
            if (seen_cpus++)
                return gen_lines_err(r, w, CM_ERR_SYNTAX, err, "cpus= given twice");
            if (gen_parse_u32(v, 1, CPUS_MAX, cpus) != 0)
                return gen_lines_err_at(r->path, r->line, col, CM_ERR_RANGE, err,
                                        "cpus: expected a number from 1 to %u, got '%s'",
                                        CPUS_MAX, v);
        } else if (gateway && (v = gen_lines_value(r, w, "joins", &col)) != NULL) {
            const char *comma = strchr(v, ',');

            if (seen_joins++)
                return gen_lines_err(r, w, CM_ERR_SYNTAX, err, "joins= given twice");
            if (comma == NULL || comma == v || comma[1] == '\0' || strchr(comma + 1, ','))
                return gen_lines_err_at(r->path, r->line, col, CM_ERR_SYNTAX, err,
                                        "joins: expected two clusters A,B, got '%s'", v);
            c->gw_join[0] = strndup(v, (size_t)(comma - v));
            c->gw_join[1] = strdup(comma + 1);
            c->gw_col[0] = col;
            c->gw_col[1] = col + (unsigned)(comma - v) + 1;
            if (c->gw_join[0] == NULL || c->gw_join[1] == NULL)
                return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        } else {
            return gen_lines_err(r, w, CM_ERR_SYNTAX, err, "unknown parameter '%s' (expected %s)",
                                 r->word[w], gateway ? "joins= or cpus=" : "cpus=");
        }
    }
    if (gateway && !seen_joins)
        return gen_lines_err(r, 1, CM_ERR_SYNTAX, err,
                             "gateway '%s' needs joins=A,B (the two clusters it joins)",
                             r->word[1]);
    return CM_OK;
}

static cm_status_t read_host_line(cluster_rd_t *c, int gateway, cm_err_t *err)
{
    gen_lines_t *r = &c->r;
    gen_input_t *in = c->in;
    const char *what = gateway ? "gateway" : "host";
    const char *name = line_name(c, what, err);
    uint32_t cpus = 0, dup;
    cm_status_t st;

    if (name == NULL)
        return err->status;
    if ((dup = gen_input_find_host(in, name)) != GEN_NONE)
        return gen_lines_err(r, 1, CM_ERR_NAME, err, "duplicate host '%s' (line %u)", name,
                             c->host_line[dup]);
    if (!gateway && in->nclusters == 0)
        return gen_lines_err(r, 0, CM_ERR_SYNTAX, err,
                             "host '%s' before any cluster line", name);
    if (gateway && c->gw_line != 0)
        return gen_lines_err(r, 1, CM_ERR_UNSUPPORTED, err,
                             "a second gateway '%s' (the first on line %u): pathgen joins two "
                             "clusters through one gateway", name, c->gw_line);
    if ((st = host_params(c, gateway, &cpus, err)) != CM_OK)
        return st;
    if (gen_input_add_host(in, name, cpus, gateway ? GEN_NONE : in->nclusters - 1, gateway) != 0 ||
        remember_line(&c->host_line, in->nhosts - 1, r->line) != 0)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (gateway)
        c->gw_line = r->line;
    return CM_OK;
}

static uint32_t find_cluster(const gen_input_t *in, const char *name)
{
    for (uint32_t i = 0; i < in->nclusters; i++)
        if (strcmp(in->clusters[i], name) == 0)
            return i;
    return GEN_NONE;
}

/* The gateway's clusters, once every cluster is known. */
static cm_status_t resolve_gateway(cluster_rd_t *c, cm_err_t *err)
{
    gen_input_t *in = c->in;
    uint32_t k[2];

    for (int i = 0; i < 2; i++)
        if ((k[i] = find_cluster(in, c->gw_join[i])) == GEN_NONE)
            return gen_lines_err_at(c->r.path, c->gw_line, c->gw_col[i], CM_ERR_NAME, err,
                                    "unknown cluster '%s'", c->gw_join[i]);
    if (k[0] == k[1])
        return gen_lines_err_at(c->r.path, c->gw_line, c->gw_col[1], CM_ERR_INVALID, err,
                                "a gateway joins two different clusters, not '%s' to itself",
                                c->gw_join[0]);
    if ((in->gateways = malloc(sizeof(*in->gateways))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    in->gateways[0].host = GEN_NONE;
    for (uint32_t h = 0; h < in->nhosts; h++)
        if (in->hosts[h].gateway)
            in->gateways[0].host = h;
    in->gateways[0].a = k[0];
    in->gateways[0].b = k[1];
    in->ngateways = 1;
    return CM_OK;
}

/* What needs the whole file. */
static cm_status_t check_cluster_end(cluster_rd_t *c, cm_err_t *err)
{
    gen_input_t *in = c->in;

    for (uint32_t k = 0; k < in->nclusters; k++) {
        uint32_t n = 0;

        for (uint32_t h = 0; h < in->nhosts; h++)
            n += !in->hosts[h].gateway && in->hosts[h].cluster == k;
        if (n == 0)
            return gen_lines_err_at(c->r.path, c->cluster_line[k], c->cluster_col[k],
                                    CM_ERR_INVALID, err,
                                    "cluster '%s' has no hosts", in->clusters[k]);
    }
    if (in->nclusters == 0)
        return gen_lines_err_at(c->r.path, 0, 0, CM_ERR_INVALID, err,
                                "no cluster declared (cluster NAME, then its host lines)");
    if (c->gw_line != 0)
        return resolve_gateway(c, err);
    if (in->nclusters == 2)
        return gen_lines_err_at(c->r.path, 0, 0, CM_ERR_INVALID, err,
                                "clusters '%s' and '%s' are not joined: declare a gateway "
                                "joins=%s,%s", in->clusters[0], in->clusters[1],
                                in->clusters[0], in->clusters[1]);
    return CM_OK;
}

static cm_status_t read_cluster_lines(cluster_rd_t *c, cm_err_t *err)
{
    gen_lines_t *r = &c->r;
    cm_status_t st = CM_OK;
    int got;

    while (st == CM_OK && (got = gen_lines_next(r, err)) != 0) {
        if (got < 0)
            return err->status;
        if (strcmp(r->word[0], "cluster") == 0)
            st = read_cluster_line(c, err);
        else if (strcmp(r->word[0], "host") == 0)
            st = read_host_line(c, 0, err);
        else if (strcmp(r->word[0], "gateway") == 0)
            st = read_host_line(c, 1, err);
        else
            st = gen_lines_err(r, 0, CM_ERR_SYNTAX, err,
                               "unknown keyword '%s' (expected cluster, host or gateway)",
                               r->word[0]);
        if (st == CM_OK && c->in->nhosts > GEN_INPUT_HOSTS_MAX)
            st = gen_lines_err(r, 1, CM_ERR_RANGE, err, "more than %u hosts",
                               GEN_INPUT_HOSTS_MAX);
    }
    return st == CM_OK ? check_cluster_end(c, err) : st;
}

cm_status_t gen_input_read_cluster(const char *path, gen_input_t *in, cm_err_t *err)
{
    cluster_rd_t c;
    cm_status_t st;

    memset(&c, 0, sizeof(c));
    if (in->nhosts > 0 || in->nclusters > 0)
        return CM_ERR(err, CM_ERR_INVALID, "%s: a cluster mapping was read already", path);
    c.in = in;
    if ((st = gen_lines_open(&c.r, path, err)) != CM_OK)
        return st;
    st = read_cluster_lines(&c, err);
    if (st == CM_OK && gen_input_add_source(in, "--cluster %s", path) != 0)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    gen_lines_close(&c.r);
    free(c.cluster_line);
    free(c.cluster_col);
    free(c.host_line);
    free(c.gw_join[0]);
    free(c.gw_join[1]);
    return st;
}
