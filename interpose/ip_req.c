/*
 * ip_req.c - the nonblocking collectives (MPI_Iallreduce, MPI_Ireduce,
 * MPI_Ibcast), always Open MPI's own, traced from the call to the
 * MPI_Wait or MPI_Test function that completes them.
 *
 * The call is recorded when it is made, with a request id of the
 * library's; while a trace is open the request is kept in a small table
 * {MPI_Request -> the call's record}.  The completion functions look at
 * the table only when it holds something (an atomic count): otherwise they
 * are their PMPI_ function and nothing more.  When it does, the handles are
 * remembered before the PMPI_ call, and each of ours that the call set to
 * MPI_REQUEST_NULL (a nonblocking collective's request is never persistent,
 * so that is its completion) is recorded as completed there (MPI_Wait for
 * the MPI_Wait family, MPI_Test for the MPI_Test one) and leaves the table.
 * MPI_Request_free of one of ours drops it unrecorded.
 *
 * The table is a plain array under a mutex, in the order the requests were
 * made: a program keeps a handful of collectives in flight, and only those
 * pay for it.  One handle may stand for several requests (Open MPI gives
 * every collective with nothing to do the same completed request): each
 * completion of it takes the oldest.
 */
#include <stdlib.h>
#include <string.h>
#include "interpose/ip_int.h"

atomic_size_t ip_req_count;

typedef struct req_slot {
    MPI_Request    req;
    ins_mpi_call_t call;
} req_slot_t;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static req_slot_t *table;
static size_t table_n, table_cap;
static atomic_uint_fast64_t next_request = 1;

/* Handles remembered on the stack up to this many, else allocated. */
#define REQ_STACK 32

void ip_req_track(MPI_Request req, ins_mpi_call_t *call)
{
    call->request = atomic_fetch_add(&next_request, 1);
    pthread_mutex_lock(&table_lock);
    if (table_n == table_cap) {
        size_t cap = table_cap ? 2 * table_cap : 16;
        req_slot_t *t = realloc(table, cap * sizeof *t);

        if (!t) {
            pthread_mutex_unlock(&table_lock);
            return;
        }
        table = t;
        table_cap = cap;
    }
    table[table_n].req = req;
    table[table_n].call = *call;
    table_n++;
    atomic_store(&ip_req_count, table_n);
    pthread_mutex_unlock(&table_lock);
}

/* Takes req's record out of the table into *call; 0 if it is not ours. */
static int req_take(MPI_Request req, ins_mpi_call_t *call)
{
    int found = 0;

    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < table_n; i++)
        if (table[i].req == req) {
            if (call)
                *call = table[i].call;
            memmove(table + i, table + i + 1, (--table_n - i) * sizeof *table);
            found = 1;
            break;
        }
    atomic_store(&ip_req_count, table_n);
    pthread_mutex_unlock(&table_lock);
    return found;
}

static int busy(void)
{
    return atomic_load_explicit(&ip_req_count, memory_order_relaxed) != 0;
}

/*
 * Records the completions among before[0..n) that after[] shows.  A
 * location's events must not go back in time: the first completion spans
 * the call, each further one (MPI_Waitall completing several) starts where
 * the one before it ended.
 */
static void completions(const MPI_Request *before, const MPI_Request *after, int n,
                        ins_mpi_func_t func, const ip_clock_t *clk, const void *site)
{
    ip_clock_t at = *clk;

    for (int i = 0; i < n; i++) {
        ins_mpi_call_t call;

        if (before[i] == MPI_REQUEST_NULL || after[i] != MPI_REQUEST_NULL ||
            !req_take(before[i], &call))
            continue;
        call.completed = call.func;
        call.func = func;
        ip_record(&call, &at, site, 0);
        at.tick0 = call.leave;
    }
}

/* Remembers n handles: into buf when they fit, else allocated (*heap_p). */
static MPI_Request *remember(const MPI_Request *reqs, int n, MPI_Request *buf,
                             MPI_Request **heap_p)
{
    MPI_Request *copy = buf;

    *heap_p = NULL;
    if (n > REQ_STACK) {
        copy = *heap_p = malloc((size_t)n * sizeof *copy);
        if (!copy)
            return NULL;
    }
    memcpy(copy, reqs, (size_t)(n > 0 ? n : 0) * sizeof *copy);
    return copy;
}

/* ---- the nonblocking collectives ---------------------------------------- */

static void issued(MPI_Request *req, int rc, ins_mpi_call_t *call, const ip_clock_t *clk,
                   const void *site, uint64_t m)
{
    if (rc == MPI_SUCCESS && atomic_load_explicit(&ip_lib.open_trace, memory_order_relaxed))
        ip_req_track(*req, call);
    ip_record(call, clk, site, m);
}

int ip_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
                  MPI_Comm comm, MPI_Request *req, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    uint64_t m, n;
    int rc;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Iallreduce(sendbuf, recvbuf, count, dtype, op, comm, req);
    ip_clock_start(&clk);
    rc = PMPI_Iallreduce(sendbuf, recvbuf, count, dtype, op, comm, req);
    ip_call_init(&call, INS_MPI_IALLREDUCE, c, count, dtype, op);
    m = ip_mul(count, ip_type_size(dtype));
    n = (uint64_t)c->size - (sendbuf == MPI_IN_PLACE);
    call.bytes_sent = call.bytes_recv = n * m;
    issued(req, rc, &call, &clk, site, m);
    return rc;
}

