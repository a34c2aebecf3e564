/*
 * defs.c - the archive's definitions: global ones on rank 0, and each
 * location's local ones (its two clock offsets).
 *
 * Rank 0 writes every global definition: the clock properties, the
 * attributes (and, for a PAP-aware algorithm node, the arrival parameter
 * and its source names, whose string ids are fixed), the system tree and location groups (one per host), one
 * region per wrapper of each tree instance, every rank's locations, and,
 * when the tree's root is an algorithm node, its MPI groups and one
 * communicator per instance.
 * What a location is comes from the executor, as each rank registered it
 * (rt_hooks.h): each rank sends rank 0 its locations in index order with
 * their event and flush counts, so nothing here re-derives them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "instrument/ins_int.h"
#include "common/cm_arena.h"
#include "common/cm_strmap.h"

/*
 * One location as it travels to rank 0: what the executor registered and
 * what was recorded.  All uint64_t, so that one MPI_Gatherv carries it.
 */
typedef struct loc_info {
    uint64_t events, flushes;
    uint64_t kind;               /* rt_location_kind_t */
    uint64_t thread;             /* index into tree->threads, or RT_ID_NONE */
    uint64_t proxy, instance, enter;
} loc_info_t;

#define LOC_INFO_WORDS ((int)(sizeof(loc_info_t) / sizeof(uint64_t)))

/* Host-wide facts rank 0 gathers. */
typedef struct host_info {
    char    hostname[256];
    int64_t min_ts, max_ts;     /* in rank 0's ticks; INT64_MAX/MIN if no events */
} host_info_t;

/* The global definition writer, with each string written once. */
typedef struct global_writer {
    OTF2_GlobalDefWriter *w;
    OTF2_StringRef        next;
    OTF2_ErrorCode        rc;
    cm_strmap_t           strings;    /* text -> its String id */
    cm_arena_t           *arena;      /* the keys' copies */
} global_writer_t;

/* ---- local definitions ----------------------------------------------------- */

OTF2_ErrorCode ins__defs_write_locals(ins_trace_t *tr)
{
    const ins_offset_t *o[2] = { &tr->off0, &tr->off1 };
    OTF2_ErrorCode rc = OTF2_Archive_OpenDefFiles(tr->ar), rc2;

    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < tr->nloc; i++) {
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(tr->ar, tr->locs[i].id);

        if (w == NULL) {
            rc = OTF2_ERROR_MEM_ALLOC_FAILED;
            break;
        }
        for (int k = 0; k < 2 && rc == OTF2_SUCCESS; k++)
            rc = OTF2_DefWriter_WriteClockOffset(w, o[k]->time, o[k]->offset,
                                                 (double)o[k]->rtt / 2.0);
        rc2 = OTF2_Archive_CloseDefWriter(tr->ar, w);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
    }
    rc2 = OTF2_Archive_CloseDefFiles(tr->ar);
    return rc != OTF2_SUCCESS ? rc : rc2;
}

/* ---- the global writer ------------------------------------------------------ */

static OTF2_StringRef gw_str(global_writer_t *g, const char *s)
{
    size_t len = strlen(s);
    uint32_t id;
    char *key;

    if (cm_strmap_get(&g->strings, s, len, &id) == CM_OK)
        return id;
    if ((key = cm_arena_strndup(g->arena, s, len)) == NULL ||
        cm_strmap_put(&g->strings, key, len, g->next) != CM_OK) {
        g->rc = g->rc != OTF2_SUCCESS ? g->rc : OTF2_ERROR_MEM_ALLOC_FAILED;
        return g->next;
    }
    if (g->rc == OTF2_SUCCESS)
        g->rc = OTF2_GlobalDefWriter_WriteString(g->w, g->next, s);
    return g->next++;
}

static void gw_check(global_writer_t *g, OTF2_ErrorCode rc)
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

/*
 * An algorithm node's region description: `base` (the keys every region
 * has), then the algo keys of ins_schema.h.  Malloc'd (the host list may
 * be long), or NULL.
 */
