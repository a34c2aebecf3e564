/*
 * estimate.c - arrival estimation with edge() (rt_exec.h, docs/pap.md).
 *
 * Placeholder while the estimator is being built (issue 17): both calls
 * return at once, so arrival=edge behaves as arrival=history.
 */
#include "runtime/exec/exec_int.h"

void rt_exec_phase_begin(rt_exec_t *exec, uint32_t local)
{
    (void)exec;
    (void)local;
}

void rt_exec_edge(rt_exec_t *exec, uint32_t local, double fraction)
{
    (void)exec;
    (void)local;
    (void)fraction;
}
