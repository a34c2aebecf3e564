/*
 * an_mpi_read_int.h - the reader of application traces, shared by its two
 * files: an_mpi_read_defs.c (the definitions: strings, clock, attributes,
 * regions, locations, communicators and their groups, clock offsets) and
 * an_mpi_read.c (the events into calls, and the reader's life cycle).
 * Nothing else includes it.
 */
#ifndef AN_MPI_READ_INT_H
#define AN_MPI_READ_INT_H

#include <stdint.h>
#include <otf2/otf2.h>

#include "analyze/an_auto_int.h"
#include "analyze/an_mpi_int.h"

enum { A_CALLSITE, A_ALGO, A_FALLBACK, A_COUNT, A_DTYPE, A_MPI_OP, A_N };

typedef struct mr_group { uint64_t id; uint32_t n; int32_t *members; int self; } mr_group_t;
typedef struct mr_commdef { uint64_t id; uint32_t name, group; } mr_commdef_t;

typedef struct mr_loc {
    uint64_t      id;
    int64_t       group;      /* location group = world rank */
    uint64_t      events;
    int           open;       /* a call is open: cur is it */
    int           in_wait;    /* the open call is an MPI_Wait/MPI_Test */
    int           ended;      /* its collective end (or request) was seen */
    int64_t       last;
    an_mpi_call_t cur;
    int64_t      *done;       /* calls the open wait completed: their leave is its leave */
    int           ndone, capdone;
    int           selected;   /* read (--ranks) */
} mr_loc_t;

typedef struct mr {
    an_mpi_trace_t *tr;
    an_mpi_part_t  *part;     /* or NULL */
    uint64_t        expect;   /* events of the selected locations */
    const char     *anchor;
    cm_err_t       *err;
    cm_status_t     st;
    OTF2_Reader    *rd;
    int            *region_func;          /* [nregions], -1: not ours */
    uint32_t        nregions;
    uint32_t        attr[A_N];
    uint32_t        attr_auto[AN_AUTO_NATTR];  /* auto's choice (an_auto_int.h) */
    int             nclock;
    mr_group_t     *groups;
    int             ngroups;
    mr_commdef_t   *cdefs;
    int             ncdefs;
    mr_loc_t       *locs;
    int             nlocs;
    int64_t         cap_calls;
    int64_t        *pend;                 /* nonblocking calls started, not completed */
    int64_t         npend, cap_pend;
    uint64_t        base, nevents;
    uint64_t        first_unread;  /* --ranks: the earliest first event of the locations
                                      not read (UINT64_MAX: none) */
    int             have_base;
    double          ns_per_tick;
} mr_t;

static inline int an__mpi_is_nonblocking(an_mpi_func_t f)
{
    return f == AN_MPI_IALLREDUCE || f == AN_MPI_IREDUCE || f == AN_MPI_IBCAST;
}

/* Records the first error (located at the anchor) and stops OTF2's reading. */
OTF2_CallbackCode an__mpi_fail(mr_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A string definition by id, or NULL; its text, or NULL. */
an_mpi_str_t *an__mpi_str_def(mr_t *r, uint32_t ref);
const char *an__mpi_str(mr_t *r, uint32_t ref);
/* A location by id (after the definitions: sorted), or NULL. */
mr_loc_t *an__mpi_find_loc(mr_t *r, uint64_t id);
/* The archive's properties, global and local definitions into r and r->tr. */
cm_status_t an__mpi_read_defs(mr_t *r);

#endif /* AN_MPI_READ_INT_H */
