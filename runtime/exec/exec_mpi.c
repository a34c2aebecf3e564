/*
 * exec_mpi.c - setting up and tearing down an executor (rt_exec.h).
 *
 * Set-up is ordered so that no rank can wait for one that gave up: the
 * first collective step compares pathmap hashes, which every rank reaches
 * once the caller's rt_mpi_agree after parsing has passed; the checks of
 * the job that follow are agreed on (most see the same pathmap on every
 * rank and so fail everywhere or nowhere, but the MPI thread level is a
 * rank's own); local failures (memory, threads) are agreed on before any
 * service thread starts.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/exec/exec_int.h"

cm_status_t rt_mpi_init(int *argc, char ***argv, cm_err_t *err)
{
    int provided = MPI_THREAD_SINGLE;

    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return CM_ERR(err, CM_ERR_MPI, "MPI_Init_thread failed");
    if (provided < MPI_THREAD_MULTIPLE)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "this MPI library provides thread level %d, but paptree needs "
                      "MPI_THREAD_MULTIPLE (%d)", provided, MPI_THREAD_MULTIPLE);
    return CM_OK;
}

cm_status_t rt_mpi_agree(MPI_Comm comm, cm_status_t local, cm_err_t *err)
{
    int rank, mine[2], lowest[2];

    MPI_Comm_rank(comm, &rank);
    /* MINLOC over (failed ? 0 : 1, rank): the lowest failing rank wins. */
    mine[0] = local == CM_OK;
    mine[1] = rank;
    if (MPI_Allreduce(mine, lowest, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
        return CM_ERR(err, CM_ERR_MPI, "MPI_Allreduce failed while agreeing on status");
    if (lowest[0] == 1)
        return CM_OK;
    if (local != CM_OK)
        return local;                   /* err already says why */
    return CM_ERR(err, CM_ERR_MISMATCH, "rank %d failed (see its message); giving up",
                  lowest[1]);
}

/* Collective: the lowest failing rank's message reaches every rank, and
 * each learns whether all ranks failed with that same message. */
static int args_same_everywhere(MPI_Comm comm, const cm_opt_t *opts, int lowest,
                                char first[CM_OPT_MSG_MAX])
{
    int mine, all = 0;

    memcpy(first, opts->msg, CM_OPT_MSG_MAX);
    MPI_Bcast(first, CM_OPT_MSG_MAX, MPI_CHAR, lowest, comm);
    mine = opts->status != CM_OK && strcmp(opts->msg, first) == 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

static void args_report(MPI_Comm comm, const cm_opt_t *opts, int rank, int lowest,
                        const char *hint)
{
    char first[CM_OPT_MSG_MAX];

    if (args_same_everywhere(comm, opts, lowest, first)) {
        if (rank == lowest)
            fprintf(stderr, "%s: %s\n", opts->prog, opts->msg);
    } else if (opts->status != CM_OK) {
        if (rank == lowest || strcmp(opts->msg, first) != 0)
            fprintf(stderr, "%s: rank %d: %s\n", opts->prog, rank, opts->msg);
    } else {
        fprintf(stderr, "%s: rank %d: rank %d could not parse its options (see its "
                "message); giving up\n", opts->prog, rank, lowest);
    }
    if (rank == lowest && hint != NULL)
        fprintf(stderr, "%s\n", hint);
}

rt_args_t rt_mpi_agree_args(MPI_Comm comm, const cm_opt_t *opts, int help,
                            void (*usage)(FILE *fp), const char *hint)
{
    int rank, mine[4], low[4];

    MPI_Comm_rank(comm, &rank);
    /* MINLOC over two pairs: (parsed ? 1 : 0, rank), (help ? 0 : 1, rank). */
    mine[0] = opts->status == CM_OK;
    mine[1] = rank;
    mine[2] = !help;
    mine[3] = rank;
    MPI_Allreduce(mine, low, 2, MPI_2INT, MPI_MINLOC, comm);
    if (low[0] == 0) {
        args_report(comm, opts, rank, low[1], hint);
        return RT_ARGS_BAD;
    }
    if (low[2] == 0) {
        if (rank == low[3] && usage != NULL)
            usage(stdout);
        return RT_ARGS_HELP;
    }
    return RT_ARGS_RUN;
}

/* Every rank must have parsed the same text: compare min and max hash. */
static cm_status_t exec_check_hash(const rt_pathmap_t *pm, MPI_Comm comm, cm_err_t *err)
{
    uint64_t mine[2] = { pm->hash, ~pm->hash }, low[2];

    if (MPI_Allreduce(mine, low, 2, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        return CM_ERR(err, CM_ERR_MPI, "MPI_Allreduce failed while comparing pathmaps");
    if (low[0] != ~low[1])
        return CM_ERR(err, CM_ERR_MISMATCH,
                      "ranks parsed different pathmaps (this rank read '%s', hash "
                      "%016llx); give every rank the same file", pm->path,
                      (unsigned long long)pm->hash);
    return CM_OK;
}

cm_status_t rt_exec_check_size(const rt_pathmap_t *pm, int nranks, cm_err_t *err)
{
    if (nranks < 0 || (unsigned)nranks != pm->nhosts)
        return CM_ERR(err, CM_ERR_MISMATCH,
                      "the job has %d ranks but pathmap '%s' declares %u hosts; run "
                      "one rank per host (mpirun -np %u)", nranks, pm->path,
                      pm->nhosts, pm->nhosts);
    return CM_OK;
}

/* Checks that depend only on the pathmap and the job's shape. */
static cm_status_t exec_check_job(rt_exec_t *ex, const rt_exec_params_t *params,
                                  cm_err_t *err)
{
    int level = 0, *tag_ub = NULL, flag = 0;
    size_t elem;

    if (rt_exec_check_size(ex->pm, ex->size, err) != CM_OK)
        return err->status;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE)
        return CM_ERR(err, CM_ERR_UNSUPPORTED,
                      "MPI was not initialised with MPI_THREAD_MULTIPLE");
    if ((ex->tree = rt_pathmap_tree(ex->pm, params->tree)) == NULL)
        return CM_ERR(err, CM_ERR_NAME, "pathmap '%s' has no tree '%s'", ex->pm->path,
                      params->tree ? params->tree : "");
    elem = rt_dtype_size(ex->tree->dtype);
    if (params->max_bytes == 0 || params->max_bytes % elem != 0 ||
        params->max_bytes > (size_t)1 << 30)
        return CM_ERR(err, CM_ERR_INVALID,
                      "tuple size %zu is not a positive multiple of %zu bytes (%s) "
                      "up to 1 GiB", params->max_bytes, elem, rt_dtype_name(ex->tree->dtype));
    if (params->ninstances == 0 || params->ninstances > EXEC_INSTANCES_MAX)
        return CM_ERR(err, CM_ERR_INVALID, "instances must be 1..%d", EXEC_INSTANCES_MAX);
    if (params->links != RT_LINKS_THREADS && params->links != RT_LINKS_SERVICES)
        return CM_ERR(err, CM_ERR_INVALID, "links mode %d: give RT_LINKS_THREADS or "
                      "RT_LINKS_SERVICES", (int)params->links);
    if (!(params->watchdog_s >= 0 && params->watchdog_s <= RT_EXEC_WATCHDOG_MAX_S))
        return CM_ERR(err, CM_ERR_INVALID, "watchdog of %g s: give 0 (none) to %.0f seconds",
                      params->watchdog_s, RT_EXEC_WATCHDOG_MAX_S);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    if (flag && (int64_t)ex->tree->nnodes * params->ninstances >= *tag_ub)
        return CM_ERR(err, CM_ERR_RANGE, "too many links for MPI tags (tag_ub %d)",
                      *tag_ub);
    return CM_OK;
}

/*
 * Threads outnumber CPUs if this rank's threads exceed its affinity mask,
 * or all ranks on this machine together exceed its online CPUs.
 */
static void exec_choose_policy(rt_exec_t *ex, const rt_exec_params_t *params)
{
    uint32_t busy = ex->nlocal + ex->nservices, node_busy = busy;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    MPI_Comm node;
    bool over;

    if (MPI_Comm_split_type(ex->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        MPI_Allreduce(&busy, &node_busy, 1, MPI_UINT32_T, MPI_SUM, node);
        MPI_Comm_free(&node);
    }
    over = busy > rt_wait_cpus_available() || (online > 0 && node_busy > (uint32_t)online);
    ex->policy = rt_wait_policy_auto(over);
    if (params->spin_ns >= 0)
        ex->policy.spin_ns = (uint64_t)params->spin_ns;
    if (params->yield_ns >= 0)
        ex->policy.yield_ns = (uint64_t)params->yield_ns;
}

/* Fills path from `start` down to the first proxy, the core or the
   algorithm node, inclusive. */
static rt_path_t exec_path_from(rt_exec_t *ex, rt_node_id_t start, rt_node_id_t **pool)
{
    rt_path_t path = { *pool, 0 };
    rt_node_id_t id = start;

    for (;;) {
        (*pool)[path.len++] = id;
        if (ex->tree->nodes[id].kind != RT_NODE_GRED)
            break;
        id = ex->tree->nodes[id].parent;
    }
    *pool += path.len;
    return path;
}

/*
 * This host's locations (rt_location_list: the runtime's one enumeration),
 * the threads and services made from them, and their paths.  Computational
 * threads come first, so local thread k is location k.
 */
static cm_status_t exec_plan(rt_exec_t *ex)
{
    const rt_tree_t *t = ex->tree;
    rt_host_id_t host = (rt_host_id_t)ex->rank;
    uint32_t n = rt_location_list(t, ex->ninstances, host, NULL);
    size_t pool_len = 0;
    rt_node_id_t *pool;

    ex->locations = calloc(n + 1, sizeof(*ex->locations));
    if (ex->locations == NULL)
        return CM_ERR_NOMEM;
    ex->nlocations = rt_location_list(t, ex->ninstances, host, ex->locations);
    for (uint32_t i = 0; i < n; i++) {
        const rt_location_t *where = &ex->locations[i];

        ex->nlocal += where->kind == RT_LOCATION_COMPUTE;
        ex->nlinks += where->kind == RT_LOCATION_LINK;
        /* A path is at most its first wrapper's depth + 1 long. */
        pool_len += t->nodes[where->enter].depth + 1;
    }
    ex->path_pool = pool = calloc(pool_len + 1, sizeof(*pool));
    ex->local = calloc(ex->nlocal + 1, sizeof(*ex->local));
    ex->local_paths = calloc(ex->nlocal + 1, sizeof(*ex->local_paths));
    ex->links = calloc(ex->nlinks + 1, sizeof(*ex->links));
    if (!pool || !ex->local || !ex->local_paths || !ex->links)
        return CM_ERR_NOMEM;
    for (uint32_t i = 0, k = 0, s = 0; i < n; i++) {
        const rt_location_t *where = &ex->locations[i];
        rt_link_t *svc;

        if (where->kind == RT_LOCATION_COMPUTE) {
            assert(k == i);
            ex->local[k] = where->thread;
            ex->local_paths[k++] = exec_path_from(ex, where->enter, &pool);
            continue;
        }
        if (where->kind == RT_LOCATION_ALGO)
            continue;                    /* run by whoever arrives: algo_node.c */
        svc = &ex->links[s++];
        svc->ex = ex;
        svc->where = where;
        svc->proxy = where->proxy;
        svc->instance = where->instance;
        svc->peer = (int)t->nodes[where->proxy].host;
        svc->tag = 1 + (int)(where->proxy * ex->ninstances + where->instance);
        svc->path = exec_path_from(ex, where->enter, &pool);
    }
    return CM_OK;
}

/* Allocates the state of this host's wrappers, for every instance. */
static cm_status_t exec_init_state(rt_exec_t *ex)
{
    const rt_tree_t *t = ex->tree;

    ex->state = calloc((size_t)ex->ninstances * t->nnodes, sizeof(*ex->state));
    if (ex->state == NULL)
        return CM_ERR_NOMEM;
    for (unsigned inst = 0; inst < ex->ninstances; inst++) {
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const rt_node_t *node = &t->nodes[n];
            rt_node_state_t *st = rt__exec_state(ex, inst, n);
            cm_status_t s = CM_OK;

            if (node->host != (rt_host_id_t)ex->rank || node->kind == RT_NODE_ALGO)
                continue;
            if (node->kind == RT_NODE_GRED)
                s = rt_gred_init(&st->gred, rt_node_fanin(node), t->dtype, t->op,
                                 ex->max_bytes, node->wait, &ex->policy);
            else if (node->kind == RT_NODE_CORE && (st->store = malloc(ex->max_bytes)) == NULL)
                s = CM_ERR_NOMEM;
            st->peer = (int)t->nodes[node->parent == RT_ID_NONE ? n : node->parent].host;
            st->tag = 1 + (int)(n * ex->ninstances + inst);
            if (s != CM_OK)
                return s;
        }
    }
    return CM_OK;
}

/* The observer gave no handle for a location: say which one. */
static cm_status_t exec_refused(const rt_exec_t *ex, const rt_location_t *where, cm_err_t *err)
{
    const char *host = ex->pm->hosts[where->host].name;

    if (where->kind == RT_LOCATION_COMPUTE)
        return CM_ERR(err, CM_ERR_INVALID, "the hooks refused location %u of host %s "
                      "(thread %u)", where->index, host, where->thread->id);
    if (where->kind == RT_LOCATION_ALGO)
        return CM_ERR(err, CM_ERR_INVALID, "the hooks refused location %u of host %s "
                      "(algorithm node %s)", where->index, host,
                      ex->tree->nodes[where->enter].name);
    return CM_ERR(err, CM_ERR_INVALID, "the hooks refused location %u of host %s (link "
                  "of proxy %s, instance %u)", where->index, host,
                  ex->tree->nodes[where->proxy].name, where->instance);
}

/*
 * Every location's site, and with hooks its registration, in index order.
 * A refusal is reported here, naming the location, since only the
 * observer knows why (ins_trace refuses a location it did not expect).
 */
static cm_status_t exec_init_sites(rt_exec_t *ex, const rt_hooks_t *hooks, cm_err_t *err)
{
    uint32_t nsites = ex->nlocations;

    ex->sites = aligned_alloc(64, (size_t)(nsites + 1) * sizeof(*ex->sites));
    if (ex->sites == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory setting up tree '%s'",
                      ex->tree->name);
    memset(ex->sites, 0, (size_t)(nsites + 1) * sizeof(*ex->sites));
    for (uint32_t s = 0; s < ex->nlinks; s++)
        ex->links[s].site = &ex->sites[ex->links[s].where->index];
    for (uint32_t i = 0; i < nsites; i++)
        if (ex->locations[i].kind == RT_LOCATION_ALGO)
            rt__algo_node_set_site(ex, &ex->sites[i]);
    if (hooks == NULL)
        return CM_OK;
    ex->hooks = *hooks;
    ex->traced = true;
    for (uint32_t i = 0; i < nsites; i++) {
        const rt_location_t *where = &ex->locations[i];

        ex->sites[i].loc = hooks->location(hooks->ud, where);
        if (ex->sites[i].loc == NULL)
            return exec_refused(ex, where, err);
    }
    return CM_OK;
}

/* Every link's buffers; a service thread for those the threads cannot serve. */
static cm_status_t exec_start_services(rt_exec_t *ex)
{
    for (uint32_t i = 0; i < ex->nlinks; i++) {
        rt_link_t *svc = &ex->links[i];

        svc->in = malloc(ex->max_bytes);
        svc->out = malloc(ex->max_bytes);
        if (svc->in == NULL || svc->out == NULL)
            return CM_ERR_NOMEM;
        if (!svc->service)
            continue;                    /* served by threads: rt__link_post */
        if (pthread_create(&svc->thread, NULL, rt__service_main, svc) != 0)
            return CM_ERR_THREAD;
        svc->started = 1;
    }
    return CM_OK;
}

/* Frees everything; service threads must have been joined. */
static void exec_free(rt_exec_t *ex)
{
    if (ex->state != NULL) {
        for (unsigned inst = 0; inst < ex->ninstances; inst++) {
            for (uint32_t n = 0; n < ex->tree->nnodes; n++) {
                rt_node_state_t *st = rt__exec_state(ex, inst, n);
                if (st->gred.fanin != 0)
                    rt_gred_cleanup(&st->gred);
                free(st->store);
            }
        }
    }
    for (uint32_t i = 0; ex->links != NULL && i < ex->nlinks; i++) {
        free(ex->links[i].in);
        free(ex->links[i].out);
    }
    rt__link_cancel(ex);
    rt__algo_node_destroy(ex);
    free(ex->state);
    free(ex->links);
    free(ex->segments);
    free(ex->seg_links);
    free(ex->local);
    free(ex->local_paths);
    free(ex->path_pool);
    free(ex->sites);
    free(ex->locations);
    if (ex->comm != MPI_COMM_NULL)
        MPI_Comm_free(&ex->comm);
    free(ex);
}

/* Sends the stop request on every link this host is the client of and
   that a service thread serves (threads serving links just stop waiting). */
static void exec_stop_links(rt_exec_t *ex)
{
    const rt_tree_t *t = ex->tree;

    for (uint32_t n = 0; n < t->nnodes; n++) {
        if (t->nodes[n].kind != RT_NODE_PROXY || t->nodes[n].host != (rt_host_id_t)ex->rank ||
            !rt__link_needs_service(t, n, ex->link_mode))
            continue;
        for (unsigned inst = 0; inst < ex->ninstances; inst++) {
            const rt_node_state_t *st = rt__exec_state(ex, inst, n);
            rt__exec_mpi_check(ex, MPI_Send(NULL, 0, MPI_BYTE, st->peer, st->tag,
                                            ex->comm), "MPI_Send (stop)");
        }
    }
}

static cm_status_t exec_setup(rt_exec_t *ex, const rt_exec_params_t *params,
                              MPI_Comm comm, cm_err_t *err)
{
    cm_err_t ignored;                    /* a second error after the first */
    cm_status_t st;

    if ((st = exec_check_hash(ex->pm, comm, err)) != CM_OK)
        return st;
    /* Agreed: the thread level is the one check here that is not a
       function of the pathmap and may fail on some ranks only. */
    if ((st = rt_mpi_agree(comm, exec_check_job(ex, params, err), err)) != CM_OK)
        return st;
    ex->ninstances = params->ninstances;
    ex->max_bytes = params->max_bytes;
    if (MPI_Comm_dup(comm, &ex->comm) != MPI_SUCCESS)
        return CM_ERR(err, CM_ERR_MPI, "MPI_Comm_dup failed");
    MPI_Comm_set_errhandler(ex->comm, MPI_ERRORS_RETURN);
    ex->link_mode = params->links;
    ex->edge_warmup = params->edge_warmup != 0;
    st = exec_plan(ex);
    if (st == CM_OK)
        st = rt__link_plan(ex);
    if (st == CM_OK)
        exec_choose_policy(ex, params);
    if (st == CM_OK)
        st = exec_init_state(ex);
    if (st == CM_OK)
        rt__link_attach(ex);
    if (st != CM_OK)
        CM_ERR(err, st, "out of memory setting up tree '%s'", ex->tree->name);
    /* Collective: on every rank whatever st is, so that none waits alone. */
    if (st == CM_OK)
        st = rt__algo_node_create(ex, err);
    else
        rt__algo_node_create(ex, &ignored);
    if (st == CM_OK)
        st = exec_init_sites(ex, params->hooks, err);
    if ((st = rt_mpi_agree(ex->comm, st, err)) != CM_OK)
        return st;
    st = exec_start_services(ex);
    if (st != CM_OK)
        CM_ERR(err, st, "cannot start service threads");
    if (st == CM_OK && (st = rt__link_post(ex)) != CM_OK)
        CM_ERR(err, st, "cannot post the receives of the links' requests");
    if (st == CM_OK && ex->est != NULL && (st = rt__est_start(ex->est)) != CM_OK)
        CM_ERR(err, st, "cannot start the arrival estimator's thread");
    if (st == CM_OK && params->watchdog_s > 0 &&
        (st = rt__watchdog_start(ex, params->watchdog_s, &ex->watchdog)) != CM_OK)
        CM_ERR(err, st, "cannot start the watchdog");
    return rt_mpi_agree(ex->comm, st, err);
}

cm_status_t rt_exec_create(const rt_pathmap_t *pm, const rt_exec_params_t *params,
                           MPI_Comm comm, rt_exec_t **exec_p, cm_err_t *err)
{
    rt_exec_t *ex = calloc(1, sizeof(*ex));
    cm_status_t st;

    if (ex == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    ex->pm = pm;
    ex->comm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &ex->rank);
    MPI_Comm_size(comm, &ex->size);
    st = exec_setup(ex, params, comm, err);
    if (st != CM_OK) {
        rt__watchdog_stop(ex->watchdog);
        /* Services that did start are stopped by a collective teardown. */
        for (uint32_t i = 0; i < ex->nlinks; i++) {
            if (ex->links[i].started)
                rt__exec_fatal(ex, "service threads started on a failed set-up");
        }
        exec_free(ex);
        return st;
    }
    *exec_p = ex;
    return CM_OK;
}

cm_status_t rt_exec_destroy(rt_exec_t *ex)
{
    /* After the barrier no operation is in flight anywhere: every thread
     * has returned from its last allreduce, so every link is idle.  The
     * watchdog stays up until then: a rank whose threads are all done still
     * prints its state here when a stuck rank's watchdog fires. */
    rt__exec_mpi_check(ex, MPI_Barrier(ex->comm), "MPI_Barrier (teardown)");
    rt__watchdog_stop(ex->watchdog);
    rt__est_stop(ex->est);               /* collective over the node's hosts */
    exec_stop_links(ex);
    for (uint32_t i = 0; i < ex->nlinks; i++) {
        if (ex->links[i].started)
            pthread_join(ex->links[i].thread, NULL);
    }
    exec_free(ex);
    return CM_OK;
}

void rt_exec_allreduce(rt_exec_t *ex, uint32_t local, unsigned instance,
                       const void *in, void *out, size_t bytes)
{
    rt_site_t *site;

    if (local >= ex->nlocal || instance >= ex->ninstances || bytes == 0 ||
        bytes > ex->max_bytes || bytes % rt_dtype_size(ex->tree->dtype) != 0)
        rt__exec_fatal(ex, "rt_exec_allreduce(local %u, instance %u, %zu bytes): "
                       "out of range", local, instance, bytes);
    site = &ex->sites[local];
    if (ex->est != NULL)
        rt__est_arrive(ex->est, local);  /* arrival=edge: ends the phase (estimate.c) */
    rt__exec_run_path(ex, instance, &ex->local_paths[local], in, out, bytes, site);
    rt__where_set(&site->where, RT_WHERE_OUTSIDE, instance, 0);
    if (ex->est != NULL)
        rt__est_returned(ex->est, local);
}

const rt_tree_t *rt_exec_tree(const rt_exec_t *ex) { return ex->tree; }
rt_host_id_t rt_exec_host(const rt_exec_t *ex) { return (rt_host_id_t)ex->rank; }
uint32_t rt_exec_local_count(const rt_exec_t *ex) { return ex->nlocal; }
uint32_t rt_exec_service_count(const rt_exec_t *ex) { return ex->nservices; }
rt_wait_policy_t rt_exec_policy(const rt_exec_t *ex) { return ex->policy; }

const rt_thread_map_t *rt_exec_local_thread(const rt_exec_t *ex, uint32_t i)
{
    return i < ex->nlocal ? ex->local[i] : NULL;
}
