/*
 * t_schedule.c - `papviz schedule` (viz/viz_schedule.c) on a schedule built
 * by hand, with every expected number worked out below.
 *
 * Three hosts h0, h1, h2 = ranks 0, 1, 2 of algorithm node `across`; times in
 * ns from t0.  Arrivals t1 = 0, 3000, 500; departures t4 = 9000, 9500, 9000.
 * Two rounds, six messages of 64 bytes (send post, send done, receive post,
 * receive done; late = max(0, send post - receive post)):
 *   round 0: 0->1  100 3400 3100 3400  late 0
 *            1->2 3100 3600  600 3600  late 2500  (h2 waits for late h1)
 *            2->0  600 1000  100 1000  late 500
 *   round 1: 0->2 4000 4500 3700 4500  late 300
 *            1->0 3700 4400 4000 4400  late 0
 *            2->1 3700 4300 3700 4300  late 0
 * Each host's round: first post to last completion, late = its largest wait:
 *   rank 0: [100, 3400] late 500, [4000, 4500] late 0
 *   rank 1: [3100, 3600] late 0,  [3700, 4400] late 0
 *   rank 2: [600, 3600] late 2500, [3700, 4500] late 300
 * Late Sender per host: 500, 0, 2800 (two receives); 3300 in all; the
 * longest 2500 on h2 in round 0.  Span 9500, arrival spread 3000.
 * x scale: 0..9.5 µs widens to 0..10 µs (step 1) over 700 px from x = 150,
 * so x = 150 + 70 * µs; band of rank r from y = 156 + 46 r, its bars from
 * 11 px below, 24 px high, a wait in their lower half (y + 12, 12 high).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tst.h"
#include "tests/test_list.h"
#include "viz/api/viz.h"

static an_model_t *model(void)
{
    an_model_t *m = an_model_create();
    TST_NOT_NULL(m);
    TST_EQ_INT(an_model_tree_alloc(m, 3, 4, 3), CM_OK);
    m->pathmap_path = "rd.pathmap";
    m->trace = "t/traces.otf2";
    static const char *const hn[] = { "h0", "h1", "h2" };
    for (int h = 0; h < 3; h++)
        m->tree.hosts[h] = (an_model_host_t){ h, hn[h], "" };
    static const an_model_wrapper_t w[] = {
        { 0, "across", AN_KIND_ALGO, "algo", 0, -1, 0, 3, 3, "", 5, NULL },
        { 1, "g0", AN_KIND_GRED, "gred", 0, 0, 1, 1, 1, "", 6, NULL },
        { 2, "g1", AN_KIND_GRED, "gred", 1, 0, 1, 1, 1, "", 7, NULL },
        { 3, "g2", AN_KIND_GRED, "gred", 2, 0, 1, 1, 1, "", 8, NULL },
    };
    memcpy(m->tree.wrappers, w, sizeof w);
    for (int i = 0; i < 3; i++)
        m->tree.threads[i] = (an_model_thread_t){ i, i, i + 1, 0, 2 };
    an_model_algo_t *a = an_model_algo_alloc(m, 3);
    TST_NOT_NULL(a);
    if (a != NULL) {
        a->algo = "prr";
        a->arrival = "history";
        for (int r = 0; r < 3; r++)
            a->hosts[r] = r;
        m->tree.wrappers[0].algo = a;
    }
    return m;
}

static an_model_round_t rounds[3][2] = {
    { { 0, 1, 100, 3400, 500 }, { 1, 1, 4000, 4500, 0 } },
    { { 0, 1, 3100, 3600, 0 }, { 1, 1, 3700, 4400, 0 } },
    { { 0, 1, 600, 3600, 2500 }, { 1, 1, 3700, 4500, 300 } },
};

static an_model_msg_t msgs[6] = {
    { 0, 0, 1, 0, 0, 64, 100, 3400, 3100, 3400, 0 },
    { 0, 2, 0, 0, 0, 64, 600, 1000, 100, 1000, 500 },
    { 0, 1, 2, 0, 0, 64, 3100, 3600, 600, 3600, 2500 },
    { 1, 1, 0, 1, 1, 64, 3700, 4400, 4000, 4400, 0 },
    { 1, 2, 1, 1, 1, 64, 3700, 4300, 3700, 4300, 0 },
    { 1, 0, 2, 1, 1, 64, 4000, 4500, 3700, 4500, 300 },
};

static void schedule(an_model_schedule_t *s, an_model_sched_host_t *h, int one_op)
{
    static const double t1[3] = { 0, 3000, 500 }, t4[3] = { 9000, 9500, 9000 };
    for (int r = 0; r < 3; r++)
        h[r] = (an_model_sched_host_t){ r, r, t1[r], t4[r], rounds[r] };
    *s = (an_model_schedule_t){ .node = 0, .bytes = 64, .instance = one_op ? 0 : -1,
                                .op = one_op ? 7 : -1, .ops = one_op ? 1 : 10,
                                .span = 9500, .nranks = 3, .ranks = h, .nrounds = 2,
                                .msgs = one_op ? msgs : NULL, .nmsgs = one_op ? 6 : 0 };
}

static char *draw(const an_model_t *m, const an_model_schedule_t *s, cm_status_t want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    cm_err_t err;
    cm_err_clear(&err);
    TST_NOT_NULL(out);
    TST_EQ_INT(viz_schedule_draw(out, m, s, &err), want);
    TST_EQ_INT(fclose(out), 0);
    if (getenv("T_SCHEDULE_SVG") != NULL && want == CM_OK) {     /* to look at it */
        FILE *f = fopen(getenv("T_SCHEDULE_SVG"), "w");
        if (f != NULL) {
            fputs(buf, f);
            fclose(f);
        }
    }
    return buf;
}

