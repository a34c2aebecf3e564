/*
 * ip_comm.c - what the library keeps per application communicator: the
 * trace's id for it, its size and this rank, a private duplicate for the
 * algorithms' messages and the arrival gathers (so that they never match an
 * application's message), the algorithms made runnable on it, scratch.
 *
 * The state is made at the first intercepted call on the communicator.
 * That call is a collective, and collectives on a communicator are issued
 * in the same order on every member, so every member makes it at the same
 * call: duplicating the communicator and agreeing on its id are then
 * collectives of their own, safe to issue right there.  It is cached as an
 * attribute of the application's communicator (a keyval, MPI-3.1 6.7),
 * whose delete callback frees it when the application frees the
 * communicator; MPI_COMM_WORLD's and those the application never frees are
 * freed at MPI_Finalize (ip_comm_shutdown).
 *
 * Ids: MPI_COMM_WORLD is 0, MPI_COMM_SELF 1 on every rank (ins_schema.h:
 * the trace has one definition of it).  Another communicator's is its rank 0's world
 * rank in the low ip_lib.rank_bits bits and that rank's count of
 * communicators above them, broadcast on the duplicate: unique in the run,
 * the same on every member.  An intercommunicator is never run by an
 * algorithm (a fallback) and gets no duplicate; its id is made the same
 * way from this rank alone (unique, but each side has its own).
 *
 * The lookup is on every call, so it is cached: MPI_COMM_WORLD's state is
 * a global, and each thread keeps the last four other communicators it
 * looked up, each with the generation of the cache (ip_lib.comm_gen, bumped whenever a
 * state is freed, as a handle may then be reused for a new communicator).
 */
#include <stdlib.h>
#include <string.h>
#include "instrument/api/ins_schema.h"
#include "interpose/ip_int.h"

typedef struct comm_cache {
    MPI_Comm   comm;
    ip_comm_t *c;
    unsigned   gen;
} comm_cache_t;

/* Communicators remembered per thread (a program that alternates between a
   few finds each of them here). */
#define IP_COMM_CACHE 4

static __thread comm_cache_t cache[IP_COMM_CACHE] __attribute__((tls_model("initial-exec")));
static __thread unsigned cache_next __attribute__((tls_model("initial-exec")));

/* Releases c's MPI objects (the pending gathers, the duplicate); the
   struct stays for the attribute, which still points at it. */
static void state_release(ip_comm_t *c)
{
    ip_algo_comm_free(c);
    if (c->dup != MPI_COMM_NULL)
        PMPI_Comm_free(&c->dup);
    c->dead = 1;
}

static void state_free(ip_comm_t *c)
{
    for (int i = 0; i < IP_RULE_NCOLL; i++) {
        free(c->hist[i].all);
        free(c->hist[i].arrival);
    }
    free(c->hosts);
    free(c->scratch);
    free(c);
}

static void live_unlink(ip_comm_t *c)
{
    pthread_mutex_lock(&ip_lib.lock);
    if (c->live_prev)
        c->live_prev->live_next = c->live_next;
    else if (ip_lib.live == c)
        ip_lib.live = c->live_next;
    if (c->live_next)
        c->live_next->live_prev = c->live_prev;
    c->live_next = c->live_prev = NULL;
    pthread_mutex_unlock(&ip_lib.lock);
}

/* The application freed the communicator (or MPI_Finalize deletes
   MPI_COMM_SELF's attributes, for MPI_COMM_SELF). */
static int comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    ip_comm_t *c = attr;

    (void)comm, (void)keyval, (void)extra;
    atomic_fetch_add(&ip_lib.comm_gen, 1);
    if (!c->dead) {
        live_unlink(c);
        state_release(c);
    }
    state_free(c);
    return MPI_SUCCESS;
}

int ip_comm_setup(void)
{
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &ip_lib.comm_keyval,
                                   NULL);
}

void ip_comm_shutdown(void)
{
    atomic_fetch_add(&ip_lib.comm_gen, 1);
    pthread_mutex_lock(&ip_lib.lock);
    for (ip_comm_t *c = ip_lib.live; c; c = c->live_next)
        state_release(c);
    ip_lib.live = NULL;
    pthread_mutex_unlock(&ip_lib.lock);
    ip_lib.world_state = NULL;
}

void *ip_comm_scratch(ip_comm_t *c, size_t bytes)
{
    if (bytes > c->scratch_bytes) {
        void *p = realloc(c->scratch, bytes);

        if (!p)
            return NULL;
        c->scratch = p;
        c->scratch_bytes = bytes;
    }
    return c->scratch;
}

static uint32_t next_id(void)
{
    uint32_t n;

    pthread_mutex_lock(&ip_lib.lock);
    n = ip_lib.next_id++;
    pthread_mutex_unlock(&ip_lib.lock);
    return (n << ip_lib.rank_bits) | (uint32_t)ip_lib.world_rank;
}

