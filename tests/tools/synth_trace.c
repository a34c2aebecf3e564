/*
 * synth_trace - writes small hand-made paptree OTF2 archives for the tests.
 *
 *   synth_trace [--pathmap-out FILE] SCENARIO DIR
 *
 * Writes DIR/traces.otf2 (DIR must not exist) following every convention of
 * docs/trace-format.md, as instrument/trace.c writes them, but with
 * timestamps chosen by hand, so that tests/analyze/synthetic.sh can compute
 * every metric of docs/analysis-db.md by hand and compare it with what
 * bin/papanalyze stores.  No MPI: one process writes every host's locations
 * (OTF2's serial collective callbacks).  --pathmap-out writes the scenario's
 * pathmap text to FILE, for build/tests/trace_check.
 *
 * The clock is monotonic_raw: resolution 10^9, one tick is one ns.  The
 * tables below give each visit's t1 (its Enter) and t4 (its Leave) as "r",
 * the true time in ns after the scenario's base (rank 0's ticks at r = 0);
 * the earliest event of each scenario is at r = 0, so r is exactly the time
 * papanalyze stores.  A host whose clock differs from rank 0's writes
 * local ticks, and its ClockOffset records tell a reader how to map them
 * back: true = local + off0 + (local - time0) * (off1 - off0) / (time1 - time0).
 * The writer inverts that exactly, or refuses a table entry it cannot.
 *
 * Scenarios (the tables are the documentation of the expected values):
 *   gred3    the main one: 5 threads on 2 hosts, gred/proxy/core, 3 ops;
 *            host B's clock is 1 ms behind (offset +1,000,000, no drift)
 *   chain    a fan-in-1 path a(B) -> p(B) -> b(A) -> c(A), 2 instances x 2
 *            ops; host B's clock is 1 ms behind and drifts 1000 ppm
 *   lastarr  the last arrival at a gred is the visit that continues (nests
 *            the parent's), not the largest t1: a tie, and a smaller t1
 *   oneway   the chain's tree over 1101 operations: more one-way proxy times
 *            than an_stats.h keeps exactly (AN_STAT_EXACT), median by hand
 *   wide     a gred of 100 contributors (a 128-core node), 3 ops: Table 1 is
 *            wider than a terminal
 *   algo     an algorithm node at the root over 3 hosts (A, B, C), 2 ops, with
 *            its collective and point-to-point MPI events (ins_schema.h)
 *   movable  3 hosts: gred cr1.0 (A) whose proxy contributor from B arrives
 *            last, late of its own: advice rule 8 moves it (`move cr1.0 B`)
 *   pap      algo's tree and op 0 five times (ops 0-4, 10 us apart) with a
 *            PAP-aware node (run=slt arrival=edge) and its arrival reports:
 *            sources, fallbacks, estimation errors, leads and waits by hand
 *   foreign  a valid OTF2 archive of another tool: no PAPTREE:: property
 */
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

/* ---- gred3 ------------------------------------------------------------------
 *
 * Nodes root=0 (core), top=1, g0=2, p1=3, g1=4.  Locations: host A (rank 0)
 * threads 0,1,2 then "service p1#0" (ids 0..3); host B (rank 1) threads 3,4
 * (ids 65536, 65537).  Host B's timestamps are written as r + 1,000,000
 * (base 2,000,000 minus its offset 1,000,000); host A's as r + 2,000,000.
 *
 *           op 0            op 1               op 2
 *  g0  th0  [0, 800]        [10500, 10720]*    [20150, 20640]
 *      th1  [250, 830]      [10080, 10680]     [20300, 20600]*
 *      th2  [400, 780]*     [10200, 10700]     [20050, 20640]
 *  top g0   [430, 760] th2  [10520, 10650] th0 [20330, 20580] th1
 *      p1   [600, 730]* sv  [10300, 10630] sv  [20450, 20570]* sv
 *  root     [620, 700] sv   [10540, 10600] th0 [20470, 20530] sv
 *  g1  th3  [150, 1040]     [10120, 10950]*    [20100, 20850]
 *      th4  [300, 1000]*    [10050, 10920]     [20200, 20820]*
 *  p1       [320, 980] th4  [10140, 10900] th3 [20220, 20800] th4
 *
 * (* = the last arrival, whose visit nests the parent's; sv = the service
 * thread on host A.)  Thread 0's first Enter, at r = 0, is the earliest event.
 */
static const char gred3_pathmap[] =
    "host A\n"
    "host B\n"
    "tree sum type=int32 op=sum\n"
    "core  root host=A\n"
    "gred  top  host=A parent=root\n"
    "gred  g0   host=A parent=top\n"
    "proxy p1   host=B parent=top\n"
    "gred  g1   host=B parent=p1\n"
    "threads 0-2 host=A enter=g0\n"
    "threads 3-4 host=B enter=g1\n";

static const sy_visit_t gred3_visits[] = {
    { 0, 0, "g0",   "thread 0",     0,     800 },
    { 0, 0, "g0",   "thread 1",     250,   830 },
    { 0, 0, "g0",   "thread 2",     400,   780 },
    { 0, 0, "top",  "thread 2",     430,   760 },
    { 0, 0, "g1",   "thread 3",     150,   1040 },
    { 0, 0, "g1",   "thread 4",     300,   1000 },
    { 0, 0, "p1",   "thread 4",     320,   980 },
    { 0, 0, "top",  "service p1#0", 600,   730 },
    { 0, 0, "root", "service p1#0", 620,   700 },

    { 0, 1, "g0",   "thread 0",     10500, 10720 },
    { 0, 1, "top",  "thread 0",     10520, 10650 },
    { 0, 1, "root", "thread 0",     10540, 10600 },
    { 0, 1, "g0",   "thread 1",     10080, 10680 },
    { 0, 1, "g0",   "thread 2",     10200, 10700 },
    { 0, 1, "g1",   "thread 3",     10120, 10950 },
    { 0, 1, "p1",   "thread 3",     10140, 10900 },
    { 0, 1, "g1",   "thread 4",     10050, 10920 },
    { 0, 1, "top",  "service p1#0", 10300, 10630 },

    { 0, 2, "g0",   "thread 0",     20150, 20640 },
    { 0, 2, "g0",   "thread 1",     20300, 20600 },
    { 0, 2, "top",  "thread 1",     20330, 20580 },
    { 0, 2, "g0",   "thread 2",     20050, 20640 },
    { 0, 2, "g1",   "thread 3",     20100, 20850 },
    { 0, 2, "g1",   "thread 4",     20200, 20820 },
    { 0, 2, "p1",   "thread 4",     20220, 20800 },
    { 0, 2, "top",  "service p1#0", 20450, 20570 },
    { 0, 2, "root", "service p1#0", 20470, 20530 },
};

/* ---- chain ------------------------------------------------------------------
 *
 * Nodes c=0 (core, A), b=1 (gred, A), p=2 (proxy, B), a=3 (gred, B); thread 0
 * on B enters a.  Locations: host A "service p#0", "service p#1" (ids 0, 1);
 * host B thread 0 (id 65536).  Operations alternate instances as Gsum's do:
 * (inst 0, op 0), (1, 0), (0, 1), (1, 1).
 *
 * Host B's clock: offset 1,000,000 at local 0 and 1,001,000 at local
 * 1,000,000 (drift 1000 ppm).  Base 1,100,100, so local 100,000 + 1000 m is
 * r = 1001 m: every host-B time below is a multiple of 1001 and its
 * correction an exact integer.
 *
 *   inst op   a (thread 0)     p (thread 0)     b (service)      c (service)
 *   0    0    [0, 12012]       [2002, 10010]    [4000, 6000]     [4600, 5400]
 *   1    0    [20020, 27027]   [21021, 25025]   [22500, 24100]   [22900, 23500]
 *   0    1    [40040, 49049]   [42042, 48048]   [43000, 45500]   [43800, 44700]
 *   1    1    [60060, 66066]   [61061, 65065]   [62000, 63600]   [62500, 63300]
 */
static const char chain_pathmap[] =
    "host A\n"
    "host B\n"
    "tree chain type=int32 op=sum\n"
    "core  c host=A\n"
    "gred  b host=A parent=c\n"
    "proxy p host=B parent=b\n"
    "gred  a host=B parent=p\n"
    "threads 0 host=B enter=a\n";

static const sy_visit_t chain_visits[] = {
    { 0, 0, "a", "thread 0",    0,     12012 },
    { 0, 0, "p", "thread 0",    2002,  10010 },
    { 0, 0, "b", "service p#0", 4000,  6000 },
    { 0, 0, "c", "service p#0", 4600,  5400 },

    { 1, 0, "a", "thread 0",    20020, 27027 },
    { 1, 0, "p", "thread 0",    21021, 25025 },
    { 1, 0, "b", "service p#1", 22500, 24100 },
    { 1, 0, "c", "service p#1", 22900, 23500 },

    { 0, 1, "a", "thread 0",    40040, 49049 },
    { 0, 1, "p", "thread 0",    42042, 48048 },
    { 0, 1, "b", "service p#0", 43000, 45500 },
    { 0, 1, "c", "service p#0", 43800, 44700 },

    { 1, 1, "a", "thread 0",    60060, 66066 },
    { 1, 1, "p", "thread 0",    61061, 65065 },
    { 1, 1, "b", "service p#1", 62000, 63600 },
    { 1, 1, "c", "service p#1", 62500, 63300 },
};

