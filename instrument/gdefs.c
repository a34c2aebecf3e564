/*
 * gdefs.c - definitions every paptree archive writes the same way, whatever
 * it traces: the global definition writer (each string written once), the
 * clock properties, the machine and its hosts (system tree nodes and
 * location groups), each location's two clock offsets, and the span of a
 * host's events in rank 0's ticks.  The tree trace (defs.c) and the
 * application trace (mpi_defs.c) add their own regions, locations and
 * communicators.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "instrument/ins_int.h"

/* ---- the global writer ------------------------------------------------------ */

OTF2_ErrorCode ins__gw_open(ins_gw_t *g, OTF2_Archive *ar)
{
    memset(g, 0, sizeof(*g));
    g->w = OTF2_Archive_GetGlobalDefWriter(ar);
    g->arena = cm_arena_create();
    cm_strmap_init(&g->strings);
    if (g->w == NULL || g->arena == NULL) {
        cm_strmap_cleanup(&g->strings);
        cm_arena_destroy(g->arena);
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    return OTF2_SUCCESS;
}

OTF2_ErrorCode ins__gw_close(ins_gw_t *g, OTF2_Archive *ar)
{
    OTF2_ErrorCode rc;

    cm_strmap_cleanup(&g->strings);
    cm_arena_destroy(g->arena);
    rc = OTF2_Archive_CloseGlobalDefWriter(ar, g->w);
    return g->rc != OTF2_SUCCESS ? g->rc : rc;
}

OTF2_StringRef ins__gw_str(ins_gw_t *g, const char *s)
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

void ins__gw_check(ins_gw_t *g, OTF2_ErrorCode rc)
{
    if (g->rc == OTF2_SUCCESS)
        g->rc = rc;
}

/* ---- clock, machine, hosts ------------------------------------------------- */

void ins__gw_clock(ins_gw_t *g, double rate, const ins_host_info_t *hosts, int nhosts,
                   const ins_clock_pair_t *clk0)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t realtime;

    for (int r = 0; r < nhosts; r++) {
        lo = hosts[r].min_ts < lo ? hosts[r].min_ts : lo;
        hi = hosts[r].max_ts > hi ? hosts[r].max_ts : hi;
    }
    if (lo > hi)
        lo = hi = (int64_t)clk0->ticks;
    /* The wall-clock time of `lo`, from the pair read at open. */
    realtime = (uint64_t)(clk0->real_ns +
                          (int64_t)((double)(lo - (int64_t)clk0->ticks) / rate * 1e9));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteClockProperties(g->w, (uint64_t)rate,
                                                               (uint64_t)lo,
                                                               (uint64_t)(hi - lo + 1),
                                                               realtime));
}

void ins__gw_machine(ins_gw_t *g, const char *hostname)
{
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                         g->w, 0, ins__gw_str(g, hostname), ins__gw_str(g, INS_STN_MACHINE_CLASS),
                         OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                         g->w, 0, OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
}

void ins__gw_auto_defs(ins_gw_t *g)
{
    static const struct { uint32_t id; const char *name, *desc; OTF2_Type type; } attrs[] = {
        { INS_ATTR_CANDIDATES_ID, INS_ATTR_CANDIDATES, "auto's candidates, in order",
          OTF2_TYPE_STRING },
        { INS_ATTR_REASON_ID, INS_ATTR_REASON, "why auto chose it: only, model, kept, explore",
          OTF2_TYPE_STRING },
        { INS_ATTR_SPREAD_ID, INS_ATTR_SPREAD, "the arrival vector's spread, ns",
          OTF2_TYPE_INT64 },
        { INS_ATTR_SKIPPED_ID, INS_ATTR_SKIPPED, "bit i: PAP-aware candidate i skipped",
          OTF2_TYPE_UINT64 },
    };
    char name[64], desc[96];

    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        ins__gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(g->w, attrs[i].id,
                                                        ins__gw_str(g, attrs[i].name),
                                                        ins__gw_str(g, attrs[i].desc),
                                                        attrs[i].type));
    for (unsigned corr = 0; corr < 2; corr++)
        for (unsigned i = 0; i < INS_AUTO_CAND_MAX; i++) {
            snprintf(name, sizeof(name), corr ? INS_ATTR_CORR_FMT : INS_ATTR_PRED_FMT, i);
            snprintf(desc, sizeof(desc), "candidate %u's %s time, ns", i,
                     corr ? "predicted and corrected" : "predicted");
            ins__gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(
                                 g->w, (corr ? INS_ATTR_CORR0_ID : INS_ATTR_PRED0_ID) + i,
                                 ins__gw_str(g, name), ins__gw_str(g, desc),
                                 OTF2_TYPE_INT64));
        }
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteParameter(g->w, INS_PARAM_AUTO_ID,
                                                    ins__gw_str(g, INS_PARAM_AUTO),
                                                    OTF2_PARAMETER_TYPE_STRING));
}

