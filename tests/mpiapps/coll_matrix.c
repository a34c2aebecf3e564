/*
 * coll_matrix.c - an MPI program as a user writes it (only <mpi.h>, no
 * paptree header or library), run under bin/paprun by
 * tests/interpose/coll-matrix.sh: every collective the profiling library
 * intercepts, on every element type, operation, MPI_IN_PLACE or not,
 * communicator and count of the matrix below, each result checked against
 * Open MPI's own result on the same inputs, computed here with the PMPI_
 * functions (which the library does not intercept).
 *
 *   collectives  MPI_Allreduce, MPI_Reduce (every root), MPI_Bcast (every
 *                root), MPI_Barrier, MPI_Allgather, MPI_Reduce_scatter_block,
 *                MPI_Iallreduce / MPI_Ireduce / MPI_Ibcast completed by
 *                MPI_Wait, MPI_Waitall (two requests) or an MPI_Test loop
 *   types        MPI_INT, MPI_LONG_LONG, MPI_FLOAT, MPI_DOUBLE
 *   ops          MPI_SUM, MPI_MIN, MPI_MAX, a commutative user op (a + b + 1),
 *                a non-commutative user op (the high half of the left
 *                operand's bits, the low half of the right's)
 *   in place     no, and MPI_IN_PLACE
 *   comms        MPI_COMM_WORLD, a split (even / odd ranks), a dup of world,
 *                MPI_COMM_SELF
 *   counts       0, 1, 3, 1000, 100000 (--quick: 0, 1, 3, 1000)
 *
 * Integers and min / max must be bit-exact, and so must the
 * non-commutative op (which the library hands to Open MPI).  Float and
 * double sums: the library may add in another order than Open MPI.  A sum
 * of P terms in any order has |error| <= (P - 1) * eps * sum |x_i| per
 * element (to first order; P = the communicator's size), independent of the
 * count.  So each element must be within P * eps * S of the exact sum
 * (computed here in long double from every rank's inputs, which every rank
 * can generate), and within 2 * P * eps * S of Open MPI's (both are within
 * the bound), where S = sum |x_i|.  The user op a + b + 1 rounds twice per
 * combination: twice these bounds, with S counting the P - 1 ones.  Inputs
 * have fractional parts and mixed magnitudes, so the sums do round.
 *
 * Output: each failing case on stderr (at most 20 per rank), and on rank 0
 * the number of calls of each MPI function the program made, summed over
 * the ranks ("coll_matrix: calls MPI_Allreduce=N ..."), which the test
 * compares with the trace.  Exit status 1 if any rank saw a wrong result.
 */
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_INT, T_LL, T_FLOAT, T_DOUBLE, NTYPES };
enum { O_SUM, O_MIN, O_MAX, O_UCOMM, O_UNONCOMM, NOPS };
enum { C_ALLREDUCE, C_REDUCE, C_BCAST, C_BARRIER, C_ALLGATHER, C_RSB, C_IALLREDUCE,
       C_IREDUCE, C_IBCAST, NCOLLS };
/* The functions whose calls are counted (the collectives, then completion). */
enum { F_WAIT = NCOLLS, F_WAITALL, F_TEST, NFUNCS };

static const char *const type_names[NTYPES] = { "int32", "int64", "float", "double" };
static const char *const op_names[NOPS] = { "sum", "min", "max", "user-comm", "user-noncomm" };
static const char *const coll_names[NCOLLS] = { "allreduce", "reduce", "bcast", "barrier",
                                                "allgather", "reduce_scatter_block",
                                                "iallreduce", "ireduce", "ibcast" };
static const char *const func_names[NFUNCS] = {
    "MPI_Allreduce", "MPI_Reduce", "MPI_Bcast", "MPI_Barrier", "MPI_Allgather",
    "MPI_Reduce_scatter_block", "MPI_Iallreduce", "MPI_Ireduce", "MPI_Ibcast",
    "MPI_Wait", "MPI_Waitall", "MPI_Test" };
static const size_t type_size[NTYPES] = { 4, 8, 4, 8 };

#define MAX_COUNTS 16
#define MAX_REPORTS 20

typedef struct {
    int      quick;
    int      colls[NCOLLS];            /* 1 = run it */
    int      ncounts;
    int      counts[MAX_COUNTS];
} opts_t;

