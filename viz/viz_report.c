/*
 * viz_report.c - one page with every picture of a database: `papviz report`.
 *
 * Writes the SVGs of viz/api/viz.h into a directory and an index.html that shows
 * them (as <object>s, so their tooltips work) next to papanalyze's text
 * report.  The page is static: no script, no network, opens from file://.
 * Every file is written to DIR/NAME.tmp and renamed, so an interrupted run
 * leaves the previous file or the new one, never half of one
 * (viz_write_file, which also follows symbolic links and writes straight
 * into FIFOs and devices).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "viz/api/viz.h"
#include "viz/viz_svg_int.h"

#define PATH_MAX_LEN 4096

/* pathmaps/local/split-4x2.pathmap -> "split-4x2"; "" when the database
   records no pathmap path. */
static void pathmap_label(const an_model_t *m, char *buf, size_t len)
{
    const char *path = m->pathmap_path != NULL ? m->pathmap_path : "";
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t n = strlen(base), ext = strlen(".pathmap");

    if (n > ext && strcmp(base + n - ext, ".pathmap") == 0)
        n -= ext;
    snprintf(buf, len, "%.*s", (int)n, base);
}

/* out/split4/traces.db -> "split4"; out/x.db -> "x" */
static void db_label(const an_model_t *m, char *buf, size_t len)
{
    const char *path = m->db, *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (strcmp(base, "traces.db") == 0 && slash != NULL) {
        const char *start = slash;
        while (start > path && start[-1] != '/')
            start--;
        snprintf(buf, len, "%.*s", (int)(slash - start), start);
    } else {
        size_t n = strlen(base);
        if (n > 3 && strcmp(base + n - 3, ".db") == 0)
            n -= 3;
        snprintf(buf, len, "%.*s", (int)n, base);
    }
    if (buf[0] == '\0')
        snprintf(buf, len, "%s", path);
}

/* 1 if label() gives models[i] the same text as another of the n models. */
static int shared(an_model_t *const *models, int n, int i,
                  void (*label)(const an_model_t *, char *, size_t))
{
    char mine[256], other[256];

    label(models[i], mine, sizeof mine);
    for (int j = 0; j < n; j++) {
        if (j == i)
            continue;
        label(models[j], other, sizeof other);
        if (strcmp(mine, other) == 0)
            return 1;
    }
    return 0;
}

const char *viz_model_label(an_model_t *const *models, int n, const viz_opts_t *o, int i,
                            char *buf, size_t len)
{
    const an_model_t *m = models[i];

    if (o != NULL && o->labels != NULL && o->labels[i] != NULL) {
        snprintf(buf, len, "%s", o->labels[i]);
        return buf;
    }
    pathmap_label(m, buf, len);
    if (buf[0] != '\0' && !shared(models, n, i, pathmap_label))
        return buf;
    db_label(m, buf, len);
    if (!shared(models, n, i, db_label))
        return buf;
    snprintf(buf, len, "%s", m->db);
    return buf;
}

/* One chart of the report: which function, and its options. */
typedef enum { R_TREE, R_TIMEMAP, R_DEPARTURES, R_ORDERS, R_PAP, R_SCHEDULE } chart_t;

static cm_status_t draw(FILE *out, chart_t chart, an_model_t *m, const viz_opts_t *o,
                        cm_err_t *err)
{
    an_model_t *const models[1] = { m };
    switch (chart) {
    case R_TREE:       return viz_tree(out, m, m->nsizes > 0, o, err);
    case R_TIMEMAP:    return viz_timemap(out, models, 1, o, err);
    case R_DEPARTURES: return viz_departures(out, models, 1, o, err);
    case R_ORDERS:     return viz_orders(out, m, o, err);
    case R_PAP:        return viz_pap(out, m, o, err);
    case R_SCHEDULE:   return viz_schedule(out, m, o, err);
    }
    return CM_ERR(err, CM_ERR_INVALID, "unknown chart %d", (int)chart);
}

/* 1 if the symbolic link `link` lives in /proc (as /proc/self/fd/1, where
   /dev/stdout and /dev/fd/N lead): its target is an open descriptor, and
   the text readlink returns for it ("pipe:[42]", or a file's name) is not
   a name to replace. */
