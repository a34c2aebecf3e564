/*
 * rt_exec.h - runs a pathmap's tree on MPI + pthreads with PATHS semantics.
 *
 * One MPI process per pathmap host (rank i = host i).  The program creates
 * its own computational threads; each calls rt_exec_allreduce on its path.
 * Wrappers run in the calling thread until a proxy forwards the tuple to
 * another host; there the wrappers below run on the link's behalf, on a
 * thread of that host that waits in the tree or on the link's service
 * thread (rt_links_t below).  Results return up the same path.
 *
 * A tree is instantiated `ninstances` times (Gsum alternates two identical
 * instances so that consecutive operations do not interfere); instances
 * share nothing.
 *
 * Errors: setup problems (rank count, pathmap mismatch, thread support)
 * come back as a status and a message on every rank, without a hang.  A
 * failure in the middle of an operation (an MPI error) cannot be recovered
 * by the other ranks, so it is reported and the job is aborted.
 */
#ifndef RT_EXEC_H
#define RT_EXEC_H

#include <mpi.h>
#include <stdio.h>
#include "common/cm_opt.h"
#include "runtime/api/rt_hooks.h"
#include "runtime/api/rt_pathmap.h"
#include "runtime/api/rt_wait.h"

typedef struct rt_exec rt_exec_t;

/*
 * Who runs the far side of a proxy link (docs/runtime.md "The link
 * engine").  RT_LINKS_THREADS, the default: the computational threads that
 * wait inside the tree on the link's host receive its requests and run its
 * wrappers on its behalf; a service thread remains only for a link into a
 * part of the host's tree that no computational thread of the host enters
 * (a gateway relay, a core fed only by links).  RT_LINKS_SERVICES: one
 * service thread per link and instance, as in the PATHS paper, kept so
 * that the difference stays measurable.  Every rank must pass the same.
 */
typedef enum rt_links {
    RT_LINKS_THREADS  = 0,
    RT_LINKS_SERVICES = 1
} rt_links_t;

typedef struct rt_exec_params {
    const char *tree;          /* tree name; NULL = the first tree */
    unsigned    ninstances;    /* >= 1; Gsum uses 2 */
    size_t      max_bytes;     /* largest tuple, a multiple of the element size */
    int64_t     spin_ns;       /* wait budgets; < 0 = rt_wait_policy_auto */
    int64_t     yield_ns;
    const rt_hooks_t *hooks;   /* wrapper-visit observer (rt_hooks.h); NULL = none */
    double      watchdog_s;    /* stall watchdog (below); 0 = none */
    rt_links_t  links;         /* who serves proxy links; 0 = RT_LINKS_THREADS */
    int         edge_warmup;   /* arrival=edge: once the estimates are shared, one
                                  zero-byte message each way with every peer of the
                                  coming schedule (Proficz 2018, section 3); 0 = no */
} rt_exec_params_t;

/*
 * The stall watchdog.  With params->watchdog_s > 0 each rank runs a thread
 * that wakes a few times a second.  If some thread of the rank is inside
 * the tree (in rt_exec_allreduce, or a service thread serving a request)
 * and no location of the rank has started an operation for watchdog_s
 * seconds, it prints on stderr, line by line, where each of the rank's
 * threads is (the wrapper, tree instance and operation it waits in, and for
 * what: a gred's missing contributors, a proxy's reply from host X, a
 * link's next request), tells every other rank to print the same, and
 * after RT_EXEC_WATCHDOG_GRACE_S seconds calls MPI_Abort(MPI_COMM_WORLD,
 * RT_EXEC_WATCHDOG_CODE).  Time outside the tree never counts, so the
 * timeout must only exceed the longest time a thread can wait inside for
 * another one (the slowest thread's work between two allreduces).
 * docs/runtime.md shows a report.
 */
#define RT_EXEC_WATCHDOG_CODE    3
#define RT_EXEC_WATCHDOG_GRACE_S 2
#define RT_EXEC_WATCHDOG_MAX_S   (7 * 24 * 3600.0)   /* larger is refused */

/*
 * MPI_Init_thread asking for MPI_THREAD_MULTIPLE.  CM_ERR_UNSUPPORTED (with
 * MPI initialised, so the caller can still finalize) if it is not provided.
 */
cm_status_t rt_mpi_init(int *argc, char ***argv, cm_err_t *err);

/*
 * Collective: every rank passes its local status; returns CM_OK if all
 * ranks passed CM_OK, otherwise CM_ERR_MISMATCH on every rank with err
 * naming the lowest failing rank (which has printed its own error).  Call
 * it after any step that can fail on some ranks only, before the next
 * collective step, so that no rank waits for one that gave up.
 */
cm_status_t rt_mpi_agree(MPI_Comm comm, cm_status_t local, cm_err_t *err);

/* What a job does after rt_mpi_agree_args. */
typedef enum {
    RT_ARGS_RUN  = 0,   /* every rank's options parsed: go on */
    RT_ARGS_HELP = 1,   /* some rank was given --help; its usage is printed: exit 0 */
    RT_ARGS_BAD  = 2    /* some rank's options are wrong; said: exit 2 */
} rt_args_t;

