/*
 * trace_check - an independent checker of a paptree OTF2 archive.
 *
 *   trace_check [--ops K] ARCHIVE_DIR PATHMAP
 *
 * Reads ARCHIVE_DIR/traces.otf2 with the OTF2 reader and checks it against
 * the conventions of instrument/api/ins_schema.h.  Every expected value is
 * derived from the pathmap file (rt_pathmap_load) and from K, never from
 * the trace itself, so a writer bug cannot hide behind an archive that is
 * merely consistent with itself.  What is checked, and why:
 *
 *  1. archive properties: schema version, the pathmap text (byte-equal to
 *     the file; a property, or DIR/traces.pathmap when longer than
 *     INS_PATHMAP_PROP_MAX) and its hash, tree, instance count I, hosts, clock and
 *     command: an archive must describe itself;
 *  2. the two event attributes (op, bytes) by id, name and type;
 *     (names of definitions the schema leaves free must still be defined
 *     strings, and no definition record may be of an unknown type);
 *  3. one region per (instance, wrapper), with the id, names, description,
 *     role, paradigm and source location the schema prescribes;
 *  4. the system tree and the location groups (one per host = rank);
 *  5. the locations: exactly the threads the pathmap puts on each rank,
 *     then one service per (proxy served there, instance), with their ids,
 *     properties and event counts;
 *  6. clocks: one ClockProperties whose span holds every event (ns ticks
 *     for monotonic_raw), and two ClockOffset records per location that
 *     bracket its events (zero offsets on rank 0);
 *  7. events: only Enter and Leave, both attributes on each (bytes a
 *     positive multiple of the tree's element size), per-location
 *     time never going back, and visits nesting exactly as the executor
 *     walks (runtime/api/rt_hooks.h): a visit continues only from a gred
 *     into its parent, at most once, and exactly one visit per gred and
 *     operation continues; top-level op numbers count 0, 1, 2... on every
 *     location and instance;
 *  8. with --ops K: every location made exactly its share of the K
 *     operations, every wrapper saw fanin arrivals per operation and, when
 *     no wrapper has fanin > 1, each location has an exact event count;
 *  9. an algorithm node at the root (ins_schema.h, "an algorithm node's
 *     collective and messages"): one location of role algo per host it
 *     spans, after the others, visiting the node in every operation of
 *     every instance (a gred below it does not continue into it on its own
 *     location, and a thread that enters it directly records nothing);
 *     the region's algo keys; the two MPI groups (the algorithm locations
 *     in the node's rank order, ranks 0..n-1) and one communicator per
 *     instance, and none of these without an algorithm node; in each of
 *     its visits exactly one MpiCollectiveBegin .. MpiCollectiveEnd
 *     (ALLREDUCE, the instance's communicator, no root, the tuple's bytes)
 *     and between them only MPI point-to-point events, each post completed
 *     (same request id, op << 32 | step) before the end, on the instance's
 *     communicator, with a peer of the node other than itself; and every
 *     message sent is received, once, by its peer, with the same tag and
 *     length, in the same operation;
 * 10. a PAP-aware algorithm node (the pathmap's run or bcast reads arrival
 *     times; ins_schema.h, "where a PAP-aware node's arrival times came
 *     from"): its region says pap=yes (else pap=no), the parameter
 *     paptree::arrival (STRING) and attributes 2-6 are defined (and none of
 *     them without it), and each visit of the node on an algorithm location
 *     holds exactly one ParameterString of that parameter, after
 *     MpiCollectiveBegin and before any other MPI event: the visit's op,
 *     asked = the pathmap's arrival=, the used source one of equal /
 *     history / edge and no better than asked (history: equal exactly on an
 *     instance's first operation; edge: history never on the first), a
 *     missing rank of the node only when edge fell back, the error and lead
 *     only with arrival=edge, a wait >= 0; so one per operation per host.
 *
 * Each failure is one line "trace_check: FAIL: <what>: expected X, got Y"
 * on stderr.  Exit status: 0 every check passed, 1 some check failed,
 * 2 usage error, or an archive or pathmap that cannot be read at all.
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
#include "instrument/api/ins_schema.h"
#include "runtime/api/rt_pathmap.h"

#define TC_FAIL_LINES    50            /* printed before "... and N more" */
#define TC_STRING_MAX    (1u << 24)    /* largest string id accepted */
#define TC_OP_MAX        (1u << 24)    /* largest op number counted without --ops */
#define TC_INSTANCES_MAX 1024
#define TC_OPS_MAX       (UINT64_C(1) << 30)
/* The group ids of docs/trace-format.md, "Algorithm nodes" (Group 0, Group 1). */
#define INS_GROUP_ALGO_LOCATIONS_ID_ 0u
#define INS_GROUP_ALGO_RANKS_ID_     1u

/* A growable array of `size`-byte items. */
typedef struct tc_vec { void *data; size_t n, cap, size; } tc_vec_t;

/* Global definitions as read; checked once all are in. */
typedef struct tc_attr {
    OTF2_AttributeRef self;
    OTF2_StringRef name, desc;
    OTF2_Type type;
} tc_attr_t;
typedef struct tc_region {
    OTF2_RegionRef self;
    OTF2_StringRef name, canon, desc, file;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    uint32_t begin, end;
} tc_region_t;
typedef struct tc_stn { uint32_t self, parent; OTF2_StringRef name, cls; } tc_stn_t;
typedef struct tc_group {
    uint32_t self, parent;
    OTF2_StringRef name;
    OTF2_LocationGroupType type;
} tc_group_t;
typedef struct tc_ldef {
    OTF2_LocationRef self;
    OTF2_StringRef name;
    OTF2_LocationType type;
    uint64_t nevents;
    OTF2_LocationGroupRef group;
} tc_ldef_t;
/* A property of a system tree node, location group or location. */
typedef struct tc_prop {
    uint64_t owner;
    OTF2_StringRef name;
    OTF2_Type type;
    OTF2_AttributeValue value;
} tc_prop_t;

/* An expected property: its name and what its value must be. */
typedef enum { W_STR, W_NONEMPTY, W_U64, W_ANY_U64, W_ABSENT } tc_want_kind_t;
typedef struct tc_want {
    const char *name;
    tc_want_kind_t kind;
    const char *str;                /* W_STR */
    uint64_t u64;                   /* W_U64 */
} tc_want_t;

/* One open visit on a location's stack. */
typedef struct tc_frame { uint64_t region, op, bytes; bool nested; } tc_frame_t;

/* MPI definitions (an algorithm node's groups and communicators). */
typedef struct tc_mgroup {
    uint32_t self, n;
    OTF2_StringRef name;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint64_t *members;
} tc_mgroup_t;
typedef struct tc_comm { uint32_t self, group, parent; OTF2_StringRef name; } tc_comm_t;
typedef struct tc_param { uint32_t self; OTF2_StringRef name; OTF2_ParameterType type; } tc_param_t;

/* One message as its sender or its receiver recorded it (9.). */
typedef struct tc_msg { uint64_t inst, op, src, dst, tag, len; } tc_msg_t;
/* A posted request of an algorithm location, not completed yet. */
typedef struct tc_req { uint64_t id; bool recv; } tc_req_t;

/* An expected location (from the pathmap) and what was read for it. */
typedef struct tc_loc {
    uint64_t id;
    uint32_t rank;
    bool service;
    bool algo;                      /* the host's part in the algorithm node */
    const rt_thread_map_t *thread;  /* compute */
    rt_node_id_t proxy;             /* service */
    unsigned instance;              /* service */
    rt_node_id_t first;             /* the first wrapper it runs */
    uint32_t path_len;              /* first .. first proxy or core, inclusive */
    char label[112];
    bool defined;
    uint64_t nevents_def, nevents, first_time, last_time;
    bool skipped;                   /* a record without callback was seen */
    unsigned noffsets, nunknown_defs;
    uint64_t off_time[2];
    int64_t offset[2];
    double off_sd[2];
    tc_frame_t *stack;              /* nnodes + 1 frames */
    uint32_t depth;
    uint64_t *next_op;              /* per instance: the next top-level op */
    OTF2_EvtReader *evr;
    /* algo: its rank in the node; the collective of the open visit */
    uint32_t node_rank;
    bool in_coll, coll_done;
    uint32_t coll_events;           /* MPI events after the collective's begin */
    uint32_t arrivals;              /* arrival events in the open visit (10.) */
    uint64_t arrivals_total;        /* arrival events so far, every instance (10.) */
    tc_req_t *reqs;                 /* posted, not completed */
    size_t nreqs, capreqs;
} tc_loc_t;

/* Per region and op: Enter events, and visits that continued to the parent. */
typedef struct tc_count { uint32_t *visits, *nests; size_t len; } tc_count_t;

