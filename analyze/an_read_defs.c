/*
 * an_read_defs.c - a paptree archive's definitions into an_defs_t.
 *
 * Global definitions are read raw (strings, regions, locations, properties),
 * then turned into the model by the paptree conventions of
 * docs/trace-format.md: archive properties, hosts, wrappers (from region
 * descriptions), locations and threads; an_defs_finish (an_defs.c) derives
 * the rest.  Last come the local definitions: each host's ClockOffset
 * records, which OTF2 needs read before it can correct the events' times.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <otf2/otf2.h>

#include "analyze/an_read_int.h"
#include "common/cm_hash.h"
#include "instrument/api/ins_schema.h"

#define AN_MAX_REFS   (1u << 24)   /* definitions per kind we accept */

static void *vec_push(rd_vec_t *v)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        void *p = realloc(v->data, cap * v->size);
        if (p == NULL)
            return NULL;
        v->data = p;
        v->cap = cap;
    }
    return (char *)v->data + v->size * v->n++;
}

static char *str_dup(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

#define PUSH_OR_FAIL(r, vec, type, ...)                                      \
    do {                                                                     \
        type *p_ = vec_push(&(r)->vec);                                      \
        if (p_ == NULL)                                                      \
            return an__read_fail((r), CM_ERR_NOMEM, "out of memory");              \
        *p_ = (type){ __VA_ARGS__ };                                         \
    } while (0)

/* --------------------------------------------------- global definitions */

static OTF2_CallbackCode on_clock(void *ud, uint64_t res, uint64_t off, uint64_t len,
                                  uint64_t realtime)
{
    an_reader_t *r = ud;

    (void)realtime;
    r->nclock++;
    r->defs->resolution = res;
    r->defs->global_offset = off;
    r->defs->trace_length = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    an_reader_t *r = ud;

    if (self >= AN_MAX_REFS)
        return an__read_fail(r, CM_ERR_RANGE, "string definition %u: too many strings", self);
    if (self >= r->nstrings) {
        uint32_t n = self + 1 > 2 * r->nstrings ? self + 1 : 2 * r->nstrings;
        char **p = realloc(r->strings, n * sizeof(*p));
        if (p == NULL)
            return an__read_fail(r, CM_ERR_NOMEM, "out of memory");
        memset(p + r->nstrings, 0, (n - r->nstrings) * sizeof(*p));
        r->strings = p;
        r->nstrings = n;
    }
    free(r->strings[self]);
    if ((r->strings[self] = strdup(s)) == NULL)
        return an__read_fail(r, CM_ERR_NOMEM, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

static const char *str_of(const an_reader_t *r, uint32_t ref)
{
    return ref < r->nstrings ? r->strings[ref] : NULL;
}

static OTF2_CallbackCode on_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                 OTF2_StringRef desc, OTF2_Type type)
{
    an_reader_t *r = ud;
    const char *s = str_of(r, name);

    (void)desc;
    r->nattr++;
    if (an__auto_attr_slot(s, type) >= 0)
        r->attr_auto[an__auto_attr_slot(s, type)] = self;
    else if (s != NULL && strcmp(s, INS_ATTR_OP) == 0 && type == OTF2_TYPE_UINT64)
        r->attr_op = self;
    else if (s != NULL && strcmp(s, INS_ATTR_BYTES) == 0 && type == OTF2_TYPE_UINT64)
        r->attr_bytes = self;
    else if (s != NULL && strcmp(s, INS_ATTR_ASKED) == 0 && type == OTF2_TYPE_STRING)
        r->attr_arr[0] = self;
    else if (s != NULL && type == OTF2_TYPE_INT64) {
        static const char *const names[] = { INS_ATTR_MISSING, INS_ATTR_ERROR, INS_ATTR_LEAD,
                                             INS_ATTR_WAIT };
        for (int i = 0; i < 4; i++)
            if (strcmp(s, names[i]) == 0)
                r->attr_arr[1 + i] = self;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The arrival parameter of a PAP-aware node (ins_schema.h). */
static OTF2_CallbackCode on_param(void *ud, OTF2_ParameterRef self, OTF2_StringRef name,
                                  OTF2_ParameterType type)
{
    an_reader_t *r = ud;
    const char *s = str_of(r, name);

    if (s != NULL && strcmp(s, INS_PARAM_ARRIVAL) == 0 && type == OTF2_PARAMETER_TYPE_STRING)
        r->param_arrival = self;
    if (s != NULL && strcmp(s, INS_PARAM_AUTO) == 0 && type == OTF2_PARAMETER_TYPE_STRING)
        r->param_auto = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                   OTF2_StringRef canon, OTF2_StringRef desc,
                                   OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file,
                                   uint32_t begin, uint32_t end)
{
    an_reader_t *r = ud;

    (void)role, (void)paradigm, (void)flags, (void)end;
    PUSH_OR_FAIL(r, regions, rd_region_t, self, name, canon, desc, file, begin);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    (void)ud, (void)self, (void)name, (void)cls, (void)parent;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef stn,
                                  OTF2_LocationGroupRef creator)
{
    an_reader_t *r = ud;

    (void)name, (void)type, (void)creator;
    /* group (= rank) -> its system tree node, for the host name */
    PUSH_OR_FAIL(r, stn_parent, rd_prop_t, self, stn, OTF2_TYPE_NONE, { .uint64 = 0 });
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t events,
                                     OTF2_LocationGroupRef group)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, locs, rd_loc_t, self, events, name, group, (int)type);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_stn_prop(void *ud, OTF2_SystemTreeNodeRef owner,
                                     OTF2_StringRef name, OTF2_Type type,
                                     OTF2_AttributeValue value)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, stn_props, rd_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group_prop(void *ud, OTF2_LocationGroupRef owner,
                                       OTF2_StringRef name, OTF2_Type type,
                                       OTF2_AttributeValue value)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, group_props, rd_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_loc_prop(void *ud, OTF2_LocationRef owner, OTF2_StringRef name,
                                     OTF2_Type type, OTF2_AttributeValue value)
{
    an_reader_t *r = ud;

    PUSH_OR_FAIL(r, loc_props, rd_prop_t, owner, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

/* The property `name` of owner in props, or NULL. */
static const rd_prop_t *prop_find(const an_reader_t *r, const rd_vec_t *props, uint64_t owner,
                                  const char *name)
{
    const rd_prop_t *p = props->data;

    for (size_t i = 0; i < props->n; i++) {
        const char *s = str_of(r, p[i].name);
        if (p[i].owner == owner && s != NULL && strcmp(s, name) == 0)
            return &p[i];
    }
    return NULL;
}

static const char *prop_str(const an_reader_t *r, const rd_vec_t *props, uint64_t owner,
                            const char *name)
{
    const rd_prop_t *p = prop_find(r, props, owner, name);

    return p != NULL && p->type == OTF2_TYPE_STRING ? str_of(r, p->value.stringRef) : NULL;
}

/* 1 and *v if owner has the uint64 property name. */
static int prop_u64(const an_reader_t *r, const rd_vec_t *props, uint64_t owner,
                    const char *name, uint64_t *v)
{
    const rd_prop_t *p = prop_find(r, props, owner, name);

    if (p == NULL || p->type != OTF2_TYPE_UINT64)
        return 0;
    *v = p->value.uint64;
    return 1;
}

static cm_status_t read_global_defs(an_reader_t *r)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r->rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_ErrorCode rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    uint64_t n = 0;

    if (gdr != NULL && cb != NULL) {
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
        OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attr);
        OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, on_param);
        OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
        OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_stn);
        OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback(cb, on_stn_prop);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, on_group_prop);
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
        OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, on_loc_prop);
        rc = OTF2_Reader_RegisterGlobalDefCallbacks(r->rd, gdr, cb, r);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllGlobalDefinitions(r->rd, gdr, &n);
    }
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gdr != NULL)
        OTF2_Reader_CloseGlobalDefReader(r->rd, gdr);
    if (r->st != CM_OK)
        return r->st;
    if (rc != OTF2_SUCCESS)
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot read the global definitions: %s", an__read_why(rc));
    return CM_OK;
}

