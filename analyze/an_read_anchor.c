/*
 * an_read_anchor.c - the check of an archive's anchor file before the reader
 * opens it (issue 24).
 *
 * OTF2_Reader_Open loads the anchor (DIR/traces.otf2) with OTF2's own loader
 * before papanalyze sees anything, and OTF2 3.0.2's loader trusts the 32-bit
 * property count in it: a single flipped bit there makes it ask for
 * gigabytes and loop for seconds, or (bit 31) corrupt its heap and abort the
 * process.  Rather than re-implement OTF2's private anchor format to find
 * that count, the check lets OTF2 load the anchor in a child process under
 * limits that a sane anchor never comes near:
 *
 *   - address space: what the process has at fork plus 64 MiB plus 12 times
 *     the anchor's size (OTF2 needs about 3 times the anchor's size: 3 MB
 *     for a 1 MB anchor, 190 MB for 64 MB; under 1 MB for the usual 1.5 KB
 *     anchor), so that OTF2's request for a bent count fails at once;
 *   - CPU time: 2 s (SIGXCPU; a sane anchor takes about a millisecond);
 *   - wall time: 10 s (SIGALRM), for a loader that waits rather than
 *     computes, and generous so that a loaded machine does not refuse a
 *     good trace.
 *
 * The child opens the anchor, reads what papanalyze reads first (the number
 * of locations, the property names) and exits 0; an OTF2 error is exit 1,
 * and the real open then reports it as before; an OTF2 allocation failure
 * under the cap, a signal, or a sanitizer's report (exit 3, from the death
 * callback) refuses the archive.  The child's stderr is /dev/null: OTF2's
 * and glibc's words about a damaged anchor are replaced by the one line here.
 *
 * Under AddressSanitizer the address-space cap is kept, relative to what the
 * process has at fork: ASan's shadow and allocator space are reserved at
 * start-up and counted there, and its later requests are counted as usual
 * (so a bent count fails as out of memory, or as ASan's out-of-memory
 * report).  Under ThreadSanitizer, whose memory is mapped on demand, only
 * the time limits apply.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <otf2/otf2.h>

#include "analyze/an_read_int.h"

/* AN_ASAN, AN_TSAN: built with that sanitizer (GCC's macros, Clang's features) */
#if defined(__SANITIZE_ADDRESS__)
#define AN_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define AN_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(AN_ASAN)
#define AN_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(AN_TSAN)
#define AN_TSAN 1
#endif
#endif
#if defined(AN_ASAN) || defined(AN_TSAN)
#include <sanitizer/common_interface_defs.h>
#endif

enum {
    ANCHOR_CPU_S = 2,             /* CPU seconds the child may use */
    ANCHOR_WALL_S = 10,           /* wall-clock seconds */
    ANCHOR_MEM_FLOOR_MIB = 64,    /* address space beyond the process's own... */
    ANCHOR_MEM_PER_BYTE = 12,     /* ...plus this many bytes per anchor byte */
};

/* The child's exit statuses. */
enum { CHILD_OK = 0, CHILD_OTF2_ERROR = 1, CHILD_NO_MEMORY = 2, CHILD_SANITIZER = 3 };

static volatile sig_atomic_t child_no_memory;

static OTF2_ErrorCode child_on_error(void *ud, const char *file, uint64_t line,
                                     const char *function, OTF2_ErrorCode code,
                                     const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function, (void)fmt, (void)va;
    if (code == OTF2_ERROR_MEM_ALLOC_FAILED || code == OTF2_ERROR_ENOMEM)
        child_no_memory = 1;
    return code;
}

#if defined(AN_ASAN) || defined(AN_TSAN)
static void child_on_death(void)
{
    _exit(CHILD_SANITIZER);
}
#endif

/* The process's address space now, in bytes; 0 if unknown. */
static unsigned long long vm_size(void)
{
    unsigned long long pages = 0;
    FILE *fp = fopen("/proc/self/statm", "r");

    if (fp == NULL)
        return 0;
    if (fscanf(fp, "%llu", &pages) != 1)
        pages = 0;
    fclose(fp);
    return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

/* Lowers resource res to lim (soft and hard), never raising either. */
static void cap(int res, rlim_t lim, rlim_t hard)
{
    struct rlimit rl;

    if (getrlimit(res, &rl) != 0)
        return;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < hard)
        hard = rl.rlim_max;
    rl.rlim_cur = lim < hard ? lim : hard;
    rl.rlim_max = hard;
    setrlimit(res, &rl);
}

