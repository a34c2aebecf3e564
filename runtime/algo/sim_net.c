/*
 * sim_net.c - the net file: the linear cost model's three numbers as
 * KEY=VALUE lines (runtime/api/rt_sim.h has the grammar; docs/netfit.md).
 * bin/netfit writes it, papsim --net FILE reads it; both go through here,
 * so the writer and the reader cannot drift apart.
 *
 * The reader is strict (a measured file is small and written by a program:
 * anything unexpected is more likely a wrong file than a variant), and
 * reports the first problem at its path:line:col.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api/rt_sim.h"

/* The keys in file order of rt_net_t, with their ranges. */
typedef struct net_key {
    const char *name;
    const char *what;     /* the unit, as the range message says it */
    double      max;
    int         zero_ok;  /* 0 is a value (gamma) */
} net_key_t;

static const net_key_t net_keys[] = {
    { "alpha", "seconds per message", RT_NET_ALPHA_MAX, 0 },
    { "beta", "seconds per byte", RT_NET_BETA_MAX, 0 },
    { "gamma", "seconds per byte reduced", RT_NET_GAMMA_MAX, 1 },
};
#define NET_NKEYS ((int)(sizeof net_keys / sizeof *net_keys))

cm_status_t rt_net_write(FILE *fp, const rt_net_t *net, cm_err_t *err)
{
    fprintf(fp, "%s=%.6g\n%s=%.6g\n%s=%.6g\n", net_keys[0].name, net->alpha,
            net_keys[1].name, net->beta, net_keys[2].name, net->gamma);
    if (ferror(fp))
        return CM_ERR(err, CM_ERR_IO, "%s", strerror(errno));
    return CM_OK;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* The value of key k at s (on line ln): CM_OK or the error. */
static cm_status_t net_value(const char *path, unsigned ln, const char *line, const char *s,
                             int k, double *out, cm_err_t *err)
{
    const net_key_t *key = &net_keys[k];
    unsigned col = (unsigned)(s - line) + 1;
    size_t vlen = strcspn(s, " \t");
    const char *rest = s + vlen;
    char text[64], *end;
    double v;

    if (*s == '\0')
        return CM_ERR_AT(err, CM_ERR_SYNTAX, path, ln, col, "expected a number (seconds) "
                         "after '%s='", key->name);
    while (is_blank(*rest))
        rest++;
    if (*rest != '\0')
        return CM_ERR_AT(err, CM_ERR_SYNTAX, path, ln, (unsigned)(rest - line) + 1,
                         "unexpected text after %s's value (one KEY=VALUE a line; "
                         "comments on lines of their own)", key->name);
    snprintf(text, sizeof text, "%.*s", (int)(vlen < sizeof text ? vlen : sizeof text - 1), s);
    v = strtod(text, &end);
    if (vlen >= sizeof text || end == text || *end != '\0' || !isfinite(v))
        return CM_ERR_AT(err, CM_ERR_SYNTAX, path, ln, col, "%s: expected a finite number "
                         "(seconds), got '%.*s'", key->name, (int)(vlen < 40 ? vlen : 40), s);
    if (v < 0 || (v == 0 && !key->zero_ok) || v > key->max)
        return CM_ERR_AT(err, CM_ERR_RANGE, path, ln, col, "%s=%s: out of range: %s, "
                         "%s0 %s %.15g", key->name, text, key->what,
                         key->zero_ok ? "" : "more than ", key->zero_ok ? "to" : "and at most",
                         key->max);
    *out = v;
    return CM_OK;
}

/* One line, without its newline: CM_OK or the error.  seen[k]: the line of
 * key k, 0 while not seen. */
static cm_status_t net_line(const char *path, unsigned ln, const char *line, size_t len,
                            double *vals, unsigned *seen, cm_err_t *err)
{
    const char *s = line, *eq;
    size_t klen;
    int k;

    for (size_t i = 0; i < len; i++)
        if (((unsigned char)line[i] < 0x20 && line[i] != '\t') || line[i] == 0x7f)
            return CM_ERR_AT(err, CM_ERR_SYNTAX, path, ln, (unsigned)i + 1,
                             "control character (byte 0x%02x)", (unsigned char)line[i]);
    while (is_blank(*s))
        s++;
    if (*s == '\0' || *s == '#')
        return CM_OK;
    klen = strcspn(s, "= \t");
    for (k = 0; k < NET_NKEYS; k++)
        if (klen == strlen(net_keys[k].name) && strncmp(s, net_keys[k].name, klen) == 0)
            break;
    if (k == NET_NKEYS && klen == 0)
        return CM_ERR_AT(err, CM_ERR_SYNTAX, path, ln, (unsigned)(s - line) + 1,
                         "expected KEY=VALUE");
    if (k == NET_NKEYS)
        return CM_ERR_AT(err, CM_ERR_NAME, path, ln, (unsigned)(s - line) + 1,
                         "unknown key '%.*s': expected alpha, beta or gamma",
                         (int)(klen < 40 ? klen : 40), s);
    if (seen[k])
        return CM_ERR_AT(err, CM_ERR_SYNTAX, path, ln, (unsigned)(s - line) + 1,
                         "%s given twice (first on line %u)", net_keys[k].name, seen[k]);
    for (eq = s + klen; is_blank(*eq); eq++)
        ;
    if (*eq != '=')
        return CM_ERR_AT(err, CM_ERR_SYNTAX, path, ln, (unsigned)(eq - line) + 1,
                         "expected '=' after '%s'", net_keys[k].name);
    for (eq++; is_blank(*eq); eq++)
        ;
    seen[k] = ln;
    return net_value(path, ln, line, eq, k, &vals[k], err);
}

cm_status_t rt_net_read_fp(FILE *fp, const char *path, rt_net_t *net, cm_err_t *err)
{
    double vals[NET_NKEYS] = { 0 };
    unsigned seen[NET_NKEYS] = { 0 }, ln = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    cm_status_t st = CM_OK;
    int rerr;

    errno = 0;
    while (st == CM_OK && (len = getline(&line, &cap, fp)) >= 0) {
        ln++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len > 0 && line[len - 1] == '\r')
            line[--len] = '\0';
        st = net_line(path, ln, line, (size_t)len, vals, seen, err);
    }
    rerr = errno;
    free(line);
    if (st == CM_OK && ferror(fp))
        st = CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot read: %s", strerror(rerr));
    for (int k = 0; st == CM_OK && k < NET_NKEYS; k++)
        if (!seen[k])
            st = CM_ERR_AT(err, CM_ERR_SYNTAX, path, 0, 0, "no %s= line (a net file sets "
                           "alpha, beta and gamma)", net_keys[k].name);
    if (st == CM_OK) {
        net->alpha = vals[0];
        net->beta = vals[1];
        net->gamma = vals[2];
    }
    return st;
}

cm_status_t rt_net_read(const char *path, rt_net_t *net, cm_err_t *err)
{
    FILE *fp = fopen(path, "r");
    cm_status_t st;

    if (fp == NULL)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    st = rt_net_read_fp(fp, path, net, err);
    fclose(fp);
    return st;
}
