/*
 * an_mpi_read_defs.c - an application trace's definitions (ins_schema.h,
 * "application traces"): the archive's properties, the strings (ids may be
 * sparse), the clock, paptree's attributes (by name), one region per MPI
 * function (by name), the locations (one per thread that called MPI, in
 * the location group of its world rank), the communicators with their
 * groups of world ranks (a COMM_SELF group: MPI_COMM_SELF), and each
 * location's local definitions, whose ClockOffset records OTF2 then applies
 * to every event (as for tree traces, an_read_defs.c): with several ranks
 * each location must have them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>

#include "analyze/an_mpi_read_int.h"
#include "analyze/an_read_int.h"
#include "instrument/api/ins_schema.h"

static const char *const attr_names[A_N] = {
    INS_ATTR_CALLSITE, INS_ATTR_ALGO, INS_ATTR_FALLBACK, INS_ATTR_COUNT, INS_ATTR_DTYPE,
    INS_ATTR_MPI_OP,
};

static const char *const func_names[AN_MPI_NFUNCS] = {
    "MPI_Allreduce", "MPI_Reduce", "MPI_Bcast", "MPI_Barrier", "MPI_Allgather",
    "MPI_Reduce_scatter_block", "MPI_Iallreduce", "MPI_Ireduce", "MPI_Ibcast", "MPI_Wait",
    "MPI_Test",
};
static const char *const coll_names[AN_MPI_NFUNCS] = {
    "allreduce", "reduce", "bcast", "barrier", "allgather", "reduce_scatter_block",
    "iallreduce", "ireduce", "ibcast", "wait", "test",
};

const char *an_mpi_func_name(an_mpi_func_t f) { return func_names[f]; }
const char *an_mpi_coll_name(an_mpi_func_t f) { return coll_names[f]; }

int an_mpi_func_of(const char *region)
{
    for (int i = 0; i < AN_MPI_NFUNCS; i++)
        if (strcmp(region, func_names[i]) == 0)
            return i;
    return -1;
}

OTF2_CallbackCode an__mpi_fail(mr_t *r, const char *fmt, ...)
{
    if (r->st == CM_OK) {
        char msg[CM_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        r->st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "%s", msg);
    }
    return OTF2_CALLBACK_INTERRUPT;
}

/* The definition of string ref (sorted by id: bsearch), or NULL. */
an_mpi_str_t *an__mpi_str_def(mr_t *r, uint32_t ref)
{
    an_mpi_str_t *v = r->tr->strs;
    uint32_t lo = 0, hi = r->tr->nstrs;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid].id == ref)
            return &v[mid];
        if (v[mid].id < ref)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *an__mpi_str(mr_t *r, uint32_t ref)
{
    an_mpi_str_t *d = an__mpi_str_def(r, ref);
    return d != NULL ? d->s : NULL;
}

/* ------------------------------------------------------------ definitions */

/* Strings come in increasing id order as OTF2 writers write them; one out
 * of order is inserted in place, so the array stays sorted. */