/* ------------------------------------------------- paptree conventions */

static cm_status_t get_prop(an_reader_t *r, const char *name, char **out)
{
    char *v = NULL;

    if (OTF2_Reader_GetProperty(r->rd, name, &v) != OTF2_SUCCESS || v == NULL)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "archive property %s missing: the trace is damaged", name);
    *out = v;
    return CM_OK;
}

static cm_status_t parse_count(an_reader_t *r, const char *prop, const char *s, int max,
                               int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "archive property %s: expected a number in 1..%d, got '%s'",
                         prop, max, s);
    *out = (int)v;
    return CM_OK;
}

/* A version-2 archive's pathmap file, next to the anchor, into *out (malloc'd). */
static cm_status_t read_pathmap_file(an_reader_t *r, char **out)
{
    const size_t max = (size_t)16 << 20;        /* pathmaps are at most 16 MiB */
    const char *slash = strrchr(r->anchor, '/');
    int dirlen = slash != NULL ? (int)(slash - r->anchor) : 1;
    char *path = NULL, *text = NULL, *name = NULL;
    size_t len = 0;
    FILE *fp = NULL;
    cm_status_t st;

    if ((st = get_prop(r, INS_PROP_PATHMAP_FILE, &name)) != CM_OK)
        return st;
    if (strcmp(name, INS_PATHMAP_FILE) != 0)
        st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0, "archive property %s: "
                       "expected '%s', got '%s'", INS_PROP_PATHMAP_FILE, INS_PATHMAP_FILE,
                       name);
    else if (asprintf(&path, "%.*s/%s", dirlen, slash != NULL ? r->anchor : ".",
                      INS_PATHMAP_FILE) < 0 || (text = malloc(max + 1)) == NULL)
        st = CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    else if ((fp = fopen(path, "rb")) == NULL)
        st = CM_ERR_AT(r->err, CM_ERR_IO, path, 0, 0, "cannot open the archive's pathmap: "
                       "%s", strerror(errno));
    else if ((len = fread(text, 1, max + 1, fp)) > max || ferror(fp))
        st = CM_ERR_AT(r->err, CM_ERR_IO, path, 0, 0, "cannot read the archive's pathmap%s",
                       len > max ? ": larger than 16 MiB" : "");
    if (fp != NULL)
        fclose(fp);
    free(name);
    free(path);
    if (st != CM_OK) {
        free(text);
        return st;
    }
    text[len] = '\0';
    *out = text;
    return CM_OK;
}

