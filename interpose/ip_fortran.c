/*
 * ip_fortran.c - the Fortran bindings of lib/libpaptree-mpi.so: the
 * collectives of a Fortran program, `use mpi` (mpif.h) and `use mpi_f08`.
 *
 * Why: Open MPI 4.1.4's Fortran bindings (libmpi_mpifh.so: mpi_allreduce_
 * and its aliases) call PMPI_Allreduce & co., not MPI_Allreduce (`nm -D
 * libmpi_mpifh.so` lists `U PMPI_Allreduce` and no `U MPI_Allreduce`), and
 * mpi_f08's mpi_allreduce_f08_ (libmpi_usempif08.so) calls
 * ompi_allreduce_f, the same code.  So the C interceptors never see a
 * Fortran call.  This file defines the Fortran symbols themselves; the
 * preloaded library comes first in the symbol lookup, so a Fortran program
 * calls these.  Each converts the handles (MPI_*_f2c), Fortran's
 * MPI_IN_PLACE and MPI_BOTTOM, and calls the library's entry point
 * (ip_entry_int.h) with its own return address, so the call site is the
 * Fortran program's.
 *
 * Names: gfortran calls mpi_allreduce_ (one underscore); Open MPI also
 * exports mpi_allreduce, mpi_allreduce__ and MPI_ALLREDUCE for other
 * compilers' conventions, and so do we (aliases).  mpi_f08's
 * mpi_allreduce_f08_ & co. have the same calling convention as the
 * mpif.h bindings (checked on the disassembly of libmpi_usempif08.so
 * 4.1.4: each passes its arguments through to ompi_*_f unchanged): buffers
 * by address, an integer or a TYPE(MPI_Comm) (one integer, MPI_VAL) by
 * reference, an array of TYPE(MPI_Request) laid out as an integer array,
 * TYPE(MPI_Status) as the integer status array; only their IERROR is
 * OPTIONAL (NULL when absent), which every function here honours.  So the
 * f08 names are aliases of the same functions.  Not intercepted: the
 * profiling names (pmpi_*_, pmpi_*_f08_), which a program calls to bypass
 * tools, as in C.
 *
 * MPI_IN_PLACE and MPI_BOTTOM are, in Fortran, the addresses of Open MPI's
 * common blocks mpi_fortran_in_place_ and mpi_fortran_bottom_ (the only
 * spellings libmpi.so 4.1.4 defines; mpi_f08's module binds the same
 * names); the dynamic linker resolves every reference to one copy, so an
 * address comparison recognises them, as Open MPI's OMPI_IS_FORTRAN_*
 * macros do.  MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are
 * MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE (mpi.h), which point at
 * the common blocks mpi_fortran_status(es)_ignore_.
 *
 * Init: Open MPI's ompi_init_f is PMPI_Init(&argc = 0, &argv = NULL) and
 * ompi_init_thread_f the same with the required level (disassembly of
 * libmpi_mpifh.so 4.1.4); we do exactly that, then ip_after_init, as the
 * C MPI_Init interceptor does.  Finalize and abort do what the C wrappers
 * (ip_wrap.c) do; the completions (wait, waitall, waitany, waitsome and
 * the four tests) and request_free call the library's entry points, which
 * record the completion of the nonblocking collectives it started, with
 * the Fortran caller as the site.  Indices go back 1-based, as Fortran's.
 *
 * Compiled, as every file of the library but ip_wrap.c, with
 * ip_pmpi_int.h forced in: an MPI_ name of an intercepted function here
 * would be its PMPI_ one; this file calls none, only the entry points.
 *
 * Thread safety: as the C bindings; nothing here has state.
 */
#include <mpi.h>
#include <stdlib.h>

#include "interpose/ip_entry_int.h"

#define IP_F_EXPORT __attribute__((visibility("default")))
#define IP_F_ON_STACK 16

/* Fortran's MPI_STATUS_SIZE (mpif-config.h: 6 in Open MPI 4.1, whose mpi.h
   has no MPI_F_STATUS_SIZE): the C status is MPI_SOURCE, MPI_TAG,
   MPI_ERROR, two private ints and a size_t, copied integer by integer. */
#ifdef MPI_F_STATUS_SIZE
#define IP_F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define IP_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* Open MPI's Fortran common blocks (libmpi.so). */
extern int mpi_fortran_in_place_;
extern int mpi_fortran_bottom_;

