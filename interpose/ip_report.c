/*
 * ip_report.c - paprun --report: per call site, what the program's
 * collectives cost (ip_report_int.h).
 *
 * Counting.  ip_report_add runs on every intercepted call, from any
 * thread of an MPI_THREAD_MULTIPLE program, so its common path takes no
 * lock: each thread counts into a table of its own, an open-addressing
 * hash table keyed by (site address, function, algorithm pointer), found
 * through a thread-local pointer.  A thread's first call on a report
 * allocates its table and links it into the report's list under the
 * report's mutex; the table belongs to the report from then on (it
 * outlives the thread and is freed by ip_report_free).  Each report has a
 * generation number, unique in the process, which the thread-local pointer
 * is tagged with, so a thread never writes into the table of a report
 * that was freed, even one whose memory a new report reuses.
 *
 * Printing (collective).  Each rank merges its threads' tables, names
 * every site with cm_site_name ("MODULE+0xOFFSET", the same on every rank
 * whatever the address space layout), serialises its rows and sends them
 * to rank 0 (PMPI_Gather of the sizes, PMPI_Gatherv of the bytes: this
 * code lives inside the interposing library, so it calls PMPI_ only).
 * Rank 0 joins the rows by (site name, function, algorithm text), labels
 * each site once (addr2line on its module for function and file:line,
 * else dladdr's symbol, else the module and offset), sorts by the time
 * lost waiting and prints one table.
 *
 * Workload: a handful to a few hundred distinct rows per thread; a call
 * costs a hash and a few additions.  At MPI_Finalize the other threads
 * have completed their MPI calls (the MPI standard requires it), so
 * reading their tables then needs no lock.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_site.h"
#include "interpose/ip_report_int.h"

/* One (site, function, algorithm) of one thread, or of one rank once
   merged. */
/* An auto rule's choices on a row: candidate names and how often each
   was chosen (at most IP_REPORT_CHOICES candidates: RT_AUTO_CAND_MAX). */
enum { IP_REPORT_CHOICES = 8 };
typedef struct ip_report_choices {
    uint32_t    n;
    const char *name[IP_REPORT_CHOICES];
    uint64_t    count[IP_REPORT_CHOICES];
} ip_report_choices_t;

typedef struct ip_report_row {
    const void    *site;            /* NULL: free slot */
    const char    *algo;
    ins_mpi_func_t func;
    uint64_t       calls, bytes, ns, ns_min, ns_max;
    uint64_t       fb[INS_FB_NREASONS];
    ip_report_choices_t chose;      /* auto: what it chose */
} ip_report_row_t;

/* A thread's table (open addressing, linear probing, at most half full). */
typedef struct ip_report_tab {
    struct ip_report_tab *next;     /* the report's list */
    size_t                cap, n;   /* cap a power of two */
    ip_report_row_t      *rows;
} ip_report_tab_t;

struct ip_report {
    pthread_mutex_t   lock;         /* guards tabs */
    ip_report_tab_t  *tabs;
    uint64_t          gen;          /* unique in the process, never 0 */
    atomic_uint_least64_t dropped;  /* calls not counted: out of memory */
};

static atomic_uint_least64_t ip_report_gen_next = 1;

/* The calling thread's table and the generation of the report it
   belongs to (0: none yet).  initial-exec: the library is preloaded, so
   its TLS is in the static block and each access is one load, not a call
   to __tls_get_addr (the add is on the path of every intercepted call). */
#define IP_REPORT_TLS __thread __attribute__((tls_model("initial-exec")))
static IP_REPORT_TLS ip_report_tab_t *ip_report_tl_tab;
static IP_REPORT_TLS uint64_t ip_report_tl_gen;

enum { IP_REPORT_TAB_CAP0 = 16 };

ip_report_t *ip_report_create(void)
{
    ip_report_t *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return NULL;
    pthread_mutex_init(&r->lock, NULL);
    r->gen = atomic_fetch_add(&ip_report_gen_next, 1);
    atomic_init(&r->dropped, 0);
    return r;
}

