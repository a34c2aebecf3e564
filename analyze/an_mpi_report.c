/*
 * an_mpi_report.c - the report of an application trace's database: the
 * section "Collectives by call site" (mpi_sites, ranked by the time lost
 * waiting) and the advice, as --algo rules (docs/analysis-db.md,
 * "Application traces" and "Advice for application traces").
 *
 * The advice rules, each a plain test on one call site's row of mpi_sites
 * (one collective at the site, that collective one the rules can name):
 *
 *   wait   allreduce or reduce; at least 20 % of the site's time in the call
 *          is lost waiting (wait_pct >= 20) and the arrivals are imbalanced
 *          against the operation's own time (mean worst case factor
 *          worst_factor >= 1: the last rank came later than the whole
 *          collective then took); no PAP-aware algorithm ran there.  A
 *          PAP-aware algorithm lets the early ranks work while the late one
 *          comes: prr(arrival=history) for allreduce (Proficz 2018), clv
 *          (arrival=history) for reduce, for the site's sizes (<= its
 *          largest message).
 *   large  allreduce; every message >= 64 KiB; arrivals balanced
 *          (worst_factor < 1); only native or rd ran: at that size the
 *          bandwidth-optimal algorithms win: rabenseifner when the
 *          communicator's size is a power of two, else ring (>= the
 *          site's smallest message).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analyze/an_int.h"
#include "analyze/an_mpi_int.h"
#include "analyze/api/an_analyze.h"

enum {
    C_SITE, C_LABEL, C_NAME, C_FUNCTION, C_COLLS, C_CALLS, C_OPS, C_MINB, C_MAXB, C_ALGOS,
    C_FB, C_FBWHY, C_MEAN, C_WAIT, C_WAITPCT, C_OPTIME, C_SPREAD, C_MAXSPREAD, C_AVGIMB,
    C_AVGF, C_WORSTF, C_MAXWORSTF, C_LAST, C_LASTN, C_COMMSIZE, C_N
};

static const char *const site_sql =
    "SELECT site, label, name, function, collectives, calls, ops, min_bytes, max_bytes,"
    " algorithms, fallbacks, fallback_reasons, mean_time, wait, wait_pct, op_time, spread,"
    " max_spread, avg_imbalance, avg_factor, worst_factor, max_worst_factor, last_rank,"
    " last_count, (SELECT MAX(comm_size) FROM mpi_calls c WHERE c.site = s.site)"
    " FROM mpi_sites s ORDER BY COALESCE(wait, 0) DESC, site";

static const char *const col_names[C_N] = {
    "site", "label", "name", "function", "collectives", "calls", "ops", "min_bytes",
    "max_bytes", "algorithms", "fallbacks", "fallback_reasons", "mean_time_ns", "wait_ns",
    "wait_pct", "op_time_ns", "spread_ns", "max_spread_ns", "avg_imbalance_ns", "avg_factor",
    "worst_factor", "max_worst_factor", "last_rank", "last_count", "comm_size",
};

static const char *text(sqlite3_stmt *st, int c)
{
    const unsigned char *s = sqlite3_column_text(st, c);
    return s != NULL ? (const char *)s : "";
}

static int is_null(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL;
}

/* bytes as the rules' sizes: 4K, 1M or plain bytes */
static void size_word(int64_t b, char *buf, size_t n)
{
    if (b >= (1 << 20) && b % (1 << 20) == 0)
        snprintf(buf, n, "%" PRId64 "M", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%" PRId64 "K", b >> 10);
    else
        snprintf(buf, n, "%" PRId64, b);
}

static void bytes_text(int64_t b, char *buf, size_t n)
{
    if (b >= (1 << 20))
        snprintf(buf, n, "%.1f MiB", (double)b / (1 << 20));
    else if (b >= 1024)
        snprintf(buf, n, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, n, "%" PRId64 " B", b);
}

static void us_text(sqlite3_stmt *st, int c, char *buf, size_t n)
{
    if (is_null(st, c))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2f", sqlite3_column_double(st, c) / 1e3);
}

static void factor_text(sqlite3_stmt *st, int c, char *buf, size_t n)
{
    if (is_null(st, c))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2f", sqlite3_column_double(st, c));
}

static void text_row(FILE *out, sqlite3_stmt *st)
{
    char bytes[64], b1[24], b2[24], mean[24], spread[24], maxs[24], af[16], wf[16], wait[24];
    char pct[16], last[48], fb[96];
    int64_t lo = sqlite3_column_int64(st, C_MINB), hi = sqlite3_column_int64(st, C_MAXB);

    bytes_text(lo, b1, sizeof(b1));
    bytes_text(hi, b2, sizeof(b2));
    snprintf(bytes, sizeof(bytes), lo == hi ? "%s" : "%s-%s", b1, b2);
    us_text(st, C_MEAN, mean, sizeof(mean));
    us_text(st, C_SPREAD, spread, sizeof(spread));
    us_text(st, C_MAXSPREAD, maxs, sizeof(maxs));
    factor_text(st, C_AVGF, af, sizeof(af));
    factor_text(st, C_WORSTF, wf, sizeof(wf));
    us_text(st, C_WAIT, wait, sizeof(wait));
    if (is_null(st, C_WAITPCT))
        snprintf(pct, sizeof(pct), "-");
    else
        snprintf(pct, sizeof(pct), "%.1f %%", sqlite3_column_double(st, C_WAITPCT));
    if (is_null(st, C_LAST))
        snprintf(last, sizeof(last), "-");
    else
        snprintf(last, sizeof(last), "%d (%d of %d)", sqlite3_column_int(st, C_LAST),
                 sqlite3_column_int(st, C_LASTN), sqlite3_column_int(st, C_OPS));
    if (sqlite3_column_int(st, C_FB) == 0)
        snprintf(fb, sizeof(fb), "0");
    else
        snprintf(fb, sizeof(fb), "%d (%s)", sqlite3_column_int(st, C_FB), text(st, C_FBWHY));
    fprintf(out, "%-24s %-20s %6d %-17s %-14s %10s %9s %9s %6s %6s %10s %7s  %-14s %s\n",
            text(st, C_LABEL), text(st, C_COLLS), sqlite3_column_int(st, C_CALLS), bytes,
            text(st, C_ALGOS), mean, spread, maxs, af, wf, wait, pct, last, fb);
}

/* One advice line for the site, or nothing (the rules above). */
static int advise_site(FILE *out, sqlite3_stmt *st)
{
    const char *coll = text(st, C_COLLS), *algos = text(st, C_ALGOS);
    double pct = sqlite3_column_double(st, C_WAITPCT), wf = sqlite3_column_double(st, C_WORSTF);
    int paps = 0, other = 0, size = sqlite3_column_int(st, C_COMMSIZE);
    char where[512], sz[32], list[256], *save = NULL;

    snprintf(list, sizeof(list), "%s", algos);
    for (char *a = strtok_r(list, ",", &save); a != NULL; a = strtok_r(NULL, ",", &save)) {
        paps += an_mpi_algo_pap_aware(a);
        other += strcmp(a, "native") != 0 && strcmp(a, "rd") != 0;
    }
    if (is_null(st, C_WORSTF) || strchr(coll, ',') != NULL)
        return 0;
    if (strcmp(text(st, C_LABEL), text(st, C_NAME)) == 0)
        snprintf(where, sizeof(where), "call site %s", text(st, C_NAME));
    else
        snprintf(where, sizeof(where), "call site %s (%s)", text(st, C_NAME), text(st, C_LABEL));
    if ((strcmp(coll, "allreduce") == 0 || strcmp(coll, "reduce") == 0) && !is_null(st, C_WAITPCT)
        && pct >= 20 && wf >= 1 && paps == 0) {
        size_word(sqlite3_column_int64(st, C_MAXB), sz, sizeof(sz));
        fprintf(out, "  %s loses %.1f %% of its time waiting for rank %d (last in %d of %d "
                "operations; worst case imbalance %.2f x the operation's own time; rule "
                "'wait'): try --algo '%s:<=%s=%s(arrival=history)'\n", where, pct,
                sqlite3_column_int(st, C_LAST), sqlite3_column_int(st, C_LASTN),
                sqlite3_column_int(st, C_OPS), wf, coll, sz,
                strcmp(coll, "allreduce") == 0 ? "prr" : "clv");
        return 1;
    }
    if (strcmp(coll, "allreduce") == 0 && sqlite3_column_int64(st, C_MINB) >= 65536 && wf < 1
        && other == 0) {
        size_word(sqlite3_column_int64(st, C_MINB), sz, sizeof(sz));
        fprintf(out, "  %s sends %s-byte and larger messages with balanced arrivals (worst "
                "case imbalance %.2f x the operation's own time; rule 'large'): try --algo "
                "'allreduce:>=%s=%s'\n", where, sz, wf, sz,
                size > 0 && (size & (size - 1)) == 0 ? "rabenseifner" : "ring");
        return 1;
    }
    return 0;
}

static void header(FILE *out, sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    const char *keys[] = { "command", "ranks", "calls", "ops", "rules" };
    char v[5][512] = { "", "", "", "", "" };

    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL)
        == SQLITE_OK)
        for (int i = 0; i < 5; i++) {
            sqlite3_bind_text(st, 1, keys[i], -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW)
                snprintf(v[i], sizeof(v[i]), "%s", text(st, 0));
            sqlite3_reset(st);
        }
    sqlite3_finalize(st);
    fprintf(out, "Application trace: %s ranks, %s calls, %s operations matched\n", v[1], v[2],
            v[3]);
    fprintf(out, "Program: %s\n", v[0][0] ? v[0] : "(not recorded)");
    fprintf(out, "Rules: %s\n", v[4][0] ? v[4] : "none (trace only)");
}

