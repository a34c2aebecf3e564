/*
 * ip_coll.c - the blocking collectives: per call, decide what runs, run
 * it, record it.
 *
 * allreduce, reduce and bcast ask the rules (ip_rules_match: collective,
 * communicator size, this rank's bytes, which every member shares).  No
 * rule, or `native`: Open MPI's own.  A rule's algorithm runs when the
 * call is one it can do; else Open MPI's own runs and the reason is
 * recorded as the call's fallback, checked in this order:
 *
 *   intercommunicator                      intercomm
 *   a communicator of one, count 0         Open MPI's own, no fallback
 *   arguments MPI would refuse (a count
 *   < 0, a NULL buffer, a bad root, a NULL
 *   datatype or op, MPI_IN_PLACE off the
 *   root of a reduce)                      args: Open MPI raises the error
 *                                          through the application's handler
 *   a datatype the kernels do not have     datatype (Fortran's INTEGER, REAL,
 *                                          DOUBLE PRECISION and their sized
 *                                          kinds run as the C type of their
 *                                          size; bcast: any contiguous
 *                                          type whose bytes are int32 or
 *                                          int64 elements runs)
 *   an op other than sum, min, max         op, user-op, noncommutative
 *   the algorithm's own precondition       count (ip_algo.c)
 *
 * Each of these is the same on every member (MPI requires the same count,
 * type signature, op and root of them all), so every member runs the same
 * thing.  barrier, allgather and reduce_scatter_block are always Open MPI's,
 * traced.
 *
 * Bytes are recorded as Score-P's MPI adapter counts them (sent, received
 * by this rank, N the communicator size; an MPI_IN_PLACE rank counts one
 * fewer peer): allreduce N*m both ways; reduce m sent, N*m received at the
 * root; bcast N*m sent at the root, m received elsewhere; allgather N*m
 * both ways; reduce_scatter_block N*m sent and N*m received (m =
 * recvcount's bytes); barrier 0.  The report counts m, the rank's message.
 */
#include <string.h>
#include "interpose/ip_int.h"

int64_t ip_type_size(MPI_Datatype dtype)
{
    int size = 0;

    if (dtype == MPI_DATATYPE_NULL || PMPI_Type_size(dtype, &size) != MPI_SUCCESS)
        return 0;
    return size;
}

void ip_record(ins_mpi_call_t *call, const ip_clock_t *clk, const void *site,
               uint64_t msg_bytes)
{
    ip_record_rule(call, clk, site, msg_bytes, NULL);
}

void ip_record_rule(ins_mpi_call_t *call, const ip_clock_t *clk, const void *site,
                    uint64_t msg_bytes, const ip_choice_t *rule)
{
    ins_mpi_t *tr = (ins_mpi_t *)atomic_load_explicit(&ip_lib.open_trace, memory_order_relaxed);

    if (tr) {
        call->enter = clk->tick0;
        call->leave = ins_mpi_now();
        call->callsite = (uint64_t)(uintptr_t)site;
        ins_mpi_record(tr, call);
    }
    if (ip_lib.report && rule && call->auto_choice) {
        ip_report_add(ip_lib.report, site, call->func, rule->text, call->fallback, msg_bytes,
                      rt_wait_now_ns() - clk->ns0);
        ip_report_chose(ip_lib.report, site, call->func, rule->text, call->algo);
    } else if (ip_lib.report) {
        ip_report_add(ip_lib.report, site, call->func, call->algo, call->fallback, msg_bytes,
                      rt_wait_now_ns() - clk->ns0);
    }
}

/* ---- the decision -------------------------------------------------------- */

/* What check() says besides a fallback reason. */
#define RUN_NATIVE (-1)   /* Open MPI's own, and no fallback */

/* Fortran's predefined types, as the C type of their size (the Fortran
   bindings pass them on as MPI_INTEGER, MPI_DOUBLE_PRECISION, ...). */
