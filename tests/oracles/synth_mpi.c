/*
 * synth_mpi - writes an application trace (ins_schema.h, "application
 * traces") with hand-chosen times, the oracle of papanalyze's MPI analysis
 * (tests/analyze/mpi.sh holds the metrics computed by hand from these
 * times, docs/analysis-db.md the definitions).
 *
 *   synth_mpi DIR [--site-a NAME] [--damage no-offsets|no-leave|no-complete|no-attr]
 *
 * Three ranks; rank 1's clock is 1000 ns behind rank 0's (ClockOffset
 * +1000), rank 2's 500 ns ahead (-500); the times below are on rank 0's
 * clock, in ns, and are written on each rank's own clock.  Communicators:
 * 0 MPI_COMM_WORLD (ranks 0 1 2), 2 "split" (ranks 0 2).  Call sites:
 *
 *   A (--site-a, default "/nonexistent/app+0x1234"): MPI_Allreduce on world,
 *     8 bytes, native, twice:  enters 1000 1200 1600, leaves 2000 2000 2000;
 *                              enters 3000 3100 3900, leaves 4100 4100 4100
 *   B "/nonexistent/app+0x2000": MPI_Allreduce on split, 128 KiB, rd, twice:
 *                              enters 5000 - 5050, leaves 6000 - 6000;
 *                              enters 7000 - 7000, leaves 8000 - 8100
 *                              (rank 2's second call fell back: "datatype")
 *   C "/nonexistent/app+0x3000": MPI_Iallreduce on world, 16 bytes, native:
 *     started 9000-9010, 9200-9210, 9100-9110; completed in MPI_Wait
 *     9500-9800, 9600-9800 (rank 1 first tests it in vain, MPI_Test
 *     9300-9305), 9700-9900.
 *
 * --damage leaves something out, for the refusals: rank 2's clock offsets,
 * rank 1's last Leave, the completion of rank 2's request, or the call
 * site attribute of the first call of rank 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <otf2/otf2.h>

#include "instrument/api/ins_schema.h"

enum { NRANKS = 3 };
enum { R_ALLREDUCE, R_IALLREDUCE, R_WAIT, R_TEST, NREGIONS };
static const char *const region_names[NREGIONS] = {
    "MPI_Allreduce", "MPI_Iallreduce", "MPI_Wait", "MPI_Test",
};
static const int64_t offset[NRANKS] = { 0, 1000, -500 };

/* strings */
enum { S_EMPTY, S_SITE_A, S_SITE_B, S_SITE_C, S_NATIVE, S_RD, S_DATATYPE, S_MPI_DOUBLE,
       S_MPI_BYTE, S_MPI_SUM, S_WORLD, S_SPLIT, S_LOCS, S_MACHINE, S_RANK0, S_RANK1, S_RANK2,
       S_A_SITE, S_A_ALGO, S_A_FB, S_A_COUNT, S_A_DTYPE, S_A_OP, S_R0, NSTR = S_R0 + NREGIONS };

typedef enum { E_CALL, E_WAIT, E_TEST } ev_kind_t;

/* one call: a blocking collective, a nonblocking start, or a wait/test */
typedef struct call {
    int       rank;
    ev_kind_t kind;
    int       region;
    int64_t   enter, leave;
    uint32_t  comm;
    int       site, algo, fallback, dtype;
    int64_t   count;
    uint64_t  bytes, request;
} call_t;