typedef struct tc_ctx {
    const rt_pathmap_t *pm;
    const rt_tree_t *tree;
    unsigned ninst;
    uint64_t nregions;
    bool have_ops;
    uint64_t ops;
    const char *dir;                /* the archive directory */
    char *pathmap_path;             /* PAPTREE::PATHMAP_PATH */
    char **str;                     /* string definitions by id */
    size_t nstr;
    tc_vec_t attrs, regions, stns, stn_props, groups, group_props, ldefs, loc_props;
    tc_vec_t mgroups, comms, sends, recvs, params;
    const rt_node_t *algo;          /* the tree's algorithm node, or NULL */
    bool pap;                       /* it is PAP-aware (the pathmap says so) */
    bool clock_ns;                  /* PAPTREE::CLOCK is monotonic_raw: ns ticks */
    unsigned nclock, nunknown_defs;
    uint64_t resolution, t_first, t_last;   /* ClockProperties */
    uint64_t n_outside, outside_loc, outside_time;
    tc_loc_t *locs;                 /* sorted by id */
    uint32_t nlocs;
    uint32_t *rank_base;            /* rank r's locations: [rank_base[r], rank_base[r+1]) */
    tc_count_t *counts;             /* per region */
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

/* expect_*(c, expected, got, what...): one FAIL line if they differ. */
static void expect_u64(tc_ctx_t *c, uint64_t exp, uint64_t got, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void expect_u64(tc_ctx_t *c, uint64_t exp, uint64_t got, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (exp == got)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    tc_fail(c, "%s: expected %" PRIu64 ", got %" PRIu64, what, exp, got);
}

static void expect_str(tc_ctx_t *c, const char *exp, const char *got, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void expect_str(tc_ctx_t *c, const char *exp, const char *got, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (got != NULL && strcmp(exp, got) == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (got == NULL)
        tc_fail(c, "%s: expected '%s', got an undefined string", what, exp);
    else
        tc_fail(c, "%s: expected '%s', got '%s'", what, exp, got);
}

/* A failure of the current event of location l: "<label> event <n> ...". */
static void ev_fail(tc_ctx_t *c, const tc_loc_t *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ev_fail(tc_ctx_t *c, const tc_loc_t *l, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tc_fail(c, "%s event %" PRIu64 " %s", l->label, l->nevents - 1, msg);
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

/* Operations on instance i when each thread made K, operation k on k % I. */
static uint64_t ops_of(const tc_ctx_t *c, unsigned inst)
{
    return (c->ops + c->ninst - 1 - inst) / c->ninst;
}

/* ---------------------------------------------------- 1. archive properties */

static char *get_prop(tc_ctx_t *c, OTF2_Reader *rd, const char *name)
{
    char *v = NULL;
    OTF2_ErrorCode rc = OTF2_Reader_GetProperty(rd, name, &v);

    if (rc == OTF2_SUCCESS)
        return v;
    tc_fail(c, "archive property %s: expected present, got %s", name, OTF2_Error_GetName(rc));
    return NULL;
}

/* False if the archive was recorded with another pathmap; `what` names where v was stored. */
static bool check_pathmap_text(tc_ctx_t *c, const char *what, const char *v)
{
    size_t len = strlen(v), i = 0;

    while (i < len && i < c->pm->len && v[i] == c->pm->text[i])
        i++;
    if (len == c->pm->len && i == len)
        return true;
    tc_fail(c, "%s: expected the %zu bytes of %s, got %zu bytes differing from byte %zu "
            "(recorded with another pathmap? nothing else checked)", what, c->pm->len,
            c->pm->path, len, i);
    return false;
}

/*
 * A version-2 archive's pathmap: no INS_PROP_PATHMAP, INS_PROP_PATHMAP_FILE
 * naming INS_PATHMAP_FILE, and that file (malloc'd text, NULL if unreadable).
 */
static char *get_pathmap_file(tc_ctx_t *c, OTF2_Reader *rd, char *path, size_t pathlen)
{
    char *v = NULL, *text;
    size_t len = 0;
    FILE *fp;

    if (OTF2_Reader_GetProperty(rd, INS_PROP_PATHMAP, &v) == OTF2_SUCCESS)
        tc_fail(c, "archive property " INS_PROP_PATHMAP ": expected absent (the pathmap is "
                "longer than %zu bytes: in " INS_PATHMAP_FILE "), got %zu bytes",
                INS_PATHMAP_PROP_MAX, v != NULL ? strlen(v) : 0);
    free(v);
    v = get_prop(c, rd, INS_PROP_PATHMAP_FILE);
    if (v != NULL)
        expect_str(c, INS_PATHMAP_FILE, v, "archive property %s", INS_PROP_PATHMAP_FILE);
    free(v);
    snprintf(path, pathlen, "%s/%s", c->dir, INS_PATHMAP_FILE);
    if ((text = malloc(RT_PATHMAP_BYTES_MAX + 2)) == NULL || (fp = fopen(path, "rb")) == NULL) {
        tc_fail(c, "%s: expected the pathmap, got %s", path, strerror(errno));
        free(text);
        return NULL;
    }
    len = fread(text, 1, RT_PATHMAP_BYTES_MAX + 1, fp);
    fclose(fp);
    text[len] = '\0';
    return text;
}

/* One string property compared with `exp`. */
static void check_str_prop(tc_ctx_t *c, OTF2_Reader *rd, const char *name, const char *exp)
{
    char *v = get_prop(c, rd, name);

    if (v != NULL)
        expect_str(c, exp, v, "archive property %s", name);
    free(v);
}

/* Returns false when the rest cannot be checked (pathmap, tree or I unusable). */
static bool check_properties(tc_ctx_t *c, OTF2_Reader *rd)
{
    bool in_file = c->pm->len > INS_PATHMAP_PROP_MAX;     /* INS_PROP_PATHMAP_FILE */
    char *v, hash[32], hosts[16], where[4200] = "archive property " INS_PROP_PATHMAP;
    uint64_t n;

    check_str_prop(c, rd, INS_PROP_VERSION, INS_SCHEMA_VERSION);
    v = in_file ? get_pathmap_file(c, rd, where, sizeof(where))
                : get_prop(c, rd, INS_PROP_PATHMAP);
    if (v == NULL || !check_pathmap_text(c, where, v)) {
        free(v);
        return false;
    }
    free(v);
    snprintf(hash, sizeof(hash), "%016" PRIx64, c->pm->hash);
    snprintf(hosts, sizeof(hosts), "%u", c->pm->nhosts);
    check_str_prop(c, rd, INS_PROP_PATHMAP_HASH, hash);
    check_str_prop(c, rd, INS_PROP_HOSTS, hosts);
    c->clock_ns = (v = get_prop(c, rd, INS_PROP_CLOCK)) != NULL &&
                  strcmp(v, INS_CLOCK_MONO_RAW) == 0;
    if (v != NULL && !c->clock_ns && strcmp(v, INS_CLOCK_TSC) != 0)
        tc_fail(c, "archive property " INS_PROP_CLOCK ": expected '" INS_CLOCK_TSC "' or '"
                INS_CLOCK_MONO_RAW "', got '%s'", v);
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

/* -------------------------------------- 5. the expected locations, from the pathmap */

static bool serves(const rt_tree_t *t, const rt_node_t *node, uint32_t rank)
{
    return node->kind == RT_NODE_PROXY && t->nodes[node->parent].host == rank;
}

static uint32_t path_len(const rt_tree_t *t, rt_node_id_t id)
{
    uint32_t len = 1;

    for (; t->nodes[id].kind == RT_NODE_GRED && len <= t->nnodes; len++)
        id = t->nodes[id].parent;
    return len;
}

static void loc_init(tc_ctx_t *c, tc_loc_t *l, uint32_t rank, uint32_t index)
{
    const rt_tree_t *t = c->tree;

    l->rank = rank;
    l->id = ((uint64_t)rank << INS_LOC_RANK_SHIFT) | index;
    l->first = l->algo ? t->root : l->service ? t->nodes[l->proxy].parent : l->thread->enter;
    l->path_len = path_len(t, l->first);
    if (l->algo)
        snprintf(l->label, sizeof(l->label), "location %" PRIu64 " (rank %u, algorithm %s)",
                 l->id, rank, t->nodes[t->root].name);
    else if (l->service)
        snprintf(l->label, sizeof(l->label), "location %" PRIu64 " (rank %u, service of %s#%u)",
                 l->id, rank, t->nodes[l->proxy].name, l->instance);
    else
        snprintf(l->label, sizeof(l->label), "location %" PRIu64 " (rank %u, thread %u)",
                 l->id, rank, l->thread->id);
}

/* Rank r's threads (by id), then its services (node order, then instance),
 * then its algorithm location, into out[] unless NULL; returns how many. */
static uint32_t fill_rank(tc_ctx_t *c, uint32_t r, tc_loc_t *out)
{
    const rt_tree_t *t = c->tree;
    uint32_t k = 0;

    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (t->threads[i].host == r && out != NULL) {
            out[k].thread = &t->threads[i];
            loc_init(c, &out[k], r, k);
        }
        k += t->threads[i].host == r;
    }
    for (uint32_t n = 0; n < t->nnodes; n++) {
        for (unsigned inst = 0; serves(t, &t->nodes[n], r) && inst < c->ninst; inst++, k++) {
            if (out != NULL) {
                out[k].service = true;
                out[k].proxy = n;
                out[k].instance = inst;
                loc_init(c, &out[k], r, k);
            }
        }
    }
    if (c->algo != NULL && rt_algo_host_index(c->algo->algo, r) >= 0) {
        if (out != NULL) {
            out[k].algo = true;
            out[k].node_rank = (uint32_t)rt_algo_host_index(c->algo->algo, r);
            loc_init(c, &out[k], r, k);
        }
        k++;
    }
    return k;
}

static bool build_locations(tc_ctx_t *c)
{
    uint32_t nh = c->pm->nhosts;

    c->algo = rt_tree_algo(c->tree);
    c->pap = c->algo != NULL && c->algo->algo->pap;
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
    return (c->counts = calloc(c->nregions, sizeof(*c->counts))) != NULL;
}

static tc_loc_t *find_loc(tc_ctx_t *c, uint64_t id)
{
    uint64_t r = id >> INS_LOC_RANK_SHIFT, idx = id & (INS_LOC_MAX_PER_RANK - 1);

    if (r >= c->pm->nhosts || idx >= c->rank_base[r + 1] - c->rank_base[r])
        return NULL;
    return &c->locs[c->rank_base[r] + idx];
}

/* ------------------------------------------------------ global definitions: read */

#define PUSH(ud, vec, type, ...) do { \
        tc_ctx_t *c_ = (ud); \
        type *p_ = vec_push(c_, &c_->vec); \
        if (p_ == NULL) \
            return OTF2_CALLBACK_INTERRUPT; \
        *p_ = (type){ __VA_ARGS__ }; \
        return OTF2_CALLBACK_SUCCESS; \
    } while (0)

static OTF2_CallbackCode on_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    tc_ctx_t *c = ud;

    (void)rt;
    c->nclock++;
    c->resolution = res;
    c->t_first = off;
    c->t_last = off + len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    tc_ctx_t *c = ud;

    if (self >= TC_STRING_MAX) {
        tc_fail(c, "string id: expected < %u, got %u", TC_STRING_MAX, self);
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
    PUSH(ud, attrs, tc_attr_t, self, name, desc, type);
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canon, OTF2_StringRef desc,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file,
                                   uint32_t begin, uint32_t end)
{
    (void)flags;
    PUSH(ud, regions, tc_region_t, self, name, canon, desc, file, role, paradigm, begin, end);
}

static OTF2_CallbackCode on_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    PUSH(ud, stns, tc_stn_t, self, parent, name, cls);
}

static OTF2_CallbackCode on_group(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator)
{
    (void)creator;
    PUSH(ud, groups, tc_group_t, self, parent, name, type);
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nevents,
                                     OTF2_LocationGroupRef group)
{
    PUSH(ud, ldefs, tc_ldef_t, self, name, type, nevents, group);
}

static OTF2_CallbackCode on_stn_prop(void *ud, OTF2_SystemTreeNodeRef owner, OTF2_StringRef name,
                                     OTF2_Type type, OTF2_AttributeValue value)
{
    PUSH(ud, stn_props, tc_prop_t, owner, name, type, value);
}

static OTF2_CallbackCode on_group_prop(void *ud, OTF2_LocationGroupRef owner,
                                       OTF2_StringRef name, OTF2_Type type,
                                       OTF2_AttributeValue value)
{
    PUSH(ud, group_props, tc_prop_t, owner, name, type, value);
}

static OTF2_CallbackCode on_loc_prop(void *ud, OTF2_LocationRef owner, OTF2_StringRef name,
                                     OTF2_Type type, OTF2_AttributeValue value)
{
    PUSH(ud, loc_props, tc_prop_t, owner, name, type, value);
}

static OTF2_CallbackCode on_mgroup(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    tc_ctx_t *c = ud;
    tc_mgroup_t *g = vec_push(c, &c->mgroups);

    (void)flags;
    if (g == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    *g = (tc_mgroup_t){ self, n, name, type, paradigm, malloc(((size_t)n + 1) * sizeof(uint64_t)) };
    if (g->members == NULL)
        return c->oom = true, OTF2_CALLBACK_INTERRUPT;
    if (n > 0)
        memcpy(g->members, members, (size_t)n * sizeof(uint64_t));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                 OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)flags;
    PUSH(ud, comms, tc_comm_t, self, group, parent, name);
}

static OTF2_CallbackCode on_param(void *ud, OTF2_ParameterRef self, OTF2_StringRef name,
                                  OTF2_ParameterType type)
{
    PUSH(ud, params, tc_param_t, self, name, type);
}

/* A record this OTF2 version does not know (it registers every type it knows). */
static OTF2_CallbackCode on_unknown_def(void *ud)
{
    ((tc_ctx_t *)ud)->nunknown_defs++;
    return OTF2_CALLBACK_SUCCESS;
}

static int prop_cmp(const void *a, const void *b)
{
    uint64_t x = ((const tc_prop_t *)a)->owner, y = ((const tc_prop_t *)b)->owner;

    return (x > y) - (x < y);
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
        OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_mgroup);
        OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
        OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, on_param);
        OTF2_GlobalDefReaderCallbacks_SetUnknownCallback(cb, on_unknown_def);
        rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, c);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    }
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gdr != NULL)
        OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    qsort(c->stn_props.data, c->stn_props.n, sizeof(tc_prop_t), prop_cmp);
    qsort(c->group_props.data, c->group_props.n, sizeof(tc_prop_t), prop_cmp);
    qsort(c->loc_props.data, c->loc_props.n, sizeof(tc_prop_t), prop_cmp);
    return rc;
}

