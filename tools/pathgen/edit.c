/*
 * tools/pathgen/edit.c - pathgen edit: reconfigure a pathmap with the
 * operators of gen/api/gen_edit.h (docs/pathgen.md, "Reconfiguration").
 *
 *   pathgen edit FILE OP [ARGS] [, OP [ARGS]]... [-o OUT] [--force] [--tree NAME]
 *
 * The words after FILE are cut at each lone "," into operator calls,
 * applied in order to one model; the first that fails stops the command
 * with its one-line reason and nothing is written.  A wrapper argument with
 * a glob character (* ? [) stands for every wrapper its fnmatch pattern
 * matches to which the operator applies (add-level 'h*': every host
 * subtree's bottom gred).  The options may come anywhere after "edit".
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_opt.h"
#include "gen/api/gen_edit.h"
#include "gen/api/gen_map.h"
#include "tools/pathgen/pathgen.h"

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

static int is_number(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static int is_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* ---- one operator on one wrapper ---------------------------------------- */

typedef cm_status_t (*one_fn)(gen_map_t *m, const char *name, uint32_t arg, cm_err_t *err);

static cm_status_t do_add_level(gen_map_t *m, const char *name, uint32_t fanout, cm_err_t *err)
{
    return gen_edit_add_level(m, name, fanout, err);
}

static cm_status_t do_remove_level(gen_map_t *m, const char *name, uint32_t a, cm_err_t *err)
{
    (void)a;
    return gen_edit_remove_level(m, name, err);
}

static cm_status_t do_add_link(gen_map_t *m, const char *name, uint32_t a, cm_err_t *err)
{
    (void)a;
    return gen_edit_add_link(m, name, err);
}

static cm_status_t do_remove_link(gen_map_t *m, const char *name, uint32_t a, cm_err_t *err)
{
    (void)a;
    return gen_edit_remove_link(m, name, err);
}

/* A glob: the operator on every gred the pattern matches (for the
 * operators on subtrees, the bottom gred of a part), skipping those it does
 * not apply to (the model is then unchanged); at least one must take. */

/* 1 if gred n is the bottom of its part (its parent is not a gred of the
 * same part): what a glob over subtrees stands for. */
static int part_bottom(const gen_map_t *m, uint32_t n)
{
    uint32_t p = m->nodes[n].parent;

    return p == GEN_NONE || m->nodes[p].kind != GEN_GRED ||
           gen_node_is_host_part(m, p) != gen_node_is_host_part(m, n);
}

static cm_status_t apply_glob(gen_map_t *m, const char *op, const char *pat, one_fn fn,
                              uint32_t arg, cm_err_t *err)
{
    char **names = calloc(m->nnodes + 1, sizeof(*names));
    uint32_t n, nn = 0, done = 0;
    cm_status_t st = CM_OK;
    cm_err_t last;

    if (names == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "%s: out of memory", op);
    for (n = 0; n < m->nnodes; n++)
        if (m->nodes[n].kind == GEN_GRED && fnmatch(pat, m->nodes[n].name, 0) == 0 &&
            (fn == do_remove_link || part_bottom(m, n)) &&
            (names[nn] = strdup(m->nodes[n].name)) != NULL)
            nn++;
    cm_err_clear(&last);
    for (n = 0; n < nn && st == CM_OK; n++) {
        if (gen_node_find(m, names[n]) == GEN_NONE)
            continue;                          /* removed by an earlier one */
        st = fn(m, names[n], arg, &last);
        if (st == CM_ERR_INVALID)
            st = CM_OK;
        else if (st == CM_OK)
            done++;
    }
    for (n = 0; n < nn; n++)
        free(names[n]);
    free(names);
    if (st != CM_OK) {
        *err = last;
        return st;
    }
    if (done == 0) {
        if (last.status != CM_OK)
            return CM_ERR(err, CM_ERR_INVALID, "%s '%s': applies to no wrapper it matches "
                          "(last: %s)", op, pat, last.msg);
        return CM_ERR(err, CM_ERR_NAME, "%s: no gred matches '%s'", op, pat);
    }
    return CM_OK;
}

/* SUBTREE... [FANOUT]: each name or glob in turn. */
static int apply_each(gen_map_t *m, const char *op, char **w, int nw, one_fn fn, int fanout_ok)
{
    uint32_t arg = 0;
    cm_err_t err;
    int i;

    if (fanout_ok && nw > 1 && is_number(w[nw - 1])) {
        arg = (uint32_t)strtoul(w[nw - 1], NULL, 10);
        nw--;
    }
    if (nw < 1)
        return bad_usage("%s needs a wrapper name", op);
    for (i = 0; i < nw; i++) {
        cm_err_clear(&err);
        if ((is_glob(w[i]) ? apply_glob(m, op, w[i], fn, arg, &err)
                           : fn(m, w[i], arg, &err)) != CM_OK) {
            print_err(&err);
            return 1;
        }
    }
    return 0;
}

/* ---- the operators ------------------------------------------------------ */

static int check(cm_status_t st, const cm_err_t *err)
{
    if (st == CM_OK)
        return 0;
    print_err(err);
    return 1;
}

