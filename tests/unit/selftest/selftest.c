/*
 * selftest.c - tests of the test infrastructure: tests/tst.h and the runner.
 *
 * A broken assertion helper makes every other test pass vacuously, so the
 * tst.h checks here run each assertion in a forked child and judge its exit
 * status and exact message with plain C (sf_check), not with tst.h itself.
 * The runner checks use tst.h, which the first checks have vouched for: they
 * drive tst__child_run directly (exit codes, timeouts, killing the whole
 * process group) and run the runner binary on a made-up repository to pin
 * down what a corpus item passes or fails on.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/test_list.h"
#include "tests/tst.h"

/* Independent of tst.h on purpose (see the file comment). */
static void sf_check(int ok, const char *what, const char *got)
{
    if (ok)
        return;
    fprintf(stderr, "selftest: %s\n  got: %s\n", what, got ? got : "(none)");
    exit(1);
}

/* Runs fn in a child with stderr captured into out; returns the status. */
static int sf_run_captured(void (*fn)(void), char *out, size_t size)
{
    FILE  *tmp = tmpfile();
    pid_t  pid;
    int    status = 0;
    size_t n;

    sf_check(tmp != NULL, "tmpfile", NULL);
    fflush(NULL);
    pid = fork();
    sf_check(pid >= 0, "fork", NULL);
    if (pid == 0) {
        dup2(fileno(tmp), 2);
        fn();
        _exit(0); /* the assertion did not stop the child */
    }
    waitpid(pid, &status, 0);
    rewind(tmp);
    n = fread(out, 1, size - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
    return status;
}

/* Each failing assertion, and the line it sits on (checked exactly). */
static void f_int(void) { TST_EQ_INT(2 + 2, 5); }
static const int f_int_line = __LINE__ - 1;
static void f_ne(void) { int three = 3; TST_NE_INT(three, 3); }
static const int f_ne_line = __LINE__ - 1;
static void f_uint(void) { TST_EQ_UINT(UINT64_MAX, 7u); }
static const int f_uint_line = __LINE__ - 1;
static void f_str(void) { const char *word = "abc"; TST_EQ_STR(word, "abd"); }
static const int f_str_line = __LINE__ - 1;
static void f_strnull(void) { const char *none = NULL; TST_EQ_STR(none, "x"); }
static const int f_strnull_line = __LINE__ - 1;
static void f_dbl(void) { TST_EQ_DBL(0.5, 0.25, 0.1); }
static const int f_dbl_line = __LINE__ - 1;
static void f_nan(void) { double n = strtod("nan", NULL); TST_EQ_DBL(n, n, 1); }
static const int f_nan_line = __LINE__ - 1;
static void f_true(void) { TST_TRUE(1 > 2); }
static const int f_true_line = __LINE__ - 1;
static void f_false(void) { TST_FALSE(2 > 1); }
static const int f_false_line = __LINE__ - 1;
static void f_null(void) { int x = 0; int *p = &x; TST_NULL(p); }
static const int f_null_line = __LINE__ - 1;
static void f_neptr(void) { int x = 0; TST_NE_PTR(&x, &x); }
static const int f_neptr_line = __LINE__ - 1;
static void f_status(void) { cm_status_t st = CM_ERR_SYNTAX; TST_EQ_STATUS(st, CM_OK); }
static const int f_status_line = __LINE__ - 1;
static void f_contains(void) { TST_CONTAINS("unknown rank 7", "rank 17"); }
static const int f_contains_line = __LINE__ - 1;
static void f_fail(void) { TST_FAIL("unreachable: %d", 3); }
static const int f_fail_line = __LINE__ - 1;

typedef struct sf_case {
    void      (*fn)(void);
    const int  *line;
    const char *want; /* after "assertion failed: "; fnmatch pattern */
} sf_case_t;

static const sf_case_t sf_cases[] = {
    { f_int,      &f_int_line,      "2 + 2 == 5 (4 vs 5)" },
    { f_ne,       &f_ne_line,       "three != 3 (3 vs 3)" },
    { f_uint,     &f_uint_line,     "UINT64_MAX == 7u (18446744073709551615 vs 7)" },
    { f_str,      &f_str_line,      "word == \"abd\" (\"abc\" vs \"abd\")" },
    { f_strnull,  &f_strnull_line,  "none == \"x\" (NULL vs \"x\")" },
    { f_dbl,      &f_dbl_line,      "0.5 == 0.25 within 0.1 (0.5 vs 0.25)" },
    { f_nan,      &f_nan_line,      "n == n within 1 (nan vs nan)" },
    { f_true,     &f_true_line,     "1 > 2 (was false)" },
    { f_false,    &f_false_line,    "!(2 > 1) (was true)" },
    { f_null,     &f_null_line,     "p == NULL (0x* vs (nil))" },
    { f_neptr,    &f_neptr_line,    "&x != &x (0x* vs 0x*)" },
    { f_status,   &f_status_line,   "st == CM_OK (CM_ERR_SYNTAX vs CM_OK)" },
    { f_contains, &f_contains_line,
      "\"unknown rank 7\" contains \"rank 17\" (\"unknown rank 7\" vs \"rank 17\")" },
    { f_fail,     &f_fail_line,     "unreachable: 3" },
};

void t_selftest_tst_failures(void)
{
    for (size_t i = 0; i < sizeof(sf_cases) / sizeof(sf_cases[0]); i++) {
        const sf_case_t *c = &sf_cases[i];
        char             out[1024], want[1024];
        int              status = sf_run_captured(c->fn, out, sizeof(out));

        snprintf(want, sizeof(want), "%s:%d: assertion failed: %s\n",
                 __FILE__, *c->line, c->want);
        sf_check(WIFEXITED(status) && WEXITSTATUS(status) == 1,
                 "a failing assertion must exit the child with status 1", out);
        sf_check(fnmatch(want, out, 0) == 0, want, out);
    }
}

/* A helper that failed on true statements would fail every test: check. */
void t_selftest_tst_passes(void)
{
    int         calls = 0, x = 0;
    const char *none = NULL;
    double      inf = strtod("inf", NULL);

    TST_TRUE(2 > 1);
    TST_FALSE(1 > 2);
    TST_EQ_INT(++calls, 1); /* arguments are evaluated exactly once */
    TST_NE_INT(calls, 2);
    TST_EQ_INT(-5, -5);
    TST_EQ_UINT(UINT64_MAX, UINT64_MAX);
    TST_EQ_STR("abc", "abc");
    TST_EQ_STR(none, NULL);
    TST_EQ_DBL(0.1 + 0.2, 0.3, 1e-12);
    TST_EQ_DBL(inf, inf, 0);
    TST_CONTAINS("proxy 'p3' names unknown rank 17", "rank 17");
    TST_NULL(none);
    TST_NOT_NULL(&x);
    TST_EQ_PTR(&x, &x);
    TST_NE_PTR(&x, &calls);
    TST_EQ_STATUS(CM_OK, CM_OK);
    sf_check(calls == 1, "TST_EQ_INT evaluated its argument twice", NULL);
}

void t_selftest_srcloc_strip(void)
{
    static const char *const cases[][2] = {
        { "a.pm:1:2: error: boom [runtime/core/x.c:212]", "a.pm:1:2: error: boom" },
        { "a.pm:3: error: expected ']' [x.c:9]", "a.pm:3: error: expected ']'" },
        { "a [b] [c.c:3]", "a [b]" },
        { "no location", "no location" },
        { "x [a] y", "x [a] y" },
        { "[x.c:1]", "[x.c:1]" },
        { "", "" },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char line[128];

        snprintf(line, sizeof(line), "%s", cases[i][0]);
        tst__srcloc_strip(line);
        TST_EQ_STR(line, cases[i][1]);
    }
}

/* ---- the runner's child handling -------------------------------------- */

/* Paths and commands here are short; no heap, so ASan builds stay clean. */
#define SF_MAX 1024

__attribute__((format(printf, 2, 3)))
static char *sf_fmt(char *buf, const char *fmt, ...)
{
    va_list ap;
    int     n;

    va_start(ap, fmt);
    n = vsnprintf(buf, SF_MAX, fmt, ap);
    va_end(ap);
    TST_TRUE(n >= 0 && n < SF_MAX);
    return buf;
}

/* A scratch directory under build/ (the runner runs at the repo root). */
static char *sf_scratch(char *dir, const char *what)
{
    sf_fmt(dir, "build/selftest-%s-XXXXXX", what);
    TST_NOT_NULL(mkdtemp(dir));
    return dir;
}

/* Only after success: a failed test leaves its scratch directory to look at. */
static void sf_scratch_remove(const char *dir)
{
    tst_child_t rm = { NULL, "rm -rf \"$1\"", dir, "/dev/null", NULL };
    tst_exit_t  ex;

    TST_EQ_INT(tst__child_run(&rm, 10, &ex), 0);
    TST_EQ_INT(ex.code, 0);
}

static char *sf_read(const char *path, char *buf, size_t size)
{
    FILE  *fp = fopen(path, "r");
    size_t n;

    TST_NOT_NULL(fp);
    n = fread(buf, 1, size - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static void sf_exit5(void)
{
    exit(5);
}

void t_selftest_child_exit(void)
{
    char        dir[SF_MAX], log[SF_MAX], err[SF_MAX], text[SF_MAX];
    tst_child_t sh = { NULL, "echo out; echo err >&2; exit 3", NULL, log, NULL };
    tst_child_t arg = { NULL, "test \"$1\" = 'a b'", "a b", log, NULL };
    tst_child_t sig = { NULL, "kill -USR1 $$", NULL, log, NULL };
    tst_child_t fn = { sf_exit5, NULL, NULL, log, NULL };
    tst_child_t split = { NULL, "echo out; echo err >&2", NULL, log, err };
    tst_exit_t  ex;

    sf_scratch(dir, "exit");
    sf_fmt(log, "%s/log", dir);
    sf_fmt(err, "%s/err", dir);
    TST_EQ_INT(tst__child_run(&sh, 10, &ex), 0);
    TST_EQ_INT(ex.code, 3);
    TST_EQ_INT(ex.timed_out, 0);
    TST_EQ_INT(ex.signo, 0);
    TST_EQ_STR(sf_read(log, text, sizeof(text)), "out\nerr\n");
    TST_EQ_INT(tst__child_run(&arg, 10, &ex), 0);
    TST_EQ_INT(ex.code, 0);
    TST_EQ_INT(tst__child_run(&sig, 10, &ex), 0);
    TST_EQ_INT(ex.signo, SIGUSR1);
    TST_EQ_INT(ex.code, -1);
    TST_EQ_INT(tst__child_run(&fn, 10, &ex), 0);
    TST_EQ_INT(ex.code, 5);
    unlink(log);
    TST_EQ_INT(tst__child_run(&split, 10, &ex), 0);
    TST_EQ_STR(sf_read(log, text, sizeof(text)), "out\n");
    TST_EQ_STR(sf_read(err, text, sizeof(text)), "err\n");
    sf_scratch_remove(dir);
}

/*
 * A timeout must end everything the test started, and so must the end of a
 * test that leaves a background job behind: the markers would appear 1 s
 * later if any subshell survived.
 */
void t_selftest_child_timeout_group(void)
{
    char        dir[SF_MAX], log[SF_MAX], cmd1[SF_MAX], cmd2[SF_MAX];
    char        mark[SF_MAX];
    tst_child_t hang = { NULL, cmd1, NULL, log, NULL };
    tst_child_t leave = { NULL, cmd2, NULL, log, NULL };
    tst_exit_t  ex;
    struct stat st;

    sf_scratch(dir, "group");
    sf_fmt(log, "%s/log", dir);
    sf_fmt(cmd1, "(sleep 1; echo x > %s/m1) & sleep 30", dir);
    sf_fmt(cmd2, "(sleep 1; echo x > %s/m2) & exit 0", dir);
    TST_EQ_INT(tst__child_run(&hang, 0.3, &ex), 0);
    TST_EQ_INT(ex.timed_out, 1);
    TST_TRUE(ex.secs >= 0.3 && ex.secs < 1.5);
    TST_EQ_INT(tst__child_run(&leave, 10, &ex), 0);
    TST_EQ_INT(ex.timed_out, 0);
    TST_EQ_INT(ex.code, 0);
    usleep(1500 * 1000);
    TST_EQ_INT(stat(sf_fmt(mark, "%s/m1", dir), &st), -1);
    TST_EQ_INT(stat(sf_fmt(mark, "%s/m2", dir), &st), -1);
    sf_scratch_remove(dir);
}

/* A test that ignores SIGTERM gets SIGKILL 2 s later, not never. */
void t_selftest_child_timeout_kill(void)
{
    char        dir[SF_MAX], log[SF_MAX];
    tst_child_t deaf = { NULL, "trap '' TERM; sleep 30", NULL, log, NULL };
    tst_exit_t  ex;

    sf_scratch(dir, "kill");
    sf_fmt(log, "%s/log", dir);
    TST_EQ_INT(tst__child_run(&deaf, 0.3, &ex), 0);
    TST_EQ_INT(ex.timed_out, 1);
    TST_EQ_INT(ex.signo, SIGKILL);
    TST_TRUE(ex.secs >= 2.2 && ex.secs < 5);
    sf_scratch_remove(dir);
}

/* ---- the runner on a made-up repository ------------------------------- */

static void sf_write(const char *root, const char *path, const char *text)
{
    char  full[SF_MAX];
    FILE *fp = fopen(sf_fmt(full, "%s/%s", root, path), "w");

    TST_NOT_NULL(fp);
    fputs(text, fp);
    fclose(fp);
}

/* Each .pm is a shell script run by the fake checker: it decides the case. */
static void sf_fake_repo(const char *root)
{
    static const char *const files[][2] = {
        { "a_match.pm", "echo 'a.pm:1:2: error: boom [runtime/x.c:9]' >&2; exit 1" },
        { "a_match.expect", "a.pm:1:2: error: boom" },
        { "b_wrong_msg.pm", "echo other >&2; exit 1" },
        { "b_wrong_msg.expect", "bee\n" },
        { "c_exit0.pm", "echo c >&2; exit 0" },
        { "c_exit0.expect", "c" },
        { "d_noexpect.pm", "exit 1" },
        { "e_signal.pm", "echo e >&2; kill -SEGV $$" },
        { "e_signal.expect", "e" },
        { "f_stdout.pm", "echo noise; echo 'f [x.c:1]' >&2; echo more >&2; exit 1" },
        { "f_stdout.expect", "f\r\n" },
        { "g_hang.pm", "sleep 30" },
        { "g_hang.expect", "g" },
        { "h_orphan.expect", "h" },
        { "i_two.pm", "echo i >&2; exit 1" },
        { "i_two.expect", "i\nj\n" },
        { "j_asan.pm", "echo \"$ASAN_OPTIONS/$UBSAN_OPTIONS\" >&2; exit 1" },
        { "j_asan.expect", "exitcode=86/exitcode=87" },
    };
    static const char *const dirs[] = {
        "tests", "tests/pathmap", "tests/pathmap/bad", "bin", "pathmaps",
        "pathmaps/empty", "examples",
    };
    char path[SF_MAX];

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        TST_EQ_INT(mkdir(sf_fmt(path, "%s/%s", root, dirs[i]), 0777), 0);
    sf_write(root, "tests/test_list.h", "");
    sf_write(root, "bin/pathmap-check", "#!/bin/sh\nexec /bin/sh \"$1\"\n");
    TST_EQ_INT(chmod(sf_fmt(path, "%s/bin/pathmap-check", root), 0755), 0);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        sf_write(root, sf_fmt(path, "tests/pathmap/bad/%s", files[i][0]),
                 files[i][1]);
}

/* Every line but the log excerpts ("#   ...") is pinned down. */
static void sf_match_lines(char *text, const char *const *want, size_t n)
{
    char  *save = NULL;
    size_t k = 0;

    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "#   ", 4) == 0 || strncmp(line, "# last", 6) == 0)
            continue;
        if (k == n || fnmatch(want[k], line, 0) != 0)
            TST_FAIL("output line \"%s\" is not \"%s\"", line,
                     k < n ? want[k] : "(end)");
        k++;
    }
    TST_EQ_UINT(k, n);
}

