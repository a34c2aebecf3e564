/*
 * defs.c - trace_check's global definitions: read, then checks 2 to 5
 * (attributes, regions, system tree, groups, locations, MPI definitions).
 */
#include "tests/oracles/trace_check/tc_int.h"

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

OTF2_ErrorCode read_global_defs(tc_ctx_t *c, OTF2_Reader *rd)
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

/* The attributes: op and bytes; with a PAP-aware node also those of 10; with
   an auto node the application's (unused) and the choice's too. */
static void check_attributes(tc_ctx_t *c)
{
    static const struct { const char *name; OTF2_Type type; } want[INS_ATTR_CORR0_ID + 8] = {
        [INS_ATTR_OP_ID] = { INS_ATTR_OP, OTF2_TYPE_UINT64 },
        [INS_ATTR_BYTES_ID] = { INS_ATTR_BYTES, OTF2_TYPE_UINT64 },
        [INS_ATTR_ASKED_ID] = { INS_ATTR_ASKED, OTF2_TYPE_STRING },
        [INS_ATTR_MISSING_ID] = { INS_ATTR_MISSING, OTF2_TYPE_INT64 },
        [INS_ATTR_ERROR_ID] = { INS_ATTR_ERROR, OTF2_TYPE_INT64 },
        [INS_ATTR_LEAD_ID] = { INS_ATTR_LEAD, OTF2_TYPE_INT64 },
        [INS_ATTR_WAIT_ID] = { INS_ATTR_WAIT, OTF2_TYPE_INT64 },
        [INS_ATTR_CALLSITE_ID] = { INS_ATTR_CALLSITE, OTF2_TYPE_STRING },
        [INS_ATTR_ALGO_ID] = { INS_ATTR_ALGO, OTF2_TYPE_STRING },
        [INS_ATTR_FALLBACK_ID] = { INS_ATTR_FALLBACK, OTF2_TYPE_STRING },
        [INS_ATTR_COUNT_ID] = { INS_ATTR_COUNT, OTF2_TYPE_INT64 },
        [INS_ATTR_DTYPE_ID] = { INS_ATTR_DTYPE, OTF2_TYPE_STRING },
        [INS_ATTR_MPI_OP_ID] = { INS_ATTR_MPI_OP, OTF2_TYPE_STRING },
        [INS_ATTR_CANDIDATES_ID] = { INS_ATTR_CANDIDATES, OTF2_TYPE_STRING },
        [INS_ATTR_REASON_ID] = { INS_ATTR_REASON, OTF2_TYPE_STRING },
        [INS_ATTR_SPREAD_ID] = { INS_ATTR_SPREAD, OTF2_TYPE_INT64 },
        [INS_ATTR_SKIPPED_ID] = { INS_ATTR_SKIPPED, OTF2_TYPE_UINT64 },
    };
    static char pred[8][32], corr[8][32];
    const tc_attr_t *a = c->attrs.data;
    const tc_param_t *p = c->params.data;
    uint32_t n = c->autocfg != NULL ? INS_ATTR_CORR0_ID + 8 : c->pap ? 7 : 2;
    bool seen[INS_ATTR_CORR0_ID + 8] = { false };
    const char *name;

    for (size_t i = 0; i < c->attrs.n; i++) {
        if (!define_once(c, seen, a[i].self, n, "attribute"))
            continue;
        name = want[a[i].self].name;
        if (a[i].self >= INS_ATTR_PRED0_ID) {   /* paptree::predI_ns, paptree::corrI_ns */
            unsigned k = (a[i].self - INS_ATTR_PRED0_ID) % 8;
            bool is_corr = a[i].self >= INS_ATTR_CORR0_ID;
            snprintf(is_corr ? corr[k] : pred[k], 32, is_corr ? INS_ATTR_CORR_FMT
                                                             : INS_ATTR_PRED_FMT, k);
            name = is_corr ? corr[k] : pred[k];
        }
        expect_str(c, name, str_of(c, a[i].name), "attribute %u name", a[i].self);
        if (str_of(c, a[i].desc) == NULL)
            tc_fail(c, "attribute %u description: expected a defined string, got string %u",
                    a[i].self, a[i].desc);
        expect_u64(c, a[i].self >= INS_ATTR_PRED0_ID ? OTF2_TYPE_INT64
                                                     : want[a[i].self].type,
                   a[i].type, "attribute %u type", a[i].self);
    }
    check_missing(c, seen, n, "attribute");
    expect_u64(c, c->autocfg != NULL ? 2 : c->pap ? 1 : 0, c->params.n, "parameter "
               "definitions (%s for a PAP-aware algorithm node, and %s for an auto node)",
               INS_PARAM_ARRIVAL, INS_PARAM_AUTO);
    for (size_t i = 0; c->pap && i < c->params.n; i++) {
        bool is_auto = p[i].self == INS_PARAM_AUTO_ID && c->autocfg != NULL;
        if (!is_auto)
            expect_u64(c, INS_PARAM_ARRIVAL_ID, p[i].self, "parameter id");
        expect_str(c, is_auto ? INS_PARAM_AUTO : INS_PARAM_ARRIVAL, str_of(c, p[i].name),
                   "parameter %u name", p[i].self);
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
                     INS_KEY_HOSTS "=", a->autocfg != NULL ? "auto"
                                        : a->native ? "native" : a->run->name,
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

bool check_definitions(tc_ctx_t *c)
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
