/*
 * an_mpi_read.c - an application trace (ins_schema.h, "application
 * traces") into calls: one an_mpi_call_t per collective call of each rank,
 * a nonblocking one from its call to the MPI_Wait or MPI_Test that
 * completed it.
 *
 * Definitions first: the strings, the clock, paptree's attributes (by
 * name), one region per MPI function (by name), the location groups (one
 * per world rank), the locations (one per thread that called MPI), the
 * communicators with their groups of world ranks.  Then each location's
 * local definitions, whose ClockOffset records OTF2 applies to every event
 * (as for tree traces, an_read_defs.c): with several ranks each location
 * must have them.  Then the events in time order through OTF2's global
 * reader; each location has at most one call open (MPI calls do not nest
 * in one thread).
 *
 * Anything that breaks the conventions is an error naming the record;
 * the algorithm's messages (MpiIsend ...) and anything else are counted and
 * skipped.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>

#include "analyze/an_mpi_int.h"
#include "analyze/an_read_int.h"
#include "instrument/api/ins_schema.h"

enum { A_CALLSITE, A_ALGO, A_FALLBACK, A_COUNT, A_DTYPE, A_MPI_OP, A_N };
static const char *const attr_names[A_N] = {
    INS_ATTR_CALLSITE, INS_ATTR_ALGO, INS_ATTR_FALLBACK, INS_ATTR_COUNT, INS_ATTR_DTYPE,
    INS_ATTR_MPI_OP,
};

typedef struct mr_group { uint64_t id; uint32_t n; int32_t *members; } mr_group_t;
typedef struct mr_commdef { uint64_t id; uint32_t name, group; } mr_commdef_t;

typedef struct mr_loc {
    uint64_t      id;
    int64_t       group;      /* location group = world rank */
    uint64_t      events;
    int           open;       /* a call is open: cur is it */
    int           in_wait;    /* the open call is an MPI_Wait/MPI_Test */
    int           ended;      /* its collective end (or request) was seen */
    int64_t       last;
    an_mpi_call_t cur;
} mr_loc_t;

typedef struct mr {
    an_mpi_trace_t *tr;
    const char     *anchor;
    cm_err_t       *err;
    cm_status_t     st;
    OTF2_Reader    *rd;
    int            *region_func;          /* [nregions], -1: not ours */
    uint32_t        nregions;
    uint32_t        attr[A_N];
    int             nclock;
    mr_group_t     *groups;
    int             ngroups;
    mr_commdef_t   *cdefs;
    int             ncdefs;
    mr_loc_t       *locs;
    int             nlocs;
    int32_t        *site_of_string;       /* [nstrings]: site index, or -1 */
    int64_t         cap_calls;
    uint64_t        base, nevents;
    int             have_base;
    double          ns_per_tick;
} mr_t;

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

static int is_nonblocking(an_mpi_func_t f)
{
    return f == AN_MPI_IALLREDUCE || f == AN_MPI_IREDUCE || f == AN_MPI_IBCAST;
}

