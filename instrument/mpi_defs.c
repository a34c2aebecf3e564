/*
 * mpi_defs.c - the application trace's names and definitions
 * (ins_schema.h, "application traces"; docs/trace-format.md).
 *
 * Names: one region per MPI function; datatypes and ops by the MPI
 * standard's names, looked up by handle when the call is recorded (a few
 * pointer compares, the common types first), so that a user type freed and
 * its handle reused later cannot be misnamed; a type that is not
 * predefined is named by MPI_Type_get_name when it has a name (under the
 * trace's lock: the slow path of calls that fall back anyway), else
 * "derived"; an op that is not predefined is "user".
 *
 * Communicators: each rank keeps the definitions ins_mpi_comm gave it; at
 * close rank 0 gathers them all, keeps one per id (the first rank's), and
 * writes, with the rest of the global definitions: the COMM_LOCATIONS
 * group of every rank's first location, a COMM_GROUP of world ranks and a
 * Comm per communicator; MPI_COMM_SELF (INS_COMM_SELF_ID) as Score-P writes
 * it, one Comm over a group of type COMM_SELF.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "instrument/ins_mpi_int.h"

/* ---- functions ------------------------------------------------------------- */

static const struct {
    const char        *name;
    OTF2_RegionRole    role;
    OTF2_CollectiveOp  coll;
} funcs[INS_MPI_NFUNCS] = {
    [INS_MPI_ALLREDUCE] = { "MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL,
                            OTF2_COLLECTIVE_OP_ALLREDUCE },
    [INS_MPI_REDUCE] = { "MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_COLLECTIVE_OP_REDUCE },
    [INS_MPI_BCAST] = { "MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_COLLECTIVE_OP_BCAST },
    [INS_MPI_BARRIER] = { "MPI_Barrier", OTF2_REGION_ROLE_COLL_ALL2ALL,
                          OTF2_COLLECTIVE_OP_BARRIER },
    [INS_MPI_ALLGATHER] = { "MPI_Allgather", OTF2_REGION_ROLE_COLL_ALL2ALL,
                            OTF2_COLLECTIVE_OP_ALLGATHER },
    [INS_MPI_REDUCE_SCATTER_BLOCK] = { "MPI_Reduce_scatter_block", OTF2_REGION_ROLE_COLL_ALL2ALL,
                                       OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
    [INS_MPI_IALLREDUCE] = { "MPI_Iallreduce", OTF2_REGION_ROLE_COLL_ALL2ALL,
                             OTF2_COLLECTIVE_OP_ALLREDUCE },
    [INS_MPI_IREDUCE] = { "MPI_Ireduce", OTF2_REGION_ROLE_COLL_ALL2ONE,
                          OTF2_COLLECTIVE_OP_REDUCE },
    [INS_MPI_IBCAST] = { "MPI_Ibcast", OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_COLLECTIVE_OP_BCAST },
    [INS_MPI_WAIT] = { "MPI_Wait", OTF2_REGION_ROLE_FUNCTION, 0 },
    [INS_MPI_TEST] = { "MPI_Test", OTF2_REGION_ROLE_FUNCTION, 0 },
};

const char *ins_mpi_func_name(ins_mpi_func_t f)
{
    return (unsigned)f < INS_MPI_NFUNCS ? funcs[f].name : "?";
}

OTF2_CollectiveOp ins__mpi_coll_op(ins_mpi_func_t f)
{
    return (unsigned)f < INS_MPI_NFUNCS ? funcs[f].coll : 0;
}

const char *ins_mpi_fallback_name(ins_mpi_fallback_t r)
{
    static const char *const names[INS_FB_NREASONS] = {
        [INS_FB_NONE] = "", [INS_FB_DATATYPE] = "datatype", [INS_FB_OP] = "op",
        [INS_FB_USER_OP] = "user-op", [INS_FB_NONCOMMUTATIVE] = "noncommutative",
        [INS_FB_INTERCOMM] = "intercomm", [INS_FB_COUNT] = "count", [INS_FB_ARGS] = "args",
        [INS_FB_OTHER] = "other",
    };

    return (unsigned)r < INS_FB_NREASONS ? names[r] : "other";
}

/* ---- datatypes and ops ----------------------------------------------------- */

/* The common ones first: the lookup stops at the first match. */
static const struct {
    MPI_Datatype t;
    const char  *name;
} dtypes[] = {
    { MPI_DOUBLE, "MPI_DOUBLE" },     { MPI_INT, "MPI_INT" },
    { MPI_FLOAT, "MPI_FLOAT" },       { MPI_INT32_T, "MPI_INT32_T" },
    { MPI_INT64_T, "MPI_INT64_T" },   { MPI_LONG, "MPI_LONG" },
    { MPI_LONG_LONG, "MPI_LONG_LONG" }, { MPI_BYTE, "MPI_BYTE" },
    { MPI_CHAR, "MPI_CHAR" },         { MPI_UNSIGNED, "MPI_UNSIGNED" },
    { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG" },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG" },
    { MPI_UINT32_T, "MPI_UINT32_T" }, { MPI_UINT64_T, "MPI_UINT64_T" },
    { MPI_SHORT, "MPI_SHORT" },       { MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT" },
    { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR" }, { MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR" },
    { MPI_INT8_T, "MPI_INT8_T" },     { MPI_INT16_T, "MPI_INT16_T" },
    { MPI_UINT8_T, "MPI_UINT8_T" },   { MPI_UINT16_T, "MPI_UINT16_T" },
    { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE" }, { MPI_C_BOOL, "MPI_C_BOOL" },
    { MPI_WCHAR, "MPI_WCHAR" },       { MPI_DOUBLE_INT, "MPI_DOUBLE_INT" },
    { MPI_FLOAT_INT, "MPI_FLOAT_INT" }, { MPI_LONG_INT, "MPI_LONG_INT" },
    { MPI_2INT, "MPI_2INT" },         { MPI_SHORT_INT, "MPI_SHORT_INT" },
    { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT" },
    { MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX" },
    { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX" },
    { MPI_AINT, "MPI_AINT" },         { MPI_OFFSET, "MPI_OFFSET" },
    { MPI_COUNT, "MPI_COUNT" },
};
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

static const struct {
    MPI_Op      op;
    const char *name;
} ops[] = {
    { MPI_SUM, "MPI_SUM" },   { MPI_MAX, "MPI_MAX" },   { MPI_MIN, "MPI_MIN" },
    { MPI_PROD, "MPI_PROD" }, { MPI_LAND, "MPI_LAND" }, { MPI_LOR, "MPI_LOR" },
    { MPI_LXOR, "MPI_LXOR" }, { MPI_BAND, "MPI_BAND" }, { MPI_BOR, "MPI_BOR" },
    { MPI_BXOR, "MPI_BXOR" }, { MPI_MAXLOC, "MPI_MAXLOC" }, { MPI_MINLOC, "MPI_MINLOC" },
    { MPI_REPLACE, "MPI_REPLACE" }, { MPI_NO_OP, "MPI_NO_OP" },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* A type that is not in the table: its MPI name, kept once per name. */
static uint8_t dtype_named(ins_mpi_t *tr, MPI_Datatype t)
{
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    uint8_t id = INS_MPI_NAME_OTHER;

    if (MPI_Type_get_name(t, name, &len) != MPI_SUCCESS || len <= 0)
        return INS_MPI_NAME_OTHER;
    pthread_mutex_lock(&tr->lock);
    for (uint32_t i = 0; i < tr->ntnames; i++) {
        if (strcmp(tr->tnames[i], name) == 0) {
            id = (uint8_t)(1 + NDTYPES + i);
            goto out;
        }
    }
    if (1 + NDTYPES + tr->ntnames < INS_MPI_NAME_OTHER &&
        (tr->tnames[tr->ntnames] = strdup(name)) != NULL)
        id = (uint8_t)(1 + NDTYPES + tr->ntnames++);
out:
    pthread_mutex_unlock(&tr->lock);
    return id;
}

uint8_t ins__mpi_dtype_id(ins_mpi_t *tr, MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return INS_MPI_NAME_NONE;
    for (size_t i = 0; i < NDTYPES; i++)
        if (dtypes[i].t == t)
            return (uint8_t)(1 + i);
    return dtype_named(tr, t);
}

uint8_t ins__mpi_op_id(MPI_Op op)
{
    if (op == MPI_OP_NULL)
        return INS_MPI_NAME_NONE;
    for (size_t i = 0; i < NOPS; i++)
        if (ops[i].op == op)
            return (uint8_t)(1 + i);
    return INS_MPI_NAME_OTHER;
}

/* Called with tr->lock held, or after recording ended. */
const char *ins__mpi_dtype_name(const ins_mpi_t *tr, uint8_t id)
{
    if (id == INS_MPI_NAME_NONE)
        return "";
    if (id <= NDTYPES)
        return dtypes[id - 1].name;
    if (id - 1 - NDTYPES < tr->ntnames)
        return tr->tnames[id - 1 - NDTYPES];
    return "derived";
}

const char *ins__mpi_op_name(uint8_t id)
{
    if (id == INS_MPI_NAME_NONE)
        return "";
    return id <= NOPS ? ops[id - 1].name : "user";
}

/* ---- communicators ---------------------------------------------------------- */

cm_status_t ins_mpi_comm(ins_mpi_t *tr, const ins_mpi_comm_def_t *def, cm_err_t *err)
{
    ins_mpi_cdef_t *c;
    cm_status_t st = CM_OK;

    if (def->size <= 0 || def->world_ranks == NULL)
        return CM_ERR(err, CM_ERR_INVALID, "communicator %u: size %d, expected at least 1 "
                      "member", def->id, (int)def->size);
    for (int32_t i = 0; i < def->size; i++)
        if (def->world_ranks[i] < 0 || def->world_ranks[i] >= tr->size)
            return CM_ERR(err, CM_ERR_RANGE, "communicator %u: member %d is world rank %d, "
                          "expected 0 to %d", def->id, (int)i, (int)def->world_ranks[i],
                          tr->size - 1);
    pthread_mutex_lock(&tr->lock);
    if (tr->ncomms == tr->capcomms) {
        uint32_t cap = tr->capcomms ? 2 * tr->capcomms : 16;
        ins_mpi_cdef_t *p = realloc(tr->comms, cap * sizeof(*p));

        if (p == NULL) {
            st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
            goto out;
        }
        tr->comms = p;
        tr->capcomms = cap;
    }
    c = &tr->comms[tr->ncomms];
    c->id = def->id;
    c->parent = def->parent;
    c->size = def->size;
    c->ranks = malloc((size_t)def->size * sizeof(*c->ranks));
    c->name = strdup(def->name != NULL ? def->name : "");
    if (c->ranks == NULL || c->name == NULL) {
        free(c->ranks);
        free(c->name);
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(c->ranks, def->world_ranks, (size_t)def->size * sizeof(*c->ranks));
    tr->ncomms++;
out:
    pthread_mutex_unlock(&tr->lock);
    return st;
}

/* ---- dense communicator ids --------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

/* Whether every rank has ok (collective). */
static int all_ok(const ins_mpi_t *tr, int ok)
{
    int all = 0;

    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, tr->comm);
    return all;
}

OTF2_ErrorCode ins__mpi_comm_ids(ins_mpi_t *tr)
{
    int n = (int)tr->ncomms, total = 0;
    int *counts = calloc((size_t)tr->size, sizeof(int));
    int *displs = calloc((size_t)tr->size, sizeof(int));
    uint32_t *mine = calloc((size_t)n + 1, sizeof(uint32_t)), *all = NULL;

    for (int i = 0; mine != NULL && i < n; i++)
        mine[i] = tr->comms[i].id;
    if (!all_ok(tr, counts != NULL && displs != NULL && mine != NULL))
        goto fail;
    MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, tr->comm);
    for (int r = 0; r < tr->size; r++) {
        displs[r] = total;
        total += counts[r];
    }
    all = calloc((size_t)total + 1, sizeof(uint32_t));
    if (!all_ok(tr, all != NULL))
        goto fail;
    MPI_Allgatherv(mine, n, MPI_UINT32_T, all, counts, displs, MPI_UINT32_T, tr->comm);
    qsort(all, (size_t)total, sizeof(*all), cmp_u32);
    tr->ngcomms = 0;
    for (int i = 0; i < total; i++)
        if (tr->ngcomms == 0 || all[tr->ngcomms - 1] != all[i])
            all[tr->ngcomms++] = all[i];
    free(tr->gcomms);
    tr->gcomms = all;
    free(counts);
    free(displs);
    free(mine);
    return OTF2_SUCCESS;
fail:
    free(counts);
    free(displs);
    free(mine);
    free(all);
    return OTF2_ERROR_MEM_ALLOC_FAILED;
}

/* The place of communicator id in tr->gcomms, or -1. */
static int64_t comm_place(const ins_mpi_t *tr, uint32_t id)
{
    const uint32_t *p = tr->gcomms == NULL ? NULL
                        : bsearch(&id, tr->gcomms, tr->ngcomms, sizeof(id), cmp_u32);

    return p == NULL ? -1 : p - tr->gcomms;
}

OTF2_IdMap *ins__mpi_comm_map(const ins_mpi_t *tr)
{
    OTF2_IdMap *map = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, tr->ngcomms + 1);

    for (uint32_t i = 0; map != NULL && i < tr->ngcomms; i++)
        if (OTF2_IdMap_AddIdPair(map, tr->gcomms[i], i) != OTF2_SUCCESS) {
            OTF2_IdMap_Free(map);
            return NULL;
        }
    return map;
}

/* ---- gathering at rank 0 ---------------------------------------------------- */

/* What each rank sends rank 0, besides its host facts and its byte blobs. */
typedef struct rank_counts {
    uint64_t nloc, nstr, overflow;
} rank_counts_t;

/* A byte blob of every rank, at rank 0: all[displs[r] .. + counts[r]). */
typedef struct blobs {
    char *all;
    int  *counts, *displs;
} blobs_t;

static void blobs_free(blobs_t *b)
{
    free(b->all);
    free(b->counts);
    free(b->displs);
}

/* Collective; at rank 0 b is every rank's blob (NULLs when out of memory). */
static void gather_blobs(ins_mpi_t *tr, const void *mine, size_t len, blobs_t *b)
{
    int n = len <= INT32_MAX ? (int)len : -1, total = 0;

    memset(b, 0, sizeof(*b));
    if (tr->rank == 0) {
        b->counts = calloc((size_t)tr->size, sizeof(int));
        b->displs = calloc((size_t)tr->size, sizeof(int));
    }
    /* rank 0 cannot gather what it has no room to count: every rank then sends nothing */
    MPI_Gather(&n, 1, MPI_INT, b->counts != NULL ? b->counts : NULL, 1, MPI_INT, 0, tr->comm);
    if (tr->rank == 0) {
        for (int r = 0; b->counts != NULL && b->displs != NULL && r < tr->size; r++) {
            if (b->counts[r] < 0 || total > INT32_MAX - b->counts[r])
                b->counts[r] = 0;    /* too big: nothing (the rank's part fails below) */
            b->displs[r] = total;
            total += b->counts[r];
        }
        b->all = malloc((size_t)total + 1);
    }
    MPI_Gatherv(mine, n > 0 ? n : 0, MPI_BYTE, b->all, b->counts, b->displs, MPI_BYTE, 0,
                tr->comm);
}

/* This rank's communicators as int32 words: id, parent, size, name bytes
   (with its NUL), world ranks, the name padded to whole words. */
static int32_t *comms_pack(const ins_mpi_t *tr, size_t *nwords_p)
{
    size_t n = 0, k = 0;
    int32_t *w;

    for (uint32_t c = 0; c < tr->ncomms; c++)
        n += 4 + (size_t)tr->comms[c].size + (strlen(tr->comms[c].name) + 4) / 4;
    if ((w = calloc(n + 1, sizeof(*w))) == NULL)
        return NULL;
    for (uint32_t c = 0; c < tr->ncomms; c++) {
        const ins_mpi_cdef_t *d = &tr->comms[c];
        size_t len = strlen(d->name) + 1;

        w[k++] = (int32_t)d->id;
        w[k++] = (int32_t)d->parent;
        w[k++] = d->size;
        w[k++] = (int32_t)len;
        memcpy(&w[k], d->ranks, (size_t)d->size * sizeof(*w));
        k += (size_t)d->size;
        memcpy(&w[k], d->name, len);
        k += (len + 3) / 4;
    }
    *nwords_p = n;
    return w;
}

/* This rank's strings, NUL-terminated one after the other. */
static char *strs_pack(const ins_mpi_t *tr, size_t *len_p)
{
    size_t n = 0, k = 0;
    char *s;

    for (uint32_t i = 0; i < tr->strs.n; i++)
        n += strlen(tr->strs.text[i]) + 1;
    if ((s = malloc(n + 1)) == NULL)
        return NULL;
    for (uint32_t i = 0; i < tr->strs.n; i++) {
        size_t len = strlen(tr->strs.text[i]) + 1;

        memcpy(s + k, tr->strs.text[i], len);
        k += len;
    }
    *len_p = n;
    return s;
}

/* ---- writing at rank 0 ------------------------------------------------------- */

/* Every rank's event strings, at their ids (ins_mpi_int.h). */
static void gw_rank_strings(ins_gw_t *g, int size, const rank_counts_t *cnt, const blobs_t *b)
{
    for (int r = 0; r < size; r++) {
        OTF2_StringRef base = INS_MPI_STR_BASE + (uint32_t)r * INS_MPI_STR_PER_RANK;
        const char *p = b->all + b->displs[r], *end = p + b->counts[r];

        for (uint64_t i = 0; i < cnt[r].nstr; i++) {
            size_t len = p < end ? strnlen(p, (size_t)(end - p)) : 0;

            if (p + len >= end) {                 /* the rank's list did not arrive whole */
                ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
                break;
            }
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteString(g->w, base + (uint32_t)i, p));
            p += len + 1;
        }
        if (cnt[r].overflow)
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteString(
                                 g->w, base + INS_MPI_STR_PER_RANK - 1, "?"));
    }
}

static void gw_attrs_regions(ins_gw_t *g)
{
    /* The tree trace's attributes first (not used here), so that the ids are dense. */
    static const struct { uint32_t id; const char *name, *desc; OTF2_Type type; } attrs[] = {
        { INS_ATTR_OP_ID, INS_ATTR_OP, "tree traces only", OTF2_TYPE_UINT64 },
        { INS_ATTR_BYTES_ID, INS_ATTR_BYTES, "tree traces only", OTF2_TYPE_UINT64 },
        { INS_ATTR_ASKED_ID, INS_ATTR_ASKED, "tree traces only", OTF2_TYPE_STRING },
        { INS_ATTR_MISSING_ID, INS_ATTR_MISSING, "tree traces only", OTF2_TYPE_INT64 },
        { INS_ATTR_ERROR_ID, INS_ATTR_ERROR, "tree traces only", OTF2_TYPE_INT64 },
        { INS_ATTR_LEAD_ID, INS_ATTR_LEAD, "tree traces only", OTF2_TYPE_INT64 },
        { INS_ATTR_WAIT_ID, INS_ATTR_WAIT, "tree traces only", OTF2_TYPE_INT64 },
        { INS_ATTR_CALLSITE_ID, INS_ATTR_CALLSITE, "the call's return address, MODULE+0xOFFSET",
          OTF2_TYPE_STRING },
        { INS_ATTR_ALGO_ID, INS_ATTR_ALGO, "the algorithm that ran: native or the rule's",
          OTF2_TYPE_STRING },
        { INS_ATTR_FALLBACK_ID, INS_ATTR_FALLBACK, "why the rule's algorithm did not run",
          OTF2_TYPE_STRING },
        { INS_ATTR_COUNT_ID, INS_ATTR_COUNT, "the call's count", OTF2_TYPE_INT64 },
        { INS_ATTR_DTYPE_ID, INS_ATTR_DTYPE, "the call's datatype", OTF2_TYPE_STRING },
        { INS_ATTR_MPI_OP_ID, INS_ATTR_MPI_OP, "the call's reduction operation",
          OTF2_TYPE_STRING },
    };

    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        ins__gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(
                             g->w, attrs[i].id, ins__gw_str(g, attrs[i].name),
                             ins__gw_str(g, attrs[i].desc), attrs[i].type));
    for (uint32_t f = 0; f < INS_MPI_NFUNCS; f++) {
        OTF2_StringRef name = ins__gw_str(g, funcs[f].name);

        ins__gw_check(g, OTF2_GlobalDefWriter_WriteRegion(
                             g->w, f, name, name, ins__gw_str(g, ""), funcs[f].role,
                             OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, ins__gw_str(g, ""), 0, 0));
    }
}

static void gw_locations(ins_gw_t *g, int size, const rank_counts_t *cnt, const blobs_t *locs)
{
    for (int r = 0; r < size; r++) {
        const uint64_t *info = (const uint64_t *)(void *)(locs->all + locs->displs[r]);

        if ((uint64_t)locs->counts[r] != cnt[r].nloc * 2 * sizeof(uint64_t)) {
            ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
            continue;
        }
        for (uint64_t i = 0; i < cnt[r].nloc; i++) {
            OTF2_LocationRef id = ins__loc_id(r, (uint32_t)i);
            char name[64];

            snprintf(name, sizeof(name), "rank %d thread %u", r, (unsigned)i);
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocation(
                                 g->w, id, ins__gw_str(g, name), OTF2_LOCATION_TYPE_CPU_THREAD,
                                 info[2 * i], (OTF2_LocationGroupRef)r));
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(
                                 g->w, id, ins__gw_str(g, INS_LOC_PROP_THREAD), OTF2_TYPE_UINT64,
                                 ins__av_u64(i)));
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(
                                 g->w, id, ins__gw_str(g, INS_LOC_PROP_FLUSHES), OTF2_TYPE_UINT64,
                                 ins__av_u64(info[2 * i + 1])));
        }
    }
}

/* One communicator of a rank's packed list, or NULL past its end (*pos moves on). */
static const int32_t *comm_next(const int32_t *w, size_t nwords, size_t *pos)
{
    const int32_t *c = w + *pos;
    size_t len;

    if (*pos + 4 > nwords || c[2] <= 0 || c[3] <= 0)
        return NULL;
    len = 4 + (size_t)c[2] + ((size_t)c[3] + 3) / 4;
    if (*pos + len > nwords || ((const char *)(c + 4 + c[2]))[c[3] - 1] != '\0')
        return NULL;
    *pos += len;
    return c;
}

/* Whether two packed definitions say the same. */
static int comm_same(const int32_t *a, const int32_t *b)
{
    return a[2] == b[2] && memcmp(a + 4, b + 4, (size_t)a[2] * sizeof(*a)) == 0;
}

/*
 * The MPI groups and communicators: every distinct id once, in the order
 * first seen (rank 0's first, in its order of definition, so that a parent
 * comes before the communicators made from it).
 */
static int cmp_cdef(const void *a, const void *b)
{
    uint32_t x = (uint32_t)(*(const int32_t *const *)a)[0];
    uint32_t y = (uint32_t)(*(const int32_t *const *)b)[0];

    return (x > y) - (x < y);
}

/* The communicators, one definition per id (the lowest rank's), in the
 * order of their ids, each under its place in tr->gcomms. */
static void gw_comms(ins_gw_t *g, const ins_mpi_t *tr, int size, const blobs_t *b)
{
    const int32_t **seen = NULL;
    size_t nseen = 0, cap = 0;
    uint64_t *members = malloc((size_t)size * sizeof(*members));
    OTF2_GroupRef next_group = INS_GROUP_MPI_FIRST_ID;

    for (int r = 0; members != NULL && r < size; r++)
        members[r] = ins__loc_id(r, 0);
    if (members == NULL) {
        ins__gw_check(g, OTF2_ERROR_MEM_ALLOC_FAILED);
        return;
    }
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteGroup(
                         g->w, INS_GROUP_MPI_LOCATIONS_ID, ins__gw_str(g, INS_GROUP_MPI_LOCATIONS),
                         OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                         (uint32_t)size, members));
    for (int r = 0; r < size; r++) {
        const int32_t *w = (const int32_t *)(void *)(b->all + b->displs[r]), *c;
        size_t nwords = (size_t)b->counts[r] / sizeof(int32_t), pos = 0;

        while ((c = comm_next(w, nwords, &pos)) != NULL) {
            size_t k;
            uint32_t id = (uint32_t)c[0];

            for (k = 0; k < nseen && (uint32_t)seen[k][0] != id; k++)
                ;
            if (k < nseen) {
                if (id != INS_COMM_SELF_ID && !comm_same(seen[k], c))
                    fprintf(stderr, "paptree: trace: communicator %u is defined differently by "
                            "rank %d than by a lower rank; the first definition is kept\n", id, r);
                continue;
            }
            if (nseen == cap) {
                const int32_t **p = realloc(seen, (cap = cap ? 2 * cap : 16) * sizeof(*p));
                if (p == NULL) {
                    ins__gw_check(g, OTF2_ERROR_MEM_ALLOC_FAILED);
                    goto out;
                }
                seen = p;
            }
            seen[nseen++] = c;
        }
        if (pos != nwords)
            ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
    }
    if (nseen > 0)
        qsort(seen, nseen, sizeof(*seen), cmp_cdef);
    for (size_t k = 0; k < nseen; k++) {
        const int32_t *c = seen[k];
        char name[64];
        const char *cname = (const char *)(c + 4 + c[2]);
        int64_t place = comm_place(tr, (uint32_t)c[0]), parent = comm_place(tr, (uint32_t)c[1]);

        if (place < 0 || c[2] > size) {
            ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
            continue;
        }
        if (cname[0] == '\0') {
            snprintf(name, sizeof(name), "comm %" PRId64, place);
            cname = name;
        }
        for (int32_t i = 0; i < c[2]; i++)
            members[i] = (uint64_t)c[4 + i];
        if ((uint32_t)c[0] == INS_COMM_SELF_ID)
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteGroup(
                                 g->w, next_group, ins__gw_str(g, cname),
                                 OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                 OTF2_GROUP_FLAG_NONE, 0, members));
        else
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteGroup(
                                 g->w, next_group, ins__gw_str(g, cname),
                                 OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                 OTF2_GROUP_FLAG_NONE, (uint32_t)c[2], members));
        ins__gw_check(g, OTF2_GlobalDefWriter_WriteComm(
                             g->w, (OTF2_CommRef)place, ins__gw_str(g, cname), next_group++,
                             parent >= 0 && parent != place ? (OTF2_CommRef)parent
                                                            : OTF2_UNDEFINED_COMM,
                             OTF2_COMM_FLAG_NONE));
    }
