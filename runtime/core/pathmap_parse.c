/*
 * pathmap_parse.c - the pathmap reader: bytes -> lines -> tokens ->
 * statements (docs/pathmap.md has the grammar).
 *
 * The reader is defensive by construction: it never trusts a length it has
 * not checked, it looks at every byte once before tokenising a line, and it
 * stops at the first error with a path:line:col location.  Tree-level rules
 * (cycles, contributors, hosts) live in pathmap_check.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runtime/core/pathmap_int.h"

#define PM_TOKENS_MAX (RT_PATHMAP_LINE_MAX / 2 + 1)

typedef struct pm_tok {
    const char *s;
    uint32_t    len;
    unsigned    col;
} pm_tok_t;

typedef struct pm_line {
    unsigned  lineno;
    pm_tok_t *toks;
    uint32_t  ntoks;
} pm_line_t;

/* One key=value parameter of a statement, split at the '='. */
typedef struct pm_param {
    pm_tok_t key;
    pm_tok_t value;
} pm_param_t;

static bool tok_is(const pm_tok_t *tok, const char *word)
{
    return tok->len == strlen(word) && memcmp(tok->s, word, tok->len) == 0;
}

#define PM_FAIL(b, err, st, line, col, ...)                                 \
    cm_err_set((err), (st), (b)->path, (line), (col), __FILE__, __LINE__,   \
               __VA_ARGS__)

/* ---- lines and tokens ------------------------------------------------- */

/*
 * Checks the raw bytes of one line (without its newline) and splits it into
 * tokens.  Control bytes are binary data anywhere; bytes above 127 are
 * allowed only after '#'.
 */
static cm_status_t pm_line_split(pm_builder_t *b, const char *s, size_t len,
                                 pm_line_t *line, cm_err_t *err)
{
    bool comment = false;
    size_t i;

    if (len > 0 && s[len - 1] == '\r')
        len--;
    if (len > RT_PATHMAP_LINE_MAX)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, RT_PATHMAP_LINE_MAX + 1,
                       "line too long (%zu bytes; at most %d)", len,
                       RT_PATHMAP_LINE_MAX);
    line->ntoks = 0;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, (unsigned)i + 1,
                           "binary data (byte 0x%02x); a pathmap is text", c);
        if (c == '#')
            comment = true;
        if (comment)
            continue;
        if (c > 0x7f)
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, (unsigned)i + 1,
                           "non-ASCII byte 0x%02x outside a comment", c);
        if (c == ' ' || c == '\t')
            continue;
        if (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t') {
            line->toks[line->ntoks].s = s + i;
            line->toks[line->ntoks].len = 0;
            line->toks[line->ntoks].col = (unsigned)i + 1;
            line->ntoks++;
        }
        line->toks[line->ntoks - 1].len++;
    }
    return CM_OK;
}

/* ---- names, numbers, parameters ------------------------------------ */

static bool pm_name_char(char c, bool first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
        return true;
    return !first && ((c >= '0' && c <= '9') || c == '-' || c == '.');
}

static cm_status_t pm_check_name(pm_builder_t *b, const pm_tok_t *tok,
                                 unsigned lineno, cm_err_t *err)
{
    if (tok->len > RT_PATHMAP_NAME_MAX)
        return PM_FAIL(b, err, CM_ERR_RANGE, lineno, tok->col,
                       "name too long (%u bytes; at most %d)", tok->len,
                       RT_PATHMAP_NAME_MAX);
    for (uint32_t i = 0; i < tok->len; i++) {
        if (!pm_name_char(tok->s[i], i == 0))
            return PM_FAIL(b, err, CM_ERR_SYNTAX, lineno, tok->col,
                           "invalid name '%.*s' (a name starts with a letter or '_' "
                           "and has letters, digits, '_', '-', '.')",
                           (int)tok->len, tok->s);
    }
    return CM_OK;
}

/*
 * Splits tokens [first, ntoks) into key=value parameters, rejecting
 * duplicates and keys not in `allowed` (a NULL-terminated list).
 */
