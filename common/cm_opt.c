/*
 * cm_opt.c - option values (cm_opt.h).
 *
 * Each scalar is read by a scan_* function that only says what the text is
 * (a value, not that kind of value, or beyond the type), so that lists and
 * ranges reuse them; the public functions add the bounds and the message.
 * Leading spaces are refused although strtol and strtod skip them: an
 * option's value is one shell word, and a space in it is a quoting slip.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_opt.h"

enum { SCAN_OK = 0, SCAN_SYNTAX = -1, SCAN_RANGE = -2 };

void cm_opt_init(cm_opt_t *ctx, const char *prog)
{
    ctx->prog = prog;
    ctx->status = CM_OK;
    ctx->msg[0] = '\0';
    ctx->name[0] = '\0';
}

cm_status_t cm_opt_fail(cm_opt_t *ctx, cm_status_t status, const char *opt,
                        const char *fmt, ...)
{
    va_list ap;
    size_t len = 0;

    if (ctx->status != CM_OK)
        return status;
    ctx->status = status;
    if (opt != NULL)
        len = (size_t)snprintf(ctx->msg, sizeof(ctx->msg), "%s: ", opt);
    if (len < sizeof(ctx->msg)) {
        va_start(ap, fmt);
        vsnprintf(ctx->msg + len, sizeof(ctx->msg) - len, fmt, ap);
        va_end(ap);
    }
    return status;
}

cm_status_t cm_opt_getopt_fail(cm_opt_t *ctx, int c, int bad_char, const char *word)
{
    if (c == ':')
        return cm_opt_fail(ctx, CM_ERR_SYNTAX, NULL, "option '%s' requires an argument", word);
    if (bad_char != 0)
        return cm_opt_fail(ctx, CM_ERR_SYNTAX, NULL, "unknown option '-%c'", bad_char);
    return cm_opt_fail(ctx, CM_ERR_SYNTAX, NULL, "unknown option '%s'", word);
}

int cm_opt_next(cm_opt_t *ctx, int argc, char **argv, const char *shortopts,
                const struct option *longopts, const char **opt_p)
{
    int c, li = -1;

    *opt_p = ctx->name;
    if (ctx->status != CM_OK)
        return -1;                      /* name: the option refused, kept */
    ctx->name[0] = '\0';
    opterr = 0;
    if ((c = getopt_long(argc, argv, shortopts, longopts, &li)) == -1)
        return -1;
    if (c == ':' || c == '?') {
        cm_opt_getopt_fail(ctx, c, optopt, argv[optind - 1]);
        return -1;
    }
    if (li >= 0)
        snprintf(ctx->name, sizeof(ctx->name), "--%s", longopts[li].name);
    else if (c != 1)
        snprintf(ctx->name, sizeof(ctx->name), "-%c", c);
    return c;
}

cm_status_t cm_opt_no_operands(cm_opt_t *ctx, int argc, char **argv)
{
    if (ctx->status == CM_OK && optind < argc)
        cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "unexpected argument '%s'", argv[optind]);
    return ctx->status;
}

void cm_opt_print(const cm_opt_t *ctx, FILE *fp)
{
    if (ctx->status != CM_OK)
        fprintf(fp, "%s: %s\n", ctx->prog, ctx->msg);
}

/* ---- scanning: what the text is, without bounds ---------------------- */

static int starts_number(const char *s, int sign_ok)
{
    if (sign_ok && (*s == '-' || *s == '+'))
        s++;
    return *s >= '0' && *s <= '9';
}

static int scan_long(const char *s, long *v)
{
    char *end;
    long x;

    if (!starts_number(s, 1))
        return SCAN_SYNTAX;
    errno = 0;
    x = strtol(s, &end, 10);
    if (*end != '\0')
        return SCAN_SYNTAX;
    if (errno == ERANGE)
        return SCAN_RANGE;
    *v = x;
    return SCAN_OK;
}

static int scan_double(const char *s, double *v)
{
    char *end;
    double x;

    if (*s == '\0' || *s == ' ' || *s == '\t')
        return SCAN_SYNTAX;
    errno = 0;
    x = strtod(s, &end);
    if (*end != '\0' || isnan(x) || (isinf(x) && errno != ERANGE))
        return SCAN_SYNTAX;             /* junk, or "nan" / "inf" themselves */
    if (errno == ERANGE && fabs(x) >= 1.0)
        return SCAN_RANGE;              /* an overflow; an underflow is a tiny number */
    *v = x;
    return SCAN_OK;
}

