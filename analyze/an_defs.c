/*
 * an_defs.c - the tree as a trace defines it: contributors, paths, subtrees
 * and parts, derived once from the regions and locations (an_read.c) so that
 * the per-operation code only indexes arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_int.h"
#include "instrument/api/ins_schema.h"

const char *an_part_name(an_part_t p)
{
    static const char *const names[] = { "host", "cluster", "proxy", "core", "algo" };

    return names[p];
}

const char *an_source_name(int source)
{
    static const char *const names[AN_NSRC] = { INS_ARRIVAL_EQUAL, INS_ARRIVAL_HISTORY,
                                                INS_ARRIVAL_EDGE };

    return source >= 0 && source < AN_NSRC ? names[source] : NULL;
}

int an_source_of(const char *name)
{
    for (int i = 0; name != NULL && i < AN_NSRC; i++)
        if (strcmp(name, an_source_name(i)) == 0)
            return i;
    return -1;
}

int an_defs_loc_index(const an_defs_t *d, uint64_t id)
{
    int lo = 0, hi = d->nlocs;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (d->locs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->nlocs && d->locs[lo].id == id ? lo : -1;
}

int an_defs_thread_index(const an_defs_t *d, int thread_id)
{
    for (int t = 0; t < d->nthreads; t++)
        if (d->threads[t].id == thread_id)
            return t;
    return -1;
}

int an_defs_node_index(const an_defs_t *d, const char *name)
{
    for (int i = 0; i < d->nnodes; i++)
        if (d->nodes[i].name != NULL && strcmp(d->nodes[i].name, name) == 0)
            return i;
    return -1;
}

static int thread_cmp(const void *a, const void *b)
{
    return ((const an_thread_t *)a)->id - ((const an_thread_t *)b)->id;
}

/* Levels and the root (a core or an algorithm node); fails on a second
 * root, on a core or algorithm node that is not the root, or on a cycle. */
static cm_status_t finish_levels(an_defs_t *d, const char *trace, cm_err_t *err)
{
    d->root = d->algo = -1;
    for (int i = 0; i < d->nnodes; i++) {
        int level = 0, n = i;
        cm_kind_t k = d->nodes[i].kind;
        if ((k == CM_KIND_CORE || k == CM_KIND_ALGO) != (d->nodes[i].parent < 0))
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0,
                             "wrapper '%s': a %s %s", d->nodes[i].name, cm_kind_name(k),
                             d->nodes[i].parent < 0 ? "without parent" : "with a parent");
        if (d->nodes[i].parent < 0) {
            if (d->root >= 0)
                return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0,
                                 "two roots, '%s' and '%s'", d->nodes[d->root].name,
                                 d->nodes[i].name);
            d->root = i;
            d->algo = k == CM_KIND_ALGO ? i : -1;
        }
        while (d->nodes[n].parent >= 0 && level <= d->nnodes) {
            n = d->nodes[n].parent;
            level++;
        }
        if (level > d->nnodes)
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0,
                             "wrapper '%s': its parents form a cycle", d->nodes[i].name);
        d->nodes[i].level = level;
    }
    if (d->root < 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0, "no root wrapper (core or algo)");
    return CM_OK;
}

/*
 * The algorithm node: each of its hosts (rank i = rank_host[i], from the
 * region's hosts= key) has exactly one contributor there, a child wrapper or
 * a thread, and exactly one algorithm location (enter = the node).
 */