void t_selftest_runner_corpus(void)
{
    static const char *const want[] = {
        "1..12",
        "ok 1 - pathmap_bad/a_match (* s)",
        "not ok 2 - pathmap_bad/b_wrong_msg (wrong message)",
        "# expected: bee",
        "# got:      other",
        "not ok 3 - pathmap_bad/c_exit0 (exit 0, expected 1)",
        "not ok 4 - pathmap_bad/d_noexpect (missing .expect)",
        "not ok 5 - pathmap_bad/e_signal (killed by signal 11 (*))",
        "ok 6 - pathmap_bad/f_stdout (* s)",
        "not ok 7 - pathmap_bad/g_hang (timeout after 0.5s)",
        "not ok 8 - pathmap_bad/h_orphan (.expect without .pm)",
        "not ok 9 - pathmap_bad/i_two (tests/pathmap/bad/i_two.expect must "
        "hold exactly one non-empty line)",
        "ok 10 - pathmap_bad/j_asan (* s)",
        "not ok 11 - pathmap_good (no files in pathmaps)",
        "not ok 12 - pathmap_good_examples (no files in examples)",
        "# 12 in * s with -j 1",
        "3 passed, 9 failed",
    };
    char        root[SF_MAX], self[SF_MAX], out[SF_MAX], cmd[SF_MAX];
    char        text[16384];
    ssize_t     len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    tst_child_t c = { NULL, cmd, NULL, out, NULL };
    tst_exit_t  ex;

    TST_TRUE(len > 0 && len < (ssize_t)sizeof(self) - 1);
    self[len] = '\0';
    sf_scratch(root, "repo");
    sf_fake_repo(root);
    sf_fmt(out, "%s/out", root);
    /* Sanitizers must not exit 1 (see run_tests.c): j_asan checks the env. */
    sf_fmt(cmd, "PAPTREE_ROOT=%s PAPTREE_TEST_TIMEOUT_SCALE=0.05"
           " ASAN_OPTIONS= UBSAN_OPTIONS= %s"
           " --kind corpus --kind good pathmap_bad/ pathmap_good", root, self);
    TST_EQ_INT(tst__child_run(&c, 20, &ex), 0);
    printf("%s", sf_read(out, text, sizeof(text)));
    TST_EQ_INT(ex.code, 1);
    sf_match_lines(text, want, sizeof(want) / sizeof(want[0]));
    sf_scratch_remove(root);
}

