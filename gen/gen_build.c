/*
 * gen_build.c - pathgen's initial tree from the inputs (gen/api/gen_build.h).
 *
 * As the PATHS generator (PATHS/EventSpace paper, section 3.1): per
 * cluster, a host subtree per host over its threads (the host's shape),
 * then a cluster-root subtree over the host subtrees' tops on the cluster's
 * root host, then the core "root"; gen_map_fix_routes adds the proxies
 * that carry the other hosts' tops to it.  Each subtree is a plan of
 * gen_shape.c made into greds: threads (or tops) attached first, then the
 * greds from the deepest up, so that every node is in thread order when it
 * is attached.
 *
 * A cluster is then split (gen_edit_split) and given extra links
 * (gen_edit_add_link on each host subtree off the root host) when asked.
 * Two clusters are built apart, each with its threads numbered from 0, and
 * joined by gen_edit_merge through the gateway; an algorithm node
 * (gen_edit_algo) replaces the cross-host part last.  The header says how
 * the file was made, its size and its longest path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/api/gen_build.h"
#include "gen/api/gen_edit.h"
#include "gen/gen_shape_int.h"

/* A contributor to a subtree being made: a thread or a node. */
typedef struct item {
    int      is_thread;
    uint32_t id;          /* thread id, or node index */
    uint32_t host;        /* a thread's host */
    uint32_t key;         /* smallest thread id below (thread order) */
} item_t;

/* One cluster being built. */
typedef struct bctx {
    const gen_input_t      *in;
    const gen_build_opts_t *o;
    uint32_t                k;          /* the cluster */
    uint32_t                tid0;       /* its first thread: numbered 0 in its map */
    uint32_t               *map_host;   /* [in->nhosts]: host in m, or GEN_NONE */
    uint32_t                root;       /* the root host (in m) */
    gen_map_t              *m;
    cm_err_t               *err;
} bctx_t;

void gen_build_opts_init(gen_build_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->host_shape.kind = GEN_SHAPE_NARY;
    o->root_shape.kind = GEN_SHAPE_NARY;
    o->root_host = GEN_NONE;
    o->split_cluster = GEN_NONE;
    o->split_to_last = 1;     /* split4W's placement, as gen_edit_split is used by pathgen edit */
}

static cm_status_t oom(cm_err_t *err)
{
    return CM_ERR(err, CM_ERR_NOMEM, "out of memory building the tree");
}

/* ---- a subtree from a plan ------------------------------------------------------ */

static int attach_item(gen_map_t *m, uint32_t parent, const item_t *it)
{
    return it->is_thread ? gen_attach_thread(m, parent, it->id, it->host)
                         : gen_attach_node(m, parent, it->id);
}

/* Level L gred i of the subtree called `base`: host style "h3", "h3.l1.0";
 * cluster-root style "cr0", "cr1.0". */
static void gred_name(char *buf, size_t size, const char *base, int host_style,
                      const gen_plan_gred_t *g)
{
    if (g->level == 0)
        snprintf(buf, size, "%s%s", base, host_style ? "" : "0");
    else if (host_style)
        snprintf(buf, size, "%s.l%u.%u", base, (unsigned)g->level, (unsigned)g->index);
    else
        snprintf(buf, size, "%s%u.%u", base, (unsigned)g->level, (unsigned)g->index);
}

/* Greds of `plan` over items[] on `host`; *top is the bottom gred, or the
 * lone item. */
static cm_status_t realize(bctx_t *b, const gen_plan_t *plan, const item_t *items,
                           uint32_t host, const char *base, int host_style, item_t *top)
{
    uint32_t *node = calloc(plan->ngreds ? plan->ngreds : 1, sizeof(*node));
    char name[160];

    if (plan->ngreds == 0) {
        free(node);
        *top = items[0];
        return CM_OK;
    }
    if (node == NULL)
        return oom(b->err);
    for (uint32_t g = 0; g < plan->ngreds; g++) {
        gred_name(name, sizeof(name), base, host_style, &plan->greds[g]);
        if ((node[g] = gen_node_add(b->m, GEN_GRED, name, host, NULL, NULL)) == GEN_NONE)
            goto fail;
    }
    for (uint32_t g = 0; g < plan->ngreds; g++)
        for (uint32_t i = 0; i < plan->greds[g].nmembers; i++) {
            const gen_plan_member_t *mb = &plan->greds[g].members[i];

            if (!mb->is_gred && attach_item(b->m, node[g], &items[mb->id]) != 0)
                goto fail;
        }
    for (uint32_t g = plan->ngreds - 1; g > 0; g--)
        if (gen_attach_node(b->m, node[plan->greds[g].parent], node[g]) != 0)
            goto fail;
    *top = (item_t){ 0, node[0], host, items[0].key };
    free(node);
    return CM_OK;
fail:
    free(node);
    return oom(b->err);
}

