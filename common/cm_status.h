/*
 * cm_status.h - the one status type of paptree.
 *
 * Every fallible function returns a cm_status_t: CM_OK (0) on success, a
 * negative code otherwise.  Codes are grouped by what must be torn down when
 * they happen (UCX's habit): input errors leave nothing behind, tree errors
 * invalidate one parsed pathmap, job errors mean the MPI job cannot go on.
 * Names and messages come from the single list below, so a code, its name
 * and its text never disagree.
 */
#ifndef CM_STATUS_H
#define CM_STATUS_H

#define CM_STATUS_LIST(X)                                                   \
    X(CM_OK,               0, "success")                                   \
    /* input: a file or argument the user gave is wrong */                 \
    X(CM_ERR_IO,          -1, "input/output error")                        \
    X(CM_ERR_SYNTAX,      -2, "syntax error")                              \
    X(CM_ERR_RANGE,       -3, "number out of range")                       \
    X(CM_ERR_INVALID,     -4, "invalid argument")                          \
    X(CM_ERR_NOMEM,       -5, "out of memory")                             \
    /* tree: the pathmap parses but does not describe a usable tree */     \
    X(CM_ERR_NAME,       -10, "unknown or duplicate name")                 \
    X(CM_ERR_TREE,       -11, "invalid tree")                              \
    /* job: the MPI job cannot proceed */                                  \
    X(CM_ERR_MPI,        -20, "MPI error")                                 \
    X(CM_ERR_MISMATCH,   -21, "ranks disagree")                            \
    X(CM_ERR_THREAD,     -22, "thread error")                              \
    X(CM_ERR_VERIFY,     -23, "wrong result")                              \
    X(CM_ERR_UNSUPPORTED,-24, "unsupported")

typedef enum {
#define CM_STATUS_ENUM(name, value, text) name = value,
    CM_STATUS_LIST(CM_STATUS_ENUM)
#undef CM_STATUS_ENUM
} cm_status_t;

/* Static strings; never NULL (an unknown code gives "unknown status"). */
const char *cm_status_name(cm_status_t status);
const char *cm_status_string(cm_status_t status);

#endif /* CM_STATUS_H */
