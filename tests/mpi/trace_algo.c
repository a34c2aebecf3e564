/*
 * trace_algo - the tracer's record of an algorithm node, driven through
 * its hooks with a known sequence (tests/mpi/trace-algo.sh checks the
 * archive with otf2-print).
 *
 *   mpirun -np P build/tests/trace_algo DIR OPS [min]
 *
 * The tree is the agreed shape (docs/pathmap.md, "algo") for P hosts, built
 * by hand here so that the test does not depend on the parser:
 *
 *     host h0 .. host h<P-1>
 *     tree sum type=int32 op=sum
 *     algo across run=rd                       (P = 2)
 *     algo across run=clv bcast=binomial-bcast root=h1 arrival=edge
 *                                              (P >= 3, PAP-aware)
 *     gred g<h> host=h<h> parent=across        (one per host)
 *     threads 2h-2h+1 host=h<h> enter=g<h>
 *
 * Two instances.  Every rank registers its locations as rt_exec_create
 * does (rt_location_list, through hooks->location: threads 2h and 2h+1,
 * then the algorithm location), then runs OPS operations k = 0..OPS-1 on
 * instance k % 2 with seq k / 2, each as the executor reports one:
 *
 *   both thread locations   visit ENTER g<h> (24 bytes)
 *   the algorithm location, on a thread created for this operation (so
 *   that consecutive operations, and the buffer flushes among them, are
 *   recorded by different threads, as the executor's last arrivals do):
 *       visit ENTER across;  coll ENTER (root -1 or 1, 24 bytes)
 *       P >= 3: arrival (arrival_report below: asked edge, and by seq the
 *         sources, fallbacks, errors and leads a test can derive by hand)
 *       per round j = 0 .. 2(P-1)-1, a ring pattern with 24/P-byte pieces:
 *         msg RECV_POST  peer left  = (r-1) mod P, round j, step 2j
 *         msg SEND       peer right = (r+1) mod P, round j, step 2j+1
 *         msg SEND_DONE  right, round j, step 2j+1
 *         msg RECV       left, round j, step 2j
 *       coll LEAVE;  visit LEAVE across
 *   both thread locations   visit LEAVE g<h>
 *
 * With "min", the trace gets ins_trace_mem_min bytes: 64 KiB of records
 * (2730) per location, so the algorithm location flushes while recording.
 * Rank 0 prints "events N flushes F" from the summary.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "instrument/api/ins_trace.h"
#include "runtime/api/rt_hooks.h"
#include "runtime/api/rt_pathmap.h"

#define MAXP      8
#define NINST     2
#define BYTES     24

typedef struct model {
    rt_host_t       hosts[MAXP];
    char            hname[MAXP][16], gname[MAXP][16];
    rt_host_id_t    algo_hosts[MAXP];
    rt_algo_spec_t  spec;
    rt_node_t       nodes[1 + MAXP];
    rt_thread_map_t threads[2 * MAXP];
    rt_tree_t       tree;
    rt_pathmap_t    pm;
    char            text[2048];
} model_t;

/* The pathmap above, by hand: node 0 is the algorithm node, node 1+h gred g<h>. */
static void model_build(model_t *m, int p)
{
    size_t off = 0;

    memset(m, 0, sizeof(*m));
    for (int h = 0; h < p; h++) {
        snprintf(m->hname[h], sizeof(m->hname[h]), "h%d", h);
        snprintf(m->gname[h], sizeof(m->gname[h]), "g%d", h);
        m->hosts[h] = (rt_host_t){ m->hname[h], (unsigned)h + 1 };
        m->algo_hosts[h] = (rt_host_id_t)h;
        off += (size_t)snprintf(m->text + off, sizeof(m->text) - off, "host h%d\n", h);
    }
    m->spec.hosts = m->algo_hosts;
    m->spec.nhosts = (uint32_t)p;
    m->spec.round_ns = RT_ALGO_ROUND_NS_DEFAULT;
    m->spec.port = RT_PORT_U;
    if (p == 2) {
        m->spec.run = rt_algo_find("rd");
        m->spec.arrival = RT_ARRIVAL_EQUAL;
        off += (size_t)snprintf(m->text + off, sizeof(m->text) - off,
                                "tree sum type=int32 op=sum\nalgo across run=rd\n");
    } else {
        m->spec.run = rt_algo_find("clv");
        m->spec.bcast = rt_algo_find("binomial-bcast");
        m->spec.root = 1;
        m->spec.arrival = RT_ARRIVAL_EDGE;
        m->spec.pap = 1;
        off += (size_t)snprintf(m->text + off, sizeof(m->text) - off,
                                "tree sum type=int32 op=sum\nalgo across run=clv "
                                "bcast=binomial-bcast root=h1 arrival=edge\n");
    }
    m->nodes[0] = (rt_node_t){ "across", RT_NODE_ALGO, 0, RT_ID_NONE, (uint32_t)p, 0, 0,
                               RT_WAIT_AUTO, &m->spec, (unsigned)p + 2, 1 };
    for (int h = 0; h < p; h++) {
        m->nodes[1 + h] = (rt_node_t){ m->gname[h], RT_NODE_GRED, (rt_host_id_t)h, 0, 0, 2, 1,
                                       RT_WAIT_AUTO, NULL, (unsigned)(p + 3 + h), 1 };
        off += (size_t)snprintf(m->text + off, sizeof(m->text) - off,
                                "gred g%d host=h%d parent=across\n", h, h);
    }
    for (int i = 0; i < 2 * p; i++) {
        m->threads[i] = (rt_thread_map_t){ (rt_thread_id_t)i, (rt_host_id_t)(i / 2),
                                           (rt_node_id_t)(1 + i / 2),
                                           (unsigned)(2 * p + 3 + i / 2), 1 };
    }
    for (int h = 0; h < p; h++)
        off += (size_t)snprintf(m->text + off, sizeof(m->text) - off,
                                "threads %d-%d host=h%d enter=g%d\n", 2 * h, 2 * h + 1, h, h);
    m->tree = (rt_tree_t){ "sum", RT_DTYPE_INT32, RT_OP_SUM, m->nodes, (uint32_t)(1 + p), 0,
                           m->threads, (uint32_t)(2 * p), (unsigned)p + 1 };
    m->pm.path = "trace_algo.pathmap";
    m->pm.text = m->text;
    m->pm.len = off;
    m->pm.hash = rt_hash_fnv1a(m->text, off);
    m->pm.hosts = m->hosts;
    m->pm.nhosts = (uint32_t)p;
    m->pm.trees = &m->tree;
    m->pm.ntrees = 1;
}