/*
 * The pathmap text (docs/trace-format.md): the property of a version-1
 * archive, or the file of a version-2 one.  Either must hash to
 * INS_PROP_PATHMAP_HASH, so that a damaged text is refused rather than
 * taken for another pathmap.
 */
static cm_status_t read_pathmap(an_reader_t *r, bool in_file)
{
    an_defs_t *d = r->defs;
    char hash[17];
    cm_status_t st;

    if ((st = get_prop(r, INS_PROP_PATHMAP_HASH, &d->pathmap_hash)) != CM_OK)
        return st;
    st = in_file ? read_pathmap_file(r, &d->pathmap) : get_prop(r, INS_PROP_PATHMAP,
                                                                &d->pathmap);
    if (st != CM_OK)
        return st;
    snprintf(hash, sizeof(hash), "%016" PRIx64, cm_hash_fnv1a(d->pathmap, strlen(d->pathmap)));
    if (strcmp(hash, d->pathmap_hash) != 0)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "the pathmap stored in the archive does not match its hash (%s "
                         "%s, the text hashes to %s): the trace is damaged",
                         INS_PROP_PATHMAP_HASH, d->pathmap_hash, hash);
    return CM_OK;
}

/*
 * The schema version v (ins_schema.h): 1 to INS_SCHEMA_VERSION_MAX, where
 * the pathmap text is (*in_file: INS_PATHMAP_FILE), or a refusal that says
 * whether a newer paptree wrote the trace.
 */
static cm_status_t check_version(an_reader_t *r, const char *v, bool *in_file)
{
    char *end = NULL, *name = NULL;
    long n = v[0] >= '1' && v[0] <= '9' ? strtol(v, &end, 10) : 0;

    if (end == NULL || *end != '\0' || n < 1)
        return CM_ERR_AT(r->err, CM_ERR_UNSUPPORTED, r->anchor, 0, 0,
                         "paptree trace schema version %s: unknown; this papanalyze reads "
                         "1 to %d", v, INS_SCHEMA_VERSION_MAX);
    if (n > INS_SCHEMA_VERSION_MAX)
        return CM_ERR_AT(r->err, CM_ERR_UNSUPPORTED, r->anchor, 0, 0,
                         "paptree trace schema version %s: made by a newer paptree; this "
                         "papanalyze reads up to %d", v, INS_SCHEMA_VERSION_MAX);
    /* Version 3 names the place by the property it sets; 2 always a file. */
    if (n >= 3 && OTF2_Reader_GetProperty(r->rd, INS_PROP_PATHMAP_FILE, &name) == OTF2_SUCCESS)
        *in_file = name != NULL;
    else
        *in_file = strcmp(v, INS_SCHEMA_VERSION_FILE) == 0;
    free(name);
    return CM_OK;
}