static const call_t calls[] = {
    /* site A: two allreduces on world */
    { 0, E_CALL, R_ALLREDUCE, 1000, 2000, 0, S_SITE_A, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 1, 8, 0 },
    { 1, E_CALL, R_ALLREDUCE, 1200, 2000, 0, S_SITE_A, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 1, 8, 0 },
    { 2, E_CALL, R_ALLREDUCE, 1600, 2000, 0, S_SITE_A, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 1, 8, 0 },
    { 0, E_CALL, R_ALLREDUCE, 3000, 4100, 0, S_SITE_A, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 1, 8, 0 },
    { 1, E_CALL, R_ALLREDUCE, 3100, 4100, 0, S_SITE_A, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 1, 8, 0 },
    { 2, E_CALL, R_ALLREDUCE, 3900, 4100, 0, S_SITE_A, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 1, 8, 0 },
    /* site B: two allreduces on split (ranks 0 and 2) */
    { 0, E_CALL, R_ALLREDUCE, 5000, 6000, 2, S_SITE_B, S_RD, S_EMPTY, S_MPI_BYTE, 131072, 131072, 0 },
    { 2, E_CALL, R_ALLREDUCE, 5050, 6000, 2, S_SITE_B, S_RD, S_EMPTY, S_MPI_BYTE, 131072, 131072, 0 },
    { 0, E_CALL, R_ALLREDUCE, 7000, 8000, 2, S_SITE_B, S_RD, S_EMPTY, S_MPI_BYTE, 131072, 131072, 0 },
    { 2, E_CALL, R_ALLREDUCE, 7000, 8100, 2, S_SITE_B, S_RD, S_DATATYPE, S_MPI_BYTE, 131072, 131072, 0 },
    /* site C: an iallreduce on world, completed by MPI_Wait */
    { 0, E_CALL, R_IALLREDUCE, 9000, 9010, 0, S_SITE_C, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 2, 16, 1 },
    { 1, E_CALL, R_IALLREDUCE, 9200, 9210, 0, S_SITE_C, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 2, 16, 1 },
    { 2, E_CALL, R_IALLREDUCE, 9100, 9110, 0, S_SITE_C, S_NATIVE, S_EMPTY, S_MPI_DOUBLE, 2, 16, 7 },
    { 1, E_TEST, R_TEST, 9300, 9305, 0, 0, 0, 0, 0, 0, 16, 1 },
    { 0, E_WAIT, R_WAIT, 9500, 9800, 0, 0, 0, 0, 0, 0, 16, 1 },
    { 1, E_WAIT, R_WAIT, 9600, 9800, 0, 0, 0, 0, 0, 0, 16, 1 },
    { 2, E_WAIT, R_WAIT, 9700, 9900, 0, 0, 0, 0, 0, 0, 16, 7 },
};

static const char *damage;

static int otf2_fail(OTF2_ErrorCode rc, const char *what)
{
    fprintf(stderr, "synth_mpi: %s: %s\n", what, OTF2_Error_GetDescription(rc));
    return 1;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)ft, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

static int is_damage(const char *what)
{
    return damage != NULL && strcmp(damage, what) == 0;
}

/* Bytes are counted as Score-P counts them: an allreduce sends and receives
 * the communicator's size times its message (the message is `bytes`). */
static uint64_t comm_size(uint32_t comm)
{
    return comm == 0 ? NRANKS : 2;
}

static uint64_t local(int rank, int64_t t)
{
    return (uint64_t)(t - offset[rank]);
}

static OTF2_ErrorCode write_call(OTF2_EvtWriter *w, OTF2_AttributeList *al, const call_t *c,
                                 int first, int last)
{
    uint64_t t1 = local(c->rank, c->enter), t2 = local(c->rank, c->leave);
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    if (c->kind == E_CALL) {
        if (!(first && c->rank == 0 && is_damage("no-attr")))
            rc = OTF2_AttributeList_AddStringRef(al, INS_ATTR_CALLSITE_ID, (uint32_t)c->site);
        OTF2_AttributeList_AddStringRef(al, INS_ATTR_ALGO_ID, (uint32_t)c->algo);
        OTF2_AttributeList_AddStringRef(al, INS_ATTR_FALLBACK_ID, (uint32_t)c->fallback);
        OTF2_AttributeList_AddInt64(al, INS_ATTR_COUNT_ID, c->count);
        OTF2_AttributeList_AddStringRef(al, INS_ATTR_DTYPE_ID, (uint32_t)c->dtype);
        OTF2_AttributeList_AddStringRef(al, INS_ATTR_MPI_OP_ID, S_MPI_SUM);
    }
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_Enter(w, c->kind == E_CALL ? al : NULL, t1, (uint32_t)c->region);
    if (rc == OTF2_SUCCESS && c->region == R_ALLREDUCE) {
        rc = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t1);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t2, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                 c->comm, OTF2_UNDEFINED_UINT32,
                                                 comm_size(c->comm) * c->bytes,
                                                 comm_size(c->comm) * c->bytes);
    } else if (rc == OTF2_SUCCESS && c->region == R_IALLREDUCE) {
        rc = OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, t1, c->request);
    } else if (rc == OTF2_SUCCESS && c->kind == E_WAIT
               && !(c->rank == 2 && is_damage("no-complete"))) {
        rc = OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, t2,
                                                          OTF2_COLLECTIVE_OP_ALLREDUCE, c->comm,
                                                          OTF2_UNDEFINED_UINT32,
                                                          comm_size(c->comm) * c->bytes,
                                                          comm_size(c->comm) * c->bytes,
                                                          c->request);
    }
    if (rc == OTF2_SUCCESS && !(last && c->rank == 1 && is_damage("no-leave")))
        rc = OTF2_EvtWriter_Leave(w, NULL, t2, (uint32_t)c->region);
    return rc;
}