static cm_status_t pm_params(pm_builder_t *b, const pm_line_t *line,
                             uint32_t first, const char *const *allowed,
                             const char *stmt, pm_param_t *out,
                             uint32_t *nout_p, cm_err_t *err)
{
    uint32_t n = 0;

    for (uint32_t t = first; t < line->ntoks; t++) {
        const pm_tok_t *tok = &line->toks[t];
        const char *eq = memchr(tok->s, '=', tok->len);
        pm_param_t p;
        bool known = false;

        if (eq == NULL)
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, tok->col,
                           "expected key=value, got '%.*s'", (int)tok->len, tok->s);
        p.key = (pm_tok_t){ tok->s, (uint32_t)(eq - tok->s), tok->col };
        p.value = (pm_tok_t){ eq + 1, tok->len - p.key.len - 1,
                              tok->col + p.key.len + 1 };
        for (const char *const *a = allowed; *a != NULL && !known; a++)
            known = tok_is(&p.key, *a);
        if (!known)
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, tok->col,
                           "unknown parameter '%.*s' for %s", (int)p.key.len,
                           p.key.s, stmt);
        for (uint32_t i = 0; i < n; i++) {
            if (out[i].key.len == p.key.len &&
                memcmp(out[i].key.s, p.key.s, p.key.len) == 0)
                return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, tok->col,
                               "duplicate parameter '%.*s='", (int)p.key.len, p.key.s);
        }
        if (p.value.len == 0)
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p.value.col,
                           "empty value for '%.*s='", (int)p.key.len, p.key.s);
        out[n++] = p;
    }
    *nout_p = n;
    return CM_OK;
}

static const pm_param_t *pm_param_find(const pm_param_t *params, uint32_t n,
                                       const char *key)
{
    for (uint32_t i = 0; i < n; i++) {
        if (tok_is(&params[i].key, key))
            return &params[i];
    }
    return NULL;
}

/* Parses a decimal thread number; the value may not exceed the limit. */
static cm_status_t pm_number(pm_builder_t *b, const char *s, uint32_t len,
                             unsigned lineno, unsigned col, uint32_t *value_p,
                             cm_err_t *err)
{
    uint64_t v = 0;

    if (len == 0)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, lineno, col, "expected a thread number");
    for (uint32_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return PM_FAIL(b, err, CM_ERR_SYNTAX, lineno, col,
                           "invalid thread number '%.*s'", (int)len, s);
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > RT_PATHMAP_THREAD_MAX)
            return PM_FAIL(b, err, CM_ERR_RANGE, lineno, col,
                           "thread number '%.*s' out of range (0..%d)", (int)len,
                           s, RT_PATHMAP_THREAD_MAX);
    }
    *value_p = (uint32_t)v;
    return CM_OK;
}

/* Resolves a host= parameter, which must name a host declared above. */
static cm_status_t pm_host_ref(pm_builder_t *b, const pm_line_t *line,
                               const pm_param_t *p, const char *stmt,
                               rt_host_id_t *host_p, cm_err_t *err)
{
    if (p == NULL)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "%s needs host=", stmt);
    if (cm_strmap_get(&b->host_names, p->value.s, p->value.len, host_p) != CM_OK)
        return PM_FAIL(b, err, CM_ERR_NAME, line->lineno, p->value.col,
                       "unknown host '%.*s' (declare it with a 'host' line above)",
                       (int)p->value.len, p->value.s);
    return CM_OK;
}

static char *pm_strdup(pm_builder_t *b, const pm_tok_t *tok)
{
    return cm_arena_strndup(b->arena, tok->s, tok->len);
}

