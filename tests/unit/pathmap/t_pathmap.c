/*
 * t_pathmap.c - unit tests of the pathmap parser and tree model
 * (runtime/core).  Expected values are worked out by hand from the texts
 * below; the bad-input corpus (tests/pathmap/bad) covers the error messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_pathmap.h"

/* The example of docs/pathmap.md. */
static const char doc_example[] =
    "# demo: 2 hosts x 2 threads, a gred per host joined by a proxy\n"
    "host h0\n"
    "host h1\n"
    "\n"
    "tree sum type=int32 op=sum\n"
    "core  root  host=h0\n"
    "gred  top   host=h0 parent=root\n"
    "gred  g0    host=h0 parent=top\n"
    "proxy p1    host=h1 parent=top          # h1 -> h0\n"
    "gred  g1    host=h1 parent=p1\n"
    "threads 0-1 host=h0 enter=g0\n"
    "threads 2-3 host=h1 enter=g1\n";

static rt_pathmap_t *parse_ok(const char *text)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (rt_pathmap_parse("t.pathmap", text, strlen(text), &pm, &err) != CM_OK)
        TST_FAIL("parse failed: %s:%u:%u: %s", err.path, err.line, err.col, err.msg);
    return pm;
}

static const rt_node_t *node_named(const rt_tree_t *t, const char *name)
{
    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (strcmp(t->nodes[i].name, name) == 0)
            return &t->nodes[i];
    }
    TST_FAIL("no node '%s'", name);
    return NULL;
}

void t_pathmap_doc_example(void)
{
    rt_pathmap_t *pm = parse_ok(doc_example);
    const rt_tree_t *t = rt_pathmap_tree(pm, NULL);
    const rt_node_t *root = node_named(t, "root"), *top = node_named(t, "top");
    const rt_node_t *g0 = node_named(t, "g0"), *p1 = node_named(t, "p1");
    const rt_node_t *g1 = node_named(t, "g1");

    TST_EQ_UINT(pm->nhosts, 2);
    TST_EQ_STR(pm->hosts[0].name, "h0");
    TST_EQ_STR(pm->hosts[1].name, "h1");
    TST_EQ_UINT(pm->ntrees, 1);
    TST_EQ_STR(t->name, "sum");
    TST_EQ_INT(t->dtype, RT_DTYPE_INT32);
    TST_EQ_INT(t->op, RT_OP_SUM);
    TST_EQ_UINT(t->nnodes, 5);
    TST_EQ_STR(t->nodes[t->root].name, "root");
    /* Kinds, hosts, parents, depths, contributors. */
    TST_EQ_INT(root->kind, RT_NODE_CORE);
    TST_EQ_UINT(root->parent, RT_ID_NONE);
    TST_EQ_UINT(root->depth, 0);
    TST_EQ_UINT(rt_node_fanin(root), 1);
    TST_EQ_STR(t->nodes[top->parent].name, "root");
    TST_EQ_UINT(top->depth, 1);
    TST_EQ_UINT(rt_node_fanin(top), 2);          /* g0 and p1 */
    TST_EQ_INT(p1->kind, RT_NODE_PROXY);
    TST_EQ_UINT(p1->host, 1);
    TST_EQ_UINT(p1->depth, 2);
    TST_EQ_UINT(g1->depth, 3);
    TST_EQ_UINT(g0->nthreads, 2);
    TST_EQ_UINT(g0->nchildren, 0);
    TST_EQ_UINT(g1->nthreads, 2);
    TST_EQ_INT(g0->wait, RT_WAIT_AUTO);
    TST_EQ_UINT(g1->line, 10);
    TST_EQ_UINT(g1->col, 1);
    /* Threads, sorted, with path lengths: 0,1 -> g0 top root (3);
     * 2,3 -> g1 p1 top root (4). */
    TST_EQ_UINT(t->nthreads, 4);
    for (uint32_t i = 0; i < 4; i++)
        TST_EQ_UINT(t->threads[i].id, i);
    TST_EQ_UINT(t->threads[1].host, 0);
    TST_EQ_UINT(t->threads[2].host, 1);
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[0]), 3);
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[3]), 4);
    TST_EQ_UINT(pm->len, strlen(doc_example));
    rt_pathmap_destroy(pm);
}

