/*
 * papviz - the paper's pictures as SVG, from a papanalyze database.
 *
 *   papviz timemap DB [--thread T]... [--compare DB2]... -o F.svg
 *   papviz departures DB --wrapper NAME | --subtree NAME [--compare DB2]...
 *   papviz orders DB --wrapper NAME | --subtree NAME
 *   papviz tree PATHMAP | DB [--db DB]
 *   papviz pap DB
 *   papviz schedule DB [--op N [--instance I] | --mean] [--wrapper NAME]
 *                      (default: the used operation of median span)
 *   papviz report DB -o DIR
 *   papviz arrivals-by-site DB          (an application trace's database)
 *   papviz choices DB                   (auto's choices, either kind)
 *   papviz timeline DB|TRACE            (trace-event JSON: tools/papviz/timeline.c)
 *
 * The glue between the command line, analyze's model (an_model.h) and the
 * charts (viz/).  The only code here that knows a chart is the table of
 * commands; `tree PATHMAP` parses the pathmap with runtime's parser and
 * converts it to the model's tree with bridge/api/br_model.h.
 * Exit status: 0 done, 1 bad input or failure, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/api/an_analyze.h"
#include "analyze/api/an_model.h"
#include "bridge/api/br_model.h"
#include "common/cm_opt.h"
#include "runtime/api/rt_pathmap.h"
#include "tools/papviz/papviz_int.h"
#include "viz/api/viz.h"

#define MAX_MODELS 16
#define MAX_THREADS 256

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: papviz COMMAND [options] DB|PATHMAP\n"
"Draws the PATHS/EventSpace paper's pictures as SVG from a database written\n"
"by papanalyze (docs/analysis-db.md).  Hover over a mark for its exact value.\n"
"\n"
"Commands:\n"
"  timemap DB       mean time of each stage along the threads' paths; x = 0 when\n"
"                   the path enters the core (Figures 12-14, 17-20)\n"
"  departures DB    up latency + departure wait by departure order of a gred or\n"
"                   subtree: the slope shows the broadcast's concurrency (Figs 10, 16, 21)\n"
"  orders DB        arrival order x departure order of a gred, in %% (Table 1)\n"
"  tree PATHMAP|DB  the tree: hosts, wrappers, threads, proxies (Figures 4, 5, 8);\n"
"                   an algorithm node spans the hosts it joins\n"
"  pap DB           process arrival pattern and elapsed times (Proficz 2018, Fig. 1)\n"
"  schedule DB      one operation of the algorithm node (default: the one of\n"
"                   median span; or the mean): a band per\n"
"                   host, a bar per round, late-sender waits in red, messages as\n"
"                   lines from send post to receive completion (where does it wait?)\n"
"  report DB        all of them and DIR/index.html with papanalyze's report\n"
"  arrivals-by-site DB  an application trace's (paprun --trace): a row per call\n"
"                   site, each rank's mean arrival after the operation's earliest\n"
"                   and its range, the site's spread (Faraj et al.); a site run\n"
"                   by an auto rule shows its choices\n"
"  choices DB       what auto chose per operation, marked on the arrival spread\n"
"                   the choice saw (docs/auto.md); either kind of database\n"
"  timeline DB|TRACE  the run as trace-event JSON for ui.perfetto.dev and\n"
"                   Chrome's trace viewer (papviz timeline --help; its options\n"
"                   are its own, given after it; docs/timeline.md)\n"
"\n"
"Options:\n"
"  -o, --output F        the SVG (default: standard output); report: the directory\n"
"                        (default: DIR-report/ for DIR/traces.db, beside the\n"
"                        trace; report/ beside any other DB)\n"
"  -b, --bytes N         tuple size (default: the smallest in the database)\n"
"  -t, --thread T        timemap: draw thread T (repeatable; default: every thread)\n"
"      --with-arrival-wait  timemap: draw the arrival waits too\n"
"  -c, --compare DB2     timemap, departures: overlay another configuration\n"
"                        (repeatable; databases after DB are compared too)\n"
"  -l, --label NAME      legend name of the next database (DB first, then the\n"
"                        compared ones; default: the database's directory name)\n"
"  -w, --wrapper NAME    departures, orders: the gred; schedule: the algorithm node\n"
"                        (default: the tree's)\n"
"  -s, --subtree NAME    departures, orders: the subtree rooted at NAME\n"
"      --tree NAME       tree PATHMAP: which tree (default: the first)\n"
"      --db DB           tree: colour the wrappers by mean latency from DB\n"
"      --op N            schedule: operation N (numbered per instance, as in\n"
"                        papanalyze's tables)\n"
"      --instance I      schedule: the tree instance of --op (default 0)\n"
"      --mean            schedule: the mean over the operations in the statistics,\n"
"                        rounds after each host's own arrival (no message lines;\n"
"                        default: the operation of median span)\n"
"  -q, --quiet           print nothing on success (default: the path written,\n"
"                        \"Timemap: F\", \"Report: DIR/index.html\")\n"
"  -h, --help            this text\n"
"Exit status: 0 done, 1 bad input or failure (no partial file), 2 usage error.\n");
}

typedef struct args {
    const char *cmd, *output, *tree, *db, *wrapper;
    const char *inputs[MAX_MODELS];
    const char *labels[MAX_MODELS];
    int         ninputs, nlabels, subtree, with_wait, quiet;
    int         has_op, has_instance, mean, instance;
    int64_t     op;
    int         threads[MAX_THREADS], nthreads;
    int64_t     bytes;
} args_t;

static cm_status_t add_input(cm_opt_t *ctx, args_t *a, const char *path)
{
    if (a->ninputs == MAX_MODELS)
        return cm_opt_fail(ctx, CM_ERR_RANGE, NULL, "more than %d databases, expected at "
                           "most %d", MAX_MODELS, MAX_MODELS);
    a->inputs[a->ninputs++] = path;
    return CM_OK;
}

/* An option's value that is a number: CM_OK or the error, recorded in ctx. */
static cm_status_t number_opt(cm_opt_t *ctx, args_t *a, int c, const char *opt,
                              const char *arg)
{
    uint64_t bytes;
    long v;

    switch (c) {
    case 'b':
        if (cm_opt_size(ctx, opt, arg, 0, (uint64_t)1 << 40, &bytes) == CM_OK)
            a->bytes = (int64_t)bytes;
        return ctx->status;
    case 't':
        if (a->nthreads == MAX_THREADS)
            return cm_opt_fail(ctx, CM_ERR_RANGE, opt, "given more than %d times, "
                               "expected at most %d", MAX_THREADS, MAX_THREADS);
        if (cm_opt_long(ctx, opt, arg, 0, 1L << 30, &v) == CM_OK)
            a->threads[a->nthreads++] = (int)v;
        return ctx->status;
    case 'O':
        if (cm_opt_long(ctx, opt, arg, 0, LONG_MAX, &v) == CM_OK) {
            a->op = v;
            a->has_op = 1;
        }
        return ctx->status;
    default:
        if (cm_opt_int(ctx, opt, arg, 0, INT32_MAX, &a->instance) == CM_OK)
            a->has_instance = 1;
        return ctx->status;
    }
}