static cm_status_t subtree(bctx_t *b, const gen_shape_t *shape, const item_t *items, uint32_t n,
                           uint32_t host, const char *base, int host_style, item_t *top)
{
    gen_plan_t plan;
    cm_status_t st;

    if ((st = gen_shape_plan(shape, n, &plan, b->err)) != CM_OK)
        return st;
    st = realize(b, &plan, items, host, base, host_style, top);
    gen_plan_cleanup(&plan);
    return st;
}

/* ---- one cluster ------------------------------------------------------------------ */

static const gen_shape_t *host_shape(const gen_build_opts_t *o, uint32_t in_host)
{
    const gen_shape_t *s = &o->host_shape;

    for (uint32_t i = 0; i < o->nhost_shapes; i++)
        if (o->host_shapes[i].host == in_host)
            s = &o->host_shapes[i].shape;     /* the last one given wins */
    return s;
}

/* The host subtree of input host h over its threads tids[0..n-1]. */
static cm_status_t host_subtree(bctx_t *b, uint32_t h, const uint32_t *tids, uint32_t n,
                                item_t *top)
{
    uint32_t mh = b->map_host[h];
    item_t *items = malloc(n * sizeof(*items));
    char base[80];
    cm_status_t st;

    if (items == NULL)
        return oom(b->err);
    for (uint32_t i = 0; i < n; i++)
        items[i] = (item_t){ 1, tids[i] - b->tid0, mh, tids[i] - b->tid0 };
    snprintf(base, sizeof(base), "h%s", gen_map_host_label(b->m, mh));
    st = subtree(b, host_shape(b->o, h), items, n, mh, base, 1, top);
    free(items);
    return st;
}

/* Tops in thread order (few: insertion sort). */
static void sort_items(item_t *it, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        item_t x = it[i];
        uint32_t j = i;

        for (; j > 0 && it[j - 1].key > x.key; j--)
            it[j] = it[j - 1];
        it[j] = x;
    }
}

/* Every host subtree of the cluster, then the cluster root and the core. */
static cm_status_t cluster_tree(bctx_t *b, const uint32_t *first, const uint32_t *tids)
{
    const gen_input_t *in = b->in;
    item_t *tops = malloc(in->nhosts * sizeof(*tops)), top;
    uint32_t ntops = 0, core;
    cm_status_t st = CM_OK;

    if (tops == NULL)
        return oom(b->err);
    for (uint32_t h = 0; h < in->nhosts && st == CM_OK; h++)
        if (b->map_host[h] != GEN_NONE && first[h + 1] > first[h])
            st = host_subtree(b, h, tids + first[h], first[h + 1] - first[h], &tops[ntops++]);
    if (st == CM_OK) {
        sort_items(tops, ntops);
        st = subtree(b, &b->o->root_shape, tops, ntops, b->root, "cr", 0, &top);
    }
    if (st == CM_OK) {
        core = gen_node_add(b->m, GEN_CORE, "root", b->root, NULL, "the core: stores the sum");
        if (core == GEN_NONE || attach_item(b->m, core, &top) != 0 ||
            gen_map_fix_routes(b->m) != 0)
            st = oom(b->err);
    }
    free(tops);
    return st;
}

/* The cluster's hosts into m; the threads of each host, counting-sorted:
 * host h holds tids[first[h] .. first[h+1]-1]. */