static cm_status_t finish_algo(an_defs_t *d, const char *trace, cm_err_t *err)
{
    an_wrapper_t *w = &d->nodes[d->algo];

    if (w->nranks != w->fanin)
        return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0, "algorithm node '%s': %d hosts "
                         "but %d contributors", w->name, w->nranks, w->fanin);
    w->rank_contrib = malloc((size_t)w->nranks * sizeof(int));
    w->contrib_rank = malloc((size_t)w->fanin * sizeof(int));
    if (w->rank_contrib == NULL || w->contrib_rank == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int r = 0; r < w->nranks; r++)
        w->rank_contrib[r] = -1;
    for (int c = 0; c < w->fanin; c++) {
        int h = w->child[c] >= 0 ? d->nodes[w->child[c]].host : d->threads[w->thread[c]].host;
        int r = 0;
        while (r < w->nranks && w->rank_host[r] != h)
            r++;
        if (r == w->nranks || w->rank_contrib[r] >= 0)
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0, "algorithm node '%s': host "
                             "'%s' %s", w->name, d->hosts[h].name, r == w->nranks
                             ? "contributes but is not one of its hosts" : "contributes twice");
        w->rank_contrib[r] = c;
        w->contrib_rank[c] = r;
    }
    for (int i = 0; i < d->nlocs; i++) {
        an_location_t *l = &d->locs[i];
        if (l->role != AN_ROLE_ALGO)
            continue;
        for (int r = 0; r < w->nranks; r++)
            if (w->rank_host[r] == l->host) {
                if (l->rank >= 0 || d->locs[i].enter != d->algo)
                    break;
                l->rank = r;
            }
        for (int j = 0; j < i && l->rank >= 0; j++)
            if (d->locs[j].role == AN_ROLE_ALGO && d->locs[j].rank == l->rank)
                l->rank = -2;
        if (l->rank < 0)
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0, "algorithm location '%s': %s",
                             l->name, l->rank == -2 ? "a second one on its host"
                             : "its host is not one of the algorithm node's");
    }
    return CM_OK;
}

/* Contributors: child wrappers in node order, then the threads that enter. */
static cm_status_t finish_contributors(an_defs_t *d, const char *trace, cm_err_t *err)
{
    for (int i = 0; i < d->nnodes; i++) {
        an_wrapper_t *w = &d->nodes[i];
        int c = 0;
        w->child = malloc((size_t)(w->fanin > 0 ? w->fanin : 1) * sizeof(int));
        w->thread = malloc((size_t)(w->fanin > 0 ? w->fanin : 1) * sizeof(int));
        if (w->child == NULL || w->thread == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        for (int j = 0; j < d->nnodes; j++) {
            if (d->nodes[j].parent != i)
                continue;
            if (c < w->fanin) {
                w->child[c] = j;
                w->thread[c] = -1;
            }
            d->nodes[j].pslot = c++;
        }
        for (int t = 0; t < d->nthreads; t++) {
            if (d->threads[t].enter != i)
                continue;
            if (c < w->fanin) {
                w->child[c] = -1;
                w->thread[c] = t;
            }
            c++;
        }
        if (c != w->fanin || c == 0)
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0,
                             "wrapper '%s': fan-in %d in its region, but %d contributors "
                             "(child wrappers and threads) in the trace", w->name, w->fanin, c);
        if ((w->kind == CM_KIND_PROXY || w->kind == CM_KIND_CORE) && c != 1)
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0,
                             "%s '%s' has %d contributors, not 1", cm_kind_name(w->kind),
                             w->name, c);
        w->slot0 = d->nslots;
        d->nslots += w->fanin;
    }
    if (d->algo >= 0)
        return finish_algo(d, trace, err);
    for (int i = 0; i < d->nlocs; i++)
        if (d->locs[i].role == AN_ROLE_ALGO)
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0, "algorithm location '%s' in a "
                             "tree whose root is not an algorithm node", d->locs[i].name);
    return CM_OK;
}

