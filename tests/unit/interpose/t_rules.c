/*
 * t_rules.c - unit tests of the --algo rules (interpose/api/ip_rules.h):
 * matching (rule and case order, communicator size ranges, every size
 * form at its boundaries), the short names, every parameter with its
 * defaults, every error message with its line and column, and the hash
 * (the same rules spelt otherwise hash alike, different rules differ).
 * Every expected value is worked out by hand from the texts below and the
 * grammar in ip_rules.h; a column is counted from 1 on the text as
 * written (the comment above each case counts it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/tst.h"
#include "tests/test_list.h"
#include "common/cm_hash.h"
#include "interpose/api/ip_rules.h"
#include "runtime/api/rt_auto.h"

static ip_rules_t *parse_ok(const char *text)
{
    ip_rules_t *r = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (ip_rules_parse(text, "--algo", &r, &err) != CM_OK)
        TST_FAIL("'%s' refused: %s:%u:%u: %s", text, err.path, err.line, err.col, err.msg);
    TST_NOT_NULL(r);
    return r;
}

/* The name of what runs: "native", "rd", "clv+binomial-bcast"; "-" for no match. */
static const char *ran(const ip_rules_t *r, ip_rule_coll_t coll, int32_t np, uint64_t bytes)
{
    static char buf[128];
    const ip_choice_t *c = ip_rules_match(r, coll, np, bytes);

    if (c == NULL)
        return "-";
    if (c->spec.native)
        return "native";
    snprintf(buf, sizeof(buf), "%s%s%s", c->spec.run->name, c->spec.bcast ? "+" : "",
             c->spec.bcast ? c->spec.bcast->name : "");
    return buf;
}

void t_ip_rules_match_order(void)
{
    ip_rules_t *r = parse_ok("allreduce@4-16:<=64K=rd,>64K=ring; allreduce:*=native;"
                             " bcast:*=binomial");

    TST_EQ_UINT(ip_rules_count(r), 3);
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 4, 65536), "rd");         /* <=64K: 65536 holds */
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 4, 65537), "ring");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 16, (uint64_t)1 << 30), "ring");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 3, 100), "native");      /* @4-16 misses: rule 2 */
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 17, 0), "native");
    TST_EQ_STR(ran(r, IP_RULE_BCAST, 2, 4), "binomial-bcast");
    TST_EQ_STR(ran(r, IP_RULE_REDUCE, 4, 4), "-");                /* no reduce rule */
    ip_rules_free(r);

    /* The first case of a rule wins, then the first rule; a rule whose
       communicator sizes hold but none of whose cases does lets the next
       rule decide. */
    r = parse_ok("allreduce:*=rd,*=ring; allreduce:*=prr");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 8), "rd");
    ip_rules_free(r);
    r = parse_ok("allreduce:<4=rd; allreduce:*=ring");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 3), "rd");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 8), "ring");
    ip_rules_free(r);
}

void t_ip_rules_match_sizes(void)
{
    ip_rules_t *r = parse_ok("allreduce:<4=rd,<=8=ring,>=16=prr,12-13=rabenseifner,10=slt;"
                             "reduce:>100=binomial; bcast:*=chain");

    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 0), "rd");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 3), "rd");            /* <4 */
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 4), "ring");          /* <=8 */
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 8), "ring");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 9), "-");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 10), "slt");          /* exactly 10 */
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 11), "-");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 12), "rabenseifner"); /* 12-13, both ends */
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 13), "rabenseifner");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 14), "-");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 15), "-");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 16), "prr");          /* >=16 */
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, UINT64_MAX), "prr");
    TST_EQ_STR(ran(r, IP_RULE_REDUCE, 2, 100), "-");              /* >100 */
    TST_EQ_STR(ran(r, IP_RULE_REDUCE, 2, 101), "binomial-reduce");
    TST_EQ_STR(ran(r, IP_RULE_BCAST, 2, UINT64_MAX), "chain-bcast");
    ip_rules_free(r);

    /* K, M, G are powers of 1024, with or without "iB". */
    r = parse_ok("allreduce:<=1K=rd,<2MiB=ring,<=1g=prr");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 1024), "rd");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 1025), "ring");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 2097151), "ring");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 2097152), "prr");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 1073741824), "prr");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 1073741825), "-");
    ip_rules_free(r);
}

void t_ip_rules_match_np(void)
{
    ip_rules_t *r = parse_ok("allreduce@-3:*=rd; allreduce@8-:*=ring; allreduce@5:*=prr;"
                             "allreduce@ 6 - 7 :*=slt");

    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 1, 4), "rd");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 3, 4), "rd");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 4, 4), "-");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 5, 4), "prr");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 6, 4), "slt");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 7, 4), "slt");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 8, 4), "ring");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, INT32_MAX, 4), "ring");
    ip_rules_free(r);
}