/* ---- lastarr ----------------------------------------------------------------
 *
 * Nodes root=0 (core, A), g=1 (gred, A), q=2 (proxy, B); g's contributors are
 * c0 = q (its visits made by "service q#0" on host A), c1 = thread 0, c2 =
 * thread 1 (both on A, entering g); thread 2 on B enters q.  Locations: host
 * A threads 0, 1, then "service q#0"; host B thread 2.  Host B's clock as in
 * gred3 (1 ms behind, no drift).
 *
 *          op 0                        op 1
 *  g  c0   [50, 800]   service         [1050, 1800]  service
 *     c1   [100, 820]* thread 0        [1150, 1820]  thread 0
 *     c2   [100, 840]  thread 1        [1100, 1850]* thread 1
 *  root    [300, 400]  thread 0        [1300, 1400]  thread 1
 *  q       [0, 900]    thread 2        [1000, 1900]  thread 2
 *
 * (* = the visit that nests root's: the contributor that continued.)  Op 0:
 * c1 and c2 arrive at the same t1, and the one that continued has the lower
 * contributor index.  Op 1: the one that continued has the smaller t1 (it
 * took its timestamp first and reached the gred last).
 */
/* The tree of lastarr and wide: root <- g (A) <- q (proxy from B); the
 * scenario adds its threads. */
#define ROOT_G_Q_TREE                   \
    "host A\n"                          \
    "host B\n"                          \
    "tree sum type=int32 op=sum\n"      \
    "core  root host=A\n"               \
    "gred  g    host=A parent=root\n"   \
    "proxy q    host=B parent=g\n"

static const char lastarr_pathmap[] =
    ROOT_G_Q_TREE
    "threads 0-1 host=A enter=g\n"
    "threads 2 host=B enter=q\n";

static const sy_visit_t lastarr_visits[] = {
    { 0, 0, "q",    "thread 2",    0,    900 },
    { 0, 0, "g",    "service q#0", 50,   800 },
    { 0, 0, "g",    "thread 0",    100,  820 },
    { 0, 0, "root", "thread 0",    300,  400 },
    { 0, 0, "g",    "thread 1",    100,  840 },

    { 0, 1, "q",    "thread 2",    1000, 1900 },
    { 0, 1, "g",    "service q#0", 1050, 1800 },
    { 0, 1, "g",    "thread 0",    1150, 1820 },
    { 0, 1, "g",    "thread 1",    1100, 1850 },
    { 0, 1, "root", "thread 1",    1300, 1400 },
};

/* ---- oneway -------------------------------------------------------------------
 *
 * The chain's tree (a -> p -> b -> c, thread 0 on B) with one instance and
 * ONEWAY_OPS operations, generated: operation k starts at r0 = 40000 k and
 *
 *   a (thread 0)  [r0, r0 + 30000]
 *   p (thread 0)  [r0 + 1000, r0 + 29000]           t4 - t1 = 28000
 *   b (service)   [r0 + 5000, r0 + 15000 - 5 k]     t3 - t2 = 10000 - 5 k
 *   c (service)   [r0 + 5100, r0 + 5200]
 *
 * so p's one-way time (wrapper latency / 2) is (28000 - 10000 + 5 k) / 2 =
 * 9000 + 2.5 k ns, increasing with k.  Host B's clock as in gred3.
 */
#define ONEWAY_OPS 1101

/* The oneway scenario's visits (4 per operation); caller frees. */
static sy_visit_t *oneway_visits(size_t *n)
{
    sy_visit_t *v = calloc(4 * ONEWAY_OPS, sizeof(*v));

    if (v == NULL)
        return NULL;
    for (unsigned k = 0; k < ONEWAY_OPS; k++) {
        int64_t r0 = 40000 * (int64_t)k;
        v[4 * k + 0] = (sy_visit_t){ 0, k, "a", "thread 0", r0, r0 + 30000 };
        v[4 * k + 1] = (sy_visit_t){ 0, k, "p", "thread 0", r0 + 1000, r0 + 29000 };
        v[4 * k + 2] = (sy_visit_t){ 0, k, "b", "service p#0", r0 + 5000, r0 + 15000 - 5 * (int64_t)k };
        v[4 * k + 3] = (sy_visit_t){ 0, k, "c", "service p#0", r0 + 5100, r0 + 5200 };
    }
    *n = 4 * ONEWAY_OPS;
    return v;
}

/* ---- wide ---------------------------------------------------------------------
 *
 * A gred with 100 contributors, as on a 128-core node: nodes root=0 (core,
 * A), g=1 (gred, A), q=2 (proxy, B); g's contributors are c0 = q (visits
 * made by "service q#0" on host A), c1 .. c99 = threads 0 .. 98 (on A,
 * entering g); thread 99 on B enters q.  Host B's clock as in gred3.
 * Operation k (0 .. WIDE_OPS-1) starts at r0 = 100000 k:
 *
 *   q     thread 99      [r0, r0 + 5000]
 *   g c0  service q#0    [r0 + 50, r0 + 2500]           arrives 1st, departs 100th
 *   g c1+i thread i<98   [r0 + 100 + 10 i, r0 + 1400 + 10 i]   arrives and departs (i+2)-th
 *   g c99 thread 98      [r0 + 1080, r0 + 1300]*        arrives 100th (last), departs 1st
 *   root  thread 98      [r0 + 1100, r0 + 1200]
 *
 * (* its visit nests root's: the contributor that continued.)  So in every
 * operation arrival 1 departs 100th, arrival 100 departs 1st, and arrival
 * a = 2 .. 99 departs a-th: Table 1 of g is that permutation at 100 %.
 */
#define WIDE_OPS 3

static const char wide_pathmap[] =
    ROOT_G_Q_TREE
    "threads 0-98 host=A enter=g\n"
    "threads 99 host=B enter=q\n";

/* The wide scenario's visits (102 per operation); caller frees. */
static sy_visit_t *wide_visits(size_t *n)
{
    static char names[100][24];
    sy_visit_t *v = calloc(102 * WIDE_OPS, sizeof(*v));
    size_t k = 0;

    if (v == NULL)
        return NULL;
    for (int i = 0; i < 100; i++)
        snprintf(names[i], sizeof(names[i]), "thread %d", i);
    for (unsigned op = 0; op < WIDE_OPS; op++) {
        int64_t r0 = 100000 * (int64_t)op;
        v[k++] = (sy_visit_t){ 0, op, "q", names[99], r0, r0 + 5000 };
        v[k++] = (sy_visit_t){ 0, op, "g", "service q#0", r0 + 50, r0 + 2500 };
        for (int i = 0; i < 98; i++)
            v[k++] = (sy_visit_t){ 0, op, "g", names[i], r0 + 100 + 10 * i, r0 + 1400 + 10 * i };
        v[k++] = (sy_visit_t){ 0, op, "g", names[98], r0 + 1080, r0 + 1300 };
        v[k++] = (sy_visit_t){ 0, op, "root", names[98], r0 + 1100, r0 + 1200 };
    }
    *n = k;
    return v;
}

/* ---- movable ------------------------------------------------------------------
 *
 * A gred that advice rule 8 (`move G HOST`, docs/pathgen.md "Advice") moves:
 * three hosts A, B, C (ranks 0, 1, 2); nodes root=0 (core, A), cr0=1 (gred,
 * A), cr1.0=2 (gred, A), pB=3 (proxy, B), pC=4 (proxy, C).  cr1.0's
 * contributors are c0 = pB (its visits made by "service pB#0" on A) and c1 =
 * thread 0 (A); cr0's are c0 = cr1.0 and c1 = pC ("service pC#0" on A).
 * Thread 1 (B) enters pB, thread 2 (C) enters pC.  Locations: A thread 0,
 * "service pB#0", "service pC#0"; B thread 1; C thread 2.  Host B's clock is
 * 1 ms behind (as in gred3), C's 0.5 ms ahead (offset -500,000).  Op 1 starts
 * at r0 = 10000 (times below are r - r0):
 *
 *                     op 0                 op 1
 *  cr1.0 th0          [100, 750]           [100, 950]
 *        pB  sv pB    [440, 740]*          [440, 940]*
 *  pB    th1          [340, 840]           [340, 1040]
 *  cr0   cr1.0 sv pB  [460, 720]*          [460, 910]
 *        pC  sv pC    [150, 730]           [800, 900]*
 *  pC    th2          [50, 830]            [700, 1000]
 *  root               [480, 700] sv pB     [820, 880] sv pC
 *
 * (* = the last arrival, whose visit nests the parent's.)  Thread 1 arrives
 * 240 ns after thread 0 in both operations and leaves 90 ns after it (the
 * proxy's way back): pB is last at cr1.0 every time, and thread 0 waits 340
 * ns for it.  Host C is the last host in op 1, B in op 0.  pB's and pC's
 * latencies are 200 ns in both operations.
 */
static const char movable_pathmap[] =
    "host A\n"
    "host B\n"
    "host C\n"
    "tree sum type=int32 op=sum\n"
    "core  root  host=A\n"
    "gred  cr0   host=A parent=root\n"
    "gred  cr1.0 host=A parent=cr0\n"
    "proxy pB    host=B parent=cr1.0\n"
    "proxy pC    host=C parent=cr0\n"
    "threads 0 host=A enter=cr1.0\n"
    "threads 1 host=B enter=pB\n"
    "threads 2 host=C enter=pC\n";