/* Grows a malloc'ed array of `elem` bytes to hold at least n+1 elements. */
static cm_status_t pm_reserve(void **array, uint32_t *cap, uint32_t n, size_t elem)
{
    void *bigger;
    uint32_t newcap;

    if (n < *cap)
        return CM_OK;
    newcap = *cap ? *cap * 2 : 16;
    bigger = realloc(*array, (size_t)newcap * elem);
    if (bigger == NULL)
        return CM_ERR_NOMEM;
    memset((char *)bigger + (size_t)*cap * elem, 0, (size_t)(newcap - *cap) * elem);
    *array = bigger;
    *cap = newcap;
    return CM_OK;
}

/* ---- statements ---------------------------------------------------- */

static cm_status_t pm_stmt_host(pm_builder_t *b, const pm_line_t *line,
                                cm_err_t *err)
{
    const pm_tok_t *name = &line->toks[1];
    rt_host_t *host;
    uint32_t first;
    cm_status_t st;

    if (line->ntoks < 2)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "expected a host name after 'host'");
    if (line->ntoks > 2)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[2].col,
                       "unexpected '%.*s' after the host name", (int)line->toks[2].len,
                       line->toks[2].s);
    if ((st = pm_check_name(b, name, line->lineno, err)) != CM_OK)
        return st;
    if (cm_strmap_get(&b->host_names, name->s, name->len, &first) == CM_OK)
        return PM_FAIL(b, err, CM_ERR_NAME, line->lineno, name->col,
                       "duplicate host '%.*s' (first declared at line %u)",
                       (int)name->len, name->s, b->hosts[first].line);
    if (b->nhosts == RT_PATHMAP_HOSTS_MAX)
        return PM_FAIL(b, err, CM_ERR_RANGE, line->lineno, name->col,
                       "too many hosts (at most %d)", RT_PATHMAP_HOSTS_MAX);
    if (pm_reserve((void **)&b->hosts, &b->cap_hosts, b->nhosts, sizeof(*b->hosts)))
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    host = &b->hosts[b->nhosts];
    host->line = line->lineno;
    if ((host->name = pm_strdup(b, name)) == NULL ||
        cm_strmap_put(&b->host_names, host->name, name->len, b->nhosts) != CM_OK)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    b->nhosts++;
    return CM_OK;
}

static cm_status_t pm_tree_param(pm_builder_t *b, const pm_line_t *line,
                                 const pm_param_t *p, cm_err_t *err)
{
    /* In rt_dtype_t and rt_op_t order. */
    static const char *const types[] = { "int32", "int64", "double", "float" };
    static const char *const ops[] = { "sum", "min", "max" };
    bool is_type = tok_is(&p->key, "type");
    const char *const *names = is_type ? types : ops;

    for (int i = 0; i < (is_type ? 4 : 3); i++) {
        if (tok_is(&p->value, names[i])) {
            if (is_type)
                b->cur.tree.dtype = (rt_dtype_t)i;
            else
                b->cur.tree.op = (rt_op_t)i;
            return CM_OK;
        }
    }
    if (is_type)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->value.col,
                       "unknown type '%.*s' (expected int32, int64, float or double)",
                       (int)p->value.len, p->value.s);
    return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->value.col,
                   "unknown op '%.*s' (expected sum, min or max)", (int)p->value.len,
                   p->value.s);
}

