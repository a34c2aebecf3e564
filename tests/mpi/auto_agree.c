/*
 * auto_agree - auto plans (rt_algo_run.h, "auto plans") over MPI: every
 * rank chooses alike, results are right, and a disagreement stops the job
 * with both choices named instead of hanging.
 *
 *   mpirun -np P build/tests/auto_agree agree       (P >= 2)
 *   mpirun -np P build/tests/auto_agree disagree-probe
 *   mpirun -np P build/tests/auto_agree disagree-exchange
 *
 * agree: an auto plan (candidates rd, ring, rabenseifner, prr, slt, native)
 * on a duplicate of MPI_COMM_WORLD runs 200 operations of random counts
 * (1 .. 40000 floats) and random arrival vectors made by rank 0 from a
 * fixed seed and broadcast (so they are agreed, as history's are), a third
 * of them with one host 2 ms late so that the PAP-aware candidates are
 * predicted; the data are small integers, so every float sum is exact and
 * the result must equal MPI_Allreduce's bit for bit.  Each rank records
 * its choices; they are gathered and must be the same on every rank, and
 * more than one candidate must have been chosen.  (Determinism, the same
 * choices for the same inputs, is t_auto_agreement's: here the measured
 * times that the choosers learn from differ from run to run.)
 *
 * disagree-probe: rank 1's plan has candidates=prr, the others'
 * candidates=ring (as if their configurations differed and the set-up
 * check had been skipped): the first operation cannot match, and a rank
 * that waits probes and finds the other's tag: the run returns
 * CM_ERR_MISMATCH naming both choices, which this program prints and then
 * aborts the job with.  tests/mpi/auto-agree.sh checks the message.
 *
 * disagree-exchange: rank 1 chooses among ring only, the others among
 * ring and rd, for a count where the model prefers ring: the first
 * operation runs ring everywhere (the same messages), the exchange then
 * finds the ranks' states different (the state hash covers the
 * configuration) and the second operation stops with "learned state
 * differs", before it runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/api/rt_algo_run.h"
#include "runtime/api/rt_auto.h"

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

typedef struct run {
    int               P, rank;
    MPI_Comm          comm;
    rt_host_id_t     *hosts;
    rt_algo_spec_t    spec;
    rt_auto_cfg_t     cfg;
    rt_algo_plan_t   *plan;
    rt_wait_policy_t  policy;
} run_t;

static void die(const char *what, const cm_err_t *err)
{
    fprintf(stderr, "auto_agree: %s: %s\n", what, err != NULL ? err->msg : "");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void plan_make(run_t *r, const char *cands, int hysteresis)
{
    cm_err_t err;

    memset(&r->spec, 0, sizeof(r->spec));
    rt_auto_cfg_default(&r->cfg);
    if (rt_auto_cfg_candidates(&r->cfg, cands, &err) != CM_OK)
        die("candidates", &err);
    r->cfg.hysteresis_pct = hysteresis;
    r->spec.autocfg = &r->cfg;
    r->spec.pap = 1;
    r->spec.hosts = r->hosts;
    r->spec.nhosts = (uint32_t)r->P;
    r->spec.round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    r->spec.arrival = RT_ARRIVAL_HISTORY;
    if (rt_algo_plan_create(&r->spec, r->rank, &r->plan, &err) != CM_OK)
        die("rt_algo_plan_create", &err);
}

/* One operation: data from (seed, rank), checked against MPI_Allreduce. */
static int32_t op_run(run_t *r, int64_t count, const int64_t *arr, uint64_t seed, int check)
{
    float *x = malloc((size_t)count * sizeof(float)), *y = malloc((size_t)count * sizeof(float));
    rt_algo_call_t call = { r->comm, RT_DTYPE_FLOAT, RT_OP_SUM, arr, &r->policy, NULL, 0, 42 };
    const rt_auto_choice_t *c;
    uint64_t s = seed ^ ((uint64_t)r->rank << 40);
    cm_err_t err;
    int32_t chosen;

    if (x == NULL || y == NULL)
        die("out of memory", NULL);
    for (int64_t j = 0; j < count; j++)
        x[j] = y[j] = (float)(mix(&s) % 16);
    if (rt_algo_plan_choose(r->plan, &call, count, &c, &err) != CM_OK)
        die("rt_algo_plan_choose", &err);
    chosen = c->chosen;
    if (rt_algo_plan_run(r->plan, &call, x, count, NULL, &err) != CM_OK)
        die("rt_algo_plan_run", &err);
    if (check) {
        MPI_Allreduce(MPI_IN_PLACE, y, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (memcmp(x, y, (size_t)count * sizeof(float)) != 0) {
            fprintf(stderr, "auto_agree: rank %d: %lld floats, %s: result differs from "
                    "MPI_Allreduce's\n", r->rank, (long long)count,
                    rt_auto_cand_name(rt_algo_plan_auto(r->plan), chosen));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    free(x);
    free(y);
    return chosen;
}

#define NOPS 200

static void mode_agree(run_t *r)
{
    int32_t mine[NOPS], *all = malloc((size_t)r->P * NOPS * sizeof(int32_t));
    int64_t *arr = calloc((size_t)r->P, sizeof(int64_t));
    int seen[RT_AUTO_CAND_MAX] = { 0 }, distinct = 0;

    if (all == NULL || arr == NULL)
        die("out of memory", NULL);
    uint64_t s = 7;

    plan_make(r, RT_AUTO_DEFAULT_CANDIDATES, 10);
    for (int k = 0; k < NOPS; k++) {
        int64_t count = (int64_t)(1 + mix(&s) % 40000);

        for (int h = 0; h < r->P; h++)
            arr[h] = (int64_t)(mix(&s) % 30000);
        if (k % 3 == 0)
            arr[mix(&s) % (uint64_t)r->P] += 2000000;
        MPI_Bcast(arr, r->P, MPI_INT64_T, 0, MPI_COMM_WORLD);   /* agreed, as history's */
        mine[k] = op_run(r, count, arr, (uint64_t)k, 1);
    }
    rt_algo_plan_destroy(r->plan);
    MPI_Allgather(mine, NOPS, MPI_INT32_T, all, NOPS, MPI_INT32_T, MPI_COMM_WORLD);
    for (int q = 0; q < r->P; q++)
        if (memcmp(all + (size_t)q * NOPS, mine, sizeof(mine)) != 0) {
            fprintf(stderr, "auto_agree: rank %d's choices differ from rank %d's\n", q, r->rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (int k = 0; k < NOPS; k++)
        seen[mine[k]] = 1;
    for (int i = 0; i < RT_AUTO_CAND_MAX; i++)
        distinct += seen[i];
    if (distinct < 2) {
        fprintf(stderr, "auto_agree: only one candidate chosen in %d operations\n", NOPS);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (r->rank == 0)
        printf("auto_agree: %d ranks agreed on %d choices (%d candidates chosen)\n", r->P,
               NOPS, distinct);
    free(all);
    free(arr);
}

int main(int argc, char **argv)
{
    run_t r;
    int provided;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    memset(&r, 0, sizeof(r));
    MPI_Comm_size(MPI_COMM_WORLD, &r.P);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &r.comm);
    MPI_Comm_set_errhandler(r.comm, MPI_ERRORS_RETURN);
    r.policy = rt_wait_policy_auto((uint32_t)r.P > rt_wait_cpus_available());
    r.hosts = calloc((size_t)r.P, sizeof(*r.hosts));
    for (int h = 0; r.hosts != NULL && h < r.P; h++)
        r.hosts[h] = (rt_host_id_t)h;
    if (argc != 2 || r.P < 2 || r.hosts == NULL) {
        fprintf(stderr, "usage: mpirun -np P>=2 auto_agree agree|disagree-probe|"
                "disagree-exchange\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[1], "agree") == 0) {
        mode_agree(&r);
    } else if (strcmp(argv[1], "disagree-probe") == 0) {
        plan_make(&r, r.rank == 1 ? "prr" : "ring", 10);
        op_run(&r, 30000, NULL, 1, 0);
        fprintf(stderr, "auto_agree: rank %d: the disagreement went unnoticed\n", r.rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (strcmp(argv[1], "disagree-exchange") == 0) {
        plan_make(&r, r.rank == 1 ? "ring" : "ring,rd", 10);
        for (int k = 0; k < 3; k++)
            op_run(&r, 30000, NULL, (uint64_t)k, 0);
        fprintf(stderr, "auto_agree: rank %d: the disagreement went unnoticed\n", r.rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
        die("unknown mode", NULL);
    }
    MPI_Comm_free(&r.comm);
    free(r.hosts);
    MPI_Finalize();
    return 0;
}