static const sy_visit_t movable_visits[] = {
    { 0, 0, "pC",    "thread 2",     50,    830 },
    { 0, 0, "cr1.0", "thread 0",     100,   750 },
    { 0, 0, "cr0",   "service pC#0", 150,   730 },
    { 0, 0, "pB",    "thread 1",     340,   840 },
    { 0, 0, "cr1.0", "service pB#0", 440,   740 },
    { 0, 0, "cr0",   "service pB#0", 460,   720 },
    { 0, 0, "root",  "service pB#0", 480,   700 },

    { 0, 1, "cr1.0", "thread 0",     10100, 10950 },
    { 0, 1, "pB",    "thread 1",     10340, 11040 },
    { 0, 1, "cr1.0", "service pB#0", 10440, 10940 },
    { 0, 1, "cr0",   "service pB#0", 10460, 10910 },
    { 0, 1, "pC",    "thread 2",     10700, 11000 },
    { 0, 1, "cr0",   "service pC#0", 10800, 10900 },
    { 0, 1, "root",  "service pC#0", 10820, 10880 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NELEM_(a) ((unsigned)NELEM(a))

/* ---- algo ---------------------------------------------------------------------
 *
 * An algorithm node at the root (docs/pathmap.md, "algo"): three hosts A, B,
 * C = ranks 0, 1, 2 of the node; a gred on A (threads 0, 1) and on B
 * (threads 2, 3); thread 4 on C enters the node directly.  Nodes across=0
 * (algo), gA=1, gB=2; across's contributors c0 = gA, c1 = gB, c2 = thread 4.
 * Locations: A threads 0, 1, "algo A" (ids 0..2); B threads 2, 3, "algo B";
 * C thread 4 (no events: its visit of the node is its host's algorithm
 * location's), "algo C".  Host B's clock is 1 ms behind (as in gred3); C's
 * agrees with A's (offset 0, sd 400: the smallest, so p2p = 400 ns).
 * MpiCollectiveBegin at t1 + 10 and MpiCollectiveEnd at t4 - 10 of each
 * algorithm visit.  The schedule (a binomial reduce to rank 0, then its
 * broadcast): round 0 B -> A, round 1 C -> A, round 2 A -> B and A -> C.
 *
 *                 op 0                      op 1
 *  gA  th0        [0, 3000]                 [10000, 12600]
 *      th1        [400, 2990]  last         [10100, 12580]  last
 *  gB  th2        [300, 3100]               [10050, 12700]
 *      th3        [700, 3050]  last         [10400, 12650]  last
 *  across A       [500, 2900]               [10200, 12500]
 *         B       [800, 3000]               [10450, 12620]
 *         C       [200, 2700]               [10900, 12400]
 *
 *  messages       send post/done  recv post/done   send post/done  recv post/done
 *  r0 B->A        900 / 1000      600 / 1100       10500 / 10600   10300 / 10700
 *  r1 C->A        300 / 1500      1150 / 1400      11000 / 11200   10750 / 11250
 *  r2 A->B        1500 / 1700     1100 / 1800      11300 / 11500   10650 / 11550
 *  r2 A->C        1510 / 1720     1600 / 1900      11310 / 11520   11250 / 11600
 *
 * Steps: A 0 = recv r0, 1 = recv r1, 2 = send to B, 3 = send to C; B and C
 * 0 = send, 1 = recv.  Each message carries the 4-byte tuple.
 */
static const char algo_pathmap[] =
    "host A\n"
    "host B\n"
    "host C\n"
    "tree sum type=int32 op=sum\n"
    "algo  across run=binomial-reduce bcast=binomial-bcast root=A\n"
    "gred  gA  host=A parent=across\n"
    "gred  gB  host=B parent=across\n"
    "threads 0-1 host=A enter=gA\n"
    "threads 2-3 host=B enter=gB\n"
    "threads 4 host=C enter=across\n";

static const sy_node_t algo_nodes[] = {
    { "across", "algo", 0, -1, 5 },
    { "gA",     "gred", 0, 0,  6 },
    { "gB",     "gred", 1, 0,  7 },
};

static const sy_thread_t algo_threads[] = {
    { 0, 0, 1 }, { 1, 0, 1 }, { 2, 1, 2 }, { 3, 1, 2 }, { 4, 2, 0 },
};

static const sy_handtree_t algo_tree = {
    "sum", { "A", "B", "C" }, algo_nodes, NELEM_(algo_nodes), algo_threads,
    NELEM_(algo_threads),
    INS_KEY_ALGO "=binomial-reduce " INS_KEY_BCAST "=binomial-bcast " INS_KEY_HOSTS "=A,B,C "
    INS_KEY_ROOT "=0 " INS_KEY_ARRIVAL "=equal",
};

static const sy_visit_t algo_visits[] = {
    { 0, 0, "gA",     "thread 0", 0,     3000 },
    { 0, 0, "gA",     "thread 1", 400,   2990 },
    { 0, 0, "gB",     "thread 2", 300,   3100 },
    { 0, 0, "gB",     "thread 3", 700,   3050 },
    { 0, 0, "across", "algo A",   500,   2900 },
    { 0, 0, "across", "algo B",   800,   3000 },
    { 0, 0, "across", "algo C",   200,   2700 },

    { 0, 1, "gA",     "thread 0", 10000, 12600 },
    { 0, 1, "gA",     "thread 1", 10100, 12580 },
    { 0, 1, "gB",     "thread 2", 10050, 12700 },
    { 0, 1, "gB",     "thread 3", 10400, 12650 },
    { 0, 1, "across", "algo A",   10200, 12500 },
    { 0, 1, "across", "algo B",   10450, 12620 },
    { 0, 1, "across", "algo C",   10900, 12400 },
};

static const sy_msg_t algo_msgs[] = {
    /* inst op round src dst sstep rstep bytes  sp sd rp rd */
    { 0, 0, 0, 1, 0, 0, 0, 4, 900,   1000,  600,   1100 },
    { 0, 0, 1, 2, 0, 0, 1, 4, 300,   1500,  1150,  1400 },
    { 0, 0, 2, 0, 1, 2, 1, 4, 1500,  1700,  1100,  1800 },
    { 0, 0, 2, 0, 2, 3, 1, 4, 1510,  1720,  1600,  1900 },
    { 0, 1, 0, 1, 0, 0, 0, 4, 10500, 10600, 10300, 10700 },
    { 0, 1, 1, 2, 0, 0, 1, 4, 11000, 11200, 10750, 11250 },
    { 0, 1, 2, 0, 1, 2, 1, 4, 11300, 11500, 10650, 11550 },
    { 0, 1, 2, 0, 2, 3, 1, 4, 11310, 11520, 11250, 11600 },
};

/* ---- pap ----------------------------------------------------------------------
 *
 * The algo scenario's tree with a PAP-aware node (docs/trace-format.md,
 * "Arrival sources"): run=slt arrival=edge, so every visit of the node on an
 * algorithm location carries one arrival report (ParameterString) at its
 * t1 + 20, between MpiCollectiveBegin (t1 + 10) and its first message.  Ops
 * 0-4 are algo's op 0 (visits and messages) shifted by 10,000 ns each.  The
 * reports (E: edge, H: history, Q: equal; error, lead and wait in ns, "-" none):
 *
 *   op  A (rank 0)           B (rank 1)           C (rank 2)          fallback
 *   0   Q  300 1000  10      Q -200  500   5      Q    -    -  100     C missing
 *   1   E  100 2000  20      E -400 1500   5      E  250  800    0
 *   2   E  -50 2500  30      E  700  100   5      E    0  900  200
 *   3   H  150 3000  40      H    -    -   5      H -300  600    0     B missing
 *   4   E  200 2200  50      E -100 1200   5      E   90 1000  300
 *
 * Worked by hand (nearest rank: the k-th smallest, k = ceil(p n)):
 *   error A: -50 100 150 200 300     n 5 mean 140 median 150 p10 -50 p90 300 |max| 300
 *         B: -400 -200 -100 700      n 4 mean 0 median -200 p10 -400 p90 700 |max| 700
 *         C: -300 0 90 250           n 4 mean 10 median 0 p10 -300 p90 250 |max| 300
 *       all: 13 values, sum 740      mean 56.92 median 90 p10 -300 p90 300 |max| 700
 *   lead  A mean 2140 min 1000; B 825, 100; C 825, 600; all mean 1330.77 min 100
 *   wait  A mean 30 median 30 max 50; B 5 5 5; C mean 120 median 100 max 300;
 *         all (15) mean 51.67 median 10 p10 0 p90 200 max 300
 *   sources, every host: equal 1, history 1, edge 3, fallbacks 2, missing B,C
 */
static const char pap_pathmap[] =
    "host A\n"
    "host B\n"
    "host C\n"
    "tree sum type=int32 op=sum\n"
    "algo  across run=slt arrival=edge\n"
    "gred  gA  host=A parent=across\n"
    "gred  gB  host=B parent=across\n"
    "threads 0-1 host=A enter=gA\n"
    "threads 2-3 host=B enter=gB\n"
    "threads 4 host=C enter=across\n";

static const sy_handtree_t pap_tree = {
    "sum", { "A", "B", "C" }, algo_nodes, NELEM_(algo_nodes), algo_threads,
    NELEM_(algo_threads),
    INS_KEY_ALGO "=slt " INS_KEY_BCAST "=- " INS_KEY_HOSTS "=A,B,C " INS_KEY_ROOT "=- "
    INS_KEY_ARRIVAL "=edge " INS_KEY_PAP "=" INS_PAP_YES,
};

#define PAP_OPS   5
#define PAP_SHIFT 10000
#define NONE_     INT64_MIN

/* One arrival report: rank `rank` in op `op`; used 0 equal, 1 history, 2 edge. */
typedef struct sy_arrival {
    unsigned op, rank, used;
    int      missing;                  /* -1: none */
    int64_t  error, lead, wait;        /* NONE_: none (not wait) */
} sy_arrival_t;

static const sy_arrival_t pap_arrivals[] = {
    { 0, 0, 0, 2, 300, 1000, 10 },      { 0, 1, 0, 2, -200, 500, 5 },
    { 0, 2, 0, 2, NONE_, NONE_, 100 },
    { 1, 0, 2, -1, 100, 2000, 20 },     { 1, 1, 2, -1, -400, 1500, 5 },
    { 1, 2, 2, -1, 250, 800, 0 },
    { 2, 0, 2, -1, -50, 2500, 30 },     { 2, 1, 2, -1, 700, 100, 5 },
    { 2, 2, 2, -1, 0, 900, 200 },
    { 3, 0, 1, 1, 150, 3000, 40 },      { 3, 1, 1, 1, NONE_, NONE_, 5 },
    { 3, 2, 1, 1, -300, 600, 0 },
    { 4, 0, 2, -1, 200, 2200, 50 },     { 4, 1, 2, -1, -100, 1200, 5 },
    { 4, 2, 2, -1, 90, 1000, 300 },
};

/* algo's op 0, PAP_OPS times (caller frees). */
static sy_visit_t *pap_visits(size_t *n)
{
    sy_visit_t *v = malloc(PAP_OPS * 7 * sizeof(*v));

    for (unsigned k = 0; v != NULL && k < PAP_OPS; k++)
        for (unsigned i = 0; i < 7; i++) {
            v[k * 7 + i] = algo_visits[i];
            v[k * 7 + i].op = k;
            v[k * 7 + i].t1 += (int64_t)k * PAP_SHIFT;
            v[k * 7 + i].t4 += (int64_t)k * PAP_SHIFT;
        }
    *n = PAP_OPS * 7;
    return v;
}

static sy_msg_t *pap_msgs(size_t *n)
{
    sy_msg_t *m = malloc(PAP_OPS * 4 * sizeof(*m));

    for (unsigned k = 0; m != NULL && k < PAP_OPS; k++)
        for (unsigned i = 0; i < 4; i++) {
            sy_msg_t *x = &m[k * 4 + i];
            *x = algo_msgs[i];
            x->op = k;
            x->sp += (int64_t)k * PAP_SHIFT;
            x->sd += (int64_t)k * PAP_SHIFT;
            x->rp += (int64_t)k * PAP_SHIFT;
            x->rd += (int64_t)k * PAP_SHIFT;
        }
    *n = PAP_OPS * 4;
    return m;
}

static const sy_scenario_t scenarios[] = {
    { "gred3", "synthetic/gred3.pathmap", gred3_pathmap, 1, 2000000,
      { { "node-a.synthetic", { 1990000, 2100000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 990000, 1100000, 1000000, 1000000, 500.0 } } },
      gred3_visits, NELEM(gred3_visits), 2, NULL, NULL, 0, NULL, 0 },
    { "chain", "synthetic/chain.pathmap", chain_pathmap, 2, 1100100,
      { { "node-a.synthetic", { 1000000, 2000000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 0, 1000000, 1000000, 1001000, 250.0 } } },
      chain_visits, NELEM(chain_visits), 2, NULL, NULL, 0, NULL, 0 },
    { "lastarr", "synthetic/lastarr.pathmap", lastarr_pathmap, 1, 2000000,
      { { "node-a.synthetic", { 1990000, 2100000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 990000, 1100000, 1000000, 1000000, 500.0 } } },
      lastarr_visits, NELEM(lastarr_visits), 2, NULL, NULL, 0, NULL, 0 },
    /* visits generated by wide_visits */
    { "wide", "synthetic/wide.pathmap", wide_pathmap, 1, 2000000,
      { { "node-a.synthetic", { 1990000, 2400000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 990000, 1400000, 1000000, 1000000, 500.0 } } },
      NULL, 0, 2, NULL, NULL, 0, NULL, 0 },
    /* visits generated by oneway_visits */
    { "oneway", "synthetic/oneway.pathmap", chain_pathmap, 1, 2000000,
      { { "node-a.synthetic", { 1990000, 50000000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 990000, 49000000, 1000000, 1000000, 500.0 } } },
      NULL, 0, 2, NULL, NULL, 0, NULL, 0 },
    { "algo", "synthetic/algo.pathmap", algo_pathmap, 1, 2000000,
      { { "node-a.synthetic", { 1990000, 2100000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 990000, 1100000, 1000000, 1000000, 500.0 } },
        { "node-c.synthetic", { 1990000, 2100000, 0, 0, 400.0 } } },
      algo_visits, NELEM(algo_visits), 3, &algo_tree, algo_msgs, NELEM(algo_msgs), NULL, 0 },
    { "movable", "synthetic/movable.pathmap", movable_pathmap, 1, 2000000,
      { { "node-a.synthetic", { 1990000, 2100000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 990000, 1100000, 1000000, 1000000, 500.0 } },
        { "node-c.synthetic", { 2490000, 2600000, -500000, -500000, 400.0 } } },
      movable_visits, NELEM(movable_visits), 3, NULL, NULL, 0, NULL, 0 },
    /* visits and messages generated by pap_visits, pap_msgs */
    { "pap", "synthetic/pap.pathmap", pap_pathmap, 1, 2000000,
      { { "node-a.synthetic", { 1990000, 2100000, 0, 0, 0.0 } },
        { "node-b.synthetic", { 990000, 1100000, 1000000, 1000000, 500.0 } },
        { "node-c.synthetic", { 1990000, 2100000, 0, 0, 400.0 } } },
      NULL, 0, 3, &pap_tree, NULL, 0, pap_arrivals, NELEM(pap_arrivals) },
};

/* ---- errors --------------------------------------------------------------- */

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;

    fputs("synth_trace: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

static int otf2_fail(OTF2_ErrorCode rc, const char *what)
{
    return fail("%s: %s", what, OTF2_Error_GetDescription(rc));
}

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

/* Rank r's locations as instrument/trace.c orders them: threads, then services. */
static uint32_t plan_rank(sy_plan_t *p, uint32_t r, sy_loc_t *out)
{
    const rt_tree_t *t = p->tree;
    uint32_t k = 0;

    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (t->threads[i].host != r)
            continue;
        if (out != NULL) {
            out[k] = (sy_loc_t){ .thread = &t->threads[i], .proxy = RT_ID_NONE };
            snprintf(out[k].name, sizeof(out[k].name), "thread %u", t->threads[i].id);
        }
        k++;
    }
    for (uint32_t n = 0; n < t->nnodes; n++) {
        if (t->nodes[n].kind != RT_NODE_PROXY || t->nodes[t->nodes[n].parent].host != r)
            continue;
        for (unsigned inst = 0; inst < p->sc->ninst; inst++, k++) {
            if (out == NULL)
                continue;
            out[k] = (sy_loc_t){ .proxy = n, .inst = inst };
            snprintf(out[k].name, sizeof(out[k].name), "service %s#%u", t->nodes[n].name, inst);
        }
    }
    if (t->nodes[t->root].kind == RT_NODE_ALGO) {       /* every host of the scenario */
        if (out != NULL) {
            out[k] = (sy_loc_t){ .proxy = RT_ID_NONE, .algo = true };
            snprintf(out[k].name, sizeof(out[k].name), "algo %s", p->pm->hosts[r].name);
        }
        k++;
    }
    for (uint32_t i = 0; out != NULL && i < k; i++) {
        out[i].rank = r;
        out[i].id = ((uint64_t)r << INS_LOC_RANK_SHIFT) | i;
    }
    return k;
}

static int event_cmp(const void *a, const void *b)
{
    int64_t x = ((const sy_event_t *)a)->r, y = ((const sy_event_t *)b)->r;

    return (x > y) - (x < y);
}

static int node_by_name(const rt_tree_t *t, const char *name)
{
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (strcmp(t->nodes[n].name, name) == 0)
            return (int)n;
    return -1;
}

/* --damage MODE (algo): the first message is written wrong, for the tests of
 * papanalyze's refusals: "norecv" drops its MpiIrecv, "peer" names another
 * sender in it, "request" gives its MpiIsend another operation's request id. */
static const char *damage = NULL;

/* --schema VERSION: PAPTREE::SCHEMA_VERSION's value, for the tests of the
 * readers' version checks (default INS_SCHEMA_VERSION). */
static const char *schema = INS_SCHEMA_VERSION;

/*
 * Each arrival report at t1 + 20 of its rank's visit of the node (pap).
 * --damage noarrival drops rank 2's in op 2; asked writes asked=history.
 */
static int plan_arrivals(sy_plan_t *p)
{
    const sy_scenario_t *sc = p->sc;

    for (size_t i = 0; i < sc->narrivals; i++) {
        const sy_arrival_t *a = &sc->arrivals[i];
        const sy_visit_t *v = NULL;
        sy_loc_t *l = NULL;
        char name[32];

        snprintf(name, sizeof(name), "algo %s", p->pm->hosts[a->rank].name);
        for (uint32_t k = 0; k < p->nlocs && l == NULL; k++)
            l = strcmp(p->locs[k].name, name) == 0 ? &p->locs[k] : NULL;
        for (size_t j = 0; j < sc->nvisits && v == NULL; j++)
            v = sc->visits[j].op == a->op && strcmp(sc->visits[j].loc, name) == 0
                ? &sc->visits[j] : NULL;
        if (l == NULL || v == NULL)
            return fail("%s arrival %zu: no algorithm location or visit", sc->name, i);
        if (damage != NULL && strcmp(damage, "noarrival") == 0 && a->op == 2 && a->rank == 2)
            continue;
        if ((l->ev = realloc(l->ev, (l->nev + 1) * sizeof(*l->ev))) == NULL)
            return fail("out of memory");
        l->ev[l->nev++] = (sy_event_t){ v->t1 + 20, false, v->inst, a->op, SY_ARRIVAL, 0, 0,
                                        (uint32_t)i, 0 };
    }
    return 0;
}

/* Puts each visit's two events on its location. */
static int plan_events(sy_plan_t *p)
{
    const sy_scenario_t *sc = p->sc;

    p->rmin = INT64_MAX;
    p->rmax = INT64_MIN;
    for (size_t i = 0; i < sc->nvisits; i++) {
        const sy_visit_t *v = &sc->visits[i];
        int node = node_by_name(p->tree, v->node);
        sy_loc_t *l = NULL;

        for (uint32_t k = 0; k < p->nlocs && l == NULL; k++)
            l = strcmp(p->locs[k].name, v->loc) == 0 ? &p->locs[k] : NULL;
        if (node < 0 || l == NULL || v->inst >= sc->ninst || v->t4 <= v->t1)
            return fail("%s visit %zu (%s on %s): unknown wrapper or location, or t4 <= t1",
                        sc->name, i, v->node, v->loc);
        if ((l->ev = realloc(l->ev, (l->nev + 2) * sizeof(*l->ev))) == NULL)
            return fail("out of memory");
        l->ev[l->nev++] = (sy_event_t){ v->t1, false, v->inst * p->tree->nnodes + (uint32_t)node,
                                        v->op, SY_ENTER, 0, 0, 0, 0 };
        l->ev[l->nev++] = (sy_event_t){ v->t4, true, v->inst * p->tree->nnodes + (uint32_t)node,
                                        v->op, SY_LEAVE, 0, 0, 0, 0 };
        if (l->algo) {
            if ((l->ev = realloc(l->ev, (l->nev + 2) * sizeof(*l->ev))) == NULL)
                return fail("out of memory");
            l->ev[l->nev++] = (sy_event_t){ v->t1 + 10, false, v->inst, v->op, SY_COLL_BEGIN,
                                            0, 0, 0, 0 };
            l->ev[l->nev++] = (sy_event_t){ v->t4 - 10, false, v->inst, v->op, SY_COLL_END,
                                            0, 0, 0, 0 };
        }
        p->rmin = v->t1 < p->rmin ? v->t1 : p->rmin;
        p->rmax = v->t4 > p->rmax ? v->t4 : p->rmax;
    }
    if (plan_arrivals(p) != 0)
        return 1;
    for (size_t i = 0; i < sc->nmsgs; i++) {
        const sy_msg_t *m = &sc->msgs[i];
        sy_loc_t *ls = NULL, *ld = NULL;

        for (uint32_t k = 0; k < p->nlocs; k++) {
            if (p->locs[k].algo && p->locs[k].rank == m->src)
                ls = &p->locs[k];
            if (p->locs[k].algo && p->locs[k].rank == m->dst)
                ld = &p->locs[k];
        }
        if (ls == NULL || ld == NULL || (ls->ev = realloc(ls->ev, (ls->nev + 2) * sizeof(*ls->ev)))
            == NULL || (ld->ev = realloc(ld->ev, (ld->nev + 2) * sizeof(*ld->ev))) == NULL)
            return fail("%s message %zu: no algorithm location, or out of memory", sc->name, i);
        ls->ev[ls->nev++] = (sy_event_t){ m->sp, false, m->inst, m->op, SY_ISEND, m->dst,
                                          m->round, m->sstep, m->bytes };
        if (i == 0 && damage != NULL && strcmp(damage, "request") == 0)
            ls->ev[ls->nev - 1].op++;
        ls->ev[ls->nev++] = (sy_event_t){ m->sd, false, m->inst, m->op, SY_ISEND_DONE, m->dst,
                                          m->round, m->sstep, m->bytes };
        ld->ev[ld->nev++] = (sy_event_t){ m->rp, false, m->inst, m->op, SY_IRECV_POST, m->src,
                                          m->round, m->rstep, m->bytes };
        ld->ev[ld->nev++] = (sy_event_t){ m->rd, false, m->inst, m->op, SY_IRECV, m->src,
                                          m->round, m->rstep, m->bytes };
        if (i == 0 && damage != NULL && strcmp(damage, "norecv") == 0)
            ld->nev--;
        else if (i == 0 && damage != NULL && strcmp(damage, "peer") == 0)
            ld->ev[ld->nev - 1].peer = m->src == 2 ? 1 : 2;
    }
    return 0;
}

/* Each location's events in time order, distinct times, visits nested. */
static int plan_check(const sy_plan_t *p)
{
    for (uint32_t k = 0; k < p->nlocs; k++) {
        sy_loc_t *l = &p->locs[k];
        uint32_t stack[64], depth = 0;

        if (l->nev > 1)                  /* ev is NULL for a location without events */
            qsort(l->ev, l->nev, sizeof(*l->ev), event_cmp);
        for (size_t i = 0; i < l->nev; i++) {
            const sy_event_t *e = &l->ev[i];
            if (i > 0 && e->r == l->ev[i - 1].r)
                return fail("%s: two events of %s at r = %" PRId64, p->sc->name, l->name, e->r);
            if (e->kind != SY_ENTER && e->kind != SY_LEAVE) {
                if (depth == 0)
                    return fail("%s: an MPI event of %s outside a visit at r = %" PRId64,
                                p->sc->name, l->name, e->r);
                continue;
            }
            if (!e->leave && depth < 64)
                stack[depth++] = e->region;
            else if (!e->leave || depth == 0 || stack[--depth] != e->region)
                return fail("%s: visits of %s do not nest at r = %" PRId64, p->sc->name,
                            l->name, e->r);
        }
    }
    return 0;
}

static void plan_free(sy_plan_t *p)
{
    for (uint32_t k = 0; p->locs != NULL && k < p->nlocs; k++)
        free(p->locs[k].ev);
    free(p->locs);
    if (!p->hand) {
        rt_pathmap_destroy(p->pm);
        return;
    }
    if (p->pm != NULL) {
        free(p->pm->hosts);
        if (p->pm->trees != NULL) {
            free(p->pm->trees[0].nodes);
            free(p->pm->trees[0].threads);
        }
        free(p->pm->trees);
        free(p->pm);
    }
}

/* The pathmap model of a hand-described tree (sy_handtree_t). */
static int hand_build(const sy_scenario_t *sc, sy_plan_t *p)
{
    const sy_handtree_t *h = sc->hand;
    rt_pathmap_t *pm = calloc(1, sizeof(*pm));
    rt_tree_t *t;

    p->hand = true;
    p->pm = pm;
    if (pm == NULL || (pm->hosts = calloc(sc->nhosts, sizeof(*pm->hosts))) == NULL
        || (pm->trees = t = calloc(1, sizeof(*t))) == NULL
        || (t->nodes = calloc(h->nnodes, sizeof(*t->nodes))) == NULL
        || (t->threads = calloc(h->nthreads, sizeof(*t->threads))) == NULL)
        return fail("out of memory");
    pm->path = sc->pathmap_path;
    pm->text = sc->pathmap;
    pm->len = strlen(sc->pathmap);
    pm->hash = cm_hash_fnv1a(pm->text, pm->len);
    pm->nhosts = sc->nhosts;
    pm->ntrees = 1;
    for (unsigned i = 0; i < sc->nhosts; i++)
        pm->hosts[i].name = h->hosts[i];
    t->name = h->tree;
    t->nnodes = h->nnodes;
    t->nthreads = h->nthreads;
    t->root = 0;
    for (unsigned n = 0; n < h->nnodes; n++) {
        rt_node_t *x = &t->nodes[n];
        x->name = h->nodes[n].name;
        x->kind = strcmp(h->nodes[n].kind, "algo") == 0 ? RT_NODE_ALGO : RT_NODE_GRED;
        x->host = h->nodes[n].host;
        x->parent = h->nodes[n].parent < 0 ? RT_ID_NONE : (rt_node_id_t)h->nodes[n].parent;
        x->line = h->nodes[n].line;
        if (h->nodes[n].parent >= 0)
            t->nodes[h->nodes[n].parent].nchildren++;
    }
    for (unsigned i = 0; i < h->nthreads; i++) {
        t->threads[i] = (rt_thread_map_t){ .id = h->threads[i].id, .host = h->threads[i].host,
                                           .enter = h->threads[i].enter };
        t->nodes[h->threads[i].enter].nthreads++;
    }
    return 0;
}

static int plan_build(const sy_scenario_t *sc, sy_plan_t *p)
{
    cm_err_t err;
    uint32_t n = 0;

    unsigned nhosts = sc->nhosts ? sc->nhosts : 2;

    memset(p, 0, sizeof(*p));
    p->sc = sc;
    if (sc->hand != NULL) {
        if (hand_build(sc, p) != 0)
            return 1;
    } else if (rt_pathmap_parse(sc->pathmap_path, sc->pathmap, strlen(sc->pathmap), &p->pm,
                                &err) != CM_OK) {
        cm_err_print(stderr, "synth_trace: ", &err);
        return 1;
    }
    p->tree = &p->pm->trees[0];
    if (p->pm->nhosts != nhosts || nhosts > SY_HOSTS)
        return fail("%s: the pathmap must have %u hosts", sc->name, nhosts);
    for (uint32_t r = 0; r < nhosts; r++)
        n += plan_rank(p, r, NULL);
    if ((p->locs = calloc(n + 1, sizeof(*p->locs))) == NULL)
        return fail("out of memory");
    for (uint32_t r = 0; r < nhosts; r++)
        p->nlocs += plan_rank(p, r, p->locs + p->nlocs);
    if (plan_events(p) != 0 || plan_check(p) != 0)
        return 1;
    return 0;
}

/*
 * Local ticks of host h at true time base + r: the inverse of the reader's
 * true = local + off0 + (local - time0) * (off1 - off0) / (time1 - time0).
 * Fails unless the inverse is an exact integer.
 */
static int to_local(const sy_plan_t *p, uint32_t h, int64_t r, uint64_t *out)
{
    const sy_clock_t *c = &p->sc->hosts[h].clock;
    int64_t span = c->time1 - c->time0, num = p->sc->base + r - c->time0 - c->off0;
    int64_t den = span + (c->off1 - c->off0);

    if (den <= 0 || (num * span) % den != 0 || c->time0 + num * span / den < 0)
        return fail("%s: r = %" PRId64 " has no exact local time on host %u", p->sc->name, r, h);
    *out = (uint64_t)(c->time0 + num * span / den);
    return 0;
}

/* ---- writing -------------------------------------------------------------- */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)ft, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

/* Static: OTF2 keeps the pointer (docs/trace-format.md). */
static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

static OTF2_Archive *archive_open(const char *dir, const char *creator)
{
    struct stat st;
    OTF2_Archive *ar;

    if (stat(dir, &st) == 0 || errno != ENOENT) {
        fail("'%s' exists (or cannot be checked): give a new directory", dir);
        return NULL;
    }
    ar = OTF2_Archive_Open(dir, INS_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                           OTF2_CHUNK_SIZE_MIN * 4, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (ar == NULL) {
        fail("OTF2_Archive_Open '%s' failed", dir);
        return NULL;
    }
    if (OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS ||
        OTF2_Archive_SetCreator(ar, creator) != OTF2_SUCCESS) {
        fail("cannot set up the archive '%s'", dir);
        OTF2_Archive_Close(ar);
        return NULL;
    }
    return ar;
}

static int write_properties(OTF2_Archive *ar, const sy_plan_t *p)
{
    char hash[32], ninst[16], hosts[16], command[64];
    const struct { const char *name, *value; } props[] = {
        { INS_PROP_VERSION, schema },
        { INS_PROP_PATHMAP, p->sc->pathmap },
        { INS_PROP_PATHMAP_PATH, p->sc->pathmap_path },
        { INS_PROP_PATHMAP_HASH, hash },
        { INS_PROP_TREE, p->tree->name },
        { INS_PROP_INSTANCES, ninst },
        { INS_PROP_HOSTS, hosts },
        { INS_PROP_CLOCK, INS_CLOCK_MONO_RAW },
        { INS_PROP_COMMAND, command },
    };
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    snprintf(hash, sizeof(hash), "%016" PRIx64, p->pm->hash);
    snprintf(ninst, sizeof(ninst), "%u", p->sc->ninst);
    snprintf(hosts, sizeof(hosts), "%u", p->pm->nhosts);
    snprintf(command, sizeof(command), "synth_trace %s", p->sc->name);
    for (size_t i = 0; rc == OTF2_SUCCESS && i < NELEM(props); i++)
        rc = OTF2_Archive_SetProperty(ar, props[i].name, props[i].value, false);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "OTF2_Archive_SetProperty");
}

/* The String id of a source (write_globals writes the three names first). */
#define SY_SOURCE_STR(s) ((OTF2_StringRef)(s))

/* An arrival report (ins_schema.h): the used source, with its attributes. */
static OTF2_ErrorCode write_arrival(OTF2_AttributeList *al, OTF2_EvtWriter *w, uint64_t ts,
                                    const sy_event_t *e, const sy_arrival_t *a)
{
    bool asked_history = damage != NULL && strcmp(damage, "asked") == 0;
    OTF2_ErrorCode rc = OTF2_AttributeList_AddUint64(al, INS_ATTR_OP_ID, e->op);

    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(al, INS_ATTR_ASKED_ID,
                                             SY_SOURCE_STR(asked_history ? 1 : 2));
    if (rc == OTF2_SUCCESS && a->missing >= 0)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_MISSING_ID, a->missing);
    if (rc == OTF2_SUCCESS && a->error != NONE_)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_ERROR_ID, a->error);
    if (rc == OTF2_SUCCESS && a->lead != NONE_)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_LEAD_ID, a->lead);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_WAIT_ID, a->wait);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_ParameterString(w, al, ts, INS_PARAM_ARRIVAL_ID,
                                            SY_SOURCE_STR(a->used));
    return rc;
}