static cm_status_t pm_stmt_tree(pm_builder_t *b, const pm_line_t *line,
                                cm_err_t *err)
{
    static const char *const allowed[] = { "type", "op", NULL };
    pm_param_t params[2];
    uint32_t nparams, first;
    const pm_tok_t *name = &line->toks[1];
    cm_status_t st;

    if (b->in_tree && (st = pm_tree_finish(b, err)) != CM_OK)
        return st;
    if (line->ntoks < 2 || memchr(name->s, '=', name->len) != NULL)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "expected a tree name after 'tree'");
    if ((st = pm_check_name(b, name, line->lineno, err)) != CM_OK)
        return st;
    if (cm_strmap_get(&b->tree_names, name->s, name->len, &first) == CM_OK)
        return PM_FAIL(b, err, CM_ERR_NAME, line->lineno, name->col,
                       "duplicate tree '%.*s' (first declared at line %u)",
                       (int)name->len, name->s, b->trees[first].line);
    if (b->ntrees == RT_PATHMAP_TREES_MAX)
        return PM_FAIL(b, err, CM_ERR_RANGE, line->lineno, name->col,
                       "too many trees (at most %d)", RT_PATHMAP_TREES_MAX);
    if ((st = pm_params(b, line, 2, allowed, "tree", params, &nparams, err)) != CM_OK)
        return st;
    memset(&b->cur, 0, sizeof(b->cur));
    cm_strmap_init(&b->cur.names);
    b->in_tree = true;
    b->cur.tree.line = line->lineno;
    b->cur.tree.dtype = RT_DTYPE_INT32;
    b->cur.tree.op = RT_OP_SUM;
    if ((b->cur.tree.name = pm_strdup(b, name)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < nparams; i++) {
        if ((st = pm_tree_param(b, line, &params[i], err)) != CM_OK)
            return st;
    }
    return CM_OK;
}

static cm_status_t pm_wait_param(pm_builder_t *b, const pm_line_t *line,
                                 const pm_param_t *p, rt_node_t *node,
                                 cm_err_t *err)
{
    static const char *const modes[] = { "auto", "spin", "block" };

    if (node->kind != RT_NODE_GRED)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->key.col,
                       "wait= applies to gred wrappers only");
    for (int i = 0; i < 3; i++) {
        if (tok_is(&p->value, modes[i])) {
            node->wait = (rt_wait_mode_t)i;
            return CM_OK;
        }
    }
    return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->value.col,
                   "unknown wait mode '%.*s' (expected auto, spin or block)",
                   (int)p->value.len, p->value.s);
}

/* Checks the parent= rules that do not need the rest of the tree. */
static cm_status_t pm_node_parent(pm_builder_t *b, const pm_line_t *line,
                                  const pm_param_t *p, pm_node_build_t *nb,
                                  cm_err_t *err)
{
    const char *kind = rt_node_kind_name(nb->node.kind);

    if (nb->node.kind == RT_NODE_CORE) {
        if (p != NULL)
            return PM_FAIL(b, err, CM_ERR_TREE, line->lineno, p->key.col,
                           "a core is the root of its tree and has no parent= "
                           "(core '%s')", nb->node.name);
        return CM_OK;
    }
    if (p == NULL)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "%s '%s' needs parent=", kind, nb->node.name);
    nb->parent.col = p->value.col;
    nb->parent.name = pm_strdup(b, &p->value);
    if (nb->parent.name == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    return CM_OK;
}

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

