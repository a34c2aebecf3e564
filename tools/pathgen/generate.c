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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "pathgen: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: pathgen [generate] (--hosts H --threads-per-host T | "
                    "--cluster F --app F --mapping F) [options]; see pathgen generate --help\n");
    return 2;
}

static int parse_count(const char *opt, const char *v, uint32_t *n)
{
    char *end;
    unsigned long x = strtoul(v, &end, 10);

    if (*v < '0' || *v > '9' || *end != '\0' || x == 0 || x > 1000000)
        return usage_error("%s: expected a number from 1 to 1000000", opt);
    *n = (uint32_t)x;
    return 0;
}

/* Option `opt` with its value (in argv[*i + 1] or after '='): 1 and *v;
 * 0 when argv[*i] is another option; -1 when the value is missing. */
static int value_of(int argc, char **argv, int *i, const char *opt, const char **v)
{
    size_t n = strlen(opt);

    if (strncmp(argv[*i], opt, n) == 0 && argv[*i][n] == '=') {
        *v = argv[*i] + n + 1;
        return 1;
    }
    if (strcmp(argv[*i], opt) != 0)
        return 0;
    if (*i + 1 >= argc) {
        usage_error("%s needs a value", opt);
        return -1;
    }
    *v = argv[++*i];
    return 1;
}

static int take_value(gopts_t *g, const char *opt, const char *v)
{
    static const char *const names[] = { "--cluster", "--app", "--mapping", "--shape",
        "--root-shape", "--root-host", "--split", "--algo", "--type", "--op", "--tree", "-o" };
    const char **slot[] = { &g->cluster, &g->app, &g->mapping, &g->shape, &g->root_shape,
        &g->root_host, &g->split, &g->algo, &g->type, &g->op, &g->tree, &g->out };

    if (strcmp(opt, "--hosts") == 0)
        return parse_count(opt, v, &g->hosts);
    if (strcmp(opt, "--threads-per-host") == 0)
        return parse_count(opt, v, &g->tph);
    if (strcmp(opt, "--host-shape") == 0) {
        if (g->nhost_shapes == MAX_HOST_SHAPES)
            return usage_error("%s: too many", opt);
        g->host_shape[g->nhost_shapes++] = v;
        return 0;
    }
    if (strcmp(opt, "--note") == 0) {
        if (g->nnotes == MAX_NOTES)
            return usage_error("%s: too many", opt);
        g->note[g->nnotes++] = v;
        return 0;
    }
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        if (strcmp(opt, names[k]) == 0) {
            if (*slot[k] != NULL)
                return usage_error("%s given twice", opt);
            *slot[k] = v;
            return 0;
        }
    return usage_error("unknown option '%s'", opt);
}

static int parse_args(int argc, char **argv, gopts_t *g)
{
    static const char *const valued[] = { "--hosts", "--threads-per-host", "--host-shape",
        "--cluster", "--app", "--mapping", "--shape", "--root-shape", "--root-host", "--split",
        "--algo", "--type", "--op", "--tree", "--note", "-o", NULL };

    memset(g, 0, sizeof(*g));
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int k, got = 0;

        if (strcmp(argv[i], "--extra-links") == 0) {
            g->extra_links = 1;
            continue;
        }
        if (strcmp(argv[i], "--force") == 0) {
            g->force = 1;
            continue;
        }
        for (k = 0; valued[k] != NULL; k++)
            if ((got = value_of(argc, argv, &i, valued[k], &v)) != 0)
                break;
        if (got < 0)
            return 2;
        if (valued[k] == NULL)
            return usage_error(argv[i][0] == '-' ? "unknown option '%s'"
                                                 : "unexpected argument '%s'", argv[i]);
        if (take_value(g, valued[k], v) != 0)
            return 2;
    }
    if ((g->hosts || g->tph) && (g->cluster || g->app || g->mapping))
        return usage_error("%s", "give either --hosts/--threads-per-host or the three mappings");
    if ((g->hosts != 0) != (g->tph != 0))
        return usage_error("%s", "--hosts and --threads-per-host go together");
    if (!g->hosts && (!g->cluster || !g->app || !g->mapping))
        return usage_error("%s", "give --hosts H --threads-per-host T, or --cluster F --app F "
                                 "--mapping F");
    return 0;
}

/* ---- the second pass: what needs the inputs ----------------------------------- */

/* A host by index or name; GEN_NONE if none. */
static uint32_t host_ref(const gen_input_t *in, const char *s)
{
    char *end;
    unsigned long x;

    if (*s >= '0' && *s <= '9') {
        x = strtoul(s, &end, 10);
        return *end == '\0' && x < in->nhosts ? (uint32_t)x : GEN_NONE;
    }
    for (uint32_t h = 0; h < in->nhosts; h++)
        if (strcmp(in->hosts[h].name, s) == 0)
            return h;
    return GEN_NONE;
}

