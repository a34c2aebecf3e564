/*
 * write.c - synth_trace's writers: a planned scenario as a paptree OTF2
 * archive (properties, events, local and global definitions), and the
 * foreign archive, what another tool might write.
 */
#include "tests/oracles/synth_trace/sy_int.h"

/* ---- writing -------------------------------------------------------------- */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)ft, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

/* Static: OTF2 keeps the pointer (docs/trace-format.md). */
static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

static OTF2_Archive *archive_open(const char *dir, const char *creator)
{
    struct stat st;
    OTF2_Archive *ar;

    if (stat(dir, &st) == 0 || errno != ENOENT) {
        fail("'%s' exists (or cannot be checked): give a new directory", dir);
        return NULL;
    }
    ar = OTF2_Archive_Open(dir, INS_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                           OTF2_CHUNK_SIZE_MIN * 4, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (ar == NULL) {
        fail("OTF2_Archive_Open '%s' failed", dir);
        return NULL;
    }
    if (OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS ||
        OTF2_Archive_SetCreator(ar, creator) != OTF2_SUCCESS) {
        fail("cannot set up the archive '%s'", dir);
        OTF2_Archive_Close(ar);
        return NULL;
    }
    return ar;
}

static int write_properties(OTF2_Archive *ar, const sy_plan_t *p)
{
    char hash[32], ninst[16], hosts[16], command[64];
    const struct { const char *name, *value; } props[] = {
        { INS_PROP_VERSION, schema },
        { INS_PROP_PATHMAP, p->sc->pathmap },
        { INS_PROP_PATHMAP_PATH, p->sc->pathmap_path },
        { INS_PROP_PATHMAP_HASH, hash },
        { INS_PROP_TREE, p->tree->name },
        { INS_PROP_INSTANCES, ninst },
        { INS_PROP_HOSTS, hosts },
        { INS_PROP_CLOCK, INS_CLOCK_MONO_RAW },
        { INS_PROP_COMMAND, command },
    };
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    snprintf(hash, sizeof(hash), "%016" PRIx64, p->pm->hash);
    snprintf(ninst, sizeof(ninst), "%u", p->sc->ninst);
    snprintf(hosts, sizeof(hosts), "%u", p->pm->nhosts);
    snprintf(command, sizeof(command), "synth_trace %s", p->sc->name);
    for (size_t i = 0; rc == OTF2_SUCCESS && i < NELEM(props); i++)
        rc = OTF2_Archive_SetProperty(ar, props[i].name, props[i].value, false);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "OTF2_Archive_SetProperty");
}

/* The String id of a source (write_globals writes the three names first). */
#define SY_SOURCE_STR(s) ((OTF2_StringRef)(s))

/* An arrival report (ins_schema.h): the used source, with its attributes. */
static OTF2_ErrorCode write_arrival(OTF2_AttributeList *al, OTF2_EvtWriter *w, uint64_t ts,
                                    const sy_event_t *e, const sy_arrival_t *a)
{
    bool asked_history = damage != NULL && strcmp(damage, "asked") == 0;
    OTF2_ErrorCode rc = OTF2_AttributeList_AddUint64(al, INS_ATTR_OP_ID, e->op);

    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddStringRef(al, INS_ATTR_ASKED_ID,
                                             SY_SOURCE_STR(asked_history ? 1 : 2));
    if (rc == OTF2_SUCCESS && a->missing >= 0)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_MISSING_ID, a->missing);
    if (rc == OTF2_SUCCESS && a->error != NONE_)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_ERROR_ID, a->error);
    if (rc == OTF2_SUCCESS && a->lead != NONE_)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_LEAD_ID, a->lead);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_AttributeList_AddInt64(al, INS_ATTR_WAIT_ID, a->wait);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_ParameterString(w, al, ts, INS_PARAM_ARRIVAL_ID,
                                            SY_SOURCE_STR(a->used));
    return rc;
}

