/*
 * otf2-readbench - the floor for papanalyze (issue 4): how fast OTF2 alone
 * reads a paptree trace.
 *
 *   bin/otf2-readbench [-r REPEATS] TRACE/traces.otf2
 *
 * Measured: what any reader of the archive must do at minimum, with OTF2's
 * global event reader, as papanalyze (analyze/an_read.c) does it, and
 * nothing else:
 *   OTF2_Reader_Open + serial collective callbacks;
 *   the global definitions, with one callback only (Location: the ids and
 *   the event counts they announce);
 *   OTF2_Reader_SelectLocation for every location;
 *   the local definitions of every location, with no callbacks (OTF2 needs
 *   them to apply the ClockOffset records to the timestamps);
 *   OpenEvtFiles, GetEvtReader for every location, then the global event
 *   reader, with Enter and Leave callbacks that count the event and read
 *   its two uint64 attributes, paptree::op and paptree::bytes (ids
 *   INS_ATTR_OP_ID and INS_ATTR_BYTES_ID, instrument/api/ins_schema.h);
 *   everything closed.
 * No analysis, no allocation per event, no output per event: papanalyze
 * cannot read the same archive faster than this.
 *
 * Each repeat does the whole sequence, from OTF2_Reader_Open to
 * OTF2_Reader_Close, timed with CLOCK_MONOTONIC; it prints the events read,
 * the seconds (and the part spent in the event reader) and M events/s, then
 * the best repeat.  Run it on a trace in the page cache (read it once
 * first): the figure is then OTF2's decoding, not the disk.  Exits 1 if the
 * archive cannot be read, an event is not Enter or Leave, an event lacks
 * either attribute, or the events read are not those the definitions
 * announce.  The process is not pinned and the machine is shared: compare
 * figures of the same run.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <otf2/otf2.h>
#include "common/cm_opt.h"
#include "instrument/api/ins_schema.h"

#define REPEATS_MAX 101

typedef struct rb_run {
    /* from the global definitions */
    OTF2_LocationRef *locs;
    size_t           nlocs, cap;
    uint64_t         announced;
    /* from the events */
    uint64_t         events, enters, leaves, bad_attr, other;
    uint64_t         sum;                /* of op + bytes: keeps the reads alive */
    double           t_total, t_events;  /* seconds */
    /* -t: this thread reads the locations i with i % nshares == share */
    const char      *anchor;
    int              share, nshares, ret;
} rb_run_t;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group)
{
    rb_run_t *r = ud;

    (void)name, (void)type, (void)group;
    if (r->nlocs == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        OTF2_LocationRef *p = realloc(r->locs, cap * sizeof(*p));

        if (p == NULL)
            return OTF2_CALLBACK_INTERRUPT;
        r->locs = p;
        r->cap = cap;
    }
    r->locs[r->nlocs++] = self;
    r->announced += events;
    return OTF2_CALLBACK_SUCCESS;
}

