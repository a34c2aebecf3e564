/*
 * agree.c - gsum's agreement across ranks: every option that must be the same on every
 * rank is compared with rank 0's, and a step that may fail on some ranks only
 * is agreed on before the next collective one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/gsum/gsum_int.h"

/* What must be the same on every rank, in a form that MPI can gather. */
typedef struct gsum_agreed {
    int64_t  native, iters, warmup, dtype, op, trace, links, nsizes;
    uint64_t sizes[GSUM_SIZES_MAX];
    uint64_t tree_hash;                 /* of the whole -t name */
    char     tree[64];                  /* "" = the first tree; shown cut to 63 bytes */
} gsum_agreed_t;

enum { AG_MODE, AG_TREE, AG_ITERS, AG_WARMUP, AG_SIZES, AG_TYPE, AG_OP, AG_TRACE, AG_LINKS,
       AG_N };

static void agreed_of(const gsum_opts_t *o, gsum_agreed_t *a)
{
    memset(a, 0, sizeof(*a));
    a->native = o->native;
    a->iters = o->iters;
    a->warmup = o->warmup;
    a->dtype = o->dtype;
    a->op = o->op;
    a->trace = o->trace_dir != NULL;
    a->links = o->links;
    a->nsizes = o->nsizes;
    for (int i = 0; i < o->nsizes; i++)
        a->sizes[i] = o->sizes[i];
    snprintf(a->tree, sizeof(a->tree), "%s", o->tree ? o->tree : "");
    a->tree_hash = rt_hash_fnv1a(o->tree ? o->tree : "", o->tree ? strlen(o->tree) : 0);
}

static int agreed_same(const gsum_agreed_t *a, const gsum_agreed_t *b, int field)
{
    switch (field) {
    case AG_MODE:   return a->native == b->native;
    case AG_TREE:   return a->native || b->native || a->tree_hash == b->tree_hash;
    case AG_ITERS:  return a->iters == b->iters;
    case AG_WARMUP: return a->warmup == b->warmup;
    case AG_SIZES:  return a->nsizes == b->nsizes &&
                           memcmp(a->sizes, b->sizes, sizeof(a->sizes)) == 0;
    case AG_TYPE:   return !a->native || !b->native || a->dtype == b->dtype;
    case AG_OP:     return !a->native || !b->native || a->op == b->op;
    case AG_LINKS:  return a->native || b->native || a->links == b->links;
    default:        return a->trace == b->trace;
    }
}

/* The option as the user would write it: "-n 500", "-s 4,256". */
static const char *agreed_text(const gsum_agreed_t *a, int field, char *buf, size_t size)
{
    static const char *const types[] = { "int32", "int64", "double", "float" };
    static const char *const ops[] = { "sum", "min", "max" };
    size_t len;
    char name[32];

    switch (field) {
    case AG_MODE:   snprintf(buf, size, "%s", a->native ? "--native" : "-p (a pathmap)"); break;
    case AG_TREE:   snprintf(buf, size, "-t %s", a->tree[0] ? a->tree : "(the first tree)"); break;
    case AG_ITERS:  snprintf(buf, size, "-n %lld", (long long)a->iters); break;
    case AG_WARMUP: snprintf(buf, size, "-w %lld", (long long)a->warmup); break;
    case AG_TYPE:   snprintf(buf, size, "--type %s", types[a->dtype % 4]); break;
    case AG_OP:     snprintf(buf, size, "--op %s", ops[a->op % 3]); break;
    case AG_TRACE:  snprintf(buf, size, "%s", a->trace ? "--trace" : "no --trace"); break;
    case AG_LINKS:  snprintf(buf, size, "--links %s", gsum_links_names[a->links != 0]); break;
    default:
        len = (size_t)snprintf(buf, size, "-s ");
        for (int64_t i = 0; i < a->nsizes && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "",
                                    cm_opt_size_name(a->sizes[i], name, sizeof(name)));
        break;
    }
    return buf;
}

/*
 * Collective: every rank compares its options with rank 0's and says, for
 * each option that differs somewhere, which rank differs and how.  0 when
 * all agree.  (The pathmap is compared by content later, by rt_exec_create:
 * ranks may read it from different paths.)
 */
int gsum_agree_options(const gsum_opts_t *o)
{
    gsum_agreed_t mine, *all;
    int size, differ = 0;
    char a[640], b[640];

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    agreed_of(o, &mine);
    if ((all = malloc((size_t)size * sizeof(*all))) == NULL) {
        fprintf(stderr, "gsum: rank %d: out of memory comparing options\n", g_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE,
                  MPI_COMM_WORLD);
    for (int f = 0; f < AG_N; f++) {
        int r = 1;

        while (r < size && agreed_same(&all[0], &all[r], f))
            r++;
        if (r == size)
            continue;
        differ = 1;
        if (!agreed_same(&all[0], &mine, f))
            fprintf(stderr, "gsum: rank %d: %s differs from rank 0's %s\n", g_rank,
                    agreed_text(&mine, f, a, sizeof(a)), agreed_text(&all[0], f, b, sizeof(b)));
        else
            fprintf(stderr, "gsum: rank %d: rank %d's %s differs from rank 0's %s\n", g_rank,
                    r, agreed_text(&all[r], f, a, sizeof(a)),
                    agreed_text(&all[0], f, b, sizeof(b)));
    }
    if (differ && g_rank == 0)
        fprintf(stderr, "gsum: give every rank the same options\n");
    free(all);
    return differ;
}

/*
 * Collective: 0 when every rank's step succeeded.  Otherwise -1 everywhere;
 * a failing rank has said why, and the others name the first that failed.
 */
int gsum_agree_all(cm_status_t st)
{
    char prefix[32];
    cm_err_t err;

    cm_err_clear(&err);
    if (rt_mpi_agree(MPI_COMM_WORLD, st, &err) == CM_OK)
        return 0;
    snprintf(prefix, sizeof(prefix), "gsum: rank %d: ", g_rank);
    if (st == CM_OK)
        cm_err_print(stderr, prefix, &err);
    return -1;
}
