/*
 * trace_check - an independent checker of a paptree OTF2 archive.
 *
 *   trace_check [--ops K] ARCHIVE_DIR PATHMAP
 *
 * It reads ARCHIVE_DIR/traces.otf2 with the OTF2 reader and checks it
 * against the conventions of instrument/api/ins_schema.h.  Every expected
 * value is derived from the pathmap file (parsed by rt_pathmap_load) and
 * from K, never from the trace itself, so a writer bug cannot hide behind
 * a self-consistent archive.  What is checked, and why:
 *
 *  1. archive properties: schema version, the pathmap text (byte-equal to
 *     the file) and its hash, the tree, instance count I, hosts, clock,
 *     command: an archive must describe itself;
 *  2. the two event attributes (op, bytes), by id, name and type;
 *  3. one region per (instance, wrapper) with the id, names, description,
 *     role, paradigm and source location the schema prescribes;
 *  4. the system tree and the location groups (one per host = rank);
 *  5. the locations: exactly the threads the pathmap puts on each rank,
 *     then one service per (proxy served there, instance), with their ids,
 *     properties and event counts;
 *  6. clocks: ClockProperties and two ClockOffset records per location;
 *  7. events: only Enter/Leave, both attributes on each, timestamps that
 *     never go back, and visits that nest exactly as the executor walks
 *     (rt_hooks.h): a visit continues only from a gred into its parent, at
 *     most once, and exactly one visit per gred and operation continues;
 *  8. with --ops K: every location made exactly its share of the K
 *     operations, and every wrapper saw fanin arrivals per operation (and,
 *     when no wrapper has fanin > 1, exact per-location event counts).
 *
 * Each failure is one line "trace_check: FAIL: <what>: expected X, got Y"
 * on stderr.  Exit status: 0 all checks passed, 1 some check failed,
 * 2 usage error or an archive/pathmap that cannot be read at all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>
#include "../../instrument/api/ins_schema.h"
#include "../../runtime/api/rt_pathmap.h"

#define TC_FAIL_LINES    50          /* failure lines printed before "... and N more" */
#define TC_ID_MAX        (1u << 24)  /* largest string id / op number we index */
#define TC_INSTANCES_MAX 4096
#define TC_OPS_MAX       (UINT64_C(1) << 30)

/* A growable array; `size` is the item size. */
typedef struct tc_vec { void *data; size_t n, cap, size; } tc_vec_t;

/* Global definitions as read; checked only once all are in. */
typedef struct tc_attr { OTF2_AttributeRef self; OTF2_StringRef name; OTF2_Type type; } tc_attr_t;
typedef struct tc_region {
    OTF2_RegionRef self;
    OTF2_StringRef name, canon, desc, file;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    uint32_t begin, end;
} tc_region_t;
typedef struct tc_stn { uint32_t self, parent; OTF2_StringRef name, cls; } tc_stn_t;
typedef struct tc_group {
    OTF2_LocationGroupRef self;
    OTF2_LocationGroupType type;
    OTF2_SystemTreeNodeRef parent;
} tc_group_t;
typedef struct tc_ldef {
    OTF2_LocationRef self;
    OTF2_LocationType type;
    uint64_t nevents;
    OTF2_LocationGroupRef group;
} tc_ldef_t;
/* A property of a system tree node, location group or location. */
typedef struct tc_prop { uint64_t owner; OTF2_StringRef name; OTF2_Type type; OTF2_AttributeValue value; } tc_prop_t;

/* One open visit on a location's stack. */
typedef struct tc_frame { uint64_t region, op, bytes; bool nested; } tc_frame_t;

/* An expected location (from the pathmap) and what was read for it. */
typedef struct tc_loc {
    uint64_t id;
    uint32_t rank;
    bool service;
    const rt_thread_map_t *thread;  /* compute */
    rt_node_id_t proxy;             /* service */
    unsigned instance;              /* service */
    rt_node_id_t first;             /* the first wrapper it runs */
    uint32_t path_len;              /* first .. first proxy or core, inclusive */
    char label[112];
    bool defined;
    uint64_t nevents_def, nevents, last_time;
    unsigned noffsets;
    uint64_t off_time[2];
    int64_t offset[2];
    tc_frame_t *stack;
    uint32_t depth;
    uint64_t *next_op;              /* per instance: the next top-level op */
    OTF2_EvtReader *evr;
} tc_loc_t;

/* Per region: visits and continuing visits, indexed by op. */
typedef struct tc_count { uint32_t *visits, *nests; size_t len; } tc_count_t;

typedef struct tc_ctx {
    const rt_pathmap_t *pm;
    const rt_tree_t *tree;
    unsigned ninst;
    uint64_t nregions;
    bool have_ops;
    uint64_t ops;
    char *pathmap_path;             /* PAPTREE::PATHMAP_PATH */
    char **str;                     /* string definitions by id */
    size_t nstr;
    tc_vec_t attrs, regions, stns, stn_props, groups, group_props, ldefs, loc_props;
    unsigned nclock;
    uint64_t resolution;
    tc_loc_t *locs;
    uint32_t nlocs;
    uint32_t *rank_base;            /* locs of rank r: [rank_base[r], rank_base[r+1]) */
    tc_count_t *counts;
    uint64_t total_events;
    unsigned long nfail;
    bool oom;
} tc_ctx_t;

/* ------------------------------------------------------------------ output */

