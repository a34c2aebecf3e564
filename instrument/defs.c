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
#include "runtime/api/rt_auto.h"
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

/* ---- local definitions ----------------------------------------------------- */

OTF2_ErrorCode ins__defs_write_locals(ins_trace_t *tr)
{
    OTF2_LocationRef *ids = calloc(tr->nloc + 1, sizeof(*ids));
    OTF2_ErrorCode rc;

    for (uint32_t i = 0; ids != NULL && i < tr->nloc; i++)
        ids[i] = tr->locs[i].id;
    /* Without the list this rank still takes part, with no locations. */
    rc = ins__defs_write_offsets(tr->ar, ids, ids != NULL ? tr->nloc : 0, &tr->off0, &tr->off1,
                                 NULL);
    if (ids == NULL)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    free(ids);
    return rc;
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
                           a->autocfg != NULL ? "auto"
                           : a->native || a->run == NULL ? "native" : a->run->name,
                           a->bcast != NULL ? a->bcast->name : "-");
    for (uint32_t i = 0; i < a->nhosts; i++)
        off += (size_t)snprintf(s + off, len - off, "%s%s", i ? "," : "",
                                pm->hosts[a->hosts[i]].name);
    snprintf(s + off, len - off, " " INS_KEY_ROOT "=%s " INS_KEY_ARRIVAL "=%s " INS_KEY_PAP
             "=%s", root, rt_arrival_name(a->arrival), a->pap ? INS_PAP_YES : INS_PAP_NO);
    return s;
}

static void gw_regions(ins_gw_t *g, ins_trace_t *tr)
{
    const rt_tree_t *t = tr->tree;
    OTF2_StringRef file = ins__gw_str(g, tr->pm->path);

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
            OTF2_StringRef sn = ins__gw_str(g, node->name), sc = ins__gw_str(g, canon), sd;

            if (node->kind == RT_NODE_ALGO) {
                char *full = algo_desc(tr->pm, node->algo, desc);

                if (full == NULL) {
                    ins__gw_check(g, OTF2_ERROR_MEM_ALLOC_FAILED);
                    continue;
                }
                sd = ins__gw_str(g, full);
                free(full);
            } else {
                sd = ins__gw_str(g, desc);
            }
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteRegion(
                            g->w, inst * t->nnodes + n, sn, sc, sd, OTF2_REGION_ROLE_WRAPPER,
                            OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, file, node->line,
                            node->line));
        }
    }
}

static void gw_loc_prop(ins_gw_t *g, OTF2_LocationRef id, const char *name,
                        OTF2_Type type, OTF2_AttributeValue value)
{
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, id, ins__gw_str(g, name), type,
                                                           value));
}

/* One location and its properties, as its rank registered it. */
static void gw_location(ins_gw_t *g, ins_trace_t *tr, int rank,
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
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocation(g->w, id, ins__gw_str(g, name),
                                                   OTF2_LOCATION_TYPE_CPU_THREAD, c->events,
                                                   (OTF2_LocationGroupRef)rank));
    gw_loc_prop(g, id, INS_LOC_PROP_ROLE, OTF2_TYPE_STRING,
                ins__av_str(ins__gw_str(g, compute ? INS_ROLE_COMPUTE
                                         : algo ? INS_ROLE_ALGO : INS_ROLE_SERVICE)));
    if (compute) {
        gw_loc_prop(g, id, INS_LOC_PROP_THREAD, OTF2_TYPE_UINT64, ins__av_u64(where->thread->id));
    } else if (!algo) {
        gw_loc_prop(g, id, INS_LOC_PROP_PROXY, OTF2_TYPE_STRING,
                    ins__av_str(ins__gw_str(g, t->nodes[where->proxy].name)));
        gw_loc_prop(g, id, INS_LOC_PROP_INSTANCE, OTF2_TYPE_UINT64, ins__av_u64(where->instance));
    }
    gw_loc_prop(g, id, INS_LOC_PROP_ENTER, OTF2_TYPE_STRING,
                ins__av_str(ins__gw_str(g, t->nodes[where->enter].name)));
    gw_loc_prop(g, id, INS_LOC_PROP_FLUSHES, OTF2_TYPE_UINT64, ins__av_u64(c->flushes));
}