static int fortran_dtype_of(MPI_Datatype t, rt_dtype_t *d)
{
    int64_t size;

    if (t != MPI_INTEGER && t != MPI_INTEGER4 && t != MPI_INTEGER8 && t != MPI_REAL &&
        t != MPI_REAL4 && t != MPI_REAL8 && t != MPI_DOUBLE_PRECISION)
        return 0;
    size = ip_type_size(t);
    if (t == MPI_INTEGER || t == MPI_INTEGER4 || t == MPI_INTEGER8)
        *d = size == 8 ? RT_DTYPE_INT64 : RT_DTYPE_INT32;
    else
        *d = size == 8 ? RT_DTYPE_DOUBLE : RT_DTYPE_FLOAT;
    return size == 4 || size == 8;
}

static int dtype_of(MPI_Datatype t, rt_dtype_t *d)
{
    if (t == MPI_INT || t == MPI_INT32_T)
        *d = RT_DTYPE_INT32;
    else if ((t == MPI_LONG && sizeof(long) == 8) || t == MPI_LONG_LONG ||
             t == MPI_LONG_LONG_INT || t == MPI_INT64_T)
        *d = RT_DTYPE_INT64;
    else if (t == MPI_FLOAT)
        *d = RT_DTYPE_FLOAT;
    else if (t == MPI_DOUBLE)
        *d = RT_DTYPE_DOUBLE;
    else
        return fortran_dtype_of(t, d);
    return 1;
}

static ins_mpi_fallback_t op_of(MPI_Op op, rt_op_t *o)
{
    const MPI_Op builtin[] = {
        MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR,
        MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP,
    };
    int commute = 1;

    if (op == MPI_SUM)
        *o = RT_OP_SUM;
    else if (op == MPI_MIN)
        *o = RT_OP_MIN;
    else if (op == MPI_MAX)
        *o = RT_OP_MAX;
    else {
        for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
            if (op == builtin[i])
                return INS_FB_OP;
        if (PMPI_Op_commutative(op, &commute) == MPI_SUCCESS && !commute)
            return INS_FB_NONCOMMUTATIVE;
        return INS_FB_USER_OP;
    }
    return INS_FB_NONE;
}

/*
 * A broadcast moves bytes: a contiguous type (no gaps, no lower bound,
 * extent = size) is a vector of int64 or int32 elements when its bytes
 * divide so.  *count_p is then the elements.
 */
static int bcast_view(MPI_Datatype t, int count, rt_dtype_t *d, int64_t *count_p)
{
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    int64_t size = ip_type_size(t), bytes = (int64_t)count * size;

    if (size <= 0 || PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS || lb != 0 || tlb != 0 ||
        extent != size || textent != size)
        return 0;
    if (bytes % 8 == 0) {
        *d = RT_DTYPE_INT64;
        *count_p = bytes / 8;
    } else if (bytes % 4 == 0) {
        *d = RT_DTYPE_INT32;
        *count_p = bytes / 4;
    } else {
        return 0;
    }
    return 1;
}

/* The arguments MPI itself would refuse (Open MPI then raises the error). */
static int args_bad(const ip_comm_t *c, ip_rule_coll_t coll, const void *sendbuf,
                    const void *buf, int count, MPI_Datatype dtype, MPI_Op op, int root)
{
    int rooted = coll != IP_RULE_ALLREDUCE, me_root = rooted && root == c->rank;

    if (count < 0 || dtype == MPI_DATATYPE_NULL || (coll != IP_RULE_BCAST && op == MPI_OP_NULL))
        return 1;
    if (rooted && (root < 0 || root >= c->size))
        return 1;
    if (count == 0)
        return 0;
    switch (coll) {
    case IP_RULE_ALLREDUCE:
        return buf == NULL || sendbuf == NULL;
    case IP_RULE_REDUCE:
        if (sendbuf == MPI_IN_PLACE)
            return !me_root || buf == NULL;
        return sendbuf == NULL || (me_root && buf == NULL);
    default:
        return buf == NULL;
    }
}

