/*
 * t_net.c - the net file (runtime/algo/sim_net.c, grammar in
 * runtime/api/rt_sim.h): a good file with comments, blanks and a CR read to
 * its three numbers; what rt_net_write writes read back; each kind of bad
 * line refused with its message at path:line:col (the columns counted by
 * hand, bytes from 1); a file that cannot be opened or read.  No MPI: the
 * contents are read from memory (fmemopen) or a temporary file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "runtime/api/rt_sim.h"

/* Reads text as the net file "t.net"; status and the formatted error. */
static cm_status_t read_text(const char *text, rt_net_t *net, char *msg, size_t size)
{
    FILE *fp = fmemopen((void *)text, strlen(text), "r");
    cm_err_t err;
    cm_status_t st;

    /* fmemopen refuses a buffer of size 0: an empty file is /dev/null */
    if (*text == '\0')
        fp = fopen("/dev/null", "r");
    TST_NOT_NULL(fp);
    cm_err_clear(&err);
    st = rt_net_read_fp(fp, "t.net", net, &err);
    fclose(fp);
    cm_err_format(&err, msg, size);
    return st;
}

void t_net_read_good(void)
{
    rt_net_t net = { -1, -1, -1 };
    char msg[600];

    /* comments, a blank line, blanks around key, '=' and value, a CR, any order */
    TST_EQ_STATUS(read_text("# a small net file\n\n  beta = 1e-9 \r\ngamma=0\n"
                            "\talpha\t=\t2.5e-6\n# done", &net, msg, sizeof msg), CM_OK);
    TST_EQ_DBL(net.alpha, 2.5e-6, 0);
    TST_EQ_DBL(net.beta, 1e-9, 0);
    TST_EQ_DBL(net.gamma, 0, 0);
    /* the largest values allowed, no newline at the end */
    TST_EQ_STATUS(read_text("alpha=1000\nbeta=1\ngamma=1", &net, msg, sizeof msg), CM_OK);
    TST_EQ_DBL(net.alpha, 1000, 0);
    TST_EQ_DBL(net.beta, 1, 0);
    TST_EQ_DBL(net.gamma, 1, 0);
}

void t_net_write_read(void)
{
    const rt_net_t in = { 4.1152e-07, 2.79541e-10, 9.92404e-11 };
    rt_net_t out = { 0, 0, 0 };
    char buf[256] = "", path[] = "/tmp/t_net.XXXXXX";
    FILE *fp = fmemopen(buf, sizeof buf, "w");
    cm_err_t err;
    int fd;

    TST_NOT_NULL(fp);
    TST_EQ_STATUS(rt_net_write(fp, &in, &err), CM_OK);
    fclose(fp);
    TST_EQ_STR(buf, "alpha=4.1152e-07\nbeta=2.79541e-10\ngamma=9.92404e-11\n");
    /* through a real file, after a comment line of the caller's */
    TST_TRUE((fd = mkstemp(path)) >= 0);
    TST_NOT_NULL(fp = fdopen(fd, "w"));
    fputs("# netfit on a test\n", fp);
    TST_EQ_STATUS(rt_net_write(fp, &in, &err), CM_OK);
    TST_EQ_INT(fclose(fp), 0);
    TST_EQ_STATUS(rt_net_read(path, &out, &err), CM_OK);
    unlink(path);
    /* %.6g of six significant digits gives the same doubles back */
    TST_EQ_DBL(out.alpha, in.alpha, 0);
    TST_EQ_DBL(out.beta, in.beta, 0);
    TST_EQ_DBL(out.gamma, in.gamma, 0);
}

/* text is refused with status st and the message want; *net untouched. */
static void bad(const char *text, cm_status_t st, const char *want)
{
    rt_net_t net = { 7, 7, 7 };
    char msg[600];

    TST_EQ_STATUS(read_text(text, &net, msg, sizeof msg), st);
    TST_EQ_STR(msg, want);
    TST_TRUE(net.alpha == 7 && net.beta == 7 && net.gamma == 7);
}

void t_net_read_bad(void)
{
    bad("alpha=1e-6\nbeta=1e-9\ndelta=3\n", CM_ERR_NAME,
        "t.net:3:1: error: unknown key 'delta': expected alpha, beta or gamma");
    bad("alpha=1e-6\n  Beta=1e-9\n", CM_ERR_NAME,
        "t.net:2:3: error: unknown key 'Beta': expected alpha, beta or gamma");
    bad("alpha=1e-6\nbeta=0\ngamma=0\n", CM_ERR_RANGE,
        "t.net:2:6: error: beta=0: out of range: seconds per byte, more than 0 and at most 1");
    bad("alpha=-1e-6\n", CM_ERR_RANGE, "t.net:1:7: error: alpha=-1e-6: out of range: "
        "seconds per message, more than 0 and at most 1000");
    bad("alpha = 1000.5\n", CM_ERR_RANGE, "t.net:1:9: error: alpha=1000.5: out of range: "
        "seconds per message, more than 0 and at most 1000");
    bad("alpha=1e-6\nbeta=1e-9\ngamma=-1e-12\n", CM_ERR_RANGE,
        "t.net:3:7: error: gamma=-1e-12: out of range: seconds per byte reduced, 0 to 1");
    bad("alpha=1e-6\nbeta=1e-9 # fitted\n", CM_ERR_SYNTAX,
        "t.net:2:11: error: unexpected text after beta's value (one KEY=VALUE a line; "
        "comments on lines of their own)");
    bad("alpha=1us\n", CM_ERR_SYNTAX,
        "t.net:1:7: error: alpha: expected a finite number (seconds), got '1us'");
    bad("alpha=inf\n", CM_ERR_SYNTAX,
        "t.net:1:7: error: alpha: expected a finite number (seconds), got 'inf'");
    bad("alpha=\n", CM_ERR_SYNTAX, "t.net:1:7: error: expected a number (seconds) after 'alpha='");
    bad("beta 1e-9\n", CM_ERR_SYNTAX, "t.net:1:6: error: expected '=' after 'beta'");
    bad("\n = 3\n", CM_ERR_SYNTAX, "t.net:2:2: error: expected KEY=VALUE");
    bad("alpha=1e-6\nalpha=2e-6\n", CM_ERR_SYNTAX,
        "t.net:2:1: error: alpha given twice (first on line 1)");
    bad("alpha=1e-6\ngam\001ma=0\n", CM_ERR_SYNTAX,
        "t.net:2:4: error: control character (byte 0x01)");
    bad("alpha=1e-6\nbeta=1e-9\n", CM_ERR_SYNTAX,
        "t.net: error: no gamma= line (a net file sets alpha, beta and gamma)");
    bad("", CM_ERR_SYNTAX, "t.net: error: no alpha= line (a net file sets alpha, beta and gamma)");
}

void t_net_read_io(void)
{
    rt_net_t net;
    cm_err_t err;
    char msg[600];

    TST_EQ_STATUS(rt_net_read("/nonexistent/t.net", &net, &err), CM_ERR_IO);
    cm_err_format(&err, msg, sizeof msg);
    TST_EQ_STR(msg, "/nonexistent/t.net: error: cannot open: No such file or directory");
    /* a directory opens, and then cannot be read */
    TST_EQ_STATUS(rt_net_read("/tmp", &net, &err), CM_ERR_IO);
    cm_err_format(&err, msg, sizeof msg);
    TST_EQ_STR(msg, "/tmp: error: cannot read: Is a directory");
}