/* The archive properties; the first check tells a foreign trace from ours. */
static cm_status_t read_props(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    char *v = NULL;
    bool in_file = false;
    cm_status_t st;

    if (OTF2_Reader_GetProperty(r->rd, INS_PROP_VERSION, &v) != OTF2_SUCCESS || v == NULL)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "not a paptree trace: no %s property (written by another tool?)",
                         INS_PROP_VERSION);
    d->trace_version = v;
    if ((st = check_version(r, v, &in_file)) != CM_OK)
        return st;
    if ((st = read_pathmap(r, in_file)) != CM_OK
        || (st = get_prop(r, INS_PROP_PATHMAP_PATH, &d->pathmap_path)) != CM_OK
        || (st = get_prop(r, INS_PROP_TREE, &d->tree)) != CM_OK
        || (st = get_prop(r, INS_PROP_CLOCK, &d->clock)) != CM_OK
        || (st = get_prop(r, INS_PROP_COMMAND, &d->command)) != CM_OK)
        return st;
    if ((st = get_prop(r, INS_PROP_INSTANCES, &v)) != CM_OK)
        return st;
    st = parse_count(r, INS_PROP_INSTANCES, v, 1 << 16, &d->ninstances);
    free(v);
    if (st != CM_OK)
        return st;
    if ((st = get_prop(r, INS_PROP_HOSTS, &v)) != CM_OK)
        return st;
    st = parse_count(r, INS_PROP_HOSTS, v, 1 << 15, &d->nhosts);
    free(v);
    return st;
}

/* Value of `key=` in a region description, copied into buf; NULL if absent. */
static const char *desc_get(const char *desc, const char *key, char *buf, size_t n)
{
    size_t klen = strlen(key);

    for (const char *p = desc; p != NULL && *p; ) {
        const char *end = strchr(p, ' ');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            len -= klen + 1;
            if (len >= n)
                return NULL;
            memcpy(buf, p + klen + 1, len);
            buf[len] = '\0';
            return buf;
        }
        p = end != NULL ? end + 1 : NULL;
    }
    return NULL;
}

static int desc_int(const char *desc, const char *key, long max, long *out)
{
    char buf[32], *end;
    const char *s = desc_get(desc, key, buf, sizeof(buf));
    long v;

    if (s == NULL || *s == '\0')
        return 0;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0 || v > max)
        return 0;
    *out = v;
    return 1;
}

static int host_by_name(const an_defs_t *d, const char *name)
{
    for (int h = 0; h < d->nhosts; h++)
        if (d->hosts[h].name != NULL && strcmp(d->hosts[h].name, name) == 0)
            return h;
    return -1;
}

static cm_status_t read_hosts(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    const rd_prop_t *sp = r->stn_parent.data;

    if ((d->hosts = calloc((size_t)d->nhosts, sizeof(*d->hosts))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int h = 0; h < d->nhosts; h++) {
        const char *name = prop_str(r, &r->group_props, (uint64_t)h, INS_LG_PROP_HOST);
        const char *hn = NULL;
        if (name == NULL)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location group %d: no %s property: the trace is damaged",
                             h, INS_LG_PROP_HOST);
        for (size_t i = 0; i < r->stn_parent.n; i++)
            if (sp[i].owner == (uint64_t)h)
                hn = prop_str(r, &r->stn_props, sp[i].name, INS_STN_PROP_HOSTNAME);
        d->hosts[h].name = str_dup(name);
        d->hosts[h].hostname = str_dup(hn != NULL ? hn : "");
        if (d->hosts[h].name == NULL || d->hosts[h].hostname == NULL)
            return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    }
    return CM_OK;
}

/*
 * An algorithm node's keys (ins_schema.h: algo, bcast, hosts, root,
 * arrival): hosts= names its hosts in rank order, each a host of the trace,
 * ascending and distinct.
 */
