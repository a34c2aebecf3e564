/*
 * gen_edit.h - reconfiguration operators on a tree (pathgen edit;
 * docs/pathgen.md).  These are the changes section 6 of the PATHS/EventSpace
 * paper tried: add or remove a level of a subtree (Figure 9), add or remove
 * network links (Figure 11), move toplevel wrappers to other hosts (Figure
 * 15), change the root host, combine two clusters through a gateway
 * (section 7.2), and, beyond the paper, put an algorithm node across the
 * hosts.
 *
 * Every operator leaves a valid tree (gen_map_render accepts it) or fails
 * with the model unchanged and a one-line reason in err (CM_ERR_NAME for an
 * unknown wrapper or host, CM_ERR_INVALID for an edit that does not apply).
 * Inverse pairs give back the same tree, names included: add-level then
 * remove-level, add-link then remove-link, move then move back.  Each
 * successful edit appends one header line saying what was done.
 */
#ifndef GEN_EDIT_H
#define GEN_EDIT_H

#include <stddef.h>
#include <stdint.h>
#include "common/cm_err.h"
#include "gen/api/gen_map.h"

/*
 * add-level SUBTREE [FANOUT]: SUBTREE is a gred; its members are it and
 * the greds of the same part (gen_node_is_host_part) reached from it
 * through greds of that part (and, for the cluster-root part, through
 * proxies; a gred of the other part named by the convention below counts
 * too, as "cr1.0" over the root host's threads alone).  Each toplevel member (one with no member among its
 * contributors) of more than two contributors gets a new level: its
 * contributors are grouped in thread order into greds of `fanout`
 * consecutive ones (0: two groups, the first the larger), placed on its
 * host.  New greds are named by the subtree's convention: under "hN" level
 * L gred i is "hN.lL.i", under "cr0" "crL.i" (with a cluster prefix kept),
 * otherwise "NAME.lL.i"; i counts the level left to right (members
 * already named so are renumbered).  A lone contributor left over by a
 * fan-out is not wrapped.
 */
cm_status_t gen_edit_add_level(gen_map_t *m, const char *subtree, uint32_t fanout,
                               cm_err_t *err);
/* remove-level SUBTREE: the toplevel members other than SUBTREE are
 * removed and their contributors join the member below, in place.  A
 * subtree of one level, or a toplevel member on another host than the
 * member below it, is refused (move it back first). */
cm_status_t gen_edit_remove_level(gen_map_t *m, const char *subtree, cm_err_t *err);

/* move WRAPPER HOST: puts a gred (or the core with its ...) on another
 * host; the routes follow (gen_map_fix_routes). */
cm_status_t gen_edit_move(gen_map_t *m, const char *wrapper, const char *host, cm_err_t *err);

/* split SPAN [first|last]: in the cluster-root part, every maximal gred
 * with at most `span` host subtrees below it, except the one holding the
 * root host's, moves with its member greds to the host of its first (or
 * last) host subtree: Figure 15's "move toplevel wrappers to other hosts".
 * unsplit: moves every cluster-root gred back to the root's host. */
cm_status_t gen_edit_split(gen_map_t *m, uint32_t span, int to_last, cm_err_t *err);
cm_status_t gen_edit_unsplit(gen_map_t *m, cm_err_t *err);

/* add-link HOSTSUBTREE: Figure 11: the bottom gred of a host subtree moves
 * to its parent's host and each of its contributors reaches it through a
 * proxy of its own, "p<label>.<k>".  remove-link undoes it. */
cm_status_t gen_edit_add_link(gen_map_t *m, const char *subtree, cm_err_t *err);
cm_status_t gen_edit_remove_link(gen_map_t *m, const char *subtree, cm_err_t *err);

/* root HOST: the core and the cluster-root greds on the root's host move
 * to HOST (section 7.2's other root host). */
cm_status_t gen_edit_root(gen_map_t *m, const char *host, cm_err_t *err);

/* algo "run=... [params]": the cross-host part (the core, the cluster-root
 * greds and every proxy) is replaced by one algorithm node "across" that
 * each host's subtree enters (a host with several tops gets a gred
 * "h<label>" over them).  params are checked by the runtime's parser. */
cm_status_t gen_edit_algo(gen_map_t *m, const char *params, cm_err_t *err);

/* merge A B GATEWAY: a new tree: A's hosts, then the gateway host, then
 * B's; B's threads numbered after A's; every wrapper of A and B renamed
 * "<prefix>.<name>" (prefix_a, prefix_b; NULL or "": no renaming), except
 * the names made from a host's label (h<L>..., p<L>...), which take the
 * host's new label; hosts are renamed only when their names clash,
 * "host3" to "<prefix>3" (so split4w + binary8w gives the sample's a0,
 * ha0, pa3.a.cr2.1, a.cr0, b0, pb0); A's and B's cores replaced by one
 * gred "mc" on A's root host
 * (gateway_root: on the gateway) under a new core "root", B's part
 * reaching it through a proxy on B's root host and one on the gateway.
 * A and B are not changed. */
cm_status_t gen_edit_merge(const gen_map_t *a, const gen_map_t *b, const char *gateway,
                           const char *prefix_a, const char *prefix_b, int gateway_root,
                           gen_map_t **m_p, cm_err_t *err);

