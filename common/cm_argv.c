/* cm_argv.c - see cm_argv.h. */
#include <stdlib.h>
#include <string.h>
#include "common/cm_argv.h"

char *cm_argv_join(int argc, char *const argv[])
{
    size_t len = 1, at = 0;
    char *s;

    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    if ((s = malloc(len)) == NULL)
        return NULL;
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]);
        memcpy(s + at, argv[i], n);
        at += n;
        if (i + 1 < argc)
            s[at++] = ' ';
    }
    s[at] = '\0';
    return s;
}
