/*
 * t_edit_text.c - an edit as a value (gen_edit_t, gen/api/gen_edit.h): the
 * text form parsed into operator, words and numbers, rendered back in its
 * canonical form (shell quoting, split's first|last, add-level's FANOUT
 * only when not 0), the refusals with pathgen edit's usage messages, and
 * gen_edit_apply giving the tree of the operator it names (a glob too).
 * Every expected value is written here from the grammar in gen_edit.h.
 */
#include "tests/test_list.h"
#include "tests/unit/gen/edit_tst.h"

/* text parses; its words are want[0..n-1]; it renders as canon. */
static void parses(const char *text, gen_edit_op_t op, uint32_t num, int flag,
                   const char *const *want, int n, const char *canon)
{
    gen_edit_t e, back;
    cm_err_t err;
    char out[256];

    cm_err_clear(&err);
    if (gen_edit_parse(text, &e, &err) != CM_OK)
        TST_FAIL("'%s': %s", text, err.msg);
    TST_EQ_INT(e.op, op);
    TST_EQ_UINT(e.num, num);
    TST_EQ_INT(e.flag, flag);
    TST_EQ_INT(e.nargs, n);
    for (int i = 0; i < n; i++)
        TST_EQ_STR(gen_edit_arg(&e, i), want[i]);
    TST_NULL(gen_edit_arg(&e, n));
    TST_EQ_UINT(gen_edit_render(&e, out, sizeof(out)), strlen(canon));
    TST_EQ_STR(out, canon);
    /* the canonical text reads back to the same value */
    TST_EQ_STATUS(gen_edit_parse(out, &back, &err), CM_OK);
    TST_EQ_INT(back.op, e.op);
    TST_EQ_UINT(back.num, e.num);
    TST_EQ_INT(back.flag, e.flag);
    TST_EQ_INT(back.nargs, e.nargs);
    TST_EQ_UINT(back.len, e.len);
    TST_TRUE(memcmp(back.args, e.args, e.len) == 0);
}

void t_gen_edit_text_parse(void)
{
    static const char *const h0[] = { "h0" }, *const hglob[] = { "h*" },
        *const three[] = { "3" }, *const four[] = { "h1", "h2", "h4", "h6" },
        *const mv[] = { "cr2.1", "host3" }, *const r3[] = { "3" },
        *const prr[] = { "run=prr", "round=2000" },
        *const mg[] = { "x.pathmap", "gw", "a", "b" }, *const mg2[] = { "x.pathmap", "gw" };

    parses("add-level h0", GEN_EDIT_ADD_LEVEL, 0, 0, h0, 1, "add-level h0");
    parses("add-level 'h*' 3", GEN_EDIT_ADD_LEVEL, 3, 0, hglob, 1, "add-level 'h*' 3");
    /* a lone number is a name, not a fan-out; FANOUT 0 is the default */
    parses("add-level 3", GEN_EDIT_ADD_LEVEL, 0, 0, three, 1, "add-level 3");
    parses("add-level h0 0", GEN_EDIT_ADD_LEVEL, 0, 0, h0, 1, "add-level h0");
    parses("remove-level h1 h2 h4 h6", GEN_EDIT_REMOVE_LEVEL, 0, 0, four, 4,
           "remove-level h1 h2 h4 h6");
    parses("add-link h1 h2 h4 h6", GEN_EDIT_ADD_LINK, 0, 0, four, 4, "add-link h1 h2 h4 h6");
    parses("remove-link h0", GEN_EDIT_REMOVE_LINK, 0, 0, h0, 1, "remove-link h0");
    /* blanks of any kind and number between words */
    parses("  move\tcr2.1   host3 ", GEN_EDIT_MOVE, 0, 0, mv, 2, "move cr2.1 host3");
    parses("split 2", GEN_EDIT_SPLIT, 2, 1, NULL, 0, "split 2 last");
    parses("split 4 first", GEN_EDIT_SPLIT, 4, 0, NULL, 0, "split 4 first");
    parses("unsplit", GEN_EDIT_UNSPLIT, 0, 0, NULL, 0, "unsplit");
    parses("root 3", GEN_EDIT_ROOT, 0, 0, r3, 1, "root 3");
    parses("algo run=prr round=2000", GEN_EDIT_ALGO, 0, 0, prr, 2, "algo run=prr round=2000");
    parses("merge x.pathmap gw a b gateway-root", GEN_EDIT_MERGE, 0, 1, mg, 4,
           "merge x.pathmap gw a b gateway-root");
    parses("merge x.pathmap gw", GEN_EDIT_MERGE, 0, 0, mg2, 2, "merge x.pathmap gw");
}

