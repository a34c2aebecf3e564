/*
 * cm_err.h - an error that carries where it came from.
 *
 * Parsers and loaders take a cm_err_t *err as their last argument.  The
 * function that detects a problem fills it once (status, the input's
 * path:line:col, a message, and the C file:line that detected it); callers
 * only pass the status up.  Printed compiler-style:
 *
 *   pathmaps/x.pathmap:14:9: error: unknown host 'h9' [runtime/core/pathmap_parse.c:212]
 *
 * line == 0 means "the file as a whole" and col == 0 "the line as a whole";
 * they are then left out of the printed location.
 */
#ifndef CM_ERR_H
#define CM_ERR_H

#include <limits.h>
#include <stdio.h>
#include "common/cm_status.h"

/* A whole path (PATH_MAX counts the NUL): the message must name a file
 * that exists, so a deep path is never cut. */
#define CM_ERR_PATH_MAX PATH_MAX
#define CM_ERR_MSG_MAX  512

typedef struct cm_err {
    cm_status_t status;
    char        path[CM_ERR_PATH_MAX]; /* input file, "" when none */
    unsigned    line;                  /* 1-based; 0 = whole file */
    unsigned    col;                   /* 1-based; 0 = whole line */
    char        msg[CM_ERR_MSG_MAX];
    const char *src_file;              /* __FILE__ that detected it */
    int         src_line;
} cm_err_t;

/* Resets err to "no error". */
void cm_err_clear(cm_err_t *err);

/*
 * Fills err (if err is not NULL) and returns status, so that detection reads
 * `return CM_ERR_AT(err, CM_ERR_SYNTAX, path, line, col, "...", ...);`.
 * path may be NULL.  Use the macros, which capture __FILE__/__LINE__.
 */
cm_status_t cm_err_set(cm_err_t *err, cm_status_t status, const char *path,
                       unsigned line, unsigned col, const char *src_file,
                       int src_line, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

#define CM_ERR_AT(err, status, path, line, col, ...)                        \
    cm_err_set((err), (status), (path), (line), (col), __FILE__, __LINE__,  \
               __VA_ARGS__)
#define CM_ERR(err, status, ...)                                            \
    cm_err_set((err), (status), NULL, 0, 0, __FILE__, __LINE__, __VA_ARGS__)

/*
 * Writes "path:line:col: error: msg\n" to fp, the one way every program
 * prints an error; with PAPTREE_DEBUG set (cm_err_debug) it adds the C
 * source that detected it: "... msg [runtime/core/pathmap_parse.c:922]".
 * `prefix`, when not NULL, is written first (a program name, "rank 3: ").
 */
void cm_err_print(FILE *fp, const char *prefix, const cm_err_t *err);

/* 1 if PAPTREE_DEBUG is set to anything but "" or "0": errors name their C source. */
int cm_err_debug(void);

/* The same text without the trailing [src:line] and newline, into buf. */
void cm_err_format(const cm_err_t *err, char *buf, size_t size);

#endif /* CM_ERR_H */
