/*
 * trace_check - an independent checker of a paptree OTF2 archive.
 *
 *   trace_check [--ops K] ARCHIVE_DIR PATHMAP
 *
 * Reads ARCHIVE_DIR/traces.otf2 with the OTF2 reader and checks it against
 * the conventions of instrument/api/ins_schema.h.  Every expected value is
 * derived from the pathmap file (rt_pathmap_load) and from K, never from
 * the trace itself, so a writer bug cannot hide behind an archive that is
 * merely consistent with itself.  What is checked, and why:
 *
 *  1. archive properties: schema version, the pathmap text (byte-equal to
 *     the file; a property, or DIR/traces.pathmap when longer than
 *     INS_PATHMAP_PROP_MAX) and its hash, tree, instance count I, hosts, clock and
 *     command: an archive must describe itself;
 *  2. the two event attributes (op, bytes) by id, name and type;
 *     (names of definitions the schema leaves free must still be defined
 *     strings, and no definition record may be of an unknown type);
 *  3. one region per (instance, wrapper), with the id, names, description,
 *     role, paradigm and source location the schema prescribes;
 *  4. the system tree and the location groups (one per host = rank);
 *  5. the locations: exactly the threads the pathmap puts on each rank,
 *     then one service per (proxy served there, instance), with their ids,
 *     properties and event counts;
 *  6. clocks: one ClockProperties whose span holds every event (ns ticks
 *     for monotonic_raw), and two ClockOffset records per location that
 *     bracket its events (zero offsets on rank 0);
 *  7. events: only Enter and Leave, both attributes on each (bytes a
 *     positive multiple of the tree's element size), per-location
 *     time never going back, and visits nesting exactly as the executor
 *     walks (runtime/api/rt_hooks.h): a visit continues only from a gred
 *     into its parent, at most once, and exactly one visit per gred and
 *     operation continues; top-level op numbers count 0, 1, 2... on every
 *     location and instance;
 *  8. with --ops K: every location made exactly its share of the K
 *     operations, every wrapper saw fanin arrivals per operation and, when
 *     no wrapper has fanin > 1, each location has an exact event count;
 *  9. an algorithm node at the root (ins_schema.h, "an algorithm node's
 *     collective and messages"): one location of role algo per host it
 *     spans, after the others, visiting the node in every operation of
 *     every instance (a gred below it does not continue into it on its own
 *     location, and a thread that enters it directly records nothing);
 *     the region's algo keys; the two MPI groups (the algorithm locations
 *     in the node's rank order, ranks 0..n-1) and one communicator per
 *     instance, and none of these without an algorithm node; in each of
 *     its visits exactly one MpiCollectiveBegin .. MpiCollectiveEnd
 *     (ALLREDUCE, the instance's communicator, no root, the tuple's bytes)
 *     and between them only MPI point-to-point events, each post completed
 *     (same request id, op << 32 | step) before the end, on the instance's
 *     communicator, with a peer of the node other than itself; and every
 *     message sent is received, once, by its peer, with the same tag and
 *     length, in the same operation;
 * 10. a PAP-aware algorithm node (the pathmap's run or bcast reads arrival
 *     times; ins_schema.h, "where a PAP-aware node's arrival times came
 *     from"): its region says pap=yes (else pap=no), the parameter
 *     paptree::arrival (STRING) and attributes 2-6 are defined (and none of
 *     them without it), and each visit of the node on an algorithm location
 *     holds exactly one ParameterString of that parameter, after
 *     MpiCollectiveBegin and before any other MPI event: the visit's op,
 *     asked = the pathmap's arrival=, the used source one of equal /
 *     history / edge and no better than asked (history: equal exactly on an
 *     instance's first operation; edge: history never on the first), a
 *     missing rank of the node only when edge fell back, the error and lead
 *     only with arrival=edge, a wait >= 0; so one per operation per host.
 *
 * Each failure is one line "trace_check: FAIL: <what>: expected X, got Y"
 * on stderr.  Exit status: 0 every check passed, 1 some check failed,
 * 2 usage error, or an archive or pathmap that cannot be read at all.
 */
#include "tests/oracles/trace_check/tc_int.h"

/* ------------------------------------------------------------------ driver */

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: trace_check [--ops K] ARCHIVE_DIR PATHMAP\n"
            "Checks the paptree OTF2 archive ARCHIVE_DIR/" INS_ANCHOR_FILE " against the\n"
            "trace conventions (instrument/api/ins_schema.h) and the pathmap file.\n"
            "  --ops K     every computational thread made K operations, operation k on\n"
            "              instance k %% I: also check the exact counts\n"
            "  -h, --help  this text\n"
            "Exit status: 0 all checks passed, 1 a check failed (one 'FAIL' line each),\n"
            "2 usage error or an unreadable archive or pathmap.\n");
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, tc_ctx_t *c, const char **dir, const char **pmap)
{
    int npos = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--ops") == 0 || strncmp(a, "--ops=", 6) == 0) {
            const char *v = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!parse_u64(v, TC_OPS_MAX, &c->ops))
                return usage(stderr), 2;
            c->have_ops = true;
        } else if ((a[0] == '-' && a[1] != '\0') || npos == 2) {
            return usage(stderr), 2;
        } else {
            *(npos++ == 0 ? dir : pmap) = a;
        }
    }
    return npos == 2 ? -1 : (usage(stderr), 2);
}

