/*
 * pathmap_check.c - the rules a tree must obey once all its lines are read:
 * names resolve, one root (a core or an algorithm node), no cycle, proxies
 * exactly where edges cross hosts (except into an algorithm node, which
 * crosses them itself), every wrapper has the contributors it needs,
 * threads mapped once and onto their own host, an algorithm node entered
 * once from each of its hosts.  rt_pathmap.h lists the resulting invariants.
 *
 * Checks run in a fixed order (names, roots, cycles, hosts, threads,
 * contributors, algorithm node) so that the first error reported is the most basic one: a
 * cycle is not reported as "no contributor", a typo in a parent's name is
 * not reported as a cycle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/core/pathmap_int.h"

#define CK_FAIL(b, err, st, line, col, ...)                                 \
    cm_err_set((err), (st), (b)->path, (line), (col), __FILE__, __LINE__,   \
               __VA_ARGS__)

static const char *ck_host(const pm_builder_t *b, rt_host_id_t host)
{
    return b->hosts[host].name;
}

static cm_status_t ck_resolve(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;

    for (uint32_t i = 0; i < t->nnodes; i++) {
        pm_node_build_t *nb = &t->nodes[i];

        if (nb->parent.name == NULL)
            continue;
        if (cm_strmap_get(&t->names, nb->parent.name, strlen(nb->parent.name),
                          &nb->node.parent) != CM_OK)
            return CK_FAIL(b, err, CM_ERR_NAME, nb->node.line, nb->parent.col,
                           "unknown parent '%s' in tree '%s'", nb->parent.name,
                           t->tree.name);
    }
    for (uint32_t i = 0; i < t->nthreads; i++) {
        pm_thread_build_t *tb = &t->threads[i];

        if (cm_strmap_get(&t->names, tb->enter.name, strlen(tb->enter.name),
                          &tb->map.enter) != CM_OK)
            return CK_FAIL(b, err, CM_ERR_NAME, tb->map.line, tb->enter.col,
                           "unknown wrapper '%s' in tree '%s'", tb->enter.name,
                           t->tree.name);
    }
    return CM_OK;
}

static bool ck_is_root_kind(rt_node_kind_t kind)
{
    return kind == RT_NODE_CORE || kind == RT_NODE_ALGO;
}

static cm_status_t ck_root(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;

    t->tree.root = RT_ID_NONE;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const rt_node_t *n = &t->nodes[i].node, *first;

        if (!ck_is_root_kind(n->kind))
            continue;
        if (t->tree.root != RT_ID_NONE) {
            first = &t->nodes[t->tree.root].node;
            return CK_FAIL(b, err, CM_ERR_TREE, n->line, n->col,
                           "tree '%s' has two roots: %s '%s' and %s '%s' (line %u)",
                           t->tree.name, rt_node_kind_name(n->kind), n->name,
                           rt_node_kind_name(first->kind), first->name, first->line);
        }
        t->tree.root = i;
    }
    if (t->tree.root == RT_ID_NONE)
        return CK_FAIL(b, err, CM_ERR_TREE, t->tree.line, 1,
                       "tree '%s' has no root (a core or an algo node)", t->tree.name);
    return CM_OK;
}

/*
 * Depth-first over parent links with three colours; depth doubles as the
 * colour: UINT32_MAX = unvisited, UINT32_MAX-1 = on the current chain.
 * Iterative, so a 65536-deep chain cannot overflow the stack.
 */
static cm_status_t ck_cycles(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;
    const uint32_t unseen = UINT32_MAX, onchain = UINT32_MAX - 1;

    for (uint32_t i = 0; i < t->nnodes; i++)
        t->nodes[i].node.depth = unseen;
    t->nodes[t->tree.root].node.depth = 0;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        uint32_t n = i, depth, chain;

        while (t->nodes[n].node.depth == unseen) {
            t->nodes[n].node.depth = onchain;
            n = t->nodes[n].node.parent;
        }
        if (t->nodes[n].node.depth == onchain) {
            const rt_node_t *at = &t->nodes[n].node;
            return CK_FAIL(b, err, CM_ERR_TREE, at->line, at->col,
                           "cycle in tree '%s': '%s' is its own ancestor "
                           "(through parent '%s')", t->tree.name, at->name,
                           t->nodes[at->parent].node.name);
        }
        /* Number the chain from i down to n, whose depth is known. */
        depth = t->nodes[n].node.depth;
        chain = 0;
        for (uint32_t m = i; m != n; m = t->nodes[m].node.parent)
            chain++;
        for (uint32_t m = i; m != n; m = t->nodes[m].node.parent)
            t->nodes[m].node.depth = depth + chain--;
    }
    return CM_OK;
}

