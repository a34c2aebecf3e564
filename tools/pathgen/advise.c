/* tools/pathgen/advise.c - pathgen advise (placeholder until its helper lands). */
#include <stdio.h>
#include "tools/pathgen/pathgen.h"

int pg_advise_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "pathgen: advise: not built yet\n");
    return 2;
}