static void tc_fail(tc_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tc_fail(tc_ctx_t *c, const char *fmt, ...)
{
    va_list ap;

    if (c->nfail++ >= TC_FAIL_LINES)
        return;
    fputs("trace_check: FAIL: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void expect_u64(tc_ctx_t *c, const char *what, uint64_t exp, uint64_t got)
{
    if (exp != got)
        tc_fail(c, "%s: expected %" PRIu64 ", got %" PRIu64, what, exp, got);
}

static void expect_str(tc_ctx_t *c, const char *what, const char *exp, const char *got)
{
    if (got == NULL)
        tc_fail(c, "%s: expected '%s', got an undefined string", what, exp);
    else if (strcmp(exp, got) != 0)
        tc_fail(c, "%s: expected '%s', got '%s'", what, exp, got);
}

static int io_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int io_error(const char *fmt, ...)
{
    va_list ap;

    fputs("trace_check: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* ------------------------------------------------------------------ helpers */

static void *vec_push(tc_ctx_t *c, tc_vec_t *v)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        void *d = realloc(v->data, cap * v->size);
        if (d == NULL) {
            c->oom = true;
            return NULL;
        }
        v->data = d;
        v->cap = cap;
    }
    return (char *)v->data + v->size * v->n++;
}

static const char *str_of(const tc_ctx_t *c, OTF2_StringRef id)
{
    return id < c->nstr ? c->str[id] : NULL;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (s == NULL || *s == '\0')
        return false;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

static const rt_node_t *node_of(const tc_ctx_t *c, uint64_t region)
{
    return &c->tree->nodes[region % c->tree->nnodes];
}

static const char *region_label(const tc_ctx_t *c, uint64_t region, char *buf, size_t n)
{
    if (region < c->nregions)
        snprintf(buf, n, "%s#%" PRIu64 "/%s (region %" PRIu64 ")", c->tree->name,
                 region / c->tree->nnodes, node_of(c, region)->name, region);
    else
        snprintf(buf, n, "region %" PRIu64 " (out of range)", region);
    return buf;
}

/* Operations made on instance i when every thread made K, alternating. */
static uint64_t ops_of(const tc_ctx_t *c, unsigned inst)
{
    return (c->ops + c->ninst - 1 - inst) / c->ninst;
}

/* ------------------------------------------------------- 1. archive properties */

static char *get_prop(tc_ctx_t *c, OTF2_Reader *rd, const char *name)
{
    char *v = NULL;
    OTF2_ErrorCode rc = OTF2_Reader_GetProperty(rd, name, &v);

    if (rc != OTF2_SUCCESS) {
        tc_fail(c, "archive property %s: expected present, got %s", name,
                OTF2_Error_GetName(rc));
        return NULL;
    }
    return v;
}

/* False if the archive was recorded with another pathmap. */
static bool check_pathmap_text(tc_ctx_t *c, const char *v)
{
    size_t len = strlen(v), i = 0;

    while (i < len && i < c->pm->len && v[i] == c->pm->text[i])
        i++;
    if (len == c->pm->len && i == len)
        return true;
    tc_fail(c, "archive property " INS_PROP_PATHMAP ": expected the %zu bytes of %s, "
            "got %zu bytes differing from byte %zu (recorded with another pathmap? "
            "nothing else checked)", c->pm->len, c->pm->path, len, i);
    return false;
}

/* Returns false when the tree or the instance count is unusable. */
static bool check_properties(tc_ctx_t *c, OTF2_Reader *rd)
{
    char *v, buf[32];
    uint64_t n;

    if ((v = get_prop(c, rd, INS_PROP_VERSION)) != NULL)
        expect_str(c, "archive property " INS_PROP_VERSION, INS_SCHEMA_VERSION, v);
    free(v);
    if ((v = get_prop(c, rd, INS_PROP_PATHMAP)) == NULL || !check_pathmap_text(c, v)) {
        free(v);
        return false;
    }
    free(v);
    snprintf(buf, sizeof(buf), "%016" PRIx64, c->pm->hash);
    if ((v = get_prop(c, rd, INS_PROP_PATHMAP_HASH)) != NULL)
        expect_str(c, "archive property " INS_PROP_PATHMAP_HASH, buf, v);
    free(v);
    snprintf(buf, sizeof(buf), "%u", c->pm->nhosts);
    if ((v = get_prop(c, rd, INS_PROP_HOSTS)) != NULL)
        expect_str(c, "archive property " INS_PROP_HOSTS, buf, v);
    free(v);
    if ((v = get_prop(c, rd, INS_PROP_CLOCK)) != NULL &&
        strcmp(v, INS_CLOCK_TSC) != 0 && strcmp(v, INS_CLOCK_MONO_RAW) != 0)
        tc_fail(c, "archive property " INS_PROP_CLOCK ": expected '" INS_CLOCK_TSC
                "' or '" INS_CLOCK_MONO_RAW "', got '%s'", v);
    free(v);
    free(get_prop(c, rd, INS_PROP_COMMAND));
    c->pathmap_path = get_prop(c, rd, INS_PROP_PATHMAP_PATH);
    if ((v = get_prop(c, rd, INS_PROP_TREE)) != NULL &&
        (c->tree = rt_pathmap_tree(c->pm, v)) == NULL)
        tc_fail(c, "archive property " INS_PROP_TREE ": expected a tree of %s, got '%s'",
                c->pm->path, v);
    free(v);
    if ((v = get_prop(c, rd, INS_PROP_INSTANCES)) != NULL) {
        if (parse_u64(v, TC_INSTANCES_MAX, &n) && n >= 1)
            c->ninst = (unsigned)n;
        else
            tc_fail(c, "archive property " INS_PROP_INSTANCES ": expected a decimal 1..%u, "
                    "got '%s'", TC_INSTANCES_MAX, v);
    }
    free(v);
    return c->tree != NULL && c->ninst > 0;
}

/* ------------------------------------------- 5. expected locations, from the pathmap */

static bool serves(const rt_tree_t *t, const rt_node_t *node, uint32_t rank)
{
    return node->kind == RT_NODE_PROXY && t->nodes[node->parent].host == rank;
}

static uint32_t path_len(const rt_tree_t *t, rt_node_id_t id)
{
    uint32_t len = 1;

    while (t->nodes[id].kind == RT_NODE_GRED && len <= t->nnodes) {
        id = t->nodes[id].parent;
        len++;
    }
    return len;
}

static void loc_init(tc_ctx_t *c, tc_loc_t *l, uint32_t rank, uint32_t index)
{
    const rt_tree_t *t = c->tree;

    l->rank = rank;
    l->id = ((uint64_t)rank << INS_LOC_RANK_SHIFT) | index;
    l->first = l->service ? t->nodes[l->proxy].parent : l->thread->enter;
    l->path_len = path_len(t, l->first);
    if (l->service)
        snprintf(l->label, sizeof(l->label), "location %" PRIu64 " (rank %u, service of %s#%u)",
                 l->id, rank, t->nodes[l->proxy].name, l->instance);
    else
        snprintf(l->label, sizeof(l->label), "location %" PRIu64 " (rank %u, thread %u)",
                 l->id, rank, l->thread->id);
}

/* Fills the locations of rank r from index c->rank_base[r]; returns their count. */
static uint32_t fill_rank(tc_ctx_t *c, uint32_t r, tc_loc_t *out)
{
    const rt_tree_t *t = c->tree;
    uint32_t k = 0;

    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (t->threads[i].host != r)
            continue;
        if (out != NULL) {
            out[k].thread = &t->threads[i];
            loc_init(c, &out[k], r, k);
        }
        k++;
    }
    for (uint32_t n = 0; n < t->nnodes; n++) {
        for (unsigned inst = 0; serves(t, &t->nodes[n], r) && inst < c->ninst; inst++) {
            if (out != NULL) {
                out[k].service = true;
                out[k].proxy = n;
                out[k].instance = inst;
                loc_init(c, &out[k], r, k);
            }
            k++;
        }
    }
    return k;
}

static bool build_locations(tc_ctx_t *c)
{
    uint32_t nh = c->pm->nhosts;

    if ((c->rank_base = calloc(nh + 1, sizeof(*c->rank_base))) == NULL)
        return false;
    for (uint32_t r = 0; r < nh; r++) {
        uint32_t k = fill_rank(c, r, NULL);
        if (k > INS_LOC_MAX_PER_RANK)
            tc_fail(c, "rank %u locations: expected at most %u, got %u from the pathmap",
                    r, INS_LOC_MAX_PER_RANK, k);
        c->rank_base[r + 1] = c->rank_base[r] + k;
    }
    c->nlocs = c->rank_base[nh];
    if ((c->locs = calloc(c->nlocs + 1, sizeof(*c->locs))) == NULL)
        return false;
    for (uint32_t r = 0; r < nh; r++)
        fill_rank(c, r, &c->locs[c->rank_base[r]]);
    for (uint32_t i = 0; i < c->nlocs; i++) {
        c->locs[i].stack = calloc(c->tree->nnodes + 1, sizeof(tc_frame_t));
        c->locs[i].next_op = calloc(c->ninst, sizeof(uint64_t));
        if (c->locs[i].stack == NULL || c->locs[i].next_op == NULL)
            return false;
    }
    c->nregions = (uint64_t)c->ninst * c->tree->nnodes;
    c->counts = calloc(c->nregions, sizeof(*c->counts));
    return c->counts != NULL;
}

static tc_loc_t *find_loc(tc_ctx_t *c, uint64_t id)
{
    uint64_t r = id >> INS_LOC_RANK_SHIFT, idx = id & (INS_LOC_MAX_PER_RANK - 1);

    if (r >= c->pm->nhosts || idx >= c->rank_base[r + 1] - c->rank_base[r])
        return NULL;
    return &c->locs[c->rank_base[r] + idx];
}

/* ----------------------------------------------------- global definitions: read */

#define PUSH(c, vec, type, ...) do { \
        type *p_ = vec_push((c), &(c)->vec); \
        if (p_ == NULL) return OTF2_CALLBACK_INTERRUPT; \
        *p_ = (type){ __VA_ARGS__ }; \
    } while (0)

static OTF2_CallbackCode on_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    tc_ctx_t *c = ud;

    (void)off, (void)len, (void)rt;
    c->nclock++;
    c->resolution = res;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    tc_ctx_t *c = ud;

    if (self >= TC_ID_MAX) {
        tc_fail(c, "string id: expected < %u, got %u", TC_ID_MAX, self);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (self >= c->nstr) {
        size_t n = (size_t)self * 2 + 16;
        char **p = realloc(c->str, n * sizeof(*p));
        if (p == NULL)
            return c->oom = true, OTF2_CALLBACK_INTERRUPT;
        memset(p + c->nstr, 0, (n - c->nstr) * sizeof(*p));
        c->str = p;
        c->nstr = n;
    }
    if (c->str[self] != NULL)
        tc_fail(c, "string %u definitions: expected 1, got 2 or more", self);
    else if ((c->str[self] = strdup(s)) == NULL)
        return c->oom = true, OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                 OTF2_StringRef desc, OTF2_Type type)
{
    (void)desc;
    PUSH((tc_ctx_t *)ud, attrs, tc_attr_t, self, name, type);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canon, OTF2_StringRef desc,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file,
                                   uint32_t begin, uint32_t end)
{
    (void)flags;
    PUSH((tc_ctx_t *)ud, regions, tc_region_t, self, name, canon, desc, file, role,
         paradigm, begin, end);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    PUSH((tc_ctx_t *)ud, stns, tc_stn_t, self, parent, name, cls);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator)
{
    (void)name, (void)creator;
    PUSH((tc_ctx_t *)ud, groups, tc_group_t, self, type, parent);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nevents,
                                     OTF2_LocationGroupRef group)
{
    (void)name;
    PUSH((tc_ctx_t *)ud, ldefs, tc_ldef_t, self, type, nevents, group);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn_prop(void *ud, OTF2_SystemTreeNodeRef owner, OTF2_StringRef name,
                                     OTF2_Type type, OTF2_AttributeValue value)
{
    PUSH((tc_ctx_t *)ud, stn_props, tc_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group_prop(void *ud, OTF2_LocationGroupRef owner, OTF2_StringRef name,
                                       OTF2_Type type, OTF2_AttributeValue value)
{
    PUSH((tc_ctx_t *)ud, group_props, tc_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_loc_prop(void *ud, OTF2_LocationRef owner, OTF2_StringRef name,
                                     OTF2_Type type, OTF2_AttributeValue value)
{
    PUSH((tc_ctx_t *)ud, loc_props, tc_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_ErrorCode read_global_defs(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
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
        rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, c);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    }
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gdr != NULL)
        OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    return rc;
}

/* ------------------------------------------------ 2-4. global definitions: check */

static void check_attributes(tc_ctx_t *c)
{
    static const struct { uint32_t id; const char *name; } want[2] = {
        { INS_ATTR_OP_ID, INS_ATTR_OP }, { INS_ATTR_BYTES_ID, INS_ATTR_BYTES } };
    const tc_attr_t *a = c->attrs.data;
    char what[96];

    expect_u64(c, "attribute definitions", 2, c->attrs.n);
    for (unsigned w = 0; w < 2; w++) {
        size_t i = 0;
        while (i < c->attrs.n && a[i].self != want[w].id)
            i++;
        snprintf(what, sizeof(what), "attribute %u", want[w].id);
        if (i == c->attrs.n) {
            tc_fail(c, "%s: expected '%s', got no definition", what, want[w].name);
            continue;
        }
        expect_str(c, what, want[w].name, str_of(c, a[i].name));
        snprintf(what, sizeof(what), "attribute %u type", want[w].id);
        expect_u64(c, what, OTF2_TYPE_UINT64, a[i].type);
    }
}

static void check_region(tc_ctx_t *c, const tc_region_t *r)
{
    const rt_node_t *n = node_of(c, r->self);
    unsigned inst = (unsigned)(r->self / c->tree->nnodes);
    char what[192], exp[512], label[160];
    const char *file = c->pathmap_path != NULL ? c->pathmap_path : c->pm->path;

    region_label(c, r->self, label, sizeof(label));
    snprintf(what, sizeof(what), "%s name", label);
    expect_str(c, what, n->name, str_of(c, r->name));
    snprintf(exp, sizeof(exp), INS_REGION_CANONICAL_FMT, c->tree->name, inst, n->name);
    snprintf(what, sizeof(what), "%s canonical name", label);
    expect_str(c, what, exp, str_of(c, r->canon));
    snprintf(exp, sizeof(exp),
             INS_KEY_KIND "=%s " INS_KEY_HOST "=%s " INS_KEY_PARENT "=%s " INS_KEY_TREE "=%s "
             INS_KEY_INSTANCE "=%u " INS_KEY_NODE "=%u " INS_KEY_FANIN "=%u",
             rt_node_kind_name(n->kind), c->pm->hosts[n->host].name,
             n->parent == RT_ID_NONE ? INS_NO_PARENT : c->tree->nodes[n->parent].name,
             c->tree->name, inst, (unsigned)(r->self % c->tree->nnodes), rt_node_fanin(n));
    snprintf(what, sizeof(what), "%s description", label);
    expect_str(c, what, exp, str_of(c, r->desc));
    snprintf(what, sizeof(what), "%s source file", label);
    expect_str(c, what, file, str_of(c, r->file));
    snprintf(what, sizeof(what), "%s role", label);
    expect_u64(c, what, OTF2_REGION_ROLE_WRAPPER, r->role);
    snprintf(what, sizeof(what), "%s paradigm", label);
    expect_u64(c, what, OTF2_PARADIGM_USER, r->paradigm);
    snprintf(what, sizeof(what), "%s begin line", label);
    expect_u64(c, what, n->line, r->begin);
    snprintf(what, sizeof(what), "%s end line", label);
    expect_u64(c, what, n->line, r->end);
}

static void check_regions(tc_ctx_t *c)
{
    const tc_region_t *r = c->regions.data;
    bool *seen = calloc(c->nregions + 1, 1);

    if (seen == NULL) {
        c->oom = true;
        return;
    }
    expect_u64(c, "region definitions", c->nregions, c->regions.n);
    for (size_t i = 0; i < c->regions.n; i++) {
        if (r[i].self >= c->nregions)
            tc_fail(c, "region id: expected < %" PRIu64 ", got %u", c->nregions, r[i].self);
        else if (seen[r[i].self])
            tc_fail(c, "region %u definitions: expected 1, got 2 or more", r[i].self);
        else {
            seen[r[i].self] = true;
            check_region(c, &r[i]);
        }
    }
    for (uint64_t id = 0; id < c->nregions; id++)
        if (!seen[id])
            tc_fail(c, "region %" PRIu64 ": expected a definition, got none", id);
    free(seen);
}

/* The string value of a property, or NULL after a failure. */
static const char *prop_str(tc_ctx_t *c, const tc_prop_t *p, const char *what)
{
    const char *s;

    if (p->type != OTF2_TYPE_STRING) {
        tc_fail(c, "%s type: expected %d (string), got %d", what, OTF2_TYPE_STRING, p->type);
        return NULL;
    }
    if ((s = str_of(c, p->value.stringRef)) == NULL)
        tc_fail(c, "%s: expected a string, got undefined string %u", what, p->value.stringRef);
    return s;
}

static bool prop_u64(tc_ctx_t *c, const tc_prop_t *p, const char *what, uint64_t *v)
{
    if (p->type != OTF2_TYPE_UINT64) {
        tc_fail(c, "%s type: expected %d (uint64), got %d", what, OTF2_TYPE_UINT64, p->type);
        return false;
    }
    *v = p->value.uint64;
    return true;
}

/* Marks bit `bit` of seen[owner]; false (and a failure) if it was set. */
static bool prop_once(tc_ctx_t *c, unsigned *seen, unsigned bit, const char *what)
{
    if (*seen & bit) {
        tc_fail(c, "%s: expected once, got 2 or more", what);
        return false;
    }
    *seen |= bit;
    return true;
}

static void check_system_tree(tc_ctx_t *c)
{
    const tc_stn_t *s = c->stns.data;
    const tc_prop_t *p = c->stn_props.data;
    uint32_t nh = c->pm->nhosts;
    unsigned *seen = calloc(nh + 1, sizeof(*seen));
    char what[160];

    if (seen == NULL) {
        c->oom = true;
        return;
    }
    expect_u64(c, "system tree nodes", nh + 1, c->stns.n);
    for (size_t i = 0; i < c->stns.n; i++) {
        snprintf(what, sizeof(what), "system tree node %u definition", s[i].self);
        if (s[i].self > nh) {
            tc_fail(c, "system tree node id: expected 0..%u, got %u", nh, s[i].self);
            continue;
        }
        if (!prop_once(c, &seen[s[i].self], 1, what))
            continue;
        snprintf(what, sizeof(what), "system tree node %u class", s[i].self);
        expect_str(c, what, s[i].self == 0 ? INS_STN_MACHINE_CLASS : INS_STN_NODE_CLASS,
                   str_of(c, s[i].cls));
        snprintf(what, sizeof(what), "system tree node %u parent", s[i].self);
        expect_u64(c, what, s[i].self == 0 ? OTF2_UNDEFINED_SYSTEM_TREE_NODE : 0, s[i].parent);
        snprintf(what, sizeof(what), "system tree node %u name", s[i].self);
        if (s[i].self > 0)
            expect_str(c, what, c->pm->hosts[s[i].self - 1].name, str_of(c, s[i].name));
    }
    for (size_t i = 0; i < c->stn_props.n; i++) {
        const char *v;
        snprintf(what, sizeof(what), "system tree node %" PRIu64 " property " INS_STN_PROP_HOSTNAME,
                 p[i].owner);
        if (!(str_of(c, p[i].name) && strcmp(str_of(c, p[i].name), INS_STN_PROP_HOSTNAME) == 0))
            continue;
        if (p[i].owner < 1 || p[i].owner > nh)
            tc_fail(c, "%s owner: expected 1..%u, got %" PRIu64, what, nh, p[i].owner);
        else if (prop_once(c, &seen[p[i].owner], 2, what) &&
                 (v = prop_str(c, &p[i], what)) != NULL && *v == '\0')
            tc_fail(c, "%s: expected a host name, got ''", what);
    }
    for (uint32_t h = 0; h <= nh; h++)
        if ((seen[h] & (h == 0 ? 1u : 3u)) != (h == 0 ? 1u : 3u))
            tc_fail(c, "system tree node %u: expected a definition%s, got none", h,
                    h == 0 ? "" : " and property " INS_STN_PROP_HOSTNAME);
    free(seen);
}

static void check_group_prop(tc_ctx_t *c, const tc_prop_t *p, unsigned *seen)
{
    const char *name = str_of(c, p->name), *v;
    uint32_t r = (uint32_t)p->owner;
    char what[160];
    uint64_t u;

    snprintf(what, sizeof(what), "location group %u property %s", r, name ? name : "?");
    if (name != NULL && strcmp(name, INS_LG_PROP_HOST) == 0) {
        if (prop_once(c, seen, 2, what) && (v = prop_str(c, p, what)) != NULL)
            expect_str(c, what, c->pm->hosts[r].name, v);
    } else if (name != NULL && strcmp(name, INS_LG_PROP_RANK) == 0) {
        if (prop_once(c, seen, 4, what) && prop_u64(c, p, what, &u))
            expect_u64(c, what, r, u);
    }
}

static void check_groups(tc_ctx_t *c)
{
    const tc_group_t *g = c->groups.data;
    const tc_prop_t *p = c->group_props.data;
    uint32_t nh = c->pm->nhosts;
    unsigned *seen = calloc(nh + 1, sizeof(*seen));
    char what[96];

    if (seen == NULL) {
        c->oom = true;
        return;
    }
    expect_u64(c, "location groups", nh, c->groups.n);
    for (size_t i = 0; i < c->groups.n; i++) {
        snprintf(what, sizeof(what), "location group %u definition", g[i].self);
        if (g[i].self >= nh) {
            tc_fail(c, "location group id: expected 0..%u, got %u", nh - 1, g[i].self);
            continue;
        }
        if (!prop_once(c, &seen[g[i].self], 1, what))
            continue;
        snprintf(what, sizeof(what), "location group %u type", g[i].self);
        expect_u64(c, what, OTF2_LOCATION_GROUP_TYPE_PROCESS, g[i].type);
        snprintf(what, sizeof(what), "location group %u system tree parent", g[i].self);
        expect_u64(c, what, 1 + (uint64_t)g[i].self, g[i].parent);
    }
    for (size_t i = 0; i < c->group_props.n; i++) {
        if (p[i].owner >= nh)
            tc_fail(c, "location group property owner: expected 0..%u, got %" PRIu64,
                    nh - 1, p[i].owner);
        else
            check_group_prop(c, &p[i], &seen[p[i].owner]);
    }
    for (uint32_t r = 0; r < nh; r++)
        if (seen[r] != 7)
            tc_fail(c, "location group %u: expected a definition and properties "
                    INS_LG_PROP_HOST ", " INS_LG_PROP_RANK ", got only some (mask %u of 7)",
                    r, seen[r]);
    free(seen);
}

enum { P_ROLE = 1, P_THREAD = 2, P_ENTER = 4, P_PROXY = 8, P_INSTANCE = 16, P_FLUSHES = 32,
       P_COMPUTE = P_ROLE | P_THREAD | P_ENTER | P_FLUSHES,
       P_SERVICE = P_ROLE | P_PROXY | P_INSTANCE | P_ENTER | P_FLUSHES };

/* Returns the property's bit (0 if it is not one of ours); checks its value. */
static unsigned check_loc_prop(tc_ctx_t *c, const tc_loc_t *l, const tc_prop_t *p,
                               const char *what)
{
    const char *name = str_of(c, p->name), *v;
    uint64_t u;

    if (name == NULL)
        return 0;
    if (strcmp(name, INS_LOC_PROP_ROLE) == 0) {
        if ((v = prop_str(c, p, what)) != NULL)
            expect_str(c, what, l->service ? INS_ROLE_SERVICE : INS_ROLE_COMPUTE, v);
        return P_ROLE;
    }
    if (strcmp(name, INS_LOC_PROP_ENTER) == 0) {
        if ((v = prop_str(c, p, what)) != NULL)
            expect_str(c, what, c->tree->nodes[l->first].name, v);
        return P_ENTER;
    }
    if (strcmp(name, INS_LOC_PROP_THREAD) == 0) {
        if (!l->service && prop_u64(c, p, what, &u))
            expect_u64(c, what, l->thread->id, u);
        return P_THREAD;
    }
    if (strcmp(name, INS_LOC_PROP_PROXY) == 0) {
        if (l->service && (v = prop_str(c, p, what)) != NULL)
            expect_str(c, what, c->tree->nodes[l->proxy].name, v);
        return P_PROXY;
    }
    if (strcmp(name, INS_LOC_PROP_INSTANCE) == 0) {
        if (l->service && prop_u64(c, p, what, &u))
            expect_u64(c, what, l->instance, u);
        return P_INSTANCE;
    }
    if (strcmp(name, INS_LOC_PROP_FLUSHES) == 0) {
        prop_u64(c, p, what, &u);
        return P_FLUSHES;
    }
    return 0;
}

static void check_loc_props(tc_ctx_t *c, unsigned *seen)
{
    const tc_prop_t *p = c->loc_props.data;
    char what[224];

    for (size_t i = 0; i < c->loc_props.n; i++) {
        tc_loc_t *l = find_loc(c, p[i].owner);
        const char *name = str_of(c, p[i].name);
        unsigned bit;

        if (l == NULL)
            continue;                    /* reported with the location */
        snprintf(what, sizeof(what), "%s property %s", l->label, name ? name : "?");
        bit = check_loc_prop(c, l, &p[i], what);
        if (bit != 0 && prop_once(c, &seen[l - c->locs], bit, what) &&
            (bit & (l->service ? P_SERVICE : P_COMPUTE)) == 0)
            tc_fail(c, "%s: expected none on a %s location, got one", what,
                    l->service ? INS_ROLE_SERVICE : INS_ROLE_COMPUTE);
    }
    for (uint32_t i = 0; i < c->nlocs; i++) {
        unsigned want = c->locs[i].service ? P_SERVICE : P_COMPUTE;
        if (c->locs[i].defined && (seen[i] & want) != want)
            tc_fail(c, "%s properties: expected mask %u (role, thread=2, enter=4, proxy=8, "
                    "instance=16, flushes=32), got %u", c->locs[i].label, want, seen[i] & want);
    }
}

static void check_locations(tc_ctx_t *c)
{
    const tc_ldef_t *d = c->ldefs.data;
    unsigned *seen = calloc(c->nlocs + 1, sizeof(*seen));
    char what[160];

    if (seen == NULL) {
        c->oom = true;
        return;
    }
    expect_u64(c, "location definitions", c->nlocs, c->ldefs.n);
    for (size_t i = 0; i < c->ldefs.n; i++) {
        tc_loc_t *l = find_loc(c, d[i].self);
        if (l == NULL || l->defined) {
            tc_fail(c, "location %" PRIu64 ": expected %s, got a definition", d[i].self,
                    l == NULL ? "no such location in the pathmap" : "one definition");
            continue;
        }
        l->defined = true;
        l->nevents_def = d[i].nevents;
        snprintf(what, sizeof(what), "%s type", l->label);
        expect_u64(c, what, OTF2_LOCATION_TYPE_CPU_THREAD, d[i].type);
        snprintf(what, sizeof(what), "%s group", l->label);
        expect_u64(c, what, l->rank, d[i].group);
    }
    for (uint32_t i = 0; i < c->nlocs; i++)
        if (!c->locs[i].defined)
            tc_fail(c, "%s: expected a definition, got none", c->locs[i].label);
    check_loc_props(c, seen);
    free(seen);
}

/* -------------------------------------------------- 6. local definitions: clocks */

static OTF2_CallbackCode on_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    tc_loc_t *l = ud;

    (void)sd;
    if (l->noffsets < 2) {
        l->off_time[l->noffsets] = time;
        l->offset[l->noffsets] = offset;
    }
    l->noffsets++;
    return OTF2_CALLBACK_SUCCESS;
}

static void read_local_defs(tc_ctx_t *c, OTF2_Reader *rd, OTF2_DefReaderCallbacks *cb)
{
    for (uint32_t i = 0; i < c->nlocs; i++) {
        tc_loc_t *l = &c->locs[i];
        OTF2_DefReader *dr;
        OTF2_ErrorCode rc = OTF2_ERROR_INVALID_ARGUMENT;
        uint64_t n = 0;

        if (!l->defined)
            continue;
        if ((dr = OTF2_Reader_GetDefReader(rd, l->id)) != NULL) {
            rc = OTF2_Reader_RegisterDefCallbacks(rd, dr, cb, l);
            if (rc == OTF2_SUCCESS)
                rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
        }
        if (rc != OTF2_SUCCESS)
            tc_fail(c, "%s local definitions: expected readable, got %s", l->label,
                    OTF2_Error_GetName(rc));
    }
}

static void check_clocks(tc_ctx_t *c)
{
    char what[192];

    expect_u64(c, "ClockProperties definitions", 1, c->nclock);
    if (c->nclock > 0 && c->resolution == 0)
        tc_fail(c, "clock resolution: expected > 0, got 0");
    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        if (!l->defined)
            continue;
        snprintf(what, sizeof(what), "%s ClockOffset records", l->label);
        expect_u64(c, what, 2, l->noffsets);
        if (l->noffsets < 2)
            continue;
        if (l->off_time[1] <= l->off_time[0])
            tc_fail(c, "%s ClockOffset times: expected second > first (%" PRIu64 "), got %"
                    PRIu64, l->label, l->off_time[0], l->off_time[1]);
        if (l->rank == 0 && (l->offset[0] != 0 || l->offset[1] != 0))
            tc_fail(c, "%s ClockOffset offsets: expected 0 and 0 on rank 0, got %" PRId64
                    " and %" PRId64, l->label, l->offset[0], l->offset[1]);
    }
}

/* ------------------------------------------------------------------ 7. events */

static bool count_op(tc_ctx_t *c, uint64_t region, uint64_t op, bool nest)
{
    tc_count_t *k = &c->counts[region];
    uint64_t limit = c->have_ops ? ops_of(c, (unsigned)(region / c->tree->nnodes)) : TC_ID_MAX;

    if (op >= limit)
        return false;
    if (op >= k->len) {
        size_t len = c->have_ops ? limit : (op + 1) * 2;
        uint32_t *v = realloc(k->visits, len * sizeof(*v)), *n;
        if (v != NULL)
            k->visits = v;
        if (v == NULL || (n = realloc(k->nests, len * sizeof(*n))) == NULL)
            return c->oom = true, true;
        k->nests = n;
        memset(v + k->len, 0, (len - k->len) * sizeof(*v));
        memset(n + k->len, 0, (len - k->len) * sizeof(*n));
        k->len = len;
    }
    (nest ? k->nests : k->visits)[op]++;
    return true;
}

/* Checks what every event shares; returns its location, or NULL. */
static tc_loc_t *event_begin(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t, const char *kind)
{
    tc_loc_t *l = find_loc(c, id);

    c->total_events++;
    if (l == NULL) {
        tc_fail(c, "location %" PRIu64 " %s event: expected a pathmap location, got one", id, kind);
        return NULL;
    }
    if (l->nevents > 0 && t < l->last_time)
        tc_fail(c, "%s event %" PRIu64 " (%s) time: expected >= %" PRIu64 ", got %" PRIu64,
                l->label, l->nevents, kind, l->last_time, t);
    l->last_time = t;
    l->nevents++;
    return l;
}

static bool event_attrs(tc_ctx_t *c, const tc_loc_t *l, OTF2_AttributeList *al,
                        const char *kind, uint64_t *op, uint64_t *bytes)
{
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    OTF2_ErrorCode rc;

    if (n != 2) {
        tc_fail(c, "%s event %" PRIu64 " (%s) attributes: expected 2, got %u", l->label,
                l->nevents - 1, kind, n);
        if (n == 0)
            return false;
    }
    if ((rc = OTF2_AttributeList_GetUint64(al, INS_ATTR_OP_ID, op)) != OTF2_SUCCESS ||
        (rc = OTF2_AttributeList_GetUint64(al, INS_ATTR_BYTES_ID, bytes)) != OTF2_SUCCESS) {
        tc_fail(c, "%s event %" PRIu64 " (%s) attributes op and bytes: expected uint64, got %s",
                l->label, l->nevents - 1, kind, OTF2_Error_GetName(rc));
        return false;
    }
    return true;
}

static void enter_top(tc_ctx_t *c, tc_loc_t *l, uint64_t region, uint64_t op)
{
    unsigned inst = (unsigned)(region / c->tree->nnodes);
    uint64_t want = l->service ? (uint64_t)l->instance * c->tree->nnodes + l->first
                               : (uint64_t)inst * c->tree->nnodes + l->first;
    char a[160], b[160];

    if (region != want)
        tc_fail(c, "%s event %" PRIu64 " top-level Enter: expected %s, got %s", l->label,
                l->nevents - 1, region_label(c, want, a, sizeof(a)),
                region_label(c, region, b, sizeof(b)));
    if (op != l->next_op[inst])
        tc_fail(c, "%s event %" PRIu64 " top-level op on instance %u: expected %" PRIu64
                ", got %" PRIu64, l->label, l->nevents - 1, inst, l->next_op[inst], op);
    l->next_op[inst] = op + 1;
}

static void enter_nested(tc_ctx_t *c, tc_loc_t *l, tc_frame_t *f, uint64_t region,
                         uint64_t op, uint64_t bytes)
{
    const rt_node_t *outer = node_of(c, f->region);
    uint64_t want = outer->parent == RT_ID_NONE ? UINT64_MAX
        : f->region - f->region % c->tree->nnodes + outer->parent;
    char a[160], b[160];

    if (outer->kind != RT_NODE_GRED || f->nested)
        tc_fail(c, "%s event %" PRIu64 " Enter inside %s: expected none (a %s visit %s), got %s",
                l->label, l->nevents - 1, region_label(c, f->region, a, sizeof(a)),
                rt_node_kind_name(outer->kind),
                f->nested ? "continues once" : "never continues",
                region_label(c, region, b, sizeof(b)));
    else if (region != want)
        tc_fail(c, "%s event %" PRIu64 " nested Enter: expected %s, got %s", l->label,
                l->nevents - 1, region_label(c, want, a, sizeof(a)),
                region_label(c, region, b, sizeof(b)));
    if (op != f->op || bytes != f->bytes)
        tc_fail(c, "%s event %" PRIu64 " nested Enter op/bytes: expected %" PRIu64 "/%" PRIu64
                ", got %" PRIu64 "/%" PRIu64, l->label, l->nevents - 1, f->op, f->bytes, op, bytes);
    if (!f->nested)
        count_op(c, f->region, f->op, true);
    f->nested = true;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "Enter");
    uint64_t op = 0, bytes = 0;
    char a[160];

    if (l == NULL || !event_attrs(c, l, al, "Enter", &op, &bytes))
        return OTF2_CALLBACK_SUCCESS;
    if (region >= c->nregions) {
        tc_fail(c, "%s event %" PRIu64 " Enter region: expected < %" PRIu64 ", got %u",
                l->label, l->nevents - 1, c->nregions, region);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (l->depth == 0)
        enter_top(c, l, region, op);
    else
        enter_nested(c, l, &l->stack[l->depth - 1], region, op, bytes);
    if (!count_op(c, region, op, false))
        tc_fail(c, "%s event %" PRIu64 " Enter %s op: expected < %" PRIu64 ", got %" PRIu64,
                l->label, l->nevents - 1, region_label(c, region, a, sizeof(a)),
                c->have_ops ? ops_of(c, (unsigned)(region / c->tree->nnodes)) : TC_ID_MAX, op);
    if (l->depth > c->tree->nnodes)
        tc_fail(c, "%s event %" PRIu64 " nesting depth: expected <= %u, got more", l->label,
                l->nevents - 1, c->tree->nnodes);
    else
        l->stack[l->depth++] = (tc_frame_t){ region, op, bytes, false };
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "Leave");
    uint64_t op = 0, bytes = 0;
    tc_frame_t *f;
    char a[160], b[160];

    if (l == NULL || !event_attrs(c, l, al, "Leave", &op, &bytes))
        return OTF2_CALLBACK_SUCCESS;
    if (l->depth == 0) {
        tc_fail(c, "%s event %" PRIu64 " Leave of %s: expected an open visit, got none",
                l->label, l->nevents - 1, region_label(c, region, a, sizeof(a)));
        return OTF2_CALLBACK_SUCCESS;
    }
    f = &l->stack[--l->depth];
    if (region != f->region || op != f->op || bytes != f->bytes)
        tc_fail(c, "%s event %" PRIu64 " Leave: expected %s op %" PRIu64 " bytes %" PRIu64
                ", got %s op %" PRIu64 " bytes %" PRIu64, l->label, l->nevents - 1,
                region_label(c, f->region, a, sizeof(a)), f->op, f->bytes,
                region_label(c, region, b, sizeof(b)), op, bytes);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "BufferFlush");

    (void)al, (void)stop;
    if (l != NULL)
        tc_fail(c, "%s event %" PRIu64 ": expected Enter or Leave, got BufferFlush",
                l->label, l->nevents - 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_unknown(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "unknown");

    (void)al;
    if (l != NULL)
        tc_fail(c, "%s event %" PRIu64 ": expected Enter or Leave, got an unknown record",
                l->label, l->nevents - 1);
    return OTF2_CALLBACK_SUCCESS;
}

/* Reads every defined location's events in time order; false on a read error. */
static bool read_events(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReader *ger = NULL;
    OTF2_ErrorCode rc = cb != NULL ? OTF2_Reader_OpenEvtFiles(rd) : OTF2_ERROR_MEM_ALLOC_FAILED;
    uint64_t n = 0;
    unsigned long missing = 0;

    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < c->nlocs; i++) {
        if (c->locs[i].defined &&
            (c->locs[i].evr = OTF2_Reader_GetEvtReader(rd, c->locs[i].id)) == NULL) {
            tc_fail(c, "%s event reader: expected one, got none (no .evt file?)", c->locs[i].label);
            missing++;
        }
    }
    if (rc == OTF2_SUCCESS && (missing > 0 || (ger = OTF2_Reader_GetGlobalEvtReader(rd)) == NULL)) {
        tc_fail(c, "global event reader: expected one, got none; no event checked");
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        return false;
    }
    if (rc == OTF2_SUCCESS) {
        OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
        OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
        OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, on_flush);
        OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(cb, on_unknown);
        rc = OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, c);
    }
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
    if (rc != OTF2_SUCCESS && !c->oom)
        tc_fail(c, "reading events: expected success, got %s", OTF2_Error_GetName(rc));
    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < c->nlocs; i++) {
        uint64_t pos = 0;
        /* Records without a callback are skipped silently; the position counts them. */
        if (c->locs[i].evr != NULL && OTF2_EvtReader_GetPos(c->locs[i].evr, &pos) == OTF2_SUCCESS &&
            pos != c->locs[i].nevents)
            tc_fail(c, "%s records: expected only Enter and Leave (%" PRIu64 "), got %" PRIu64
                    " records", c->locs[i].label, c->locs[i].nevents, pos);
    }
    if (ger != NULL)
        OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    return rc == OTF2_SUCCESS;
}