/* The Fortran functions' types: one per function, for the definitions'
   prototypes and the aliases. */
typedef void ip_f_init_fn_t(MPI_Fint *ierr);
typedef void ip_f_init_thread_fn_t(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
typedef void ip_f_finalize_fn_t(MPI_Fint *ierr);
typedef void ip_f_allreduce_fn_t(void *sendbuf, void *recvbuf, MPI_Fint *count,
                                 MPI_Fint *dtype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr);
typedef void ip_f_reduce_fn_t(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *dtype,
                              MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
typedef void ip_f_bcast_fn_t(void *buf, MPI_Fint *count, MPI_Fint *dtype, MPI_Fint *root,
                             MPI_Fint *comm, MPI_Fint *ierr);
typedef void ip_f_barrier_fn_t(MPI_Fint *comm, MPI_Fint *ierr);
typedef void ip_f_allgather_fn_t(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                                 void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                                 MPI_Fint *comm, MPI_Fint *ierr);
typedef void ip_f_rsb_fn_t(void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *dtype,
                           MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr);
typedef void ip_f_iallreduce_fn_t(void *sendbuf, void *recvbuf, MPI_Fint *count,
                                  MPI_Fint *dtype, MPI_Fint *op, MPI_Fint *comm,
                                  MPI_Fint *req, MPI_Fint *ierr);
typedef void ip_f_ireduce_fn_t(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *dtype,
                               MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req,
                               MPI_Fint *ierr);
typedef void ip_f_ibcast_fn_t(void *buf, MPI_Fint *count, MPI_Fint *dtype, MPI_Fint *root,
                              MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr);
typedef void ip_f_wait_fn_t(MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr);
typedef void ip_f_waitall_fn_t(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *statuses,
                               MPI_Fint *ierr);
typedef void ip_f_test_fn_t(MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
typedef void ip_f_testall_fn_t(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *flag,
                               MPI_Fint *statuses, MPI_Fint *ierr);
typedef void ip_f_waitany_fn_t(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index,
                               MPI_Fint *status, MPI_Fint *ierr);
typedef void ip_f_testany_fn_t(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index,
                               MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
typedef void ip_f_some_fn_t(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *outcount,
                            MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr);
typedef void ip_f_request_free_fn_t(MPI_Fint *req, MPI_Fint *ierr);
typedef void ip_f_abort_fn_t(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr);

/* ---- conversions --------------------------------------------------------- */

/* A Fortran buffer argument as C sees it. */
static void *f_buf(void *p)
{
    if (p == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (p == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    return p;
}

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

static int status_ignored(const MPI_Fint *status)
{
    return status == NULL || status == MPI_F_STATUS_IGNORE;
}

/* gfortran's .TRUE. is 1 (Open MPI's OMPI_FORTRAN_VALUE_TRUE). */
static MPI_Fint f_logical(int b)
{
    return b ? 1 : 0;
}

/* ---- init, finalize -------------------------------------------------------- */

IP_F_EXPORT ip_f_init_fn_t mpi_init_;
void mpi_init_(MPI_Fint *ierr)
{
    int argc = 0, provided = MPI_THREAD_SINGLE;
    char **argv = NULL;
    int rc = PMPI_Init(&argc, &argv);

    if (rc == MPI_SUCCESS) {
        PMPI_Query_thread(&provided);
        ip_after_init(provided);
    }
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_init_thread_fn_t mpi_init_thread_;
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int argc = 0, cprovided = MPI_THREAD_SINGLE;
    char **argv = NULL;
    int rc = PMPI_Init_thread(&argc, &argv, (int)*required, &cprovided);

    if (rc == MPI_SUCCESS) {
        *provided = (MPI_Fint)cprovided;
        ip_after_init(cprovided);
    }
    set_ierr(ierr, rc);
}

/* As the C MPI_Finalize: the trace is closed by MPI_COMM_SELF's attribute
   delete callback, which PMPI_Finalize runs first (ip_init.c). */
IP_F_EXPORT ip_f_finalize_fn_t mpi_finalize_;
void mpi_finalize_(MPI_Fint *ierr)
{
    set_ierr(ierr, PMPI_Finalize());
}

IP_F_EXPORT ip_f_abort_fn_t mpi_abort_;
void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    ip_before_abort();
    set_ierr(ierr, PMPI_Abort(MPI_Comm_f2c(*comm), (int)*errorcode));
}

/* ---- blocking collectives -------------------------------------------------- */

IP_F_EXPORT ip_f_allreduce_fn_t mpi_allreduce_;
void mpi_allreduce_(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *dtype,
                    MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, ip_allreduce(f_buf(sendbuf), f_buf(recvbuf), (int)*count,
                                MPI_Type_f2c(*dtype), MPI_Op_f2c(*op), MPI_Comm_f2c(*comm),
                                __builtin_return_address(0)));
}

IP_F_EXPORT ip_f_reduce_fn_t mpi_reduce_;
void mpi_reduce_(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *dtype, MPI_Fint *op,
                 MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, ip_reduce(f_buf(sendbuf), f_buf(recvbuf), (int)*count,
                             MPI_Type_f2c(*dtype), MPI_Op_f2c(*op), (int)*root,
                             MPI_Comm_f2c(*comm), __builtin_return_address(0)));
}

IP_F_EXPORT ip_f_bcast_fn_t mpi_bcast_;
void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *dtype, MPI_Fint *root, MPI_Fint *comm,
                MPI_Fint *ierr)
{
    set_ierr(ierr, ip_bcast(f_buf(buf), (int)*count, MPI_Type_f2c(*dtype), (int)*root,
                            MPI_Comm_f2c(*comm), __builtin_return_address(0)));
}

IP_F_EXPORT ip_f_barrier_fn_t mpi_barrier_;
void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, ip_barrier(MPI_Comm_f2c(*comm), __builtin_return_address(0)));
}