typedef struct {
    MPI_Comm    comm;
    const char *name;
    int         rank, size;
} comm_t;

typedef struct {
    MPI_Datatype types[NTYPES];
    MPI_Op       ops[NOPS];
    long         calls[NFUNCS];
    long         cases, failures;
    int          world_rank;
} ctx_t;

/* One case, for messages. */
typedef struct {
    int         coll, type, op, inplace, count, root;
    const comm_t *c;
} case_t;

/* ---- inputs --------------------------------------------------------------- */

/* Element i of rank r's input (seed: the case); exact in every type. */
static double input(int type, int r, int seed, long i)
{
    long k = (long)r * 7919 + (long)seed * 104729 + i * 31;
    long m = k % 2001 - 1000;

    switch (type) {
    case T_INT:    return (double)m;
    case T_LL:     return (double)(m * 4294967296LL + k % 65537);
    case T_FLOAT:  return (double)((float)m * 0.0137f + 1.0f / (float)(1 + k % 13));
    default:       return (double)m * 0.01370001 + 1.0 / (double)(1 + k % 13) +
                          (double)(k % 5) * 1e-9;
    }
}

static void store(int type, void *buf, long i, double v)
{
    switch (type) {
    case T_INT:    ((int32_t *)buf)[i] = (int32_t)v; break;
    case T_LL:     ((int64_t *)buf)[i] = (int64_t)v; break;
    case T_FLOAT:  ((float *)buf)[i] = (float)v; break;
    default:       ((double *)buf)[i] = v; break;
    }
}

static double load(int type, const void *buf, long i)
{
    switch (type) {
    case T_INT:    return ((const int32_t *)buf)[i];
    case T_LL:     return (double)((const int64_t *)buf)[i];
    case T_FLOAT:  return ((const float *)buf)[i];
    default:       return ((const double *)buf)[i];
    }
}

/* n elements of rank r's input, starting at element `first`. */
static void fill(int type, void *buf, long n, int r, int seed, long first)
{
    for (long i = 0; i < n; i++)
        store(type, buf, i, input(type, r, seed, first + i));
}

/* ---- the user ops ------------------------------------------------------------ */

/* a + b + 1: commutative and associative (the result is the sum plus P - 1). */
static void user_comm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++) {
        if (*dt == MPI_INT)
            ((int32_t *)inout)[i] = ((int32_t *)in)[i] + ((int32_t *)inout)[i] + 1;
        else if (*dt == MPI_LONG_LONG)
            ((int64_t *)inout)[i] = ((int64_t *)in)[i] + ((int64_t *)inout)[i] + 1;
        else if (*dt == MPI_FLOAT)
            ((float *)inout)[i] = ((float *)in)[i] + ((float *)inout)[i] + 1.0f;
        else
            ((double *)inout)[i] = ((double *)in)[i] + ((double *)inout)[i] + 1.0;
    }
}

/*
 * in o inout = (in's high half of the bits) | (inout's low half): associative
 * ((a o b) o c = a_hi | c_lo = a o (b o c)) but not commutative, so the
 * result is rank 0's high half and rank P-1's low half; any reordering
 * shows.  MPI calls it with `in` the lower ranks' partial result.
 */
static void user_noncomm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++) {
        if (*dt == MPI_INT || *dt == MPI_FLOAT) {
            uint32_t a, b;
            memcpy(&a, (char *)in + 4 * i, 4);
            memcpy(&b, (char *)inout + 4 * i, 4);
            b = (a & 0xffff0000u) | (b & 0xffffu);
            memcpy((char *)inout + 4 * i, &b, 4);
        } else {
            uint64_t a, b;
            memcpy(&a, (char *)in + 8 * i, 8);
            memcpy(&b, (char *)inout + 8 * i, 8);
            b = (a & 0xffffffff00000000u) | (b & 0xffffffffu);
            memcpy((char *)inout + 8 * i, &b, 8);
        }
    }
}

/* ---- checking ------------------------------------------------------------------ */

static void report(ctx_t *x, const case_t *k, const char *what)
{
    x->failures++;
    if (x->failures > MAX_REPORTS)
        return;
    fprintf(stderr, "coll_matrix: FAIL world rank %d: %s comm=%s type=%s op=%s inplace=%d "
            "count=%d root=%d: %s\n", x->world_rank, coll_names[k->coll], k->c->name,
            type_names[k->type], k->coll == C_BCAST || k->coll == C_IBCAST ||
            k->coll == C_ALLGATHER ? "-" : op_names[k->op], k->inplace, k->count, k->root,
            what);
}