static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    mr_t *r = ud;
    an_mpi_trace_t *tr = r->tr;
    uint32_t at = tr->nstrs;

    if (an__mpi_str_def(r, self) != NULL)
        return an__mpi_fail(r, "string %u defined twice (the trace is damaged)", self);
    if (tr->nstrs >= (1u << 24))
        return an__mpi_fail(r, "more than %u strings (the trace is damaged)", 1u << 24);
    if (tr->nstrs == tr->capstrs) {
        uint32_t cap = tr->capstrs ? 2 * tr->capstrs : 64;
        an_mpi_str_t *p = realloc(tr->strs, cap * sizeof(*p));
        if (p == NULL)
            return an__mpi_fail(r, "out of memory");
        tr->strs = p;
        tr->capstrs = cap;
    }
    while (at > 0 && tr->strs[at - 1].id > self)
        at--;
    memmove(&tr->strs[at + 1], &tr->strs[at], (tr->nstrs - at) * sizeof(*tr->strs));
    tr->strs[at] = (an_mpi_str_t){ self, -1, strdup(s) };
    tr->nstrs++;
    if (tr->strs[at].s == NULL)
        return an__mpi_fail(r, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *ud, uint64_t res, uint64_t off, uint64_t len,
                                  uint64_t realtime)
{
    mr_t *r = ud;

    (void)off, (void)len, (void)realtime;
    r->nclock++;
    r->tr->resolution = res;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                 OTF2_StringRef desc, OTF2_Type type)
{
    mr_t *r = ud;
    const char *n = an__mpi_str(r, name);

    (void)desc;
    if (an__auto_attr_slot(n, type) >= 0)
        r->attr_auto[an__auto_attr_slot(n, type)] = self;
    for (int i = 0; n != NULL && i < A_N; i++)
        if (strcmp(n, attr_names[i]) == 0) {
            OTF2_Type want = i == A_COUNT ? OTF2_TYPE_INT64 : OTF2_TYPE_STRING;
            if (type != want)
                return an__mpi_fail(r, "attribute %s has the wrong type %d (the trace is damaged)",
                                    n, (int)type);
            r->attr[i] = self;
        }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canon, OTF2_StringRef desc,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t b,
                                   uint32_t e)
{
    mr_t *r = ud;
    const char *n = an__mpi_str(r, name);

    (void)canon, (void)desc, (void)role, (void)flags, (void)file, (void)b, (void)e;
    if (self > (1u << 20))
        return an__mpi_fail(r, "region definition %u: id out of range (the trace is damaged)",
                            self);
    if (self >= r->nregions) {
        uint32_t cnt = self + 16;
        int *p = realloc(r->region_func, cnt * sizeof(*p));
        if (p == NULL)
            return an__mpi_fail(r, "out of memory");
        for (uint32_t i = r->nregions; i < cnt; i++)
            p[i] = -1;
        r->region_func = p;
        r->nregions = cnt;
    }
    r->region_func[self] = paradigm == OTF2_PARADIGM_MPI && n != NULL ? an_mpi_func_of(n) : -1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nevents,
                                     OTF2_LocationGroupRef group)
{
    mr_t *r = ud;
    mr_loc_t *p;

    (void)name, (void)type;
    if (r->nlocs >= (1 << 20))
        return an__mpi_fail(r, "too many locations (the trace is damaged)");
    if ((p = realloc(r->locs, (size_t)(r->nlocs + 1) * sizeof(*p))) == NULL)
        return an__mpi_fail(r, "out of memory");
    r->locs = p;
    p = &r->locs[r->nlocs++];
    memset(p, 0, sizeof(*p));
    p->id = self;
    p->group = (int64_t)group;
    p->events = nevents;
    p->last = INT64_MIN;
    r->tr->nevents += nevents;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                  OTF2_GroupType type, OTF2_Paradigm paradigm,
                                  OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    mr_t *r = ud;
    mr_group_t *p;

    (void)name, (void)paradigm, (void)flags;
    if (type != OTF2_GROUP_TYPE_COMM_GROUP && type != OTF2_GROUP_TYPE_COMM_SELF)
        return OTF2_CALLBACK_SUCCESS;
    if (r->ngroups >= (1 << 20) || n > (1u << 24))
        return an__mpi_fail(r, "group %u: too large (the trace is damaged)", self);
    if ((p = realloc(r->groups, (size_t)(r->ngroups + 1) * sizeof(*p))) == NULL)
        return an__mpi_fail(r, "out of memory");
    r->groups = p;
    p = &r->groups[r->ngroups];
    p->id = self;
    p->n = type == OTF2_GROUP_TYPE_COMM_SELF ? 0 : n;
    p->self = type == OTF2_GROUP_TYPE_COMM_SELF;
    n = p->n;
    if ((p->members = malloc((n ? n : 1) * sizeof(int32_t))) == NULL)
        return an__mpi_fail(r, "out of memory");
    r->ngroups++;
    for (uint32_t i = 0; i < n; i++) {
        if (members[i] > INT32_MAX)
            return an__mpi_fail(r, "group %u: member %" PRIu64 " is not a rank (the trace is "
                                "damaged)", self, members[i]);
        p->members[i] = (int32_t)members[i];
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    mr_t *r = ud;
    mr_commdef_t *p;

    (void)parent, (void)flags;
    if (r->ncdefs >= (1 << 20))
        return an__mpi_fail(r, "too many communicators (the trace is damaged)");
    if ((p = realloc(r->cdefs, (size_t)(r->ncdefs + 1) * sizeof(*p))) == NULL)
        return an__mpi_fail(r, "out of memory");
    r->cdefs = p;
    r->cdefs[r->ncdefs++] = (mr_commdef_t){ self, name, group };
    return OTF2_CALLBACK_SUCCESS;
}

static cm_status_t read_global_defs(mr_t *r)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r->rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_ErrorCode rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    uint64_t n = 0;

    if (gdr != NULL && cb != NULL) {
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
        OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attr);
        OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
        OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
        OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
        rc = OTF2_Reader_RegisterGlobalDefCallbacks(r->rd, gdr, cb, r);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllGlobalDefinitions(r->rd, gdr, &n);
    }
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gdr != NULL)
        OTF2_Reader_CloseGlobalDefReader(r->rd, gdr);
    if (r->st != CM_OK)
        return r->st;
    if (rc != OTF2_SUCCESS)
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot read the global definitions: %s", an__read_why(rc));
    return CM_OK;
}

