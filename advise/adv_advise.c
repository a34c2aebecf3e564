/*
 * adv_advise.c - advice from a database (papanalyze --advise, pathgen
 * advise; docs/pathgen.md, "Advice").
 *
 * Opens the database's model as papviz and the report do (an_model_open:
 * the same refusals) and its arrival figures (an_arrivals_read: analyze
 * owns the queries), runs the rules of adv_rules.c on each tuple size,
 * keeps one advice per edit (the size where its gain is largest), ranks
 * them by gain and prints them as text or CSV, each edit in gen's text form
 * (gen_edit_render).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/adv_int.h"

/* 1 if the two edits are the same value (their words compared as text). */
static int same_edit(const gen_edit_t *x, const gen_edit_t *y)
{
    return x->op == y->op && x->num == y->num && x->flag == y->flag && x->nargs == y->nargs
           && x->len == y->len && memcmp(x->args, y->args, x->len) == 0;
}

/* Keeps, for each edit, the advice of largest gain. */
static void dedupe(adv_list_t *l)
{
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        int j;
        for (j = 0; j < k && !same_edit(&l->a[j].edit, &l->a[i].edit); j++)
            ;
        if (j == k)
            l->a[k++] = l->a[i];
        else if (l->a[i].gain_ns > l->a[j].gain_ns)
            l->a[j] = l->a[i];
    }
    l->n = k;
}

static cm_status_t compute(an_model_t *m, const char *path, adv_list_t *l, cm_err_t *err)
{
    an_arrivals_t *arr = NULL;
    cm_status_t st;

    if (m->nsizes == 0)
        return CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "no operation left after --skip: "
                         "nothing to report (use a smaller --skip)");
    if ((st = an_arrivals_read(path, m, &arr, err)) != CM_OK)
        return st;
    for (int i = 0; st == CM_OK && i < m->nsizes; i++) {
        char sfx[64] = "";
        if (m->nsizes > 1)
            snprintf(sfx, sizeof(sfx), " (%lld-byte tuples)", (long long)m->sizes[i].bytes);
        st = adv__rules(m, &m->sizes[i], &arr[i], sfx, l, err);
    }
    an_arrivals_free(arr, m->nsizes);
    if (st == CM_OK) {
        dedupe(l);
        adv__rank(l);
    }
    return st;
}

cm_status_t adv_advise_compute(const char *db, adv_advice_t **advice_p, int *n_p,
                               cm_err_t *err)
{
    an_model_t *m = NULL;
    adv_list_t l = { NULL, 0, 0 };
    cm_status_t st;

    if ((st = an_model_open(db, &m, err)) != CM_OK)
        return st;
    st = compute(m, db, &l, err);
    an_model_close(m);
    if (st != CM_OK) {
        free(l.a);
        return st;
    }
    *advice_p = l.a;
    *n_p = l.n;
    return CM_OK;
}

/* ---------------------------------------------------------------- printing */

static void csv_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A path as one shell word: as is when it has only safe characters. */
static void shell_word(FILE *out, const char *s)
{
    if (*s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789/._-+=,:@%") == strlen(s)) {
        fputs(s, out);
        return;
    }
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", out);
        else
            fputc(*s, out);
    }
    fputc('\'', out);
}

static void print_text(FILE *out, const adv_advice_t *a, int n, const char *pathmap)
{
    char edit[GEN_EDIT_ARGS_MAX + 64];

    if (n == 0) {
        fprintf(out, "no advice: no hotspot reaches the thresholds of docs/pathgen.md "
                "(\"Advice\")\n");
        return;
    }
    for (int i = 0; i < n; i++) {
        gen_edit_render(&a[i].edit, edit, sizeof(edit));
        fprintf(out, "%sadvice %d: %s\n", i ? "\n" : "", a[i].rank, edit);
        fprintf(out, "  gain: at most %.2f us per allreduce\n", a[i].gain_ns / 1e3);
        fprintf(out, "  why: %s\n", a[i].reason);
        fputs("  run: pathgen edit ", out);
        shell_word(out, pathmap);
        fprintf(out, " %s -o NEW.pathmap\n", edit);
    }
}

static void print_csv(FILE *out, const adv_advice_t *a, int n)
{
    char edit[GEN_EDIT_ARGS_MAX + 64];

    fputs("rank,rule,gain_us,edit,reason\n", out);
    for (int i = 0; i < n; i++) {
        gen_edit_render(&a[i].edit, edit, sizeof(edit));
        fprintf(out, "%d,%s,%.3f,", a[i].rank, gen_edit_op_name(a[i].edit.op),
                a[i].gain_ns / 1e3);
        if (strpbrk(edit, ",\"\n") != NULL)
            csv_quoted(out, edit);
        else
            fputs(edit, out);
        fputc(',', out);
        csv_quoted(out, a[i].reason);
        fputc('\n', out);
    }
}

cm_status_t adv_advise(const char *db, const adv_opts_t *opts, FILE *out, cm_err_t *err)
{
    an_model_t *m = NULL;
    adv_list_t l = { NULL, 0, 0 };
    cm_status_t st;

    if (opts->format != AN_FMT_TEXT && opts->format != AN_FMT_CSV)
        return CM_ERR(err, CM_ERR_INVALID, "advice: formats text and csv only");
    if ((st = an_model_open(db, &m, err)) != CM_OK)
        return st;
    if ((st = compute(m, db, &l, err)) == CM_OK) {
        int n = opts->max > 0 && opts->max < l.n ? opts->max : l.n;
        const char *pm = opts->pathmap ? opts->pathmap
                       : m->pathmap_path && *m->pathmap_path ? m->pathmap_path : "PATHMAP";
        if (opts->format == AN_FMT_CSV)
            print_csv(out, l.a, n);
        else
            print_text(out, l.a, n, pm);
    }
    an_model_close(m);
    free(l.a);
    return st;
}