/* One location's events, in local ticks, each with the two attributes. */
static int write_location_events(OTF2_Archive *ar, const sy_plan_t *p, const sy_loc_t *l)
{
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, l->id);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    OTF2_ErrorCode rc = w != NULL && al != NULL ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    uint64_t n = 0, ts = 0;

    for (size_t i = 0; rc == OTF2_SUCCESS && i < l->nev; i++) {
        const sy_event_t *e = &l->ev[i];
        if (to_local(p, l->rank, e->r, &ts) != 0) {
            rc = OTF2_ERROR_INVALID_DATA;
            break;
        }
        switch (e->kind) {
        case SY_COLL_BEGIN:
            rc = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, ts);
            continue;
        case SY_COLL_END:
            rc = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, ts, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                 e->region, OTF2_UNDEFINED_UINT32, SY_BYTES,
                                                 SY_BYTES);
            continue;
        case SY_ISEND:
            rc = OTF2_EvtWriter_MpiIsend(w, NULL, ts, e->peer, e->region, e->tag, e->bytes,
                                         INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_ISEND_DONE:
            rc = OTF2_EvtWriter_MpiIsendComplete(w, NULL, ts, INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_IRECV_POST:
            rc = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, ts, INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_IRECV:
            rc = OTF2_EvtWriter_MpiIrecv(w, NULL, ts, e->peer, e->region, e->tag, e->bytes,
                                         INS_REQUEST_ID(e->op, e->step));
            continue;
        case SY_ARRIVAL:
            rc = write_arrival(al, w, ts, e, &p->sc->arrivals[e->step]);
            continue;
        case SY_ENTER:
        case SY_LEAVE:
            break;
        }
        rc = OTF2_AttributeList_AddUint64(al, INS_ATTR_OP_ID, e->op);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_AttributeList_AddUint64(al, INS_ATTR_BYTES_ID, SY_BYTES);
        if (rc == OTF2_SUCCESS)
            rc = e->leave ? OTF2_EvtWriter_Leave(w, al, ts, e->region)
                          : OTF2_EvtWriter_Enter(w, al, ts, e->region);
    }
    if (rc == OTF2_SUCCESS && (rc = OTF2_EvtWriter_GetNumberOfEvents(w, &n)) == OTF2_SUCCESS &&
        n != l->nev)
        rc = OTF2_ERROR_INTEGRITY_FAULT;
    if (w != NULL && OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS && rc == OTF2_SUCCESS)
        rc = OTF2_ERROR_FILE_INTERACTION;
    if (al != NULL)
        OTF2_AttributeList_Delete(al);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, l->name);
}

static int write_events(OTF2_Archive *ar, const sy_plan_t *p)
{
    OTF2_ErrorCode rc = OTF2_Archive_OpenEvtFiles(ar);
    int st = rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "OTF2_Archive_OpenEvtFiles");

    for (uint32_t k = 0; st == 0 && k < p->nlocs; k++)
        st = write_location_events(ar, p, &p->locs[k]);
    rc = OTF2_Archive_CloseEvtFiles(ar);
    return st != 0 ? st : rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "OTF2_Archive_CloseEvtFiles");
}

/* --no-offsets RANK: that rank's locations get no ClockOffset records. */
long no_offsets_rank = -1;

/* Each location's local definitions: its host's two ClockOffset records. */
static int write_locals(OTF2_Archive *ar, const sy_plan_t *p)
{
    OTF2_ErrorCode rc = OTF2_Archive_OpenDefFiles(ar), rc2;

    for (uint32_t k = 0; rc == OTF2_SUCCESS && k < p->nlocs; k++) {
        const sy_clock_t *c = &p->sc->hosts[p->locs[k].rank].clock;
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(ar, p->locs[k].id);

        if (w == NULL)
            return fail("OTF2_Archive_GetDefWriter failed");
        if ((long)p->locs[k].rank == no_offsets_rank) {
            rc = OTF2_Archive_CloseDefWriter(ar, w);
            continue;
        }
        rc = OTF2_DefWriter_WriteClockOffset(w, (uint64_t)c->time0, c->off0, c->sd);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_DefWriter_WriteClockOffset(w, (uint64_t)c->time1, c->off1, c->sd);
        rc2 = OTF2_Archive_CloseDefWriter(ar, w);
        rc = rc != OTF2_SUCCESS ? rc : rc2;
    }
    rc2 = OTF2_Archive_CloseDefFiles(ar);
    rc = rc != OTF2_SUCCESS ? rc : rc2;
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "local definitions");
}