static int is_proc_link(const char *link)
{
    const char *slash = strrchr(link, '/');
    char *dir = slash == NULL ? strdup(".")
              : slash == link ? strdup("/") : strndup(link, (size_t)(slash - link));
    char *real = dir ? realpath(dir, NULL) : NULL;
    int proc = real != NULL && strncmp(real, "/proc/", 6) == 0;

    free(real);
    free(dir);
    return proc;
}

/* The target of the symbolic link `link`, as a name from where we stand
   (a relative target is relative to the link's directory), or NULL with
   errno set.  Caller frees. */
static char *link_target(const char *link)
{
    char buf[PATH_MAX_LEN];
    ssize_t n = readlink(link, buf, sizeof buf);

    if (n < 0)
        return NULL;
    if ((size_t)n == sizeof buf) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    buf[n] = '\0';
    const char *slash = strrchr(link, '/');
    if (buf[0] == '/' || slash == NULL)
        return strdup(buf);
    size_t len = (size_t)(slash - link) + 1 + (size_t)n + 1;
    char *joined = malloc(len);
    if (joined != NULL)
        snprintf(joined, len, "%.*s/%s", (int)(slash - link), link, buf);
    return joined;
}

/*
 * Where a chart for `path` goes.  *stream_p = 1: write to path as it is,
 * because it exists and is not a regular file (a FIFO, a terminal, a
 * device) or a link leads to an open descriptor (/dev/stdout).  Otherwise
 * *target_p (caller frees) is the name the rename must replace: path with
 * its symbolic links followed (up to 40, the kernel's own limit), so that
 * the links stay and their final target gets the chart.
 */
static cm_status_t resolve_output(const char *path, char **target_p, int *stream_p,
                                  cm_err_t *err)
{
    struct stat st;
    char *cur;

    *stream_p = 0;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0,
                             "cannot write: a directory has that name");
        *stream_p = 1;
        return CM_OK;
    }
    if ((cur = strdup(path)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int hops = 0; lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        if (is_proc_link(cur)) {
            *stream_p = 1;
            free(cur);
            return CM_OK;
        }
        char *next = hops < 40 ? link_target(cur) : NULL;
        if (next == NULL) {
            cm_status_t ret = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0,
                                        "cannot follow the link %s: %s", cur,
                                        strerror(hops < 40 ? errno : ELOOP));
            free(cur);
            return ret;
        }
        free(cur);
        cur = next;
    }
    *target_p = cur;
    return CM_OK;
}

/* Writes a regular file: `path`.tmp, renamed to path when all went well. */
static cm_status_t write_replace(const char *path, viz_write_fn_t *write, void *ctx,
                                 cm_err_t *err)
{
    size_t len = strlen(path) + 5;
    char *tmp = malloc(len);
    if (tmp == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    snprintf(tmp, len, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    cm_status_t ret = out ? write(out, ctx, err)
                          : CM_ERR_AT(err, CM_ERR_IO, tmp, 0, 0, "cannot write: %s",
                                      strerror(errno));
    if (out != NULL) {
        int bad = ferror(out);
        if ((fclose(out) != 0 || bad) && ret == CM_OK)
            ret = CM_ERR_AT(err, CM_ERR_IO, tmp, 0, 0, "write failed: %s", strerror(errno));
        if (ret == CM_OK && rename(tmp, path) != 0)
            ret = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot rename %s: %s", tmp,
                            strerror(errno));
        if (ret != CM_OK)
            remove(tmp);
    }
    free(tmp);
    return ret;
}

/* Writes straight into what is not a regular file; what was written before
   an error stays written (a stream cannot be taken back). */
static cm_status_t write_stream(const char *path, viz_write_fn_t *write, void *ctx,
                                cm_err_t *err)
{
    FILE *out = fopen(path, "w");
    if (out == NULL)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot write: %s", strerror(errno));
    cm_status_t ret = write(out, ctx, err);
    int bad = ferror(out);
    if ((fclose(out) != 0 || bad) && ret == CM_OK)
        ret = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "write failed: %s", strerror(errno));
    return ret;
}