static char *algo_desc(const rt_pathmap_t *pm, const rt_algo_spec_t *a, const char *base)
{
    size_t len = strlen(base) + 256, off;
    char root[16] = "-", *s;

    for (uint32_t i = 0; i < a->nhosts; i++)
        len += strlen(pm->hosts[a->hosts[i]].name) + 1;
    if ((s = malloc(len)) == NULL)
        return NULL;
    if (!a->native && a->run != NULL && a->run->coll != RT_COLL_ALLREDUCE)
        snprintf(root, sizeof(root), "%d", (int)a->root);
    off = (size_t)snprintf(s, len, "%s " INS_KEY_ALGO "=%s " INS_KEY_BCAST "=%s "
                           INS_KEY_HOSTS "=", base,
                           a->native || a->run == NULL ? "native" : a->run->name,
                           a->bcast != NULL ? a->bcast->name : "-");
    for (uint32_t i = 0; i < a->nhosts; i++)
        off += (size_t)snprintf(s + off, len - off, "%s%s", i ? "," : "",
                                pm->hosts[a->hosts[i]].name);
    snprintf(s + off, len - off, " " INS_KEY_ROOT "=%s " INS_KEY_ARRIVAL "=%s " INS_KEY_PAP
             "=%s", root, rt_arrival_name(a->arrival), a->pap ? INS_PAP_YES : INS_PAP_NO);
    return s;
}

static void gw_regions(global_writer_t *g, ins_trace_t *tr)
{
    const rt_tree_t *t = tr->tree;
    OTF2_StringRef file = gw_str(g, tr->pm->path);

    for (unsigned inst = 0; inst < tr->ninst; inst++) {
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const rt_node_t *node = &t->nodes[n];
            const char *parent = node->parent == RT_ID_NONE ? INS_NO_PARENT
                                                            : t->nodes[node->parent].name;
            char canon[256], desc[512];

            snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst, node->name);
            snprintf(desc, sizeof(desc),
                     INS_KEY_KIND "=%s " INS_KEY_HOST "=%s " INS_KEY_PARENT "=%s "
                     INS_KEY_TREE "=%s " INS_KEY_INSTANCE "=%u " INS_KEY_NODE "=%u "
                     INS_KEY_FANIN "=%u", rt_node_kind_name(node->kind),
                     tr->pm->hosts[node->host].name, parent, t->name, inst, n,
                     rt_node_fanin(node));
            OTF2_StringRef sn = gw_str(g, node->name), sc = gw_str(g, canon), sd;

            if (node->kind == RT_NODE_ALGO) {
                char *full = algo_desc(tr->pm, node->algo, desc);

                if (full == NULL) {
                    gw_check(g, OTF2_ERROR_MEM_ALLOC_FAILED);
                    continue;
                }
                sd = gw_str(g, full);
                free(full);
            } else {
                sd = gw_str(g, desc);
            }
            gw_check(g, OTF2_GlobalDefWriter_WriteRegion(
                            g->w, inst * t->nnodes + n, sn, sc, sd, OTF2_REGION_ROLE_WRAPPER,
                            OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, file, node->line,
                            node->line));
        }
    }
}

static void gw_loc_prop(global_writer_t *g, OTF2_LocationRef id, const char *name,
                        OTF2_Type type, OTF2_AttributeValue value)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, id, gw_str(g, name), type,
                                                           value));
}