out:
    free(seen);
    free(members);
}

typedef struct gathered {
    ins_host_info_t *hosts;
    rank_counts_t   *cnt;
    blobs_t          locs, strs, comms;
} gathered_t;

static OTF2_ErrorCode write_globals(ins_mpi_t *tr, double rate, const gathered_t *x)
{
    ins_gw_t g;

    if (ins__gw_open(&g, tr->ar) != OTF2_SUCCESS)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    gw_rank_strings(&g, tr->size, x->cnt, &x->strs);
    ins__gw_clock(&g, rate, x->hosts, tr->size, &tr->clk0);
    gw_attrs_regions(&g);
    if (tr->auto_defs) {
        /* the tree traces' parameter (unused here), so that the ids stay dense */
        ins__gw_check(&g, OTF2_GlobalDefWriter_WriteParameter(g.w, INS_PARAM_ARRIVAL_ID,
                                                         ins__gw_str(&g, INS_PARAM_ARRIVAL),
                                                         OTF2_PARAMETER_TYPE_STRING));
        ins__gw_auto_defs(&g);
    }
    ins__gw_machine(&g, x->hosts[0].hostname);
    for (int r = 0; r < tr->size; r++)
        ins__gw_host(&g, r, x->hosts[r].hostname, x->hosts[r].hostname);
    gw_locations(&g, tr->size, x->cnt, &x->locs);
    gw_comms(&g, tr, tr->size, &x->comms);
    if (g.next >= INS_MPI_STR_BASE)
        ins__gw_check(&g, OTF2_ERROR_INVALID_DATA);   /* would collide with the ranks' ids */
    return ins__gw_close(&g, tr->ar);
}

