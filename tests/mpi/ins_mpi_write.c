/*
 * ins_mpi_write.c - drives the application-trace writer (instrument/api/
 * ins_mpi.h) with known calls; tests/mpi/ins-mpi-trace.sh reads the
 * archives back with otf2-print and checks them.
 *
 *   ins_mpi_write DIR calls     np 2: communicators world (0), self (1) and
 *                               a split with each rank alone (2 + rank,
 *                               parent 0); per rank the ten calls of
 *                               mode_calls, the first with four observer
 *                               messages
 *   ins_mpi_write DIR threads   np 2, rules from PAPTREE_ALGO: the main thread
 *                               records 1 barrier, two more threads 1000
 *                               allreduces each, 64 KiB per location (819
 *                               records), so the threads flush while recording
 *   ins_mpi_write DIR empty     np 2: no rules (none in the environment
 *                               either) and no command; one barrier
 *   ins_mpi_write DIR exists    opening must fail (DIR exists, no force)
 *   ins_mpi_write DIR force     np 2: with force, one barrier; the status
 *                               printed by rank 0 ("ok" or the message)
 *   ins_mpi_write DIR auto      np 2: three MPI_Allreduce calls on world, the
 *                               first two run by an auto rule with the choices
 *                               of mode_auto (candidates ring,prr,native), the
 *                               third native with none; call k lasts 1000 k ticks
 *   ins_mpi_write DIR fixed     the same calls and sites with no choice (algo
 *                               ring), call k lasting 2000 k ticks: the fixed run
 *                               papanalyze --baseline compares auto's with
 *   ins_mpi_write DIR abandon   records 20000 calls (24 flushes), says whether
 *                               this rank's event file exists, abandons, never
 *                               closes
 *
 * Call k's site is the address ins_mpi_write_site_a + k (site(k)): a
 * function of this program, so `nm` gives the offset the trace must name.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <mpi.h>
#include "instrument/api/ins_mpi.h"
#include "instrument/api/ins_schema.h"
#include "runtime/api/rt_algo_run.h"

__attribute__((noinline, used)) void ins_mpi_write_site_a(void);
/* 32 bytes of code, so that every site(k) - 1 (what addr2line is asked) lies in it: with
   an empty body the function is one `ret`, and the next bytes belong to whatever the
   compiler put after it (under ASan, another function). */
__attribute__((noinline, used)) void ins_mpi_write_site_a(void) { __asm__ volatile(".rept 32\n\tnop\n\t.endr"); }

static uint64_t site(int k)
{
    return (uint64_t)(uintptr_t)&ins_mpi_write_site_a + (uint64_t)k;
}

static void die(const char *what, const cm_err_t *err)
{
    fprintf(stderr, "ins_mpi_write: %s: %s\n", what, err ? err->msg : "");
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The trace of the abandon mode, kept reachable: it is never freed (LeakSanitizer). */
static ins_mpi_t *abandoned;

static ins_mpi_t *open_trace(const char *dir, size_t mem, const char *rules)
{
    ins_mpi_opts_t o = { dir, 0, rules != NULL ? "ins_mpi_write test" : NULL, mem, rules };
    ins_mpi_t *tr;
    cm_err_t err;

    if (ins_mpi_open(&o, MPI_COMM_WORLD, &tr, &err) != CM_OK)
        die("ins_mpi_open", &err);
    return tr;
}

/* A call of func with the fields the test sets, timed around `between`. */
static ins_mpi_call_t call(ins_mpi_func_t f, uint32_t comm, uint32_t root, int64_t count,
                           MPI_Datatype t, MPI_Op op, uint64_t sent, uint64_t recv)
{
    ins_mpi_call_t c;

    memset(&c, 0, sizeof(c));
    c.func = f;
    c.comm = comm;
    c.root = root;
    c.count = count;
    c.dtype = t;
    c.op = op;
    c.bytes_sent = sent;
    c.bytes_recv = recv;
    c.algo = "native";
    return c;
}

static void record(ins_mpi_t *tr, ins_mpi_call_t *c, int k)
{
    c->callsite = site(k);
    c->enter = ins_mpi_now();
    c->leave = ins_mpi_now();
    ins_mpi_record(tr, c);
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)in, (void)inout, (void)len, (void)t;
}

