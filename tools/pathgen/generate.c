/*
 * tools/pathgen/generate.c - `pathgen [generate] OPTIONS`: an initial
 * pathmap from the one-line form (--hosts H --threads-per-host T) or the
 * three mapping files (--cluster F --app F --mapping F), shaped by the
 * options (docs/pathgen.md, "Generating a tree").
 *
 * Options are read in two passes: the first takes every option and its
 * value, the second (after the inputs are read) resolves what names hosts
 * or clusters (--host-shape SHAPE@HOSTS, --root-host, --split ...@CLUSTER).
 * A bad option is a usage error (exit 2); a bad input file or a tree the
 * edits refuse exits 1 with the error, path:line:col for the files.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cm_opt.h"
#include "gen/api/gen_build.h"
#include "tools/pathgen/pathgen_int.h"

#define MAX_HOST_SHAPES 64
#define MAX_NOTES       16

typedef struct gopts {
    uint32_t    hosts, tph;           /* the one-line form, 0 when not given */
    const char *cluster, *app, *mapping;
    const char *shape, *root_shape, *root_host, *split, *algo;
    const char *type, *op, *tree, *out;
    const char *host_shape[MAX_HOST_SHAPES];
    const char *note[MAX_NOTES];      /* --note lines, for the header */
    int         nhost_shapes, nnotes, extra_links, force;
} gopts_t;

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: pathgen [generate] (--hosts H --threads-per-host T | --cluster F --app F --mapping F)\n"
"                          [options] [-o OUT]\n"
"An initial allreduce tree (pathmap) as the PATHS generator made it (PATHS/EventSpace\n"
"paper, section 3.1): a host subtree per host, a cluster-root subtree on the root host,\n"
"the core; two clusters joined through their gateway.  docs/pathgen.md has the formats.\n"
"\n"
"  --hosts H --threads-per-host T   one cluster of hosts host0.., T threads each\n"
"  --cluster F --app F --mapping F  the cluster, application and application-to-\n"
"                                   cluster mappings\n"
"  --shape SHAPE          host and cluster-root subtrees: nary (flat), quad, binary,\n"
"                         a fan-out list (4,2: bottom up, the last repeats) or\n"
"                         binary-quad (binary host subtrees, quad cluster root)\n"
"  --host-shape SHAPE[@HOSTS]  host subtrees (of HOSTS only: 1,2,4-6 indexes or names);\n"
"                         repeatable: SHAPE@HOSTS beats a plain SHAPE, the last wins\n"
"  --root-shape SHAPE     the cluster-root subtree\n"
"  --root-host H          the cluster-root host (index or name; default each cluster's\n"
"                         first host; the gateway puts the multi-cluster root there)\n"
"  --split SPAN[:first|last][@CLUSTER]  move each cluster-root gred over at most SPAN\n"
"                         host subtrees to its first or last (default) host\n"
"  --extra-links          a link per contributor of each host subtree off the root host\n"
"  --algo 'run=NAME ...'  an algorithm node across the hosts (a bare NAME: run=NAME)\n"
"  --type T, --op O       the tree's type (int32 int64 float double) and operation\n"
"  --tree NAME            the tree's name (default: the application mapping's, or sum)\n"
"  --note TEXT            a line of text that opens the header comment, before the\n"
"                         lines that say how the tree was made (repeatable)\n"
"  -o OUT                 write OUT (default stdout); an existing OUT needs --force\n"
"  --force                replace OUT\n"
"  -h, --help             this text\n"
"Exit status: 0 written, 1 bad input (nothing written), 2 usage.\n");
}

/* Prints ctx's error and the usage line; returns 2. */
static int usage_fail(const cm_opt_t *ctx)
{
    cm_opt_print(ctx, stderr);
    fprintf(stderr, "usage: pathgen [generate] (--hosts H --threads-per-host T | "
                    "--cluster F --app F --mapping F) [options]; see pathgen generate --help\n");
    return 2;
}

/* O_CLUSTER.. O_TREE: the options that take a file or a word, in the order of
   slot_of's table. */