static cm_status_t ck_edges(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;

    for (uint32_t i = 0; i < t->nnodes; i++) {
        const pm_node_build_t *nb = &t->nodes[i];
        const rt_node_t *n = &nb->node, *p;

        if (n->parent == RT_ID_NONE)
            continue;
        p = &t->nodes[n->parent].node;
        /* An algorithm node spans its contributors' hosts: a child on any
           host is one of them, and the algorithm, not a proxy, carries the
           data between them. */
        if (p->kind == RT_NODE_ALGO && n->kind == RT_NODE_PROXY)
            return CK_FAIL(b, err, CM_ERR_TREE, n->line, nb->parent.col,
                           "proxy '%s' cannot enter algorithm node '%s': the algorithm "
                           "itself crosses hosts (let the proxy's contributor enter '%s')",
                           n->name, p->name, p->name);
        if (p->kind == RT_NODE_ALGO)
            continue;
        if (n->kind == RT_NODE_PROXY && p->host == n->host)
            return CK_FAIL(b, err, CM_ERR_TREE, n->line, nb->parent.col,
                           "proxy '%s' and its parent '%s' are both on host '%s'; "
                           "a proxy must cross hosts", n->name, p->name,
                           ck_host(b, n->host));
        if (n->kind != RT_NODE_PROXY && p->host != n->host)
            return CK_FAIL(b, err, CM_ERR_TREE, n->line, nb->parent.col,
                           "%s '%s' on host '%s' has parent '%s' on host '%s'; an "
                           "edge between hosts needs a proxy",
                           rt_node_kind_name(n->kind), n->name, ck_host(b, n->host),
                           p->name, ck_host(b, p->host));
    }
    return CM_OK;
}

static int ck_thread_cmp(const void *a, const void *b)
{
    const pm_thread_build_t *x = a, *y = b;

    /* Ties broken by position, so the duplicate reported is the later
     * mention whatever qsort's stability. */
    if (x->map.id != y->map.id)
        return x->map.id < y->map.id ? -1 : 1;
    if (x->map.line != y->map.line)
        return x->map.line < y->map.line ? -1 : 1;
    return x->map.col < y->map.col ? -1 : x->map.col > y->map.col;
}

/* A thread sits on one host in every tree; remember where it was first seen. */
static cm_status_t ck_thread_host(pm_builder_t *b, const pm_thread_build_t *tb,
                                  cm_err_t *err)
{
    pm_thread_seen_t *seen;
    uint32_t id = tb->map.id;

    if (id >= b->cap_seen) {
        uint32_t cap = b->cap_seen ? b->cap_seen : 64;
        void *bigger;

        while (cap <= id)
            cap *= 2;
        if ((bigger = realloc(b->seen, cap * sizeof(*b->seen))) == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        b->seen = bigger;
        memset(b->seen + b->cap_seen, 0, (cap - b->cap_seen) * sizeof(*b->seen));
        b->cap_seen = cap;
    }
    seen = &b->seen[id];
    if (seen->host_plus1 == 0) {
        seen->host_plus1 = tb->map.host + 1;
        seen->tree = b->ntrees;
        seen->line = tb->map.line;
    } else if (seen->host_plus1 != tb->map.host + 1) {
        return CK_FAIL(b, err, CM_ERR_TREE, tb->map.line, tb->map.col,
                       "thread %u is on host '%s' here but on host '%s' in tree '%s' "
                       "(line %u)", id, ck_host(b, tb->map.host),
                       ck_host(b, seen->host_plus1 - 1), b->trees[seen->tree].name,
                       seen->line);
    }
    return CM_OK;
}

static cm_status_t ck_threads(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;
    cm_status_t st;

    if (t->nthreads > 1)
        qsort(t->threads, t->nthreads, sizeof(*t->threads), ck_thread_cmp);
    for (uint32_t i = 0; i < t->nthreads; i++) {
        const pm_thread_build_t *tb = &t->threads[i];
        rt_node_t *enter = &t->nodes[tb->map.enter].node;

        if (i > 0 && t->threads[i - 1].map.id == tb->map.id)
            return CK_FAIL(b, err, CM_ERR_TREE, tb->map.line, tb->map.col,
                           "thread %u mapped twice in tree '%s' (first at line %u)",
                           tb->map.id, t->tree.name, t->threads[i - 1].map.line);
        if (enter->kind != RT_NODE_ALGO && enter->host != tb->map.host)
            return CK_FAIL(b, err, CM_ERR_TREE, tb->map.line, tb->enter.col,
                           "thread %u on host '%s' enters '%s' on host '%s'; a thread "
                           "enters a wrapper on its own host", tb->map.id,
                           ck_host(b, tb->map.host), enter->name,
                           ck_host(b, enter->host));
        if ((st = ck_thread_host(b, tb, err)) != CM_OK)
            return st;
        enter->nthreads++;
    }
    return CM_OK;
}

static cm_status_t ck_contributors(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;

    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (t->nodes[i].node.parent != RT_ID_NONE)
            t->nodes[t->nodes[i].node.parent].node.nchildren++;
    }
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const rt_node_t *n = &t->nodes[i].node;
        uint32_t fanin = rt_node_fanin(n);
        const char *kind = rt_node_kind_name(n->kind);

        if (fanin == 0)
            return CK_FAIL(b, err, CM_ERR_TREE, n->line, n->col,
                           "%s '%s' has no contributor (no thread enters it and no "
                           "wrapper names it as parent)", kind, n->name);
        if (n->kind != RT_NODE_GRED && n->kind != RT_NODE_ALGO && fanin > 1)
            return CK_FAIL(b, err, CM_ERR_TREE, n->line, n->col,
                           "%s '%s' has %u contributors; a %s takes exactly one "
                           "(let a gred combine them first)", kind, n->name, fanin, kind);
    }
    return CM_OK;
}

