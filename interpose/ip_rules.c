/*
 * ip_rules.c - the --algo rules of the profiling library
 * (interpose/api/ip_rules.h, docs/paprun.md "Rules"): parsed once, at
 * paprun's start (to refuse a bad rule before the program runs) and in
 * each rank's MPI_Init, then matched at every allreduce, reduce and bcast.
 *
 * The algorithms and what they read come from runtime/algo's table, and
 * which parameter a generator reads from the pathmap's own rule
 * (rt_algo_takes), so an algo line and a rule accept the same things.
 * Two differences, both because the call, not the text, knows them:
 * root= is refused (the call gives the root) and segsize= is in bytes
 * (the datatype, and so the element size, comes with the call).
 *
 * Workload: a handful of rules; a match is a walk over them, a few
 * comparisons per case, no allocation and no lock (the parsed rules are
 * read-only).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_arena.h"
#include "common/cm_hash.h"
#include "common/cm_opt.h"
#include "interpose/api/ip_rules.h"
#include "runtime/api/rt_auto.h"

/* Limits (docs/paprun.md, "Rules"). */
#define IP_NP_MAX       2147483647ll            /* communicator sizes: int */
#define IP_BYTES_MAX    ((uint64_t)1 << 50)     /* a size in a case: 1024 TiB */
#define IP_SEGSIZE_MAX  ((uint64_t)1 << 40)     /* segsize=: 1 TiB */
/* As the pathmap's (runtime/core/pathmap_algo.c, docs/pathmap.md). */
#define IP_SEGMENTS_MAX 16777216ll
#define IP_ROUND_MAX    1000000000ll            /* 1 s in ns */
#define IP_PPN_MAX      ((long long)RT_PATHMAP_HOSTS_MAX)
#define IP_TOKEN_MAX    64

typedef struct ip_case {
    uint64_t    lo, hi;          /* bytes, both inclusive */
    ip_choice_t choice;
} ip_case_t;

typedef struct ip_rule {
    ip_rule_coll_t coll;
    int32_t        np_lo, np_hi; /* communicator sizes, both inclusive */
    uint32_t       ncases;
    ip_case_t     *cases;
} ip_rule_t;

struct ip_rules {
    cm_arena_t *arena;           /* owns everything below */
    ip_rule_t  *rules;
    uint32_t    nrules;
    const char *normal;          /* the normalised text (ip_rules_normal) */
    uint64_t    hash;
};

/* While parsing: cases and rules as lists, made arrays at the end. */
typedef struct case_node {
    ip_case_t         c;
    struct case_node *next;
} case_node_t;

typedef struct rule_node {
    ip_rule_t         r;
    case_node_t      *cases, **cases_tail;
    struct rule_node *next;
} rule_node_t;

typedef struct parser {
    const char *text;
    size_t      pos;
    const char *origin;
    cm_arena_t *arena;
    cm_err_t   *err;
    bool        net_read;        /* net holds rt_auto_net_default's model */
    rt_net_t    net;             /* the auto cases' cost model, read once */
} parser_t;

/* The parameters a rule may give, in the order of the normal form. */
enum { K_SEGMENTS, K_SEGSIZE, K_ROUND, K_PPN, K_PORT, K_SHAPE, K_ARRIVAL, K_COUNT };
static const char *const key_names[K_COUNT] = {
    "segments", "segsize", "round", "ppn", "port", "shape", "arrival",
};

static const char *const coll_names[IP_RULE_NCOLL] = { "allreduce", "reduce", "bcast" };

const char *ip_rule_coll_name(ip_rule_coll_t coll)
{
    return coll < IP_RULE_NCOLL ? coll_names[coll] : "?";
}

/* ---- errors ------------------------------------------------------------ */

/* Fills p->err with the line and column of text offset `at`. */
static cm_status_t fail_at(const parser_t *p, size_t at, cm_status_t st, int src_line,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static cm_status_t fail_at(const parser_t *p, size_t at, cm_status_t st, int src_line,
                           const char *fmt, ...)
{
    char msg[CM_ERR_MSG_MAX];
    unsigned line = 1;
    size_t bol = 0;
    va_list ap;

    for (size_t i = 0; i < at; i++) {
        if (p->text[i] == '\n') {
            line++;
            bol = i + 1;
        }
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return cm_err_set(p->err, st, p->origin, line, (unsigned)(at - bol + 1), __FILE__,
                      src_line, "%s", msg);
}

#define FAIL(p, at, st, ...) fail_at((p), (at), (st), __LINE__, __VA_ARGS__)

/* ---- characters and tokens ---------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name(char c)
{
    return is_alnum(c) || c == '_' || c == '-';
}

/* A parameter's value ends at a space or at what structures a rule. */
static bool is_value(char c)
{
    return c != '\0' && !is_space(c) && strchr("()=,;#", c) == NULL;
}

static char peek(const parser_t *p)
{
    return p->text[p->pos];
}

/* Spaces, tabs, line breaks and '#' comments (to the end of the line). */
static void skip_space(parser_t *p)
{
    for (;;) {
        char c = peek(p);

        if (is_space(c)) {
            p->pos++;
        } else if (c == '#') {
            while (peek(p) != '\0' && peek(p) != '\n')
                p->pos++;
        } else {
            return;
        }
    }
}

/* Advances over characters for which `ok` holds; returns their number. */
static size_t scan(parser_t *p, bool (*ok)(char))
{
    size_t start = p->pos;

    while (peek(p) != '\0' && ok(peek(p)))
        p->pos++;
    return p->pos - start;
}

/* "the end", or what stands at offset `at`: a word, or one character. */
static const char *found(const parser_t *p, size_t at, char *buf, size_t size)
{
    size_t n = 0;

    if (p->text[at] == '\0')
        return "the end";
    while (is_name(p->text[at + n]) && n < 24)
        n++;
    /* Not a word: one character, all of its UTF-8 bytes. */
    if (n == 0)
        while (++n < 4 && ((unsigned char)p->text[at + n] & 0xc0) == 0x80)
            ;
    snprintf(buf, size, "'%.*s'", (int)n, p->text + at);
    return buf;
}

/* A token of at most IP_TOKEN_MAX - 1 bytes into buf (a longer one is cut:
   it matches no name and fails any number, which then quotes it cut). */
static void token(const parser_t *p, size_t at, size_t len, char *buf)
{
    if (len >= IP_TOKEN_MAX)
        len = IP_TOKEN_MAX - 1;
    memcpy(buf, p->text + at, len);
    buf[len] = '\0';
}

/* ---- sizes and numbers ---------------------------------------------------- */

/* A size's characters: a value's, less what separates sizes in a case. */
static bool is_size(char c)
{
    return is_value(c) && strchr("-<>*", c) == NULL;
}

/* `text` (found at offset at) as a byte size, as cm_opt reads one (4096,
   64K, 1MiB), within lo..hi; `opt` names it in the message, or NULL. */
static cm_status_t size_text(const parser_t *p, size_t at, const char *text, const char *opt,
                             uint64_t lo, uint64_t hi, uint64_t *v_p)
{
    cm_opt_t ctx;

    cm_opt_init(&ctx, "");
    if (cm_opt_size(&ctx, opt, text, lo, hi, v_p) != CM_OK)
        return FAIL(p, at, ctx.status, "%s", ctx.msg);
    return CM_OK;
}

/* A size in a case, at p->pos; `what` says what was expected. */
static cm_status_t size_at(parser_t *p, const char *what, uint64_t *v_p)
{
    size_t at = p->pos, len = scan(p, is_size);
    char tok[IP_TOKEN_MAX], where[32];

    if (len == 0)
        return FAIL(p, at, CM_ERR_SYNTAX, "expected %s, found %s", what,
                    found(p, at, where, sizeof(where)));
    token(p, at, len, tok);
    return size_text(p, at, tok, NULL, 0, IP_BYTES_MAX, v_p);
}

/* Decimal digits as an integer; v_p gets lo - 1 .. hi + 1 clamped, so that
   a caller can tell "out of range". Returns false if there are no digits. */
static bool number(const char *s, size_t len, long long hi, long long *v_p)
{
    long long v = 0;

    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(s[i]))
            return false;
        if (v <= hi)
            v = v * 10 + (s[i] - '0');
    }
    *v_p = v;
    return true;
}

