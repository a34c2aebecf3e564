/*
 * t_pathmap_load.c - rt_pathmap_load on what is not a plain short file: a
 * FIFO (must be refused before it is opened for reading, which would block
 * until a writer comes), a directory, a path longer than 255 bytes (the
 * message must name the whole path), and a text with both binary bytes and
 * a too-long line (binary data is reported first).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_pathmap.h"

static char *tmpdir_make(void)
{
    char tmpl[] = "/tmp/paptree-load-XXXXXX", *d = mkdtemp(tmpl);

    if (d == NULL)
        TST_FAIL("mkdtemp: %s", strerror(errno));
    return strdup(d);
}

/* Loads path, expects failure, returns the formatted first line. */
static void load_fails(const char *path, cm_status_t want, char *line, size_t size)
{
    rt_pathmap_t *pm = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(rt_pathmap_load(path, &pm, &err), want);
    TST_NULL(pm);
    cm_err_format(&err, line, size);
}

void t_pathmap_load_not_regular(void)
{
    char *dir = tmpdir_make(), fifo[256], want[512], line[1024];

    snprintf(fifo, sizeof(fifo), "%s/fifo.pm", dir);
    TST_EQ_INT(mkfifo(fifo, 0600), 0);
    /* No writer ever opens it: a loader that opens first blocks here (the
     * runner's timeout fails the test). */
    load_fails(fifo, CM_ERR_IO, line, sizeof(line));
    snprintf(want, sizeof(want), "%s: error: not a regular file", fifo);
    TST_EQ_STR(line, want);
    load_fails(dir, CM_ERR_IO, line, sizeof(line));
    snprintf(want, sizeof(want), "%s: error: not a regular file", dir);
    TST_EQ_STR(line, want);
    load_fails("/dev/null", CM_ERR_IO, line, sizeof(line));
    TST_EQ_STR(line, "/dev/null: error: not a regular file");
    unlink(fifo);
    rmdir(dir);
    free(dir);
}

/* A file 300+ bytes deep: the message names it whole. */
void t_pathmap_load_long_path(void)
{
    char *dir = tmpdir_make(), path[PATH_MAX], want[PATH_MAX + 256], line[PATH_MAX + 1024];
    size_t len = (size_t)snprintf(path, sizeof(path), "%s", dir);
    FILE *fp;

    for (int i = 0; len < 320; i++) {
        len += (size_t)snprintf(path + len, sizeof(path) - len,
                                "/level-%02d-of-a-deep-directory", i);
        TST_EQ_INT(mkdir(path, 0700), 0);
    }
    len += (size_t)snprintf(path + len, sizeof(path) - len, "/bad.pm");
    TST_TRUE(len > 300);
    fp = fopen(path, "w");
    TST_NOT_NULL(fp);
    fputs("host h0\ntree t\ncore c host=h9\n", fp);
    fclose(fp);
    load_fails(path, CM_ERR_NAME, line, sizeof(line));
    snprintf(want, sizeof(want), "%s:3:13: error: unknown host 'h9' (declare it with a 'host' line above)", path);
    TST_EQ_STR(line, want);
    /* and one that does not exist */
    strcat(path, ".missing");
    load_fails(path, CM_ERR_IO, line, sizeof(line));
    snprintf(want, sizeof(want), "%s: error: cannot open: No such file or directory", path);
    TST_EQ_STR(line, want);
    path[strlen(path) - strlen(".missing")] = '\0';
    unlink(path);
    while ((len = strlen(path)) > strlen(dir)) {
        *strrchr(path, '/') = '\0';
        rmdir(path);
    }
    free(dir);
}

/* Binary data anywhere is reported before a too-long line, even an earlier one. */
void t_pathmap_binary_before_long_line(void)
{
    size_t cap = 8192, len = 0;
    char *text = malloc(cap), line[1024];
    rt_pathmap_t *pm = NULL;
    cm_err_t err;

    len += (size_t)snprintf(text + len, cap - len, "host h0\n#");
    memset(text + len, 'x', 5000);
    len += 5000;
    len += (size_t)snprintf(text + len, cap - len, "\ntree t\ncore c host=h0 ");
    text[len++] = '\0';                 /* line 4, column 16 */
    len += (size_t)snprintf(text + len, cap - len, "\nthreads 0 host=h0 enter=c\n");
    cm_err_clear(&err);
    TST_EQ_STATUS(rt_pathmap_parse("b.pm", text, len, &pm, &err), CM_ERR_SYNTAX);
    TST_NULL(pm);
    cm_err_format(&err, line, sizeof(line));
    TST_EQ_STR(line, "b.pm:4:16: error: binary data (byte 0x00); a pathmap is text");
    free(text);
}

/* rt_tree_tuple_bytes on the documented example (docs/pathmap.md), by hand:
 * h0 holds core root, greds top and g0 and serves link p1 (parent top);
 * h1 holds gred g1 and the client side of p1 (no buffer). */
void t_pathmap_tuple_bytes(void)
{
    static const char text[] =
        "host h0\nhost h1\ntree sum\ncore root host=h0\ngred top host=h0 parent=root\n"
        "gred g0 host=h0 parent=top\nproxy p1 host=h1 parent=top\n"
        "gred g1 host=h1 parent=p1\nthreads 0-1 host=h0 enter=g0\n"
        "threads 2-3 host=h1 enter=g1\n";
    rt_pathmap_t *pm = NULL;
    const rt_tree_t *t;
    cm_err_t err;

    cm_err_clear(&err);
    TST_EQ_STATUS(rt_pathmap_parse("x.pm", text, strlen(text), &pm, &err), CM_OK);
    t = rt_pathmap_tree(pm, NULL);
    /* 100-byte tuples: a gred holds 2 x 128, the core 100, the link 2 x 100. */
    TST_EQ_UINT(rt_tree_tuple_bytes(t, 0, 1, 100), 2 * 256 + 100 + 200);
    TST_EQ_UINT(rt_tree_tuple_bytes(t, 0, 2, 100), 2 * (2 * 256 + 100 + 200));
    TST_EQ_UINT(rt_tree_tuple_bytes(t, 1, 2, 100), 2 * 256);
    /* 1 GiB tuples, 2 instances: h0 2 x (2 x 2 + 1 + 2) GiB = 14 GiB. */
    TST_EQ_UINT(rt_tree_tuple_bytes(t, 0, 2, (size_t)1 << 30), (uint64_t)14 << 30);
    rt_pathmap_destroy(pm);
}

/* A file whose size reads as 0 but has content (procfs; some network
 * filesystems report sizes late): the loader reads to the end, not st_size
 * bytes.  /proc/self/status opens with "Name:\t<command>", so the parser
 * must see the token "Name:" at 1:1 (an unknown keyword), never an empty
 * text ("empty pathmap"). */
void t_pathmap_load_size_zero(void)
{
    struct stat sb;
    char line[1024];

    TST_EQ_INT(stat("/proc/self/status", &sb), 0);
    TST_EQ_INT((int)sb.st_size, 0);
    load_fails("/proc/self/status", CM_ERR_SYNTAX, line, sizeof(line));
    TST_EQ_STR(line, "/proc/self/status:1:1: error: unknown keyword 'Name:' (expected "
                     "host, tree, core, gred, proxy, algo or threads)");
}