/* --------------------------------------------------- end of trace, 8. counts */

static void check_ends(tc_ctx_t *c)
{
    char what[192], a[160];

    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        if (!l->defined)
            continue;
        if (l->depth > 0)
            tc_fail(c, "%s open visits at the end: expected 0, got %u (innermost %s)", l->label,
                    l->depth, region_label(c, l->stack[l->depth - 1].region, a, sizeof(a)));
        snprintf(what, sizeof(what), "%s numberOfEvents (definition vs. read)", l->label);
        expect_u64(c, what, l->nevents, l->nevents_def);
    }
}

/* Exactly one visit per gred and operation continues to the parent. */
static void check_last_arrivals(tc_ctx_t *c)
{
    char a[160];

    for (uint64_t r = 0; r < c->nregions; r++) {
        const tc_count_t *k = &c->counts[r];
        if (node_of(c, r)->kind != RT_NODE_GRED)
            continue;
        for (size_t op = 0; op < k->len; op++)
            if (k->visits[op] > 0 && k->nests[op] != 1) {
                tc_fail(c, "%s op %zu: expected exactly 1 of its %u visits to continue to the "
                        "parent, got %u", region_label(c, r, a, sizeof(a)), op,
                        k->visits[op], k->nests[op]);
                break;                   /* one line per region is enough */
            }
    }
}

