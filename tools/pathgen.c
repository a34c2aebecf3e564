/*
 * pathgen - build, reshape and compare pathmaps (docs/pathgen.md).
 *
 *   pathgen [generate] OPTIONS          an initial tree from the three mappings
 *                                       or --hosts H --threads-per-host T
 *   pathgen edit FILE OP [ARGS] ...     a reconfiguration of an existing pathmap
 *   pathgen compare A B                 are two pathmaps the same tree?
 *   pathgen advise DB                   the edits a papanalyze database points at
 *
 * Exit status: 0 done (compare: equal), 1 bad input or failure (compare:
 * different), 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cm_opt.h"
#include "tools/pathgen/pathgen_int.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: pathgen [generate] [options]       an initial pathmap (pathgen generate --help)\n"
"       pathgen edit FILE OP [ARGS]... [-o OUT]   reconfigure a pathmap (pathgen edit --help)\n"
"       pathgen compare A B [--names] [--tree NAME]   exit 0 if A and B are the same tree\n"
"       pathgen advise DB [--format text|csv] [--max N] [--pathmap FILE]\n"
"                                          the edits a papanalyze database advises\n"
"Builds allreduce trees as the PATHS generator did (PATHS/EventSpace paper,\n"
"section 3.1) and applies the reconfigurations of its section 6.  Formats,\n"
"shapes, operators and examples: docs/pathgen.md.\n"
"\n"
"  -h, --help    this text (each subcommand has its own --help)\n"
"Exit status: 0 done, 1 bad input or failure (nothing written), 2 usage.\n");
}

int pg_output(const char *out, const char *text, int force)
{
    size_t len = strlen(text);
    char tmp[4096];
    FILE *fp;
    int fd;

    if (out == NULL || strcmp(out, "-") == 0) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
            fprintf(stderr, "pathgen: writing stdout: %s\n", strerror(errno));
            return 1;
        }
        return 0;
    }
    if (!force && access(out, F_OK) == 0) {
        fprintf(stderr, "pathgen: %s: exists; give --force to replace it\n", out);
        return 1;
    }
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.partial-XXXXXX", out) >= sizeof(tmp)) {
        fprintf(stderr, "pathgen: %s: path too long\n", out);
        return 1;
    }
    if ((fd = mkstemp(tmp)) < 0) {
        fprintf(stderr, "pathgen: %s: cannot create a file beside it: %s\n", out,
                strerror(errno));
        return 1;
    }
    if ((fp = fdopen(fd, "w")) == NULL) {
        close(fd);
        unlink(tmp);
        fprintf(stderr, "pathgen: %s: %s\n", out, strerror(errno));
        return 1;
    }
    if (fwrite(text, 1, len, fp) != len || fclose(fp) != 0 || rename(tmp, out) != 0) {
        fprintf(stderr, "pathgen: %s: %s\n", out, strerror(errno));
        unlink(tmp);
        return 1;
    }
    return 0;
}

int pg_write_map(const gen_map_t *m, const char *out, int force)
{
    char *text = NULL;
    cm_err_t err;
    int rc;

    cm_err_clear(&err);
    if (gen_map_render(m, &text, &err) != CM_OK) {
        cm_err_print(stderr, "pathgen: internal error: the tree made does not validate: ", &err);
        return 1;
    }
    rc = pg_output(out, text, force);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    static const cm_opt_word_t subcommands[] = {
        { "generate", 0 }, { "edit", 1 }, { "compare", 2 }, { "advise", 3 } };
    static int (*const mains[])(int, char **) = {
        pg_generate_main, pg_edit_main, pg_compare_main, pg_advise_main };
    cm_opt_t ctx;
    int k;

    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (argv[1][0] != '-') {
        cm_opt_init(&ctx, "pathgen");
        if (cm_opt_word(&ctx, "subcommand", argv[1], subcommands, 4, &k) != CM_OK) {
            cm_opt_print(&ctx, stderr);
            usage(stderr);
            return 2;
        }
        return mains[k](argc - 1, argv + 1);
    }
    /* options without a subcommand: generate */
    argv[0] = (char *)"generate";
    return pg_generate_main(argc, argv);
}
