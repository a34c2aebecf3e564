/*
 * output.c - trace_check's failure lines and the small helpers every check
 * uses (tests/oracles/trace_check.c says what is checked).
 */
#include "tests/oracles/trace_check/tc_int.h"

/* ------------------------------------------------------------------ output */

void tc_fail(tc_ctx_t *c, const char *fmt, ...)
{
    va_list ap;

    if (c->nfail++ >= TC_FAIL_LINES)
        return;
    fputs("trace_check: FAIL: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* expect_*(c, expected, got, what...): one FAIL line if they differ. */
void expect_u64(tc_ctx_t *c, uint64_t exp, uint64_t got, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (exp == got)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    tc_fail(c, "%s: expected %" PRIu64 ", got %" PRIu64, what, exp, got);
}

void expect_str(tc_ctx_t *c, const char *exp, const char *got, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (got != NULL && strcmp(exp, got) == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (got == NULL)
        tc_fail(c, "%s: expected '%s', got an undefined string", what, exp);
    else
        tc_fail(c, "%s: expected '%s', got '%s'", what, exp, got);
}

/* A failure of the current event of location l: "<label> event <n> ...". */
void ev_fail(tc_ctx_t *c, const tc_loc_t *l, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tc_fail(c, "%s event %" PRIu64 " %s", l->label, l->nevents - 1, msg);
}

int io_error(const char *fmt, ...)
{
    va_list ap;

    fputs("trace_check: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* ------------------------------------------------------------------ helpers */

void *vec_push(tc_ctx_t *c, tc_vec_t *v)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        void *d = realloc(v->data, cap * v->size);
        if (d == NULL) {
            c->oom = true;
            return NULL;
        }
        v->data = d;
        v->cap = cap;
    }
    return (char *)v->data + v->size * v->n++;
}

const char *str_of(const tc_ctx_t *c, OTF2_StringRef id)
{
    return id < c->nstr ? c->str[id] : NULL;
}

bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (s == NULL || *s == '\0')
        return false;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

const rt_node_t *node_of(const tc_ctx_t *c, uint64_t region)
{
    return &c->tree->nodes[region % c->tree->nnodes];
}

const char *region_label(const tc_ctx_t *c, uint64_t region, char *buf, size_t n)
{
    if (region < c->nregions)
        snprintf(buf, n, "%s#%" PRIu64 "/%s (region %" PRIu64 ")", c->tree->name,
                 region / c->tree->nnodes, node_of(c, region)->name, region);
    else
        snprintf(buf, n, "region %" PRIu64 " (out of range)", region);
    return buf;
}

/* Operations on instance i when each thread made K, operation k on k % I. */
uint64_t ops_of(const tc_ctx_t *c, unsigned inst)
{
    return (c->ops + c->ninst - 1 - inst) / c->ninst;
}