static cm_status_t read_algo_keys(an_reader_t *r, uint32_t region, const char *desc,
                                  an_wrapper_t *w)
{
    an_defs_t *d = r->defs;
    size_t n = strlen(desc) + 1;
    char *buf = malloc(n), root[32];
    const char *v;
    long rootv = -1;

    if (buf == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    if ((v = desc_get(desc, INS_KEY_ALGO, buf, n)) == NULL || *v == '\0'
        || (w->algo = strdup(v)) == NULL
        || (v = desc_get(desc, INS_KEY_BCAST, buf, n)) == NULL || (w->bcast = strdup(v)) == NULL
        || (v = desc_get(desc, INS_KEY_ARRIVAL, buf, n)) == NULL
        || (w->arrival = strdup(v)) == NULL
        || desc_get(desc, INS_KEY_ROOT, root, sizeof(root)) == NULL
        || (strcmp(root, INS_NO_PARENT) != 0 && !desc_int(desc, INS_KEY_ROOT, 1 << 20, &rootv))
        || (v = desc_get(desc, INS_KEY_HOSTS, buf, n)) == NULL
        || (w->rank_host = malloc((size_t)d->nhosts * sizeof(int))) == NULL) {
        free(buf);
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "region %u ('%s'): an algorithm node without valid %s, %s, %s, %s "
                         "and %s keys", region, w->name, INS_KEY_ALGO, INS_KEY_BCAST,
                         INS_KEY_HOSTS, INS_KEY_ROOT, INS_KEY_ARRIVAL);
    }
    w->root = (int)rootv;
    w->pap = -1;                        /* an archive older than the key */
    if (desc_get(desc, INS_KEY_PAP, root, sizeof(root)) != NULL) {
        w->pap = strcmp(root, INS_PAP_YES) == 0 ? 1 : strcmp(root, INS_PAP_NO) == 0 ? 0 : -2;
        if (w->pap == -2 || (w->pap == 1 && an_source_of(w->arrival) < 0)) {
            free(buf);
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "region %u ('%s'): %s=%s with %s=%s: not a PAP-aware node's "
                             "keys", region, w->name, INS_KEY_PAP, root, INS_KEY_ARRIVAL,
                             w->arrival);
        }
    }
    w->nranks = 0;
    for (char *tok = buf, *next; tok != NULL; tok = next) {
        int h;
        if ((next = strchr(tok, ',')) != NULL)
            *next++ = '\0';
        h = host_by_name(d, tok);
        if (h < 0 || w->nranks == d->nhosts
            || (w->nranks > 0 && h <= w->rank_host[w->nranks - 1])) {
            cm_status_t st = CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                       "region %u ('%s'): %s= lists '%s', %s", region, w->name,
                                       INS_KEY_HOSTS, tok, h < 0 ? "not a host of the trace"
                                       : "out of ascending order or twice");
            free(buf);
            return st;
        }
        w->rank_host[w->nranks++] = h;
    }
    free(buf);
    if (w->nranks < 1 || w->root >= w->nranks)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "region %u ('%s'): root %d is not a rank of its %d hosts", region,
                         w->name, w->root, w->nranks);
    return CM_OK;
}

