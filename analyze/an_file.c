/*
 * an_file.c - what papanalyze and papviz check about their files before
 * opening them: inputs must be regular files (a FIFO without a writer blocks
 * whoever opens it for reading, a device never ends), and an output must not
 * be one of the inputs (compared by device and inode, so through symlinks
 * and hard links too).
 *
 * An OTF2 archive is its anchor DIR/NAME.otf2, its global definitions
 * DIR/NAME.def and the directory DIR/NAME/ of per-location files (N.def,
 * N.evt): an_archive_scan checks and records all of them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/an_int.h"
#include "analyze/api/an_analyze.h"

const char *an_file_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
         : S_ISSOCK(mode) ? "a socket" : S_ISREG(mode) ? "a regular file" : "a special file";
}

/* Refuses path unless it is a regular file; sb gets its stat. */
static cm_status_t check_regular(const char *path, const char *dir_hint, struct stat *sb,
                                 cm_err_t *err)
{
    if (stat(path, sb) != 0)
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb->st_mode))
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "is a directory, not a file%s%s",
                         dir_hint != NULL ? ": " : "", dir_hint != NULL ? dir_hint : "");
    if (!S_ISREG(sb->st_mode))
        return CM_ERR_AT(err, CM_ERR_IO, path, 0, 0, "is %s, not a regular file",
                         an_file_kind(sb->st_mode));
    return CM_OK;
}

cm_status_t an_check_input(const char *path, const char *dir_hint, cm_err_t *err)
{
    struct stat sb;

    return check_regular(path, dir_hint, &sb, err);
}

cm_status_t an_check_not_input(const char *output, const char *const *inputs, int n,
                               cm_err_t *err)
{
    struct stat out, in;

    if (stat(output, &out) != 0)
        return CM_OK;                     /* a new file cannot be an input */
    for (int i = 0; i < n; i++)
        if (inputs[i] != NULL && stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev
            && in.st_ino == out.st_ino)
            return CM_ERR_AT(err, CM_ERR_INVALID, output, 0, 0, "is the input %s: an output "
                             "must not be one of the inputs (give another -o)", inputs[i]);
    return CM_OK;
}

/* ------------------------------------------------------------ archives */

static cm_status_t add_file(an_files_t *fs, const char *path, const struct stat *sb,
                            cm_err_t *err)
{
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? 2 * fs->cap : 16;
        an_file_t *p = realloc(fs->f, cap * sizeof(*p));
        if (p == NULL)
            return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        fs->f = p;
        fs->cap = cap;
    }
    fs->f[fs->n] = (an_file_t){ sb->st_dev, sb->st_ino, strdup(path) };
    if (fs->f[fs->n].path == NULL)
        return CM_ERR(err, CM_ERR_NOMEM, "out of memory");
    fs->n++;
    return CM_OK;
}

void an_files_free(an_files_t *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        free(fs->f[i].path);
    free(fs->f);
    free(fs->dir);
    memset(fs, 0, sizeof(*fs));
}

const an_file_t *an_files_find(const an_files_t *fs, const char *path)
{
    struct stat sb;

    if (stat(path, &sb) != 0)
        return NULL;
    for (size_t i = 0; i < fs->n; i++)
        if (fs->f[i].dev == sb.st_dev && fs->f[i].ino == sb.st_ino)
            return &fs->f[i];
    return NULL;
}

cm_status_t an_archive_scan(const char *anchor, an_files_t *fs, cm_err_t *err)
{
    const char *ext = ".otf2";
    size_t len = strlen(anchor);
    struct stat sb;
    char *path = NULL;
    DIR *d;
    struct dirent *e;
    cm_status_t st;

    memset(fs, 0, sizeof(*fs));
    if ((st = check_regular(anchor, "give the archive's anchor file, DIR/traces.otf2",
                            &sb, err)) != CM_OK
        || (st = add_file(fs, anchor, &sb, err)) != CM_OK)
        goto fail;
    /* OTF2 finds the rest from the anchor's name; without .otf2 it refuses it */
    if (len <= strlen(ext) || strcmp(anchor + len - strlen(ext), ext) != 0)
        return CM_OK;
    if (asprintf(&path, "%.*s.def", (int)(len - strlen(ext)), anchor) < 0
        || (fs->dir = strndup(anchor, len - strlen(ext))) == NULL) {
        path = NULL;
        st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (stat(path, &sb) == 0 && ((st = check_regular(path, NULL, &sb, err)) != CM_OK
                                 || (st = add_file(fs, path, &sb, err)) != CM_OK))
        goto fail;
    free(path);
    path = NULL;
    if (stat(fs->dir, &sb) != 0)
        return CM_OK;                     /* OTF2 says what is missing */
    if (!S_ISDIR(sb.st_mode)) {
        st = CM_ERR_AT(err, CM_ERR_IO, fs->dir, 0, 0, "is %s, not the archive's directory",
                       an_file_kind(sb.st_mode));
        goto fail;
    }
    if ((d = opendir(fs->dir)) == NULL) {
        st = CM_ERR_AT(err, CM_ERR_IO, fs->dir, 0, 0, "cannot open: %s", strerror(errno));
        goto fail;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (asprintf(&path, "%s/%s", fs->dir, e->d_name) < 0) {
            path = NULL;
            st = CM_ERR(err, CM_ERR_NOMEM, "out of memory");
        } else if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            ;                             /* not a file of the archive: OTF2 opens none */
        } else if ((st = check_regular(path, NULL, &sb, err)) == CM_OK) {
            st = add_file(fs, path, &sb, err);
        }
        free(path);
        path = NULL;
        if (st != CM_OK)
            break;
    }
    closedir(d);
    if (st == CM_OK)
        return CM_OK;
fail:
    free(path);
    an_files_free(fs);
    return st;
}
