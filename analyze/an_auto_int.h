/*
 * an_auto_int.h - what `auto` chose, read from either kind of trace
 * (ins_schema.h, "what `auto` chose") and written to the auto_* tables
 * (docs/analysis-db.md, "Algorithm choices").
 *
 * The tree reader (an_read_events.c) and the application reader
 * (an_mpi_read.c) resolve the choice's attributes by name
 * (an__auto_attr_slot), parse each choice with an__auto_parse and collect
 * them; an__auto_write stores them once the operations' tables exist, and
 * derives the per-operation and per-class tables from them.
 */
#ifndef AN_AUTO_INT_H
#define AN_AUTO_INT_H

#include <stddef.h>
#include <stdint.h>
#include <otf2/otf2.h>
#include <sqlite3.h>
#include "common/cm_err.h"
#include "instrument/api/ins_schema.h"

/* Attribute slots: candidates, reason, spread, skipped, pred0..7, corr0..7. */
enum { AN_AUTO_CANDS, AN_AUTO_REASON, AN_AUTO_SPREAD, AN_AUTO_SKIPPED, AN_AUTO_PRED0,
       AN_AUTO_CORR0 = AN_AUTO_PRED0 + INS_AUTO_CAND_MAX,
       AN_AUTO_NATTR = AN_AUTO_CORR0 + INS_AUTO_CAND_MAX };

#define AN_AUTO_NAME_MAX 32
#define AN_AUTO_LIST_MAX (INS_AUTO_CAND_MAX * AN_AUTO_NAME_MAX)

typedef enum { AN_AUTO_TREE, AN_AUTO_MPI } an_auto_kind_t;

/* One rank's record of one choice. */
typedef struct an_auto_rec {
    int64_t  instance;        /* tree: the tree instance; mpi: the communicator id */
    int64_t  op;              /* tree: the operation; mpi: the call's seq on comm */
    int64_t  call;            /* mpi: the mpi_calls row; -1 for tree */
    int32_t  rank;
    uint64_t bytes;           /* tree: the tuple; mpi: the rank's message */
    char     chosen[AN_AUTO_NAME_MAX];
    char     reason[AN_AUTO_NAME_MAX];
    char     cands[AN_AUTO_LIST_MAX];
    int64_t  spread;
    uint64_t skipped;
    uint32_t ncand;
    char     name[INS_AUTO_CAND_MAX][AN_AUTO_NAME_MAX];
    int64_t  pred[INS_AUTO_CAND_MAX], corr[INS_AUTO_CAND_MAX];   /* -1: absent */
} an_auto_rec_t;

typedef struct an_auto {
    an_auto_rec_t *r;
    size_t         n, cap;
} an_auto_t;

/* The slot of attribute `name` of `type`, or -1 if it is not a choice's. */
int an__auto_attr_slot(const char *name, OTF2_Type type);

/*
 * The choice on an event whose attribute list is al: ids[] the archive's
 * ids of the slots (UINT32_MAX: not defined), chosen the chosen name (the
 * parameter's value, or the application's algo attribute), str() the
 * archive's strings.  1: rec filled (but instance, op, call, rank, bytes);
 * 0: the event has no choice; -1: a damaged choice (*why says what).
 */
int an__auto_parse(an_auto_rec_t *rec, OTF2_AttributeList *al, const uint32_t *ids,
                   const char *chosen, const char *(*str)(void *ctx, OTF2_StringRef ref),
                   void *ctx, const char **why);

/* Appends a copy of rec; -1 when out of memory. */
int an__auto_add(an_auto_t *a, const an_auto_rec_t *rec);
void an__auto_free(an_auto_t *a);

/*
 * The tables auto_choices, auto_preds (every record), auto_ops (one row
 * per operation: its site, size class, choice, agreement, regret and
 * measured time, from algo_ops or mpi_ops, which must exist) and
 * auto_summary (per site, size class and chosen candidate).  Nothing when
 * a has no record.  `site` names a tree trace's node.
 */
cm_status_t an__auto_write(sqlite3 *db, const an_auto_t *a, an_auto_kind_t kind,
                           const char *site, cm_err_t *err);

/*
 * With papanalyze --baseline DB: per site and size class of db's auto_ops,
 * the baseline database's mean measured time of its operations at the same
 * site and size class (an application trace's call sites by label, a tree
 * trace's algorithm node by name), into auto_baseline.  CM_ERR_INVALID when
 * the baseline is not a papanalyze database of the same kind, or shares no
 * site and size class with db.
 */
cm_status_t an__auto_baseline(sqlite3 *db, const char *baseline, cm_err_t *err);

/* floor(log2(bytes)), 0 for bytes < 2: the size part of a chooser's class. */
int an__auto_size_class(uint64_t bytes);

#endif /* AN_AUTO_INT_H */
