/*
 * props.c - trace_check's checks 1 (the archive properties) and 5 (the
 * expected locations, derived from the pathmap).
 */
#include "tests/oracles/trace_check/tc_int.h"

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
bool check_properties(tc_ctx_t *c, OTF2_Reader *rd)
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

uint32_t path_len(const rt_tree_t *t, rt_node_id_t id)
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

bool build_locations(tc_ctx_t *c)
{
    uint32_t nh = c->pm->nhosts;

    c->algo = rt_tree_algo(c->tree);
    c->pap = c->algo != NULL && c->algo->algo->pap;
    c->autocfg = c->algo != NULL ? c->algo->algo->autocfg : NULL;
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

tc_loc_t *find_loc(tc_ctx_t *c, uint64_t id)
{
    uint64_t r = id >> INS_LOC_RANK_SHIFT, idx = id & (INS_LOC_MAX_PER_RANK - 1);

    if (r >= c->pm->nhosts || idx >= c->rank_base[r + 1] - c->rank_base[r])
        return NULL;
    return &c->locs[c->rank_base[r] + idx];
}
