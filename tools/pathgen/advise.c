/*
 * tools/pathgen/advise.c - pathgen advise DB: the reconfigurations a
 * papanalyze database points at, as pathgen edits (docs/pathgen.md,
 * "Advice").  A thin command line over adv_advise (advise/api/adv_advise.h),
 * which owns the rules; analyze owns the SQL.
 *
 * Exit status: 0 (advice or none), 1 a database it cannot read, 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/api/adv_advise.h"
#include "analyze/api/an_analyze.h"
#include "common/cm_opt.h"
#include "tools/pathgen/pathgen_int.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: pathgen advise DB [--format text|csv] [--max N] [--pathmap FILE]\n"
"Reads a database written by papanalyze and prints the reconfigurations its\n"
"hotspots point at (the reasoning of sections 6 and 7 of the PATHS/EventSpace\n"
"paper), best first: each as a `pathgen edit` command, with the time per\n"
"allreduce its hotspot accounts for (an upper bound of the saving) and the\n"
"figures behind it.  Rules and thresholds: docs/pathgen.md, \"Advice\".\n"
"\n"
"  -f, --format FMT   text (default) or csv (rank,rule,gain_us,edit,reason)\n"
"  -n, --max N        at most N pieces of advice (default: all)\n"
"  -p, --pathmap FILE the pathmap the commands edit (default: the traced one,\n"
"                     meta pathmap_path)\n"
"  -h, --help         this text\n"
"No advice: one line saying so (csv: the header only), exit 0.\n"
"Exit status: 0 done, 1 a database that cannot be read, 2 usage error.\n");
}

int pg_advise_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' }, { "max", required_argument, NULL, 'n' },
        { "pathmap", required_argument, NULL, 'p' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    adv_opts_t opts = { .format = AN_FMT_TEXT };
    static const cm_opt_word_t formats[] = { { "text", AN_FMT_TEXT }, { "csv", AN_FMT_CSV } };
    cm_err_t err;
    const char *opt;
    cm_opt_t ctx;
    int c, w;

    cm_err_clear(&err);
    cm_opt_init(&ctx, "pathgen: advise");
    optind = 1;
    while ((c = cm_opt_next(&ctx, argc, argv, ":f:n:p:h", longopts, &opt)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'p': opts.pathmap = optarg; break;
        case 'f':
            if (cm_opt_word(&ctx, opt, optarg, formats, 2, &w) == CM_OK)
                opts.format = (an_format_t)w;
            break;
        default:
            cm_opt_int(&ctx, opt, optarg, 1, 1000000, &opts.max);
            break;
        }
    }
    if (ctx.status == CM_OK && optind != argc - 1)
        cm_opt_fail(&ctx, CM_ERR_INVALID, NULL, "%s", optind >= argc ? "no database given"
                                                                     : "give one database");
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        usage(stderr);
        return 2;
    }
    if (an_check_input(argv[optind], NULL, &err) != CM_OK) {
        cm_err_print(stderr, "pathgen: advise: ", &err);
        return 1;
    }
    if (adv_advise(argv[optind], &opts, stdout, &err) != CM_OK) {
        fflush(stdout);
        cm_err_print(stderr, "pathgen: advise: ", &err);
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