/* ---- the communicator sizes after '@' --------------------------------- */

static cm_status_t np_number(parser_t *p, long long *v_p)
{
    size_t at = p->pos, len = scan(p, is_digit);
    char where[32];

    if (!number(p->text + at, len, IP_NP_MAX, v_p))
        return FAIL(p, at, CM_ERR_SYNTAX, "expected a communicator size, found %s",
                    found(p, at, where, sizeof(where)));
    if (*v_p < 1 || *v_p > IP_NP_MAX)
        return FAIL(p, at, CM_ERR_RANGE,
                    "communicator size '%.*s' is out of range (1..2147483647)", (int)len,
                    p->text + at);
    return CM_OK;
}

/* NP := N | N-M | N- | -M, at p->pos (just after '@'). */
static cm_status_t parse_np(parser_t *p, ip_rule_t *r)
{
    long long lo = 1, hi = IP_NP_MAX;
    size_t at;
    char where[32];
    cm_status_t st;

    skip_space(p);
    at = p->pos;
    if (peek(p) == '-') {
        p->pos++;
        skip_space(p);
        if ((st = np_number(p, &hi)) != CM_OK)
            return st;
    } else if (is_digit(peek(p))) {
        if ((st = np_number(p, &lo)) != CM_OK)
            return st;
        skip_space(p);
        if (peek(p) != '-') {
            hi = lo;
        } else {
            p->pos++;
            skip_space(p);
            if (is_digit(peek(p)) && (st = np_number(p, &hi)) != CM_OK)
                return st;
        }
    } else {
        return FAIL(p, at, CM_ERR_SYNTAX,
                    "expected communicator sizes after '@' (N, N-M, N- or -M), found %s",
                    found(p, at, where, sizeof(where)));
    }
    if (lo > hi)
        return FAIL(p, at, CM_ERR_RANGE,
                    "empty range of communicator sizes %lld-%lld (the first must not "
                    "exceed the second)", lo, hi);
    r->np_lo = (int32_t)lo;
    r->np_hi = (int32_t)hi;
    return CM_OK;
}

/* ---- SIZE ------------------------------------------------------------------ */

/* '<' B, '<=' B, '>' B or '>=' B, at p->pos (on the '<' or '>'). */
static cm_status_t parse_compare(parser_t *p, ip_case_t *c)
{
    size_t at = p->pos;
    char op = peek(p);
    bool eq;
    uint64_t b;
    cm_status_t st;

    p->pos++;
    eq = peek(p) == '=';
    p->pos += eq;
    skip_space(p);
    st = size_at(p, eq ? (op == '<' ? "a size in bytes after '<='" : "a size in bytes after '>='")
                       : (op == '<' ? "a size in bytes after '<'" : "a size in bytes after '>'"),
                 &b);
    if (st != CM_OK)
        return st;
    if (op == '<' && !eq && b == 0)
        return FAIL(p, at, CM_ERR_RANGE, "'<0' holds no size (sizes are 0 bytes or more)");
    c->lo = op == '<' ? 0 : eq ? b : b + 1;
    c->hi = op == '>' ? UINT64_MAX : eq ? b : b - 1;
    return CM_OK;
}

/* SIZE := '*' | '<' B | '<=' B | '>' B | '>=' B | B '-' B | B. */
static cm_status_t parse_size(parser_t *p, ip_case_t *c)
{
    size_t at = p->pos;
    uint64_t a, b;
    char where[32];
    cm_status_t st;

    if (peek(p) == '*') {
        p->pos++;
        c->lo = 0;
        c->hi = UINT64_MAX;
        return CM_OK;
    }
    if (peek(p) == '<' || peek(p) == '>')
        return parse_compare(p, c);
    if (!is_digit(peek(p)))
        return FAIL(p, at, CM_ERR_SYNTAX,
                    "expected a size condition (*, <B, <=B, >B, >=B, B-B or B, in bytes), "
                    "found %s", found(p, at, where, sizeof(where)));
    if ((st = size_at(p, "a size in bytes", &a)) != CM_OK)
        return st;
    skip_space(p);
    b = a;
    if (peek(p) == '-') {
        p->pos++;
        skip_space(p);
        if ((st = size_at(p, "a size in bytes after '-'", &b)) != CM_OK)
            return st;
        if (a > b)
            return FAIL(p, at, CM_ERR_RANGE,
                        "empty size range %.*s (the first must not exceed the second)",
                        (int)(p->pos - at), p->text + at);
    }
    c->lo = a;
    c->hi = b;
    return CM_OK;
}

/* ---- ALGO: names ---------------------------------------------------------- */

/* "binomial" for binomial-reduce and binomial-bcast: a rule's short name. */
static size_t short_len(const rt_algo_info_t *a)
{
    size_t n = strlen(a->name);
    const char *suffix = a->coll == RT_COLL_REDUCE ? "-reduce"
                         : a->coll == RT_COLL_BCAST ? "-bcast" : "";
    size_t k = strlen(suffix);

    return k > 0 && n > k && strcmp(a->name + n - k, suffix) == 0 ? n - k : n;
}

/* "binomial, chain, ... or clv": the short names of `coll`'s rows; with
   native first when `native`. */
static void names_of(rt_coll_t coll, bool native, char *buf, size_t size)
{
    size_t n, len = 0, total = native, k = 0;
    const rt_algo_info_t *t = rt_algo_table(&n);

    for (size_t i = 0; i < n; i++)
        total += t[i].coll == coll;
    buf[0] = '\0';
    if (native) {
        len = (size_t)snprintf(buf, size, "native");
        k = 1;
    }
    for (size_t i = 0; i < n && len < size; i++) {
        if (t[i].coll != coll)
            continue;
        k++;
        len += (size_t)snprintf(buf + len, size - len, "%s%.*s",
                                k == 1 ? "" : k == total ? " or " : ", ", (int)short_len(&t[i]),
                                t[i].name);
    }
}