static OTF2_CallbackCode fail(mr_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static OTF2_CallbackCode fail(mr_t *r, const char *fmt, ...)
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

static const char *str(mr_t *r, uint32_t ref)
{
    return ref < r->tr->nstrings && r->tr->strings[ref] != NULL ? r->tr->strings[ref] : NULL;
}

/* ------------------------------------------------------------ definitions */

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    mr_t *r = ud;
    an_mpi_trace_t *tr = r->tr;

    if (self > (1u << 24))
        return fail(r, "string definition %u: id out of range (the trace is damaged)", self);
    if (self >= tr->nstrings) {
        uint32_t n = self + 64;
        char **p = realloc(tr->strings, n * sizeof(*p));
        if (p == NULL)
            return fail(r, "out of memory");
        memset(p + tr->nstrings, 0, (n - tr->nstrings) * sizeof(*p));
        tr->strings = p;
        tr->nstrings = n;
    }
    free(tr->strings[self]);
    if ((tr->strings[self] = strdup(s)) == NULL)
        return fail(r, "out of memory");
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
    const char *n = str(r, name);

    (void)desc;
    for (int i = 0; n != NULL && i < A_N; i++)
        if (strcmp(n, attr_names[i]) == 0) {
            OTF2_Type want = i == A_COUNT ? OTF2_TYPE_INT64 : OTF2_TYPE_STRING;
            if (type != want)
                return fail(r, "attribute %s has the wrong type %d (the trace is damaged)",
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
    const char *n = str(r, name);

    (void)canon, (void)desc, (void)role, (void)flags, (void)file, (void)b, (void)e;
    if (self > (1u << 20))
        return fail(r, "region definition %u: id out of range (the trace is damaged)", self);
    if (self >= r->nregions) {
        uint32_t cnt = self + 16;
        int *p = realloc(r->region_func, cnt * sizeof(*p));
        if (p == NULL)
            return fail(r, "out of memory");
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
        return fail(r, "too many locations (the trace is damaged)");
    if ((p = realloc(r->locs, (size_t)(r->nlocs + 1) * sizeof(*p))) == NULL)
        return fail(r, "out of memory");
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
    if (type != OTF2_GROUP_TYPE_COMM_GROUP)
        return OTF2_CALLBACK_SUCCESS;
    if (r->ngroups >= (1 << 20) || n > (1u << 24))
        return fail(r, "group %u: too large (the trace is damaged)", self);
    if ((p = realloc(r->groups, (size_t)(r->ngroups + 1) * sizeof(*p))) == NULL)
        return fail(r, "out of memory");
    r->groups = p;
    p = &r->groups[r->ngroups];
    p->id = self;
    p->n = n;
    if ((p->members = malloc((n ? n : 1) * sizeof(int32_t))) == NULL)
        return fail(r, "out of memory");
    r->ngroups++;
    for (uint32_t i = 0; i < n; i++) {
        if (members[i] > INT32_MAX)
            return fail(r, "group %u: member %" PRIu64 " is not a rank (the trace is damaged)",
                        self, members[i]);
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
        return fail(r, "too many communicators (the trace is damaged)");
    if ((p = realloc(r->cdefs, (size_t)(r->ncdefs + 1) * sizeof(*p))) == NULL)
        return fail(r, "out of memory");
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

static mr_loc_t *find_loc(mr_t *r, uint64_t id)
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
        const char *name = str(r, c->name);

        for (int j = 0; j < r->ngroups && g == NULL; j++)
            if (r->groups[j].id == c->group)
                g = &r->groups[j];
        if (g == NULL || g->n == 0)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "communicator %" PRIu64
                             ": its group %u is not a defined COMM_GROUP with members (the "
                             "trace is damaged)", c->id, c->group);
        for (uint32_t k = 0; k < g->n; k++)
            if (g->members[k] >= tr->nranks)
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "communicator %"
                                 PRIu64 ": member %d is not a rank of the %d (the trace is "
                                 "damaged)", c->id, g->members[k], tr->nranks);
        m->id = (uint32_t)c->id;
        m->size = (int32_t)g->n;
        if ((m->name = strdup(name != NULL ? name : "")) == NULL
            || (m->world = malloc(g->n * sizeof(int32_t))) == NULL)
            return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
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
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r->rd, r->locs[i].id);
        int noff = 0;
        uint64_t n = 0;

        if (dr == NULL) {
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

static cm_status_t read_defs(mr_t *r)
{
    cm_status_t st;

    for (int i = 0; i < A_N; i++)
        r->attr[i] = UINT32_MAX;
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
    if ((r->site_of_string = malloc((r->tr->nstrings + 1) * sizeof(int32_t))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < r->tr->nstrings; i++)
        r->site_of_string[i] = -1;
    if ((st = build_comms(r)) != CM_OK)
        return st;
    for (int i = 0; i < r->nlocs; i++)
        OTF2_Reader_SelectLocation(r->rd, r->locs[i].id);
    return read_local_defs(r);
}

/* ---------------------------------------------------------------- events */

static int64_t to_ns(mr_t *r, OTF2_TimeStamp t)
{
    if (!r->have_base) {
        r->have_base = 1;
        r->base = t;
    }
    return (int64_t)llround((double)(int64_t)(t - r->base) * r->ns_per_tick);
}

/* The location of an event, its time checked to go forward. */
static mr_loc_t *event_loc(mr_t *r, OTF2_LocationRef id, OTF2_TimeStamp t, const char *what,
                           int64_t *ns)
{
    mr_loc_t *l = find_loc(r, id);

    r->nevents++;
    if (l == NULL) {
        fail(r, "%s event on undefined location %" PRIu64, what, id);
        return NULL;
    }
    *ns = to_ns(r, t);
    if (*ns < l->last) {
        fail(r, "%s event on location %" PRIu64 ": time goes backwards", what, id);
        return NULL;
    }
    l->last = *ns;
    return l;
}

static int site_of(mr_t *r, uint32_t ref)
{
    an_mpi_trace_t *tr = r->tr;
    an_mpi_site_t *p;

    if (r->site_of_string[ref] >= 0)
        return r->site_of_string[ref];
    if ((p = realloc(tr->sites, (size_t)(tr->nsites + 1) * sizeof(*p))) == NULL)
        return -1;
    tr->sites = p;
    p = &tr->sites[tr->nsites];
    memset(p, 0, sizeof(*p));
    if ((p->name = strdup(tr->strings[ref])) == NULL)
        return -1;
    r->site_of_string[ref] = tr->nsites;
    return tr->nsites++;
}

/* A STRING attribute's text, or NULL. */
static const char *attr_str(mr_t *r, OTF2_AttributeList *al, int a)
{
    OTF2_StringRef s;

    if (al == NULL || OTF2_AttributeList_GetStringRef(al, r->attr[a], &s) != OTF2_SUCCESS)
        return NULL;
    return str(r, s);
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "Enter", &ns);
    an_mpi_call_t *c;
    OTF2_StringRef s;
    int f;

    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (region >= r->nregions || (f = r->region_func[region]) < 0)
        return fail(r, "Enter event on location %" PRIu64 ": region %u is not one of the "
                    "traced MPI functions (the trace is damaged)", id, region);
    if (l->open)
        return fail(r, "Enter event on location %" PRIu64 ": %s entered inside %s (MPI calls "
                    "do not nest; the trace is damaged)", id, func_names[f],
                    func_names[l->cur.func]);
    memset(&l->cur, 0, sizeof(l->cur));
    l->open = 1;
    l->ended = 0;
    l->in_wait = f == AN_MPI_WAIT || f == AN_MPI_TEST;
    c = &l->cur;
    c->func = (an_mpi_func_t)f;
    c->enter = ns;
    c->leave = -1;
    c->rank = (int32_t)l->group;
    c->thread = (int32_t)(l->id & (INS_LOC_MAX_PER_RANK - 1));
    c->location = l->id;
    c->root = UINT32_MAX;
    c->site = -1;
    if (l->in_wait)
        return OTF2_CALLBACK_SUCCESS;
    if (al == NULL || OTF2_AttributeList_GetStringRef(al, r->attr[A_CALLSITE], &s) != OTF2_SUCCESS
        || str(r, s) == NULL || OTF2_AttributeList_GetInt64(al, r->attr[A_COUNT], &c->count)
                                != OTF2_SUCCESS
        || (c->algo = attr_str(r, al, A_ALGO)) == NULL
        || (c->fallback = attr_str(r, al, A_FALLBACK)) == NULL
        || (c->dtype = attr_str(r, al, A_DTYPE)) == NULL
        || (c->op = attr_str(r, al, A_MPI_OP)) == NULL)
        return fail(r, "Enter of %s on location %" PRIu64 ": missing one of the attributes %s, "
                    "%s, %s, %s, %s, %s (the trace is damaged)", func_names[f], id,
                    INS_ATTR_CALLSITE, INS_ATTR_ALGO, INS_ATTR_FALLBACK, INS_ATTR_COUNT,
                    INS_ATTR_DTYPE, INS_ATTR_MPI_OP);
    if ((c->site = site_of(r, s)) < 0)
        return fail(r, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

static cm_status_t push_call(mr_t *r, const an_mpi_call_t *c)
{
    an_mpi_trace_t *tr = r->tr;

    if (tr->ncalls == r->cap_calls) {
        int64_t cap = r->cap_calls ? 2 * r->cap_calls : 256;
        an_mpi_call_t *p = realloc(tr->calls, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return CM_ERR_NOMEM;
        tr->calls = p;
        r->cap_calls = cap;
    }
    tr->calls[tr->ncalls++] = *c;
    return CM_OK;
}

/* The comm's index, and the rank's rank in it; -1 if either is unknown. */
static int comm_member(mr_t *r, OTF2_CommRef comm, int32_t rank, int32_t *crank)
{
    for (int i = 0; i < r->tr->ncomms; i++)
        if (r->tr->comms[i].id == comm) {
            for (int32_t k = 0; k < r->tr->comms[i].size; k++)
                if (r->tr->comms[i].world[k] == rank) {
                    *crank = k;
                    return i;
                }
            return -1;
        }
    return -1;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "Leave", &ns);

    (void)al;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || region >= r->nregions || r->region_func[region] != (int)l->cur.func)
        return fail(r, "Leave event on location %" PRIu64 ": region %u was not entered there "
                    "(the trace is damaged)", id, region);
    l->open = 0;
    if (l->in_wait)
        return OTF2_CALLBACK_SUCCESS;       /* its completion, if any, is recorded */
    if (!l->ended)
        return fail(r, "%s on location %" PRIu64 " leaves without its %s (the trace is "
                    "damaged)", func_names[l->cur.func], id,
                    is_nonblocking(l->cur.func) ? "NonBlockingCollectiveRequest"
                                                : "MpiCollectiveEnd");
    if (!is_nonblocking(l->cur.func))
        l->cur.leave = ns;
    if (push_call(r, &l->cur) != CM_OK)
        return fail(r, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

/* The facts of a collective's end (blocking) or completion (nonblocking). */
static OTF2_CallbackCode set_end(mr_t *r, an_mpi_call_t *c, OTF2_CommRef comm, uint32_t root,
                                 uint64_t sent, uint64_t recv, const char *what)
{
    int ci = comm_member(r, comm, c->rank, &c->comm_rank);

    if (ci < 0)
        return fail(r, "%s on location %" PRIu64 ": communicator %u is undefined or does not "
                    "hold rank %d (the trace is damaged)", what, c->location, comm, c->rank);
    c->comm = (uint32_t)ci;
    c->root = root;
    c->sent = sent;
    c->recv = recv;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_end(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                     OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t recv)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "MpiCollectiveEnd", &ns);

    (void)al, (void)op;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || l->in_wait || is_nonblocking(l->cur.func) || l->ended)
        return fail(r, "MpiCollectiveEnd on location %" PRIu64 " outside a blocking "
                    "collective (the trace is damaged)", id);
    l->ended = 1;
    return set_end(r, &l->cur, comm, root, sent, recv, "MpiCollectiveEnd");
}

static OTF2_CallbackCode on_nb_request(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, uint64_t request)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "NonBlockingCollectiveRequest", &ns);

    (void)al;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || !is_nonblocking(l->cur.func) || l->ended)
        return fail(r, "NonBlockingCollectiveRequest on location %" PRIu64 " outside a "
                    "nonblocking collective (the trace is damaged)", id);
    for (int64_t i = r->tr->ncalls - 1; i >= 0; i--) {
        const an_mpi_call_t *c = &r->tr->calls[i];
        if (c->rank == l->cur.rank && c->request == request && c->leave < 0)
            return fail(r, "NonBlockingCollectiveRequest on location %" PRIu64 ": request %"
                        PRIu64 " is already pending (the trace is damaged)", id, request);
    }
    l->ended = 1;
    l->cur.request = request;
    l->cur.comm = UINT32_MAX;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_nb_complete(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                        OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                        OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                        uint64_t recv, uint64_t request)
{
    mr_t *r = ud;
    int64_t ns;
    mr_loc_t *l = event_loc(r, id, t, "NonBlockingCollectiveComplete", &ns);

    (void)al, (void)op;
    if (l == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (!l->open || !l->in_wait)
        return fail(r, "NonBlockingCollectiveComplete on location %" PRIu64 " outside "
                    "MPI_Wait or MPI_Test (the trace is damaged)", id);
    /* the completing call's leave is the call's leave: set when it leaves;
     * the wait's own Leave comes next on this location */
    for (int64_t i = r->tr->ncalls - 1; i >= 0; i--) {
        an_mpi_call_t *c = &r->tr->calls[i];
        if (c->rank == l->cur.rank && c->request == request && c->leave < 0
            && c->comm == UINT32_MAX) {
            c->leave = INT64_MAX;           /* completed; the wait's Leave sets it */
            l->cur.request = request;
            l->cur.op_index = i;
            return set_end(r, c, comm, root, sent, recv, "NonBlockingCollectiveComplete");
        }
    }
    return fail(r, "NonBlockingCollectiveComplete on location %" PRIu64 ": request %" PRIu64
                " was never started on rank %d (the trace is damaged)", id, request,
                l->cur.rank);
}

/* The wait's Leave completes the call it completed (on_leave, first). */
static OTF2_CallbackCode on_leave_wait(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, OTF2_RegionRef region)
{
    mr_t *r = ud;
    mr_loc_t *l = find_loc(r, id);
    int completes = l != NULL && l->open && l->in_wait && l->cur.request != 0;
    int64_t which = completes ? l->cur.op_index : -1;
    OTF2_CallbackCode rc = on_leave(id, t, ud, al, region);

    if (rc == OTF2_CALLBACK_SUCCESS && which >= 0)
        r->tr->calls[which].leave = l->last;
    return rc;
}

static OTF2_CallbackCode on_skip(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                 OTF2_AttributeList *al)
{
    (void)id, (void)t, (void)al;
    ((mr_t *)ud)->nevents++;
    return OTF2_CALLBACK_SUCCESS;
}

/* The algorithm's messages and the rest: counted, skipped. */
static OTF2_CallbackCode skip_p2p(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    (void)peer, (void)comm, (void)tag, (void)len, (void)req;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_req(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint64_t req)
{
    (void)req;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_param_str(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                        OTF2_AttributeList *al, OTF2_ParameterRef p,
                                        OTF2_StringRef v)
{
    (void)p, (void)v;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_flush(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    (void)stop;
    return on_skip(id, t, ud, al);
}

static OTF2_CallbackCode skip_coll_begin(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                         OTF2_AttributeList *al)
{
    return on_skip(id, t, ud, al);
}

static cm_status_t read_events(mr_t *r)
{
    OTF2_GlobalEvtReaderCallbacks *cb = NULL;
    OTF2_GlobalEvtReader *ger = NULL;
    OTF2_ErrorCode rc;
    cm_status_t st = CM_OK;

    if ((rc = OTF2_Reader_OpenEvtFiles(r->rd)) != OTF2_SUCCESS)
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot open the event files: %s",
                         an__read_why(rc));
    /* no reader for a location without events (an_read_events.c says why) */
    for (int i = 0; i < r->nlocs && st == CM_OK; i++)
        if (r->locs[i].events > 0 && OTF2_Reader_GetEvtReader(r->rd, r->locs[i].id) == NULL)
            st = CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events of "
                           "location %" PRIu64 ": %s", r->locs[i].id,
                           an__read_why(OTF2_ERROR_INVALID));
    if (st == CM_OK && ((cb = OTF2_GlobalEvtReaderCallbacks_New()) == NULL
                        || (ger = OTF2_Reader_GetGlobalEvtReader(r->rd)) == NULL))
        st = CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events: %s",
                       an__read_why(OTF2_ERROR_INVALID));
    if (st == CM_OK) {
        OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
        OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave_wait);
        OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, skip_coll_begin);
        OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
        OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_nb_request);
        OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb,
                                                                             on_nb_complete);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, skip_p2p);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, skip_req);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, skip_req);
        OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, skip_p2p);
        OTF2_GlobalEvtReaderCallbacks_SetParameterStringCallback(cb, skip_param_str);
        OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, skip_flush);
        rc = OTF2_Reader_RegisterGlobalEvtCallbacks(r->rd, ger, cb, r);
        if (rc == OTF2_SUCCESS) {
            uint64_t n = 0;
            rc = OTF2_Reader_ReadAllGlobalEvents(r->rd, ger, &n);
        }
        if (r->st != CM_OK)
            st = r->st;
        else if (rc != OTF2_SUCCESS)
            st = CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events (after "
                           "%" PRIu64 "): %s", r->nevents, an__read_why(rc));
    }
    if (st == CM_OK && r->nevents != r->tr->nevents)
        st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "%" PRIu64 " events read, the "
                       "definitions announce %" PRIu64 ": the trace is truncated or damaged",
                       r->nevents, r->tr->nevents);
    for (int i = 0; st == CM_OK && i < r->nlocs; i++)
        if (r->locs[i].open)
            st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "location %" PRIu64
                           " never leaves %s: the trace is truncated", r->locs[i].id,
                           func_names[r->locs[i].cur.func]);
    if (ger != NULL)
        OTF2_Reader_CloseGlobalEvtReader(r->rd, ger);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(r->rd);
    return st;
}

