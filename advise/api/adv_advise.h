/*
 * adv_advise.h - advice from a database (papanalyze --advise, pathgen
 * advise; docs/pathgen.md "Advice"): the reconfigurations its hotspots point
 * at, in the reasoning of sections 6 and 7 of the PATHS/EventSpace paper,
 * best first, each a typed pathgen edit (gen/api/gen_edit.h) that the user
 * can run as text:
 *   - a gred whose up latency and departure waits dominate (its
 *     contributors leave one after another): add a level to its subtree;
 *   - a subtree whose levels add latency but whose greds have few
 *     contributors: remove a level;
 *   - proxy stages that dominate threads' time: fewer proxy hops (move a
 *     split wrapper back, remove a link) or an algorithm node across;
 *   - a cluster-root subtree whose host is loaded (its host subtree slower
 *     than the others'): split it (move toplevel wrappers to other hosts);
 *   - a host whose subtree arrives last in most operations, so every other
 *     host waits for it: make it the root host; a gred whose one contributor
 *     from another host arrives last: move the gred there.
 *
 * The advice layer sits above analyze (it reads the database through
 * analyze/api/: the model and an_arrivals.h; analyze owns every query) and
 * gen (it produces gen_edit_t values, which gen renders as text).
 */
#ifndef ADV_ADVISE_H
#define ADV_ADVISE_H

#include <stdio.h>
#include "common/cm_err.h"
#include "analyze/api/an_analyze.h"
#include "gen/api/gen_edit.h"

/* One piece of advice.  The rule that made it is the edit's operator
 * (gen_edit_op_name(edit.op): "add-level", "remove-level", "remove-link",
 * "unsplit", "split", "algo", "root", "move"). */
typedef struct adv_advice {
    int        rank;          /* 1 = best */
    gen_edit_t edit;          /* the pathgen edit: add-level h0 */
    double     gain_ns;       /* the time per allreduce the hotspot costs (an upper
                                 bound of what the edit can save), ns */
    char       reason[512];   /* one or two sentences, with the figures */
} adv_advice_t;

typedef struct adv_opts {
    an_format_t  format;      /* AN_FMT_TEXT: reasons and commands; AN_FMT_CSV: rows */
    const char  *pathmap;     /* the file the commands edit; NULL: meta.pathmap_path */
    int          max;         /* at most this many, 0: all */
} adv_opts_t;

/*
 * Computes the advice of a database into *advice_p (malloc'd, caller frees
 * with free) and *n_p, ranked; no advice is CM_OK with *n_p = 0.  Refuses
 * what an_model_open refuses, and a database with no operation left
 * (CM_ERR_INVALID).  Not thread-safe on one database (SQLite reads only).
 */
cm_status_t adv_advise_compute(const char *db, adv_advice_t **advice_p, int *n_p,
                               cm_err_t *err);

/*
 * Computes and prints it to out: text ("advice 1: EDIT", "  gain: ...",
 * "  why: ...", "  run: pathgen edit PATHMAP EDIT -o NEW.pathmap"; no advice:
 * one line saying so) or CSV (rank,rule,gain_us,edit,reason; the header
 * alone when there is none).  CM_ERR_INVALID for another format.
 */
cm_status_t adv_advise(const char *db, const adv_opts_t *opts, FILE *out, cm_err_t *err);

#endif /* ADV_ADVISE_H */