/* ----------------------------------------------- 2-5. global definitions: check */

static void check_prop(tc_ctx_t *c, const tc_prop_t *p, const tc_want_t *w, bool again,
                       const char *owner)
{
    bool is_str = w->kind == W_STR || w->kind == W_NONEMPTY;
    const char *s;

    if (again || w->kind == W_ABSENT) {
        tc_fail(c, "%s property %s: expected %s, got %s", owner, w->name,
                again ? "one" : "none here", again ? "2 or more" : "one");
    } else if (p->type != (is_str ? OTF2_TYPE_STRING : OTF2_TYPE_UINT64)) {
        tc_fail(c, "%s property %s type: expected %s, got OTF2 type %d", owner, w->name,
                is_str ? "string" : "uint64", p->type);
    } else if (w->kind == W_U64) {
        expect_u64(c, w->u64, p->value.uint64, "%s property %s", owner, w->name);
    } else if (w->kind == W_STR) {
        expect_str(c, w->str, str_of(c, p->value.stringRef), "%s property %s", owner, w->name);
    } else if (w->kind == W_NONEMPTY && ((s = str_of(c, p->value.stringRef)) == NULL || !*s)) {
        tc_fail(c, "%s property %s: expected a non-empty string, got %s", owner, w->name,
                s == NULL ? "an undefined string" : "''");
    }
}

/* Checks owner's properties (props sorted by owner) against want[0..nwant), nwant <= 8. */
static void check_props(tc_ctx_t *c, const tc_vec_t *props, uint64_t owner, const char *label,
                        const tc_want_t *want, unsigned nwant)
{
    const tc_prop_t *p = props->data;
    size_t lo = 0, hi = props->n;
    bool seen[8] = { false };

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[mid].owner < owner)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < props->n && p[lo].owner == owner; lo++) {
        const char *name = str_of(c, p[lo].name);
        for (unsigned w = 0; name != NULL && w < nwant; w++) {
            if (strcmp(name, want[w].name) == 0) {
                check_prop(c, &p[lo], &want[w], seen[w], label);
                seen[w] = true;
            }
        }
    }
    for (unsigned w = 0; w < nwant; w++)
        if (!seen[w] && want[w].kind != W_ABSENT)
            tc_fail(c, "%s property %s: expected one, got none", label, want[w].name);
}

/* Marks id as defined; false (after a FAIL line) if out of range or seen before. */
static bool define_once(tc_ctx_t *c, bool *seen, uint64_t id, uint64_t n, const char *what)
{
    if (id < n && !seen[id])
        return seen[id] = true;
    tc_fail(c, "%s id: expected a new id in 0..%" PRIu64 ", got %" PRIu64 "%s", what, n - 1, id,
            id < n ? " again" : "");
    return false;
}

static void check_missing(tc_ctx_t *c, const bool *seen, uint64_t n, const char *what)
{
    for (uint64_t id = 0; id < n; id++)
        if (!seen[id])
            tc_fail(c, "%s %" PRIu64 ": expected a definition, got none", what, id);
}

/* The attributes: op and bytes; with a PAP-aware node also those of 10. */
static void check_attributes(tc_ctx_t *c)
{
    static const struct { const char *name; OTF2_Type type; } want[7] = {
        [INS_ATTR_OP_ID] = { INS_ATTR_OP, OTF2_TYPE_UINT64 },
        [INS_ATTR_BYTES_ID] = { INS_ATTR_BYTES, OTF2_TYPE_UINT64 },
        [INS_ATTR_ASKED_ID] = { INS_ATTR_ASKED, OTF2_TYPE_STRING },
        [INS_ATTR_MISSING_ID] = { INS_ATTR_MISSING, OTF2_TYPE_INT64 },
        [INS_ATTR_ERROR_ID] = { INS_ATTR_ERROR, OTF2_TYPE_INT64 },
        [INS_ATTR_LEAD_ID] = { INS_ATTR_LEAD, OTF2_TYPE_INT64 },
        [INS_ATTR_WAIT_ID] = { INS_ATTR_WAIT, OTF2_TYPE_INT64 },
    };
    const tc_attr_t *a = c->attrs.data;
    const tc_param_t *p = c->params.data;
    uint32_t n = c->pap ? 7 : 2;
    bool seen[7] = { false };

    for (size_t i = 0; i < c->attrs.n; i++) {
        if (!define_once(c, seen, a[i].self, n, "attribute"))
            continue;
        expect_str(c, want[a[i].self].name, str_of(c, a[i].name), "attribute %u name",
                   a[i].self);
        if (str_of(c, a[i].desc) == NULL)
            tc_fail(c, "attribute %u description: expected a defined string, got string %u",
                    a[i].self, a[i].desc);
        expect_u64(c, want[a[i].self].type, a[i].type, "attribute %u type", a[i].self);
    }
    check_missing(c, seen, n, "attribute");
    expect_u64(c, c->pap ? 1 : 0, c->params.n, "parameter definitions (one, %s, for a "
               "PAP-aware algorithm node)", INS_PARAM_ARRIVAL);
    for (size_t i = 0; c->pap && i < c->params.n; i++) {
        expect_u64(c, INS_PARAM_ARRIVAL_ID, p[i].self, "parameter id");
        expect_str(c, INS_PARAM_ARRIVAL, str_of(c, p[i].name), "parameter %u name", p[i].self);
        expect_u64(c, OTF2_PARAMETER_TYPE_STRING, p[i].type, "parameter %u type", p[i].self);
    }
}

/*
 * The algorithm node's keys after fanin, from the pathmap (ins_schema.h):
 * into exp at off; false if they do not fit.
 */