void t_gen_edit_text_render(void)
{
    static const char *const odd[] = { "it's", "a b", "", "x,y" };
    gen_edit_t e;
    cm_err_t err;
    char out[64], tiny[8];

    /* words made by hand: quoted as the shell reads them back */
    gen_edit_init(&e, GEN_EDIT_REMOVE_LEVEL);
    for (int i = 0; i < 4; i++)
        TST_EQ_STATUS(gen_edit_add_arg(&e, odd[i], &err), CM_OK);
    gen_edit_render(&e, out, sizeof(out));
    TST_EQ_STR(out, "remove-level 'it'\\''s' 'a b' '' x,y");
    /* a lone "," is no word of an edit */
    TST_EQ_STATUS(gen_edit_add_arg(&e, ",", &err), CM_ERR_INVALID);
    TST_EQ_STR(err.msg, "remove-level: a lone ',' separates edits; it is no word of one");
    TST_EQ_INT(e.nargs, 4);
    parses(out, GEN_EDIT_REMOVE_LEVEL, 0, 0, odd, 4, out);
    /* split made by hand: last unless said */
    gen_edit_init(&e, GEN_EDIT_SPLIT);
    e.num = 2;
    gen_edit_render(&e, out, sizeof(out));
    TST_EQ_STR(out, "split 2 last");
    /* too small a buffer: cut, NUL-terminated, the whole length returned */
    TST_EQ_UINT(gen_edit_render(&e, tiny, sizeof(tiny)), 12);
    TST_EQ_STR(tiny, "split 2");
    TST_EQ_STR(gen_edit_op_name(GEN_EDIT_MERGE), "merge");
    TST_NULL(gen_edit_op_name((gen_edit_op_t)99));
}

/* text is refused with status st and message msg; e is left as it was. */
static void refused(const char *text, cm_status_t st, const char *msg)
{
    gen_edit_t e;
    cm_err_t err;

    gen_edit_init(&e, GEN_EDIT_UNSPLIT);
    cm_err_clear(&err);
    TST_EQ_STATUS(gen_edit_parse(text, &e, &err), st);
    TST_EQ_STR(err.msg, msg);
    TST_EQ_INT(e.op, GEN_EDIT_UNSPLIT);
    TST_EQ_INT(e.nargs, 0);
}

