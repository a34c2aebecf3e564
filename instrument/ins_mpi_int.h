/*
 * ins_mpi_int.h - private to instrument/: the application trace's state
 * (ins_mpi.h), split by concept:
 *   mpi_trace.c  the life of the trace: open, locations, recording, the
 *                observer, abandon, close
 *   mpi_write.c  the records into OTF2 events, and the strings they name
 *   mpi_defs.c   the definitions: names of functions, datatypes and ops,
 *                communicators, and everything rank 0 writes
 * The archive, its directory, the clock and its offsets, and the
 * definitions every archive has are the tree trace's (ins_int.h).
 */
#ifndef INS_MPI_INT_H
#define INS_MPI_INT_H

#include <pthread.h>
#include "instrument/ins_int.h"
#include "instrument/api/ins_mpi.h"
#include "runtime/api/rt_algo_run.h"

/* Locations (threads) per rank: their pointers are allocated at open. */
#define INS_MPI_MAX_LOCS     1024u
/* opts.mem = 0 */
#define INS_MPI_MEM_DEFAULT  ((size_t)32 << 20)

/*
 * String ids of the strings the events name (call sites, algorithms,
 * datatypes, ops, fallbacks): each rank numbers its own, from
 * INS_MPI_STR_BASE + rank * INS_MPI_STR_PER_RANK, as it writes its events
 * (a flush may write them long before close), and rank 0 defines them all
 * at close; rank 0's other strings are below INS_MPI_STR_BASE.  The same
 * text may so have one id per rank.  A rank's last id names every string
 * past the others ("?").
 */
#define INS_MPI_STR_BASE     (UINT32_C(1) << 24)
#define INS_MPI_STR_PER_RANK (UINT32_C(1) << 14)
#define INS_MPI_STR_RANKS    ((UINT32_MAX - INS_MPI_STR_BASE) / INS_MPI_STR_PER_RANK)

/* Group ids: the COMM_LOCATIONS group, then one per communicator. */
#define INS_GROUP_MPI_LOCATIONS_ID 0u
#define INS_GROUP_MPI_FIRST_ID     1u

/* Datatype and op ids (a record's dtype, op): 0 = none, 1.. the predefined
   ones of mpi_defs.c's tables, then names of user types met (per trace),
   INS_MPI_NAME_OTHER = "derived" / "user". */
#define INS_MPI_NAME_NONE    0u
#define INS_MPI_NAME_OTHER   255u

/*
 * One record: a call (func < INS_MPI_NFUNCS) or a message of an algorithm
 * the library ran (func = INS_MPI_REC_MSG + rt_msg_t): then enter = its
 * time, leave = step << 32 | round, callsite = the peer (uint32), sent = its
 * bytes, comm = the call's communicator.  80 bytes.
 */
typedef struct ins_mpi_rec {
    uint64_t    enter, leave;
    uint64_t    callsite;
    uint64_t    sent, recv;
    int64_t     count;
    uint64_t    request;
    const char *algo;
    uint32_t    comm, root;
    uint8_t     func, fallback, dtype, op;
    uint8_t     completed;     /* Wait / Test: the call's `completed` */
} ins_mpi_rec_t;

#define INS_MPI_REC_MSG 32u
/*
 * What an auto rule chose for the call recorded next on the location
 * (ins_mpi_record writes these just before the call's record):
 * INS_MPI_REC_CHOICE (enter = the spread, leave = skipped, callsite =
 * chosen | reason << 8 | ncand << 16), then per candidate i one
 * INS_MPI_REC_CAND (algo = its name, a static string of the table; count =
 * i; sent = its prediction, recv = the corrected one, as int64).
 */
#define INS_MPI_REC_CHOICE 64u
#define INS_MPI_REC_CAND   65u

/* A choice read back from those records, until its call is written. */
typedef struct ins_mpi_choice {
    int         valid;
    uint32_t    chosen, reason, ncand;
    int64_t     spread;
    uint64_t    skipped;
    const char *name[INS_AUTO_CAND_MAX];
    int64_t     pred[INS_AUTO_CAND_MAX], corr[INS_AUTO_CAND_MAX];
} ins_mpi_choice_t;

/* One location: a thread that recorded, its buffer and its writing state. */
typedef struct ins_mpi_loc {
    ins_mpi_rec_t      *buf;
    uint32_t            n, cap;       /* recording: only its own thread */
    uint32_t            index;
    OTF2_LocationRef    id;
    struct ins_mpi     *tr;
    uint64_t            flushes;      /* read by others: atomics */
    /* writing (a flush on its thread, or close) */
    OTF2_EvtWriter     *ew;
    OTF2_AttributeList *attrs;
    OTF2_ErrorCode      failed;
    uint64_t            written, first_ts, last_ts;
    uint64_t            ncoll;        /* collectives written: messages' request ids */
    ins_mpi_rec_t      *pend;         /* messages waiting for their call's record */
    uint32_t            npend, cappend;
    ins_mpi_choice_t    choice;       /* the next call's auto choice, if valid */
} __attribute__((aligned(64))) ins_mpi_loc_t;

