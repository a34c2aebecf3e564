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
 *            than an_stats_int.h keeps exactly (AN_STAT_EXACT), median by hand
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
#include "tests/oracles/synth_trace/sy_int.h"

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

/* ---- main ---------------------------------------------------------------------- */

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: synth_trace [--pathmap-out FILE] [--no-offsets RANK] [--damage MODE]\n"
            "                   [--schema VERSION] SCENARIO DIR\n"
            "Writes the OTF2 archive DIR/" INS_ANCHOR_FILE " (DIR must not exist) of a\n"
            "hand-made scenario; the timestamp tables are in tests/oracles/synth_trace.c.\n"
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