enum { O_HOSTS = 256, O_TPH, O_HOST_SHAPE, O_NOTE, O_EXTRA, O_FORCE, O_CLUSTER, O_APP,
       O_MAPPING, O_SHAPE, O_ROOT_SHAPE, O_ROOT_HOST, O_SPLIT, O_ALGO, O_TYPE, O_OP, O_TREE };

static const struct option longopts[] = {
    { "hosts", required_argument, NULL, O_HOSTS },
    { "threads-per-host", required_argument, NULL, O_TPH },
    { "host-shape", required_argument, NULL, O_HOST_SHAPE },
    { "note", required_argument, NULL, O_NOTE },
    { "extra-links", no_argument, NULL, O_EXTRA }, { "force", no_argument, NULL, O_FORCE },
    { "cluster", required_argument, NULL, O_CLUSTER },
    { "app", required_argument, NULL, O_APP },
    { "mapping", required_argument, NULL, O_MAPPING },
    { "shape", required_argument, NULL, O_SHAPE },
    { "root-shape", required_argument, NULL, O_ROOT_SHAPE },
    { "root-host", required_argument, NULL, O_ROOT_HOST },
    { "split", required_argument, NULL, O_SPLIT }, { "algo", required_argument, NULL, O_ALGO },
    { "type", required_argument, NULL, O_TYPE }, { "op", required_argument, NULL, O_OP },
    { "tree", required_argument, NULL, O_TREE }, { NULL, 0, NULL, 0 },
};

static const char **slot_of(gopts_t *g, int k)
{
    const char **slot[] = { &g->cluster, &g->app, &g->mapping, &g->shape, &g->root_shape,
        &g->root_host, &g->split, &g->algo, &g->type, &g->op, &g->tree };

    return slot[k];
}

/* One option's value: CM_OK or the error, recorded in ctx. */
static cm_status_t take_value(cm_opt_t *ctx, gopts_t *g, int c, const char *opt,
                              const char *v)
{
    const char **slot;
    long n;

    switch (c) {
    case O_HOSTS:
    case O_TPH:
        if (cm_opt_long(ctx, opt, v, 1, 1000000, &n) == CM_OK)
            *(c == O_HOSTS ? &g->hosts : &g->tph) = (uint32_t)n;
        return ctx->status;
    case O_HOST_SHAPE:
        return cm_opt_append(ctx, opt, v, g->host_shape, &g->nhost_shapes, MAX_HOST_SHAPES);
    case O_NOTE: return cm_opt_append(ctx, opt, v, g->note, &g->nnotes, MAX_NOTES);
    case O_EXTRA: g->extra_links = 1; return CM_OK;
    case O_FORCE: g->force = 1; return CM_OK;
    case 'o': slot = &g->out; break;
    default: slot = slot_of(g, c - O_CLUSTER); break;
    }
    if (*slot != NULL)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "%s given twice", opt);
    *slot = v;
    return CM_OK;
}

static int parse_args(int argc, char **argv, gopts_t *g)
{
    const char *opt;
    cm_opt_t ctx;
    int c;

    memset(g, 0, sizeof(*g));
    cm_opt_init(&ctx, "pathgen");
    optind = 1;
    /* '+': stop at the first word that is no option (an error below), so
       that argv, quoted in the header, keeps its order. */
    while ((c = cm_opt_next(&ctx, argc, argv, "+:o:", longopts, &opt)) != -1)
        take_value(&ctx, g, c, opt, optarg);
    if (cm_opt_no_operands(&ctx, argc, argv) != CM_OK)
        return usage_fail(&ctx);
    if ((g->hosts || g->tph) && (g->cluster || g->app || g->mapping))
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "give either --hosts/--threads-per-host or "
                    "the three mappings");
    else if ((g->hosts != 0) != (g->tph != 0))
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "--hosts and --threads-per-host go together");
    else if (!g->hosts && (!g->cluster || !g->app || !g->mapping))
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "give --hosts H --threads-per-host T, or "
                    "--cluster F --app F --mapping F");
    return ctx.status == CM_OK ? 0 : usage_fail(&ctx);
}

