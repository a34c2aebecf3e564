/*
 * an_read.c - reads a paptree OTF2 archive: definitions into an_defs_t, then
 * events into wrapper visits.
 *
 * The conventions are those of docs/trace-format.md (names from
 * instrument/api/ins_schema.h).  Anything that breaks them is an error that
 * names the record: papanalyze never guesses.
 *
 * Events are read with OTF2's global event reader, which merges the
 * locations in timestamp order after applying each location's ClockOffset
 * records, so hosts share one time line and the operations in flight at any
 * moment are few (what keeps an_ops.c's memory bounded).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <otf2/otf2.h>

#include "analyze/an_int.h"
#include "instrument/api/ins_schema.h"

#define AN_MAX_REFS   (1u << 24)   /* definitions per kind we accept */

typedef struct rd_region {
    uint32_t self, name, canon, desc, file, line;
} rd_region_t;

typedef struct rd_loc {
    uint64_t self, events;
    uint32_t name, group;
    int      type;
} rd_loc_t;

typedef struct rd_prop {
    uint64_t            owner;
    uint32_t            name;
    OTF2_Type           type;
    OTF2_AttributeValue value;
} rd_prop_t;

typedef struct rd_vec {
    void  *data;
    size_t n, cap, size;
} rd_vec_t;

/* One open visit on a location's stack. */
typedef struct rd_frame {
    int      instance, node, contrib;
    uint64_t op, bytes;
    int64_t  t1;
    int      nested;
} rd_frame_t;

typedef struct rd_locstate {
    rd_frame_t *stack;
    int         depth;
    int64_t     last;         /* last timestamp (ns), for the order check */
} rd_locstate_t;

struct an_reader {
    OTF2_Reader   *rd;
    an_defs_t     *defs;
    const char    *anchor;
    cm_err_t      *err;
    cm_status_t    st;        /* first error inside a callback */
    /* raw global definitions */
    char         **strings;
    uint32_t       nstrings;
    rd_vec_t       regions, locs, loc_props, group_props, stn_props, stn_parent;
    uint32_t       attr_op, attr_bytes;
    int            nclock, nattr;
    /* events */
    rd_locstate_t *ls;
    int            have_base;
    uint64_t       base;      /* corrected ticks of the first event */
    double         ns_per_tick;
    uint64_t       nevents;
    an_visit_fn   *fn;
    void          *ud;
    int            last_loc;  /* lookup cache */
};

/* OTF2 prints its errors to stderr by default; keep the first for our message. */
static char otf2_msg[256];

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function;
    if (otf2_msg[0] == '\0')
        vsnprintf(otf2_msg, sizeof(otf2_msg), fmt, va);
    return code;
}

static const char *otf2_why(OTF2_ErrorCode rc)
{
    static char buf[384];

    snprintf(buf, sizeof(buf), "%s%s%s", OTF2_Error_GetDescription(rc),
             otf2_msg[0] ? ": " : "", otf2_msg);
    return buf;
}

static void *vec_push(rd_vec_t *v)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        void *p = realloc(v->data, cap * v->size);
        if (p == NULL)
            return NULL;
        v->data = p;
        v->cap = cap;
    }
    return (char *)v->data + v->size * v->n++;
}