void t_ip_rules_names(void)
{
    static const struct { const char *text; ip_rule_coll_t coll; const char *want; } cases[] = {
        { "reduce:*=binomial", IP_RULE_REDUCE, "binomial-reduce" },
        { "reduce:*=binomial-reduce", IP_RULE_REDUCE, "binomial-reduce" },
        { "reduce:*=chain", IP_RULE_REDUCE, "chain-reduce" },
        { "reduce:*=bintree", IP_RULE_REDUCE, "bintree-reduce" },
        { "reduce:*=greedy", IP_RULE_REDUCE, "greedy-reduce" },
        { "reduce:*=clv-linear", IP_RULE_REDUCE, "clv-linear" },
        { "reduce:*=clv", IP_RULE_REDUCE, "clv" },
        { "reduce:*=native", IP_RULE_REDUCE, "native" },
        { "bcast:*=binomial", IP_RULE_BCAST, "binomial-bcast" },
        { "bcast:*=chain-bcast", IP_RULE_BCAST, "chain-bcast" },
        { "allreduce:*=ring-seg(segsize=1M)", IP_RULE_ALLREDUCE, "ring-seg" },
        { "allreduce:*=nap(ppn=4)", IP_RULE_ALLREDUCE, "nap" },
        { "allreduce:*=rabenseifner", IP_RULE_ALLREDUCE, "rabenseifner" },
        { "allreduce:*=binomial+chain", IP_RULE_ALLREDUCE, "binomial-reduce+chain-bcast" },
        { "allreduce:*=clv + binomial-bcast", IP_RULE_ALLREDUCE, "clv+binomial-bcast" },
        { "allreduce:*=greedy-reduce+binomial", IP_RULE_ALLREDUCE,
          "greedy-reduce+binomial-bcast" },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ip_rules_t *r = parse_ok(cases[i].text);

        TST_EQ_STR(ran(r, cases[i].coll, 4, 1), cases[i].want);
        ip_rules_free(r);
    }
}

void t_ip_rules_params(void)
{
    ip_rules_t *r = parse_ok("allreduce:<=4=prr( arrival = history ,round=5us ),"
                             "<=8=clv+binomial, <=16=rd, <=32=slt(segsize=64K),"
                             "<=64=prr(round=2ms),"
                             "<=128=prr(round=1s), <=256=prr(round=7ns), <=512=prr(round=7);"
                             "reduce:<=4=chain(segments=8 port=b), <=8=bintree(shape=ompi),"
                             "<=16=greedy(port=u); bcast:*=native");
    const ip_choice_t *c;

    c = ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 4);
    TST_EQ_STR(c->text, "prr(arrival=history round=5us)");
    TST_EQ_INT(c->spec.round_ns, 5000);
    TST_EQ_INT(c->spec.arrival, RT_ARRIVAL_HISTORY);
    TST_EQ_INT(c->spec.pap, 1);
    TST_EQ_INT(c->spec.native, 0);
    TST_NULL(c->spec.bcast);
    /* Defaults: round 5000 ns, port u, shape heap, arrival equal, no segments. */
    c = ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 8);
    TST_EQ_STR(c->text, "clv+binomial");
    TST_EQ_STR(c->spec.run->name, "clv");
    TST_EQ_STR(c->spec.bcast->name, "binomial-bcast");
    TST_EQ_INT(c->spec.round_ns, 5000);
    TST_EQ_INT(c->spec.arrival, RT_ARRIVAL_EQUAL);
    TST_EQ_INT(c->spec.port, RT_PORT_U);
    TST_EQ_INT(c->spec.shape, RT_TREE_HEAP);
    TST_EQ_INT(c->spec.nsegs, 0);
    TST_EQ_INT(c->spec.segcount, 0);
    TST_EQ_INT(c->segsize_bytes, 0);
    TST_EQ_INT(c->spec.pap, 1);
    TST_EQ_INT(c->spec.root, 0);
    TST_EQ_UINT(c->spec.nhosts, 0);
    TST_NULL(c->spec.hosts);
    c = ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 16);
    TST_EQ_INT(c->spec.pap, 0);
    TST_EQ_STR(c->text, "rd");
    c = ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 32);
    TST_EQ_INT(c->segsize_bytes, 65536);                  /* bytes, not elements */
    TST_EQ_INT(c->spec.segcount, 0);
    TST_EQ_INT(ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 64)->spec.round_ns, 2000000);
    TST_EQ_INT(ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 128)->spec.round_ns, 1000000000);
    TST_EQ_INT(ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 256)->spec.round_ns, 7);
    TST_EQ_INT(ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 512)->spec.round_ns, 7);
    c = ip_rules_match(r, IP_RULE_REDUCE, 4, 4);
    TST_EQ_INT(c->spec.nsegs, 8);
    TST_EQ_INT(c->spec.port, RT_PORT_B);
    TST_EQ_STR(c->text, "chain(segments=8 port=b)");
    TST_EQ_INT(ip_rules_match(r, IP_RULE_REDUCE, 4, 8)->spec.shape, RT_TREE_OMPI);
    TST_EQ_INT(ip_rules_match(r, IP_RULE_REDUCE, 4, 16)->spec.port, RT_PORT_U);
    c = ip_rules_match(r, IP_RULE_BCAST, 4, 1);
    TST_EQ_INT(c->spec.native, 1);
    TST_NULL(c->spec.run);
    TST_EQ_STR(c->text, "native");
    ip_rules_free(r);

    r = parse_ok("allreduce:*=nap(ppn=4)");
    TST_EQ_INT(ip_rules_match(r, IP_RULE_ALLREDUCE, 8, 1)->spec.ppn, 4);
    ip_rules_free(r);
}

