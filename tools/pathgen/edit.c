/* tools/pathgen/edit.c - pathgen edit (placeholder until its helper lands). */
#include <stdio.h>
#include "tools/pathgen/pathgen.h"

int pg_edit_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "pathgen: edit: not built yet\n");
    return 2;
}
