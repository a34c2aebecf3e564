/*
 * ins_schema.h - the conventions of a paptree OTF2 trace, by name.
 *
 * The writer (instrument/) and every reader (analyze/, the tests) use
 * these names and nothing else; docs/trace-format.md explains them.  The
 * header is plain C with no OTF2 or MPI types, so any layer may include it.
 *
 * An archive describes itself: the pathmap text is stored in it, and
 * every region (one per wrapper of one tree instance), location (one per
 * thread) and location group (one per host process) says what it is.
 *
 * Bump INS_SCHEMA_VERSION whenever a name or a meaning below changes.
 */
#ifndef INS_SCHEMA_H
#define INS_SCHEMA_H

/*
 * The version every archive is written with, and the newest a reader reads
 * (readers compare numbers: a larger one was made by a newer paptree).
 *
 * Version 3 (issue 24) adds the algorithm-node records (the node's
 * location, MPI collective and point-to-point events) and the arrival
 * reports below, and says where the pathmap text is by the property it
 * sets: INS_PROP_PATHMAP, or INS_PROP_PATHMAP_FILE when the text is longer
 * than INS_PATHMAP_PROP_MAX.  Readers still read the older versions:
 *   1  the pathmap text in INS_PROP_PATHMAP;
 *   2  version 1 with the text in INS_PATHMAP_FILE (INS_PROP_PATHMAP_FILE),
 *      written only when it was longer than INS_PATHMAP_PROP_MAX.
 * Archives of versions 1 and 2 written after the algorithm nodes came may
 * hold their records too: a reader takes them as version 3 does.
 */
#define INS_SCHEMA_VERSION      "3"
#define INS_SCHEMA_VERSION_MAX  3
#define INS_SCHEMA_VERSION_FILE "2"     /* readers only: version 2 above */

/* OTF2_Archive_Open(DIR, INS_ARCHIVE_NAME, ...): the anchor is DIR/traces.otf2 */
#define INS_ARCHIVE_NAME        "traces"
#define INS_ANCHOR_FILE         "traces.otf2"

/* ---- archive properties (OTF2_Archive_SetProperty; strings) ---------- */
#define INS_PROP_VERSION        "PAPTREE::SCHEMA_VERSION"  /* INS_SCHEMA_VERSION */
#define INS_PROP_PATHMAP        "PAPTREE::PATHMAP"         /* v1: the pathmap text, verbatim */
#define INS_PROP_PATHMAP_FILE   "PAPTREE::PATHMAP_FILE"    /* v2: INS_PATHMAP_FILE, instead */
#define INS_PROP_PATHMAP_PATH   "PAPTREE::PATHMAP_PATH"    /* the file it was read from */
#define INS_PROP_PATHMAP_HASH   "PAPTREE::PATHMAP_HASH"    /* FNV-1a 64 of the text, 16 hex digits */
#define INS_PROP_TREE           "PAPTREE::TREE"            /* the traced tree's name */
#define INS_PROP_INSTANCES      "PAPTREE::INSTANCES"       /* tree instances, decimal */
#define INS_PROP_HOSTS          "PAPTREE::HOSTS"           /* hosts = ranks, decimal */
#define INS_PROP_CLOCK          "PAPTREE::CLOCK"           /* INS_CLOCK_TSC or INS_CLOCK_MONO_RAW */
#define INS_PROP_COMMAND        "PAPTREE::COMMAND"         /* the traced program's argv, space-joined */

/*
 * The longest pathmap text stored as a property.  OTF2 3.0.2 keeps the
 * whole anchor file (every property) in one 256 KiB buffer and fails the
 * archive at close when it overflows, so a longer text is written to
 * INS_PATHMAP_FILE in the archive directory (next to INS_ANCHOR_FILE),
 * verbatim; readers take it from there and check it against
 * INS_PROP_PATHMAP_HASH.  (Pathmaps are at most 16 MiB.)
 */
#define INS_PATHMAP_PROP_MAX    ((size_t)128 << 10)
#define INS_PATHMAP_FILE        "traces.pathmap"

#define INS_CLOCK_TSC           "tsc"
#define INS_CLOCK_MONO_RAW      "monotonic_raw"

