/*
 * run_tests.c - the one test runner (libuv's runner, SQLite's self-tests).
 *
 * Reads the registry (tests/test_list.h), expands each corpus directory into
 * one item per input file, and runs the selected items, up to -j N at once
 * (default 1), each in a child process in its own process group with a
 * timeout.  An entry marked TST_EXCLUSIVE runs alone: the runner lets the
 * running items finish, runs it, and only then starts the next ones.
 * Items start in registry order, except that --first NAME starts the named
 * entries before the others (the Makefile names the longest tests, so that
 * -j N does not end on one long test running alone).
 * Output is TAP, in registry order whatever order the items end in: "1..N"
 * first, one "ok"/"not ok" line per item, and always the last line
 * "N passed, N failed"; the exit status is 0 iff nothing failed.  A child's
 * stdout and stderr go to build/test-logs/<name>.log; a failure shows the
 * last 20 lines of it as TAP diagnostics.
 *
 * Each item runs in a worker: a fork of the runner that runs it exactly as
 * -j 1 would (tst_item_run: the child, its timeout, the judgement) and leaves
 * the result in memory shared with the runner, which only schedules, reaps
 * and prints.  A stop signal (SIGINT, SIGTERM, SIGHUP) is passed on to every
 * worker, which ends its test's whole process group before it dies.
 */
#define TST_LIST_TABLE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tests/test_list.h"

#define TST_LOG_DIR      "build/test-logs"
#define TST_TAIL_LINES   20
#define TST_KILL_GRACE_S 2.0
#define TST_NKINDS       5
#define TST_MAX_JOBS     64
#define TST_DETAIL_MAX   2048

static const char *const tst_kind_names[TST_NKINDS] = {
    "unit", "mpi", "sh", "corpus", "good"
};

typedef struct tst_item {
    char              *name;   /* TAP name: the entry's, or entry/stem */
    const tst_entry_t *entry;
    char              *file;   /* CORPUS, GOOD: the input file; else NULL */
    char              *broken; /* why it cannot run (found while expanding) */
} tst_item_t;

typedef struct tst_opts {
    unsigned kinds;            /* bit (1 << kind) per --kind; 0 = all */
    char   **filters;          /* name substrings; matching any selects */
    int      nfilters;
    const char **skips;        /* --skip: registry entries left out */
    int      nskips;
    const char **firsts;       /* --first: entries started before the rest */
    int      nfirsts;
    int      list, verbose;
    int      exact;            /* --exact: a NAME must be a whole name */
    double   scale;            /* PAPTREE_TEST_TIMEOUT_SCALE */
    int      jobs;             /* -j: items run at once, 1..TST_MAX_JOBS */
} tst_opts_t;

typedef struct tst_items {
    tst_item_t        *v;      /* the selected items, in registry order */
    size_t             n, cap;
    size_t            *order;  /* [n]: indexes of v in the order they start */
    const tst_opts_t  *opts;
    const tst_entry_t *list;   /* the registry */
    size_t             nlist;
} tst_items_t;

typedef struct tst_result {
    int    ok, ran;
    double secs;
    char   reason[256];
    char  *detail;             /* extra diagnostic lines, or NULL; owned */
} tst_result_t;

/* The runner cannot do anything useful without memory: stop loudly. */
static void *tst_check_alloc(void *p)
{
    if (p == NULL) {
        perror("run_tests");
        exit(2);
    }
    return p;
}

__attribute__((format(printf, 1, 2)))
static char *tst_xasprintf(const char *fmt, ...)
{
    va_list ap;
    char   *s = NULL;
    int     rc;

    va_start(ap, fmt);
    rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    return tst_check_alloc(rc < 0 ? NULL : s);
}

static double tst_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int tst_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n > m && strcmp(s + n - m, suffix) == 0;
}

static tst_kind_t tst_kind(const tst_entry_t *e)
{
    return (tst_kind_t)(e->kind & TST_KIND_MASK);
}

static int tst_exclusive(const tst_entry_t *e)
{
    return (e->kind & TST_EXCLUSIVE) != 0;
}

/* ---- running one child ------------------------------------------------ */

