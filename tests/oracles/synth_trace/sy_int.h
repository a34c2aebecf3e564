/*
 * sy_int.h - private to synth_trace (tests/oracles/synth_trace.c, which
 * holds the scenarios and main, and its parts in tests/oracles/synth_trace/):
 * the constants, a scenario's records, the plan of locations and events,
 * and the functions one part defines for another.
 */
#ifndef SY_INT_H
#define SY_INT_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <otf2/otf2.h>
#include "common/cm_hash.h"
#include "instrument/api/ins_schema.h"
#include "runtime/api/rt_pathmap.h"

#define SY_BYTES      4                    /* tuple size: one int32 */
#define SY_RESOLUTION 1000000000u          /* ticks per second */
#define SY_REALTIME   UINT64_C(1700000000000000000)   /* wall clock of the global offset */
#define SY_PAD        1000                 /* ClockProperties margin, ticks */
#define SY_STRINGS    256
#define SY_HOSTS      3                    /* at most */

/* One wrapper visit: Enter at r = t1, Leave at r = t4, on location `loc`. */
typedef struct sy_visit {
    unsigned    inst, op;
    const char *node;          /* wrapper name */
    const char *loc;           /* location name: "thread N" or "service P#I" */
    int64_t     t1, t4;
} sy_visit_t;

/* A host's two ClockOffset records (local ticks, rank 0 - local, sd). */
typedef struct sy_clock {
    int64_t time0, time1, off0, off1;
    double  sd;
} sy_clock_t;

typedef struct sy_host {
    const char *hostname;      /* paptree::hostname of its system tree node */
    sy_clock_t  clock;
} sy_host_t;

/* One message of an algorithm node (scenario algo): sent by rank src in its
 * step sstep (MpiIsend at sp, MpiIsendComplete at sd), received by dst in
 * its step rstep (MpiIrecvRequest at rp, MpiIrecv at rd); tag = round. */
typedef struct sy_msg {
    unsigned inst, op, round, src, dst, sstep, rstep, bytes;
    int64_t  sp, sd, rp, rd;
} sy_msg_t;

/* A tree the pathmap parser does not build (an algorithm node): the
 * scenario describes it directly.  Node 0 is the root. */
typedef struct sy_node {
    const char *name, *kind;
    unsigned    host;
    int         parent;            /* -1 for the root */
    unsigned    line;
} sy_node_t;

typedef struct sy_thread {
    unsigned id, host, enter;
} sy_thread_t;

typedef struct sy_handtree {
    const char        *tree;
    const char        *hosts[SY_HOSTS];
    const sy_node_t   *nodes;
    unsigned           nnodes;
    const sy_thread_t *threads;
    unsigned           nthreads;
    const char        *algo_desc;  /* the algorithm node's extra description keys */
} sy_handtree_t;

typedef struct sy_scenario {
    const char       *name;
    const char       *pathmap_path;   /* PAPTREE::PATHMAP_PATH, region source file */
    const char       *pathmap;        /* the text */
    unsigned          ninst;
    int64_t           base;           /* rank 0's ticks at r = 0 */
    sy_host_t         hosts[SY_HOSTS];
    const sy_visit_t *visits;
    size_t            nvisits;
    unsigned          nhosts;         /* 0: 2 */
    const sy_handtree_t *hand;        /* NULL: the parsed pathmap's tree */
    const sy_msg_t   *msgs;
    size_t            nmsgs;
    const struct sy_arrival *arrivals;   /* a PAP-aware node's reports, or NULL */
    size_t            narrivals;
} sy_scenario_t;

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NELEM_(a) ((unsigned)NELEM(a))

#define NONE_     INT64_MIN

/* One arrival report: rank `rank` in op `op`; used 0 equal, 1 history, 2 edge. */
typedef struct sy_arrival {
    unsigned op, rank, used;
    int      missing;                  /* -1: none */
    int64_t  error, lead, wait;        /* NONE_: none (not wait) */
} sy_arrival_t;

/* ---- the plan: locations and their events ---------------------------------- */

typedef enum {
    SY_ENTER, SY_LEAVE, SY_COLL_BEGIN, SY_COLL_END, SY_ISEND, SY_ISEND_DONE, SY_IRECV_POST,
    SY_IRECV, SY_ARRIVAL        /* step: the report's index in sc->arrivals */
} sy_evkind_t;

typedef struct sy_event {
    int64_t     r;
    bool        leave;         /* SY_LEAVE */
    uint32_t    region;        /* Enter/Leave; the instance for the MPI events */
    uint64_t    op;
    sy_evkind_t kind;
    uint32_t    peer, tag, step, bytes;   /* the MPI events */
} sy_event_t;

typedef struct sy_loc {
    uint64_t    id;
    uint32_t    rank;
    const rt_thread_map_t *thread;   /* compute, or NULL */
    rt_node_id_t proxy;              /* service */
    unsigned    inst;                /* service */
    bool        algo;                /* the host's algorithm location */
    char        name[96];
    sy_event_t *ev;
    size_t      nev;
} sy_loc_t;

typedef struct sy_plan {
    const sy_scenario_t *sc;
    rt_pathmap_t        *pm;
    const rt_tree_t     *tree;
    sy_loc_t            *locs;
    uint32_t             nlocs;
    int64_t              rmin, rmax;
    bool                 hand;        /* pm built from sc->hand, not parsed */
} sy_plan_t;

/* ---- defined in one part, used in another ---- */

int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int otf2_fail(OTF2_ErrorCode rc, const char *what);
extern const char *damage;
/* --schema VERSION: PAPTREE::SCHEMA_VERSION's value, for the tests of the
 * readers' version checks (default INS_SCHEMA_VERSION). */
extern const char *schema;
void plan_free(sy_plan_t *p);
int plan_build(const sy_scenario_t *sc, sy_plan_t *p);
int to_local(const sy_plan_t *p, uint32_t h, int64_t r, uint64_t *out);
extern long no_offsets_rank;
int write_paptree(const sy_scenario_t *sc, const char *dir, const char *pathmap_out);
int write_foreign(const char *dir);

#endif /* SY_INT_H */
