/*
 * fuzz_trace.c - libFuzzer target: papanalyze's reader and analysis
 * (an_analyze, then an_report) on an OTF2 archive made of the input.
 *
 * An archive is a directory of files, so the input is a small archive
 * format of our own ("paparc", written by tests/fuzz/paparc.py), a
 * concatenation of records
 *
 *     NAME '\0'  LEN (4 bytes, little-endian)  LEN bytes of data
 *
 * NAME is a path relative to the archive's directory ("traces.otf2",
 * "traces/0.evt"), of [A-Za-z0-9._-] components separated by '/', none of
 * them "." or "..".  A LEN past the end of the input takes what is left
 * (so truncations stay archives); a bad NAME or a repeated one ends the
 * archive there.  The files are written into a fresh temporary directory,
 * an_analyze reads DIR/traces.otf2 into DIR/out.db, and on success an_report
 * prints the three formats to /dev/null.  Any status is fine: only crashes,
 * sanitizer reports, leaks and hangs are bugs.  Seeds: tests/fuzz/trace/.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analyze/api/an_analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME_MAX  128
#define FZ_FILES_MAX 64

static char fz_dir[256];      /* the temporary directory, made once */

static int fz_rm_one(const char *path, const struct stat *sb, int flag,
                     struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

/* Empties fz_dir (whatever the last run left in it). */
static void fz_clean(void)
{
    nftw(fz_dir, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Closes descriptors still open on files of fz_dir.  OTF2 3.0.2 leaks the
 * anchor's FILE when OTF2_Reader_Open fails (tests/sanitizers/lsan.supp);
 * without this a long run would run out of descriptors and then only test
 * "cannot open".
 */
static void fz_close_leaked(void)
{
    DIR           *d = opendir("/proc/self/fd");
    struct dirent *e;
    char           link[64], target[512];
    size_t         n = strlen(fz_dir);

    while (d != NULL && (e = readdir(d)) != NULL) {
        int     fd = atoi(e->d_name);
        ssize_t len;

        if (e->d_name[0] == '.' || fd == dirfd(d))
            continue;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        len = readlink(link, target, sizeof(target) - 1);
        if (len > (ssize_t)n && strncmp(target, fz_dir, n) == 0 && target[n] == '/')
            close(fd);
    }
    if (d != NULL)
        closedir(d);
}

static void fz_remove_dir(void)
{
    fz_clean();
    rmdir(fz_dir);
}

static void fz_setup(void)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(fz_dir, sizeof(fz_dir), "%s/paptree-fuzz-trace.XXXXXX",
             tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    if (mkdtemp(fz_dir) == NULL) {
        perror("fuzz_trace: mkdtemp");
        abort();
    }
    atexit(fz_remove_dir);
}

/* 1 if name is a relative path of safe components. */
static int fz_name_ok(const char *name, size_t len)
{
    size_t comp = 0;

    if (len == 0 || len >= FZ_NAME_MAX)
        return 0;
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? name[i] : '/';

        if (c == '/') {
            if (comp == 0 || (comp == 1 && name[i - 1] == '.') ||
                (comp == 2 && name[i - 1] == '.' && name[i - 2] == '.'))
                return 0;
            comp = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-') {
            comp++;
        } else {
            return 0;
        }
    }
    return 1;
}

/* Writes dir/name (making its directories); 0 if it cannot. */
static int fz_write(const char *name, const uint8_t *p, size_t n)
{
    char  path[512];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", fz_dir, name);
    for (char *s = strchr(path + strlen(fz_dir) + 1, '/'); s != NULL; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *s = '/';
            return 0;
        }
        *s = '/';
    }
    /* O_EXCL-like: an earlier record made a directory or file of this name. */
    if (access(path, F_OK) == 0 || (fp = fopen(path, "wb")) == NULL)
        return 0;
    if (n > 0 && fwrite(p, 1, n, fp) != n) {
        fclose(fp);
        return 0;
    }
    return fclose(fp) == 0;
}

/* Unpacks the input into fz_dir; returns the number of files written. */
static int fz_unpack(const uint8_t *data, size_t size)
{
    size_t at = 0;
    int    files = 0;

    while (at < size && files < FZ_FILES_MAX) {
        const char *name = (const char *)data + at;
        const void *nul = memchr(name, '\0', size - at);
        size_t      nlen, len;

        if (nul == NULL)
            break;
        nlen = (size_t)((const char *)nul - name);
        if (!fz_name_ok(name, nlen))
            break;
        at += nlen + 1;
        len = 0;
        for (int b = 0; b < 4 && at < size; b++)
            len |= (size_t)data[at++] << (8 * b);
        if (len > size - at)
            len = size - at;
        if (!fz_write(name, data + at, len))
            break;
        at += len;
        files++;
    }
    return files;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const an_format_t formats[] = { AN_FMT_TEXT, AN_FMT_CSV, AN_FMT_JSON };
    char        anchor[600], db[600];
    an_opts_t   opts;
    an_result_t res;
    cm_err_t    err;

    if (fz_dir[0] == '\0')
        fz_setup();
    fz_clean();
    if (fz_unpack(data, size) == 0)
        return 0;
    snprintf(anchor, sizeof(anchor), "%s/traces.otf2", fz_dir);
    snprintf(db, sizeof(db), "%s/out.db", fz_dir);
    memset(&opts, 0, sizeof(opts));
    opts.trace = anchor;
    opts.db = db;
    opts.force = 1;
    opts.command = "fuzz_trace";
    cm_err_clear(&err);
    if (an_analyze(&opts, &res, &err) == CM_OK) {
        FILE *null = fopen("/dev/null", "w");

        for (size_t i = 0; null != NULL && i < sizeof(formats) / sizeof(formats[0]); i++) {
            an_report_opts_t ro = { formats[i], -1, NULL };

            cm_err_clear(&err);
            an_report(db, &ro, null, &err);
        }
        if (null != NULL)
            fclose(null);
    }
    fz_close_leaked();
    return 0;
}