/* One operation on the algorithm location, on its own thread. */
typedef struct algo_op {
    const rt_hooks_t *h;
    void             *loc;
    unsigned          inst;
    uint64_t          seq;
    int               rank, p;
    int32_t           root;
} algo_op_t;

/*
 * Rank r's arrival report in operation seq of a P-host node (asked edge):
 *   seq 0:          used equal, missing (r+1) mod P, no estimate
 *   seq % 3 == 0:   used history, missing (r+1) mod P, error -(1000 r + seq), no lead
 *   seq % 3 == 1:   used edge, error 1000 r + seq, lead 5000 + seq
 *   seq % 3 == 2:   used edge, error -(100 (r+1) seq), lead 7
 *   wait 10 seq + r always.
 */
static rt_arrival_report_t arrival_report(int r, int p, uint64_t seq)
{
    int64_t s = (int64_t)seq;
    rt_arrival_report_t rep = { .asked = RT_ARRIVAL_EDGE, .used = RT_ARRIVAL_EDGE,
                                .missing = -1, .error_ns = INT64_MIN, .lead_ns = INT64_MIN,
                                .wait_ns = 10 * s + r };

    if (seq == 0 || seq % 3 == 0) {
        rep.used = seq == 0 ? RT_ARRIVAL_EQUAL : RT_ARRIVAL_HISTORY;
        rep.missing = (r + 1) % p;
        if (seq > 0)
            rep.error_ns = -(1000 * r + s);
    } else if (seq % 3 == 1) {
        rep.error_ns = 1000 * r + s;
        rep.lead_ns = 5000 + s;
    } else {
        rep.error_ns = -(100 * (r + 1) * s);
        rep.lead_ns = 7;
    }
    return rep;
}

