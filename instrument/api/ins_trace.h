/*
 * ins_trace.h - event collectors that record every wrapper visit of an
 * executor into an OTF2 archive (docs/trace-format.md).
 *
 * Usage, on every rank (the calls marked collective must be made by all):
 *
 *     ins_trace_open(pm, tree, ninstances, &opts, comm, &tr, &err);   collective
 *     params.hooks = ins_trace_hooks(tr);
 *     rt_exec_create(pm, &params, comm, &ex, &err);
 *     ... allreduces ...
 *     rt_exec_destroy(ex);
 *     ins_trace_close(tr, &summary, &err);                             collective
 *
 * While the program runs, each location (thread) appends its events to its
 * own buffer in memory: a timestamp read and a 24-byte store, no lock.  The
 * buffers are written to OTF2 when the trace is closed, after the paths are
 * released, as EventSpace did.  A location whose buffer fills up writes it
 * out on its own thread at once (a *flush*, counted and reported) and goes
 * on; nothing is dropped.
 *
 * The archive is written to "<dir>.partial" and renamed to <dir> by rank 0
 * only when every rank has written its part, so <dir> either holds a
 * complete archive or does not exist.  An existing <dir> is replaced only
 * with opts.force, and only if it is an OTF2 archive.  SIGINT and SIGTERM
 * while the trace is open remove the partial files and say so on stderr.
 */
#ifndef INS_TRACE_H
#define INS_TRACE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"
#include "runtime/api/rt_hooks.h"
#include "runtime/api/rt_pathmap.h"

typedef struct ins_trace ins_trace_t;

/*
 * The default opts.mem, per process: INS_TRACE_MEM_DEFAULT, or, for a host
 * with many threads, the minimum (ins_trace_mem_min) plus
 * INS_TRACE_MEM_PER_LOC per share when that is more; at most
 * INS_TRACE_MEM_PHYS_SHARE of the machine's physical memory divided among
 * the ranks on it, but never below the minimum.  Above the minimum, the
 * buffers split the memory by shares: one per location, as many as the
 * node has hosts for the host's part in an algorithm node (its messages).
 * Past its buffer a location flushes (and goes on).
 */
#define INS_TRACE_MEM_DEFAULT    ((size_t)64 << 20)
#define INS_TRACE_MEM_PER_LOC    ((size_t)1 << 20)
#define INS_TRACE_MEM_PHYS_SHARE 4            /* 1/4 */

typedef struct ins_trace_opts {
    const char *dir;        /* archive directory; the anchor is dir/traces.otf2 */
    size_t      mem;        /* bytes of event buffers per process; 0 = default */
    int         force;      /* replace an existing archive at dir */
    const char *command;    /* recorded as PAPTREE::COMMAND; may be NULL */
} ins_trace_opts_t;

/* What ins_trace_close reports; totals over all ranks, valid on every rank. */
typedef struct ins_trace_summary {
    uint64_t    events;           /* written, all locations */
    uint64_t    locations;
    uint64_t    flushes;          /* buffer flushes while recording */
    const char *clock;            /* INS_CLOCK_TSC or INS_CLOCK_MONO_RAW */
    double      ticks_per_s;      /* the clock's resolution */
    double      max_offset_us;    /* largest |offset| of a host to rank 0 */
    double      max_sync_err_us;  /* largest half round trip of those measurements */
    double      max_drift_ppm;    /* largest change of an offset, start to end */
} ins_trace_summary_t;

/*
 * Smallest opts.mem for this rank's share of the tree (its threads and
 * service threads); ins_trace_open fails below it, saying so.
 */
size_t ins_trace_mem_min(const rt_pathmap_t *pm, const rt_tree_t *tree,
                         unsigned ninstances, int rank);

/*
 * Collective over comm (one rank per host).  Checks the target directory
 * (rank 0), opens the archive, measures clock offsets.  The status is the
 * same on every rank; on failure err says why on every rank.
 */
cm_status_t ins_trace_open(const rt_pathmap_t *pm, const char *tree, unsigned ninstances,
                           const ins_trace_opts_t *opts, MPI_Comm comm,
                           ins_trace_t **tr_p, cm_err_t *err);

/* The hooks to pass in rt_exec_params_t; valid until ins_trace_close. */
const rt_hooks_t *ins_trace_hooks(ins_trace_t *tr);

/* Flushes on this rank so far (any thread may call it; a snapshot). */
uint64_t ins_trace_flushes(const ins_trace_t *tr);

/*
 * Collective; after rt_exec_destroy (no thread records any more).  Writes
 * the events and definitions, measures the clock offsets again, renames
 * the archive into place and frees tr.  On failure nothing is left at
 * opts.dir (nor at its ".partial"), and err says why, on every rank.
 */
cm_status_t ins_trace_close(ins_trace_t *tr, ins_trace_summary_t *sum, cm_err_t *err);

/* The directory written next to dir while recording: "<dir>.partial". */
#define INS_PARTIAL_SUFFIX ".partial"

#endif /* INS_TRACE_H */