static bool algo_keys(const tc_ctx_t *c, const rt_algo_spec_t *a, char *exp, size_t len,
                      size_t off)
{
    bool rooted = !a->native && a->run != NULL && a->run->coll != RT_COLL_ALLREDUCE;
    int n = snprintf(exp + off, len - off, " " INS_KEY_ALGO "=%s " INS_KEY_BCAST "=%s "
                     INS_KEY_HOSTS "=", a->native ? "native" : a->run->name,
                     a->bcast != NULL ? a->bcast->name : "-");

    for (uint32_t i = 0; n >= 0 && (off += (size_t)n) < len && i < a->nhosts; i++)
        n = snprintf(exp + off, len - off, "%s%s", i > 0 ? "," : "",
                     c->pm->hosts[a->hosts[i]].name);
    if (n < 0 || off >= len)
        return false;
    if (rooted)
        n = snprintf(exp + off, len - off, " " INS_KEY_ROOT "=%d " INS_KEY_ARRIVAL "=%s",
                     (int)a->root, a->arrival == RT_ARRIVAL_HISTORY ? "history" :
                     a->arrival == RT_ARRIVAL_EDGE ? "edge" : "equal");
    else
        n = snprintf(exp + off, len - off, " " INS_KEY_ROOT "=" INS_NO_PARENT " "
                     INS_KEY_ARRIVAL "=%s", a->arrival == RT_ARRIVAL_HISTORY ? "history" :
                     a->arrival == RT_ARRIVAL_EDGE ? "edge" : "equal");
    if (n < 0 || (off += (size_t)n) >= len)
        return false;
    n = snprintf(exp + off, len - off, " " INS_KEY_PAP "=%s", a->pap ? INS_PAP_YES : INS_PAP_NO);
    return n >= 0 && off + (size_t)n < len;
}

static void check_region(tc_ctx_t *c, const tc_region_t *r)
{
    const rt_node_t *n = node_of(c, r->self);
    unsigned inst = (unsigned)(r->self / c->tree->nnodes);
    char exp[1 << 16], label[160];
    int len;

    region_label(c, r->self, label, sizeof(label));
    expect_str(c, n->name, str_of(c, r->name), "%s name", label);
    snprintf(exp, sizeof(exp), INS_REGION_CANONICAL_FMT, c->tree->name, inst, n->name);
    expect_str(c, exp, str_of(c, r->canon), "%s canonical name", label);
    len = snprintf(exp, sizeof(exp),
                   INS_KEY_KIND "=%s " INS_KEY_HOST "=%s " INS_KEY_PARENT "=%s " INS_KEY_TREE
                   "=%s " INS_KEY_INSTANCE "=%u " INS_KEY_NODE "=%u " INS_KEY_FANIN "=%u",
                   rt_node_kind_name(n->kind), c->pm->hosts[n->host].name,
                   n->parent == RT_ID_NONE ? INS_NO_PARENT : c->tree->nodes[n->parent].name,
                   c->tree->name, inst, (unsigned)(r->self % c->tree->nnodes),
                   rt_node_fanin(n));
    if (n->kind == RT_NODE_ALGO && !algo_keys(c, n->algo, exp, sizeof(exp), (size_t)len))
        tc_fail(c, "%s description: longer than this checker's %zu bytes", label, sizeof(exp));
    else
        expect_str(c, exp, str_of(c, r->desc), "%s description", label);
    expect_str(c, c->pathmap_path != NULL ? c->pathmap_path : c->pm->path, str_of(c, r->file),
               "%s source file", label);
    expect_u64(c, OTF2_REGION_ROLE_WRAPPER, r->role, "%s role", label);
    expect_u64(c, OTF2_PARADIGM_USER, r->paradigm, "%s paradigm", label);
    expect_u64(c, n->line, r->begin, "%s begin line", label);
    expect_u64(c, n->line, r->end, "%s end line", label);
}

static void check_regions(tc_ctx_t *c, bool *seen)
{
    const tc_region_t *r = c->regions.data;

    for (size_t i = 0; i < c->regions.n; i++)
        if (define_once(c, seen, r[i].self, c->nregions, "region"))
            check_region(c, &r[i]);
    check_missing(c, seen, c->nregions, "region");
}

static void check_system_tree(tc_ctx_t *c, bool *seen)
{
    const tc_stn_t *s = c->stns.data;
    const tc_want_t want = { INS_STN_PROP_HOSTNAME, W_NONEMPTY, NULL, 0 };
    char label[64];

    for (size_t i = 0; i < c->stns.n; i++) {
        uint32_t id = s[i].self;
        if (!define_once(c, seen, id, c->pm->nhosts + 1, "system tree node"))
            continue;
        expect_str(c, id == 0 ? INS_STN_MACHINE_CLASS : INS_STN_NODE_CLASS, str_of(c, s[i].cls),
                   "system tree node %u class", id);
        expect_u64(c, id == 0 ? OTF2_UNDEFINED_SYSTEM_TREE_NODE : 0, s[i].parent,
                   "system tree node %u parent", id);
        if (id > 0)
            expect_str(c, c->pm->hosts[id - 1].name, str_of(c, s[i].name),
                       "system tree node %u name", id);
    }
    check_missing(c, seen, c->pm->nhosts + 1, "system tree node");
    for (uint32_t h = 1; h <= c->pm->nhosts; h++) {
        snprintf(label, sizeof(label), "system tree node %u", h);
        check_props(c, &c->stn_props, h, label, &want, 1);
    }
}

static void check_groups(tc_ctx_t *c, bool *seen)
{
    const tc_group_t *g = c->groups.data;
    char label[64];

    for (size_t i = 0; i < c->groups.n; i++) {
        if (!define_once(c, seen, g[i].self, c->pm->nhosts, "location group"))
            continue;
        expect_u64(c, OTF2_LOCATION_GROUP_TYPE_PROCESS, g[i].type, "location group %u type",
                   g[i].self);
        if (str_of(c, g[i].name) == NULL)
            tc_fail(c, "location group %u name: expected a defined string, got string %u",
                    g[i].self, g[i].name);
        expect_u64(c, 1 + (uint64_t)g[i].self, g[i].parent,
                   "location group %u system tree parent", g[i].self);
    }
    check_missing(c, seen, c->pm->nhosts, "location group");
    for (uint32_t r = 0; r < c->pm->nhosts; r++) {
        const tc_want_t want[2] = { { INS_LG_PROP_HOST, W_STR, c->pm->hosts[r].name, 0 },
                                    { INS_LG_PROP_RANK, W_U64, NULL, r } };
        snprintf(label, sizeof(label), "location group %u", r);
        check_props(c, &c->group_props, r, label, want, 2);
    }
}

static void check_loc_props(tc_ctx_t *c, const tc_loc_t *l)
{
    const rt_node_t *nodes = c->tree->nodes;
    const tc_want_t compute[6] = {
        { INS_LOC_PROP_ROLE, W_STR, INS_ROLE_COMPUTE, 0 },
        { INS_LOC_PROP_THREAD, W_U64, NULL, l->thread != NULL ? l->thread->id : 0 },
        { INS_LOC_PROP_ENTER, W_STR, nodes[l->first].name, 0 },
        { INS_LOC_PROP_FLUSHES, W_ANY_U64, NULL, 0 },
        { INS_LOC_PROP_PROXY, W_ABSENT, NULL, 0 },
        { INS_LOC_PROP_INSTANCE, W_ABSENT, NULL, 0 } };
    const tc_want_t service[6] = {
        { INS_LOC_PROP_ROLE, W_STR, INS_ROLE_SERVICE, 0 },
        { INS_LOC_PROP_PROXY, W_STR, l->service ? nodes[l->proxy].name : "", 0 },
        { INS_LOC_PROP_INSTANCE, W_U64, NULL, l->instance },
        { INS_LOC_PROP_ENTER, W_STR, nodes[l->first].name, 0 },
        { INS_LOC_PROP_FLUSHES, W_ANY_U64, NULL, 0 },
        { INS_LOC_PROP_THREAD, W_ABSENT, NULL, 0 } };

    const tc_want_t algo[6] = {
        { INS_LOC_PROP_ROLE, W_STR, INS_ROLE_ALGO, 0 },
        { INS_LOC_PROP_ENTER, W_STR, nodes[l->first].name, 0 },
        { INS_LOC_PROP_FLUSHES, W_ANY_U64, NULL, 0 },
        { INS_LOC_PROP_THREAD, W_ABSENT, NULL, 0 },
        { INS_LOC_PROP_PROXY, W_ABSENT, NULL, 0 },
        { INS_LOC_PROP_INSTANCE, W_ABSENT, NULL, 0 } };

    check_props(c, &c->loc_props, l->id, l->label,
                l->algo ? algo : l->service ? service : compute, 6);
}

static void check_locations(tc_ctx_t *c)
{
    const tc_ldef_t *d = c->ldefs.data;

    for (size_t i = 0; i < c->ldefs.n; i++) {
        tc_loc_t *l = find_loc(c, d[i].self);
        if (l == NULL || l->defined) {
            tc_fail(c, "location %" PRIu64 ": expected %s, got a definition", d[i].self,
                    l == NULL ? "no such location (not in the pathmap)" : "one definition");
            continue;
        }
        l->defined = true;
        l->nevents_def = d[i].nevents;
        expect_u64(c, OTF2_LOCATION_TYPE_CPU_THREAD, d[i].type, "%s type", l->label);
        expect_u64(c, l->rank, d[i].group, "%s group", l->label);
        if (str_of(c, d[i].name) == NULL)
            tc_fail(c, "%s name: expected a defined string, got string %u", l->label, d[i].name);
    }
    for (uint32_t i = 0; i < c->nlocs; i++) {
        if (!c->locs[i].defined)
            tc_fail(c, "%s: expected a definition, got none", c->locs[i].label);
        else
            check_loc_props(c, &c->locs[i]);
    }
}

/* The algorithm location of node rank i, or NULL. */
static const tc_loc_t *algo_loc_of(const tc_ctx_t *c, uint32_t i)
{
    uint32_t r = c->algo->algo->hosts[i];

    for (uint32_t k = c->rank_base[r]; k < c->rank_base[r + 1]; k++)
        if (c->locs[k].algo)
            return &c->locs[k];
    return NULL;
}