void t_gen_edit_text_refuse(void)
{
    static char word[GEN_EDIT_ARGS_MAX];
    gen_edit_t e;
    cm_err_t err;

    refused("", CM_ERR_SYNTAX, "an empty edit");
    refused(" \t", CM_ERR_SYNTAX, "an empty edit");
    refused("shuffle h0", CM_ERR_SYNTAX,
            "unknown operator 'shuffle' (pathgen edit --help lists them)");
    refused("move cr0", CM_ERR_SYNTAX, "move takes WRAPPER HOST");
    refused("move cr0 host1 host2", CM_ERR_SYNTAX, "move takes WRAPPER HOST");
    refused("split x", CM_ERR_SYNTAX,
            "split takes SPAN [first|last] (a number of host subtrees)");
    refused("split", CM_ERR_SYNTAX, "split takes SPAN [first|last] (a number of host subtrees)");
    refused("split 2 middle", CM_ERR_SYNTAX, "split: 'middle' is neither first nor last");
    refused("split 4294967296", CM_ERR_SYNTAX, "split: '4294967296' is too large");
    refused("add-level", CM_ERR_SYNTAX, "add-level needs a wrapper name");
    refused("remove-link", CM_ERR_SYNTAX, "remove-link needs a wrapper name");
    refused("unsplit now", CM_ERR_SYNTAX, "unsplit takes no argument");
    refused("root", CM_ERR_SYNTAX, "root takes HOST");
    refused("algo", CM_ERR_SYNTAX, "algo needs its parameters (algo run=ring ...)");
    refused("merge f", CM_ERR_SYNTAX, "merge needs a gateway host name: merge FILE2 GATEWAY");
    refused("merge f g h", CM_ERR_SYNTAX,
            "merge takes FILE2 GATEWAY [PREFIX_A PREFIX_B] [gateway-root]");
    refused("add-level h0 , add-level h1", CM_ERR_SYNTAX,
            "'add-level h0 , add-level h1': a list of edits, not one");
    refused("move 'cr0 host1", CM_ERR_SYNTAX, "'move 'cr0 host1': a quote is not closed");
    /* words of 4096 bytes in all do not fit (4095 + its NUL do) */
    memset(word, 'a', sizeof(word) - 1);
    gen_edit_init(&e, GEN_EDIT_ALGO);
    TST_EQ_STATUS(gen_edit_add_arg(&e, word, &err), CM_OK);
    TST_EQ_STATUS(gen_edit_add_arg(&e, "", &err), CM_ERR_RANGE);
    TST_EQ_STR(err.msg, "algo: its words are longer than 4096 bytes in all");
    TST_EQ_INT(e.nargs, 1);
}

static const char seven[] =
    "host host0\n"
    "tree sum type=int32 op=sum\n"
    "core root host=host0\n"
    "gred h0 host=host0 parent=root\n"
    "threads 0-6 host=host0 enter=h0\n";

static void apply_text(gen_map_t *m, const char *text)
{
    gen_edit_t e;
    cm_err_t err;

    cm_err_clear(&err);
    if (gen_edit_parse(text, &e, &err) != CM_OK || gen_edit_apply(m, &e, &err) != CM_OK)
        TST_FAIL("'%s': %s", text, err.msg);
}

void t_gen_edit_text_apply(void)
{
    gen_map_t *m = etst_parse(seven);
    gen_edit_t e;
    cm_err_t err;

    /* groups of 3 in thread order, thread 6 left in h0 (gen_edit.h) */
    apply_text(m, "add-level h0 3");
    TST_EQ_STR(m->header[m->nheader - 1], "pathgen edit: add-level h0 3");
    etst_same_text(m,
        "host host0\n"
        "tree sum type=int32 op=sum\n"
        "core root host=host0\n"
        "gred h0 host=host0 parent=root\n"
        "gred h0.l1.0 host=host0 parent=h0\n"
        "gred h0.l1.1 host=host0 parent=h0\n"
        "threads 0-2 host=host0 enter=h0.l1.0\n"
        "threads 3-5 host=host0 enter=h0.l1.1\n"
        "threads 6 host=host0 enter=h0\n");
    /* a glob: 'h?' is h0, the bottom of its part; halves of 7: 4 and 3 */
    m = etst_parse(seven);
    apply_text(m, "add-level 'h?'");
    etst_same_text(m,
        "host host0\n"
        "tree sum type=int32 op=sum\n"
        "core root host=host0\n"
        "gred h0 host=host0 parent=root\n"
        "gred h0.l1.0 host=host0 parent=h0\n"
        "gred h0.l1.1 host=host0 parent=h0\n"
        "threads 0-3 host=host0 enter=h0.l1.0\n"
        "threads 4-6 host=host0 enter=h0.l1.1\n");
    /* a glob that matches nothing; merge is not an edit of one tree */
    m = etst_parse(seven);
    TST_EQ_STATUS(gen_edit_parse("remove-level 'x*'", &e, &err), CM_OK);
    TST_EQ_STATUS(gen_edit_apply(m, &e, &err), CM_ERR_NAME);
    TST_EQ_STR(err.msg, "remove-level: no gred matches 'x*'");
    TST_EQ_STATUS(gen_edit_parse("merge x.pathmap gw", &e, &err), CM_OK);
    TST_EQ_STATUS(gen_edit_apply(m, &e, &err), CM_ERR_INVALID);
    gen_map_destroy(m);
}
