/*
 * viz.h - papviz's charts: each writes one SVG document from analyze's model
 * (analyze/api/an_model.h).  Layout only: no SQL, no metric maths beyond
 * placing the model's numbers (sums of stage means along a path, scaling).
 *
 * Every function writes a complete document to `out` and returns CM_OK, or
 * an error in err (unknown wrapper or thread, no data for the tuple size)
 * before writing anything.  Models are borrowed; the on-demand an_model_*
 * loaders may be called on them.
 */
#ifndef VIZ_H
#define VIZ_H

#include <stdint.h>
#include <stdio.h>
#include "analyze/api/an_model.h"

typedef struct viz_opts {
    int64_t     bytes;              /* tuple size; < 0: the smallest in the first model */
    const int  *threads;            /* thread numbers to draw; NULL / 0: all */
    int         nthreads;
    int         with_arrival_wait;  /* timemap: draw arrival waits */
    const char *wrapper;            /* departures, orders: the gred */
    int         subtree;            /* departures, orders: the subtree rooted at wrapper */
    const char *const *labels;      /* a label per model (legend); NULL: derived from paths */
    int         has_op;             /* schedule: draw operation (instance, op) */
    int         instance;
    int64_t     op;
    int         mean;               /* schedule without has_op: the mean over the
                                       operations; 0: the operation of median span */
} viz_opts_t;

/* Timemap (paper Figures 12-14, 17-20): x = mean time relative to entering
 * the core, y = the stages of the path; one polyline per thread and model.
 * models[1..] are --compare configurations. */
cm_status_t viz_timemap(FILE *out, an_model_t *const *models, int nmodels,
                        const viz_opts_t *o, cm_err_t *err);

/* Up latency plus departure wait by departure order (Figures 10, 16, 21),
 * one curve per model; o->wrapper names the gred (or subtree root). */
cm_status_t viz_departures(FILE *out, an_model_t *const *models, int nmodels,
                           const viz_opts_t *o, cm_err_t *err);

/* Arrival order x departure order heat map of one gred (Table 1). */
cm_status_t viz_orders(FILE *out, an_model_t *m, const viz_opts_t *o, cm_err_t *err);

/* The tree: hosts as boxes, wrappers as ovals, threads as circles, proxies
 * on the links that cross hosts (Figures 4, 5, 8).  With with_latency and a
 * model that has statistics, wrappers are coloured by mean latency. */
cm_status_t viz_tree(FILE *out, an_model_t *m, int with_latency, const viz_opts_t *o,
                     cm_err_t *err);

/* One operation of an algorithm node (o->has_op: o->instance, o->op; by
 * default the used operation of median span, a typical one), or with
 * o->mean the mean over the used operations (each round relative to its
 * host's own arrival): a band per host with its visit, a bar per round,
 * Late Sender waits in red and (one operation) a line per message from send
 * post to receive completion.  o->wrapper names the node; NULL: the tree's
 * algorithm node.  CM_ERR_INVALID "this database has no algorithm node"
 * when the tree has none. */
cm_status_t viz_schedule(FILE *out, an_model_t *m, const viz_opts_t *o, cm_err_t *err);

/* The same chart from a schedule already loaded (or built by hand): s->node
 * indexes m's wrappers, s->op < 0 marks the mean. */
cm_status_t viz_schedule_draw(FILE *out, const an_model_t *m, const an_model_schedule_t *s,
                              cm_err_t *err);
/* The same with `why` (may be NULL) after the operation in the title: how
 * it was chosen ("the median span of 80"). */
cm_status_t viz_schedule_draw_why(FILE *out, const an_model_t *m, const an_model_schedule_t *s,
                                  const char *why, cm_err_t *err);

/* Process arrival pattern (Proficz 2018, Figure 1) and the distribution of
 * the operations' average elapsed time. */
cm_status_t viz_pap(FILE *out, an_model_t *m, const viz_opts_t *o, cm_err_t *err);

/* Writes DIR/index.html (created if needed) showing every chart of one
 * database with its text report (`report_text`, from an_report; may be
 * NULL), and the SVGs it shows: tree.svg, and per tuple size B
 * timemap-B.svg, timemap-ends-B.svg (fastest and slowest thread),
 * departures-B.svg (whole tree), pap-B.svg, and per gred with fan-in > 1
 * orders-nN-B.svg and departures-nN-B.svg (N = node).  Each file is written
 * with viz_write_file, so a failure leaves no partial file. */
cm_status_t viz_report(const char *dir, an_model_t *m, const char *report_text,
                       cm_err_t *err);

/* Arrivals by call site (an application trace): a row per call site, each
 * rank's mean arrival after the operation's earliest and its range, the
 * site's spread (docs/papviz.md).  CM_ERR_INVALID if there is no site. */
cm_status_t viz_arrivals_by_site(FILE *out, const an_model_mpi_t *m, cm_err_t *err);

/* Writes the file at `path`; write(out, ctx, err) produces the content.  A
 * regular file (or a new one) is written as `path`.tmp and renamed over it;
 * a symbolic link is followed and its final target replaced that way, the
 * link kept.  Anything else (a FIFO, /dev/stdout, a terminal) is written
 * directly.  On any error the temporary file is removed and an existing
 * regular file is left as it was (a stream may have received part of it). */
typedef cm_status_t viz_write_fn_t(FILE *out, void *ctx, cm_err_t *err);
cm_status_t viz_write_file(const char *path, viz_write_fn_t *write, void *ctx, cm_err_t *err);

/* A short label for models[i] among the n drawn together (a legend's
 * entry): --label's, else its pathmap's file name without ".pathmap"
 * (pathmaps/local/split-4x2.pathmap -> "split-4x2"), else, when another
 * model's pathmap has the same name, its database's directory name
 * (out/split/traces.db -> "split"), else, when that is shared too, the
 * database's path.  Written into buf; returns buf. */
const char *viz_model_label(an_model_t *const *models, int n, const viz_opts_t *o, int i,
                            char *buf, size_t len);

/* What auto chose (an_model_choices_t): a dot per operation at the arrival
 * spread its choice saw, coloured by the candidate chosen, with a legend of
 * how often each was chosen; a red ring where the ranks disagreed. */
cm_status_t viz_choices(FILE *out, const an_model_choices_t *m, cm_err_t *err);

/* What papviz timeline writes beside the events (docs/timeline.md). */
typedef struct viz_tl_info {
    const char           *database;   /* the database's path */
    const char           *trace;      /* the trace given, or NULL: the database's meta */
    const an_tl_window_t *window;
} viz_tl_info_t;

/* The timeline as trace-event JSON (Perfetto, Chrome's trace viewer):
 * metadata events naming each process and track, then every event of
 * an_tl_each, then the metadata object with the counts written. */
cm_status_t viz_timeline(FILE *out, an_timeline_t *tl, const viz_tl_info_t *info,
                         cm_err_t *err);

#endif /* VIZ_H */