/* Both attributes, as any reader of the schema must read them. */
static inline void attrs(rb_run_t *r, OTF2_AttributeList *al)
{
    uint64_t op, bytes;

    if (al != NULL && OTF2_AttributeList_GetUint64(al, INS_ATTR_OP_ID, &op) == OTF2_SUCCESS
        && OTF2_AttributeList_GetUint64(al, INS_ATTR_BYTES_ID, &bytes) == OTF2_SUCCESS)
        r->sum += op + bytes;
    else
        r->bad_attr++;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    rb_run_t *r = ud;

    (void)loc, (void)t, (void)region;
    r->events++;
    r->enters++;
    attrs(r, al);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    rb_run_t *r = ud;

    (void)loc, (void)t, (void)region;
    r->events++;
    r->leaves++;
    attrs(r, al);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_other(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al)
{
    rb_run_t *r = ud;

    (void)loc, (void)t, (void)al;
    r->events++;
    r->other++;
    return OTF2_CALLBACK_SUCCESS;
}

static int fail(const char *anchor, const char *what, OTF2_ErrorCode rc)
{
    fprintf(stderr, "otf2-readbench: %s: %s: %s\n", anchor, what,
            OTF2_Error_GetDescription(rc));
    return -1;
}

/* The whole read sequence once; 0 or -1 (message printed). */
static int read_once(const char *anchor, rb_run_t *r)
{
    double t0 = now_s(), t1;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    OTF2_GlobalDefReader *gdr;
    OTF2_GlobalDefReaderCallbacks *gcb;
    OTF2_GlobalEvtReader *ger;
    OTF2_GlobalEvtReaderCallbacks *ecb;
    OTF2_ErrorCode rc;
    uint64_t n = 0;
    int ret = -1;

    if (rd == NULL) {
        fprintf(stderr, "otf2-readbench: %s: not an OTF2 archive\n", anchor);
        return -1;
    }
    if ((rc = OTF2_Reader_SetSerialCollectiveCallbacks(rd)) != OTF2_SUCCESS) {
        fail(anchor, "collective callbacks", rc);
        goto out;
    }
    /* global definitions: the locations */
    if ((gdr = OTF2_Reader_GetGlobalDefReader(rd)) == NULL
        || (gcb = OTF2_GlobalDefReaderCallbacks_New()) == NULL) {
        fail(anchor, "global definitions", OTF2_ERROR_INVALID);
        goto out;
    }
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
    rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, r);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (rc != OTF2_SUCCESS) {
        fail(anchor, "global definitions", rc);
        goto out;
    }
    if (r->nlocs == 0) {
        fprintf(stderr, "otf2-readbench: %s: no locations\n", anchor);
        goto out;
    }
    /* a thread's share: keep every nshares-th location (the reader's own) */
    {
        size_t k = 0;
        for (size_t i = 0; i < r->nlocs; i++)
            if ((int)(i % (size_t)r->nshares) == r->share)
                r->locs[k++] = r->locs[i];
        r->nlocs = k;
    }
    if (r->nlocs == 0) {                /* more threads than locations: nothing to read */
        ret = 0;
        goto out;
    }
    for (size_t i = 0; i < r->nlocs; i++)
        OTF2_Reader_SelectLocation(rd, r->locs[i]);
    /* local definitions, no callbacks: OTF2 keeps the clock offsets */
    if ((rc = OTF2_Reader_OpenDefFiles(rd)) != OTF2_SUCCESS) {
        fail(anchor, "local definition files", rc);
        goto out;
    }
    for (size_t i = 0; i < r->nlocs && rc == OTF2_SUCCESS; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, r->locs[i]);

        if (dr == NULL)
            continue;
        rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
    }
    OTF2_Reader_CloseDefFiles(rd);
    if (rc != OTF2_SUCCESS) {
        fail(anchor, "local definitions", rc);
        goto out;
    }
    /* events */
    t1 = now_s();
    if ((rc = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS) {
        fail(anchor, "event files", rc);
        goto out;
    }
    for (size_t i = 0; i < r->nlocs; i++)
        if (OTF2_Reader_GetEvtReader(rd, r->locs[i]) == NULL) {
            fprintf(stderr, "otf2-readbench: %s: no event reader for location %" PRIu64 "\n",
                    anchor, (uint64_t)r->locs[i]);
            OTF2_Reader_CloseEvtFiles(rd);
            goto out;
        }
    if ((ger = OTF2_Reader_GetGlobalEvtReader(rd)) == NULL
        || (ecb = OTF2_GlobalEvtReaderCallbacks_New()) == NULL) {
        fail(anchor, "global event reader", OTF2_ERROR_INVALID);
        OTF2_Reader_CloseEvtFiles(rd);
        goto out;
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, on_leave);
    OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(ecb, on_other);
    rc = OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, ecb, r);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_Reader_CloseEvtFiles(rd);
    r->t_events = now_s() - t1;
    if (rc != OTF2_SUCCESS) {
        fail(anchor, "events", rc);
        goto out;
    }
    ret = 0;
out:
    OTF2_Reader_Close(rd);
    r->t_total = now_s() - t0;
    return ret;
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: bin/otf2-readbench [-r REPEATS] [-t THREADS] TRACE/traces.otf2\n"
"The floor for papanalyze: reads a paptree trace with OTF2's global event\n"
"reader alone (definitions, clock offsets, Enter/Leave callbacks that count\n"
"events and read the attributes " INS_ATTR_OP " and " INS_ATTR_BYTES "), from\n"
"OTF2_Reader_Open to OTF2_Reader_Close.  Prints, per repeat, the events read,\n"
"the seconds (of which in the event reader) and M events/s, then the best.\n"
"Exits 1 if the archive cannot be read or holds other events than Enter and\n"
"Leave with both attributes, or not the events its definitions announce.\n"
"  -r REPEATS   1..%d (default 3)\n"
"  -t THREADS   1..64 (default 1): that many threads, each with an OTF2\n"
"               reader of its own over every THREADS-th location (the way\n"
"               papanalyze --read-threads shares them out), no merge; the\n"
"               time is the wall clock from the first open to the last close\n"
"  -h, --help   this text\n", REPEATS_MAX);
}

