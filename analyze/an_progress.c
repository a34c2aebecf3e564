/*
 * an_progress.c - papanalyze's progress lines (an_progress_int.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analyze/an_progress_int.h"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void an_progress_init(an_progress_t *p, uint64_t total, int on)
{
    const char *every = getenv("PAPTREE_PROGRESS_S");

    p->total = total;
    p->start = p->last = now();
    p->on = on;
    p->first = 1.5;
    p->every = 2;
    if (every != NULL && *every != '\0') {   /* tests: lines at once, every N s */
        p->first = p->every = atof(every);
        p->last = p->start - p->every;
    }
}

void an_progress_tick(an_progress_t *p, uint64_t events)
{
    double t, el, rate;

    if (!p->on)
        return;
    t = now();
    el = t - p->start;
    if (el < p->first || t - p->last < p->every)
        return;
    p->last = t;
    rate = (double)events / el;
    fprintf(stderr, "papanalyze: %5.1f %% (%.1f of %.1f M events, %.1f M events/s, %.1f s",
            p->total > 0 ? 100.0 * (double)events / (double)p->total : 0.0,
            (double)events / 1e6, (double)p->total / 1e6, rate / 1e6, el);
    if (rate > 0 && p->total > events)
        fprintf(stderr, ", %.1f s left)\n", (double)(p->total - events) / rate);
    else
        fputs(")\n", stderr);
}