/*
 * A regular file (or none) is replaced atomically, through a temporary
 * file and a rename; a symbolic link is followed and its final target
 * replaced, so the link stays a link.  Anything else (a FIFO, a terminal,
 * /dev/stdout, /dev/null) is written as it stands: renaming over it would
 * replace the FIFO or device node with a regular file nobody reads.
 */
cm_status_t viz_write_file(const char *path, viz_write_fn_t *write, void *ctx, cm_err_t *err)
{
    char *target = NULL;
    int stream;
    cm_status_t ret = resolve_output(path, &target, &stream, err);

    if (ret != CM_OK)
        return ret;
    ret = stream ? write_stream(path, write, ctx, err) : write_replace(target, write, ctx, err);
    free(target);
    return ret;
}

/* A chart of the report, for viz_write_file. */
typedef struct chart_job {
    chart_t           chart;
    an_model_t       *m;
    const viz_opts_t *o;
} chart_job_t;

static cm_status_t write_chart(FILE *out, void *ctx, cm_err_t *err)
{
    chart_job_t *job = ctx;
    return draw(out, job->chart, job->m, job->o, err);
}

/* Writes dir/name, drawn by `chart`. */
static cm_status_t write_file(const char *dir, const char *name, chart_t chart,
                              an_model_t *m, const viz_opts_t *o, cm_err_t *err)
{
    char path[PATH_MAX_LEN];
    chart_job_t job = { chart, m, o };
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return CM_ERR_AT(err, CM_ERR_INVALID, dir, 0, 0, "path too long");
    return viz_write_file(path, write_chart, &job, err);
}

/* ------------------------------------------------------------ the page */

static const char page_css[] =
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:24px;color:#222;"
    "max-width:1300px}\n"
    "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}\n"
    "h3{font-size:15px}\n"
    "object{display:block;margin:8px 0 20px 0;max-width:100%}\n"
    "pre{background:#f6f6f6;padding:12px;font-size:12px;overflow-x:auto}\n"
    "dt{font-weight:bold}dd{margin:0 0 6px 16px;font-family:monospace}\n"
    "p.note{color:#555}\n";

static void esc(FILE *out, const char *s)
{
    viz_svg_escape(out, s);
}

static void object(FILE *out, const char *file, const char *caption)
{
    fputs("<h3>", out);
    esc(out, caption);
    fprintf(out, "</h3>\n<object type=\"image/svg+xml\" data=\"%s\">%s</object>\n",
            file, file);
}

static void page_head(FILE *out, const an_model_t *m)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
          "paptree report: ", out);
    esc(out, m->trace);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>paptree report</h1>\n"
            "<dl>\n<dt>trace</dt><dd>", page_css);
    esc(out, m->trace);
    fputs("</dd>\n<dt>pathmap</dt><dd>", out);
    esc(out, m->pathmap_path);
    fputs(" (tree ", out);
    esc(out, m->tree.name);
    fputs(")</dd>\n<dt>command</dt><dd>", out);
    esc(out, m->command);
    fputs("</dd>\n<dt>database</dt><dd>", out);
    esc(out, m->db);
    fputs("</dd>\n</dl>\n<p class=\"note\">Hover over any mark for its exact value. Times are"
          " means over the operations in the statistics (see docs/analysis-db.md).</p>\n", out);
}

/* The fastest and slowest thread of a size, as papanalyze's report names
   them (the model carries analyze's one definition). */
static int ends(const an_model_size_t *sz, int out[2])
{
    if (sz->fastest < 0 || sz->slowest < 0)
        return 0;
    out[0] = sz->fastest;
    out[1] = sz->slowest;
    return sz->fastest == sz->slowest ? 1 : 2;
}

/* Writes one chart and shows it on the page. */
static cm_status_t emit(FILE *page, const char *dir, an_model_t *m, const viz_opts_t *o,
                        chart_t chart, const char *name, const char *caption, cm_err_t *err)
{
    cm_status_t ret = write_file(dir, name, chart, m, o, err);
    if (ret == CM_OK)
        object(page, name, caption);
    return ret;
}