void t_pathmap_params_and_ranges(void)
{
    const char *text =
        "host a\nhost b\n"
        "tree first type=double op=max\n"
        "core c host=a\n"
        "gred g host=a parent=c wait=block\n"
        "proxy p host=b parent=g\n"
        "gred gb parent=p wait=spin host=b\n"         /* parameters in any order */
        "threads 7,3-4,10 host=a enter=g\n"
        "threads 20-21 host=b enter=gb\n"
        "tree second op=min type=int64\n"
        "core c host=b\n"
        "threads 21 host=b enter=c\n";
    rt_pathmap_t *pm = parse_ok(text);
    const rt_tree_t *t1 = rt_pathmap_tree(pm, "first");
    const rt_tree_t *t2 = rt_pathmap_tree(pm, "second");
    static const uint32_t ids[] = { 3, 4, 7, 10, 20, 21 };

    TST_NOT_NULL(t1);
    TST_NOT_NULL(t2);
    TST_NULL(rt_pathmap_tree(pm, "third"));
    TST_EQ_PTR(rt_pathmap_tree(pm, NULL), t1);
    TST_EQ_INT(t1->dtype, RT_DTYPE_DOUBLE);
    TST_EQ_INT(t1->op, RT_OP_MAX);
    TST_EQ_INT(t2->dtype, RT_DTYPE_INT64);
    TST_EQ_INT(t2->op, RT_OP_MIN);
    TST_EQ_INT(node_named(t1, "g")->wait, RT_WAIT_BLOCK);
    TST_EQ_INT(node_named(t1, "gb")->wait, RT_WAIT_SPIN);
    TST_EQ_UINT(t1->nthreads, 6);
    for (uint32_t i = 0; i < 6; i++)
        TST_EQ_UINT(t1->threads[i].id, ids[i]);
    TST_EQ_UINT(rt_node_fanin(node_named(t1, "g")), 5);     /* 4 threads + p */
    TST_EQ_UINT(t2->nthreads, 1);
    TST_EQ_UINT(rt_tree_path_len(t2, &t2->threads[0]), 1);
    rt_pathmap_destroy(pm);
}

void t_pathmap_crlf_tabs_comments(void)
{
    const char *text =
        "# caf\xc3\xa9: UTF-8 is fine in comments\r\n"
        "host\th0\t# tab separated\r\n"
        "tree t\r\n"
        "core c host=h0\r\n"
        "threads 0 host=h0 enter=c\r\n";
    rt_pathmap_t *pm = parse_ok(text);

    TST_EQ_STR(pm->hosts[0].name, "h0");
    TST_EQ_UINT(pm->trees[0].nthreads, 1);
    TST_EQ_UINT(pm->trees[0].nodes[0].line, 4);
    rt_pathmap_destroy(pm);
}

/* Errors carry path:line:col of the offending token, counted in bytes. */
void t_pathmap_error_location(void)
{
    const char *text = "host h0\ntree t\ncore c host=h0\n  gred\tg  host=h0 parent=nope\n";
    rt_pathmap_t *pm = NULL;
    cm_err_t err;
    char line[1024];

    cm_err_clear(&err);
    TST_EQ_STATUS(rt_pathmap_parse("x.pm", text, strlen(text), &pm, &err), CM_ERR_NAME);
    TST_NULL(pm);
    TST_EQ_UINT(err.line, 4);
    TST_EQ_UINT(err.col, 26);        /* "  gred\tg  host=h0 parent=" is 25 bytes */
    cm_err_format(&err, line, sizeof(line));
    TST_EQ_STR(line, "x.pm:4:26: error: unknown parent 'nope' in tree 't'");
    TST_NOT_NULL(err.src_file);
}

/* cm_err_print into a string, with PAPTREE_DEBUG as given (NULL: unset). */
static void print_with_debug(const cm_err_t *err, const char *debug, char *out, size_t len)
{
    FILE *fp = fmemopen(out, len, "w");

    TST_NOT_NULL(fp);
    if (debug == NULL)
        unsetenv("PAPTREE_DEBUG");
    else
        setenv("PAPTREE_DEBUG", debug, 1);
    cm_err_print(fp, "prog: ", err);
    fclose(fp);
    unsetenv("PAPTREE_DEBUG");
}

