/*
 * compare.c - `pathgen compare A B [--names] [--tree NAME]`: are two
 * pathmaps the same tree (gen_map_equal)?
 *
 * Both files are read with gen_map_load (the runtime's parser validates
 * them; its errors are printed as path:line:col).  Equal: "same tree" on
 * stdout, exit 0.  Different: the first difference on stderr, exit 1; a
 * file that does not load is exit 1 too.  Usage errors exit 2.
 */
#include <stdio.h>
#include <string.h>
#include "tools/pathgen/pathgen_int.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: pathgen compare A B [--names] [--tree NAME]\n"
"Exit 0 if pathmaps A and B are the same tree: the same number of hosts,\n"
"type and op, and nodes that match one to one from the roots down - the same\n"
"kind, host (by index) and parameters, the same contributors (threads by id)\n"
"reached through proxies on the same hosts.  Names and comments are ignored.\n"
"Otherwise exit 1 with the first difference on stderr (wrappers named as in A).\n"
"\n"
"  --names      wrapper and tree names must be equal too\n"
"  --tree NAME  compare the trees called NAME (needed when a file has several)\n"
"  -h, --help   this text\n"
"Exit status: 0 same tree, 1 different or a file that does not load, 2 usage.\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "pathgen: compare: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: pathgen compare A B [--names] [--tree NAME] (--help)\n");
    return 2;
}

static gen_map_t *load(const char *path, const char *tree)
{
    gen_map_t *m = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (gen_map_load(path, tree, &m, &err) != CM_OK) {
        cm_err_print(stderr, NULL, &err);
        return NULL;
    }
    return m;
}

int pg_compare_main(int argc, char **argv)
{
    const char *files[2] = { NULL, NULL }, *tree = NULL;
    int names = 0, nfiles = 0, i, rc;
    gen_map_t *a, *b;
    char why[512];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--names") == 0)
            names = 1;
        else if (strcmp(argv[i], "--tree") == 0) {
            if (++i == argc)
                return bad_usage("%s needs a tree name", "--tree");
            tree = argv[i];
        } else if (strncmp(argv[i], "--tree=", 7) == 0)
            tree = argv[i] + 7;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return bad_usage("unknown option '%s'", argv[i]);
        else if (nfiles == 2)
            return bad_usage("one file too many: '%s'", argv[i]);
        else
            files[nfiles++] = argv[i];
    }
    if (nfiles != 2)
        return bad_usage("%s", "needs two pathmaps, A and B");
    a = load(files[0], tree);
    b = a != NULL ? load(files[1], tree) : NULL;
    if (a == NULL || b == NULL) {
        gen_map_destroy(a);
        return 1;
    }
    if (gen_map_equal(a, b, names, why, sizeof(why))) {
        printf("same tree: %s %s\n", files[0], files[1]);
        rc = 0;
    } else {
        fprintf(stderr, "pathgen: compare: %s (a) and %s (b) differ: %s\n", files[0], files[1],
                why);
        rc = 1;
    }
    gen_map_destroy(a);
    gen_map_destroy(b);
    return rc;
}