/* Regions of instance 0 define the wrappers; the others must agree. */
static cm_status_t read_regions(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    const rd_region_t *rg = r->regions.data;
    size_t nreg = r->regions.n;
    char kind[16], host[80], parent[80], tree[80];
    long node, inst, fanin;

    if (nreg == 0 || nreg % (size_t)d->ninstances != 0)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "%zu regions for %d tree instances: the trace is damaged",
                         nreg, d->ninstances);
    d->nnodes = (int)(nreg / (size_t)d->ninstances);
    if ((d->nodes = calloc((size_t)d->nnodes, sizeof(*d->nodes))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nnodes; i++)
        d->nodes[i].parent = -2;          /* not defined yet */
    /* pass 1: names and kinds; pass 2: parents (by name) */
    for (int pass = 1; pass <= 2; pass++) {
        for (size_t i = 0; i < nreg; i++) {
            const char *desc = str_of(r, rg[i].desc), *name = str_of(r, rg[i].name);
            an_wrapper_t *w;
            if (desc == NULL || name == NULL
                || !desc_get(desc, INS_KEY_KIND, kind, sizeof(kind))
                || !desc_get(desc, INS_KEY_HOST, host, sizeof(host))
                || !desc_get(desc, INS_KEY_PARENT, parent, sizeof(parent))
                || !desc_get(desc, INS_KEY_TREE, tree, sizeof(tree))
                || !desc_int(desc, INS_KEY_NODE, d->nnodes - 1, &node)
                || !desc_int(desc, INS_KEY_INSTANCE, d->ninstances - 1, &inst)
                || !desc_int(desc, INS_KEY_FANIN, 1 << 20, &fanin)
                || rg[i].self != (uint32_t)(inst * d->nnodes + node))
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "region %u ('%s'): description '%s' does not follow the "
                                 "paptree conventions", rg[i].self, name ? name : "?",
                                 desc ? desc : "?");
            w = &d->nodes[node];
            if (pass == 1 && inst == 0) {
                w->name = strdup(name);
                if (w->name == NULL)
                    return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
                if (cm_kind_parse(kind, strlen(kind), &w->kind) != 0)
                    return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                     "region %u: unknown wrapper kind '%s'", rg[i].self, kind);
                w->host = host_by_name(d, host);
                w->fanin = (int)fanin;
                w->line = (int)rg[i].line;
                if (w->host < 0)
                    return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                     "region %u: unknown host '%s'", rg[i].self, host);
                w->root = -1;
                if (w->kind == CM_KIND_ALGO) {
                    cm_status_t st = read_algo_keys(r, rg[i].self, desc, w);
                    if (st != CM_OK)
                        return st;
                }
            } else if (pass == 2 && inst == 0) {
                w->parent = strcmp(parent, INS_NO_PARENT) == 0 ? -1
                          : an_defs_node_index(d, parent);
                if (w->parent == -2 || (w->parent == -1) != (w->kind == CM_KIND_CORE
                                                             || w->kind == CM_KIND_ALGO)) {
                    return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                     "region %u: parent '%s' is not a wrapper of the tree",
                                     rg[i].self, parent);
                }
            } else if (pass == 2 && (w->name == NULL || strcmp(w->name, name) != 0
                                     || w->fanin != fanin)) {
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "region %u: instance %ld of wrapper %ld differs from "
                                 "instance 0", rg[i].self, inst, node);
            }
        }
    }
    for (int i = 0; i < d->nnodes; i++)
        if (d->nodes[i].name == NULL)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "no region for wrapper %d of instance 0", i);
    return CM_OK;
}

static int loc_cmp(const void *a, const void *b)
{
    uint64_t x = ((const an_location_t *)a)->id, y = ((const an_location_t *)b)->id;

    return (x > y) - (x < y);
}

static cm_status_t read_locations(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    const rd_loc_t *rl = r->locs.data;
    int nthreads = 0;

    if (r->locs.n == 0 || r->locs.n > 1u << 20)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "%zu locations: the trace is damaged", r->locs.n);
    d->nlocs = (int)r->locs.n;
    if ((d->locs = calloc((size_t)d->nlocs, sizeof(*d->locs))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    for (int i = 0; i < d->nlocs; i++) {
        an_location_t *l = &d->locs[i];
        const char *role = prop_str(r, &r->loc_props, rl[i].self, INS_LOC_PROP_ROLE);
        const char *enter = prop_str(r, &r->loc_props, rl[i].self, INS_LOC_PROP_ENTER);
        const char *name = str_of(r, rl[i].name);
        uint64_t v;

        l->id = rl[i].self;
        l->events = rl[i].events;
        d->nevents += rl[i].events;
        l->host = (int)rl[i].group;
        l->thread = l->proxy = l->instance = l->rank = -1;
        l->name = str_dup(name != NULL ? name : "?");
        if (l->name == NULL)
            return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
        if (rl[i].group >= (uint32_t)d->nhosts || role == NULL || enter == NULL
            || (l->enter = an_defs_node_index(d, enter)) < 0)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location %" PRIu64 " ('%s'): no valid host, %s or %s",
                             l->id, l->name, INS_LOC_PROP_ROLE, INS_LOC_PROP_ENTER);
        if (prop_u64(r, &r->loc_props, l->id, INS_LOC_PROP_FLUSHES, &v))
            l->flushes = v;
        if (strcmp(role, INS_ROLE_COMPUTE) == 0) {
            l->role = AN_ROLE_COMPUTE;
            if (!prop_u64(r, &r->loc_props, l->id, INS_LOC_PROP_THREAD, &v) || v > 1u << 30)
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "location '%s': no %s property", l->name,
                                 INS_LOC_PROP_THREAD);
            l->thread = (int)v;       /* the pathmap id for now; an index below */
            nthreads++;
        } else if (strcmp(role, INS_ROLE_SERVICE) == 0) {
            const char *proxy = prop_str(r, &r->loc_props, l->id, INS_LOC_PROP_PROXY);
            l->role = AN_ROLE_SERVICE;
            if (proxy == NULL || (l->proxy = an_defs_node_index(d, proxy)) < 0
                || d->nodes[l->proxy].kind != CM_KIND_PROXY
                || d->nodes[l->proxy].parent != l->enter
                || !prop_u64(r, &r->loc_props, l->id, INS_LOC_PROP_INSTANCE, &v)
                || v >= (uint64_t)d->ninstances)
                return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                                 "service location '%s': no valid %s/%s", l->name,
                                 INS_LOC_PROP_PROXY, INS_LOC_PROP_INSTANCE);
            l->instance = (int)v;
        } else if (strcmp(role, INS_ROLE_ALGO) == 0) {
            l->role = AN_ROLE_ALGO;   /* its rank: an_defs_finish */
        } else {
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location '%s': unknown role '%s'", l->name, role);
        }
    }
    qsort(d->locs, (size_t)d->nlocs, sizeof(*d->locs), loc_cmp);
    for (int i = 1; i < d->nlocs; i++)
        if (d->locs[i].id == d->locs[i - 1].id)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "location %" PRIu64 " defined twice", d->locs[i].id);
    d->nthreads = nthreads;
    if ((d->threads = calloc((size_t)nthreads + 1, sizeof(*d->threads))) == NULL)
        return CM_ERR(r->err, CM_ERR_NOMEM, "out of memory");
    nthreads = 0;
    for (int i = 0; i < d->nlocs; i++) {
        an_location_t *l = &d->locs[i];
        if (l->role == AN_ROLE_COMPUTE) {
            d->threads[nthreads] = (an_thread_t){ .id = l->thread, .host = l->host,
                                                  .loc = i, .enter = l->enter };
            nthreads++;
        }
    }
    return CM_OK;
}