/* 9. The MPI groups and communicators: exactly the node's, or none. */
static void check_mpi_defs(tc_ctx_t *c)
{
    const tc_mgroup_t *g = c->mgroups.data;
    const tc_comm_t *m = c->comms.data;
    uint32_t n = c->algo != NULL ? c->algo->algo->nhosts : 0;
    bool seen_comm[TC_INSTANCES_MAX] = { false };
    char exp[256];

    if (c->algo == NULL) {
        expect_u64(c, 0, c->mgroups.n, "Group definitions (no algorithm node)");
        expect_u64(c, 0, c->comms.n, "Comm definitions (no algorithm node)");
        return;
    }
    expect_u64(c, 2, c->mgroups.n, "Group definitions (an algorithm node)");
    for (size_t i = 0; i < c->mgroups.n; i++) {
        bool locs = g[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS;

        if (!locs && g[i].type != OTF2_GROUP_TYPE_COMM_GROUP) {
            tc_fail(c, "group %u type: expected COMM_LOCATIONS or COMM_GROUP, got %d", g[i].self,
                    g[i].type);
            continue;
        }
        expect_u64(c, locs ? INS_GROUP_ALGO_LOCATIONS_ID_ : INS_GROUP_ALGO_RANKS_ID_, g[i].self,
                   "%s group id", locs ? "COMM_LOCATIONS" : "COMM_GROUP");
        expect_str(c, locs ? INS_GROUP_ALGO_LOCATIONS : INS_GROUP_ALGO_RANKS,
                   str_of(c, g[i].name), "group %u name", g[i].self);
        expect_u64(c, OTF2_PARADIGM_MPI, g[i].paradigm, "group %u paradigm", g[i].self);
        expect_u64(c, n, g[i].n, "group %u members", g[i].self);
        for (uint32_t k = 0; k < n && k < g[i].n; k++) {
            const tc_loc_t *l = algo_loc_of(c, k);
            expect_u64(c, locs ? (l != NULL ? l->id : UINT64_MAX) : k, g[i].members[k],
                       "group %u member %u (%s)", g[i].self, k,
                       locs ? "the algorithm location of node rank k" : "rank k");
        }
    }
    expect_u64(c, c->ninst, c->comms.n, "Comm definitions (one per instance)");
    for (size_t i = 0; i < c->comms.n; i++) {
        if (!define_once(c, seen_comm, m[i].self, c->ninst, "comm"))
            continue;
        snprintf(exp, sizeof(exp), INS_REGION_CANONICAL_FMT, c->tree->name, m[i].self,
                 c->algo->name);
        expect_str(c, exp, str_of(c, m[i].name), "comm %u name", m[i].self);
        expect_u64(c, INS_GROUP_ALGO_RANKS_ID_, m[i].group, "comm %u group", m[i].self);
        expect_u64(c, OTF2_UNDEFINED_COMM, m[i].parent, "comm %u parent", m[i].self);
    }
}

static bool check_definitions(tc_ctx_t *c)
{
    bool *seen = calloc(c->nregions + c->pm->nhosts + 1, sizeof(bool));

    if (seen == NULL)
        return false;
    check_attributes(c);
    check_regions(c, seen);
    memset(seen, 0, c->pm->nhosts + 1);
    check_system_tree(c, seen);
    memset(seen, 0, c->pm->nhosts + 1);
    check_groups(c, seen);
    check_locations(c);
    check_mpi_defs(c);
    expect_u64(c, 0, c->nunknown_defs, "global definition records of unknown type");
    free(seen);
    return true;
}

/* ---------------------------------------------------------------- 6. clocks */

static OTF2_CallbackCode on_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    tc_loc_t *l = ud;

    if (l->noffsets < 2) {
        l->off_time[l->noffsets] = time;
        l->offset[l->noffsets] = offset;
        l->off_sd[l->noffsets] = sd;
    }
    l->noffsets++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_unknown_local(void *ud)
{
    ((tc_loc_t *)ud)->nunknown_defs++;
    return OTF2_CALLBACK_SUCCESS;
}

static void read_local_defs(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
    OTF2_ErrorCode rc = cb != NULL ? OTF2_Reader_OpenDefFiles(rd) : OTF2_ERROR_MEM_ALLOC_FAILED;

    if (rc != OTF2_SUCCESS) {
        tc_fail(c, "local definition files: expected readable, got %s", OTF2_Error_GetName(rc));
    } else {
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_offset);
        OTF2_DefReaderCallbacks_SetUnknownCallback(cb, on_unknown_local);
    }
    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < c->nlocs; i++) {
        tc_loc_t *l = &c->locs[i];
        OTF2_DefReader *dr = l->defined ? OTF2_Reader_GetDefReader(rd, l->id) : NULL;
        OTF2_ErrorCode lrc = OTF2_ERROR_INVALID_ARGUMENT;
        uint64_t n = 0;

        if (dr != NULL) {
            if ((lrc = OTF2_Reader_RegisterDefCallbacks(rd, dr, cb, l)) == OTF2_SUCCESS)
                lrc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_Reader_CloseDefReader(rd, dr);
        }
        if (l->defined && lrc != OTF2_SUCCESS)
            tc_fail(c, "%s local definitions: expected readable, got %s", l->label,
                    OTF2_Error_GetName(lrc));
    }
    if (rc == OTF2_SUCCESS)
        OTF2_Reader_CloseDefFiles(rd);
    OTF2_DefReaderCallbacks_Delete(cb);
}

/*
 * The two ClockOffset records were taken at the start and the end of the run,
 * so they bracket the location's events.  Events are read with the offsets
 * applied (global time), the records hold local time: allow for the offset.
 */
static void check_offset_span(tc_ctx_t *c, const tc_loc_t *l)
{
    uint64_t a0 = l->offset[0] < 0 ? 0 - (uint64_t)l->offset[0] : (uint64_t)l->offset[0];
    uint64_t a1 = l->offset[1] < 0 ? 0 - (uint64_t)l->offset[1] : (uint64_t)l->offset[1];
    uint64_t slack = a0 > a1 ? a0 : a1;

    if (l->nevents == 0)
        return;
    if (l->off_time[0] > l->first_time && l->off_time[0] - l->first_time > slack)
        tc_fail(c, "%s first ClockOffset time: expected <= the first event (%" PRIu64 "), "
                "got %" PRIu64, l->label, l->first_time, l->off_time[0]);
    if (l->off_time[1] < l->last_time && l->last_time - l->off_time[1] > slack)
        tc_fail(c, "%s last ClockOffset time: expected >= the last event (%" PRIu64 "), "
                "got %" PRIu64, l->label, l->last_time, l->off_time[1]);
}

static void check_clocks(tc_ctx_t *c)
{
    expect_u64(c, 1, c->nclock, "ClockProperties definitions");
    if (c->nclock > 0 && c->resolution == 0)
        tc_fail(c, "ClockProperties resolution: expected > 0, got 0");
    if (c->nclock > 0 && c->clock_ns)
        expect_u64(c, 1000000000, c->resolution, "ClockProperties resolution (clock "
                   INS_CLOCK_MONO_RAW " ticks in ns)");
    if (c->nclock > 0 && c->n_outside > 0)
        tc_fail(c, "events outside the ClockProperties span [%" PRIu64 ", %" PRIu64 "]: "
                "expected 0, got %" PRIu64 " (the first on location %" PRIu64 " at %" PRIu64 ")",
                c->t_first, c->t_last, c->n_outside, c->outside_loc, c->outside_time);
    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        if (!l->defined)
            continue;
        expect_u64(c, 0, l->nunknown_defs, "%s local definition records of unknown type",
                   l->label);
        expect_u64(c, 2, l->noffsets, "%s ClockOffset records", l->label);
        if (l->noffsets < 2)
            continue;
        check_offset_span(c, l);
        if (l->off_time[1] <= l->off_time[0])
            tc_fail(c, "%s ClockOffset times: expected the second > the first (%" PRIu64 "), "
                    "got %" PRIu64, l->label, l->off_time[0], l->off_time[1]);
        if (!(l->off_sd[0] >= 0 && l->off_sd[1] >= 0))
            tc_fail(c, "%s ClockOffset standard deviations: expected >= 0, got %g and %g",
                    l->label, l->off_sd[0], l->off_sd[1]);
        if (l->rank == 0 && (l->offset[0] != 0 || l->offset[1] != 0))
            tc_fail(c, "%s ClockOffset offsets: expected 0 and 0 on rank 0, got %" PRId64
                    " and %" PRId64, l->label, l->offset[0], l->offset[1]);
    }
}

/* ---------------------------------------------------------------- 7. events */

/* Counts a visit (or a continuation) of region in op; false if op is out of range. */
static bool count_op(tc_ctx_t *c, uint64_t region, uint64_t op, bool nest)
{
    tc_count_t *k = &c->counts[region];
    uint64_t limit = c->have_ops ? ops_of(c, (unsigned)(region / c->tree->nnodes)) : TC_OP_MAX;

    if (op >= limit)
        return false;
    if (op >= k->len) {
        size_t len = c->have_ops ? limit : (op + 1) * 2, old = k->len;
        uint32_t *v = realloc(k->visits, len * sizeof(*v)), *n;
        if (v != NULL)
            k->visits = v;
        if (v == NULL || (n = realloc(k->nests, len * sizeof(*n))) == NULL)
            return c->oom = true;
        k->nests = n;
        memset(v + old, 0, (len - old) * sizeof(*v));
        memset(n + old, 0, (len - old) * sizeof(*n));
        k->len = len;
    }
    (nest ? k->nests : k->visits)[op]++;
    return true;
}

/* What every event shares: its location (NULL if unknown), time and count. */
static tc_loc_t *event_begin(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t, const char *kind)
{
    tc_loc_t *l = find_loc(c, id);
    uint64_t pos = 0;

    c->total_events++;
    if (l == NULL) {
        tc_fail(c, "location %" PRIu64 " %s event: expected a pathmap location, got one", id, kind);
        return NULL;
    }
    if (++l->nevents == 1)
        l->first_time = t;
    else if (t < l->last_time)
        ev_fail(c, l, "(%s) time: expected >= %" PRIu64 ", got %" PRIu64, kind, l->last_time, t);
    /* Records without a callback are skipped silently, but the reader's position
     * counts them.  (The global reader frees a location's reader at its end:
     * ask only here, while it delivers.) */
    if (!l->skipped && l->evr != NULL && OTF2_EvtReader_GetPos(l->evr, &pos) == OTF2_SUCCESS &&
        pos != l->nevents) {
        ev_fail(c, l, "(%s) position: expected record %" PRIu64 " (only records of the "
                "types checked here so far), got record %" PRIu64, kind, l->nevents, pos);
        l->skipped = true;
    }
    l->last_time = t;
    if ((t < c->t_first || t > c->t_last) && c->n_outside++ == 0) {
        c->outside_loc = id;
        c->outside_time = t;
    }
    return l;
}