/* The global definition writer, each string written once. */
typedef struct sy_gw {
    OTF2_GlobalDefWriter *w;
    char                 *str[SY_STRINGS];   /* copies, freed by gw_free */
    uint32_t              nstr;
    OTF2_ErrorCode        rc;
} sy_gw_t;

static OTF2_StringRef gw_str(sy_gw_t *g, const char *s)
{
    for (uint32_t i = 0; i < g->nstr; i++)
        if (strcmp(g->str[i], s) == 0)
            return i;
    if (g->nstr == SY_STRINGS || (g->str[g->nstr] = strdup(s)) == NULL) {
        g->rc = g->rc != OTF2_SUCCESS ? g->rc : OTF2_ERROR_MEM_ALLOC_FAILED;
        return 0;
    }
    if (g->rc == OTF2_SUCCESS)
        g->rc = OTF2_GlobalDefWriter_WriteString(g->w, g->nstr, s);
    return g->nstr++;
}

static void gw_free(sy_gw_t *g)
{
    for (uint32_t i = 0; i < g->nstr; i++)
        free(g->str[i]);
}

static void gw_check(sy_gw_t *g, OTF2_ErrorCode rc)
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

static void gw_loc_prop_str(sy_gw_t *g, uint64_t id, const char *name, const char *value)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, id, gw_str(g, name),
                                                           OTF2_TYPE_STRING,
                                                           av_str(gw_str(g, value))));
}

static void gw_loc_prop_u64(sy_gw_t *g, uint64_t id, const char *name, uint64_t value)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, id, gw_str(g, name),
                                                           OTF2_TYPE_UINT64, av_u64(value)));
}

static void gw_hosts(sy_gw_t *g, const sy_plan_t *p)
{
    gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                    g->w, 0, gw_str(g, p->sc->hosts[0].hostname),
                    gw_str(g, INS_STN_MACHINE_CLASS), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g->w, 0,
                                                               OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
    for (uint32_t r = 0; r < p->pm->nhosts; r++) {
        const char *host = p->pm->hosts[r].name;
        char name[128];

        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                        g->w, 1 + r, gw_str(g, host), gw_str(g, INS_STN_NODE_CLASS), 0));
        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                        g->w, 1 + r, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
        gw_check(g, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(
                        g->w, 1 + r, gw_str(g, INS_STN_PROP_HOSTNAME), OTF2_TYPE_STRING,
                        av_str(gw_str(g, p->sc->hosts[r].hostname))));
        snprintf(name, sizeof(name), "%s (rank %u)", host, r);
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroup(
                        g->w, r, gw_str(g, name), OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + r,
                        OTF2_UNDEFINED_LOCATION_GROUP));
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                        g->w, r, gw_str(g, INS_LG_PROP_HOST), OTF2_TYPE_STRING,
                        av_str(gw_str(g, host))));
        gw_check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                        g->w, r, gw_str(g, INS_LG_PROP_RANK), OTF2_TYPE_UINT64, av_u64(r)));
    }
}