/* ---- the second pass: what needs the inputs ----------------------------------- */

/* A host by index or name; GEN_NONE if none. */
static uint32_t host_ref(const gen_input_t *in, const char *s)
{
    cm_opt_t quiet;     /* an index out of range is "no such host", said by the caller */
    long x;

    cm_opt_init(&quiet, "pathgen");
    if (*s >= '0' && *s <= '9')
        return cm_opt_long(&quiet, NULL, s, 0, (long)in->nhosts - 1, &x) == CM_OK
                   ? (uint32_t)x : GEN_NONE;
    for (uint32_t h = 0; h < in->nhosts; h++)
        if (strcmp(in->hosts[h].name, s) == 0)
            return h;
    return GEN_NONE;
}

/* "1,2,4-6" or names after '@': appends a gen_host_shape_t per host. */
static cm_status_t host_list(cm_opt_t *ctx, const gen_input_t *in, const char *list,
                             const gen_shape_t *s, gen_host_shape_t *hs, uint32_t *n,
                             uint32_t cap)
{
    cm_opt_list_t it;
    const char *item;

    cm_opt_list_begin(&it, "--host-shape", list, ',');
    while (cm_opt_list_next(ctx, &it, cap, &item) == CM_OK && item != NULL) {
        char *dash = strchr(it.item, '-');
        uint32_t lo, hi;

        if (dash != NULL && item[0] >= '0' && item[0] <= '9') {
            *dash = '\0';
            lo = host_ref(in, item);
            hi = host_ref(in, dash + 1);
            *dash = '-';
        } else {
            lo = hi = host_ref(in, item);
        }
        if (lo == GEN_NONE || hi == GEN_NONE || hi < lo)
            return cm_opt_fail(ctx, CM_ERR_NAME, "--host-shape", "no host '%s' in the inputs",
                               item);
        for (uint32_t h = lo; h <= hi; h++) {
            if (*n == cap)
                return cm_opt_fail(ctx, CM_ERR_RANGE, "--host-shape", "too many hosts, "
                                   "expected at most %u", cap);
            hs[*n].host = h;
            hs[(*n)++].shape = *s;
        }
    }
    return ctx->status;
}

static cm_status_t shape_opt(cm_opt_t *ctx, const char *opt, const char *word, gen_shape_t *s)
{
    cm_err_t err;

    cm_err_clear(&err);
    if (gen_shape_parse(word, opt, s, &err) != CM_OK)
        return cm_opt_fail(ctx, err.status, NULL, "%s", err.msg);
    return CM_OK;
}

static cm_status_t host_shapes(cm_opt_t *ctx, const gopts_t *g, const gen_input_t *in,
                               gen_build_opts_t *o, gen_host_shape_t *hs, uint32_t cap)
{
    uint32_t n = 0;

    for (int i = 0; i < g->nhost_shapes; i++) {
        char word[64];
        const char *at = strchr(g->host_shape[i], '@');
        gen_shape_t s;

        snprintf(word, sizeof(word), "%.*s",
                 (int)(at ? at - g->host_shape[i] : (long)strlen(g->host_shape[i])),
                 g->host_shape[i]);
        if (shape_opt(ctx, "--host-shape", word, &s) != CM_OK)
            return ctx->status;
        if (at == NULL)
            o->host_shape = s;
        else if (host_list(ctx, in, at + 1, &s, hs, &n, cap) != CM_OK)
            return ctx->status;
    }
    o->host_shapes = hs;
    o->nhost_shapes = n;
    return CM_OK;
}

static cm_status_t shapes(cm_opt_t *ctx, const gopts_t *g, gen_build_opts_t *o)
{
    if (g->shape != NULL && strcmp(g->shape, "binary-quad") == 0) {
        o->host_shape.kind = GEN_SHAPE_BINARY;
        o->root_shape.kind = GEN_SHAPE_QUAD;
    } else if (g->shape != NULL) {
        if (shape_opt(ctx, "--shape", g->shape, &o->host_shape) != CM_OK)
            return ctx->status;
        o->root_shape = o->host_shape;
    }
    if (g->root_shape != NULL)
        shape_opt(ctx, "--root-shape", g->root_shape, &o->root_shape);
    return ctx->status;
}