void t_ip_rules_empty(void)
{
    static const char *const texts[] = { "", "  ;; \n\t;", "# no rules yet\n" };

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        ip_rules_t *r = parse_ok(texts[i]);

        TST_EQ_UINT(ip_rules_count(r), 0);
        TST_NULL(ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 4));
        TST_EQ_STR(ip_rules_normal(r), "");
        TST_EQ_UINT(ip_rules_hash(r), 14695981039346656037ull);  /* FNV-1a of "" */
        ip_rules_free(r);
    }
    TST_EQ_UINT(ip_rules_count(NULL), 0);
    TST_NULL(ip_rules_match(NULL, IP_RULE_BCAST, 4, 4));
    TST_EQ_UINT(ip_rules_hash(NULL), 14695981039346656037ull);
    /* A rules file: rules over lines, comments. */
    {
        ip_rules_t *r = parse_ok("# small ones\nallreduce:\n  <=4K=rd,   # latency\n"
                                 "  *=ring\n;bcast:*=chain\n");

        TST_EQ_UINT(ip_rules_count(r), 2);
        TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 2, 4097), "ring");
        ip_rules_free(r);
    }
    TST_EQ_STR(ip_rule_coll_name(IP_RULE_ALLREDUCE), "allreduce");
    TST_EQ_STR(ip_rule_coll_name(IP_RULE_REDUCE), "reduce");
    TST_EQ_STR(ip_rule_coll_name(IP_RULE_BCAST), "bcast");
}

typedef struct bad {
    const char *text;
    unsigned    line, col;
    cm_status_t status;
    const char *msg;
} bad_t;

#define ALLREDUCE_NAMES "native, auto, ring, ring-seg, rd, rabenseifner, slt, prr or nap, or " \
    "REDUCE+BCAST with REDUCE binomial, chain, bintree, greedy, clv-linear or clv and " \
    "BCAST binomial or chain"

/* Columns: "allreduce" is 1-9, ':' 10, '*' 11, '=' 12, the algorithm from 13;
   "reduce" 1-6, ':' 7, '*' 8, '=' 9, algorithm 10; "bcast" 1-5 ... 9. */
