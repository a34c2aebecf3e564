/*
 * t_plan_prepare.c - rt_algo_plan_prepare (rt_algo_run.h), the schedule the
 * arrival estimator makes ahead of an operation: no MPI is involved.
 *
 * The plan's schedule for this rank is compared step by step with the
 * table generator called directly with the same parameters (the plan's
 * own path goes through its slots and cache; the generator alone is the
 * reference).  A PAP-aware plan keeps the last vector's schedule as it is
 * when the same count and vector come again, and remakes it for another.
 */
#include <string.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_algo_run.h"
#include "runtime/api/rt_sched.h"

#define P     4
#define RANK  1
#define TAU   2000

static const rt_host_id_t hosts[P] = { 0, 1, 2, 3 };

static rt_algo_spec_t spec_of(const char *run, int pap)
{
    rt_algo_spec_t s;

    memset(&s, 0, sizeof(s));
    s.run = rt_algo_find(run);
    s.hosts = hosts;
    s.nhosts = P;
    s.round_ns = TAU;
    s.pap = pap;
    s.arrival = pap ? RT_ARRIVAL_EDGE : RT_ARRIVAL_EQUAL;
    TST_NOT_NULL(s.run);
    return s;
}

/* The generator alone, for RANK, as a plan would call it for this spec. */
static void reference(const rt_algo_spec_t *spec, int64_t count, const int64_t *arrival,
                      rt_sched_t *ref)
{
    rt_algo_params_t p;
    cm_err_t err;

    memset(&p, 0, sizeof(p));
    p.nranks = P;
    p.count = count;
    p.arrival = arrival;
    p.round_len = spec->round_ns;
    p.port = spec->port;
    rt_sched_init(ref);
    if (spec->run->gen(ref, &p, RANK, &err) != CM_OK)
        TST_FAIL("%s: %s", spec->run->name, err.msg);
}

static int same_steps(const rt_sched_t *a, const rt_sched_t *b)
{
    size_t na, nb;
    const rt_step_t *sa = rt_sched_rank_steps(a, RANK, &na);
    const rt_step_t *sb = rt_sched_rank_steps(b, RANK, &nb);

    return na == nb && a->npieces == b->npieces && a->count == b->count &&
           memcmp(sa, sb, na * sizeof(*sa)) == 0 &&
           memcmp(a->piece_off, b->piece_off, ((size_t)a->npieces + 1) * sizeof(int64_t)) == 0;
}

void t_plan_prepare_pap(void)
{
    rt_algo_spec_t spec = spec_of("prr", 1);
    /* Host 3 two rounds late, then host 0 three rounds late: PRR pre-reduces
       differently (Proficz 2018, section 4.2, Figure 8). */
    int64_t a[P] = { 0, 0, 0, 2 * TAU }, b[P] = { 3 * TAU, 0, 0, 0 };
    rt_sched_t ref_a, ref_b;
    const rt_sched_t *s1 = NULL, *s2 = NULL;
    rt_algo_plan_t *plan;
    cm_err_t err;

    reference(&spec, 64, a, &ref_a);
    reference(&spec, 64, b, &ref_b);
    TST_FALSE(same_steps(&ref_a, &ref_b));      /* or the test below could not fail */
    TST_EQ_STATUS(rt_algo_plan_create(&spec, RANK, &plan, &err), CM_OK);
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, 64, a, &s1, &err), CM_OK);
    TST_NOT_NULL(s1);
    TST_TRUE(same_steps(s1, &ref_a));
    /* The same count and vector (another array, equal bits): kept as it is. */
    int64_t a2[P];
    memcpy(a2, a, sizeof(a));
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, 64, a2, &s2, &err), CM_OK);
    TST_EQ_PTR(s2, s1);
    TST_TRUE(same_steps(s2, &ref_a));
    /* Another vector, then the first again: remade each time. */
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, 64, b, &s2, &err), CM_OK);
    TST_TRUE(same_steps(s2, &ref_b));
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, 64, a, &s2, &err), CM_OK);
    TST_TRUE(same_steps(s2, &ref_a));
    /* Another count with the same vector. */
    rt_sched_free(&ref_b);
    reference(&spec, 16, a, &ref_b);
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, 16, a, &s2, &err), CM_OK);
    TST_TRUE(same_steps(s2, &ref_b));
    rt_sched_free(&ref_a);
    rt_sched_free(&ref_b);
    rt_algo_plan_destroy(plan);
}

void t_plan_prepare_static_native_bad(void)
{
    rt_algo_spec_t ring = spec_of("ring", 0), native = spec_of("ring", 0);
    const rt_sched_t *s = NULL;
    rt_sched_t ref;
    rt_algo_plan_t *plan;
    cm_err_t err;

    reference(&ring, 40, NULL, &ref);
    TST_EQ_STATUS(rt_algo_plan_create(&ring, RANK, &plan, &err), CM_OK);
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, 40, NULL, &s, &err), CM_OK);
    TST_TRUE(s != NULL && same_steps(s, &ref));
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, -1, NULL, &s, &err), CM_ERR_INVALID);
    TST_NULL(s);
    rt_algo_plan_destroy(plan);
    rt_sched_free(&ref);
    native.run = NULL;
    native.native = 1;
    TST_EQ_STATUS(rt_algo_plan_create(&native, RANK, &plan, &err), CM_OK);
    s = &ref;
    TST_EQ_STATUS(rt_algo_plan_prepare(plan, 40, NULL, &s, &err), CM_OK);
    TST_NULL(s);                                 /* native has no schedule */
    rt_algo_plan_destroy(plan);
}
