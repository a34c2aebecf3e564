/*
 * gen_edit_text.c - an edit as a value (gen_edit_t, gen/api/gen_edit.h):
 * its words, and its text form, the one grammar of `pathgen edit` that a
 * user types, the advice prints and bench/sweep hands back to pathgen.
 *
 * The parser is the command line's: pathgen edit cuts its words at "," and
 * gives each call to gen_edit_parse_words, so the messages here are the
 * ones users see after "pathgen edit: ".  gen_edit_parse adds the tokenizer
 * for a text (blanks, single quotes), and gen_edit_render writes the
 * canonical text that gen_edit_parse reads back to an equal value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/api/gen_edit.h"

/* The operator words, indexed by gen_edit_op_t. */
static const char *const op_names[] = {
    [GEN_EDIT_ADD_LEVEL] = "add-level",     [GEN_EDIT_REMOVE_LEVEL] = "remove-level",
    [GEN_EDIT_MOVE] = "move",               [GEN_EDIT_SPLIT] = "split",
    [GEN_EDIT_UNSPLIT] = "unsplit",         [GEN_EDIT_ADD_LINK] = "add-link",
    [GEN_EDIT_REMOVE_LINK] = "remove-link", [GEN_EDIT_ROOT] = "root",
    [GEN_EDIT_ALGO] = "algo",               [GEN_EDIT_MERGE] = "merge",
};
#define NOPS ((int)(sizeof(op_names) / sizeof(op_names[0])))

const char *gen_edit_op_name(gen_edit_op_t op)
{
    return (int)op >= 0 && (int)op < NOPS ? op_names[op] : NULL;
}

void gen_edit_init(gen_edit_t *e, gen_edit_op_t op)
{
    e->op = op;
    e->num = 0;
    e->flag = op == GEN_EDIT_SPLIT;
    e->nargs = 0;
    e->len = 0;
    e->args[0] = '\0';
}

cm_status_t gen_edit_add_arg(gen_edit_t *e, const char *word, cm_err_t *err)
{
    size_t n = strlen(word) + 1;

    /* pathgen edit cuts its words at a lone ",", quoted or not (the shell
     * has removed the quotes): such a word could never be typed */
    if (strcmp(word, ",") == 0)
        return CM_ERR(err, CM_ERR_INVALID, "%s: a lone ',' separates edits; it is no word of one",
                      gen_edit_op_name(e->op));
    if (n > sizeof(e->args) - e->len)
        return CM_ERR(err, CM_ERR_RANGE, "%s: its words are longer than %d bytes in all",
                      gen_edit_op_name(e->op), GEN_EDIT_ARGS_MAX);
    memcpy(e->args + e->len, word, n);
    e->len += n;
    e->nargs++;
    return CM_OK;
}

const char *gen_edit_arg(const gen_edit_t *e, int i)
{
    const char *p = e->args;

    if (i < 0 || i >= e->nargs)
        return NULL;
    while (i-- > 0)
        p += strlen(p) + 1;
    return p;
}

/* ---- parsing ------------------------------------------------------------ */