/* Everything after the archive properties; returns -1 or an exit status. */
static int check_archive(tc_ctx_t *c, OTF2_Reader *rd)
{
    OTF2_ErrorCode rc;

    if (!build_locations(c))
        return io_error("out of memory");
    if ((rc = read_global_defs(c, rd)) != OTF2_SUCCESS)
        return c->oom ? io_error("out of memory")
                      : io_error("cannot read the global definitions: %s", OTF2_Error_GetName(rc));
    if (!check_definitions(c))
        return io_error("out of memory");
    for (uint32_t i = 0; i < c->nlocs; i++)
        if (c->locs[i].defined &&
            (rc = OTF2_Reader_SelectLocation(rd, c->locs[i].id)) != OTF2_SUCCESS)
            return io_error("cannot select %s: %s", c->locs[i].label, OTF2_Error_GetName(rc));
    read_local_defs(c, rd);
    if (read_events(c, rd)) {
        check_ends(c);
        check_last_arrivals(c);
        check_messages(c);
        if (c->have_ops)
            check_counts(c);
    }
    check_clocks(c);
    return c->oom ? io_error("out of memory") : -1;
}

static void ctx_cleanup(tc_ctx_t *c)
{
    tc_vec_t *vecs[] = { &c->attrs, &c->regions, &c->stns, &c->stn_props, &c->groups,
                         &c->group_props, &c->ldefs, &c->loc_props, &c->mgroups, &c->comms,
                         &c->sends, &c->recvs, &c->params };

    for (size_t i = 0; i < c->mgroups.n; i++)
        free(((tc_mgroup_t *)c->mgroups.data)[i].members);

    for (size_t i = 0; i < c->nstr; i++)
        free(c->str[i]);
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        free(vecs[i]->data);
    for (uint32_t i = 0; c->locs != NULL && i < c->nlocs; i++)
        free(c->locs[i].stack), free(c->locs[i].next_op), free(c->locs[i].reqs);
    for (uint64_t r = 0; c->counts != NULL && r < c->nregions; r++)
        free(c->counts[r].visits), free(c->counts[r].nests);
    free(c->str), free(c->locs), free(c->rank_base), free(c->counts), free(c->pathmap_path);
}

static void report(const tc_ctx_t *c)
{
    if (c->nfail > TC_FAIL_LINES)
        fprintf(stderr, "trace_check: ... and %lu more\n", c->nfail - TC_FAIL_LINES);
    else if (c->nfail == 0 && c->have_ops)
        printf("trace_check: ok: %u locations, %zu regions, %" PRIu64 " events, %" PRIu64
               " ops per thread\n", c->nlocs, c->regions.n, c->total_events, c->ops);
    else if (c->nfail == 0)
        printf("trace_check: ok: %u locations, %zu regions, %" PRIu64 " events, ops per "
               "thread not checked (no --ops)\n", c->nlocs, c->regions.n, c->total_events);
}

int main(int argc, char **argv)
{
    tc_ctx_t c = { .attrs.size = sizeof(tc_attr_t), .regions.size = sizeof(tc_region_t),
                   .stns.size = sizeof(tc_stn_t), .stn_props.size = sizeof(tc_prop_t),
                   .groups.size = sizeof(tc_group_t), .group_props.size = sizeof(tc_prop_t),
                   .ldefs.size = sizeof(tc_ldef_t), .loc_props.size = sizeof(tc_prop_t),
                   .mgroups.size = sizeof(tc_mgroup_t), .comms.size = sizeof(tc_comm_t),
                   .sends.size = sizeof(tc_msg_t), .recvs.size = sizeof(tc_msg_t),
                   .params.size = sizeof(tc_param_t) };
    const char *dir = NULL, *pmap = NULL;
    rt_pathmap_t *pm = NULL;
    OTF2_Reader *rd = NULL;
    char anchor[4096];
    cm_err_t err;
    FILE *fp;
    int status = parse_args(argc, argv, &c, &dir, &pmap);

    if (status >= 0)
        return status;
    if (rt_pathmap_load(pmap, &pm, &err) != CM_OK) {
        cm_err_print(stderr, "trace_check: ", &err);
        return 2;
    }
    c.pm = pm;
    c.dir = dir;
    snprintf(anchor, sizeof(anchor), "%s/%s", dir, INS_ANCHOR_FILE);
    if ((fp = fopen(anchor, "rb")) == NULL)
        status = io_error("cannot open %s: %s", anchor, strerror(errno));
    else if (fclose(fp) != 0 || (rd = OTF2_Reader_Open(anchor)) == NULL)
        status = io_error("OTF2 cannot open the archive %s", anchor);
    else if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS)
        status = io_error("OTF2_Reader_SetSerialCollectiveCallbacks failed");
    else if (check_properties(&c, rd))
        status = check_archive(&c, rd);
    if (rd != NULL)
        OTF2_Reader_Close(rd);
    if (status < 0)
        report(&c);
    ctx_cleanup(&c);
    rt_pathmap_destroy(pm);
    return status >= 0 ? status : c.nfail > 0;
}