/* ---- an edit as a value: the text form of `pathgen edit` ----------------
 *
 * An operator call is a gen_edit_t, the one contract between whoever
 * chooses an edit (a user's command line, the advice of advise/) and whoever
 * applies it.  Its text form is what users type after `pathgen edit FILE`,
 * the grammar of docs/pathgen.md ("Reconfiguration"), one operator call:
 *
 *   add-level    SUBTREE... [FANOUT]     FANOUT: digits, taken only when a
 *                                        SUBTREE precedes it; 0 or none: halves
 *   remove-level SUBTREE...
 *   add-link     SUBTREE...
 *   remove-link  SUBTREE...
 *   move         WRAPPER HOST
 *   split        SPAN [first|last]      SPAN: digits; default last
 *   unsplit
 *   root         HOST
 *   algo         PARAM...               as on an algo line (run=rd round=2000)
 *   merge        FILE2 GATEWAY [PA PB] [gateway-root]
 *
 * pathgen edit takes a list of calls separated by a lone "," word.  Words
 * are separated by blanks; in the text form a word may be quoted as in the
 * shell ('h*' with single quotes, \' with a backslash outside them), and
 * gen_edit_render quotes the words that need it, so
 * the text pasted after `pathgen edit FILE` in a shell gives back the same
 * value.  A SUBTREE with * ? or [ is a glob (gen_edit_apply).
 */
typedef enum gen_edit_op {
    GEN_EDIT_ADD_LEVEL,
    GEN_EDIT_REMOVE_LEVEL,
    GEN_EDIT_MOVE,
    GEN_EDIT_SPLIT,
    GEN_EDIT_UNSPLIT,
    GEN_EDIT_ADD_LINK,
    GEN_EDIT_REMOVE_LINK,
    GEN_EDIT_ROOT,
    GEN_EDIT_ALGO,
    GEN_EDIT_MERGE
} gen_edit_op_t;

/* Room for an edit's words, each with its NUL. */
#define GEN_EDIT_ARGS_MAX 4096

/*
 * One operator call.  Plain data: copied by assignment, nothing to free.
 * The words are kept in order, each ended by a NUL (gen_edit_arg reads the
 * i-th): SUBTREE...; WRAPPER HOST; HOST; PARAM...; FILE2 GATEWAY [PA PB].
 */
typedef struct gen_edit {
    gen_edit_op_t op;
    uint32_t      num;    /* add-level: FANOUT (0: two halves); split: SPAN */
    int           flag;   /* split: 1 last, 0 first; merge: 1 gateway-root */
    int           nargs;  /* words in args */
    size_t        len;    /* bytes of args used */
    char          args[GEN_EDIT_ARGS_MAX];
} gen_edit_t;

/* The operator's word ("add-level"), or NULL for a value out of range. */
const char *gen_edit_op_name(gen_edit_op_t op);

/* Empties e and sets its operator (split: last by default). */
void gen_edit_init(gen_edit_t *e, gen_edit_op_t op);

/* Appends one word (copied).  CM_ERR_RANGE if it does not fit; CM_ERR_INVALID
 * for a lone "," (it separates edits on pathgen edit's command line). */
cm_status_t gen_edit_add_arg(gen_edit_t *e, const char *word, cm_err_t *err);

/* The i-th word (0-based), borrowed from e; NULL when i is out of range. */
const char *gen_edit_arg(const gen_edit_t *e, int i);

/*
 * One operator call from its words (w[0] the operator, as the shell hands
 * them to pathgen edit: no quotes left).  CM_ERR_SYNTAX with pathgen edit's
 * one-line usage message ("move takes WRAPPER HOST") when they do not fit
 * the grammar; CM_ERR_RANGE when they are too long.  Names are not looked
 * up: that is gen_edit_apply's part.  *e is set only on success.
 */
cm_status_t gen_edit_parse_words(char *const *w, int nw, gen_edit_t *e, cm_err_t *err);

/*
 * One operator call from its text form ("split 2 last", "add-level 'h*' 3"):
 * blanks separate words, quotes as above.  Refuses (CM_ERR_SYNTAX)
 * an unterminated quote, an empty text and a lone "," (a list, not one call),
 * and what gen_edit_parse_words refuses.  *e is set only on success.
 */
cm_status_t gen_edit_parse(const char *text, gen_edit_t *e, cm_err_t *err);

/*
 * The text form of e into buf (size bytes, NUL-terminated, cut if too small)
 * in its canonical form: the operator, then the words, one blank apart,
 * each quoted for the shell when it holds anything but letters, digits and
 * _ . / : = @ % + - ,; add-level's FANOUT only when not
 * 0; split always with first or last.  gen_edit_parse gives back an equal
 * value.  Returns the length of the whole text (as snprintf does).
 */
size_t gen_edit_render(const gen_edit_t *e, char *buf, size_t size);

/*
 * Applies e to m with the operators above: SUBTREE... in turn, each name or
 * glob; a glob stands for every gred it matches (fnmatch) that is the bottom
 * of its part (for remove-link: every gred) and to which the operator
 * applies (an edit that does not apply to one is skipped, the model
 * unchanged); at least one must take (CM_ERR_INVALID naming the last
 * refusal, or CM_ERR_NAME when nothing matches).  The first failure stops
 * it: the calls before it stay applied.  merge needs a second tree:
 * gen_edit_merge (CM_ERR_INVALID here).
 */
cm_status_t gen_edit_apply(gen_map_t *m, const gen_edit_t *e, cm_err_t *err);

#endif /* GEN_EDIT_H */