static const bad_t bad_rules[] = {
    { "allgather:*=rd", 1, 1, CM_ERR_NAME,
      "unknown collective 'allgather' (expected allreduce, reduce or bcast)" },
    { ":*=rd", 1, 1, CM_ERR_SYNTAX,
      "expected a collective (allreduce, reduce or bcast), found ':'" },
    { "allreduce *=rd", 1, 11, CM_ERR_SYNTAX,
      "expected ':' and the cases of the allreduce rule, found '*'" },
    { "allreduce:", 1, 11, CM_ERR_SYNTAX,
      "expected a case SIZE=ALGO (a rule has at least one), found the end" },
    { "allreduce: ; bcast:*=chain", 1, 12, CM_ERR_SYNTAX,
      "expected a case SIZE=ALGO (a rule has at least one), found ';'" },
    { "allreduce:*=rd,", 1, 16, CM_ERR_SYNTAX,
      "expected a case SIZE=ALGO after ',', found the end" },
    { "allreduce:*=rd foo", 1, 16, CM_ERR_SYNTAX,
      "expected ',' and the next case, ';' and the next rule, or the end; found 'foo'" },
    /* sizes */
    { "allreduce:=rd", 1, 11, CM_ERR_SYNTAX,
      "expected a size condition (*, <B, <=B, >B, >=B, B-B or B, in bytes), found '='" },
    { "allreduce:*rd", 1, 12, CM_ERR_SYNTAX,
      "expected '=' and an algorithm after the size, found 'rd'" },
    { "allreduce:<0=rd", 1, 11, CM_ERR_RANGE,
      "'<0' holds no size (sizes are 0 bytes or more)" },
    { "allreduce:<=x=rd", 1, 13, CM_ERR_SYNTAX,
      "'x' is not a size, expected bytes 0..1024TiB (K, M, G, T: powers of 1024)" },
    { "allreduce:>==rd", 1, 13, CM_ERR_SYNTAX,
      "expected a size in bytes after '>=', found '='" },
    { "allreduce:>=ring", 1, 13, CM_ERR_SYNTAX,
      "'ring' is not a size, expected bytes 0..1024TiB (K, M, G, T: powers of 1024)" },
    { "allreduce:12X=rd", 1, 11, CM_ERR_SYNTAX,
      "'12X' is not a size, expected bytes 0..1024TiB (K, M, G, T: powers of 1024)" },
    { "allreduce:2048T=rd", 1, 11, CM_ERR_RANGE,
      "'2048T' is out of range, expected 0..1024TiB" },
    { "allreduce:64K-4K=rd", 1, 11, CM_ERR_RANGE,
      "empty size range 64K-4K (the first must not exceed the second)" },
    { "allreduce:4-=rd", 1, 13, CM_ERR_SYNTAX,
      "expected a size in bytes after '-', found '='" },
    /* communicator sizes: "allreduce@" is 1-10, NP from 11 */
    { "allreduce@0:*=rd", 1, 11, CM_ERR_RANGE,
      "communicator size '0' is out of range (1..2147483647)" },
    { "allreduce@2147483648:*=rd", 1, 11, CM_ERR_RANGE,
      "communicator size '2147483648' is out of range (1..2147483647)" },
    { "allreduce@16-4:*=rd", 1, 11, CM_ERR_RANGE,
      "empty range of communicator sizes 16-4 (the first must not exceed the second)" },
    { "allreduce@:*=rd", 1, 11, CM_ERR_SYNTAX,
      "expected communicator sizes after '@' (N, N-M, N- or -M), found ':'" },
    { "allreduce@-x:*=rd", 1, 12, CM_ERR_SYNTAX,
      "expected a communicator size, found 'x'" },
    /* algorithms */
    { "allreduce:*=", 1, 13, CM_ERR_SYNTAX, "expected an algorithm after '=', found the end" },
    { "allreduce:*=foo", 1, 13, CM_ERR_NAME,
      "unknown algorithm 'foo' for allreduce (expected " ALLREDUCE_NAMES ")" },
    { "reduce:*=ring", 1, 10, CM_ERR_INVALID,
      "'ring' is an allreduce; a rule for reduce takes native, binomial, chain, bintree, "
      "greedy, clv-linear or clv" },
    { "reduce:*=rung", 1, 10, CM_ERR_NAME,
      "unknown algorithm 'rung' for reduce (expected native, binomial, chain, bintree, "
      "greedy, clv-linear or clv)" },
    { "bcast:*=ring", 1, 9, CM_ERR_INVALID,
      "'ring' is an allreduce; a rule for bcast takes native, binomial or chain" },
    { "bcast:*=binomial-reduce", 1, 9, CM_ERR_INVALID,
      "'binomial-reduce' is a reduce; a rule for bcast takes native, binomial or chain" },
    { "bcast:*=clv", 1, 9, CM_ERR_INVALID,
      "'clv' is a reduce; a rule for bcast takes native, binomial or chain" },
    { "bcast:*=clover", 1, 9, CM_ERR_NAME,
      "unknown algorithm 'clover' for bcast (expected native, binomial or chain)" },
    { "allreduce:*=binomial-bcast", 1, 13, CM_ERR_INVALID,
      "'binomial-bcast' is a broadcast; a rule for allreduce takes " ALLREDUCE_NAMES },
    { "allreduce:*=binomial", 1, 13, CM_ERR_INVALID,
      "'binomial-reduce' is a reduce: an allreduce needs a broadcast after it, e.g. "
      "binomial+binomial" },
    { "allreduce:*=clv", 1, 13, CM_ERR_INVALID,
      "'clv' is a reduce: an allreduce needs a broadcast after it, e.g. clv+binomial" },
    /* "clv" 13-15, '+' 16, the broadcast 17 */
    { "allreduce:*=clv+", 1, 17, CM_ERR_SYNTAX, "expected a broadcast after '+', found the end" },
    { "allreduce:*=clv+foo", 1, 17, CM_ERR_NAME,
      "unknown broadcast 'foo' (expected binomial or chain)" },
    { "allreduce:*=clv+ring", 1, 17, CM_ERR_INVALID,
      "'ring' is an allreduce, not a broadcast (expected binomial or chain)" },
    { "allreduce:*=clv+clv", 1, 17, CM_ERR_INVALID,
      "'clv' is a reduce, not a broadcast (expected binomial or chain)" },
    { "reduce:*=clv+binomial", 1, 13, CM_ERR_INVALID,
      "'+' completes a reduce into an allreduce; a rule for reduce takes one algorithm" },
    { "allreduce:*=rd+binomial", 1, 15, CM_ERR_INVALID,
      "'+' completes a reduce into an allreduce; 'rd' is an allreduce" },
    { "allreduce:*=native+binomial", 1, 19, CM_ERR_INVALID,
      "native is Open MPI's own allreduce: it takes no '+' broadcast" },
    { "allreduce:*=ring-seg", 1, 13, CM_ERR_SYNTAX,
      "algorithm 'ring-seg' needs segsize=B (the segment size in bytes)" },
    { "allreduce:*=nap", 1, 13, CM_ERR_SYNTAX,
      "algorithm 'nap' needs ppn=N (processes per node: at least 2, dividing the "
      "communicator size)" },
    /* parameters: "prr" 13-15, '(' 16, the first key 17 */
    { "reduce:*=binomial(root=1)", 1, 19, CM_ERR_INVALID,
      "root= is not a rule parameter: the call gives the root" },
    { "allreduce:*=prr(zz=1)", 1, 17, CM_ERR_NAME,
      "unknown parameter 'zz' (expected segments, segsize, round, ppn, port, shape or "
      "arrival)" },
    { "allreduce:*=ring(round=5)", 1, 18, CM_ERR_SYNTAX,
      "algorithm 'ring' takes no parameter 'round' (it takes none)" },
    { "allreduce:*=prr(ppn=2)", 1, 17, CM_ERR_SYNTAX,
      "algorithm 'prr' takes no parameter 'ppn' (it takes: round, arrival)" },
    { "allreduce:*=native(round=1)", 1, 20, CM_ERR_SYNTAX, "native takes no parameter 'round'" },
    { "allreduce:*=clv+binomial(ppn=2)", 1, 26, CM_ERR_SYNTAX,
      "algorithms 'clv' and 'binomial-bcast' take no parameter 'ppn' (they take: segments, "
      "segsize, round, arrival)" },
    { "allreduce:*=prr(round=5 round=6)", 1, 25, CM_ERR_SYNTAX, "parameter 'round' given twice" },
    { "allreduce:*=slt(segments=2 segsize=4K)", 1, 28, CM_ERR_SYNTAX,
      "give segments= or segsize=, not both" },
    { "allreduce:*=prr(round)", 1, 22, CM_ERR_SYNTAX, "expected '=' after 'round', found ')'" },
    { "allreduce:*=prr(round=)", 1, 23, CM_ERR_SYNTAX,
      "expected a value for round=, found ')'" },
    { "allreduce:*=prr(round=5us", 1, 16, CM_ERR_SYNTAX, "missing ')' for this '('" },
    { "allreduce:*=prr(=5)", 1, 17, CM_ERR_SYNTAX,
      "expected a parameter KEY=VALUE or ')', found '='" },
    { "allreduce:*=prr(round=2s)", 1, 23, CM_ERR_RANGE,
      "round=2s is out of range (1..1000000000 ns, at most 1 s)" },
    { "allreduce:*=prr(round=0)", 1, 23, CM_ERR_RANGE,
      "round=0 is out of range (1..1000000000 ns, at most 1 s)" },
    { "allreduce:*=prr(round=fast)", 1, 23, CM_ERR_SYNTAX,
      "invalid value 'fast' for round= (expected nanoseconds in 1..1000000000, or a number "
      "with a unit: 5us, 2ms, 1s)" },
    { "allreduce:*=prr(arrival=edge)", 1, 25, CM_ERR_UNSUPPORTED,
      "arrival=edge needs the program's edge() calls, which an unmodified program does not "
      "make (expected equal or history)" },
    { "allreduce:*=prr(arrival=sometimes)", 1, 25, CM_ERR_SYNTAX,
      "unknown arrival source 'sometimes' for arrival= (expected equal or history)" },
    /* "slt(" 13-16, "segsize=" 17-24, the value 25 */
    { "allreduce:*=slt(segsize=0)", 1, 25, CM_ERR_RANGE,
      "segsize: '0' is out of range, expected 1..1TiB" },
    { "allreduce:*=slt(segsize=4X)", 1, 25, CM_ERR_SYNTAX,
      "segsize: '4X' is not a size, expected bytes 1..1TiB (K, M, G, T: powers of 1024)" },
    /* "bcast:*=chain(" 1-14, "segments=" 15-23, the value 24 */
    { "bcast:*=chain(segments=0)", 1, 24, CM_ERR_RANGE,
      "segments=0 is out of range (1..16777216)" },
    { "bcast:*=chain(segments=x)", 1, 24, CM_ERR_SYNTAX,
      "invalid value 'x' for segments= (expected a number in 1..16777216)" },
    { "allreduce:*=nap(ppn=1)", 1, 21, CM_ERR_RANGE, "ppn=1 is out of range (2..4096)" },
    /* "reduce:*=greedy(" 1-16, "port=" 17-21, the value 22 */
    { "reduce:*=greedy(port=b)", 1, 22, CM_ERR_UNSUPPORTED,
      "greedy-reduce supports port=u only (its bidirectional rule is not published)" },
    { "reduce:*=chain(port=x)", 1, 21, CM_ERR_SYNTAX,
      "unknown port model 'x' for port= (expected u or b)" },
    { "reduce:*=bintree(shape=round)", 1, 24, CM_ERR_SYNTAX,
      "unknown tree shape 'round' for shape= (expected heap or ompi)" },
    /* a later line: "bcast:*=" 1-8 on line 2 */
    { "allreduce:*=rd;\nbcast:*=ring", 2, 9, CM_ERR_INVALID,
      "'ring' is an allreduce; a rule for bcast takes native, binomial or chain" },
    { "allreduce:*=rd # fine\n  ; bcast:*=@", 2, 13, CM_ERR_SYNTAX,
      "expected an algorithm after '=', found '@'" },
};

