/*
 * cm_kind.c - the one table of wrapper kind names (see cm_kind.h).
 */
#include <string.h>

#include "common/cm_kind.h"

static const char *const kind_names[CM_KIND_COUNT] = {
    [CM_KIND_CORE]  = "core",
    [CM_KIND_GRED]  = "gred",
    [CM_KIND_PROXY] = "proxy",
    [CM_KIND_ALGO]  = "algo",
};

const char *cm_kind_name(cm_kind_t kind)
{
    return (unsigned)kind < CM_KIND_COUNT ? kind_names[kind] : "?";
}

int cm_kind_parse(const char *s, size_t len, cm_kind_t *kind_p)
{
    for (int k = 0; k < CM_KIND_COUNT; k++)
        if (strlen(kind_names[k]) == len && memcmp(s, kind_names[k], len) == 0) {
            *kind_p = (cm_kind_t)k;
            return 0;
        }
    return -1;
}
