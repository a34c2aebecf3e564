/*
 * an_read_int.h - the OTF2 reader's private state, shared by its three files:
 *
 *   an_read.c         the reader object: open, close, OTF2's error messages
 *   an_read_anchor.c  the anchor's check in a child process, before the open
 *   an_read_defs.c    global and local definitions -> an_defs_t (checked)
 *   an_read_threads.c the reading threads: each reads a share of the locations
 *                     with an OTF2 reader of its own into blocks of rd_ev_t;
 *                     the caller merges the shares back into time order
 *   an_read_events.c  those events -> one an_visit_t per wrapper visit
 *
 * Nothing outside these files includes it; the rest of analyze/ sees only
 * an_reader_t through an_int.h.
 */
#ifndef AN_READ_INT_H
#define AN_READ_INT_H

#include <stdint.h>
#include <otf2/otf2.h>

#include "analyze/an_int.h"
#include "analyze/an_auto_int.h"

/* Raw global definitions, as OTF2 delivers them (string refs unresolved). */
typedef struct rd_region {
    uint32_t self, name, canon, desc, file, line;
} rd_region_t;

typedef struct rd_loc {
    uint64_t self, events;
    uint32_t name, group;
    int      type;
} rd_loc_t;

typedef struct rd_prop {
    uint64_t            owner;
    uint32_t            name;
    OTF2_Type           type;
    OTF2_AttributeValue value;
} rd_prop_t;

/* A growable array of size-byte elements. */
typedef struct rd_vec {
    void  *data;
    size_t n, cap, size;
} rd_vec_t;

/* One open visit on a location's stack. */
typedef struct rd_frame {
    int      instance, node, contrib;
    uint64_t op, bytes;
    int64_t  t1;
    int      nested;
    int      arrivals;        /* arrival events inside this visit (ins_schema.h) */
    int      choices;         /* auto's choice events inside this visit */
} rd_frame_t;

typedef struct rd_locstate {
    rd_frame_t *stack;
    int         depth;
    int64_t     last;         /* last timestamp (ns), for the order check */
} rd_locstate_t;

/* One event as a reading thread decodes it (an_read_threads.c). */
typedef enum {
    RD_EV_ENTER, RD_EV_LEAVE, RD_EV_COLL_BEGIN, RD_EV_COLL_END, RD_EV_ISEND,
    RD_EV_ISEND_DONE, RD_EV_IRECV_POST, RD_EV_IRECV, RD_EV_PARAM, RD_EV_OTHER
} rd_ev_kind_t;

#define RD_HAVE_OP    1u      /* the paptree::op attribute was there */
#define RD_HAVE_BYTES 2u      /* the paptree::bytes attribute was there */

typedef struct rd_ev {
    uint64_t t;               /* timestamp, ticks with the clock offsets applied */
    int32_t  loc;             /* location index; -1: undefined (its id in op) */
    uint8_t  kind;            /* rd_ev_kind_t */
    uint8_t  have;            /* RD_HAVE_* */
    uint32_t a;               /* Enter/Leave: region; Isend/Irecv: peer; param: parameter */
    uint32_t b;               /* communicator (MPI), string (param) */
    uint32_t tag;
    uint8_t  have_comm;
    uint64_t op;              /* paptree::op, or the request id of an MPI event */
    uint64_t bytes;           /* paptree::bytes, or an MPI message's length */
    OTF2_AttributeList *al;   /* RD_EV_PARAM: a copy of its attributes, the caller frees */
} rd_ev_t;

typedef struct rd_par rd_par_t;

/* What the reading threads read: the share of the trace the options ask for. */
typedef struct rd_part {
    int      nthreads;        /* >= 1 */
    uint64_t op_first, op_last;
} rd_part_t;

/*
 * Starts the reading threads over r's archive (definitions read): each opens
 * the anchor with an OTF2 reader of its own and reads its locations' events in
 * time order.  Then rd_par_next gives the events of all of them in time order
 * (timestamp, then location), NULL at the end; rd_par_close stops and joins
 * them (also before the end) and returns the first error a thread met.
 */
cm_status_t rd_par_open(an_reader_t *r, const rd_part_t *part, rd_par_t **out, cm_err_t *err);
const rd_ev_t *rd_par_next(rd_par_t *p);
/* The earliest timestamp of the whole trace (read before any event is given). */
uint64_t rd_par_first_t(const rd_par_t *p);
uint64_t rd_par_read(rd_par_t *p);     /* events decoded so far, dropped ones too */
cm_status_t rd_par_close(rd_par_t *p, cm_err_t *err);

struct an_reader {
    OTF2_Reader   *rd;
    an_defs_t     *defs;
    const char    *anchor;
    cm_err_t      *err;
    cm_status_t    st;        /* first error inside a callback */
    /* raw global definitions */
    char         **strings;
    uint32_t       nstrings;
    rd_vec_t       regions, locs, loc_props, group_props, stn_props, stn_parent;
    uint32_t       attr_op, attr_bytes;
    uint32_t       attr_arr[5];   /* asked, missing, error, lead, wait; UINT32_MAX if none */
    uint32_t       param_arrival; /* the arrival parameter, or UINT32_MAX */
    uint32_t       attr_auto[AN_AUTO_NATTR]; /* auto's choice (an_auto_int.h); UINT32_MAX */
    uint32_t       param_auto;    /* auto's parameter, or UINT32_MAX */
    an_auto_t     *autos;         /* where choices go (an_reader_collect_auto), or NULL */
    int            nclock, nattr;
    /* events */
    rd_locstate_t *ls;
    uint64_t       base;      /* corrected ticks of the trace's first event */
    int            nthreads;  /* reading threads (an_reader_part); 0: 1 */
    uint64_t       op_first, op_last;  /* --ops A:B */
    uint64_t       nread;     /* events decoded, dropped ones too */
    double         ns_per_tick;
    uint64_t       nevents;
    an_visit_fn   *fn;
    an_msg_fn     *msg_fn;
    void          *ud;
};

/*
 * Records the first error met inside an OTF2 callback (formatted, with the
 * archive as its origin) and returns the code that stops OTF2's reading.
 */
OTF2_CallbackCode an__read_fail(an_reader_t *r, cm_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* OTF2's description of rc, with the first message OTF2 reported since open. */
const char *an__read_why(OTF2_ErrorCode rc);
/* Keeps OTF2's first error message for an__read_why (and off stderr). */
void an__read_errors_catch(void);
/*
 * Lets OTF2 load the anchor in a child process under address-space and time
 * limits; refuses (CM_ERR_INVALID) an anchor that crashes or exceeds them
 * there, CM_OK otherwise, OTF2's own errors included (an_read_anchor.c).
 */
cm_status_t an__anchor_check(const char *anchor, cm_err_t *err);
/* Reads and checks every definition into r->defs (an_read_defs.c). */
cm_status_t an__read_defs(an_reader_t *r);

#endif /* AN_READ_INT_H */
