/*
 * sched_int.h - internals shared by sched.c, sched_verify.c, sched_asap.c
 * and sched_sim.c (not for generators).
 */
#ifndef RT_SCHED_INT_H
#define RT_SCHED_INT_H

#include "runtime/api/rt_sched.h"

/*
 * Pairs every send with its receive (k-th send s->d with the k-th receive
 * at d from s, in each rank's step order): partner[i] is the index in
 * s->steps of step i's other end.  All-ranks schedules only.  CM_ERR_VERIFY
 * naming the channel when a send or a receive has no partner.
 */
cm_status_t rt__sched_match(const rt_sched_t *s, int64_t *partner,
                            cm_err_t *err);

/* The rank whose steps hold index idx (binary search of step_start). */
int32_t rt__sched_rank_of(const rt_sched_t *s, size_t idx);

#endif /* RT_SCHED_INT_H */
