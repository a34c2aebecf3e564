/*
 * an_read.c - the OTF2 reader of papanalyze: opens a paptree archive, reads
 * its definitions into an_defs_t (an_read_defs.c), then its events into
 * wrapper visits (an_read_events.c).
 *
 * The conventions are those of docs/trace-format.md (names from
 * instrument/api/ins_schema.h).  Anything that breaks them is an error that
 * names the record: papanalyze never guesses.  This file holds what both
 * halves share: the reader's life cycle and OTF2's error messages.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <otf2/otf2.h>

#include "analyze/an_read_int.h"
#include "instrument/api/ins_schema.h"

/* OTF2 prints its errors to stderr by default; keep the first for our message. */
static char otf2_msg[256];

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function;
    if (otf2_msg[0] == '\0')
        vsnprintf(otf2_msg, sizeof(otf2_msg), fmt, va);
    return code;
}

void an__read_errors_catch(void)
{
    otf2_msg[0] = '\0';
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
}

const char *an__read_why(OTF2_ErrorCode rc)
{
    static char buf[384];

    snprintf(buf, sizeof(buf), "%s%s%s", OTF2_Error_GetDescription(rc),
             otf2_msg[0] ? ": " : "", otf2_msg);
    return buf;
}

OTF2_CallbackCode an__read_fail(an_reader_t *r, cm_status_t st, const char *fmt, ...)
{
    if (r->st == CM_OK) {
        char msg[CM_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        r->st = CM_ERR_AT(r->err, st, r->anchor, 0, 0, "%s", msg);
    }
    return OTF2_CALLBACK_INTERRUPT;
}

cm_status_t an_reader_open(const char *anchor, an_defs_t *defs, an_reader_t **out,
                           cm_err_t *err)
{
    an_reader_t *r;
    struct stat sb;
    cm_status_t st;

    *out = NULL;
    memset(defs, 0, sizeof(*defs));
    if (stat(anchor, &sb) != 0)
        return CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0, "cannot open: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0,
                         "not a file: give the archive's anchor file, DIR/%s",
                         INS_ANCHOR_FILE);
    if ((r = calloc(1, sizeof(*r))) == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    r->defs = defs;
    r->anchor = anchor;
    r->err = err;
    r->attr_op = r->attr_bytes = r->param_arrival = UINT32_MAX;
    for (int i = 0; i < 5; i++)
        r->attr_arr[i] = UINT32_MAX;
    for (int i = 0; i < AN_AUTO_NATTR; i++)
        r->attr_auto[i] = UINT32_MAX;
    r->param_auto = UINT32_MAX;
    r->regions.size = sizeof(rd_region_t);
    r->locs.size = sizeof(rd_loc_t);
    r->loc_props.size = r->group_props.size = r->stn_props.size = r->stn_parent.size =
        sizeof(rd_prop_t);
    otf2_msg[0] = '\0';
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    /* a damaged anchor can make OTF2's loader slow, or crash it: tried apart first */
    if ((st = an__anchor_check(anchor, err)) != CM_OK) {
        ;
    } else if ((r->rd = OTF2_Reader_Open(anchor)) == NULL) {
        st = CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, "not an OTF2 archive%s%s",
                       otf2_msg[0] ? ": " : "", otf2_msg);
    } else if (OTF2_Reader_SetSerialCollectiveCallbacks(r->rd) != OTF2_SUCCESS) {
        st = CM_ERR_AT(err, CM_ERR_IO, anchor, 0, 0, "cannot set up the OTF2 reader: %s",
                       an__read_why(OTF2_ERROR_INVALID));
    } else {
        st = an__read_defs(r);
    }
    if (st != CM_OK) {
        an_reader_close(r);
        an_defs_free(defs);
        return st;
    }
    *out = r;
    return CM_OK;
}

void an_reader_close(an_reader_t *r)
{
    if (r == NULL)
        return;
    if (r->rd != NULL)
        OTF2_Reader_Close(r->rd);
    for (uint32_t i = 0; i < r->nstrings; i++)
        free(r->strings[i]);
    free(r->strings);
    free(r->regions.data);
    free(r->locs.data);
    free(r->loc_props.data);
    free(r->group_props.data);
    free(r->stn_props.data);
    free(r->stn_parent.data);
    if (r->ls != NULL)
        for (int i = 0; i < r->defs->nlocs; i++)
            free(r->ls[i].stack);
    free(r->ls);
    free(r);
}

void an_reader_collect_auto(an_reader_t *r, an_auto_t *autos)
{
    r->autos = autos;
}
