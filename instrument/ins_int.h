/*
 * ins_int.h - private to instrument/: the recorder's state and helpers.
 *
 * The recorder is split by concept, one file each:
 *   trace.c    the lifecycle: ins_trace_open / ins_trace_close, the state
 *   collect.c  the hot path: per-location buffers and the hooks
 *   archive.c  OTF2: the archive, its callbacks and errors, event writing
 *   defs.c     OTF2 definitions: global (rank 0) and local (clock offsets)
 *   gdefs.c    definitions every archive writes alike (the string table,
 *              clock, hosts, clock offsets), shared with the application trace
 *   signals.c  removing the partial archive on SIGINT / SIGTERM
 *   clock.c    the event clock;  sync.c  clock offsets;  fs.c  directories
 * The application trace (ins_mpi.h) is mpi_*.c, with ins_mpi_int.h; it
 * shares the archive, files, clock, offsets and definitions above.
 */
#ifndef INS_INT_H
#define INS_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include <otf2/otf2.h>
#include "common/cm_arena.h"
#include "common/cm_strmap.h"
#include "instrument/api/ins_schema.h"
#include "instrument/api/ins_trace.h"

/* ---- clock (clock.c) ---------------------------------------------------- */

/* Set once by ins__clock_choose, before any thread records. */
extern bool ins__clock_tsc;

