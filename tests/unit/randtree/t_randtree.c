/*
 * t_randtree.c - unit tests of the random pathmap generator
 * (tests/randtree/randtree.h): every text it writes is parsed by the project's
 * parser (rt_pathmap_parse), which must accept it; the same seed gives the
 * same text; and across seeds each shape the random-trees test relies on
 * occurs, as the parsed model shows it (not as the generator says).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "tests/randtree/randtree.h"
#include "runtime/api/rt_pathmap.h"

/* The seed's text, malloc'd; fails the test if the generator refuses. */
static char *make(uint64_t seed, const randtree_limits_t *lim, long *len_p)
{
    long n = randtree_make(seed, lim, NULL, 0);
    char *buf;

    if (n <= 0)
        TST_FAIL("randtree_make(seed %llu) returned %ld", (unsigned long long)seed, n);
    buf = malloc((size_t)n + 1);
    TST_NOT_NULL(buf);
    TST_EQ_INT(randtree_make(seed, lim, buf, (size_t)n + 1), n);
    TST_EQ_UINT(strlen(buf), (uint64_t)n);
    *len_p = n;
    return buf;
}

static rt_pathmap_t *parse(uint64_t seed, const char *text, long len)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t err;
    char path[64];

    cm_err_clear(&err);
    snprintf(path, sizeof(path), "seed-%llu", (unsigned long long)seed);
    if (rt_pathmap_parse(path, text, (size_t)len, &pm, &err) != CM_OK) {
        cm_err_print(stderr, "", &err);
        fprintf(stderr, "%s", text);
        TST_FAIL("seed %llu: the parser rejects the generated pathmap",
                 (unsigned long long)seed);
    }
    return pm;
}

/* Parses n seeds from first under lim; checks the limits hold. */
static void valid_range(uint64_t first, unsigned n, const randtree_limits_t *lim)
{
    for (uint64_t s = first; s < first + n; s++) {
        long len;
        char *text = make(s, lim, &len);
        rt_pathmap_t *pm = parse(s, text, len);
        uint32_t per_host[RANDTREE_HOSTS_MAX] = { 0 };

        TST_TRUE(pm->nhosts >= lim->min_hosts && pm->nhosts <= lim->max_hosts);
        TST_TRUE(pm->ntrees >= 1 && pm->ntrees <= lim->max_trees);
        for (uint32_t k = 0; k < pm->ntrees; k++) {
            const rt_tree_t *t = &pm->trees[k];
            uint32_t here[RANDTREE_HOSTS_MAX] = { 0 };

            TST_TRUE(t->dtype != RT_DTYPE_FLOAT);
            for (uint32_t i = 0; i < t->nthreads; i++)
                here[t->threads[i].host]++;
            for (uint32_t h = 0; h < pm->nhosts; h++) {
                TST_TRUE(here[h] <= lim->max_threads);
                if (here[h] > per_host[h])
                    per_host[h] = here[h];
            }
            if (rt_tree_algo(t) != NULL && rt_tree_algo(t)->algo->run != NULL &&
                strcmp(rt_tree_algo(t)->algo->run->name, "rabenseifner") == 0) {
                uint32_t p = 1;

                while (2 * p <= rt_tree_algo(t)->algo->nhosts)
                    p *= 2;
                TST_TRUE(lim->min_count >= p);     /* its precondition on the count */
            }
        }
        rt_pathmap_destroy(pm);
        free(text);
    }
}

void t_randtree_valid(void)
{
    randtree_limits_t lim;

    randtree_limits_default(&lim);
    valid_range(1, 1000, &lim);
    /* Larger files than the MPI tests run: up to 16 hosts of 8 threads. */
    lim.max_hosts = 16;
    lim.max_threads = 8;
    lim.max_trees = RANDTREE_TREES_MAX;
    valid_range(5000, 300, &lim);
    /* Exactly 2 hosts, algorithm roots only, counts large enough for any. */
    lim.min_hosts = lim.max_hosts = 2;
    lim.algo_percent = 100;
    lim.min_count = 64;
    valid_range(9000, 200, &lim);
    lim.min_hosts = lim.max_hosts = 1;
    valid_range(9500, 50, &lim);
}

void t_randtree_deterministic(void)
{
    randtree_limits_t lim;
    char small[40];

    randtree_limits_default(&lim);
    for (uint64_t s = 0; s < 50; s++) {
        long n1, n2;
        char *a = make(s, &lim, &n1), *b = make(s, &lim, &n2), *c = make(s + 1, &lim, &n2);

        TST_EQ_STR(a, b);
        TST_TRUE(strcmp(a, c) != 0);
        /* A short buffer: the length it needs, and a NUL-terminated prefix. */
        TST_EQ_INT(randtree_make(s, &lim, small, sizeof(small)), n1);
        TST_EQ_UINT(strlen(small), sizeof(small) - 1);
        TST_TRUE(strncmp(small, a, sizeof(small) - 1) == 0);
        free(a);
        free(b);
        free(c);
    }
    /* Invalid limits are refused. */
    lim.min_hosts = 0;
    TST_EQ_INT(randtree_make(1, &lim, small, sizeof(small)), -1);
    randtree_limits_default(&lim);
    lim.max_hosts = RANDTREE_HOSTS_MAX + 1;
    TST_EQ_INT(randtree_make(1, &lim, small, sizeof(small)), -1);
    randtree_limits_default(&lim);
    lim.max_trees = 0;
    TST_EQ_INT(randtree_make(1, &lim, small, sizeof(small)), -1);
}

