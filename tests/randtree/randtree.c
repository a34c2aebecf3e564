/*
 * randtree.c - random valid pathmaps (randtree.h).
 *
 * A file is drawn in three steps:
 *  1. hosts: 1..H, each with 1..T threads or, when there are several
 *     hosts, sometimes none (a gateway); thread ids are a random subset of
 *     0..2N-1, so that ranges have holes;
 *  2. trees: for each tree, the threads that take part (all of them in the
 *     first tree, subsets in later ones), a root (a core on one host, or an
 *     algorithm node over a set of hosts), and a random spanning forest of
 *     the hosts hanging below the root host(s).  A host without threads
 *     that has no host below it is given one (a relay needs something to
 *     relay) or left out of the tree.  Then each host, children first,
 *     combines its items (its threads and the out-proxies of the hosts
 *     below it) by a random tree of greds into one contribution, which
 *     feeds its own out-proxy, the core, or the algorithm node;
 *  3. the text: hosts, then each tree's wrappers in a random order (parents
 *     are often named before they are declared) and its threads lines.
 * A file in which some host ends up in no tree is drawn again.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/randtree/randtree.h"

#define RT_ATTEMPTS 1000

enum { K_CORE, K_GRED, K_PROXY, K_ALGO };

typedef struct gnode {
    int      kind;
    unsigned host;
    int      parent;        /* node index, -1 for the root */
    unsigned wait;          /* gred: 0 none printed, 1 auto, 2 spin, 3 block */
} gnode_t;

typedef struct item {
    int      is_node;
    unsigned id;            /* node index or thread id */
} item_t;

typedef struct gtree {
    gnode_t *nodes;
    unsigned nnodes, cap;
    int     *enter;         /* per thread id: node index, or -1 */
    unsigned dtype, op;
    char     algo[256];     /* the algo node's parameters after its name */
} gtree_t;