/* Parses argv into a; returns 0, -1 (--help) or 2 (a usage error, said). */
static int parse_args(int argc, char **argv, args_t *a)
{
    enum { O_WAIT = 256, O_TREE, O_DB, O_MEAN };
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "bytes", required_argument, NULL, 'b' },
        { "thread", required_argument, NULL, 't' }, { "compare", required_argument, NULL, 'c' },
        { "label", required_argument, NULL, 'l' }, { "wrapper", required_argument, NULL, 'w' },
        { "subtree", required_argument, NULL, 's' }, { "tree", required_argument, NULL, O_TREE },
        { "db", required_argument, NULL, O_DB }, { "help", no_argument, NULL, 'h' },
        { "quiet", no_argument, NULL, 'q' },
        { "with-arrival-wait", no_argument, NULL, O_WAIT }, { "op", required_argument, NULL, 'O' },
        { "instance", required_argument, NULL, 'I' }, { "mean", no_argument, NULL, O_MEAN },
        { NULL, 0, NULL, 0 },
    };
    const char *compare[MAX_MODELS], *opt;
    int ncompare = 0, c;
    cm_opt_t ctx;

    cm_opt_init(&ctx, "papviz");
    a->bytes = -1;
    while ((c = cm_opt_next(&ctx, argc, argv, ":o:b:t:c:l:w:s:hq", longopts, &opt)) != -1) {
        switch (c) {
        case 'o': a->output = optarg; break;
        case 'w': a->wrapper = optarg; a->subtree = 0; break;
        case 's': a->wrapper = optarg; a->subtree = 1; break;
        case O_TREE: a->tree = optarg; break;
        case O_DB: a->db = optarg; break;
        case O_WAIT: a->with_wait = 1; break;
        case O_MEAN: a->mean = 1; break;
        case 'h': return -1;
        case 'q': a->quiet = 1; break;
        case 'c': cm_opt_append(&ctx, opt, optarg, compare, &ncompare, MAX_MODELS - 1); break;
        case 'l': cm_opt_append(&ctx, opt, optarg, a->labels, &a->nlabels, MAX_MODELS); break;
        default: number_opt(&ctx, a, c, opt, optarg); break;    /* -b, -t, --op, --instance */
        }
    }
    if (ctx.status == CM_OK && optind >= argc)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "no command given");
    if (ctx.status == CM_OK)
        a->cmd = argv[optind++];
    for (; ctx.status == CM_OK && optind < argc; optind++)
        add_input(&ctx, a, argv[optind]);
    for (int i = 0; ctx.status == CM_OK && i < ncompare; i++)
        add_input(&ctx, a, compare[i]);
    if (ctx.status == CM_OK)
        return 0;
    cm_opt_print(&ctx, stderr);
    return 2;
}

