/*
 * tools/pathgen/advise.c - pathgen advise DB: the reconfigurations a
 * papanalyze database points at, as pathgen edits (docs/pathgen.md,
 * "Advice").  A thin command line over adv_advise (advise/api/adv_advise.h),
 * which owns the rules; analyze owns the SQL.
 *
 * Exit status: 0 (advice or none), 1 a database it cannot read, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/api/adv_advise.h"
#include "analyze/api/an_analyze.h"
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
    cm_err_t err;
    int c;

    cm_err_clear(&err);
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:n:p:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'p':
            opts.pathmap = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "text") == 0)
                opts.format = AN_FMT_TEXT;
            else if (strcmp(optarg, "csv") == 0)
                opts.format = AN_FMT_CSV;
            else {
                fprintf(stderr, "pathgen: advise: --format %s: expected text or csv\n", optarg);
                usage(stderr);
                return 2;
            }
            break;
        case 'n': {
            char *end;
            long v;
            errno = 0;
            v = strtol(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0' || v < 1 || v > 1000000) {
                fprintf(stderr, "pathgen: advise: --max %s: expected a number >= 1\n", optarg);
                usage(stderr);
                return 2;
            }
            opts.max = (int)v;
            break;
        }
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "pathgen: advise: %s\n", optind >= argc ? "no database given"
                                                                : "give one database");
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