/* ---- attributes carried by every Enter and Leave event (OTF2_TYPE_UINT64) */
#define INS_ATTR_OP             "paptree::op"     /* operation number on the tree instance, from 0 */
#define INS_ATTR_BYTES          "paptree::bytes"  /* tuple size in bytes */
#define INS_ATTR_OP_ID          0u                /* their OTF2 attribute references */
#define INS_ATTR_BYTES_ID       1u

/*
 * ---- regions: one per (instance, wrapper) of the traced tree ----------
 * id          = instance * nnodes + node (node = index in the tree, in
 *               pathmap order of declaration)
 * name        = the wrapper's pathmap name
 * canonical   = "<tree>#<instance>/<name>"
 * description = space-separated key=value pairs, keys below, in this order
 * role        = OTF2_REGION_ROLE_WRAPPER, paradigm OTF2_PARADIGM_USER
 * source file = the pathmap path; begin/end line = the wrapper's line
 */
#define INS_REGION_CANONICAL_FMT "%s#%u/%s"
#define INS_KEY_KIND            "kind"       /* gred | proxy | core | algo */
#define INS_KEY_HOST            "host"       /* host name */
#define INS_KEY_PARENT          "parent"     /* parent wrapper's name; "-" for the core */
#define INS_KEY_TREE            "tree"       /* tree name */
#define INS_KEY_INSTANCE        "instance"   /* 0 .. instances-1 */
#define INS_KEY_NODE            "node"       /* index in the tree */
#define INS_KEY_FANIN           "fanin"      /* contributors per operation */
#define INS_NO_PARENT           "-"
/* after fanin, for an algorithm node only (docs/pathmap.md, "algo") */
#define INS_KEY_ALGO            "algo"       /* run=: an algorithm of the table, "native"
                                                or "auto" (what each operation ran: its
                                                choice record) */
#define INS_KEY_BCAST           "bcast"      /* the broadcast after a reduce; "-" if none */
#define INS_KEY_HOSTS           "hosts"      /* its hosts, comma-separated, = ranks 0.. of the node */
#define INS_KEY_ROOT            "root"       /* rooted algorithms: the root's rank in the node; "-" */
#define INS_KEY_ARRIVAL         "arrival"    /* equal | history | edge */
#define INS_KEY_PAP             "pap"        /* yes: PAP-aware (its run or bcast reads the
                                                arrival times), so it records one arrival
                                                event per operation (below); no: none.
                                                Absent in archives written before it. */
#define INS_PAP_YES             "yes"
#define INS_PAP_NO              "no"

/*
 * ---- system tree, location groups, locations --------------------------
 * System tree node 0 is the machine (class "machine"); node 1+h is host h
 * (class "node", name = pathmap host name).  Location group r is the
 * process of rank r = host r, type PROCESS, under node 1+r.
 * Location id = (rank << INS_LOC_RANK_SHIFT) | index, where index is the
 * location's index on its host as the runtime enumerates it
 * (rt_location_list, runtime/api/rt_hooks.h): the rank's computational
 * threads (sorted by thread id), then its service links (by proxy node,
 * then instance); type CPU_THREAD.
 */
#define INS_STN_MACHINE_CLASS   "machine"
#define INS_STN_NODE_CLASS      "node"
#define INS_LOC_RANK_SHIFT      16
#define INS_LOC_MAX_PER_RANK    (1u << INS_LOC_RANK_SHIFT)

/* system tree node property of a host node: the real host name (string) */
#define INS_STN_PROP_HOSTNAME   "paptree::hostname"

/* location group properties */
#define INS_LG_PROP_HOST        "paptree::host"        /* pathmap host name (string) */
#define INS_LG_PROP_RANK        "paptree::rank"        /* uint64 */

/* location properties */
#define INS_LOC_PROP_ROLE       "paptree::role"        /* string: INS_ROLE_* */
#define INS_LOC_PROP_THREAD     "paptree::thread"      /* compute: pathmap thread id (uint64) */
#define INS_LOC_PROP_ENTER      "paptree::enter"       /* first wrapper it runs (string) */
#define INS_LOC_PROP_PROXY      "paptree::proxy"       /* service: the proxy it serves (string) */
#define INS_LOC_PROP_INSTANCE   "paptree::instance"    /* service: the link's instance (uint64) */
#define INS_LOC_PROP_FLUSHES    "paptree::flushes"     /* buffer flushes while recording (uint64) */
#define INS_ROLE_COMPUTE        "compute"
#define INS_ROLE_SERVICE        "service"
#define INS_ROLE_ALGO           "algo"      /* the host's part in the algorithm node */