/*
 * Whether job (coll, its buffers) can run the rule's algorithm: 0 (and
 * job's dtype, op, count filled), a fallback reason, or RUN_NATIVE.
 */
static int check(ip_job_t *job, const void *sendbuf, const void *buf, int count,
                 MPI_Datatype dtype, MPI_Op op, int root)
{
    const ip_comm_t *c = job->c;

    if (c->inter)
        return INS_FB_INTERCOMM;
    if (c->size == 1)
        return RUN_NATIVE;
    if (args_bad(c, job->coll, sendbuf, buf, count, dtype, op, root))
        return INS_FB_ARGS;
    if (count == 0)
        return RUN_NATIVE;
    job->count = count;
    if (job->coll == IP_RULE_BCAST) {
        job->op = RT_OP_SUM;
        return bcast_view(dtype, count, &job->dtype, &job->count) ? 0 : INS_FB_DATATYPE;
    }
    if (!dtype_of(dtype, &job->dtype))
        return INS_FB_DATATYPE;
    return (int)op_of(op, &job->op);
}

/*
 * The rule for the call and whether it runs: returns 1 when job is to be
 * run by ip_algo_run; else 0 with call->algo and call->fallback saying
 * what Open MPI's own run stands for.
 */
static int decide(ip_job_t *job, ins_mpi_call_t *call, uint64_t bytes, const void *sendbuf,
                  const void *buf, int count, MPI_Datatype dtype, MPI_Op op, int root)
{
    int why;

    job->choice = ip_rules_match(ip_lib.rules, job->coll, job->c->size, bytes);
    if (!job->choice)
        return 0;
    call->algo = job->choice->text;
    if (job->choice->spec.native)
        return 0;
    why = check(job, sendbuf, buf, count, dtype, op, root);
    if (why == 0)
        return 1;
    if (why != RUN_NATIVE)
        call->fallback = (ins_mpi_fallback_t)why;
    return 0;
}

/* Runs job; 0 with call->fallback set when it fell back (nothing sent). */
static int run(ip_job_t *job, ins_mpi_call_t *call, int *rc_p)
{
    job->trace_comm = job->c->id;
    call->fallback = ip_algo_run(job, rc_p, call);
    return call->fallback == INS_FB_NONE;
}

/* ---- the collectives ----------------------------------------------------- */

int ip_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
                 MPI_Comm comm, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    ip_job_t job = { 0 };
    uint64_t m, n;
    int rc = MPI_SUCCESS;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Allreduce(sendbuf, recvbuf, count, dtype, op, comm);
    ip_clock_start(&clk);
    ip_call_init(&call, INS_MPI_ALLREDUCE, c, count, dtype, op);
    m = ip_mul(count, ip_type_size(dtype));
    job.c = c;
    job.coll = IP_RULE_ALLREDUCE;
    job.sendbuf = sendbuf;
    job.buf = recvbuf;
    job.site = site;
    job.entry_ns = clk.ns0 ? clk.ns0 : ip_lib.rules ? rt_wait_now_ns() : 0;
    if (!ip_lib.rules || !decide(&job, &call, m, sendbuf, recvbuf, count, dtype, op, 0) ||
        !run(&job, &call, &rc))
        rc = PMPI_Allreduce(sendbuf, recvbuf, count, dtype, op, comm);
    n = (uint64_t)c->size - (sendbuf == MPI_IN_PLACE);
    call.bytes_sent = call.bytes_recv = n * m;
    ip_record_rule(&call, &clk, site, m, job.choice);
    return rc;
}

