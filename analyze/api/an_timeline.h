/*
 * an_timeline.h - a database as a timeline: processes, tracks, and each
 * track's slices and flow ends in time order, for papviz timeline
 * (viz/viz_timeline.c writes them as trace-event JSON; docs/timeline.md is
 * the contract).
 *
 * Reads the database with SQL one track at a time and hands out one event
 * at a time: memory follows the number of tracks (and, for an algorithm
 * node's rounds, a temporary table of their lanes), not the events.  Times
 * are ns on the database's time line.
 */
#ifndef AN_TIMELINE_H
#define AN_TIMELINE_H

#include <stdint.h>
#include "common/cm_err.h"

/* The part of the run to show; a zeroed window shows all of it. */
typedef struct an_tl_window {
    int      has_ops;             /* only operations op_first..op_last (tree: op; */
    uint64_t op_first, op_last;   /* application traces: seq on each communicator) */
    int      has_from, has_to;    /* only slices that overlap [from_ns, to_ns] */
    int64_t  from_ns, to_ns;
} an_tl_window_t;

typedef enum { AN_TL_INT, AN_TL_REAL, AN_TL_TEXT, AN_TL_NULL } an_tl_type_t;

typedef struct an_tl_arg {
    const char  *key;
    an_tl_type_t type;
    int64_t      i;
    double       d;
    const char  *s;               /* borrowed until the next event */
} an_tl_arg_t;

#define AN_TL_MAX_ARGS 16

typedef struct an_tl_event {
    char        ph;               /* 'X' slice, 's' flow start, 'f' flow finish */
    int         pid, tid;
    int64_t     ts, dur;          /* ns; dur for slices */
    const char *name, *cat;       /* borrowed until the next event */
    uint64_t    id;               /* flows: the same at both ends, unique in the run */
    int         nargs;
    an_tl_arg_t args[AN_TL_MAX_ARGS];
} an_tl_event_t;

typedef struct an_tl_track {
    int   pid, tid, sort;
    char *name;
} an_tl_track_t;

typedef struct an_tl_process {
    int   pid;
    char *name;
} an_tl_process_t;

/* What the window holds, for the size estimate (before anything is written). */
typedef struct an_tl_counts {
    uint64_t wrapper, round, mpi;         /* slices */
    uint64_t proxy, msg;                  /* flows (each a start and a finish) */
} an_tl_counts_t;

typedef struct an_timeline {
    int              mpi;                 /* an application trace's database */
    an_tl_process_t *procs;
    int              nprocs;
    an_tl_track_t   *tracks;              /* in the order their events come */
    int              ntracks;
    char            *pathmap;             /* tree traces; else NULL */
    char            *trace;               /* meta trace */
    struct an_tl_priv *priv;
} an_timeline_t;

cm_status_t an_tl_open(const char *db, const an_tl_window_t *w, an_timeline_t **out,
                       cm_err_t *err);
/* Counts what the window holds (SQL counts; nothing is read row by row). */
cm_status_t an_tl_count(an_timeline_t *tl, an_tl_counts_t *c, cm_err_t *err);
/* The window's first operation and how many there are from it to its last
 * (tree: op; application traces: seq); 0 of them in an empty window. */
cm_status_t an_tl_op_range(an_timeline_t *tl, uint64_t *first, uint64_t *n);
/* The report's headline figures as "key": value pairs, for the metadata:
 * fn(ud, key, arg) per figure. */
cm_status_t an_tl_headline(an_timeline_t *tl,
                           void (*fn)(void *ud, const an_tl_arg_t *figure), void *ud,
                           cm_err_t *err);
/* Every event, track after track (the tracks' order), each track's in
 * non-decreasing ts, a slice before a flow end at equal ts and the longer
 * slice first.  fn's non-CM_OK stops it and is returned. */
cm_status_t an_tl_each(an_timeline_t *tl,
                       cm_status_t (*fn)(void *ud, const an_tl_event_t *e, cm_err_t *err),
                       void *ud, cm_err_t *err);
void an_tl_close(an_timeline_t *tl);

#endif /* AN_TIMELINE_H */
