/*
 * cm_argv.h - a program's arguments as one line (what gsum records in a
 * trace and papanalyze in its database, so a result says how it was made).
 */
#ifndef CM_ARGV_H
#define CM_ARGV_H

/* argv[0..argc) joined by single spaces, malloc'd; NULL if out of memory. */
char *cm_argv_join(int argc, char *const argv[]);

#endif /* CM_ARGV_H */