static bool tree_fanin_le1(const rt_tree_t *t)
{
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (rt_node_fanin(&t->nodes[n]) > 1)
            return false;
    return true;
}

static void check_counts(tc_ctx_t *c)
{
    bool exact = tree_fanin_le1(c->tree);
    char what[192], a[160];

    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        uint64_t served = 0;
        for (unsigned inst = 0; inst < c->ninst; inst++) {
            uint64_t want = !l->service || inst == l->instance ? ops_of(c, inst) : 0;
            snprintf(what, sizeof(what), "%s operations on instance %u", l->label, inst);
            if (l->defined)
                expect_u64(c, what, want, l->next_op[inst]);
            served += want;
        }
        snprintf(what, sizeof(what), "%s events (all fanin <= 1: 2 x %" PRIu64 " ops x path of "
                 "%u)", l->label, served, l->path_len);
        if (exact && l->defined)
            expect_u64(c, what, 2 * served * l->path_len, l->nevents);
    }
    for (uint64_t r = 0; r < c->nregions; r++) {
        const tc_count_t *k = &c->counts[r];
        uint32_t fanin = rt_node_fanin(node_of(c, r));
        uint64_t sum = 0, want = ops_of(c, (unsigned)(r / c->tree->nnodes));
        size_t bad = SIZE_MAX;
        for (size_t op = 0; op < k->len; op++) {
            sum += k->visits[op];
            if (k->visits[op] != fanin && bad == SIZE_MAX)
                bad = op;
        }
        snprintf(what, sizeof(what), "%s Enter events (%" PRIu64 " ops x fanin %u)",
                 region_label(c, r, a, sizeof(a)), want, fanin);
        expect_u64(c, what, want * fanin, sum);
        if (bad != SIZE_MAX)
            tc_fail(c, "%s op %zu Enter events: expected fanin %u, got %u", a, bad, fanin,
                    k->visits[bad]);
    }
}