static int is_number(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* A count of at most UINT32_MAX from digits (is_number), or CM_ERR_SYNTAX. */
static cm_status_t count_of(const char *op, const char *s, uint32_t *v_p, cm_err_t *err)
{
    unsigned long long v = strtoull(s, NULL, 10);

    if (strlen(s) > 10 || v > UINT32_MAX)
        return CM_ERR(err, CM_ERR_SYNTAX, "%s: '%s' is too large", op, s);
    *v_p = (uint32_t)v;
    return CM_OK;
}

static cm_status_t add_words(gen_edit_t *e, char *const *w, int nw, cm_err_t *err)
{
    cm_status_t st = CM_OK;

    for (int i = 0; i < nw && st == CM_OK; i++)
        st = gen_edit_add_arg(e, w[i], err);
    return st;
}

/* SUBTREE... [FANOUT]: a last word of digits after a name is add-level's
 * fan-out. */
static cm_status_t parse_subtrees(gen_edit_t *e, char *const *w, int nw, cm_err_t *err)
{
    const char *op = gen_edit_op_name(e->op);
    cm_status_t st;

    if (e->op == GEN_EDIT_ADD_LEVEL && nw > 1 && is_number(w[nw - 1])) {
        if ((st = count_of(op, w[nw - 1], &e->num, err)) != CM_OK)
            return st;
        nw--;
    }
    if (nw < 1)
        return CM_ERR(err, CM_ERR_SYNTAX, "%s needs a wrapper name", op);
    return add_words(e, w, nw, err);
}

static cm_status_t parse_split(gen_edit_t *e, char *const *w, int nw, cm_err_t *err)
{
    cm_status_t st;

    if (nw < 1 || nw > 2 || !is_number(w[0]))
        return CM_ERR(err, CM_ERR_SYNTAX,
                      "split takes SPAN [first|last] (a number of host subtrees)");
    if (nw == 2 && strcmp(w[1], "first") == 0)
        e->flag = 0;
    else if (nw == 2 && strcmp(w[1], "last") != 0)
        return CM_ERR(err, CM_ERR_SYNTAX, "split: '%s' is neither first nor last", w[1]);
    if ((st = count_of("split", w[0], &e->num, err)) != CM_OK)
        return st;
    return CM_OK;
}

static cm_status_t parse_merge(gen_edit_t *e, char *const *w, int nw, cm_err_t *err)
{
    if (nw > 0 && strcmp(w[nw - 1], "gateway-root") == 0) {
        e->flag = 1;
        nw--;
    }
    if (nw == 1)
        return CM_ERR(err, CM_ERR_SYNTAX,
                      "merge needs a gateway host name: merge FILE2 GATEWAY");
    if (nw != 2 && nw != 4)
        return CM_ERR(err, CM_ERR_SYNTAX,
                      "merge takes FILE2 GATEWAY [PREFIX_A PREFIX_B] [gateway-root]");
    return add_words(e, w, nw, err);
}

/* Exactly `want` words, or the usage line `msg`. */
static cm_status_t parse_fixed(gen_edit_t *e, char *const *w, int nw, int want,
                               const char *msg, cm_err_t *err)
{
    if (nw != want)
        return CM_ERR(err, CM_ERR_SYNTAX, "%s", msg);
    return add_words(e, w, nw, err);
}

static cm_status_t parse_args(gen_edit_t *e, char *const *w, int nw, cm_err_t *err)
{
    switch (e->op) {
    case GEN_EDIT_ADD_LEVEL:
    case GEN_EDIT_REMOVE_LEVEL:
    case GEN_EDIT_ADD_LINK:
    case GEN_EDIT_REMOVE_LINK:
        return parse_subtrees(e, w, nw, err);
    case GEN_EDIT_MOVE:
        return parse_fixed(e, w, nw, 2, "move takes WRAPPER HOST", err);
    case GEN_EDIT_SPLIT:
        return parse_split(e, w, nw, err);
    case GEN_EDIT_UNSPLIT:
        return parse_fixed(e, w, nw, 0, "unsplit takes no argument", err);
    case GEN_EDIT_ROOT:
        return parse_fixed(e, w, nw, 1, "root takes HOST", err);
    case GEN_EDIT_ALGO:
        if (nw < 1)
            return CM_ERR(err, CM_ERR_SYNTAX, "algo needs its parameters (algo run=ring ...)");
        return add_words(e, w, nw, err);
    case GEN_EDIT_MERGE:
        return parse_merge(e, w, nw, err);
    }
    return CM_ERR(err, CM_ERR_SYNTAX, "unknown operator");
}

cm_status_t gen_edit_parse_words(char *const *w, int nw, gen_edit_t *e, cm_err_t *err)
{
    gen_edit_t *v;
    cm_status_t st;
    int op;

    if (nw < 1)
        return CM_ERR(err, CM_ERR_SYNTAX, "an empty operator");
    for (op = 0; op < NOPS && strcmp(w[0], op_names[op]) != 0; op++)
        ;
    if (op == NOPS)
        return CM_ERR(err, CM_ERR_SYNTAX,
                      "unknown operator '%s' (pathgen edit --help lists them)", w[0]);
    /* e is set only on success: build the value aside (it is 4 KiB). */
    if ((v = malloc(sizeof(*v))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    gen_edit_init(v, (gen_edit_op_t)op);
    if ((st = parse_args(v, w + 1, nw - 1, err)) == CM_OK)
        *e = *v;
    free(v);
    return st;
}

/* Cuts text into words (blanks apart, '...' quoted, \c the character c, as
 * the shell does) in buf, their starts in
 * w[] (room for max); returns the count, or -1 with err set. */
static int split_words(const char *text, char *buf, char **w, int max, cm_err_t *err)
{
    const char *s = text;
    char *o = buf;
    int n = 0;

    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        if (*s == '\0')
            return n;
        if (n == max)
            return CM_ERR(err, CM_ERR_RANGE, "'%.64s...': too many words", text), -1;
        w[n++] = o;
        while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\n') {
            if (*s == '\\' && s[1] != '\0') {    /* the next character as is */
                *o++ = s[1];
                s += 2;
                continue;
            }
            if (*s != '\'') {
                *o++ = *s++;
                continue;
            }
            const char *q = strchr(s + 1, '\'');
            if (q == NULL)
                return CM_ERR(err, CM_ERR_SYNTAX, "'%.64s': a quote is not closed", text), -1;
            memcpy(o, s + 1, (size_t)(q - s - 1));
            o += q - s - 1;
            s = q + 1;
        }
        *o++ = '\0';
    }
}

cm_status_t gen_edit_parse(const char *text, gen_edit_t *e, cm_err_t *err)
{
    size_t len = strlen(text);
    /* a word takes two bytes of text at least (itself and a blank) */
    int max = (int)(len / 2 + 1);
    char *buf = malloc(len + 1);
    char **w = calloc((size_t)max, sizeof(*w));
    cm_status_t st = CM_OK;
    int n;

    if (buf == NULL || w == NULL) {
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    } else if ((n = split_words(text, buf, w, max, err)) < 0) {
        st = err ? err->status : CM_ERR_SYNTAX;
    } else if (n == 0) {
        st = CM_ERR(err, CM_ERR_SYNTAX, "an empty edit");
    } else {
        for (int i = 0; i < n && st == CM_OK; i++)
            if (strcmp(w[i], ",") == 0)
                st = CM_ERR(err, CM_ERR_SYNTAX, "'%.64s': a list of edits, not one", text);
        if (st == CM_OK)
            st = gen_edit_parse_words(w, n, e, err);
    }
    free(buf);
    free(w);
    return st;
}

/* ---- rendering ---------------------------------------------------------- */

/* Appends to buf[*at..size) what fits, counting the whole length in *at. */
static void put(char *buf, size_t size, size_t *at, const char *s, size_t n)
{
    if (*at < size) {
        size_t room = size - 1 - *at;
        memcpy(buf + *at, s, n < room ? n : room);
    }
    *at += n;
}

/* A word as the shell reads it back: as is when it is safe, else quoted
 * with ' (an inner ' as '\''). */
static void put_word(char *buf, size_t size, size_t *at, const char *w)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./:=@%+-,";
    size_t n = strlen(w);

    put(buf, size, at, " ", 1);
    if (n > 0 && strspn(w, safe) == n) {
        put(buf, size, at, w, n);
        return;
    }
    put(buf, size, at, "'", 1);
    for (; *w; w++) {
        if (*w == '\'')
            put(buf, size, at, "'\\''", 4);
        else
            put(buf, size, at, w, 1);
    }
    put(buf, size, at, "'", 1);
}

size_t gen_edit_render(const gen_edit_t *e, char *buf, size_t size)
{
    const char *op = gen_edit_op_name(e->op);
    char num[16];
    size_t at = 0;

    op = op ? op : "?";
    put(buf, size, &at, op, strlen(op));
    if (e->op == GEN_EDIT_SPLIT) {
        snprintf(num, sizeof(num), "%u", (unsigned)e->num);
        put_word(buf, size, &at, num);
        put_word(buf, size, &at, e->flag ? "last" : "first");
    }
    for (int i = 0; i < e->nargs; i++)
        put_word(buf, size, &at, gen_edit_arg(e, i));
    if (e->op == GEN_EDIT_ADD_LEVEL && e->num != 0) {
        snprintf(num, sizeof(num), "%u", (unsigned)e->num);
        put_word(buf, size, &at, num);
    }
    if (e->op == GEN_EDIT_MERGE && e->flag)
        put_word(buf, size, &at, "gateway-root");
    if (size > 0)
        buf[at < size ? at : size - 1] = '\0';
    return at;
}