/* ------------------------------------------------------------------ entry */

static cm_status_t open_reader(const char *anchor, OTF2_Reader **rd_p, cm_err_t *err)
{
    cm_status_t st;

    *rd_p = NULL;
    an__read_errors_catch();
    if ((st = an__anchor_check(anchor, err)) != CM_OK)
        return st;
    if ((*rd_p = OTF2_Reader_Open(anchor)) == NULL)
        return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, "not an OTF2 archive: %s",
                         an__read_why(OTF2_ERROR_INVALID));
    if (OTF2_Reader_SetSerialCollectiveCallbacks(*rd_p) != OTF2_SUCCESS) {
        OTF2_Reader_Close(*rd_p);
        *rd_p = NULL;
        return CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0, "cannot set up the OTF2 reader: %s",
                         an__read_why(OTF2_ERROR_INVALID));
    }
    return CM_OK;
}

int an_mpi_is_archive(const char *anchor)
{
    OTF2_Reader *rd;
    cm_err_t err;
    char *v = NULL;
    int yes;

    cm_err_clear(&err);
    if (open_reader(anchor, &rd, &err) != CM_OK)
        return 0;
    yes = OTF2_Reader_GetProperty(rd, INS_PROP_KIND, &v) == OTF2_SUCCESS && v != NULL
          && strcmp(v, INS_KIND_MPI) == 0;
    free(v);
    OTF2_Reader_Close(rd);
    return yes;
}