/* ----------------------------------------------- local definitions: clocks */

typedef struct rd_offsets {
    int      n;
    uint64_t time[2];
    int64_t  offset[2];
    double   sd[2];
} rd_offsets_t;

static OTF2_CallbackCode on_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double sd)
{
    rd_offsets_t *o = ud;

    if (o->n < 2) {
        o->time[o->n] = time;
        o->offset[o->n] = offset;
        o->sd[o->n] = sd;
    }
    o->n++;
    return OTF2_CALLBACK_SUCCESS;
}

/* The local definition file of location id: the anchor DIR/NAME.otf2's
 * DIR/NAME/ID.def (OTF2's layout), into buf. */
static void def_file(const char *anchor, uint64_t id, char *buf, size_t n)
{
    size_t len = strlen(anchor), ext = strlen(".otf2");

    if (len > ext && strcmp(anchor + len - ext, ".otf2") == 0)
        len -= ext;
    snprintf(buf, n, "%.*s/%" PRIu64 ".def", (int)len, anchor, id);
}

/* Appends "ID ('NAME')" of location l to a list of at most 4 in buf. */
static void list_loc(char *buf, size_t n, int *count, const an_location_t *l)
{
    size_t len = strlen(buf);

    if (++*count <= 4)
        snprintf(buf + len, n - len, "%s%" PRIu64 " ('%s')", *count > 1 ? ", " : "", l->id,
                 l->name);
}

/* Every location needs its definitions file: without it OTF2 silently leaves
 * its times uncorrected.  An error naming the locations whose file is missing. */
static cm_status_t check_def_files(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    char path[4096], first[4096] = "", list[1024] = "";
    struct stat sb;
    int missing = 0;

    for (int i = 0; i < d->nlocs; i++) {
        def_file(r->anchor, d->locs[i].id, path, sizeof(path));
        if (stat(path, &sb) == 0)
            continue;
        if (missing == 0)
            snprintf(first, sizeof(first), "%s", path);
        list_loc(list, sizeof(list), &missing, &d->locs[i]);
    }
    if (missing == 0)
        return CM_OK;
    if (missing == 1)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "location %s: no local definitions (%s is missing): its clock "
                         "offsets are unknown; copy the whole archive", list, first);
    if (missing > 4) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof(list) - len, " and %d more", missing - 4);
    }
    return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                     "locations %s: no local definitions (%s and others are missing): their "
                     "clock offsets are unknown; copy the whole archive", list, first);
}

/* Host offsets from the first location of each host (all of a host's agree).
 * On a trace of several hosts every location must have ClockOffset records:
 * without them OTF2 leaves its times on its own host's clock. */