/* Whether run or bcast reads the parameter called `key`. */
static bool pm_algo_takes(const rt_algo_spec_t *spec, const char *key)
{
    for (size_t i = 0; i < PM_ALGO_NKEYS; i++) {
        if (strcmp(pm_algo_keys[i].key, key) == 0)
            return pm_algo_reads(spec->run, pm_algo_keys[i].field) ||
                   pm_algo_reads(spec->bcast, pm_algo_keys[i].field);
    }
    return false;
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
    len = (size_t)snprintf(buf, size, "native");
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
                           spec->native ? "native" : spec->run->name);
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
static cm_status_t pm_algo_params(pm_builder_t *b, const pm_line_t *line,
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
        if (!pm_algo_takes(spec, key)) {
            pm_algo_taken(spec, taken, sizeof(taken));
            if (spec->bcast != NULL)
                return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->key.col,
                               "algorithms '%s' and '%s' take no parameter '%s' (they "
                               "take: %s)", spec->run->name, spec->bcast->name, key,
                               taken);
            return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, p->key.col,
                           "algorithm '%s' takes no parameter '%s' (it takes%s%s)",
                           spec->native ? "native" : spec->run->name, key,
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

static cm_status_t pm_stmt_node(pm_builder_t *b, const pm_line_t *line,
                                rt_node_kind_t kind, cm_err_t *err)
{
    static const char *const allowed[] = { "host", "parent", "wait", NULL };
    /* host=, parent= and wait= too, to say why an algo node takes none */
    static const char *const algo_allowed[] = {
        "host", "parent", "wait", "run", "bcast", "root", "segments", "segsize",
        "round", "ppn", "port", "shape", "arrival", NULL
    };
    const pm_tok_t *name = &line->toks[1];
    const char *kname = rt_node_kind_name(kind);
    pm_param_t params[13];
    char what[RT_PATHMAP_NAME_MAX + 16];
    pm_node_build_t *nb;
    uint32_t nparams, first;
    cm_status_t st;

    if (!b->in_tree)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "'%s' before any 'tree' line", kname);
    if (line->ntoks < 2 || memchr(name->s, '=', name->len) != NULL)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "expected a wrapper name after '%s'", kname);
    if ((st = pm_check_name(b, name, line->lineno, err)) != CM_OK)
        return st;
    if (cm_strmap_get(&b->cur.names, name->s, name->len, &first) == CM_OK)
        return PM_FAIL(b, err, CM_ERR_NAME, line->lineno, name->col,
                       "duplicate wrapper '%.*s' in tree '%s' (first declared at line %u)",
                       (int)name->len, name->s, b->cur.tree.name,
                       b->cur.nodes[first].node.line);
    if (b->cur.nnodes == RT_PATHMAP_NODES_MAX)
        return PM_FAIL(b, err, CM_ERR_RANGE, line->lineno, name->col,
                       "too many wrappers in tree '%s' (at most %d)",
                       b->cur.tree.name, RT_PATHMAP_NODES_MAX);
    if ((st = pm_params(b, line, 2, kind == RT_NODE_ALGO ? algo_allowed : allowed, kname,
                        params, &nparams, err)) != CM_OK)
        return st;
    if (pm_reserve((void **)&b->cur.nodes, &b->cur.cap_nodes, b->cur.nnodes,
                   sizeof(*b->cur.nodes)))
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    nb = &b->cur.nodes[b->cur.nnodes];
    nb->node.kind = kind;
    nb->node.line = line->lineno;
    nb->node.col = line->toks[0].col;
    nb->node.parent = RT_ID_NONE;
    nb->node.wait = RT_WAIT_AUTO;
    nb->node.algo = NULL;
    nb->parent.name = NULL;
    if ((nb->node.name = pm_strdup(b, name)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (kind == RT_NODE_ALGO) {
        /* Its host is known once its contributors are (ck_algo). */
        if ((st = pm_algo_params(b, line, params, nparams, nb, err)) != CM_OK)
            return st;
        if (cm_strmap_put(&b->cur.names, nb->node.name, name->len, b->cur.nnodes) != CM_OK)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        b->cur.nnodes++;
        return CM_OK;
    }
    snprintf(what, sizeof(what), "%s '%s'", kname, nb->node.name);
    if ((st = pm_host_ref(b, line, pm_param_find(params, nparams, "host"), what,
                          &nb->node.host, err)) != CM_OK)
        return st;
    if ((st = pm_node_parent(b, line, pm_param_find(params, nparams, "parent"),
                             nb, err)) != CM_OK)
        return st;
    if (pm_param_find(params, nparams, "wait") != NULL &&
        (st = pm_wait_param(b, line, pm_param_find(params, nparams, "wait"),
                            &nb->node, err)) != CM_OK)
        return st;
    if (cm_strmap_put(&b->cur.names, nb->node.name, name->len, b->cur.nnodes) != CM_OK)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    b->host_used[nb->node.host] = true;
    b->cur.nnodes++;
    return CM_OK;
}

/* Appends one mapping per thread of "N" or "N-M" (already range-checked). */
static cm_status_t pm_thread_range(pm_builder_t *b, const pm_line_t *line,
                                   const char *s, uint32_t len, unsigned col,
                                   rt_host_id_t host, const pm_ref_t *enter,
                                   cm_err_t *err)
{
    const char *dash = memchr(s, '-', len);
    uint32_t lo, hi;
    cm_status_t st;

    if ((st = pm_number(b, s, dash ? (uint32_t)(dash - s) : len, line->lineno, col,
                        &lo, err)) != CM_OK)
        return st;
    hi = lo;
    if (dash != NULL &&
        (st = pm_number(b, dash + 1, len - (uint32_t)(dash - s) - 1, line->lineno,
                        col + (unsigned)(dash - s) + 1, &hi, err)) != CM_OK)
        return st;
    if (hi < lo)
        return PM_FAIL(b, err, CM_ERR_RANGE, line->lineno, col,
                       "invalid thread range '%.*s' (start above end)", (int)len, s);
    if ((uint64_t)b->cur.nthreads + (hi - lo) + 1 > RT_PATHMAP_THREADS_MAX)
        return PM_FAIL(b, err, CM_ERR_RANGE, line->lineno, col,
                       "too many threads in tree '%s' (at most %d)",
                       b->cur.tree.name, RT_PATHMAP_THREADS_MAX);
    for (uint64_t t = lo; t <= hi; t++) {
        pm_thread_build_t *tb;

        if (pm_reserve((void **)&b->cur.threads, &b->cur.cap_threads,
                       b->cur.nthreads, sizeof(*b->cur.threads)))
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        tb = &b->cur.threads[b->cur.nthreads++];
        tb->map.id = (rt_thread_id_t)t;
        tb->map.host = host;
        tb->map.enter = RT_ID_NONE;
        tb->map.line = line->lineno;
        tb->map.col = col;
        tb->enter = *enter;
    }
    return CM_OK;
}

static cm_status_t pm_stmt_threads(pm_builder_t *b, const pm_line_t *line,
                                   cm_err_t *err)
{
    static const char *const allowed[] = { "host", "enter", NULL };
    const pm_tok_t *ranges = &line->toks[1];
    const pm_param_t *enter_p;
    pm_param_t params[2];
    uint32_t nparams, start = 0;
    rt_host_id_t host;
    pm_ref_t enter;
    cm_status_t st;

    if (!b->in_tree)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "'threads' before any 'tree' line");
    if (line->ntoks < 2 || memchr(ranges->s, '=', ranges->len) != NULL)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "expected thread numbers after 'threads' (e.g. 0-3,8)");
    if ((st = pm_params(b, line, 2, allowed, "threads", params, &nparams, err)) != CM_OK)
        return st;
    if ((st = pm_host_ref(b, line, pm_param_find(params, nparams, "host"), "threads",
                          &host, err)) != CM_OK)
        return st;
    if ((enter_p = pm_param_find(params, nparams, "enter")) == NULL)
        return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, line->toks[0].col,
                       "threads needs enter=");
    enter.col = enter_p->value.col;
    if ((enter.name = pm_strdup(b, &enter_p->value)) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i <= ranges->len; i++) {
        if (i < ranges->len && ranges->s[i] != ',')
            continue;
        if ((st = pm_thread_range(b, line, ranges->s + start, i - start,
                                  ranges->col + start, host, &enter, err)) != CM_OK)
            return st;
        start = i + 1;
    }
    b->host_used[host] = true;
    return CM_OK;
}

