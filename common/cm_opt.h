/*
 * cm_opt.h - option values: the one parser of every program's command line.
 *
 * getopt walks argv; these functions turn an option's text into a value and
 * check it, so that every program accepts the same forms and refuses bad
 * ones with the same words.  Every error has one form,
 *
 *   PROG: OPTION: what is wrong, the range
 *   gsum: -n: '0' is out of range, expected 1..2147483647
 *
 * Accepted forms:
 *   integer  optional sign, decimal digits (no spaces, no hex)
 *   number   what strtod reads, finite (nan and inf are refused)
 *   size     decimal digits, then optionally K, M, G or T (either case,
 *            powers of 1024) and optionally "iB" after the suffix: 4, 128K,
 *            1MiB.  No sign: "-4" is not a size.
 *   list     items separated by one character (usually ','), none empty
 *   range    A:B with A <= B, each within the option's bounds
 *   word     one of a table's names
 *
 * A cm_opt_t gathers the first error of a parse (later ones are dropped:
 * the first is the one the user must fix).  Not thread-safe; a context
 * belongs to one parse.
 */
#ifndef CM_OPT_H
#define CM_OPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/cm_status.h"

#define CM_OPT_MSG_MAX  512
#define CM_OPT_ITEM_MAX 256   /* longest list item, with its NUL */

typedef struct cm_opt {
    const char *prog;                /* "gsum": borrowed, outlives the context */
    cm_status_t status;              /* of the first error; CM_OK when none */
    char        msg[CM_OPT_MSG_MAX]; /* "OPTION: what, range"; "" when none */
    char        name[64];            /* cm_opt_next: the option as spelled */
} cm_opt_t;

/* A name of a word option and the value it stands for. */
typedef struct cm_opt_word {
    const char *name;
    int         value;
} cm_opt_word_t;

/* Walks a list item by item (cm_opt_list_next); fill with cm_opt_list_begin. */
typedef struct cm_opt_list {
    const char *opt, *all, *next;    /* next: NULL once the list is done */
    char        sep;
    size_t      count;               /* items returned so far */
    char        item[CM_OPT_ITEM_MAX];
} cm_opt_list_t;

void cm_opt_init(cm_opt_t *ctx, const char *prog);

/* Records "OPT: <fmt>" (opt may be NULL: then "<fmt>" alone) as the error
 * if none is recorded yet; returns status either way. */
cm_status_t cm_opt_fail(cm_opt_t *ctx, cm_status_t status, const char *opt,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* getopt_long's complaints: c is what it returned (':' a missing argument,
 * '?' an unknown option), bad_char getopt's optopt, word argv[optind - 1].
 * (Not named optopt: that would shadow getopt's global, which clang's
 * -Wshadow refuses in the fuzz build.) */
cm_status_t cm_opt_getopt_fail(cm_opt_t *ctx, int c, int bad_char, const char *word);

/*
 * One step of getopt_long, for every program's loop:
 *
 *   while ((c = cm_opt_next(&ctx, argc, argv, ":o:n:h", longopts, &opt)) != -1)
 *       switch (c) { case 'n': cm_opt_long(&ctx, opt, optarg, ...); ... }
 *   if (ctx.status != CM_OK) { cm_opt_print(&ctx, stderr); return 2; }
 *
 * Returns what getopt_long returned, with *opt_p the option as the user
 * spelled it ("-n", "--max-bytes": the name to put in a message; "" for a
 * word that is no option, code 1 in getopt's '-' mode), valid until the
 * next call.  Returns -1 at the end, when ctx holds an error already (so a
 * bad value ends the loop), or after recording getopt's complaint
 * (cm_opt_getopt_fail).  After the loop, ctx->name is "" when the error is
 * getopt's complaint, else the last option read (the one whose value was
 * refused).  Sets opterr to 0: getopt itself says nothing.
 * shortopts must start with ':' (after a '+' or '-'), so that a missing
 * value is told from an unknown option.
 */