/* What a rule for `coll` accepts, for "unknown algorithm" messages. */
static void names_for(ip_rule_coll_t coll, char *buf, size_t size)
{
    char red[160], bc[64], all[160];

    if (coll == IP_RULE_REDUCE) {
        names_of(RT_COLL_REDUCE, true, buf, size);
    } else if (coll == IP_RULE_BCAST) {
        names_of(RT_COLL_BCAST, true, buf, size);
    } else {
        names_of(RT_COLL_ALLREDUCE, false, all, sizeof(all));
        names_of(RT_COLL_REDUCE, false, red, sizeof(red));
        names_of(RT_COLL_BCAST, false, bc, sizeof(bc));
        snprintf(buf, size, "native, auto, %s, or REDUCE+BCAST with REDUCE %s and BCAST %s", all,
                 red, bc);
    }
}

static const char *coll_noun(rt_coll_t coll)
{
    return coll == RT_COLL_ALLREDUCE ? "an allreduce" : coll == RT_COLL_REDUCE ? "a reduce"
                                                                                : "a broadcast";
}

/* The row called `name`, or `name` + "-reduce" / "-bcast" for `coll`. */
static const rt_algo_info_t *lookup(const char *name, rt_coll_t coll)
{
    const rt_algo_info_t *a = rt_algo_find(name);
    char full[IP_TOKEN_MAX + 8];

    if (a != NULL || coll == RT_COLL_ALLREDUCE)
        return a;
    snprintf(full, sizeof(full), "%s%s", name, coll == RT_COLL_REDUCE ? "-reduce" : "-bcast");
    return rt_algo_find(full);
}

/* The tokens of one ALGO, as written. */
typedef struct algo_toks {
    size_t name_at, name_len;
    size_t plus_at, bc_at, bc_len;   /* plus_at == 0: no '+' */
    bool   plus;
} algo_toks_t;

/* NAME [ '+' BCAST ] of a rule for `coll` into spec. */
static cm_status_t resolve(const parser_t *p, ip_rule_coll_t coll, const algo_toks_t *t,
                           rt_algo_spec_t *spec)
{
    static const rt_coll_t want[IP_RULE_NCOLL] = { RT_COLL_ALLREDUCE, RT_COLL_REDUCE,
                                                   RT_COLL_BCAST };
    char name[IP_TOKEN_MAX], bc[IP_TOKEN_MAX], names[512];
    const rt_algo_info_t *a;

    token(p, t->name_at, t->name_len, name);
    if (strcmp(name, "native") == 0) {
        if (t->plus)
            return FAIL(p, t->plus_at, CM_ERR_INVALID,
                        "native is Open MPI's own %s: it takes no '+' broadcast",
                        coll_names[coll]);
        spec->native = 1;
        return CM_OK;
    }
    /* Before a '+', an allreduce rule names a reduce (short names too). */
    a = lookup(name, coll == IP_RULE_ALLREDUCE && t->plus ? RT_COLL_REDUCE : want[coll]);
    if (a == NULL && coll == IP_RULE_ALLREDUCE)
        a = lookup(name, RT_COLL_REDUCE);
    names_for(coll, names, sizeof(names));
    if (a == NULL)
        return FAIL(p, t->name_at, CM_ERR_NAME, "unknown algorithm '%s' for %s (expected %s)",
                    name, coll_names[coll], names);
    if (coll != IP_RULE_ALLREDUCE || a->coll == RT_COLL_BCAST) {
        if (a->coll != want[coll])
            return FAIL(p, t->name_at, CM_ERR_INVALID,
                        "'%s' is %s; a rule for %s takes %s", a->name, coll_noun(a->coll),
                        coll_names[coll], names);
        if (t->plus)
            return FAIL(p, t->plus_at, CM_ERR_INVALID,
                        "'+' completes a reduce into an allreduce; a rule for %s takes "
                        "one algorithm", coll_names[coll]);
        spec->run = a;
        return CM_OK;
    }
    if (a->coll == RT_COLL_ALLREDUCE) {
        if (t->plus)
            return FAIL(p, t->plus_at, CM_ERR_INVALID,
                        "'+' completes a reduce into an allreduce; '%s' is an allreduce",
                        a->name);
        spec->run = a;
        return CM_OK;
    }
    if (!t->plus)
        return FAIL(p, t->name_at, CM_ERR_INVALID,
                    "'%s' is a reduce: an allreduce needs a broadcast after it, e.g. "
                    "%.*s+binomial", a->name, (int)short_len(a), a->name);
    token(p, t->bc_at, t->bc_len, bc);
    spec->run = a;
    spec->bcast = lookup(bc, RT_COLL_BCAST);
    names_of(RT_COLL_BCAST, false, names, sizeof(names));
    if (spec->bcast == NULL)
        return FAIL(p, t->bc_at, CM_ERR_NAME, "unknown broadcast '%s' (expected %s)", bc,
                    names);
    if (spec->bcast->coll != RT_COLL_BCAST)
        return FAIL(p, t->bc_at, CM_ERR_INVALID, "'%s' is %s, not a broadcast (expected %s)",
                    spec->bcast->name, coll_noun(spec->bcast->coll), names);
    return CM_OK;
}

/* ---- ALGO: parameters ----------------------------------------------------- */

/* "segments, segsize, round" (the keys spec reads, root left out) or "". */
static void taken(const rt_algo_spec_t *spec, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int k = 0; k < K_COUNT && len < size; k++) {
        if (rt_algo_takes(spec, key_names[k]))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                    key_names[k]);
    }
}

/* A number in lo..hi for key=, as the pathmap words it. */
static cm_status_t param_number(const parser_t *p, size_t at, const char *key,
                                const char *val, long long lo, long long hi, long long *v_p)
{
    if (!number(val, strlen(val), hi, v_p))
        return FAIL(p, at, CM_ERR_SYNTAX,
                    "invalid value '%s' for %s= (expected a number in %lld..%lld)", val, key,
                    lo, hi);
    if (*v_p < lo || *v_p > hi)
        return FAIL(p, at, CM_ERR_RANGE, "%s=%s is out of range (%lld..%lld)", key, val, lo,
                    hi);
    return CM_OK;
}

/* round=: nanoseconds, or a number with a unit (ns, us, ms, s). */
static cm_status_t param_round(const parser_t *p, size_t at, const char *val, int64_t *ns_p)
{
    static const struct { const char *unit; long long ns; } units[] = {
        { "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
    };
    size_t digits = strspn(val, "0123456789");
    long long v = 0;

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (digits == 0 || strcmp(val + digits, units[i].unit) != 0)
            continue;
        number(val, digits, IP_ROUND_MAX, &v);
        if (v < 1 || v > IP_ROUND_MAX / units[i].ns)
            return FAIL(p, at, CM_ERR_RANGE,
                        "round=%s is out of range (1..1000000000 ns, at most 1 s)", val);
        *ns_p = v * units[i].ns;
        return CM_OK;
    }
    return FAIL(p, at, CM_ERR_SYNTAX,
                "invalid value '%s' for round= (expected nanoseconds in 1..1000000000, or "
                "a number with a unit: 5us, 2ms, 1s)", val);
}