/* The per-gred charts of one size, folded away under <details>. */
static cm_status_t report_greds(FILE *page, const char *dir, an_model_t *m, int64_t bytes,
                                cm_err_t *err)
{
    viz_opts_t o = { .bytes = bytes };
    char name[2][96], cap[160];
    cm_status_t ret = CM_OK;

    fputs("<details><summary>Every gred: arrival x departure orders, departures</summary>\n",
          page);
    for (int n = 0; n < m->tree.nwrappers && ret == CM_OK; n++) {
        const an_model_wrapper_t *w = &m->tree.wrappers[n];
        if (w->kind != AN_KIND_GRED || w->fanin < 2)
            continue;
        o.wrapper = w->name;
        snprintf(name[0], sizeof name[0], "orders-n%d-%lld.svg", n, (long long)bytes);
        snprintf(name[1], sizeof name[1], "departures-n%d-%lld.svg", n, (long long)bytes);
        snprintf(cap, sizeof cap, "gred %s", w->name);
        ret = emit(page, dir, m, &o, R_ORDERS, name[0], cap, err);
        if (ret == CM_OK)
            ret = emit(page, dir, m, &o, R_DEPARTURES, name[1], cap, err);
    }
    fputs("</details>\n", page);
    return ret;
}

/* An algorithm node's schedule: a typical operation (the median span) and
 * the slowest operation (largest span at the node).  A database without the
 * node's operations (none of that size) gets a line saying so. */
static cm_status_t report_algo(FILE *page, const char *dir, an_model_t *m, int64_t bytes,
                               cm_err_t *err)
{
    viz_opts_t o = { .bytes = bytes };
    const an_model_algo_ops_t *ops = NULL;
    char name[2][96], cap[160];
    cm_err_t quiet;
    int node = -1;
    for (int n = 0; n < m->tree.nwrappers && node < 0; n++)
        if (m->tree.wrappers[n].kind == AN_KIND_ALGO)
            node = n;
    if (node < 0)
        return CM_OK;
    cm_err_clear(&quiet);
    if (an_model_algo_ops(m, bytes, node, &ops, &quiet) != CM_OK || ops->nops == 0) {
        fputs("<p>Algorithm node ", page);
        esc(page, m->tree.wrappers[node].name);
        fputs(": no schedule of this size in the database (", page);
        esc(page, quiet.msg);
        fputs(").</p>\n", page);
        return CM_OK;
    }
    int64_t slow = -1;
    for (int64_t i = 0; i < ops->nops; i++)
        if (ops->ops[i].used && (slow < 0 || ops->ops[i].span > ops->ops[slow].span))
            slow = i;
    o.wrapper = m->tree.wrappers[node].name;
    snprintf(name[0], sizeof name[0], "schedule-%lld.svg", (long long)bytes);
    snprintf(name[1], sizeof name[1], "schedule-slowest-%lld.svg", (long long)bytes);
    snprintf(cap, sizeof cap, "Schedule of the algorithm node %s: a typical operation (the "
             "median span)", o.wrapper);
    cm_status_t ret = emit(page, dir, m, &o, R_SCHEDULE, name[0], cap, err);
    if (ret != CM_OK || slow < 0)
        return ret;
    o.has_op = 1;
    o.instance = ops->ops[slow].instance;
    o.op = ops->ops[slow].op;
    snprintf(cap, sizeof cap, "Schedule of %s: the slowest operation (%lld of instance %d)",
             o.wrapper, (long long)o.op, o.instance);
    return emit(page, dir, m, &o, R_SCHEDULE, name[1], cap, err);
}

