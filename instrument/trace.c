/*
 * trace.c - the life of a trace (ins_trace.h): open, the state, close.
 *
 * Recording is collect.c's (per-location buffers and the hooks).  Which
 * locations this rank has is the runtime's to say (rt_location_list):
 * the trace is sized for that list at open, and the executor registers
 * each location through the hooks.
 *
 * Writing (ins_trace_close): events, then per-location definitions (the
 * clock offsets), then rank 0 writes every global definition from what
 * each rank registered and counted (defs.c).  Every step is collective in
 * OTF2 and is made by every rank, whatever failed before; the outcome is
 * agreed on at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "instrument/ins_int.h"
#include "runtime/api/rt_exec.h"   /* rt_mpi_agree, rt_exec_check_size */

size_t ins_trace_mem_min(const rt_pathmap_t *pm, const rt_tree_t *tree, unsigned ninstances,
                         int rank)
{
    uint32_t n = rt_location_list(tree, ninstances, (rt_host_id_t)rank, NULL);

    (void)pm;
    return INS_GLOBAL_RES + (size_t)n * (INS_EVT_CHUNKS * INS_EVT_CHUNK + INS_BUF_MIN);
}

/*
 * How many shares of the buffers a location gets: 1, except the host's part
 * in an algorithm node, which records four events per message (send, its
 * completion, receive posted, receive complete) while a thread records a
 * few visits per operation; a host sends and receives up to about as many
 * messages per operation as the node has hosts (ring: 2 (P - 1)), so it gets
 * that many shares.  (README's PRR 4x2 run: the algorithm location records
 * about 8 times a thread's events; with an equal split it flushed.)
 */
static uint32_t trace_loc_weight(const ins_trace_t *tr, uint32_t i)
{
    const rt_node_t *algo = rt_tree_algo(tr->tree);

    if (algo == NULL || i + 1 != tr->nloc ||
        rt_algo_host_index(algo->algo, (rt_host_id_t)tr->rank) < 0)
        return 1;
    return algo->algo->nhosts;     /* the algorithm location is listed last */
}

/* The sum of the locations' shares. */
static uint64_t trace_shares(const ins_trace_t *tr)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < tr->nloc; i++)
        n += trace_loc_weight(tr, i);
    return n;
}

/*
 * opts.mem = 0 (ins_trace.h): enough for every location of a big host,
 * bounded by this rank's share of the machine's memory, but never below
 * what a run needs; a smaller buffer only means more flushes.
 */
static size_t trace_mem_default(size_t min, uint64_t shares, int node_ranks)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t want = min + (size_t)shares * INS_TRACE_MEM_PER_LOC, cap = SIZE_MAX;

    if (want < INS_TRACE_MEM_DEFAULT)
        want = INS_TRACE_MEM_DEFAULT;
    if (pages > 0 && page > 0)
        cap = (size_t)pages / INS_TRACE_MEM_PHYS_SHARE / (size_t)node_ranks * (size_t)page;
    if (want > cap)
        want = cap;
    return want > min ? want : min;
}

/* ---- open ------------------------------------------------------------------ */

/* Collective: how many ranks of comm share this rank's machine (1 if unknown). */
static int trace_node_ranks(MPI_Comm comm)
{
    MPI_Comm node;
    int n = 1;

    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
    }
    return n > 0 ? n : 1;
}

static char *str_dup(const char *s)
{
    return s != NULL ? strdup(s) : strdup("");
}

static void trace_free(ins_trace_t *tr)
{
    if (tr == NULL)
        return;
    for (uint32_t i = 0; tr->locs != NULL && i < tr->nloc; i++) {
        free(tr->locs[i].buf);
        if (tr->locs[i].attrs != NULL)
            OTF2_AttributeList_Delete(tr->locs[i].attrs);
    }
    for (char **f = tr->sig_files; f != NULL && *f != NULL; f++)
        free(*f);
    free(tr->sig_files);
    free(tr->sig_msg);
    free(tr->sig_done_msg);
    free(tr->locs);
    free(tr->where);
    free(tr->dir);
    free(tr->partial);
    free(tr->command);
    if (tr->comm != MPI_COMM_NULL)
        MPI_Comm_free(&tr->comm);
    free(tr);
}

