/*
 * cm_err.c - status names and the located error of cm_err.h.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common/cm_err.h"

const char *cm_status_name(cm_status_t status)
{
    switch (status) {
#define CM_STATUS_NAME(name, value, text) case name: return #name;
    CM_STATUS_LIST(CM_STATUS_NAME)
#undef CM_STATUS_NAME
    }
    return "unknown status";
}

const char *cm_status_string(cm_status_t status)
{
    switch (status) {
#define CM_STATUS_TEXT(name, value, text) case name: return text;
    CM_STATUS_LIST(CM_STATUS_TEXT)
#undef CM_STATUS_TEXT
    }
    return "unknown status";
}

void cm_err_clear(cm_err_t *err)
{
    memset(err, 0, sizeof(*err));
    err->status = CM_OK;
}

cm_status_t cm_err_set(cm_err_t *err, cm_status_t status, const char *path,
                       unsigned line, unsigned col, const char *src_file,
                       int src_line, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return status;
    err->status = status;
    snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
    err->line = line;
    err->col = col;
    err->src_file = src_file;
    err->src_line = src_line;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return status;
}

void cm_err_format(const cm_err_t *err, char *buf, size_t size)
{
    if (err->path[0] == '\0')
        snprintf(buf, size, "error: %s", err->msg);
    else if (err->line == 0)
        snprintf(buf, size, "%s: error: %s", err->path, err->msg);
    else if (err->col == 0)
        snprintf(buf, size, "%s:%u: error: %s", err->path, err->line, err->msg);
    else
        snprintf(buf, size, "%s:%u:%u: error: %s", err->path, err->line,
                 err->col, err->msg);
}

/*
 * The C source that detected an error helps us and is noise to a user, who
 * sees it only when asked: PAPTREE_DEBUG set to anything but "" or "0".
 */
int cm_err_debug(void)
{
    const char *v = getenv("PAPTREE_DEBUG");

    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

void cm_err_print(FILE *fp, const char *prefix, const cm_err_t *err)
{
    char text[CM_ERR_PATH_MAX + CM_ERR_MSG_MAX + 64];

    cm_err_format(err, text, sizeof(text));
    if (err->src_file != NULL && cm_err_debug())
        fprintf(fp, "%s%s [%s:%d]\n", prefix ? prefix : "", text,
                err->src_file, err->src_line);
    else
        fprintf(fp, "%s%s\n", prefix ? prefix : "", text);
}