/* Rounding applies: a float type under a summing op. */
static int rounds(const case_t *k)
{
    return (k->type == T_FLOAT || k->type == T_DOUBLE) && (k->op == O_SUM || k->op == O_UCOMM);
}

/*
 * Checks n result elements `got` against Open MPI's `want`; element j is
 * the reduction of the ranks' input element first + j.  Exact unless the
 * case rounds (then the bounds of the file's header).
 */
static void check_reduced(ctx_t *x, const case_t *k, const void *got, const void *want,
                          long n, int seed, long first)
{
    size_t sz = type_size[k->type];
    char msg[256];

    if (!rounds(k)) {
        for (long j = 0; j < n; j++)
            if (memcmp((const char *)got + j * sz, (const char *)want + j * sz, sz) != 0) {
                snprintf(msg, sizeof msg, "element %ld: got %.17g, Open MPI gave %.17g", j,
                         load(k->type, got, j), load(k->type, want, j));
                report(x, k, msg);
                return;
            }
        return;
    }
    double eps = k->type == T_FLOAT ? FLT_EPSILON : DBL_EPSILON;
    double twice = k->op == O_UCOMM ? 2.0 : 1.0;
    int P = k->c->size;
    for (long j = 0; j < n; j++) {
        long double exact = 0;
        double S = 0;
        for (int r = 0; r < P; r++) {
            double v = input(k->type, r, seed, first + j);
            if (k->type == T_FLOAT)
                v = (float)v;
            exact += v;
            S += fabs(v);
        }
        if (k->op == O_UCOMM) {
            exact += P - 1;
            S += P - 1;
        }
        double g = load(k->type, got, j), w = load(k->type, want, j);
        double b_exact = twice * P * eps * S, b_ompi = 2 * b_exact;
        if (!(fabsl((long double)g - exact) <= b_exact) || !(fabs(g - w) <= b_ompi)) {
            snprintf(msg, sizeof msg, "element %ld: got %.17g, Open MPI gave %.17g, exact "
                     "%.17Lg; bounds %.3g (exact), %.3g (Open MPI)", j, g, w, exact,
                     b_exact, b_ompi);
            report(x, k, msg);
            return;
        }
    }
}

static void check_exact(ctx_t *x, const case_t *k, const void *got, const void *want,
                        size_t bytes, const char *what)
{
    if (memcmp(got, want, bytes) == 0)
        return;
    size_t i = 0;
    while (((const char *)got)[i] == ((const char *)want)[i])
        i++;
    char msg[200];
    snprintf(msg, sizeof msg, "%s differs from Open MPI's at byte %zu", what, i);
    report(x, k, msg);
}

/* ---- the collectives ------------------------------------------------------------ */

/* Completes `n` requests the way this call's turn says: wait, waitall, test loop. */
static void complete(ctx_t *x, MPI_Request *req, int n, int how)
{
    if (how == 1 || n > 1) {
        x->calls[F_WAITALL]++;
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    } else if (how == 0) {
        x->calls[F_WAIT]++;
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    } else {
        int flag = 0;
        while (!flag) {
            x->calls[F_TEST]++;
            MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        }
    }
}

typedef struct {
    void *send, *recv, *want, *copy, *recv2;
} bufs_t;