/* Local checks and allocations: the buffers and the interrupt file list. */
static cm_status_t trace_alloc(ins_trace_t *tr, size_t mem, cm_err_t *err)
{
    size_t min = ins_trace_mem_min(tr->pm, tr->tree, tr->ninst, tr->rank), surplus;
    uint64_t shares;

    tr->nloc = rt_location_list(tr->tree, tr->ninst, (rt_host_id_t)tr->rank, NULL);
    shares = trace_shares(tr);
    if (mem == 0)
        mem = trace_mem_default(min, shares, tr->node_ranks);
    if (tr->nloc >= INS_LOC_MAX_PER_RANK)
        return CM_ERR(err, CM_ERR_RANGE, "host %s has %u threads to trace; at most %u",
                      tr->pm->hosts[tr->rank].name, tr->nloc, INS_LOC_MAX_PER_RANK - 1);
    if ((uint64_t)tr->ninst * tr->tree->nnodes >= INS_REC_EXT)
        return CM_ERR(err, CM_ERR_RANGE, "trace: %u instances x %u wrappers is too many "
                      "regions (at most 2^30)", tr->ninst, tr->tree->nnodes);
    if (rt_tree_algo(tr->tree) != NULL && tr->ninst > INS_REC_PAYLOAD + 1)
        return CM_ERR(err, CM_ERR_RANGE, "trace: %u instances of a tree with an algorithm "
                      "node is too many (at most 2^27)", tr->ninst);
    if (mem < min)
        return CM_ERR(err, CM_ERR_RANGE, "--trace-mem %zu is too small for the %u locations "
                      "(threads, links, algorithm node) of host %s: at least %zu bytes (%zu KiB)", mem, tr->nloc,
                      tr->pm->hosts[tr->rank].name, min, (min + 1023) / 1024);
    /* Every location gets the minimum's INS_BUF_MIN, and the surplus by shares. */
    surplus = mem - min;
    tr->where = calloc(tr->nloc + 1, sizeof(*tr->where));
    tr->locs = aligned_alloc(64, (tr->nloc + 1) * sizeof(*tr->locs));
    if (tr->where == NULL || tr->locs == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    memset(tr->locs, 0, (tr->nloc + 1) * sizeof(*tr->locs));
    for (uint32_t i = 0; i < tr->nloc; i++) {
        ins_loc_t *loc = &tr->locs[i];
        size_t bytes = INS_BUF_MIN + (size_t)((double)surplus * trace_loc_weight(tr, i) /
                                              (double)shares);

        loc->tr = tr;
        loc->nnodes = tr->tree->nnodes;
        loc->id = ins__loc_id(tr->rank, i);
        loc->attrs = OTF2_AttributeList_New();
        if (ins__collect_buffer(loc, bytes) != 0 || loc->attrs == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory for trace buffers (%zu bytes)",
                          mem);
    }
    return ins__signals_plan(tr, err);
}

/*
 * Collective: the clock, the archive and its event writers.  On failure
 * nothing is left on disk.
 */
static cm_status_t trace_open_archive(ins_trace_t *tr, cm_err_t *err)
{
    cm_status_t st;

    ins__clock_choose(tr->comm);
    st = ins__archive_open(tr, err);
    st = rt_mpi_agree(tr->comm, st, err);
    if (st == CM_OK) {
        /* Armed before any file exists, so an interrupt removes them all. */
        ins__signals_arm(tr->sig_files, tr->sig_msg, tr->sig_done_msg);
        st = rt_mpi_agree(tr->comm, ins__archive_open_events(tr, err), err);
    }
    if (st != CM_OK) {
        if (tr->ar != NULL)
            OTF2_Archive_Close(tr->ar);
        ins__signals_disarm();
        ins__fs_discard_all(tr->comm, tr->partial);
    }
    return st;
}

/* The fields of tr that come from the arguments, checked. */
static cm_status_t trace_init(ins_trace_t *tr, const rt_pathmap_t *pm, const char *tree,
                              unsigned ninstances, const ins_trace_opts_t *opts,
                              cm_err_t *err)
{
    tr->pm = pm;
    tr->tree = rt_pathmap_tree(pm, tree);
    tr->ninst = ninstances;
    tr->dir = str_dup(opts->dir);
    tr->partial = ins__fs_fmt("%s%s", opts->dir ? opts->dir : "", INS_PARTIAL_SUFFIX);
    tr->command = str_dup(opts->command);
    if (tr->dir == NULL || tr->partial == NULL || tr->command == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    if (opts->dir == NULL || opts->dir[0] == '\0')
        return CM_ERR(err, CM_ERR_INVALID, "no trace directory given");
    if (rt_exec_check_size(pm, tr->size, err) != CM_OK)
        return err->status;
    if (tr->tree == NULL)
        return CM_ERR(err, CM_ERR_NAME, "pathmap '%s' has no tree '%s'", pm->path,
                      tree ? tree : "");
    if (ninstances == 0)
        return CM_ERR(err, CM_ERR_INVALID, "trace: no tree instances");
    return trace_alloc(tr, opts->mem, err);
}

cm_status_t ins_trace_open(const rt_pathmap_t *pm, const char *tree, unsigned ninstances,
                           const ins_trace_opts_t *opts, MPI_Comm comm, ins_trace_t **tr_p,
                           cm_err_t *err)
{
    ins_trace_t *tr = calloc(1, sizeof(*tr));
    cm_status_t st;

    *tr_p = NULL;
    if (tr == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    tr->comm = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &tr->comm) != MPI_SUCCESS) {
        trace_free(tr);
        return CM_ERR(err, CM_ERR_MPI, "MPI_Comm_dup failed");
    }
    MPI_Comm_rank(tr->comm, &tr->rank);
    MPI_Comm_size(tr->comm, &tr->size);
    tr->node_ranks = trace_node_ranks(tr->comm);
    ins__archive_register_errors();
    st = trace_init(tr, pm, tree, ninstances, opts, err);
    if ((st = rt_mpi_agree(tr->comm, st, err)) == CM_OK)
        st = ins__fs_prepare_all(tr->comm, tr->dir, tr->partial, opts->force, err);
    if (st == CM_OK)
        st = trace_open_archive(tr, err);
    if (st == CM_OK && ins__sync_offset(tr->comm, &tr->off0) != 0)
        st = CM_ERR(err, CM_ERR_MPI, "clock offset measurement failed");
    if (st != CM_OK) {
        trace_free(tr);
        return st;
    }
    ins__clock_pair(&tr->clk0);
    ins__collect_hooks(tr);
    *tr_p = tr;
    return CM_OK;
}

const rt_hooks_t *ins_trace_hooks(ins_trace_t *tr)
{
    return &tr->hooks;
}

/* ---- close ------------------------------------------------------------------ */

static void trace_summary(ins_trace_t *tr, uint64_t events, uint64_t flushes, double rate,
                          ins_trace_summary_t *sum)
{
    double per_us = rate / 1e6, span = (double)(tr->off1.time - tr->off0.time);
    double mine[3], max[3];
    uint64_t in[3] = { events, flushes, tr->nloc }, out[3];

    mine[0] = fmax(fabs((double)tr->off0.offset), fabs((double)tr->off1.offset)) / per_us;
    mine[1] = fmax((double)tr->off0.rtt, (double)tr->off1.rtt) / 2.0 / per_us;
    mine[2] = span > 0 ? fabs((double)(tr->off1.offset - tr->off0.offset)) / span * 1e6 : 0;
    MPI_Allreduce(mine, max, 3, MPI_DOUBLE, MPI_MAX, tr->comm);
    MPI_Allreduce(in, out, 3, MPI_UINT64_T, MPI_SUM, tr->comm);
    memset(sum, 0, sizeof(*sum));
    sum->events = out[0];
    sum->flushes = out[1];
    sum->locations = out[2];
    sum->clock = ins__clock_tsc ? INS_CLOCK_TSC : INS_CLOCK_MONO_RAW;
    sum->ticks_per_s = rate;
    sum->max_offset_us = max[0];
    sum->max_sync_err_us = max[1];
    sum->max_drift_ppm = max[2];
}

/*
 * Collective, after the events are drained everywhere without error: the
 * event files, the second clock offsets, the definitions, the archive.
 */
static cm_status_t trace_write(ins_trace_t *tr, uint64_t *events, uint64_t *flushes,
                               double *rate, cm_err_t *err)
{
    cm_status_t st;

    st = ins__archive_check(tr->dir, ins__archive_close_events(tr, events, flushes), "events",
                            CM_OK, err);
    if (ins__sync_offset(tr->comm, &tr->off1) != 0 && st == CM_OK)
        st = CM_ERR(err, CM_ERR_MPI, "clock offset measurement failed");
    ins__clock_pair(&tr->clk1);
    *rate = ins__clock_rate(&tr->clk0, &tr->clk1);
    MPI_Bcast(rate, 1, MPI_DOUBLE, 0, tr->comm);   /* one resolution: rank 0's */
    st = ins__archive_check(tr->dir, ins__defs_write_locals(tr), "local definitions", st, err);
    st = ins__archive_check(tr->dir, ins__defs_write_globals(tr, *rate), "global definitions",
                            st, err);
    st = ins__archive_check(tr->dir, OTF2_Archive_Close(tr->ar), "closing the archive", st, err);
    if (st == CM_OK)
        st = ins__archive_write_pathmap(tr, err);
    return rt_mpi_agree(tr->comm, st, err);
}

cm_status_t ins_trace_close(ins_trace_t *tr, ins_trace_summary_t *sum, cm_err_t *err)
{
    cm_status_t st = CM_OK;
    uint64_t events = 0, flushes = 0;
    double rate = 0;

    if (tr->nregistered != tr->nloc)
        st = CM_ERR(err, CM_ERR_INVALID, "trace: %u of %u threads registered; was the "
                    "executor created with ins_trace_hooks?", tr->nregistered, tr->nloc);
    /*
     * If an event write failed anywhere (disk full during a flush), every
     * rank leaves OTF2 alone from here on: OTF2 crashes when it flushes a
     * writer again after a failed write (seen in OTF2 3.0.2 as SIGSEGV in
     * OTF2_Buffer_Delete), so the archive is abandoned, not closed.
     */
    st = ins__archive_check(tr->dir, ins__archive_drain(tr), "events", st, err);
    if ((st = rt_mpi_agree(tr->comm, st, err)) == CM_OK)
        st = trace_write(tr, &events, &flushes, &rate, err);
    else {
        ins__archive_leave_open(tr->ar);
        tr->ar = NULL;
    }
    if (st == CM_OK && (st = ins__fs_commit_all(tr->comm, tr->dir, tr->partial, err)) == CM_OK)
        ins__signals_done();
    if (st != CM_OK)
        ins__fs_discard_all(tr->comm, tr->partial);
    ins__signals_disarm();
    if (st == CM_OK)
        trace_summary(tr, events, flushes, rate, sum);
    trace_free(tr);
    return st;
}
