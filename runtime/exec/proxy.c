/*
 * proxy.c - the two ends of a network link: the proxy wrapper on the client
 * host and, where the waiting threads cannot serve it (link.c), the service
 * thread that serves it on the parent's host.
 *
 * A link is one (proxy, instance) pair with its own MPI tag, so requests of
 * different links never match each other.  The client posts the receive for
 * the reply before it sends the request, so the reply never lands in
 * Open MPI's unexpected-message queue.  Neither end uses a blocking MPI
 * call to wait: Open MPI's blocking calls poll the network without pause,
 * which would make an idle service thread burn a core.  Both wait on
 * MPI_Test with rt_wait_until (spin, yield, then sleep with back-off).
 *
 * A zero-byte message on a link is the stop request sent by
 * rt_exec_destroy; tuples are never empty.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/exec/exec_int.h"

typedef struct proxy_wait_arg {
    const rt_exec_t *ex;
    MPI_Request     *req;
    MPI_Status      *status;
} proxy_wait_arg_t;

static bool proxy_request_done(void *arg)
{
    proxy_wait_arg_t *w = arg;
    int done = 0;

    rt__exec_mpi_check(w->ex, MPI_Test(w->req, &done, w->status), "MPI_Test");
    return done != 0;
}

static int proxy_wait(const rt_exec_t *ex, MPI_Request *req)
{
    MPI_Status status;
    proxy_wait_arg_t w = { ex, req, &status };
    int count = 0;

    rt_wait_until(&ex->policy, proxy_request_done, &w);
    rt__exec_mpi_check(ex, MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    return count;
}

void rt__proxy_call(rt_exec_t *ex, const rt_node_state_t *st, const void *cur,
                    void *out, size_t bytes)
{
    MPI_Request req;
    int got;

    rt__exec_mpi_check(ex, MPI_Irecv(out, (int)bytes, MPI_BYTE, st->peer, st->tag,
                                     ex->comm, &req), "MPI_Irecv (proxy reply)");
    rt__exec_mpi_check(ex, MPI_Send(cur, (int)bytes, MPI_BYTE, st->peer, st->tag,
                                    ex->comm), "MPI_Send (proxy request)");
    got = proxy_wait(ex, &req);
    if ((size_t)got != bytes)
        rt__exec_fatal(ex, "proxy link tag %d: reply of %d bytes, expected %zu",
                       st->tag, got, bytes);
}

void *rt__service_main(void *arg)
{
    rt_link_t *svc = arg;
    rt_exec_t *ex = svc->ex;

    for (;;) {
        MPI_Request req;
        int got;

        rt__where_set(&svc->site->where, RT_WHERE_LISTEN, svc->instance, svc->proxy);
        rt__exec_mpi_check(ex, MPI_Irecv(svc->in, (int)ex->max_bytes, MPI_BYTE,
                                         svc->peer, svc->tag, ex->comm, &req),
                           "MPI_Irecv (service)");
        got = proxy_wait(ex, &req);
        if (got == 0)
            break;                       /* stop request */
        rt__exec_run_path(ex, svc->instance, &svc->path, svc->in, svc->out,
                          (size_t)got, svc->site);
        rt__where_set(&svc->site->where, RT_WHERE_REPLY, svc->instance, svc->proxy);
        rt__exec_mpi_check(ex, MPI_Send(svc->out, got, MPI_BYTE, svc->peer, svc->tag,
                                        ex->comm), "MPI_Send (service reply)");
    }
    return NULL;
}

void rt__exec_fatal(const rt_exec_t *ex, const char *fmt, ...)
{
    char msg[1024];
    int len;
    va_list ap;

    /* One write, so that the lines of ranks aborting together do not
     * interleave (stderr is unbuffered: three fprintf were three writes). */
    len = snprintf(msg, sizeof msg, "paptree: rank %d: fatal: ", ex->rank);
    va_start(ap, fmt);
    vsnprintf(msg + len, sizeof msg - (size_t)len, fmt, ap);
    va_end(ap);
    len = (int)strlen(msg);
    snprintf(msg + len, sizeof msg - (size_t)len, "; aborting the job\n");
    fflush(stderr);
    if (write(STDERR_FILENO, msg, strlen(msg)) < 0) {
        /* nothing better to do: the abort below still ends the job */
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort();                             /* MPI_Abort does not return */
}

void rt__exec_mpi_check(const rt_exec_t *ex, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    rt__exec_fatal(ex, "%s failed: %.*s", what, len, msg);
}