/* Writes the charts of one tuple size and their part of the page. */
static cm_status_t report_size(FILE *page, const char *dir, an_model_t *m,
                               const an_model_size_t *sz, cm_err_t *err)
{
    long long b = (long long)sz->bytes;
    viz_opts_t o = { .bytes = sz->bytes };
    char name[4][96], cap[200];
    int two[2];
    cm_status_t ret;

    snprintf(name[0], sizeof name[0], "timemap-%lld.svg", b);
    snprintf(name[1], sizeof name[1], "timemap-ends-%lld.svg", b);
    snprintf(name[2], sizeof name[2], "departures-%lld.svg", b);
    snprintf(name[3], sizeof name[3], "pap-%lld.svg", b);
    fprintf(page, "<h2 id=\"s%lld\">%lld-byte tuples (%lld operations)</h2>\n", b, b,
            (long long)sz->ops_used);
    ret = emit(page, dir, m, &o, R_TIMEMAP, name[0], "Timemap: every thread, no arrival waits",
               err);
    o.nthreads = ends(sz, two);
    o.threads = two;
    if (o.nthreads == 2)
        snprintf(cap, sizeof cap, "Timemap: the fastest thread (%d) and the slowest (%d), as "
                 "in the report's tables (mean time per allreduce without arrival waits)",
                 two[0], two[1]);
    else
        snprintf(cap, sizeof cap, "Timemap: thread %d, the fastest and the slowest", two[0]);
    if (ret == CM_OK && o.nthreads > 0)
        ret = emit(page, dir, m, &o, R_TIMEMAP, name[1], cap, err);
    o.threads = NULL;
    o.nthreads = 0;
    o.subtree = 1;
    for (int n = 0; n < m->tree.nwrappers; n++)
        if (m->tree.wrappers[n].kind == AN_KIND_CORE)
            o.wrapper = m->tree.wrappers[n].name;
    if (ret == CM_OK && o.wrapper != NULL)
        ret = emit(page, dir, m, &o, R_DEPARTURES, name[2],
                   "Up latency and departure wait of the whole tree", err);
    if (ret == CM_OK)
        ret = emit(page, dir, m, &o, R_PAP, name[3], "Process arrival pattern and elapsed time",
                   err);
    if (ret == CM_OK)
        ret = report_algo(page, dir, m, sz->bytes, err);
    if (ret == CM_OK)
        ret = report_greds(page, dir, m, sz->bytes, err);
    return ret;
}

static cm_status_t make_dir(const char *dir, cm_err_t *err)
{
    struct stat st;
    if (mkdir(dir, 0777) == 0 || (errno == EEXIST && stat(dir, &st) == 0
                                  && S_ISDIR(st.st_mode)))
        return CM_OK;
    return CM_ERR_AT(err, CM_ERR_IO, dir, 0, 0, "cannot create the directory: %s",
                     errno == EEXIST ? "a file has that name" : strerror(errno));
}

/* index.html, for viz_write_file. */
typedef struct page_job {
    const char *dir;
    an_model_t *m;
    const char *report_text;
} page_job_t;

static cm_status_t write_page(FILE *page, void *ctx, cm_err_t *err)
{
    const page_job_t *job = ctx;
    const char *dir = job->dir, *report_text = job->report_text;
    an_model_t *m = job->m;
    viz_opts_t o = { .bytes = -1 };
    cm_status_t ret;

    page_head(page, m);
    if ((ret = write_file(dir, "tree.svg", R_TREE, m, &o, err)) != CM_OK)
        return ret;
    object(page, "tree.svg", m->nsizes > 0 ? "The tree, wrappers coloured by mean latency"
                                           : "The tree");
    for (int i = 0; i < m->nsizes; i++)
        if ((ret = report_size(page, dir, m, &m->sizes[i], err)) != CM_OK)
            return ret;
    if (report_text != NULL) {
        fputs("<h2 id=\"report\">Report (papanalyze)</h2>\n<pre>", page);
        esc(page, report_text);
        fputs("</pre>\n", page);
    }
    fputs("</body>\n</html>\n", page);
    return CM_OK;
}

cm_status_t viz_report(const char *dir, an_model_t *m, const char *report_text,
                       cm_err_t *err)
{
    char path[PATH_MAX_LEN];
    page_job_t job = { dir, m, report_text };
    if (m->nsizes == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, m->db, 0, 0, "no operations in the statistics:"
                         " nothing to draw (run papanalyze with a smaller --skip)");
    if (make_dir(dir, err) != CM_OK)
        return err->status;
    if ((size_t)snprintf(path, sizeof path, "%s/index.html", dir) >= sizeof path)
        return CM_ERR_AT(err, CM_ERR_INVALID, dir, 0, 0, "path too long");
    return viz_write_file(path, write_page, &job, err);
}