/* 0 run, 1 --help (printed), 2 a bad option (said, with the usage line). */
static int parse_args(int argc, char **argv, long *repeats, long *threads,
                      const char **anchor)
{
    static const struct option lo[] = { { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *opt;
    cm_opt_t ctx;
    int c, first;

    cm_opt_init(&ctx, "otf2-readbench");
    while ((c = cm_opt_next(&ctx, argc, argv, ":r:t:h", lo, &opt)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        if (c == 't')
            (void)cm_opt_long(&ctx, "-t", optarg, 1, 64, threads);
        else
            (void)cm_opt_long(&ctx, "-r", optarg, 1, REPEATS_MAX, repeats);
    }
    first = optind;                     /* the operands, moved behind the options */
    if (ctx.status == CM_OK && first == argc)
        (void)cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "no trace given, expected "
                          "TRACE/traces.otf2");
    else if (ctx.status == CM_OK && first + 1 < argc)
        (void)cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "unexpected argument '%s', expected one "
                          "trace", argv[first + 1]);
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        fprintf(stderr, "usage: bin/otf2-readbench [-r REPEATS] [-t THREADS] "
                "TRACE/traces.otf2\n");
        return 2;
    }
    *anchor = argv[first];
    return 0;
}

static void *thread_main(void *arg)
{
    rb_run_t *r = arg;

    r->ret = read_once(r->anchor, r);
    return NULL;
}

int main(int argc, char **argv)
{
    long repeats = 3, threads = 1;
    const char *anchor = NULL;
    double best = 0.0;
    rb_run_t r, th[64];
    pthread_t tid[64];
    size_t nlocs = 0;
    int rc;

    if ((rc = parse_args(argc, argv, &repeats, &threads, &anchor)) != 0)
        return rc == 1 ? 0 : 2;
    printf("# otf2-readbench: %s, %ld repeat(s), %ld thread(s), OTF2_Reader_Open to "
           "OTF2_Reader_Close\n", anchor, repeats, threads);
    printf("# repeat  events      seconds  events_s  Mev/s\n");
    for (long rep = 1; rep <= repeats; rep++) {
        double rate, t0 = now_s();

        memset(&r, 0, sizeof(r));
        for (long k = 0; k < threads; k++) {
            memset(&th[k], 0, sizeof(th[k]));
            th[k] = (rb_run_t){ .anchor = anchor, .share = (int)k, .nshares = (int)threads };
            if (pthread_create(&tid[k], NULL, thread_main, &th[k]) != 0) {
                fprintf(stderr, "otf2-readbench: cannot start a thread\n");
                return 1;
            }
        }
        rc = 0;
        nlocs = 0;
        for (long k = 0; k < threads; k++) {
            pthread_join(tid[k], NULL);
            rc |= th[k].ret;
            r.events += th[k].events;
            r.enters += th[k].enters;
            r.leaves += th[k].leaves;
            r.other += th[k].other;
            r.bad_attr += th[k].bad_attr;
            r.sum += th[k].sum;
            r.t_events = th[k].t_events > r.t_events ? th[k].t_events : r.t_events;
            r.announced = th[k].announced;
            nlocs += th[k].nlocs;
            free(th[k].locs);
        }
        r.t_total = now_s() - t0;
        if (rc != 0)
            return 1;
        if (r.other != 0 || r.bad_attr != 0 || r.events != r.announced) {
            fprintf(stderr, "otf2-readbench: %s: %" PRIu64 " events read (%" PRIu64 " Enter, %"
                    PRIu64 " Leave, %" PRIu64 " other, %" PRIu64 " without both attributes), "
                    "the definitions announce %" PRIu64 "\n", anchor, r.events, r.enters,
                    r.leaves, r.other, r.bad_attr, r.announced);
            return 1;
        }
        rate = (double)r.events / r.t_total / 1e6;
        if (rate > best)
            best = rate;
        printf("  %-7ld %-11" PRIu64 " %8.4f %9.4f %6.2f\n", rep, r.events, r.t_total,
               r.t_events, rate);
    }
    printf("best: %" PRIu64 " events from %zu locations, %.4f s, %.2f M events/s"
           " (checksum %" PRIu64 ")\n", r.events, nlocs, (double)r.events / best / 1e6, best,
           r.sum);
    return 0;
}
