/*
 * an_analyze.c - one pass: open the trace, create the database, stream the
 * events through the operations into rows and statistics, commit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/an_int.h"
#include "analyze/an_mpi_int.h"
#include "analyze/an_progress_int.h"
#include "analyze/an_read_int.h"
#include "analyze/api/an_analyze.h"

typedef struct run {
    an_ops_t     *ops;
    an_progress_t pr;
} run_t;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * --read-threads, or one per core but one: the analysis and the SQLite
 * writer keep a thread busy each, and on 2 cores one reader beside them is
 * faster than two (docs/benchmarks.md, "Issue 27").  At most one per
 * location with events.
 */
static int an_read_threads_default(int asked, const an_defs_t *d)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = asked > 0 ? asked : cores > 2 ? (int)cores - 1 : 1, withev = 0;

    for (int i = 0; i < d->nlocs; i++)
        withev += d->locs[i].events > 0;
    return n < withev ? n : withev > 0 ? withev : 1;
}

static void on_progress(void *ud, uint64_t events)
{
    an_progress_tick(&((run_t *)ud)->pr, events);
}

static cm_status_t visit(void *ud, const an_visit_t *v, cm_err_t *err)
{
    return an_ops_visit(((run_t *)ud)->ops, v, err);
}

static cm_status_t msg(void *ud, const an_msg_t *m, cm_err_t *err)
{
    return an_ops_msg(((run_t *)ud)->ops, m, err);
}

static void default_db(const char *trace, char *out, size_t n)
{
    size_t len = strlen(trace);
    const char *ext = ".otf2";

    if (len > strlen(ext) && strcmp(trace + len - strlen(ext), ext) == 0)
        snprintf(out, n, "%.*s.db", (int)(len - strlen(ext)), trace);
    else
        snprintf(out, n, "%s.db", trace);
}