/* One location and its properties, as its rank registered it. */
static void gw_location(global_writer_t *g, ins_trace_t *tr, int rank,
                        const rt_location_t *where, const loc_info_t *c)
{
    const rt_tree_t *t = tr->tree;
    OTF2_LocationRef id = ins__loc_id(rank, where->index);
    bool compute = where->kind == RT_LOCATION_COMPUTE, algo = where->kind == RT_LOCATION_ALGO;
    char name[256];

    if (compute)
        snprintf(name, sizeof(name), "thread %u", where->thread->id);
    else if (algo)
        snprintf(name, sizeof(name), "algo %s", tr->pm->hosts[rank].name);
    else
        snprintf(name, sizeof(name), "service %s#%u", t->nodes[where->proxy].name,
                 where->instance);
    gw_check(g, OTF2_GlobalDefWriter_WriteLocation(g->w, id, gw_str(g, name),
                                                   OTF2_LOCATION_TYPE_CPU_THREAD, c->events,
                                                   (OTF2_LocationGroupRef)rank));
    gw_loc_prop(g, id, INS_LOC_PROP_ROLE, OTF2_TYPE_STRING,
                av_str(gw_str(g, compute ? INS_ROLE_COMPUTE
                                         : algo ? INS_ROLE_ALGO : INS_ROLE_SERVICE)));
    if (compute) {
        gw_loc_prop(g, id, INS_LOC_PROP_THREAD, OTF2_TYPE_UINT64, av_u64(where->thread->id));
    } else if (!algo) {
        gw_loc_prop(g, id, INS_LOC_PROP_PROXY, OTF2_TYPE_STRING,
                    av_str(gw_str(g, t->nodes[where->proxy].name)));
        gw_loc_prop(g, id, INS_LOC_PROP_INSTANCE, OTF2_TYPE_UINT64, av_u64(where->instance));
    }
    gw_loc_prop(g, id, INS_LOC_PROP_ENTER, OTF2_TYPE_STRING,
                av_str(gw_str(g, t->nodes[where->enter].name)));
    gw_loc_prop(g, id, INS_LOC_PROP_FLUSHES, OTF2_TYPE_UINT64, av_u64(c->flushes));
}

/* The clock properties, spanning every host's events, and the attributes. */
static void gw_clock(global_writer_t *g, ins_trace_t *tr, double rate,
                     const host_info_t *hosts)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t realtime;

    for (int r = 0; r < tr->size; r++) {
        lo = hosts[r].min_ts < lo ? hosts[r].min_ts : lo;
        hi = hosts[r].max_ts > hi ? hosts[r].max_ts : hi;
    }
    if (lo > hi)
        lo = hi = (int64_t)tr->clk0.ticks;
    /* The wall-clock time of `lo`, from the pair read at open. */
    realtime = (uint64_t)(tr->clk0.real_ns +
                          (int64_t)((double)(lo - (int64_t)tr->clk0.ticks) / rate * 1e9));
    gw_check(g, OTF2_GlobalDefWriter_WriteClockProperties(g->w, (uint64_t)rate, (uint64_t)lo,
                                                          (uint64_t)(hi - lo + 1), realtime));
    gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(
                    g->w, INS_ATTR_OP_ID, gw_str(g, INS_ATTR_OP),
                    gw_str(g, "operation number on the tree instance, from 0"),
                    OTF2_TYPE_UINT64));
    gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(
                    g->w, INS_ATTR_BYTES_ID, gw_str(g, INS_ATTR_BYTES),
                    gw_str(g, "tuple size in bytes"), OTF2_TYPE_UINT64));
}

/* Whether the tree's root is a PAP-aware algorithm node (it records arrival events). */
static bool tree_pap(const rt_tree_t *t)
{
    const rt_node_t *node = rt_tree_algo(t);

    return node != NULL && node->algo->pap;
}

/*
 * A PAP-aware node's definitions (ins_schema.h): the three source names as
 * the first strings (their ids are fixed: ins_int.h), before anything else
 * is written; then, with the other attributes, the arrival parameter and
 * its attributes.
 */
static void gw_arrival_strings(global_writer_t *g)
{
    for (uint32_t a = 0; a < INS_NARRIVAL; a++)
        if (gw_str(g, rt_arrival_name((rt_arrival_t)a)) != INS_STR_ARRIVAL0 + a)
            gw_check(g, OTF2_ERROR_INVALID_DATA);
}

