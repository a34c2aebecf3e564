/*
 * an_mpi_sym.c - call sites "MODULE+0xOFFSET" (common/cm_site.h: OFFSET is
 * the return address as addr2line takes it) to function and file:line, at
 * analysis time.
 *
 * One addr2line per module that exists here, with all its sites' addresses
 * as arguments: `addr2line -f -C -e MODULE ADDR...`, each ADDR being
 * OFFSET - 1 (a return address points after the call instruction, possibly
 * at the next line's code; one byte back is inside the call).  addr2line
 * prints two lines per address: the function ("??" if unknown) and
 * FILE:LINE ("??:0" or "??:?" if unknown), perhaps followed by
 * " (discriminator N)".  Symbolisation never fails the analysis: a module
 * that is gone, a program without debug information, or no addr2line
 * leave the parts unknown, and the label falls back to the function, then
 * to the site's name.  $PAPTREE_ADDR2LINE names another addr2line (the
 * tests use it to check that a missing one changes nothing but the labels).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/an_mpi_int.h"

enum { BATCH = 256 };

/* MODULE and OFFSET of a site's name; 0 if it is not of that form. */
static int split_name(an_mpi_site_t *s)
{
    const char *plus = NULL;
    char *end;

    for (const char *p = strstr(s->name, "+0x"); p != NULL; p = strstr(p + 1, "+0x"))
        plus = p;
    if (plus == NULL || plus == s->name)
        return 0;
    errno = 0;
    s->offset = strtoull(plus + 3, &end, 16);
    if (errno != 0 || end == plus + 3 || *end != '\0')
        return 0;
    s->module = strndup(s->name, (size_t)(plus - s->name));
    return s->module != NULL;
}

/* One line of f, without its newline; NULL at the end. */
static char *read_line(FILE *f, char *buf, size_t n)
{
    if (fgets(buf, (int)n, f) == NULL)
        return NULL;
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

/* Sets what addr2line said about one site. */
static void take(an_mpi_site_t *s, const char *func, char *where)
{
    char *colon, *disc = strstr(where, " (discriminator");
    long line;

    if (disc != NULL)
        *disc = '\0';
    if (strcmp(func, "??") != 0 && func[0] != '\0')
        s->function = strdup(func);
    colon = strrchr(where, ':');
    if (colon == NULL || strncmp(where, "??", 2) == 0)
        return;
    *colon = '\0';
    line = strtol(colon + 1, NULL, 10);
    if (line > 0 && line < INT32_MAX) {
        s->file = strdup(where);
        s->line = (int)line;
    }
}

/* Runs addr2line on the sites idx[0..n-1] of one module. */
static void run_batch(an_mpi_trace_t *tr, const char *tool, const char *module,
                      const int *idx, int n)
{
    char *argv[BATCH + 6], addr[BATCH][24], func[4096], where[4096];
    int fd[2], status;
    pid_t pid;
    FILE *f;

    argv[0] = (char *)tool, argv[1] = "-f", argv[2] = "-C", argv[3] = "-e";
    argv[4] = (char *)module;
    for (int i = 0; i < n; i++) {
        uint64_t off = tr->sites[idx[i]].offset;
        snprintf(addr[i], sizeof(addr[i]), "0x%" PRIx64, off > 0 ? off - 1 : 0);
        argv[5 + i] = addr[i];
    }
    argv[5 + n] = NULL;
    if (pipe(fd) != 0)
        return;
    fflush(NULL);
    if ((pid = fork()) < 0) {
        close(fd[0]), close(fd[1]);
        return;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(fd[1], 1);
        if (null >= 0)
            dup2(null, 0), dup2(null, 2);
        close(fd[0]), close(fd[1]);
        execvp(tool, argv);
        _exit(127);
    }
    close(fd[1]);
    if ((f = fdopen(fd[0], "r")) == NULL) {
        close(fd[0]);
    } else {
        for (int i = 0; i < n && read_line(f, func, sizeof(func)) != NULL
                        && read_line(f, where, sizeof(where)) != NULL; i++)
            take(&tr->sites[idx[i]], func, where);
        fclose(f);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}

static void make_label(an_mpi_site_t *s)
{
    char buf[4200];

    if (s->file != NULL) {
        const char *base = strrchr(s->file, '/');
        snprintf(buf, sizeof(buf), "%s:%d", base != NULL ? base + 1 : s->file, s->line);
    } else {
        snprintf(buf, sizeof(buf), "%s", s->function != NULL ? s->function : s->name);
    }
    s->label = strdup(buf);
}

void an_mpi_symbolise(an_mpi_trace_t *tr)
{
    const char *tool = getenv("PAPTREE_ADDR2LINE");
    int *idx = malloc(((size_t)tr->nsites + 1) * sizeof(int));
    char *done = calloc((size_t)tr->nsites + 1, 1);

    if (tool == NULL || tool[0] == '\0')
        tool = "addr2line";
    for (int i = 0; i < tr->nsites; i++)
        if (!split_name(&tr->sites[i]))
            done[i] = 1;
    for (int i = 0; idx != NULL && done != NULL && i < tr->nsites; i++) {
        const char *module = tr->sites[i].module;
        struct stat sb;
        int n = 0;

        if (done[i])
            continue;
        /* every site of this module, in batches */
        for (int j = i; j < tr->nsites; j++)
            if (!done[j] && strcmp(tr->sites[j].module, module) == 0) {
                done[j] = 1;
                idx[n++] = j;
            }
        if (stat(module, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        for (int k = 0; k < n; k += BATCH)
            run_batch(tr, tool, module, idx + k, n - k < BATCH ? n - k : BATCH);
    }
    for (int i = 0; i < tr->nsites; i++) {
        if (tr->sites[i].module == NULL)
            tr->sites[i].module = strdup("");
        make_label(&tr->sites[i]);
    }
    free(idx);
    free(done);
}