void ip_report_free(ip_report_t *r)
{
    if (r == NULL)
        return;
    for (ip_report_tab_t *t = r->tabs, *next; t != NULL; t = next) {
        next = t->next;
        free(t->rows);
        free(t);
    }
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* ---- the per-thread tables -------------------------------------------- */

static size_t row_hash(const void *site, ins_mpi_func_t func, const char *algo)
{
    uint64_t h = (uint64_t)(uintptr_t)site * 0x9e3779b97f4a7c15u;

    h ^= ((uint64_t)(uintptr_t)algo + (uint64_t)func) * 0xc2b2ae3d27d4eb4fu;
    return (size_t)(h ^ (h >> 29));
}

static ip_report_row_t *tab_slot(ip_report_row_t *rows, size_t cap, const void *site,
                                 ins_mpi_func_t func, const char *algo)
{
    size_t i = row_hash(site, func, algo) & (cap - 1);

    while (rows[i].site != NULL &&
           (rows[i].site != site || rows[i].func != func || rows[i].algo != algo))
        i = (i + 1) & (cap - 1);
    return &rows[i];
}

/* Doubles t's capacity; 0 on success, -1 (t unchanged) out of memory. */
static int tab_grow(ip_report_tab_t *t)
{
    size_t cap = t->cap ? 2 * t->cap : IP_REPORT_TAB_CAP0;
    ip_report_row_t *rows = calloc(cap, sizeof(*rows));

    if (rows == NULL)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->rows[i].site != NULL)
            *tab_slot(rows, cap, t->rows[i].site, t->rows[i].func, t->rows[i].algo) = t->rows[i];
    free(t->rows);
    t->rows = rows;
    t->cap = cap;
    return 0;
}

/* The row of (site, func, algo) in t, added empty if new; NULL out of
   memory. */
static ip_report_row_t *tab_row(ip_report_tab_t *t, const void *site, ins_mpi_func_t func,
                                const char *algo)
{
    if (t->cap != 0) {
        ip_report_row_t *row = tab_slot(t->rows, t->cap, site, func, algo);
        if (row->site != NULL)
            return row;
    }
    if (2 * (t->n + 1) > t->cap && tab_grow(t) != 0)
        return NULL;
    ip_report_row_t *row = tab_slot(t->rows, t->cap, site, func, algo);
    row->site = site;
    row->func = func;
    row->algo = algo;
    row->ns_min = UINT64_MAX;
    t->n++;
    return row;
}

/* Adds n choices of `name` to c (names compared as text, so that rows of
   other ranks join; a name beyond IP_REPORT_CHOICES is not counted). */
static void choices_add(ip_report_choices_t *c, const char *name, uint64_t n)
{
    uint32_t i;

    for (i = 0; i < c->n && strcmp(c->name[i], name) != 0; i++)
        ;
    if (i == IP_REPORT_CHOICES)
        return;
    if (i == c->n) {
        c->name[c->n++] = name;
        c->count[i] = 0;
    }
    c->count[i] += n;
}

static void choices_merge(ip_report_choices_t *dst, const ip_report_choices_t *src)
{
    for (uint32_t i = 0; i < src->n; i++)
        choices_add(dst, src->name[i], src->count[i]);
}

/* Adds src's figures into dst (same key). */
static void row_merge(ip_report_row_t *dst, const ip_report_row_t *src)
{
    dst->calls += src->calls;
    dst->bytes += src->bytes;
    dst->ns += src->ns;
    if (src->ns_min < dst->ns_min)
        dst->ns_min = src->ns_min;
    if (src->ns_max > dst->ns_max)
        dst->ns_max = src->ns_max;
    for (int k = 0; k < INS_FB_NREASONS; k++)
        dst->fb[k] += src->fb[k];
    choices_merge(&dst->chose, &src->chose);
}

/* The calling thread's table of r, registered on first use; NULL out of
   memory. */
static ip_report_tab_t *thread_tab(ip_report_t *r)
{
    if (ip_report_tl_gen == r->gen)
        return ip_report_tl_tab;
    ip_report_tab_t *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    pthread_mutex_lock(&r->lock);
    t->next = r->tabs;
    r->tabs = t;
    pthread_mutex_unlock(&r->lock);
    ip_report_tl_tab = t;
    ip_report_tl_gen = r->gen;
    return t;
}

void ip_report_add(ip_report_t *r, const void *site, ins_mpi_func_t func, const char *algo,
                   ins_mpi_fallback_t fallback, uint64_t bytes, uint64_t ns)
{
    /* NULL marks a free slot; a return address is never NULL, but a NULL
       site would be counted under address 1 (named "?+0x1"). */
    if (site == NULL)
        site = (const void *)1;
    ip_report_tab_t *t = thread_tab(r);
    ip_report_row_t *row = t != NULL ? tab_row(t, site, func, algo) : NULL;

    if (row == NULL) {
        atomic_fetch_add(&r->dropped, 1);
        return;
    }
    row->calls++;
    row->bytes += bytes;
    row->ns += ns;
    if (ns < row->ns_min)
        row->ns_min = ns;
    if (ns > row->ns_max)
        row->ns_max = ns;
    if ((unsigned)fallback < INS_FB_NREASONS)
        row->fb[fallback]++;
}

void ip_report_chose(ip_report_t *r, const void *site, ins_mpi_func_t func, const char *algo,
                     const char *chosen)
{
    if (site == NULL)
        site = (const void *)1;
    ip_report_tab_t *t = thread_tab(r);
    ip_report_row_t *row = t != NULL ? tab_row(t, site, func, algo) : NULL;

    if (row != NULL && chosen != NULL)
        choices_add(&row->chose, chosen, 1);
}

