/*
 * t_opt.c - option values (common/cm_opt.c).
 *
 * Every expected value and message below is worked out from cm_opt.h's
 * rules: LONG_MAX on LP64 is 2^63 - 1 = 9223372036854775807; 1K = 1024,
 * 1M = 1048576, 1G = 1073741824, 1T = 1099511627776; UINT64_MAX =
 * 18446744073709551615, so 16777216T (2^24 * 2^40 = 2^64) is one past it
 * and 16777215T = 2^64 - 2^40 = 18446742974197923840 is the largest T.
 */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include "common/cm_opt.h"
#include "tests/tst.h"
#include "tests/test_list.h"

/* A fresh context for each check, so that every message is the first. */
static cm_opt_t g_ctx;

static cm_opt_t *fresh(void)
{
    cm_opt_init(&g_ctx, "prog");
    return &g_ctx;
}

void t_opt_long(void)
{
    long v = 7;

    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "1", 1, 2147483647, &v), CM_OK);
    TST_EQ_INT(v, 1);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "2147483647", 1, 2147483647, &v), CM_OK);
    TST_EQ_INT(v, 2147483647);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "-5", -5, 5, &v), CM_OK);
    TST_EQ_INT(v, -5);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "+3", 0, 5, &v), CM_OK);
    TST_EQ_INT(v, 3);

    /* below, above, beyond a long: all "out of range", v untouched */
    v = 7;
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "0", 1, 2147483647, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-n: '0' is out of range, expected 1..2147483647");
    TST_EQ_INT(v, 7);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "2147483648", 1, 2147483647, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-n: '2147483648' is out of range, expected 1..2147483647");
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "9223372036854775808", 0, LONG_MAX, &v),
                  CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-n: '9223372036854775808' is out of range, expected "
               "0..9223372036854775807");
    TST_EQ_STATUS(cm_opt_long(fresh(), "-w", "-9223372036854775809", 0, 10, &v), CM_ERR_RANGE);
    TST_EQ_INT(v, 7);

    /* not integers: empty, junk after, spaces, a bare sign, decimals, hex */
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "", 1, 9, &v), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-n: '' is not an integer, expected 1..9");
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "12abc", 1, 99, &v), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-n: '12abc' is not an integer, expected 1..99");
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", " 5", 1, 9, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "5 ", 1, 9, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "-", 1, 9, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "1.5", 1, 9, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_long(fresh(), "-n", "0x10", 1, 99, &v), CM_ERR_SYNTAX);
    TST_EQ_INT(v, 7);
}

/* cm_opt_int: cm_opt_long's words, stored in an int. */
void t_opt_int(void)
{
    int v = 7;

    TST_EQ_STATUS(cm_opt_int(fresh(), "-P", "48", 1, 1048576, &v), CM_OK);
    TST_EQ_INT(v, 48);
    TST_EQ_STATUS(cm_opt_int(fresh(), "-P", "2147483648", 1, 2147483647, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-P: '2147483648' is out of range, expected 1..2147483647");
    TST_EQ_STATUS(cm_opt_int(fresh(), "-P", "4x", 1, 8, &v), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-P: '4x' is not an integer, expected 1..8");
    TST_EQ_INT(v, 48);                  /* untouched on an error */
}

void t_opt_double(void)
{
    double v = 0.25;

    TST_EQ_STATUS(cm_opt_double(fresh(), "--tol", "1e-12", 1e-12, 0.1, &v), CM_OK);
    TST_EQ_DBL(v, 1e-12, 0);
    TST_EQ_STATUS(cm_opt_double(fresh(), "--tol", "0.1", 1e-12, 0.1, &v), CM_OK);
    TST_EQ_DBL(v, 0.1, 0);
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", ".5", 0, 1, &v), CM_OK);
    TST_EQ_DBL(v, 0.5, 0);

    v = 0.25;
    TST_EQ_STATUS(cm_opt_double(fresh(), "--tol", "0.5", 1e-12, 0.1, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "--tol: '0.5' is out of range, expected 1e-12..0.1");
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "-1", 0, 10000, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-d: '-1' is out of range, expected 0..10000");
    /* overflow is a range error, underflow a tiny number that the bounds judge */
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "1e999", 0, 1e300, &v), CM_ERR_RANGE);
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "1e-999", 0, 1, &v), CM_OK);
    TST_TRUE(v >= 0 && v < 1e-300);

    v = 0.25;
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "nan", 0, 1, &v), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-d: 'nan' is not a finite number, expected 0..1");
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "inf", 0, 1e308, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "-infinity", -1, 1, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "", 0, 1, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", " 1", 0, 2, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_double(fresh(), "-d", "1ms", 0, 2, &v), CM_ERR_SYNTAX);
    TST_EQ_DBL(v, 0.25, 0);
}