void t_ip_rules_errors(void)
{
    for (size_t i = 0; i < sizeof(bad_rules) / sizeof(bad_rules[0]); i++) {
        const bad_t *b = &bad_rules[i];
        static char sentinel;
        ip_rules_t *const before = (ip_rules_t *)&sentinel;
        ip_rules_t *r = before;             /* must stay untouched */
        cm_err_t err;
        char line[CM_ERR_MSG_MAX + 64];

        cm_err_clear(&err);
        if (ip_rules_parse(b->text, "--algo", &r, &err) == CM_OK)
            TST_FAIL("'%s' accepted", b->text);
        TST_EQ_PTR(r, before);
        TST_EQ_STR(err.msg, b->msg);
        TST_EQ_STATUS(err.status, b->status);
        TST_EQ_STR(err.path, "--algo");
        TST_EQ_UINT(err.line, b->line);
        TST_EQ_UINT(err.col, b->col);
        cm_err_format(&err, line, sizeof(line));
        TST_TRUE(strncmp(line, "--algo:", 7) == 0);
    }
}

static uint64_t hash_of(const char *text)
{
    ip_rules_t *r = parse_ok(text);
    uint64_t h = ip_rules_hash(r);

    /* The hash is FNV-1a of the normal form. */
    TST_EQ_UINT(h, cm_hash_fnv1a(ip_rules_normal(r), strlen(ip_rules_normal(r))));
    ip_rules_free(r);
    return h;
}