static cm_status_t finish_paths(an_defs_t *d, cm_err_t *err)
{
    for (int t = 0; t < d->nthreads; t++) {
        an_thread_t *th = &d->threads[t];
        int n = th->enter;
        th->nsteps = d->nodes[n].level + 1;
        th->node = malloc((size_t)th->nsteps * sizeof(int));
        th->contrib = malloc((size_t)th->nsteps * sizeof(int));
        if (th->node == NULL || th->contrib == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        for (int s = 0; s < th->nsteps; s++, n = d->nodes[n].parent) {
            th->node[s] = n;
            if (s == 0) {
                for (int c = 0; c < d->nodes[n].fanin; c++)
                    if (d->nodes[n].thread[c] == t)
                        th->contrib[0] = c;
            } else {
                th->contrib[s] = d->nodes[th->node[s - 1]].pslot;
            }
            if (d->nodes[n].kind == CM_KIND_PROXY)
                th->nproxies++;
            d->nodes[n].nbelow++;
        }
        if (th->nsteps > d->maxsteps)
            d->maxsteps = th->nsteps;
    }
    return CM_OK;
}

/* Threads below each wrapper, hosts among them, and the part of the tree. */
static cm_status_t finish_subtrees(an_defs_t *d, cm_err_t *err)
{
    char *seen = calloc((size_t)d->nhosts, 1);

    if (seen == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nnodes; i++) {
        an_wrapper_t *w = &d->nodes[i];
        w->below = malloc((size_t)(w->nbelow > 0 ? w->nbelow : 1) * sizeof(int));
        if (w->below == NULL) {
            free(seen);
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        }
        w->nbelow = 0;
    }
    for (int t = 0; t < d->nthreads; t++)
        for (int s = 0; s < d->threads[t].nsteps; s++) {
            an_wrapper_t *w = &d->nodes[d->threads[t].node[s]];
            w->below[w->nbelow++] = t;
        }
    for (int i = 0; i < d->nnodes; i++) {
        an_wrapper_t *w = &d->nodes[i];
        memset(seen, 0, (size_t)d->nhosts);
        w->nhosts = 0;
        for (int k = 0; k < w->nbelow; k++) {
            int h = d->threads[w->below[k]].host;
            w->nhosts += !seen[h];
            seen[h] = 1;
        }
        w->part = w->kind == CM_KIND_CORE ? AN_PART_CORE
                : w->kind == CM_KIND_ALGO ? AN_PART_ALGO
                : w->kind == CM_KIND_PROXY ? AN_PART_PROXY
                : w->nhosts > 1 ? AN_PART_CLUSTER : AN_PART_HOST;
    }
    free(seen);
    return CM_OK;
}

cm_status_t an_defs_finish(an_defs_t *d, const char *trace, cm_err_t *err)
{
    cm_status_t st;

    if (d->nthreads == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0, "no computational thread");
    qsort(d->threads, (size_t)d->nthreads, sizeof(*d->threads), thread_cmp);
    for (int t = 0; t < d->nthreads; t++) {
        if (t > 0 && d->threads[t].id == d->threads[t - 1].id)
            return CM_ERR_AT(err, CM_ERR_INVALID, trace, 0, 0,
                             "thread %d has two locations", d->threads[t].id);
        d->locs[d->threads[t].loc].thread = t;
    }
    if ((st = finish_levels(d, trace, err)) != CM_OK
        || (st = finish_contributors(d, trace, err)) != CM_OK
        || (st = finish_paths(d, err)) != CM_OK)
        return st;
    return finish_subtrees(d, err);
}

void an_defs_free(an_defs_t *d)
{
    free(d->trace_version);
    free(d->pathmap);
    free(d->pathmap_path);
    free(d->pathmap_hash);
    free(d->tree);
    free(d->clock);
    free(d->command);
    for (int h = 0; d->hosts != NULL && h < d->nhosts; h++) {
        free(d->hosts[h].name);
        free(d->hosts[h].hostname);
    }
    free(d->hosts);
    for (int i = 0; d->nodes != NULL && i < d->nnodes; i++) {
        free(d->nodes[i].name);
        free(d->nodes[i].child);
        free(d->nodes[i].thread);
        free(d->nodes[i].below);
        free(d->nodes[i].algo);
        free(d->nodes[i].bcast);
        free(d->nodes[i].arrival);
        free(d->nodes[i].rank_host);
        free(d->nodes[i].rank_contrib);
        free(d->nodes[i].contrib_rank);
    }
    free(d->nodes);
    for (int i = 0; d->locs != NULL && i < d->nlocs; i++)
        free(d->locs[i].name);
    free(d->locs);
    for (int t = 0; d->threads != NULL && t < d->nthreads; t++) {
        free(d->threads[t].node);
        free(d->threads[t].contrib);
    }
    free(d->threads);
    memset(d, 0, sizeof(*d));
}