static void gw_locations(sy_gw_t *g, const sy_plan_t *p)
{
    const rt_node_t *nodes = p->tree->nodes;

    for (uint32_t k = 0; k < p->nlocs; k++) {
        const sy_loc_t *l = &p->locs[k];

        gw_check(g, OTF2_GlobalDefWriter_WriteLocation(g->w, l->id, gw_str(g, l->name),
                                                       OTF2_LOCATION_TYPE_CPU_THREAD, l->nev,
                                                       l->rank));
        if (l->algo) {
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ROLE, INS_ROLE_ALGO);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ENTER, nodes[p->tree->root].name);
        } else if (l->thread != NULL) {
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ROLE, INS_ROLE_COMPUTE);
            gw_loc_prop_u64(g, l->id, INS_LOC_PROP_THREAD, l->thread->id);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ENTER, nodes[l->thread->enter].name);
        } else {
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ROLE, INS_ROLE_SERVICE);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_PROXY, nodes[l->proxy].name);
            gw_loc_prop_u64(g, l->id, INS_LOC_PROP_INSTANCE, l->inst);
            gw_loc_prop_str(g, l->id, INS_LOC_PROP_ENTER, nodes[nodes[l->proxy].parent].name);
        }
        gw_loc_prop_u64(g, l->id, INS_LOC_PROP_FLUSHES, 0);
    }
}

static void gw_regions(sy_gw_t *g, const sy_plan_t *p)
{
    const rt_tree_t *t = p->tree;

    for (unsigned inst = 0; inst < p->sc->ninst; inst++) {
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const rt_node_t *node = &t->nodes[n];
            char canon[128], desc[512];

            snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst, node->name);
            snprintf(desc, sizeof(desc),
                     INS_KEY_KIND "=%s " INS_KEY_HOST "=%s " INS_KEY_PARENT "=%s "
                     INS_KEY_TREE "=%s " INS_KEY_INSTANCE "=%u " INS_KEY_NODE "=%u "
                     INS_KEY_FANIN "=%u", rt_node_kind_name(node->kind),
                     p->pm->hosts[node->host].name,
                     node->parent == RT_ID_NONE ? INS_NO_PARENT : t->nodes[node->parent].name,
                     t->name, inst, n, rt_node_fanin(node));
            if (node->kind == RT_NODE_ALGO && p->sc->hand != NULL)
                snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), " %s",
                         p->sc->hand->algo_desc);
            gw_check(g, OTF2_GlobalDefWriter_WriteRegion(
                            g->w, inst * t->nnodes + n, gw_str(g, node->name),
                            gw_str(g, canon), gw_str(g, desc),
                            OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                            gw_str(g, p->sc->pathmap_path), node->line, node->line));
        }
    }
}

