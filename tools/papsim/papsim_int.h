/*
 * papsim_int.h - what the parts of bin/papsim share (tools/papsim.c: main
 * and the run loop, one size or --sizes; tools/papsim/: opts.c the usage
 * text, the network presets and the options, run.c one algorithm's run at
 * one size and the lines the tables print around it).
 */
#ifndef PAPSIM_INT_H
#define PAPSIM_INT_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cm_err.h"
#include "common/cm_opt.h"
#include "runtime/api/rt_algo.h"
#include "runtime/api/rt_sim.h"

#define MAX_ALGOS 64

typedef struct net {
    const char *name;
    double alpha, beta, gamma;
    const char *why;
} net_t;

typedef enum { MET_AVG, MET_MAX, MET_COMPLETION } metric_t;

typedef struct algo_spec {
    const char           *label;    /* as given */
    char                  name[96]; /* without the :segs= suffix */
    const rt_algo_info_t *info;     /* a table row, or the reduce of a pair */
    const rt_algo_info_t *bcast;    /* the broadcast of REDUCE+BCAST, or NULL */
    int32_t               nsegs;    /* :segs=, or -1: the global option */
    int64_t               segbytes; /* :segsize=, or -1 */
} algo_spec_t;

typedef struct opts {
    int32_t     nranks, root, ppn, nsegs;
    int64_t     bytes, size_min, size_max, segbytes;
    int         sizes, per_rank, verify;
    double      elem_bytes;
    rt_port_t   port;
    rt_tree_shape_t tree;
    const net_t *net;
    const char *net_file;                    /* --net FILE, read after the options */
    net_t       file_net;                    /* what it held */
    double      alpha, beta, gamma;          /* NAN until the preset fills them */
    int         overrides;                   /* --alpha, --beta or --gamma given */
    rt_sim_arrival_kind_t arr;
    double      arr_ms;
    const char *arr_rank_text;               /* one-late's RANK, checked against P */
    int32_t     arr_rank;
    uint64_t    seed;
    const char *arr_text;
    const char *root_text;                   /* --root, checked against P */
    metric_t    metric;
    double      mem_limit;                   /* bytes a schedule may take */
    int         verbose;                     /* progress lines from the start */
    double      t0;                          /* when papsim started (now_s) */
    algo_spec_t algos[MAX_ALGOS];
    int         nalgos;
    long        ops;                         /* auto: operations simulated (--ops) */
} opts_t;

/* One run: what papsim prints for an algorithm at one size. */
typedef struct outcome {
    rt_sim_result_t res;
    size_t          nsteps;
    int32_t         nrounds;
    double          gen_s, sim_s, verify_s, tau_s;  /* wall */
    double          gen_cpu, sim_cpu;               /* CPU time */
} outcome_t;

/*
 * The allowed ranges of the numeric options, in one place: a value outside
 * its range is a usage error that names the option and the range, never a
 * number papsim would print as inf or nan or silently change.  The cost
 * model's bounds keep every simulated time finite (at most 2^31 rounds of
 * 1000 s + 2 s/B * 2^62 B is about 1e28 s), the arrival bound keeps arrival
 * ticks (ns) within int64 with room for 2^31 rounds after them, and TAU_MAX_S
 * keeps a round length in ticks within int64.  Byte counts are sizes
 * (cm_opt_size: 4096, 4K, 1MiB).
 */
#define BYTES_MAX ((uint64_t)1 << 62)
#define SEGS_MAX  INT32_MAX
#define ELEM_MAX  (1 << 20)
#define ARR_MS_MAX 1e9
#define TAU_MAX_S 1e9

enum { O_BYTES = 256, O_SIZES, O_METRIC, O_ELEM, O_SEGS, O_SEGSIZE, O_ROOT, O_PPN,
       O_TREE, O_PORT, O_NET, O_ALPHA, O_BETA, O_GAMMA, O_ARRIVAL, O_SEED, O_PERRANK,
       O_VERIFY, O_MEMLIMIT, O_OPS };

/* opts.c: the network presets (the first is the default). */
extern const net_t nets[];
extern const struct option longopts[];
void usage(FILE *fp);
void list_algos(FILE *fp);
int parse_algo(algo_spec_t *a, const char *text);
cm_status_t check_opts(cm_opt_t *ctx, opts_t *o, int have_bytes);
cm_status_t apply_opt(cm_opt_t *ctx, opts_t *o, int c, const char *opt,
                      const char *arg);
int load_net(opts_t *o);

/* run.c */
double now_s(void);
cm_status_t run_one(const opts_t *o, const algo_spec_t *a, int64_t bytes,
                    const int64_t *ticks, const double *arr_s,
                    outcome_t *out, cm_err_t *err);
void print_refusal(const algo_spec_t *a, int64_t bytes, const cm_err_t *err);
double metric_of(const opts_t *o, const rt_sim_result_t *r);
rt_sim_arrival_t arrival_of(const opts_t *o);
void print_header(const opts_t *o, int64_t bytes);
void print_per_rank(const opts_t *o, const algo_spec_t *a,
                    const outcome_t *out, const double *arr_s);
/* auto.c: `papsim auto[:LIST]` (docs/auto.md): auto's choices over o->ops
   operations of the arrival pattern; 0 done, 1 bad input. */
int run_auto(const opts_t *o, const char *text);

#endif /* PAPSIM_INT_H */
