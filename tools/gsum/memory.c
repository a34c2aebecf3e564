/*
 * memory.c - gsum's memory: what a run will hold, checked against the machine before
 * anything large is allocated, and allocations that say what failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/gsum/gsum_int.h"

/* ---- memory --------------------------------------------------------- */

/* "3.0 GiB", "512.0 MiB": amounts of memory in messages. */
static const char *mem_name(uint64_t bytes, char *buf, size_t size)
{
    if (bytes >= ((uint64_t)1 << 30))
        snprintf(buf, size, "%.1f GiB", (double)bytes / (double)((uint64_t)1 << 30));
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(buf, size, "%.1f MiB", (double)bytes / (double)((uint64_t)1 << 20));
    else
        snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
    return buf;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/*
 * Gsum's own tuple buffers, sized for the sizes of -s: a thread's inputs
 * (and the expected results) hold V variants of a size, its output one
 * tuple.  V falls with the size (variants_for), so the largest size does
 * not always need the most.
 */
void gsum_tuple_buffers(const gsum_opts_t *o, size_t *in_p, size_t *out_p)
{
    size_t in = 0, out = 0;

    for (int s = 0; s < o->nsizes; s++) {
        size_t b = o->sizes[s], v = gsum_variants_for(b) * b;
        in = v > in ? v : in;
        out = b > out ? b : out;
    }
    *in_p = in;
    *out_p = out;
}

/* The machine's memory; for tests only, PAPTREE_GSUM_TEST_MEM stands in. */
static uint64_t machine_memory(void)
{
    const char *v = getenv("PAPTREE_GSUM_TEST_MEM");
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t n;
    cm_opt_t ctx;

    cm_opt_init(&ctx, "gsum");
    if (v != NULL && cm_opt_size(&ctx, "PAPTREE_GSUM_TEST_MEM", v, 1, UINT64_MAX, &n) == CM_OK)
        return n;
    return pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : UINT64_MAX;
}

/*
 * Collective, before anything large is allocated: when the ranks on one
 * machine need more memory together than it has, each of them says what
 * it needs, the others name the first, and all return -1 (exit 1).
 */
int gsum_check_memory(const gsum_opts_t *o, size_t max_bytes, const gsum_need_t *n)
{
    uint64_t need = sat_add(sat_add(sat_mul(n->threads, n->per_thread), n->expected),
                            sat_add(n->tree, n->trace));
    uint64_t node_need = need, have = machine_memory();
    int nnode = 1;
    MPI_Comm node;
    cm_status_t st = CM_OK;
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32], size[32];

    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        MPI_Allreduce(&need, &node_need, 1, MPI_UINT64_T, MPI_SUM, node);
        MPI_Comm_size(node, &nnode);
        MPI_Comm_free(&node);
    }
    if (node_need > have) {
        char tail[160], tree[96] = "", trace[96] = "";

        if (!o->native)
            snprintf(tree, sizeof(tree), " + %s of tree buffers", mem_name(n->tree, c, sizeof(c)));
        if (n->trace != 0)
            snprintf(trace, sizeof(trace), " + %s of trace buffers",
                     mem_name(n->trace, d, sizeof(d)));
        if (nnode > 1)
            snprintf(tail, sizeof(tail), "the %d ranks on this machine need %s together, and "
                     "it has %s", nnode, mem_name(node_need, e, sizeof(e)),
                     mem_name(have, f, sizeof(f)));
        else
            snprintf(tail, sizeof(tail), "this machine has %s", mem_name(have, f, sizeof(f)));
        fprintf(stderr, "gsum: -s %s needs %s of memory on rank %d (%u thread%s x %s of tuples "
                "+ %s of expected results%s%s); %s\n", cm_opt_size_name(max_bytes, size, sizeof(size)),
                mem_name(need, g, sizeof(g)), g_rank, n->threads, n->threads == 1 ? "" : "s",
                mem_name(n->per_thread, a, sizeof(a)), mem_name(n->expected, b, sizeof(b)),
                tree, trace, tail);
        st = CM_ERR_NOMEM;
    }
    return gsum_agree_all(st);
}

/* malloc that says which buffer of how many bytes it could not get. */
void *gsum_alloc(size_t bytes, const char *what, long thread)
{
    void *p = malloc(bytes ? bytes : 1);
    char m[32];

    if (p == NULL) {
        if (thread >= 0)
            fprintf(stderr, "gsum: rank %d: cannot allocate thread %ld's %s (%s): %s\n", g_rank,
                    thread, what, mem_name(bytes, m, sizeof(m)), strerror(errno));
        else
            fprintf(stderr, "gsum: rank %d: cannot allocate the %s (%s): %s\n", g_rank, what,
                    mem_name(bytes, m, sizeof(m)), strerror(errno));
    }
    return p;
}