static void mode_calls(const char *dir, int rank, int size)
{
    ins_mpi_t *tr = open_trace(dir, 0, "allreduce:*=ring");
    int32_t world[2] = { 0, 1 }, self[1] = { rank }, split[1] = { rank };
    ins_mpi_comm_def_t defs[3] = {
        { INS_COMM_WORLD_ID, "MPI_COMM_WORLD", 2, world, UINT32_MAX },
        { INS_COMM_SELF_ID, "MPI_COMM_SELF", 1, self, UINT32_MAX },
        { 2 + (uint32_t)rank, "", 1, split, INS_COMM_WORLD_ID },   /* np 2: one rank each */
    };
    MPI_Datatype named, unnamed;
    MPI_Op uop;
    rt_algo_observer_t obs;
    ins_mpi_call_t c;
    char *ring2 = strdup("ring");
    cm_err_t err;

    if (size != 2)
        die("the calls mode needs np 2", NULL);
    for (int i = 0; i < 3; i++)
        if (ins_mpi_comm(tr, &defs[i], &err) != CM_OK)
            die("ins_mpi_comm", &err);
    MPI_Type_contiguous(2, MPI_INT, &named);
    MPI_Type_set_name(named, "pair_t");
    MPI_Type_contiguous(3, MPI_INT, &unnamed);
    MPI_Op_create(user_fn, 1, &uop);

    /* 1: allreduce on world, ring, with the messages of one exchange */
    c = call(INS_MPI_ALLREDUCE, 0, UINT32_MAX, 4, MPI_INT, MPI_SUM, 16, 16);
    c.algo = "ring";
    c.callsite = site(1);
    c.enter = ins_mpi_now();
    ins_mpi_observer(tr, 0, &obs);
    obs.msg(obs.loc, RT_MSG_RECV_POST, obs.instance, 1 - rank, 0, 0, 16);
    obs.msg(obs.loc, RT_MSG_SEND, obs.instance, 1 - rank, 0, 1, 16);
    obs.msg(obs.loc, RT_MSG_SEND_DONE, obs.instance, 1 - rank, 0, 1, 16);
    obs.msg(obs.loc, RT_MSG_RECV, obs.instance, 1 - rank, 0, 0, 16);
    c.leave = ins_mpi_now();
    ins_mpi_record(tr, &c);
    /* 2: reduce on the split, root 0; 3: bcast on world, root 1, fell back */
    c = call(INS_MPI_REDUCE, 2 + (uint32_t)rank, 0, 3, MPI_DOUBLE, MPI_MAX, 24, 24);
    record(tr, &c, 2);
    c = call(INS_MPI_BCAST, 0, 1, 10, MPI_BYTE, MPI_OP_NULL, rank == 1 ? 10 : 0,
             rank == 1 ? 0 : 10);
    c.algo = "binomial";
    c.fallback = INS_FB_DATATYPE;
    record(tr, &c, 3);
    /* 4: barrier on self; 5: allgather of a named type; 6: reduce_scatter_block,
       unnamed type, user op, the algorithm text at another address */
    c = call(INS_MPI_BARRIER, INS_COMM_SELF_ID, UINT32_MAX, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
             0, 0);
    record(tr, &c, 4);
    c = call(INS_MPI_ALLGATHER, 0, UINT32_MAX, 1, named, MPI_OP_NULL, 8, 16);
    record(tr, &c, 5);
    c = call(INS_MPI_REDUCE_SCATTER_BLOCK, 0, UINT32_MAX, 1, unnamed, uop, 24, 12);
    c.algo = ring2;
    c.fallback = INS_FB_USER_OP;
    record(tr, &c, 6);
    /* 7, 8: iallreduce, request 77, completed by a wait; 9, 10: ibcast, completed by a
       test whose record does not say what it completed */
    c = call(INS_MPI_IALLREDUCE, 0, UINT32_MAX, 2, MPI_INT64_T, MPI_MIN, 0, 0);
    c.request = 77;
    record(tr, &c, 7);
    c = call(INS_MPI_WAIT, 0, UINT32_MAX, 2, MPI_INT64_T, MPI_MIN, 16, 16);
    c.request = 77;
    c.completed = INS_MPI_IALLREDUCE;
    record(tr, &c, 8);
    c = call(INS_MPI_IBCAST, 0, 0, 5, MPI_FLOAT, MPI_OP_NULL, 0, 0);
    c.request = 78;
    record(tr, &c, 9);
    c = call(INS_MPI_TEST, 0, 0, 5, MPI_FLOAT, MPI_OP_NULL, rank == 0 ? 20 : 0,
             rank == 0 ? 0 : 20);
    c.request = 78;
    record(tr, &c, 10);
    MPI_Type_free(&named);
    MPI_Type_free(&unnamed);
    MPI_Op_free(&uop);
    if (ins_mpi_close(tr, &err) != CM_OK)
        die("ins_mpi_close", &err);
    free(ring2);
}