static int write_events(OTF2_Archive *ar, uint64_t nev[NRANKS])
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_ErrorCode rc = OTF2_Archive_OpenEvtFiles(ar);

    for (int r = 0; r < NRANKS && rc == OTF2_SUCCESS; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)r << INS_LOC_RANK_SHIFT);
        size_t n = sizeof(calls) / sizeof(calls[0]), first = n, last = n;
        for (size_t i = 0; i < n; i++)
            if (calls[i].rank == r) {
                first = first == n ? i : first;
                last = i;
            }
        /* in time order on the rank: the table is, per rank, except the test */
        int64_t done = INT64_MIN;
        for (size_t k = 0; k < n && rc == OTF2_SUCCESS; k++) {
            size_t best = n;
            for (size_t i = 0; i < n; i++)
                if (calls[i].rank == r && calls[i].enter > done
                    && (best == n || calls[i].enter < calls[best].enter))
                    best = i;
            if (best == n)
                break;
            done = calls[best].enter;
            rc = write_call(w, al, &calls[best], best == first, best == last);
        }
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_GetNumberOfEvents(w, &nev[r]);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Archive_CloseEvtWriter(ar, w);
    }
    OTF2_AttributeList_Delete(al);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseEvtFiles(ar);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "events");
}

static int write_local_defs(OTF2_Archive *ar)
{
    OTF2_ErrorCode rc = OTF2_Archive_OpenDefFiles(ar);

    for (int r = 0; r < NRANKS && rc == OTF2_SUCCESS; r++) {
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(ar, (uint64_t)r << INS_LOC_RANK_SHIFT);
        if (w == NULL)
            return otf2_fail(OTF2_ERROR_INVALID, "OTF2_Archive_GetDefWriter");
        if (!(r == 2 && is_damage("no-offsets"))) {
            rc = OTF2_DefWriter_WriteClockOffset(w, local(r, 2000), offset[r], 10.0);
            if (rc == OTF2_SUCCESS)
                rc = OTF2_DefWriter_WriteClockOffset(w, local(r, 20000), offset[r], 10.0);
        }
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Archive_CloseDefWriter(ar, w);
    }
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseDefFiles(ar);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "local definitions");
}

