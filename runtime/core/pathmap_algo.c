/*
 * pathmap_algo.c - the parameters of an algo line (docs/pathmap.md,
 * "Algorithm nodes"): run= and bcast= looked up in runtime/algo's table,
 * then each parameter, which the chosen generators must read
 * (pm_algo_params, called by pathmap_parse.c's node statement).
 */
#include <stdio.h>
#include <string.h>
#include "runtime/api/rt_auto.h"
#include "runtime/core/pathmap_int.h"

/* ---- algorithm nodes ------------------------------------------------ */

/*
 * The parameters of an algo line, each with the rt_algo_params_t field
 * that a generator must read for the parameter to be accepted (the
 * `params` words of runtime/algo's table, docs/algorithms.md).
 */
static const struct pm_algo_key {
    const char *key;
    const char *field;
} pm_algo_keys[] = {
    { "root", "root" },     { "segments", "nsegs" }, { "segsize", "segcount" },
    { "round", "round_len" }, { "ppn", "ppn" },      { "port", "port" },
    { "shape", "tree" },    { "arrival", "arrival" },
};
#define PM_ALGO_NKEYS (sizeof(pm_algo_keys) / sizeof(pm_algo_keys[0]))

/* Ranges of the numeric parameters (docs/pathmap.md, "Algorithm nodes"). */
#define PM_SEGMENTS_MAX 16777216ull            /* the generators' segment limit */
#define PM_SEGSIZE_MAX  1099511627776ull       /* 2^40 elements */
#define PM_ROUND_MAX    1000000000ull          /* 1 s in ns */

static bool pm_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Whether the table row `a` lists `field` (a whole word) among what it reads. */
static bool pm_algo_reads(const rt_algo_info_t *a, const char *field)
{
    size_t n = strlen(field);

    if (a == NULL)
        return false;
    for (const char *s = a->params; (s = strstr(s, field)) != NULL; s += n) {
        if ((s == a->params || !pm_word_char(s[-1])) && !pm_word_char(s[n]))
            return true;
    }
    return false;
}

/*
 * Whether run or bcast reads the parameter called `key`; for auto: arrival=
 * and candidates=, and round= or segsize= when one of its candidates reads
 * them (segments=, root= and the others it does not pass on).
 */
static bool pm_algo_takes(const rt_algo_spec_t *spec, const char *key)
{
    if (spec->autocfg != NULL) {
        const char *field = strcmp(key, "round") == 0 ? "round_len"
                            : strcmp(key, "segsize") == 0 ? "segcount" : NULL;
        if (strcmp(key, "arrival") == 0 || strcmp(key, "candidates") == 0)
            return true;
        for (uint32_t i = 0; field != NULL && i < spec->autocfg->ncand; i++)
            if (pm_algo_reads(rt_algo_find(spec->autocfg->cand[i]), field))
                return true;
        return false;
    }
    for (size_t i = 0; i < PM_ALGO_NKEYS; i++) {
        if (strcmp(pm_algo_keys[i].key, key) == 0)
            return pm_algo_reads(spec->run, pm_algo_keys[i].field) ||
                   pm_algo_reads(spec->bcast, pm_algo_keys[i].field);
    }
    return false;
}

const char *rt_algo_spec_name(const rt_algo_spec_t *spec)
{
    return spec->autocfg != NULL ? "auto" : spec->native || spec->run == NULL ? "native"
                                                                            : spec->run->name;
}

int rt_algo_takes(const rt_algo_spec_t *spec, const char *key)
{
    return pm_algo_takes(spec, key);
}

/* "root, segments, segsize" (the keys run and bcast read) or "none". */
static void pm_algo_taken(const rt_algo_spec_t *spec, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < PM_ALGO_NKEYS && len < size; i++) {
        if (pm_algo_takes(spec, pm_algo_keys[i].key))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                    pm_algo_keys[i].key);
    }
    if (len == 0)
        snprintf(buf, size, "none");
}

/* "native, ring, ..., clv-linear or clv": what run= accepts. */
static void pm_algo_run_names(char *buf, size_t size)
{
    size_t n, len, last = 0;
    const rt_algo_info_t *table = rt_algo_table(&n);

    for (size_t i = 0; i < n; i++) {
        if (table[i].coll != RT_COLL_BCAST)
            last = i;
    }
    len = (size_t)snprintf(buf, size, "auto, native");
    for (size_t i = 0; i < n && len < size; i++) {
        if (table[i].coll != RT_COLL_BCAST)
            len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                    i == last ? " or " : ", ", table[i].name);
    }
}