static int scan_size(const char *s, uint64_t *v)
{
    char *end;
    unsigned long long n;
    int shift = 0;

    if (!starts_number(s, 0))
        return SCAN_SYNTAX;
    errno = 0;
    n = strtoull(s, &end, 10);
    switch (*end) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: break;
    }
    if (shift != 0) {
        end++;
        if (strcmp(end, "iB") == 0)
            end += 2;
    }
    if (*end != '\0')
        return SCAN_SYNTAX;
    if (errno == ERANGE || n > (UINT64_MAX >> shift))
        return SCAN_RANGE;
    *v = (uint64_t)n << shift;
    return SCAN_OK;
}

const char *cm_opt_size_name(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = { "TiB", "GiB", "MiB", "KiB" };

    for (int i = 0; i < 4; i++) {
        int shift = 40 - 10 * i;
        uint64_t unit = (uint64_t)1 << shift;

        if (bytes >= unit && bytes % unit == 0) {
            snprintf(buf, size, "%llu%s", (unsigned long long)(bytes >> shift), units[i]);
            return buf;
        }
    }
    snprintf(buf, size, "%llu", (unsigned long long)bytes);
    return buf;
}

/* ---- scalars: one core for every kind -------------------------------- */

/* A scalar kind with its bounds, so that scalars, ranges and lists are
 * written once. */
typedef enum { KIND_LONG, KIND_DOUBLE, KIND_SIZE } kind_t;

typedef struct bounds {
    kind_t   kind;
    long     llo, lhi;
    double   dlo, dhi;
    uint64_t slo, shi;
} bounds_t;

/* "1..9", "0.5..2", "4..1MiB". */
static const char *bounds_text(const bounds_t *b, char *buf, size_t size)
{
    char lo[32], hi[32];

    if (b->kind == KIND_LONG)
        snprintf(buf, size, "%ld..%ld", b->llo, b->lhi);
    else if (b->kind == KIND_DOUBLE)
        snprintf(buf, size, "%g..%g", b->dlo, b->dhi);
    else
        snprintf(buf, size, "%s..%s", cm_opt_size_name(b->slo, lo, sizeof(lo)),
                 cm_opt_size_name(b->shi, hi, sizeof(hi)));
    return buf;
}

/*
 * arg as one value of b's kind into item i of the array v (of that kind;
 * untouched on error).  "'x' is not KIND, expected RANGE" or "'x' is out of
 * range, expected RANGE"; a text that is not a size also says what a size
 * is.
 */
static cm_status_t scalar(cm_opt_t *ctx, const char *opt, const char *arg, const bounds_t *b,
                          void *v, size_t i)
{
    static const char *const kinds[] = { "an integer", "a finite number", "a size" };
    long l = 0;
    double d = 0.0;
    uint64_t z = 0;
    char range[64], text[128];
    int rc, inside;

    switch (b->kind) {
    case KIND_LONG:   rc = scan_long(arg, &l);   inside = l >= b->llo && l <= b->lhi; break;
    case KIND_DOUBLE: rc = scan_double(arg, &d); inside = d >= b->dlo && d <= b->dhi; break;
    default:          rc = scan_size(arg, &z);   inside = z >= b->slo && z <= b->shi; break;
    }
    bounds_text(b, range, sizeof(range));
    if (rc == SCAN_SYNTAX && b->kind == KIND_SIZE)
        snprintf(text, sizeof(text), "bytes %s (K, M, G, T: powers of 1024)", range);
    else
        snprintf(text, sizeof(text), "%s", range);
    if (rc == SCAN_SYNTAX)
        return cm_opt_fail(ctx, CM_ERR_SYNTAX, opt, "'%s' is not %s, expected %s", arg,
                           kinds[b->kind], text);
    if (rc == SCAN_RANGE || !inside)
        return cm_opt_fail(ctx, CM_ERR_RANGE, opt, "'%s' is out of range, expected %s", arg,
                           text);
    switch (b->kind) {
    case KIND_LONG:   ((long *)v)[i] = l; break;
    case KIND_DOUBLE: ((double *)v)[i] = d; break;
    default:          ((uint64_t *)v)[i] = z; break;
    }
    return CM_OK;
}