/* One of two words for key=; *which_p is 0 or 1. */
static cm_status_t param_word(const parser_t *p, size_t at, const char *key, const char *val,
                              const char *what, const char *w0, const char *w1, int *which_p)
{
    if (strcmp(val, w0) == 0 || strcmp(val, w1) == 0) {
        *which_p = strcmp(val, w1) == 0;
        return CM_OK;
    }
    return FAIL(p, at, CM_ERR_SYNTAX, "unknown %s '%s' for %s= (expected %s or %s)", what,
                val, key, w0, w1);
}

/* The value of parameter k (taken by the algorithm) into the choice. */
static cm_status_t param_value(const parser_t *p, int k, size_t at, const char *val,
                               ip_choice_t *ch)
{
    rt_algo_spec_t *spec = &ch->spec;
    long long v = 0;
    uint64_t z = 0;
    int w = 0;
    cm_status_t st = CM_OK;

    switch (k) {
    case K_SEGMENTS:
        if ((st = param_number(p, at, "segments", val, 1, IP_SEGMENTS_MAX, &v)) == CM_OK)
            spec->nsegs = (int32_t)v;
        return st;
    case K_SEGSIZE:
        if ((st = size_text(p, at, val, "segsize", 1, IP_SEGSIZE_MAX, &z)) == CM_OK)
            ch->segsize_bytes = (int64_t)z;
        return st;
    case K_ROUND:
        return param_round(p, at, val, &spec->round_ns);
    case K_PPN:
        if ((st = param_number(p, at, "ppn", val, 2, IP_PPN_MAX, &v)) == CM_OK)
            spec->ppn = (int32_t)v;
        return st;
    case K_PORT:
        if ((st = param_word(p, at, "port", val, "port model", "u", "b", &w)) != CM_OK)
            return st;
        spec->port = w ? RT_PORT_B : RT_PORT_U;
        if (w && spec->run != NULL && strcmp(spec->run->name, "greedy-reduce") == 0)
            return FAIL(p, at, CM_ERR_UNSUPPORTED, "greedy-reduce supports port=u only (its "
                        "bidirectional rule is not published)");
        return CM_OK;
    case K_SHAPE:
        if ((st = param_word(p, at, "shape", val, "tree shape", "heap", "ompi", &w)) == CM_OK)
            spec->shape = w ? RT_TREE_OMPI : RT_TREE_HEAP;
        return st;
    default:
        if (strcmp(val, "edge") == 0)
            return FAIL(p, at, CM_ERR_UNSUPPORTED,
                        "arrival=edge needs the program's edge() calls, which an unmodified "
                        "program does not make (expected equal or history)");
        if ((st = param_word(p, at, "arrival", val, "arrival source", "equal", "history",
                             &w)) == CM_OK)
            spec->arrival = w ? RT_ARRIVAL_HISTORY : RT_ARRIVAL_EQUAL;
        return st;
    }
}

/* KEY=VALUE, checked against what the algorithm takes; `seen` bits per key. */
static cm_status_t param(parser_t *p, ip_choice_t *ch, unsigned *seen)
{
    size_t key_at = p->pos, key_len = scan(p, is_name), val_at;
    char key[IP_TOKEN_MAX], val[IP_TOKEN_MAX], where[32], list[128];
    const rt_algo_spec_t *spec = &ch->spec;
    int k;

    if (key_len == 0)
        return FAIL(p, key_at, CM_ERR_SYNTAX, "expected a parameter KEY=VALUE or ')', found %s",
                    found(p, key_at, where, sizeof(where)));
    token(p, key_at, key_len, key);
    skip_space(p);
    if (peek(p) != '=')
        return FAIL(p, p->pos, CM_ERR_SYNTAX, "expected '=' after '%s', found %s", key,
                    found(p, p->pos, where, sizeof(where)));
    p->pos++;
    skip_space(p);
    val_at = p->pos;
    token(p, val_at, scan(p, is_value), val);
    if (strcmp(key, "root") == 0)
        return FAIL(p, key_at, CM_ERR_INVALID,
                    "root= is not a rule parameter: the call gives the root");
    for (k = 0; k < K_COUNT && strcmp(key, key_names[k]) != 0; k++)
        ;
    if (k == K_COUNT)
        return FAIL(p, key_at, CM_ERR_NAME,
                    "unknown parameter '%s' (expected segments, segsize, round, ppn, port, "
                    "shape or arrival)", key);
    if (!rt_algo_takes(spec, key)) {
        taken(spec, list, sizeof(list));
        if (spec->native)
            return FAIL(p, key_at, CM_ERR_SYNTAX, "native takes no parameter '%s'", key);
        if (spec->bcast != NULL)
            return FAIL(p, key_at, CM_ERR_SYNTAX,
                        "algorithms '%s' and '%s' take no parameter '%s' (they take: %s)",
                        spec->run->name, spec->bcast->name, key, list);
        return FAIL(p, key_at, CM_ERR_SYNTAX, "algorithm '%s' takes no parameter '%s' (it "
                    "takes%s%s)", spec->run->name, key, list[0] ? ": " : " none", list);
    }
    if (*seen & (1u << k))
        return FAIL(p, key_at, CM_ERR_SYNTAX, "parameter '%s' given twice", key);
    if ((k == K_SEGMENTS && (*seen & (1u << K_SEGSIZE))) ||
        (k == K_SEGSIZE && (*seen & (1u << K_SEGMENTS))))
        return FAIL(p, key_at, CM_ERR_SYNTAX, "give segments= or segsize=, not both");
    *seen |= 1u << k;
    if (val[0] == '\0')
        return FAIL(p, val_at, CM_ERR_SYNTAX, "expected a value for %s=, found %s", key,
                    found(p, val_at, where, sizeof(where)));
    return param_value(p, k, val_at, val, ch);
}

/* '(' KEY=VALUE { ' ' KEY=VALUE } ')', at p->pos (on the '('). */
static cm_status_t params(parser_t *p, ip_choice_t *ch)
{
    size_t open_at = p->pos;
    unsigned seen = 0;
    cm_status_t st;

    p->pos++;
    for (;;) {
        skip_space(p);
        if (peek(p) == ',') {           /* commas between parameters are allowed too */
            p->pos++;
            continue;
        }
        if (peek(p) == ')') {
            p->pos++;
            return CM_OK;
        }
        if (peek(p) == '\0')
            return FAIL(p, open_at, CM_ERR_SYNTAX, "missing ')' for this '('");
        if ((st = param(p, ch, &seen)) != CM_OK)
            return st;
    }
}