/* ---- the runner with -j, on registries of its own ---------------------- */

/* What sf_runner_main runs in the child (set just before the fork). */
static const tst_entry_t *sf_list;
static size_t             sf_nlist;
static char             **sf_argv;

static void sf_runner_main(void)
{
    int argc = 0;

    while (sf_argv[argc] != NULL)
        argc++;
    exit(tst__main(sf_list, sf_nlist, argc, sf_argv));
}

/*
 * Runs the runner on list in the made-up repository root (tests/test_list.h
 * must exist there) with the arguments after the program name; its output
 * goes to <root>/out, read into text.  Returns the runner's exit.
 */
static tst_exit_t sf_runner(const char *root, const tst_entry_t *list,
                            size_t n, char **args, char *text, size_t size)
{
    char        out[SF_MAX];
    tst_child_t c = { sf_runner_main, NULL, NULL, out, NULL };
    tst_exit_t  ex;

    sf_list = list;
    sf_nlist = n;
    sf_argv = args;
    sf_fmt(out, "%s/out", root);
    unlink(out);
    TST_EQ_INT(setenv("PAPTREE_ROOT", root, 1), 0);
    TST_EQ_INT(tst__child_run(&c, 30, &ex), 0);
    unsetenv("PAPTREE_ROOT");
    sf_read(out, text, size);
    printf("%s", text); /* into this test's log */
    return ex;
}