void ins__gw_host(ins_gw_t *g, int r, const char *host, const char *hostname)
{
    char name[300];

    ins__gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                         g->w, 1 + (uint32_t)r, ins__gw_str(g, host),
                         ins__gw_str(g, INS_STN_NODE_CLASS), 0));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                         g->w, 1 + (uint32_t)r, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(
                         g->w, 1 + (uint32_t)r, ins__gw_str(g, INS_STN_PROP_HOSTNAME),
                         OTF2_TYPE_STRING, ins__av_str(ins__gw_str(g, hostname))));
    snprintf(name, sizeof(name), "%s (rank %d)", host, r);
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroup(
                         g->w, (OTF2_LocationGroupRef)r, ins__gw_str(g, name),
                         OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + (uint32_t)r,
                         OTF2_UNDEFINED_LOCATION_GROUP));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                         g->w, (OTF2_LocationGroupRef)r, ins__gw_str(g, INS_LG_PROP_HOST),
                         OTF2_TYPE_STRING, ins__av_str(ins__gw_str(g, host))));
    ins__gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                         g->w, (OTF2_LocationGroupRef)r, ins__gw_str(g, INS_LG_PROP_RANK),
                         OTF2_TYPE_UINT64, ins__av_u64((uint64_t)r)));
}

/* ---- local definitions ----------------------------------------------------- */

OTF2_ErrorCode ins__defs_write_offsets(OTF2_Archive *ar, const OTF2_LocationRef *ids, uint32_t n,
                                       const ins_offset_t *off0, const ins_offset_t *off1,
                                       const OTF2_IdMap *comm_map)
{
    const ins_offset_t *o[2] = { off0, off1 };
    OTF2_ErrorCode rc = OTF2_Archive_OpenDefFiles(ar), rc2;

    for (uint32_t i = 0; rc == OTF2_SUCCESS && i < n; i++) {
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(ar, ids[i]);

        if (w == NULL) {
            rc = OTF2_ERROR_MEM_ALLOC_FAILED;
            break;
        }
        for (int k = 0; k < 2 && rc == OTF2_SUCCESS; k++)
            rc = OTF2_DefWriter_WriteClockOffset(w, o[k]->time, o[k]->offset,
                                                 (double)o[k]->rtt / 2.0);
        if (rc == OTF2_SUCCESS && comm_map != NULL)
            rc = OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_COMM, comm_map);
        rc2 = OTF2_Archive_CloseDefWriter(ar, w);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
    }
    rc2 = OTF2_Archive_CloseDefFiles(ar);
    return rc != OTF2_SUCCESS ? rc : rc2;
}

/* ---- a host's span ----------------------------------------------------------- */

void ins__host_info_init(ins_host_info_t *me)
{
    memset(me, 0, sizeof(*me));
    gethostname(me->hostname, sizeof(me->hostname) - 1);
    me->min_ts = INT64_MAX;
    me->max_ts = INT64_MIN;
}

void ins__host_info_span(ins_host_info_t *me, uint64_t first_ts, uint64_t last_ts,
                         const ins_offset_t *off0, const ins_offset_t *off1)
{
    /* Into rank 0's ticks with the start offset; padded by the drift (pad). */
    if ((int64_t)first_ts + off0->offset < me->min_ts)
        me->min_ts = (int64_t)first_ts + off0->offset;
    if ((int64_t)last_ts + off1->offset > me->max_ts)
        me->max_ts = (int64_t)last_ts + off1->offset;
}

void ins__host_info_pad(ins_host_info_t *me, const ins_offset_t *off0, const ins_offset_t *off1)
{
    if (me->min_ts != INT64_MAX) {
        int64_t pad = llabs(off1->offset - off0->offset) + (int64_t)off0->rtt;
        me->min_ts -= pad;
        me->max_ts += pad;
    }
}
