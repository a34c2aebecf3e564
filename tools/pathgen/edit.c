/*
 * tools/pathgen/edit.c - pathgen edit: reconfigure a pathmap with the
 * operators of gen/api/gen_edit.h (docs/pathgen.md, "Reconfiguration").
 *
 *   pathgen edit FILE OP [ARGS] [, OP [ARGS]]... [-o OUT] [--force] [--tree NAME]
 *
 * The words after FILE are cut at each lone "," into operator calls, each
 * parsed into a typed edit (gen_edit_parse_words: the grammar is
 * gen/api/gen_edit.h's), then applied in order to one model
 * (gen_edit_apply, which expands globs such as 'h*'); the first that fails
 * stops the command with its one-line reason and nothing is written.  The
 * options may come anywhere after "edit".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_opt.h"
#include "gen/api/gen_edit.h"
#include "gen/api/gen_map.h"
#include "tools/pathgen/pathgen_int.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: pathgen edit FILE OP [ARGS] [, OP [ARGS]]... [-o OUT] [--force] [--tree NAME]\n"
"Applies reconfiguration operators to a pathmap, in order (a lone ',' separates\n"
"them), and writes the result (stdout by default).  Each operator keeps the\n"
"tree valid or fails with its reason, and adds a header line saying what it did.\n"
"PATHS/EventSpace paper, sections 6 and 7; docs/pathgen.md.\n"
"\n"
"Operators (SUBTREE may be several names or a glob such as 'h*'):\n"
"  add-level SUBTREE... [FANOUT]  group each toplevel gred's contributors into new\n"
"                                 greds of FANOUT (default 0: two halves)\n"
"  remove-level SUBTREE...        remove the toplevel greds of the subtree\n"
"  move WRAPPER HOST              put a gred (or the core) on another host\n"
"  split SPAN [first|last]        move each cluster-root gred of at most SPAN host\n"
"                                 subtrees to its first or last (default) host\n"
"  unsplit                        every cluster-root gred back to the root's host\n"
"  add-link SUBTREE...            a host subtree's bottom gred to its parent's host,\n"
"                                 a network link (proxy pN.k) per contributor\n"
"  remove-link SUBTREE...         undo add-link\n"
"  root HOST                      the core and the cluster-root greds on its host\n"
"                                 move to HOST\n"
"  algo PARAMS...                 an algorithm node 'across' in place of the\n"
"                                 cross-host part (algo run=prr round=2000)\n"
"  merge FILE2 GATEWAY [PA PB] [gateway-root]\n"
"                                 join FILE2's cluster through host GATEWAY under a\n"
"                                 gred mc (prefixes PA., PB. on every wrapper)\n"
"\n"
"  -o OUT        write to OUT (refused if it exists, unless --force)\n"
"  --force       replace OUT\n"
"  --tree NAME   the tree to edit in a file of several\n"
"  -h, --help    this text\n"
"Exit status: 0 done, 1 bad input or an edit that does not apply (nothing\n"
"written), 2 usage.\n");
}

typedef struct opts {
    const char *file, *out, *tree;
    int force;
} opts_t;

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "pathgen edit: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fprintf(stderr, "usage: pathgen edit FILE OP [ARGS] [, OP [ARGS]]... [-o OUT] [--force] "
                    "[--tree NAME]\n");
    return 2;
}

static void print_err(const cm_err_t *err)
{
    char text[CM_ERR_PATH_MAX + CM_ERR_MSG_MAX + 64];

    cm_err_format(err, text, sizeof(text));
    fprintf(stderr, "pathgen: %s\n", text);
}

/* merge FILE2 GATEWAY [PA PB] [gateway-root]: the one operator that loads a
 * second tree, and whose result replaces the model. */
static int op_merge(gen_map_t **m_p, const gen_edit_t *e, const opts_t *o)
{
    const char *file2 = gen_edit_arg(e, 0);
    gen_map_t *b = NULL, *r = NULL;
    cm_err_t err;

    cm_err_clear(&err);
    if (gen_map_load(file2, o->tree, &b, &err) != CM_OK) {
        print_err(&err);
        return 1;
    }
    if (gen_edit_merge(*m_p, b, gen_edit_arg(e, 1), gen_edit_arg(e, 2), gen_edit_arg(e, 3),
                       e->flag, &r, &err) != CM_OK) {
        gen_map_destroy(b);
        print_err(&err);
        return 1;
    }
    gen_map_destroy(b);
    if (gen_map_header_add(r, "pathgen edit: merge: A is %s, B is %s", o->file, file2) != 0) {
        gen_map_destroy(r);
        fprintf(stderr, "pathgen: edit: out of memory\n");
        return 1;
    }
    gen_map_destroy(*m_p);
    *m_p = r;
    return 0;
}