/* The clock properties, spanning every host's events, and the attributes. */
static void gw_clock(ins_gw_t *g, ins_trace_t *tr, double rate,
                     const ins_host_info_t *hosts)
{
    ins__gw_clock(g, rate, hosts, tr->size, &tr->clk0);
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(
                    g->w, INS_ATTR_OP_ID, ins__gw_str(g, INS_ATTR_OP),
                    ins__gw_str(g, "operation number on the tree instance, from 0"),
                    OTF2_TYPE_UINT64));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(
                    g->w, INS_ATTR_BYTES_ID, ins__gw_str(g, INS_ATTR_BYTES),
                    ins__gw_str(g, "tuple size in bytes"), OTF2_TYPE_UINT64));
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
static void gw_arrival_strings(ins_gw_t *g)
{
    for (uint32_t a = 0; a < INS_NARRIVAL; a++)
        if (ins__gw_str(g, rt_arrival_name((rt_arrival_t)a)) != INS_STR_ARRIVAL0 + a)
            ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
}

static void gw_arrival_defs(ins_gw_t *g)
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
        ins__gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(g->w, attrs[i].id,
                                                        ins__gw_str(g, attrs[i].name),
                                                        ins__gw_str(g, attrs[i].desc),
                                                        attrs[i].type));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteParameter(g->w, INS_PARAM_ARRIVAL_ID,
                                                    ins__gw_str(g, INS_PARAM_ARRIVAL),
                                                    OTF2_PARAMETER_TYPE_STRING));
}

/* The tree's auto configuration, when its root is an auto node; else NULL. */
static const rt_auto_cfg_t *tree_auto(const rt_tree_t *t)
{
    const rt_node_t *node = rt_tree_algo(t);

    return node != NULL ? node->algo->autocfg : NULL;
}

/*
 * An auto node's strings, right after the arrival sources' (their ids are
 * fixed: ins_int.h): the reasons, the candidate list, each candidate.
 */
static void gw_auto_strings(ins_gw_t *g, const rt_auto_cfg_t *cfg)
{
    char list[RT_AUTO_CAND_MAX * (RT_PATHMAP_NAME_MAX + 1) + 1];
    size_t len = 0;

    for (uint32_t r = 0; r < INS_NREASON; r++)
        if (ins__gw_str(g, rt_auto_reason_name((rt_auto_reason_t)r)) != INS_STR_REASON0 + r)
            ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
    list[0] = '\0';
    for (uint32_t i = 0; i < cfg->ncand && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? "," : "",
                                cfg->cand[i]);
    if (ins__gw_str(g, list) != INS_STR_CANDIDATES)
        ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
    for (uint32_t i = 0; i < cfg->ncand; i++)
        if (ins__gw_str(g, cfg->cand[i]) != INS_STR_CAND0 + i)
            ins__gw_check(g, OTF2_ERROR_INVALID_DATA);
}

/*
 * An auto node's attributes: the application traces' ids (unused here),
 * so that the ids stay dense, then the choice's and the auto parameter.
 */
static void gw_auto_defs(ins_gw_t *g)
{
    static const struct { uint32_t id; const char *name; OTF2_Type type; } attrs[] = {
        { INS_ATTR_CALLSITE_ID, INS_ATTR_CALLSITE, OTF2_TYPE_STRING },
        { INS_ATTR_ALGO_ID, INS_ATTR_ALGO, OTF2_TYPE_STRING },
        { INS_ATTR_FALLBACK_ID, INS_ATTR_FALLBACK, OTF2_TYPE_STRING },
        { INS_ATTR_COUNT_ID, INS_ATTR_COUNT, OTF2_TYPE_INT64 },
        { INS_ATTR_DTYPE_ID, INS_ATTR_DTYPE, OTF2_TYPE_STRING },
        { INS_ATTR_MPI_OP_ID, INS_ATTR_MPI_OP, OTF2_TYPE_STRING },
    };

    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        ins__gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(
                             g->w, attrs[i].id, ins__gw_str(g, attrs[i].name),
                             ins__gw_str(g, "application traces only"), attrs[i].type));
    ins__gw_auto_defs(g);
}