static cm_status_t read_local_defs(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
    OTF2_ErrorCode rc;
    double ns = 1e9 / (double)d->resolution;
    int nhosts = 0, bad = -1;
    cm_status_t st;

    if ((st = check_def_files(r)) != CM_OK) {
        OTF2_DefReaderCallbacks_Delete(cb);
        return st;
    }
    rc = cb != NULL ? OTF2_Reader_OpenDefFiles(r->rd) : OTF2_ERROR_MEM_ALLOC_FAILED;
    if (rc != OTF2_SUCCESS) {
        OTF2_DefReaderCallbacks_Delete(cb);
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot open the local definition files: %s", an__read_why(rc));
    }
    /* hosts with locations: one host needs no correction */
    for (int h = 0; h < d->nhosts; h++)
        for (int i = 0; i < d->nlocs; i++)
            if (d->locs[i].host == h) {
                nhosts++;
                break;
            }
    OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_offset);
    for (int i = 0; i < d->nlocs && rc == OTF2_SUCCESS; i++) {
        an_location_t *l = &d->locs[i];
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r->rd, l->id);
        rd_offsets_t o = { 0 };
        uint64_t n = 0;
        an_host_t *h = &d->hosts[l->host];

        /* Every location needs its definitions read for OTF2 to apply offsets. */
        if (dr == NULL) {
            bad = bad < 0 ? i : bad;
            continue;
        }
        rc = OTF2_Reader_RegisterDefCallbacks(r->rd, dr, cb, &o);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllLocalDefinitions(r->rd, dr, &n);
        OTF2_Reader_CloseDefReader(r->rd, dr);
        if (rc == OTF2_SUCCESS && o.n == 0 && bad < 0)
            bad = i;
        if (rc == OTF2_SUCCESS && o.n >= 1 && !h->have_offset) {
            h->have_offset = 1;
            h->offset_ns = (double)o.offset[0] * ns;
            h->error_ns = o.sd[0] * ns;
            if (o.n >= 2 && o.time[1] > o.time[0])
                h->drift_ppm = (double)(o.offset[1] - o.offset[0])
                               / (double)(o.time[1] - o.time[0]) * 1e6;
        }
    }
    OTF2_Reader_CloseDefFiles(r->rd);
    OTF2_DefReaderCallbacks_Delete(cb);
    if (rc != OTF2_SUCCESS)
        return CM_ERR_AT(r->err, CM_ERR_IO, r->anchor, 0, 0,
                         "cannot read the local definitions: %s", an__read_why(rc));
    if (bad >= 0 && nhosts > 1) {
        const an_location_t *l = &d->locs[bad];
        const an_host_t *h = &d->hosts[l->host];
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "host %d ('%s', %s): no clock offsets in the local definitions of "
                         "location %" PRIu64 " ('%s'): its times cannot be put on rank 0's "
                         "time line (the trace is damaged)", l->host, h->name,
                         h->hostname[0] ? h->hostname : "no host name", l->id, l->name);
    }
    return CM_OK;
}

/* ------------------------------------------------------------------ all */

cm_status_t an__read_defs(an_reader_t *r)
{
    an_defs_t *d = r->defs;
    cm_status_t st;

    if ((st = read_global_defs(r)) != CM_OK || (st = read_props(r)) != CM_OK)
        return st;
    if (r->nclock != 1 || d->resolution == 0)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "no clock properties: the trace is damaged");
    if (r->attr_op == UINT32_MAX || r->attr_bytes == UINT32_MAX)
        return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                         "attributes %s and %s not defined: the trace is damaged",
                         INS_ATTR_OP, INS_ATTR_BYTES);
    if ((st = read_hosts(r)) != CM_OK || (st = read_regions(r)) != CM_OK
        || (st = read_locations(r)) != CM_OK || (st = an_defs_finish(d, r->anchor, r->err)) != CM_OK)
        return st;
    if (d->algo >= 0 && d->nodes[d->algo].pap == 1) {
        int have = r->param_arrival != UINT32_MAX;
        for (int i = 0; i < 5; i++)
            have &= r->attr_arr[i] != UINT32_MAX;
        if (!have)
            return CM_ERR_AT(r->err, CM_ERR_INVALID, r->anchor, 0, 0,
                             "'%s' is PAP-aware (%s=%s) but the parameter %s or its "
                             "attributes are not defined: the trace is damaged",
                             d->nodes[d->algo].name, INS_KEY_PAP, INS_PAP_YES,
                             INS_PARAM_ARRIVAL);
    }
    for (int i = 0; i < d->nlocs; i++)
        OTF2_Reader_SelectLocation(r->rd, d->locs[i].id);
    return read_local_defs(r);
}
