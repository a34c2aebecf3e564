/*
 * pathmap_parse.c - the pathmap reader: bytes -> lines -> tokens ->
 * statements (docs/pathmap.md has the grammar).  This file has the
 * statements and the file; a line's tokens, names, numbers and key=value
 * parameters are pathmap_lex.c's, an algo line's parameters
 * pathmap_algo.c's (pathmap_int.h joins them).
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

cm_status_t pm_wait_param(pm_builder_t *b, const pm_line_t *line,
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

static cm_status_t pm_stmt_node(pm_builder_t *b, const pm_line_t *line,
                                rt_node_kind_t kind, cm_err_t *err)
{
    static const char *const allowed[] = { "host", "parent", "wait", NULL };
    /* host=, parent= and wait= too, to say why an algo node takes none */
    static const char *const algo_allowed[] = {
        "host", "parent", "wait", "run", "bcast", "root", "segments", "segsize",
        "round", "ppn", "port", "shape", "arrival", "candidates", NULL
    };
    const pm_tok_t *name = &line->toks[1];
    const char *kname = rt_node_kind_name(kind);
    pm_param_t params[14];
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