void t_ip_rules_hash(void)
{
    static const char base[] = "allreduce:<=64K=rd,>64K=ring;bcast:*=binomial";
    static const char *const alike[] = {
        " allreduce : <= 64K = rd , > 64K = ring ;\n bcast:* = binomial ; ",
        "allreduce:0-65536=rd,>=65537=ring;;bcast:*=binomial-bcast",
        "allreduce@1-:<=64KiB=rd,>65536=ring;bcast@-2147483647:>=0=binomial",
        "allreduce:<65537=rd,>64k=ring # comment\n;bcast:*=binomial",
    };
    static const char *const other[] = {
        "allreduce:<=64K=rd,>64K=rabenseifner;bcast:*=binomial",
        "allreduce:<=63K=rd,>64K=ring;bcast:*=binomial",
        "allreduce@2-:<=64K=rd,>64K=ring;bcast:*=binomial",
        "allreduce:<=64K=rd,>64K=ring;bcast:*=chain",
        "bcast:*=binomial;allreduce:<=64K=rd,>64K=ring",
        "allreduce:<=64K=rd,>64K=ring",
        "",
    };
    ip_rules_t *r = parse_ok(base);
    uint64_t h = hash_of(base);

    TST_EQ_STR(ip_rules_normal(r), "allreduce@1-2147483647:0-65536=rd,>=65537=ring;"
                                   "bcast@1-2147483647:*=binomial-bcast");
    ip_rules_free(r);
    for (size_t i = 0; i < sizeof(alike) / sizeof(alike[0]); i++)
        if (hash_of(alike[i]) != h)
            TST_FAIL("'%s' hashes otherwise than '%s'", alike[i], base);
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
        if (hash_of(other[i]) == h)
            TST_FAIL("'%s' hashes as '%s'", other[i], base);

    /* Parameters: defaults spelt out, units, short names hash alike. */
    r = parse_ok("allreduce:*=prr");
    TST_EQ_STR(ip_rules_normal(r), "allreduce@1-2147483647:*=prr(round=5000 arrival=equal)");
    ip_rules_free(r);
    TST_EQ_UINT(hash_of("allreduce:*=prr"),
                hash_of("allreduce:*=prr(round=5us, arrival=equal)"));
    TST_EQ_UINT(hash_of("reduce:*=chain(segments=8)"),
                hash_of("reduce:*=chain-reduce(port=u segments=8)"));
    TST_TRUE(hash_of("allreduce:*=prr(round=5001)") != hash_of("allreduce:*=prr"));
    TST_TRUE(hash_of("allreduce:*=prr(arrival=history)") != hash_of("allreduce:*=prr"));
    TST_TRUE(hash_of("reduce:*=chain(segments=8)") != hash_of("reduce:*=chain(segsize=8)"));
}

/* The normal form is rules text that parses back to itself. */
void t_ip_rules_normal_reparses(void)
{
    static const char *const texts[] = {
        "allreduce@4-16:<=64K=rd,>64K=ring; bcast:*=binomial; reduce@-3:5=chain(segsize=1K)",
        "allreduce:*=clv+chain(segments=4 arrival=history round=2us),>=1=native",
        "reduce:<100=bintree(shape=ompi port=b); allreduce@8-:12-13=nap(ppn=4)",
    };

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        ip_rules_t *a = parse_ok(texts[i]);
        ip_rules_t *b = parse_ok(ip_rules_normal(a));

        TST_EQ_STR(ip_rules_normal(b), ip_rules_normal(a));
        TST_EQ_UINT(ip_rules_hash(b), ip_rules_hash(a));
        TST_EQ_UINT(ip_rules_count(b), ip_rules_count(a));
        ip_rules_free(b);
        ip_rules_free(a);
    }
    {
        ip_rules_t *a = parse_ok(texts[2]);

        TST_EQ_STR(ip_rules_normal(a), "reduce@1-2147483647:0-99=bintree-reduce(port=b "
                                       "shape=ompi);allreduce@8-2147483647:12-13=nap(ppn=4)");
        ip_rules_free(a);
    }
}

/* ---- auto (issue 26) ------------------------------------------------------ */

/* The only case of a one-case allreduce rule set. */
static const ip_choice_t *only_case(const ip_rules_t *r)
{
    const ip_choice_t *c = ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 1 << 20);

    TST_NOT_NULL(c);
    return c;
}