/* A communicator as ins_mpi_comm registered it: world ranks, then the name. */
typedef struct ins_mpi_cdef {
    uint32_t id, parent;
    int32_t  size;
    int32_t *ranks;
    char    *name;
} ins_mpi_cdef_t;

/* The strings this rank's events name (mpi_write.c), by their ids. */
typedef struct ins_mpi_strs {
    cm_strmap_t  map;      /* 'c' + address, 'a' + pointer, 't' + text -> index */
    cm_arena_t  *arena;    /* keys and texts */
    char       **text;     /* index -> text */
    uint32_t     n, cap;
    uint32_t     dtype[256], op[256], fallback[INS_FB_NREASONS];  /* index + 1, 0: not yet */
    uint64_t     last_site, last_algo;    /* the last call site and algorithm pointer */
    uint32_t     reason[INS_NREASON];     /* auto's reasons: index + 1, 0: not yet */
    uint32_t     last_site_i, last_algo_i; /* looked up, and their indices + 1 (0: none) */
} ins_mpi_strs_t;

struct ins_mpi {
    MPI_Comm          comm;
    int               rank, size;
    char             *dir, *partial, *command, *rules;
    size_t            mem;
    uint64_t          gen;           /* which trace a thread's location belongs to */
    OTF2_Archive     *ar;
    ins_clock_pair_t  clk0, clk1;
    ins_offset_t      off0, off1;
    pthread_mutex_t   lock;          /* locations, names, communicators, strings, OTF2 writers */
    ins_mpi_loc_t   **locs;          /* [INS_MPI_MAX_LOCS] */
    uint32_t          nloc;          /* atomics: read without the lock */
    uint64_t          dropped;       /* records of threads that got no location */
    size_t            mem_left;      /* buffers of locations still to come */
    /* ins_mpi_abandon: every file this rank may have made, directories last */
    char            **files;         /* [2 * INS_MPI_MAX_LOCS]: .evt, .def per location */
    char             *tail[5];       /* rank 0: anchor, .def; the archive folder, partial */
    uint32_t          ntail;
    /* datatypes met that are not predefined, with a name (ids from mpi_defs.c) */
    char             *tnames[INS_MPI_NAME_OTHER];
    uint32_t          ntnames;
    ins_mpi_cdef_t   *comms;
    uint32_t          ncomms, capcomms;
    uint32_t         *gcomms;        /* at close: every rank's ids, sorted, each once */
    uint32_t          ngcomms;
    ins_mpi_strs_t    strs;
    int               auto_defs;     /* a record had an auto choice: define its ids
                                        (any rank's, agreed at close) */
    OTF2_ErrorCode    wfailed;       /* first failure of the string table */
};

/* ---- mpi_defs.c ---------------------------------------------------------- */

/*
 * Collective, at close: every rank's communicator ids into tr->gcomms,
 * sorted, each once.  The global definitions number the communicators by
 * their place in it, because OTF2 wants each kind of definition numbered
 * 0, 1, ... in order and the library's ids are sparse; every location's
 * mapping table (ins__mpi_comm_map) turns the ids its events hold into
 * those places.  The same status on every rank.
 */
OTF2_ErrorCode ins__mpi_comm_ids(ins_mpi_t *tr);
/* The mapping table of tr->gcomms (id -> place), or NULL (out of memory). */
OTF2_IdMap *ins__mpi_comm_map(const ins_mpi_t *tr);

/* The record's ids of a datatype and an op (see above); the datatype's may
   take tr->lock (a type that is not predefined). */
uint8_t     ins__mpi_dtype_id(ins_mpi_t *tr, MPI_Datatype t);
uint8_t     ins__mpi_op_id(MPI_Op op);
/* Their names ("" for none). */
const char *ins__mpi_dtype_name(const ins_mpi_t *tr, uint8_t id);
const char *ins__mpi_op_name(uint8_t id);

/* OTF2's collective op of a function (MPI_Wait/Test: none, 0). */
OTF2_CollectiveOp ins__mpi_coll_op(ins_mpi_func_t f);

/* Collective: rank 0 gathers what it needs and writes every global definition. */
OTF2_ErrorCode ins__mpi_defs_write(ins_mpi_t *tr, double rate);

/* ---- mpi_write.c ---------------------------------------------------------- */

/* The buffered records of loc into OTF2 events (on any thread; takes tr->lock
   for the strings and the writer); empties the buffer. */
void ins__mpi_write(ins_mpi_loc_t *loc);

/* At close, after every location was written: messages left without a call. */
void ins__mpi_write_pending(ins_mpi_loc_t *loc);

void ins__mpi_strs_init(ins_mpi_strs_t *s);
void ins__mpi_strs_cleanup(ins_mpi_strs_t *s);

#endif /* INS_MPI_INT_H */
