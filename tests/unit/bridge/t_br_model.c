/*
 * t_br_model.c - bridge/br_model.c: a parsed pathmap with an algorithm node
 * as analyze's model (what `papviz tree PATHMAP` draws).
 *
 * Hosts a, b, c; `across` runs binomial-reduce + binomial-bcast rooted at c,
 * its contributors g0 on a, thread 4 on b and g2 on c, so its hosts are
 * a, b, c (ascending) = ranks 0, 1, 2 and root=c is rank 2.  A second tree
 * runs PRR with arrival=history on a and c only (ranks 0, 1), and a third
 * `native`.
 */
#include <string.h>

#include "bridge/api/br_model.h"
#include "tests/tst.h"
#include "tests/test_list.h"

static const char PM[] =
    "host a\n"
    "host b\n"
    "host c\n"
    "tree t1 type=int32 op=sum\n"
    "algo across run=binomial-reduce bcast=binomial-bcast root=c\n"
    "gred g0 host=a parent=across\n"
    "gred g2 host=c parent=across\n"
    "threads 0-1 host=a enter=g0\n"
    "threads 4 host=b enter=across\n"
    "threads 2-3 host=c enter=g2\n"
    "tree t2 type=double op=sum\n"
    "algo pap run=prr round=8000 arrival=history\n"
    "threads 0 host=a enter=pap\n"
    "threads 2 host=c enter=pap\n"
    "tree t3 type=int32 op=max\n"
    "algo nat run=native\n"
    "threads 0 host=a enter=nat\n"
    "threads 2 host=c enter=nat\n";

static an_model_t *convert(const rt_pathmap_t *pm, const char *tree)
{
    cm_err_t err;
    cm_err_clear(&err);
    an_model_t *m = an_model_create();
    TST_NOT_NULL(m);
    TST_EQ_INT(br_model_from_pathmap(m, pm, rt_pathmap_tree(pm, tree), &err), CM_OK);
    return m;
}

void t_bridge_algo(void)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t err;
    cm_err_clear(&err);
    TST_EQ_INT(rt_pathmap_parse("t.pathmap", PM, strlen(PM), &pm, &err), CM_OK);
    if (pm == NULL)
        return;

    an_model_t *m = convert(pm, "t1");
    const an_model_wrapper_t *w = &m->tree.wrappers[0];
    TST_EQ_INT(w->kind, AN_KIND_ALGO);
    TST_EQ_INT(w->parent, -1);
    TST_EQ_INT(w->line, 5);
    TST_NOT_NULL(w->algo);
    if (w->algo != NULL) {
        TST_EQ_STR(w->algo->algo, "binomial-reduce");
        TST_EQ_STR(w->algo->bcast, "binomial-bcast");
        TST_EQ_STR(w->algo->arrival, "equal");
        TST_EQ_INT(w->algo->root, 2);
        TST_EQ_INT(w->algo->nranks, 3);
        TST_EQ_INT(w->algo->hosts[0], 0);
        TST_EQ_INT(w->algo->hosts[1], 1);
        TST_EQ_INT(w->algo->hosts[2], 2);
    }
    TST_NULL(m->tree.wrappers[1].algo);           /* a gred has none */
    an_model_close(m);

    m = convert(pm, "t2");
    w = &m->tree.wrappers[0];
    TST_NOT_NULL(w->algo);
    if (w->algo != NULL) {
        TST_EQ_STR(w->algo->algo, "prr");
        TST_EQ_STR(w->algo->bcast, "");
        TST_EQ_STR(w->algo->arrival, "history");
        TST_EQ_INT(w->algo->root, -1);            /* an allreduce has no root */
        TST_EQ_INT(w->algo->nranks, 2);
        TST_EQ_INT(w->algo->hosts[0], 0);
        TST_EQ_INT(w->algo->hosts[1], 2);
    }
    an_model_close(m);

    m = convert(pm, "t3");
    w = &m->tree.wrappers[0];
    TST_NOT_NULL(w->algo);
    if (w->algo != NULL) {
        TST_EQ_STR(w->algo->algo, "native");
        TST_EQ_INT(w->algo->root, -1);
    }
    an_model_close(m);
    rt_pathmap_destroy(pm);
}