/* ---- a rank's rows as bytes -------------------------------------------- */

/* A growing byte buffer; `failed` sticks once an allocation failed. */
typedef struct ip_report_buf {
    char  *p;
    size_t n, cap;
    int    failed;
} ip_report_buf_t;

static void buf_put(ip_report_buf_t *b, const void *data, size_t len)
{
    if (b->failed)
        return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + len)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

static void buf_u64(ip_report_buf_t *b, uint64_t v) { buf_put(b, &v, sizeof(v)); }
static void buf_str(ip_report_buf_t *b, const char *s) { buf_put(b, s, strlen(s) + 1); }

/*
 * A rank's message: u64 dropped, u64 nrows, then per row the strings
 * site name, dladdr's symbol of the call (or ""), algorithm text, each NUL-terminated,
 * and the u64s func, calls, bytes, ns, ns_min, ns_max, fb[INS_FB_NREASONS],
 * then u64 the number of auto choices and per choice its name (a string)
 * and u64 count.
 * All ranks run the same binary, so the host's byte order is the format's.
 */
static void row_serialise(ip_report_buf_t *b, const ip_report_row_t *row)
{
    char name[4096 + 64];
    Dl_info info;
    /* The site is a return address; the call is the byte before it (a
       call to a function that does not return may be a function's last
       instruction, its return address the next function's first). */
    const char *call = (const char *)row->site - 1;

    buf_str(b, cm_site_name(row->site, name, sizeof(name)));
    buf_str(b, dladdr(call, &info) != 0 && info.dli_sname != NULL ? info.dli_sname : "");
    buf_str(b, row->algo != NULL ? row->algo : "");
    buf_u64(b, (uint64_t)row->func);
    buf_u64(b, row->calls);
    buf_u64(b, row->bytes);
    buf_u64(b, row->ns);
    buf_u64(b, row->ns_min);
    buf_u64(b, row->ns_max);
    for (int k = 0; k < INS_FB_NREASONS; k++)
        buf_u64(b, row->fb[k]);
    buf_u64(b, row->chose.n);
    for (uint32_t i = 0; i < row->chose.n; i++) {
        buf_str(b, row->chose.name[i]);
        buf_u64(b, row->chose.count[i]);
    }
}

/* This rank's message: its threads' tables merged, serialised.  Out of
   memory, the message says only how many calls it could not count. */
static void rank_serialise(ip_report_t *r, ip_report_buf_t *b)
{
    ip_report_tab_t merged = { 0 };
    uint64_t dropped = atomic_load(&r->dropped), lost = 0;

    pthread_mutex_lock(&r->lock);
    for (const ip_report_tab_t *t = r->tabs; t != NULL; t = t->next)
        for (size_t i = 0; i < t->cap; i++) {
            const ip_report_row_t *src = &t->rows[i];
            if (src->site == NULL)
                continue;
            ip_report_row_t *dst = tab_row(&merged, src->site, src->func, src->algo);
            if (dst != NULL)
                row_merge(dst, src);
            else
                lost += src->calls;
        }
    pthread_mutex_unlock(&r->lock);
    buf_u64(b, dropped + lost);
    buf_u64(b, merged.n);
    for (size_t i = 0; i < merged.cap; i++)
        if (merged.rows[i].site != NULL)
            row_serialise(b, &merged.rows[i]);
    if (b->failed || b->n > INT_MAX) {
        uint64_t all = dropped + lost;
        for (size_t i = 0; i < merged.cap; i++)
            all += merged.rows[i].calls;
        b->failed = 0;
        b->n = 0;
        buf_u64(b, all);
        buf_u64(b, 0);
    }
    free(merged.rows);
}

/* ---- rank 0: the rows of every rank -------------------------------------- */

/* One rank's row as rank 0 reads it (strings point into the gathered
   bytes). */
typedef struct ip_report_rrow {
    const char *site, *sym, *algo;
    int         rank;
    uint64_t    func, calls, bytes, ns, ns_min, ns_max;
    uint64_t    fb[INS_FB_NREASONS];
    ip_report_choices_t chose;
} ip_report_rrow_t;

/* Reads a NUL-terminated string at *pos of [p, p+n); NULL if cut short. */
static const char *get_str(const char *p, size_t n, size_t *pos)
{
    const char *s = p + *pos;
    const char *end = memchr(s, '\0', n - *pos);

    if (end == NULL)
        return NULL;
    *pos += (size_t)(end - s) + 1;
    return s;
}