static char *str_dup(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/* Records the first error of a callback; returns the code that stops OTF2. */
static OTF2_CallbackCode cb_fail(an_reader_t *r, cm_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static OTF2_CallbackCode cb_fail(an_reader_t *r, cm_status_t st, const char *fmt, ...)
{
    if (r->st == CM_OK) {
        char msg[CM_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        r->st = CM_ERR_AT(r->err, st, r->anchor, 0, 0, "%s", msg);
    }
    return OTF2_CALLBACK_INTERRUPT;
}

#define PUSH_OR_FAIL(r, vec, type, ...)                                      \
    do {                                                                     \
        type *p_ = vec_push(&(r)->vec);                                      \
        if (p_ == NULL)                                                      \
            return cb_fail((r), CM_ERR_NOMEM, "out of memory");              \
        *p_ = (type){ __VA_ARGS__ };                                         \
    } while (0)

/* --------------------------------------------------- global definitions */

static OTF2_CallbackCode on_clock(void *ud, uint64_t res, uint64_t off, uint64_t len,
                                  uint64_t realtime)
{
    an_reader_t *r = ud;

    (void)realtime;
    r->nclock++;
    r->defs->resolution = res;
    r->defs->global_offset = off;
    r->defs->trace_length = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    an_reader_t *r = ud;

    if (self >= AN_MAX_REFS)
        return cb_fail(r, CM_ERR_RANGE, "string definition %u: too many strings", self);
    if (self >= r->nstrings) {
        uint32_t n = self + 1 > 2 * r->nstrings ? self + 1 : 2 * r->nstrings;
        char **p = realloc(r->strings, n * sizeof(*p));
        if (p == NULL)
            return cb_fail(r, CM_ERR_NOMEM, "out of memory");
        memset(p + r->nstrings, 0, (n - r->nstrings) * sizeof(*p));
        r->strings = p;
        r->nstrings = n;
    }
    free(r->strings[self]);
    if ((r->strings[self] = strdup(s)) == NULL)
        return cb_fail(r, CM_ERR_NOMEM, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

static const char *str_of(const an_reader_t *r, uint32_t ref)
{
    return ref < r->nstrings ? r->strings[ref] : NULL;
}

static OTF2_CallbackCode on_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                 OTF2_StringRef desc, OTF2_Type type)
{
    an_reader_t *r = ud;
    const char *s = str_of(r, name);

    (void)desc;
    r->nattr++;
    if (s != NULL && strcmp(s, INS_ATTR_OP) == 0 && type == OTF2_TYPE_UINT64)
        r->attr_op = self;
    else if (s != NULL && strcmp(s, INS_ATTR_BYTES) == 0 && type == OTF2_TYPE_UINT64)
        r->attr_bytes = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canon, OTF2_StringRef desc,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file,
                                   uint32_t begin, uint32_t end)
{
    an_reader_t *r = ud;

    (void)role, (void)paradigm, (void)flags, (void)end;
    PUSH_OR_FAIL(r, regions, rd_region_t, self, name, canon, desc, file, begin);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    (void)ud, (void)self, (void)name, (void)cls, (void)parent;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef stn,
                                  OTF2_LocationGroupRef creator)
{
    an_reader_t *r = ud;

    (void)name, (void)type, (void)creator;
    /* group (= rank) -> its system tree node, for the host name */
    PUSH_OR_FAIL(r, stn_parent, rd_prop_t, self, stn, OTF2_TYPE_NONE, { .uint64 = 0 });
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, locs, rd_loc_t, self, events, name, group, (int)type);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn_prop(void *ud, OTF2_SystemTreeNodeRef owner,
                                     OTF2_StringRef name, OTF2_Type type,
                                     OTF2_AttributeValue value)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, stn_props, rd_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group_prop(void *ud, OTF2_LocationGroupRef owner,
                                       OTF2_StringRef name, OTF2_Type type,
                                       OTF2_AttributeValue value)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, group_props, rd_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_loc_prop(void *ud, OTF2_LocationRef owner, OTF2_StringRef name,
                                     OTF2_Type type, OTF2_AttributeValue value)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, loc_props, rd_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

/* The property `name` of owner in props, or NULL. */
static const rd_prop_t *prop_find(const an_reader_t *r, const rd_vec_t *props, uint64_t owner,
                                  const char *name)
{
    const rd_prop_t *p = props->data;

    for (size_t i = 0; i < props->n; i++) {
        const char *s = str_of(r, p[i].name);
        if (p[i].owner == owner && s != NULL && strcmp(s, name) == 0)
            return &p[i];
    }
    return NULL;
}

static const char *prop_str(const an_reader_t *r, const rd_vec_t *props, uint64_t owner,
                            const char *name)
{
    const rd_prop_t *p = prop_find(r, props, owner, name);

    return p != NULL && p->type == OTF2_TYPE_STRING ? str_of(r, p->value.stringRef) : NULL;
}

/* 1 and *v if owner has the uint64 property name. */
static int prop_u64(const an_reader_t *r, const rd_vec_t *props, uint64_t owner,
                    const char *name, uint64_t *v)
{
    const rd_prop_t *p = prop_find(r, props, owner, name);

    if (p == NULL || p->type != OTF2_TYPE_UINT64)
        return 0;
    *v = p->value.uint64;
    return 1;
}

static cm_status_t read_global_defs(an_reader_t *r)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r->rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_ErrorCode rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    uint64_t n = 0;

    if (gdr != NULL && cb != NULL) {
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
        OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attr);
        OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
        OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_stn);
        OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback(cb, on_stn_prop);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, on_group_prop);
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
        OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, on_loc_prop);
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
                         "cannot read the global definitions: %s", otf2_why(rc));
    return CM_OK;
}

/* ------------------------------------------------- paptree conventions */