/* "binomial-bcast or chain-bcast": what bcast= accepts. */
static void pm_algo_bcast_names(char *buf, size_t size)
{
    size_t n, len = 0, count = 0, total = 0;
    const rt_algo_info_t *table = rt_algo_table(&n);

    for (size_t i = 0; i < n; i++)
        total += table[i].coll == RT_COLL_BCAST;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++) {
        if (table[i].coll != RT_COLL_BCAST)
            continue;
        count++;
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                count == 1 ? "" : count == total ? " or " : ", ",
                                table[i].name);
    }
}

static const char *pm_coll_noun(rt_coll_t coll)
{
    return coll == RT_COLL_ALLREDUCE ? "an allreduce" : coll == RT_COLL_REDUCE ? "a reduce"
                                                                                : "a broadcast";
}

/* The table row named by a value token, or NULL. */
static const rt_algo_info_t *pm_algo_lookup(const pm_tok_t *tok)
{
    char name[RT_PATHMAP_NAME_MAX + 1];

    if (tok->len > RT_PATHMAP_NAME_MAX)
        return NULL;
    memcpy(name, tok->s, tok->len);
    name[tok->len] = '\0';
    return rt_algo_find(name);
}

/* run= and bcast=: which generators the node runs. */
static cm_status_t pm_algo_run(pm_builder_t *b, const pm_line_t *line,
                               const pm_param_t *params, uint32_t nparams,
                               const char *name, rt_algo_spec_t *spec, cm_err_t *err)
{
    const pm_param_t *run = pm_param_find(params, nparams, "run");
    const pm_param_t *bc = pm_param_find(params, nparams, "bcast");
    char names[512];

    if (run == NULL) {
        pm_algo_run_names(names, sizeof(names));
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "algo '%s' needs run= (one of %s)", name, names);
    }
    if (tok_is(&run->value, "auto")) {
        rt_auto_cfg_t *cfg = cm_arena_alloc(b->arena, sizeof(*cfg));
        const pm_param_t *cands = pm_param_find(params, nparams, "candidates");
        char list[RT_PATHMAP_LINE_MAX + 1];
        cm_err_t e;

        if (cfg == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        rt_auto_cfg_default(cfg);
        if (cands != NULL) {
            snprintf(list, sizeof(list), "%.*s", (int)cands->value.len, cands->value.s);
            if (rt_auto_cfg_candidates(cfg, list, &e) != CM_OK)
                return PM_FAIL(b, err, e.status, line->lineno, cands->value.col, "%s", e.msg);
        }
        spec->autocfg = cfg;
        if (bc != NULL)
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, bc->key.col,
                           "bcast= completes a reduce; auto chooses among allreduces");
        return CM_OK;
    }
    if (tok_is(&run->value, "native")) {
        spec->native = 1;
    } else if ((spec->run = pm_algo_lookup(&run->value)) == NULL) {
        pm_algo_run_names(names, sizeof(names));
        return PM_FAIL(b, err, CM_ERR_NAME, line->lineno, run->value.col,
                       "unknown algorithm '%.*s' (expected %s)", (int)run->value.len,
                       run->value.s, names);
    } else if (spec->run->coll == RT_COLL_BCAST) {
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, run->value.col,
                       "'%s' is a broadcast; run= takes an allreduce or a reduce (a "
                       "reduce's broadcast goes in bcast=)", spec->run->name);
    }
    if (spec->run == NULL || spec->run->coll != RT_COLL_REDUCE) {
        if (bc != NULL)
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, bc->key.col,
                           "bcast= completes a reduce; '%s' is an allreduce",
                           rt_algo_spec_name(spec));
        return CM_OK;
    }
    if (bc == NULL) {
        spec->bcast = rt_algo_find("binomial-bcast");
        return CM_OK;
    }
    spec->bcast = pm_algo_lookup(&bc->value);
    if (spec->bcast == NULL || spec->bcast->coll != RT_COLL_BCAST) {
        pm_algo_bcast_names(names, sizeof(names));
        if (spec->bcast == NULL)
            return PM_FAIL(b, err, CM_ERR_NAME, line->lineno, bc->value.col,
                           "unknown broadcast '%.*s' (expected %s)", (int)bc->value.len,
                           bc->value.s, names);
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, bc->value.col,
                       "'%s' is %s, not a broadcast (expected %s)", spec->bcast->name,
                       pm_coll_noun(spec->bcast->coll), names);
    }
    return CM_OK;
}

