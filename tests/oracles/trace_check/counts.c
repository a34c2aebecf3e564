/*
 * counts.c - trace_check at the end of the trace: open visits, last
 * arrivals, the messages matched, and check 8 (counts with --ops).
 */
#include "tests/oracles/trace_check/tc_int.h"

/* ----------------------------------------------------- end of trace, 8. counts */

void check_ends(tc_ctx_t *c)
{
    char a[160];

    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        if (l->defined && l->depth > 0)
            tc_fail(c, "%s open visits at the end: expected 0, got %u (innermost %s)", l->label,
                    l->depth, region_label(c, l->stack[l->depth - 1].region, a, sizeof(a)));
        if (l->defined)
            expect_u64(c, l->nevents, l->nevents_def, "%s numberOfEvents (read, defined)",
                       l->label);
    }
}

/* Exactly one visit per gred and operation (the last arrival) continues. */
void check_last_arrivals(tc_ctx_t *c)
{
    char a[160];

    for (uint64_t r = 0; r < c->nregions; r++) {
        const tc_count_t *k = &c->counts[r];
        const rt_node_t *n = node_of(c, r);
        /* below an algorithm node, the continuation is the algorithm location's visit */
        uint32_t want = n->kind == RT_NODE_GRED &&
                        c->tree->nodes[n->parent].kind == RT_NODE_ALGO ? 0 : 1;
        for (size_t op = 0; n->kind == RT_NODE_GRED && op < k->len; op++) {
            if (k->visits[op] > 0 && k->nests[op] != want) {
                tc_fail(c, "%s op %zu: expected exactly %u of its %u visits to continue to the "
                        "parent, got %u", region_label(c, r, a, sizeof(a)), op, want,
                        k->visits[op], k->nests[op]);
                break;                   /* one line per region is enough */
            }
        }
    }
}

static int msg_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;

    for (int i = 0; i < 6; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* 9. Every message sent was received once, by its peer, with its tag and length. */
void check_messages(tc_ctx_t *c)
{
    tc_msg_t *s = c->sends.data, *r = c->recvs.data;
    size_t i = 0;

    if (c->sends.n > 1)                  /* data is NULL in a trace without messages */
        qsort(s, c->sends.n, sizeof(*s), msg_cmp);
    if (c->recvs.n > 1)
        qsort(r, c->recvs.n, sizeof(*r), msg_cmp);
    expect_u64(c, c->sends.n, c->recvs.n, "messages received (MpiIrecv), against those sent "
               "(MpiIsend)");
    while (i < c->sends.n && i < c->recvs.n && msg_cmp(&s[i], &r[i]) == 0)
        i++;
    if (i < c->sends.n || i < c->recvs.n) {
        const tc_msg_t *m = i < c->sends.n ? &s[i] : &r[i];
        tc_fail(c, "messages: expected every send received by its peer with its tag and "
                "length, got the first difference at %s#%" PRIu64 "/%s op %" PRIu64 ", rank %"
                PRIu64 " -> %" PRIu64 ", tag %" PRIu64 ", %" PRIu64 " bytes (%s)",
                c->tree->name, m->inst, c->tree->nodes[c->tree->root].name, m->op, m->src,
                m->dst, m->tag, m->len, i < c->sends.n ? "a send" : "a receive");
    }
}

static bool tree_fanin_le1(const rt_tree_t *t)
{
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (rt_node_fanin(&t->nodes[n]) > 1)
            return false;
    return true;
}

void check_counts(tc_ctx_t *c)
{
    bool exact = tree_fanin_le1(c->tree);
    char a[160];

    for (uint32_t i = 0; i < c->nlocs; i++) {
        const tc_loc_t *l = &c->locs[i];
        uint64_t served = 0;
        for (unsigned inst = 0; l->defined && inst < c->ninst; inst++) {
            /* a thread that enters the algorithm node directly records nothing: its
               host's algorithm location visits the node */
            bool none = l->service ? inst != l->instance
                                   : !l->algo && c->algo != NULL && l->first == c->tree->root;
            uint64_t want = none ? 0 : ops_of(c, inst);
            expect_u64(c, want, l->next_op[inst], "%s operations on instance %u", l->label, inst);
            served += want;
        }
        if (exact && l->defined)
            expect_u64(c, 2 * served * l->path_len, l->nevents, "%s events (every fanin <= 1: "
                       "2 x %" PRIu64 " ops x path of %u)", l->label, served, l->path_len);
    }
    for (uint64_t r = 0; r < c->nregions; r++) {
        const tc_count_t *k = &c->counts[r];
        uint32_t fanin = rt_node_fanin(node_of(c, r));
        uint64_t sum = 0, want = ops_of(c, (unsigned)(r / c->tree->nnodes));
        size_t bad = SIZE_MAX;
        for (size_t op = 0; op < k->len; op++) {
            sum += k->visits[op];
            if (k->visits[op] != fanin && bad == SIZE_MAX)
                bad = op;
        }
        region_label(c, r, a, sizeof(a));
        expect_u64(c, want * fanin, sum, "%s Enter events (%" PRIu64 " ops x fanin %u)", a,
                   want, fanin);
        if (bad != SIZE_MAX)
            tc_fail(c, "%s op %zu Enter events: expected fanin %u, got %u", a, bad, fanin,
                    k->visits[bad]);
    }
}
