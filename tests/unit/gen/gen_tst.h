/*
 * gen_tst.h - helpers of the gen/ unit tests (tests/unit/gen/): read a
 * file whole, take a sample pathmap's header block, and build small trees.
 */
#ifndef GEN_TST_H
#define GEN_TST_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tst.h"
#include "gen/api/gen_map.h"

/* The whole file (malloc'd, NUL-terminated); fails the test if unreadable. */
static inline char *gtst_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s;
    long n;

    if (f == NULL)
        TST_FAIL("%s: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        TST_FAIL("%s: cannot seek", path);
    s = malloc((size_t)n + 1);
    if (s == NULL || fread(s, 1, (size_t)n, f) != (size_t)n)
        TST_FAIL("%s: cannot read", path);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Adds the comment lines at the top of `text` (up to the first line that is
 * not a comment) to m's header, without their "# " ("#" alone: ""). */
static inline void gtst_header_from(gen_map_t *m, const char *text)
{
    const char *p = text, *e;

    while (*p == '#') {
        e = strchr(p, '\n');
        if (e == NULL)
            TST_FAIL("header line without newline");
        if (e - p == 1)
            TST_EQ_INT(gen_map_header_add(m, "%s", ""), 0);
        else
            TST_EQ_INT(gen_map_header_add(m, "%.*s", (int)(e - p - 2), p + 2), 0);
        p = e + 1;
    }
}

#endif /* GEN_TST_H */