/* ------------------------------------------------------------------ driver */

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: trace_check [--ops K] ARCHIVE_DIR PATHMAP\n"
            "Checks the paptree OTF2 archive ARCHIVE_DIR/" INS_ANCHOR_FILE " against the\n"
            "trace conventions (instrument/api/ins_schema.h) and the pathmap file.\n"
            "  --ops K     every computational thread made K operations (alternating\n"
            "              over the tree instances): also check the exact counts\n"
            "  -h, --help  this text\n"
            "Exit status: 0 all checks passed, 1 a check failed (one 'FAIL' line each),\n"
            "2 usage error or unreadable archive or pathmap.\n");
}

static int parse_args(int argc, char **argv, tc_ctx_t *c, const char **dir, const char **pmap)
{
    int npos = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--ops") == 0 || strncmp(a, "--ops=", 6) == 0) {
            const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!parse_u64(v, TC_OPS_MAX, &c->ops))
                return usage(stderr), 2;
            c->have_ops = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage(stderr), 2;
        } else if (npos < 2) {
            *(npos++ == 0 ? dir : pmap) = a;
        } else {
            return usage(stderr), 2;
        }
    }
    return npos == 2 ? -1 : (usage(stderr), 2);
}

/* Everything after the archive properties; returns the exit status. */
static int check_archive(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_DefReaderCallbacks *dcb;
    OTF2_ErrorCode rc;

    if (!build_locations(c))
        return io_error("out of memory");
    if ((rc = read_global_defs(c, rd)) != OTF2_SUCCESS)
        return io_error(c->oom ? "out of memory" : "cannot read the global definitions: %s",
                        OTF2_Error_GetName(rc));
    check_attributes(c);
    check_regions(c);
    check_system_tree(c);
    check_groups(c);
    check_locations(c);
    for (uint32_t i = 0; i < c->nlocs; i++)
        if (c->locs[i].defined && (rc = OTF2_Reader_SelectLocation(rd, c->locs[i].id)) != OTF2_SUCCESS)
            return io_error("cannot select %s: %s", c->locs[i].label, OTF2_Error_GetName(rc));
    if ((rc = OTF2_Reader_OpenDefFiles(rd)) != OTF2_SUCCESS)
        tc_fail(c, "local definition files: expected readable, got %s", OTF2_Error_GetName(rc));
    else if ((dcb = OTF2_DefReaderCallbacks_New()) == NULL)
        return io_error("out of memory");
    else {
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, on_offset);
        read_local_defs(c, rd, dcb);
        OTF2_DefReaderCallbacks_Delete(dcb);
        OTF2_Reader_CloseDefFiles(rd);
    }
    check_clocks(c);
    if (read_events(c, rd)) {
        check_ends(c);
        check_last_arrivals(c);
        if (c->have_ops)
            check_counts(c);
    }
    OTF2_Reader_CloseEvtFiles(rd);
    return c->oom ? io_error("out of memory") : -1;
}