IP_F_EXPORT ip_f_allgather_fn_t mpi_allgather_;
void mpi_allgather_(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                    MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, ip_allgather(f_buf(sendbuf), (int)*sendcount, MPI_Type_f2c(*sendtype),
                                f_buf(recvbuf), (int)*recvcount, MPI_Type_f2c(*recvtype),
                                MPI_Comm_f2c(*comm), __builtin_return_address(0)));
}

IP_F_EXPORT ip_f_rsb_fn_t mpi_reduce_scatter_block_;
void mpi_reduce_scatter_block_(void *sendbuf, void *recvbuf, MPI_Fint *recvcount,
                               MPI_Fint *dtype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, ip_reduce_scatter_block(f_buf(sendbuf), f_buf(recvbuf), (int)*recvcount,
                                           MPI_Type_f2c(*dtype), MPI_Op_f2c(*op),
                                           MPI_Comm_f2c(*comm), __builtin_return_address(0)));
}

/* ---- nonblocking collectives ------------------------------------------------ */

/* The request goes back to Fortran only when the call succeeded, as Open
   MPI's own bindings do. */
static void f_request(MPI_Fint *freq, MPI_Request creq, int rc, MPI_Fint *ierr)
{
    if (rc == MPI_SUCCESS)
        *freq = MPI_Request_c2f(creq);
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_iallreduce_fn_t mpi_iallreduce_;
void mpi_iallreduce_(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *dtype,
                     MPI_Fint *op, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request creq = MPI_REQUEST_NULL;
    int rc = ip_iallreduce(f_buf(sendbuf), f_buf(recvbuf), (int)*count, MPI_Type_f2c(*dtype),
                           MPI_Op_f2c(*op), MPI_Comm_f2c(*comm), &creq,
                           __builtin_return_address(0));
    f_request(req, creq, rc, ierr);
}

IP_F_EXPORT ip_f_ireduce_fn_t mpi_ireduce_;
void mpi_ireduce_(void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *dtype,
                  MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request creq = MPI_REQUEST_NULL;
    int rc = ip_ireduce(f_buf(sendbuf), f_buf(recvbuf), (int)*count, MPI_Type_f2c(*dtype),
                        MPI_Op_f2c(*op), (int)*root, MPI_Comm_f2c(*comm), &creq,
                        __builtin_return_address(0));
    f_request(req, creq, rc, ierr);
}

IP_F_EXPORT ip_f_ibcast_fn_t mpi_ibcast_;
void mpi_ibcast_(void *buf, MPI_Fint *count, MPI_Fint *dtype, MPI_Fint *root, MPI_Fint *comm,
                 MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request creq = MPI_REQUEST_NULL;
    int rc = ip_ibcast(f_buf(buf), (int)*count, MPI_Type_f2c(*dtype), (int)*root,
                       MPI_Comm_f2c(*comm), &creq, __builtin_return_address(0));
    f_request(req, creq, rc, ierr);
}

/* ---- completion ---------------------------------------------------------------- */

/*
 * The C side of a Fortran array of requests (and of statuses, unless
 * MPI_STATUSES_IGNORE): on the stack up to IP_F_ON_STACK, else allocated.
 */
typedef struct {
    MPI_Request *req;
    MPI_Status  *st;      /* MPI_STATUSES_IGNORE when ignored */
    MPI_Request  rbuf[IP_F_ON_STACK];
    MPI_Status   sbuf[IP_F_ON_STACK];
} f_reqs_t;

/* MPI_SUCCESS, or MPI_ERR_NO_MEM with nothing to release. */
static int f_reqs_open(f_reqs_t *a, int n, const MPI_Fint *freqs, const MPI_Fint *fstatuses)
{
    int ignore = fstatuses == NULL || fstatuses == MPI_F_STATUSES_IGNORE;

    a->req = a->rbuf;
    a->st = ignore ? MPI_STATUSES_IGNORE : a->sbuf;
    if (n > IP_F_ON_STACK) {
        a->req = malloc((size_t)n * sizeof *a->req);
        if (!ignore)
            a->st = malloc((size_t)n * sizeof *a->st);
        if (!a->req || !a->st) {
            free(a->req != a->rbuf ? a->req : NULL);
            free(a->st != a->sbuf && a->st != MPI_STATUSES_IGNORE ? a->st : NULL);
            return MPI_ERR_NO_MEM;
        }
    }
    for (int i = 0; i < n; i++)
        a->req[i] = MPI_Request_f2c(freqs[i]);
    return MPI_SUCCESS;
}

/* Hands the n requests back to Fortran, and the first nst statuses. */
static void f_reqs_close(f_reqs_t *a, int n, MPI_Fint *freqs, int nst, MPI_Fint *fstatuses)
{
    for (int i = 0; i < n; i++)
        freqs[i] = MPI_Request_c2f(a->req[i]);
    if (a->st != MPI_STATUSES_IGNORE)
        for (int i = 0; i < nst; i++)
            MPI_Status_c2f(&a->st[i], fstatuses + (size_t)i * IP_F_STATUS_SIZE);
}

static void f_reqs_free(f_reqs_t *a)
{
    if (a->req != a->rbuf)
        free(a->req);
    if (a->st != a->sbuf && a->st != MPI_STATUSES_IGNORE)
        free(a->st);
}

/* A C index back to Fortran (1-based; MPI_UNDEFINED stays). */
static MPI_Fint f_index(int i)
{
    return (MPI_Fint)(i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1);
}

IP_F_EXPORT ip_f_wait_fn_t mpi_wait_;
void mpi_wait_(MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request creq = MPI_Request_f2c(*req);
    MPI_Status cstatus;
    int rc = ip_wait(&creq, status_ignored(status) ? MPI_STATUS_IGNORE : &cstatus,
                     __builtin_return_address(0));

    if (rc == MPI_SUCCESS) {
        *req = MPI_Request_c2f(creq);
        if (!status_ignored(status))
            MPI_Status_c2f(&cstatus, status);
    }
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_test_fn_t mpi_test_;
void mpi_test_(MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request creq = MPI_Request_f2c(*req);
    MPI_Status cstatus;
    int cflag = 0;
    int rc = ip_test(&creq, &cflag, status_ignored(status) ? MPI_STATUS_IGNORE : &cstatus,
                     __builtin_return_address(0));

    if (rc == MPI_SUCCESS) {
        *flag = f_logical(cflag);
        if (cflag) {
            *req = MPI_Request_c2f(creq);
            if (!status_ignored(status))
                MPI_Status_c2f(&cstatus, status);
        }
    }
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_waitall_fn_t mpi_waitall_;
void mpi_waitall_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr)
{
    int n = (int)*count, rc;
    f_reqs_t a;

    if (n < 0 || (rc = f_reqs_open(&a, n, reqs, statuses)) != MPI_SUCCESS) {
        /* n < 0: Open MPI's own check says what is wrong. */
        set_ierr(ierr, n < 0 ? ip_waitall(n, NULL, MPI_STATUSES_IGNORE,
                                          __builtin_return_address(0)) : rc);
        return;
    }
    rc = ip_waitall(n, a.req, a.st, __builtin_return_address(0));
    /* MPI_ERR_IN_STATUS: every status says what happened to its request. */
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)
        f_reqs_close(&a, n, reqs, n, statuses);
    f_reqs_free(&a);
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_testall_fn_t mpi_testall_;
void mpi_testall_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses,
                  MPI_Fint *ierr)
{
    int n = (int)*count, cflag = 0, rc;
    f_reqs_t a;

    if (n < 0 || (rc = f_reqs_open(&a, n, reqs, statuses)) != MPI_SUCCESS) {
        set_ierr(ierr, n < 0 ? ip_testall(n, NULL, &cflag, MPI_STATUSES_IGNORE,
                                          __builtin_return_address(0)) : rc);
        return;
    }
    rc = ip_testall(n, a.req, &cflag, a.st, __builtin_return_address(0));
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
        *flag = f_logical(cflag);
        if (cflag)
            f_reqs_close(&a, n, reqs, n, statuses);
    }
    f_reqs_free(&a);
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_waitany_fn_t mpi_waitany_;
void mpi_waitany_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status,
                  MPI_Fint *ierr)
{
    int n = (int)*count, cindex = MPI_UNDEFINED, rc;
    MPI_Status cstatus;
    f_reqs_t a;

    if (n < 0 || (rc = f_reqs_open(&a, n, reqs, NULL)) != MPI_SUCCESS) {
        set_ierr(ierr, n < 0 ? ip_waitany(n, NULL, &cindex, MPI_STATUS_IGNORE,
                                          __builtin_return_address(0)) : rc);
        return;
    }
    rc = ip_waitany(n, a.req, &cindex, status_ignored(status) ? MPI_STATUS_IGNORE : &cstatus,
                    __builtin_return_address(0));
    if (rc == MPI_SUCCESS) {
        f_reqs_close(&a, n, reqs, 0, NULL);
        *index = f_index(cindex);
        if (!status_ignored(status))
            MPI_Status_c2f(&cstatus, status);
    }
    f_reqs_free(&a);
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_testany_fn_t mpi_testany_;
void mpi_testany_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *flag,
                  MPI_Fint *status, MPI_Fint *ierr)
{
    int n = (int)*count, cindex = MPI_UNDEFINED, cflag = 0, rc;
    MPI_Status cstatus;
    f_reqs_t a;

    if (n < 0 || (rc = f_reqs_open(&a, n, reqs, NULL)) != MPI_SUCCESS) {
        set_ierr(ierr, n < 0 ? ip_testany(n, NULL, &cindex, &cflag, MPI_STATUS_IGNORE,
                                          __builtin_return_address(0)) : rc);
        return;
    }
    rc = ip_testany(n, a.req, &cindex, &cflag,
                    status_ignored(status) ? MPI_STATUS_IGNORE : &cstatus,
                    __builtin_return_address(0));
    if (rc == MPI_SUCCESS) {
        f_reqs_close(&a, n, reqs, 0, NULL);
        *index = f_index(cindex);
        *flag = f_logical(cflag);
        if (cflag && !status_ignored(status))
            MPI_Status_c2f(&cstatus, status);
    }
    f_reqs_free(&a);
    set_ierr(ierr, rc);
}