/* Allreduce and Iallreduce (twice, on two buffers, when completed by waitall). */
static void run_allreduce(ctx_t *x, const case_t *k, bufs_t *b, int seed)
{
    MPI_Datatype t = x->types[k->type];
    MPI_Op op = x->ops[k->op];
    size_t bytes = (size_t)k->count * type_size[k->type];
    int how = seed % 3;

    fill(k->type, b->send, k->count, k->c->rank, seed, 0);
    PMPI_Allreduce(b->send, b->want, k->count, t, op, k->c->comm);
    memcpy(b->copy, b->send, bytes);
    memcpy(b->recv, b->send, bytes);
    const void *sb = k->inplace ? MPI_IN_PLACE : b->send;
    if (k->coll == C_ALLREDUCE) {
        x->calls[C_ALLREDUCE]++;
        MPI_Allreduce(sb, b->recv, k->count, t, op, k->c->comm);
    } else {
        MPI_Request req[2];
        int n = how == 1 ? 2 : 1;
        memcpy(b->recv2, b->send, bytes);
        x->calls[C_IALLREDUCE] += n;
        MPI_Iallreduce(sb, b->recv, k->count, t, op, k->c->comm, &req[0]);
        if (n == 2)
            MPI_Iallreduce(k->inplace ? MPI_IN_PLACE : b->copy, b->recv2, k->count, t, op,
                           k->c->comm, &req[1]);
        complete(x, req, n, how);
        if (n == 2)
            check_reduced(x, k, b->recv2, b->want, k->count, seed, 0);
    }
    check_reduced(x, k, b->recv, b->want, k->count, seed, 0);
    if (!k->inplace)
        check_exact(x, k, b->send, b->copy, bytes, "the send buffer after the call");
}

static void run_reduce(ctx_t *x, case_t *k, bufs_t *b, int seed)
{
    MPI_Datatype t = x->types[k->type];
    MPI_Op op = x->ops[k->op];
    size_t bytes = (size_t)k->count * type_size[k->type];

    for (int root = 0; root < k->c->size; root++) {
        int me = k->c->rank == root, how = (seed + root) % 3;
        k->root = root;
        fill(k->type, b->send, k->count, k->c->rank, seed + root, 0);
        PMPI_Reduce(b->send, b->want, k->count, t, op, root, k->c->comm);
        memcpy(b->copy, b->send, bytes);
        memcpy(b->recv, b->send, bytes);
        const void *sb = k->inplace && me ? MPI_IN_PLACE : b->send;
        if (k->coll == C_REDUCE) {
            x->calls[C_REDUCE]++;
            MPI_Reduce(sb, b->recv, k->count, t, op, root, k->c->comm);
        } else {
            MPI_Request req;
            x->calls[C_IREDUCE]++;
            MPI_Ireduce(sb, b->recv, k->count, t, op, root, k->c->comm, &req);
            complete(x, &req, 1, how);
        }
        if (me)
            check_reduced(x, k, b->recv, b->want, k->count, seed + root, 0);
        if (sb != MPI_IN_PLACE)
            check_exact(x, k, b->send, b->copy, bytes, "the send buffer after the call");
    }
    k->root = -1;
}

static void run_bcast(ctx_t *x, case_t *k, bufs_t *b, int seed)
{
    MPI_Datatype t = x->types[k->type];
    size_t bytes = (size_t)k->count * type_size[k->type];

    for (int root = 0; root < k->c->size; root++) {
        int how = (seed + root) % 3;
        k->root = root;
        fill(k->type, b->want, k->count, k->c->rank == root ? root : root + 1, seed, 0);
        PMPI_Bcast(b->want, k->count, t, root, k->c->comm);
        fill(k->type, b->recv, k->count, k->c->rank == root ? root : root + 1, seed, 0);
        if (k->coll == C_BCAST) {
            x->calls[C_BCAST]++;
            MPI_Bcast(b->recv, k->count, t, root, k->c->comm);
        } else {
            MPI_Request req;
            x->calls[C_IBCAST]++;
            MPI_Ibcast(b->recv, k->count, t, root, k->c->comm, &req);
            complete(x, &req, 1, how);
        }
        check_exact(x, k, b->recv, b->want, bytes, "the broadcast buffer");
    }
    k->root = -1;
}

static void run_allgather(ctx_t *x, const case_t *k, bufs_t *b, int seed)
{
    MPI_Datatype t = x->types[k->type];
    size_t bytes = (size_t)k->count * type_size[k->type];
    int P = k->c->size, r = k->c->rank;

    fill(k->type, b->send, k->count, r, seed, 0);
    PMPI_Allgather(b->send, k->count, t, b->want, k->count, t, k->c->comm);
    memset(b->recv, 0x5a, bytes * P);
    if (k->inplace)
        memcpy((char *)b->recv + bytes * r, b->send, bytes);
    x->calls[C_ALLGATHER]++;
    if (k->inplace)
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b->recv, k->count, t, k->c->comm);
    else
        MPI_Allgather(b->send, k->count, t, b->recv, k->count, t, k->c->comm);
    check_exact(x, k, b->recv, b->want, bytes * P, "the gathered buffer");
}