/* What the generators need that has no default (as the pathmap's). */
static cm_status_t required(const parser_t *p, const algo_toks_t *t, const ip_choice_t *ch)
{
    rt_algo_spec_t run_only = { .run = ch->spec.run };

    if (ch->spec.run == NULL)
        return CM_OK;
    if (rt_algo_takes(&run_only, "segsize") && !rt_algo_takes(&run_only, "segments") &&
        ch->segsize_bytes == 0)
        return FAIL(p, t->name_at, CM_ERR_SYNTAX,
                    "algorithm '%s' needs segsize=B (the segment size in bytes)",
                    ch->spec.run->name);
    if (rt_algo_takes(&run_only, "ppn") && ch->spec.ppn == 0)
        return FAIL(p, t->name_at, CM_ERR_SYNTAX,
                    "algorithm '%s' needs ppn=N (processes per node: at least 2, dividing "
                    "the communicator size)", ch->spec.run->name);
    return CM_OK;
}

/* "prr(arrival=history round=5000)": the ALGO as written, spaces normalised. */
static cm_status_t choice_text(parser_t *p, const algo_toks_t *t, size_t open_at, size_t end,
                               ip_choice_t *ch)
{
    size_t cap = (end - t->name_at) + 4, len = 0;
    char *s = cm_arena_alloc(p->arena, cap);
    bool space = false;

    if (s == NULL)
        return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
    len += (size_t)snprintf(s, cap, "%.*s", (int)t->name_len, p->text + t->name_at);
    if (t->plus)
        len += (size_t)snprintf(s + len, cap - len, "+%.*s", (int)t->bc_len, p->text + t->bc_at);
    for (size_t i = open_at; open_at != 0 && i < end && len + 1 < cap; i++) {
        char c = p->text[i];

        if (c == '#') {                 /* a comment inside the parentheses */
            while (i + 1 < end && p->text[i + 1] != '\n')
                i++;
            continue;
        }
        if (is_space(c) || c == ',') {
            space = len > 0 && s[len - 1] != '(';
            continue;
        }
        if (space && c != ')' && c != '=' && s[len - 1] != '=')
            s[len++] = ' ';
        space = false;
        s[len++] = c;
    }
    s[len] = '\0';
    ch->text = s;
    return CM_OK;
}

/* ---- ALGO: auto ------------------------------------------------------------ */

/* What an auto case was given, for its text, its checks and normal form. */
typedef struct auto_given {
    unsigned seen;                   /* bits of AK_* */
    size_t   at[4];                  /* where each key stood */
} auto_given_t;

enum { AK_CANDIDATES, AK_SEGSIZE, AK_ROUND, AK_ARRIVAL, AK_COUNT };
static const char *const auto_keys[AK_COUNT] = { "candidates", "segsize", "round", "arrival" };

/* The candidate `name` of the table (an allreduce) or native; NULL if none. */
static const char *auto_cand(const char *name)
{
    const rt_algo_info_t *a;

    if (strcmp(name, RT_AUTO_NATIVE) == 0)
        return RT_AUTO_NATIVE;
    a = rt_algo_find(name);
    return a != NULL && a->coll == RT_COLL_ALLREDUCE ? a->name : NULL;
}

/* The table's allreduces that need what auto does not give them. */
static bool auto_refused(const char *name)
{
    return strcmp(name, "nap") == 0 || strcmp(name, "ring-seg") == 0;
}

/* 1 if one of cfg's candidates reads parameter `key`. */
static int auto_takes(const rt_auto_cfg_t *cfg, const char *key)
{
    for (uint32_t i = 0; i < cfg->ncand; i++) {
        rt_algo_spec_t one = { .run = rt_algo_find(cfg->cand[i]) };

        if (one.run != NULL && rt_algo_takes(&one, key))
            return 1;
    }
    return 0;
}

/* "rd, ring and native": cfg's candidates, for messages. */
static void auto_list(const rt_auto_cfg_t *cfg, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < cfg->ncand && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                i == 0 ? "" : i + 1 == cfg->ncand ? " and " : ", ",
                                cfg->cand[i]);
}

/* "native, ring, rd, ... or prr": what may be a candidate (the table's
   allreduces but those that need a parameter auto does not give). */
static void auto_names(char *buf, size_t size)
{
    size_t n, len, total = 1, k = 1;
    const rt_algo_info_t *t = rt_algo_table(&n);

    for (size_t i = 0; i < n; i++)
        total += t[i].coll == RT_COLL_ALLREDUCE && !auto_refused(t[i].name);
    len = (size_t)snprintf(buf, size, "native");
    for (size_t i = 0; i < n && len < size; i++) {
        if (t[i].coll != RT_COLL_ALLREDUCE || auto_refused(t[i].name))
            continue;
        k++;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", k == total ? " or " : ", ",
                                t[i].name);
    }
}

/* Whether the ',' at p->pos continues a candidate list: a word follows it
   that is not a KEY= (spaces and comments may stand between). */
static bool list_goes_on(const parser_t *p)
{
    parser_t q = *p;

    q.pos++;
    skip_space(&q);
    if (scan(&q, is_name) == 0)
        return false;
    skip_space(&q);
    return peek(&q) != '=';
}

/* candidates=NAME { ',' NAME }, at p->pos (on the first name). */
static cm_status_t auto_candidates(parser_t *p, rt_auto_cfg_t *cfg)
{
    char name[IP_TOKEN_MAX], where[32], names[256], list[256];
    size_t len = 0;

    list[0] = '\0';
    cfg->ncand = 0;
    for (;;) {
        size_t at = p->pos, n = scan(p, is_name);
        const char *cand;

        if (n == 0)
            return FAIL(p, at, CM_ERR_SYNTAX, "expected a candidate algorithm, found %s",
                        found(p, at, where, sizeof(where)));
        token(p, at, n, name);
        if ((cand = auto_cand(name)) == NULL) {
            auto_names(names, sizeof(names));
            return FAIL(p, at, CM_ERR_NAME, "unknown candidate '%s' for auto (expected %s)",
                        name, names);
        }
        if (auto_refused(cand))
            return FAIL(p, at, CM_ERR_INVALID,
                        "'%s' cannot be a candidate of auto: it needs %s, which auto does not "
                        "give its candidates", cand, cand[0] == 'n' ? "ppn=" : "segsize=");
        for (uint32_t i = 0; i < cfg->ncand; i++)
            if (strcmp(cfg->cand[i], cand) == 0)
                return FAIL(p, at, CM_ERR_INVALID, "candidate '%s' given twice", cand);
        if (cfg->ncand == RT_AUTO_CAND_MAX)
            return FAIL(p, at, CM_ERR_RANGE, "too many candidates (at most %d)",
                        RT_AUTO_CAND_MAX);
        cfg->cand[cfg->ncand++] = cand;
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? "," : "", cand);
        skip_space(p);
        if (peek(p) != ',' || !list_goes_on(p))
            break;
        p->pos++;
        skip_space(p);
    }
    /* The chooser's own parse, of names it is known to take. */
    return rt_auto_cfg_candidates(cfg, list, p->err);
}