/* Waitsome and testsome: the same arguments and the same conversions. */
typedef int ip_some_fn_t(int n, MPI_Request reqs[], int *outcount, int indices[],
                         MPI_Status statuses[], const void *site);

static void f_some(ip_some_fn_t *fn, MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *outcount,
                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr, const void *site)
{
    int n = (int)*count, cout = MPI_UNDEFINED, rc;
    int ibuf[IP_F_ON_STACK], *cind = ibuf;
    f_reqs_t a;

    if (n < 0 || (rc = f_reqs_open(&a, n, reqs, statuses)) != MPI_SUCCESS) {
        set_ierr(ierr, n < 0 ? fn(n, NULL, &cout, NULL, MPI_STATUSES_IGNORE, site) : rc);
        return;
    }
    if (n > IP_F_ON_STACK && !(cind = malloc((size_t)n * sizeof *cind))) {
        f_reqs_free(&a);
        set_ierr(ierr, MPI_ERR_NO_MEM);
        return;
    }
    rc = fn(n, a.req, &cout, cind, a.st, site);
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
        int done = cout == MPI_UNDEFINED ? 0 : cout;
        f_reqs_close(&a, n, reqs, done, statuses);
        *outcount = (MPI_Fint)cout;
        for (int i = 0; i < done; i++)
            indices[i] = f_index(cind[i]);
    }
    if (cind != ibuf)
        free(cind);
    f_reqs_free(&a);
    set_ierr(ierr, rc);
}