static cm_status_t get_prop(an_reader_t *r, const char *name, char **out)
{
    char *v = NULL;

    if (OTF2_Reader_GetProperty(r->rd, name, &v) != OTF2_SUCCESS || v == NULL)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "archive property %s missing: the trace is damaged", name);
    *out = v;
    return CM_OK;
}

static cm_status_t parse_count(an_reader_t *r, const char *prop, const char *s, int max,
                               int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "archive property %s: expected a number in 1..%d, got '%s'",
                         prop, max, s);
    *out = (int)v;
    return CM_OK;
}

/* The archive properties; the first check tells a foreign trace from ours. */
static cm_status_t read_props(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    char *v = NULL;
    cm_status_t st;

    if (OTF2_Reader_GetProperty(r->rd, INS_PROP_VERSION, &v) != OTF2_SUCCESS || v == NULL)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "not a paptree trace: no %s property (written by another tool?)",
                         INS_PROP_VERSION);
    d->trace_version = v;
    if (strcmp(v, INS_SCHEMA_VERSION) != 0)
        return CM_ERR_AT(r->err, CM_ERR_UNSUPPORTED, r->anchor, 0, 0,
                         "paptree trace schema version %s: this papanalyze reads version %s",
                         v, INS_SCHEMA_VERSION);
    if ((st = get_prop(r, INS_PROP_PATHMAP, &d->pathmap)) != CM_OK
        || (st = get_prop(r, INS_PROP_PATHMAP_PATH, &d->pathmap_path)) != CM_OK
        || (st = get_prop(r, INS_PROP_PATHMAP_HASH, &d->pathmap_hash)) != CM_OK
        || (st = get_prop(r, INS_PROP_TREE, &d->tree)) != CM_OK
        || (st = get_prop(r, INS_PROP_CLOCK, &d->clock)) != CM_OK
        || (st = get_prop(r, INS_PROP_COMMAND, &d->command)) != CM_OK)
        return st;
    if ((st = get_prop(r, INS_PROP_INSTANCES, &v)) != CM_OK)
        return st;
    st = parse_count(r, INS_PROP_INSTANCES, v, 1 << 16, &d->ninstances);
    free(v);
    if (st != CM_OK)
        return st;
    if ((st = get_prop(r, INS_PROP_HOSTS, &v)) != CM_OK)
        return st;
    st = parse_count(r, INS_PROP_HOSTS, v, 1 << 15, &d->nhosts);
    free(v);
    return st;
}

/* Value of `key=` in a region description, copied into buf; NULL if absent. */
static const char *desc_get(const char *desc, const char *key, char *buf, size_t n)
{
    size_t klen = strlen(key);

    for (const char *p = desc; p != NULL && *p; ) {
        const char *end = strchr(p, ' ');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            len -= klen + 1;
            if (len >= n)
                return NULL;
            memcpy(buf, p + klen + 1, len);
            buf[len] = '\0';
            return buf;
        }
        p = end != NULL ? end + 1 : NULL;
    }
    return NULL;
}

static int desc_int(const char *desc, const char *key, long max, long *out)
{
    char buf[32], *end;
    const char *s = desc_get(desc, key, buf, sizeof(buf));
    long v;

    if (s == NULL || *s == '\0')
        return 0;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0 || v > max)
        return 0;
    *out = v;
    return 1;
}

static int host_by_name(const an_defs_t *d, const char *name)
{
    for (int h = 0; h < d->nhosts; h++)
        if (d->hosts[h].name != NULL && strcmp(d->hosts[h].name, name) == 0)
            return h;
    return -1;
}

static cm_status_t read_hosts(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    const rd_prop_t *sp = r->stn_parent.data;

    if ((d->hosts = calloc((size_t)d->nhosts, sizeof(*d->hosts))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int h = 0; h < d->nhosts; h++) {
        const char *name = prop_str(r, &r->group_props, (uint64_t)h, INS_LG_PROP_HOST);
        const char *hn = NULL;
        if (name == NULL)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location group %d: no %s property: the trace is damaged",
                             h, INS_LG_PROP_HOST);
        for (size_t i = 0; i < r->stn_parent.n; i++)
            if (sp[i].owner == (uint64_t)h)
                hn = prop_str(r, &r->stn_props, sp[i].name, INS_STN_PROP_HOSTNAME);
        d->hosts[h].name = str_dup(name);
        d->hosts[h].hostname = str_dup(hn != NULL ? hn : "");
        if (d->hosts[h].name == NULL || d->hosts[h].hostname == NULL)
            return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    }
    return CM_OK;
}

