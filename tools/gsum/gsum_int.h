/*
 * gsum_int.h - what the parts of bin/gsum share (tools/gsum.c: main;
 * tools/gsum/: opts.c the options, agree.c the agreement across ranks,
 * expect.c contributions and expected results, memory.c the memory check,
 * report.c the rows, tree.c the tree run, native.c the native baseline).
 */
#ifndef GSUM_INT_H
#define GSUM_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "instrument/api/ins_trace.h"
#include "runtime/api/rt_exec.h"


#define GSUM_SIZES_MAX 32
#define GSUM_VARIANTS  64
#define GSUM_TUPLE_MAX ((size_t)1 << 30)   /* the runtime's largest tuple */

typedef struct gsum_opts {
    const char *pathmap, *tree;
    long        iters, warmup;
    size_t      sizes[GSUM_SIZES_MAX];
    int         nsizes;
    int         native;
    rt_dtype_t  dtype;           /* --native only; else the tree's */
    rt_op_t     op;
    int64_t     spin_ns, yield_ns;
    long        watchdog_s;      /* --watchdog; 0 = none */
    rt_links_t  links;           /* --links */
    int         links_set;       /* --links given (refused with --native) */
    const char *trace_dir;       /* --trace */
    size_t      trace_mem;       /* --trace-mem; 0 = default */
    int         force;
    int         help;            /* -h, --help */
    char       *command;         /* argv, for the trace */
} gsum_opts_t;

/* What every thread of one rank shares while running. */
typedef struct gsum_run {
    const gsum_opts_t *o;
    rt_exec_t         *ex;
    rt_dtype_t         dtype;
    rt_op_t            op;
    uint64_t           sum_ids;  /* sum of (t + 1) over the tree's threads */
    uint32_t           nthreads, min_id, max_id;
    pthread_barrier_t  barrier;  /* local threads + main */
    unsigned char     *expected; /* [V][bytes] of the current size */
    size_t             bytes;
    unsigned           variants;
    double            *elapsed;  /* [local][size] seconds */
    ins_trace_t       *trace;    /* or NULL */
    uint64_t           flush_mark, loop_flushes;
    char               links_line[512]; /* rank 0: the "# links:" header line */
} gsum_run_t;

typedef struct gsum_thread {
    gsum_run_t    *run;
    uint32_t       local;
    uint32_t       id;
    unsigned char *in;           /* [V][max bytes] */
    unsigned char *out;
    pthread_t      thread;
} gsum_thread_t;

/* What one rank needs, by kind. */
typedef struct gsum_need {
    uint32_t threads;            /* contributors on this rank */
    uint64_t per_thread;         /* inputs + output */
    uint64_t expected;
    uint64_t tree;               /* rt_tree_tuple_bytes; none with --native */
    uint64_t trace;              /* --trace-mem */
} gsum_need_t;

extern int g_rank;
extern const char *const gsum_links_names[2];

/* opts.c */
void gsum_usage(FILE *fp);
/* Every option into o (o->help: --help was given, the rest not parsed); an
   error is kept in ctx for rt_mpi_agree_args. */
cm_status_t gsum_parse_args(int argc, char **argv, gsum_opts_t *o, cm_opt_t *ctx);

/* agree.c.  Collective: 0 when every rank has the same options (each
   difference is named), 1 otherwise. */
int  gsum_agree_options(const gsum_opts_t *o);
/* Collective: 0 when every rank's step succeeded, else -1 everywhere. */
int  gsum_agree_all(cm_status_t st);

/* expect.c */
unsigned gsum_variants_for(size_t bytes);
void gsum_fill_inputs(const gsum_run_t *r, uint32_t id, unsigned char *in);
void gsum_fill_expected(gsum_run_t *r);
/* Aborts the job (once) when out is not operation k's expected result. */
void gsum_verify(const gsum_run_t *r, uint32_t id, long k, const void *out);
/* Every -s a multiple of dtype's size (else rank 0 says which, -1); the largest in *max_p. */
int  gsum_check_sizes(const gsum_opts_t *o, rt_dtype_t dtype, size_t *max_p);

/* memory.c */
void gsum_tuple_buffers(const gsum_opts_t *o, size_t *in_p, size_t *out_p);
/* Collective: 0, or -1 when the ranks of a machine need more than it has (said). */
int  gsum_check_memory(const gsum_opts_t *o, size_t max_bytes, const gsum_need_t *n);
/* malloc that names the buffer (and thread, when >= 0) it could not get. */
void *gsum_alloc(size_t bytes, const char *what, long thread);

/* report.c.  Collective: rank 0 prints a size's row. */
void gsum_report_row(const gsum_opts_t *o, size_t bytes, const double *per_op, uint32_t n);
void gsum_print_header(void);

/* tree.c, native.c.  Collective: the exit status. */
int  gsum_run_tree(const gsum_opts_t *o);
int  gsum_run_native(const gsum_opts_t *o);
#endif /* GSUM_INT_H */