/* The machine, and per host a system tree node and a location group. */
static void gw_hosts(ins_gw_t *g, ins_trace_t *tr, const ins_host_info_t *hosts)
{
    ins__gw_machine(g, hosts[0].hostname);
    for (int r = 0; r < tr->size; r++)
        ins__gw_host(g, r, tr->pm->hosts[r].name, hosts[r].hostname);
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
static void gw_algo_comms(ins_gw_t *g, ins_trace_t *tr, const OTF2_LocationRef *algo)
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
            ins__gw_check(g, OTF2_ERROR_INVALID_DATA);    /* a host did not register it */
    }
    if (locs == NULL || ranks == NULL) {
        ins__gw_check(g, OTF2_ERROR_MEM_ALLOC_FAILED);
    } else {
        ins__gw_check(g, OTF2_GlobalDefWriter_WriteGroup(
                        g->w, INS_GROUP_ALGO_LOCATIONS_ID, ins__gw_str(g, INS_GROUP_ALGO_LOCATIONS),
                        OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                        n, locs));
        ins__gw_check(g, OTF2_GlobalDefWriter_WriteGroup(
                        g->w, INS_GROUP_ALGO_RANKS_ID, ins__gw_str(g, INS_GROUP_ALGO_RANKS),
                        OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                        n, ranks));
        for (unsigned inst = 0; inst < tr->ninst; inst++) {
            char canon[256];

            snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst, node->name);
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteComm(g->w, inst, ins__gw_str(g, canon),
                                                       INS_GROUP_ALGO_RANKS_ID,
                                                       OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
        }
    }
    free(locs);
    free(ranks);
}

/* Rank 0: every global definition; infos[] holds every rank's locations. */
static OTF2_ErrorCode write_globals(ins_trace_t *tr, double rate, const ins_host_info_t *hosts,
                                    const loc_info_t *infos, const int *nlocs)
{
    ins_gw_t g;
    OTF2_LocationRef *algo;          /* per rank: its algorithm location, if any */

    if (ins__gw_open(&g, tr->ar) != OTF2_SUCCESS)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    if ((algo = malloc((size_t)tr->size * sizeof(*algo))) == NULL)
        ins__gw_check(&g, OTF2_ERROR_MEM_ALLOC_FAILED);
    if (tree_pap(tr->tree))
        gw_arrival_strings(&g);
    if (tree_auto(tr->tree) != NULL)
        gw_auto_strings(&g, tree_auto(tr->tree));
    gw_clock(&g, tr, rate, hosts);
    if (tree_pap(tr->tree))
        gw_arrival_defs(&g);
    if (tree_auto(tr->tree) != NULL)
        gw_auto_defs(&g);
    gw_hosts(&g, tr, hosts);
    for (int r = 0; r < tr->size; r++) {
        if (algo != NULL)
            algo[r] = OTF2_UNDEFINED_LOCATION;
        for (int i = 0; i < nlocs[r]; i++, infos++) {
            rt_location_t where;

            if (loc_decode(tr->tree, r, (uint32_t)i, infos, &where) != 0) {
                ins__gw_check(&g, OTF2_ERROR_INVALID_DATA);
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
    return ins__gw_close(&g, tr->ar);
}

/* This host's name and the span of its events, in rank 0's ticks. */
static void host_extent(ins_trace_t *tr, ins_host_info_t *me)
{
    ins__host_info_init(me);
    for (uint32_t i = 0; i < tr->nloc; i++) {
        const ins_loc_t *loc = &tr->locs[i];

        if (loc->written != 0)
            ins__host_info_span(me, loc->first_ts, loc->last_ts, &tr->off0, &tr->off1);
    }
    ins__host_info_pad(me, &tr->off0, &tr->off1);
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
    ins_host_info_t me, *hosts = NULL;
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