static void gw_arrival_defs(global_writer_t *g)
{
    static const struct { uint32_t id; const char *name, *desc; OTF2_Type type; } attrs[] = {
        { INS_ATTR_ASKED_ID, INS_ATTR_ASKED, "the node's arrival= source", OTF2_TYPE_STRING },
        { INS_ATTR_MISSING_ID, INS_ATTR_MISSING, "edge fell back: node rank of the first "
          "host with no estimate", OTF2_TYPE_INT64 },
        { INS_ATTR_ERROR_ID, INS_ATTR_ERROR, "estimated minus actual arrival at the node, ns",
          OTF2_TYPE_INT64 },
        { INS_ATTR_LEAD_ID, INS_ATTR_LEAD, "how long before its arrival the host's estimate "
          "was shared, ns", OTF2_TYPE_INT64 },
        { INS_ATTR_WAIT_ID, INS_ATTR_WAIT, "wait for the arrival vector, ns", OTF2_TYPE_INT64 },
    };

    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(g->w, attrs[i].id,
                                                        gw_str(g, attrs[i].name),
                                                        gw_str(g, attrs[i].desc),
                                                        attrs[i].type));
    gw_check(g, OTF2_GlobalDefWriter_WriteParameter(g->w, INS_PARAM_ARRIVAL_ID,
                                                    gw_str(g, INS_PARAM_ARRIVAL),
                                                    OTF2_PARAMETER_TYPE_STRING));
}

/* The machine, and per host a system tree node and a location group. */
static void gw_hosts(global_writer_t *g, ins_trace_t *tr, const host_info_t *hosts)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                    g->w, 0, gw_str(g, hosts[0].hostname), gw_str(g, INS_STN_MACHINE_CLASS),
                    OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g->w, 0,
                                                               OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
    for (int r = 0; r < tr->size; r++) {
        const char *host = tr->pm->hosts[r].name;
        char name[256];

        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                        g->w, 1 + (uint32_t)r, gw_str(g, host),
                        gw_str(g, INS_STN_NODE_CLASS), 0));
        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                        g->w, 1 + (uint32_t)r, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(
                        g->w, 1 + (uint32_t)r, gw_str(g, INS_STN_PROP_HOSTNAME),
                        OTF2_TYPE_STRING, av_str(gw_str(g, hosts[r].hostname))));
        snprintf(name, sizeof(name), "%s (rank %d)", host, r);
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroup(
                        g->w, (OTF2_LocationGroupRef)r, gw_str(g, name),
                        OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + (uint32_t)r,
                        OTF2_UNDEFINED_LOCATION_GROUP));
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                        g->w, (OTF2_LocationGroupRef)r, gw_str(g, INS_LG_PROP_HOST),
                        OTF2_TYPE_STRING, av_str(gw_str(g, host))));
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                        g->w, (OTF2_LocationGroupRef)r, gw_str(g, INS_LG_PROP_RANK),
                        OTF2_TYPE_UINT64, av_u64((uint64_t)r)));
    }
}

/*
 * A location as rank `rank` sent it, pointing back into the tree; -1 if
 * it names a thread or node the tree does not have.
 */
static int loc_decode(const rt_tree_t *t, int rank, uint32_t index, const loc_info_t *c,
                      rt_location_t *where_p)
{
    bool compute = c->kind == RT_LOCATION_COMPUTE;

    if (c->kind == RT_LOCATION_ALGO) {
        /* the host's part in the root, an algorithm node that spans it */
        if (rt_tree_algo(t) == NULL || c->enter != t->root ||
            rt_algo_host_index(t->nodes[t->root].algo, (rt_host_id_t)rank) < 0)
            return -1;
    } else if ((compute ? c->thread >= t->nthreads : c->proxy >= t->nnodes) ||
               c->enter >= t->nnodes || c->kind > RT_LOCATION_LINK) {
        return -1;
    }
    *where_p = (rt_location_t){ (rt_location_kind_t)c->kind, index, (rt_host_id_t)rank,
                                compute ? &t->threads[c->thread] : NULL,
                                (rt_node_id_t)c->proxy, (unsigned)c->instance,
                                (rt_node_id_t)c->enter };
    return 0;
}