static int get_u64(const char *p, size_t n, size_t *pos, uint64_t *v)
{
    if (n - *pos < sizeof(*v))
        return -1;
    memcpy(v, p + *pos, sizeof(*v));
    *pos += sizeof(*v);
    return 0;
}

static int get_row(const char *p, size_t n, size_t *pos, ip_report_rrow_t *row)
{
    if ((row->site = get_str(p, n, pos)) == NULL || (row->sym = get_str(p, n, pos)) == NULL ||
        (row->algo = get_str(p, n, pos)) == NULL)
        return -1;
    uint64_t *f[] = { &row->func, &row->calls, &row->bytes, &row->ns, &row->ns_min, &row->ns_max };
    for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
        if (get_u64(p, n, pos, f[k]) != 0)
            return -1;
    for (int k = 0; k < INS_FB_NREASONS; k++)
        if (get_u64(p, n, pos, &row->fb[k]) != 0)
            return -1;
    uint64_t nc, count;
    const char *name;
    if (get_u64(p, n, pos, &nc) != 0 || nc > IP_REPORT_CHOICES)
        return -1;
    row->chose.n = 0;
    for (uint64_t i = 0; i < nc; i++) {
        if ((name = get_str(p, n, pos)) == NULL || get_u64(p, n, pos, &count) != 0)
            return -1;
        choices_add(&row->chose, name, count);
    }
    return row->func < INS_MPI_NFUNCS ? 0 : -1;
}

/* Every rank's rows from the gathered bytes, into *rows_p (caller frees);
   the number of rows, or -1 out of memory or on a malformed message. */
static long parse_all(const char *all, const int *sizes, int nranks, uint64_t *dropped_p,
                      ip_report_rrow_t **rows_p)
{
    ip_report_rrow_t *rows = NULL;
    size_t nrows = 0, cap = 0, off = 0;

    *dropped_p = 0;
    for (int rank = 0; rank < nranks; off += (size_t)sizes[rank], rank++) {
        const char *p = all + off;
        size_t n = (size_t)sizes[rank], pos = 0;
        uint64_t dropped, count;
        if (get_u64(p, n, &pos, &dropped) != 0 || get_u64(p, n, &pos, &count) != 0)
            goto fail;
        *dropped_p += dropped;
        for (uint64_t i = 0; i < count; i++, nrows++) {
            if (nrows == cap) {
                cap = cap ? 2 * cap : 64;
                ip_report_rrow_t *grown = realloc(rows, cap * sizeof(*rows));
                if (grown == NULL)
                    goto fail;
                rows = grown;
            }
            rows[nrows].rank = rank;
            if (get_row(p, n, &pos, &rows[nrows]) != 0)
                goto fail;
        }
    }
    *rows_p = rows;
    return (long)nrows;
fail:
    free(rows);
    return -1;
}

/* ---- rank 0: joined rows ------------------------------------------------- */

/* One line of the table: a (site name, function, algorithm) over ranks. */
typedef struct ip_report_line {
    const char *site, *sym, *algo;
    char       *label;              /* malloc'ed; NULL: not resolved */
    uint64_t    func;
    uint64_t    calls_max, calls_sum, bytes_sum;
    double      mean_sum;           /* sum over ranks of the rank's mean, ns */
    double      mean_min, mean_max; /* ns */
    int         nranks, last;       /* ranks that made the call; the fastest */
    uint64_t    fb[INS_FB_NREASONS];/* the most of any rank, per reason */
    ip_report_choices_t chose;      /* auto: the choices, summed over ranks */
    char       *shown;              /* malloc'ed "auto: prr 62%, ring 38%"; NULL: algo */
} ip_report_line_t;

static int rrow_cmp(const void *pa, const void *pb)
{
    const ip_report_rrow_t *a = pa, *b = pb;
    int c = strcmp(a->site, b->site);

    if (c == 0)
        c = (a->func > b->func) - (a->func < b->func);
    if (c == 0)
        c = strcmp(a->algo, b->algo);
    if (c == 0)
        c = (a->rank > b->rank) - (a->rank < b->rank);
    return c;
}

static int line_has(const ip_report_line_t *line, const ip_report_rrow_t *row)
{
    return strcmp(line->site, row->site) == 0 && line->func == row->func &&
           strcmp(line->algo, row->algo) == 0;
}

