/*
 * cm_kind.h - the kinds of wrapper a tree is made of, and their names.
 *
 * The names are the pathmap's keywords ("core", "gred", "proxy", "algo"), and the
 * same words are written into a trace's region descriptions (kind=...),
 * stored in the analysis database and used as CSS classes of the charts.
 * This is the one table of them: the parser, the tracer, the analyser and
 * the charts all go through it, so no layer spells a kind on its own.
 */
#ifndef CM_KIND_H
#define CM_KIND_H

#include <stddef.h>

typedef enum {
    CM_KIND_CORE,   /* the root: stores the reduced tuple and returns it */
    CM_KIND_GRED,   /* partial allreduce shared by its contributors */
    CM_KIND_PROXY,  /* forwards to its parent on another host */
    CM_KIND_ALGO,   /* a root that spans hosts and runs a named algorithm */
    CM_KIND_COUNT   /* number of kinds; not a kind */
} cm_kind_t;

/* "core", "gred", "proxy" or "algo"; "?" for anything else. Static storage. */
const char *cm_kind_name(cm_kind_t kind);

/* The kind named by the len bytes at s (not NUL-terminated). Returns 0 and
 * sets *kind_p, or -1 (and leaves *kind_p alone) if s names no kind. */
int cm_kind_parse(const char *s, size_t len, cm_kind_t *kind_p);

#endif /* CM_KIND_H */