IP_F_EXPORT ip_f_some_fn_t mpi_waitsome_;
void mpi_waitsome_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                   MPI_Fint *statuses, MPI_Fint *ierr)
{
    f_some(ip_waitsome, count, reqs, outcount, indices, statuses, ierr,
           __builtin_return_address(0));
}

IP_F_EXPORT ip_f_some_fn_t mpi_testsome_;
void mpi_testsome_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                   MPI_Fint *statuses, MPI_Fint *ierr)
{
    f_some(ip_testsome, count, reqs, outcount, indices, statuses, ierr,
           __builtin_return_address(0));
}

IP_F_EXPORT ip_f_request_free_fn_t mpi_request_free_;
void mpi_request_free_(MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request creq = MPI_Request_f2c(*req);
    int rc = ip_request_free(&creq);

    if (rc == MPI_SUCCESS)
        *req = MPI_Request_c2f(creq);
    set_ierr(ierr, rc);
}

/* ---- the other spellings: mpi_x, mpi_x__, MPI_X, and mpi_f08's mpi_x_f08_ -------- */

IP_F_EXPORT ip_f_init_fn_t mpi_init __attribute__((alias("mpi_init_")));
IP_F_EXPORT ip_f_init_fn_t mpi_init__ __attribute__((alias("mpi_init_")));
IP_F_EXPORT ip_f_init_fn_t MPI_INIT __attribute__((alias("mpi_init_")));
IP_F_EXPORT ip_f_init_fn_t mpi_init_f08_ __attribute__((alias("mpi_init_")));
IP_F_EXPORT ip_f_init_thread_fn_t mpi_init_thread __attribute__((alias("mpi_init_thread_")));
IP_F_EXPORT ip_f_init_thread_fn_t mpi_init_thread__ __attribute__((alias("mpi_init_thread_")));
IP_F_EXPORT ip_f_init_thread_fn_t MPI_INIT_THREAD __attribute__((alias("mpi_init_thread_")));
IP_F_EXPORT ip_f_init_thread_fn_t mpi_init_thread_f08_
    __attribute__((alias("mpi_init_thread_")));
