/*
 * an_mpi_int.h - papanalyze for application traces: the archives that the
 * profiling library (lib/libpaptree-mpi.so) writes for an unmodified MPI
 * program (INS_PROP_KIND = INS_KIND_MPI; instrument/api/ins_schema.h,
 * "application traces").
 *
 * The pipeline (an_mpi_analyze, an_mpi_db.c, drives it):
 *
 *   an_mpi_read.c     the OTF2 reader: definitions (ranks, threads,
 *                     communicators and their groups, the MPI regions, the
 *                     attributes) and events into one an_mpi_call_t per
 *                     call, a nonblocking call joined to the MPI_Wait or
 *                     MPI_Test that completed it; times on rank 0's clock
 *                     (OTF2 applies the ClockOffset records, as for tree
 *                     traces)
 *   an_mpi_sym.c      call sites "MODULE+0xOFF" to function and file:line
 *                     with addr2line, when the module is there
 *   an_mpi_metrics.c  each rank's calls on a communicator numbered (seq),
 *                     calls matched across ranks by (comm, seq), and the
 *                     process-arrival-pattern metrics of each operation
 *   an_mpi_db.c       the tables mpi_comms, mpi_callsites, mpi_calls,
 *                     mpi_ops and mpi_sites (all SQL of these traces)
 *   an_mpi_report.c   the report ("Collectives by call site") and its
 *                     advice, read back from the database
 *
 * Memory: every call is kept (about 200 bytes each) until the database is
 * written: an application trace has calls, not the millions of wrapper
 * visits of a tree trace.
 */
#ifndef AN_MPI_INT_H
#define AN_MPI_INT_H

#include <stdint.h>
#include <stdio.h>
#include "analyze/an_auto_int.h"
#include "common/cm_err.h"

struct sqlite3;
struct an_opts;
struct an_result;
struct an_report_opts;

/* The MPI functions of an application trace, by region name. */
typedef enum {
    AN_MPI_ALLREDUCE, AN_MPI_REDUCE, AN_MPI_BCAST, AN_MPI_BARRIER, AN_MPI_ALLGATHER,
    AN_MPI_REDUCE_SCATTER_BLOCK, AN_MPI_IALLREDUCE, AN_MPI_IREDUCE, AN_MPI_IBCAST,
    AN_MPI_WAIT, AN_MPI_TEST, AN_MPI_NFUNCS
} an_mpi_func_t;

/* "MPI_Allreduce", ...; and the collective's name, "allreduce", ... */
const char *an_mpi_func_name(an_mpi_func_t f);
const char *an_mpi_coll_name(an_mpi_func_t f);
/* The function of a region name, or -1. */
int an_mpi_func_of(const char *region);

typedef struct an_mpi_comm {
    uint32_t  id;
    char     *name;
    int32_t   size;
    int32_t  *world;          /* [size] world ranks, comm rank order; NULL for self */
    int       self;           /* MPI_COMM_SELF (a COMM_SELF group): each rank's own, size 1;
                                 its calls make no operation between ranks */
} an_mpi_comm_t;

typedef struct an_mpi_site {
    char *name;               /* "MODULE+0xOFF" as recorded */
    char *module;             /* MODULE ("" if the name has no '+0x') */
    uint64_t offset;
    char *function;           /* symbolised; NULL if unknown */
    char *file;               /* NULL if unknown */
    int   line;               /* 0 if unknown */
    char *label;              /* file:line (basename), function, or name */
} an_mpi_site_t;

typedef struct an_mpi_call {
    int32_t     rank;         /* world rank (location group) */
    int32_t     thread;       /* the location's index on its rank */
    uint64_t    location;
    uint32_t    comm;         /* index into an_mpi_trace_t.comms */
    int32_t     comm_rank;    /* this rank's rank in comm */
    an_mpi_func_t func;
    int32_t     site;         /* index into sites */
    const char *algo, *fallback, *dtype, *op;   /* the trace's strings */
    int64_t     count;
    uint32_t    root;         /* UINT32_MAX: none */
    uint64_t    sent, recv;   /* as the trace counts them (Score-P's way) */
    uint64_t    msg;          /* the rank's message, as the rules size it (an_mpi_msg_bytes) */
    uint64_t    request;      /* nonblocking: its id; else 0 */
    int64_t     enter, leave; /* ns on rank 0's time line from the first event;
                                 leave < 0: a nonblocking call never completed */
    int64_t     seq;          /* index among this rank's calls on comm */
    int64_t     op_index;     /* its operation in an_mpi_trace_t.ops, or -1 */
    int64_t     a, wait;      /* arrival after the operation's first; time lost waiting */
    int64_t     autorec;      /* an auto rule's choice: index into an_mpi_trace_t.autos;
                                 -1: none */
} an_mpi_call_t;