static int op_merge(gen_map_t **m_p, char **w, int nw, const opts_t *o)
{
    const char *pa = NULL, *pb = NULL;
    int gwroot = 0, rest = nw;
    gen_map_t *b = NULL, *r = NULL;
    cm_err_t err;

    if (rest > 0 && strcmp(w[rest - 1], "gateway-root") == 0) {
        gwroot = 1;
        rest--;
    }
    if (rest == 1)
        return bad_usage("merge needs a gateway host name: merge FILE2 GATEWAY%s", "");
    if (rest != 2 && rest != 4)
        return bad_usage("merge takes FILE2 GATEWAY [PREFIX_A PREFIX_B] [gateway-root]%s", "");
    if (rest == 4) {
        pa = w[2];
        pb = w[3];
    }
    cm_err_clear(&err);
    if (gen_map_load(w[0], o->tree, &b, &err) != CM_OK)
        return check(err.status, &err);
    if (gen_edit_merge(*m_p, b, w[1], pa, pb, gwroot, &r, &err) != CM_OK) {
        gen_map_destroy(b);
        return check(err.status, &err);
    }
    gen_map_destroy(b);
    if (gen_map_header_add(r, "pathgen edit: merge: A is %s, B is %s", o->file, w[0]) != 0) {
        gen_map_destroy(r);
        fprintf(stderr, "pathgen: edit: out of memory\n");
        return 1;
    }
    gen_map_destroy(*m_p);
    *m_p = r;
    return 0;
}

static int op_algo(gen_map_t *m, char **w, int nw)
{
    size_t len = 1;
    char *params;
    cm_err_t err;
    int i, rc;

    if (nw < 1)
        return bad_usage("algo needs its parameters (algo run=ring ...)%s", "");
    for (i = 0; i < nw; i++)
        len += strlen(w[i]) + 1;
    if ((params = calloc(1, len)) == NULL)
        return 1;
    for (i = 0; i < nw; i++) {
        if (i > 0)
            strcat(params, " ");
        strcat(params, w[i]);
    }
    cm_err_clear(&err);
    rc = check(gen_edit_algo(m, params, &err), &err);
    free(params);
    return rc;
}

static int op_split(gen_map_t *m, char **w, int nw)
{
    int last = 1;
    cm_err_t err;

    if (nw < 1 || nw > 2 || !is_number(w[0]))
        return bad_usage("split takes SPAN [first|last] (a number of host subtrees)%s", "");
    if (nw == 2 && strcmp(w[1], "first") == 0)
        last = 0;
    else if (nw == 2 && strcmp(w[1], "last") != 0)
        return bad_usage("split: '%s' is neither first nor last", w[1]);
    cm_err_clear(&err);
    return check(gen_edit_split(m, (uint32_t)strtoul(w[0], NULL, 10), last, &err), &err);
}

/* One operator call: w[0] is the operator, w[1..nw-1] its arguments. */
static int apply_op(gen_map_t **m_p, char **w, int nw, const opts_t *o)
{
    const char *op = w[0];
    cm_err_t err;

    cm_err_clear(&err);
    if (strcmp(op, "add-level") == 0)
        return apply_each(*m_p, op, w + 1, nw - 1, do_add_level, 1);
    if (strcmp(op, "remove-level") == 0)
        return apply_each(*m_p, op, w + 1, nw - 1, do_remove_level, 0);
    if (strcmp(op, "add-link") == 0)
        return apply_each(*m_p, op, w + 1, nw - 1, do_add_link, 0);
    if (strcmp(op, "remove-link") == 0)
        return apply_each(*m_p, op, w + 1, nw - 1, do_remove_link, 0);
    if (strcmp(op, "move") == 0) {
        if (nw != 3)
            return bad_usage("move takes WRAPPER HOST%s", "");
        return check(gen_edit_move(*m_p, w[1], w[2], &err), &err);
    }
    if (strcmp(op, "split") == 0)
        return op_split(*m_p, w + 1, nw - 1);
    if (strcmp(op, "unsplit") == 0) {
        if (nw != 1)
            return bad_usage("unsplit takes no argument%s", "");
        return check(gen_edit_unsplit(*m_p, &err), &err);
    }
    if (strcmp(op, "root") == 0) {
        if (nw != 2)
            return bad_usage("root takes HOST%s", "");
        return check(gen_edit_root(*m_p, w[1], &err), &err);
    }
    if (strcmp(op, "algo") == 0)
        return op_algo(*m_p, w + 1, nw - 1);
    if (strcmp(op, "merge") == 0)
        return op_merge(m_p, w + 1, nw - 1, o);
    return bad_usage("unknown operator '%s' (pathgen edit --help lists them)", op);
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

static int run(gen_map_t **m_p, char **words, int n, const opts_t *o)
{
    int start = 1, i, rc;

    for (i = 1; i <= n; i++)        /* the shape of the list before any edit */
        if ((i == n || strcmp(words[i], ",") == 0) && strcmp(words[i - 1], ",") == 0)
            return bad_usage("an empty operator between ','%s", "");
    for (i = 1; i <= n; i++) {
        if (i < n && strcmp(words[i], ",") != 0)
            continue;
        if ((rc = apply_op(m_p, words + start, i - start, o)) != 0)
            return rc;
        start = i + 1;
    }
    return 0;
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