/* In the child: stdin from /dev/null, output to the log, then run. */
static void tst_child_start(const tst_child_t *c, const sigset_t *mask)
{
    int in = open("/dev/null", O_RDONLY);
    int out = open(c->out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    int err = c->err_path == NULL ? out
              : open(c->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    /* Its own group, so that a timeout reaches everything the test started. */
    setpgid(0, 0);
    sigprocmask(SIG_SETMASK, mask, NULL);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
        dup2(err, 2) < 0) {
        perror("run_tests: child setup");
        _exit(126);
    }
    /* The runner may have started with 0-2 closed: then these are 0-2. */
    if (in > 2)
        close(in);
    if (out > 2)
        close(out);
    if (err > 2 && err != out)
        close(err);
    if (c->fn != NULL) {
        c->fn();
        exit(0);
    }
    execl("/bin/sh", "sh", "-c", c->cmd, "sh", c->arg, (char *)NULL);
    perror("run_tests: exec /bin/sh");
    _exit(127);
}

/*
 * Waits until pid ends or until deadline.  The child is left unreaped so that
 * its process group id cannot be reused before we kill the group.  Returns 0
 * when it ended, -1 at the deadline, or the signal (SIGINT, ...) that asks the
 * runner itself to stop.  Sleeps are bounded so nothing hangs on a lost signal.
 */
static int tst_child_wait(pid_t pid, const sigset_t *wake, double deadline)
{
    for (;;) {
        siginfo_t       si;
        struct timespec ts;
        double          left;
        int             sig;

        memset(&si, 0, sizeof(si));
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            si.si_pid == pid)
            return 0;
        left = deadline - tst_now();
        if (left <= 0)
            return -1;
        left = left > 0.1 ? 0.1 : left;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)(left * 1e9);
        sig = sigtimedwait(wake, NULL, &ts);
        if (sig > 0 && sig != SIGCHLD)
            return sig;
    }
}

/* SIGCHLD wakes the wait; the stop signals too, unless someone ignores them
 * (nohup), since blocking them here would otherwise deliver them anyway. */
