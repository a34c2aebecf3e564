/*
 * an_analyze.h - papanalyze as a library: a trace into a database, and the
 * report from a database.  bin/papanalyze is a thin command line over it.
 */
#ifndef AN_ANALYZE_H
#define AN_ANALYZE_H

#include <stdint.h>
#include <stdio.h>
#include "common/cm_err.h"

typedef struct an_opts {
    const char *trace;        /* the archive's anchor, DIR/traces.otf2 */
    const char *db;           /* output; NULL: the anchor with .otf2 replaced by .db */
    uint64_t    skip;         /* operations left out of the statistics per series */
    int         force;        /* replace a file that is not a papanalyze database */
    int         progress;     /* progress lines on stderr for long traces */
    int         read_threads; /* --read-threads: OTF2 readers, each over a share of the
                                 locations; 0: one per core but one (1 on 2 cores), at
                                 most one per location */
    /* The part of the trace to analyse (docs/analysis-db.md, "Large traces"). */
    int         ops_part;     /* 1: only operations op_first..op_last (--ops A:B,
                                 inclusive); 0 (a zeroed an_opts_t): all of them */
    uint64_t    op_first, op_last;  /* tree traces: the op; application traces: seq on
                                       each communicator */
    const int  *ranks;        /* --ranks: world ranks (tree traces: hosts) to read,
                                 nranks of them, ascending; NULL: all */
    int         nranks;
    const char *call_site;    /* --call-site: application traces, the calls of one site
                                 (its label file:line, function or MODULE+0xOFF); NULL */
    const char *command;      /* recorded in meta.papanalyze */
    const char *baseline;     /* --baseline: a database of the same program run with a
                                 fixed algorithm, for auto's measured regret; or NULL */
} an_opts_t;

typedef struct an_result {
    char     db[4096];        /* the database written */
    uint64_t events, visits, ops, ops_used;
    uint64_t events_read;     /* events decoded: fewer than events when --ops skipped some */
    double   seconds;         /* reading and writing, wall clock */
} an_result_t;

cm_status_t an_analyze(const an_opts_t *opts, an_result_t *res, cm_err_t *err);

typedef enum { AN_FMT_TEXT, AN_FMT_CSV, AN_FMT_JSON } an_format_t;

typedef struct an_report_opts {
    an_format_t format;
    int         thread;       /* Table 2's thread (pathmap number), -1: the slowest */
    const char *wrapper;      /* Table 1 and the subtree table for this wrapper only */
} an_report_opts_t;

/* Prints the report of a database written by an_analyze. */
cm_status_t an_report(const char *db, const an_report_opts_t *opts, FILE *out,
                      cm_err_t *err);

/* 1 if the file at path starts like an SQLite database (it may still not be
 * one papanalyze wrote), 0 otherwise or if it cannot be read. */
int an_is_database(const char *path);

/* 1 if the file at path is a papanalyze database of an application trace
 * (meta kind = 'mpi': the profiling library's archive), 0 otherwise or if it
 * cannot be read.  Its report holds its advice (--algo rules). */
int an_is_mpi_database(const char *path);

/* Refuses path (CM_ERR_IO, message naming it) unless it exists and is a
 * regular file: a FIFO or device is refused before anything opens it (a
 * FIFO without a writer would block the reader).  dir_hint, if not NULL, is
 * added to the message for a directory. */
cm_status_t an_check_input(const char *path, const char *dir_hint, cm_err_t *err);

/* Refuses (CM_ERR_INVALID) an output that exists and is the same file
 * (device and inode: through symlinks too) as one of the n inputs. */
cm_status_t an_check_not_input(const char *output, const char *const *inputs, int n,
                               cm_err_t *err);

#endif /* AN_ANALYZE_H */