/* One location's events, in local ticks, each with the two attributes. */
static int write_location_events(OTF2_Archive *ar, const sy_plan_t *p, const sy_loc_t *l)
{
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, l->id);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_ErrorCode rc = w != NULL && al != NULL ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    uint64_t n = 0, ts = 0;

    for (size_t i = 0; rc == OTF2_SUCCESS && i < l->nev; i++) {
        const sy_event_t *e = &l->ev[i];
        if (to_local(p, l->rank, e->r, &ts) != 0) {
            rc = OTF2_ERROR_INVALID_DATA;
            break;
        }
        switch (e->kind) {
        case SY_COLL_BEGIN:
            rc = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, ts);
            continue;
        case SY_COLL_END:
            rc = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, ts, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                 e->region, OTF2_UNDEFINED_UINT32, SY_BYTES,
                                                 SY_BYTES);
            continue;
        case SY_ISEND:
            rc = OTF2_EvtWriter_MpiIsend(w, NULL, ts, e->peer, e->region, e->tag, e->bytes,
                                         INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_ISEND_DONE:
            rc = OTF2_EvtWriter_MpiIsendComplete(w, NULL, ts, INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_IRECV_POST:
            rc = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, ts, INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_IRECV:
            rc = OTF2_EvtWriter_MpiIrecv(w, NULL, ts, e->peer, e->region, e->tag, e->bytes,
                                         INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_ARRIVAL:
            rc = write_arrival(al, w, ts, e, &p->sc->arrivals[e->step]);
            continue;
        case SY_ENTER:
        case SY_LEAVE:
            break;
        }
        rc = OTF2_AttributeList_AddUint64(al, INS_ATTR_OP_ID, e->op);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_AttributeList_AddUint64(al, INS_ATTR_BYTES_ID, SY_BYTES);
        if (rc == OTF2_SUCCESS)
            rc = e->leave ? OTF2_EvtWriter_Leave(w, al, ts, e->region)
                          : OTF2_EvtWriter_Enter(w, al, ts, e->region);
    }
    if (rc == OTF2_SUCCESS && (rc = OTF2_EvtWriter_GetNumberOfEvents(w, &n)) == OTF2_SUCCESS &&
        n != l->nev)
        rc = OTF2_ERROR_INTEGRITY_FAULT;
    if (w != NULL && OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS && rc == OTF2_SUCCESS)
        rc = OTF2_ERROR_FILE_INTERACTION;
    if (al != NULL)
        OTF2_AttributeList_Delete(al);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, l->name);
}

