/*
 * sim_arrival.c - arrival patterns for the simulator (runtime/api/rt_sim.h):
 * when each of P ranks reaches a collective, in nanosecond ticks, as papsim
 * --arrival names them.  The random pattern uses splitmix64, a fixed
 * generator, so that a seed gives the same vector on every machine.
 *
 * Example, P = 5, ms = 4: one-late (rank 1) 0 4 0 0 0 ms; sorted 0 1 2 3 4;
 * reversed 4 3 2 1 0; random: five draws in [0, 4).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "runtime/api/rt_sim.h"

/* splitmix64 (Steele, Lea, Flood 2014): the next value of the stream at *x. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

cm_status_t rt_sim_arrival_make(const rt_sim_arrival_t *a, int32_t nranks, int64_t *ticks,
                                cm_err_t *err)
{
    int32_t P = nranks;
    uint64_t state = a->seed;

    if (P < 1)
        return CM_ERR(err, CM_ERR_RANGE, "arrival: %d ranks (at least 1)", P);
    if (!(a->ms >= 0 && a->ms <= RT_SIM_ARRIVAL_MS_MAX))
        return CM_ERR(err, CM_ERR_RANGE, "arrival: %g ms: out of range, 0 to %g ms", a->ms,
                      RT_SIM_ARRIVAL_MS_MAX);
    if (a->kind == RT_SIM_ARRIVAL_ONE_LATE && (a->rank < 0 || a->rank >= P))
        return CM_ERR(err, CM_ERR_RANGE, "arrival: rank %d is not a rank of P = %d", a->rank,
                      P);
    for (int32_t r = 0; r < P; r++) {
        double ms = 0;

        switch (a->kind) {
        case RT_SIM_ARRIVAL_NONE: break;
        case RT_SIM_ARRIVAL_ONE_LATE: ms = r == a->rank ? a->ms : 0; break;
        case RT_SIM_ARRIVAL_RANDOM:
            /* the top 53 bits: a uniform double in [0, 1) */
            ms = a->ms * (double)(splitmix64(&state) >> 11) * 0x1.0p-53;
            break;
        case RT_SIM_ARRIVAL_SORTED: ms = P > 1 ? a->ms * r / (P - 1) : 0; break;
        case RT_SIM_ARRIVAL_REVERSED: ms = P > 1 ? a->ms * (P - 1 - r) / (P - 1) : 0; break;
        }
        ticks[r] = llround(ms * 1e6);
    }
    return CM_OK;
}

void rt_sim_arrival_describe(const rt_sim_arrival_t *a, char *buf, size_t size)
{
    switch (a->kind) {
    case RT_SIM_ARRIVAL_NONE:
        snprintf(buf, size, " (all at 0)");
        return;
    case RT_SIM_ARRIVAL_ONE_LATE:
        snprintf(buf, size, " (rank %d at %g ms, the others at 0)", a->rank, a->ms);
        return;
    case RT_SIM_ARRIVAL_RANDOM:
        snprintf(buf, size, " (uniform in [0, %g] ms, seed %" PRIu64 ")", a->ms, a->seed);
        return;
    case RT_SIM_ARRIVAL_SORTED:
        snprintf(buf, size, " (rank r at r*%g/(P-1) ms)", a->ms);
        return;
    case RT_SIM_ARRIVAL_REVERSED:
        snprintf(buf, size, " (rank r at (P-1-r)*%g/(P-1) ms)", a->ms);
        return;
    }
    snprintf(buf, size, " (?)");
}