__attribute__((noreturn))
static void child(const char *anchor, unsigned long long mem_cap)
{
    sigset_t none;
    int fd;

    /* whatever the parent caught or blocked, the limits' signals kill here */
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO)
            close(fd);
    }
#if defined(AN_ASAN) || defined(AN_TSAN)
    __sanitizer_set_death_callback(child_on_death);
#endif
    cap(RLIMIT_CORE, 0, 0);
    cap(RLIMIT_CPU, ANCHOR_CPU_S, ANCHOR_CPU_S + 1);
    if (mem_cap != 0)
        cap(RLIMIT_AS, (rlim_t)mem_cap, (rlim_t)mem_cap);
    alarm(ANCHOR_WALL_S);

    OTF2_Error_RegisterCallback(child_on_error, NULL);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint64_t nlocs;
    uint32_t nprops;
    char **names = NULL;

    if (rd == NULL
        || (rc = OTF2_Reader_SetSerialCollectiveCallbacks(rd)) != OTF2_SUCCESS
        || (rc = OTF2_Reader_GetNumberOfLocations(rd, &nlocs)) != OTF2_SUCCESS
        || (rc = OTF2_Reader_GetPropertyNames(rd, &nprops, &names)) != OTF2_SUCCESS)
        _exit(child_no_memory ? CHILD_NO_MEMORY : CHILD_OTF2_ERROR);
    /* no free, no close: _exit ends it all, and a bent loader's heap is left alone */
    _exit(child_no_memory ? CHILD_NO_MEMORY : CHILD_OK);
}

#define DAMAGED "the archive's anchor file is damaged (OTF2's loader "

cm_status_t an__anchor_check(const char *anchor, cm_err_t *err)
{
    struct stat sb;
    unsigned long long headroom = 0, now = 0;
    int status, sig;
    pid_t pid;

    if (stat(anchor, &sb) != 0)
        return CM_OK;                     /* the reader says why */
    now = vm_size();
#if defined(AN_TSAN)
    now = 0;                              /* TSan maps memory on demand: no cap */
#endif
    if (now != 0)
        headroom = (unsigned long long)ANCHOR_MEM_FLOOR_MIB * 1024 * 1024
                   + (unsigned long long)ANCHOR_MEM_PER_BYTE * (unsigned long long)sb.st_size;
    fflush(NULL);                         /* nothing buffered is written twice */
    if ((pid = fork()) < 0)
        return CM_OK;                     /* no check possible: OTF2 loads it as before */
    if (pid == 0)
        child(anchor, headroom != 0 ? now + headroom : 0);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return CM_OK;
    if (WIFEXITED(status)) {
        switch (WEXITSTATUS(status)) {
        case CHILD_OK:
        case CHILD_OTF2_ERROR:
            return CM_OK;                 /* the real open reports OTF2's error */
        case CHILD_NO_MEMORY:
            if (headroom == 0)
                return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "ran out of memory)");
            return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "needed more than "
                             "%llu MiB)", headroom / (1024 * 1024));
        case CHILD_SANITIZER:
            if (headroom == 0)
                return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "ended in a "
                                 "sanitizer's report)");
            return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "ended in a sanitizer's "
                             "report, with %llu MiB allowed)", headroom / (1024 * 1024));
        default:
            return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "ended with status %d)",
                             WEXITSTATUS(status));
        }
    }
    sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig == SIGXCPU)
        return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "took more than %d s of "
                         "CPU time)", ANCHOR_CPU_S);
    if (sig == SIGALRM)
        return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "took more than %d s)",
                         ANCHOR_WALL_S);
    return CM_ERR_AT(err, CM_ERR_INVALID, anchor, 0, 0, DAMAGED "crashed with signal %d, %s)",
                     sig, strsignal(sig));
}