/* The trace's definition of c: its members' world ranks and its name. */
static void define(ip_comm_t *c)
{
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    int32_t *ranks = calloc((size_t)c->size, sizeof *ranks);
    int *in = calloc((size_t)c->size, sizeof *in), *out = calloc((size_t)c->size, sizeof *out);
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    ins_mpi_comm_def_t def;
    cm_err_t err;

    if (!ranks || !in || !out)
        goto out;
    for (int i = 0; i < c->size; i++)
        in[i] = i;
    if (PMPI_Comm_group(c->app, &g) != MPI_SUCCESS ||
        PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS ||
        PMPI_Group_translate_ranks(g, c->size, in, wg, out) != MPI_SUCCESS)
        goto out;
    for (int i = 0; i < c->size; i++)
        ranks[i] = out[i];
    PMPI_Comm_get_name(c->app, name, &len);
    def.id = c->id;
    def.name = name;
    def.size = c->size;
    def.world_ranks = ranks;
    def.parent = UINT32_MAX;
    cm_err_clear(&err);
    ins_mpi_comm(ip_lib.trace, &def, &err);
out:
    if (g != MPI_GROUP_NULL)
        PMPI_Group_free(&g);
    if (wg != MPI_GROUP_NULL)
        PMPI_Group_free(&wg);
    free(ranks);
    free(in);
    free(out);
}

/* Size, rank, kind, duplicate and id of a new state; MPI's code. */
static int state_init(ip_comm_t *c, MPI_Comm comm)
{
    int rc, flag = 0, size = 0, rank = 0;

    c->app = comm;
    c->dup = MPI_COMM_NULL;
    if ((rc = PMPI_Comm_test_inter(comm, &flag)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return rc;
    c->inter = flag;
    c->size = size;
    c->rank = rank;
    if (comm == MPI_COMM_WORLD) {
        c->id = 0;
    } else if (comm == MPI_COMM_SELF) {
        c->id = INS_COMM_SELF_ID;
    } else if (flag || size == 1) {
        c->id = next_id();
    } else {
        uint32_t id = rank == 0 ? next_id() : 0;

        if ((rc = PMPI_Comm_dup(comm, &c->dup)) != MPI_SUCCESS)
            return rc;
        PMPI_Comm_set_errhandler(c->dup, MPI_ERRORS_RETURN);
        if ((rc = PMPI_Bcast(&id, 1, MPI_UINT32_T, 0, c->dup)) != MPI_SUCCESS)
            return rc;
        c->id = id;
    }
    if (comm == MPI_COMM_WORLD && size > 1) {
        if ((rc = PMPI_Comm_dup(comm, &c->dup)) != MPI_SUCCESS)
            return rc;
        PMPI_Comm_set_errhandler(c->dup, MPI_ERRORS_RETURN);
    }
    c->hosts = malloc((size_t)size * sizeof *c->hosts);
    if (!c->hosts)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < size; i++)
        c->hosts[i] = (rt_host_id_t)i;
    return MPI_SUCCESS;
}

static ip_comm_t *state_make(MPI_Comm comm)
{
    ip_comm_t *c = calloc(1, sizeof *c);

    if (!c)
        return NULL;
    if (state_init(c, comm) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(comm, ip_lib.comm_keyval, c) != MPI_SUCCESS) {
        if (c->dup != MPI_COMM_NULL)
            PMPI_Comm_free(&c->dup);
        state_free(c);
        return NULL;
    }
    if (ip_lib.trace)
        define(c);
    pthread_mutex_lock(&ip_lib.lock);
    c->live_next = ip_lib.live;
    if (ip_lib.live)
        ip_lib.live->live_prev = c;
    ip_lib.live = c;
    pthread_mutex_unlock(&ip_lib.lock);
    return c;
}

static ip_comm_t *lookup(MPI_Comm comm)
{
    void *attr = NULL;
    int flag = 0;

    if (comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, ip_lib.comm_keyval, &attr, &flag) != MPI_SUCCESS)
        return NULL;
    if (flag)
        return ((ip_comm_t *)attr)->dead ? NULL : attr;
    return state_make(comm);
}

ip_comm_t *ip_comm_get(MPI_Comm comm)
{
    unsigned gen;
    ip_comm_t *c;

    if (comm == MPI_COMM_WORLD) {
        if (!ip_lib.world_state)
            ip_lib.world_state = lookup(comm);
        return ip_lib.world_state;
    }
    gen = atomic_load_explicit(&ip_lib.comm_gen, memory_order_acquire);
    for (int i = 0; i < IP_COMM_CACHE; i++)
        if (cache[i].comm == comm && cache[i].gen == gen && cache[i].c)
            return cache[i].c;
    c = lookup(comm);
    if (c) {
        comm_cache_t *e = &cache[cache_next++ % IP_COMM_CACHE];

        e->comm = comm;
        e->c = c;
        e->gen = gen;
    }
    return c;
}
