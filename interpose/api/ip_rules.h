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
 *     NP    := communicator sizes: N | N-M | N- | -M   (1..2147483647, inclusive)
 *     CASE  := SIZE '=' ALGO
 *     SIZE  := '*' | '<' B | '<=' B | '>' B | '>=' B | B '-' B | B   (bytes, cm_opt sizes:
 *              4K = 4096, up to 1024T; B-B includes both ends, B alone is exactly B;
 *              a rank's message: count x the datatype's size)
 *     ALGO  := native | NAME [ '+' BCAST ] [ '(' KEY=VALUE { ' ' KEY=VALUE } ')' ]
 *            | auto [ '(' AKEY=VALUE { ' ' AKEY=VALUE } ')' ]       (allreduce only)
 *     AKEY  := candidates | arrival | round | segsize
 *              candidates=NAME { ',' NAME }: a comma followed by a word that is
 *              not a KEY= continues the list (candidates=ring,prr,native arrival=history
 *              is three candidates and an arrival source)
 *
 * Spaces, tabs and line breaks may stand between any two tokens (a rules
 * file may spread a rule over lines), '#' starts a comment that runs to
 * the end of the line, and commas may separate parameters too.
 *
 * NAME is a row of runtime/algo's table whose collective fits COLL (for
 * reduce and bcast the suffix may be left out: `binomial` is
 * binomial-reduce or binomial-bcast); for allreduce, a reduce NAME needs
 * '+' BCAST (both may be short: `binomial+chain`).  KEY=VALUE are the
 * pathmap's algo parameters with the same ranges, and each must be read by
 * the chosen generators (rt_algo_takes): segments=N (1..16777216),
 * segsize=B (in BYTES here, 1..1T: the element size comes with each call),
 * round=T (ns, or with a unit: 5us, 2ms, 1s; 1 ns..1 s; default 5000),
 * ppn=N (2..4096), port=u|b, shape=heap|ompi, arrival=equal|history.
 * Refused: root= (the call gives the root) and arrival=edge (it needs the
 * program's edge() calls).  `native` is Open MPI's own algorithm.
 *
 * `auto` (docs/auto.md, docs/paprun.md) chooses per call among candidates,
 * allreduce rows of the table or native, each at most once, at most
 * RT_AUTO_CAND_MAX (default RT_AUTO_DEFAULT_CANDIDATES; nap and ring-seg
 * cannot be candidates: auto gives them no ppn= or segsize=).  round= and
 * segsize= are passed to the candidates and must be read by one of them;
 * arrival= is equal (default) or history.  Its spec has run NULL, native
 * 0, pap 1 and autocfg: rt_auto_cfg_default with the candidates, round_ns,
 * segcount 0 (segsize= is made elements per call) and the net model of
 * rt_auto_net_default (PAPTREE_NET, read once per parse, when the first
 * auto case is parsed: its error is the parse's).
 *
 * Matching: the rules are tried in order; the first rule for the
 * collective whose NP holds the communicator size and one of whose cases
 * holds the bytes decides (its first such case).  Nothing matches: native.
 * Overlaps are allowed: the earlier rule or case wins.
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
#include "runtime/api/rt_sim.h"

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
 * Parses `text` (NULL is taken as "").  Errors are located in `origin`
 * ("--algo", "PAPTREE_ALGO", a file name) at the line (1 unless the text
 * has line breaks) and column (in bytes, from 1) of the offending
 * character: `origin:1:COL: error: ...`; the codes are CM_ERR_SYNTAX,
 * CM_ERR_RANGE, CM_ERR_NAME (unknown collective, algorithm or parameter),
 * CM_ERR_INVALID (an algorithm of another collective, root=, auto for reduce
 * or bcast, a candidate given twice or one auto cannot run),
 * CM_ERR_UNSUPPORTED (arrival=edge, greedy with port=b) and CM_ERR_NOMEM;
 * an auto case whose PAPTREE_NET cannot be read fails with rt_net_read's
 * error (located in that file).
 * An empty or all-blank text is a valid empty rule set (everything
 * native).  On success *rules_p is the caller's, freed with
 * ip_rules_free; on failure it is untouched.  The parsed rules are
 * read-only: any number of threads may match at once.
 */
cm_status_t ip_rules_parse(const char *text, const char *origin, ip_rules_t **rules_p,
                           cm_err_t *err);
void ip_rules_free(ip_rules_t *rules);

/* The choice for one call; NULL when no rule matches (native).  rules
   may be NULL (no rules).  The choice lives as long as the rules. */
const ip_choice_t *ip_rules_match(const ip_rules_t *rules, ip_rule_coll_t coll,
                                  int32_t comm_size, uint64_t bytes);

/* Number of rules (0 = pass-through), and a 64-bit hash of the normalised
 * rule set (the same rules spelt with other spaces hash alike), which the
 * library compares across ranks at MPI_Init. */
uint32_t ip_rules_count(const ip_rules_t *rules);
uint64_t ip_rules_hash(const ip_rules_t *rules);

/* The normalised rule set that ip_rules_hash hashes: full algorithm
 * names, sizes as byte ranges, every parameter the generators read with
 * its value (defaults included), e.g.
 * "allreduce@1-2147483647:0-65536=rd,>=65537=ring".  It is rules text
 * itself and parses back to the same normal form.  Owned by rules. */
const char *ip_rules_normal(const ip_rules_t *rules);

/* The auto cases' configurations (rt_auto_cfg_hash, the net model
 * included) combined in order; 0 when no case is auto.  The library
 * compares it across ranks at MPI_Init beside ip_rules_hash: the rules
 * text can agree while PAPTREE_NET does not. */
uint64_t ip_rules_auto_hash(const ip_rules_t *rules);

/* The net model of the auto cases (all share it), NULL when none is auto. */
const rt_net_t *ip_rules_net(const ip_rules_t *rules);

/* "allreduce", "reduce", "bcast". */
const char *ip_rule_coll_name(ip_rule_coll_t coll);

#endif /* IP_RULES_H */