static int cmp_loc(const void *a, const void *b)
{
    const mr_loc_t *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

mr_loc_t *an__mpi_find_loc(mr_t *r, uint64_t id)
{
    mr_loc_t key = { .id = id };
    return bsearch(&key, r->locs, (size_t)r->nlocs, sizeof(*r->locs), cmp_loc);
}

/* The communicators from their definitions and groups: members in order. */
static cm_status_t build_comms(mr_t *r)
{
    an_mpi_trace_t *tr = r->tr;

    if ((tr->comms = calloc((size_t)r->ncdefs + 1, sizeof(*tr->comms))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < r->ncdefs; i++) {
        const mr_commdef_t *c = &r->cdefs[i];
        const mr_group_t *g = NULL;
        an_mpi_comm_t *m = &tr->comms[tr->ncomms];
        const char *name = an__mpi_str(r, c->name);

        for (int j = 0; j < r->ngroups && g == NULL; j++)
            if (r->groups[j].id == c->group)
                g = &r->groups[j];
        if (g == NULL || (g->n == 0 && !g->self))
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "communicator %" PRIu64
                             ": its group %u is not a defined COMM_GROUP with members or a "
                             "COMM_SELF group (the trace is damaged)", c->id, c->group);
        for (uint32_t k = 0; k < g->n; k++)
            if (g->members[k] >= tr->nranks)
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "communicator %"
                                 PRIu64 ": member %d is not a rank of the %d (the trace is "
                                 "damaged)", c->id, g->members[k], tr->nranks);
        m->id = (uint32_t)c->id;
        m->self = g->self;
        m->size = g->self ? 1 : (int32_t)g->n;
        if ((m->name = strdup(name != NULL ? name : "")) == NULL
            || (!g->self && (m->world = malloc(g->n * sizeof(int32_t))) == NULL))
            return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
        if (!g->self)
            memcpy(m->world, g->members, g->n * sizeof(int32_t));
        tr->ncomms++;
    }
    return CM_OK;
}

static OTF2_CallbackCode on_offset(void *ud, OTF2_TimeStamp t, int64_t off, double sd)
{
    (void)t, (void)off, (void)sd;
    (*(int *)ud)++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Each location's local definitions: OTF2 applies their ClockOffsets. */
static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static cm_status_t read_local_defs(mr_t *r)
{
    OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
    OTF2_ErrorCode rc = cb != NULL ? OTF2_Reader_OpenDefFiles(r->rd)
                                   : OTF2_ERROR_MEM_ALLOC_FAILED;
    int bad = -1;

    if (rc != OTF2_SUCCESS) {
        OTF2_DefReaderCallbacks_Delete(cb);
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot open the local definition files: %s", an__read_why(rc));
    }
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_offset);
    for (int i = 0; i < r->nlocs && rc == OTF2_SUCCESS; i++) {
        OTF2_DefReader *dr;
        int noff = 0;
        uint64_t n = 0;

        if ((dr = OTF2_Reader_GetDefReader(r->rd, r->locs[i].id)) == NULL) {
            bad = bad < 0 ? i : bad;
            continue;
        }
        rc = OTF2_Reader_RegisterDefCallbacks(r->rd, dr, cb, &noff);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllLocalDefinitions(r->rd, dr, &n);
        OTF2_Reader_CloseDefReader(r->rd, dr);
        if (rc == OTF2_SUCCESS && noff == 0 && bad < 0)
            bad = i;
    }
    OTF2_Reader_CloseDefFiles(r->rd);
    OTF2_DefReaderCallbacks_Delete(cb);
    if (rc != OTF2_SUCCESS)
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot read the local definitions: %s", an__read_why(rc));
    if (bad >= 0 && r->tr->nranks > 1)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "location %" PRIu64
                         " (rank %" PRId64 "): no clock offsets in its local definitions: its "
                         "times cannot be put on rank 0's time line (the trace is damaged)",
                         r->locs[bad].id, r->locs[bad].group);
    return CM_OK;
}

