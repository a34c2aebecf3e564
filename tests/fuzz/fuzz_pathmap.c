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

/* The invariants of rt_pathmap.h on one tree. */
static void fz_check_tree(const rt_pathmap_t *pm, const rt_tree_t *t)
{
    uint32_t cores = 0;

    fz_check(t->name != NULL && rt_pathmap_tree(pm, t->name) != NULL, "tree by name");
    fz_check(t->root < t->nnodes, "core index");
    fz_check(rt_dtype_size(t->dtype) > 0 && rt_dtype_name(t->dtype) != NULL &&
             rt_op_name(t->op) != NULL, "dtype, op names");
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const rt_node_t *n = &t->nodes[i];
        uint32_t         steps = 0;

        fz_check(n->name != NULL && rt_node_kind_name(n->kind) != NULL, "node names");
        fz_check(n->host < pm->nhosts, "node host");
        cores += n->kind == RT_NODE_CORE;
        fz_check((n->parent == RT_ID_NONE) == (i == t->root), "only the core has no parent");
        if (n->parent != RT_ID_NONE) {
            const rt_node_t *p = &t->nodes[n->parent];

            fz_check(n->parent < t->nnodes, "parent index");
            fz_check(n->depth == p->depth + 1, "depth");
            fz_check((n->kind == RT_NODE_PROXY) == (n->host != p->host),
                     "only a proxy changes host");
        }
        fz_check(rt_node_fanin(n) >= 1, "fan-in");
        fz_check(n->kind == RT_NODE_GRED || rt_node_fanin(n) == 1, "proxy and core fan-in 1");
        /* Following parents reaches the core. */
        for (rt_node_id_t k = i; k != t->root; k = t->nodes[k].parent)
            fz_check(++steps <= t->nnodes, "cycle");
    }
    fz_check(cores == 1, "one core per tree");
    for (uint32_t j = 0; j < t->nthreads; j++) {
        const rt_thread_map_t *m = &t->threads[j];

        fz_check(m->enter < t->nnodes && m->host < pm->nhosts, "thread indices");
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