/* The event clock: raw ticks of the TSC, or nanoseconds of MONOTONIC_RAW. */
static inline uint64_t ins__clock_now(void)
{
    struct timespec ts;

#if defined(__x86_64__) || defined(__i386__)
    if (ins__clock_tsc)
        return __rdtsc();
#endif
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether this machine's TSC can be the event clock (invariant TSC). */
bool ins__clock_tsc_usable(void);

/*
 * Collective: sets ins__clock_tsc to whether every host has a usable TSC,
 * unless PAPTREE_TRACE_CLOCK=monotonic_raw.
 */
void ins__clock_choose(MPI_Comm comm);

/* A tick reading and the CLOCK_MONOTONIC_RAW and CLOCK_REALTIME times at it. */
typedef struct ins_clock_pair {
    uint64_t ticks;
    int64_t  raw_ns;
    int64_t  real_ns;
} ins_clock_pair_t;

void ins__clock_pair(ins_clock_pair_t *p);

/* Ticks per second between two pairs (exactly 1e9 for MONOTONIC_RAW). */
double ins__clock_rate(const ins_clock_pair_t *a, const ins_clock_pair_t *b);

/* ---- clock offsets (sync.c) --------------------------------------------- */

typedef struct ins_offset {
    uint64_t time;      /* local ticks at the middle of the best round trip */
    int64_t  offset;    /* rank 0's ticks - local ticks */
    uint64_t rtt;       /* the best (smallest) round trip, ticks */
} ins_offset_t;

/* Collective over comm: this rank's offset to rank 0 (0 on rank 0). */
int ins__sync_offset(MPI_Comm comm, ins_offset_t *out);

/* ---- the recorder's state (trace.c) -------------------------------------- */

#define INS_EVT_CHUNK   OTF2_CHUNK_SIZE_MIN          /* 256 KiB */
#define INS_EVT_CHUNKS  2                            /* per event writer */
#define INS_DEF_CHUNK   ((uint64_t)1 << 20)
#define INS_DEF_CHUNKS  64
#define INS_BUF_MIN     ((size_t)64 << 10)          /* smallest event buffer */
#define INS_GLOBAL_RES  ((size_t)2 * INS_DEF_CHUNK) /* global and local definitions */
#define INS_ERR_LEN     512

/*
 * One event: 24 bytes, of three sorts told apart by ref's top bits.
 *   visit (hook_visit; INS_REC_EXT clear): ref = region, | INS_REC_LEAVE
 *       for a LEAVE; op = seq; bytes = the tuple's.
 *   collective (hook_coll): ref = INS_REC_EXT | kind BEGIN or END <<
 *       INS_REC_KIND_SHIFT | instance; op = seq; bytes = the tuple's.
 *   message (hook_msg): ref = INS_REC_EXT | (INS_REC_MSG + rt_msg_t) <<
 *       INS_REC_KIND_SHIFT | peer; op = step << 32 | round; bytes = the
 *       message's.  Its operation and instance are those of the collective
 *       begun last on the location (the executor reports messages between
 *       its BEGIN and END), so the record need not carry them.
 *   arrival report (hook_arrival): three records with ref = INS_REC_EXT |
 *       INS_REC_ARRIVAL << INS_REC_KIND_SHIFT | part << INS_REC_PART_SHIFT
 *       | data, all with the hook's ts: part 0 op = error_ns, data = asked
 *       | used << 2 | (missing + 1) << 4; part 1 op = lead_ns; part 2
 *       op = wait_ns.  The writer keeps parts 0 and 1 in the location and
 *       writes one OTF2 event at part 2 (a flush may fall between them).
 * Regions are therefore below INS_REC_EXT (2^30), and instances and peers
 * below 2^27 (trace.c checks; hosts are at most 4096).  Byte counts are
 * stored modulo 2^32, as they always were.
 */
typedef struct ins_rec {
    uint64_t ts;
    uint64_t op;
    uint32_t ref;
    uint32_t bytes;
} ins_rec_t;

#define INS_REC_LEAVE      (UINT32_C(1) << 31)
#define INS_REC_EXT        (UINT32_C(1) << 30)
#define INS_REC_KIND_SHIFT 27
#define INS_REC_PAYLOAD    ((UINT32_C(1) << INS_REC_KIND_SHIFT) - 1)
enum { INS_REC_COLL_BEGIN = 0, INS_REC_COLL_END = 1, INS_REC_MSG = 2 /* + rt_msg_t, to 5 */,
       INS_REC_ARRIVAL = 6, INS_REC_CHOICE = 7 };
#define INS_REC_PART_SHIFT 24          /* arrival records: the part, 0..2 */
#define INS_REC_MISSING_MAX ((1u << (INS_REC_PART_SHIFT - 4)) - 2)
/*
 * A choice of `auto` (collect.c, hook_choice): 3 + 2 * ncand records of
 * kind INS_REC_CHOICE, the part in the payload's top bits: part 0 (data =
 * chosen | reason << 4 | ncand << 6, value = the spread), part 1 (value =
 * skipped), parts INS_CHOICE_PRED + i and INS_CHOICE_CORR + i (i < ncand:
 * the predictions), and INS_CHOICE_END, which makes the event.
 */
#define INS_CHOICE_PART_SHIFT 20
#define INS_CHOICE_PRED       2u
#define INS_CHOICE_CORR       (INS_CHOICE_PRED + INS_AUTO_CAND_MAX)
#define INS_CHOICE_END        127u

/*
 * The String ids of the three arrival sources (ins_schema.h), written first
 * in an archive with a PAP-aware node: id = INS_STR_ARRIVAL0 + rt_arrival_t,
 * so that every rank names them in its events before rank 0 writes them.
 */
#define INS_STR_ARRIVAL0   0u
#define INS_NARRIVAL       3u
/*
 * In an archive with an auto node, the strings after those: the four
 * reasons (rt_auto_reason_t order), the candidate list ("ring,prr"), then
 * each candidate's name in the configuration's order (defs.c).
 */
#define INS_STR_REASON0    (INS_STR_ARRIVAL0 + INS_NARRIVAL)
#define INS_NREASON        4u
#define INS_STR_CANDIDATES (INS_STR_REASON0 + INS_NREASON)
#define INS_STR_CAND0      (INS_STR_CANDIDATES + 1u)

/*
 * One location.  While recording, its buffer is written by one thread at
 * a time: a computational thread's or a link's by its own thread, the
 * algorithm location's by whichever thread runs the node on this host,
 * handed from one to the next by the runtime's synchronisation.  So no
 * state here may be thread-local, and a flush runs on whichever thread
 * fills the buffer.
 */
typedef struct ins_loc {
    ins_rec_t          *buf;
    uint32_t            n, cap;
    uint32_t            nnodes;
    struct ins_trace   *tr;
    uint64_t            flushes;     /* read by other threads: atomics */
    uint64_t            written;
    uint64_t            first_ts, last_ts;
    OTF2_EvtWriter     *ew;
    OTF2_AttributeList *attrs;
    OTF2_LocationRef    id;
    OTF2_ErrorCode      failed;      /* first write error, or OTF2_SUCCESS */
    uint64_t            coll_op;     /* writing: the last collective begun, */
    uint32_t            coll_inst;   /* for the messages that follow it */
    uint32_t            arr_data;    /* writing: an arrival report's part 0 data, */
    int64_t             arr_error;   /* error (part 0) and lead (part 1) */
    int64_t             arr_lead;
    uint32_t            ch_data;     /* writing: a choice's part 0 data, */
    int64_t             ch_spread;   /* spread (part 0), skipped (part 1), */
    uint64_t            ch_skipped;  /* the predictions (parts PRED, CORR); */
    int64_t             ch_pred[INS_AUTO_CAND_MAX];  /* -1: none */
    int64_t             ch_corr[INS_AUTO_CAND_MAX];
} __attribute__((aligned(64))) ins_loc_t;

struct ins_trace {
    const rt_pathmap_t *pm;
    const rt_tree_t    *tree;
    unsigned            ninst;
    MPI_Comm            comm;
    int                 rank, size;
    int                 node_ranks;  /* ranks sharing this machine's memory */
    char               *dir, *partial, *command;
    OTF2_Archive       *ar;
    rt_hooks_t          hooks;
    rt_location_t      *where;       /* [nloc]: what the executor registered */
    ins_loc_t          *locs;        /* [nloc], by location index */
    uint32_t            nloc, nregistered;
    ins_clock_pair_t    clk0, clk1;
    ins_offset_t        off0, off1;
    char              **sig_files;
    char               *sig_msg, *sig_done_msg;
};

/* The algorithm node's group ids (readers find them by type and name). */
#define INS_GROUP_ALGO_LOCATIONS_ID 0u
#define INS_GROUP_ALGO_RANKS_ID     1u

/* OTF2 location id of location `index` of `rank` (ins_schema.h). */
static inline OTF2_LocationRef ins__loc_id(int rank, uint32_t index)
{
    return ((OTF2_LocationRef)rank << INS_LOC_RANK_SHIFT) | index;
}

/* ---- the collectors (collect.c) ----------------------------------------- */

/* Fills tr->hooks. */
void ins__collect_hooks(ins_trace_t *tr);

/*
 * Location i's event buffer of `bytes` (whole records), touched now so
 * that its page faults do not land in the measured loop.  0 or -1.
 */
int ins__collect_buffer(ins_loc_t *loc, size_t bytes);

/* One byte per page of p[0..len), so that its page faults happen now (volatile:
   a compiler may turn malloc + memset into calloc, which leaves pages untouched). */
void ins__touch_pages(void *p, size_t len);

/* Writes the buffered records to OTF2 and empties the buffer. */
void ins__collect_write(ins_loc_t *loc);

/* ---- the archive (archive.c) --------------------------------------------- */

/* Forwards OTF2's error messages to ours; once, before the archive opens. */
void ins__archive_register_errors(void);

/*
 * Opens `partial` as an OTF2 archive for writing, collective over comm,
 * with our flush, memory, collective and locking callbacks.  *ar_p is the
 * archive as soon as it exists (the caller closes it, also on failure).
 */
cm_status_t ins__archive_create(const char *partial, MPI_Comm comm, OTF2_Archive **ar_p,
                                cm_err_t *err);

/* An archive property (string). */
typedef struct ins_prop {
    const char *name, *value;
} ins_prop_t;

cm_status_t ins__archive_set_props(OTF2_Archive *ar, const ins_prop_t *props, size_t n,
                                   cm_err_t *err);

/* OTF2_Archive_OpenEvtFiles, checked. */
cm_status_t ins__archive_open_evt_files(OTF2_Archive *ar, cm_err_t *err);

/* Opens tr->partial as an OTF2 archive and sets its properties. */
cm_status_t ins__archive_open(ins_trace_t *tr, cm_err_t *err);

/*
 * Rank 0, before the archive closes: a pathmap too long for a property
 * (INS_PATHMAP_PROP_MAX) into its file in the partial archive; CM_OK on
 * other ranks and for a shorter pathmap.
 */
cm_status_t ins__archive_write_pathmap(ins_trace_t *tr, cm_err_t *err);

/* After the archive is open everywhere: event files and writers. */
cm_status_t ins__archive_open_events(ins_trace_t *tr, cm_err_t *err);

/* Every buffered event to its OTF2 writer; the first write error, if any. */
OTF2_ErrorCode ins__archive_drain(ins_trace_t *tr);

/* One event writer closed, its event count checked against `written`. */
OTF2_ErrorCode ins__archive_close_writer(OTF2_Archive *ar, OTF2_EvtWriter *ew, uint64_t written);

/* The event writers closed (their last chunks written) and checked. */
OTF2_ErrorCode ins__archive_close_events(ins_trace_t *tr, uint64_t *events,
                                         uint64_t *flushes);

/*
 * Folds one writing step into st: it failed if OTF2 returned an error or
 * reported one through the error callback since the previous step.
 */
cm_status_t ins__archive_check(const char *dir, OTF2_ErrorCode rc, const char *what,
                               cm_status_t st, cm_err_t *err);

/*
 * An archive abandoned after a failed event write: never closed (OTF2
 * 3.0.2 crashes flushing a writer again after a failed write), its memory
 * kept until exit (and marked so for LeakSanitizer).
 */
void ins__archive_leave_open(OTF2_Archive *ar);

/* ---- definitions every archive has (gdefs.c) ------------------------------ */

/* The global definition writer, with each string written once. */
typedef struct ins_gw {
    OTF2_GlobalDefWriter *w;
    OTF2_StringRef        next;       /* the next String id */
    OTF2_ErrorCode        rc;         /* the first error */
    cm_strmap_t           strings;    /* text -> its String id */
    cm_arena_t           *arena;      /* the keys' copies */
} ins_gw_t;

OTF2_ErrorCode ins__gw_open(ins_gw_t *g, OTF2_Archive *ar);
/* Closes the writer; the first error of the whole writing, if any. */
OTF2_ErrorCode ins__gw_close(ins_gw_t *g, OTF2_Archive *ar);
/* The String id of s, written the first time. */
OTF2_StringRef ins__gw_str(ins_gw_t *g, const char *s);
/* Keeps rc as the writer's error if it is the first. */
void ins__gw_check(ins_gw_t *g, OTF2_ErrorCode rc);

static inline OTF2_AttributeValue ins__av_u64(uint64_t v)
{
    OTF2_AttributeValue a;
    a.uint64 = v;
    return a;
}

static inline OTF2_AttributeValue ins__av_str(OTF2_StringRef s)
{
    OTF2_AttributeValue a;
    a.stringRef = s;
    return a;
}

/* Host-wide facts rank 0 gathers. */
typedef struct ins_host_info {
    char    hostname[256];
    int64_t min_ts, max_ts;     /* in rank 0's ticks; INT64_MAX/MIN if no events */
} ins_host_info_t;

/* This host's name, no events yet. */
void ins__host_info_init(ins_host_info_t *me);
/* One location's first and last event, local ticks, into the host's span. */
void ins__host_info_span(ins_host_info_t *me, uint64_t first_ts, uint64_t last_ts,
                         const ins_offset_t *off0, const ins_offset_t *off1);
/* Widens the span by the offsets' drift and error, once all are in. */
void ins__host_info_pad(ins_host_info_t *me, const ins_offset_t *off0, const ins_offset_t *off1);

/* ClockProperties spanning every host's events (hosts[0..nhosts)). */
void ins__gw_clock(ins_gw_t *g, double rate, const ins_host_info_t *hosts, int nhosts,
                   const ins_clock_pair_t *clk0);
/* System tree node 0, the machine, named after rank 0's host. */
void ins__gw_machine(ins_gw_t *g, const char *hostname);
/* Host r: system tree node 1+r named `host`, location group r (ins_schema.h). */
void ins__gw_host(ins_gw_t *g, int r, const char *host, const char *hostname);
/* The auto parameter and the choice attributes, ids INS_ATTR_CANDIDATES_ID
   to INS_ATTR_CORR0_ID + 7 (ins_schema.h, "what `auto` chose"). */
void ins__gw_auto_defs(ins_gw_t *g);

/* Each location's definitions: the two clock offsets (all of this rank's),
   and, when comm_map is not NULL, that mapping table of communicator ids
   (the events' ids -> the global definitions'). */
OTF2_ErrorCode ins__defs_write_offsets(OTF2_Archive *ar, const OTF2_LocationRef *ids, uint32_t n,
                                       const ins_offset_t *off0, const ins_offset_t *off1,
                                       const OTF2_IdMap *comm_map);

/* ---- definitions (defs.c) ------------------------------------------------ */

/* Each location's definitions: the two clock offsets. */
OTF2_ErrorCode ins__defs_write_locals(ins_trace_t *tr);

/*
 * Collective: gathers each rank's locations, counts and host facts at
 * rank 0, which writes every global definition.
 */
OTF2_ErrorCode ins__defs_write_globals(ins_trace_t *tr, double rate);

/* ---- files (fs.c) -------------------------------------------------------- */

/*
 * Rank 0, before opening: checks that dir may be written (absent, or
 * present with force, an OTF2 archive and holding nothing but a trace's
 * files: the archive and its traces.db), removes a stale partial with
 * force, creates dir's parent directories and probes that partial can be
 * created.  Returns 0, or -1 with msg set.
 */
int ins__fs_prepare(const char *dir, const char *partial, int force,
                    char *msg, size_t msglen);

/*
 * Rank 0, after a complete write: moves partial to dir, replacing the old
 * trace (checked again to hold nothing but a trace's files); on failure dir
 * is as it was.
 */
int ins__fs_commit(const char *dir, const char *partial, char *msg, size_t msglen);

/* Creates (or truncates) path and writes len bytes of data; 0, or -1 with msg set. */
int ins__fs_write(const char *path, const void *data, size_t len, char *msg, size_t msglen);

/* Removes a directory tree (partial archives only); 0 or -1 with errno. */
int ins__fs_remove_tree(const char *path);

/*
 * Collective over comm: rank 0 runs ins__fs_prepare / ins__fs_commit and
 * every rank gets its outcome (err on every rank).
 */
cm_status_t ins__fs_prepare_all(MPI_Comm comm, const char *dir, const char *partial, int force,
                                cm_err_t *err);
cm_status_t ins__fs_commit_all(MPI_Comm comm, const char *dir, const char *partial,
                               cm_err_t *err);

/* Collective over comm: after every rank is done with it, rank 0 removes partial. */
void ins__fs_discard_all(MPI_Comm comm, const char *partial);

/* A string formatted into malloc'd memory, or NULL. */
char *ins__fs_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- interrupts (signals.c) ---------------------------------------------- */

/*
 * Prepares tr->sig_files (every file of this rank's part of the partial
 * archive, directories last) and the messages, before the archive opens.
 */
cm_status_t ins__signals_plan(ins_trace_t *tr, cm_err_t *err);

/*
 * Interrupt safety.  ins__signals_arm installs SIGINT and SIGTERM handlers
 * that unlink `files` (NULL-terminated; this rank's part of the partial
 * archive, directories last), print `msg` and re-raise the signal.
 * ins__signals_done tells the handler the archive is complete (then it
 * only says so); ins__signals_disarm restores the previous handlers.
 */
void ins__signals_arm(char **files, const char *msg, const char *done_msg);

/*
 * Async-signal-safe: unlinks files[0..n) (stopping at a NULL), removing
 * those that are directories if empty: the handler's work, shared with
 * ins_mpi_abandon.
 */
void ins__signals_unlink(char *const *files, size_t n);
void ins__signals_done(void);
void ins__signals_disarm(void);

#endif /* INS_INT_H */