static cm_status_t read_props(mr_t *r)
{
    an_mpi_trace_t *tr = r->tr;
    char *v = NULL, *end = NULL;
    long n;

    if (OTF2_Reader_GetProperty(r->rd, INS_PROP_VERSION, &tr->version) != OTF2_SUCCESS
        || tr->version == NULL)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "not a paptree trace: no "
                         "%s property (written by another tool?)", INS_PROP_VERSION);
    if (OTF2_Reader_GetProperty(r->rd, INS_PROP_RANKS, &v) != OTF2_SUCCESS || v == NULL)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "archive property %s "
                         "missing: the trace is damaged", INS_PROP_RANKS);
    n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || n < 1 || n > (1 << 22)) {
        cm_status_t st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "archive property "
                                   "%s is '%s', expected 1 to %d ranks: the trace is damaged",
                                   INS_PROP_RANKS, v, 1 << 22);
        free(v);
        return st;
    }
    free(v);
    tr->nranks = (int32_t)n;
    if (OTF2_Reader_GetProperty(r->rd, INS_PROP_COMMAND, &tr->command) != OTF2_SUCCESS)
        tr->command = NULL;
    if (OTF2_Reader_GetProperty(r->rd, INS_PROP_RULES, &tr->rules) != OTF2_SUCCESS)
        tr->rules = NULL;
    if (OTF2_Reader_GetProperty(r->rd, INS_PROP_CLOCK, &tr->clock) != OTF2_SUCCESS)
        tr->clock = NULL;
    return CM_OK;
}

cm_status_t an__mpi_read_defs(mr_t *r)
{
    cm_status_t st;

    for (int i = 0; i < A_N; i++)
        r->attr[i] = UINT32_MAX;
    for (int i = 0; i < AN_AUTO_NATTR; i++)
        r->attr_auto[i] = UINT32_MAX;
    if ((st = read_props(r)) != CM_OK || (st = read_global_defs(r)) != CM_OK)
        return st;
    if (r->nclock != 1 || r->tr->resolution == 0)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "no clock properties: the trace is damaged");
    r->ns_per_tick = 1e9 / (double)r->tr->resolution;
    for (int i = 0; i < A_N; i++)
        if (r->attr[i] == UINT32_MAX)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "attribute %s not "
                             "defined: the trace is damaged", attr_names[i]);
    qsort(r->locs, (size_t)r->nlocs, sizeof(*r->locs), cmp_loc);
    for (int i = 0; i < r->nlocs; i++) {
        if (i > 0 && r->locs[i].id == r->locs[i - 1].id)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "location %" PRIu64
                             " defined twice: the trace is damaged", r->locs[i].id);
        if (r->locs[i].group < 0 || r->locs[i].group >= r->tr->nranks
            || (int64_t)(r->locs[i].id >> INS_LOC_RANK_SHIFT) != r->locs[i].group)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "location %" PRIu64
                             ": not a thread of a rank below %d (location group %" PRId64
                             "): the trace is damaged", r->locs[i].id, r->tr->nranks,
                             r->locs[i].group);
    }
    if ((st = build_comms(r)) != CM_OK)
        return st;
    /* --ranks: only their locations get event readers (an_mpi_read.c), so OTF2
     * never reads the others' events; every location's local definitions are
     * read, for the clock offsets of the time line's start (first_event) */
    for (int k = 0; r->part != NULL && r->part->ranks != NULL && k < r->part->nranks; k++)
        if (r->part->ranks[k] >= r->tr->nranks)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "--ranks: rank %d is "
                             "not in the trace (ranks 0 to %d)", r->part->ranks[k],
                             r->tr->nranks - 1);
    r->expect = 0;
    for (int i = 0; i < r->nlocs; i++) {
        r->locs[i].selected = r->part == NULL || r->part->ranks == NULL
                              || bsearch(&(int){ (int)r->locs[i].group }, r->part->ranks,
                                         (size_t)r->part->nranks, sizeof(int), cmp_int) != NULL;
        OTF2_Reader_SelectLocation(r->rd, r->locs[i].id);
        if (r->locs[i].selected)
            r->expect += r->locs[i].events;
    }
    return read_local_defs(r);
}