cm_status_t an_mpi_read(const char *anchor, an_mpi_trace_t *tr, cm_err_t *err)
{
    mr_t r = { .tr = tr, .anchor = anchor, .err = err };
    cm_status_t st;

    memset(tr, 0, sizeof(*tr));
    if ((st = open_reader(anchor, &r.rd, err)) == CM_OK && (st = read_defs(&r)) == CM_OK)
        st = read_events(&r);
    for (int64_t i = 0; st == CM_OK && i < tr->ncalls; i++)
        if (tr->calls[i].comm == UINT32_MAX)    /* never completed: no communicator known */
            st = CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, "rank %d: %s request %" PRIu64
                           " never completed (no MPI_Wait or MPI_Test recorded it): the trace "
                           "is truncated", tr->calls[i].rank, func_names[tr->calls[i].func],
                           tr->calls[i].request);
    if (r.rd != NULL)
        OTF2_Reader_Close(r.rd);
    for (int i = 0; i < r.ngroups; i++)
        free(r.groups[i].members);
    free(r.groups);
    free(r.cdefs);
    free(r.locs);
    free(r.region_func);
    free(r.site_of_string);
    return st;
}

void an_mpi_trace_free(an_mpi_trace_t *tr)
{
    for (int i = 0; i < tr->ncomms; i++) {
        free(tr->comms[i].name);
        free(tr->comms[i].world);
    }
    for (int i = 0; i < tr->nsites; i++) {
        an_mpi_site_t *s = &tr->sites[i];
        free(s->name), free(s->module), free(s->function), free(s->file), free(s->label);
    }
    for (uint32_t i = 0; i < tr->nstrings; i++)
        free(tr->strings[i]);
    free(tr->strings);
    free(tr->comms);
    free(tr->sites);
    free(tr->calls);
    free(tr->ops);
    free(tr->command), free(tr->rules), free(tr->clock), free(tr->version);
    memset(tr, 0, sizeof(*tr));
}
