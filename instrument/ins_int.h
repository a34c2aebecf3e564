/*
 * ins_int.h - private to instrument/: the recorder's state and helpers.
 */
#ifndef INS_INT_H
#define INS_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include "instrument/api/ins_schema.h"
#include "instrument/api/ins_trace.h"

/* ---- clock (clock.c) ---------------------------------------------------- */

/* Set once by ins__clock_choose, before any thread records. */
extern bool ins__clock_tsc;

/* The event clock: raw ticks of the TSC, or nanoseconds of MONOTONIC_RAW. */
static inline uint64_t ins__clock_now(void)
{
    struct timespec ts;

#if defined(__x86_64__) || defined(__i386__)
    if (ins__clock_tsc)
        return __rdtsc();
#endif
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether this machine's TSC can be the event clock (invariant TSC). */
bool ins__clock_tsc_usable(void);

/* A tick reading and the CLOCK_MONOTONIC_RAW and CLOCK_REALTIME times at it. */
typedef struct ins_clock_pair {
    uint64_t ticks;
    int64_t  raw_ns;
    int64_t  real_ns;
} ins_clock_pair_t;

void ins__clock_pair(ins_clock_pair_t *p);

/* Ticks per second between two pairs (exactly 1e9 for MONOTONIC_RAW). */
double ins__clock_rate(const ins_clock_pair_t *a, const ins_clock_pair_t *b);

/* ---- clock offsets (sync.c) --------------------------------------------- */

typedef struct ins_offset {
    uint64_t time;      /* local ticks at the middle of the best round trip */
    int64_t  offset;    /* rank 0's ticks - local ticks */
    uint64_t rtt;       /* the best (smallest) round trip, ticks */
} ins_offset_t;

/* Collective over comm: this rank's offset to rank 0 (0 on rank 0). */
int ins__sync_offset(MPI_Comm comm, ins_offset_t *out);

/* ---- files (fs.c) -------------------------------------------------------- */

/*
 * Rank 0, before opening: checks that dir may be written (absent, or
 * present with force and an OTF2 archive), removes a stale partial with
 * force, creates dir's parent directories and probes that partial can be
 * created.  Returns 0, or -1 with msg set.
 */
int ins__fs_prepare(const char *dir, const char *partial, int force,
                    char *msg, size_t msglen);

/* Rank 0, after a complete write: moves partial to dir (replacing it). */
int ins__fs_commit(const char *dir, const char *partial, char *msg, size_t msglen);

/* Removes a directory tree (partial archives only); 0 or -1 with errno. */
int ins__fs_remove_tree(const char *path);

/*
 * Interrupt safety.  ins__signals_arm installs SIGINT and SIGTERM handlers
 * that unlink `files` (NULL-terminated; this rank's part of the partial
 * archive, directories last), print `msg` and re-raise the signal.
 * ins__signals_done tells the handler the archive is complete (then it
 * only says so); ins__signals_disarm restores the previous handlers.
 */
void ins__signals_arm(char **files, const char *msg, const char *done_msg);
void ins__signals_done(void);
void ins__signals_disarm(void);

#endif /* INS_INT_H */