/* One KEY=VALUE of auto's, at p->pos. */
static cm_status_t auto_param(parser_t *p, ip_choice_t *ch, rt_auto_cfg_t *cfg,
                              auto_given_t *g)
{
    size_t key_at = p->pos, key_len = scan(p, is_name), val_at;
    char key[IP_TOKEN_MAX], val[IP_TOKEN_MAX], where[32];
    int k, known;
    cm_status_t st;

    if (key_len == 0)
        return FAIL(p, key_at, CM_ERR_SYNTAX, "expected a parameter KEY=VALUE or ')', found %s",
                    found(p, key_at, where, sizeof(where)));
    token(p, key_at, key_len, key);
    skip_space(p);
    if (peek(p) != '=')
        return FAIL(p, p->pos, CM_ERR_SYNTAX, "expected '=' after '%s', found %s", key,
                    found(p, p->pos, where, sizeof(where)));
    p->pos++;
    skip_space(p);
    val_at = p->pos;
    if (strcmp(key, "root") == 0)
        return FAIL(p, key_at, CM_ERR_INVALID,
                    "root= is not a rule parameter: the call gives the root");
    for (k = 0; k < AK_COUNT && strcmp(key, auto_keys[k]) != 0; k++)
        ;
    for (known = 0; known < K_COUNT && strcmp(key, key_names[known]) != 0; known++)
        ;
    if (k == AK_COUNT && known < K_COUNT)
        return FAIL(p, key_at, CM_ERR_SYNTAX, "auto takes no parameter '%s' (it takes: "
                    "candidates, arrival, and round and segsize for its candidates)", key);
    if (k == AK_COUNT)
        return FAIL(p, key_at, CM_ERR_NAME, "unknown parameter '%s' (expected candidates, "
                    "arrival, round or segsize)", key);
    if (g->seen & (1u << k))
        return FAIL(p, key_at, CM_ERR_SYNTAX, "parameter '%s' given twice", key);
    g->seen |= 1u << k;
    g->at[k] = key_at;
    if (k == AK_CANDIDATES)
        return auto_candidates(p, cfg);
    token(p, val_at, scan(p, is_value), val);
    if (val[0] == '\0')
        return FAIL(p, val_at, CM_ERR_SYNTAX, "expected a value for %s=, found %s", key,
                    found(p, val_at, where, sizeof(where)));
    if ((st = param_value(p, known, val_at, val, ch)) != CM_OK)
        return st;
    cfg->round_ns = ch->spec.round_ns;
    return CM_OK;
}

/* round= and segsize= must be read by a candidate (checked once the
   candidates are known: they may come after). */
static cm_status_t auto_check(const parser_t *p, const rt_auto_cfg_t *cfg,
                              const auto_given_t *g)
{
    char list[256];

    auto_list(cfg, list, sizeof(list));
    for (int k = AK_SEGSIZE; k <= AK_ROUND; k++)
        if ((g->seen & (1u << k)) && !auto_takes(cfg, auto_keys[k]))
            return FAIL(p, g->at[k], CM_ERR_SYNTAX,
                        "none of auto's candidates (%s) takes parameter '%s'", list,
                        auto_keys[k]);
    return CM_OK;
}

/* "auto(candidates=ring,prr arrival=history round=5000)": what was given. */
static cm_status_t auto_text(parser_t *p, const ip_choice_t *ch, const auto_given_t *g,
                             const char **text_p)
{
    const rt_auto_cfg_t *cfg = ch->spec.autocfg;
    char buf[512];
    size_t len = (size_t)snprintf(buf, sizeof(buf), "auto");
    const char *sep = "(";

    if (g->seen & (1u << AK_CANDIDATES)) {
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%scandidates=", sep);
        for (uint32_t i = 0; i < cfg->ncand; i++)
            len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "",
                                    cfg->cand[i]);
        sep = " ";
    }
    if (g->seen & (1u << AK_ARRIVAL)) {
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%sarrival=%s", sep,
                                rt_arrival_name(ch->spec.arrival));
        sep = " ";
    }
    if (g->seen & (1u << AK_ROUND)) {
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%sround=%lld", sep,
                                (long long)ch->spec.round_ns);
        sep = " ";
    }
    if (g->seen & (1u << AK_SEGSIZE))
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%ssegsize=%lld", sep,
                                (long long)ch->segsize_bytes);
    if (g->seen != 0 && len + 1 < sizeof(buf))
        buf[len++] = ')';
    buf[len < sizeof(buf) ? len : sizeof(buf) - 1] = '\0';
    if ((*text_p = cm_arena_strndup(p->arena, buf, strlen(buf))) == NULL)
        return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
    return CM_OK;
}

/* auto [ '(' KEY=VALUE ... ')' ], p->pos just after "auto" and its spaces. */
static cm_status_t parse_auto(parser_t *p, ip_rule_coll_t coll, const algo_toks_t *t,
                              ip_choice_t *ch)
{
    rt_auto_cfg_t *cfg;
    auto_given_t g = { 0 };
    size_t open_at;
    cm_status_t st;

    if (coll != IP_RULE_ALLREDUCE)
        return FAIL(p, t->name_at, CM_ERR_INVALID,
                    "auto chooses among allreduce algorithms; a rule for %s cannot take it",
                    coll_names[coll]);
    if (t->plus)
        return FAIL(p, t->plus_at, CM_ERR_INVALID,
                    "auto chooses whole allreduce algorithms: it takes no '+' broadcast");
    if ((cfg = cm_arena_alloc(p->arena, sizeof(*cfg))) == NULL)
        return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
    rt_auto_cfg_default(cfg);
    if (!p->net_read) {
        if ((st = rt_auto_net_default(&p->net, p->err)) != CM_OK)
            return st;
        p->net_read = true;
    }
    cfg->net = p->net;
    cfg->round_ns = ch->spec.round_ns;
    cfg->segcount = 0;                 /* segsize= is in bytes: made elements per call */
    ch->spec.autocfg = cfg;
    ch->spec.pap = 1;
    if (peek(p) == '(') {
        open_at = p->pos++;
        for (;;) {
            skip_space(p);
            if (peek(p) == ',') {
                p->pos++;
                continue;
            }
            if (peek(p) == ')') {
                p->pos++;
                break;
            }
            if (peek(p) == '\0')
                return FAIL(p, open_at, CM_ERR_SYNTAX, "missing ')' for this '('");
            if ((st = auto_param(p, ch, cfg, &g)) != CM_OK)
                return st;
        }
    }
    if ((st = auto_check(p, cfg, &g)) != CM_OK)
        return st;
    return auto_text(p, ch, &g, &ch->text);
}