static void run_rsb(ctx_t *x, const case_t *k, bufs_t *b, int seed)
{
    MPI_Datatype t = x->types[k->type];
    MPI_Op op = x->ops[k->op];
    size_t bytes = (size_t)k->count * type_size[k->type];
    int P = k->c->size, r = k->c->rank;

    fill(k->type, b->send, (long)k->count * P, r, seed, 0);
    PMPI_Reduce_scatter_block(b->send, b->want, k->count, t, op, k->c->comm);
    memcpy(b->copy, b->send, bytes * P);
    x->calls[C_RSB]++;
    if (k->inplace) {
        memcpy(b->recv, b->send, bytes * P);
        MPI_Reduce_scatter_block(MPI_IN_PLACE, b->recv, k->count, t, op, k->c->comm);
    } else {
        MPI_Reduce_scatter_block(b->send, b->recv, k->count, t, op, k->c->comm);
        check_exact(x, k, b->send, b->copy, bytes * P, "the send buffer after the call");
    }
    check_reduced(x, k, b->recv, b->want, k->count, seed, (long)k->count * r);
}

/* ---- the matrix ---------------------------------------------------------------- */

static int has_op(int coll)
{
    return coll != C_BCAST && coll != C_IBCAST && coll != C_BARRIER && coll != C_ALLGATHER;
}

static int has_inplace(int coll)
{
    return coll != C_BCAST && coll != C_IBCAST && coll != C_BARRIER;
}

static void run_case(ctx_t *x, case_t *k, bufs_t *b, int seed)
{
    x->cases++;
    switch (k->coll) {
    case C_ALLREDUCE: case C_IALLREDUCE: run_allreduce(x, k, b, seed); break;
    case C_REDUCE: case C_IREDUCE:       run_reduce(x, k, b, seed); break;
    case C_BCAST: case C_IBCAST:         run_bcast(x, k, b, seed); break;
    case C_ALLGATHER:                    run_allgather(x, k, b, seed); break;
    case C_RSB:                          run_rsb(x, k, b, seed); break;
    default: break;
    }
}

static void run_comm(ctx_t *x, const opts_t *o, const comm_t *c, bufs_t *b)
{
    int seed = 1;

    if (o->colls[C_BARRIER]) {
        x->calls[C_BARRIER]++;
        MPI_Barrier(c->comm);
    }
    for (int coll = 0; coll < NCOLLS; coll++) {
        if (!o->colls[coll] || coll == C_BARRIER)
            continue;
        for (int type = 0; type < NTYPES; type++)
            for (int op = 0; op < (has_op(coll) ? NOPS : 1); op++)
                for (int ip = 0; ip < (has_inplace(coll) ? 2 : 1); ip++)
                    for (int n = 0; n < o->ncounts; n++) {
                        case_t k = { coll, type, op, ip, o->counts[n], -1, c };
                        run_case(x, &k, b, seed++);
                    }
    }
}

