/*
 * pathmap-check - validate pathmaps and summarise them.
 *
 *   pathmap-check [-q] FILE...
 *
 * Exit status: 0 when every file is valid, 1 when one is not (its first
 * error is printed compiler-style on stderr), 2 on a usage error.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "common/cm_opt.h"
#include "runtime/api/rt_auto.h"
#include "runtime/api/rt_pathmap.h"

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: pathmap-check [-q] FILE...\n"
            "Validates each pathmap (docs/pathmap.md) and prints its hosts, trees,\n"
            "wrappers and threads, and each algorithm node's algorithm, parameters\n"
            "and hosts.  Errors are printed as path:line:col: error: ...\n"
            "  -q, --quiet  print errors only\n"
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

/* Whether run or bcast of an algorithm node reads the params field `word`. */
static int algo_reads(const rt_algo_spec_t *spec, const char *word)
{
    const rt_algo_info_t *a[2] = { spec->run, spec->bcast };

    for (int i = 0; i < 2; i++) {
        const char *s = a[i] ? a[i]->params : "";
        size_t n = strlen(word);

        for (; (s = strstr(s, word)) != NULL; s += n) {
            if ((s == a[i]->params || (s[-1] != '_' && !isalnum((unsigned char)s[-1]))) &&
                s[n] != '_' && !isalnum((unsigned char)s[n]))
                return 1;
        }
    }
    return 0;
}

/* "    algo across: run=clv bcast=binomial-bcast root=h0 round=5000 arrival=equal,
 *      4 hosts: h0 h1 h2 h3": the algorithm, every parameter it reads with
 * its value (defaults included), and the hosts in rank order (the first 6
 * and the last when there are more than 8). */
static void summarise_algo(const rt_pathmap_t *pm, const rt_node_t *node)
{
    const rt_algo_spec_t *spec = node->algo;

    printf("    algo %s: run=%s", node->name, rt_algo_spec_name(spec));
    for (uint32_t i = 0; spec->autocfg != NULL && i < spec->autocfg->ncand; i++)
        printf("%s%s", i ? "," : " candidates=", spec->autocfg->cand[i]);
    if (spec->bcast != NULL)
        printf(" bcast=%s", spec->bcast->name);
    if (algo_reads(spec, "root"))
        printf(" root=%s", pm->hosts[spec->hosts[spec->root]].name);
    if (spec->nsegs > 0)
        printf(" segments=%d", (int)spec->nsegs);
    if (spec->segcount > 0)
        printf(" segsize=%lld", (long long)spec->segcount);
    if (algo_reads(spec, "round_len"))
        printf(" round=%lld", (long long)spec->round_ns);
    if (algo_reads(spec, "ppn"))
        printf(" ppn=%d", (int)spec->ppn);
    if (algo_reads(spec, "port"))
        printf(" port=%s", spec->port == RT_PORT_B ? "b" : "u");
    if (algo_reads(spec, "tree"))
        printf(" shape=%s", spec->shape == RT_TREE_OMPI ? "ompi" : "heap");
    if (spec->pap)
        printf(" arrival=%s", rt_arrival_name(spec->arrival));
    /* Up to 8 hosts by name; more as the first 6, "...", the last. */
    printf(", %u hosts:", spec->nhosts);
    for (uint32_t h = 0; h < spec->nhosts; h++) {
        if (spec->nhosts > 8 && h == 6) {
            printf(" ...");
            h = spec->nhosts - 1;
        }
        printf(" %s", pm->hosts[spec->hosts[h]].name);
    }
    printf("\n");
}

static void summarise(const rt_pathmap_t *pm)
{
    printf("%s: ok: %u hosts, %u trees\n", pm->path, pm->nhosts, pm->ntrees);
    for (uint32_t i = 0; i < pm->ntrees; i++) {
        const rt_tree_t *t = &pm->trees[i];
        uint32_t count[CM_KIND_COUNT] = { 0 };

        for (uint32_t n = 0; n < t->nnodes; n++)
            count[t->nodes[n].kind]++;
        printf("  tree %s: %s %s, %u threads, %u core, %u gred, %u proxy, %u algo, "
               "longest path %u wrappers\n", t->name, rt_dtype_name(t->dtype),
               rt_op_name(t->op), t->nthreads, count[RT_NODE_CORE],
               count[RT_NODE_GRED], count[RT_NODE_PROXY], count[RT_NODE_ALGO],
               tree_max_path(t));
        if (rt_tree_algo(t) != NULL)
            summarise_algo(pm, rt_tree_algo(t));
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 } };
    int quiet = 0, status = 0, c;
    const char *opt;
    cm_opt_t ctx;

    cm_opt_init(&ctx, "pathmap-check");
    while ((c = cm_opt_next(&ctx, argc, argv, ":qh", longopts, &opt)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        quiet = 1;                      /* -q */
    }
    if (ctx.status == CM_OK && optind >= argc)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "no pathmap given");
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        usage(stderr);
        return 2;
    }
    /* getopt_long has put the files, in their order, after the options */
    for (int i = optind; i < argc; i++) {
        rt_pathmap_t *pm;
        cm_err_t err;

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
