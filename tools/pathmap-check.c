/*
 * pathmap-check - validate pathmaps and summarise them.
 *
 *   pathmap-check [-q] FILE...
 *
 * Exit status: 0 when every file is valid, 1 when one is not (its first
 * error is printed compiler-style on stderr), 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>
#include "runtime/api/rt_pathmap.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: pathmap-check [-q] FILE...\n"
            "Validates each pathmap (docs/pathmap.md) and prints its hosts, trees,\n"
            "wrappers and threads.  Errors are printed as path:line:col: error: ...\n"
            "  -q       print errors only\n"
            "  -h, --help  this text\n"
            "Exit status: 0 all valid, 1 some file invalid, 2 usage error.\n");
}

static uint32_t tree_max_path(const rt_tree_t *tree)
{
    uint32_t longest = 0;

    for (uint32_t i = 0; i < tree->nthreads; i++) {
        uint32_t len = rt_tree_path_len(tree, &tree->threads[i]);
        if (len > longest)
            longest = len;
    }
    return longest;
}

static void summarise(const rt_pathmap_t *pm)
{
    printf("%s: ok: %u hosts, %u trees\n", pm->path, pm->nhosts, pm->ntrees);
    for (uint32_t i = 0; i < pm->ntrees; i++) {
        const rt_tree_t *t = &pm->trees[i];
        uint32_t count[3] = { 0, 0, 0 };

        for (uint32_t n = 0; n < t->nnodes; n++)
            count[t->nodes[n].kind]++;
        printf("  tree %s: %s %s, %u threads, %u core, %u gred, %u proxy, "
               "longest path %u wrappers\n", t->name, rt_dtype_name(t->dtype),
               rt_op_name(t->op), t->nthreads, count[RT_NODE_CORE],
               count[RT_NODE_GRED], count[RT_NODE_PROXY], tree_max_path(t));
    }
}

int main(int argc, char **argv)
{
    int quiet = 0, status = 0, nfiles = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "-q") == 0) {
            quiet = 1;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "pathmap-check: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        nfiles++;
    }
    if (nfiles == 0) {
        usage(stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        rt_pathmap_t *pm;
        cm_err_t err;

        if (argv[i][0] == '-' && argv[i][1] != '\0')
            continue;
        cm_err_clear(&err);
        if (rt_pathmap_load(argv[i], &pm, &err) != CM_OK) {
            cm_err_print(stderr, NULL, &err);
            status = 1;
            continue;
        }
        if (!quiet)
            summarise(pm);
        rt_pathmap_destroy(pm);
    }
    return status;
}