/*
 * The algorithm node's MPI definitions (ins_schema.h): the group of its
 * locations in the node's rank order (algo[host] = that host's algorithm
 * location, as registered), the group of its ranks, one communicator per
 * instance.
 */
static void gw_algo_comms(global_writer_t *g, ins_trace_t *tr, const OTF2_LocationRef *algo)
{
    const rt_tree_t *t = tr->tree;
    const rt_node_t *node = rt_tree_algo(t);
    uint64_t *locs, *ranks;
    uint32_t n;

    if (node == NULL)
        return;
    n = node->algo->nhosts;
    locs = calloc(n, sizeof(*locs));
    ranks = calloc(n, sizeof(*ranks));
    for (uint32_t i = 0; locs != NULL && ranks != NULL && i < n; i++) {
        locs[i] = algo[node->algo->hosts[i]];
        ranks[i] = i;
        if (locs[i] == OTF2_UNDEFINED_LOCATION)
            gw_check(g, OTF2_ERROR_INVALID_DATA);    /* a host did not register it */
    }
    if (locs == NULL || ranks == NULL) {
        gw_check(g, OTF2_ERROR_MEM_ALLOC_FAILED);
    } else {
        gw_check(g, OTF2_GlobalDefWriter_WriteGroup(
                        g->w, INS_GROUP_ALGO_LOCATIONS_ID, gw_str(g, INS_GROUP_ALGO_LOCATIONS),
                        OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                        n, locs));
        gw_check(g, OTF2_GlobalDefWriter_WriteGroup(
                        g->w, INS_GROUP_ALGO_RANKS_ID, gw_str(g, INS_GROUP_ALGO_RANKS),
                        OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                        n, ranks));
        for (unsigned inst = 0; inst < tr->ninst; inst++) {
            char canon[256];

            snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst, node->name);
            gw_check(g, OTF2_GlobalDefWriter_WriteComm(g->w, inst, gw_str(g, canon),
                                                       INS_GROUP_ALGO_RANKS_ID,
                                                       OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
        }
    }
    free(locs);
    free(ranks);
}

/* Rank 0: every global definition; infos[] holds every rank's locations. */
static OTF2_ErrorCode write_globals(ins_trace_t *tr, double rate, const host_info_t *hosts,
                                    const loc_info_t *infos, const int *nlocs)
{
    global_writer_t g = { OTF2_Archive_GetGlobalDefWriter(tr->ar), 0, OTF2_SUCCESS,
                          { 0 }, cm_arena_create() };
    OTF2_LocationRef *algo;          /* per rank: its algorithm location, if any */
    OTF2_ErrorCode rc;

    cm_strmap_init(&g.strings);
    if (g.w == NULL || g.arena == NULL) {
        cm_arena_destroy(g.arena);
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    if ((algo = malloc((size_t)tr->size * sizeof(*algo))) == NULL)
        gw_check(&g, OTF2_ERROR_MEM_ALLOC_FAILED);
    if (tree_pap(tr->tree))
        gw_arrival_strings(&g);
    gw_clock(&g, tr, rate, hosts);
    if (tree_pap(tr->tree))
        gw_arrival_defs(&g);
    gw_hosts(&g, tr, hosts);
    for (int r = 0; r < tr->size; r++) {
        if (algo != NULL)
            algo[r] = OTF2_UNDEFINED_LOCATION;
        for (int i = 0; i < nlocs[r]; i++, infos++) {
            rt_location_t where;

            if (loc_decode(tr->tree, r, (uint32_t)i, infos, &where) != 0) {
                gw_check(&g, OTF2_ERROR_INVALID_DATA);
                continue;
            }
            if (where.kind == RT_LOCATION_ALGO && algo != NULL)
                algo[r] = ins__loc_id(r, (uint32_t)i);
            gw_location(&g, tr, r, &where, infos);
        }
    }
    gw_regions(&g, tr);
    if (algo != NULL)
        gw_algo_comms(&g, tr, algo);
    free(algo);
    cm_strmap_cleanup(&g.strings);
    cm_arena_destroy(g.arena);
    rc = OTF2_Archive_CloseGlobalDefWriter(tr->ar, g.w);
    return g.rc != OTF2_SUCCESS ? g.rc : rc;
}

/* This host's name and the span of its events, in rank 0's ticks. */
static void host_extent(ins_trace_t *tr, host_info_t *me)
{
    memset(me, 0, sizeof(*me));
    gethostname(me->hostname, sizeof(me->hostname) - 1);
    me->min_ts = INT64_MAX;
    me->max_ts = INT64_MIN;
    for (uint32_t i = 0; i < tr->nloc; i++) {
        const ins_loc_t *loc = &tr->locs[i];

        if (loc->written == 0)
            continue;
        /* Into rank 0's ticks with the start offset; padded by the drift below. */
        if ((int64_t)loc->first_ts + tr->off0.offset < me->min_ts)
            me->min_ts = (int64_t)loc->first_ts + tr->off0.offset;
        if ((int64_t)loc->last_ts + tr->off1.offset > me->max_ts)
            me->max_ts = (int64_t)loc->last_ts + tr->off1.offset;
    }
    if (me->min_ts != INT64_MAX) {
        int64_t pad = llabs(tr->off1.offset - tr->off0.offset) + (int64_t)tr->off0.rtt;
        me->min_ts -= pad;
        me->max_ts += pad;
    }
}

/* This rank's locations as registered, with their counts; caller frees. */
static loc_info_t *loc_infos(const ins_trace_t *tr)
{
    loc_info_t *mine = calloc(tr->nloc + 1, sizeof(*mine));

    for (uint32_t i = 0; mine != NULL && i < tr->nloc; i++) {
        const rt_location_t *w = &tr->where[i];

        mine[i] = (loc_info_t){ tr->locs[i].written, tr->locs[i].flushes, w->kind,
                                w->thread != NULL ? (uint64_t)(w->thread - tr->tree->threads)
                                                  : RT_ID_NONE,
                                w->proxy, w->instance, w->enter };
    }
    return mine;
}

OTF2_ErrorCode ins__defs_write_globals(ins_trace_t *tr, double rate)
{
    host_info_t me, *hosts = NULL;
    loc_info_t *mine = loc_infos(tr), *all = NULL;
    int *nlocs = NULL, *displs = NULL, n = (int)tr->nloc * LOC_INFO_WORDS, total = 0;
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    if (mine == NULL)
        n = 0;                  /* this rank fails; rank 0 still gathers */
    host_extent(tr, &me);
    if (tr->rank == 0) {
        hosts = calloc((size_t)tr->size, sizeof(*hosts));
        nlocs = calloc((size_t)tr->size, sizeof(int));
        displs = calloc((size_t)tr->size, sizeof(int));
    }
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, hosts, (int)sizeof(me), MPI_BYTE, 0, tr->comm);
    MPI_Gather(&n, 1, MPI_INT, nlocs, 1, MPI_INT, 0, tr->comm);
    if (tr->rank == 0) {
        for (int r = 0; nlocs != NULL && displs != NULL && r < tr->size; r++) {
            displs[r] = total;
            total += nlocs[r];
        }
        all = calloc((size_t)total / LOC_INFO_WORDS + 1, sizeof(*all));
    }
    MPI_Gatherv(mine, n, MPI_UINT64_T, all, nlocs, displs, MPI_UINT64_T, 0, tr->comm);
    if (tr->rank == 0) {
        if (hosts == NULL || all == NULL || nlocs == NULL || displs == NULL)
            rc = OTF2_ERROR_MEM_ALLOC_FAILED;
        for (int r = 0; nlocs != NULL && r < tr->size; r++)
            nlocs[r] /= LOC_INFO_WORDS;
        if (rc == OTF2_SUCCESS)
            rc = write_globals(tr, rate, hosts, all, nlocs);
    }
    if (mine == NULL)
        rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    free(mine);
    free(all);
    free(hosts);
    free(nlocs);
    free(displs);
    return rc;
}