static int write_events(OTF2_Archive *ar, const sy_plan_t *p)
{
    OTF2_ErrorCode rc = OTF2_Archive_OpenEvtFiles(ar);
    int st = rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "OTF2_Archive_OpenEvtFiles");

    for (uint32_t k = 0; st == 0 && k < p->nlocs; k++)
        st = write_location_events(ar, p, &p->locs[k]);
    rc = OTF2_Archive_CloseEvtFiles(ar);
    return st != 0 ? st : rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "OTF2_Archive_CloseEvtFiles");
}

/* --no-offsets RANK: that rank's locations get no ClockOffset records. */
static long no_offsets_rank = -1;

/* Each location's local definitions: its host's two ClockOffset records. */
static int write_locals(OTF2_Archive *ar, const sy_plan_t *p)
{
    OTF2_ErrorCode rc = OTF2_Archive_OpenDefFiles(ar), rc2;

    for (uint32_t k = 0; rc == OTF2_SUCCESS && k < p->nlocs; k++) {
        const sy_clock_t *c = &p->sc->hosts[p->locs[k].rank].clock;
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(ar, p->locs[k].id);

        if (w == NULL)
            return fail("OTF2_Archive_GetDefWriter failed");
        if ((long)p->locs[k].rank == no_offsets_rank) {
            rc = OTF2_Archive_CloseDefWriter(ar, w);
            continue;
        }
        rc = OTF2_DefWriter_WriteClockOffset(w, (uint64_t)c->time0, c->off0, c->sd);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_DefWriter_WriteClockOffset(w, (uint64_t)c->time1, c->off1, c->sd);
        rc2 = OTF2_Archive_CloseDefWriter(ar, w);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
    }
    rc2 = OTF2_Archive_CloseDefFiles(ar);
    rc = rc != OTF2_SUCCESS ? rc : rc2;
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "local definitions");
}

