/* tools/pathgen/compare.c - pathgen compare (placeholder until its helper lands). */
#include <stdio.h>
#include "tools/pathgen/pathgen.h"

int pg_compare_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "pathgen: compare: not built yet\n");
    return 2;
}