/* Regions of instance 0 define the wrappers; the others must agree. */
static cm_status_t read_regions(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    const rd_region_t *rg = r->regions.data;
    size_t nreg = r->regions.n;
    char kind[16], host[80], parent[80], tree[80];
    long node, inst, fanin;

    if (nreg == 0 || nreg % (size_t)d->ninstances != 0)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "%zu regions for %d tree instances: the trace is damaged",
                         nreg, d->ninstances);
    d->nnodes = (int)(nreg / (size_t)d->ninstances);
    if ((d->nodes = calloc((size_t)d->nnodes, sizeof(*d->nodes))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nnodes; i++)
        d->nodes[i].parent = -2;          /* not defined yet */
    /* pass 1: names and kinds; pass 2: parents (by name) */
    for (int pass = 1; pass <= 2; pass++) {
        for (size_t i = 0; i < nreg; i++) {
            const char *desc = str_of(r, rg[i].desc), *name = str_of(r, rg[i].name);
            an_wrapper_t *w;
            if (desc == NULL || name == NULL
                || !desc_get(desc, INS_KEY_KIND, kind, sizeof(kind))
                || !desc_get(desc, INS_KEY_HOST, host, sizeof(host))
                || !desc_get(desc, INS_KEY_PARENT, parent, sizeof(parent))
                || !desc_get(desc, INS_KEY_TREE, tree, sizeof(tree))
                || !desc_int(desc, INS_KEY_NODE, d->nnodes - 1, &node)
                || !desc_int(desc, INS_KEY_INSTANCE, d->ninstances - 1, &inst)
                || !desc_int(desc, INS_KEY_FANIN, 1 << 20, &fanin)
                || rg[i].self != (uint32_t)(inst * d->nnodes + node))
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "region %u ('%s'): description '%s' does not follow the "
                                 "paptree conventions", rg[i].self, name ? name : "?",
                                 desc ? desc : "?");
            w = &d->nodes[node];
            if (pass == 1 && inst == 0) {
                w->name = strdup(name);
                if (w->name == NULL)
                    return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
                w->kind = strcmp(kind, "gred") == 0 ? AN_GRED
                        : strcmp(kind, "proxy") == 0 ? AN_PROXY : AN_CORE;
                if (w->kind == AN_CORE && strcmp(kind, "core") != 0)
                    return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                     "region %u: unknown wrapper kind '%s'", rg[i].self, kind);
                w->host = host_by_name(d, host);
                w->fanin = (int)fanin;
                w->line = (int)rg[i].line;
                if (w->host < 0)
                    return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                     "region %u: unknown host '%s'", rg[i].self, host);
            } else if (pass == 2 && inst == 0) {
                w->parent = strcmp(parent, INS_NO_PARENT) == 0 ? -1
                          : an_defs_node_index(d, parent);
                if (w->parent == -2 || (w->parent == -1) != (w->kind == AN_CORE)) {
                    return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                     "region %u: parent '%s' is not a wrapper of the tree",
                                     rg[i].self, parent);
                }
            } else if (pass == 2 && (w->name == NULL || strcmp(w->name, name) != 0
                                     || w->fanin != fanin)) {
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "region %u: instance %ld of wrapper %ld differs from "
                                 "instance 0", rg[i].self, inst, node);
            }
        }
    }
    for (int i = 0; i < d->nnodes; i++)
        if (d->nodes[i].name == NULL)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "no region for wrapper %d of instance 0", i);
    return CM_OK;
}

static int loc_cmp(const void *a, const void *b)
{
    uint64_t x = ((const an_location_t *)a)->id, y = ((const an_location_t *)b)->id;

    return (x > y) - (x < y);
}