/* The global definition writer, each string written once. */
typedef struct sy_gw {
    OTF2_GlobalDefWriter *w;
    char                 *str[SY_STRINGS];   /* copies, freed by gw_free */
    uint32_t              nstr;
    OTF2_ErrorCode        rc;
} sy_gw_t;

static OTF2_StringRef gw_str(sy_gw_t *g, const char *s)
{
    for (uint32_t i = 0; i < g->nstr; i++)
        if (strcmp(g->str[i], s) == 0)
            return i;
    if (g->nstr == SY_STRINGS || (g->str[g->nstr] = strdup(s)) == NULL) {
        g->rc = g->rc != OTF2_SUCCESS ? g->rc : OTF2_ERROR_MEM_ALLOC_FAILED;
        return 0;
    }
    if (g->rc == OTF2_SUCCESS)
        g->rc = OTF2_GlobalDefWriter_WriteString(g->w, g->nstr, s);
    return g->nstr++;
}

static void gw_free(sy_gw_t *g)
{
    for (uint32_t i = 0; i < g->nstr; i++)
        free(g->str[i]);
}

static void gw_check(sy_gw_t *g, OTF2_ErrorCode rc)
{
    if (g->rc == OTF2_SUCCESS)
        g->rc = rc;
}

static OTF2_AttributeValue av_u64(uint64_t v)
{
    OTF2_AttributeValue a;

    a.uint64 = v;
    return a;
}