/* ALGO := native | NAME [ '+' BCAST ] [ '(' KEY=VALUE { ' ' KEY=VALUE } ')' ]. */
static cm_status_t parse_algo(parser_t *p, ip_rule_coll_t coll, ip_choice_t *ch)
{
    algo_toks_t t = { 0 };
    size_t open_at = 0;
    char where[32];
    cm_status_t st;

    skip_space(p);
    t.name_at = p->pos;
    if ((t.name_len = scan(p, is_name)) == 0)
        return FAIL(p, t.name_at, CM_ERR_SYNTAX, "expected an algorithm after '=', found %s",
                    found(p, t.name_at, where, sizeof(where)));
    skip_space(p);
    if (peek(p) == '+') {
        t.plus = true;
        t.plus_at = p->pos++;
        skip_space(p);
        t.bc_at = p->pos;
        if ((t.bc_len = scan(p, is_name)) == 0)
            return FAIL(p, t.bc_at, CM_ERR_SYNTAX, "expected a broadcast after '+', found %s",
                        found(p, t.bc_at, where, sizeof(where)));
        skip_space(p);
    }
    memset(&ch->spec, 0, sizeof(ch->spec));
    ch->spec.round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    ch->spec.port = RT_PORT_U;
    ch->spec.shape = RT_TREE_HEAP;
    ch->spec.arrival = RT_ARRIVAL_EQUAL;
    ch->segsize_bytes = 0;
    if (t.name_len == 4 && strncmp(p->text + t.name_at, "auto", 4) == 0)
        return parse_auto(p, coll, &t, ch);
    if ((st = resolve(p, coll, &t, &ch->spec)) != CM_OK)
        return st;
    if (peek(p) == '(') {
        open_at = p->pos;
        if ((st = params(p, ch)) != CM_OK)
            return st;
    }
    if ((st = required(p, &t, ch)) != CM_OK)
        return st;
    ch->spec.pap = rt_algo_takes(&ch->spec, "arrival");
    return choice_text(p, &t, open_at, p->pos, ch);
}

/* ---- RULE and RULES ------------------------------------------------------- */

static cm_status_t parse_case(parser_t *p, ip_rule_coll_t coll, ip_case_t *c)
{
    char where[32];
    cm_status_t st;

    if ((st = parse_size(p, c)) != CM_OK)
        return st;
    skip_space(p);
    if (peek(p) != '=')
        return FAIL(p, p->pos, CM_ERR_SYNTAX, "expected '=' and an algorithm after the size, "
                    "found %s", found(p, p->pos, where, sizeof(where)));
    p->pos++;
    return parse_algo(p, coll, &c->choice);
}

/* COLL [ '@' NP ] ':', at p->pos (on the collective's first letter). */
static cm_status_t parse_head(parser_t *p, ip_rule_t *r)
{
    size_t at = p->pos, len = scan(p, is_name);
    char name[IP_TOKEN_MAX], where[32];
    int c;
    cm_status_t st;

    token(p, at, len, name);
    if (len == 0)
        return FAIL(p, at, CM_ERR_SYNTAX,
                    "expected a collective (allreduce, reduce or bcast), found %s",
                    found(p, at, where, sizeof(where)));
    for (c = 0; c < IP_RULE_NCOLL && strcmp(name, coll_names[c]) != 0; c++)
        ;
    if (c == IP_RULE_NCOLL)
        return FAIL(p, at, CM_ERR_NAME,
                    "unknown collective '%s' (expected allreduce, reduce or bcast)", name);
    r->coll = (ip_rule_coll_t)c;
    r->np_lo = 1;
    r->np_hi = (int32_t)IP_NP_MAX;
    skip_space(p);
    if (peek(p) == '@') {
        p->pos++;
        if ((st = parse_np(p, r)) != CM_OK)
            return st;
        skip_space(p);
    }
    if (peek(p) != ':')
        return FAIL(p, p->pos, CM_ERR_SYNTAX, "expected ':' and the cases of the %s rule, "
                    "found %s", name, found(p, p->pos, where, sizeof(where)));
    p->pos++;
    return CM_OK;
}

/* RULE := COLL [ '@' NP ] ':' CASE { ',' CASE }, appended to *rn. */
static cm_status_t parse_rule(parser_t *p, rule_node_t *rn)
{
    char where[32];
    cm_status_t st;

    if ((st = parse_head(p, &rn->r)) != CM_OK)
        return st;
    for (;;) {
        case_node_t *cn;

        skip_space(p);
        if (peek(p) == '\0' || peek(p) == ';' || peek(p) == ',')
            return FAIL(p, p->pos, CM_ERR_SYNTAX, "expected a case SIZE=ALGO%s, found %s",
                        rn->r.ncases == 0 ? " (a rule has at least one)" : " after ','",
                        found(p, p->pos, where, sizeof(where)));
        if ((cn = cm_arena_alloc(p->arena, sizeof(*cn))) == NULL)
            return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
        if ((st = parse_case(p, rn->r.coll, &cn->c)) != CM_OK)
            return st;
        *rn->cases_tail = cn;
        rn->cases_tail = &cn->next;
        rn->r.ncases++;
        skip_space(p);
        if (peek(p) != ',')
            break;
        p->pos++;
    }
    if (peek(p) != '\0' && peek(p) != ';')
        return FAIL(p, p->pos, CM_ERR_SYNTAX,
                    "expected ',' and the next case, ';' and the next rule, or the end; "
                    "found %s", found(p, p->pos, where, sizeof(where)));
    return CM_OK;
}

/* ---- the normal form and the finished set ------------------------------ */

typedef struct strbuf {
    char  *s;
    size_t len, cap;
    bool   nomem;
} strbuf_t;

