/*
 * viz_timeline.c - the timeline as trace-event JSON (docs/timeline.md), the
 * format Perfetto (ui.perfetto.dev) and Chrome's trace viewer open.
 *
 * One JSON object: displayTimeUnit, traceEvents (first a process_name and
 * process_sort_index per process, a thread_name and thread_sort_index per
 * track, then every event in an_tl_each's order, one per line), and last
 * the metadata, whose counts are those of the events written.  Times are
 * microseconds with three decimals: whole nanoseconds, exactly.  Streams:
 * nothing is kept per event.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "viz/api/viz.h"

typedef struct tl_write {
    FILE          *out;
    an_tl_counts_t n;
    int            first;         /* no event written yet (no comma before it) */
} tl_write_t;

/* s as a JSON string, quotes included. */
static void json_str(FILE *out, const char *s)
{
    putc_unlocked('"', out);
    for (const unsigned char *p = (const unsigned char *)(s != NULL ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                putc_unlocked(*p, out);
        }
    }
    putc_unlocked('"', out);
}

/* ns as microseconds with three decimals. */
static void json_us(FILE *out, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

    fprintf(out, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

static void json_arg(FILE *out, const an_tl_arg_t *a)
{
    json_str(out, a->key);
    putc_unlocked(':', out);
    switch (a->type) {
    case AN_TL_INT: fprintf(out, "%" PRId64, a->i); break;
    case AN_TL_REAL: fprintf(out, "%.17g", a->d); break;
    case AN_TL_TEXT: json_str(out, a->s); break;
    case AN_TL_NULL: fputs("null", out); break;
    }
}

static void sep(tl_write_t *w)
{
    fputs(w->first ? "\n" : ",\n", w->out);
    w->first = 0;
}

static void meta_event(tl_write_t *w, int pid, int tid, const char *name, const char *key,
                       const char *text, int sort)
{
    sep(w);
    fprintf(w->out, "{\"ph\":\"M\",\"pid\":%d", pid);
    if (tid >= 0)
        fprintf(w->out, ",\"tid\":%d", tid);
    fprintf(w->out, ",\"name\":\"%s\",\"args\":{\"%s\":", name, key);
    if (text != NULL)
        json_str(w->out, text);
    else
        fprintf(w->out, "%d", sort);
    fputs("}}", w->out);
}

static cm_status_t on_event(void *ud, const an_tl_event_t *e, cm_err_t *err)
{
    tl_write_t *w = ud;
    FILE *out = w->out;

    (void)err;
    sep(w);
    fprintf(out, "{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":", e->ph, e->pid, e->tid);
    json_us(out, e->ts);
    if (e->ph == 'X') {
        fputs(",\"dur\":", out);
        json_us(out, e->dur);
    } else {
        fprintf(out, ",\"id\":%" PRIu64, e->id);
        if (e->ph == 'f')
            fputs(",\"bp\":\"e\"", out);
    }
    fputs(",\"name\":", out);
    json_str(out, e->name);
    fputs(",\"cat\":", out);
    json_str(out, e->cat);
    if (e->nargs > 0) {
        fputs(",\"args\":{", out);
        for (int i = 0; i < e->nargs; i++) {
            if (i > 0)
                putc_unlocked(',', out);
            json_arg(out, &e->args[i]);
        }
        putc_unlocked('}', out);
    }
    putc_unlocked('}', out);
    if (e->ph == 'X')
        *(strcmp(e->cat, "wrapper") == 0 ? &w->n.wrapper
          : strcmp(e->cat, "round") == 0 ? &w->n.round : &w->n.mpi) += 1;
    else if (e->ph == 's')
        *(strcmp(e->cat, "proxy") == 0 ? &w->n.proxy : &w->n.msg) += 1;
    return ferror(out) ? CM_ERR(err, CM_ERR_IO, "cannot write the timeline") : CM_OK;
}

static void headline(void *ud, const an_tl_arg_t *a)
{
    tl_write_t *w = ud;

    fputs(w->first ? "" : ",", w->out);
    w->first = 0;
    json_arg(w->out, a);
}

static cm_status_t write_all(tl_write_t *wp, an_timeline_t *tl, const viz_tl_info_t *info,
                             const an_tl_window_t *win, cm_err_t *err);

cm_status_t viz_timeline(FILE *out, an_timeline_t *tl, const viz_tl_info_t *info,
                         cm_err_t *err)
{
    tl_write_t w = { out, { 0 }, 1 };
    const an_tl_window_t *win = info->window;
    cm_status_t st;

    flockfile(out);           /* one lock for the whole file, not one per character */
    st = write_all(&w, tl, info, win, err);
    funlockfile(out);
    return st;
}

static cm_status_t write_all(tl_write_t *wp, an_timeline_t *tl, const viz_tl_info_t *info,
                             const an_tl_window_t *win, cm_err_t *err)
{
    tl_write_t w = *wp;
    FILE *out = w.out;
    cm_status_t st;

    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    for (int i = 0; i < tl->nprocs; i++) {
        meta_event(&w, tl->procs[i].pid, -1, "process_name", "name", tl->procs[i].name, 0);
        meta_event(&w, tl->procs[i].pid, -1, "process_sort_index", "sort_index", NULL,
                   tl->procs[i].pid);
    }
    for (int i = 0; i < tl->ntracks; i++) {
        meta_event(&w, tl->tracks[i].pid, tl->tracks[i].tid, "thread_name", "name",
                   tl->tracks[i].name, 0);
        meta_event(&w, tl->tracks[i].pid, tl->tracks[i].tid, "thread_sort_index",
                   "sort_index", NULL, tl->tracks[i].sort);
    }
    if ((st = an_tl_each(tl, on_event, &w, err)) != CM_OK)
        return st;
    fputs("\n],\n\"metadata\":{\"paptree\":\"papviz timeline (docs/timeline.md)\",\"kind\":", out);
    json_str(out, tl->mpi ? "mpi" : "tree");
    fputs(",\"database\":", out);
    if (info->database != NULL)
        json_str(out, info->database);
    else
        fputs("null", out);
    fputs(",\"trace\":", out);
    json_str(out, info->trace != NULL ? info->trace : tl->trace);
    fputs(",\"pathmap\":", out);
    if (tl->pathmap != NULL)
        json_str(out, tl->pathmap);
    else
        fputs("null", out);
    fputs(",\"window\":{\"ops\":", out);
    if (win->has_ops)
        fprintf(out, "[%" PRIu64 ",%" PRIu64 "]", win->op_first, win->op_last);
    else
        fputs("null", out);
    fputs(",\"from_ns\":", out);
    if (win->has_from)
        fprintf(out, "%" PRId64, win->from_ns);
    else
        fputs("null", out);
    fputs(",\"to_ns\":", out);
    if (win->has_to)
        fprintf(out, "%" PRId64, win->to_ns);
    else
        fputs("null", out);
    fputs("},\"headline\":{", out);
    w.first = 1;
    if ((st = an_tl_headline(tl, headline, &w, err)) != CM_OK)
        return st;
    fprintf(out, "},\"counts\":{\"wrapper\":%" PRIu64 ",\"round\":%" PRIu64 ",\"mpi\":%" PRIu64
            ",\"proxy\":%" PRIu64 ",\"msg\":%" PRIu64 "}}}\n", w.n.wrapper, w.n.round,
            w.n.mpi, w.n.proxy, w.n.msg);
    return ferror(out) ? CM_ERR(err, CM_ERR_IO, "cannot write the timeline") : CM_OK;
}