static bool event_attrs(tc_ctx_t *c, const tc_loc_t *l, OTF2_AttributeList *al,
                        const char *kind, uint64_t *op, uint64_t *bytes)
{
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    OTF2_ErrorCode rc;

    if (n != 2)
        ev_fail(c, l, "(%s) attributes: expected 2, got %u", kind, n);
    if (n == 0)
        return false;
    if ((rc = OTF2_AttributeList_GetUint64(al, INS_ATTR_OP_ID, op)) != OTF2_SUCCESS ||
        (rc = OTF2_AttributeList_GetUint64(al, INS_ATTR_BYTES_ID, bytes)) != OTF2_SUCCESS) {
        ev_fail(c, l, "(%s) attributes op and bytes: expected uint64, got %s", kind,
                OTF2_Error_GetName(rc));
        return false;
    }
    return true;
}

/* A visit that starts a walk: the location's first wrapper, the next op. */
static void enter_top(tc_ctx_t *c, tc_loc_t *l, uint64_t region, uint64_t op, uint64_t bytes)
{
    unsigned inst = (unsigned)(region / c->tree->nnodes);
    uint64_t want = (uint64_t)(l->service ? l->instance : inst) * c->tree->nnodes + l->first;
    char a[160], b[160];

    if (region != want)
        ev_fail(c, l, "top-level Enter: expected %s, got %s", region_label(c, want, a, sizeof(a)),
                region_label(c, region, b, sizeof(b)));
    if (op != l->next_op[inst])
        ev_fail(c, l, "top-level op on instance %u: expected %" PRIu64 ", got %" PRIu64, inst,
                l->next_op[inst], op);
    if (bytes == 0 || bytes % rt_dtype_size(c->tree->dtype) != 0)
        ev_fail(c, l, "bytes: expected a positive multiple of %zu (%s), got %" PRIu64,
                rt_dtype_size(c->tree->dtype), rt_dtype_name(c->tree->dtype), bytes);
    l->next_op[inst] = op + 1;
}