cm_status_t cm_opt_long(cm_opt_t *ctx, const char *opt, const char *arg,
                        long lo, long hi, long *v_p)
{
    bounds_t b = { .kind = KIND_LONG, .llo = lo, .lhi = hi };

    return scalar(ctx, opt, arg, &b, v_p, 0);
}

cm_status_t cm_opt_int(cm_opt_t *ctx, const char *opt, const char *arg,
                       int lo, int hi, int *v_p)
{
    long v;
    cm_status_t st = cm_opt_long(ctx, opt, arg, lo, hi, &v);

    if (st == CM_OK)
        *v_p = (int)v;
    return st;
}

cm_status_t cm_opt_double(cm_opt_t *ctx, const char *opt, const char *arg,
                          double lo, double hi, double *v_p)
{
    bounds_t b = { .kind = KIND_DOUBLE, .dlo = lo, .dhi = hi };

    return scalar(ctx, opt, arg, &b, v_p, 0);
}

cm_status_t cm_opt_size(cm_opt_t *ctx, const char *opt, const char *arg,
                        uint64_t lo, uint64_t hi, uint64_t *v_p)
{
    bounds_t b = { .kind = KIND_SIZE, .slo = lo, .shi = hi };

    return scalar(ctx, opt, arg, &b, v_p, 0);
}

cm_status_t cm_opt_word(cm_opt_t *ctx, const char *opt, const char *arg,
                        const cm_opt_word_t *words, size_t n, int *v_p)
{
    char list[CM_OPT_MSG_MAX];
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        if (strcmp(arg, words[i].name) == 0) {
            *v_p = words[i].value;
            return CM_OK;
        }
    }
    list[0] = '\0';
    for (size_t i = 0; i < n && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                i == 0 ? "" : i + 1 == n ? " or " : ", ", words[i].name);
    return cm_opt_fail(ctx, CM_ERR_INVALID, opt, "unknown '%s', expected %s", arg, list);
}

cm_status_t cm_opt_append(cm_opt_t *ctx, const char *opt, const char *arg,
                          const char **v, int *n_p, int max)
{
    if (*n_p >= max)
        return cm_opt_fail(ctx, CM_ERR_RANGE, opt, "given more than %d times, expected at "
                           "most %d", max, max);
    v[(*n_p)++] = arg;
    return CM_OK;
}

/* ---- ranges and lists: any scalar kind --------------------------------- */

/* The two halves of A:B into a and b; 0, or -1 when there is no single ':'. */
static int split_range(const char *arg, char *a, char *b, size_t size)
{
    const char *colon = strchr(arg, ':');
    size_t la;

    if (colon == NULL || strchr(colon + 1, ':') != NULL)
        return -1;
    la = (size_t)(colon - arg);
    if (la >= size || strlen(colon + 1) >= size)
        return -1;
    memcpy(a, arg, la);
    a[la] = '\0';
    strcpy(b, colon + 1);
    return 0;
}

/* A:B of a long or size kind into *a_p and *b_p (untouched on error). */
static cm_status_t range(cm_opt_t *ctx, const char *opt, const char *arg, const bounds_t *b,
                         void *a_p, void *b_p)
{
    union { long l[2]; uint64_t z[2]; } v;
    char x[64], y[64], text[96];
    cm_status_t st;
    int is_long = b->kind == KIND_LONG;

    if (split_range(arg, x, y, sizeof(x)) != 0)
        return cm_opt_fail(ctx, CM_ERR_SYNTAX, opt, "'%s' is not a range, expected A:B "
                           "within %s", arg, bounds_text(b, text, sizeof(text)));
    if ((st = scalar(ctx, opt, x, b, &v, 0)) != CM_OK ||
        (st = scalar(ctx, opt, y, b, &v, 1)) != CM_OK)
        return st;
    if (is_long ? v.l[0] > v.l[1] : v.z[0] > v.z[1])
        return cm_opt_fail(ctx, CM_ERR_RANGE, opt, "'%s' ends before it starts, expected "
                           "A:B with A <= B", arg);
    if (is_long) {
        *(long *)a_p = v.l[0];
        *(long *)b_p = v.l[1];
    } else {
        *(uint64_t *)a_p = v.z[0];
        *(uint64_t *)b_p = v.z[1];
    }
    return CM_OK;
}