/*
 * ---- an algorithm node's collective and messages -----------------------
 * Recorded on the RT_LOCATION_ALGO location of each of the node's hosts
 * (role INS_ROLE_ALGO; the location of rank i of the node is the i-th
 * member of the COMM_LOCATIONS group below).  Per operation, in this order:
 *   Enter(region of the node) with the op and bytes attributes   (t1)
 *   MpiCollectiveBegin
 *   MpiIsend / MpiIsendComplete / MpiIrecvRequest / MpiIrecv, per message:
 *       communicator = the instance's, msgTag = the schedule's round,
 *       receiver / sender = the peer's rank in the node,
 *       requestID = (op << 32) | step (the step's index among this rank's
 *       steps of the operation), msgLength = bytes
 *   MpiCollectiveEnd: collectiveOp ALLREDUCE (any run=, native included),
 *       communicator = the instance's, root = OTF2_UNDEFINED_UINT32,
 *       sizeSent = sizeReceived = the tuple's bytes
 *   Leave(region of the node)                                      (t4)
 * Definitions: one Group of type COMM_LOCATIONS (paradigm MPI, name
 * INS_GROUP_ALGO_LOCATIONS) whose members are the algorithm locations of
 * the node's hosts in rank order; one Group of type COMM_GROUP (paradigm
 * MPI, name INS_GROUP_ALGO_RANKS) with members 0..n-1; one Comm per tree
 * instance, id = instance, name = the region canonical name of the node
 * in that instance ("<tree>#<instance>/<node>"), group = the COMM_GROUP.
 * A tree whose root is a core has none of these.
 */
#define INS_GROUP_ALGO_LOCATIONS "paptree algorithm locations"
#define INS_GROUP_ALGO_RANKS     "paptree algorithm ranks"
#define INS_REQUEST_ID(op, step) ((((unsigned long long)(op)) << 32) | (unsigned)(step))

/*
 * ---- where a PAP-aware node's arrival times came from -------------------
 * An algorithm node whose region says pap=yes records, on each algorithm
 * location, in every visit of the node, exactly one
 *   ParameterString(parameter INS_PARAM_ARRIVAL, value = the source used:
 *                   "equal" | "history" | "edge")
 * after MpiCollectiveBegin and before the first message (and End), with
 * these attributes, in this order (rt_arrival_report_t, rt_hooks.h):
 *   INS_ATTR_OP       UINT64  the visit's operation
 *   INS_ATTR_ASKED    STRING  the node's arrival= ("equal" | "history" | "edge")
 *   INS_ATTR_MISSING  INT64   only when edge fell back: the node rank of the
 *                             first host with no estimate
 *   INS_ATTR_ERROR    INT64   only with an estimate: this host's estimated
 *                             arrival at the node minus its actual one, ns
 *   INS_ATTR_LEAD     INT64   only with an estimate: how long before this
 *                             host's arrival its estimate was shared, ns
 *   INS_ATTR_WAIT     INT64   ns the node waited for the arrival vector
 * The parameter, these attributes and the three source names are defined
 * only in an archive whose tree has a PAP-aware algorithm node.
 */
#define INS_ARRIVAL_EQUAL       "equal"      /* the sources, as arrival= spells them; */
#define INS_ARRIVAL_HISTORY     "history"    /* String ids 0, 1, 2 in this order */
#define INS_ARRIVAL_EDGE        "edge"
#define INS_PARAM_ARRIVAL       "paptree::arrival"
#define INS_PARAM_ARRIVAL_ID    0u
#define INS_ATTR_ASKED          "paptree::asked"
#define INS_ATTR_MISSING        "paptree::missing"
#define INS_ATTR_ERROR          "paptree::error_ns"
#define INS_ATTR_LEAD           "paptree::lead_ns"
#define INS_ATTR_WAIT           "paptree::wait_ns"
#define INS_ATTR_ASKED_ID       2u
#define INS_ATTR_MISSING_ID     3u
#define INS_ATTR_ERROR_ID       4u
#define INS_ATTR_LEAD_ID        5u
#define INS_ATTR_WAIT_ID        6u