void t_opt_size(void)
{
    const uint64_t G = (uint64_t)1 << 30, MAX = UINT64_MAX;
    uint64_t v = 9;

    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "4", 1, G, &v), CM_OK);
    TST_EQ_UINT(v, 4);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "128K", 1, G, &v), CM_OK);
    TST_EQ_UINT(v, 131072);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "128k", 1, G, &v), CM_OK);
    TST_EQ_UINT(v, 131072);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "3M", 1, G, &v), CM_OK);
    TST_EQ_UINT(v, 3145728);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "1GiB", 1, G, &v), CM_OK);
    TST_EQ_UINT(v, 1073741824);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "2t", 1, MAX, &v), CM_OK);
    TST_EQ_UINT(v, 2199023255552);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "16777215T", 1, MAX, &v), CM_OK);
    TST_EQ_UINT(v, UINT64_C(18446742974197923840));
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "18446744073709551615", 0, MAX, &v), CM_OK);
    TST_EQ_UINT(v, MAX);

    /* suffix overflow, plain overflow, bounds: out of range, shown in units */
    v = 9;
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "16777216T", 1, MAX, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-s: '16777216T' is out of range, expected 1..18446744073709551615");
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "18446744073709551616", 1, MAX, &v),
                  CM_ERR_RANGE);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "99999999999G", 1, MAX, &v), CM_ERR_RANGE);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "2G", 1, G, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-s: '2G' is out of range, expected 1..1GiB");
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "0", 1, G, &v), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-s: '0' is out of range, expected 1..1GiB");
    TST_EQ_UINT(v, 9);

    /* not sizes: negative, signed, empty, junk, two suffixes, a lone suffix */
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "-4", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-s: '-4' is not a size, expected bytes 1..1GiB (K, M, G, T: "
               "powers of 1024)");
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "+4", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "5Q", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "4KK", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "4iB", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "4KiBs", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "K", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_size(fresh(), "-s", "1.5K", 1, G, &v), CM_ERR_SYNTAX);
    TST_EQ_UINT(v, 9);
}

void t_opt_size_name(void)
{
    char b[32];

    TST_EQ_STR(cm_opt_size_name(0, b, sizeof(b)), "0");
    TST_EQ_STR(cm_opt_size_name(1000, b, sizeof(b)), "1000");
    TST_EQ_STR(cm_opt_size_name(1024, b, sizeof(b)), "1KiB");
    TST_EQ_STR(cm_opt_size_name(1536, b, sizeof(b)), "1536");
    TST_EQ_STR(cm_opt_size_name(3072, b, sizeof(b)), "3KiB");
    TST_EQ_STR(cm_opt_size_name((uint64_t)512 << 20, b, sizeof(b)), "512MiB");
    TST_EQ_STR(cm_opt_size_name((uint64_t)1 << 30, b, sizeof(b)), "1GiB");
    TST_EQ_STR(cm_opt_size_name((uint64_t)1536 << 20, b, sizeof(b)), "1536MiB");
    TST_EQ_STR(cm_opt_size_name((uint64_t)1 << 62, b, sizeof(b)), "4194304TiB");
}