OTF2_ErrorCode ins__mpi_defs_write(ins_mpi_t *tr, double rate)
{
    ins_host_info_t me;
    rank_counts_t mine = { tr->nloc, tr->strs.n, tr->strs.n >= INS_MPI_STR_PER_RANK - 1 };
    gathered_t x = { NULL, NULL, { 0 }, { 0 }, { 0 } };
    uint64_t *info = calloc(2 * (size_t)tr->nloc + 1, sizeof(*info));
    size_t nstr = 0, ncw = 0;
    char *strs = strs_pack(tr, &nstr);
    int32_t *cw = comms_pack(tr, &ncw);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    int any_auto = 0, mine_auto = __atomic_load_n(&tr->auto_defs, __ATOMIC_RELAXED);

    /* The choice's definitions when any rank recorded one (ins_schema.h). */
    MPI_Allreduce(&mine_auto, &any_auto, 1, MPI_INT, MPI_MAX, tr->comm);
    tr->auto_defs = any_auto;

    ins__host_info_init(&me);
    for (uint32_t i = 0; i < tr->nloc; i++) {
        const ins_mpi_loc_t *loc = tr->locs[i];

        if (loc->written != 0)
            ins__host_info_span(&me, loc->first_ts, loc->last_ts, &tr->off0, &tr->off1);
        if (info != NULL) {
            info[2 * i] = loc->written;
            info[2 * i + 1] = loc->flushes;
        }
    }
    ins__host_info_pad(&me, &tr->off0, &tr->off1);
    if (info == NULL || strs == NULL || cw == NULL)
        rc = OTF2_ERROR_MEM_ALLOC_FAILED;    /* this rank fails; it still takes part */
    if (tr->rank == 0) {
        x.hosts = calloc((size_t)tr->size, sizeof(*x.hosts));
        x.cnt = calloc((size_t)tr->size, sizeof(*x.cnt));
    }
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, x.hosts, (int)sizeof(me), MPI_BYTE, 0, tr->comm);
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, x.cnt, (int)sizeof(mine), MPI_BYTE, 0,
               tr->comm);
    gather_blobs(tr, info, info ? 2 * (size_t)tr->nloc * sizeof(*info) : 0, &x.locs);
    gather_blobs(tr, strs, strs ? nstr : 0, &x.strs);
    gather_blobs(tr, cw, cw ? ncw * sizeof(*cw) : 0, &x.comms);
    if (tr->rank == 0 && rc == OTF2_SUCCESS) {
        if (x.hosts == NULL || x.cnt == NULL || x.locs.all == NULL || x.strs.all == NULL ||
            x.comms.all == NULL)
            rc = OTF2_ERROR_MEM_ALLOC_FAILED;
        else
            rc = write_globals(tr, rate, &x);
    }
    free(info);
    free(strs);
    free(cw);
    free(x.hosts);
    free(x.cnt);
    blobs_free(&x.locs);
    blobs_free(&x.strs);
    blobs_free(&x.comms);
    return rc;
}