/* One contributor of an algorithm node: a child wrapper or a thread. */
typedef struct ck_contrib {
    rt_host_id_t host;
    unsigned     line, col;
    uint32_t     node;       /* child's node index, or RT_ID_NONE for a thread */
    uint32_t     thread;     /* the thread's id */
} ck_contrib_t;

static int ck_contrib_cmp(const void *a, const void *b)
{
    const ck_contrib_t *x = a, *y = b;

    if (x->host != y->host)
        return x->host < y->host ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

static bool ck_contrib_before(const ck_contrib_t *x, const ck_contrib_t *y)
{
    return x->line < y->line || (x->line == y->line && x->col < y->col);
}

/* "gred 'a' (line 5)" or "thread 3 (line 9)". */
static void ck_contrib_name(const pm_tree_build_t *t, const ck_contrib_t *c, char *buf,
                            size_t size)
{
    if (c->node != RT_ID_NONE)
        snprintf(buf, size, "%s '%s' (line %u)",
                 rt_node_kind_name(t->nodes[c->node].node.kind),
                 t->nodes[c->node].node.name, c->line);
    else
        snprintf(buf, size, "thread %u (line %u)", c->thread, c->line);
}

/*
 * The rules of an algorithm node that need its contributors: exactly one
 * per host, at least two hosts; then its hosts (ascending), its first host
 * as the node's host, root= among its hosts, and ppn= dividing their
 * number.
 */
static cm_status_t ck_algo(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;
    pm_node_build_t *ab = &t->nodes[t->tree.root];
    rt_node_t *node = &ab->node;
    rt_algo_spec_t *spec = ab->algo.spec;
    uint32_t n = 0, ndup = RT_ID_NONE, nhosts = 0;
    rt_host_id_t *hosts;
    ck_contrib_t *c;

    if (node->kind != RT_NODE_ALGO)
        return CM_OK;
    if ((c = malloc((size_t)rt_node_fanin(node) * sizeof(*c))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (t->nodes[i].node.parent == t->tree.root)
            c[n++] = (ck_contrib_t){ t->nodes[i].node.host, t->nodes[i].node.line,
                                     t->nodes[i].parent.col, i, 0 };
    }
    for (uint32_t i = 0; i < t->nthreads; i++) {
        if (t->threads[i].map.enter == t->tree.root)
            c[n++] = (ck_contrib_t){ t->threads[i].map.host, t->threads[i].map.line,
                                     t->threads[i].enter.col, RT_ID_NONE,
                                     t->threads[i].map.id };
    }
    qsort(c, n, sizeof(*c), ck_contrib_cmp);
    /* Of all hosts entering twice, the one whose second entry comes first
       in the file. */
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && c[i].host == c[i - 1].host) {
            if (ndup == RT_ID_NONE || ck_contrib_before(&c[i], &c[ndup]))
                ndup = i;
        } else {
            nhosts++;
        }
    }
    if (ndup != RT_ID_NONE) {
        char first[RT_PATHMAP_NAME_MAX + 32], second[RT_PATHMAP_NAME_MAX + 32];
        ck_contrib_t dup = c[ndup];

        ck_contrib_name(t, &c[ndup - 1], first, sizeof(first));
        ck_contrib_name(t, &dup, second, sizeof(second));
        free(c);
        return CK_FAIL(b, err, CM_ERR_TREE, dup.line, dup.col,
                       "host '%s' enters algorithm node '%s' twice: %s and %s; give each host "
                       "one top wrapper", ck_host(b, dup.host), node->name, first, second);
    }
    if (nhosts < 2) {
        rt_host_id_t only = c[0].host;

        free(c);
        return CK_FAIL(b, err, CM_ERR_TREE, node->line, node->col,
                       "algorithm node '%s' has contributors on one host only ('%s'); "
                       "it must span at least two hosts", node->name,
                       ck_host(b, only));
    }
    if ((hosts = cm_arena_alloc(b->arena, nhosts * sizeof(*hosts))) == NULL) {
        free(c);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        hosts[i] = c[i].host;           /* one contributor per host: n == nhosts */
    free(c);
    spec->hosts = hosts;
    spec->nhosts = nhosts;
    node->host = hosts[0];
    if (ab->algo.root_host != RT_ID_NONE) {
        spec->root = rt_algo_host_index(spec, ab->algo.root_host);
        if (spec->root < 0)
            return CK_FAIL(b, err, CM_ERR_TREE, node->line, ab->algo.root_col,
                           "root host '%s' does not enter algorithm node '%s' (root= names "
                           "one of the node's %u hosts)", ck_host(b, ab->algo.root_host),
                           node->name, nhosts);
    }
    if (spec->ppn > 0 && nhosts % (uint32_t)spec->ppn != 0)
        return CK_FAIL(b, err, CM_ERR_TREE, node->line, ab->algo.ppn_col,
                       "ppn=%d does not divide the %u hosts of algorithm node '%s' (%s "
                       "needs the same number of hosts on every node)", (int)spec->ppn, nhosts,
                       node->name, rt_algo_spec_name(spec));
    return CM_OK;
}

/* Copies the finished tree's nodes and threads into the arena. */
static cm_status_t ck_append(pm_builder_t *b, cm_err_t *err)
{
    pm_tree_build_t *t = &b->cur;
    rt_tree_t *tree = &b->trees[b->ntrees];

    *tree = t->tree;
    tree->nnodes = t->nnodes;
    tree->nthreads = t->nthreads;
    tree->nodes = cm_arena_alloc(b->arena, t->nnodes * sizeof(*tree->nodes) + 1);
    tree->threads = cm_arena_alloc(b->arena, t->nthreads * sizeof(*tree->threads) + 1);
    if (tree->nodes == NULL || tree->threads == NULL ||
        cm_strmap_put(&b->tree_names, tree->name, strlen(tree->name), b->ntrees))
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nnodes; i++)
        tree->nodes[i] = t->nodes[i].node;
    for (uint32_t i = 0; i < t->nthreads; i++)
        tree->threads[i] = t->threads[i].map;
    b->ntrees++;
    return CM_OK;
}