int ip_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
               int root, MPI_Comm comm, MPI_Request *req, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    uint64_t m;
    int rc;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Ireduce(sendbuf, recvbuf, count, dtype, op, root, comm, req);
    ip_clock_start(&clk);
    rc = PMPI_Ireduce(sendbuf, recvbuf, count, dtype, op, root, comm, req);
    ip_call_init(&call, INS_MPI_IREDUCE, c, count, dtype, op);
    call.root = (uint32_t)root;
    m = ip_mul(count, ip_type_size(dtype));
    call.bytes_sent = sendbuf == MPI_IN_PLACE ? 0 : m;
    call.bytes_recv = root == c->rank && !c->inter
                      ? ((uint64_t)c->size - (sendbuf == MPI_IN_PLACE)) * m : 0;
    issued(req, rc, &call, &clk, site, m);
    return rc;
}

int ip_ibcast(void *buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm,
              MPI_Request *req, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    uint64_t m;
    int rc;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Ibcast(buf, count, dtype, root, comm, req);
    ip_clock_start(&clk);
    rc = PMPI_Ibcast(buf, count, dtype, root, comm, req);
    ip_call_init(&call, INS_MPI_IBCAST, c, count, dtype, MPI_OP_NULL);
    call.root = (uint32_t)root;
    m = ip_mul(count, ip_type_size(dtype));
    if (root == c->rank && !c->inter)
        call.bytes_sent = (uint64_t)c->size * m;
    else
        call.bytes_recv = m;
    issued(req, rc, &call, &clk, site, m);
    return rc;
}

/* ---- their completion ---------------------------------------------------- */

int ip_wait(MPI_Request *req, MPI_Status *status, const void *site)
{
    MPI_Request before;
    ip_clock_t clk;
    int rc;

    if (!busy())
        return PMPI_Wait(req, status);
    before = *req;
    ip_clock_start(&clk);
    rc = PMPI_Wait(req, status);
    completions(&before, req, 1, INS_MPI_WAIT, &clk, site);
    return rc;
}

int ip_test(MPI_Request *req, int *flag, MPI_Status *status, const void *site)
{
    MPI_Request before;
    ip_clock_t clk;
    int rc;

    if (!busy())
        return PMPI_Test(req, flag, status);
    before = *req;
    ip_clock_start(&clk);
    rc = PMPI_Test(req, flag, status);
    completions(&before, req, 1, INS_MPI_TEST, &clk, site);
    return rc;
}

/* The array forms: the handles remembered before the PMPI_ call. */
typedef struct req_scope {
    MPI_Request buf[REQ_STACK], *heap, *before;
    ip_clock_t  clk;
} req_scope_t;

/* 1 when the call must be watched (something is tracked). */
static int scope_begin(req_scope_t *s, const MPI_Request *reqs, int n)
{
    if (!busy() || !(s->before = remember(reqs, n, s->buf, &s->heap)))
        return 0;
    ip_clock_start(&s->clk);
    return 1;
}

static void scope_end(req_scope_t *s, const MPI_Request *reqs, int n, ins_mpi_func_t func,
                      const void *site)
{
    completions(s->before, reqs, n, func, &s->clk, site);
    free(s->heap);
}

int ip_waitall(int n, MPI_Request reqs[], MPI_Status statuses[], const void *site)
{
    req_scope_t s;
    int rc;

    if (!scope_begin(&s, reqs, n))
        return PMPI_Waitall(n, reqs, statuses);
    rc = PMPI_Waitall(n, reqs, statuses);
    scope_end(&s, reqs, n, INS_MPI_WAIT, site);
    return rc;
}

int ip_waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status, const void *site)
{
    req_scope_t s;
    int rc;

    if (!scope_begin(&s, reqs, n))
        return PMPI_Waitany(n, reqs, index, status);
    rc = PMPI_Waitany(n, reqs, index, status);
    scope_end(&s, reqs, n, INS_MPI_WAIT, site);
    return rc;
}

int ip_waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[],
                const void *site)
{
    req_scope_t s;
    int rc;

    if (!scope_begin(&s, reqs, n))
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    rc = PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    scope_end(&s, reqs, n, INS_MPI_WAIT, site);
    return rc;
}

int ip_testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[], const void *site)
{
    req_scope_t s;
    int rc;

    if (!scope_begin(&s, reqs, n))
        return PMPI_Testall(n, reqs, flag, statuses);
    rc = PMPI_Testall(n, reqs, flag, statuses);
    scope_end(&s, reqs, n, INS_MPI_TEST, site);
    return rc;
}

int ip_testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
               const void *site)
{
    req_scope_t s;
    int rc;

    if (!scope_begin(&s, reqs, n))
        return PMPI_Testany(n, reqs, index, flag, status);
    rc = PMPI_Testany(n, reqs, index, flag, status);
    scope_end(&s, reqs, n, INS_MPI_TEST, site);
    return rc;
}

int ip_testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[],
                const void *site)
{
    req_scope_t s;
    int rc;

    if (!scope_begin(&s, reqs, n))
        return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    rc = PMPI_Testsome(n, reqs, outcount, indices, statuses);
    scope_end(&s, reqs, n, INS_MPI_TEST, site);
    return rc;
}

int ip_request_free(MPI_Request *req)
{
    if (busy() && req)
        req_take(*req, NULL);
    return PMPI_Request_free(req);
}
