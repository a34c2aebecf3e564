/*
 * fs.c - where an archive goes, and what happens to it when things fail.
 *
 * An archive is written to "<dir>.partial" and renamed to <dir> only when
 * complete, so a reader never sees half an archive at <dir>.  An existing
 * <dir> is replaced only with --force, and only if it holds an OTF2 anchor
 * and nothing but a trace's own files: the archive (traces.otf2,
 * traces.def, traces/ holding only OTF2's N.evt and N.def, traces.pathmap)
 * and the database papanalyze made from
 * it next to it (traces.db, SQLite's companions of it, an interrupted
 * papanalyze's traces.db.partial-*), which describes the old archive and
 * goes with it.  Anything else in <dir> (a report, a picture, a user's file)
 * makes --force refuse, so that a rerun never deletes what it did not write.
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
 * A name that only a trace of ours puts in its directory: the archive's
 * files, written by the tracer, and the database papanalyze derives from
 * the anchor's name (TRACE/traces.otf2 -> TRACE/traces.db).
 */
static bool is_trace_name(const char *name)
{
    static const char *const exact[] = {
        ".", "..", INS_ARCHIVE_NAME, INS_ANCHOR_FILE, INS_ARCHIVE_NAME ".def",
        INS_PATHMAP_FILE, INS_ARCHIVE_NAME ".db", INS_ARCHIVE_NAME ".db-journal",
        INS_ARCHIVE_NAME ".db-wal", INS_ARCHIVE_NAME ".db-shm",
    };
    static const char db_partial[] = INS_ARCHIVE_NAME ".db.partial-";

    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (strcmp(name, exact[i]) == 0)
            return true;
    return strncmp(name, db_partial, sizeof(db_partial) - 1) == 0;
}

/* A name OTF2 writes in the archive's folder: LOCATION.evt or LOCATION.def. */
static bool is_event_file_name(const char *name)
{
    size_t n = strspn(name, "0123456789");

    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return true;
    return n > 0 && (strcmp(name + n, ".evt") == 0 || strcmp(name + n, ".def") == 0);
}

/*
 * The first name (in byte order, so that messages are stable) in dir that
 * is not a trace's, into name (prefixed with sub/ when looking into the
 * archive's folder); 1 if there is one, 0 if dir holds nothing else, -1
 * (errno set) if dir cannot be read.
 */
static int first_foreign_in(const char *dir, const char *sub, bool (*ours)(const char *),
                            char *name, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    char cand[512];

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (ours(e->d_name))
            continue;
        snprintf(cand, sizeof(cand), "%s%s%s", sub ? sub : "", sub ? "/" : "", e->d_name);
        if (found && strcmp(cand, name) >= 0)
            continue;
        snprintf(name, len, "%s", cand);
        found = 1;
    }
    closedir(d);
    return found;
}

/* The same for a trace directory: its own names, then the archive's folder. */
static int first_foreign(const char *dir, char *name, size_t len)
{
    char sub[4096];
    struct stat sb;
    int rc = first_foreign_in(dir, NULL, is_trace_name, name, len);

    snprintf(sub, sizeof(sub), "%s/%s", dir, INS_ARCHIVE_NAME);
    if (rc != 0 || lstat(sub, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return rc;
    return first_foreign_in(sub, INS_ARCHIVE_NAME, is_event_file_name, name, len);
}

/* A directory that holds nothing but a trace's files (or cannot be read: no). */
static bool is_ours(const char *dir)
{
    char name[512];

    return first_foreign(dir, name, sizeof(name)) == 0;
}

/*
 * Whether --force may replace the archive at dir: 0, or -1 with msg naming
 * the first file that is not a trace's and what to do about it.
 */
static int check_replaceable(const char *dir, char *msg, size_t msglen)
{
    char name[512];
    int rc = first_foreign(dir, name, sizeof(name));

    if (rc < 0) {
        snprintf(msg, msglen, "cannot read '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (rc > 0) {
        snprintf(msg, msglen, "'%s' holds '%s', which is not a trace's file; --force "
                 "replaces only a trace (%s, %s/, %s.def, %s, %s.db), never other files: "
                 "move '%s' out of it, or trace to another directory", dir, name,
                 INS_ANCHOR_FILE, INS_ARCHIVE_NAME, INS_ARCHIVE_NAME, INS_PATHMAP_FILE,
                 INS_ARCHIVE_NAME, name);
        return -1;
    }
    return 0;
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
        if (check_replaceable(dir, msg, msglen) != 0)
            return -1;
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
        /* Checked again: files may have appeared in dir while the job ran. */
        if (check_replaceable(dir, msg, msglen) != 0)
            return -1;
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

/* ---- collective steps ------------------------------------------------------ */

/* Rank 0's outcome (rc, msg) to every rank of comm, as a status. */
static cm_status_t fs_share(MPI_Comm comm, int rank, int rc, char *msg, size_t msglen,
                            cm_err_t *err)
{
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    if (rc == 0)
        return CM_OK;
    MPI_Bcast(msg, (int)msglen, MPI_CHAR, 0, comm);
    return CM_ERR(err, CM_ERR_IO, "%s%s", rank == 0 ? "" : "rank 0: ", msg);
}

cm_status_t ins__fs_prepare_all(MPI_Comm comm, const char *dir, const char *partial, int force,
                                cm_err_t *err)
{
    char msg[INS_ERR_LEN] = "";
    int rank, rc = 0;

    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        rc = ins__fs_prepare(dir, partial, force, msg, sizeof(msg));
    return fs_share(comm, rank, rc, msg, sizeof(msg), err);
}

cm_status_t ins__fs_commit_all(MPI_Comm comm, const char *dir, const char *partial,
                               cm_err_t *err)
{
    char msg[INS_ERR_LEN] = "";
    int rank, rc = 0;

    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        rc = ins__fs_commit(dir, partial, msg, sizeof(msg));
    return fs_share(comm, rank, rc, msg, sizeof(msg), err);
}

void ins__fs_discard_all(MPI_Comm comm, const char *partial)
{
    int rank;

    MPI_Comm_rank(comm, &rank);
    MPI_Barrier(comm);
    if (rank == 0 && ins__fs_remove_tree(partial) != 0)
        fprintf(stderr, "paptree: rank 0: cannot remove '%s': %s\n", partial, strerror(errno));
}