/* Every line of text, log excerpts too, against want (fnmatch patterns). */
static void sf_match_all(const char *text, const char *const *want, size_t n)
{
    char   copy[8192], *save = NULL;
    size_t k = 0;

    TST_TRUE(strlen(text) < sizeof(copy));
    strcpy(copy, text);
    for (char *line = strtok_r(copy, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (k == n || fnmatch(want[k], line, 0) != 0)
            TST_FAIL("output line %zu \"%s\" is not \"%s\"", k + 1, line,
                     k < n ? want[k] : "(end)");
        k++;
    }
    TST_EQ_UINT(k, n);
}

static char *sf_fake_root(char *root, const char *what)
{
    char dir[SF_MAX];

    sf_scratch(root, what);
    TST_EQ_INT(mkdir(sf_fmt(dir, "%s/tests", root), 0777), 0);
    sf_write(root, "tests/test_list.h", "");
    return root;
}

/*
 * Two tests of 1 s each and a quick one: with -j 3 the run takes about 1 s,
 * with -j 1 over 2 s.  The quick one ends first but is shown last, and the
 * failing one's log excerpt follows its own line: registry order, whole
 * lines, whatever order the tests end in.
 */
void t_selftest_jobs_parallel(void)
{
    static const tst_entry_t list[] = {
        { "a_sleep", TST_SH, NULL, "sleep 1", NULL, 0, 10 },
        { "b_sleep_fails", TST_SH, NULL, "sleep 1; echo b1; echo b2 >&2; exit 3",
          NULL, 0, 10 },
        { "c_quick", TST_SH, NULL, "echo c", NULL, 0, 10 },
    };
    static const char *const want_fmt[] = {
        "1..3",
        "ok 1 - a_sleep (1.* s)",
        "not ok 2 - b_sleep_fails (exit 3)",
        "# last lines of build/test-logs/b_sleep_fails.log:",
        "#   $ sleep 1; echo b1; echo b2 >&2; exit 3",
        "#   b1",
        "#   b2",
        "ok 3 - c_quick (0.* s)",
        "# 3 in * s with -j %s",
        "2 passed, 1 failed",
    };
    char       root[SF_MAX], text[8192], jline[64];
    char      *j3[] = { "run_tests", "-j", "3", NULL };
    char      *j1[] = { "run_tests", "-j1", NULL };
    const char *want[sizeof(want_fmt) / sizeof(want_fmt[0])];
    tst_exit_t par, seq;
    size_t     nw = sizeof(want) / sizeof(want[0]);

    sf_fake_root(root, "jobs");
    memcpy(want, want_fmt, sizeof(want));
    want[nw - 2] = sf_fmt(jline, want_fmt[nw - 2], "3");
    par = sf_runner(root, list, 3, j3, text, sizeof(text));
    TST_EQ_INT(par.code, 1);
    sf_match_all(text, want, nw);
    want[nw - 2] = sf_fmt(jline, want_fmt[nw - 2], "1");
    seq = sf_runner(root, list, 3, j1, text, sizeof(text));
    TST_EQ_INT(seq.code, 1);
    sf_match_all(text, want, nw);
    printf("-j 3: %.2f s, -j 1: %.2f s\n", par.secs, seq.secs);
    TST_TRUE(seq.secs >= 2.0);
    TST_TRUE(par.secs < 1.7);
    sf_scratch_remove(root);
}

/*
 * With -j 3, x (exclusive) must wait for n1 and run alone, then n2 and n3
 * run together.  Each test leaves a marker in run/ while it runs and, before
 * it ends, writes what it saw running into seen/: an exclusive test beside
 * another shows up in both (each lists run/ halfway through, when every
 * test started with it is still running).  --list says which is exclusive.
 */
void t_selftest_jobs_exclusive(void)
{
#define SF_NORMAL(name) "touch run/" name "; sleep 0.3; ls run > seen/" name \
                        "; sleep 0.3; rm run/" name
    static const tst_entry_t list[] = {
        { "n1", TST_SH, NULL, SF_NORMAL("n1"), NULL, 0, 10 },
        { "x", TST_SH | TST_EXCLUSIVE, NULL,
          "touch run/x; for i in 1 2 3; do ls run >> seen/x; sleep 0.3; done;"
          " rm run/x", NULL, 0, 10 },
        { "n2", TST_SH, NULL, SF_NORMAL("n2"), NULL, 0, 10 },
        { "n3", TST_SH, NULL, SF_NORMAL("n3"), NULL, 0, 10 },
    };
#undef SF_NORMAL
    static const char *const want[] = {
        "1..4", "ok 1 - n1 (* s)", "ok 2 - x (* s)", "ok 3 - n2 (* s)",
        "ok 4 - n3 (* s)", "# 4 in * s with -j 3", "4 passed, 0 failed",
    };
    static const char *const want_list[] = {
        "sh     n1", "sh     x  (exclusive)", "sh     n2", "sh     n3",
    };
    static const char *const seen[][2] = {
        { "n1", "n1\n" }, { "x", "x\nx\nx\n" }, { "n2", "n2\nn3\n" },
        { "n3", "n2\nn3\n" },
    };
    char       root[SF_MAX], text[8192], path[SF_MAX], got[SF_MAX];
    char      *j3[] = { "run_tests", "-j", "3", NULL };
    char      *ls[] = { "run_tests", "--list", NULL };
    tst_exit_t ex;

    sf_fake_root(root, "excl");
    TST_EQ_INT(mkdir(sf_fmt(path, "%s/run", root), 0777), 0);
    TST_EQ_INT(mkdir(sf_fmt(path, "%s/seen", root), 0777), 0);
    ex = sf_runner(root, list, 4, j3, text, sizeof(text));
    TST_EQ_INT(ex.code, 0);
    sf_match_all(text, want, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
        sf_read(sf_fmt(path, "%s/seen/%s", root, seen[i][0]), got, sizeof(got));
        if (strcmp(got, seen[i][1]) != 0)
            TST_FAIL("%s saw running \"%s\", expected \"%s\"", seen[i][0], got,
                     seen[i][1]);
    }
    ex = sf_runner(root, list, 4, ls, text, sizeof(text));
    TST_EQ_INT(ex.code, 0);
    sf_match_all(text, want_list, sizeof(want_list) / sizeof(want_list[0]));
    sf_scratch_remove(root);
}

/* Bad -j values are usage errors (exit 2), before anything runs. */
void t_selftest_jobs_usage(void)
{
    static const tst_entry_t list[] = {
        { "never", TST_SH, NULL, "touch ran", NULL, 0, 10 },
    };
    static const char *const bad[] = { "0", "65", "x", "-1", "2x", "" };
    char       root[SF_MAX], text[8192], arg[SF_MAX], path[SF_MAX];
    char      *missing[] = { "run_tests", "-j", NULL };
    tst_exit_t ex;

    sf_fake_root(root, "jusage");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *args[] = { "run_tests", sf_fmt(arg, "--jobs=%s", bad[i]), NULL };

        ex = sf_runner(root, list, 1, args, text, sizeof(text));
        TST_EQ_INT(ex.code, 2);
    }
    ex = sf_runner(root, list, 1, missing, text, sizeof(text));
    TST_EQ_INT(ex.code, 2);
    TST_EQ_INT(access(sf_fmt(path, "%s/ran", root), F_OK), -1);
    sf_scratch_remove(root);
}