int ip_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dtype, MPI_Op op,
              int root, MPI_Comm comm, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    ip_job_t job = { 0 };
    uint64_t m;
    int rc = MPI_SUCCESS;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Reduce(sendbuf, recvbuf, count, dtype, op, root, comm);
    ip_clock_start(&clk);
    ip_call_init(&call, INS_MPI_REDUCE, c, count, dtype, op);
    call.root = (uint32_t)root;
    m = ip_mul(count, ip_type_size(dtype));
    job.c = c;
    job.coll = IP_RULE_REDUCE;
    job.sendbuf = sendbuf;
    job.buf = recvbuf;
    job.root = root;
    if (!ip_lib.rules || !decide(&job, &call, m, sendbuf, recvbuf, count, dtype, op, root) ||
        !run(&job, &call, &rc))
        rc = PMPI_Reduce(sendbuf, recvbuf, count, dtype, op, root, comm);
    call.bytes_sent = sendbuf == MPI_IN_PLACE ? 0 : m;
    call.bytes_recv = root == c->rank && !c->inter
                      ? ((uint64_t)c->size - (sendbuf == MPI_IN_PLACE)) * m : 0;
    ip_record(&call, &clk, site, m);
    return rc;
}

int ip_bcast(void *buf, int count, MPI_Datatype dtype, int root, MPI_Comm comm,
             const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    ip_job_t job = { 0 };
    uint64_t m;
    int rc = MPI_SUCCESS;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Bcast(buf, count, dtype, root, comm);
    ip_clock_start(&clk);
    ip_call_init(&call, INS_MPI_BCAST, c, count, dtype, MPI_OP_NULL);
    call.root = (uint32_t)root;
    m = ip_mul(count, ip_type_size(dtype));
    job.c = c;
    job.coll = IP_RULE_BCAST;
    job.buf = buf;
    job.root = root;
    if (!ip_lib.rules || !decide(&job, &call, m, NULL, buf, count, dtype, MPI_OP_NULL, root) ||
        !run(&job, &call, &rc))
        rc = PMPI_Bcast(buf, count, dtype, root, comm);
    if (root == c->rank && !c->inter)
        call.bytes_sent = (uint64_t)c->size * m;
    else
        call.bytes_recv = m;
    ip_record(&call, &clk, site, m);
    return rc;
}

int ip_barrier(MPI_Comm comm, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    int rc;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Barrier(comm);
    ip_clock_start(&clk);
    rc = PMPI_Barrier(comm);
    ip_call_init(&call, INS_MPI_BARRIER, c, 0, MPI_DATATYPE_NULL, MPI_OP_NULL);
    ip_record(&call, &clk, site, 0);
    return rc;
}

int ip_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    uint64_t n;
    int rc;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    ip_clock_start(&clk);
    rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    n = (uint64_t)c->size - (sendbuf == MPI_IN_PLACE);
    ip_call_init(&call, INS_MPI_ALLGATHER, c, recvcount, recvtype, MPI_OP_NULL);
    call.bytes_sent = sendbuf == MPI_IN_PLACE ? n * ip_mul(recvcount, ip_type_size(recvtype))
                                              : n * ip_mul(sendcount, ip_type_size(sendtype));
    call.bytes_recv = n * ip_mul(recvcount, ip_type_size(recvtype));
    ip_record(&call, &clk, site, ip_mul(recvcount, ip_type_size(recvtype)));
    return rc;
}

int ip_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                            MPI_Datatype dtype, MPI_Op op, MPI_Comm comm, const void *site)
{
    ip_comm_t *c;
    ins_mpi_call_t call;
    ip_clock_t clk;
    uint64_t m;
    int rc;

    if (!ip_on() || !(c = ip_comm_get(comm)))
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dtype, op, comm);
    ip_clock_start(&clk);
    rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dtype, op, comm);
    m = ip_mul(recvcount, ip_type_size(dtype));
    ip_call_init(&call, INS_MPI_REDUCE_SCATTER_BLOCK, c, recvcount, dtype, op);
    call.bytes_sent = call.bytes_recv = (uint64_t)c->size * m;
    ip_record(&call, &clk, site, m);
    return rc;
}
