/*
 * edit_tst.h - helpers of the reconfiguration tests (tests/unit/gen/
 * t_edit*.c): load a sample or parse a hand-written tree, run one operator
 * and check its status, and compare two models by their text with the
 * header and comments left out (so names, hosts, params and layout count,
 * the history and the prose do not).
 */
#ifndef EDIT_TST_H
#define EDIT_TST_H

#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "gen/api/gen_map.h"
#include "gen/api/gen_edit.h"

static inline gen_map_t *etst_load(const char *path)
{
    gen_map_t *m = NULL;
    cm_err_t err;
    char line[700];

    cm_err_clear(&err);
    if (gen_map_load(path, NULL, &m, &err) != CM_OK) {
        cm_err_format(&err, line, sizeof(line));
        TST_FAIL("load failed: %s", line);
    }
    return m;
}

static inline gen_map_t *etst_parse(const char *text)
{
    gen_map_t *m = NULL;
    cm_err_t err;
    char line[700];

    cm_err_clear(&err);
    if (gen_map_parse("hand.pathmap", text, strlen(text), NULL, &m, &err) != CM_OK) {
        cm_err_format(&err, line, sizeof(line));
        TST_FAIL("parse failed: %s", line);
    }
    return m;
}

/* Fails the test with the operator's message when st is not CM_OK. */
static inline void etst_ok(cm_status_t st, const cm_err_t *err, const char *what)
{
    if (st != CM_OK)
        TST_FAIL("%s: %s (%s)", what, err->msg, cm_status_name(st));
}

/* The text of m without header lines and comments (m is changed). */
static inline char *etst_bare(gen_map_t *m)
{
    uint32_t i, j, k;
    char *text;

    for (i = 0; i < m->nheader; i++)
        free(m->header[i]);
    m->nheader = 0;
    for (i = 0; i < m->nnodes; i++) {
        free(m->nodes[i].comment);
        m->nodes[i].comment = NULL;
        for (j = 0; j < m->nodes[i].ncontribs; j++)
            for (k = 0; k < m->nodes[i].contribs[j].nroute; k++) {
                free(m->nodes[i].contribs[j].route[k].comment);
                m->nodes[i].contribs[j].route[k].comment = NULL;
            }
    }
    text = gen_map_format(m);
    TST_NOT_NULL(text);
    return text;
}

/* m equals the sample `path`, names included (comments and header aside).
 * Destroys m. */
static inline void etst_same(gen_map_t *m, const char *path)
{
    gen_map_t *want = etst_load(path);
    char *a = etst_bare(m), *b = etst_bare(want);

    if (strcmp(a, b) != 0)
        TST_FAIL("differs from %s:\n--- got\n%s--- want\n%s", path, a, b);
    free(a);
    free(b);
    gen_map_destroy(want);
    gen_map_destroy(m);
}

/* The same with a hand-written expected text. */
static inline void etst_same_text(gen_map_t *m, const char *want_text)
{
    gen_map_t *want = etst_parse(want_text);
    char *a = etst_bare(m), *b = etst_bare(want);

    if (strcmp(a, b) != 0)
        TST_FAIL("differs from the hand-written tree:\n--- got\n%s--- want\n%s", a, b);
    free(a);
    free(b);
    gen_map_destroy(want);
    gen_map_destroy(m);
}

/* m's text, as written (header and comments included). */
static inline char *etst_text(const gen_map_t *m)
{
    char *t = gen_map_format(m);

    TST_NOT_NULL(t);
    return t;
}

#endif /* EDIT_TST_H */