typedef struct gen {
    uint64_t state;
    const randtree_limits_t *lim;
    unsigned nhosts, nids;
    unsigned nthr[RANDTREE_HOSTS_MAX];
    unsigned tid[RANDTREE_HOSTS_MAX][RANDTREE_THREADS_MAX];
    int      host_of[2 * RANDTREE_HOSTS_MAX * RANDTREE_THREADS_MAX];   /* -1: no thread */
    int      used[RANDTREE_HOSTS_MAX];
    unsigned ntrees;
    gtree_t  trees[RANDTREE_TREES_MAX];
    unsigned maxdepth;      /* of the current tree's gred combinations */
} gen_t;

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t rng_next(gen_t *g)
{
    uint64_t x = (g->state += 0x9e3779b97f4a7c15ull);

    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static unsigned rnd(gen_t *g, unsigned n)
{
    return n == 0 ? 0 : (unsigned)(rng_next(g) % n);
}

static int chance(gen_t *g, unsigned pct)
{
    return rnd(g, 100) < pct;
}

static void shuffle(gen_t *g, unsigned *a, unsigned n)
{
    for (unsigned i = n; i > 1; i--) {
        unsigned j = rnd(g, i), t = a[i - 1];

        a[i - 1] = a[j];
        a[j] = t;
    }
}

static int new_node(gtree_t *t, int kind, unsigned host)
{
    if (t->nnodes == t->cap) {
        unsigned cap = t->cap ? 2 * t->cap : 32;
        gnode_t *bigger = realloc(t->nodes, cap * sizeof(*bigger));

        if (bigger == NULL)
            return -1;
        t->nodes = bigger;
        t->cap = cap;
    }
    t->nodes[t->nnodes] = (gnode_t){ kind, host, -1, 0 };
    return (int)t->nnodes++;
}

static void attach(gtree_t *t, item_t it, int parent)
{
    if (it.is_node)
        t->nodes[it.id].parent = parent;
    else
        t->enter[it.id] = parent;
}

/*
 * Combines items (all on host h, or proxies whose parent will be on h)
 * into one contributor: the item itself (one item, most of the time), or
 * a gred whose contributors are the items, split into random groups that
 * are combined the same way one level deeper.  Returns the contributor,
 * or is_node = -1 when out of memory.
 */
static item_t combine(gen_t *g, gtree_t *t, unsigned h, item_t *items, unsigned n,
                      unsigned depth)
{
    item_t none = { -1, 0 };
    unsigned ngroups, start;
    int gred;

    if (n == 1 && (depth >= g->maxdepth || chance(g, 60)))
        return items[0];
    if ((gred = new_node(t, K_GRED, h)) < 0)
        return none;
    t->nodes[gred].wait = chance(g, 60) ? 0 : 1 + rnd(g, 3);
    /* Proxies first half of the time, so that groups of links only (a gred
       that no thread of the host enters) come up often; else shuffled. */
    if (chance(g, 50)) {
        unsigned k = 0;

        for (unsigned i = 0; i < n; i++) {
            if (items[i].is_node) {
                item_t x = items[k];

                items[k++] = items[i];
                items[i] = x;
            }
        }
    } else {
        for (unsigned i = n; i > 1; i--) {
            unsigned j = rnd(g, i);
            item_t x = items[i - 1];

            items[i - 1] = items[j];
            items[j] = x;
        }
    }
    ngroups = depth >= g->maxdepth ? n : 1 + rnd(g, n < 3 ? n : 3);
    if (ngroups == 1) {
        for (unsigned i = 0; i < n; i++)
            attach(t, items[i], gred);
        return (item_t){ 1, (unsigned)gred };
    }
    /* ngroups contiguous non-empty groups: cut points drawn in order. */
    start = 0;
    for (unsigned k = 0; k < ngroups; k++) {
        unsigned left = ngroups - k - 1;
        unsigned size = left == 0 ? n - start : 1 + rnd(g, n - start - left);
        item_t sub;

        if (size == 1 && depth >= g->maxdepth)
            sub = items[start];
        else
            sub = combine(g, t, h, items + start, size, depth + 1);
        if (sub.is_node < 0)
            return none;
        attach(t, sub, gred);
        start += size;
    }
    return (item_t){ 1, (unsigned)gred };
}

static int is_ancestor(const int *parent, unsigned a, unsigned x)
{
    for (int p = (int)x; p >= 0; p = parent[p]) {
        if ((unsigned)p == a)
            return 1;
    }
    return 0;
}

static unsigned largest_pow2(unsigned n)
{
    unsigned p = 1;

    while (2 * p <= n)
        p *= 2;
    return p;
}

static void algo_params(gen_t *g, gtree_t *t, const unsigned *hosts, unsigned n,
                        char **names)
{
    static const char *const runs[] = {
        "native", "ring", "ring-seg", "rd", "rabenseifner", "slt", "prr", "nap",
        "binomial-reduce", "chain-reduce", "bintree-reduce", "greedy-reduce",
        "clv-linear", "clv"
    };
    unsigned nruns = sizeof(runs) / sizeof(runs[0]);
    unsigned maxseg = g->lim->min_count < 4 ? g->lim->min_count : 4;
    const char *run;
    char *p = t->algo;
    size_t cap = sizeof(t->algo);
    int reduce, pap, segs, port;

#define ADD(...) do { int k_ = snprintf(p, cap, __VA_ARGS__); p += k_; cap -= (size_t)k_; } while (0)
    do
        run = runs[rnd(g, nruns)];
    while (strcmp(run, "rabenseifner") == 0 && g->lim->min_count < largest_pow2(n));
    ADD("run=%s", run);
    reduce = strstr(run, "-reduce") != NULL || strncmp(run, "clv", 3) == 0;
    pap = strcmp(run, "slt") == 0 || strcmp(run, "prr") == 0 || strncmp(run, "clv", 3) == 0;
    segs = strcmp(run, "slt") == 0 || strcmp(run, "chain-reduce") == 0 ||
           strcmp(run, "bintree-reduce") == 0 || strcmp(run, "greedy-reduce") == 0 ||
           strncmp(run, "clv", 3) == 0;
    port = strcmp(run, "chain-reduce") == 0 || strcmp(run, "bintree-reduce") == 0;
    if (strcmp(run, "ring-seg") == 0)
        ADD(" segsize=%u", 1 + rnd(g, 4));
    if (strcmp(run, "nap") == 0) {
        unsigned div[RANDTREE_HOSTS_MAX], nd = 0;

        for (unsigned d = 2; d <= n; d++) {
            if (n % d == 0)
                div[nd++] = d;
        }
        ADD(" ppn=%u", div[rnd(g, nd)]);
    }
    if (reduce && chance(g, 50))
        ADD(" bcast=%s", chance(g, 50) ? "binomial-bcast" : "chain-bcast");
    if (reduce && chance(g, 50))
        ADD(" root=%s", names[hosts[rnd(g, n)]]);
    if (pap && chance(g, 50))
        ADD(" arrival=%s", chance(g, 50) ? "equal" : "history");
    if ((strcmp(run, "prr") == 0 || strncmp(run, "clv", 3) == 0) && chance(g, 40))
        ADD(" round=%u", 1000 + rnd(g, 20000));
    if (segs && maxseg >= 1 && chance(g, 40))
        ADD(" segments=%u", 1 + rnd(g, maxseg));
    if (port && chance(g, 40))
        ADD(" port=%s", chance(g, 50) ? "u" : "b");
    if (strcmp(run, "greedy-reduce") == 0 && chance(g, 30))
        ADD(" port=u");
    if (strcmp(run, "bintree-reduce") == 0 && chance(g, 40))
        ADD(" shape=%s", chance(g, 50) ? "heap" : "ompi");
#undef ADD
}

/* Draws tree number k into g->trees[k]; 0, or -1 to draw it again. */
static int gen_tree(gen_t *g, unsigned k, char **names)
{
    gtree_t *t = &g->trees[k];
    unsigned nh = g->nhosts, order[RANDTREE_HOSTS_MAX], norder = 0, nroots = 0;
    unsigned nsel[RANDTREE_HOSTS_MAX], sel[RANDTREE_HOSTS_MAX][RANDTREE_THREADS_MAX];
    int parent[RANDTREE_HOSTS_MAX], part[RANDTREE_HOSTS_MAX], placed[RANDTREE_HOSTS_MAX];
    int outp[RANDTREE_HOSTS_MAX], isroot[RANDTREE_HOSTS_MAX];
    unsigned total = 0, single_host = nh;
    int algo = nh >= 2 && chance(g, (unsigned)g->lim->algo_percent);
    int algo_node = -1, changed;

    t->nnodes = 0;
    for (unsigned i = 0; i < g->nids; i++)
        t->enter[i] = -1;
    t->dtype = rnd(g, 3);
    t->op = rnd(g, 3);
    t->algo[0] = '\0';
    g->maxdepth = 1 + rnd(g, 4);
    /* The threads of this tree. */
    if (k > 0 && chance(g, 20))
        single_host = rnd(g, nh);      /* one thread of one host only */
    for (unsigned h = 0; h < nh; h++) {
        int skip = k > 0 && chance(g, 25);

        nsel[h] = 0;
        for (unsigned i = 0; i < g->nthr[h]; i++) {
            if (single_host < nh ? h == single_host && nsel[h] == 0 :
                !skip && (k == 0 || chance(g, 70)))
                sel[h][nsel[h]++] = g->tid[h][i];
        }
        total += nsel[h];
    }
    if (total == 0)
        return -1;
    /* The root host(s), then every other host below a placed one. */
    for (unsigned h = 0; h < nh; h++) {
        placed[h] = 0;
        isroot[h] = 0;
        parent[h] = -1;
    }
    if (algo) {
        for (unsigned h = 0; h < nh; h++) {
            if (chance(g, 60)) {
                isroot[h] = placed[h] = 1;
                order[norder++] = h;
            }
        }
        while (norder < 2) {
            unsigned h = rnd(g, nh);

            if (!placed[h]) {
                isroot[h] = placed[h] = 1;
                order[norder++] = h;
            }
        }
    } else {
        unsigned r = rnd(g, nh);

        isroot[r] = placed[r] = 1;
        order[norder++] = r;
    }
    nroots = norder;
    {
        unsigned rest[RANDTREE_HOSTS_MAX], nrest = 0;

        for (unsigned h = 0; h < nh; h++) {
            if (!placed[h])
                rest[nrest++] = h;
        }
        shuffle(g, rest, nrest);
        for (unsigned i = 0; i < nrest; i++) {
            parent[rest[i]] = (int)order[rnd(g, norder)];
            placed[rest[i]] = 1;
            order[norder++] = rest[i];
        }
    }
    /* A host without threads here and without hosts below it: give it a
       threaded host from elsewhere (not one of its ancestors), most of the
       time; the others are pruned below. */
    for (unsigned h = 0; h < nh; h++) {
        unsigned cand[RANDTREE_HOSTS_MAX], ncand = 0;
        int haschild = 0;

        if (nsel[h] > 0)
            continue;
        for (unsigned c = 0; c < nh; c++)
            haschild |= parent[c] == (int)h;
        if (haschild || !(k == 0 || chance(g, 70)))
            continue;
        for (unsigned c = 0; c < nh; c++) {
            if (nsel[c] > 0 && !isroot[c] && !is_ancestor(parent, c, h))
                cand[ncand++] = c;
        }
        if (ncand > 0)
            parent[cand[rnd(g, ncand)]] = (int)h;
    }
    /* The host order must list parents before children again. */
    norder = 0;
    for (unsigned h = 0; h < nh; h++) {
        if (isroot[h])
            order[norder++] = h;
    }
    for (unsigned i = 0; i < norder; i++) {
        for (unsigned c = 0; c < nh; c++) {
            if (parent[c] == (int)order[i])
                order[norder++] = c;
        }
    }
    /* Prune hosts with nothing to contribute. */
    for (unsigned h = 0; h < nh; h++)
        part[h] = 1;
    do {
        changed = 0;
        for (unsigned h = 0; h < nh; h++) {
            int haschild = 0;

            if (!part[h] || nsel[h] > 0)
                continue;
            for (unsigned c = 0; c < nh; c++)
                haschild |= part[c] && parent[c] == (int)h;
            if (!haschild) {
                part[h] = 0;
                changed = 1;
            }
        }
    } while (changed);
    if (algo) {
        unsigned n = 0;

        for (unsigned i = 0; i < nroots; i++)
            n += (unsigned)part[order[i]];
        if (n < 2)
            return -1;
    } else if (!part[order[0]]) {
        return -1;
    }
    if (algo && (algo_node = new_node(t, K_ALGO, 0)) < 0)
        return -1;
    /* Children first: each host combines its threads and the proxies of
       the hosts below it. */
    for (unsigned i = norder; i-- > 0;) {
        unsigned h = order[i];
        item_t items[RANDTREE_THREADS_MAX + RANDTREE_HOSTS_MAX], top;
        unsigned n = 0;

        if (!part[h])
            continue;
        for (unsigned j = 0; j < nsel[h]; j++)
            items[n++] = (item_t){ 0, sel[h][j] };
        for (unsigned c = 0; c < nh; c++) {
            if (part[c] && parent[c] == (int)h)
                items[n++] = (item_t){ 1, (unsigned)outp[c] };
        }
        top = combine(g, t, h, items, n, 0);
        if (top.is_node < 0)
            return -1;
        if (isroot[h] && algo) {
            if (top.is_node && t->nodes[top.id].kind == K_PROXY) {
                int gred = new_node(t, K_GRED, h);    /* a proxy cannot enter it */

                if (gred < 0)
                    return -1;
                attach(t, top, gred);
                top = (item_t){ 1, (unsigned)gred };
            }
            attach(t, top, algo_node);
        } else {
            int up = new_node(t, isroot[h] ? K_CORE : K_PROXY, h);

            if (up < 0)
                return -1;
            attach(t, top, up);
            outp[h] = up;
        }
    }
    if (algo) {
        unsigned hosts[RANDTREE_HOSTS_MAX], n = 0;

        for (unsigned h = 0; h < nh; h++) {
            if (isroot[h] && part[h])
                hosts[n++] = h;
        }
        algo_params(g, t, hosts, n, names);
    }
    for (unsigned h = 0; h < nh; h++)
        g->used[h] |= part[h];
    return 0;
}

typedef struct out {
    char  *buf;
    size_t cap, len;
} out_t;

static void emit(out_t *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(o->len < o->cap ? o->buf + o->len : NULL,
                  o->len < o->cap ? o->cap - o->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static void node_name(const gtree_t *t, unsigned i, char *buf, size_t size)
{
    static const char pre[] = { 'c', 'g', 'p', 'a' };

    snprintf(buf, size, "%c%u", pre[t->nodes[i].kind], i);
}

static void print_tree(gen_t *g, const gtree_t *t, unsigned k, char **names, out_t *o)
{
    static const char *const dtypes[] = { "int32", "int64", "double" };
    static const char *const ops[] = { "sum", "min", "max" };
    static const char *const waits[] = { "", "auto", "spin", "block" };
    static const char *const kinds[] = { "core", "gred", "proxy", "algo" };
    unsigned *perm = malloc((t->nnodes + 1) * sizeof(*perm));
    char name[32], pname[32];

    if (perm == NULL)
        return;
    emit(o, "\ntree t%u type=%s op=%s\n", k, dtypes[t->dtype], ops[t->op]);
    for (unsigned i = 0; i < t->nnodes; i++)
        perm[i] = i;
    shuffle(g, perm, t->nnodes);
    for (unsigned j = 0; j < t->nnodes; j++) {
        const gnode_t *n = &t->nodes[perm[j]];

        node_name(t, perm[j], name, sizeof(name));
        if (n->kind == K_ALGO) {
            emit(o, "algo %s %s\n", name, t->algo);
            continue;
        }
        emit(o, "%-5s %-4s host=%s", kinds[n->kind], name, names[n->host]);
        if (n->parent >= 0) {
            node_name(t, (unsigned)n->parent, pname, sizeof(pname));
            emit(o, " parent=%s", pname);
        }
        if (n->wait)
            emit(o, " wait=%s", waits[n->wait]);
        emit(o, "\n");
    }
    free(perm);
    /* Threads by entry wrapper and host (an algorithm node is entered from
       several): ranges of consecutive ids on one line, or sometimes one line
       per thread. */
    for (unsigned i = 0; i < t->nnodes; i++) {
        node_name(t, i, name, sizeof(name));
        for (unsigned h = 0; h < g->nhosts; h++) {
            int per_thread = chance(g, 25), started = 0;

            for (unsigned id = 0; id < g->nids; id++) {
                unsigned end = id;

                if (t->enter[id] != (int)i || g->host_of[id] != (int)h)
                    continue;
                while (!per_thread && end + 1 < g->nids && t->enter[end + 1] == (int)i &&
                       g->host_of[end + 1] == (int)h)
                    end++;
                emit(o, started ? "," : "threads ");
                if (end > id)
                    emit(o, "%u-%u", id, end);
                else
                    emit(o, "%u", id);
                if (per_thread)
                    emit(o, " host=%s enter=%s\n", names[h], name);
                started = !per_thread;
                id = end;
            }
            if (started)
                emit(o, " host=%s enter=%s\n", names[h], name);
        }
    }
}

void randtree_limits_default(randtree_limits_t *lim)
{
    lim->min_hosts = 1;
    lim->max_hosts = 4;
    lim->max_threads = 3;
    lim->max_trees = 3;
    lim->algo_percent = 20;
    lim->min_count = 1;
}

static void free_trees(gen_t *g)
{
    for (unsigned k = 0; k < RANDTREE_TREES_MAX; k++) {
        free(g->trees[k].nodes);
        free(g->trees[k].enter);
    }
}

long randtree_make(uint64_t seed, const randtree_limits_t *lim, char *buf, size_t cap)
{
    char namebuf[RANDTREE_HOSTS_MAX][16], *names[RANDTREE_HOSTS_MAX];
    gen_t *g;
    out_t o = { buf, cap, 0 };
    int ok = 0;

    if (lim == NULL || lim->min_hosts < 1 || lim->min_hosts > lim->max_hosts ||
        lim->max_hosts > RANDTREE_HOSTS_MAX || lim->max_threads < 1 ||
        lim->max_threads > RANDTREE_THREADS_MAX || lim->max_trees < 1 ||
        lim->max_trees > RANDTREE_TREES_MAX || lim->algo_percent > 100)
        return -1;
    if ((g = calloc(1, sizeof(*g))) == NULL)
        return -1;
    g->state = seed;
    g->lim = lim;
    for (unsigned attempt = 0; attempt < RT_ATTEMPTS && !ok; attempt++) {
        unsigned ids[2 * RANDTREE_HOSTS_MAX * RANDTREE_THREADS_MAX], nthreads = 0, next = 0;

        g->nhosts = lim->min_hosts + rnd(g, lim->max_hosts - lim->min_hosts + 1);
        for (unsigned h = 0; h < g->nhosts; h++) {
            g->nthr[h] = g->nhosts > 1 && chance(g, 25) ? 0 : 1 + rnd(g, lim->max_threads);
            nthreads += g->nthr[h];
            g->used[h] = 0;
        }
        if (nthreads == 0)
            continue;
        /* Thread ids: nthreads of 0..2*nthreads-1, in a random order. */
        g->nids = 2 * nthreads;
        for (unsigned i = 0; i < g->nids; i++) {
            ids[i] = i;
            g->host_of[i] = -1;
        }
        shuffle(g, ids, g->nids);
        for (unsigned h = 0; h < g->nhosts; h++) {
            snprintf(namebuf[h], sizeof(namebuf[h]), "%s%u", g->nthr[h] ? "h" : "gw", h);
            names[h] = namebuf[h];
            for (unsigned i = 0; i < g->nthr[h]; i++) {
                g->tid[h][i] = ids[next++];
                g->host_of[g->tid[h][i]] = (int)h;
            }
        }
        g->ntrees = 1 + rnd(g, lim->max_trees);
        ok = 1;
        for (unsigned k = 0; k < g->ntrees && ok; k++) {
            gtree_t *t = &g->trees[k];
            int *enter = realloc(t->enter, g->nids * sizeof(*enter));
            int st = -1;

            if (enter == NULL)
                break;
            t->enter = enter;
            for (unsigned a = 0; a < 50 && st != 0; a++)
                st = gen_tree(g, k, names);
            ok = st == 0;
        }
        for (unsigned h = 0; h < g->nhosts && ok; h++)
            ok = g->used[h];
    }
    if (!ok) {
        free_trees(g);
        free(g);
        return -1;
    }
    emit(&o, "# randtree seed %llu: %u hosts, %u trees\n", (unsigned long long)seed,
         g->nhosts, g->ntrees);
    for (unsigned h = 0; h < g->nhosts; h++)
        emit(&o, "host %s\n", names[h]);
    for (unsigned k = 0; k < g->ntrees; k++)
        print_tree(g, &g->trees[k], k, names, &o);
    if (cap > 0 && o.len >= cap)
        buf[cap - 1] = '\0';
    free_trees(g);
    free(g);
    return (long)o.len;
}