/*
 * SIGTERM to the runner alone (as a CI timeout would send it) while two
 * tests run with -j 2: the runner passes it on, each worker ends its test's
 * process group, and the runner dies of the signal.  The markers would
 * appear 1 s later if any test's subshell survived.
 */
void t_selftest_jobs_stop(void)
{
    static const tst_entry_t list[] = {
        { "s1", TST_SH, NULL, "(sleep 1; touch m1) & sleep 30", NULL, 0, 60 },
        { "s2", TST_SH, NULL, "(sleep 1; touch m2) & sleep 30", NULL, 0, 60 },
    };
    char  root[SF_MAX], out[SF_MAX], path[SF_MAX];
    char *args[] = { "run_tests", "-j", "2", NULL };
    pid_t pid;
    int   status = 0;

    sf_fake_root(root, "jstop");
    sf_fmt(out, "%s/out", root);
    sf_list = list;
    sf_nlist = 2;
    sf_argv = args;
    TST_EQ_INT(setenv("PAPTREE_ROOT", root, 1), 0);
    fflush(NULL);
    pid = fork();
    TST_TRUE(pid >= 0);
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(126);
        sf_runner_main();
    }
    unsetenv("PAPTREE_ROOT");
    usleep(500 * 1000);
    TST_EQ_INT(kill(pid, SIGTERM), 0);
    TST_EQ_INT(waitpid(pid, &status, 0), pid);
    TST_TRUE(WIFSIGNALED(status));
    TST_EQ_INT(WTERMSIG(status), SIGTERM);
    usleep(1500 * 1000);
    TST_EQ_INT(access(sf_fmt(path, "%s/m1", root), F_OK), -1);
    TST_EQ_INT(access(sf_fmt(path, "%s/m2", root), F_OK), -1);
    sf_scratch_remove(root);
}

/* --skip leaves out whole entries (a corpus with its files), by whole name
 * only, and a name that is in no entry of the registry is refused. */
void t_selftest_runner_skip(void)
{
    static const tst_entry_t list[] = {
        { "keep", TST_SH, NULL, "true", NULL, 0, 10 },
        { "keep_too", TST_SH, NULL, "true", NULL, 0, 10 },
        { "gone", TST_SH, NULL, "true", NULL, 0, 10 },
        { "bad", TST_CORPUS, NULL, "false", "tests", 0, 10 },
    };
    static const char *const want[] = { "sh     keep", "sh     keep_too" };
    char       root[SF_MAX], text[8192];
    char      *skip[] = { "run_tests", "--list", "--skip", "gone", "--skip=bad",
                          NULL };
    char      *stale[] = { "run_tests", "--list", "--skip", "kee", NULL };
    tst_exit_t ex;

    sf_fake_root(root, "skip");
    ex = sf_runner(root, list, 4, skip, text, sizeof(text));
    TST_EQ_INT(ex.code, 0);
    sf_match_all(text, want, 2);
    ex = sf_runner(root, list, 4, stale, text, sizeof(text));
    TST_EQ_INT(ex.code, 2);
    sf_scratch_remove(root);
}