static cm_status_t cluster_hosts(bctx_t *b, uint32_t *first, uint32_t *tids)
{
    const gen_input_t *in = b->in;
    uint32_t root_in = b->o->root_host;

    b->tid0 = GEN_NONE;
    for (uint32_t h = 0; h < in->nhosts; h++) {
        b->map_host[h] = GEN_NONE;
        if (in->hosts[h].gateway || in->hosts[h].cluster != b->k)
            continue;
        if ((b->map_host[h] = gen_map_host_add(b->m, in->hosts[h].name)) == GEN_NONE)
            return oom(b->err);
    }
    memset(first, 0, (in->nhosts + 1) * sizeof(*first));
    for (uint32_t t = 0; t < in->nthreads; t++)
        if (b->map_host[in->thread_host[t]] != GEN_NONE) {
            first[in->thread_host[t] + 1]++;
            if (b->tid0 == GEN_NONE)
                b->tid0 = t;
        }
    for (uint32_t h = 0; h < in->nhosts; h++)
        first[h + 1] += first[h];
    for (uint32_t t = 0, *fill = first; t < in->nthreads; t++)
        if (b->map_host[in->thread_host[t]] != GEN_NONE)
            tids[fill[in->thread_host[t]]++] = t;
    for (uint32_t h = in->nhosts; h > 0; h--)    /* fill moved each start to the next */
        first[h] = first[h - 1];
    first[0] = 0;
    if (b->tid0 == GEN_NONE)
        return CM_ERR(b->err, CM_ERR_INVALID, "cluster '%s' has no threads", in->clusters[b->k]);
    b->root = 0;
    if (root_in != GEN_NONE && root_in < in->nhosts && b->map_host[root_in] != GEN_NONE)
        b->root = b->map_host[root_in];
    return CM_OK;
}

/* Split and extra links, when asked. */
static cm_status_t cluster_edits(bctx_t *b)
{
    const gen_build_opts_t *o = b->o;
    gen_map_t *m = b->m;
    cm_status_t st;
    char name[80];

    if (o->split_span > 0 && (o->split_cluster == GEN_NONE || o->split_cluster == b->k) &&
        (st = gen_edit_split(m, o->split_span, o->split_to_last, b->err)) != CM_OK)
        return st;
    if (!o->extra_links)
        return CM_OK;
    for (uint32_t h = 0; h < m->nhosts; h++) {
        uint32_t n;

        snprintf(name, sizeof(name), "h%s", gen_map_host_label(m, h));
        n = gen_node_find(m, name);
        /* no link to add: the root host's, a lone thread's, or a subtree
         * whose parent is on its host (a split put a gred there) */
        if (h == b->root || n == GEN_NONE || m->nodes[n].host != h ||
            m->nodes[n].parent == GEN_NONE || m->nodes[m->nodes[n].parent].host == h)
            continue;
        if ((st = gen_edit_add_link(m, name, b->err)) != CM_OK)
            return st;
    }
    return CM_OK;
}

static cm_status_t build_cluster(const gen_input_t *in, const gen_build_opts_t *o, uint32_t k,
                                 gen_map_t **m_p, cm_err_t *err)
{
    bctx_t b = { in, o, k, 0, NULL, 0, NULL, err };
    uint32_t *first = malloc((in->nhosts + 1) * sizeof(*first));
    uint32_t *tids = malloc((in->nthreads ? in->nthreads : 1) * sizeof(*tids));
    cm_status_t st;

    b.map_host = malloc(in->nhosts * sizeof(*b.map_host));
    b.m = gen_map_create();
    if (first == NULL || tids == NULL || b.map_host == NULL || b.m == NULL ||
        (b.m->tree_name = strdup(in->tree_name ? in->tree_name : "sum")) == NULL ||
        (b.m->tree_params = strdup(in->tree_params ? in->tree_params : "type=int32 op=sum"))
            == NULL)
        st = oom(err);
    else if ((st = cluster_hosts(&b, first, tids)) == CM_OK &&
             (st = cluster_tree(&b, first, tids)) == CM_OK)
        st = cluster_edits(&b);
    free(first);
    free(tids);
    free(b.map_host);
    if (st != CM_OK) {
        gen_map_destroy(b.m);
        return st;
    }
    *m_p = b.m;
    return CM_OK;
}

/* ---- the header ---------------------------------------------------------------------- */

/* Moves the last n header lines to the front. */
static void header_to_front(gen_map_t *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        char *last = m->header[m->nheader - 1];

        memmove(&m->header[1], &m->header[0], (m->nheader - 1) * sizeof(*m->header));
        m->header[0] = last;
    }
}

/* " (binary on host1, nary on host2)" for the per-host shapes, into buf
 * (size >= 16); ", ..." when they do not all fit. */
