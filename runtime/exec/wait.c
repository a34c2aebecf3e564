/*
 * wait.c - spin, yield, then block or sleep (rt_wait.h explains why).
 */
#include <sched.h>
#include <time.h>
#include "runtime/api/rt_wait.h"

/* Checks the clock only every this many polls: a vDSO clock read is ~20 ns. */
#define WAIT_CLOCK_EVERY 64

rt_wait_policy_t rt_wait_policy_auto(bool oversubscribed)
{
    rt_wait_policy_t p;

    if (!oversubscribed) {
        /* A core each: spin long enough to cover an intra-host hop. */
        p.spin_ns = 50 * 1000;
        p.yield_ns = 2 * 1000 * 1000;
    } else {
        /* Oversubscribed: spinning only delays the thread we wait for
         * (measured on the demo tree: spin 10 us made it 3.5x slower than
         * none), so yield from the start, then block. */
        p.spin_ns = 0;
        p.yield_ns = 1000 * 1000;
    }
    return p;
}

uint32_t rt_wait_cpus_available(void)
{
    cpu_set_t set;
    int n;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    n = CPU_COUNT(&set);
    return n > 0 ? (uint32_t)n : 1;
}

uint64_t rt_wait_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool rt_wait_spin_yield(const rt_wait_policy_t *policy, rt_wait_ready_fn_t ready,
                        void *arg)
{
    uint64_t start, now;
    unsigned polls = 0;

    if (ready(arg))
        return true;
    start = rt_wait_now_ns();
    for (now = start; now - start < policy->spin_ns; polls++) {
        if (ready(arg))
            return true;
        rt_cpu_relax();
        if (polls % WAIT_CLOCK_EVERY == 0)
            now = rt_wait_now_ns();
    }
    for (; policy->yield_ns == UINT64_MAX || now - start < policy->spin_ns + policy->yield_ns;
         polls++) {
        if (ready(arg))
            return true;
        sched_yield();
        if (polls % 8 == 0)
            now = rt_wait_now_ns();
    }
    return ready(arg);
}

void rt_wait_until_nap(const rt_wait_policy_t *policy, rt_wait_ready_fn_t ready,
                       void *arg, long nap_max_ns)
{
    struct timespec nap = { 0, 1000 };
    uint64_t start = rt_wait_now_ns();

    if (rt_wait_spin_yield(policy, ready, arg))
        return;
    while (!ready(arg)) {
        /* The cap grows with the time waited (RT_WAIT_NAP_SHARE), so that a
           long wait costs almost nothing and ends at most ~3 % late. */
        long share = (long)((rt_wait_now_ns() - start) / RT_WAIT_NAP_SHARE);
        long cap = share > nap_max_ns ? share : nap_max_ns;

        if (cap > RT_WAIT_NAP_LONG_NS)
            cap = RT_WAIT_NAP_LONG_NS;
        nanosleep(&nap, NULL);
        nap.tv_nsec = nap.tv_nsec * 2 < cap ? nap.tv_nsec * 2 : cap;
    }
}

void rt_wait_until(const rt_wait_policy_t *policy, rt_wait_ready_fn_t ready,
                   void *arg)
{
    rt_wait_until_nap(policy, ready, arg, RT_WAIT_NAP_MAX_NS);
}
