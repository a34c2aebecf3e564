/*
 * fuzz_pathmap.c - libFuzzer target: rt_pathmap_parse on any bytes.
 *
 * The input is the text of a pathmap, passed as is (not NUL-terminated, so a
 * read past its end is an ASan report).  A text the parser accepts must give
 * a model that keeps every invariant rt_pathmap.h promises; a broken one is
 * an abort(), which the fuzzer reports like a crash.  A rejected text must
 * come with an error message.  Seeds: tests/fuzz/pathmap/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/api/rt_pathmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_pathmap: accepted model breaks: %s\n", what);
        abort();
    }
}

/* What rt_pathmap.h promises about an algorithm node and its spec. */
static void fz_check_algo(const rt_pathmap_t *pm, const rt_tree_t *t, const rt_node_t *n)
{
    const rt_algo_spec_t *a = n->algo;
    uint32_t             *seen;

    fz_check(a != NULL, "an algo node has a spec");
    fz_check(n->parent == RT_ID_NONE && t->root == (rt_node_id_t)(n - t->nodes),
             "the algo node is the root");
    fz_check((a->run == NULL) == (a->native != 0), "run= or native");
    fz_check(a->run == NULL || a->run->coll != RT_COLL_BCAST, "run= is no broadcast");
    fz_check((a->bcast != NULL) == (a->run != NULL && a->run->coll == RT_COLL_REDUCE),
             "a reduce, and only a reduce, has its broadcast");
    fz_check(a->bcast == NULL || a->bcast->coll == RT_COLL_BCAST, "bcast= is a broadcast");
    fz_check(a->nhosts >= 2 && a->nhosts == rt_node_fanin(n), "one contributor per host, >= 2");
    for (uint32_t h = 0; h < a->nhosts; h++) {
        fz_check(a->hosts[h] < pm->nhosts, "algo host");
        fz_check(h == 0 || a->hosts[h - 1] < a->hosts[h], "algo hosts ascending");
        fz_check(rt_algo_host_index(a, a->hosts[h]) == (int32_t)h, "host index");
    }
    fz_check(n->host == a->hosts[0], "an algo node's host is its first");
    fz_check(a->root >= 0 && (uint32_t)a->root < a->nhosts, "root index");
    fz_check(a->round_ns > 0 && a->nsegs >= 0 && a->segcount >= 0 &&
             !(a->nsegs > 0 && a->segcount > 0), "segments and round");
    fz_check(a->ppn == 0 || (a->ppn >= 2 && a->nhosts % (uint32_t)a->ppn == 0), "ppn divides");
    /* Every host of the node enters it exactly once. */
    seen = calloc(a->nhosts, sizeof(*seen));
    fz_check(seen != NULL, "memory");
    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (t->nodes[i].parent == t->root) {
            int32_t k = rt_algo_host_index(a, t->nodes[i].host);

            fz_check(k >= 0 && t->nodes[i].kind != RT_NODE_PROXY, "child on a node host");
            seen[k]++;
        }
    }
    for (uint32_t j = 0; j < t->nthreads; j++) {
        if (t->threads[j].enter == t->root) {
            int32_t k = rt_algo_host_index(a, t->threads[j].host);

            fz_check(k >= 0, "thread on a node host");
            seen[k]++;
        }
    }
    for (uint32_t h = 0; h < a->nhosts; h++)
        fz_check(seen[h] == 1, "each host enters once");
    free(seen);
}

/* The invariants of rt_pathmap.h on one tree. */
static void fz_check_tree(const rt_pathmap_t *pm, const rt_tree_t *t)
{
    uint32_t roots = 0;

    fz_check(t->name != NULL && rt_pathmap_tree(pm, t->name) != NULL, "tree by name");
    fz_check(t->root < t->nnodes, "root index");
    fz_check(rt_dtype_size(t->dtype) > 0 && rt_dtype_name(t->dtype) != NULL &&
             rt_op_name(t->op) != NULL, "dtype, op names");
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const rt_node_t *n = &t->nodes[i];
        uint32_t         steps = 0;

        fz_check(n->name != NULL && rt_node_kind_name(n->kind) != NULL, "node names");
        fz_check(n->host < pm->nhosts, "node host");
        roots += n->kind == RT_NODE_CORE || n->kind == RT_NODE_ALGO;
        fz_check((n->parent == RT_ID_NONE) == (i == t->root), "only the root has no parent");
        fz_check((n->algo != NULL) == (n->kind == RT_NODE_ALGO), "a spec on algo nodes only");
        if (n->parent != RT_ID_NONE) {
            const rt_node_t *p = &t->nodes[n->parent];

            fz_check(n->parent < t->nnodes, "parent index");
            fz_check(n->depth == p->depth + 1, "depth");
            if (p->kind == RT_NODE_ALGO)
                fz_check(rt_algo_host_index(p->algo, n->host) >= 0,
                         "a child of an algo node is on one of its hosts");
            else
                fz_check((n->kind == RT_NODE_PROXY) == (n->host != p->host),
                         "only a proxy changes host");
        } else {
            fz_check(n->depth == 0, "root depth");
        }
        fz_check(rt_node_fanin(n) >= 1, "fan-in");
        fz_check(n->kind == RT_NODE_GRED || n->kind == RT_NODE_ALGO || rt_node_fanin(n) == 1,
                 "proxy and core fan-in 1");
        if (n->kind == RT_NODE_ALGO)
            fz_check_algo(pm, t, n);
        /* Following parents reaches the root. */
        for (rt_node_id_t k = i; k != t->root; k = t->nodes[k].parent)
            fz_check(++steps <= t->nnodes, "cycle");
    }
    fz_check(roots == 1, "one root per tree");
    fz_check((rt_tree_algo(t) != NULL) == (t->nodes[t->root].kind == RT_NODE_ALGO),
             "rt_tree_algo");
    for (uint32_t j = 0; j < t->nthreads; j++) {
        const rt_thread_map_t *m = &t->threads[j];

        fz_check(m->enter < t->nnodes && m->host < pm->nhosts, "thread indices");
        if (t->nodes[m->enter].kind == RT_NODE_ALGO)
            fz_check(rt_algo_host_index(t->nodes[m->enter].algo, m->host) >= 0,
                     "a thread enters an algo node that spans its host");
        else
            fz_check(t->nodes[m->enter].host == m->host, "thread enters on its host");
        fz_check(j == 0 || t->threads[j - 1].id < m->id, "threads sorted, unique");
        fz_check(rt_tree_path_len(t, m) == t->nodes[m->enter].depth + 1, "path length");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t      err;
    char          msg[1024];

    cm_err_clear(&err);
    if (rt_pathmap_parse("fuzz.pathmap", (const char *)data, size, &pm, &err) != CM_OK) {
        fz_check(pm == NULL, "failure leaves the result untouched");
        cm_err_format(&err, msg, sizeof(msg));
        fz_check(err.status != CM_OK && err.msg[0] != '\0', "an error has a message");
        return 0;
    }
    fz_check(pm != NULL && pm->len == size && memcmp(pm->text, data, size) == 0 &&
             pm->text[size] == '\0', "the model holds the text");
    fz_check(pm->hash == rt_hash_fnv1a(data, size), "hash");
    fz_check(pm->ntrees >= 1 && rt_pathmap_tree(pm, NULL) == &pm->trees[0], "first tree");
    for (uint32_t i = 0; i < pm->ntrees; i++)
        fz_check_tree(pm, &pm->trees[i]);
    rt_pathmap_destroy(pm);
    return 0;
}