/* One matched operation: the calls of one (comm, seq), one per member. */
typedef struct an_mpi_op {
    uint32_t comm;
    int64_t  seq;
    an_mpi_func_t func;       /* its comm rank 0's call's */
    int32_t  site;            /* its comm rank 0's call's */
    int32_t  nranks;          /* calls found; complete when = the comm's size */
    int      complete;        /* every member's call, every one finished */
    uint64_t bytes;           /* largest of the calls' */
    int64_t  t0;              /* earliest enter */
    int64_t  spread;          /* worst case imbalance time: max a_i (a_i from t0) */
    double   avg_imb;         /* average case imbalance time: mean |a_i - mean a| */
    int64_t  op_time;         /* the operation's own time: the last arrival's elapsed time */
    double   avg_elapsed;     /* mean e_i = f_i - a_i */
    int64_t  wait;            /* sum over ranks of the time lost waiting */
    int32_t  last_rank;       /* world rank of the last arrival (lowest if tied) */
} an_mpi_op_t;

/* A string definition (ids are sparse: the writer's need not start at 0). */
typedef struct an_mpi_str {
    uint32_t id;
    int32_t  site;            /* the call site it names, or -1 */
    char    *s;
} an_mpi_str_t;

typedef struct an_mpi_trace {
    char          *command, *rules, *clock, *version;
    int32_t        nranks;
    uint64_t       resolution;
    uint64_t       nevents;
    int            ncomms, nsites;
    an_mpi_comm_t *comms;
    an_mpi_site_t *sites;
    int64_t        ncalls, nops;
    an_mpi_call_t *calls;
    an_mpi_op_t   *ops;
    struct an_mpi_str *strs;  /* the trace's string definitions, by id, owned */
    an_auto_t      autos;     /* auto's choices, each named by its call's autorec */
    uint32_t       nstrs, capstrs;
} an_mpi_trace_t;

/*
 * The part of an application trace to analyse (papanalyze --ranks, --ops,
 * --call-site; docs/analysis-db.md, "Large traces", part of an application trace).
 */
struct an_progress;
typedef struct an_mpi_part {
    const int   *ranks;       /* world ranks to read, ascending; NULL: all */
    int          nranks;
    int          ops_part;    /* only seq op_first..op_last on each communicator */
    uint64_t     op_first, op_last;
    const char  *call_site;   /* only the calls of this site (label, function or name) */
    struct an_progress *progress;   /* or NULL */
    uint64_t     nread;       /* out: the events read */
} an_mpi_part_t;

/* 1 if the archive at anchor says INS_PROP_KIND = INS_KIND_MPI, 0 if it
 * does not (or cannot be opened: the tree reader then says why).  Opens
 * the anchor with OTF2 directly: call it after an__anchor_check passed. */
int an_mpi_is_archive(const char *anchor);

/* Reads the archive into tr (caller frees with an_mpi_trace_free, also on
 * error).  Every departure from ins_schema.h is an error naming the
 * anchor and the record. */
cm_status_t an_mpi_read(const char *anchor, an_mpi_trace_t *tr, an_mpi_part_t *part,
                        cm_err_t *err);
void an_mpi_trace_free(an_mpi_trace_t *tr);

/* Symbolises every site (never fails: what cannot be resolved keeps its
 * name).  addr2line is the program named by $PAPTREE_ADDR2LINE, or
 * "addr2line". */
void an_mpi_symbolise(an_mpi_trace_t *tr);

/* Numbers, matches and measures (fills seq, op_index, a, wait, ops).  With
 * part (or NULL: all), keeps only the calls of its --ops and --call-site
 * once they are numbered, and an operation is complete when the members of
 * its communicator among part's ranks all called. */
cm_status_t an_mpi_metrics(an_mpi_trace_t *tr, const an_mpi_part_t *part, cm_err_t *err);

/*
 * A call's message in bytes as the --algo rules size it (interpose/api/
 * ip_rules.h: count x the datatype's size): count x the size of a
 * predefined datatype known by name; else (a derived or unknown datatype)
 * derived from the bytes sent and received as the library counts them
 * (Score-P's way: an allreduce sends and receives (size - in place) x the
 * message, a bcast's root sends size x it, ...), taking the call as not in
 * place.
 */
uint64_t an_mpi_msg_bytes(const an_mpi_call_t *c, int32_t comm_size);

/* Whether an algorithm name (as the rules spell it) reads arrival times. */
int an_mpi_algo_pap_aware(const char *algo);

/* The whole analysis of an application trace (an_analyze routes here). */
cm_status_t an_mpi_analyze(const struct an_opts *opts, struct an_result *res, cm_err_t *err);

/* The report of a database an_mpi_analyze wrote (an_report routes here). */
cm_status_t an_mpi_report(struct sqlite3 *db, const char *path,
                          const struct an_report_opts *opts, FILE *out, cm_err_t *err);

/* 1 if the open database is an application trace's (meta kind = mpi). */
int an_mpi_db_is_mpi(struct sqlite3 *db);

#endif /* AN_MPI_INT_H */