/* One operator call, parsed (gen_edit_parse_words). */
static int apply_op(gen_map_t **m_p, const gen_edit_t *e, const opts_t *o)
{
    cm_err_t err;

    if (e->op == GEN_EDIT_MERGE)
        return op_merge(m_p, e, o);
    cm_err_clear(&err);
    if (gen_edit_apply(*m_p, e, &err) != CM_OK) {
        print_err(&err);
        return 1;
    }
    return 0;
}

/* ---- main --------------------------------------------------------------- */

/* Takes the options out of argv (kept in order: FILE, then the operator
 * words); returns the count left, -1 after --help, -2 on a usage error
 * (said).  getopt_long in its '-' mode hands over the other words in order,
 * so an option may come anywhere, between operator words too. */
static int parse_opts(int argc, char **argv, opts_t *o, char **words)
{
    static const struct option longopts[] = {
        { "force", no_argument, NULL, 'f' }, { "tree", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
    const char *opt;
    cm_opt_t ctx;
    int c, n = 0;

    cm_opt_init(&ctx, "pathgen edit");
    optind = 1;
    while ((c = cm_opt_next(&ctx, argc, argv, "-:o:h", longopts, &opt)) != -1) {
        switch (c) {
        case 1: words[n++] = optarg; break;
        case 'h': return -1;
        case 'f': o->force = 1; break;
        case 'o': o->out = optarg; break;
        default: o->tree = optarg; break;       /* --tree */
        }
    }
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        fprintf(stderr, "usage: pathgen edit FILE OP [ARGS] [, OP [ARGS]]... [-o OUT] "
                        "[--force] [--tree NAME]\n");
        return -2;
    }
    while (optind < argc)               /* the words after "--" */
        words[n++] = argv[optind++];
    return n;
}

/* Cuts the words after FILE at each lone "," into operator calls, parses
 * them all (a usage error stops the command before any edit), then applies
 * them in order. */
static int run(gen_map_t **m_p, char **words, int n, const opts_t *o)
{
    gen_edit_t *edits = calloc((size_t)n, sizeof(*edits));
    int start = 1, i, ne = 0, rc = 0;
    cm_err_t err;

    if (edits == NULL) {
        fprintf(stderr, "pathgen: edit: out of memory\n");
        return 1;
    }
    for (i = 1; i <= n; i++)        /* the shape of the list before any edit */
        if ((i == n || strcmp(words[i], ",") == 0) && strcmp(words[i - 1], ",") == 0) {
            free(edits);
            return bad_usage("an empty operator between ','%s", "");
        }
    for (i = 1; i <= n && rc == 0; i++) {
        if (i < n && strcmp(words[i], ",") != 0)
            continue;
        cm_err_clear(&err);
        if (gen_edit_parse_words(words + start, i - start, &edits[ne++], &err) != CM_OK)
            rc = bad_usage("%s", err.msg);
        start = i + 1;
    }
    for (i = 0; i < ne && rc == 0; i++)
        rc = apply_op(m_p, &edits[i], o);
    free(edits);
    return rc;
}

int pg_edit_main(int argc, char **argv)
{
    char **words = calloc((size_t)argc + 1, sizeof(*words));
    opts_t o = { NULL, NULL, NULL, 0 };
    gen_map_t *m = NULL;
    cm_err_t err;
    int n, rc;

    if (words == NULL)
        return 1;
    n = parse_opts(argc, argv, &o, words);
    if (n == -1) {
        free(words);
        usage(stdout);
        return 0;
    }
    if (n < 2) {
        free(words);
        return n == -2 ? 2 : bad_usage("needs a FILE and an operator%s", "");
    }
    o.file = words[0];
    cm_err_clear(&err);
    if (gen_map_load(o.file, o.tree, &m, &err) != CM_OK) {
        free(words);
        print_err(&err);
        return 1;
    }
    rc = run(&m, words, n, &o);
    if (rc == 0)
        rc = pg_write_map(m, o.out, o.force);
    gen_map_destroy(m);
    free(words);
    return rc;
}