/* Adds one rank's row (ranks in increasing order) into line. */
static void line_add(ip_report_line_t *line, const ip_report_rrow_t *row)
{
    double mean = (double)row->ns / (double)row->calls;

    if (line->nranks == 0) {
        line->site = row->site;
        line->algo = row->algo;
        line->func = row->func;
        line->sym = row->sym;
        line->mean_min = line->mean_max = mean;
        line->last = row->rank;
    }
    if (line->sym[0] == '\0')
        line->sym = row->sym;
    if (row->calls > line->calls_max)
        line->calls_max = row->calls;
    line->calls_sum += row->calls;
    line->bytes_sum += row->bytes;
    line->mean_sum += mean;
    if (mean < line->mean_min) {
        line->mean_min = mean;
        line->last = row->rank;
    }
    if (mean > line->mean_max)
        line->mean_max = mean;
    for (int k = 0; k < INS_FB_NREASONS; k++)
        if (row->fb[k] > line->fb[k])
            line->fb[k] = row->fb[k];
    choices_merge(&line->chose, &row->chose);
    line->nranks++;
}

/* Adds b into a: the same rank's rows of one key (two algorithm pointers
   with the same text). */
static void rrow_merge(ip_report_rrow_t *a, const ip_report_rrow_t *b)
{
    a->calls += b->calls;
    a->bytes += b->bytes;
    a->ns += b->ns;
    a->ns_min = b->ns_min < a->ns_min ? b->ns_min : a->ns_min;
    a->ns_max = b->ns_max > a->ns_max ? b->ns_max : a->ns_max;
    for (int k = 0; k < INS_FB_NREASONS; k++)
        a->fb[k] += b->fb[k];
    choices_merge(&a->chose, &b->chose);
    if (a->sym[0] == '\0')
        a->sym = b->sym;
}

/* rows joined into lines, sorted by site name; the number of lines, or
   -1 out of memory.  Rows with no calls are skipped (none are sent). */
static long join_rows(ip_report_rrow_t *rows, long nrows, ip_report_line_t **lines_p)
{
    ip_report_line_t *lines = calloc(nrows > 0 ? (size_t)nrows : 1, sizeof(*lines));
    long n = 0;

    if (lines == NULL)
        return -1;
    if (nrows > 0)
        qsort(rows, (size_t)nrows, sizeof(*rows), rrow_cmp);
    for (long i = 0; i < nrows; i++) {
        ip_report_rrow_t acc = rows[i];
        while (i + 1 < nrows && rrow_cmp(&rows[i + 1], &acc) == 0)
            rrow_merge(&acc, &rows[++i]);
        if (acc.calls == 0)
            continue;
        if (n == 0 || !line_has(&lines[n - 1], &acc))
            n++;
        line_add(&lines[n - 1], &acc);
    }
    *lines_p = lines;
    return n;
}

/* ---- rank 0: labels -------------------------------------------------------- */

/* Splits a site name "MODULE+0xOFFSET" at its last "+0x": the module's
   length and the offset; -1 for a site in no module ("?+0x..."). */
static int site_split(const char *site, size_t *mlen_p, uint64_t *off_p)
{
    const char *plus = NULL;

    for (const char *p = strstr(site, "+0x"); p != NULL; p = strstr(p + 1, "+0x"))
        plus = p;
    if (plus == NULL || (plus - site == 1 && site[0] == '?'))
        return -1;
    char *end;
    *off_p = strtoull(plus + 3, &end, 16);
    *mlen_p = (size_t)(plus - site);
    return *end == '\0' && plus != site ? 0 : -1;
}

static const char *base_name(const char *path, size_t len)
{
    for (size_t i = len; i > 0; i--)
        if (path[i - 1] == '/')
            return path + i;
    return path;
}

/* The label from addr2line's two lines (function, file:line), or NULL
   when it knew neither.  "file:line (discriminator N)" loses its tail. */
static char *label_from_addr2line(char *fn, char *loc)
{
    fn[strcspn(fn, "\n")] = '\0';
    loc[strcspn(loc, "\n")] = '\0';
    char *disc = strstr(loc, " (discriminator");
    if (disc != NULL)
        *disc = '\0';
    char *colon = strrchr(loc, ':');
    int loc_known = strncmp(loc, "??", 2) != 0 && colon != NULL && colon[1] != '\0' &&
                    strcmp(colon + 1, "?") != 0 && strcmp(colon + 1, "0") != 0;
    int fn_known = fn[0] != '\0' && strcmp(fn, "??") != 0;
    const char *file = loc_known ? base_name(loc, strlen(loc)) : "";
    char *label = NULL;

    if (fn_known && loc_known) {
        if (asprintf(&label, "%s %s", fn, file) < 0)
            label = NULL;
    } else if (fn_known || loc_known) {
        label = strdup(fn_known ? fn : file);
    }
    return label;
}

/* Appends s to the command, single-quoted for sh. */
static void buf_quoted(ip_report_buf_t *b, const char *s, size_t len)
{
    buf_put(b, "'", 1);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\'')
            buf_put(b, "'\\''", 4);
        else
            buf_put(b, &s[i], 1);
    }
    buf_put(b, "'", 1);
}