/*
 * ---- clocks ------------------------------------------------------------
 * Timestamps are raw ticks of the clock named by INS_PROP_CLOCK; the
 * ClockProperties resolution is ticks per second.  Each location's local
 * definitions hold two ClockOffset records, measured at the start and at
 * the end of the run (ping-pong with rank 0, minimum round trip):
 * time = local ticks, offset = rank 0's ticks - local ticks (so global =
 * local + offset, interpolated linearly between the two records),
 * standardDeviation = half the minimum round trip, in ticks.
 */

/*
 * ---- application traces (the profiling library, ins_mpi.h) ------------
 * An archive written by lib/libpaptree-mpi.so for an unmodified MPI
 * program has INS_PROP_KIND = INS_KIND_MPI (a tree trace has no such
 * property, or INS_KIND_TREE) and no pathmap properties.  It is written
 * the way Score-P writes MPI:
 *  - one region per MPI function (ins_mpi_func_name: "MPI_Allreduce", ...),
 *    paradigm OTF2_PARADIGM_MPI, role OTF2_REGION_ROLE_COLL_ALL2ALL
 *    (allreduce, barrier, allgather, reduce_scatter_block, iallreduce),
 *    COLL_ALL2ONE (reduce, ireduce), COLL_ONE2ALL (bcast, ibcast), or
 *    FUNCTION (MPI_Wait, MPI_Test);
 *  - location group r = world rank r (PROCESS); its locations are the
 *    threads that called an intercepted function, id = (r << 16) | the
 *    thread's index in the order they first called, type CPU_THREAD;
 *  - a COMM_LOCATIONS group (INS_GROUP_MPI_LOCATIONS) of every rank's
 *    first location, in world rank order, and per communicator a
 *    COMM_GROUP (members = world ranks) and a Comm, in the order of their
 *    ins_mpi_comm_def_t.id and numbered 0, 1, ... in that order (OTF2
 *    wants each kind of definition dense; the library's ids are sparse),
 *    name its MPI name (or "comm <number>"); the events hold the library's
 *    ids, and every location's local definitions carry a mapping table
 *    (OTF2_MAPPING_COMM) from those to the numbers, which OTF2's reader
 *    applies (none when the trace has no communicator);
 *  - per blocking call: Enter(region) with the attributes below,
 *    MpiCollectiveBegin, the algorithm's messages (as an algorithm node's,
 *    communicator = the call's, requestID = INS_REQUEST_ID(k, step) with k
 *    the number of blocking calls written before on the location),
 *    MpiCollectiveEnd(op, comm, root, sizeSent, sizeReceived), Leave;
 *  - per nonblocking call: Enter, NonBlockingCollectiveRequest(request),
 *    Leave; in the MPI_Wait/MPI_Test that completed it: Enter,
 *    NonBlockingCollectiveComplete(op, comm, root, sent, received,
 *    request), Leave.
 * Attributes of every Enter, a completing MPI_Wait/MPI_Test's too (their
 * ids follow the arrival attributes'; ids 0 to 6 are defined too, unused,
 * so that the ids are dense).  Their strings are numbered per rank (the
 * same text may have one String id per rank; docs/trace-format.md):
 */
#define INS_PROP_KIND           "PAPTREE::KIND"            /* INS_KIND_MPI | INS_KIND_TREE */
#define INS_KIND_MPI            "mpi"
#define INS_KIND_TREE           "tree"
#define INS_PROP_RULES          "PAPTREE::RULES"           /* the --algo rules, as given;
                                                              absent when none (OTF2 writes
                                                              no empty property; so for
                                                              every property: absent = "") */
#define INS_PROP_RANKS          "PAPTREE::RANKS"           /* MPI_COMM_WORLD's size, decimal */
#define INS_GROUP_MPI_LOCATIONS "paptree MPI locations"
/* Communicator ids (ins_mpi_comm_def_t.id, and so the numbers read back, as
   they come first): MPI_COMM_WORLD's is 0; 1 is
   MPI_COMM_SELF's, whose members differ by rank: it is written as Score-P
   writes it, one Comm over a group of type COMM_SELF with no members. */