/* ---- options ----------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: coll_matrix [--quick] [--counts N,N,...] [--colls NAME,NAME,...]\n"
            "  Runs every intercepted collective over types, ops, MPI_IN_PLACE, communicators\n"
            "  and counts, each result against Open MPI's own (PMPI_) result.\n"
            "  --quick   counts 0,1,3,1000 (default 0,1,3,1000,100000)\n"
            "  --counts  the counts, 0 to 1000000, at most %d\n"
            "  --colls   a subset of: allreduce reduce bcast barrier allgather\n"
            "            reduce_scatter_block iallreduce ireduce ibcast (default all)\n",
            MAX_COUNTS);
}

static int parse_counts(opts_t *o, const char *s)
{
    char *end;
    o->ncounts = 0;
    for (;;) {
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 1000000 || (*end && *end != ',') ||
            o->ncounts == MAX_COUNTS) {
            fprintf(stderr, "coll_matrix: --counts: '%s' is not a count, expected 0 to 1000000 "
                    "(at most %d of them)\n", s, MAX_COUNTS);
            return -1;
        }
        o->counts[o->ncounts++] = (int)v;
        if (!*end)
            return 0;
        s = end + 1;
    }
}

static int parse_colls(opts_t *o, const char *s)
{
    memset(o->colls, 0, sizeof o->colls);
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int c = 0; c < NCOLLS; c++)
            if (strlen(coll_names[c]) == len && strncmp(coll_names[c], s, len) == 0)
                o->colls[c] = found = 1;
        if (!found) {
            fprintf(stderr, "coll_matrix: --colls: '%.*s' is no collective, expected one of "
                    "allreduce reduce bcast barrier allgather reduce_scatter_block iallreduce "
                    "ireduce ibcast\n", (int)len, s);
            return -1;
        }
        s += len + (s[len] == ',');
    }
    return 0;
}

/* 0: run, 1: stop with status 0 (--help), -1: stop with status 2. */
static int parse(opts_t *o, int argc, char **argv)
{
    static const int full[] = { 0, 1, 3, 1000, 100000 };
    for (int c = 0; c < NCOLLS; c++)
        o->colls[c] = 1;
    o->ncounts = 5;
    memcpy(o->counts, full, sizeof full);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(argv[i], "--quick") == 0) {
            o->quick = 1;
            o->ncounts = 4;
        } else if (strcmp(argv[i], "--counts") == 0 && i + 1 < argc) {
            if (parse_counts(o, argv[++i]) != 0)
                return -1;
        } else if (strcmp(argv[i], "--colls") == 0 && i + 1 < argc) {
            if (parse_colls(o, argv[++i]) != 0)
                return -1;
        } else {
            fprintf(stderr, "coll_matrix: %s: unknown option or missing value, expected "
                    "--quick, --counts LIST, --colls LIST or --help\n", argv[i]);
            return -1;
        }
    }
    return 0;
}

/* ---- main -------------------------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "coll_matrix: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void print_calls(ctx_t *x)
{
    long total[NFUNCS], cases = 0, fails = 0;
    PMPI_Reduce(x->calls, total, NFUNCS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&x->cases, &cases, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&x->failures, &fails, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (x->world_rank != 0)
        return;
    printf("coll_matrix: %ld cases, %ld failures (all ranks)\ncoll_matrix: calls", cases,
           fails);
    for (int f = 0; f < NFUNCS; f++)
        printf(" %s=%ld", func_names[f], total[f]);
    printf("\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    opts_t o = { 0 };
    ctx_t x = { { MPI_INT, MPI_LONG_LONG, MPI_FLOAT, MPI_DOUBLE },
                { MPI_SUM, MPI_MIN, MPI_MAX, MPI_OP_NULL, MPI_OP_NULL }, { 0 }, 0, 0, 0 };
    int st = parse(&o, argc, argv);

    if (st != 0)
        return st > 0 ? 0 : 2;
    MPI_Init(&argc, &argv);
    MPI_Op_create(user_comm, 1, &x.ops[O_UCOMM]);
    MPI_Op_create(user_noncomm, 0, &x.ops[O_UNONCOMM]);
    int wr, wsize, maxc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    x.world_rank = wr;

    comm_t comms[4] = { { MPI_COMM_WORLD, "world", 0, 0 }, { MPI_COMM_NULL, "split", 0, 0 },
                        { MPI_COMM_NULL, "dup", 0, 0 }, { MPI_COMM_SELF, "self", 0, 0 } };
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, wr, &comms[1].comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[2].comm);
    for (int i = 0; i < 4; i++) {
        MPI_Comm_rank(comms[i].comm, &comms[i].rank);
        MPI_Comm_size(comms[i].comm, &comms[i].size);
    }
    for (int i = 0; i < o.ncounts; i++)
        maxc = o.counts[i] > maxc ? o.counts[i] : maxc;
    size_t big = (size_t)maxc * 8 * (size_t)wsize;
    bufs_t b = { xmalloc(big), xmalloc(big), xmalloc(big), xmalloc(big), xmalloc(big) };

    for (int i = 0; i < 4; i++)
        run_comm(&x, &o, &comms[i], &b);

    print_calls(&x);
    long any = 0;
    PMPI_Allreduce(&x.failures, &any, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&comms[1].comm);
    MPI_Comm_free(&comms[2].comm);
    MPI_Op_free(&x.ops[O_UCOMM]);
    MPI_Op_free(&x.ops[O_UNONCOMM]);
    free(b.send); free(b.recv); free(b.want); free(b.copy); free(b.recv2);
    MPI_Finalize();
    return any ? 1 : 0;
}