enum {
    F_GATEWAY_RELAY,     /* a proxy on a host that has no thread in any tree */
    F_LINK_ONLY_GRED,    /* a gred on no thread's path on its own host */
    F_LINK_ONLY_CORE,    /* a core on no thread's path: fed by links only */
    F_THREAD_CORE,       /* a thread enters the core directly */
    F_THREAD_PROXY,      /* a thread enters a proxy directly */
    F_THREAD_ALGO,       /* a thread enters the algorithm node directly */
    F_PROXY_CHAIN,       /* a proxy whose parent is a proxy */
    F_MULTI_TREE,        /* several trees in one file */
    F_ALGO_ROOT,         /* an algorithm node as root */
    F_DEEP,              /* a path of 5 wrappers or more */
    F_WIDE,              /* a gred of fan-in 3 or more */
    F_ONE_HOST,
    F_FOUR_HOSTS,
    F_DTYPE_INT32, F_DTYPE_INT64, F_DTYPE_DOUBLE,
    F_OP_SUM, F_OP_MIN, F_OP_MAX,
    F_COUNT
};

static const char *const feature_names[F_COUNT] = {
    "gateway relay", "link-only gred", "link-only core", "thread into core",
    "thread into proxy", "thread into algo", "proxy chain", "multi-tree", "algo root",
    "deep path", "wide gred", "one host", "four hosts", "int32", "int64", "double",
    "sum", "min", "max"
};

static void features(const rt_pathmap_t *pm, unsigned *count)
{
    int seen[F_COUNT] = { 0 };
    uint8_t threaded[RANDTREE_HOSTS_MAX] = { 0 };

    for (uint32_t k = 0; k < pm->ntrees; k++) {
        for (uint32_t i = 0; i < pm->trees[k].nthreads; i++)
            threaded[pm->trees[k].threads[i].host] = 1;
    }
    seen[F_MULTI_TREE] = pm->ntrees > 1;
    seen[F_ONE_HOST] = pm->nhosts == 1;
    seen[F_FOUR_HOSTS] = pm->nhosts == 4;
    for (uint32_t k = 0; k < pm->ntrees; k++) {
        const rt_tree_t *t = &pm->trees[k];
        uint8_t *onpath = calloc(t->nnodes, 1);

        TST_NOT_NULL(onpath);
        seen[F_DTYPE_INT32 + (t->dtype == RT_DTYPE_INT64) + 2 * (t->dtype == RT_DTYPE_DOUBLE)] = 1;
        seen[F_OP_SUM + (int)t->op] = 1;
        seen[F_ALGO_ROOT] |= rt_tree_algo(t) != NULL;
        for (uint32_t i = 0; i < t->nthreads; i++) {
            const rt_thread_map_t *th = &t->threads[i];
            const rt_node_t *e = &t->nodes[th->enter];

            seen[F_THREAD_CORE] |= e->kind == RT_NODE_CORE;
            seen[F_THREAD_PROXY] |= e->kind == RT_NODE_PROXY;
            seen[F_THREAD_ALGO] |= e->kind == RT_NODE_ALGO;
            seen[F_DEEP] |= rt_tree_path_len(t, th) >= 5;
            for (rt_node_id_t n = th->enter; n != RT_ID_NONE && t->nodes[n].host == th->host &&
                 t->nodes[n].kind != RT_NODE_ALGO; n = t->nodes[n].parent)
                onpath[n] = 1;
        }
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const rt_node_t *node = &t->nodes[n];

            seen[F_GATEWAY_RELAY] |= node->kind == RT_NODE_PROXY && !threaded[node->host];
            seen[F_LINK_ONLY_GRED] |= node->kind == RT_NODE_GRED && !onpath[n];
            seen[F_LINK_ONLY_CORE] |= node->kind == RT_NODE_CORE && !onpath[n];
            seen[F_PROXY_CHAIN] |= node->kind == RT_NODE_PROXY && node->parent != RT_ID_NONE &&
                                   t->nodes[node->parent].kind == RT_NODE_PROXY;
            seen[F_WIDE] |= node->kind == RT_NODE_GRED && rt_node_fanin(node) >= 3;
        }
        free(onpath);
    }
    for (int f = 0; f < F_COUNT; f++)
        count[f] += (unsigned)seen[f];
}

void t_randtree_features(void)
{
    randtree_limits_t lim;
    unsigned count[F_COUNT] = { 0 };
    const unsigned nseeds = 1000;

    randtree_limits_default(&lim);
    for (uint64_t s = 1; s <= nseeds; s++) {
        long len;
        char *text = make(s, &lim, &len);
        rt_pathmap_t *pm = parse(s, text, len);

        features(pm, count);
        rt_pathmap_destroy(pm);
        free(text);
    }
    /* Each shape in at least 1 % of the files (seeds 1..1000 of the MPI
       tests see all of them many times over). */
    for (int f = 0; f < F_COUNT; f++) {
        printf("  %-18s %u of %u files\n", feature_names[f], count[f], nseeds);
        if (count[f] < nseeds / 100)
            TST_FAIL("feature '%s' in %u of %u files (at least %u expected)",
                     feature_names[f], count[f], nseeds, nseeds / 100);
    }
}