/* A decimal number in lo..hi for the parameter p. */
static cm_status_t pm_algo_number(pm_builder_t *b, const pm_line_t *line,
                                  const pm_param_t *p, uint64_t lo, uint64_t hi,
                                  const char *unit, uint64_t *value_p, cm_err_t *err)
{
    uint64_t v = 0;

    for (uint32_t i = 0; i < p->value.len; i++) {
        char c = p->value.s[i];

        if (c < '0' || c > '9')
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->value.col,
                           "invalid value '%.*s' for %.*s= (expected a number in "
                           "%llu..%llu%s)", (int)p->value.len, p->value.s,
                           (int)p->key.len, p->key.s, (unsigned long long)lo,
                           (unsigned long long)hi, unit);
        if (v <= hi)
            v = v * 10 + (uint64_t)(c - '0');
    }
    if (v < lo || v > hi)
        return PM_FAIL(b, err, CM_ERR_RANGE, line->lineno, p->value.col,
                       "%.*s=%.*s is out of range (%llu..%llu%s)", (int)p->key.len,
                       p->key.s, (int)p->value.len, p->value.s, (unsigned long long)lo,
                       (unsigned long long)hi, unit);
    *value_p = v;
    return CM_OK;
}

/* One of two words for the parameter p; returns 0 or 1 in *which_p. */
static cm_status_t pm_algo_word(pm_builder_t *b, const pm_line_t *line,
                                const pm_param_t *p, const char *what, const char *w0,
                                const char *w1, int *which_p, cm_err_t *err)
{
    if (tok_is(&p->value, w0) || tok_is(&p->value, w1)) {
        *which_p = tok_is(&p->value, w1);
        return CM_OK;
    }
    return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->value.col,
                   "unknown %s '%.*s' for %.*s= (expected %s or %s%s)", what,
                   (int)p->value.len, p->value.s, (int)p->key.len, p->key.s, w0, w1,
                   strcmp(what, "arrival source") == 0 ? " or edge" : "");
}

/* One parameter of an algo line other than run= and bcast=. */
static cm_status_t pm_algo_param(pm_builder_t *b, const pm_line_t *line,
                                 const pm_param_t *p, pm_algo_build_t *ab, cm_err_t *err)
{
    rt_algo_spec_t *spec = ab->spec;
    uint64_t v;
    int w;
    cm_status_t st;

    if (tok_is(&p->key, "root")) {
        if ((st = pm_host_ref(b, line, p, "root=", &ab->root_host, err)) == CM_OK)
            ab->root_col = p->value.col;
        return st;
    }
    if (tok_is(&p->key, "segments")) {
        if ((st = pm_algo_number(b, line, p, 1, PM_SEGMENTS_MAX, "", &v, err)) == CM_OK)
            spec->nsegs = (int32_t)v;
        return st;
    }
    if (tok_is(&p->key, "segsize")) {
        if ((st = pm_algo_number(b, line, p, 1, PM_SEGSIZE_MAX, " elements", &v, err)) == CM_OK)
            spec->segcount = (int64_t)v;
        return st;
    }
    if (tok_is(&p->key, "round")) {
        if ((st = pm_algo_number(b, line, p, 1, PM_ROUND_MAX, " ns", &v, err)) == CM_OK)
            spec->round_ns = (int64_t)v;
        return st;
    }
    if (tok_is(&p->key, "ppn")) {
        if ((st = pm_algo_number(b, line, p, 2, RT_PATHMAP_HOSTS_MAX, "", &v, err)) == CM_OK) {
            spec->ppn = (int32_t)v;
            ab->ppn_col = p->value.col;
        }
        return st;
    }
    if (tok_is(&p->key, "port")) {
        if ((st = pm_algo_word(b, line, p, "port model", "u", "b", &w, err)) != CM_OK)
            return st;
        spec->port = w ? RT_PORT_B : RT_PORT_U;
        if (spec->port == RT_PORT_B && spec->run != NULL &&
            strcmp(spec->run->name, "greedy-reduce") == 0)
            return PM_FAIL(b, err, CM_ERR_UNSUPPORTED, line->lineno, p->value.col,
                           "greedy-reduce supports port=u only (its bidirectional rule "
                           "is not published)");
        return CM_OK;
    }
    if (tok_is(&p->key, "shape")) {
        if ((st = pm_algo_word(b, line, p, "tree shape", "heap", "ompi", &w, err)) == CM_OK)
            spec->shape = w ? RT_TREE_OMPI : RT_TREE_HEAP;
        return st;
    }
    /* arrival= (the only key left that pm_algo_takes knows) */
    if (tok_is(&p->value, "edge")) {
        spec->arrival = RT_ARRIVAL_EDGE;
        return CM_OK;
    }
    if ((st = pm_algo_word(b, line, p, "arrival source", "equal", "history", &w, err)) ==
        CM_OK)
        spec->arrival = w ? RT_ARRIVAL_HISTORY : RT_ARRIVAL_EQUAL;
    return st;
}