cm_status_t an_analyze(const an_opts_t *opts, an_result_t *res, cm_err_t *err)
{
    an_defs_t defs;
    an_files_t files;
    const an_file_t *same;
    an_reader_t *rd = NULL;
    an_db_t *db = NULL;
    run_t run = { 0 };
    an_auto_t autos = { NULL, 0, 0 };
    char buf[32];
    cm_status_t st;
    double t0 = now();

    memset(res, 0, sizeof(*res));
    if (opts->db != NULL)
        snprintf(res->db, sizeof(res->db), "%s", opts->db);
    else
        default_db(opts->trace, res->db, sizeof(res->db));
    /* every file of the archive is a regular file, and none is the output */
    if ((st = an_archive_scan(opts->trace, &files, err)) != CM_OK)
        return st;
    same = an_files_find(&files, res->db);
    if (same != NULL)
        st = CM_ERR_AT(err, CM_ERR_INVALID, res->db, 0, 0, "is %s, a file of the trace: the "
                       "database must not replace its input (give another -o)", same->path);
    an_files_free(&files);
    if (st != CM_OK)
        return st;
    /* an application trace of the profiling library (an_mpi_int.h); its
     * anchor is loaded by OTF2 only after the check in a child process */
    if ((st = an__anchor_check(opts->trace, err)) != CM_OK)
        return st;
    if (an_mpi_is_archive(opts->trace)) {
        st = an_mpi_analyze(opts, res, err);
        res->seconds = now() - t0;
        return st;
    }
    if (opts->ranks != NULL || opts->call_site != NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, opts->trace, 0, 0, "%s: a tree trace's "
                         "operations need every host and have no call site (application "
                         "traces only; --ops A:B takes part of a tree trace)",
                         opts->ranks != NULL ? "--ranks" : "--call-site");
    if ((st = an_reader_open(opts->trace, &defs, &rd, err)) != CM_OK)
        return st;
    st = an_db_create(res->db, opts->force, &db, err);
    if (st == CM_OK && ((st = an_db_defs(db, &defs)) != CM_OK
                        || (st = an_db_meta(db, "trace", opts->trace)) != CM_OK
                        || (st = an_db_meta(db, "papanalyze", opts->command ? opts->command
                                                                              : "papanalyze"))
                           != CM_OK))
        st = CM_ERR_AT(err, st, res->db, 0, 0, "cannot write the database: %s",
                       an_db_errmsg(db));
    if (st == CM_OK)
        st = an_ops_create(&defs, db, opts->skip, &run.ops, err);
    if (st == CM_OK) {
        an_progress_init(&run.pr, defs.nevents, opts->progress);
        an_reader_collect_auto(rd, &autos);
        an_reader_part(rd, an_read_threads_default(opts->read_threads, &defs),
                       opts->ops_part ? opts->op_first : 0,
                       opts->ops_part ? opts->op_last : UINT64_MAX);
        st = an_reader_run(rd, visit, msg, &run, on_progress, err);
    }
    if (st == CM_OK)
        st = an_ops_finish(run.ops, err);
    if (st == CM_OK && defs.algo >= 0)
        st = an__auto_write(an__db_conn(db), &autos, AN_AUTO_TREE, defs.nodes[defs.algo].name,
                            err);
    if (st == CM_OK && opts->baseline != NULL)
        st = autos.n == 0 ? CM_ERR_AT(err, CM_ERR_INVALID, opts->trace, 0, 0, "--baseline: the "
                                      "trace has no choice of auto to compare")
                          : an__auto_baseline(an__db_conn(db), opts->baseline, err);
    if (st == CM_OK) {
        res->ops = an_ops_count(run.ops, &res->ops_used);
        /* A database without a used operation has no statistics to report:
         * refuse it, so that an existing database is not replaced by it. */
        if (res->ops == 0 && opts->ops_part)
            st = CM_ERR_AT(err, CM_ERR_INVALID, opts->trace, 0, 0, "--ops %" PRIu64 ":%" PRIu64
                           ": the trace has no operation in that range: nothing written",
                           opts->op_first, opts->op_last);
        else if (res->ops_used == 0)
            st = CM_ERR_AT(err, CM_ERR_INVALID, opts->trace, 0, 0, "no operation left after "
                           "--skip %" PRIu64 " (the trace has %" PRIu64 " operations in all): "
                           "nothing written (use a smaller --skip)", opts->skip, res->ops);
    }
    if (st == CM_OK) {
        res->events = defs.nevents;
        res->events_read = rd->nread;
        for (int i = 0; i < defs.nlocs; i++)
            res->visits += defs.locs[i].visits;
        const struct { const char *k; uint64_t v; } m[] = {
            { "skip", opts->skip }, { "visits", res->visits }, { "ops", res->ops },
            { "ops_used", res->ops_used }, { "events_read", res->events_read },
            { "read_threads", (uint64_t)rd->nthreads }, { "ops_first", opts->op_first },
            { "ops_last", opts->op_last },
        };
        for (size_t i = 0; i < sizeof(m) / sizeof(m[0]) && st == CM_OK; i++) {
            snprintf(buf, sizeof(buf), "%" PRIu64, m[i].v);
            if (strcmp(m[i].k, "ops_first") == 0 && !opts->ops_part)
                break;            /* the whole trace: no part recorded */
            if ((st = an_db_meta(db, m[i].k, buf)) != CM_OK)
                st = CM_ERR_AT(err, st, res->db, 0, 0, "cannot write the database: %s",
                               an_db_errmsg(db));
        }
    }
    an_ops_free(run.ops);
    an__auto_free(&autos);
    an_reader_close(rd);
    if (st == CM_OK) {
        st = an_db_commit(db, err);
    } else {
        an_db_abort(db);
    }
    an_defs_free(&defs);
    res->seconds = now() - t0;
    return st;
}

int an_is_database(const char *path)
{
    char head[16] = { 0 };
    struct stat sb;
    FILE *fp;
    int yes;

    /* only a regular file is opened: a FIFO would block the read */
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || (fp = fopen(path, "rb")) == NULL)
        return 0;
    yes = fread(head, 1, sizeof(head), fp) == sizeof(head)
          && memcmp(head, "SQLite format 3", 16) == 0;
    fclose(fp);
    return yes;
}