static void tst_wake_set(sigset_t *set)
{
    static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;

    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
        if (sigaction(stops[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(set, stops[i]);
}

int tst__child_run(const tst_child_t *child, double timeout_s,
                   tst_exit_t *exit_p)
{
    tst_exit_t ex = { 0, -1, 0, 0.0 };
    sigset_t   wake, old;
    double     start = tst_now();
    int        status = 0, why, e;
    pid_t      pid, done;

    tst_wake_set(&wake);
    fflush(NULL); /* else the child would repeat our buffered TAP output */
    sigprocmask(SIG_BLOCK, &wake, &old);
    pid = fork();
    if (pid < 0) {
        e = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        errno = e;
        return -1;
    }
    if (pid == 0)
        tst_child_start(child, &old);
    setpgid(pid, pid); /* as in the child: whichever runs first makes it */
    why = tst_child_wait(pid, &wake, start + timeout_s);
    if (why != 0) {
        int again;

        ex.timed_out = why < 0;
        kill(-pid, SIGTERM);
        again = tst_child_wait(pid, &wake, tst_now() + TST_KILL_GRACE_S);
        if (again != 0)
            kill(-pid, SIGKILL);
        why = again > 0 ? again : why;
    }
    /* Stragglers (a background job, an orphaned rank) must not outlive it. */
    kill(-pid, SIGKILL);
    while ((done = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    e = errno;
    ex.secs = tst_now() - start;
    if (WIFEXITED(status))
        ex.code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        ex.signo = WTERMSIG(status);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (why > 0)
        raise(why); /* we were asked to stop: the test is gone, now us */
    errno = e;
    if (done < 0)
        return -1; /* no status: never report a pass */
    *exit_p = ex;
    return 0;
}

void tst__srcloc_strip(char *line)
{
    size_t n = strlen(line);
    char  *cut = NULL;

    if (n == 0 || line[n - 1] != ']')
        return;
    for (char *p = strstr(line, " ["); p != NULL; p = strstr(p + 1, " ["))
        cut = p;
    if (cut != NULL)
        *cut = '\0';
}

/* ---- judging one item ------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static void tst_fail(tst_result_t *r, const char *fmt, ...)
{
    va_list ap;

    r->ok = 0;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
    va_end(ap);
}

/* Runs child; 1 when it ended with status `want`, else 0 with a reason. */
static int tst_run_expect(const tst_child_t *c, double timeout, int want,
                          tst_result_t *r)
{
    tst_exit_t ex;

    if (tst__child_run(c, timeout, &ex) != 0) {
        tst_fail(r, "cannot run: %s", strerror(errno));
        return 0;
    }
    r->ran = 1;
    r->secs = ex.secs;
    if (ex.timed_out)
        tst_fail(r, "timeout after %gs", timeout);
    else if (ex.signo != 0)
        tst_fail(r, "killed by signal %d (%s)", ex.signo, strsignal(ex.signo));
    else if (ex.code != want)
        tst_fail(r, "exit %d%s", ex.code, want == 0 ? "" : ", expected 1");
    else
        r->ok = 1;
    return r->ok;
}

/* Reads the first line of path without its newline; "" if none; NULL if the
 * file cannot be opened.  *more_p tells whether anything but blank follows. */
static char *tst_first_line(const char *path, int *more_p)
{
    FILE   *fp = fopen(path, "r");
    char   *line = NULL, *rest = NULL;
    size_t  cap = 0, rcap = 0;

    if (fp == NULL)
        return NULL;
    if (getline(&line, &cap, fp) < 0) {
        line = tst_check_alloc(realloc(line, 1));
        line[0] = '\0';
    }
    line[strcspn(line, "\r\n")] = '\0';
    *more_p = 0;
    while (getline(&rest, &rcap, fp) >= 0)
        *more_p |= rest[strspn(rest, " \t\r\n")] != '\0';
    free(rest);
    fclose(fp);
    return line;
}

/* The checker's stderr went to its own file; keep it in the log too. */
static void tst_log_append(const char *log, const char *path)
{
    FILE *in = fopen(path, "r"), *out = fopen(log, "a");
    char  buf[4096];
    size_t n;

    if (in != NULL && out != NULL) {
        fputs("--- stderr ---\n", out);
        while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
            fwrite(buf, 1, n, out);
    }
    if (in != NULL)
        fclose(in);
    if (out != NULL)
        fclose(out);
}

/* Compares the checker's first stderr line with the expected one. */
static void tst_corpus_judge(const char *want, const char *err_path,
                             tst_result_t *r)
{
    int   more;
    char *got = tst_first_line(err_path, &more);

    got = got != NULL ? got : tst_check_alloc(calloc(1, 1));
    tst__srcloc_strip(got);
    if (strcmp(got, want) != 0) {
        tst_fail(r, "wrong message");
        r->detail = tst_xasprintf("expected: %s\ngot:      %s", want, got);
    }
    free(got);
}

static void tst_run_corpus(const tst_item_t *it, const char *log,
                           double timeout, tst_result_t *r)
{
    size_t      stem = strlen(it->file) - strlen(".pm");
    char       *expect = tst_xasprintf("%.*s.expect", (int)stem, it->file);
    char       *err = tst_xasprintf("%s.stderr", log);
    char       *cmd = tst_xasprintf("exec %s \"$1\"", it->entry->cmd);
    tst_child_t c = { NULL, cmd, it->file, log, err };
    int         more = 0;
    char       *want = tst_first_line(expect, &more);

    /* A bad .expect is the corpus's fault: say so without running anything. */
    if (want == NULL)
        tst_fail(r, "missing .expect");
    else if (want[0] == '\0' || more)
        tst_fail(r, "%s must hold exactly one non-empty line", expect);
    else if (tst_run_expect(&c, timeout, 1, r))
        tst_corpus_judge(want, err, r);
    tst_log_append(log, err);
    unlink(err);
    free(want);
    free(cmd);
    free(err);
    free(expect);
}

/*
 * How the runner starts MPI jobs (docs/platform.md): the C twin of
 * paptree_mpirun in bench/lib.sh, the reference, which says why each flag is
 * there; change both (and tools/sweep's twin) together.
 * tests/infra/mpirun-line.sh compares the three lines (--mpirun-line).
 * PAPTREE_MPIRUN_ARGS: more mpirun arguments for every job, as in
 * bench/lib.sh (cmd runs under sh, which splits them).
 */
static char *tst_mpi_cmd(int ranks, const char *cmd)
{
    const char *more = getenv("PAPTREE_MPIRUN_ARGS");
    int         has_more = more != NULL && *more != '\0';

    return tst_xasprintf("mpirun%s --oversubscribe --bind-to none --mca btl self,vader%s%s"
                         " -np %d %s", geteuid() == 0 ? " --allow-run-as-root" : "",
                         has_more ? " " : "", has_more ? more : "", ranks, cmd);
}

/* Truncates the log and records what runs, so a stale log never shows. */
__attribute__((format(printf, 2, 3)))
static void tst_log_start(const char *log, const char *fmt, ...)
{
    FILE   *fp = fopen(log, "w");
    va_list ap;

    if (fp == NULL)
        return;
    va_start(ap, fmt);
    vfprintf(fp, fmt, ap);
    va_end(ap);
    fputc('\n', fp);
    fclose(fp);
}

static void tst_item_run(const tst_item_t *it, const char *log, double scale,
                         tst_result_t *r)
{
    const tst_entry_t *e = it->entry;
    double             timeout = e->timeout_s * scale;
    char              *cmd = NULL;
    tst_child_t        c = { NULL, NULL, NULL, log, NULL };

    memset(r, 0, sizeof(*r));
    if (it->broken != NULL) {
        tst_log_start(log, "# not run: %s", it->broken);
        tst_fail(r, "%s", it->broken);
        return;
    }
    if (tst_kind(e) == TST_UNIT) {
        c.fn = e->fn;
        tst_log_start(log, "# unit test %s", it->name);
    } else if (tst_kind(e) == TST_CORPUS) {
        tst_log_start(log, "$ %s %s", e->cmd, it->file);
        tst_run_corpus(it, log, timeout, r);
        return;
    } else {
        cmd = tst_kind(e) == TST_MPI ? tst_mpi_cmd(e->ranks, e->cmd)
              : tst_kind(e) == TST_GOOD ? tst_xasprintf("exec %s \"$1\"", e->cmd)
              : tst_xasprintf("%s", e->cmd);
        c.cmd = cmd;
        c.arg = it->file;
        if (tst_kind(e) == TST_GOOD)
            tst_log_start(log, "$ %s %s", e->cmd, it->file);
        else
            tst_log_start(log, "$ %s", cmd);
    }
    tst_run_expect(&c, timeout, 0, r);
    free(cmd);
}

/* ---- output ----------------------------------------------------------- */

/* Prints the log as TAP diagnostics: all of it, or its last max lines. */
static void tst_log_print(const char *log, size_t max)
{
    FILE   *fp = fopen(log, "r");
    char   *ring[TST_TAIL_LINES] = { NULL }, *line = NULL;
    size_t  cap = 0, n = 0;

    if (fp == NULL)
        return;
    while (getline(&line, &cap, fp) >= 0) {
        line[strcspn(line, "\n")] = '\0';
        if (max == 0) {
            printf("#   %s\n", line);
            continue;
        }
        free(ring[n % max]);
        ring[n++ % max] = tst_check_alloc(strdup(line));
    }
    for (size_t i = n > max ? n - max : 0; max != 0 && i < n; i++) {
        printf("#   %s\n", ring[i % max]);
        free(ring[i % max]);
    }
    free(line);
    fclose(fp);
}

static void tst_report(size_t k, const tst_item_t *it, const tst_result_t *r,
                       const char *log, int verbose)
{
    if (r->ok)
        printf("ok %zu - %s (%.2f s)\n", k, it->name, r->secs);
    else
        printf("not ok %zu - %s (%s)\n", k, it->name, r->reason);
    for (const char *p = r->detail; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, "\n");
        printf("# %.*s\n", (int)len, p);
        p += len + (p[len] == '\n');
    }
    if (r->ran && (verbose || !r->ok)) {
        printf("# %s of %s:\n", verbose ? "all" : "last lines", log);
        tst_log_print(log, verbose ? 0 : TST_TAIL_LINES);
    }
}

static char *tst_log_path(const char *name)
{
    char *log = tst_xasprintf(TST_LOG_DIR "/%s.log", name);

    for (char *p = log + strlen(TST_LOG_DIR "/"); *p != '\0'; p++)
        if (*p == '/')
            *p = '_';
    return log;
}

/* ---- running items, up to -j at once ---------------------------------- */

/* A worker's result, in memory shared with the runner (one per item). */
typedef struct tst_shared {
    int    done;               /* set last by the worker */
    int    ok, ran;
    double secs;
    char   reason[256];
    char   detail[TST_DETAIL_MAX];
} tst_shared_t;

enum { TST_PENDING, TST_RUNNING, TST_FINISHED };

typedef struct tst_pool {
    const tst_items_t *items;
    const tst_opts_t  *opts;
    tst_shared_t      *shared; /* [n], MAP_SHARED */
    pid_t             *pid;    /* [n]: the item's worker while it runs */
    char              *state;  /* [n]: TST_PENDING, RUNNING, FINISHED */
    char             **log;    /* [n] */
    size_t             next;   /* position in items->order of the first
                                  item not started */
    size_t             running;
    int                alone;  /* an exclusive item is running */
} tst_pool_t;

/* In the worker: runs item k as -j 1 would, hands back the result, ends. */
static void tst_worker(const tst_pool_t *p, size_t k, const sigset_t *mask)
{
    tst_shared_t *out = &p->shared[k];
    tst_result_t  r;

    sigprocmask(SIG_SETMASK, mask, NULL);
    tst_item_run(&p->items->v[k], p->log[k], p->opts->scale, &r);
    out->ok = r.ok;
    out->ran = r.ran;
    out->secs = r.secs;
    memcpy(out->reason, r.reason, sizeof(out->reason));
    snprintf(out->detail, sizeof(out->detail), "%s",
             r.detail != NULL ? r.detail : "");
    __atomic_store_n(&out->done, 1, __ATOMIC_RELEASE);
    _exit(0); /* no atexit handlers, no leak check: the runner owns those */
}

/* Starts what may start now: in order, up to -j, an exclusive item alone. */
static void tst_pool_start(tst_pool_t *p, const sigset_t *mask)
{
    while (p->next < p->items->n && p->running < (size_t)p->opts->jobs &&
           !p->alone) {
        size_t k = p->items->order[p->next];
        int    excl = tst_exclusive(p->items->v[k].entry);
        pid_t  pid;

        if (excl && p->running > 0)
            return; /* it waits until the others are done */
        fflush(NULL); /* else the worker could repeat buffered output */
        pid = fork();
        if (pid < 0) {
            if (p->running > 0)
                return; /* try again when one has ended */
            tst_shared_t *sh = &p->shared[k];
            snprintf(sh->reason, sizeof(sh->reason), "cannot run: fork: %s",
                     strerror(errno));
            p->state[k] = TST_FINISHED;
            p->next++;
            continue;
        }
        if (pid == 0)
            tst_worker(p, k, mask);
        p->pid[k] = pid;
        p->state[k] = TST_RUNNING;
        p->running++;
        p->alone = excl;
        p->next++;
    }
}

/* Reaps the workers that have ended; returns how many. */
static size_t tst_pool_reap(tst_pool_t *p)
{
    size_t reaped = 0;
    pid_t  pid;
    int    status;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        size_t k = 0;

        while (k < p->items->n &&
               !(p->state[k] == TST_RUNNING && p->pid[k] == pid))
            k++;
        if (k == p->items->n)
            continue; /* not a worker of ours */
        if (!__atomic_load_n(&p->shared[k].done, __ATOMIC_ACQUIRE)) {
            tst_shared_t *sh = &p->shared[k];

            sh->ok = 0;
            if (WIFSIGNALED(status))
                snprintf(sh->reason, sizeof(sh->reason),
                         "the runner's worker was killed by signal %d (%s)",
                         WTERMSIG(status), strsignal(WTERMSIG(status)));
            else
                snprintf(sh->reason, sizeof(sh->reason),
                         "the runner's worker ended (exit %d) without a result",
                         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
        p->state[k] = TST_FINISHED;
        p->running--;
        if (tst_exclusive(p->items->v[k].entry))
            p->alone = 0;
        reaped++;
    }
    return reaped;
}

static int tst_run_all(const tst_opts_t *o, const tst_items_t *items)
{
    size_t     n = items->n, shown = 0, passed = 0, failed = 0;
    tst_pool_t p = { items, o, NULL, NULL, NULL, NULL, 0, 0, 0 };
    sigset_t   wake, old;
    double     start = tst_now();
    int        stop = 0;

    if ((mkdir("build", 0777) != 0 && errno != EEXIST) ||
        (mkdir(TST_LOG_DIR, 0777) != 0 && errno != EEXIST)) {
        fprintf(stderr, "run_tests: mkdir %s: %s\n", TST_LOG_DIR,
                strerror(errno));
        return 2;
    }
    p.shared = mmap(NULL, n * sizeof(p.shared[0]), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p.shared == MAP_FAILED) {
        perror("run_tests: mmap");
        return 2;
    }
    p.pid = tst_check_alloc(calloc(n, sizeof(p.pid[0])));
    p.state = tst_check_alloc(calloc(n, sizeof(p.state[0])));
    p.log = tst_check_alloc(calloc(n, sizeof(p.log[0])));
    for (size_t k = 0; k < n; k++)
        p.log[k] = tst_log_path(items->v[k].name);
    printf("1..%zu\n", n);
    /* The wake set stays blocked here; each worker unblocks it at once. */
    tst_wake_set(&wake);
    sigprocmask(SIG_BLOCK, &wake, &old);
    while (shown < n && !(stop && p.running == 0)) {
        if (!stop)
            tst_pool_start(&p, &old);
        /* Results in registry order: an item is shown once those before are. */
        for (; shown < n && p.state[shown] == TST_FINISHED; shown++) {
            tst_shared_t *sh = &p.shared[shown];
            tst_result_t  r = { sh->ok, sh->ran, sh->secs, "", NULL };

            memcpy(r.reason, sh->reason, sizeof(r.reason));
            r.reason[sizeof(r.reason) - 1] = '\0';
            sh->detail[sizeof(sh->detail) - 1] = '\0';
            r.detail = sh->detail[0] != '\0' ? sh->detail : NULL;
            tst_report(shown + 1, &items->v[shown], &r, p.log[shown],
                       o->verbose);
            if (r.ok)
                passed++;
            else
                failed++;
        }
        if (shown == n || tst_pool_reap(&p) > 0)
            continue;
        {
            struct timespec ts = { 0, 100 * 1000 * 1000 };
            int             sig = sigtimedwait(&wake, NULL, &ts);

            if (sig > 0 && sig != SIGCHLD && stop == 0) {
                /* Each worker ends its test's group, then dies of it. */
                stop = sig;
                for (size_t k = 0; k < n; k++)
                    if (p.state[k] == TST_RUNNING)
                        kill(p.pid[k], sig);
            }
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (stop != 0)
        raise(stop); /* we were asked to stop: the tests are gone, now us */
    printf("# %zu in %.1f s with -j %d\n", n, tst_now() - start, o->jobs);
    printf("%zu passed, %zu failed\n", passed, failed);
    for (size_t k = 0; k < n; k++)
        free(p.log[k]);
    free(p.log);
    free(p.state);
    free(p.pid);
    munmap(p.shared, n * sizeof(p.shared[0]));
    return failed == 0 && stop == 0 ? 0 : 1;
}

/* ---- the list of items ------------------------------------------------ */

/* Takes name and broken (malloc'd), copies file; drops what NAME filters out. */
static void tst_items_add(tst_items_t *items, const tst_entry_t *e,
                          char *name, char *file, char *broken)
{
    int sel = items->opts->nfilters == 0;

    for (int i = 0; !sel && i < items->opts->nfilters; i++)
        sel = items->opts->exact ? strcmp(name, items->opts->filters[i]) == 0
                                 : strstr(name, items->opts->filters[i]) != NULL;
    if (!sel) {
        free(name);
        free(broken);
        return;
    }
    if (items->n == items->cap) {
        items->cap = items->cap ? 2 * items->cap : 64;
        items->v = tst_check_alloc(
            realloc(items->v, items->cap * sizeof(items->v[0])));
    }
    items->v[items->n++] = (tst_item_t){
        name, e, file ? tst_xasprintf("%s", file) : NULL, broken };
}

/*
 * Adds one item per input file under dir, in name order: <dir>/<stem>.pm for
 * a corpus, every *.pathmap in the whole tree (symlinks not followed) for
 * TST_GOOD.  An .expect without its .pm is a test someone lost: an item that
 * fails.  Returns the number of input files seen.
 */
static size_t tst_expand_dir(tst_items_t *items, const tst_entry_t *e,
                             const char *dir)
{
    const char     *suffix = tst_kind(e) == TST_CORPUS ? ".pm" : ".pathmap";
    size_t          found = 0, skip = strlen(e->dir) + 1;
    struct dirent **ents;
    int             n = scandir(dir, &ents, NULL, alphasort);
    struct stat     st;

    if (n < 0)
        tst_items_add(items, e, tst_xasprintf("%s", e->name), NULL,
                      tst_xasprintf("cannot read %s: %s", dir, strerror(errno)));
    for (int i = 0; i < n; i++) {
        const char *d = ents[i]->d_name;
        char       *path = tst_xasprintf("%s/%s", dir, d);
        int         stem = (int)(strlen(path) - skip);

        if (tst_kind(e) == TST_GOOD && d[0] != '.' && lstat(path, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            found += tst_expand_dir(items, e, path);
        } else if (tst_ends_with(d, suffix)) {
            found++;
            tst_items_add(items, e, tst_xasprintf("%s/%.*s", e->name,
                          stem - (int)strlen(suffix), path + skip), path, NULL);
        } else if (tst_kind(e) == TST_CORPUS && tst_ends_with(d, ".expect")) {
            stem -= (int)strlen(".expect");
            free(path);
            path = tst_xasprintf("%s/%.*s.pm", dir, stem, d);
            if (access(path, F_OK) != 0)
                tst_items_add(items, e, tst_xasprintf("%s/%.*s", e->name, stem,
                              d), NULL, tst_xasprintf(".expect without .pm"));
        }
        free(path);
        free(ents[i]);
    }
    free(n < 0 ? NULL : ents);
    return n < 0 ? 1 : found;
}

static int tst_skipped(const tst_opts_t *o, const char *name)
{
    for (int i = 0; i < o->nskips; i++)
        if (strcmp(o->skips[i], name) == 0)
            return 1;
    return 0;
}

/* A --skip or --first that names no entry is a list gone stale: refuse it. */
static int tst_names_check(const char *opt, const char **names, int nnames,
                           const tst_entry_t *list, size_t n)
{
    for (int i = 0; i < nnames; i++) {
        size_t k = 0;

        while (k < n && strcmp(list[k].name, names[i]) != 0)
            k++;
        if (k == n) {
            fprintf(stderr, "run_tests: %s '%s': no test has that name\n",
                    opt, names[i]);
            return -1;
        }
    }
    return 0;
}

/*
 * The order items start in: those of each --first entry (all items of a
 * corpus), in the order the options name them, then the rest in registry
 * order.  Only the start order changes: results are still shown in
 * registry order.  (Long tests first keep -j's workers busy to the end
 * instead of leaving one long test running alone at the end.)
 */
static void tst_items_order(tst_items_t *items)
{
    const tst_opts_t *o = items->opts;
    char             *taken = tst_check_alloc(calloc(items->n + 1, 1));
    size_t            m = 0;

    items->order = tst_check_alloc(calloc(items->n + 1, sizeof(size_t)));
    for (int i = 0; i < o->nfirsts; i++)
        for (size_t k = 0; k < items->n; k++)
            if (!taken[k] && strcmp(items->v[k].entry->name, o->firsts[i]) == 0) {
                taken[k] = 1;
                items->order[m++] = k;
            }
    for (size_t k = 0; k < items->n; k++)
        if (!taken[k])
            items->order[m++] = k;
    free(taken);
}

/* One item per entry of a selected kind, or per input file of a corpus. */
static void tst_items_build(tst_items_t *items)
{
    for (size_t i = 0; i < items->nlist; i++) {
        const tst_entry_t *e = &items->list[i];
        tst_kind_t         kind = tst_kind(e);
        int                corpus = kind == TST_CORPUS || kind == TST_GOOD;

        if (items->opts->kinds != 0 && !(items->opts->kinds & (1u << kind)))
            continue;
        if (tst_skipped(items->opts, e->name))
            continue;
        /* An empty corpus proves nothing: it is a failure, not a pass. */
        if (!corpus || tst_expand_dir(items, e, e->dir) == 0)
            tst_items_add(items, e, tst_xasprintf("%s", e->name), NULL,
                          corpus ? tst_xasprintf("no files in %s", e->dir)
                                 : NULL);
    }
}

/* ---- setup ------------------------------------------------------------ */

static void tst_usage(FILE *fp)
{
    fprintf(fp,
        "usage: build/run_tests [--list] [-v] [-x] [-j N] [--kind KIND]... [--skip NAME]...\n"
        "                       [--first NAME]... [NAME]...\n"
        "  --list       print the selected tests and their kinds; run nothing\n"
        "  -j N         run up to N tests at once (1..64; default 1); a test\n"
        "               marked exclusive in the registry always runs alone\n"
        "  --kind KIND  only tests of KIND: unit, mpi, sh, corpus or good\n"
        "               (repeatable; default: all)\n"
        "  NAME         only tests whose name contains one of the NAMEs\n"
        "  -x, --exact  only tests whose name is one of the NAMEs (one test by name)\n"
        "  --skip NAME  leave out the registry entry NAME (a whole name; a corpus\n"
        "               entry with all its files); repeatable\n"
        "  --first NAME start the registry entry NAME (a whole name) before the\n"
        "               others, in the order given (results stay in registry\n"
        "               order; --list shows the start order); repeatable\n"
        "  -v           show the logs of passing tests too\n"
        "  --mpirun-line NP CMD  print the mpirun command line an MPI test of NP\n"
        "               ranks running CMD gets; run nothing\n"
        "env: PAPTREE_ROOT (default: the directory above build/),\n"
        "     PAPTREE_TEST_TIMEOUT_SCALE (multiplies every timeout; 1)\n"
        "logs: build/test-logs/<name>.log\n");
}

static void tst_usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "run_tests: %s '%s' (see --help)\n", what, arg);
    exit(2);
}

static unsigned tst_kind_bit(const char *name)
{
    for (unsigned k = 0; k < TST_NKINDS; k++)
        if (strcmp(name, tst_kind_names[k]) == 0)
            return 1u << k;
    tst_usage_error("unknown kind", name);
    return 0;
}

static int tst_jobs_parse(const char *a)
{
    char *end = NULL;
    long  n = a[0] >= '0' && a[0] <= '9' ? strtol(a, &end, 10) : 0;

    if (end == NULL || *end != '\0' || n < 1 || n > TST_MAX_JOBS)
        tst_usage_error("bad number of jobs (1 to 64)", a);
    return (int)n;
}

/* --mpirun-line NP CMD: prints tst_mpi_cmd(NP, CMD) and exits. */
static void tst_mpirun_line_print(int argc, char **argv)
{
    char *end = NULL;
    long  np = argc == 2 ? strtol(argv[0], &end, 10) : 0;
    char *line;

    if (argc != 2)
        tst_usage_error("--mpirun-line needs NP and CMD (one word), got", argc > 0 ? argv[0] : "");
    if (end == argv[0] || *end != '\0' || np < 1 || np > 4096)
        tst_usage_error("--mpirun-line: bad NP", argv[0]);
    line = tst_mpi_cmd((int)np, argv[1]);
    printf("%s\n", line);
    free(line);
    exit(0);
}

static void tst_opts_parse(int argc, char **argv, tst_opts_t *o)
{
    const char *scale = getenv("PAPTREE_TEST_TIMEOUT_SCALE");
    char       *end = NULL;

    memset(o, 0, sizeof(*o));
    o->jobs = 1;
    o->filters = tst_check_alloc(calloc((size_t)argc, sizeof(char *)));
    o->skips = tst_check_alloc(calloc((size_t)argc, sizeof(char *)));
    o->firsts = tst_check_alloc(calloc((size_t)argc, sizeof(char *)));
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            tst_usage(stdout);
            exit(0);
        } else if (strcmp(a, "--list") == 0) {
            o->list = 1;
        } else if (strcmp(a, "--mpirun-line") == 0) {
            tst_mpirun_line_print(argc - i - 1, argv + i + 1);
        } else if (strcmp(a, "-v") == 0) {
            o->verbose = 1;
        } else if (strcmp(a, "--exact") == 0 || strcmp(a, "-x") == 0) {
            o->exact = 1;
        } else if (strcmp(a, "--kind") == 0) {
            if (i + 1 == argc)
                tst_usage_error("missing KIND after", a);
            o->kinds |= tst_kind_bit(argv[++i]);
        } else if (strncmp(a, "--kind=", 7) == 0) {
            o->kinds |= tst_kind_bit(a + 7);
        } else if (strcmp(a, "--skip") == 0) {
            if (i + 1 == argc)
                tst_usage_error("missing NAME after", a);
            o->skips[o->nskips++] = argv[++i];
        } else if (strncmp(a, "--skip=", 7) == 0) {
            o->skips[o->nskips++] = a + 7;
        } else if (strcmp(a, "--first") == 0) {
            if (i + 1 == argc)
                tst_usage_error("missing NAME after", a);
            o->firsts[o->nfirsts++] = argv[++i];
        } else if (strncmp(a, "--first=", 8) == 0) {
            o->firsts[o->nfirsts++] = a + 8;
        } else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) {
            if (i + 1 == argc)
                tst_usage_error("missing N after", a);
            o->jobs = tst_jobs_parse(argv[++i]);
        } else if (strncmp(a, "-j", 2) == 0) {
            o->jobs = tst_jobs_parse(a + 2);
        } else if (strncmp(a, "--jobs=", 7) == 0) {
            o->jobs = tst_jobs_parse(a + 7);
        } else if (a[0] == '-') {
            tst_usage_error("unknown option", a);
        } else {
            o->filters[o->nfilters++] = argv[i];
        }
    }
    o->scale = scale != NULL && *scale != '\0' ? strtod(scale, &end) : 1.0;
    if (end != NULL && (*end != '\0' || !(o->scale > 0 && o->scale < 1e6)))
        tst_usage_error("bad PAPTREE_TEST_TIMEOUT_SCALE", scale);
}

/* PAPTREE_ROOT, else two levels above the runner (it lives in build/). */
static int tst_root_enter(const char *argv0)
{
    const char *env = getenv("PAPTREE_ROOT");
    int         from_env = env != NULL && *env != '\0';
    char       *root = from_env ? strdup(env)
                       : realpath(strchr(argv0, '/') ? argv0 : "/proc/self/exe",
                                  NULL);

    for (int up = 0; root != NULL && !from_env && up < 2; up++) {
        char *slash = strrchr(root, '/');
        if (slash != NULL && slash != root)
            *slash = '\0';
    }
    if (root == NULL || chdir(root) != 0 ||
        access("tests/test_list.h", F_OK) != 0) {
        fprintf(stderr, "run_tests: %s is not a paptree checkout "
                "(set PAPTREE_ROOT)\n", root ? root : argv0);
        free(root);
        return -1;
    }
    free(root);
    return 0;
}

/*
 * Sanitizers exit with status 1 by default, the very status a rejected input
 * must give, so a corpus item could pass with a memory error after its
 * message.  Give them statuses of their own (appended: ours win).
 */
static void tst_env_sanitizers(void)
{
    static const char *const vars[][2] = {
        { "ASAN_OPTIONS", "exitcode=86" }, { "UBSAN_OPTIONS", "exitcode=87" },
    };

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *old = getenv(vars[i][0]);
        char       *val = old != NULL && *old != '\0'
                          ? tst_xasprintf("%s:%s", old, vars[i][1])
                          : tst_xasprintf("%s", vars[i][1]);
        setenv(vars[i][0], val, 1);
        free(val);
    }
}

int tst__main(const tst_entry_t *list, size_t n, int argc, char **argv)
{
    tst_opts_t  opts;
    tst_items_t items = { NULL, 0, 0, NULL, &opts, list, n };
    int         rc;

    /* An inherited SIG_IGN would make children vanish without a status. */
    signal(SIGCHLD, SIG_DFL);
    tst_opts_parse(argc, argv, &opts);
    if (tst_root_enter(argv[0]) != 0)
        return 2;
    tst_env_sanitizers();
    if (tst_names_check("--skip", opts.skips, opts.nskips, list, n) != 0 ||
        tst_names_check("--first", opts.firsts, opts.nfirsts, list, n) != 0) {
        free(opts.filters);
        free((void *)opts.skips);
        free((void *)opts.firsts);
        return 2;
    }
    tst_items_build(&items);
    tst_items_order(&items);
    if (items.n == 0) {
        fprintf(stderr, "run_tests: no test matches\n");
        rc = 2;
    } else if (opts.list) {
        for (size_t j = 0; j < items.n; j++) {
            const tst_item_t *it = &items.v[items.order[j]];

            printf("%-6s %s%s\n", tst_kind_names[tst_kind(it->entry)],
                   it->name, tst_exclusive(it->entry) ? "  (exclusive)" : "");
        }
        rc = 0;
    } else {
        rc = tst_run_all(&opts, &items);
    }
    for (size_t i = 0; i < items.n; i++) {
        free(items.v[i].name);
        free(items.v[i].file);
        free(items.v[i].broken);
    }
    free(items.v);
    free(items.order);
    free(opts.filters);
    free((void *)opts.skips);
    free((void *)opts.firsts);
    return rc;
}

int main(int argc, char **argv)
{
    /* Line-buffered so that `make test | tee` shows progress as it happens. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    return tst__main(tst_list, sizeof(tst_list) / sizeof(tst_list[0]), argc,
                     argv);
}
