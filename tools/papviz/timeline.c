/*
 * timeline.c - papviz timeline: a database (or a trace, analysed on the way
 * into a temporary database) as trace-event JSON for Perfetto and Chrome's
 * trace viewer (docs/timeline.md).
 *
 *   papviz timeline DB|TRACE [-o FILE] [--ops A:B] [--from T] [--to T]
 *                   [--estimate] [--max-mb N] [-q]
 *
 * Before writing, the size: what the window holds, counted with SQL, times
 * the bytes an event of each kind takes in the file (measured on the demo's
 * and an algorithm node's timelines), on standard error; --estimate stops
 * there, and a file over --max-mb is refused with a window that would fit.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/api/an_analyze.h"
#include "analyze/api/an_model.h"
#include "common/cm_opt.h"
#include "tools/papviz/papviz_int.h"
#include "viz/api/viz.h"

/* Bytes in the file per slice of each kind and per flow (its two events),
 * measured: the demo's 3.2 M-event timeline (263 bytes a visit, 82 + 93 a
 * flow), an auto tree's rounds (187), an application's calls (233); a little
 * more for larger times and ids. */
#define B_WRAPPER 280
#define B_ROUND   200
#define B_MPI     250
#define B_FLOW    185
#define B_TRACK   200

typedef struct tl_args {
    const char    *input, *output;
    an_tl_window_t w;
    int            estimate, quiet;
    long           max_mb;
} tl_args_t;

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: papviz timeline DB|TRACE [-o FILE] [--ops A:B] [--from T] [--to T]\n"
"                       [--estimate] [--max-mb N] [-q]\n"
"Writes the run as trace-event JSON, which ui.perfetto.dev and Chrome's trace\n"
"viewer open (drag the file onto the page): a process per host, a track per\n"
"thread, link and algorithm location, a slice per wrapper visit, algorithm\n"
"round and profiling-library call, flow arrows for the proxies' requests and\n"
"replies and the algorithm's messages, the pathmap and the report's headline\n"
"in the metadata (docs/timeline.md).  A trace (DIR/traces.otf2) is analysed\n"
"into a temporary database first.\n"
"\n"
"  -o, --output FILE  the JSON (default: standard output), written whole or not\n"
"      --ops A:B      operations A to B only (tree traces: op; application\n"
"                     traces: seq on each communicator); of a trace, only those\n"
"                     are read\n"
"      --from T, --to T  the slices that overlap [T, T'] only (a number and ns,\n"
"                     us, ms or s, on the run's time line: 0 is its first event)\n"
"      --estimate     print the size the file would have, write nothing\n"
"      --max-mb N     refuse a file larger than N MB (default 1024: browsers\n"
"                     struggle with larger JSON)\n"
"  -q, --quiet        no size estimate, no progress, no final line\n"
"  -h, --help         this text\n"
"Exit status: 0 done, 1 bad input, too large or failure (no partial file),\n"
"2 usage error.\n");
}

/* "2ms", "1.5 s", "300us", "1000ns" -> ns. */
static cm_status_t parse_time(cm_opt_t *ctx, const char *opt, const char *arg, int64_t *ns)
{
    static const struct { const char *unit; double ns; } units[] = {
        { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
    };
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    while (*end == ' ')
        end++;
    for (size_t i = 0; errno == 0 && end != arg && v >= 0 && i < sizeof(units) / sizeof(units[0]);
         i++)
        if (strcmp(end, units[i].unit) == 0 && v * units[i].ns < 9.2e18) {
            *ns = (int64_t)(v * units[i].ns + 0.5);
            return CM_OK;
        }
    return cm_opt_fail(ctx, CM_ERR_SYNTAX, opt, "'%s' is not a time, expected a number >= 0 "
                       "and ns, us, ms or s (2ms, 1.5s)", arg);
}

static int parse(int argc, char **argv, tl_args_t *a)
{
    enum { O_OPS = 256, O_FROM, O_TO, O_ESTIMATE, O_MAXMB };
    static const struct option lo[] = {
        { "output", required_argument, NULL, 'o' }, { "ops", required_argument, NULL, O_OPS },
        { "from", required_argument, NULL, O_FROM }, { "to", required_argument, NULL, O_TO },
        { "estimate", no_argument, NULL, O_ESTIMATE },
        { "max-mb", required_argument, NULL, O_MAXMB }, { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    const char *opt;
    cm_opt_t ctx;
    int c;

    cm_opt_init(&ctx, "papviz timeline");
    a->max_mb = 1024;
    while ((c = cm_opt_next(&ctx, argc, argv, ":o:qh", lo, &opt)) != -1) {
        switch (c) {
        case 'o': a->output = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h': return -1;
        case O_ESTIMATE: a->estimate = 1; break;
        case O_MAXMB: cm_opt_long(&ctx, opt, optarg, 1, 1L << 30, &a->max_mb); break;
        case O_OPS:
            if (cm_opt_size_range(&ctx, opt, optarg, 0, INT64_MAX, &a->w.op_first,
                                  &a->w.op_last) == CM_OK)
                a->w.has_ops = 1;
            break;
        case O_FROM:
            if (parse_time(&ctx, opt, optarg, &a->w.from_ns) == CM_OK)
                a->w.has_from = 1;
            break;
        case O_TO:
            if (parse_time(&ctx, opt, optarg, &a->w.to_ns) == CM_OK)
                a->w.has_to = 1;
            break;
        default: cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "unexpected option"); break;
        }
    }
    if (ctx.status == CM_OK && optind != argc - 1)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "%s", optind >= argc ? "no database or trace "
                    "given" : "give one database or trace");
    if (ctx.status == CM_OK && a->w.has_from && a->w.has_to && a->w.to_ns < a->w.from_ns)
        cm_opt_fail(&ctx, CM_ERR_INVALID, "--to", "ends before --from");
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        return 2;
    }
    a->input = argv[optind];
    return 0;
}