static OTF2_AttributeValue av_str(OTF2_StringRef s)
{
    OTF2_AttributeValue a;

    a.stringRef = s;
    return a;
}

static void gw_loc_prop_str(sy_gw_t *g, uint64_t id, const char *name, const char *value)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, id, gw_str(g, name),
                                                           OTF2_TYPE_STRING,
                                                           av_str(gw_str(g, value))));
}

static void gw_loc_prop_u64(sy_gw_t *g, uint64_t id, const char *name, uint64_t value)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, id, gw_str(g, name),
                                                           OTF2_TYPE_UINT64, av_u64(value)));
}

static void gw_hosts(sy_gw_t *g, const sy_plan_t *p)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                    g->w, 0, gw_str(g, p->sc->hosts[0].hostname),
                    gw_str(g, INS_STN_MACHINE_CLASS), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g->w, 0,
                                                               OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
    for (uint32_t r = 0; r < p->pm->nhosts; r++) {
        const char *host = p->pm->hosts[r].name;
        char name[128];

        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                        g->w, 1 + r, gw_str(g, host), gw_str(g, INS_STN_NODE_CLASS), 0));
        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                        g->w, 1 + r, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(
                        g->w, 1 + r, gw_str(g, INS_STN_PROP_HOSTNAME), OTF2_TYPE_STRING,
                        av_str(gw_str(g, p->sc->hosts[r].hostname))));
        snprintf(name, sizeof(name), "%s (rank %u)", host, r);
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroup(
                        g->w, r, gw_str(g, name), OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + r,
                        OTF2_UNDEFINED_LOCATION_GROUP));
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                        g->w, r, gw_str(g, INS_LG_PROP_HOST), OTF2_TYPE_STRING,
                        av_str(gw_str(g, host))));
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                        g->w, r, gw_str(g, INS_LG_PROP_RANK), OTF2_TYPE_UINT64, av_u64(r)));
    }
}

static void gw_locations(sy_gw_t *g, const sy_plan_t *p)
{
    const rt_node_t *nodes = p->tree->nodes;

    for (uint32_t k = 0; k < p->nlocs; k++) {
        const sy_loc_t *l = &p->locs[k];

        gw_check(g, OTF2_GlobalDefWriter_WriteLocation(g->w, l->id, gw_str(g, l->name),
                                                       OTF2_LOCATION_TYPE_CPU_THREAD, l->nev,
                                                       l->rank));
        if (l->algo) {
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ROLE, INS_ROLE_ALGO);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ENTER, nodes[p->tree->root].name);
        } else if (l->thread != NULL) {
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ROLE, INS_ROLE_COMPUTE);
            gw_loc_prop_u64(g, l->id, INS_LOC_PROP_THREAD, l->thread->id);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ENTER, nodes[l->thread->enter].name);
        } else {
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ROLE, INS_ROLE_SERVICE);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_PROXY, nodes[l->proxy].name);
            gw_loc_prop_u64(g, l->id, INS_LOC_PROP_INSTANCE, l->inst);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ENTER, nodes[nodes[l->proxy].parent].name);
        }
        gw_loc_prop_u64(g, l->id, INS_LOC_PROP_FLUSHES, 0);
    }
}

static void gw_regions(sy_gw_t *g, const sy_plan_t *p)
{
    const rt_tree_t *t = p->tree;

    for (unsigned inst = 0; inst < p->sc->ninst; inst++) {
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const rt_node_t *node = &t->nodes[n];
            char canon[128], desc[512];

            snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst, node->name);
            snprintf(desc, sizeof(desc),
                     INS_KEY_KIND "=%s " INS_KEY_HOST "=%s " INS_KEY_PARENT "=%s "
                     INS_KEY_TREE "=%s " INS_KEY_INSTANCE "=%u " INS_KEY_NODE "=%u "
                     INS_KEY_FANIN "=%u", rt_node_kind_name(node->kind),
                     p->pm->hosts[node->host].name,
                     node->parent == RT_ID_NONE ? INS_NO_PARENT : t->nodes[node->parent].name,
                     t->name, inst, n, rt_node_fanin(node));
            if (node->kind == RT_NODE_ALGO && p->sc->hand != NULL)
                snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), " %s",
                         p->sc->hand->algo_desc);
            gw_check(g, OTF2_GlobalDefWriter_WriteRegion(
                            g->w, inst * t->nnodes + n, gw_str(g, node->name),
                            gw_str(g, canon), gw_str(g, desc),
                            OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                            gw_str(g, p->sc->pathmap_path), node->line, node->line));
        }
    }
}

/* An algorithm node's groups and one communicator per instance (ins_schema.h). */
static void gw_comms(sy_gw_t *g, const sy_plan_t *p)
{
    const rt_tree_t *t = p->tree;
    uint64_t locs[SY_HOSTS], ranks[SY_HOSTS];
    uint32_t n = 0;

    if (t->nodes[t->root].kind != RT_NODE_ALGO)
        return;
    for (uint32_t k = 0; k < p->nlocs && n < SY_HOSTS; k++)
        if (p->locs[k].algo) {
            locs[n] = p->locs[k].id;
            ranks[n] = n;
            n++;
        }
    gw_check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, 0, gw_str(g, INS_GROUP_ALGO_LOCATIONS),
                                                OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                                OTF2_GROUP_FLAG_NONE, n, locs));
    gw_check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, 1, gw_str(g, INS_GROUP_ALGO_RANKS),
                                                OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                OTF2_GROUP_FLAG_NONE, n, ranks));
    for (unsigned inst = 0; inst < p->sc->ninst; inst++) {
        char canon[128];
        snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst,
                 t->nodes[t->root].name);
        gw_check(g, OTF2_GlobalDefWriter_WriteComm(g->w, inst, gw_str(g, canon), 1,
                                                   OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    }
}

/* A PAP-aware node's parameter and attributes (ins_schema.h). */
static void gw_arrival_defs(sy_gw_t *g)
{
    static const struct { uint32_t id; const char *name; OTF2_Type type; } at[] = {
        { INS_ATTR_ASKED_ID, INS_ATTR_ASKED, OTF2_TYPE_STRING },
        { INS_ATTR_MISSING_ID, INS_ATTR_MISSING, OTF2_TYPE_INT64 },
        { INS_ATTR_ERROR_ID, INS_ATTR_ERROR, OTF2_TYPE_INT64 },
        { INS_ATTR_LEAD_ID, INS_ATTR_LEAD, OTF2_TYPE_INT64 },
        { INS_ATTR_WAIT_ID, INS_ATTR_WAIT, OTF2_TYPE_INT64 },
    };

    for (size_t i = 0; i < NELEM(at); i++)
        gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(g->w, at[i].id, gw_str(g, at[i].name),
                                                        gw_str(g, "synthetic"), at[i].type));
    gw_check(g, OTF2_GlobalDefWriter_WriteParameter(g->w, INS_PARAM_ARRIVAL_ID,
                                                    gw_str(g, INS_PARAM_ARRIVAL),
                                                    OTF2_PARAMETER_TYPE_STRING));
}