/* The C source of an error is printed only when PAPTREE_DEBUG asks for it. */
void t_pathmap_error_source_debug(void)
{
    const char *text = "host h0\ntree t\ncore c host=h0\n  gred\tg  host=h0 parent=nope\n";
    const char *plain = "prog: x.pm:4:26: error: unknown parent 'nope' in tree 't'\n";
    rt_pathmap_t *pm = NULL;
    cm_err_t err;
    char out[2048], want[2048];

    cm_err_clear(&err);
    TST_EQ_STATUS(rt_pathmap_parse("x.pm", text, strlen(text), &pm, &err), CM_ERR_NAME);
    print_with_debug(&err, NULL, out, sizeof(out));
    TST_EQ_STR(out, plain);
    print_with_debug(&err, "", out, sizeof(out));
    TST_EQ_STR(out, plain);
    print_with_debug(&err, "0", out, sizeof(out));
    TST_EQ_STR(out, plain);
    snprintf(want, sizeof(want), "prog: x.pm:4:26: error: unknown parent 'nope' in tree 't' "
             "[%s:%d]\n", err.src_file, err.src_line);
    print_with_debug(&err, "1", out, sizeof(out));
    TST_EQ_STR(out, want);
    TST_TRUE(strstr(out, " [runtime/core/") != NULL);
}

void t_pathmap_hash(void)
{
    rt_pathmap_t *a = parse_ok(doc_example), *b = parse_ok(doc_example);
    char *edited = strdup(doc_example);
    rt_pathmap_t *c;

    edited[2] = 'D';                 /* a comment differs: another hash */
    c = parse_ok(edited);
    TST_EQ_UINT(a->hash, b->hash);
    TST_TRUE(a->hash != c->hash);
    /* FNV-1a 64 reference values: "" and "a". */
    TST_EQ_UINT(rt_hash_fnv1a("", 0), 0xcbf29ce484222325ull);
    TST_EQ_UINT(rt_hash_fnv1a("a", 1), 0xaf63dc4c8601ec8cull);
    rt_pathmap_destroy(a);
    rt_pathmap_destroy(b);
    rt_pathmap_destroy(c);
    free(edited);
}

/* A 60000-deep chain validates without recursion and gets right depths. */
void t_pathmap_deep_chain(void)
{
    const uint32_t n = 60000;
    size_t cap = (size_t)n * 48 + 256, len = 0;
    char *text = malloc(cap);
    rt_pathmap_t *pm;
    const rt_tree_t *t;

    len += (size_t)snprintf(text + len, cap - len, "host h\ntree t\ncore g0 host=h\n");
    for (uint32_t i = 1; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "gred g%u host=h parent=g%u\n", i, i - 1);
    len += (size_t)snprintf(text + len, cap - len, "threads 0 host=h enter=g%u\n", n - 1);
    pm = parse_ok(text);
    t = &pm->trees[0];
    TST_EQ_UINT(t->nnodes, n);
    TST_EQ_UINT(t->nodes[n - 1].depth, n - 1);
    TST_EQ_UINT(rt_tree_path_len(t, &t->threads[0]), n);
    rt_pathmap_destroy(pm);
    free(text);
}

void t_pathmap_names(void)
{
    TST_EQ_STR(rt_node_kind_name(RT_NODE_GRED), "gred");
    TST_EQ_STR(rt_node_kind_name(RT_NODE_PROXY), "proxy");
    TST_EQ_STR(rt_dtype_name(RT_DTYPE_DOUBLE), "double");
    TST_EQ_UINT(rt_dtype_size(RT_DTYPE_INT32), 4);
    TST_EQ_UINT(rt_dtype_size(RT_DTYPE_INT64), 8);
    TST_EQ_STR(rt_op_name(RT_OP_MIN), "min");
    TST_EQ_STR(cm_status_name(CM_ERR_SYNTAX), "CM_ERR_SYNTAX");
}