/*
 * The parameters of an algo line: no host= or parent= (the node is the
 * root and spans its contributors' hosts), run= and bcast= first, then
 * each parameter, which the chosen generators must read.  Defaults for
 * what is absent; the rules that need the contributors (root= among the
 * node's hosts, ppn= dividing their number) wait for ck_algo.
 */
cm_status_t pm_algo_params(pm_builder_t *b, const pm_line_t *line,
                           const pm_param_t *params, uint32_t nparams,
                           pm_node_build_t *nb, cm_err_t *err)
{
    pm_algo_build_t *ab = &nb->algo;
    const pm_param_t *segs = NULL;
    rt_algo_spec_t *spec;
    char taken[128];
    cm_status_t st;

    for (uint32_t i = 0; i < nparams; i++) {
        const pm_param_t *p = &params[i];

        if (tok_is(&p->key, "host") || tok_is(&p->key, "parent"))
            return PM_FAIL(b, err, CM_ERR_TREE, line->lineno, p->key.col,
                           "algo '%s' is the root of its tree and spans its "
                           "contributors' hosts: it takes no %.*s=", nb->node.name,
                           (int)p->key.len, p->key.s);
        if (tok_is(&p->key, "wait"))
            return pm_wait_param(b, line, p, &nb->node, err);
    }
    if ((spec = cm_arena_alloc(b->arena, sizeof(*spec))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    memset(spec, 0, sizeof(*spec));
    spec->round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    spec->port = RT_PORT_U;
    spec->shape = RT_TREE_HEAP;
    spec->arrival = RT_ARRIVAL_EQUAL;
    ab->spec = spec;
    ab->root_host = RT_ID_NONE;
    nb->node.algo = spec;
    if ((st = pm_algo_run(b, line, params, nparams, nb->node.name, spec, err)) != CM_OK)
        return st;
    for (uint32_t i = 0; i < nparams; i++) {
        const pm_param_t *p = &params[i];
        char key[16];

        if (tok_is(&p->key, "run") || tok_is(&p->key, "bcast"))
            continue;
        snprintf(key, sizeof(key), "%.*s", (int)p->key.len, p->key.s);
        if (spec->autocfg != NULL && !pm_algo_takes(spec, key))
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->key.col,
                           "auto takes no parameter '%s' (it takes candidates=, arrival=, "
                           "and round= or segsize= when a candidate reads it)", key);
        if (tok_is(&p->key, "candidates"))
            continue;                    /* read with run=auto */
        if (!pm_algo_takes(spec, key)) {
            pm_algo_taken(spec, taken, sizeof(taken));
            if (spec->bcast != NULL)
                return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->key.col,
                               "algorithms '%s' and '%s' take no parameter '%s' (they "
                               "take: %s)", spec->run->name, spec->bcast->name, key,
                               taken);
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->key.col,
                           "algorithm '%s' takes no parameter '%s' (it takes%s%s)",
                           rt_algo_spec_name(spec), key,
                           strcmp(taken, "none") == 0 ? " " : ": ", taken);
        }
        if (tok_is(&p->key, "segments") || tok_is(&p->key, "segsize")) {
            if (segs != NULL)
                return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->key.col,
                               "give segments= or segsize=, not both");
            segs = p;
        }
        if ((st = pm_algo_param(b, line, p, ab, err)) != CM_OK)
            return st;
    }
    spec->pap = pm_algo_reads(spec->run, "arrival") || pm_algo_reads(spec->bcast, "arrival");
    if (spec->autocfg != NULL) {        /* auto reads the arrivals to choose */
        rt_auto_cfg_t *cfg = (rt_auto_cfg_t *)spec->autocfg;
        spec->pap = 1;
        cfg->round_ns = spec->round_ns;
        cfg->segcount = spec->segcount;
        return CM_OK;
    }
    /* A generator that reads a segment size but no segment count has no
       default (ring-seg). */
    if (pm_algo_reads(spec->run, "segcount") && !pm_algo_reads(spec->run, "nsegs") &&
        spec->segcount == 0)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno,
                       pm_param_find(params, nparams, "run")->value.col,
                       "algorithm '%s' needs segsize=N (the segment size in elements)",
                       spec->run->name);
    if (spec->run != NULL && pm_algo_reads(spec->run, "ppn") && spec->ppn == 0)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno,
                       pm_param_find(params, nparams, "run")->value.col,
                       "algorithm '%s' needs ppn=N (hosts per node: at least 2, dividing "
                       "the node's number of hosts)", spec->run->name);
    return CM_OK;
}
