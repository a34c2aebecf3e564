/*
 * tc_int.h - private to trace_check (tests/oracles/trace_check.c and its
 * parts in tests/oracles/trace_check/): the limits, the records read from
 * the archive, the expected locations, the context every check fills, and
 * the functions one part defines for another.
 */
#ifndef TC_INT_H
#define TC_INT_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <otf2/otf2.h>
#include "instrument/api/ins_schema.h"
#include "runtime/api/rt_auto.h"
#include "runtime/api/rt_pathmap.h"

#define TC_FAIL_LINES    50            /* printed before "... and N more" */
#define TC_STRING_MAX    (1u << 24)    /* largest string id accepted */
#define TC_OP_MAX        (1u << 24)    /* largest op number counted without --ops */
#define TC_INSTANCES_MAX 1024
#define TC_OPS_MAX       (UINT64_C(1) << 30)
/* The group ids of docs/trace-format.md, "Algorithm nodes" (Group 0, Group 1). */
#define INS_GROUP_ALGO_LOCATIONS_ID_ 0u
#define INS_GROUP_ALGO_RANKS_ID_     1u

/* A growable array of `size`-byte items. */
typedef struct tc_vec { void *data; size_t n, cap, size; } tc_vec_t;

/* Global definitions as read; checked once all are in. */
typedef struct tc_attr {
    OTF2_AttributeRef self;
    OTF2_StringRef name, desc;
    OTF2_Type type;
} tc_attr_t;
typedef struct tc_region {
    OTF2_RegionRef self;
    OTF2_StringRef name, canon, desc, file;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    uint32_t begin, end;
} tc_region_t;
typedef struct tc_stn { uint32_t self, parent; OTF2_StringRef name, cls; } tc_stn_t;
typedef struct tc_group {
    uint32_t self, parent;
    OTF2_StringRef name;
    OTF2_LocationGroupType type;
} tc_group_t;
typedef struct tc_ldef {
    OTF2_LocationRef self;
    OTF2_StringRef name;
    OTF2_LocationType type;
    uint64_t nevents;
    OTF2_LocationGroupRef group;
} tc_ldef_t;
/* A property of a system tree node, location group or location. */
typedef struct tc_prop {
    uint64_t owner;
    OTF2_StringRef name;
    OTF2_Type type;
    OTF2_AttributeValue value;
} tc_prop_t;

/* An expected property: its name and what its value must be. */
typedef enum { W_STR, W_NONEMPTY, W_U64, W_ANY_U64, W_ABSENT } tc_want_kind_t;
typedef struct tc_want {
    const char *name;
    tc_want_kind_t kind;
    const char *str;                /* W_STR */
    uint64_t u64;                   /* W_U64 */
} tc_want_t;

/* One open visit on a location's stack. */
typedef struct tc_frame { uint64_t region, op, bytes; bool nested; } tc_frame_t;

/* MPI definitions (an algorithm node's groups and communicators). */
typedef struct tc_mgroup {
    uint32_t self, n;
    OTF2_StringRef name;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint64_t *members;
} tc_mgroup_t;
typedef struct tc_comm { uint32_t self, group, parent; OTF2_StringRef name; } tc_comm_t;
typedef struct tc_param { uint32_t self; OTF2_StringRef name; OTF2_ParameterType type; } tc_param_t;

/* One message as its sender or its receiver recorded it (9.). */
typedef struct tc_msg { uint64_t inst, op, src, dst, tag, len; } tc_msg_t;
/* A posted request of an algorithm location, not completed yet. */
typedef struct tc_req { uint64_t id; bool recv; } tc_req_t;

/* An expected location (from the pathmap) and what was read for it. */
typedef struct tc_loc {
    uint64_t id;
    uint32_t rank;
    bool service;
    bool algo;                      /* the host's part in the algorithm node */
    const rt_thread_map_t *thread;  /* compute */
    rt_node_id_t proxy;             /* service */
    unsigned instance;              /* service */
    rt_node_id_t first;             /* the first wrapper it runs */
    uint32_t path_len;              /* first .. first proxy or core, inclusive */
    char label[112];
    bool defined;
    uint64_t nevents_def, nevents, first_time, last_time;
    bool skipped;                   /* a record without callback was seen */
    unsigned noffsets, nunknown_defs;
    uint64_t off_time[2];
    int64_t offset[2];
    double off_sd[2];
    tc_frame_t *stack;              /* nnodes + 1 frames */
    uint32_t depth;
    uint64_t *next_op;              /* per instance: the next top-level op */
    OTF2_EvtReader *evr;
    /* algo: its rank in the node; the collective of the open visit */
    uint32_t node_rank;
    bool in_coll, coll_done;
    uint32_t coll_events;           /* MPI events after the collective's begin */
    uint32_t arrivals;              /* arrival events in the open visit (10.) */
    uint32_t choices;               /* auto's choice events in the open visit (10.) */
    uint64_t arrivals_total;        /* arrival events so far, every instance (10.) */
    tc_req_t *reqs;                 /* posted, not completed */
    size_t nreqs, capreqs;
} tc_loc_t;