static void ctx_cleanup(tc_ctx_t *c)
{
    for (size_t i = 0; i < c->nstr; i++)
        free(c->str[i]);
    free(c->str);
    free(c->attrs.data), free(c->regions.data), free(c->stns.data), free(c->stn_props.data);
    free(c->groups.data), free(c->group_props.data), free(c->ldefs.data), free(c->loc_props.data);
    for (uint32_t i = 0; c->locs != NULL && i < c->nlocs; i++)
        free(c->locs[i].stack), free(c->locs[i].next_op);
    for (uint64_t r = 0; c->counts != NULL && r < c->nregions; r++)
        free(c->counts[r].visits), free(c->counts[r].nests);
    free(c->locs), free(c->rank_base), free(c->counts), free(c->pathmap_path);
}

int main(int argc, char **argv)
{
    tc_ctx_t c = { .attrs.size = sizeof(tc_attr_t), .regions.size = sizeof(tc_region_t),
                   .stns.size = sizeof(tc_stn_t), .stn_props.size = sizeof(tc_prop_t),
                   .groups.size = sizeof(tc_group_t), .group_props.size = sizeof(tc_prop_t),
                   .ldefs.size = sizeof(tc_ldef_t), .loc_props.size = sizeof(tc_prop_t) };
    const char *dir = NULL, *pmap = NULL;
    rt_pathmap_t *pm = NULL;
    OTF2_Reader *rd;
    cm_err_t err;
    char anchor[4096];
    FILE *fp;
    int status = parse_args(argc, argv, &c, &dir, &pmap);

    if (status >= 0)
        return status;
    if (rt_pathmap_load(pmap, &pm, &err) != CM_OK) {
        cm_err_print(stderr, "trace_check: ", &err);
        return 2;
    }
    c.pm = pm;
    snprintf(anchor, sizeof(anchor), "%s/%s", dir, INS_ANCHOR_FILE);
    if ((fp = fopen(anchor, "rb")) == NULL) {
        rt_pathmap_destroy(pm);
        return io_error("cannot open %s: %s", anchor, strerror(errno));
    }
    fclose(fp);
    if ((rd = OTF2_Reader_Open(anchor)) == NULL) {
        rt_pathmap_destroy(pm);
        return io_error("OTF2 cannot open the archive %s", anchor);
    }
    if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS)
        status = io_error("OTF2_Reader_SetSerialCollectiveCallbacks failed");
    else if (check_properties(&c, rd))
        status = check_archive(&c, rd);
    OTF2_Reader_Close(rd);
    if (status < 0 && c.nfail == 0 && c.have_ops)
        printf("trace_check: ok: %u locations, %zu regions, %" PRIu64 " events, %" PRIu64
               " ops per thread\n", c.nlocs, c.regions.n, c.total_events, c.ops);
    else if (status < 0 && c.nfail == 0)
        printf("trace_check: ok: %u locations, %zu regions, %" PRIu64 " events, "
               "ops per thread not checked (no --ops)\n", c.nlocs, c.regions.n, c.total_events);
    else if (c.nfail > TC_FAIL_LINES)
        fprintf(stderr, "trace_check: ... and %lu more\n", c.nfail - TC_FAIL_LINES);
    ctx_cleanup(&c);
    rt_pathmap_destroy(pm);
    return status >= 0 ? status : c.nfail > 0;
}