static void *algo_run(void *arg)
{
    const algo_op_t *o = arg;
    const rt_hooks_t *h = o->h;
    int32_t left = (o->rank + o->p - 1) % o->p, right = (o->rank + 1) % o->p;
    size_t piece = BYTES / (size_t)o->p;

    h->visit(o->loc, RT_VISIT_ENTER, o->inst, 0, o->seq, BYTES);
    h->coll(o->loc, RT_VISIT_ENTER, o->inst, 0, o->seq, o->root, BYTES);
    if (o->p >= 3) {
        rt_arrival_report_t rep = arrival_report(o->rank, o->p, o->seq);
        h->arrival(o->loc, o->inst, 0, o->seq, &rep);
    }
    for (int32_t j = 0; j < 2 * (o->p - 1); j++) {
        h->msg(o->loc, RT_MSG_RECV_POST, o->inst, left, j, (uint32_t)(2 * j), piece);
        h->msg(o->loc, RT_MSG_SEND, o->inst, right, j, (uint32_t)(2 * j + 1), piece);
        h->msg(o->loc, RT_MSG_SEND_DONE, o->inst, right, j, (uint32_t)(2 * j + 1), piece);
        h->msg(o->loc, RT_MSG_RECV, o->inst, left, j, (uint32_t)(2 * j), piece);
    }
    h->coll(o->loc, RT_VISIT_LEAVE, o->inst, 0, o->seq, o->root, BYTES);
    h->visit(o->loc, RT_VISIT_LEAVE, o->inst, 0, o->seq, BYTES);
    return NULL;
}

static int drive(const model_t *m, const rt_hooks_t *h, int rank, int p, long ops)
{
    rt_location_t where[3];
    void *loc[3];
    uint32_t n = rt_location_list(&m->tree, NINST, (rt_host_id_t)rank, NULL);

    if (n != 3) {
        fprintf(stderr, "trace_algo: rank %d has %u locations, expected 3\n", rank, n);
        return 1;
    }
    (void)rt_location_list(&m->tree, NINST, (rt_host_id_t)rank, where);
    for (uint32_t i = 0; i < n; i++) {
        if ((loc[i] = h->location(h->ud, &where[i])) == NULL) {
            fprintf(stderr, "trace_algo: rank %d: location %u refused\n", rank, i);
            return 1;
        }
    }
    if (where[2].kind != RT_LOCATION_ALGO) {
        fprintf(stderr, "trace_algo: rank %d: location 2 is not the algorithm's\n", rank);
        return 1;
    }
    for (long k = 0; k < ops; k++) {
        unsigned inst = (unsigned)(k % NINST);
        uint64_t seq = (uint64_t)(k / NINST);
        rt_node_id_t g = (rt_node_id_t)(1 + rank);
        algo_op_t o = { h, loc[2], inst, seq, rank, p, p == 2 ? -1 : 1 };
        pthread_t th;

        for (int i = 0; i < 2; i++)
            h->visit(loc[i], RT_VISIT_ENTER, inst, g, seq, BYTES);
        if (pthread_create(&th, NULL, algo_run, &o) != 0 || pthread_join(th, NULL) != 0) {
            fprintf(stderr, "trace_algo: pthread_create failed\n");
            return 1;
        }
        for (int i = 0; i < 2; i++)
            h->visit(loc[i], RT_VISIT_LEAVE, inst, g, seq, BYTES);
    }
    return 0;
}

int main(int argc, char **argv)
{
    model_t *m = malloc(sizeof(*m));
    ins_trace_opts_t opts = { NULL, 0, 0, "trace_algo" };
    ins_trace_summary_t sum;
    ins_trace_t *tr;
    cm_err_t err;
    int rank, p, provided, rc = 0;
    long ops;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc < 3 || argc > 4 || (ops = atol(argv[2])) < 1 || p < 2 || p > MAXP ||
        (argc == 4 && strcmp(argv[3], "min") != 0) || m == NULL) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2..%d trace_algo DIR OPS [min]\n", MAXP);
        MPI_Finalize();
        return 2;
    }
    model_build(m, p);
    opts.dir = argv[1];
    if (argc == 4)
        opts.mem = ins_trace_mem_min(&m->pm, &m->tree, NINST, rank);
    cm_err_clear(&err);
    if (ins_trace_open(&m->pm, "sum", NINST, &opts, MPI_COMM_WORLD, &tr, &err) != CM_OK) {
        cm_err_print(stderr, "trace_algo: ", &err);
        MPI_Finalize();
        return 1;
    }
    rc = drive(m, ins_trace_hooks(tr), rank, p, ops);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (ins_trace_close(tr, &sum, &err) != CM_OK) {
        cm_err_print(stderr, "trace_algo: ", &err);
        rc = 1;
    } else if (rank == 0) {
        printf("events %llu flushes %llu\n", (unsigned long long)sum.events,
               (unsigned long long)sum.flushes);
    }
    free(m);
    MPI_Finalize();
    return rc;
}