static cm_status_t pm_statement(pm_builder_t *b, const pm_line_t *line,
                                cm_err_t *err)
{
    const pm_tok_t *kw = &line->toks[0];
    cm_kind_t       kind;

    if (tok_is(kw, "host"))
        return pm_stmt_host(b, line, err);
    if (tok_is(kw, "tree"))
        return pm_stmt_tree(b, line, err);
    if (cm_kind_parse(kw->s, kw->len, &kind) == 0)
        return pm_stmt_node(b, line, (rt_node_kind_t)kind, err);
    if (tok_is(kw, "threads"))
        return pm_stmt_threads(b, line, err);
    return PM_FAIL(b, err, CM_ERR_SYNTAX, line->lineno, kw->col,
                   "unknown keyword '%.*s' (expected host, tree, core, gred, proxy, "
                   "algo or threads)", (int)kw->len, kw->s);
}

/* ---- the file --------------------------------------------------------- */

/*
 * Binary data anywhere in the file is its first error, before a line that
 * is too long or any statement: a control byte other than tab, or a CR
 * that does not end a line (CRLF, or CR at the end of the text).
 */
static cm_status_t pm_check_binary(pm_builder_t *b, const char *text, size_t len,
                                   cm_err_t *err)
{
    unsigned lineno = 1;
    size_t start = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];

        if (c == '\n') {
            lineno++;
            start = i + 1;
        } else if (((c < 0x20 && c != '\t') || c == 0x7f) &&
                   !(c == '\r' && (i + 1 == len || text[i + 1] == '\n'))) {
            return PM_FAIL(b, err, CM_ERR_SYNTAX, lineno, (unsigned)(i - start) + 1,
                           "binary data (byte 0x%02x); a pathmap is text", c);
        }
    }
    return CM_OK;
}