IP_F_EXPORT ip_f_finalize_fn_t mpi_finalize __attribute__((alias("mpi_finalize_")));
IP_F_EXPORT ip_f_finalize_fn_t mpi_finalize__ __attribute__((alias("mpi_finalize_")));
IP_F_EXPORT ip_f_finalize_fn_t MPI_FINALIZE __attribute__((alias("mpi_finalize_")));
IP_F_EXPORT ip_f_finalize_fn_t mpi_finalize_f08_ __attribute__((alias("mpi_finalize_")));
IP_F_EXPORT ip_f_allreduce_fn_t mpi_allreduce __attribute__((alias("mpi_allreduce_")));
IP_F_EXPORT ip_f_allreduce_fn_t mpi_allreduce__ __attribute__((alias("mpi_allreduce_")));
IP_F_EXPORT ip_f_allreduce_fn_t MPI_ALLREDUCE __attribute__((alias("mpi_allreduce_")));
IP_F_EXPORT ip_f_allreduce_fn_t mpi_allreduce_f08_ __attribute__((alias("mpi_allreduce_")));
IP_F_EXPORT ip_f_reduce_fn_t mpi_reduce __attribute__((alias("mpi_reduce_")));
IP_F_EXPORT ip_f_reduce_fn_t mpi_reduce__ __attribute__((alias("mpi_reduce_")));
IP_F_EXPORT ip_f_reduce_fn_t MPI_REDUCE __attribute__((alias("mpi_reduce_")));
IP_F_EXPORT ip_f_reduce_fn_t mpi_reduce_f08_ __attribute__((alias("mpi_reduce_")));
IP_F_EXPORT ip_f_bcast_fn_t mpi_bcast __attribute__((alias("mpi_bcast_")));
IP_F_EXPORT ip_f_bcast_fn_t mpi_bcast__ __attribute__((alias("mpi_bcast_")));
IP_F_EXPORT ip_f_bcast_fn_t MPI_BCAST __attribute__((alias("mpi_bcast_")));
IP_F_EXPORT ip_f_bcast_fn_t mpi_bcast_f08_ __attribute__((alias("mpi_bcast_")));
IP_F_EXPORT ip_f_barrier_fn_t mpi_barrier __attribute__((alias("mpi_barrier_")));
IP_F_EXPORT ip_f_barrier_fn_t mpi_barrier__ __attribute__((alias("mpi_barrier_")));
IP_F_EXPORT ip_f_barrier_fn_t MPI_BARRIER __attribute__((alias("mpi_barrier_")));
IP_F_EXPORT ip_f_barrier_fn_t mpi_barrier_f08_ __attribute__((alias("mpi_barrier_")));
IP_F_EXPORT ip_f_allgather_fn_t mpi_allgather __attribute__((alias("mpi_allgather_")));
IP_F_EXPORT ip_f_allgather_fn_t mpi_allgather__ __attribute__((alias("mpi_allgather_")));
IP_F_EXPORT ip_f_allgather_fn_t MPI_ALLGATHER __attribute__((alias("mpi_allgather_")));
IP_F_EXPORT ip_f_allgather_fn_t mpi_allgather_f08_ __attribute__((alias("mpi_allgather_")));
IP_F_EXPORT ip_f_rsb_fn_t mpi_reduce_scatter_block
    __attribute__((alias("mpi_reduce_scatter_block_")));