/* A visit inside f: only from a gred, once, into its parent, same op and bytes. */
static void enter_nested(tc_ctx_t *c, tc_loc_t *l, tc_frame_t *f, uint64_t region,
                         uint64_t op, uint64_t bytes)
{
    const rt_node_t *outer = node_of(c, f->region);
    uint64_t want = f->region - f->region % c->tree->nnodes + outer->parent;
    char a[160], b[160];

    region_label(c, f->region, a, sizeof(a));
    region_label(c, region, b, sizeof(b));
    if (outer->kind != RT_NODE_GRED)
        ev_fail(c, l, "Enter inside %s: expected none (a %s never continues), got %s", a,
                rt_node_kind_name(outer->kind), b);
    else if (c->tree->nodes[outer->parent].kind == RT_NODE_ALGO)
        ev_fail(c, l, "Enter inside %s: expected none (its parent, an algorithm node, is "
                "visited on the host's algorithm location), got %s", a, b);
    else if (f->nested)
        ev_fail(c, l, "Enter inside %s: expected none (a gred visit continues once), got %s",
                a, b);
    else if (region != want)
        ev_fail(c, l, "nested Enter: expected %s, got %s", region_label(c, want, a, sizeof(a)), b);
    if (op != f->op || bytes != f->bytes)
        ev_fail(c, l, "nested Enter op/bytes: expected %" PRIu64 "/%" PRIu64 ", got %" PRIu64
                "/%" PRIu64, f->op, f->bytes, op, bytes);
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
        ev_fail(c, l, "Enter region: expected < %" PRIu64 ", got %u", c->nregions, region);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (l->depth == 0) {
        enter_top(c, l, region, op, bytes);
        l->in_coll = l->coll_done = false;
        l->arrivals = l->coll_events = 0;
    }
    else
        enter_nested(c, l, &l->stack[l->depth - 1], region, op, bytes);
    if (!count_op(c, region, op, false))
        ev_fail(c, l, "Enter %s op: expected < %" PRIu64 ", got %" PRIu64,
                region_label(c, region, a, sizeof(a)),
                c->have_ops ? ops_of(c, (unsigned)(region / c->tree->nnodes)) : TC_OP_MAX, op);
    if (l->depth > c->tree->nnodes)
        ev_fail(c, l, "nesting depth: expected <= %u, got more", c->tree->nnodes);
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
    region_label(c, region, b, sizeof(b));
    if (l->depth == 0) {
        ev_fail(c, l, "Leave of %s: expected an open visit, got none", b);
        return OTF2_CALLBACK_SUCCESS;
    }
    f = &l->stack[--l->depth];
    if (region != f->region || op != f->op || bytes != f->bytes)
        ev_fail(c, l, "Leave: expected %s op %" PRIu64 " bytes %" PRIu64 ", got %s op %" PRIu64
                " bytes %" PRIu64, region_label(c, f->region, a, sizeof(a)), f->op, f->bytes,
                b, op, bytes);
    if (l->algo && l->depth == 0 && (l->in_coll || !l->coll_done))
        ev_fail(c, l, "Leave of %s: expected after its MpiCollectiveEnd, got %s", b,
                l->in_coll ? "an open collective" : "no collective in the visit");
    if (l->algo && l->depth == 0 && l->arrivals != (c->pap ? 1u : 0u))
        ev_fail(c, l, "Leave of %s op %" PRIu64 ": expected %u %s event%s in the visit (%s), "
                "got %u", b, f->op, c->pap ? 1 : 0, INS_PARAM_ARRIVAL, c->pap ? "" : "s",
                c->pap ? "PAP-aware" : "not PAP-aware", l->arrivals);
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------------------------------- 9. an algorithm node's MPI events */

/*
 * An MPI event of an algorithm location inside its visit of the node (and,
 * but for the begin, inside the collective): its location, or NULL after
 * a FAIL line.  *f is the visit.
 */
static tc_loc_t *mpi_event(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t,
                           const char *kind, bool begin, tc_frame_t **f)
{
    tc_loc_t *l = event_begin(c, id, t, kind);

    if (l == NULL)
        return NULL;
    if (!l->algo) {
        ev_fail(c, l, "type: expected Enter or Leave (MPI events only on an algorithm "
                "location), got %s", kind);
        return NULL;
    }
    if (l->depth != 1) {
        ev_fail(c, l, "(%s): expected inside the visit of %s, got at depth %u", kind,
                c->algo->name, l->depth);
        return NULL;
    }
    *f = &l->stack[0];
    if (!begin)
        l->coll_events++;
    if (begin ? l->in_coll || l->coll_done : !l->in_coll) {
        ev_fail(c, l, "(%s): expected %s, got %s", kind,
                begin ? "one collective per visit" : "inside MpiCollectiveBegin .. End",
                begin ? "a second" : "outside");
        return NULL;
    }
    return l;
}

static unsigned inst_of(const tc_ctx_t *c, const tc_frame_t *f)
{
    return (unsigned)(f->region / c->tree->nnodes);
}

/* A message's fields: communicator, peer, request. */
static void check_msg(tc_ctx_t *c, const tc_loc_t *l, const tc_frame_t *f, const char *kind,
                      uint32_t peer, OTF2_CommRef comm, uint64_t req)
{
    expect_u64(c, inst_of(c, f), comm, "%s event %" PRIu64 " (%s) communicator", l->label,
               l->nevents - 1, kind);
    if (peer >= c->algo->algo->nhosts || peer == l->node_rank)
        ev_fail(c, l, "(%s) peer: expected a rank of the node 0..%u other than %u, got %u",
                kind, c->algo->algo->nhosts - 1, l->node_rank, peer);
    if (req >> 32 != f->op)
        ev_fail(c, l, "(%s) request %" PRIu64 ": expected op %" PRIu64 " << 32 | step", kind,
                req, f->op);
}

/* Posts (add) or completes (remove) request id; a FAIL line if it was (not) posted. */
static void request(tc_ctx_t *c, tc_loc_t *l, const char *kind, uint64_t id, bool recv,
                    bool add)
{
    for (size_t i = 0; i < l->nreqs; i++) {
        if (l->reqs[i].id != id)
            continue;
        if (add)
            ev_fail(c, l, "(%s) request %" PRIu64 ": expected a new one, got one pending",
                    kind, id);
        else if (l->reqs[i].recv != recv)
            ev_fail(c, l, "(%s) request %" PRIu64 ": expected a %s, got a %s's", kind, id,
                    recv ? "receive" : "send", recv ? "send" : "receive");
        else
            l->reqs[i] = l->reqs[--l->nreqs];
        return;
    }
    if (!add) {
        ev_fail(c, l, "(%s) request %" PRIu64 ": expected a posted one, got none", kind, id);
        return;
    }
    if (l->nreqs == l->capreqs) {
        size_t cap = l->capreqs ? 2 * l->capreqs : 16;
        tc_req_t *r = realloc(l->reqs, cap * sizeof(*r));
        if (r == NULL) {
            c->oom = true;
            return;
        }
        l->reqs = r;
        l->capreqs = cap;
    }
    l->reqs[l->nreqs++] = (tc_req_t){ id, recv };
}

static void note_msg(tc_ctx_t *c, tc_vec_t *v, const tc_frame_t *f, uint64_t src, uint64_t dst,
                     uint64_t tag, uint64_t len)
{
    tc_msg_t *m = vec_push(c, v);

    if (m != NULL)
        *m = (tc_msg_t){ inst_of(c, f), f->op, src, dst, tag, len };
}

static OTF2_CallbackCode on_coll_begin(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al)
{
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(ud, id, t, "MpiCollectiveBegin", true, &f);

    (void)al;
    if (l != NULL)
        l->in_coll = true;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_end(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                     OTF2_AttributeList *al, OTF2_CollectiveOp op,
                                     OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiCollectiveEnd", false, &f);
    char what[160];

    (void)al;
    if (l == NULL)
        return OTF2_CALLBACK_SUCCESS;
    snprintf(what, sizeof(what), "%s event %" PRIu64 " (MpiCollectiveEnd)", l->label,
             l->nevents - 1);
    expect_u64(c, OTF2_COLLECTIVE_OP_ALLREDUCE, op, "%s operation", what);
    expect_u64(c, inst_of(c, f), comm, "%s communicator", what);
    expect_u64(c, OTF2_UNDEFINED_UINT32, root, "%s root", what);
    expect_u64(c, f->bytes, sent, "%s bytes sent (the tuple's)", what);
    expect_u64(c, f->bytes, received, "%s bytes received (the tuple's)", what);
    if (l->nreqs > 0)
        ev_fail(c, l, "(MpiCollectiveEnd): expected every request completed, got %zu pending "
                "(request %" PRIu64 ")", l->nreqs, l->reqs[0].id);
    l->nreqs = 0;
    l->in_coll = false;
    l->coll_done = true;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiIsend", false, &f);

    (void)al;
    if (l != NULL) {
        check_msg(c, l, f, "MpiIsend", receiver, comm, req);
        request(c, l, "MpiIsend", req, false, true);
        note_msg(c, &c->sends, f, l->node_rank, receiver, tag, len);
    }
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_isend_done(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, uint64_t req)
{
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(ud, id, t, "MpiIsendComplete", false, &f);

    (void)al;
    if (l != NULL)
        request(ud, l, "MpiIsendComplete", req, false, false);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_irecv_post(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                       OTF2_AttributeList *al, uint64_t req)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiIrecvRequest", false, &f);

    (void)al;
    if (l != NULL) {
        if (req >> 32 != f->op)
            ev_fail(c, l, "(MpiIrecvRequest) request %" PRIu64 ": expected op %" PRIu64
                    " << 32 | step", req, f->op);
        request(c, l, "MpiIrecvRequest", req, true, true);
    }
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_irecv(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                                  uint32_t tag, uint64_t len, uint64_t req)
{
    tc_ctx_t *c = ud;
    tc_frame_t *f;
    tc_loc_t *l = mpi_event(c, id, t, "MpiIrecv", false, &f);

    (void)al;
    if (l != NULL) {
        check_msg(c, l, f, "MpiIrecv", sender, comm, req);
        request(c, l, "MpiIrecv", req, true, false);
        note_msg(c, &c->recvs, f, sender, l->node_rank, tag, len);
    }
    return c->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* ---------------------------------- 10. a PAP-aware node's arrival events */

/* The source a string names (0 equal, 1 history, 2 edge), or -1. */
static int source_of(const char *s)
{
    static const char *const names[] = { INS_ARRIVAL_EQUAL, INS_ARRIVAL_HISTORY,
                                         INS_ARRIVAL_EDGE };

    for (int i = 0; s != NULL && i < 3; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* An int64 attribute: true and *v if present (absent is not an OTF2 error here). */
static bool attr_i64(OTF2_AttributeList *al, OTF2_AttributeRef id, int64_t *v)
{
    return OTF2_AttributeList_TestAttributeByID(al, id) &&
           OTF2_AttributeList_GetInt64(al, id, v) == OTF2_SUCCESS;
}

/* The used source and the optional attributes against the asked one (10.). */
/* history is per instance: equal exactly on an instance's first operation.
   edge's fallback is the node's previous operation, whatever its instance:
   only the node's very first operation on this host has no history. */
static void check_arrival_values(tc_ctx_t *c, tc_loc_t *l, const tc_frame_t *f,
                                 int used, OTF2_AttributeList *al)
{
    int asked = (int)c->algo->algo->arrival;
    int64_t v = 0, missing = -1;
    bool first = f->op == 0, node_first = l->arrivals_total++ == 0, est;

    if (used < 0 || used > asked || (asked == RT_ARRIVAL_HISTORY && used != (first ? 0 : 1))
        || (asked == RT_ARRIVAL_EDGE && node_first && used == RT_ARRIVAL_HISTORY))
        ev_fail(c, l, "(%s) op %" PRIu64 ": expected a source used that arrival=%s allows "
                "there, got %d", INS_PARAM_ARRIVAL, f->op, rt_arrival_name(c->algo->algo->arrival),
                used);
    if (attr_i64(al, INS_ATTR_MISSING_ID, &missing) &&
        (asked != RT_ARRIVAL_EDGE || used == RT_ARRIVAL_EDGE || missing < 0 ||
         missing >= (int64_t)c->algo->algo->nhosts))
        ev_fail(c, l, "(%s) %s: expected a rank of the node, and only when edge fell back, "
                "got %" PRId64, INS_PARAM_ARRIVAL, INS_ATTR_MISSING, missing);
    est = attr_i64(al, INS_ATTR_ERROR_ID, &v) || attr_i64(al, INS_ATTR_LEAD_ID, &v);
    if (est && asked != RT_ARRIVAL_EDGE)
        ev_fail(c, l, "(%s) %s/%s: expected none without arrival=edge, got one",
                INS_PARAM_ARRIVAL, INS_ATTR_ERROR, INS_ATTR_LEAD);
    if (!attr_i64(al, INS_ATTR_WAIT_ID, &v) || v < 0)
        ev_fail(c, l, "(%s) %s: expected an int64 >= 0, got %s", INS_PARAM_ARRIVAL,
                INS_ATTR_WAIT, "none or a negative one");
}

static OTF2_CallbackCode on_param_string(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                         OTF2_AttributeList *al, OTF2_ParameterRef param,
                                         OTF2_StringRef value)
{
    tc_ctx_t *c = ud;
    tc_loc_t *l = event_begin(c, id, t, "ParameterString");
    uint32_t n = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    OTF2_StringRef asked = OTF2_UNDEFINED_STRING;
    uint64_t op = UINT64_MAX;
    tc_frame_t *f;

    if (l == NULL)
        return OTF2_CALLBACK_SUCCESS;
    if (!c->pap || !l->algo || l->depth != 1 || !l->in_coll || l->coll_events > 0 ||
        l->arrivals++ > 0) {
        ev_fail(c, l, "(ParameterString): expected one only in a PAP-aware node's visit, after "
                "MpiCollectiveBegin and before its messages, got one %s", !c->pap ?
                "in a trace without one" : !l->algo ? "on another location" : l->arrivals > 1
                ? "more" : "elsewhere");
        return OTF2_CALLBACK_SUCCESS;
    }
    f = &l->stack[0];
    expect_u64(c, INS_PARAM_ARRIVAL_ID, param, "%s event %" PRIu64 " parameter", l->label,
               l->nevents - 1);
    if (n < 3 || n > 6 || !OTF2_AttributeList_TestAttributeByID(al, INS_ATTR_OP_ID)
        || !OTF2_AttributeList_TestAttributeByID(al, INS_ATTR_ASKED_ID)
        || OTF2_AttributeList_GetUint64(al, INS_ATTR_OP_ID, &op) != OTF2_SUCCESS
        || OTF2_AttributeList_GetStringRef(al, INS_ATTR_ASKED_ID, &asked) != OTF2_SUCCESS) {
        ev_fail(c, l, "(%s) attributes: expected op, asked, wait and at most 3 others, got %u",
                INS_PARAM_ARRIVAL, n);
        return OTF2_CALLBACK_SUCCESS;
    }
    expect_u64(c, f->op, op, "%s event %" PRIu64 " (%s) op", l->label, l->nevents - 1,
               INS_PARAM_ARRIVAL);
    expect_str(c, rt_arrival_name(c->algo->algo->arrival), str_of(c, asked),
               "%s event %" PRIu64 " (%s) asked", l->label, l->nevents - 1, INS_PARAM_ARRIVAL);
    check_arrival_values(c, l, f, source_of(str_of(c, value)), al);
    return OTF2_CALLBACK_SUCCESS;
}

static void other_event(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t, const char *kind)
{
    tc_loc_t *l = event_begin(c, id, t, kind);

    if (l != NULL)
        ev_fail(c, l, "type: expected Enter or Leave, got %s", kind);
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_TimeStamp stop)
{
    (void)al, (void)stop;
    other_event(ud, id, t, "BufferFlush");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_unknown(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                    OTF2_AttributeList *al)
{
    (void)al;
    other_event(ud, id, t, "an unknown record");
    return OTF2_CALLBACK_SUCCESS;
}

/* Runs the global event reader (time order over all locations) with our callbacks. */
static OTF2_ErrorCode run_events(tc_ctx_t *c, OTF2_Reader *rd, OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_ErrorCode rc;
    uint64_t n = 0;

    if (ger == NULL) {
        tc_fail(c, "global event reader: expected one, got none; no event checked");
        return OTF2_ERROR_INVALID_DATA;
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, on_flush);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_post);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetParameterStringCallback(cb, on_param_string);
    OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(cb, on_unknown);
    rc = OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, c);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
    if (rc != OTF2_SUCCESS && !c->oom)
        tc_fail(c, "reading events: expected success, got %s", OTF2_Error_GetName(rc));
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    return rc;
}

/* Reads every defined location's events; false if they could not all be read. */
static bool read_events(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_ErrorCode rc = cb != NULL ? OTF2_Reader_OpenEvtFiles(rd) : OTF2_ERROR_MEM_ALLOC_FAILED;
    bool missing = false;

    if (rc != OTF2_SUCCESS) {
        tc_fail(c, "event files: expected readable, got %s", OTF2_Error_GetName(rc));
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        return false;
    }
    /* Every location needs its own reader before the global one exists. */
    for (uint32_t i = 0; i < c->nlocs; i++) {
        tc_loc_t *l = &c->locs[i];
        if (l->defined && (l->evr = OTF2_Reader_GetEvtReader(rd, l->id)) == NULL) {
            tc_fail(c, "%s event reader: expected one, got none (no .evt file?); no event "
                    "checked", l->label);
            missing = true;
        }
    }
    if (!missing)
        rc = run_events(c, rd, cb);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    return !missing && rc == OTF2_SUCCESS;
}

/* ----------------------------------------------------- end of trace, 8. counts */

static void check_ends(tc_ctx_t *c)
{
    char a[160];

    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        if (l->defined && l->depth > 0)
            tc_fail(c, "%s open visits at the end: expected 0, got %u (innermost %s)", l->label,
                    l->depth, region_label(c, l->stack[l->depth - 1].region, a, sizeof(a)));
        if (l->defined)
            expect_u64(c, l->nevents, l->nevents_def, "%s numberOfEvents (read, defined)",
                       l->label);
    }
}

/* Exactly one visit per gred and operation (the last arrival) continues. */
static void check_last_arrivals(tc_ctx_t *c)
{
    char a[160];

    for (uint64_t r = 0; r < c->nregions; r++) {
        const tc_count_t *k = &c->counts[r];
        const rt_node_t *n = node_of(c, r);
        /* below an algorithm node, the continuation is the algorithm location's visit */
        uint32_t want = n->kind == RT_NODE_GRED &&
                        c->tree->nodes[n->parent].kind == RT_NODE_ALGO ? 0 : 1;
        for (size_t op = 0; n->kind == RT_NODE_GRED && op < k->len; op++) {
            if (k->visits[op] > 0 && k->nests[op] != want) {
                tc_fail(c, "%s op %zu: expected exactly %u of its %u visits to continue to the "
                        "parent, got %u", region_label(c, r, a, sizeof(a)), op, want,
                        k->visits[op], k->nests[op]);
                break;                   /* one line per region is enough */
            }
        }
    }
}

static int msg_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;

    for (int i = 0; i < 6; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* 9. Every message sent was received once, by its peer, with its tag and length. */
static void check_messages(tc_ctx_t *c)
{
    tc_msg_t *s = c->sends.data, *r = c->recvs.data;
    size_t i = 0;

    if (c->sends.n > 1)                  /* data is NULL in a trace without messages */
        qsort(s, c->sends.n, sizeof(*s), msg_cmp);
    if (c->recvs.n > 1)
        qsort(r, c->recvs.n, sizeof(*r), msg_cmp);
    expect_u64(c, c->sends.n, c->recvs.n, "messages received (MpiIrecv), against those sent "
               "(MpiIsend)");
    while (i < c->sends.n && i < c->recvs.n && msg_cmp(&s[i], &r[i]) == 0)
        i++;
    if (i < c->sends.n || i < c->recvs.n) {
        const tc_msg_t *m = i < c->sends.n ? &s[i] : &r[i];
        tc_fail(c, "messages: expected every send received by its peer with its tag and "
                "length, got the first difference at %s#%" PRIu64 "/%s op %" PRIu64 ", rank %"
                PRIu64 " -> %" PRIu64 ", tag %" PRIu64 ", %" PRIu64 " bytes (%s)",
                c->tree->name, m->inst, c->tree->nodes[c->tree->root].name, m->op, m->src,
                m->dst, m->tag, m->len, i < c->sends.n ? "a send" : "a receive");
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
    char a[160];

    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        uint64_t served = 0;
        for (unsigned inst = 0; l->defined && inst < c->ninst; inst++) {
            /* a thread that enters the algorithm node directly records nothing: its
               host's algorithm location visits the node */
            bool none = l->service ? inst != l->instance
                                   : !l->algo && c->algo != NULL && l->first == c->tree->root;
            uint64_t want = none ? 0 : ops_of(c, inst);
            expect_u64(c, want, l->next_op[inst], "%s operations on instance %u", l->label, inst);
            served += want;
        }
        if (exact && l->defined)
            expect_u64(c, 2 * served * l->path_len, l->nevents, "%s events (every fanin <= 1: "
                       "2 x %" PRIu64 " ops x path of %u)", l->label, served, l->path_len);
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
        region_label(c, r, a, sizeof(a));
        expect_u64(c, want * fanin, sum, "%s Enter events (%" PRIu64 " ops x fanin %u)", a,
                   want, fanin);
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
            "  --ops K     every computational thread made K operations, operation k on\n"
            "              instance k %% I: also check the exact counts\n"
            "  -h, --help  this text\n"
            "Exit status: 0 all checks passed, 1 a check failed (one 'FAIL' line each),\n"
            "2 usage error or an unreadable archive or pathmap.\n");
}

/* Returns -1 to go on, else the exit status. */
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
        } else if ((a[0] == '-' && a[1] != '\0') || npos == 2) {
            return usage(stderr), 2;
        } else {
            *(npos++ == 0 ? dir : pmap) = a;
        }
    }
    return npos == 2 ? -1 : (usage(stderr), 2);
}

/* Everything after the archive properties; returns -1 or an exit status. */
static int check_archive(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_ErrorCode rc;

    if (!build_locations(c))
        return io_error("out of memory");
    if ((rc = read_global_defs(c, rd)) != OTF2_SUCCESS)
        return c->oom ? io_error("out of memory")
                      : io_error("cannot read the global definitions: %s", OTF2_Error_GetName(rc));
    if (!check_definitions(c))
        return io_error("out of memory");
    for (uint32_t i = 0; i < c->nlocs; i++)
        if (c->locs[i].defined &&
            (rc = OTF2_Reader_SelectLocation(rd, c->locs[i].id)) != OTF2_SUCCESS)
            return io_error("cannot select %s: %s", c->locs[i].label, OTF2_Error_GetName(rc));
    read_local_defs(c, rd);
    if (read_events(c, rd)) {
        check_ends(c);
        check_last_arrivals(c);
        check_messages(c);
        if (c->have_ops)
            check_counts(c);
    }
    check_clocks(c);
    return c->oom ? io_error("out of memory") : -1;
}

static void ctx_cleanup(tc_ctx_t *c)
{
    tc_vec_t *vecs[] = { &c->attrs, &c->regions, &c->stns, &c->stn_props, &c->groups,
                         &c->group_props, &c->ldefs, &c->loc_props, &c->mgroups, &c->comms,
                         &c->sends, &c->recvs, &c->params };

    for (size_t i = 0; i < c->mgroups.n; i++)
        free(((tc_mgroup_t *)c->mgroups.data)[i].members);

    for (size_t i = 0; i < c->nstr; i++)
        free(c->str[i]);
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        free(vecs[i]->data);
    for (uint32_t i = 0; c->locs != NULL && i < c->nlocs; i++)
        free(c->locs[i].stack), free(c->locs[i].next_op), free(c->locs[i].reqs);
    for (uint64_t r = 0; c->counts != NULL && r < c->nregions; r++)
        free(c->counts[r].visits), free(c->counts[r].nests);
    free(c->str), free(c->locs), free(c->rank_base), free(c->counts), free(c->pathmap_path);
}

static void report(const tc_ctx_t *c)
{
    if (c->nfail > TC_FAIL_LINES)
        fprintf(stderr, "trace_check: ... and %lu more\n", c->nfail - TC_FAIL_LINES);
    else if (c->nfail == 0 && c->have_ops)
        printf("trace_check: ok: %u locations, %zu regions, %" PRIu64 " events, %" PRIu64
               " ops per thread\n", c->nlocs, c->regions.n, c->total_events, c->ops);
    else if (c->nfail == 0)
        printf("trace_check: ok: %u locations, %zu regions, %" PRIu64 " events, ops per "
               "thread not checked (no --ops)\n", c->nlocs, c->regions.n, c->total_events);
}

int main(int argc, char **argv)
{
    tc_ctx_t c = { .attrs.size = sizeof(tc_attr_t), .regions.size = sizeof(tc_region_t),
                   .stns.size = sizeof(tc_stn_t), .stn_props.size = sizeof(tc_prop_t),
                   .groups.size = sizeof(tc_group_t), .group_props.size = sizeof(tc_prop_t),
                   .ldefs.size = sizeof(tc_ldef_t), .loc_props.size = sizeof(tc_prop_t),
                   .mgroups.size = sizeof(tc_mgroup_t), .comms.size = sizeof(tc_comm_t),
                   .sends.size = sizeof(tc_msg_t), .recvs.size = sizeof(tc_msg_t),
                   .params.size = sizeof(tc_param_t) };
    const char *dir = NULL, *pmap = NULL;
    rt_pathmap_t *pm = NULL;
    OTF2_Reader *rd = NULL;
    char anchor[4096];
    cm_err_t err;
    FILE *fp;
    int status = parse_args(argc, argv, &c, &dir, &pmap);

    if (status >= 0)
        return status;
    if (rt_pathmap_load(pmap, &pm, &err) != CM_OK) {
        cm_err_print(stderr, "trace_check: ", &err);
        return 2;
    }
    c.pm = pm;
    c.dir = dir;
    snprintf(anchor, sizeof(anchor), "%s/%s", dir, INS_ANCHOR_FILE);
    if ((fp = fopen(anchor, "rb")) == NULL)
        status = io_error("cannot open %s: %s", anchor, strerror(errno));
    else if (fclose(fp) != 0 || (rd = OTF2_Reader_Open(anchor)) == NULL)
        status = io_error("OTF2 cannot open the archive %s", anchor);
    else if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS)
        status = io_error("OTF2_Reader_SetSerialCollectiveCallbacks failed");
    else if (check_properties(&c, rd))
        status = check_archive(&c, rd);
    if (rd != NULL)
        OTF2_Reader_Close(rd);
    if (status < 0)
        report(&c);
    ctx_cleanup(&c);
    rt_pathmap_destroy(pm);
    return status >= 0 ? status : c.nfail > 0;
}
