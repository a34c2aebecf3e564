/*
 * t_input.c - unit tests of pathgen's input readers (gen/gen_input.c,
 * gen/gen_input_map.c) on good inputs: the one-line form, the example
 * mapping files of examples/pathgen/, and `fill` with explicit lines.
 * Expected placements are worked out by hand from the files.  Bad inputs
 * and their exact messages are the corpus tests/pathgen/bad-input/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "gen/api/gen_build.h"

/* Writes text to a new temporary file; returns its path (malloc'd). */
static char *tmp_file(const char *text)
{
    char *path = strdup("/tmp/t_input.XXXXXX");
    int fd;

    TST_NOT_NULL(path);
    fd = mkstemp(path);
    TST_TRUE(fd >= 0);
    TST_EQ_INT((long long)write(fd, text, strlen(text)), (long long)strlen(text));
    close(fd);
    return path;
}

void t_gen_input_simple(void)
{
    gen_input_t in;
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(gen_input_simple(3, 2, &in, &err), CM_OK);
    TST_EQ_UINT(in.nhosts, 3);
    TST_EQ_UINT(in.nclusters, 1);
    TST_EQ_UINT(in.ngateways, 0);
    TST_EQ_STR(in.hosts[2].name, "host2");
    TST_EQ_UINT(in.hosts[2].cpus, 2);
    TST_EQ_UINT(in.nthreads, 6);
    TST_EQ_UINT(in.thread_host[0], 0);
    TST_EQ_UINT(in.thread_host[1], 0);
    TST_EQ_UINT(in.thread_host[2], 1);
    TST_EQ_UINT(in.thread_host[5], 2);
    TST_EQ_STR(in.tree_name, "sum");
    TST_EQ_STR(in.tree_params, "type=int32 op=sum");
    TST_EQ_STR(in.sources, "--hosts 3 --threads-per-host 2");
    gen_input_cleanup(&in);
    TST_EQ_STATUS(gen_input_simple(0, 2, &in, &err), CM_ERR_RANGE);
    TST_EQ_STATUS(gen_input_simple(2, 0, &in, &err), CM_ERR_RANGE);
}

/* examples/pathgen/multicluster.*: a0-a7 (4 cpus), gw, b0-b3 (8 cpus); fill
 * puts threads 4i..4i+3 on ai and 32+8j.. on bj. */
void t_gen_input_multicluster(void)
{
    gen_input_t in;
    cm_err_t err;

    memset(&in, 0, sizeof(in));
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_input_read_cluster("examples/pathgen/multicluster.cluster", &in, &err),
                  CM_OK);
    TST_EQ_STATUS(gen_input_read_app("examples/pathgen/multicluster.app", &in, &err), CM_OK);
    TST_EQ_STATUS(gen_input_read_mapping("examples/pathgen/multicluster.mapping", &in, &err),
                  CM_OK);
    TST_EQ_UINT(in.nclusters, 2);
    TST_EQ_STR(in.clusters[0], "a");
    TST_EQ_STR(in.clusters[1], "b");
    TST_EQ_UINT(in.nhosts, 13);
    TST_EQ_STR(in.hosts[8].name, "gw");
    TST_TRUE(in.hosts[8].gateway);
    TST_FALSE(in.hosts[7].gateway);
    TST_EQ_UINT(in.hosts[7].cluster, 0);
    TST_EQ_UINT(in.hosts[9].cluster, 1);
    TST_EQ_UINT(in.hosts[9].cpus, 8);
    TST_EQ_UINT(in.ngateways, 1);
    TST_EQ_UINT(in.gateways[0].host, 8);
    TST_EQ_UINT(in.gateways[0].a, 0);
    TST_EQ_UINT(in.gateways[0].b, 1);
    TST_EQ_UINT(in.nthreads, 64);
    TST_EQ_UINT(in.thread_host[3], 0);
    TST_EQ_UINT(in.thread_host[4], 1);
    TST_EQ_UINT(in.thread_host[31], 7);
    TST_EQ_UINT(in.thread_host[32], 9);
    TST_EQ_UINT(in.thread_host[39], 9);
    TST_EQ_UINT(in.thread_host[40], 10);
    TST_EQ_UINT(in.thread_host[63], 12);
    TST_EQ_STR(in.tree_params, "type=int32 op=sum");
    TST_CONTAINS(in.sources, "--mapping examples/pathgen/multicluster.mapping");
    gen_input_cleanup(&in);
}

