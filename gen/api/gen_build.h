/*
 * gen_build.h - pathgen's inputs and the initial tree (docs/pathgen.md).
 *
 * As the PATHS generator (PATHS/EventSpace paper, section 3.1): three
 * mappings in, one tree out.  The cluster mapping gives clusters, their
 * hosts with CPUs, and gateways between clusters; the application mapping
 * the tree (name, type, op) and its threads; the application-to-cluster
 * mapping which host each thread runs on.  The one-line form
 * (`--hosts H --threads-per-host T`) fills the same structure.
 *
 * The tree is built hierarchically: a host subtree per host over its
 * threads, a cluster-root subtree per cluster over the host subtrees, on
 * the cluster's root host, then the core; clusters are joined through
 * their gateway (gen_edit_merge).  Shapes say how greds group their
 * contributors, level by level.  Split, extra links and the algorithm node
 * are the edits of gen_edit.h applied to that tree, so a generated tree
 * and an edited one are the same thing.
 */
#ifndef GEN_BUILD_H
#define GEN_BUILD_H

#include <stdint.h>
#include "common/cm_err.h"
#include "gen/api/gen_map.h"

#define GEN_FANOUT_MAX 16   /* levels a fan-out list may give */

/*
 * How a subtree groups n contributors (in thread order):
 *  - NARY ("nary", "flat"): one gred of all n;
 *  - QUAD ("quad"): bottom up, greds of 4 consecutive contributors, then
 *    greds of 4 of those, ... (8 = 2 of 4, then 1 of 2; a group of one is
 *    not wrapped);
 *  - BINARY ("binary"): top down halving, the first half the larger
 *    (10 = 5 + 5, 5 = 3 + 2): every gred has two contributors;
 *  - FANOUT ("4,2", "2"): bottom up, greds of fanout[0] at the level next
 *    to the contributors, then of fanout[1], ...; the last repeats.
 * One contributor needs no gred.
 */
typedef enum { GEN_SHAPE_NARY, GEN_SHAPE_QUAD, GEN_SHAPE_BINARY, GEN_SHAPE_FANOUT } gen_shape_kind_t;

typedef struct gen_shape {
    gen_shape_kind_t kind;
    uint32_t         fanout[GEN_FANOUT_MAX];   /* FANOUT: each >= 2 */
    uint32_t         nfanout;
} gen_shape_t;

/* Parses a shape word (above).  `what` names the option in the error. */
cm_status_t gen_shape_parse(const char *text, const char *what, gen_shape_t *shape_p,
                            cm_err_t *err);
/* The shape as the option spells it ("quad", "4,2"), into buf. */
void gen_shape_format(const gen_shape_t *shape, char *buf, size_t size);

typedef struct gen_host_spec {
    char     *name;
    uint32_t  cpus;       /* 0 when not given */
    uint32_t  cluster;    /* index into gen_input_t.clusters */
    int       gateway;    /* a gateway host (belongs to no cluster's tree) */
} gen_host_spec_t;

typedef struct gen_gateway_spec {
    uint32_t host;        /* index into hosts */
    uint32_t a, b;        /* the clusters it joins */
} gen_gateway_spec_t;

typedef struct gen_input {
    /* cluster mapping */
    char              **clusters;
    uint32_t            nclusters;
    gen_host_spec_t    *hosts;       /* rank order: clusters' hosts, gateways where declared */
    uint32_t            nhosts;
    gen_gateway_spec_t *gateways;
    uint32_t            ngateways;
    /* application mapping */
    char               *tree_name;   /* "sum" */
    char               *tree_params; /* "type=int32 op=sum" */
    uint32_t            nthreads;    /* threads 0 .. nthreads-1 */
    /* application-to-cluster mapping */
    uint32_t           *thread_host; /* [nthreads] */
    /* the sources, for the generated file's comments */
    char               *sources;     /* "--hosts 4 --threads-per-host 8" or the file names */
} gen_input_t;

void gen_input_cleanup(gen_input_t *in);   /* frees what the readers set */

/* The one-line form: H hosts host0.. of one cluster, T threads each
 * (host i holds threads i*T .. i*T+T-1), tree "sum type=int32 op=sum". */
cm_status_t gen_input_simple(uint32_t hosts, uint32_t threads_per_host, gen_input_t *in,
                             cm_err_t *err);
/* The three mapping files (formats in docs/pathgen.md); errors are
 * path:line:col.  Read the cluster mapping first: the others name its hosts. */
cm_status_t gen_input_read_cluster(const char *path, gen_input_t *in, cm_err_t *err);
cm_status_t gen_input_read_app(const char *path, gen_input_t *in, cm_err_t *err);
cm_status_t gen_input_read_mapping(const char *path, gen_input_t *in, cm_err_t *err);

/* One host's own shape (--host-shape SHAPE@HOSTS). */
typedef struct gen_host_shape {
    uint32_t    host;
    gen_shape_t shape;
} gen_host_shape_t;

typedef struct gen_build_opts {
    gen_shape_t       host_shape;      /* default nary */
    gen_shape_t       root_shape;      /* default nary */
    const gen_host_shape_t *host_shapes;   /* per-host overrides, or NULL */
    uint32_t          nhost_shapes;
    uint32_t          root_host;       /* GEN_NONE: each cluster's first host */
    uint32_t          split_span;      /* 0: no split (gen_edit_split) */
    int               split_to_last;   /* split: to the group's last host (default), else first */
    uint32_t          split_cluster;   /* split only this cluster (GEN_NONE: every one) */
    int               extra_links;     /* gen_edit_add_link on every other host subtree */
    const char       *algo;            /* an algorithm node across the hosts, or NULL */
    const char       *command;         /* the command line, for the header */
    const char *const *notes;          /* lines of text that open the header */
    uint32_t          nnotes;
} gen_build_opts_t;

/* Default options: nary host and root subtrees, no split (a split to the
 * last host when one is asked), no links. */
void gen_build_opts_init(gen_build_opts_t *o);

/*
 * Builds the tree.  Names follow pathmaps/README.md: core "root",
 * cluster root "cr0", "cr1.0", ..., host subtree "h<label>",
 * "h<label>.l1.0", ..., proxies "p<label>", "p<label>.<wrapper>"; with
 * several clusters each cluster's wrappers get the cluster's name and a
 * dot as prefix and the clusters meet in "mc".  The header says how the
 * file was made and its size.  *m_p is set on success only.
 */
cm_status_t gen_build(const gen_input_t *in, const gen_build_opts_t *o, gen_map_t **m_p,
                      cm_err_t *err);

#endif /* GEN_BUILD_H */
