/*
 * pathgen_int.h - the subcommands of bin/pathgen (tools/pathgen.c dispatches).
 *
 * Each pg_*_main gets the arguments after the subcommand word (argv[0] is
 * the subcommand) and returns the exit status: 0 done, 1 bad input or a
 * failure (nothing written), 2 usage.
 */
#ifndef PATHGEN_INT_H
#define PATHGEN_INT_H

#include "gen/api/gen_map.h"

int pg_generate_main(int argc, char **argv);  /* tools/pathgen/generate.c */
int pg_edit_main(int argc, char **argv);      /* tools/pathgen/edit.c */
int pg_compare_main(int argc, char **argv);   /* tools/pathgen/compare.c */
int pg_advise_main(int argc, char **argv);    /* tools/pathgen/advise.c */

/*
 * Writes a pathmap's text to `out` ("-" or NULL: stdout).  An existing file
 * is refused unless force (nothing is overwritten silently); the text goes
 * to a temporary file beside it, renamed over it when complete.  Prints its
 * own error ("pathgen: OUT: ...") and returns 0 or 1.
 */
int pg_output(const char *out, const char *text, int force);

/* Renders m (gen_map_render: it must validate) and writes it with
 * pg_output; 0 or 1, errors printed. */
int pg_write_map(const gen_map_t *m, const char *out, int force);

#endif /* PATHGEN_INT_H */
