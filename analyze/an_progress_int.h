/*
 * an_progress_int.h - papanalyze's progress lines on stderr, shared by the
 * readers of both kinds of trace.
 *
 * Silent for the first 1.5 s, then a line every 2 s:
 *   papanalyze: 41.0 % (41.0 of 100.0 M events, 8.1 M events/s, 5.1 s, 7.3 s left)
 * The rate is over the whole run so far; the time left is the events left at
 * that rate.  Off (an_progress_init's on = 0) it prints nothing.  The
 * environment variable PAPTREE_PROGRESS_S=S (tests) prints from the start,
 * a line every S seconds at most.
 */
#ifndef AN_PROGRESS_INT_H
#define AN_PROGRESS_INT_H

#include <stdint.h>

typedef struct an_progress {
    uint64_t total;           /* events the definitions announce (the 100 %) */
    double   start, last;     /* CLOCK_MONOTONIC s */
    double   first, every;    /* 1.5 and 2 s; PAPTREE_PROGRESS_S sets both (tests) */
    int      on;
} an_progress_t;

void an_progress_init(an_progress_t *p, uint64_t total, int on);
/* events: read so far; cheap enough to call every few thousand events. */
void an_progress_tick(an_progress_t *p, uint64_t events);

#endif /* AN_PROGRESS_INT_H */