/* An algorithm node's groups and one communicator per instance (ins_schema.h). */
static void gw_comms(sy_gw_t *g, const sy_plan_t *p)
{
    const rt_tree_t *t = p->tree;
    uint64_t locs[SY_HOSTS], ranks[SY_HOSTS];
    uint32_t n = 0;

    if (t->nodes[t->root].kind != RT_NODE_ALGO)
        return;
    for (uint32_t k = 0; k < p->nlocs && n < SY_HOSTS; k++)
        if (p->locs[k].algo) {
            locs[n] = p->locs[k].id;
            ranks[n] = n;
            n++;
        }
    gw_check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, 0, gw_str(g, INS_GROUP_ALGO_LOCATIONS),
                                                OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                                OTF2_GROUP_FLAG_NONE, n, locs));
    gw_check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, 1, gw_str(g, INS_GROUP_ALGO_RANKS),
                                                OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                OTF2_GROUP_FLAG_NONE, n, ranks));
    for (unsigned inst = 0; inst < p->sc->ninst; inst++) {
        char canon[128];
        snprintf(canon, sizeof(canon), INS_REGION_CANONICAL_FMT, t->name, inst,
                 t->nodes[t->root].name);
        gw_check(g, OTF2_GlobalDefWriter_WriteComm(g->w, inst, gw_str(g, canon), 1,
                                                   OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    }
}

/* A PAP-aware node's parameter and attributes (ins_schema.h). */
static void gw_arrival_defs(sy_gw_t *g)
{
    static const struct { uint32_t id; const char *name; OTF2_Type type; } at[] = {
        { INS_ATTR_ASKED_ID, INS_ATTR_ASKED, OTF2_TYPE_STRING },
        { INS_ATTR_MISSING_ID, INS_ATTR_MISSING, OTF2_TYPE_INT64 },
        { INS_ATTR_ERROR_ID, INS_ATTR_ERROR, OTF2_TYPE_INT64 },
        { INS_ATTR_LEAD_ID, INS_ATTR_LEAD, OTF2_TYPE_INT64 },
        { INS_ATTR_WAIT_ID, INS_ATTR_WAIT, OTF2_TYPE_INT64 },
    };

    for (size_t i = 0; i < NELEM(at); i++)
        gw_check(g, OTF2_GlobalDefWriter_WriteAttribute(g->w, at[i].id, gw_str(g, at[i].name),
                                                        gw_str(g, "synthetic"), at[i].type));
    gw_check(g, OTF2_GlobalDefWriter_WriteParameter(g->w, INS_PARAM_ARRIVAL_ID,
                                                    gw_str(g, INS_PARAM_ARRIVAL),
                                                    OTF2_PARAMETER_TYPE_STRING));
}

static int write_globals(OTF2_Archive *ar, const sy_plan_t *p)
{
    sy_gw_t g = { .w = OTF2_Archive_GetGlobalDefWriter(ar) };
    uint64_t lo = (uint64_t)(p->sc->base + p->rmin - SY_PAD);
    uint64_t hi = (uint64_t)(p->sc->base + p->rmax + SY_PAD);
    OTF2_ErrorCode rc;

    if (g.w == NULL)
        return fail("OTF2_Archive_GetGlobalDefWriter failed");
    if (p->sc->arrivals != NULL)          /* their ids are SY_SOURCE_STR(0..2) */
        for (int i = 0; i < 3; i++)
            gw_str(&g, i == 0 ? INS_ARRIVAL_EQUAL : i == 1 ? INS_ARRIVAL_HISTORY
                                                           : INS_ARRIVAL_EDGE);
    gw_check(&g, OTF2_GlobalDefWriter_WriteClockProperties(g.w, SY_RESOLUTION, lo, hi - lo + 1,
                                                           SY_REALTIME));
    gw_check(&g, OTF2_GlobalDefWriter_WriteAttribute(
                     g.w, INS_ATTR_OP_ID, gw_str(&g, INS_ATTR_OP),
                     gw_str(&g, "operation number on the tree instance, from 0"),
                     OTF2_TYPE_UINT64));
    gw_check(&g, OTF2_GlobalDefWriter_WriteAttribute(
                     g.w, INS_ATTR_BYTES_ID, gw_str(&g, INS_ATTR_BYTES),
                     gw_str(&g, "tuple size in bytes"), OTF2_TYPE_UINT64));
    if (p->sc->arrivals != NULL)
        gw_arrival_defs(&g);
    gw_hosts(&g, p);
    gw_locations(&g, p);
    gw_regions(&g, p);
    gw_comms(&g, p);
    rc = OTF2_Archive_CloseGlobalDefWriter(ar, g.w);
    rc = g.rc != OTF2_SUCCESS ? g.rc : rc;
    gw_free(&g);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "global definitions");
}

int write_paptree(const sy_scenario_t *sc, const char *dir, const char *pathmap_out)
{
    sy_plan_t p;
    OTF2_Archive *ar = NULL;
    int st = plan_build(sc, &p);
    FILE *fp;

    if (st == 0 && pathmap_out != NULL) {
        if ((fp = fopen(pathmap_out, "w")) == NULL || fputs(sc->pathmap, fp) == EOF ||
            fclose(fp) != 0)
            st = fail("cannot write '%s': %s", pathmap_out, strerror(errno));
    }
    if (st == 0 && (ar = archive_open(dir, "paptree")) == NULL)
        st = 1;
    if (st == 0)
        st = write_properties(ar, &p);
    if (st == 0)
        st = write_events(ar, &p);
    if (st == 0)
        st = write_locals(ar, &p);
    if (st == 0)
        st = write_globals(ar, &p);
    if (ar != NULL && OTF2_Archive_Close(ar) != OTF2_SUCCESS && st == 0)
        st = fail("OTF2_Archive_Close failed");
    plan_free(&p);
    return st;
}