/* An explicit line and fill: thread 0 on h1, then fill gives h0 threads 1-2
 * (its 2 cpus) and h1 thread 3 (one cpu left); ranges and lists. */
void t_gen_input_fill_mixed(void)
{
    char *c = tmp_file("cluster x   # comment\nhost h0 cpus=2\nhost h1 cpus=2\n");
    char *a = tmp_file("tree dot type=double op=max threads=0-3\n");
    char *m = tmp_file("fill\n\tthreads 0 host=h1   # before fill is applied\n");
    char *m2 = tmp_file("threads 0,2-3 host=h1\nthreads 1 host=h0\n");
    gen_input_t in;
    cm_err_t err;

    memset(&in, 0, sizeof(in));
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_input_read_cluster(c, &in, &err), CM_OK);
    TST_EQ_STATUS(gen_input_read_mapping(m, &in, &err), CM_ERR_INVALID);   /* app first */
    TST_EQ_STATUS(gen_input_read_app(a, &in, &err), CM_OK);
    TST_EQ_STR(in.tree_name, "dot");
    TST_EQ_STR(in.tree_params, "type=double op=max");
    TST_EQ_STATUS(gen_input_read_mapping(m, &in, &err), CM_OK);
    TST_EQ_UINT(in.thread_host[0], 1);
    TST_EQ_UINT(in.thread_host[1], 0);
    TST_EQ_UINT(in.thread_host[2], 0);
    TST_EQ_UINT(in.thread_host[3], 1);
    free(in.thread_host);
    in.thread_host = NULL;
    TST_EQ_STATUS(gen_input_read_mapping(m2, &in, &err), CM_OK);
    TST_EQ_UINT(in.thread_host[0], 1);
    TST_EQ_UINT(in.thread_host[1], 0);
    TST_EQ_UINT(in.thread_host[2], 1);
    TST_EQ_UINT(in.thread_host[3], 1);
    gen_input_cleanup(&in);
    unlink(c);
    unlink(a);
    unlink(m);
    unlink(m2);
    free(c);
    free(a);
    free(m);
    free(m2);
}

/* fill with more threads than cpus: 5 threads, 2 hosts of 2 cpus. */
void t_gen_input_fill_leftover(void)
{
    char *c = tmp_file("cluster x\nhost h0 cpus=2\nhost h1 cpus=2\n");
    char *a = tmp_file("tree sum threads=5\n");
    char *m = tmp_file("# all\nfill\n");
    char *c2 = tmp_file("cluster x\nhost h0 cpus=2\nhost h1\n");
    gen_input_t in;
    cm_err_t err;
    char want[256];

    memset(&in, 0, sizeof(in));
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_input_read_cluster(c, &in, &err), CM_OK);
    TST_EQ_STATUS(gen_input_read_app(a, &in, &err), CM_OK);
    TST_EQ_STATUS(gen_input_read_mapping(m, &in, &err), CM_ERR_INVALID);
    TST_EQ_STR(err.path, m);
    TST_EQ_UINT(err.line, 2);
    TST_EQ_UINT(err.col, 1);
    TST_EQ_STR(err.msg, "fill: 1 threads left when every host has its cpus= threads");
    gen_input_cleanup(&in);
    /* a host without cpus= cannot be filled */
    TST_EQ_STATUS(gen_input_read_cluster(c2, &in, &err), CM_OK);
    TST_EQ_STATUS(gen_input_read_app(a, &in, &err), CM_OK);
    TST_EQ_STATUS(gen_input_read_mapping(m, &in, &err), CM_ERR_INVALID);
    snprintf(want, sizeof(want), "fill: host 'h1' has no cpus= in the cluster mapping");
    TST_EQ_STR(err.msg, want);
    gen_input_cleanup(&in);
    unlink(c);
    unlink(a);
    unlink(m);
    unlink(c2);
    free(c);
    free(a);
    free(m);
    free(c2);
}