typedef struct tl_job {
    an_timeline_t      *tl;
    const viz_tl_info_t *info;
} tl_job_t;

static cm_status_t write_json(FILE *out, void *ctx, cm_err_t *err)
{
    tl_job_t *j = ctx;

    return viz_timeline(out, j->tl, j->info, err);
}

/* The trace into dir/traces.db (progress unless quiet); only --ops's part. */
static cm_status_t analyse(const tl_args_t *a, char *dir, char *db, size_t n, cm_err_t *err)
{
    const char *tmp = getenv("TMPDIR");
    an_opts_t o = { 0 };
    an_result_t res;

    snprintf(dir, n, "%s/papviz-timeline.XXXXXX", tmp != NULL && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        return CM_ERR_AT(err, CM_ERR_IO, dir, 0, 0, "cannot make a temporary directory: %s",
                         strerror(errno));
    if ((size_t)snprintf(db, n, "%s/traces.db", dir) >= n) {
        rmdir(dir);
        dir[0] = '\0';
        return CM_ERR(err, CM_ERR_IO, "TMPDIR is too long a path");
    }
    o.trace = a->input;
    o.db = db;
    o.progress = !a->quiet;
    o.command = "papviz timeline";
    o.ops_part = a->w.has_ops;
    o.op_first = a->w.op_first;
    o.op_last = a->w.op_last;
    return an_analyze(&o, &res, err);
}

static void cleanup(const char *dir, const char *db)
{
    if (dir[0] == '\0')
        return;
    unlink(db);
    rmdir(dir);
}

int papviz_timeline(int argc, char **argv)
{
    tl_args_t a = { 0 };
    an_timeline_t *tl = NULL;
    an_tl_counts_t c;
    char dir[4096] = "", tmpdb[4096] = "";
    const char *db;
    cm_err_t err;
    cm_status_t st;
    int rc = parse(argc, argv, &a);
    double mb;

    cm_err_clear(&err);
    if (rc != 0) {
        usage(rc < 0 ? stdout : stderr);
        return rc < 0 ? 0 : 2;
    }
    st = an_check_input(a.input, "give a database or the archive's anchor file, "
                        "DIR/traces.otf2", &err);
    if (st == CM_OK && a.output != NULL && strcmp(a.output, "-") != 0)
        st = an_check_not_input(a.output, &a.input, 1, &err);
    db = a.input;
    if (st == CM_OK && !an_is_database(a.input)) {
        st = analyse(&a, dir, tmpdb, sizeof dir, &err);
        db = tmpdb;
    }
    if (st == CM_OK)
        st = an_tl_open(db, &a.w, &tl, &err);
    if (st == CM_OK)
        st = an_tl_count(tl, &c, &err);
    if (st == CM_OK) {
        uint64_t slices = c.wrapper + c.round + c.mpi, flows = c.proxy + c.msg;

        mb = ((double)c.wrapper * B_WRAPPER + (double)c.round * B_ROUND
              + (double)c.mpi * B_MPI + (double)flows * B_FLOW
              + (double)tl->ntracks * B_TRACK) / 1e6;
        if (!a.quiet || a.estimate)
            fprintf(stderr, "papviz: timeline: %" PRIu64 " slices, %" PRIu64 " flows, about "
                    "%.1f MB\n", slices, flows, mb);
        if (!a.estimate && mb > (double)a.max_mb) {
            uint64_t ops = 0, first = 0;

            an_tl_op_range(tl, &first, &ops);
            if (ops > 0)
                st = CM_ERR(&err, CM_ERR_INVALID, "the timeline would take about %.0f MB, more "
                            "than --max-mb %ld: take a window, such as --ops %" PRIu64 ":%"
                            PRIu64 ", or raise --max-mb", mb, a.max_mb, first,
                            first + (uint64_t)((double)ops * (double)a.max_mb / mb * 0.9));
            else
                st = CM_ERR(&err, CM_ERR_INVALID, "the timeline would take about %.0f MB, more "
                            "than --max-mb %ld: take a window (--ops, --from/--to) or raise "
                            "--max-mb", mb, a.max_mb);
        }
    }
    if (st == CM_OK && !a.estimate) {
        viz_tl_info_t info = { dir[0] ? NULL : a.input, dir[0] ? a.input : NULL, &a.w };
        tl_job_t job = { tl, &info };

        if (a.output != NULL && strcmp(a.output, "-") != 0) {
            st = viz_write_file(a.output, write_json, &job, &err);
            if (st == CM_OK && !a.quiet)
                printf("Timeline: %s\n", a.output);
        } else {
            st = viz_timeline(stdout, tl, &info, &err);
            if (st == CM_OK && fflush(stdout) != 0)
                st = CM_ERR(&err, CM_ERR_IO, "writing standard output: %s", strerror(errno));
        }
    }
    an_tl_close(tl);
    cleanup(dir, tmpdb);
    if (st != CM_OK) {
        cm_err_print(stderr, "papviz: ", &err);
        return 1;
    }
    return 0;
}