IP_F_EXPORT ip_f_rsb_fn_t mpi_reduce_scatter_block__
    __attribute__((alias("mpi_reduce_scatter_block_")));
IP_F_EXPORT ip_f_rsb_fn_t MPI_REDUCE_SCATTER_BLOCK
    __attribute__((alias("mpi_reduce_scatter_block_")));
IP_F_EXPORT ip_f_rsb_fn_t mpi_reduce_scatter_block_f08_
    __attribute__((alias("mpi_reduce_scatter_block_")));
IP_F_EXPORT ip_f_iallreduce_fn_t mpi_iallreduce __attribute__((alias("mpi_iallreduce_")));
IP_F_EXPORT ip_f_iallreduce_fn_t mpi_iallreduce__ __attribute__((alias("mpi_iallreduce_")));
IP_F_EXPORT ip_f_iallreduce_fn_t MPI_IALLREDUCE __attribute__((alias("mpi_iallreduce_")));
IP_F_EXPORT ip_f_iallreduce_fn_t mpi_iallreduce_f08_ __attribute__((alias("mpi_iallreduce_")));
IP_F_EXPORT ip_f_ireduce_fn_t mpi_ireduce __attribute__((alias("mpi_ireduce_")));
IP_F_EXPORT ip_f_ireduce_fn_t mpi_ireduce__ __attribute__((alias("mpi_ireduce_")));
IP_F_EXPORT ip_f_ireduce_fn_t MPI_IREDUCE __attribute__((alias("mpi_ireduce_")));
IP_F_EXPORT ip_f_ireduce_fn_t mpi_ireduce_f08_ __attribute__((alias("mpi_ireduce_")));
IP_F_EXPORT ip_f_ibcast_fn_t mpi_ibcast __attribute__((alias("mpi_ibcast_")));
IP_F_EXPORT ip_f_ibcast_fn_t mpi_ibcast__ __attribute__((alias("mpi_ibcast_")));
IP_F_EXPORT ip_f_ibcast_fn_t MPI_IBCAST __attribute__((alias("mpi_ibcast_")));
IP_F_EXPORT ip_f_ibcast_fn_t mpi_ibcast_f08_ __attribute__((alias("mpi_ibcast_")));
IP_F_EXPORT ip_f_wait_fn_t mpi_wait __attribute__((alias("mpi_wait_")));
IP_F_EXPORT ip_f_wait_fn_t mpi_wait__ __attribute__((alias("mpi_wait_")));
IP_F_EXPORT ip_f_wait_fn_t MPI_WAIT __attribute__((alias("mpi_wait_")));
IP_F_EXPORT ip_f_wait_fn_t mpi_wait_f08_ __attribute__((alias("mpi_wait_")));
IP_F_EXPORT ip_f_waitall_fn_t mpi_waitall __attribute__((alias("mpi_waitall_")));
IP_F_EXPORT ip_f_waitall_fn_t mpi_waitall__ __attribute__((alias("mpi_waitall_")));
IP_F_EXPORT ip_f_waitall_fn_t MPI_WAITALL __attribute__((alias("mpi_waitall_")));
IP_F_EXPORT ip_f_waitall_fn_t mpi_waitall_f08_ __attribute__((alias("mpi_waitall_")));
IP_F_EXPORT ip_f_test_fn_t mpi_test __attribute__((alias("mpi_test_")));
IP_F_EXPORT ip_f_test_fn_t mpi_test__ __attribute__((alias("mpi_test_")));
IP_F_EXPORT ip_f_test_fn_t MPI_TEST __attribute__((alias("mpi_test_")));
IP_F_EXPORT ip_f_test_fn_t mpi_test_f08_ __attribute__((alias("mpi_test_")));
IP_F_EXPORT ip_f_abort_fn_t mpi_abort __attribute__((alias("mpi_abort_")));
IP_F_EXPORT ip_f_abort_fn_t mpi_abort__ __attribute__((alias("mpi_abort_")));
IP_F_EXPORT ip_f_abort_fn_t MPI_ABORT __attribute__((alias("mpi_abort_")));
IP_F_EXPORT ip_f_abort_fn_t mpi_abort_f08_ __attribute__((alias("mpi_abort_")));
IP_F_EXPORT ip_f_testall_fn_t mpi_testall __attribute__((alias("mpi_testall_")));
IP_F_EXPORT ip_f_testall_fn_t mpi_testall__ __attribute__((alias("mpi_testall_")));
IP_F_EXPORT ip_f_testall_fn_t MPI_TESTALL __attribute__((alias("mpi_testall_")));
IP_F_EXPORT ip_f_testall_fn_t mpi_testall_f08_ __attribute__((alias("mpi_testall_")));
IP_F_EXPORT ip_f_waitany_fn_t mpi_waitany __attribute__((alias("mpi_waitany_")));
IP_F_EXPORT ip_f_waitany_fn_t mpi_waitany__ __attribute__((alias("mpi_waitany_")));
IP_F_EXPORT ip_f_waitany_fn_t MPI_WAITANY __attribute__((alias("mpi_waitany_")));
IP_F_EXPORT ip_f_waitany_fn_t mpi_waitany_f08_ __attribute__((alias("mpi_waitany_")));
IP_F_EXPORT ip_f_testany_fn_t mpi_testany __attribute__((alias("mpi_testany_")));
IP_F_EXPORT ip_f_testany_fn_t mpi_testany__ __attribute__((alias("mpi_testany_")));
IP_F_EXPORT ip_f_testany_fn_t MPI_TESTANY __attribute__((alias("mpi_testany_")));
IP_F_EXPORT ip_f_testany_fn_t mpi_testany_f08_ __attribute__((alias("mpi_testany_")));
IP_F_EXPORT ip_f_some_fn_t mpi_waitsome __attribute__((alias("mpi_waitsome_")));
IP_F_EXPORT ip_f_some_fn_t mpi_waitsome__ __attribute__((alias("mpi_waitsome_")));
IP_F_EXPORT ip_f_some_fn_t MPI_WAITSOME __attribute__((alias("mpi_waitsome_")));
IP_F_EXPORT ip_f_some_fn_t mpi_waitsome_f08_ __attribute__((alias("mpi_waitsome_")));
IP_F_EXPORT ip_f_some_fn_t mpi_testsome __attribute__((alias("mpi_testsome_")));
IP_F_EXPORT ip_f_some_fn_t mpi_testsome__ __attribute__((alias("mpi_testsome_")));
IP_F_EXPORT ip_f_some_fn_t MPI_TESTSOME __attribute__((alias("mpi_testsome_")));
IP_F_EXPORT ip_f_some_fn_t mpi_testsome_f08_ __attribute__((alias("mpi_testsome_")));
IP_F_EXPORT ip_f_request_free_fn_t mpi_request_free __attribute__((alias("mpi_request_free_")));
IP_F_EXPORT ip_f_request_free_fn_t mpi_request_free__ __attribute__((alias("mpi_request_free_")));
IP_F_EXPORT ip_f_request_free_fn_t MPI_REQUEST_FREE __attribute__((alias("mpi_request_free_")));
IP_F_EXPORT ip_f_request_free_fn_t mpi_request_free_f08_
    __attribute__((alias("mpi_request_free_")));
