/*
 * an_mpi_metrics.c - an application trace's calls matched into operations,
 * and each operation's process arrival pattern.
 *
 * Matching: MPI orders the collectives on one communicator: every member
 * calls them in the same order (the MPI standard, "Correctness" of
 * collective operations).  So the calls of one rank on one communicator,
 * in the order it entered them, are numbered 0, 1, ... (seq), and the
 * calls with the same (communicator, seq) on all members are one
 * operation.  A nonblocking collective counts where it was started.
 *
 * The metrics are those of Faraj, Patarasuk and Yuan, "A Study of Process
 * Arrival Patterns for MPI Collective Operations", section 2 (the process
 * arrival pattern), with the notation of Proficz 2018, section 3: for the
 * n = comm size calls of one operation, rank i arrives at a_i (its enter,
 * taken from the earliest: min a_i = 0) and leaves at f_i;
 *
 *   e_i   = f_i - a_i                        elapsed time
 *   ē     = (1/n) sum e_i                    average elapsed time
 *   ā     = (1/n) sum a_i
 *   α     = (1/n) sum |a_i - ā|              average case imbalance time
 *   ω     = max a_i - min a_i = max a_i      worst case imbalance time
 *
 * The paper divides α and ω by the time of one point-to-point message of
 * the operation's size to get its imbalance factors; an application trace
 * has no such measurement, so they are divided by the operation's own time
 * T instead, the elapsed time of the rank that arrived last (once it is
 * there nobody waits any more: T is what the collective costs without the
 * imbalance): α/T and ω/T, the average and worst case imbalance factors
 * against the operation's own time.  Above 1, the ranks waited longer for
 * each other than the collective itself took.
 *
 * Time lost waiting, per rank: w_i = min(ω - a_i, e_i), the time from its
 * arrival until the last rank arrived (no longer than it stayed in the
 * call: a broadcast's root may leave before).  Per operation, sum w_i.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_mpi_int.h"

/* A call's place in a sort: by communicator, then k1, then k2, then index. */
typedef struct key {
    uint32_t comm;
    int64_t  k1, k2, i;
} mkey_t;

