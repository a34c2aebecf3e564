/*
 * rt_wait.h - how a thread waits for something another thread will do.
 *
 * A mutex + condition variable round took ~30 us on these machines against
 * ~0.2 us for a spin barrier (docs/platform.md): a futex wake-up costs a
 * hundred times a cache-line transfer.  So waiting goes in three phases:
 *
 *   1. spin on the condition (with the CPU's pause hint) for spin_ns;
 *   2. sched_yield between checks for a further yield_ns, so that a thread
 *      we wait for but that has no core of its own gets to run;
 *   3. block (condition variable) or, for MPI requests, sleep with
 *      exponential back-off, so that an idle waiter costs nothing.
 *
 * With a core per thread phase 1 catches nearly every wake-up.  When
 * threads outnumber cores, spinning only steals the core from the thread we
 * wait for, so rt_wait_policy_auto gives a short spin and a longer yield.
 */
#ifndef RT_WAIT_H
#define RT_WAIT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct rt_wait_policy {
    uint64_t spin_ns;    /* phase 1 budget */
    uint64_t yield_ns;   /* phase 2 budget; UINT64_MAX = yield forever */
} rt_wait_policy_t;

/*
 * The default policy: long spin when every thread that may wait has a CPU
 * of its own, short spin and longer yield when threads outnumber CPUs.
 */
rt_wait_policy_t rt_wait_policy_auto(bool oversubscribed);

/* Number of CPUs this process may run on (its affinity mask), at least 1. */
uint32_t rt_wait_cpus_available(void);

/* Monotonic nanoseconds (CLOCK_MONOTONIC). */
uint64_t rt_wait_now_ns(void);

typedef bool (*rt_wait_ready_fn_t)(void *arg);

/*
 * Phases 1 and 2: returns true as soon as ready(arg) is true, false when
 * both budgets are spent and it still is not (the caller then blocks).
 */
bool rt_wait_spin_yield(const rt_wait_policy_t *policy, rt_wait_ready_fn_t ready,
                        void *arg);

/*
 * All three phases, phase 3 sleeping with back-off from 1 us to 1 ms between
 * checks, and beyond 1 ms to 1/32 of the time waited so far (at most 32 ms):
 * a thread that has waited a second for a late host wakes ~30 times a
 * second, not 1000 (measured on the demo with its host 1 late: 1.5-1.9 %
 * of a CPU with 1 ms naps, 0.7-1.0 % with 1/64 up to 16 ms, as each
 * wake-up costs ~30 us in this VM; docs/benchmarks.md).  For conditions nobody
 * can signal, such as an MPI request.
 */
void rt_wait_until(const rt_wait_policy_t *policy, rt_wait_ready_fn_t ready,
                   void *arg);

/* rt_wait_until's nap cap for the first 32 ms of a wait; after that the
   cap is the time waited / RT_WAIT_NAP_SHARE, up to RT_WAIT_NAP_LONG_NS. */
#define RT_WAIT_NAP_MAX_NS  (1000 * 1000L)
#define RT_WAIT_NAP_SHARE   32
#define RT_WAIT_NAP_LONG_NS (32 * 1000 * 1000L)

/*
 * rt_wait_until with naps of at most nap_max_ns (1 us doubling up to it),
 * for waits inside an operation that many rounds follow: under
 * oversubscription a waiter can outlast its yield budget, and a 1 ms nap
 * then delays every later round of every rank it talks to, which makes
 * their waits outlast the budget too.  A PRR tree of 4 hosts x 2 threads
 * on 2 cores swung between 20 us and 4.6 ms per allreduce with 1 ms naps
 * and stayed at 40-90 us with 64 us ones (docs/benchmarks.md).  A wait
 * that lasts (a late host) grows its naps as rt_wait_until's do.
 */
void rt_wait_until_nap(const rt_wait_policy_t *policy, rt_wait_ready_fn_t ready,
                       void *arg, long nap_max_ns);

/* The naps of the waits of an algorithm node's rounds. */
#define RT_WAIT_NAP_ROUND_NS (64 * 1000L)

static inline void rt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif /* RT_WAIT_H */
