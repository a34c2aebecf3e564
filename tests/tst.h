/*
 * tst.h - assertions for unit tests.
 *
 * A unit test is a plain `void t_name(void)` registered in tests/test_list.h.
 * The runner calls it in a forked child, so an assertion that fails simply
 * prints what it saw and exits the child with status 1; the runner turns that
 * into a `not ok` line and shows the child's output.  Nothing needs unwinding:
 * the child's memory and descriptors go with it.
 *
 * Every failure prints, on stderr, the place, both expressions and both values:
 *
 *   tests/unit/pathmap/parse.c:41: assertion failed: tree->nnodes == 5 (4 vs 5)
 *
 * The macros only capture __FILE__, __LINE__ and the expression text; the
 * checks are the static inline functions below, so each argument is evaluated
 * exactly once and has a real type.
 */
#ifndef TST_H
#define TST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_status.h"

/* Prints "file:line: assertion failed: <what>" and ends the test child. */
static inline void tst__fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static inline void tst__fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "%s:%d: assertion failed: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static inline void tst__true(const char *file, int line, const char *expr,
                             int value, int want)
{
    if ((value != 0) != want)
        tst__fail(file, line, want ? "%s (was false)" : "!(%s) (was true)",
                  expr);
}

static inline void tst__int(const char *file, int line, const char *ea,
                            const char *eb, long long a, long long b, int eq)
{
    if ((a == b) != eq)
        tst__fail(file, line, "%s %s %s (%lld vs %lld)", ea, eq ? "==" : "!=",
                  eb, a, b);
}

static inline void tst__uint(const char *file, int line, const char *ea,
                             const char *eb, unsigned long long a,
                             unsigned long long b)
{
    if (a != b)
        tst__fail(file, line, "%s == %s (%llu vs %llu)", ea, eb, a, b);
}

/* NaN never equals anything; equal infinities do (their difference is NaN). */
static inline void tst__dbl(const char *file, int line, const char *ea,
                            const char *eb, double a, double b, double tol)
{
    double diff = a > b ? a - b : b - a;

    if (!(a == b || diff <= tol))
        tst__fail(file, line, "%s == %s within %g (%.17g vs %.17g)", ea, eb,
                  tol, a, b);
}

/* NULL is printed as NULL, never passed to %s; two NULLs are equal. */
static inline void tst__str(const char *file, int line, const char *ea,
                            const char *eb, const char *a, const char *b)
{
    if (a == b || (a != NULL && b != NULL && strcmp(a, b) == 0))
        return;
    tst__fail(file, line, "%s == %s (%s%s%s vs %s%s%s)", ea, eb,
              a ? "\"" : "", a ? a : "NULL", a ? "\"" : "",
              b ? "\"" : "", b ? b : "NULL", b ? "\"" : "");
}

/* For error messages: the exact text is checked by the corpus, the gist here. */
static inline void tst__contains(const char *file, int line, const char *ea,
                                 const char *eb, const char *hay,
                                 const char *needle)
{
    if (hay != NULL && needle != NULL && strstr(hay, needle) != NULL)
        return;
    tst__fail(file, line, "%s contains %s (\"%s\" vs \"%s\")", ea, eb,
              hay ? hay : "(NULL)", needle ? needle : "(NULL)");
}

static inline void tst__ptr(const char *file, int line, const char *ea,
                            const char *eb, const void *a, const void *b,
                            int eq)
{
    if ((a == b) != eq)
        tst__fail(file, line, "%s %s %s (%p vs %p)", ea, eq ? "==" : "!=", eb,
                  a, b);
}

/* Statuses print by name: "CM_ERR_SYNTAX vs CM_OK" says more than "-2 vs 0". */
static inline void tst__status(const char *file, int line, const char *ea,
                               const char *eb, cm_status_t a, cm_status_t b)
{
    if (a != b)
        tst__fail(file, line, "%s == %s (%s vs %s)", ea, eb, cm_status_name(a),
                  cm_status_name(b));
}

#define TST_TRUE(c)   tst__true(__FILE__, __LINE__, #c, (c) ? 1 : 0, 1)
#define TST_FALSE(c)  tst__true(__FILE__, __LINE__, #c, (c) ? 1 : 0, 0)
#define TST_EQ_INT(a, b) tst__int(__FILE__, __LINE__, #a, #b, (a), (b), 1)
#define TST_NE_INT(a, b) tst__int(__FILE__, __LINE__, #a, #b, (a), (b), 0)
#define TST_EQ_UINT(a, b) tst__uint(__FILE__, __LINE__, #a, #b, (a), (b))
#define TST_EQ_DBL(a, b, tol)                                               \
    tst__dbl(__FILE__, __LINE__, #a, #b, (a), (b), (tol))
#define TST_EQ_STR(a, b) tst__str(__FILE__, __LINE__, #a, #b, (a), (b))
#define TST_CONTAINS(hay, needle)                                           \
    tst__contains(__FILE__, __LINE__, #hay, #needle, (hay), (needle))
#define TST_EQ_PTR(a, b) tst__ptr(__FILE__, __LINE__, #a, #b, (a), (b), 1)
#define TST_NE_PTR(a, b) tst__ptr(__FILE__, __LINE__, #a, #b, (a), (b), 0)
#define TST_NULL(p)      tst__ptr(__FILE__, __LINE__, #p, "NULL", (p), NULL, 1)
#define TST_NOT_NULL(p)  tst__ptr(__FILE__, __LINE__, #p, "NULL", (p), NULL, 0)
#define TST_EQ_STATUS(a, b)                                                 \
    tst__status(__FILE__, __LINE__, #a, #b, (a), (b))
/* An unconditional failure, for branches a test must not reach. */
#define TST_FAIL(...) tst__fail(__FILE__, __LINE__, __VA_ARGS__)

#endif /* TST_H */