#define INS_COMM_WORLD_ID       0u
#define INS_COMM_SELF_ID        1u
#define INS_ATTR_CALLSITE       "paptree::callsite"  /* STRING: "MODULE+0xOFFSET" of the return
                                                        address (MODULE the executable's or
                                                        shared object's path) */
#define INS_ATTR_ALGO           "paptree::algo"      /* STRING: "native" or the rule's ALGO */
#define INS_ATTR_FALLBACK       "paptree::fallback"  /* STRING: ins_mpi_fallback_name; "" */
#define INS_ATTR_COUNT          "paptree::count"     /* INT64: the call's count */
#define INS_ATTR_DTYPE          "paptree::dtype"     /* STRING: MPI_INT, MPI_DOUBLE, ...,
                                                        "derived" */
#define INS_ATTR_MPI_OP         "paptree::mpi_op"    /* STRING: MPI_SUM, ..., "user", "" */
#define INS_ATTR_CALLSITE_ID    7u
#define INS_ATTR_ALGO_ID        8u
#define INS_ATTR_FALLBACK_ID    9u
#define INS_ATTR_COUNT_ID       10u
#define INS_ATTR_DTYPE_ID       11u
#define INS_ATTR_MPI_OP_ID      12u

/*
 * ---- what `auto` chose (docs/auto.md, rt_auto.h) -------------------------
 * Per operation of an auto algorithm node, on each algorithm location, in
 * the visit of the node, after the arrival record and before the first
 * message: exactly one
 *   ParameterString(parameter INS_PARAM_AUTO, value = the chosen candidate's
 *                   name: "ring", "prr", "native", ...)
 * with these attributes, in this order (rt_auto_choice_t):
 *   INS_ATTR_OP          UINT64  the visit's operation
 *   INS_ATTR_CANDIDATES  STRING  the candidates in order, comma-separated
 *                                ("rd,ring,rabenseifner,prr,slt,native")
 *   INS_ATTR_REASON      STRING  "only" | "model" | "kept" | "explore"
 *   INS_ATTR_SPREAD      INT64   max - min of the arrival vector, ns
 *   INS_ATTR_PRED0 + i   INT64   candidate i's predicted time, ns (absent:
 *                                not predicted, e.g. skipped); i < ncand
 *   INS_ATTR_CORR0 + i   INT64   the same corrected by what was measured
 *   INS_ATTR_SKIPPED     UINT64  rt_auto_choice_t.skipped (the PAP-aware
 *                                candidates left out because the spread
 *                                cannot pay for their schedules)
 * In an application trace (the profiling library) the same attributes, but
 * INS_ATTR_OP, are on the Enter of a call that an auto rule ran, and
 * INS_ATTR_ALGO is the chosen candidate's name.  The parameter and these
 * attributes are defined only in an archive that has an auto node or an
 * auto rule; their ids follow the application attributes' (ids below 13
 * are defined too in such an archive, unused if the kind does not use
 * them, so that the ids are dense).
 */
#define INS_PARAM_AUTO          "paptree::auto"
#define INS_PARAM_AUTO_ID       1u
#define INS_ATTR_CANDIDATES     "paptree::candidates"
#define INS_ATTR_REASON         "paptree::reason"
#define INS_ATTR_SPREAD         "paptree::spread_ns"
#define INS_ATTR_SKIPPED        "paptree::skipped"
#define INS_ATTR_PRED_FMT       "paptree::pred%u_ns"   /* i = 0 .. 7 */
#define INS_ATTR_CORR_FMT       "paptree::corr%u_ns"
#define INS_ATTR_CANDIDATES_ID  13u
#define INS_ATTR_REASON_ID      14u
#define INS_ATTR_SPREAD_ID      15u
#define INS_ATTR_SKIPPED_ID     16u
#define INS_ATTR_PRED0_ID       17u                    /* 17 .. 24 */
#define INS_ATTR_CORR0_ID       25u                    /* 25 .. 32 */
#define INS_AUTO_CAND_MAX       8u                     /* = RT_AUTO_CAND_MAX */

#endif /* INS_SCHEMA_H */
