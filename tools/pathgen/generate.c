/* tools/pathgen/generate.c - pathgen generate (placeholder until its helper lands). */
#include <stdio.h>
#include "tools/pathgen/pathgen.h"

int pg_generate_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "pathgen: generate: not built yet\n");
    return 2;
}
