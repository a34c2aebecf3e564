/*
 * ip_rules.h - the --algo rules of the MPI profiling library: which of
 * runtime/algo's algorithms runs a collective of an unmodified program
 * (docs/paprun.md, "Rules").
 *
 * A rule set is text, given to `paprun --algo` or in PAPTREE_ALGO:
 *
 *     allreduce:<=64K=rd,>64K=ring; bcast:*=binomial
 *     allreduce@4-16:*=prr(arrival=history round=5000); reduce:>=1M=chain(segments=8)
 *     allreduce:*=clv+binomial      (a reduce completed by a broadcast)
 *
 *     RULES := RULE { ';' RULE }              (blank rules and spaces ignored)
 *     RULE  := COLL [ '@' NP ] ':' CASE { ',' CASE }
 *     COLL  := allreduce | reduce | bcast
 *     NP    := communicator sizes: N | N-M | N- | -M
 *     CASE  := SIZE '=' ALGO
 *     SIZE  := '*' | '<' B | '<=' B | '>' B | '>=' B | B '-' B     (bytes, cm_opt sizes:
 *              4K = 4096; a rank's message: count x the datatype's size)
 *     ALGO  := native | NAME [ '+' BCAST ] [ '(' KEY=VALUE { ' ' KEY=VALUE } ')' ]
 *
 * NAME is a row of runtime/algo's table whose collective fits COLL (for
 * reduce and bcast the suffix may be left out: `binomial` is
 * binomial-reduce or binomial-bcast); for allreduce, a reduce NAME needs
 * '+' BCAST.  KEY=VALUE are the pathmap's algo parameters (root is not
 * one: the call gives it) with the same ranges, and each must be read by
 * the chosen generators.  `native` is Open MPI's own algorithm.
 *
 * Matching: the rules are tried in order; the first rule for the
 * collective whose NP holds the communicator size and one of whose cases
 * holds the bytes decides (its first such case).  Nothing matches: native.
 * The match depends only on what every rank of a communicator shares
 * (collective, communicator size, bytes), so every rank decides alike.
 *
 * Pure: no MPI.  Used by the library (interpose/), paprun (to refuse a bad
 * rule before the program starts) and the tests.
 */
#ifndef IP_RULES_H
#define IP_RULES_H

#include <stdint.h>
#include "common/cm_err.h"
#include "runtime/api/rt_pathmap.h"
#include "runtime/api/rt_sched.h"

/* The collectives a rule can name. */
typedef enum { IP_RULE_ALLREDUCE, IP_RULE_REDUCE, IP_RULE_BCAST, IP_RULE_NCOLL } ip_rule_coll_t;

/*
 * What a matched case runs.  `spec` is filled as the pathmap parser fills
 * an algo node's (rt_algo_spec_t): run, bcast, native, segcount (0 here:
 * segsize is kept in bytes below, turned into elements per call), nsegs,
 * round_ns, ppn, port, shape, arrival, pap.  hosts/nhosts/root are left
 * zero: the library sets them per communicator and call.
 */
typedef struct ip_choice {
    rt_algo_spec_t spec;
    int64_t        segsize_bytes;  /* segsize=, in bytes; 0 = absent */
    const char    *text;           /* the case's ALGO as written, e.g. "prr(arrival=history)" */
} ip_choice_t;

typedef struct ip_rules ip_rules_t;

/*
 * Parses `text`.  Errors are located in `origin` ("--algo",
 * "PAPTREE_ALGO", a file name) at line 1, the column of the offending
 * character: `origin:1:COL: error: ...`.  An empty or all-blank text is a
 * valid empty rule set (everything native).
 */
cm_status_t ip_rules_parse(const char *text, const char *origin, ip_rules_t **rules_p,
                           cm_err_t *err);
void ip_rules_free(ip_rules_t *rules);

/* The choice for one call; NULL when no rule matches (native). */
const ip_choice_t *ip_rules_match(const ip_rules_t *rules, ip_rule_coll_t coll,
                                  int32_t comm_size, uint64_t bytes);

/* Number of rules (0 = pass-through), and a 64-bit hash of the normalised
 * rule set (the same rules spelt with other spaces hash alike), which the
 * library compares across ranks at MPI_Init. */
uint32_t ip_rules_count(const ip_rules_t *rules);
uint64_t ip_rules_hash(const ip_rules_t *rules);

/* "allreduce", "reduce", "bcast". */
const char *ip_rule_coll_name(ip_rule_coll_t coll);

#endif /* IP_RULES_H */