/* SPAN[:first|last][@CLUSTER] */
static cm_status_t split_opt(cm_opt_t *ctx, const char *v, const gen_input_t *in,
                             gen_build_opts_t *o)
{
    static const cm_opt_word_t ends[] = { { "first", 0 }, { "last", 1 } };
    char buf[128], *at, *colon;
    long span;

    snprintf(buf, sizeof(buf), "%s", v);
    if ((at = strchr(buf, '@')) != NULL) {
        *at++ = '\0';
        for (o->split_cluster = 0; o->split_cluster < in->nclusters; o->split_cluster++)
            if (strcmp(in->clusters[o->split_cluster], at) == 0)
                break;
        if (o->split_cluster == in->nclusters)
            return cm_opt_fail(ctx, CM_ERR_NAME, "--split", "no cluster '%s' in the inputs",
                               at);
    }
    if ((colon = strchr(buf, ':')) != NULL) {
        *colon++ = '\0';
        if (cm_opt_word(ctx, "--split", colon, ends, 2, &o->split_to_last) != CM_OK)
            return ctx->status;
    }
    if (cm_opt_long(ctx, "--split", buf, 1, 1000000, &span) != CM_OK)
        return ctx->status;
    o->split_span = (uint32_t)span;
    return CM_OK;
}

/* --type, --op, --tree over what the inputs say: CM_OK, an error recorded in
   ctx, or CM_ERR_NOMEM (not recorded). */
static cm_status_t tree_opts(cm_opt_t *ctx, const gopts_t *g, gen_input_t *in)
{
    static const cm_opt_word_t types[] = { { "int32", 0 }, { "int64", 1 }, { "float", 2 },
                                           { "double", 3 } };
    static const cm_opt_word_t ops[] = { { "sum", 0 }, { "min", 1 }, { "max", 2 } };
    char type[16] = "int32", op[16] = "sum", params[64];
    const char *p;
    int w;

    if ((g->type && cm_opt_word(ctx, "--type", g->type, types, 4, &w) != CM_OK) ||
        (g->op && cm_opt_word(ctx, "--op", g->op, ops, 3, &w) != CM_OK))
        return ctx->status;
    if (in->tree_params && (p = strstr(in->tree_params, "type=")) != NULL)
        sscanf(p + 5, "%15[a-z0-9]", type);
    if (in->tree_params && (p = strstr(in->tree_params, "op=")) != NULL)
        sscanf(p + 3, "%15[a-z]", op);
    snprintf(params, sizeof(params), "type=%s op=%s", g->type ? g->type : type,
             g->op ? g->op : op);
    free(in->tree_params);
    in->tree_params = strdup(params);
    if (g->tree != NULL) {
        free(in->tree_name);
        in->tree_name = strdup(g->tree);
    }
    return in->tree_params == NULL || (g->tree && in->tree_name == NULL) ? CM_ERR_NOMEM
                                                                          : CM_OK;
}

/* ---- main ------------------------------------------------------------------------ */

static int read_inputs(const gopts_t *g, gen_input_t *in)
{
    cm_err_t err;
    cm_status_t st;

    cm_err_clear(&err);
    memset(in, 0, sizeof(*in));
    if (g->hosts)
        st = gen_input_simple(g->hosts, g->tph, in, &err);
    else if ((st = gen_input_read_cluster(g->cluster, in, &err)) == CM_OK &&
             (st = gen_input_read_app(g->app, in, &err)) == CM_OK)
        st = gen_input_read_mapping(g->mapping, in, &err);
    if (st != CM_OK) {
        cm_err_print(stderr, err.path[0] ? NULL : "pathgen: ", &err);
        gen_input_cleanup(in);
        return 1;
    }
    return 0;
}

