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

#endif /* GEN_EDIT_H */