void t_viz_schedule_one_op(void)
{
    an_model_t *m = model();
    an_model_schedule_t s;
    an_model_sched_host_t h[3];
    schedule(&s, h, 1);
    char *svg = draw(m, &s, CM_OK);
    TST_CONTAINS(svg, "<title>Schedule of across (run=prr arrival=history): operation 7 of "
                      "instance 0, 64 bytes</title>");
    TST_CONTAINS(svg, "Span 9.500 µs, arrival spread 3.000 µs; late senders cost 3.300 µs "
                      "over all hosts, the longest wait 2.500 µs on h2 (rank 2) in round 0.");
    TST_CONTAINS(svg, "<title>host h2, rank 2 of 3 in the node\narrives t1 = 0.500 µs, "
                      "departs t4 = 9.000 µs (from t0)\nat the node e = t4 - t1 = 8.500 µs\n"
                      "waiting for late senders: 2.800 µs (2 receives)</title>");
    TST_CONTAINS(svg, "waiting for late senders: 0.500 µs (1 receive)</title>");
    TST_CONTAINS(svg, "waiting for late senders: 0.000 µs (0 receives)</title>");
    /* h2's wait for h1 in round 0: x 150 + 70 * 0.6 = 192, 70 * 2.5 = 175
       wide; y 156 + 92 + 11 + 12 = 271. */
    TST_CONTAINS(svg, "<title>h2 (rank 2) waits 2.500 µs for h1 (rank 1) in round 0: late "
                      "sender\nreceive posted at 0.600 µs, the send only at 3.100 µs</title>\n"
                      "<rect x=\"192.00\" y=\"271.00\" width=\"175.00\" height=\"12.00\"");
    /* Its message: from (150 + 70 * 3.1, 156 + 46 + 23) to (150 + 70 * 3.6,
       156 + 92 + 23). */
    TST_CONTAINS(svg, "<title>round 0: h1 (rank 1) \xe2\x86\x92 h2 (rank 2), 64 bytes\n"
                      "send posted 3.100, completed 3.600 µs\nreceive posted 0.600, completed "
                      "3.600 µs\nlate sender: 2.500 µs</title>");
    TST_CONTAINS(svg, "points=\"367.00,225.00 402.00,271.00\"");
    /* rank 0's round 0: x 150 + 7 = 157 to 150 + 238 = 388, y 156 + 11. */
    TST_CONTAINS(svg, "<title>h0 (rank 0), round 0\nfrom 0.100 to 3.400 µs: 3.300 µs\n"
                      "longest wait for a late sender: 0.500 µs</title>\n"
                      "<rect x=\"157.00\" y=\"167.00\" width=\"231.00\" height=\"24.00\"");
    TST_CONTAINS(svg, "message: send post \xe2\x86\x92 receive completion");
    TST_FALSE(strstr(svg, "nan") != NULL);
    free(svg);
    an_model_close(m);
}