void t_opt_word(void)
{
    static const cm_opt_word_t ops[] = { { "sum", 0 }, { "min", 1 }, { "max", 2 } };
    static const cm_opt_word_t two[] = { { "threads", 10 }, { "services", 20 } };
    int v = -1;

    TST_EQ_STATUS(cm_opt_word(fresh(), "--op", "max", ops, 3, &v), CM_OK);
    TST_EQ_INT(v, 2);
    TST_EQ_STATUS(cm_opt_word(fresh(), "--links", "services", two, 2, &v), CM_OK);
    TST_EQ_INT(v, 20);
    v = -1;
    TST_EQ_STATUS(cm_opt_word(fresh(), "--op", "Sum", ops, 3, &v), CM_ERR_INVALID);
    TST_EQ_STR(g_ctx.msg, "--op: unknown 'Sum', expected sum, min or max");
    TST_EQ_STATUS(cm_opt_word(fresh(), "--links", "", two, 2, &v), CM_ERR_INVALID);
    TST_EQ_STR(g_ctx.msg, "--links: unknown '', expected threads or services");
    TST_EQ_INT(v, -1);
}

void t_opt_range(void)
{
    long a = -1, b = -1;
    uint64_t x = 0, y = 0;

    TST_EQ_STATUS(cm_opt_long_range(fresh(), "-r", "2:5", 1, 10, &a, &b), CM_OK);
    TST_EQ_INT(a, 2);
    TST_EQ_INT(b, 5);
    TST_EQ_STATUS(cm_opt_long_range(fresh(), "-r", "3:3", 1, 10, &a, &b), CM_OK);
    TST_EQ_INT(a, 3);
    TST_EQ_INT(b, 3);
    a = b = -1;
    TST_EQ_STATUS(cm_opt_long_range(fresh(), "-r", "5:2", 1, 10, &a, &b), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-r: '5:2' ends before it starts, expected A:B with A <= B");
    TST_EQ_STATUS(cm_opt_long_range(fresh(), "-r", "5", 1, 10, &a, &b), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-r: '5' is not a range, expected A:B within 1..10");
    TST_EQ_STATUS(cm_opt_long_range(fresh(), "-r", "1:2:3", 1, 10, &a, &b), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_long_range(fresh(), "-r", ":4", 1, 10, &a, &b), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-r: '' is not an integer, expected 1..10");
    TST_EQ_STATUS(cm_opt_long_range(fresh(), "-r", "0:4", 1, 10, &a, &b), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-r: '0' is out of range, expected 1..10");
    TST_EQ_INT(a, -1);
    TST_EQ_INT(b, -1);

    TST_EQ_STATUS(cm_opt_size_range(fresh(), "--sizes", "1K:4M", 1, UINT64_MAX, &x, &y),
                  CM_OK);
    TST_EQ_UINT(x, 1024);
    TST_EQ_UINT(y, 4194304);
    TST_EQ_STATUS(cm_opt_size_range(fresh(), "--sizes", "0:64", 1, 1024, &x, &y),
                  CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "--sizes: '0' is out of range, expected 1..1KiB");
    TST_EQ_STATUS(cm_opt_size_range(fresh(), "--sizes", "4M:1K", 1, UINT64_MAX, &x, &y),
                  CM_ERR_RANGE);
    TST_EQ_UINT(x, 1024);
}

void t_opt_lists(void)
{
    uint64_t s[4];
    long l[3];
    double d[3];
    size_t n = 99;

    TST_EQ_STATUS(cm_opt_size_list(fresh(), "-s", "4,256,1K", ',', 1, 1 << 30, s, 4, &n),
                  CM_OK);
    TST_EQ_UINT(n, 3);
    TST_EQ_UINT(s[0], 4);
    TST_EQ_UINT(s[1], 256);
    TST_EQ_UINT(s[2], 1024);
    TST_EQ_STATUS(cm_opt_long_list(fresh(), "--split", "1:2:3", ':', 1, 9, l, 3, &n), CM_OK);
    TST_EQ_UINT(n, 3);
    TST_EQ_INT(l[2], 3);
    TST_EQ_STATUS(cm_opt_double_list(fresh(), "-d", "0,1.5", ',', 0, 10, d, 3, &n), CM_OK);
    TST_EQ_UINT(n, 2);
    TST_EQ_DBL(d[1], 1.5, 0);

    /* empty items: first, middle, last, the whole list; n untouched */
    n = 99;
    TST_EQ_STATUS(cm_opt_size_list(fresh(), "-s", ",,,", ',', 1, 8, s, 4, &n), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-s: item 1 of ',,,' is empty, expected items separated by ','");
    TST_EQ_STATUS(cm_opt_size_list(fresh(), "-s", "4,,8", ',', 1, 8, s, 4, &n), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-s: item 2 of '4,,8' is empty, expected items separated by ','");
    TST_EQ_STATUS(cm_opt_size_list(fresh(), "-s", "4,", ',', 1, 8, s, 4, &n), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-s: item 2 of '4,' is empty, expected items separated by ','");
    TST_EQ_STATUS(cm_opt_size_list(fresh(), "-s", "", ',', 1, 8, s, 4, &n), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-s: item 1 of '' is empty, expected items separated by ','");
    TST_EQ_UINT(n, 99);

    /* too many: the message counts them all; a bad item names the item */
    TST_EQ_STATUS(cm_opt_long_list(fresh(), "-n", "1,2,3,4,5", ',', 0, 9, l, 3, &n),
                  CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-n: 5 items, expected at most 3");
    TST_EQ_STATUS(cm_opt_long_list(fresh(), "-n", "1,2,3,4", ',', 0, 9, l, 3, &n),
                  CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-n: 4 items, expected at most 3");
    TST_EQ_STATUS(cm_opt_size_list(fresh(), "-s", "4,x", ',', 1, 8, s, 4, &n), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "-s: 'x' is not a size, expected bytes 1..8 (K, M, G, T: "
               "powers of 1024)");
    TST_EQ_STATUS(cm_opt_double_list(fresh(), "-d", "0,-1", ',', 0, 10, d, 3, &n),
                  CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-d: '-1' is out of range, expected 0..10");
    TST_EQ_UINT(n, 99);
}

void t_opt_list_iter(void)
{
    char longer[CM_OPT_ITEM_MAX + 8];
    cm_opt_list_t it;
    const char *item;

    cm_opt_list_begin(&it, "--algo", "ring,prr:round=5", ',');
    TST_EQ_STATUS(cm_opt_list_next(fresh(), &it, 2, &item), CM_OK);
    TST_EQ_STR(item, "ring");
    TST_EQ_STATUS(cm_opt_list_next(&g_ctx, &it, 2, &item), CM_OK);
    TST_EQ_STR(item, "prr:round=5");
    TST_EQ_STATUS(cm_opt_list_next(&g_ctx, &it, 2, &item), CM_OK);
    TST_NULL(item);
    TST_EQ_STATUS(cm_opt_list_next(&g_ctx, &it, 2, &item), CM_OK);   /* stays at the end */
    TST_NULL(item);

    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    cm_opt_list_begin(&it, "--algo", longer, ',');
    TST_EQ_STATUS(cm_opt_list_next(fresh(), &it, 2, &item), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "--algo: item 1 of the list is too long, expected at most 255 "
               "characters");
    TST_NULL(item);
}

void t_opt_first_error(void)
{
    cm_opt_t *c = fresh();
    char buf[600];
    FILE *fp;
    long v;

    TST_EQ_STATUS(cm_opt_long(c, "-n", "x", 1, 2, &v), CM_ERR_SYNTAX);
    TST_EQ_STATUS(cm_opt_long(c, "-w", "9", 1, 2, &v), CM_ERR_RANGE);
    TST_EQ_STATUS(c->status, CM_ERR_SYNTAX);
    TST_EQ_STR(c->msg, "-n: 'x' is not an integer, expected 1..2");
    TST_EQ_STATUS(cm_opt_getopt_fail(fresh(), ':', 0, "--links"), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "option '--links' requires an argument");
    TST_EQ_STATUS(cm_opt_getopt_fail(fresh(), '?', 'x', "-x"), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "unknown option '-x'");
    TST_EQ_STATUS(cm_opt_getopt_fail(fresh(), '?', 0, "--bogus"), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "unknown option '--bogus'");

    fp = fmemopen(buf, sizeof(buf), "w");
    TST_NOT_NULL(fp);
    cm_opt_print(&g_ctx, fp);
    cm_opt_print(fresh(), fp);          /* no error: nothing */
    fclose(fp);
    TST_EQ_STR(buf, "prog: unknown option '--bogus'\n");
}

/* The loop every program writes around cm_opt_next: what it hands to the
   body, where the operands end up, and cm_opt_no_operands. */
typedef struct seen {
    char text[128];
    int  help;
} seen_t;

static cm_status_t walk(int argc, char **argv, seen_t *s, int operands_ok)
{
    static const struct option lo[] = {
        { "tree", 1, 0, 't' }, { "force", 0, 0, 'F' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    cm_opt_t *ctx = fresh();
    const char *opt;
    int c;
    long v;

    s->text[0] = '\0';
    s->help = 0;
    optind = 0;                         /* glibc: start afresh */
    while ((c = cm_opt_next(ctx, argc, argv, ":t:n:h", lo, &opt)) != -1) {
        size_t len = strlen(s->text);

        if (c == 'h') {
            s->help = 1;
            return CM_OK;
        }
        if (c == 'n')
            cm_opt_long(ctx, opt, optarg, 1, 9, &v);
        else
            snprintf(s->text + len, sizeof(s->text) - len, "%s=%s;", opt,
                     optarg ? optarg : "-");
    }
    return operands_ok ? ctx->status : cm_opt_no_operands(ctx, argc, argv);
}

void t_opt_loop(void)
{
    char a0[] = "prog", a1[] = "-t", a2[] = "x", a3[] = "op1", a4[] = "--force",
         a5[] = "--tr=y", a6[] = "op2";
    char *v1[] = { a0, a1, a2, a3, a4, a5, a6, NULL };
    char b1[] = "--help", b2[] = "--bogus";
    char *v2[] = { a0, b1, b2, NULL };
    char c1[] = "-t";
    char *v3[] = { a0, c1, NULL };
    char d1[] = "-n", d2[] = "10", d3[] = "--force";
    char *v4[] = { a0, d1, d2, d3, NULL };
    char *v5[] = { a0, a3, NULL };
    char *v6[] = { a0, b2, NULL };
    seen_t s;

    /* options in order, named as spelled in full (--tr is --tree); the
       operands moved behind them, optind at the first */
    TST_EQ_STATUS(walk(7, v1, &s, 1), CM_OK);
    TST_EQ_STR(s.text, "-t=x;--force=-;--tree=y;");
    TST_EQ_INT(s.help, 0);
    TST_EQ_INT(optind, 5);
    TST_EQ_STR(v1[5], "op1");
    TST_EQ_STR(v1[6], "op2");
    /* the same operands refused by cm_opt_no_operands: the first is named */
    TST_EQ_STATUS(walk(7, v1, &s, 0), CM_ERR_INVALID);
    TST_EQ_STR(g_ctx.msg, "unexpected argument 'op1'");
    /* --help ends the loop: the unknown option after it is not judged */
    TST_EQ_STATUS(walk(3, v2, &s, 0), CM_OK);
    TST_EQ_INT(s.help, 1);
    TST_EQ_STATUS(g_ctx.status, CM_OK);
    TST_EQ_STATUS(walk(2, v3, &s, 0), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "option '-t' requires an argument");
    /* a refused value ends the loop: --force is not seen, and
       cm_opt_no_operands keeps the first error */
    TST_EQ_STATUS(walk(4, v4, &s, 0), CM_ERR_RANGE);
    TST_EQ_STR(g_ctx.msg, "-n: '10' is out of range, expected 1..9");
    TST_EQ_STR(g_ctx.name, "-n");
    TST_EQ_STR(s.text, "");
    TST_EQ_STATUS(walk(2, v5, &s, 0), CM_ERR_INVALID);
    TST_EQ_STR(g_ctx.msg, "unexpected argument 'op1'");
    TST_EQ_STATUS(walk(2, v6, &s, 0), CM_ERR_SYNTAX);
    TST_EQ_STR(g_ctx.msg, "unknown option '--bogus'");
}

/* getopt_long's steps through cm_opt_next: each option named as spelled in
   full (an abbreviation by its whole name), words handed over in '-' mode,
   getopt's complaints recorded, and nothing read once an error is held. */
void t_opt_next(void)
{
    static const struct option lo[] = {
        { "max-bytes", required_argument, NULL, 'm' }, { "quick", no_argument, NULL, 'q' },
        { NULL, 0, NULL, 0 } };
    char *a1[] = { "prog", "-n", "5", "--max=4K", "word", "--quick", "--bogus", "-n", "6", NULL };
    char *a2[] = { "prog", "-q", "--max-bytes", NULL };
    char *a3[] = { "prog", "-x", NULL };
    cm_opt_t *c = fresh();
    const char *opt = NULL;

    optind = 0;                         /* glibc: start afresh */
    TST_EQ_INT(cm_opt_next(c, 9, a1, "-:n:", lo, &opt), 'n');
    TST_EQ_STR(opt, "-n");
    TST_EQ_STR(optarg, "5");
    TST_EQ_INT(cm_opt_next(c, 9, a1, "-:n:", lo, &opt), 'm');
    TST_EQ_STR(opt, "--max-bytes");
    TST_EQ_STR(optarg, "4K");
    TST_EQ_INT(cm_opt_next(c, 9, a1, "-:n:", lo, &opt), 1);
    TST_EQ_STR(opt, "");
    TST_EQ_STR(optarg, "word");
    TST_EQ_INT(cm_opt_next(c, 9, a1, "-:n:", lo, &opt), 'q');
    TST_EQ_STR(opt, "--quick");
    TST_EQ_INT(cm_opt_next(c, 9, a1, "-:n:", lo, &opt), -1);
    TST_EQ_STATUS(c->status, CM_ERR_SYNTAX);
    TST_EQ_STR(c->msg, "unknown option '--bogus'");
    TST_EQ_STR(c->name, "");                                   /* getopt's complaint */
    TST_EQ_INT(cm_opt_next(c, 9, a1, "-:n:", lo, &opt), -1);   /* -n 6 is not read */
    TST_EQ_INT(optind, 7);

    c = fresh();
    optind = 0;
    TST_EQ_INT(cm_opt_next(c, 3, a2, ":qn:", lo, &opt), 'q');
    TST_EQ_STR(opt, "-q");
    TST_EQ_INT(cm_opt_next(c, 3, a2, ":qn:", lo, &opt), -1);
    TST_EQ_STR(c->msg, "option '--max-bytes' requires an argument");

    c = fresh();                        /* a value refused: its option is kept */
    optind = 0;
    TST_EQ_INT(cm_opt_next(c, 3, a2, ":qn:", lo, &opt), 'q');
    cm_opt_fail(c, CM_ERR_INVALID, opt, "not now");
    TST_EQ_INT(cm_opt_next(c, 3, a2, ":qn:", lo, &opt), -1);
    TST_EQ_STR(c->name, "-q");
    TST_EQ_STR(c->msg, "-q: not now");

    c = fresh();
    optind = 0;
    TST_EQ_INT(cm_opt_next(c, 2, a3, ":n:", lo, &opt), -1);
    TST_EQ_STR(c->msg, "unknown option '-x'");

    c = fresh();                        /* a bad value recorded by the caller */
    cm_opt_fail(c, CM_ERR_RANGE, "-n", "too big");
    optind = 0;
    TST_EQ_INT(cm_opt_next(c, 2, a3, ":n:", lo, &opt), -1);
    TST_EQ_STR(c->msg, "-n: too big");
}

/* A repeatable option: values kept in order, the one past max refused. */
void t_opt_append(void)
{
    const char *v[2] = { NULL, NULL };
    int n = 0;
    cm_opt_t *c = fresh();

    TST_EQ_STATUS(cm_opt_append(c, "-p", "a", v, &n, 2), CM_OK);
    TST_EQ_STATUS(cm_opt_append(c, "-p", "b", v, &n, 2), CM_OK);
    TST_EQ_INT(n, 2);
    TST_EQ_STR(v[0], "a");
    TST_EQ_STR(v[1], "b");
    TST_EQ_STATUS(cm_opt_append(c, "-p", "c", v, &n, 2), CM_ERR_RANGE);
    TST_EQ_STR(c->msg, "-p: given more than 2 times, expected at most 2");
    TST_EQ_INT(n, 2);
    TST_EQ_STR(v[1], "b");
}