/* Runs every line of text through the splitter and the statements. */
static cm_status_t pm_lines(pm_builder_t *b, const char *text, size_t len,
                            uint32_t *nstatements_p, cm_err_t *err)
{
    pm_line_t line = { 0, NULL, 0 };
    size_t pos = 0;
    cm_status_t st = CM_OK;

    if ((line.toks = malloc(PM_TOKENS_MAX * sizeof(*line.toks))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    *nstatements_p = 0;
    while (pos < len && st == CM_OK) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;

        line.lineno++;
        st = pm_line_split(b, text + pos, end - pos, &line, err);
        if (st == CM_OK && line.ntoks > 0) {
            st = pm_statement(b, &line, err);
            (*nstatements_p)++;
        }
        pos = end + 1;
    }
    free(line.toks);
    return st;
}

static void pm_builder_cleanup(pm_builder_t *b)
{
    free(b->hosts);
    free(b->host_used);
    free(b->seen);
    free(b->cur.nodes);
    free(b->cur.threads);
    cm_strmap_cleanup(&b->cur.names);
    cm_strmap_cleanup(&b->host_names);
    cm_strmap_cleanup(&b->tree_names);
}

/* Moves the builder's results into a pathmap allocated in the arena. */
static cm_status_t pm_build_result(pm_builder_t *b, const char *text, size_t len,
                                   rt_pathmap_t **pm_p, cm_err_t *err)
{
    rt_pathmap_t *pm = cm_arena_alloc(b->arena, sizeof(*pm));

    if (pm == NULL ||
        (pm->hosts = cm_arena_alloc(b->arena, b->nhosts * sizeof(*pm->hosts))) == NULL ||
        (pm->text = cm_arena_strndup(b->arena, text, len)) == NULL ||
        (pm->path = cm_arena_strndup(b->arena, b->path, strlen(b->path))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    memcpy(pm->hosts, b->hosts, b->nhosts * sizeof(*pm->hosts));
    pm->nhosts = b->nhosts;
    pm->trees = b->trees;
    pm->ntrees = b->ntrees;
    pm->len = len;
    pm->hash = rt_hash_fnv1a(text, len);
    pm->arena = b->arena;
    *pm_p = pm;
    return CM_OK;
}

cm_status_t rt_pathmap_parse(const char *path, const char *text, size_t len,
                             rt_pathmap_t **pm_p, cm_err_t *err)
{
    pm_builder_t b;
    uint32_t nstatements = 0;
    cm_status_t st;

    memset(&b, 0, sizeof(b));
    b.path = path ? path : "<pathmap>";
    if (len > RT_PATHMAP_BYTES_MAX)
        return CM_ERR_AT(err, CM_ERR_RANGE, b.path, 0, 0,
                         "file too large (%zu bytes; at most %u)", len,
                         RT_PATHMAP_BYTES_MAX);
    b.arena = cm_arena_create();
    b.host_used = calloc(RT_PATHMAP_HOSTS_MAX, sizeof(*b.host_used));
    b.trees = b.arena ? cm_arena_alloc(b.arena, RT_PATHMAP_TREES_MAX * sizeof(*b.trees))
                      : NULL;
    if (b.arena == NULL || b.host_used == NULL || b.trees == NULL)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    else
        st = pm_check_binary(&b, text, len, err);
    if (st == CM_OK)
        st = pm_lines(&b, text, len, &nstatements, err);
    if (st == CM_OK && b.in_tree)
        st = pm_tree_finish(&b, err);
    if (st == CM_OK && nstatements == 0)
        st = CM_ERR_AT(err, CM_ERR_SYNTAX, b.path, 1, 1,
                       "empty pathmap (no host, tree or thread declared)");
    if (st == CM_OK)
        st = pm_pathmap_finish(&b, err);
    if (st == CM_OK)
        st = pm_build_result(&b, text, len, pm_p, err);
    if (st != CM_OK)
        cm_arena_destroy(b.arena);
    pm_builder_cleanup(&b);
    return st;
}

/*
 * Reads fd to its end into a malloc'ed buffer (*text_p, *len_p; caller
 * frees), at most RT_PATHMAP_BYTES_MAX + 1 bytes so that a larger file is
 * recognised.  st_size is only a first guess: procfs and some network
 * filesystems report 0 (or a stale size) for files that have content.
 */
static cm_status_t pm_read_all(int fd, const char *path, off_t hint, char **text_p,
                               size_t *len_p, cm_err_t *err)
{
    size_t cap = hint > 0 && (size_t)hint <= RT_PATHMAP_BYTES_MAX ? (size_t)hint + 1 : 4096;
    size_t len = 0;
    char *text = malloc(cap + 1), *grown;

    if (text == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    for (;;) {
        ssize_t got;

        if (len == cap) {
            if (cap > RT_PATHMAP_BYTES_MAX)
                break;              /* one byte past the limit is enough to refuse */
            cap = cap * 2 > RT_PATHMAP_BYTES_MAX + 1 ? RT_PATHMAP_BYTES_MAX + 1 : cap * 2;
            if ((grown = realloc(text, cap + 1)) == NULL) {
                free(text);
                return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
            }
            text = grown;
        }
        got = read(fd, text + len, cap - len);
        if (got == 0)
            break;
        if (got < 0) {
            if (errno == EINTR)
                continue;
            free(text);
            return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "read: %s", strerror(errno));
        }
        len += (size_t)got;
    }
    *text_p = text;
    *len_p = len;
    return CM_OK;
}

cm_status_t rt_pathmap_load(const char *path, rt_pathmap_t **pm_p, cm_err_t *err)
{
    struct stat sb;
    char *text = NULL;
    size_t size = 0;
    cm_status_t st;
    int fd;

    /* Refuse a FIFO, device or directory before opening it: opening a FIFO
     * for reading blocks until a writer comes.  O_NONBLOCK covers a file
     * replaced between stat and open; fstat then checks what was opened. */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "not a regular file");
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)) < 0)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "not a regular file");
    }
    if ((size_t)sb.st_size > RT_PATHMAP_BYTES_MAX) {
        close(fd);
        return CM_ERR_AT(err, CM_ERR_RANGE, path, 0, 0,
                         "file too large (%lld bytes; at most %u)",
                         (long long)sb.st_size, RT_PATHMAP_BYTES_MAX);
    }
    st = pm_read_all(fd, path, sb.st_size, &text, &size, err);
    close(fd);
    if (st != CM_OK)
        return st;
    if (size > RT_PATHMAP_BYTES_MAX) {
        free(text);
        return CM_ERR_AT(err, CM_ERR_RANGE, path, 0, 0,
                         "file too large (more than %u bytes)", RT_PATHMAP_BYTES_MAX);
    }
    st = rt_pathmap_parse(path, text, size, pm_p, err);
    free(text);
    return st;
}