cm_status_t pm_tree_finish(pm_builder_t *b, cm_err_t *err)
{
    cm_status_t st;

    b->in_tree = false;
    if ((st = ck_resolve(b, err)) != CM_OK || (st = ck_root(b, err)) != CM_OK ||
        (st = ck_cycles(b, err)) != CM_OK || (st = ck_edges(b, err)) != CM_OK ||
        (st = ck_threads(b, err)) != CM_OK || (st = ck_contributors(b, err)) != CM_OK ||
        (st = ck_algo(b, err)) != CM_OK || (st = ck_append(b, err)) != CM_OK)
        return st;
    free(b->cur.nodes);
    free(b->cur.threads);
    cm_strmap_cleanup(&b->cur.names);
    memset(&b->cur, 0, sizeof(b->cur));
    return CM_OK;
}

cm_status_t pm_pathmap_finish(pm_builder_t *b, cm_err_t *err)
{
    if (b->nhosts == 0)
        return CK_FAIL(b, err, CM_ERR_TREE, 1, 1, "no host declared (add 'host NAME' lines)");
    if (b->ntrees == 0)
        return CK_FAIL(b, err, CM_ERR_TREE, 1, 1, "no tree declared (add a 'tree NAME' line "
                       "and its wrappers)");
    for (uint32_t h = 0; h < b->nhosts; h++) {
        if (!b->host_used[h])
            return CK_FAIL(b, err, CM_ERR_TREE, b->hosts[h].line, 1,
                           "host '%s' has nothing on it (no wrapper and no thread in "
                           "any tree)", b->hosts[h].name);
    }
    return CM_OK;
}