int cm_opt_next(cm_opt_t *ctx, int argc, char **argv, const char *shortopts,
                const struct option *longopts, const char **opt_p);

/* After the loop, for a program that takes no operand: records
 * "unexpected argument 'x'" for argv[optind] if there is one and ctx holds
 * no error yet.  Returns ctx->status. */
cm_status_t cm_opt_no_operands(cm_opt_t *ctx, int argc, char **argv);

/* Writes "PROG: MSG\n" to fp (nothing when there is no error). */
void cm_opt_print(const cm_opt_t *ctx, FILE *fp);

/*
 * Scalars: on success set *v_p and return CM_OK; otherwise leave *v_p alone,
 * record the error and return CM_ERR_SYNTAX (not that kind of value) or
 * CM_ERR_RANGE (outside lo..hi, including beyond the type).  Bounds are
 * inclusive.
 */
cm_status_t cm_opt_long(cm_opt_t *ctx, const char *opt, const char *arg,
                        long lo, long hi, long *v_p);
cm_status_t cm_opt_double(cm_opt_t *ctx, const char *opt, const char *arg,
                          double lo, double hi, double *v_p);
/* cm_opt_long into an int (counts, ranks: most options), lo..hi within int. */
cm_status_t cm_opt_int(cm_opt_t *ctx, const char *opt, const char *arg,
                       int lo, int hi, int *v_p);
cm_status_t cm_opt_size(cm_opt_t *ctx, const char *opt, const char *arg,
                        uint64_t lo, uint64_t hi, uint64_t *v_p);

/* The table's value for arg (n names); else CM_ERR_INVALID with "unknown
 * 'x', expected a, b or c". */
cm_status_t cm_opt_word(cm_opt_t *ctx, const char *opt, const char *arg,
                        const cm_opt_word_t *words, size_t n, int *v_p);

/* A repeatable option (-p FILE -p FILE...): arg into v[*n_p], *n_p + 1;
 * once max are held, CM_ERR_RANGE with "given more than MAX times,
 * expected at most MAX" and v untouched. */
cm_status_t cm_opt_append(cm_opt_t *ctx, const char *opt, const char *arg,
                          const char **v, int *n_p, int max);

/* A:B, each lo..hi and A <= B. */
cm_status_t cm_opt_long_range(cm_opt_t *ctx, const char *opt, const char *arg,
                              long lo, long hi, long *a_p, long *b_p);
cm_status_t cm_opt_size_range(cm_opt_t *ctx, const char *opt, const char *arg,
                              uint64_t lo, uint64_t hi, uint64_t *a_p, uint64_t *b_p);

/*
 * Lists of scalars separated by sep: 1..max items into v[0..max), their
 * number in *n_p.  On an error v may be partly written and *n_p is left
 * alone.  An empty item, an item too long or more than max items are errors.
 */
cm_status_t cm_opt_long_list(cm_opt_t *ctx, const char *opt, const char *arg, char sep,
                             long lo, long hi, long *v, size_t max, size_t *n_p);
cm_status_t cm_opt_double_list(cm_opt_t *ctx, const char *opt, const char *arg, char sep,
                               double lo, double hi, double *v, size_t max, size_t *n_p);
cm_status_t cm_opt_size_list(cm_opt_t *ctx, const char *opt, const char *arg, char sep,
                             uint64_t lo, uint64_t hi, uint64_t *v, size_t max,
                             size_t *n_p);

/* For lists of other things: begin, then next until *item_p is NULL.  next
 * returns an error for an empty or too long item, or for item max + 1. */
void cm_opt_list_begin(cm_opt_list_t *it, const char *opt, const char *arg, char sep);
cm_status_t cm_opt_list_next(cm_opt_t *ctx, cm_opt_list_t *it, size_t max,
                             const char **item_p);

/* "1GiB", "512MiB", "4KiB" (also TiB) when exact, else the number: the form
 * a size is shown in (and read back by cm_opt_size).  Returns buf. */
const char *cm_opt_size_name(uint64_t bytes, char *buf, size_t size);

#endif /* CM_OPT_H */