/* ------------------------------------------------------------ the tree */

static cm_status_t load_pathmap(const args_t *a, an_model_t **m_p, cm_err_t *err)
{
    rt_pathmap_t *pm = NULL;
    if (rt_pathmap_load(a->inputs[0], &pm, err) != CM_OK)
        return err->status;
    const rt_tree_t *t = rt_pathmap_tree(pm, a->tree);
    cm_status_t ret = CM_OK;
    an_model_t *m = NULL;
    if (t == NULL)
        ret = CM_ERR_AT(err, CM_ERR_NAME, a->inputs[0], 0, 0, "no tree called '%s'", a->tree);
    else if ((m = an_model_create()) == NULL)
        ret = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    else
        ret = br_model_from_pathmap(m, pm, t, err);
    rt_pathmap_destroy(pm);
    if (ret != CM_OK) {
        an_model_close(m);
        return ret;
    }
    *m_p = m;
    return CM_OK;
}

/* 1 if the two trees have the same wrappers (names, kinds, parents, hosts). */
static int same_tree(const an_model_tree_t *x, const an_model_tree_t *y)
{
    if (x->nwrappers != y->nwrappers || x->nthreads != y->nthreads)
        return 0;
    for (int i = 0; i < x->nwrappers; i++) {
        const an_model_wrapper_t *a = &x->wrappers[i], *b = &y->wrappers[i];
        if (strcmp(a->name, b->name) != 0 || a->kind != b->kind || a->parent != b->parent
            || a->host != b->host)
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------- running */

/* Draws one chart of a command into out. */
typedef cm_status_t draw_fn_t(FILE *out, an_model_t *const *models, int n, const args_t *a,
                              const viz_opts_t *o, cm_err_t *err);

typedef struct job {
    draw_fn_t         *draw;
    an_model_t *const *models;
    int                n;
    const args_t      *a;
    const viz_opts_t  *o;
} job_t;

static cm_status_t write_job(FILE *out, void *ctx, cm_err_t *err)
{
    const job_t *j = ctx;
    return j->draw(out, j->models, j->n, j->a, j->o, err);
}

/* Writes the chart to path with viz_write_file (through path.tmp, or the
   target of a link, or straight into a FIFO or device); to stdout when
   path is NULL or "-". */
static cm_status_t write_svg(const char *path, job_t *job, cm_err_t *err)
{
    if (path != NULL && strcmp(path, "-") != 0)
        return viz_write_file(path, write_job, job, err);
    cm_status_t ret = write_job(stdout, job, err);
    if (ret == CM_OK && fflush(stdout) != 0)
        ret = CM_ERR(err, CM_ERR_IO, "writing standard output: %s", strerror(errno));
    return ret;
}

static cm_status_t draw_timemap(FILE *out, an_model_t *const *m, int n, const args_t *a,
                                const viz_opts_t *o, cm_err_t *err)
{
    (void)a;
    return viz_timemap(out, m, n, o, err);
}

static cm_status_t draw_departures(FILE *out, an_model_t *const *m, int n, const args_t *a,
                                   const viz_opts_t *o, cm_err_t *err)
{
    (void)a;
    return viz_departures(out, m, n, o, err);
}

static cm_status_t draw_orders(FILE *out, an_model_t *const *m, int n, const args_t *a,
                               const viz_opts_t *o, cm_err_t *err)
{
    (void)a, (void)n;
    return viz_orders(out, m[0], o, err);
}

static cm_status_t draw_pap(FILE *out, an_model_t *const *m, int n, const args_t *a,
                            const viz_opts_t *o, cm_err_t *err)
{
    (void)a, (void)n;
    return viz_pap(out, m[0], o, err);
}

static cm_status_t draw_schedule(FILE *out, an_model_t *const *m, int n, const args_t *a,
                                 const viz_opts_t *o, cm_err_t *err)
{
    (void)a, (void)n;
    return viz_schedule(out, m[0], o, err);
}

static cm_status_t draw_tree(FILE *out, an_model_t *const *m, int n, const args_t *a,
                             const viz_opts_t *o, cm_err_t *err)
{
    (void)n;
    return viz_tree(out, m[0], a->db != NULL, o, err);
}

/* What each command needs (inputs: how many databases it takes) and what
   its success line calls what it wrote ("Timemap: out/x.svg"). */
typedef struct command {
    const char *name;
    draw_fn_t  *draw;
    int         max_inputs;
    int         needs_wrapper;
    const char *title;
} command_t;

static const command_t commands[] = {
    { "timemap",    draw_timemap,    MAX_MODELS, 0, "Timemap" },
    { "departures", draw_departures, MAX_MODELS, 1, "Departures" },
    { "orders",     draw_orders,     1,          1, "Orders" },
    { "pap",        draw_pap,        1,          0, "Arrival pattern" },
    { "tree",       draw_tree,       1,          0, "Tree" },
    { "schedule",   draw_schedule,   1,          0, "Schedule" },
    { "report",     NULL,            1,          0, "Report" },
    { "arrivals-by-site", NULL,      1,          0, "Arrivals by call site" },
    { "choices",    NULL,            1,          0, "Choices" },
};

/* Opens the models of a command: databases, or for tree a pathmap/--db. */
static cm_status_t open_models(const args_t *a, an_model_t **models, int *n, cm_err_t *err)
{
    *n = 0;
    if (strcmp(a->cmd, "tree") == 0) {
        const char *src = a->ninputs ? a->inputs[0] : a->db;
        an_model_t *shape = NULL;
        cm_status_t ret = an_is_database(src) ? an_model_open(src, &shape, err)
                                              : load_pathmap(a, &shape, err);
        if (ret != CM_OK || a->db == NULL || src == a->db) {
            models[(*n)++] = shape;
            return ret == CM_OK ? CM_OK : (*n = 0, ret);
        }
        models[(*n)++] = shape;
        if (an_model_open(a->db, &models[*n], err) != CM_OK)
            return err->status;
        (*n)++;
        if (!same_tree(&shape->tree, &models[1]->tree))
            return CM_ERR_AT(err, CM_ERR_MISMATCH, a->db, 0, 0, "its tree is not the tree of "
                             "%s (trace another run, or drop --db)", src);
        models[0] = models[1];          /* draw the database's tree, same shape */
        models[1] = shape;
        return CM_OK;
    }
    for (int i = 0; i < a->ninputs; i++) {
        if (an_model_open(a->inputs[i], &models[i], err) != CM_OK)
            return err->status;
        *n = i + 1;
    }
    return CM_OK;
}

/* Checks the arguments against what the command takes; 0 or 2. */
static int check_args(const args_t *a, const command_t *c)
{
    int inputs_ok = strcmp(c->name, "tree") == 0 ? a->ninputs <= 1 && (a->ninputs || a->db)
                                                 : a->ninputs >= 1 && a->ninputs <= c->max_inputs;
    if (!inputs_ok) {
        fprintf(stderr, "papviz %s: %s\n", c->name, a->ninputs == 0 ? "no database given"
                : c->max_inputs == 1 ? "give one database (only timemap and departures compare)"
                : "too many databases");
        return 2;
    }
    if (c->needs_wrapper && a->wrapper == NULL) {
        fprintf(stderr, "papviz %s: give --wrapper NAME or --subtree NAME\n", c->name);
        return 2;
    }
    int sched = strcmp(c->name, "schedule") == 0;
    if (!sched && (a->has_op || a->has_instance || a->mean)) {
        fprintf(stderr, "papviz %s: --op, --instance and --mean are options of schedule\n",
                c->name);
        return 2;
    }
    if (sched && a->mean && (a->has_op || a->has_instance)) {
        fprintf(stderr, "papviz schedule: give --op N or --mean, not both\n");
        return 2;
    }
    if (sched && a->has_instance && !a->has_op) {
        fprintf(stderr, "papviz schedule: --instance needs --op N\n");
        return 2;
    }
    if (sched && a->subtree) {
        fprintf(stderr, "papviz schedule: name the algorithm node with --wrapper NAME\n");
        return 2;
    }
    if (a->nlabels > a->ninputs) {
        fprintf(stderr, "papviz: more --label than databases\n");
        return 2;
    }
    return 0;
}

/* Input checks before anything is opened: every database or pathmap (and
 * --db) is a regular file (a FIFO would block its reader), and -o is none of
 * them.  0, or 1 after printing the error. */
static int check_inputs(const args_t *a)
{
    const char *in[MAX_MODELS + 1];
    int n = 0;
    struct stat sb;
    cm_err_t err;

    cm_err_clear(&err);
    for (int i = 0; i < a->ninputs; i++)
        in[n++] = a->inputs[i];
    if (a->db != NULL)
        in[n++] = a->db;
    for (int i = 0; i < n; i++)      /* a missing file is the loader's to report */
        if (stat(in[i], &sb) == 0 && an_check_input(in[i], NULL, &err) != CM_OK)
            goto fail;
    if (a->output != NULL && strcmp(a->output, "-") != 0
        && an_check_not_input(a->output, in, n, &err) != CM_OK)
        goto fail;
    return 0;
fail:
    cm_err_print(stderr, "papviz: ", &err);
    return 1;
}

/*
 * Where report goes without -o: beside a trace directory for its database
 * (out/split/traces.db -> out/split-report), because gsum --force replaces a
 * trace directory only while it holds nothing but the trace; report/ beside
 * any other database.
 */
static void default_report_dir(const char *db, char *dir, size_t len)
{
    const char *slash = strrchr(db, '/'), *parent = slash;
    int in_trace = slash != NULL && slash != db && strcmp(slash + 1, "traces.db") == 0;

    while (in_trace && parent > db && parent[-1] != '/')
        parent--;
    /* ./traces.db, ../traces.db: no name to put "-report" after. */
    if (in_trace && (strncmp(parent, "./", 2) == 0 || strncmp(parent, "../", 3) == 0))
        in_trace = 0;

    if (in_trace)
        snprintf(dir, len, "%.*s-report", (int)(slash - db), db);
    else
        snprintf(dir, len, "%.*sreport", slash ? (int)(slash - db + 1) : 0, db);
}

/*
 * 1 if the chart went to a regular file of its own at path: not to standard
 * output ("-", or -o naming a link to it, a FIFO, a device), where a line
 * after the SVG would corrupt it.
 */
static int wrote_file(const char *path)
{
    struct stat sb, so;

    if (path == NULL || strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    return fstat(STDOUT_FILENO, &so) != 0 || so.st_dev != sb.st_dev || so.st_ino != sb.st_ino;
}

static cm_status_t write_arrivals(FILE *out, void *ctx, cm_err_t *err)
{
    return viz_arrivals_by_site(out, ctx, err);
}

/* papviz arrivals-by-site: an application trace's model, not the tree's. */
static cm_status_t run_arrivals(const args_t *a, const command_t *c, cm_err_t *err)
{
    an_model_mpi_t *m = NULL;
    cm_status_t ret = an_model_mpi_open(a->inputs[0], &m, err);

    if (ret == CM_OK && a->output != NULL && strcmp(a->output, "-") != 0) {
        ret = viz_write_file(a->output, write_arrivals, m, err);
    } else if (ret == CM_OK) {
        ret = viz_arrivals_by_site(stdout, m, err);
        if (ret == CM_OK && fflush(stdout) != 0)
            ret = CM_ERR(err, CM_ERR_IO, "writing standard output: %s", strerror(errno));
    }
    if (ret == CM_OK && !a->quiet && wrote_file(a->output))
        printf("%s: %s\n", c->title, a->output);
    an_model_mpi_close(m);
    return ret;
}

static cm_status_t write_choices(FILE *out, void *ctx, cm_err_t *err)
{
    return viz_choices(out, ctx, err);
}

/* papviz choices: auto's choices, from either kind of database. */
static cm_status_t run_choices(const args_t *a, const command_t *c, cm_err_t *err)
{
    an_model_choices_t *m = NULL;
    cm_status_t ret = an_model_choices_open(a->inputs[0], &m, err);

    if (ret == CM_OK && a->output != NULL && strcmp(a->output, "-") != 0) {
        ret = viz_write_file(a->output, write_choices, m, err);
    } else if (ret == CM_OK) {
        ret = viz_choices(stdout, m, err);
        if (ret == CM_OK && fflush(stdout) != 0)
            ret = CM_ERR(err, CM_ERR_IO, "writing standard output: %s", strerror(errno));
    }
    if (ret == CM_OK && !a->quiet && wrote_file(a->output))
        printf("%s: %s\n", c->title, a->output);
    an_model_choices_close(m);
    return ret;
}

/* papviz report: the text report into memory, then viz_report. */
static cm_status_t run_report(const args_t *a, an_model_t *m, cm_err_t *err)
{
    char *text = NULL, dir[4096];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    an_report_opts_t ropts = { .format = AN_FMT_TEXT, .thread = -1 };
    if (mem == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    cm_status_t ret = an_report(a->inputs[0], &ropts, mem, err);
    fclose(mem);
    if (a->output != NULL)
        snprintf(dir, sizeof dir, "%s", a->output);
    else
        default_report_dir(a->inputs[0], dir, sizeof dir);
    if (ret == CM_OK)
        ret = viz_report(dir, m, text, err);
    if (ret == CM_OK && !a->quiet)
        printf("Report: %s/index.html\n", dir);
    free(text);
    return ret;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "timeline") == 0)   /* options of its own */
        return papviz_timeline(argc - 1, argv + 1);
    args_t a = { 0 };
    an_model_t *models[MAX_MODELS] = { 0 };
    int nmodels = 0, rc = parse_args(argc, argv, &a);
    cm_err_t err;

    cm_err_clear(&err);
    if (rc != 0) {
        usage(rc < 0 ? stdout : stderr);
        return rc < 0 ? 0 : 2;
    }
    const command_t *c = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(a.cmd, commands[i].name) == 0)
            c = &commands[i];
    if (c == NULL) {
        fprintf(stderr, "papviz: unknown command '%s' (papviz --help lists them)\n", a.cmd);
        return 2;
    }
    if (check_args(&a, c) != 0)
        return 2;
    if (check_inputs(&a) != 0)
        return 1;
    if (strcmp(c->name, "arrivals-by-site") == 0 || strcmp(c->name, "choices") == 0) {
        if ((c->name[0] == 'a' ? run_arrivals(&a, c, &err) : run_choices(&a, c, &err)) == CM_OK)
            return 0;
        cm_err_print(stderr, "papviz: ", &err);
        return 1;
    }
    viz_opts_t o = {
        .bytes = a.bytes, .threads = a.threads, .nthreads = a.nthreads,
        .with_arrival_wait = a.with_wait, .wrapper = a.wrapper, .subtree = a.subtree,
        .labels = a.nlabels ? a.labels : NULL,
        .has_op = a.has_op, .instance = a.instance, .op = a.op, .mean = a.mean,
    };
    cm_status_t ret = open_models(&a, models, &nmodels, &err);
    if (ret == CM_OK && c->draw == NULL)
        ret = run_report(&a, models[0], &err);
    else if (ret == CM_OK) {
        job_t job = { c->draw, models, strcmp(a.cmd, "tree") ? nmodels : 1, &a, &o };
        ret = write_svg(a.output, &job, &err);
        /* The path on success, as report prints its page's. */
        if (ret == CM_OK && !a.quiet && wrote_file(a.output))
            printf("%s: %s\n", c->title, a.output);
    }
    if (ret != CM_OK)
        cm_err_print(stderr, "papviz: ", &err);
    for (int i = 0; i < nmodels; i++)
        an_model_close(models[i]);
    return ret == CM_OK ? 0 : 1;
}