static int cmp_key(const void *a, const void *b)
{
    const mkey_t *x = a, *y = b;

    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* MPI_Type_size of the predefined datatypes, by the names the library records. */
static const struct { const char *name; unsigned size; } dtype_sizes[] = {
    { "MPI_BYTE", 1 }, { "MPI_CHAR", 1 }, { "MPI_SIGNED_CHAR", 1 }, { "MPI_UNSIGNED_CHAR", 1 },
    { "MPI_INT8_T", 1 }, { "MPI_UINT8_T", 1 }, { "MPI_C_BOOL", 1 }, { "MPI_CHARACTER", 1 },
    { "MPI_SHORT", 2 }, { "MPI_UNSIGNED_SHORT", 2 }, { "MPI_INT16_T", 2 }, { "MPI_UINT16_T", 2 },
    { "MPI_INT", 4 }, { "MPI_UNSIGNED", 4 }, { "MPI_INT32_T", 4 }, { "MPI_UINT32_T", 4 },
    { "MPI_FLOAT", 4 }, { "MPI_WCHAR", 4 }, { "MPI_INTEGER", 4 }, { "MPI_REAL", 4 },
    { "MPI_LOGICAL", 4 }, { "MPI_2INT", 8 }, { "MPI_FLOAT_INT", 8 }, { "MPI_SHORT_INT", 6 },
    { "MPI_LONG", 8 }, { "MPI_UNSIGNED_LONG", 8 }, { "MPI_LONG_LONG", 8 },
    { "MPI_LONG_LONG_INT", 8 }, { "MPI_UNSIGNED_LONG_LONG", 8 }, { "MPI_INT64_T", 8 },
    { "MPI_UINT64_T", 8 }, { "MPI_DOUBLE", 8 }, { "MPI_DOUBLE_PRECISION", 8 }, { "MPI_REAL8", 8 },
    { "MPI_INTEGER8", 8 }, { "MPI_COMPLEX", 8 }, { "MPI_C_FLOAT_COMPLEX", 8 },
    { "MPI_DOUBLE_INT", 12 }, { "MPI_LONG_INT", 12 }, { "MPI_LONG_DOUBLE", 16 },
    { "MPI_DOUBLE_COMPLEX", 16 }, { "MPI_C_DOUBLE_COMPLEX", 16 },
};

uint64_t an_mpi_msg_bytes(const an_mpi_call_t *c, int32_t comm_size)
{
    uint64_t p = comm_size > 0 ? (uint64_t)comm_size : 1;

    if (c->func == AN_MPI_BARRIER)
        return 0;
    for (size_t i = 0; c->dtype != NULL && c->count >= 0
                       && i < sizeof(dtype_sizes) / sizeof(dtype_sizes[0]); i++)
        if (strcmp(c->dtype, dtype_sizes[i].name) == 0)
            return (uint64_t)c->count * dtype_sizes[i].size;
    switch (c->func) {
    case AN_MPI_REDUCE: case AN_MPI_IREDUCE:
        return c->sent > 0 ? c->sent : p > 1 ? c->recv / (p - 1) : c->recv;
    case AN_MPI_BCAST: case AN_MPI_IBCAST:
        return c->recv > 0 ? c->recv : c->sent / p;
    case AN_MPI_ALLGATHER:
        return c->recv / p;
    default:                    /* allreduce, iallreduce, reduce_scatter_block */
        return c->sent / p;
    }
}

int an_mpi_algo_pap_aware(const char *algo)
{
    static const char *const pap[] = { "slt", "prr", "clv", "clv-linear", "greedy" };
    size_t n = strcspn(algo, "+( ");

    for (size_t i = 0; i < sizeof(pap) / sizeof(pap[0]); i++)
        if (strncmp(algo, pap[i], n) == 0 && strlen(pap[i]) >= n
            && (pap[i][n] == '\0' || pap[i][n] == '-'))
            return 1;
    return 0;
}

/* One complete operation's metrics, from its calls idx[0..n-1] (comm rank order). */
static void measure(an_mpi_trace_t *tr, const int64_t *idx, int32_t n, an_mpi_op_t *op)
{
    int64_t t0 = INT64_MAX, spread = 0, sum_a = 0;
    double abar, dev = 0, sum_e = 0;
    int32_t last = 0;

    for (int32_t i = 0; i < n; i++)
        if (tr->calls[idx[i]].enter < t0)
            t0 = tr->calls[idx[i]].enter;
    for (int32_t i = 0; i < n; i++) {
        an_mpi_call_t *c = &tr->calls[idx[i]];
        c->a = c->enter - t0;
        sum_a += c->a;
        sum_e += (double)(c->leave - c->enter);
        if (c->a > spread) {
            spread = c->a;
            last = i;
        }
    }
    abar = (double)sum_a / n;
    op->wait = 0;
    for (int32_t i = 0; i < n; i++) {
        an_mpi_call_t *c = &tr->calls[idx[i]];
        int64_t e = c->leave - c->enter;
        dev += (double)c->a - abar >= 0 ? (double)c->a - abar : abar - (double)c->a;
        c->wait = spread - c->a < e ? spread - c->a : e;
        if (c->wait < 0)
            c->wait = 0;
        op->wait += c->wait;
    }
    op->t0 = t0;
    op->spread = spread;
    op->avg_imb = dev / n;
    op->avg_elapsed = sum_e / n;
    op->op_time = tr->calls[idx[last]].leave - tr->calls[idx[last]].enter;
    op->last_rank = tr->calls[idx[last]].rank;
}

/* The members of comm the part reads: its size, or those among --ranks. */
static int32_t members(const an_mpi_trace_t *tr, uint32_t comm, const an_mpi_part_t *part)
{
    const an_mpi_comm_t *c = &tr->comms[comm];
    int32_t n = 0;

    if (part == NULL || part->ranks == NULL || c->world == NULL)
        return c->size;
    for (int32_t i = 0; i < c->size; i++)
        for (int k = 0; k < part->nranks; k++)
            n += part->ranks[k] == c->world[i];
    return n;
}

static int site_is(const an_mpi_site_t *s, const char *want)
{
    return (s->label != NULL && strcmp(s->label, want) == 0)
           || (s->function != NULL && strcmp(s->function, want) == 0)
           || (s->name != NULL && strcmp(s->name, want) == 0);
}

/*
 * --ops and --call-site: keeps the calls in the part (numbered already:
 * seq counts every call of the rank on its communicator), the auto records
 * of those kept.  A site no call has is an error naming a few that exist.
 */
static cm_status_t keep_part(an_mpi_trace_t *tr, const an_mpi_part_t *part, cm_err_t *err)
{
    int64_t k = 0;
    size_t na = 0;
    int found = part->call_site == NULL;
    an_auto_rec_t *kept = malloc((tr->autos.n + 1) * sizeof(*kept));

    for (int i = 0; !found && i < tr->nsites; i++)
        found = site_is(&tr->sites[i], part->call_site);
    if (kept == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (!found) {
        char list[512] = "";
        free(kept);
        for (int i = 0; i < tr->nsites && i < 5; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     tr->sites[i].label);
        return CM_ERR(err, CM_ERR_INVALID, "--call-site '%s': no call site of the trace is "
                      "called so (by its label, function or name); its sites: %s%s",
                      part->call_site, list, tr->nsites > 5 ? ", ..." : "");
    }
    for (int64_t i = 0; i < tr->ncalls; i++) {
        an_mpi_call_t *c = &tr->calls[i];

        if (part->ops_part && ((uint64_t)c->seq < part->op_first
                               || (uint64_t)c->seq > part->op_last))
            continue;
        if (part->call_site != NULL && !site_is(&tr->sites[c->site], part->call_site))
            continue;
        if (c->autorec >= 0 && (size_t)c->autorec < tr->autos.n) {
            kept[na] = tr->autos.r[c->autorec];
            c->autorec = (int64_t)na++;
        }
        tr->calls[k++] = *c;
    }
    tr->ncalls = k;
    free(tr->autos.r);
    tr->autos.r = kept;
    tr->autos.n = na;
    tr->autos.cap = tr->autos.n + 1;
    return CM_OK;
}

static void make_op(an_mpi_trace_t *tr, const int64_t *idx, int32_t n, an_mpi_op_t *op,
                    const an_mpi_part_t *part)
{
    const an_mpi_call_t *first = &tr->calls[idx[0]];
    int done = 1;

    memset(op, 0, sizeof(*op));
    op->comm = first->comm;
    op->seq = first->seq;
    op->func = first->func;
    op->site = first->site;
    op->nranks = n;
    op->last_rank = -1;
    for (int32_t i = 0; i < n; i++) {
        const an_mpi_call_t *c = &tr->calls[idx[i]];
        if (c->msg > op->bytes)
            op->bytes = c->msg;
        done &= c->leave >= c->enter;
    }
    op->complete = done && n == members(tr, first->comm, part);
    if (op->complete)
        measure(tr, idx, n, op);
}

cm_status_t an_mpi_metrics(an_mpi_trace_t *tr, const an_mpi_part_t *part, cm_err_t *err)
{
    mkey_t *key = malloc(((size_t)tr->ncalls + 1) * sizeof(*key));
    int64_t *idx = malloc(((size_t)tr->ncalls + 1) * sizeof(*idx));
    int64_t seq = 0;

    free(tr->ops);
    tr->ops = malloc(((size_t)tr->ncalls + 1) * sizeof(*tr->ops));
    if (key == NULL || idx == NULL || tr->ops == NULL) {
        free(key);
        free(idx);
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    }
    tr->nops = 0;
    /* seq: by communicator, rank, enter */
    for (int64_t i = 0; i < tr->ncalls; i++)
        tr->calls[i].msg = an_mpi_msg_bytes(&tr->calls[i], tr->comms[tr->calls[i].comm].size);
    for (int64_t i = 0; i < tr->ncalls; i++)
        key[i] = (mkey_t){ tr->calls[i].comm, tr->calls[i].rank, tr->calls[i].enter, i };
    qsort(key, (size_t)tr->ncalls, sizeof(*key), cmp_key);
    for (int64_t i = 0; i < tr->ncalls; i++) {
        an_mpi_call_t *c = &tr->calls[key[i].i];
        if (i > 0 && (key[i - 1].comm != key[i].comm || key[i - 1].k1 != key[i].k1))
            seq = 0;
        c->seq = seq++;
        c->a = c->wait = INT64_MIN;
    }
    if (part != NULL && (part->ops_part || part->call_site != NULL)) {
        cm_status_t st = keep_part(tr, part, err);
        if (st != CM_OK) {
            free(key);
            free(idx);
            return st;
        }
    }
    /* the operations: by communicator, seq, rank in the communicator */
    /* (a call on MPI_COMM_SELF is no operation between ranks: left out) */
    int64_t n = 0;
    for (int64_t i = 0; i < tr->ncalls; i++) {
        tr->calls[i].op_index = -1;
        if (!tr->comms[tr->calls[i].comm].self)
            key[n++] = (mkey_t){ tr->calls[i].comm, tr->calls[i].seq, tr->calls[i].comm_rank, i };
    }
    qsort(key, (size_t)n, sizeof(*key), cmp_key);
    for (int64_t i = 0; i < n; i++)
        idx[i] = key[i].i;
    for (int64_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && key[j].comm == key[i].comm && key[j].k1 == key[i].k1; j++)
            ;
        make_op(tr, idx + i, (int32_t)(j - i), &tr->ops[tr->nops], part);
        for (int64_t k = i; k < j; k++)
            tr->calls[idx[k]].op_index = tr->nops;
        tr->nops++;
    }
    free(key);
    free(idx);
    return CM_OK;
}
