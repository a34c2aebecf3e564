/*
 * pathmap_lex.c - the pathmap reader's words: one line's bytes checked and
 * split into tokens, then, inside a statement, names, thread numbers,
 * key=value parameters and host references (pathmap_int.h; the
 * statements are pathmap_parse.c's).
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/core/pathmap_int.h"

/* ---- lines and tokens ------------------------------------------------- */

/*
 * Checks the raw bytes of one line (without its newline) and splits it into
 * tokens.  Control bytes are binary data anywhere; bytes above 127 are
 * allowed only after '#'.
 */
cm_status_t pm_line_split(pm_builder_t *b, const char *s, size_t len,
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

cm_status_t pm_check_name(pm_builder_t *b, const pm_tok_t *tok,
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
cm_status_t pm_params(pm_builder_t *b, const pm_line_t *line,
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

const pm_param_t *pm_param_find(const pm_param_t *params, uint32_t n,
                                const char *key)
{
    for (uint32_t i = 0; i < n; i++) {
        if (tok_is(&params[i].key, key))
            return &params[i];
    }
    return NULL;
}

/* Parses a decimal thread number; the value may not exceed the limit. */
cm_status_t pm_number(pm_builder_t *b, const char *s, uint32_t len,
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
cm_status_t pm_host_ref(pm_builder_t *b, const pm_line_t *line,
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

char *pm_strdup(pm_builder_t *b, const pm_tok_t *tok)
{
    return cm_arena_strndup(b->arena, tok->s, tok->len);
}

/* Grows a malloc'ed array of `elem` bytes to hold at least n+1 elements. */
cm_status_t pm_reserve(void **array, uint32_t *cap, uint32_t n, size_t elem)
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