#define THREAD_CALLS 1000

static void *thread_main(void *trp)
{
    ins_mpi_t *tr = trp;

    for (int i = 0; i < THREAD_CALLS; i++) {
        ins_mpi_call_t c = call(INS_MPI_ALLREDUCE, 0, UINT32_MAX, i, MPI_FLOAT, MPI_SUM,
                                4 * (uint64_t)i, 4 * (uint64_t)i);

        record(tr, &c, 20 + i % 3);
    }
    return NULL;
}

static void mode_threads(const char *dir)
{
    ins_mpi_t *tr = open_trace(dir, (size_t)128 << 10, NULL);   /* rules: PAPTREE_ALGO's */
    pthread_t th[2];
    ins_mpi_call_t c = call(INS_MPI_BARRIER, 0, UINT32_MAX, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
                            0, 0);
    cm_err_t err;

    record(tr, &c, 11);
    /* One after the other: the location indices are then known (1, 2). */
    for (int t = 0; t < 2; t++) {
        if (pthread_create(&th[t], NULL, thread_main, tr) != 0 || pthread_join(th[t], NULL) != 0)
            die("pthread", NULL);
    }
    if (ins_mpi_close(tr, &err) != CM_OK)
        die("ins_mpi_close", &err);
}

static void mode_empty(const char *dir)
{
    ins_mpi_t *tr;
    ins_mpi_call_t c = call(INS_MPI_BARRIER, 0, UINT32_MAX, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
                            0, 0);
    cm_err_t err;

    unsetenv("PAPTREE_ALGO");
    tr = open_trace(dir, 0, NULL);
    record(tr, &c, 12);
    if (ins_mpi_close(tr, &err) != CM_OK)
        die("ins_mpi_close", &err);
}

static void mode_force(const char *dir, int rank)
{
    ins_mpi_opts_t o = { dir, 1, NULL, 0, "" };
    ins_mpi_call_t c = call(INS_MPI_BARRIER, 0, UINT32_MAX, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
                            0, 0);
    ins_mpi_t *tr;
    cm_err_t err;

    if (ins_mpi_open(&o, MPI_COMM_WORLD, &tr, &err) != CM_OK) {
        if (rank == 0)
            printf("%s\n", err.msg);
        return;
    }
    record(tr, &c, 13);
    if (ins_mpi_close(tr, &err) != CM_OK)
        die("ins_mpi_close", &err);
    if (rank == 0)
        printf("ok\n");
}

static void mode_exists(const char *dir, int rank)
{
    ins_mpi_opts_t o = { dir, 0, NULL, 0, NULL };
    ins_mpi_t *tr = NULL;
    cm_err_t err;

    if (ins_mpi_open(&o, MPI_COMM_WORLD, &tr, &err) == CM_OK || tr != NULL)
        die("ins_mpi_open succeeded on an existing directory", NULL);
    if (rank == 0)
        printf("%s\n", err.msg);
}

static void mode_abandon(const char *dir, int rank)
{
    ins_mpi_t *tr = abandoned = open_trace(dir, 64 << 10, "allreduce:*=ring");
    char path[4096];
    struct stat sb;

    /* 819 records fit in the buffer; after OTF2's own 512 KiB, its event file is written */
    for (int i = 0; i < 20000; i++) {
        ins_mpi_call_t c = call(INS_MPI_ALLREDUCE, 0, UINT32_MAX, 1, MPI_INT, MPI_SUM, 4, 4);

        record(tr, &c, 30);
    }
    snprintf(path, sizeof(path), "%s.partial/traces/%llu.evt", dir,
             (unsigned long long)rank << 16);
    printf("rank %d before: %s %s\n", rank, path, stat(path, &sb) == 0 ? "exists" : "missing");
    MPI_Barrier(MPI_COMM_WORLD);
    ins_mpi_abandon(tr);
    MPI_Barrier(MPI_COMM_WORLD);
}

/*
 * Two auto choices, made by hand (tests/mpi/ins-mpi-auto.sh expects them):
 * call 1 chose prr (index 1) by the model, spread 5000 ns, predictions
 * ring 100, prr 200, native none, corrected 110 and 190; call 2 kept ring,
 * spread 0, prr skipped (bit 1), predictions ring 100 and native 300,
 * corrected 100 and 330.  Call 3 has no choice.
 */
