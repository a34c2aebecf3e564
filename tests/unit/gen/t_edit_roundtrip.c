/*
 * t_edit_roundtrip.c - the inverse pairs of gen_edit.h give back the same
 * text, byte for byte (gen_map_format, names and comments included), once
 * the two history lines the edits appended to the header are taken off:
 * add-level / remove-level, add-link / remove-link, move / move back,
 * split / unsplit, root / root back.  Each also checks that the first edit
 * changed something (an edit that did nothing would pass trivially).
 */
#include "tests/test_list.h"
#include "tests/unit/gen/edit_tst.h"

#define P "pathmaps/paper/"
#define EOK(call) etst_ok((call), &err, #call)

/* m's text with its header cut back to n lines. */
static char *text_at(gen_map_t *m, uint32_t n)
{
    while (m->nheader > n)
        free(m->header[--m->nheader]);
    return etst_text(m);
}

typedef struct rt {
    gen_map_t *m;
    char      *orig;
    uint32_t   nheader;
} rt_t;

static rt_t rt_start(const char *path)
{
    rt_t r;

    r.m = etst_load(path);
    r.orig = etst_text(r.m);
    r.nheader = r.m->nheader;
    return r;
}

/* After the first edit: the text differs and says what was done. */
static void rt_changed(rt_t *r, const char *line)
{
    char *t = etst_text(r->m);

    TST_TRUE(strcmp(t, r->orig) != 0);
    TST_EQ_UINT(r->m->nheader, r->nheader + 1);
    TST_EQ_STR(r->m->header[r->nheader], line);
    free(t);
}

static void rt_back(rt_t *r)
{
    char *t = text_at(r->m, r->nheader);

    TST_EQ_STR(t, r->orig);
    free(t);
    free(r->orig);
    gen_map_destroy(r->m);
}

void t_gen_edit_roundtrip_level(void)
{
    rt_t r = rt_start(P "nary8w.pathmap");
    cm_err_t err;

    EOK(gen_edit_add_level(r.m, "h0", 0, &err));
    rt_changed(&r, "pathgen edit: add-level h0");
    EOK(gen_edit_remove_level(r.m, "h0", &err));
    rt_back(&r);

    r = rt_start(P "nary8w.pathmap");
    EOK(gen_edit_add_level(r.m, "cr0", 0, &err));
    rt_changed(&r, "pathgen edit: add-level cr0");
    EOK(gen_edit_remove_level(r.m, "cr0", &err));
    rt_back(&r);

    r = rt_start(P "quad8w.pathmap");
    EOK(gen_edit_add_level(r.m, "h3", 0, &err));
    rt_changed(&r, "pathgen edit: add-level h3");
    EOK(gen_edit_remove_level(r.m, "h3", &err));
    rt_back(&r);

    r = rt_start(P "flatblade.pathmap");
    EOK(gen_edit_add_level(r.m, "cr0", 3, &err));
    rt_changed(&r, "pathgen edit: add-level cr0 3");
    EOK(gen_edit_remove_level(r.m, "cr0", &err));
    rt_back(&r);
}

void t_gen_edit_roundtrip_link(void)
{
    rt_t r = rt_start(P "binary8w.pathmap");
    cm_err_t err;

    EOK(gen_edit_add_link(r.m, "h1", &err));
    rt_changed(&r, "pathgen edit: add-link h1");
    EOK(gen_edit_remove_link(r.m, "h1", &err));
    rt_back(&r);

    r = rt_start(P "nary4w.pathmap");
    EOK(gen_edit_add_link(r.m, "h3", &err));
    rt_changed(&r, "pathgen edit: add-link h3");
    EOK(gen_edit_remove_link(r.m, "h3", &err));
    rt_back(&r);

    r = rt_start(P "binary8w-extralinks.pathmap");
    EOK(gen_edit_remove_link(r.m, "h2", &err));
    rt_changed(&r, "pathgen edit: remove-link h2");
    EOK(gen_edit_add_link(r.m, "h2", &err));
    rt_back(&r);
}

void t_gen_edit_roundtrip_move(void)
{
    rt_t r = rt_start(P "binary4w.pathmap");
    cm_err_t err;

    EOK(gen_edit_move(r.m, "cr2.1", "host3", &err));
    rt_changed(&r, "pathgen edit: move cr2.1 host3");
    EOK(gen_edit_move(r.m, "cr2.1", "host0", &err));
    rt_back(&r);

    r = rt_start(P "nary8w.pathmap");
    EOK(gen_edit_move(r.m, "h2", "host0", &err));
    rt_changed(&r, "pathgen edit: move h2 host0");
    EOK(gen_edit_move(r.m, "h2", "host2", &err));
    rt_back(&r);

    r = rt_start(P "split4w.pathmap");
    EOK(gen_edit_move(r.m, "cr2.3", "host6", &err));
    rt_changed(&r, "pathgen edit: move cr2.3 host6");
    EOK(gen_edit_move(r.m, "cr2.3", "host7", &err));
    rt_back(&r);
}

void t_gen_edit_roundtrip_split_root(void)
{
    rt_t r = rt_start(P "binary4w.pathmap");
    cm_err_t err;

    EOK(gen_edit_split(r.m, 2, 1, &err));
    rt_changed(&r, "pathgen edit: split 2 last");
    EOK(gen_edit_unsplit(r.m, &err));
    rt_back(&r);

    r = rt_start(P "splitnow.pathmap");
    EOK(gen_edit_unsplit(r.m, &err));
    rt_changed(&r, "pathgen edit: unsplit");
    EOK(gen_edit_split(r.m, 4, 0, &err));
    rt_back(&r);

    r = rt_start(P "binary8w.pathmap");
    EOK(gen_edit_root(r.m, "host2", &err));
    rt_changed(&r, "pathgen edit: root host2");
    EOK(gen_edit_root(r.m, "host0", &err));
    rt_back(&r);
}