/*
 * Collective, right after MPI is up, on options that every rank parsed on
 * its own before (an MPMD launch gives ranks different ones): opts holds
 * this rank's outcome, help says it was given --help.  A bad option
 * anywhere wins over --help.  Then:
 *   - when every rank failed with the same message, the lowest one prints
 *     "PROG: MESSAGE" once;
 *   - otherwise each failing rank whose message differs from the lowest
 *     failing rank's (and that rank) prints "PROG: rank R: MESSAGE", and
 *     every rank that parsed its own prints "PROG: rank R: rank L could not
 *     parse its options (see its message); giving up";
 *   - the lowest failing rank then prints hint (if not NULL) as a line:
 *     the usage line, or "try 'PROG --help'";
 *   - with --help and no error, the lowest rank given --help calls
 *     usage(stdout).
 * All on stderr but the usage.  Every rank returns the same value.
 */
rt_args_t rt_mpi_agree_args(MPI_Comm comm, const cm_opt_t *opts, int help,
                            void (*usage)(FILE *fp), const char *hint);

/*
 * Local: whether a job of nranks ranks runs pm (one rank per host).
 * CM_ERR_MISMATCH with "the job has N ranks but pathmap 'P' declares H
 * hosts; run one rank per host (mpirun -np H)" otherwise: the executor and
 * the tracer say it in the same words, whichever is set up first.
 */
cm_status_t rt_exec_check_size(const rt_pathmap_t *pm, int nranks, cm_err_t *err);

/*
 * Collective over comm: checks that comm has one rank per host and that
 * every rank parsed the same pathmap text (hash), sets up the tree's state
 * and starts this host's service threads (and the watchdog's, if asked).
 * CM_ERR_INVALID for a watchdog_s that is negative, not a number or above
 * RT_EXEC_WATCHDOG_MAX_S.  pm must outlive the executor.
 */
cm_status_t rt_exec_create(const rt_pathmap_t *pm, const rt_exec_params_t *params,
                           MPI_Comm comm, rt_exec_t **exec_p, cm_err_t *err);

/*
 * Collective: call after every local thread's last allreduce.  Waits until
 * all ranks are done (the watchdog still watching, and printing if another
 * rank's fires), stops the service and watchdog threads and frees the
 * executor.
 */
cm_status_t rt_exec_destroy(rt_exec_t *exec);

/* The tree being executed and this rank's host id. */
const rt_tree_t *rt_exec_tree(const rt_exec_t *exec);
rt_host_id_t     rt_exec_host(const rt_exec_t *exec);

/* Threads of the tree on this host: count, and the i-th (sorted by id). */
uint32_t               rt_exec_local_count(const rt_exec_t *exec);
const rt_thread_map_t *rt_exec_local_thread(const rt_exec_t *exec, uint32_t i);

/* Service threads this host runs: with RT_LINKS_SERVICES one per incoming
   link and instance, with RT_LINKS_THREADS only those no thread can serve. */
uint32_t rt_exec_service_count(const rt_exec_t *exec);

/* The wait policy in force (after auto-tuning). */
rt_wait_policy_t rt_exec_policy(const rt_exec_t *exec);

/*
 * One allreduce by local thread `local` (0 <= local < rt_exec_local_count)
 * on tree instance `instance`: contributes `bytes` of `in` and stores the
 * result in `out` (may not alias in).  Every thread of the tree must make
 * the same sequence of calls.  Thread-safe across distinct `local`s.
 */
void rt_exec_allreduce(rt_exec_t *exec, uint32_t local, unsigned instance,
                       const void *in, void *out, size_t bytes);

/*
 * Arrival estimation (docs/pap.md; Proficz 2018, section 3 and Figure 4).
 * For an algorithm node with arrival=edge, each computational thread
 * reports its progress during the computation phase before its next
 * allreduce, and a background thread of the rank turns the reports into
 * the host's estimated arrival, shares it with the other hosts of the node
 * while the network is idle, and makes the coming operation's schedule
 * before it starts.  With any other arrival source (or no algorithm node
 * spanning this host) both calls only cost a check.
 *
 * A thread's phase begins when its previous rt_exec_allreduce returns (the
 * first one when rt_exec_create returns) or, if the program calls it, at
 * rt_exec_phase_begin (for a program that does other work, e.g. barriers,
 * between two allreduces).  rt_exec_edge(fraction) says that `fraction`
 * of the phase's computation is done: the thread's estimated arrival is
 * begin + (now - begin) / fraction.  The host's estimate is its latest
 * thread's; a thread that arrives at the tree without having called
 * rt_exec_edge counts with its actual arrival.  Only threads whose path
 * on this host ends at the algorithm node count (one that leaves the host
 * through a proxy feeds another host: its calls are ignored), so a host
 * whose contribution comes only through links never has an estimate.
 *
 * Defined misuse: a fraction outside (0, 1] (or NaN) is ignored, and the
 * first such call on a rank prints one warning on stderr (whatever the
 * arrival source); a second call in one phase is ignored (the first report
 * counts); a thread that never calls it makes its host's estimate wait for
 * its arrival, and if no thread of a host reported before arriving, that
 * operation falls back to the previous source (history: the hosts'
 * arrivals at the node in the previous operation; all equal on the first)
 * on every host, and the trace says so.  A `local` out of range is fatal,
 * as in rt_exec_allreduce.  Neither call may run during rt_exec_destroy.
 */
void rt_exec_phase_begin(rt_exec_t *exec, uint32_t local);
void rt_exec_edge(rt_exec_t *exec, uint32_t local, double fraction);

#endif /* RT_EXEC_H */
