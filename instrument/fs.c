/*
 * fs.c - where an archive goes, and what happens to it when things fail.
 *
 * An archive is written to "<dir>.partial" and renamed to <dir> only when
 * complete, so a reader never sees half an archive at <dir>.  An existing
 * <dir> is replaced only with --force, and only if it holds an OTF2 anchor
 * (so that a mistyped --trace cannot delete an unrelated directory).
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "instrument/ins_int.h"

static bool is_dir(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* An OTF2 archive of ours: a directory with the anchor file in it. */
static bool is_archive(const char *dir)
{
    char anchor[4096];
    struct stat sb;

    snprintf(anchor, sizeof(anchor), "%s/%s", dir, INS_ANCHOR_FILE);
    return is_dir(dir) && stat(anchor, &sb) == 0 && S_ISREG(sb.st_mode);
}

/*
 * Something only an OTF2 writer of ours leaves: a directory holding
 * nothing but traces.otf2, traces.def, traces/ and traces.pathmap (any of
 * them).  The only kind of leftover directory --force may delete.
 */
static bool is_ours(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool ok = d != NULL;

    while (ok && (e = readdir(d)) != NULL) {
        ok = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
             strcmp(e->d_name, INS_ARCHIVE_NAME) == 0 ||
             strcmp(e->d_name, INS_ANCHOR_FILE) == 0 ||
             strcmp(e->d_name, INS_ARCHIVE_NAME ".def") == 0 ||
             strcmp(e->d_name, INS_PATHMAP_FILE) == 0;
    }
    if (d != NULL)
        closedir(d);
    return ok;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int ins__fs_remove_tree(const char *path)
{
    if (access(path, F_OK) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p of every directory above path. */
static int make_parents(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);

    if (len >= sizeof(buf))
        return errno = ENAMETOOLONG, -1;
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

int ins__fs_prepare(const char *dir, const char *partial, int force, char *msg, size_t msglen)
{
    if (access(dir, F_OK) == 0) {
        if (!force) {
            snprintf(msg, msglen, "trace directory '%s' exists; pass --force to replace it",
                     dir);
            return -1;
        }
        if (!is_archive(dir)) {
            snprintf(msg, msglen, "'%s' exists and is not an OTF2 archive (no %s in it); "
                     "not replacing it, even with --force", dir, INS_ANCHOR_FILE);
            return -1;
        }
    }
    if (access(partial, F_OK) == 0) {
        if (!force || !is_ours(partial)) {
            snprintf(msg, msglen, "'%s' exists (left by an interrupted run?); remove it%s",
                     partial, force ? " (it holds files that are not an OTF2 archive's, so "
                     "--force leaves it alone)" : " or pass --force");
            return -1;
        }
        if (ins__fs_remove_tree(partial) != 0) {
            snprintf(msg, msglen, "cannot remove '%s': %s", partial, strerror(errno));
            return -1;
        }
    }
    if (make_parents(partial) != 0) {
        snprintf(msg, msglen, "cannot create the directories above '%s': %s", dir,
                 strerror(errno));
        return -1;
    }
    /* Probe: OTF2 creates the directory itself and must find it absent. */
    if (mkdir(partial, 0777) != 0 || rmdir(partial) != 0) {
        snprintf(msg, msglen, "cannot create trace directory '%s': %s", partial,
                 strerror(errno));
        return -1;
    }
    return 0;
}

int ins__fs_commit(const char *dir, const char *partial, char *msg, size_t msglen)
{
    char old[4096];

    snprintf(old, sizeof(old), "%s.old", partial);
    if (access(dir, F_OK) == 0) {
        if (access(old, F_OK) == 0 && !is_ours(old)) {
            snprintf(msg, msglen, "cannot move the old '%s' aside: '%s' exists and is not "
                     "an OTF2 archive", dir, old);
            return -1;
        }
        if (ins__fs_remove_tree(old) != 0 || rename(dir, old) != 0) {
            snprintf(msg, msglen, "cannot move the old '%s' aside: %s", dir, strerror(errno));
            return -1;
        }
    }
    if (rename(partial, dir) != 0) {
        snprintf(msg, msglen, "cannot rename '%s' to '%s': %s", partial, dir, strerror(errno));
        if (is_dir(old))
            (void)rename(old, dir);
        return -1;
    }
    (void)ins__fs_remove_tree(old);
    return 0;
}

/* ---- paths ----------------------------------------------------------------- */

int ins__fs_write(const char *path, const void *data, size_t len, char *msg, size_t msglen)
{
    FILE *fp = fopen(path, "wb");
    int e;

    if (fp == NULL) {
        snprintf(msg, msglen, "cannot create '%s': %s", path, strerror(errno));
        return -1;
    }
    if (fwrite(data, 1, len, fp) == len && fflush(fp) == 0 && fsync(fileno(fp)) == 0) {
        if (fclose(fp) == 0)
            return 0;
        e = errno;
    } else {
        e = errno;
        fclose(fp);
    }
    snprintf(msg, msglen, "cannot write '%s': %s", path, strerror(e));
    return -1;
}

char *ins__fs_fmt(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}