cm_status_t cm_opt_long_range(cm_opt_t *ctx, const char *opt, const char *arg,
                              long lo, long hi, long *a_p, long *b_p)
{
    bounds_t b = { .kind = KIND_LONG, .llo = lo, .lhi = hi };

    return range(ctx, opt, arg, &b, a_p, b_p);
}

cm_status_t cm_opt_size_range(cm_opt_t *ctx, const char *opt, const char *arg,
                              uint64_t lo, uint64_t hi, uint64_t *a_p, uint64_t *b_p)
{
    bounds_t b = { .kind = KIND_SIZE, .slo = lo, .shi = hi };

    return range(ctx, opt, arg, &b, a_p, b_p);
}

/* ---- lists ------------------------------------------------------------ */

void cm_opt_list_begin(cm_opt_list_t *it, const char *opt, const char *arg, char sep)
{
    it->opt = opt;
    it->all = arg;
    it->next = arg;
    it->sep = sep;
    it->count = 0;
    it->item[0] = '\0';
}

cm_status_t cm_opt_list_next(cm_opt_t *ctx, cm_opt_list_t *it, size_t max,
                             const char **item_p)
{
    const char *p = it->next, *end;
    size_t len;

    *item_p = NULL;
    if (p == NULL)
        return CM_OK;
    end = strchr(p, it->sep);
    len = end != NULL ? (size_t)(end - p) : strlen(p);
    it->count++;
    if (len == 0)
        return cm_opt_fail(ctx, CM_ERR_SYNTAX, it->opt, "item %zu of '%s' is empty, expected "
                           "items separated by '%c'", it->count, it->all, it->sep);
    if (len >= sizeof(it->item))
        return cm_opt_fail(ctx, CM_ERR_SYNTAX, it->opt, "item %zu of the list is too long, "
                           "expected at most %zu characters", it->count, sizeof(it->item) - 1);
    if (it->count > max) {
        size_t n = it->count;

        for (const char *q = end; q != NULL; q = strchr(q + 1, it->sep))
            n++;
        return cm_opt_fail(ctx, CM_ERR_RANGE, it->opt, "%zu items, expected at most %zu",
                           n, max);
    }
    memcpy(it->item, p, len);
    it->item[len] = '\0';
    it->next = end != NULL ? end + 1 : NULL;
    *item_p = it->item;
    return CM_OK;
}

static cm_status_t list(cm_opt_t *ctx, const char *opt, const char *arg, char sep,
                        const bounds_t *b, void *v, size_t max, size_t *n_p)
{
    cm_opt_list_t it;
    const char *item;
    cm_status_t st;
    size_t n = 0;

    cm_opt_list_begin(&it, opt, arg, sep);
    while ((st = cm_opt_list_next(ctx, &it, max, &item)) == CM_OK && item != NULL)
        if ((st = scalar(ctx, opt, item, b, v, n++)) != CM_OK)
            return st;
    if (st == CM_OK)
        *n_p = n;
    return st;
}

cm_status_t cm_opt_long_list(cm_opt_t *ctx, const char *opt, const char *arg, char sep,
                             long lo, long hi, long *v, size_t max, size_t *n_p)
{
    bounds_t b = { .kind = KIND_LONG, .llo = lo, .lhi = hi };

    return list(ctx, opt, arg, sep, &b, v, max, n_p);
}

cm_status_t cm_opt_double_list(cm_opt_t *ctx, const char *opt, const char *arg, char sep,
                               double lo, double hi, double *v, size_t max, size_t *n_p)
{
    bounds_t b = { .kind = KIND_DOUBLE, .dlo = lo, .dhi = hi };

    return list(ctx, opt, arg, sep, &b, v, max, n_p);
}

cm_status_t cm_opt_size_list(cm_opt_t *ctx, const char *opt, const char *arg, char sep,
                             uint64_t lo, uint64_t hi, uint64_t *v, size_t max,
                             size_t *n_p)
{
    bounds_t b = { .kind = KIND_SIZE, .slo = lo, .shi = hi };

    return list(ctx, opt, arg, sep, &b, v, max, n_p);
}