static int write_globals(OTF2_Archive *ar, const sy_plan_t *p)
{
    sy_gw_t g = { .w = OTF2_Archive_GetGlobalDefWriter(ar) };
    uint64_t lo = (uint64_t)(p->sc->base + p->rmin - SY_PAD);
    uint64_t hi = (uint64_t)(p->sc->base + p->rmax + SY_PAD);
    OTF2_ErrorCode rc;

    if (g.w == NULL)
        return fail("OTF2_Archive_GetGlobalDefWriter failed");
    if (p->sc->arrivals != NULL)          /* their ids are SY_SOURCE_STR(0..2) */
        for (int i = 0; i < 3; i++)
            gw_str(&g, i == 0 ? INS_ARRIVAL_EQUAL : i == 1 ? INS_ARRIVAL_HISTORY
                                                           : INS_ARRIVAL_EDGE);
    gw_check(&g, OTF2_GlobalDefWriter_WriteClockProperties(g.w, SY_RESOLUTION, lo, hi - lo + 1,
                                                           SY_REALTIME));
    gw_check(&g, OTF2_GlobalDefWriter_WriteAttribute(
                     g.w, INS_ATTR_OP_ID, gw_str(&g, INS_ATTR_OP),
                     gw_str(&g, "operation number on the tree instance, from 0"),
                     OTF2_TYPE_UINT64));
    gw_check(&g, OTF2_GlobalDefWriter_WriteAttribute(
                     g.w, INS_ATTR_BYTES_ID, gw_str(&g, INS_ATTR_BYTES),
                     gw_str(&g, "tuple size in bytes"), OTF2_TYPE_UINT64));
    if (p->sc->arrivals != NULL)
        gw_arrival_defs(&g);
    gw_hosts(&g, p);
    gw_locations(&g, p);
    gw_regions(&g, p);
    gw_comms(&g, p);
    rc = OTF2_Archive_CloseGlobalDefWriter(ar, g.w);
    rc = g.rc != OTF2_SUCCESS ? g.rc : rc;
    gw_free(&g);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "global definitions");
}

static int write_paptree(const sy_scenario_t *sc, const char *dir, const char *pathmap_out)
{
    sy_plan_t p;
    OTF2_Archive *ar = NULL;
    int st = plan_build(sc, &p);
    FILE *fp;

    if (st == 0 && pathmap_out != NULL) {
        if ((fp = fopen(pathmap_out, "w")) == NULL || fputs(sc->pathmap, fp) == EOF ||
            fclose(fp) != 0)
            st = fail("cannot write '%s': %s", pathmap_out, strerror(errno));
    }
    if (st == 0 && (ar = archive_open(dir, "paptree")) == NULL)
        st = 1;
    if (st == 0)
        st = write_properties(ar, &p);
    if (st == 0)
        st = write_events(ar, &p);
    if (st == 0)
        st = write_locals(ar, &p);
    if (st == 0)
        st = write_globals(ar, &p);
    if (ar != NULL && OTF2_Archive_Close(ar) != OTF2_SUCCESS && st == 0)
        st = fail("OTF2_Archive_Close failed");
    plan_free(&p);
    return st;
}

/* ---- foreign: what another tool might write ---------------------------------- */

static int write_foreign_events(OTF2_Archive *ar)
{
    static const struct { uint64_t ts; bool leave; uint32_t region; } ev[] = {
        { 1000, false, 0 }, { 1100, false, 1 }, { 1500, true, 1 }, { 2000, true, 0 },
    };
    OTF2_EvtWriter *w;
    OTF2_ErrorCode rc = OTF2_Archive_OpenEvtFiles(ar);

    if (rc != OTF2_SUCCESS)
        return otf2_fail(rc, "OTF2_Archive_OpenEvtFiles");
    if ((w = OTF2_Archive_GetEvtWriter(ar, 0)) == NULL)
        return fail("OTF2_Archive_GetEvtWriter failed");
    for (size_t i = 0; rc == OTF2_SUCCESS && i < NELEM(ev); i++)
        rc = ev[i].leave ? OTF2_EvtWriter_Leave(w, NULL, ev[i].ts, ev[i].region)
                         : OTF2_EvtWriter_Enter(w, NULL, ev[i].ts, ev[i].region);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseEvtWriter(ar, w);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseEvtFiles(ar);
    if (rc == OTF2_SUCCESS) {
        OTF2_DefWriter *d;
        rc = OTF2_Archive_OpenDefFiles(ar);
        if (rc == OTF2_SUCCESS && (d = OTF2_Archive_GetDefWriter(ar, 0)) != NULL)
            rc = OTF2_Archive_CloseDefWriter(ar, d);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Archive_CloseDefFiles(ar);
    }
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "foreign events");
}

static int write_foreign_globals(OTF2_Archive *ar)
{
    sy_gw_t g = { .w = OTF2_Archive_GetGlobalDefWriter(ar) };
    OTF2_ErrorCode rc;

    if (g.w == NULL)
        return fail("OTF2_Archive_GetGlobalDefWriter failed");
    gw_check(&g, OTF2_GlobalDefWriter_WriteClockProperties(g.w, SY_RESOLUTION, 1000, 1001,
                                                           SY_REALTIME));
    gw_check(&g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                     g.w, 0, gw_str(&g, "localhost"), gw_str(&g, "node"),
                     OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    gw_check(&g, OTF2_GlobalDefWriter_WriteLocationGroup(
                     g.w, 0, gw_str(&g, "process 0"), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                     OTF2_UNDEFINED_LOCATION_GROUP));
    gw_check(&g, OTF2_GlobalDefWriter_WriteLocation(g.w, 0, gw_str(&g, "main thread"),
                                                    OTF2_LOCATION_TYPE_CPU_THREAD, 4, 0));
    gw_check(&g, OTF2_GlobalDefWriter_WriteRegion(
                     g.w, 0, gw_str(&g, "main"), gw_str(&g, "main"), gw_str(&g, ""),
                     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE,
                     gw_str(&g, "main.c"), 1, 20));
    gw_check(&g, OTF2_GlobalDefWriter_WriteRegion(
                     g.w, 1, gw_str(&g, "compute"), gw_str(&g, "compute"), gw_str(&g, ""),
                     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE,
                     gw_str(&g, "main.c"), 22, 30));
    rc = OTF2_Archive_CloseGlobalDefWriter(ar, g.w);
    rc = g.rc != OTF2_SUCCESS ? g.rc : rc;
    gw_free(&g);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "foreign global definitions");
}

static int write_foreign(const char *dir)
{
    OTF2_Archive *ar = archive_open(dir, "some-other-tool 1.0");
    int st;

    if (ar == NULL)
        return 1;
    st = write_foreign_events(ar);
    if (st == 0)
        st = write_foreign_globals(ar);
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && st == 0)
        st = fail("OTF2_Archive_Close failed");
    return st;
}

/* ---- main ---------------------------------------------------------------------- */

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: synth_trace [--pathmap-out FILE] [--no-offsets RANK] [--damage MODE]\n"
            "                   [--schema VERSION] SCENARIO DIR\n"
            "Writes the OTF2 archive DIR/" INS_ANCHOR_FILE " (DIR must not exist) of a\n"
            "hand-made scenario; the timestamp tables are in tests/tools/synth_trace.c.\n"
            "  SCENARIO           gred3, chain, lastarr, oneway, wide, algo, pap, movable or\n"
            "                     foreign (not a paptree trace)\n"
            "  --pathmap-out FILE also write the scenario's pathmap to FILE\n"
            "  --no-offsets RANK  no ClockOffset records for that rank's locations\n"
            "  --damage MODE      algo: write its first message wrong: norecv (no\n"
            "                     MpiIrecv), peer (another sender), request (another\n"
            "                     operation's request id); pap: noarrival (rank 2 has no\n"
            "                     report in op 2), asked (every report asks history)\n"
            "  --schema VERSION   write PAPTREE::SCHEMA_VERSION = VERSION (default "
            INS_SCHEMA_VERSION ")\n");
}

int main(int argc, char **argv)
{
    const char *pathmap_out = NULL, *pos[2] = { NULL, NULL };
    int npos = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--pathmap-out") == 0 && i + 1 < argc) {
            pathmap_out = argv[++i];
        } else if (strcmp(argv[i], "--damage") == 0 && i + 1 < argc) {
            damage = argv[++i];
        } else if (strcmp(argv[i], "--schema") == 0 && i + 1 < argc) {
            schema = argv[++i];
        } else if (strcmp(argv[i], "--no-offsets") == 0 && i + 1 < argc) {
            no_offsets_rank = strtol(argv[++i], NULL, 10);
        } else if (argv[i][0] == '-' || npos == 2) {
            usage(stderr);
            return 2;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos != 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(pos[0], "foreign") == 0)
        return pathmap_out != NULL ? fail("foreign has no pathmap") : write_foreign(pos[1]);
    for (size_t i = 0; i < NELEM(scenarios); i++) {
        sy_scenario_t sc = scenarios[i];
        sy_visit_t *gen = NULL;
        sy_msg_t *gmsgs = NULL;
        int st;

        if (strcmp(pos[0], sc.name) != 0)
            continue;
        if (sc.visits == NULL
            && (sc.visits = gen = strcmp(sc.name, "wide") == 0 ? wide_visits(&sc.nvisits)
                                  : strcmp(sc.name, "pap") == 0 ? pap_visits(&sc.nvisits)
                                                                : oneway_visits(&sc.nvisits))
               == NULL)
            return fail("out of memory");
        if (strcmp(sc.name, "pap") == 0 && (sc.msgs = gmsgs = pap_msgs(&sc.nmsgs)) == NULL) {
            free(gen);
            return fail("out of memory");
        }
        st = write_paptree(&sc, pos[1], pathmap_out);
        free(gen);
        free(gmsgs);
        return st;
    }
    fail("unknown scenario '%s'", pos[0]);
    usage(stderr);
    return 2;
}