void t_viz_schedule_mean(void)
{
    an_model_t *m = model();
    an_model_schedule_t s;
    an_model_sched_host_t h[3];
    schedule(&s, h, 0);
    char *svg = draw(m, &s, CM_OK);
    TST_CONTAINS(svg, "<title>Schedule of across (run=prr arrival=history): mean of 10 "
                      "operations, 64 bytes</title>");
    TST_CONTAINS(svg, "Span 9.500 µs, latest mean arrival 3.000 µs; late senders cost "
                      "3.300 µs over all hosts, the longest wait 2.500 µs on h2 (rank 2) in "
                      "round 0.");
    TST_CONTAINS(svg, "waiting for late senders: 2.800 µs (2 rounds)</title>");
    /* The mean's wait at the start of h2's round 0: the same rectangle. */
    TST_CONTAINS(svg, "<title>h2 (rank 2), round 0: mean wait for the latest sender 2.500 µs "
                      "(drawn from the round&#39;s start)</title>\n"
                      "<rect x=\"192.00\" y=\"271.00\" width=\"175.00\" height=\"12.00\"");
    TST_CONTAINS(svg, "(the mean has no message lines)");
    TST_FALSE(strstr(svg, "send post \xe2\x86\x92") != NULL);
    TST_FALSE(strstr(svg, "s-msg\"") != NULL);
    free(svg);
    an_model_close(m);
}

/* Bent input: a time that is not a number leaves its mark out; a schedule
   of no host or of a node outside the tree is an error, not a crash. */
void t_viz_schedule_bad(void)
{
    an_model_t *m = model();
    an_model_schedule_t s;
    an_model_sched_host_t h[3];
    schedule(&s, h, 1);
    msgs[2].recv_done = NAN;
    rounds[1][1].start = INFINITY;
    char *svg = draw(m, &s, CM_OK);
    TST_FALSE(strstr(svg, "nan") != NULL);
    TST_FALSE(strstr(svg, "inf") != NULL);
    TST_FALSE(strstr(svg, "points=\"367.00,225.00 402.00,271.00\"") != NULL);
    free(svg);
    msgs[2].recv_done = 3600;
    rounds[1][1].start = 3700;
    s.nranks = 0;
    free(draw(m, &s, CM_ERR_INVALID));
    s.nranks = 3;
    s.node = 9;
    free(draw(m, &s, CM_ERR_INVALID));
    an_model_close(m);
}

/* A tree without an algorithm node: the message the command prints. */
void t_viz_schedule_no_algo(void)
{
    an_model_t *m = model();
    m->tree.wrappers[0].kind = AN_KIND_CORE;
    m->tree.wrappers[0].kind_name = "core";
    viz_opts_t o = { .bytes = -1 };
    cm_err_t err;
    cm_err_clear(&err);
    FILE *out = fopen("/dev/null", "w");
    TST_NOT_NULL(out);
    TST_EQ_INT(viz_schedule(out, m, &o, &err), CM_ERR_INVALID);
    TST_CONTAINS(err.msg, "this database has no algorithm node");
    o.wrapper = "g1";
    TST_EQ_INT(viz_schedule(out, m, &o, &err), CM_ERR_INVALID);
    TST_CONTAINS(err.msg, "g1 is a gred, not an algorithm node");
    o.wrapper = "nope";
    TST_EQ_INT(viz_schedule(out, m, &o, &err), CM_ERR_NAME);
    fclose(out);
    an_model_close(m);
}