/*
 * Labels every line whose site is in the module of lines[first] (and not
 * yet labelled) with one run of addr2line: `addr2line -f -C -e MODULE
 * 0xOFFSET-1 ...` (a site is a return address; one byte back is the call
 * instruction).  LD_PRELOAD is dropped so that this library is not loaded
 * into addr2line.  A missing or failing addr2line leaves them unlabelled.
 */
static void label_module(ip_report_line_t *lines, long n, long first)
{
    size_t mlen;
    uint64_t off;
    ip_report_buf_t cmd = { 0 };
    char a[64];

    if (site_split(lines[first].site, &mlen, &off) != 0)
        return;
    buf_str(&cmd, "unset LD_PRELOAD; exec addr2line -f -C -e ");
    cmd.n--;
    buf_quoted(&cmd, lines[first].site, mlen);
    for (long i = first; i < n; i++) {
        size_t ml;
        if (lines[i].label == NULL && site_split(lines[i].site, &ml, &off) == 0 && ml == mlen &&
            strncmp(lines[i].site, lines[first].site, mlen) == 0) {
            snprintf(a, sizeof(a), " 0x%" PRIx64, off > 0 ? off - 1 : 0);
            buf_put(&cmd, a, strlen(a));
        }
    }
    buf_str(&cmd, " 2>/dev/null");
    FILE *p = cmd.failed ? NULL : popen(cmd.p, "r");
    free(cmd.p);
    if (p == NULL)
        return;
    /* Whole lines, however long (C++ names can take kilobytes). */
    char *fn = NULL, *loc = NULL;
    size_t fn_cap = 0, loc_cap = 0;
    for (long i = first; i < n; i++) {
        size_t ml;
        if (lines[i].label != NULL || site_split(lines[i].site, &ml, &off) != 0 || ml != mlen ||
            strncmp(lines[i].site, lines[first].site, mlen) != 0)
            continue;
        if (getline(&fn, &fn_cap, p) < 0 || getline(&loc, &loc_cap, p) < 0)
            break;
        lines[i].label = label_from_addr2line(fn, loc);
        if (lines[i].label == NULL)
            lines[i].label = strdup("");   /* asked: not asked again */
    }
    while (getline(&fn, &fn_cap, p) >= 0)
        ;
    free(fn);
    free(loc);
    pclose(p);
}

/* Lines sorted by site name share one site's label: addr2line is asked
   once per module and site; a site it could not name gets dladdr's
   symbol, else "module+0xOFFSET" with the module's base name. */
static void label_lines(ip_report_line_t *lines, long n)
{
    for (long i = 0; i < n; i++) {
        if (i > 0 && strcmp(lines[i].site, lines[i - 1].site) == 0) {
            free(lines[i].label);
            lines[i].label = lines[i - 1].label != NULL ? strdup(lines[i - 1].label) : NULL;
            continue;
        }
        if (lines[i].label == NULL)
            label_module(lines, n, i);
        if (lines[i].label != NULL && lines[i].label[0] != '\0')
            continue;
        free(lines[i].label);
        size_t mlen;
        uint64_t off;
        if (lines[i].sym[0] != '\0')
            lines[i].label = strdup(lines[i].sym);
        else if (site_split(lines[i].site, &mlen, &off) == 0)
            lines[i].label = strdup(base_name(lines[i].site, strlen(lines[i].site)));
        else
            lines[i].label = strdup(lines[i].site);
    }
}

/* ---- rank 0: the table ----------------------------------------------------- */

static double line_spread(const ip_report_line_t *l) { return l->mean_max - l->mean_min; }
static double line_mean(const ip_report_line_t *l) { return l->mean_sum / l->nranks; }

/* Most time lost waiting (spread x calls) first; then most time in the
   call; then by site name, function, algorithm, so the order is total. */
static int line_cmp(const void *pa, const void *pb)
{
    const ip_report_line_t *a = pa, *b = pb;
    double la = line_spread(a) * (double)a->calls_max, lb = line_spread(b) * (double)b->calls_max;
    double ta = line_mean(a) * (double)a->calls_max, tb = line_mean(b) * (double)b->calls_max;

    if (la != lb)
        return la < lb ? 1 : -1;
    if (ta != tb)
        return ta < tb ? 1 : -1;
    int c = strcmp(a->site, b->site);
    if (c == 0)
        c = (a->func > b->func) - (a->func < b->func);
    return c != 0 ? c : strcmp(a->algo, b->algo);
}

