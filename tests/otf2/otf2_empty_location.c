/*
 * otf2_empty_location - a minimal reproducer of an OTF2 3.0.2 fault that
 * paptree works around (analyze/an_read_events.c): a location that has an
 * event reader but no events makes OTF2's global event reader read freed
 * memory.  OTF2 only: no paptree code, no MPI.
 *
 *   otf2_empty_location DIR [--empty-reader]
 *
 * Writes a serial archive DIR/traces.otf2 with two locations: location 0
 * with one Enter/Leave pair, location 1 with none (its writer is opened and
 * closed, as a paptree thread that enters an algorithm node directly leaves
 * it).  Then reads the events back through the global event reader, with an
 * event reader for location 0 only (what papanalyze does), or with
 * --empty-reader for location 1 too.  Prints the number of events read and
 * exits 0 when it is 2.
 *
 * Under valgrind (tests/otf2/empty-location.sh) the run without
 * --empty-reader is clean; with it, OTF2 3.0.2 closes location 1's reader
 * while it sets up the global reader (the location has no events) and then
 * reads it: "Invalid read ... inside OTF2_Reader_ReadGlobalEvents, block
 * freed by OTF2_Reader_GetGlobalEvtReader" (uninstrumented OTF2, so ASan
 * does not see it; valgrind does).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <otf2/otf2.h>

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
                                void *cb, bool final)
{
    (void)ud; (void)ft; (void)loc; (void)cb; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud; (void)ft; (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cbs = { pre_flush, post_flush };

static int fail(const char *what, OTF2_ErrorCode rc)
{
    fprintf(stderr, "otf2_empty_location: %s: %s\n", what, OTF2_Error_GetName(rc));
    return 1;
}

static int write_defs(OTF2_Archive *ar)
{
    OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);

    if (gw == NULL)
        return fail("OTF2_Archive_GetGlobalDefWriter", OTF2_ERROR_INVALID);
    OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, 0, 100, OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(gw, 0, "");
    OTF2_GlobalDefWriter_WriteString(gw, 1, "region");
    OTF2_GlobalDefWriter_WriteString(gw, 2, "host");
    OTF2_GlobalDefWriter_WriteString(gw, 3, "thread 0");
    OTF2_GlobalDefWriter_WriteString(gw, 4, "thread 1");
    OTF2_GlobalDefWriter_WriteRegion(gw, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0, 2, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(gw, 0, 3, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
    OTF2_GlobalDefWriter_WriteLocation(gw, 1, 4, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 0);
    return 0;
}

static int write_archive(const char *dir)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_EvtWriter *w0, *w1;
    OTF2_ErrorCode rc;

    if (ar == NULL)
        return fail("OTF2_Archive_Open (write)", OTF2_ERROR_INVALID);
    if ((rc = OTF2_Archive_SetFlushCallbacks(ar, &flush_cbs, NULL)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_SetSerialCollectiveCallbacks(ar)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_OpenEvtFiles(ar)) != OTF2_SUCCESS)
        return fail("setting up the archive", rc);
    w0 = OTF2_Archive_GetEvtWriter(ar, 0);
    w1 = OTF2_Archive_GetEvtWriter(ar, 1);
    if (w0 == NULL || w1 == NULL)
        return fail("OTF2_Archive_GetEvtWriter", OTF2_ERROR_INVALID);
    OTF2_EvtWriter_Enter(w0, NULL, 10, 0);
    OTF2_EvtWriter_Leave(w0, NULL, 20, 0);
    if ((rc = OTF2_Archive_CloseEvtWriter(ar, w0)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_CloseEvtWriter(ar, w1)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_CloseEvtFiles(ar)) != OTF2_SUCCESS)
        return fail("closing the event writers", rc);
    if (write_defs(ar) != 0)
        return 1;
    if ((rc = OTF2_Archive_Close(ar)) != OTF2_SUCCESS)
        return fail("OTF2_Archive_Close (write)", rc);
    return 0;
}

static OTF2_CallbackCode on_event(OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc; (void)t; (void)al; (void)region;
    ++*(uint64_t *)ud;
    return OTF2_CALLBACK_SUCCESS;
}

static int read_archive(const char *anchor, bool empty_reader, uint64_t *nevents)
{
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReader *ger;
    OTF2_ErrorCode rc;
    uint64_t n = 0;

    if (rd == NULL || cb == NULL)
        return fail("OTF2_Reader_Open", OTF2_ERROR_INVALID);
    if ((rc = OTF2_Reader_SetSerialCollectiveCallbacks(rd)) != OTF2_SUCCESS ||
        (rc = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS)
        return fail("setting up the reader", rc);
    if (OTF2_Reader_GetEvtReader(rd, 0) == NULL ||
        (empty_reader && OTF2_Reader_GetEvtReader(rd, 1) == NULL))
        return fail("OTF2_Reader_GetEvtReader", OTF2_ERROR_INVALID);
    if ((ger = OTF2_Reader_GetGlobalEvtReader(rd)) == NULL)
        return fail("OTF2_Reader_GetGlobalEvtReader", OTF2_ERROR_INVALID);
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_event);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_event);
    if ((rc = OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, nevents)) != OTF2_SUCCESS ||
        (rc = OTF2_Reader_ReadGlobalEvents(rd, ger, 1000, &n)) != OTF2_SUCCESS)
        return fail("reading the events", rc);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
    return 0;
}

int main(int argc, char **argv)
{
    bool empty_reader = argc == 3 && strcmp(argv[2], "--empty-reader") == 0;
    char anchor[4096];
    uint64_t nevents = 0;

    if (argc < 2 || argc > 3 || (argc == 3 && !empty_reader)) {
        fprintf(stderr, "usage: otf2_empty_location DIR [--empty-reader]\n");
        return 2;
    }
    snprintf(anchor, sizeof(anchor), "%s/traces.otf2", argv[1]);
    if (write_archive(argv[1]) != 0 || read_archive(anchor, empty_reader, &nevents) != 0)
        return 1;
    printf("%llu events\n", (unsigned long long)nevents);
    return nevents == 2 ? 0 : 1;
}
