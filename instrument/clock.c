/*
 * clock.c - the event clock.
 *
 * EventSpace read the Pentium timestamp counter; we do the same where the
 * TSC is invariant (the CPU flags constant_tsc and nonstop_tsc: it ticks
 * at a fixed rate in every power state, and the kernel keeps the cores in
 * step).  Reading it costs about 8.5 ns here, against 18.7 ns for
 * clock_gettime (docs/platform.md, Clocks), and the hot path of a trace
 * is one clock read and one store.  Elsewhere, or with
 * PAPTREE_TRACE_CLOCK=monotonic_raw, we use CLOCK_MONOTONIC_RAW, which NTP
 * does not slew.  Ticks are stored raw; the rate is measured against
 * CLOCK_MONOTONIC_RAW over the whole run and written as the OTF2 clock
 * resolution.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "instrument/ins_int.h"

bool ins__clock_tsc;

bool ins__clock_tsc_usable(void)
{
#if defined(__x86_64__) || defined(__i386__)
    char line[4096];
    bool constant = false, nonstop = false;
    FILE *fp = fopen("/proc/cpuinfo", "r");

    if (fp == NULL)
        return false;
    while (fgets(line, sizeof(line), fp) != NULL) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(fp);
    return constant && nonstop;
#else
    return false;
#endif
}

void ins__clock_choose(MPI_Comm comm)
{
    const char *want = getenv("PAPTREE_TRACE_CLOCK");
    int mine = ins__clock_tsc_usable() && !(want && strcmp(want, INS_CLOCK_MONO_RAW) == 0);
    int all = 0;

    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    ins__clock_tsc = all != 0;
}

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void ins__clock_pair(ins_clock_pair_t *p)
{
    /* Bracket the tick read with two raw reads; keep the tightest of a few. */
    int64_t best = INT64_MAX;

    for (int i = 0; i < 5; i++) {
        int64_t a = clock_ns(CLOCK_MONOTONIC_RAW);
        uint64_t t = ins__clock_now();
        int64_t b = clock_ns(CLOCK_MONOTONIC_RAW);

        if (b - a < best) {
            best = b - a;
            p->ticks = t;
            p->raw_ns = a + (b - a) / 2;
        }
    }
    p->real_ns = clock_ns(CLOCK_REALTIME);
}

double ins__clock_rate(const ins_clock_pair_t *a, const ins_clock_pair_t *b)
{
    if (!ins__clock_tsc || b->raw_ns <= a->raw_ns)
        return 1e9;
    return (double)(b->ticks - a->ticks) * 1e9 / (double)(b->raw_ns - a->raw_ns);
}