/* "count: 12, datatype: 3" (most first, ties in the enum's order) or "-". */
static void fallback_text(const ip_report_line_t *l, char *buf, size_t size)
{
    int done[INS_FB_NREASONS] = { 0 };
    size_t n = 0;

    buf[0] = '\0';
    for (;;) {
        int best = -1;
        for (int k = 1; k < INS_FB_NREASONS; k++)
            if (!done[k] && l->fb[k] > 0 && (best < 0 || l->fb[k] > l->fb[best]))
                best = k;
        if (best < 0)
            break;
        done[best] = 1;
        int w = snprintf(buf + n, size - n, "%s%s: %" PRIu64, n ? ", " : "",
                         ins_mpi_fallback_name((ins_mpi_fallback_t)best), l->fb[best]);
        if (w < 0 || (size_t)w >= size - n)
            break;
        n += (size_t)w;
    }
    if (n == 0)
        snprintf(buf, size, "-");
}

/* Column widths: the longest cell, at least the heading; the site column
   at most IP_REPORT_SITE_MAX (a longer label gets a line of its own).
   Rows fit in IP_REPORT_COLUMNS unless a cell alone is too wide. */
enum { IP_REPORT_SITE_MAX = 24, IP_REPORT_COLUMNS = 100 };

/* "auto: prr 62%, ring 38%": an auto row's choices, most chosen first
   (ties by name), each its share of the calls auto ran, rounded; NULL
   when the row has no choice or out of memory. */
static char *choices_text(const ip_report_choices_t *c)
{
    ip_report_choices_t s = *c;
    uint64_t total = 0;
    char buf[512];
    size_t len;

    for (uint32_t i = 0; i < s.n; i++)
        total += s.count[i];
    if (total == 0)
        return NULL;
    for (uint32_t i = 1; i < s.n; i++)          /* insertion sort, s.n <= 8 */
        for (uint32_t j = i; j > 0 && (s.count[j] > s.count[j - 1] ||
                                       (s.count[j] == s.count[j - 1] &&
                                        strcmp(s.name[j], s.name[j - 1]) < 0)); j--) {
            const char *nm = s.name[j];
            uint64_t ct = s.count[j];
            s.name[j] = s.name[j - 1];
            s.count[j] = s.count[j - 1];
            s.name[j - 1] = nm;
            s.count[j - 1] = ct;
        }
    len = (size_t)snprintf(buf, sizeof(buf), "auto:");
    for (uint32_t i = 0; i < s.n && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %s %.0f%%", i ? "," : "",
                                s.name[i], 100.0 * (double)s.count[i] / (double)total);
    return strdup(buf);
}

static const char *line_algo(const ip_report_line_t *l)
{
    return l->shown != NULL ? l->shown : l->algo;
}

typedef struct ip_report_widths {
    int site, coll, calls, bytes, algo, mean, spread;
} ip_report_widths_t;

static int max_int(int a, int b) { return a > b ? a : b; }

static ip_report_widths_t widths(const ip_report_line_t *lines, long n)
{
    ip_report_widths_t w = { 4, 10, 5, 5, 9, 4, 6 };
    char cell[64];

    for (long i = 0; i < n; i++) {
        const ip_report_line_t *l = &lines[i];
        w.site = max_int(w.site, (int)strlen(l->label));
        w.coll = max_int(w.coll, (int)strlen(ins_mpi_func_name((ins_mpi_func_t)l->func)));
        w.calls = max_int(w.calls, snprintf(cell, sizeof(cell), "%" PRIu64, l->calls_max));
        w.bytes = max_int(w.bytes, snprintf(cell, sizeof(cell), "%.0f",
                                            (double)l->bytes_sum / (double)l->calls_sum));
        w.algo = max_int(w.algo, (int)strlen(line_algo(l)));
        w.mean = max_int(w.mean, snprintf(cell, sizeof(cell), "%.2f", line_mean(l) / 1e3));
        w.spread = max_int(w.spread, snprintf(cell, sizeof(cell), "%.2f", line_spread(l) / 1e3));
    }
    if (w.site > IP_REPORT_SITE_MAX)
        w.site = IP_REPORT_SITE_MAX;
    return w;
}

/* One row; the fallbacks on a line of their own below it, under the
   collective, when they would take the row past IP_REPORT_COLUMNS. */
static void print_line(FILE *out, const ip_report_line_t *l, const ip_report_widths_t *w)
{
    char fb[512], last[16];
    const char *site = l->label;

    if ((int)strlen(site) > w->site) {
        fprintf(out, "%s\n", site);
        site = "";
    }
    if (l->nranks > 1 && line_spread(l) > 0)
        snprintf(last, sizeof(last), "%d", l->last);
    else
        snprintf(last, sizeof(last), "-");
    fallback_text(l, fb, sizeof(fb));
    int len = fprintf(out, "%-*s  %-*s  %*" PRIu64 "  %*.0f  %-*s  %*.2f  %*.2f  %4s",
                      w->site, site, w->coll, ins_mpi_func_name((ins_mpi_func_t)l->func),
                      w->calls, l->calls_max, w->bytes,
                      (double)l->bytes_sum / (double)l->calls_sum, w->algo, line_algo(l), w->mean,
                      line_mean(l) / 1e3, w->spread, line_spread(l) / 1e3, last);
    if (len + 2 + (int)strlen(fb) <= IP_REPORT_COLUMNS)
        fprintf(out, "  %s\n", fb);
    else
        fprintf(out, "\n%*sfallbacks: %s\n", w->site + 2, "", fb);
}

