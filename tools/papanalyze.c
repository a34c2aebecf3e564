/*
 * papanalyze - a paptree OTF2 trace into an SQLite database, and a report.
 *
 *   papanalyze [options] TRACE/traces.otf2    analyse, write TRACE/traces.db, report
 *   papanalyze [options] DB                   report from an existing database
 *   papanalyze --advise ...                   + the advice (docs/pathgen.md, "Advice")
 *
 * Exit status: 0 done, 1 bad input or a failure (nothing replaced), 2 usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cm_argv.h"
#include "common/cm_opt.h"
#include "advise/api/adv_advise.h"
#include "analyze/api/an_analyze.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: papanalyze [options] TRACE/traces.otf2\n"
"       papanalyze [options] DATABASE.db\n"
"Reads a trace written by `gsum --trace TRACE` (or by `paprun --trace TRACE`:\n"
"an application's collectives, reported by call site) into an SQLite database\n"
"(default TRACE/traces.db, replaced atomically) with every metric of the\n"
"PATHS/EventSpace paper (section 4) and the arrival-pattern metrics, then\n"
"prints a report.  Given a database, prints its report only.\n"
"Schema and definitions: docs/analysis-db.md.\n"
"\n"
"  -o, --output DB      write the database to DB\n"
"      --skip N         operations left out at the start of each series (10)\n"
"  -f, --format FMT     report as text (default), csv or json\n"
"      --thread T       Table 2 for thread T (default: the slowest thread)\n"
"      --wrapper NAME   Table 1 and the subtree table for wrapper NAME only\n"
"  -q, --quiet          no report and no progress; errors only\n"
"      --read-threads N OTF2 readers, each over a share of the trace's\n"
"                       locations, beside the analysis and the SQLite writer\n"
"                       (default: one per core but one, 1 on 2 cores; at\n"
"                       most one per location)\n"
"      --ops A:B        only operations A to B (tree traces: op; application\n"
"                       traces: seq on each communicator); the rest is not read\n"
"                       where OTF2 allows it (docs/analysis-db.md, \"Large\n"
"                       traces\")\n"
"      --ranks LIST     only these ranks (comma-separated): application traces\n"
"      --call-site SITE only the calls of one call site (its label FILE:LINE,\n"
"                       function or MODULE+0xOFF): application traces\n"
"      --no-report      write the database, print one summary line\n"
"      --force          replace an output file that is not a papanalyze database\n"
"      --baseline DB    the database of the same program run with a fixed\n"
"                       algorithm: auto's measured time per call site (or node)\n"
"                       and size class against it, in the report's \"Algorithm\n"
"                       choices\" (docs/auto.md); needs a trace with auto\n"
"      --advise         the reconfigurations the hotspots point at, as pathgen\n"
"                       edits (docs/pathgen.md, \"Advice\"): after the report of\n"
"                       a trace (alone with --no-report), instead of the report\n"
"                       of a database; text or csv (same as pathgen advise DB).\n"
"                       An application trace's advice (--algo rules) is part of\n"
"                       its report: --advise prints that report\n"
"  -h, --help           this text\n"
"Exit status: 0 done, 1 bad input or failure (an existing database is left\n"
"intact), 2 usage error.\n");
}

#define RANKS_MAX 65536

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* --ranks 0,3,5: ascending, each once, into opts (static storage). */
static cm_status_t parse_ranks(cm_opt_t *ctx, const char *opt, const char *arg,
                               an_opts_t *opts)
{
    static long v[RANKS_MAX];
    static int ranks[RANKS_MAX];
    size_t n;

    if (cm_opt_long_list(ctx, opt, arg, ',', 0, RANKS_MAX - 1, v, RANKS_MAX, &n) != CM_OK)
        return ctx->status;
    for (size_t i = 0; i < n; i++)
        ranks[i] = (int)v[i];
    qsort(ranks, n, sizeof(ranks[0]), cmp_int);
    for (size_t i = 1; i < n; i++)
        if (ranks[i] == ranks[i - 1])
            return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "rank %d given twice", ranks[i]);
    opts->ranks = ranks;
    opts->nranks = (int)n;
    return CM_OK;
}

/* Option c's value: CM_OK or the error, recorded in ctx. */
static cm_status_t apply_opt(cm_opt_t *ctx, int c, const char *opt, const char *arg,
                             an_opts_t *opts, an_report_opts_t *ropts)
{
    static const cm_opt_word_t formats[] = { { "text", AN_FMT_TEXT }, { "csv", AN_FMT_CSV },
                                             { "json", AN_FMT_JSON } };
    long v;
    int w;

    switch (c) {
    case 'o': opts->db = arg; return CM_OK;
    case 'S':
        if (cm_opt_long(ctx, opt, arg, 0, UINT32_MAX, &v) == CM_OK)
            opts->skip = (uint64_t)v;
        return ctx->status;
    case 'T': return cm_opt_int(ctx, opt, arg, 0, 1 << 30, &ropts->thread);
    case 'W': ropts->wrapper = arg; return CM_OK;
    case 'B':
        if (!an_is_database(arg))
            return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "'%s' is not a papanalyze database "
                               "(analyse the fixed run's trace first: papanalyze "
                               "FIXED/traces.otf2 writes FIXED/traces.db)", arg);
        opts->baseline = arg;
        return CM_OK;
    case 'f':
        if (cm_opt_word(ctx, opt, arg, formats, 3, &w) == CM_OK)
            ropts->format = (an_format_t)w;
        return ctx->status;
    case 'J': return cm_opt_int(ctx, opt, arg, 1, 256, &opts->read_threads);
    case 'O':
        opts->ops_part = 1;
        return cm_opt_size_range(ctx, opt, arg, 0, UINT64_MAX - 1, &opts->op_first,
                                 &opts->op_last);
    case 'C': opts->call_site = arg; return CM_OK;
    case 'R': return parse_ranks(ctx, opt, arg, opts);
    default: return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "unexpected option");
    }
}

