/*
 * compare.c - `pathgen compare A B [--names] [--tree NAME]`: are two
 * pathmaps the same tree (gen_map_equal)?
 *
 * Both files are read with gen_map_load (the runtime's parser validates
 * them; its errors are printed as path:line:col).  Equal: "same tree" on
 * stdout, exit 0.  Different: the first difference on stderr, exit 1; a
 * file that does not load is exit 1 too.  Usage errors exit 2.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "common/cm_opt.h"
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

/* Prints ctx's error and the usage line; returns 2. */
static int usage_fail(const cm_opt_t *ctx)
{
    cm_opt_print(ctx, stderr);
    fprintf(stderr, "usage: pathgen compare A B [--names] [--tree NAME] (--help)\n");
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
    static const struct option longopts[] = {
        { "names", no_argument, NULL, 'N' }, { "tree", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
    const char *files[2] = { NULL, NULL }, *tree = NULL;
    int names = 0, nfiles = 0, c, rc;
    const char *opt;
    cm_opt_t ctx;
    gen_map_t *a, *b;
    char why[512];

    cm_opt_init(&ctx, "pathgen: compare");
    optind = 1;
    /* '-': the files come back in order as option 1, wherever the options are. */
    while ((c = cm_opt_next(&ctx, argc, argv, "-:h", longopts, &opt)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'N': names = 1; break;
        case 't': tree = optarg; break;
        default:
            if (nfiles == 2)
                cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "one file too many: '%s'", optarg);
            else
                files[nfiles++] = optarg;
            break;
        }
    }
    while (ctx.status == CM_OK && optind < argc && nfiles < 2)     /* after "--" */
        files[nfiles++] = argv[optind++];
    /* (cm_opt keeps the first error: these add nothing after another) */
    if (optind < argc)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "one file too many: '%s'", argv[optind]);
    else if (nfiles != 2)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "needs two pathmaps, A and B");
    if (ctx.status != CM_OK)
        return usage_fail(&ctx);
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
