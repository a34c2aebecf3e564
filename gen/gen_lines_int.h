/*
 * gen_lines_int.h - the line reader of pathgen's mapping files (gen/gen_lines.c),
 * shared by the three readers of gen/gen_input.c and gen/gen_input_map.c.
 *
 * The files are line-oriented like pathmaps: `#` starts a comment, words
 * are separated by spaces or tabs, a parameter is `key=value`.  The reader
 * keeps each word's column so that every error is path:line:col.
 */
#ifndef GEN_LINES_INT_H
#define GEN_LINES_INT_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"

#define GEN_LINE_WORDS 32

typedef struct gen_lines {
    const char *path;
    char       *text;        /* the whole file, NUL-terminated, cut into words */
    size_t      len, pos;
    unsigned    line;        /* of the current line, 1-based */
    char       *word[GEN_LINE_WORDS];
    unsigned    col[GEN_LINE_WORDS];
    int         nwords;
} gen_lines_t;

/* Reads the file (at most 16 MiB).  CM_ERR_IO with the path on failure. */
cm_status_t gen_lines_open(gen_lines_t *r, const char *path, cm_err_t *err);
void gen_lines_close(gen_lines_t *r);
/* The next line with words: 1, or 0 at the end; -1 with err set (a line of
 * too many words, a control character). */
int gen_lines_next(gen_lines_t *r, cm_err_t *err);

/* An error at word w of the current line (w < 0: the line as a whole). */
cm_status_t gen_lines_err(const gen_lines_t *r, int w, cm_status_t st, cm_err_t *err,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* An error at line:col (line 0: the whole file). */
cm_status_t gen_lines_err_at(const char *path, unsigned line, unsigned col, cm_status_t st,
                             cm_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* 1 if s is a pathmap name: a letter or _, then letters, digits, _ - or .;
 * at most 63 bytes. */
int gen_name_ok(const char *s);
/* Parses a decimal number from lo to hi; 0, or -1. */
int gen_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v);
/* Splits word w "key=value": the value, or NULL when there is no '='; *col_p
 * gets the value's column. */
const char *gen_lines_value(const gen_lines_t *r, int w, const char *key, unsigned *col_p);

#endif /* GEN_LINES_INT_H */