void t_ip_rules_auto(void)
{
    ip_rules_t *r;
    const ip_choice_t *c;
    const rt_auto_cfg_t *cfg;

    unsetenv("PAPTREE_NET");
    /* Bare auto: the default candidates (RT_AUTO_DEFAULT_CANDIDATES, in
       order), arrival=equal, round 5000 ns; not native, no run. */
    r = parse_ok("allreduce:*=auto");
    c = only_case(r);
    cfg = c->spec.autocfg;
    TST_NOT_NULL(cfg);
    TST_TRUE(c->spec.run == NULL && c->spec.bcast == NULL && !c->spec.native);
    TST_EQ_INT(c->spec.pap, 1);
    TST_EQ_INT(c->spec.arrival, RT_ARRIVAL_EQUAL);
    TST_EQ_UINT(cfg->ncand, 6);
    TST_EQ_STR(cfg->cand[0], "rd");
    TST_EQ_STR(cfg->cand[3], "prr");
    TST_EQ_STR(cfg->cand[5], "native");
    TST_EQ_INT(cfg->round_ns, 5000);
    TST_EQ_INT(cfg->segcount, 0);
    TST_EQ_STR(c->text, "auto");
    TST_EQ_STR(ip_rules_normal(r), "allreduce@1-2147483647:*=auto(candidates=rd,ring,"
               "rabenseifner,prr,slt,native arrival=equal round=5000)");
    TST_TRUE(ip_rules_auto_hash(r) != 0);
    TST_NOT_NULL(ip_rules_net(r));
    ip_rules_free(r);

    /* The brief's example: three candidates (commas list them), history,
       round 5us = 5000 ns given to prr, only at 64 KiB and more. */
    r = parse_ok("allreduce:>=64K=auto(candidates=ring,prr,native arrival=history round=5us)");
    TST_NULL(ip_rules_match(r, IP_RULE_ALLREDUCE, 4, 65535));
    c = only_case(r);
    cfg = c->spec.autocfg;
    TST_EQ_UINT(cfg->ncand, 3);
    TST_EQ_STR(cfg->cand[0], "ring");
    TST_EQ_STR(cfg->cand[1], "prr");
    TST_EQ_STR(cfg->cand[2], "native");
    TST_EQ_INT(c->spec.arrival, RT_ARRIVAL_HISTORY);
    TST_EQ_INT(c->spec.round_ns, 5000);
    TST_EQ_INT(cfg->round_ns, 5000);
    TST_EQ_STR(c->text, "auto(candidates=ring,prr,native arrival=history round=5000)");
    ip_rules_free(r);

    /* A comma then a KEY= ends the list; spaces after a comma continue it;
       segsize= for slt stays in bytes (made elements per call); no round
       in the normal form when no candidate reads it. */
    r = parse_ok("allreduce:*=auto(candidates=ring, slt,arrival=history segsize=8K)");
    c = only_case(r);
    cfg = c->spec.autocfg;
    TST_EQ_UINT(cfg->ncand, 2);
    TST_EQ_STR(cfg->cand[1], "slt");
    TST_EQ_INT(c->spec.arrival, RT_ARRIVAL_HISTORY);
    TST_EQ_INT(c->segsize_bytes, 8192);
    TST_EQ_STR(ip_rules_normal(r), "allreduce@1-2147483647:*=auto(candidates=ring,slt "
               "arrival=history segsize=8192)");
    ip_rules_free(r);

    /* auto beside fixed algorithms, and the normal form parses back. */
    r = parse_ok("allreduce:<=4K=rd,*=auto(candidates=rd,ring);bcast:*=binomial");
    TST_EQ_STR(ran(r, IP_RULE_ALLREDUCE, 4, 4096), "rd");
    {
        ip_rules_t *again = parse_ok(ip_rules_normal(r));

        TST_EQ_STR(ip_rules_normal(again), ip_rules_normal(r));
        TST_EQ_UINT(ip_rules_auto_hash(again), ip_rules_auto_hash(r));
        ip_rules_free(again);
    }
    ip_rules_free(r);

    /* No auto case: auto hash 0, no net model. */
    r = parse_ok("allreduce:*=ring");
    TST_EQ_UINT(ip_rules_auto_hash(r), 0);
    TST_NULL(ip_rules_net(r));
    ip_rules_free(r);
}

/* A net file with alpha `alpha` (seconds) in path (a mkstemp template). */
static void net_file(char *path, const char *alpha)
{
    int fd = mkstemp(path);
    FILE *fp;

    TST_TRUE(fd >= 0);
    fp = fdopen(fd, "w");
    TST_NOT_NULL(fp);
    fprintf(fp, "alpha=%s\nbeta=1e-9\ngamma=2e-10\n", alpha);
    fclose(fp);
}

void t_ip_rules_auto_net(void)
{
    static const char text[] = "allreduce:*=auto(candidates=ring,prr)";
    char a[] = "/tmp/t_rules_netA.XXXXXX", b[] = "/tmp/t_rules_netB.XXXXXX";
    ip_rules_t *ra, *rb, *rc = NULL;
    cm_err_t err;

    net_file(a, "3e-6");
    net_file(b, "4e-6");
    setenv("PAPTREE_NET", a, 1);
    ra = parse_ok(text);
    setenv("PAPTREE_NET", b, 1);
    rb = parse_ok(text);
    /* PAPTREE_NET is the auto cases' model: the rules agree, the auto
       configurations do not (what MPI_Init compares). */
    TST_EQ_INT(ip_rules_net(ra)->alpha == 3e-6, 1);
    TST_EQ_INT(ip_rules_net(rb)->alpha == 4e-6, 1);
    TST_EQ_INT(ip_rules_net(rb)->gamma == 2e-10, 1);
    TST_EQ_UINT(ip_rules_hash(ra), ip_rules_hash(rb));
    TST_TRUE(ip_rules_auto_hash(ra) != ip_rules_auto_hash(rb));
    /* Other candidates: other rules. */
    rc = parse_ok("allreduce:*=auto(candidates=ring,rd)");
    TST_TRUE(ip_rules_hash(rc) != ip_rules_hash(rb));
    ip_rules_free(rc);
    rc = NULL;
    /* A net file that cannot be read fails the parse (no auto: not read). */
    setenv("PAPTREE_NET", "/nonexistent/net.txt", 1);
    cm_err_clear(&err);
    TST_TRUE(ip_rules_parse(text, "--algo", &rc, &err) != CM_OK);
    TST_NULL(rc);
    TST_TRUE(strstr(err.path, "/nonexistent/net.txt") != NULL);
    rc = parse_ok("allreduce:*=ring");
    ip_rules_free(rc);
    unsetenv("PAPTREE_NET");
    unlink(a);
    unlink(b);
    ip_rules_free(ra);
    ip_rules_free(rb);
}