static void print_table(FILE *out, int nranks, ip_report_line_t *lines, long n,
                        uint64_t dropped)
{
    qsort(lines, (size_t)n, sizeof(*lines), line_cmp);
    fprintf(out, "paptree report: %d rank%s; per call site and collective, most time lost "
                 "waiting first\n", nranks, nranks == 1 ? "" : "s");
    fprintf(out, "calls: per rank (the most of any rank); bytes: per call; mean: us in the "
                 "call, over ranks;\n");
    fprintf(out, "spread: us, the slowest rank's mean minus the fastest's; last: the fastest "
                 "rank, last to arrive\n");
    if (dropped > 0)
        fprintf(out, "%" PRIu64 " calls not counted (out of memory)\n", dropped);
    if (n == 0) {
        fprintf(out, "no collective calls\n");
        return;
    }
    ip_report_widths_t w = widths(lines, n);
    fprintf(out, "%-*s  %-*s  %*s  %*s  %-*s  %*s  %*s  %4s  %s\n", w.site, "site", w.coll,
            "collective", w.calls, "calls", w.bytes, "bytes", w.algo, "algorithm", w.mean,
            "mean", w.spread, "spread", "last", "fallbacks");
    for (long i = 0; i < n; i++)
        print_line(out, &lines[i], &w);
}

/* Rank 0: every rank's message (sizes[r] bytes each, in rank order in
   all) as the table. */
static void print_all(FILE *out, const char *all, const int *sizes, int nranks)
{
    ip_report_rrow_t *rows = NULL;
    ip_report_line_t *lines = NULL;
    uint64_t dropped;
    long nrows = parse_all(all, sizes, nranks, &dropped, &rows);
    long n = nrows >= 0 ? join_rows(rows, nrows, &lines) : -1;

    if (n < 0) {
        fprintf(out, "paptree report: %s\n",
                nrows < 0 ? "a rank's figures are malformed or out of memory" : "out of memory");
        free(rows);
        return;
    }
    label_lines(lines, n);
    for (long i = 0; i < n; i++)
        lines[i].shown = choices_text(&lines[i].chose);
    for (long i = 0; i < n; i++)
        if (lines[i].label == NULL) {
            fprintf(out, "paptree report: out of memory\n");
            goto free_lines;
        }
    print_table(out, nranks, lines, n, dropped);
free_lines:
    for (long i = 0; i < n; i++) {
        free(lines[i].label);
        free(lines[i].shown);
    }
    free(lines);
    free(rows);
}

/* ---- the collective -------------------------------------------------------- */

/* Rank 0 says whether it can go on (ok), every rank learns it. */
static int agree(int ok, MPI_Comm comm)
{
    return PMPI_Bcast(&ok, 1, MPI_INT, 0, comm) == MPI_SUCCESS && ok;
}

void ip_report_print(ip_report_t *r, MPI_Comm comm, FILE *out)
{
    ip_report_buf_t b = { 0 };
    int rank, nranks;
    int *sizes = NULL, *displs = NULL;
    char *all = NULL;

    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &nranks) != MPI_SUCCESS)
        return;
    rank_serialise(r, &b);
    int mine = (int)b.n;
    if (rank == 0) {
        sizes = malloc((size_t)nranks * sizeof(*sizes));
        displs = malloc((size_t)nranks * sizeof(*displs));
    }
    if (!agree(rank != 0 || (sizes != NULL && displs != NULL), comm) ||
        PMPI_Gather(&mine, 1, MPI_INT, sizes, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
        goto fail;
    if (rank == 0) {
        long long total = 0;
        for (int i = 0; i < nranks; i++) {
            displs[i] = (int)total;
            total += sizes[i];
        }
        all = total <= INT_MAX ? malloc(total > 0 ? (size_t)total : 1) : NULL;
    }
    if (!agree(rank != 0 || all != NULL, comm) ||
        PMPI_Gatherv(b.p, mine, MPI_BYTE, all, sizes, displs, MPI_BYTE, 0, comm) != MPI_SUCCESS)
        goto fail;
    if (rank == 0)
        print_all(out, all, sizes, nranks);
    goto done;
fail:
    if (rank == 0)
        fprintf(out, "paptree report: could not gather the ranks' figures\n");
done:
    if (rank == 0)
        fflush(out);
    free(all);
    free(displs);
    free(sizes);
    free(b.p);
}