static cm_status_t read_locations(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    const rd_loc_t *rl = r->locs.data;
    int nthreads = 0;

    if (r->locs.n == 0 || r->locs.n > 1u << 20)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "%zu locations: the trace is damaged", r->locs.n);
    d->nlocs = (int)r->locs.n;
    if ((d->locs = calloc((size_t)d->nlocs, sizeof(*d->locs))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nlocs; i++) {
        an_location_t *l = &d->locs[i];
        const char *role = prop_str(r, &r->loc_props, rl[i].self, INS_LOC_PROP_ROLE);
        const char *enter = prop_str(r, &r->loc_props, rl[i].self, INS_LOC_PROP_ENTER);
        const char *name = str_of(r, rl[i].name);
        uint64_t v;

        l->id = rl[i].self;
        l->events = rl[i].events;
        d->nevents += rl[i].events;
        l->host = (int)rl[i].group;
        l->thread = l->proxy = l->instance = -1;
        l->name = str_dup(name != NULL ? name : "?");
        if (l->name == NULL)
            return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
        if (rl[i].group >= (uint32_t)d->nhosts || role == NULL || enter == NULL
            || (l->enter = an_defs_node_index(d, enter)) < 0)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location %" PRIu64 " ('%s'): no valid host, %s or %s",
                             l->id, l->name, INS_LOC_PROP_ROLE, INS_LOC_PROP_ENTER);
        if (prop_u64(r, &r->loc_props, l->id, INS_LOC_PROP_FLUSHES, &v))
            l->flushes = v;
        if (strcmp(role, INS_ROLE_COMPUTE) == 0) {
            l->role = AN_ROLE_COMPUTE;
            if (!prop_u64(r, &r->loc_props, l->id, INS_LOC_PROP_THREAD, &v) || v > 1u << 30)
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "location '%s': no %s property", l->name,
                                 INS_LOC_PROP_THREAD);
            l->thread = (int)v;       /* the pathmap id for now; an index below */
            nthreads++;
        } else if (strcmp(role, INS_ROLE_SERVICE) == 0) {
            const char *proxy = prop_str(r, &r->loc_props, l->id, INS_LOC_PROP_PROXY);
            l->role = AN_ROLE_SERVICE;
            if (proxy == NULL || (l->proxy = an_defs_node_index(d, proxy)) < 0
                || d->nodes[l->proxy].kind != AN_PROXY
                || d->nodes[l->proxy].parent != l->enter
                || !prop_u64(r, &r->loc_props, l->id, INS_LOC_PROP_INSTANCE, &v)
                || v >= (uint64_t)d->ninstances)
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "service location '%s': no valid %s/%s", l->name,
                                 INS_LOC_PROP_PROXY, INS_LOC_PROP_INSTANCE);
            l->instance = (int)v;
        } else {
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location '%s': unknown role '%s'", l->name, role);
        }
    }
    qsort(d->locs, (size_t)d->nlocs, sizeof(*d->locs), loc_cmp);
    for (int i = 1; i < d->nlocs; i++)
        if (d->locs[i].id == d->locs[i - 1].id)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location %" PRIu64 " defined twice", d->locs[i].id);
    d->nthreads = nthreads;
    if ((d->threads = calloc((size_t)nthreads + 1, sizeof(*d->threads))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    nthreads = 0;
    for (int i = 0; i < d->nlocs; i++) {
        an_location_t *l = &d->locs[i];
        if (l->role == AN_ROLE_COMPUTE) {
            d->threads[nthreads] = (an_thread_t){ .id = l->thread, .host = l->host,
                                                  .loc = i, .enter = l->enter };
            nthreads++;
        }
    }
    return CM_OK;
}

/* ----------------------------------------------- local definitions: clocks */

typedef struct rd_offsets {
    int      n;
    uint64_t time[2];
    int64_t  offset[2];
    double   sd[2];
} rd_offsets_t;

static OTF2_CallbackCode on_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    rd_offsets_t *o = ud;

    if (o->n < 2) {
        o->time[o->n] = time;
        o->offset[o->n] = offset;
        o->sd[o->n] = sd;
    }
    o->n++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Host offsets from the first location of each host (all of a host's agree). */
static cm_status_t read_local_defs(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
    OTF2_ErrorCode rc = cb != NULL ? OTF2_Reader_OpenDefFiles(r->rd) : OTF2_ERROR_MEM_ALLOC_FAILED;
    double ns = 1e9 / (double)d->resolution;

    if (rc != OTF2_SUCCESS) {
        OTF2_DefReaderCallbacks_Delete(cb);
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot open the local definition files: %s", otf2_why(rc));
    }
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_offset);
    for (int i = 0; i < d->nlocs && rc == OTF2_SUCCESS; i++) {
        an_location_t *l = &d->locs[i];
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r->rd, l->id);
        rd_offsets_t o = { 0 };
        uint64_t n = 0;
        an_host_t *h = &d->hosts[l->host];

        /* Every location needs its definitions read for OTF2 to apply offsets. */
        if (dr == NULL)
            continue;
        rc = OTF2_Reader_RegisterDefCallbacks(r->rd, dr, cb, &o);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllLocalDefinitions(r->rd, dr, &n);
        OTF2_Reader_CloseDefReader(r->rd, dr);
        if (rc == OTF2_SUCCESS && o.n >= 1 && !h->have_offset) {
            h->have_offset = 1;
            h->offset_ns = (double)o.offset[0] * ns;
            h->error_ns = o.sd[0] * ns;
            if (o.n >= 2 && o.time[1] > o.time[0])
                h->drift_ppm = (double)(o.offset[1] - o.offset[0])
                               / (double)(o.time[1] - o.time[0]) * 1e6;
        }
    }
    OTF2_Reader_CloseDefFiles(r->rd);
    OTF2_DefReaderCallbacks_Delete(cb);
    if (rc != OTF2_SUCCESS)
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot read the local definitions: %s", otf2_why(rc));
    return CM_OK;
}