/* Columns: "allreduce:*=" is 1-12, "auto" 13-16, '(' 17, the first
   parameter from 18; "candidates=" 18-28, its first name from 29. */
static const bad_t bad_auto[] = {
    /* "reduce:*=" 1-9: auto at 10; "bcast:*=" 1-8: auto at 9 */
    { "reduce:*=auto", 1, 10, CM_ERR_INVALID,
      "auto chooses among allreduce algorithms; a rule for reduce cannot take it" },
    { "bcast:*=auto(candidates=ring)", 1, 9, CM_ERR_INVALID,
      "auto chooses among allreduce algorithms; a rule for bcast cannot take it" },
    /* '+' at 17 */
    { "allreduce:*=auto+binomial", 1, 17, CM_ERR_INVALID,
      "auto chooses whole allreduce algorithms: it takes no '+' broadcast" },
    /* "ring," 29-33: foo at 34 */
    { "allreduce:*=auto(candidates=ring,foo)", 1, 34, CM_ERR_NAME,
      "unknown candidate 'foo' for auto (expected native, ring, rd, rabenseifner, slt or "
      "prr)" },
    /* a reduce is no candidate either: binomial at 29 */
    { "allreduce:*=auto(candidates=binomial)", 1, 29, CM_ERR_NAME,
      "unknown candidate 'binomial' for auto (expected native, ring, rd, rabenseifner, slt "
      "or prr)" },
    /* "ring,prr," 29-37: ring again at 38 */
    { "allreduce:*=auto(candidates=ring,prr,ring)", 1, 38, CM_ERR_INVALID,
      "candidate 'ring' given twice" },
    { "allreduce:*=auto(candidates=nap)", 1, 29, CM_ERR_INVALID,
      "'nap' cannot be a candidate of auto: it needs ppn=, which auto does not give its "
      "candidates" },
    /* "ring,rd" 29-35, space 36: round at 37 */
    { "allreduce:*=auto(candidates=ring,rd round=5us)", 1, 37, CM_ERR_SYNTAX,
      "none of auto's candidates (ring and rd) takes parameter 'round'" },
    /* segsize before the candidates, checked after them: segsize at 18 */
    { "allreduce:*=auto(segsize=4K candidates=ring,prr)", 1, 18, CM_ERR_SYNTAX,
      "none of auto's candidates (ring and prr) takes parameter 'segsize'" },
    { "allreduce:*=auto(segments=4)", 1, 18, CM_ERR_SYNTAX,
      "auto takes no parameter 'segments' (it takes: candidates, arrival, and round and "
      "segsize for its candidates)" },
    { "allreduce:*=auto(speed=4)", 1, 18, CM_ERR_NAME,
      "unknown parameter 'speed' (expected candidates, arrival, round or segsize)" },
    /* "arrival=" 18-25: edge at 26 */
    { "allreduce:*=auto(arrival=edge)", 1, 26, CM_ERR_UNSUPPORTED,
      "arrival=edge needs the program's edge() calls, which an unmodified program does not "
      "make (expected equal or history)" },
    { "allreduce:*=auto(candidates=)", 1, 29, CM_ERR_SYNTAX,
      "expected a candidate algorithm, found ')'" },
    /* "candidates=ring " 18-33: the second candidates at 34 */
    { "allreduce:*=auto(candidates=ring candidates=rd)", 1, 34, CM_ERR_SYNTAX,
      "parameter 'candidates' given twice" },
    /* names are separated by commas: "ring" 29-32, "prr" 34-36 is taken
       for a key, and ')' at 37 is no '=' */
    { "allreduce:*=auto(candidates=ring prr)", 1, 37, CM_ERR_SYNTAX,
      "expected '=' after 'prr', found ')'" },
    { "allreduce:*=auto(root=1)", 1, 18, CM_ERR_INVALID,
      "root= is not a rule parameter: the call gives the root" },
    { "allreduce:*=auto(arrival=history", 1, 17, CM_ERR_SYNTAX,
      "missing ')' for this '('" },
};

void t_ip_rules_auto_errors(void)
{
    unsetenv("PAPTREE_NET");
    for (size_t i = 0; i < sizeof(bad_auto) / sizeof(bad_auto[0]); i++) {
        const bad_t *b = &bad_auto[i];
        ip_rules_t *r = NULL;
        cm_err_t err;

        cm_err_clear(&err);
        if (ip_rules_parse(b->text, "--algo", &r, &err) == CM_OK)
            TST_FAIL("'%s' accepted", b->text);
        TST_NULL(r);
        TST_EQ_STR(err.msg, b->msg);
        TST_EQ_STATUS(err.status, b->status);
        TST_EQ_UINT(err.line, b->line);
        TST_EQ_UINT(err.col, b->col);
    }
}
