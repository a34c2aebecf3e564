/*
 * br_model.c - a parsed pathmap as analyze's model (see br_model.h).
 */
#include "bridge/api/br_model.h"

/* What algorithm node w runs, from its parsed spec: names, root, hosts. */
static cm_status_t algo_of(an_model_t *m, an_model_wrapper_t *w, const rt_algo_spec_t *spec)
{
    an_model_algo_t *a = an_model_algo_alloc(m, (int)spec->nhosts);
    if (a == NULL)
        return CM_ERR_NOMEM;
    a->algo = an_model_strdup(m, rt_algo_spec_name(spec));
    a->bcast = an_model_strdup(m, spec->bcast != NULL ? spec->bcast->name : "");
    a->arrival = rt_arrival_name(spec->arrival);
    a->root = spec->run != NULL && spec->run->coll != RT_COLL_ALLREDUCE ? (int)spec->root : -1;
    for (uint32_t i = 0; i < spec->nhosts; i++)
        a->hosts[i] = (int)spec->hosts[i];
    if (a->algo == NULL || a->bcast == NULL)
        return CM_ERR_NOMEM;
    w->algo = a;
    return CM_OK;
}

cm_status_t br_model_from_pathmap(an_model_t *m, const rt_pathmap_t *pm, const rt_tree_t *t,
                                  cm_err_t *err)
{
    if (an_model_tree_alloc(m, (int)pm->nhosts, (int)t->nnodes, (int)t->nthreads) != CM_OK)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    m->pathmap_path = an_model_strdup(m, pm->path);
    m->pathmap = an_model_strdup(m, pm->text);
    m->tree.name = an_model_strdup(m, t->name);
    for (uint32_t h = 0; h < pm->nhosts; h++)
        m->tree.hosts[h] = (an_model_host_t){ (int)h, an_model_strdup(m, pm->hosts[h].name), "" };
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const rt_node_t *n = &t->nodes[i];
        an_model_wrapper_t *w = &m->tree.wrappers[i];
        w->node = (int)i;
        w->name = an_model_strdup(m, n->name);
        w->kind_name = rt_node_kind_name(n->kind);
        w->kind = (an_model_kind_t)n->kind;   /* both are cm_kind_t's values */
        w->host = (int)n->host;
        w->parent = n->parent == RT_ID_NONE ? -1 : (int)n->parent;
        w->level = (int)n->depth;
        w->fanin = (int)rt_node_fanin(n);
        w->part = "";
        w->line = (int)n->line;
        if (n->kind == RT_NODE_ALGO && n->algo != NULL && algo_of(m, w, n->algo) != CM_OK)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < t->nthreads; i++) {
        const rt_thread_map_t *tm = &t->threads[i];
        an_model_thread_t *th = &m->tree.threads[i];
        th->thread = (int)tm->id;
        th->host = (int)tm->host;
        th->enter = (int)tm->enter;
        th->nstages = (int)rt_tree_path_len(t, tm);
        for (rt_node_id_t n = tm->enter; n != RT_ID_NONE; n = t->nodes[n].parent)
            th->nproxies += t->nodes[n].kind == RT_NODE_PROXY;
    }
    return CM_OK;
}