/* A call at site k lasting `ticks`, after the previous one's leave (times never go back). */
static void record_for(ins_mpi_t *tr, ins_mpi_call_t *c, int k, uint64_t ticks)
{
    static uint64_t last;
    uint64_t now = ins_mpi_now();

    c->callsite = site(k);
    c->enter = now > last ? now : last + 1;
    c->leave = c->enter + ticks;
    last = c->leave;
    ins_mpi_record(tr, c);
}

static void mode_auto(const char *dir, int rank, int fixed)
{
    ins_mpi_t *tr = open_trace(dir, 0, fixed ? "allreduce:*=ring"
                                             : "allreduce:*=auto(candidates=ring,prr,native)");
    uint64_t unit = fixed ? 2000 : 1000;
    int32_t world[2] = { 0, 1 };
    ins_mpi_comm_def_t w = { INS_COMM_WORLD_ID, "MPI_COMM_WORLD", 2, world, UINT32_MAX };
    rt_auto_cfg_t cfg;
    rt_auto_t *a;
    rt_auto_choice_t c1, c2;
    ins_mpi_call_t c;
    cm_err_t err;

    rt_auto_cfg_default(&cfg);
    if (rt_auto_cfg_candidates(&cfg, "ring,prr,native", &err) != CM_OK ||
        rt_auto_create(&cfg, 2, &a, &err) != CM_OK)
        die("rt_auto", &err);
    if (ins_mpi_comm(tr, &w, &err) != CM_OK)
        die("ins_mpi_comm", &err);
    memset(&c1, 0, sizeof(c1));
    c1.chosen = 1, c1.previous = -1, c1.reason = RT_AUTO_MODEL, c1.ncand = 3;
    c1.pred_ns[0] = 100, c1.pred_ns[1] = 200, c1.pred_ns[2] = -1;
    c1.corr_ns[0] = 110, c1.corr_ns[1] = 190, c1.corr_ns[2] = -1;
    c1.spread_ns = 5000;
    c2 = c1;
    c2.chosen = 0, c2.previous = 1, c2.reason = RT_AUTO_KEPT, c2.skipped = 2;
    c2.pred_ns[1] = -1, c2.pred_ns[2] = 300;
    c2.corr_ns[0] = 100, c2.corr_ns[1] = -1, c2.corr_ns[2] = 330;
    c2.spread_ns = 0;
    c = call(INS_MPI_ALLREDUCE, INS_COMM_WORLD_ID, UINT32_MAX, 4, MPI_INT, MPI_SUM, 16, 16);
    c.algo = fixed ? "ring" : "prr";
    c.auto_a = fixed ? NULL : a, c.auto_choice = fixed ? NULL : &c1;
    record_for(tr, &c, 1, 1 * unit);
    c.algo = "ring";
    c.auto_choice = fixed ? NULL : &c2;
    record_for(tr, &c, 2, 2 * unit);
    c.algo = fixed ? "ring" : "native";
    c.auto_a = NULL, c.auto_choice = NULL;
    record_for(tr, &c, 3, 3 * unit);
    (void)rank;
    if (ins_mpi_close(tr, &err) != CM_OK)
        die("ins_mpi_close", &err);
    rt_auto_destroy(a);
}

int main(int argc, char **argv)
{
    int rank, size, provided;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        fprintf(stderr, "usage: ins_mpi_write DIR calls|threads|empty|exists|force|auto|fixed|abandon\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[2], "calls") == 0)
        mode_calls(argv[1], rank, size);
    else if (strcmp(argv[2], "threads") == 0)
        mode_threads(argv[1]);
    else if (strcmp(argv[2], "empty") == 0)
        mode_empty(argv[1]);
    else if (strcmp(argv[2], "force") == 0)
        mode_force(argv[1], rank);
    else if (strcmp(argv[2], "exists") == 0)
        mode_exists(argv[1], rank);
    else if (strcmp(argv[2], "auto") == 0)
        mode_auto(argv[1], rank, 0);
    else if (strcmp(argv[2], "fixed") == 0)
        mode_auto(argv[1], rank, 1);
    else if (strcmp(argv[2], "abandon") == 0)
        mode_abandon(argv[1], rank);
    else
        die("unknown mode", NULL);
    MPI_Finalize();
    return 0;
}