/* ---------------------------------------------------------------- open */

static cm_status_t read_defs(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    cm_status_t st;

    if ((st = read_global_defs(r)) != CM_OK || (st = read_props(r)) != CM_OK)
        return st;
    if (r->nclock != 1 || d->resolution == 0)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "no clock properties: the trace is damaged");
    if (r->attr_op == UINT32_MAX || r->attr_bytes == UINT32_MAX)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "attributes %s and %s not defined: the trace is damaged",
                         INS_ATTR_OP, INS_ATTR_BYTES);
    if ((st = read_hosts(r)) != CM_OK || (st = read_regions(r)) != CM_OK
        || (st = read_locations(r)) != CM_OK || (st = an_defs_finish(d, r->anchor, r->err)) != CM_OK)
        return st;
    for (int i = 0; i < d->nlocs; i++)
        OTF2_Reader_SelectLocation(r->rd, d->locs[i].id);
    return read_local_defs(r);
}

cm_status_t an_reader_open(const char *anchor, an_defs_t *defs, an_reader_t **out,
                           cm_err_t *err)
{
    an_reader_t *r;
    struct stat sb;
    cm_status_t st;

    *out = NULL;
    memset(defs, 0, sizeof(*defs));
    if (stat(anchor, &sb) != 0)
        return CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0, "cannot open: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0,
                         "not a file: give the archive's anchor file, DIR/%s",
                         INS_ANCHOR_FILE);
    if ((r = calloc(1, sizeof(*r))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    r->defs = defs;
    r->anchor = anchor;
    r->err = err;
    r->attr_op = r->attr_bytes = UINT32_MAX;
    r->last_loc = 0;
    r->regions.size = sizeof(rd_region_t);
    r->locs.size = sizeof(rd_loc_t);
    r->loc_props.size = r->group_props.size = r->stn_props.size = r->stn_parent.size =
        sizeof(rd_prop_t);
    otf2_msg[0] = '\0';
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    r->rd = OTF2_Reader_Open(anchor);
    if (r->rd == NULL) {
        st = CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, "not an OTF2 archive%s%s",
                       otf2_msg[0] ? ": " : "", otf2_msg);
    } else if (OTF2_Reader_SetSerialCollectiveCallbacks(r->rd) != OTF2_SUCCESS) {
        st = CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0, "cannot set up the OTF2 reader: %s",
                       otf2_why(OTF2_ERROR_INVALID));
    } else {
        st = read_defs(r);
    }
    if (st != CM_OK) {
        an_reader_close(r);
        an_defs_free(defs);
        return st;
    }
    *out = r;
    return CM_OK;
}

/* -------------------------------------------------------------- events */

static int loc_of(an_reader_t *r, OTF2_LocationRef id)
{
    if (r->defs->locs[r->last_loc].id != id) {
        int i = an_defs_loc_index(r->defs, id);
        if (i < 0)
            return -1;
        r->last_loc = i;
    }
    return r->last_loc;
}

static int64_t to_ns(an_reader_t *r, OTF2_TimeStamp t)
{
    if (!r->have_base) {
        r->have_base = 1;
        r->base = t;
    }
    return (int64_t)llround((double)(int64_t)(t - r->base) * r->ns_per_tick);
}

