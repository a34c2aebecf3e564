/*
 * gen_lines.c - the line reader of pathgen's mapping files (gen/gen_lines_int.h).
 *
 * The whole file is read into memory; each call of gen_lines_next cuts the
 * next line into words in place (NUL after each word, the comment dropped)
 * and remembers each word's 1-based column.  Errors are made here so that
 * every reader reports path:line:col the same way.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_lines_int.h"

#define GEN_FILE_MAX (16u << 20)

static cm_status_t read_all(gen_lines_t *r, FILE *fp, cm_err_t *err)
{
    size_t cap = 4096, n;

    r->text = malloc(cap);
    if (r->text == NULL)
        return CM_ERR_AT(err, CM_ERR_NOMEM, r->path, 0, 0, "out of memory");
    while ((n = fread(r->text + r->len, 1, cap - r->len - 1, fp)) > 0) {
        char *t;

        r->len += n;
        if (r->len > GEN_FILE_MAX)
            return CM_ERR_AT(err, CM_ERR_RANGE, r->path, 0, 0, "larger than 16 MiB");
        if (r->len + 1 < cap)
            continue;
        if ((t = realloc(r->text, cap * 2)) == NULL)
            return CM_ERR_AT(err, CM_ERR_NOMEM, r->path, 0, 0, "out of memory");
        r->text = t;
        cap *= 2;
    }
    if (ferror(fp))
        return CM_ERR_AT(err, CM_ERR_IO, r->path, 0, 0, "cannot read: %s", strerror(errno));
    r->text[r->len] = '\0';
    return CM_OK;
}

cm_status_t gen_lines_open(gen_lines_t *r, const char *path, cm_err_t *err)
{
    FILE *fp;
    cm_status_t st;

    memset(r, 0, sizeof(*r));
    r->path = path;
    if ((fp = fopen(path, "r")) == NULL)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    st = read_all(r, fp, err);
    fclose(fp);
    if (st == CM_OK && memchr(r->text, '\0', r->len) != NULL)
        st = CM_ERR_AT(err, CM_ERR_SYNTAX, path, 0, 0, "a NUL byte: not a text file");
    if (st != CM_OK)
        gen_lines_close(r);
    return st;
}

void gen_lines_close(gen_lines_t *r)
{
    free(r->text);
    r->text = NULL;
}

/* Cuts the line starting at r->pos (up to end) into words. */
static int cut_words(gen_lines_t *r, char *s, char *end, cm_err_t *err)
{
    char *p = s;

    r->nwords = 0;
    while (p < end && *p != '#') {
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            *p++ = '\0';
            continue;
        }
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return gen_lines_err_at(r->path, r->line, (unsigned)(p - s) + 1, CM_ERR_SYNTAX,
                                    err, "control character 0x%02x", (unsigned)*p), -1;
        if (r->nwords == GEN_LINE_WORDS)
            return gen_lines_err_at(r->path, r->line, (unsigned)(p - s) + 1, CM_ERR_SYNTAX,
                                    err, "more than %d words on a line", GEN_LINE_WORDS), -1;
        r->word[r->nwords] = p;
        r->col[r->nwords++] = (unsigned)(p - s) + 1;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#' &&
               !((unsigned char)*p < 0x20 || *p == 0x7f))
            p++;
        if (p < end && *p == '#') {
            *p = '\0';
            break;
        }
    }
    if (p < end)
        *p = '\0';
    return 0;
}

int gen_lines_next(gen_lines_t *r, cm_err_t *err)
{
    while (r->pos < r->len) {
        char *s = r->text + r->pos, *nl = strchr(s, '\n');
        char *end = nl ? nl : r->text + r->len;

        r->line++;
        r->pos = (size_t)(end - r->text) + (nl ? 1 : 0);
        *end = '\0';
        if (cut_words(r, s, end, err) != 0)
            return -1;
        if (r->nwords > 0)
            return 1;
    }
    return 0;
}

static cm_status_t vset(const char *path, unsigned line, unsigned col, cm_status_t st,
                        cm_err_t *err, const char *fmt, va_list ap)
{
    char msg[CM_ERR_MSG_MAX];

    vsnprintf(msg, sizeof(msg), fmt, ap);
    return CM_ERR_AT(err, st, path, line, col, "%s", msg);
}

cm_status_t gen_lines_err(const gen_lines_t *r, int w, cm_status_t st, cm_err_t *err,
                          const char *fmt, ...)
{
    va_list ap;
    cm_status_t ret;

    va_start(ap, fmt);
    ret = vset(r->path, r->line, w < 0 ? 0 : r->col[w], st, err, fmt, ap);
    va_end(ap);
    return ret;
}

cm_status_t gen_lines_err_at(const char *path, unsigned line, unsigned col, cm_status_t st,
                             cm_err_t *err, const char *fmt, ...)
{
    va_list ap;
    cm_status_t ret;

    va_start(ap, fmt);
    ret = vset(path, line, col, st, err, fmt, ap);
    va_end(ap);
    return ret;
}

int gen_name_ok(const char *s)
{
    size_t i;

    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return 0;
    for (i = 1; s[i] != '\0'; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
    }
    return i <= 63;
}

int gen_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
    uint64_t x = 0;

    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
        if (x > hi)
            return -1;
    }
    if (x < lo)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

const char *gen_lines_value(const gen_lines_t *r, int w, const char *key, unsigned *col_p)
{
    size_t k = strlen(key);

    if (strncmp(r->word[w], key, k) != 0 || r->word[w][k] != '=')
        return NULL;
    if (col_p != NULL)
        *col_p = r->col[w] + (unsigned)k + 1;
    return r->word[w] + k + 1;
}