static cm_status_t report_text(sqlite3 *db, sqlite3_stmt *st, FILE *out)
{
    int n = 0, advised = 0;

    header(out, db);
    fputs("\nCollectives by call site, ranked by time lost waiting (times in us; spread = "
          "worst case\nimbalance time, mean/max; factors = average/worst case imbalance "
          "over the operation's own time)\n", out);
    fprintf(out, "%-24s %-20s %6s %-17s %-14s %10s %9s %9s %6s %6s %10s %7s  %-14s %s\n",
            "site", "collective", "calls", "bytes", "algorithm", "mean time", "spread",
            "max", "avg f", "worst", "lost wait", "wait %", "last rank", "fallbacks");
    while (sqlite3_step(st) == SQLITE_ROW) {
        text_row(out, st);
        n++;
    }
    if (n == 0)
        fputs("(no collective calls)\n", out);
    fputs("\nAdvice (--algo rules; docs/analysis-db.md, \"Advice for application traces\")\n",
          out);
    sqlite3_reset(st);
    while (sqlite3_step(st) == SQLITE_ROW)
        advised += advise_site(out, st);
    if (advised == 0)
        fputs("  none: no call site meets a rule\n", out);
    return CM_OK;
}

static void csv_field(FILE *out, sqlite3_stmt *st, int c)
{
    const char *s = text(st, c);

    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static cm_status_t report_table(sqlite3_stmt *st, an_format_t fmt, FILE *out)
{
    int row = 0;

    if (fmt == AN_FMT_CSV) {
        fputs("# table: mpi_sites\n", out);
        for (int c = 0; c < C_N; c++)
            fprintf(out, "%s%s", c ? "," : "", col_names[c]);
        fputc('\n', out);
    } else {
        fputs("{\"kind\": \"mpi\", \"sites\": [", out);
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (fmt == AN_FMT_JSON)
            fputs(row++ ? ",\n {" : "\n {", out);
        for (int c = 0; c < C_N; c++) {
            if (fmt == AN_FMT_CSV) {
                if (c)
                    fputc(',', out);
                csv_field(out, st, c);
                continue;
            }
            fprintf(out, "%s\"%s\": ", c ? ", " : "", col_names[c]);
            if (is_null(st, c))
                fputs("null", out);
            else if (sqlite3_column_type(st, c) == SQLITE_TEXT)
                json_string(out, text(st, c));
            else
                fputs(text(st, c), out);
        }
        fputs(fmt == AN_FMT_CSV ? "\n" : "}", out);
    }
    if (fmt == AN_FMT_JSON)
        fputs("\n]}\n", out);
    return CM_OK;
}

cm_status_t an_mpi_report(sqlite3 *db, const char *path, const an_report_opts_t *opts,
                          FILE *out, cm_err_t *err)
{
    sqlite3_stmt *st = NULL;
    cm_status_t ret;

    if (sqlite3_prepare_v2(db, site_sql, -1, &st, NULL) != SQLITE_OK) {
        ret = an_db_is_busy(sqlite3_errcode(db))
            ? CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "is locked by another process")
            : CM_ERR_AT(err, CM_ERR_INVALID, path, 0, 0, "not a papanalyze database of an "
                        "application trace: %s", sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return ret;
    }
    if (opts->format == AN_FMT_TEXT)
        ret = report_text(db, st, out);
    else
        ret = report_table(st, opts->format, out);
    sqlite3_finalize(st);
    return ret;
}