/* "1,2,4-6" or names after '@': appends a gen_host_shape_t per host. */
static int host_list(const gen_input_t *in, const char *list, const gen_shape_t *s,
                     gen_host_shape_t *hs, uint32_t *n, uint32_t cap)
{
    char buf[256], *save = NULL, *item;

    snprintf(buf, sizeof(buf), "%s", list);
    for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(item, '-');
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
            return usage_error("--host-shape: no host '%s' in the inputs", item);
        for (uint32_t h = lo; h <= hi; h++) {
            if (*n == cap)
                return usage_error("%s", "--host-shape: too many hosts");
            hs[*n].host = h;
            hs[(*n)++].shape = *s;
        }
    }
    return 0;
}

static int shape_opt(const char *opt, const char *word, gen_shape_t *s)
{
    cm_err_t err;

    cm_err_clear(&err);
    if (gen_shape_parse(word, opt, s, &err) != CM_OK)
        return usage_error("%s", err.msg);
    return 0;
}

static int host_shapes(const gopts_t *g, const gen_input_t *in, gen_build_opts_t *o,
                       gen_host_shape_t *hs, uint32_t cap)
{
    uint32_t n = 0;

    for (int i = 0; i < g->nhost_shapes; i++) {
        char word[64];
        const char *at = strchr(g->host_shape[i], '@');
        gen_shape_t s;

        snprintf(word, sizeof(word), "%.*s",
                 (int)(at ? at - g->host_shape[i] : (long)strlen(g->host_shape[i])),
                 g->host_shape[i]);
        if (shape_opt("--host-shape", word, &s) != 0)
            return 2;
        if (at == NULL)
            o->host_shape = s;
        else if (host_list(in, at + 1, &s, hs, &n, cap) != 0)
            return 2;
    }
    o->host_shapes = hs;
    o->nhost_shapes = n;
    return 0;
}

static int shapes(const gopts_t *g, gen_build_opts_t *o)
{
    if (g->shape != NULL && strcmp(g->shape, "binary-quad") == 0) {
        o->host_shape.kind = GEN_SHAPE_BINARY;
        o->root_shape.kind = GEN_SHAPE_QUAD;
    } else if (g->shape != NULL) {
        if (shape_opt("--shape", g->shape, &o->host_shape) != 0)
            return 2;
        o->root_shape = o->host_shape;
    }
    if (g->root_shape != NULL && shape_opt("--root-shape", g->root_shape, &o->root_shape) != 0)
        return 2;
    return 0;
}

/* SPAN[:first|last][@CLUSTER] */
static int split_opt(const char *v, const gen_input_t *in, gen_build_opts_t *o)
{
    char buf[128], *at, *colon, *end;
    unsigned long span;

    snprintf(buf, sizeof(buf), "%s", v);
    if ((at = strchr(buf, '@')) != NULL) {
        *at++ = '\0';
        for (o->split_cluster = 0; o->split_cluster < in->nclusters; o->split_cluster++)
            if (strcmp(in->clusters[o->split_cluster], at) == 0)
                break;
        if (o->split_cluster == in->nclusters)
            return usage_error("--split: no cluster '%s' in the inputs", at);
    }
    if ((colon = strchr(buf, ':')) != NULL) {
        *colon++ = '\0';
        if (strcmp(colon, "last") != 0 && strcmp(colon, "first") != 0)
            return usage_error("--split: '%s': expected first or last after ':'", colon);
        o->split_to_last = strcmp(colon, "last") == 0;
    }
    span = strtoul(buf, &end, 10);
    if (buf[0] < '0' || buf[0] > '9' || *end != '\0' || span == 0 || span > 1000000)
        return usage_error("--split: '%s': expected SPAN[:first|last][@CLUSTER], SPAN >= 1", v);
    o->split_span = (uint32_t)span;
    return 0;
}

/* --type, --op, --tree over what the inputs say. */
static int tree_opts(const gopts_t *g, gen_input_t *in)
{
    static const char *const types[] = { "int32", "int64", "float", "double" };
    static const char *const ops[] = { "sum", "min", "max" };
    char type[16] = "int32", op[16] = "sum", params[64];
    const char *p;
    int ok_t = g->type == NULL, ok_o = g->op == NULL;

    for (size_t k = 0; k < 4 && !ok_t; k++)
        ok_t = strcmp(g->type, types[k]) == 0;
    for (size_t k = 0; k < 3 && !ok_o; k++)
        ok_o = strcmp(g->op, ops[k]) == 0;
    if (!ok_t)
        return usage_error("--type: '%s': expected int32, int64, float or double", g->type);
    if (!ok_o)
        return usage_error("--op: '%s': expected sum, min or max", g->op);
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
    return in->tree_params == NULL || (g->tree && in->tree_name == NULL) ? 1 : 0;
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

static int configure(const gopts_t *g, gen_input_t *in, gen_build_opts_t *o,
                     gen_host_shape_t *hs, uint32_t cap)
{
    gen_build_opts_init(o);
    if (shapes(g, o) != 0 || host_shapes(g, in, o, hs, cap) != 0)
        return 2;
    if (g->root_host != NULL && (o->root_host = host_ref(in, g->root_host)) == GEN_NONE)
        return usage_error("--root-host: no host '%s' in the inputs", g->root_host);
    if (g->split != NULL && split_opt(g->split, in, o) != 0)
        return 2;
    o->extra_links = g->extra_links;
    o->notes = g->note;
    o->nnotes = (uint32_t)g->nnotes;
    return tree_opts(g, in);
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