/* The event's location, op and bytes, after the checks common to both kinds. */
static int event_begin(an_reader_t *r, OTF2_LocationRef id, OTF2_TimeStamp t,
                       OTF2_AttributeList *al, OTF2_RegionRef region, const char *what,
                       int *li, int64_t *ns, uint64_t *op, uint64_t *bytes)
{
    an_defs_t *d = r->defs;

    r->nevents++;
    if ((*li = loc_of(r, id)) < 0) {
        cb_fail(r, CM_ERR_INVALID, "%s event on undefined location %" PRIu64, what, id);
        return 0;
    }
    if (region >= (uint32_t)(d->nnodes * d->ninstances)) {
        cb_fail(r, CM_ERR_INVALID, "%s event on '%s': undefined region %u", what,
                d->locs[*li].name, region);
        return 0;
    }
    if (al == NULL || OTF2_AttributeList_GetUint64(al, r->attr_op, op) != OTF2_SUCCESS
        || OTF2_AttributeList_GetUint64(al, r->attr_bytes, bytes) != OTF2_SUCCESS) {
        cb_fail(r, CM_ERR_INVALID, "%s event on '%s': no %s/%s attribute", what,
                d->locs[*li].name, INS_ATTR_OP, INS_ATTR_BYTES);
        return 0;
    }
    *ns = to_ns(r, t);
    if (*ns < r->ls[*li].last) {
        cb_fail(r, CM_ERR_INVALID, "%s event on '%s': time goes backwards", what,
                d->locs[*li].name);
        return 0;
    }
    r->ls[*li].last = *ns;
    return 1;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    an_reader_t *r = ud;
    an_defs_t *d = r->defs;
    int li, node = (int)(region % (uint32_t)d->nnodes), inst = (int)(region / (uint32_t)d->nnodes);
    int64_t ns;
    uint64_t op, bytes;
    rd_locstate_t *s;
    an_location_t *l;
    int contrib;

    if (!event_begin(r, id, t, al, region, "Enter", &li, &ns, &op, &bytes))
        return OTF2_CALLBACK_INTERRUPT;
    s = &r->ls[li];
    l = &d->locs[li];
    if (s->depth == 0) {
        /* outermost: a thread at its entry wrapper, or a service thread at the proxy's parent */
        if (node != l->enter || (l->role == AN_ROLE_SERVICE && inst != l->instance))
            return cb_fail(r, CM_ERR_INVALID, "'%s' enters %s#%d op %" PRIu64 ": it enters "
                           "%s%s", l->name, d->nodes[node].name, inst, op,
                           d->nodes[l->enter].name, l->role == AN_ROLE_SERVICE ? " of its instance" : "");
        contrib = l->role == AN_ROLE_COMPUTE ? d->threads[l->thread].contrib[0]
                                             : d->nodes[l->proxy].pslot;
    } else {
        rd_frame_t *f = &s->stack[s->depth - 1];
        if (d->nodes[f->node].parent != node || f->instance != inst || f->op != op
            || f->bytes != bytes || f->nested)
            return cb_fail(r, CM_ERR_INVALID, "'%s' enters %s#%d op %" PRIu64 " inside %s#%d "
                           "op %" PRIu64 ": not the next wrapper of that visit", l->name,
                           d->nodes[node].name, inst, op, d->nodes[f->node].name,
                           f->instance, f->op);
        f->nested = 1;
        contrib = d->nodes[f->node].pslot;
    }
    if (s->depth > d->maxsteps)
        return cb_fail(r, CM_ERR_INVALID, "'%s': visits nested too deep", l->name);
    s->stack[s->depth++] = (rd_frame_t){ inst, node, contrib, op, bytes, ns, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    an_reader_t *r = ud;
    an_defs_t *d = r->defs;
    int li, node = (int)(region % (uint32_t)d->nnodes), inst = (int)(region / (uint32_t)d->nnodes);
    int64_t ns;
    uint64_t op, bytes;
    rd_locstate_t *s;
    rd_frame_t *f;
    an_visit_t v;
    cm_status_t st;

    if (!event_begin(r, id, t, al, region, "Leave", &li, &ns, &op, &bytes))
        return OTF2_CALLBACK_INTERRUPT;
    s = &r->ls[li];
    if (s->depth == 0)
        return cb_fail(r, CM_ERR_INVALID, "'%s' leaves %s#%d op %" PRIu64 " without entering "
                       "it", d->locs[li].name, d->nodes[node].name, inst, op);
    f = &s->stack[--s->depth];
    if (f->node != node || f->instance != inst || f->op != op || f->bytes != bytes)
        return cb_fail(r, CM_ERR_INVALID, "'%s' leaves %s#%d op %" PRIu64 " inside %s#%d op %"
                       PRIu64, d->locs[li].name, d->nodes[node].name, inst, op,
                       d->nodes[f->node].name, f->instance, f->op);
    v = (an_visit_t){ inst, node, f->contrib, li, op, bytes, f->t1, ns };
    d->locs[li].visits++;
    if ((st = r->fn(r->ud, &v, r->err)) != CM_OK) {
        r->st = st;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_other(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al)
{
    (void)t, (void)al;
    return cb_fail(ud, CM_ERR_INVALID, "location %" PRIu64 ": an event other than Enter or "
                   "Leave", id);
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    (void)stop;
    return on_other(id, t, ud, al);
}

cm_status_t an_reader_run(an_reader_t *r, an_visit_fn *fn, void *ud,
                          void (*progress)(void *ud, uint64_t events), cm_err_t *err)
{
    an_defs_t *d = r->defs;
    OTF2_GlobalEvtReaderCallbacks *cb = NULL;
    OTF2_GlobalEvtReader *ger = NULL;
    OTF2_ErrorCode rc;
    cm_status_t st = CM_OK;

    r->err = err;
    r->fn = fn;
    r->ud = ud;
    r->ns_per_tick = 1e9 / (double)d->resolution;
    if ((r->ls = calloc((size_t)d->nlocs, sizeof(*r->ls))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nlocs; i++) {
        r->ls[i].last = INT64_MIN;
        if ((r->ls[i].stack = calloc((size_t)d->maxsteps + 1, sizeof(rd_frame_t))) == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    if ((rc = OTF2_Reader_OpenEvtFiles(r->rd)) != OTF2_SUCCESS)
        return CM_ERR_AT(err, CM_ERR_IO, r->anchor, 0, 0, "cannot open the event files: %s",
                         otf2_why(rc));
    for (int i = 0; i < d->nlocs; i++)
        if (OTF2_Reader_GetEvtReader(r->rd, d->locs[i].id) == NULL)
            st = CM_ERR_AT(err, CM_ERR_IO, r->anchor, 0, 0,
                           "cannot read the events of '%s': %s", d->locs[i].name,
                           otf2_why(OTF2_ERROR_INVALID));
    if (st == CM_OK && ((cb = OTF2_GlobalEvtReaderCallbacks_New()) == NULL
                        || (ger = OTF2_Reader_GetGlobalEvtReader(r->rd)) == NULL))
        st = CM_ERR_AT(err, CM_ERR_IO, r->anchor, 0, 0, "cannot read the events: %s",
                       otf2_why(OTF2_ERROR_INVALID));
    if (st == CM_OK) {
        OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
        OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
        OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, on_flush);
        OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(cb, on_other);
        rc = OTF2_Reader_RegisterGlobalEvtCallbacks(r->rd, ger, cb, r);
        while (rc == OTF2_SUCCESS) {
            uint64_t n = 0;
            rc = OTF2_Reader_ReadGlobalEvents(r->rd, ger, 1u << 18, &n);
            if (progress != NULL)
                progress(ud, r->nevents);
            if (n < 1u << 18)
                break;
        }
        if (r->st != CM_OK)
            st = r->st;
        else if (rc != OTF2_SUCCESS)
            st = CM_ERR_AT(err, CM_ERR_IO, r->anchor, 0, 0,
                           "cannot read the events (after %" PRIu64 "): %s", r->nevents,
                           otf2_why(rc));
    }
    if (st == CM_OK && r->nevents != d->nevents)
        st = CM_ERR_AT(err, CM_ERR_INVALID, r->anchor, 0, 0,
                       "%" PRIu64 " events read, the definitions announce %" PRIu64
                       ": the trace is truncated or damaged", r->nevents, d->nevents);
    for (int i = 0; st == CM_OK && i < d->nlocs; i++)
        if (r->ls[i].depth != 0)
            st = CM_ERR_AT(err, CM_ERR_INVALID, r->anchor, 0, 0,
                           "'%s' never leaves %s#%d op %" PRIu64 ": the trace is truncated",
                           d->locs[i].name, d->nodes[r->ls[i].stack[r->ls[i].depth - 1].node].name,
                           r->ls[i].stack[r->ls[i].depth - 1].instance,
                           r->ls[i].stack[r->ls[i].depth - 1].op);
    if (ger != NULL)
        OTF2_Reader_CloseGlobalEvtReader(r->rd, ger);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(r->rd);
    return st;
}

void an_reader_close(an_reader_t *r)
{
    if (r == NULL)
        return;
    if (r->rd != NULL)
        OTF2_Reader_Close(r->rd);
    for (uint32_t i = 0; i < r->nstrings; i++)
        free(r->strings[i]);
    free(r->strings);
    free(r->regions.data);
    free(r->locs.data);
    free(r->loc_props.data);
    free(r->group_props.data);
    free(r->stn_props.data);
    free(r->stn_parent.data);
    if (r->ls != NULL)
        for (int i = 0; i < r->defs->nlocs; i++)
            free(r->ls[i].stack);
    free(r->ls);
    free(r);
}