static void sb_add(strbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(strbuf_t *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->nomem || n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);

        if (s == NULL) {
            b->nomem = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* "auto(candidates=rd,ring arrival=equal round=5000 segsize=4096)": every
   candidate, the arrival source, and round= and segsize= when a candidate
   reads them (round with its default). */
static void normal_auto(strbuf_t *b, const ip_choice_t *ch)
{
    const rt_auto_cfg_t *cfg = ch->spec.autocfg;

    sb_add(b, "auto(candidates=");
    for (uint32_t i = 0; i < cfg->ncand; i++)
        sb_add(b, "%s%s", i ? "," : "", cfg->cand[i]);
    sb_add(b, " arrival=%s", rt_arrival_name(ch->spec.arrival));
    if (auto_takes(cfg, "round"))
        sb_add(b, " round=%lld", (long long)ch->spec.round_ns);
    if (ch->segsize_bytes > 0)
        sb_add(b, " segsize=%lld", (long long)ch->segsize_bytes);
    sb_add(b, ")");
}

/* "binomial-reduce+binomial-bcast(segments=4)": full names and every
   parameter the generators read, defaults included, so that spellings of
   the same choice (short names, 64K or 65536, 5us or 5000) agree. */
static void normal_choice(strbuf_t *b, const ip_choice_t *ch)
{
    const rt_algo_spec_t *s = &ch->spec;
    int n = 0;

    if (s->native) {
        sb_add(b, "native");
        return;
    }
    if (s->autocfg != NULL) {
        normal_auto(b, ch);
        return;
    }
    sb_add(b, "%s%s%s", s->run->name, s->bcast ? "+" : "", s->bcast ? s->bcast->name : "");
    for (int k = 0; k < K_COUNT; k++) {
        const char *sep = n == 0 ? "(" : " ";

        if (!rt_algo_takes(s, key_names[k]))
            continue;
        if (k == K_SEGMENTS && s->nsegs > 0)
            sb_add(b, "%ssegments=%d", sep, (int)s->nsegs);
        else if (k == K_SEGSIZE && ch->segsize_bytes > 0)
            sb_add(b, "%ssegsize=%lld", sep, (long long)ch->segsize_bytes);
        else if (k == K_ROUND)
            sb_add(b, "%sround=%lld", sep, (long long)s->round_ns);
        else if (k == K_PPN)
            sb_add(b, "%sppn=%d", sep, (int)s->ppn);
        else if (k == K_PORT)
            sb_add(b, "%sport=%s", sep, s->port == RT_PORT_B ? "b" : "u");
        else if (k == K_SHAPE)
            sb_add(b, "%sshape=%s", sep, s->shape == RT_TREE_OMPI ? "ompi" : "heap");
        else if (k == K_ARRIVAL)
            sb_add(b, "%sarrival=%s", sep, rt_arrival_name(s->arrival));
        else
            continue;
        n++;
    }
    if (n > 0)
        sb_add(b, ")");
}

/* "allreduce@1-2147483647:0-65536=rd,>=65537=ring;bcast@...": rules text
   itself, which parses back to the same normal form. */
static void normal_rules(strbuf_t *b, const ip_rules_t *rs)
{
    sb_add(b, "%s", "");
    for (uint32_t i = 0; i < rs->nrules; i++) {
        const ip_rule_t *r = &rs->rules[i];

        sb_add(b, "%s%s@%d-%d:", i ? ";" : "", coll_names[r->coll], (int)r->np_lo,
               (int)r->np_hi);
        for (uint32_t j = 0; j < r->ncases; j++) {
            const ip_case_t *c = &r->cases[j];

            sb_add(b, "%s", j ? "," : "");
            if (c->lo == 0 && c->hi == UINT64_MAX)
                sb_add(b, "*=");
            else if (c->hi == UINT64_MAX)
                sb_add(b, ">=%llu=", (unsigned long long)c->lo);
            else
                sb_add(b, "%llu-%llu=", (unsigned long long)c->lo, (unsigned long long)c->hi);
            normal_choice(b, &c->choice);
        }
    }
}

/* The lists made arrays, the normal form and its hash. */
static cm_status_t finish(parser_t *p, rule_node_t *list, uint32_t nrules, ip_rules_t *rs)
{
    strbuf_t b = { 0 };
    char *normal;
    uint32_t i = 0;

    rs->nrules = nrules;
    rs->rules = cm_arena_alloc(p->arena, (nrules ? nrules : 1) * sizeof(*rs->rules));
    if (rs->rules == NULL)
        return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
    for (rule_node_t *rn = list; rn != NULL; rn = rn->next, i++) {
        uint32_t j = 0;

        rs->rules[i] = rn->r;
        rs->rules[i].cases = cm_arena_alloc(p->arena, rn->r.ncases * sizeof(ip_case_t));
        if (rs->rules[i].cases == NULL)
            return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
        for (case_node_t *cn = rn->cases; cn != NULL; cn = cn->next)
            rs->rules[i].cases[j++] = cn->c;
    }
    normal_rules(&b, rs);
    normal = b.nomem ? NULL : cm_arena_strndup(p->arena, b.s, b.len);
    free(b.s);
    if (normal == NULL)
        return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
    rs->normal = normal;
    rs->hash = cm_hash_fnv1a(normal, strlen(normal));
    return CM_OK;
}

/* RULES := RULE { ';' RULE }, blank rules allowed; the list into *list_p. */
static cm_status_t parse_all(parser_t *p, rule_node_t **list_p, uint32_t *n_p)
{
    rule_node_t **tail = list_p;
    cm_status_t st;

    for (;;) {
        rule_node_t *rn;

        skip_space(p);
        if (peek(p) == '\0')
            return CM_OK;
        if (peek(p) == ';') {
            p->pos++;
            continue;
        }
        if ((rn = cm_arena_alloc(p->arena, sizeof(*rn))) == NULL)
            return CM_ERR(p->err, CM_ERR_NOMEM, "out of memory");
        rn->cases_tail = &rn->cases;
        if ((st = parse_rule(p, rn)) != CM_OK)
            return st;
        *tail = rn;
        tail = &rn->next;
        (*n_p)++;
    }
}

cm_status_t ip_rules_parse(const char *text, const char *origin, ip_rules_t **rules_p,
                           cm_err_t *err)
{
    parser_t p = { .text = text ? text : "", .origin = origin, .err = err };
    rule_node_t *list = NULL;
    uint32_t nrules = 0;
    ip_rules_t *rs;
    cm_status_t st;

    if ((p.arena = cm_arena_create()) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    rs = cm_arena_alloc(p.arena, sizeof(*rs));
    if (rs == NULL)
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    else if ((st = parse_all(&p, &list, &nrules)) == CM_OK)
        st = finish(&p, list, nrules, rs);
    if (st != CM_OK) {
        cm_arena_destroy(p.arena);
        return st;
    }
    rs->arena = p.arena;
    *rules_p = rs;
    return CM_OK;
}

void ip_rules_free(ip_rules_t *rules)
{
    if (rules != NULL)
        cm_arena_destroy(rules->arena);
}

const ip_choice_t *ip_rules_match(const ip_rules_t *rules, ip_rule_coll_t coll,
                                  int32_t comm_size, uint64_t bytes)
{
    if (rules == NULL)
        return NULL;
    for (uint32_t i = 0; i < rules->nrules; i++) {
        const ip_rule_t *r = &rules->rules[i];

        if (r->coll != coll || comm_size < r->np_lo || comm_size > r->np_hi)
            continue;
        for (uint32_t j = 0; j < r->ncases; j++) {
            if (bytes >= r->cases[j].lo && bytes <= r->cases[j].hi)
                return &r->cases[j].choice;
        }
    }
    return NULL;
}

uint32_t ip_rules_count(const ip_rules_t *rules)
{
    return rules != NULL ? rules->nrules : 0;
}

uint64_t ip_rules_hash(const ip_rules_t *rules)
{
    return rules != NULL ? rules->hash : cm_hash_fnv1a("", 0);
}

const char *ip_rules_normal(const ip_rules_t *rules)
{
    return rules != NULL ? rules->normal : "";
}

uint64_t ip_rules_auto_hash(const ip_rules_t *rules)
{
    uint64_t h = 0;

    for (uint32_t i = 0; rules != NULL && i < rules->nrules; i++)
        for (uint32_t j = 0; j < rules->rules[i].ncases; j++) {
            const rt_auto_cfg_t *cfg = rules->rules[i].cases[j].choice.spec.autocfg;

            if (cfg != NULL)
                h = (h ^ rt_auto_cfg_hash(cfg)) * UINT64_C(0x100000001b3);
        }
    return h;
}

const rt_net_t *ip_rules_net(const ip_rules_t *rules)
{
    for (uint32_t i = 0; rules != NULL && i < rules->nrules; i++)
        for (uint32_t j = 0; j < rules->rules[i].ncases; j++)
            if (rules->rules[i].cases[j].choice.spec.autocfg != NULL)
                return &rules->rules[i].cases[j].choice.spec.autocfg->net;
    return NULL;
}