/* ---- foreign: what another tool might write ---------------------------------- */

static int write_foreign_events(OTF2_Archive *ar)
{
    static const struct { uint64_t ts; bool leave; uint32_t region; } ev[] = {
        { 1000, false, 0 }, { 1100, false, 1 }, { 1500, true, 1 }, { 2000, true, 0 },
    };
    OTF2_EvtWriter *w;
    OTF2_ErrorCode rc = OTF2_Archive_OpenEvtFiles(ar);

    if (rc != OTF2_SUCCESS)
        return otf2_fail(rc, "OTF2_Archive_OpenEvtFiles");
    if ((w = OTF2_Archive_GetEvtWriter(ar, 0)) == NULL)
        return fail("OTF2_Archive_GetEvtWriter failed");
    for (size_t i = 0; rc == OTF2_SUCCESS && i < NELEM(ev); i++)
        rc = ev[i].leave ? OTF2_EvtWriter_Leave(w, NULL, ev[i].ts, ev[i].region)
                         : OTF2_EvtWriter_Enter(w, NULL, ev[i].ts, ev[i].region);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseEvtWriter(ar, w);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseEvtFiles(ar);
    if (rc == OTF2_SUCCESS) {
        OTF2_DefWriter *d;
        rc = OTF2_Archive_OpenDefFiles(ar);
        if (rc == OTF2_SUCCESS && (d = OTF2_Archive_GetDefWriter(ar, 0)) != NULL)
            rc = OTF2_Archive_CloseDefWriter(ar, d);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Archive_CloseDefFiles(ar);
    }
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "foreign events");
}

static int write_foreign_globals(OTF2_Archive *ar)
{
    sy_gw_t g = { .w = OTF2_Archive_GetGlobalDefWriter(ar) };
    OTF2_ErrorCode rc;

    if (g.w == NULL)
        return fail("OTF2_Archive_GetGlobalDefWriter failed");
    gw_check(&g, OTF2_GlobalDefWriter_WriteClockProperties(g.w, SY_RESOLUTION, 1000, 1001,
                                                           SY_REALTIME));
    gw_check(&g, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                     g.w, 0, gw_str(&g, "localhost"), gw_str(&g, "node"),
                     OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    gw_check(&g, OTF2_GlobalDefWriter_WriteLocationGroup(
                     g.w, 0, gw_str(&g, "process 0"), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                     OTF2_UNDEFINED_LOCATION_GROUP));
    gw_check(&g, OTF2_GlobalDefWriter_WriteLocation(g.w, 0, gw_str(&g, "main thread"),
                                                    OTF2_LOCATION_TYPE_CPU_THREAD, 4, 0));
    gw_check(&g, OTF2_GlobalDefWriter_WriteRegion(
                     g.w, 0, gw_str(&g, "main"), gw_str(&g, "main"), gw_str(&g, ""),
                     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE,
                     gw_str(&g, "main.c"), 1, 20));
    gw_check(&g, OTF2_GlobalDefWriter_WriteRegion(
                     g.w, 1, gw_str(&g, "compute"), gw_str(&g, "compute"), gw_str(&g, ""),
                     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE,
                     gw_str(&g, "main.c"), 22, 30));
    rc = OTF2_Archive_CloseGlobalDefWriter(ar, g.w);
    rc = g.rc != OTF2_SUCCESS ? g.rc : rc;
    gw_free(&g);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail(rc, "foreign global definitions");
}

int write_foreign(const char *dir)
{
    OTF2_Archive *ar = archive_open(dir, "some-other-tool 1.0");
    int st;

    if (ar == NULL)
        return 1;
    st = write_foreign_events(ar);
    if (st == 0)
        st = write_foreign_globals(ar);
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && st == 0)
        st = fail("OTF2_Archive_Close failed");
    return st;
}