/* The command line for the header, arguments with spaces quoted.  The
 * --note options are left out: their text is in the header already. */
static char *command_line(int argc, char **argv)
{
    size_t len = 16;
    char *s, *p;

    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 3;
    if ((s = malloc(len)) == NULL)
        return NULL;
    p = s + sprintf(s, "pathgen");
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--note") == 0) {
            i++;
            continue;
        }
        if (strncmp(argv[i], "--note=", 7) == 0)
            continue;
        p += sprintf(p, strpbrk(argv[i], " \t'\"") || !argv[i][0] ? " '%s'" : " %s", argv[i]);
    }
    return s;
}

static int build_and_write(const gopts_t *g, gen_input_t *in, gen_build_opts_t *o,
                           char *algo)
{
    gen_map_t *m = NULL;
    cm_err_t err;
    int rc;

    cm_err_clear(&err);
    o->algo = algo;
    if (gen_build(in, o, &m, &err) != CM_OK) {
        cm_err_print(stderr, "pathgen: ", &err);
        return 1;
    }
    rc = pg_write_map(m, g->out, g->force);
    gen_map_destroy(m);
    return rc;
}

/* A bare algorithm name is run=NAME; so is a first word without '='. */
static char *algo_params(const char *v)
{
    size_t first = strcspn(v, " \t");
    char *s = malloc(strlen(v) + 5);

    if (s != NULL)
        sprintf(s, "%s%s", memchr(v, '=', first) ? "" : "run=", v);
    return s;
}

/* The second pass: 0, 1 (out of memory, said) or 2 (a usage error, said). */
static int configure(const gopts_t *g, gen_input_t *in, gen_build_opts_t *o,
                     gen_host_shape_t *hs, uint32_t cap)
{
    cm_opt_t ctx;

    cm_opt_init(&ctx, "pathgen");
    gen_build_opts_init(o);
    if (shapes(&ctx, g, o) != CM_OK || host_shapes(&ctx, g, in, o, hs, cap) != CM_OK)
        return usage_fail(&ctx);
    if (g->root_host != NULL && (o->root_host = host_ref(in, g->root_host)) == GEN_NONE) {
        cm_opt_fail(&ctx, CM_ERR_NAME, "--root-host", "no host '%s' in the inputs",
                    g->root_host);
        return usage_fail(&ctx);
    }
    if (g->split != NULL && split_opt(&ctx, g->split, in, o) != CM_OK)
        return usage_fail(&ctx);
    o->extra_links = g->extra_links;
    o->notes = g->note;
    o->nnotes = (uint32_t)g->nnotes;
    if (tree_opts(&ctx, g, in) == CM_OK)
        return 0;
    if (ctx.status != CM_OK)
        return usage_fail(&ctx);
    fprintf(stderr, "pathgen: out of memory\n");
    return 1;
}

int pg_generate_main(int argc, char **argv)
{
    gopts_t g;
    gen_input_t in;
    gen_build_opts_t o;
    gen_host_shape_t *hs;
    char *cmd, *algo = NULL;
    int rc;

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
    if ((rc = parse_args(argc, argv, &g)) != 0)
        return rc;
    if (read_inputs(&g, &in) != 0)
        return 1;
    hs = calloc(in.nhosts + 1, sizeof(*hs) * (size_t)(g.nhost_shapes ? g.nhost_shapes : 1));
    cmd = command_line(argc, argv);
    if (g.algo != NULL)
        algo = algo_params(g.algo);
    if (hs == NULL || cmd == NULL || (g.algo != NULL && algo == NULL)) {
        fprintf(stderr, "pathgen: out of memory\n");
        rc = 1;
    } else if ((rc = configure(&g, &in, &o, hs,
                               (in.nhosts + 1) * (uint32_t)(g.nhost_shapes ? g.nhost_shapes
                                                                             : 1))) == 0) {
        o.command = cmd;
        rc = build_and_write(&g, &in, &o, algo);
    }
    free(hs);
    free(cmd);
    free(algo);
    gen_input_cleanup(&in);
    return rc;
}