/* Per region and op: Enter events, and visits that continued to the parent. */
typedef struct tc_count { uint32_t *visits, *nests; size_t len; } tc_count_t;

typedef struct tc_ctx {
    const rt_pathmap_t *pm;
    const rt_tree_t *tree;
    unsigned ninst;
    uint64_t nregions;
    bool have_ops;
    uint64_t ops;
    const char *dir;                /* the archive directory */
    char *pathmap_path;             /* PAPTREE::PATHMAP_PATH */
    char **str;                     /* string definitions by id */
    size_t nstr;
    tc_vec_t attrs, regions, stns, stn_props, groups, group_props, ldefs, loc_props;
    tc_vec_t mgroups, comms, sends, recvs, params;
    const rt_node_t *algo;          /* the tree's algorithm node, or NULL */
    bool pap;                       /* it is PAP-aware (the pathmap says so) */
    const rt_auto_cfg_t *autocfg;   /* it is an auto node: its configuration; else NULL */
    bool clock_ns;                  /* PAPTREE::CLOCK is monotonic_raw: ns ticks */
    unsigned nclock, nunknown_defs;
    uint64_t resolution, t_first, t_last;   /* ClockProperties */
    uint64_t n_outside, outside_loc, outside_time;
    tc_loc_t *locs;                 /* sorted by id */
    uint32_t nlocs;
    uint32_t *rank_base;            /* rank r's locations: [rank_base[r], rank_base[r+1]) */
    tc_count_t *counts;             /* per region */
    uint64_t total_events;
    unsigned long nfail;
    bool oom;
} tc_ctx_t;

/* ---- defined in one part, used in another ---- */

void tc_fail(tc_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void expect_u64(tc_ctx_t *c, uint64_t exp, uint64_t got, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void expect_str(tc_ctx_t *c, const char *exp, const char *got, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void ev_fail(tc_ctx_t *c, const tc_loc_t *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int io_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *vec_push(tc_ctx_t *c, tc_vec_t *v);
const char *str_of(const tc_ctx_t *c, OTF2_StringRef id);
bool parse_u64(const char *s, uint64_t max, uint64_t *out);
const rt_node_t *node_of(const tc_ctx_t *c, uint64_t region);
const char *region_label(const tc_ctx_t *c, uint64_t region, char *buf, size_t n);
uint64_t ops_of(const tc_ctx_t *c, unsigned inst);
bool check_properties(tc_ctx_t *c, OTF2_Reader *rd);
uint32_t path_len(const rt_tree_t *t, rt_node_id_t id);
bool build_locations(tc_ctx_t *c);
tc_loc_t *find_loc(tc_ctx_t *c, uint64_t id);
OTF2_ErrorCode read_global_defs(tc_ctx_t *c, OTF2_Reader *rd);
bool check_definitions(tc_ctx_t *c);
void read_local_defs(tc_ctx_t *c, OTF2_Reader *rd);
void check_clocks(tc_ctx_t *c);
tc_loc_t *event_begin(tc_ctx_t *c, OTF2_LocationRef id, OTF2_TimeStamp t, const char *kind);
bool read_events(tc_ctx_t *c, OTF2_Reader *rd);
OTF2_CallbackCode on_coll_begin(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al);
OTF2_CallbackCode on_coll_end(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                              OTF2_AttributeList *al, OTF2_CollectiveOp op,
                              OTF2_CommRef comm, uint32_t root, uint64_t sent,
                              uint64_t received);
OTF2_CallbackCode on_isend(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                           OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
                           uint32_t tag, uint64_t len, uint64_t req);
OTF2_CallbackCode on_isend_done(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint64_t req);
OTF2_CallbackCode on_irecv_post(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                OTF2_AttributeList *al, uint64_t req);
OTF2_CallbackCode on_irecv(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                           OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
                           uint32_t tag, uint64_t len, uint64_t req);
OTF2_CallbackCode on_param_string(OTF2_LocationRef id, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_ParameterRef param,
                                  OTF2_StringRef value);
void check_ends(tc_ctx_t *c);
void check_last_arrivals(tc_ctx_t *c);
void check_messages(tc_ctx_t *c);
void check_counts(tc_ctx_t *c);

#endif /* TC_INT_H */