static int write_global_defs(OTF2_Archive *ar, const char *site_a, const uint64_t nev[NRANKS])
{
    const char *str[NSTR] = {
        "", site_a, "/nonexistent/app+0x2000", "/nonexistent/app+0x3000", "native", "rd",
        "datatype", "MPI_DOUBLE", "MPI_BYTE", "MPI_SUM", "MPI_COMM_WORLD", "split",
        INS_GROUP_MPI_LOCATIONS, "machine", "rank 0", "rank 1", "rank 2", INS_ATTR_CALLSITE,
        INS_ATTR_ALGO, INS_ATTR_FALLBACK, INS_ATTR_COUNT, INS_ATTR_DTYPE, INS_ATTR_MPI_OP,
    };
    const struct { uint32_t id, name; OTF2_Type type; } attrs[] = {
        { INS_ATTR_CALLSITE_ID, S_A_SITE, OTF2_TYPE_STRING },
        { INS_ATTR_ALGO_ID, S_A_ALGO, OTF2_TYPE_STRING },
        { INS_ATTR_FALLBACK_ID, S_A_FB, OTF2_TYPE_STRING },
        { INS_ATTR_COUNT_ID, S_A_COUNT, OTF2_TYPE_INT64 },
        { INS_ATTR_DTYPE_ID, S_A_DTYPE, OTF2_TYPE_STRING },
        { INS_ATTR_MPI_OP_ID, S_A_OP, OTF2_TYPE_STRING },
    };
    const OTF2_RegionRole roles[NREGIONS] = {
        OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_FUNCTION,
        OTF2_REGION_ROLE_FUNCTION,
    };
    const uint64_t locs[NRANKS] = { 0, 1u << INS_LOC_RANK_SHIFT, 2u << INS_LOC_RANK_SHIFT };
    const uint64_t world[NRANKS] = { 0, 1, 2 }, split[2] = { 0, 2 };
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_ErrorCode rc = g != NULL ? OTF2_SUCCESS : OTF2_ERROR_INVALID;

    for (int i = 0; i < NREGIONS; i++)
        str[S_R0 + i] = region_names[i];
    for (uint32_t i = 0; i < NSTR && rc == OTF2_SUCCESS; i++)
        rc = OTF2_GlobalDefWriter_WriteString(g, i, str[i]);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 30000,
                                                       OTF2_UNDEFINED_TIMESTAMP);
    for (size_t i = 0; i < 6 && rc == OTF2_SUCCESS; i++)
        rc = OTF2_GlobalDefWriter_WriteAttribute(g, attrs[i].id, attrs[i].name, S_EMPTY,
                                                 attrs[i].type);
    for (uint32_t i = 0; i < NREGIONS && rc == OTF2_SUCCESS; i++)
        rc = OTF2_GlobalDefWriter_WriteRegion(g, i, S_R0 + i, S_R0 + i, S_EMPTY, roles[i],
                                              OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, S_EMPTY,
                                              0, 0);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_MACHINE, S_MACHINE,
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < NRANKS && rc == OTF2_SUCCESS; r++)
        rc = OTF2_GlobalDefWriter_WriteLocationGroup(g, r, S_RANK0 + r,
                                                     OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                     OTF2_UNDEFINED_LOCATION_GROUP);
    for (uint32_t r = 0; r < NRANKS && rc == OTF2_SUCCESS; r++)
        rc = OTF2_GlobalDefWriter_WriteLocation(g, locs[r], S_RANK0 + r,
                                                OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(g, 0, S_LOCS, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, NRANKS,
                                             locs);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(g, 1, S_WORLD, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, NRANKS,
                                             world);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(g, 2, S_SPLIT, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, split);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteComm(g, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM,
                                            OTF2_COMM_FLAG_NONE);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteComm(g, 2, S_SPLIT, 2, 0, OTF2_COMM_FLAG_NONE);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseGlobalDefWriter(ar, g);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "global definitions");
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *site_a = "/nonexistent/app+0x1234";
    uint64_t nev[NRANKS] = { 0 };
    OTF2_Archive *ar;
    struct stat sb;
    int st = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--site-a") == 0 && i + 1 < argc)
            site_a = argv[++i];
        else if (strcmp(argv[i], "--damage") == 0 && i + 1 < argc)
            damage = argv[++i];
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0 || dir != NULL)
            goto usage;
        else
            dir = argv[i];
    }
    if (dir == NULL)
        goto usage;
    if (stat(dir, &sb) == 0 || errno != ENOENT) {
        fprintf(stderr, "synth_mpi: '%s' exists: give a new directory\n", dir);
        return 1;
    }
    ar = OTF2_Archive_Open(dir, INS_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                           OTF2_CHUNK_SIZE_MIN * 4, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (ar == NULL || OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL) != OTF2_SUCCESS
        || OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS
        || OTF2_Archive_SetCreator(ar, "synth_mpi") != OTF2_SUCCESS
        || OTF2_Archive_SetProperty(ar, INS_PROP_VERSION, INS_SCHEMA_VERSION, false)
        || OTF2_Archive_SetProperty(ar, INS_PROP_KIND, INS_KIND_MPI, false)
        || OTF2_Archive_SetProperty(ar, INS_PROP_RANKS, "3", false)
        || OTF2_Archive_SetProperty(ar, INS_PROP_CLOCK, INS_CLOCK_MONO_RAW, false)
        || OTF2_Archive_SetProperty(ar, INS_PROP_COMMAND, "synth_mpi", false)
        || OTF2_Archive_SetProperty(ar, INS_PROP_RULES, "allreduce:>=64K=rd", false)) {
        fprintf(stderr, "synth_mpi: cannot open the archive '%s'\n", dir);
        return 1;
    }
    st = write_events(ar, nev);
    if (st == 0)
        st = write_local_defs(ar);
    if (st == 0)
        st = write_global_defs(ar, site_a, nev);
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && st == 0)
        st = otf2_fail(OTF2_ERROR_INVALID, "OTF2_Archive_Close");
    return st;
usage:
    fprintf(argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
            ? stdout : stderr,
            "usage: synth_mpi DIR [--site-a NAME] [--damage no-offsets|no-leave|no-complete|"
            "no-attr]\n");
    return argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) ? 0 : 2;
}