static void own_shapes(const gen_input_t *in, const gen_build_opts_t *o, char *buf,
                       size_t size)
{
    size_t used = 0;
    char sh[64], item[160];

    buf[0] = '\0';
    for (uint32_t i = 0; i < o->nhost_shapes; i++) {
        size_t len;

        if (o->host_shapes[i].host >= in->nhosts)
            continue;
        gen_shape_format(&o->host_shapes[i].shape, sh, sizeof(sh));
        len = (size_t)snprintf(item, sizeof(item), "%s%s on %s", used ? ", " : " (", sh,
                               in->hosts[o->host_shapes[i].host].name);
        if (used + len + 8 > size) {
            used += (size_t)snprintf(buf + used, size - used, "%s", used ? ", ..." : " (...");
            break;
        }
        memcpy(buf + used, item, len + 1);
        used += len;
    }
    if (used > 0)
        snprintf(buf + used, size - used, ")");
}

static int header(gen_map_t *m, const gen_input_t *in, const gen_build_opts_t *o)
{
    char hs[64], rs[64], own[256];
    uint32_t before = m->nheader;
    int r = 0;

    gen_shape_format(&o->host_shape, hs, sizeof(hs));
    gen_shape_format(&o->root_shape, rs, sizeof(rs));
    own_shapes(in, o, own, sizeof(own));
    for (uint32_t i = 0; i < o->nnotes; i++)
        r |= gen_map_header_add(m, "%s", o->notes[i]);
    r |= gen_map_header_add(m, "%s - made by pathgen (docs/pathgen.md)", m->tree_name);
    r |= gen_map_header_add(m, "Generated by: %s", o->command ? o->command : "pathgen");
    r |= gen_map_header_add(m, "Inputs: %s", in->sources ? in->sources : "(none)");
    r |= gen_map_header_add(m, "Shapes: host subtrees %s%s, cluster root %s", hs, own, rs);
    header_to_front(m, m->nheader - before);
    r |= gen_map_header_add(m, "Size: %u hosts, %u threads, %u wrappers; longest path %u "
                            "wrappers", (unsigned)m->nhosts, (unsigned)gen_map_nthreads(m),
                            (unsigned)gen_map_nwrappers(m), (unsigned)gen_map_depth(m));
    return r;
}

/* ---- the whole tree ------------------------------------------------------------------- */

static cm_status_t check_inputs(const gen_input_t *in, const gen_build_opts_t *o, cm_err_t *err)
{
    if (in->nhosts == 0 || in->nthreads == 0 || in->thread_host == NULL)
        return CM_ERR(err, CM_ERR_INVALID, "no hosts or no threads to build a tree of");
    if (in->nclusters > 2 || (in->nclusters == 2 && in->ngateways != 1))
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "pathgen joins two clusters through one gateway");
    if (o->root_host != GEN_NONE && o->root_host >= in->nhosts)
        return CM_ERR(err, CM_ERR_NAME, "the root host is not a host of the cluster mapping");
    if (o->root_host != GEN_NONE && in->hosts[o->root_host].gateway && in->nclusters < 2)
        return CM_ERR(err, CM_ERR_INVALID, "the root host '%s' is a gateway",
                      in->hosts[o->root_host].name);
    return CM_OK;
}

static cm_status_t build_two(const gen_input_t *in, const gen_build_opts_t *o, gen_map_t **m_p,
                             cm_err_t *err)
{
    gen_map_t *a = NULL, *b = NULL;
    const gen_gateway_spec_t *gw = &in->gateways[0];
    int gateway_root = o->root_host == gw->host;
    cm_status_t st;

    if ((st = build_cluster(in, o, 0, &a, err)) == CM_OK &&
        (st = build_cluster(in, o, 1, &b, err)) == CM_OK)
        st = gen_edit_merge(a, b, in->hosts[gw->host].name, in->clusters[0], in->clusters[1],
                            gateway_root, m_p, err);
    gen_map_destroy(a);
    gen_map_destroy(b);
    return st;
}

cm_status_t gen_build(const gen_input_t *in, const gen_build_opts_t *o, gen_map_t **m_p,
                      cm_err_t *err)
{
    gen_map_t *m = NULL;
    cm_status_t st;

    if ((st = check_inputs(in, o, err)) != CM_OK)
        return st;
    st = in->nclusters == 2 ? build_two(in, o, &m, err) : build_cluster(in, o, 0, &m, err);
    if (st == CM_OK && o->algo != NULL)
        st = gen_edit_algo(m, o->algo, err);
    if (st == CM_OK && header(m, in, o) != 0)
        st = oom(err);
    if (st != CM_OK) {
        gen_map_destroy(m);
        return st;
    }
    *m_p = m;
    return CM_OK;
}