/* The advice of db on stdout; after a report, under a title of its own. */
static cm_status_t print_advice(const char *db, an_format_t format, int after_report,
                                cm_err_t *err)
{
    adv_opts_t aopts = { .format = format };

    if (after_report)
        fputs(format == AN_FMT_CSV ? "\n# table: advice\n"
                                   : "\nAdvice: reconfigurations, best first (docs/pathgen.md)\n",
              stdout);
    return adv_advise(db, &aopts, stdout, err);
}

int main(int argc, char **argv)
{
    enum { O_NOREPORT = 256, O_FORCE, O_ADVISE };
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "skip", required_argument, NULL, 'S' },
        { "format", required_argument, NULL, 'f' }, { "thread", required_argument, NULL, 'T' },
        { "wrapper", required_argument, NULL, 'W' }, { "quiet", no_argument, NULL, 'q' },
        { "no-report", no_argument, NULL, O_NOREPORT }, { "force", no_argument, NULL, O_FORCE },
        { "advise", no_argument, NULL, O_ADVISE },
        { "baseline", required_argument, NULL, 'B' },
        { "read-threads", required_argument, NULL, 'J' }, { "ops", required_argument, NULL, 'O' },
        { "ranks", required_argument, NULL, 'R' }, { "call-site", required_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    an_opts_t opts = { .skip = 10, .progress = 1 };
    an_report_opts_t ropts = { .format = AN_FMT_TEXT, .thread = -1 };
    int quiet = 0, report = 1, advise = 0, bad_value = 0, is_db, c;
    an_result_t res;
    cm_err_t err;
    const char *opt;
    cm_opt_t ctx;
    cm_status_t st;
    char *command;

    cm_err_clear(&err);
    cm_opt_init(&ctx, "papanalyze");
    while ((c = cm_opt_next(&ctx, argc, argv, ":o:f:qh", longopts, &opt)) != -1) {
        switch (c) {
        case 'q': quiet = 1; break;
        case O_NOREPORT: report = 0; break;
        case O_FORCE: opts.force = 1; break;
        case O_ADVISE: advise = 1; break;
        case 'h': usage(stdout); return 0;
        default: apply_opt(&ctx, c, opt, optarg, &opts, &ropts); break;
        }
    }
    bad_value = ctx.status != CM_OK && ctx.name[0] != '\0';
    if (ctx.status == CM_OK && optind != argc - 1)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "%s",
                    optind >= argc ? "no trace given" : "give one trace or database");
    else if (ctx.status == CM_OK && advise && ropts.format == AN_FMT_JSON)
        cm_opt_fail(&ctx, CM_ERR_INVALID, "--advise", "the advice comes as text or csv, "
                    "not json");
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        if (!bad_value)         /* the line says it all for a bad value */
            usage(stderr);
        return 2;
    }
    opts.trace = argv[optind];
    opts.progress = !quiet;
    /* a FIFO or device is refused before anything opens it */
    if (an_check_input(opts.trace, "give the archive's anchor file, DIR/traces.otf2, "
                       "or a database", &err) != CM_OK) {
        cm_err_print(stderr, "papanalyze: ", &err);
        return 1;
    }
    if ((is_db = an_is_database(opts.trace)) != 0) {
        const char *needs = opts.db != NULL ? "-o" : opts.baseline != NULL ? "--baseline"
                          : opts.read_threads != 0 ? "--read-threads"
                          : opts.ops_part ? "--ops"
                          : opts.ranks != NULL ? "--ranks" : opts.call_site ? "--call-site" : NULL;
        if (needs != NULL) {
            fprintf(stderr, "papanalyze: %s needs a trace, and %s is a database\n", needs,
                    opts.trace);
            return 2;
        }
        snprintf(res.db, sizeof(res.db), "%s", opts.trace);
    } else {
        if ((command = cm_argv_join(argc, argv)) == NULL) {
            fprintf(stderr, "papanalyze: out of memory\n");
            return 1;
        }
        opts.command = command;
        st = an_analyze(&opts, &res, &err);
        free(command);
        if (st != CM_OK) {
            cm_err_print(stderr, "papanalyze: ", &err);
            return 1;
        }
        if (!quiet && (!report || ropts.format == AN_FMT_TEXT))
            fprintf(report ? stdout : stderr, "papanalyze: %s: %.2f M events%s, %" PRIu64
                    " operations (%" PRIu64 " used) in %.2f s (%.2f M events/s)\n", res.db,
                    (double)res.events_read / 1e6,
                    res.events_read < res.events ? " read" : "", res.ops, res.ops_used,
                    res.seconds, res.seconds > 0 ? (double)res.events_read / res.seconds / 1e6
                                                 : 0.0);
    }
    if (quiet || (!report && !advise))
        return 0;
    if (advise && an_is_mpi_database(res.db)) {
        advise = 0;                 /* the report of an application trace advises */
        report = 1;
    }
    if (report && !(advise && is_db) && an_report(res.db, &ropts, stdout, &err) != CM_OK) {
        fflush(stdout);
        cm_err_print(stderr, "papanalyze: ", &err);
        return 1;
    }
    if (advise && print_advice(res.db, ropts.format, report && !is_db, &err) != CM_OK) {
        fflush(stdout);
        cm_err_print(stderr, "papanalyze: ", &err);
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
