/*
 * paprun - run one rank of an unmodified MPI program under paptree's
 * profiling library (docs/paprun.md):
 *
 *   mpirun -np 4 bin/paprun --trace out/app --algo 'allreduce:*=ring' -- ./a.out ARGS
 *
 * In the convention of `mpirun -np 4 hpcrun ./app`: mpirun starts paprun
 * once per rank; paprun checks everything it was given (the options, the
 * rules, the trace directory, the library, the program), sets the
 * library's environment (PAPTREE_*, LD_PRELOAD) and execs the program in
 * its place.  Every check comes before the exec, so a bad option or rule
 * is one line on each rank's stderr and a non-zero exit, and the program
 * never starts.  paprun itself needs no MPI: it is not linked with it.
 *
 * Exit status (when the program does not start): 2 a bad option, rule or
 * trace directory; 1 the library is missing; 127 the program is not
 * found; 126 it is found but cannot be run.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/cm_err.h"
#include "common/cm_opt.h"
#include "interpose/api/ip_rules.h"
#include "runtime/api/rt_auto.h"

#define PAPRUN_RULES_MAX   65536   /* bytes of rules: an environment string must fit */
#define PAPRUN_COMMAND_MAX 4096    /* PAPTREE_COMMAND is cut beyond this */
#define PAPRUN_LIB_NAME    "libpaptree-mpi.so"

typedef struct paprun_opts {
    const char *trace;       /* --trace DIR (else PAPTREE_TRACE), or NULL */
    const char *trace_opt;   /* "--trace" or "PAPTREE_TRACE", for messages */
    const char *algo;        /* --algo RULES or @FILE (else PAPTREE_ALGO), or NULL */
    const char *algo_opt;
    const char *trace_mem;   /* --trace-mem SIZE as given, or NULL */
    int         report, force;
    int         prog;        /* argv index of the program */
} paprun_opts_t;

/* "           reduce     binomial, chain, ...": the table's rows of `coll`,
   by the short name a rule may use. */
static void algo_names(FILE *fp, rt_coll_t coll, const char *what)
{
    const char *suffix = coll == RT_COLL_REDUCE ? "-reduce" : coll == RT_COLL_BCAST ? "-bcast"
                                                                                     : NULL;
    size_t n, k = 0, col;
    const rt_algo_info_t *t = rt_algo_table(&n);

    col = (size_t)fprintf(fp, "           %-10s", what);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(t[i].name);

        if (t[i].coll != coll)
            continue;
        if (suffix && len > strlen(suffix) && strcmp(t[i].name + len - strlen(suffix), suffix) == 0)
            len -= strlen(suffix);
        if (col + len + 2 > 80) {
            fprintf(fp, ",\n%21s", "");
            col = 21;
        } else if (k > 0) {
            col += (size_t)fprintf(fp, ", ");
        }
        col += (size_t)fprintf(fp, "%.*s", (int)len, t[i].name);
        k++;
    }
    fprintf(fp, "\n");
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: mpirun -np N paprun [OPTIONS] [--] PROGRAM [ARGS...]\n"
"Runs one rank of an unmodified MPI program with paptree's profiling library\n"
"(lib/" PAPRUN_LIB_NAME "), which traces every intercepted collective by call\n"
"site and can run allreduce, reduce and bcast on runtime/algo's algorithms.\n"
"paprun checks its options, sets the library's environment and LD_PRELOAD,\n"
"and execs PROGRAM in its place (docs/paprun.md).\n"
"\n"
"Options (the first word that is no option is PROGRAM; '--' ends the options):\n"
"  -t, --trace DIR       write an OTF2 trace of the collectives into DIR (anchor\n"
"                        DIR/traces.otf2; its directory must exist and be writable)\n"
"  -a, --algo RULES      which algorithm runs which collective, e.g.\n"
"                        'allreduce:<=64K=rd,>64K=ring; bcast:*=binomial';\n"
"                        --algo @FILE reads the rules from FILE.  No rules: every\n"
"                        collective is Open MPI's own (trace only)\n"
"  -r, --report          print per call site: calls, bytes, algorithm, mean time,\n"
"                        arrival imbalance, fallbacks (rank 0, at MPI_Finalize)\n"
"  -f, --force           replace an existing trace at DIR (only a trace: a DIR\n"
"                        without DIR/traces.otf2 is never replaced)\n"
"      --trace-mem SIZE  event buffer memory per rank, e.g. 512K, 64M, 2G\n"
"  -h, --help            this text\n"
"\n"
"Rules: RULE { ';' RULE }, RULE = COLL[@NP]:CASE{,CASE}, CASE = SIZE=ALGO.\n"
"  COLL   allreduce, reduce or bcast\n"
"  NP     communicator sizes: N, N-M, N- or -M\n"
"  SIZE   bytes per rank: *, <B, <=B, >B, >=B, B-B or B (B: 4096, 64K, 1M, 2G;\n"
"         K, M, G: powers of 1024)\n"
"  ALGO   native (Open MPI's own), or an algorithm of the collective, with its\n"
"         parameters in parentheses: prr(arrival=history round=5us),\n"
"         chain(segments=8), slt(segsize=64K).  An allreduce may be a reduce and\n"
"         a broadcast: clv+binomial.  The algorithms (runtime/algo's table):\n");
    algo_names(fp, RT_COLL_ALLREDUCE, "allreduce");
    algo_names(fp, RT_COLL_REDUCE, "reduce");
    algo_names(fp, RT_COLL_BCAST, "bcast");
    fprintf(fp,
"  auto   (allreduce) chosen per call among candidates from the arrival pattern\n"
"         and a cost model: auto, auto(candidates=ring,prr,native arrival=history\n"
"         round=5us); default candidates " RT_AUTO_DEFAULT_CANDIDATES ";\n"
"         the report shows its choices (docs/paprun.md, \"auto\")\n"
"  The first rule for the collective whose NP holds the communicator size and\n"
"  one of whose cases holds the bytes decides; nothing matches: native.\n"
"\n"
"Environment (paprun sets these for the library; set them yourself, e.g. with\n"
"mpirun -x, to use the library without the options):\n"
"  PAPTREE_TRACE=DIR      as --trace (paprun passes it on as an absolute path)\n"
"  PAPTREE_ALGO=RULES     as --algo (the rules' text)\n"
"  PAPTREE_REPORT=1       as --report\n"
"  PAPTREE_FORCE=1        as --force\n"
"  PAPTREE_TRACE_MEM=SIZE as --trace-mem\n"
"  PAPTREE_NET=FILE       auto's cost model, a net file of bin/netfit (default:\n"
"                         built-in values); every rank must read the same\n"
"  PAPTREE_COMMAND        the program and its arguments, recorded in the trace\n"
"  PAPTREE_LIB=PATH       the library to preload (default: ../lib/" PAPRUN_LIB_NAME "\n"
"                         beside paprun's own directory)\n"
"  LD_PRELOAD             the library, before what LD_PRELOAD held already\n"
"An option wins over the variable; paprun checks the variables it is given too.\n"
"\n"
"Examples:\n"
"  mpirun -np 4 bin/paprun --trace out/app -- ./a.out\n"
"  mpirun -np 4 bin/paprun --report --algo 'allreduce:<=4K=rd,*=ring' ./a.out 100\n"
"  mpirun -np 4 bin/paprun --algo @rules.txt --trace out/app --force -- ./a.out\n"
"  mpirun -np 4 -x PAPTREE_ALGO='allreduce:*=prr(arrival=history)' \\\n"
"         -x LD_PRELOAD=$PWD/lib/" PAPRUN_LIB_NAME " ./a.out\n"
"  papanalyze out/app/traces.otf2\n"
"\n"
"Errors are one line per rank.  Exit status when PROGRAM does not start: 2 a\n"
"bad option, rule or trace directory; 1 the library is missing; 127 PROGRAM\n"
"not found; 126 PROGRAM not executable.  Otherwise PROGRAM's own.\n");
}

/* ---- options ------------------------------------------------------------ */

/* The command line into o; CM_OK or the error in ctx. */
static cm_status_t parse_args(cm_opt_t *ctx, int argc, char **argv, paprun_opts_t *o,
                              int *help_p)
{
    static const struct option longopts[] = {
        { "trace", required_argument, NULL, 't' },  { "algo", required_argument, NULL, 'a' },
        { "report", no_argument, NULL, 'r' },       { "force", no_argument, NULL, 'f' },
        { "trace-mem", required_argument, NULL, 'm' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 } };
    const char *opt;
    uint64_t bytes;
    int c;

    /* '+': getopt stops at PROGRAM, so PROGRAM's own options stay its own. */
    while ((c = cm_opt_next(ctx, argc, argv, "+:t:a:rfh", longopts, &opt)) != -1) {
        switch (c) {
        case 't': o->trace = optarg; o->trace_opt = "--trace"; break;
        case 'a': o->algo = optarg; o->algo_opt = "--algo"; break;
        case 'r': o->report = 1; break;
        case 'f': o->force = 1; break;
        case 'm':
            o->trace_mem = optarg;
            cm_opt_size(ctx, "--trace-mem", optarg, 1, SIZE_MAX, &bytes);
            break;
        default: *help_p = 1; return CM_OK;   /* 'h' */
        }
    }
    if (ctx->status != CM_OK)
        return ctx->status;
    if (optind >= argc)
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL, "no program given (usage: paprun "
                           "[OPTIONS] [--] PROGRAM [ARGS...]; paprun --help)");
    o->prog = optind;
    return CM_OK;
}

/* What the environment gives where an option is absent (checked alike). */
static cm_status_t from_env(cm_opt_t *ctx, paprun_opts_t *o)
{
    const char *v;
    uint64_t bytes;

    if (o->trace == NULL && (v = getenv("PAPTREE_TRACE")) != NULL && *v != '\0') {
        o->trace = v;
        o->trace_opt = "PAPTREE_TRACE";
    }
    if (o->algo == NULL && (v = getenv("PAPTREE_ALGO")) != NULL) {
        o->algo = v;
        o->algo_opt = "PAPTREE_ALGO";
    }
    if (o->trace_mem == NULL && (v = getenv("PAPTREE_TRACE_MEM")) != NULL && *v != '\0' &&
        cm_opt_size(ctx, "PAPTREE_TRACE_MEM", v, 1, SIZE_MAX, &bytes) != CM_OK)
        return ctx->status;
    if (o->trace == NULL && (o->trace_mem != NULL || o->force))
        return cm_opt_fail(ctx, CM_ERR_INVALID, NULL,
                           "--trace-mem and --force need --trace DIR (or PAPTREE_TRACE)");
    /* The library's reading of a flag: set, and neither "" nor "0". */
    if ((v = getenv("PAPTREE_FORCE")) != NULL && *v != '\0' && strcmp(v, "0") != 0)
        o->force = 1;
    return CM_OK;
}

/* ---- the rules -------------------------------------------------------- */

/* FILE's text (of --algo @FILE) into a malloc'd string; NULL with the
   message printed. */
static char *read_rules(const char *opt, const char *path)
{
    FILE *fp = fopen(path, "r");
    char *text = malloc(PAPRUN_RULES_MAX + 1);
    size_t n = 0;

    if (fp == NULL || text == NULL) {
        fprintf(stderr, "paprun: %s: cannot read '%s': %s\n", opt, path, strerror(errno));
        goto fail;
    }
    n = fread(text, 1, PAPRUN_RULES_MAX + 1, fp);
    if (ferror(fp)) {
        fprintf(stderr, "paprun: %s: cannot read '%s': %s\n", opt, path, strerror(errno));
        goto fail;
    }
    if (n > PAPRUN_RULES_MAX) {
        fprintf(stderr, "paprun: %s: '%s' holds more than %d bytes, expected at most %d "
                "(the rules travel in an environment variable)\n", opt, path,
                PAPRUN_RULES_MAX, PAPRUN_RULES_MAX);
        goto fail;
    }
    if (memchr(text, '\0', n) != NULL) {
        fprintf(stderr, "paprun: %s: '%s' holds a NUL byte, expected text\n", opt, path);
        goto fail;
    }
    text[n] = '\0';
    fclose(fp);
    return text;
fail:
    if (fp != NULL)
        fclose(fp);
    free(text);
    return NULL;
}

/* Parses the rules (after reading @FILE) and exports them; 0 or exit status. */
static int check_rules(const paprun_opts_t *o)
{
    const char *origin = o->algo_opt, *text = o->algo;
    char *file_text = NULL;
    ip_rules_t *rules;
    cm_err_t err;

    if (text == NULL)
        return 0;
    if (text[0] == '@' && strcmp(o->algo_opt, "--algo") == 0) {
        origin = text + 1;
        if ((file_text = read_rules(o->algo_opt, origin)) == NULL)
            return 2;
        text = file_text;
    } else if (strlen(text) > PAPRUN_RULES_MAX) {
        fprintf(stderr, "paprun: %s: %zu bytes of rules, expected at most %d\n", o->algo_opt,
                strlen(text), PAPRUN_RULES_MAX);
        return 2;
    }
    cm_err_clear(&err);
    if (ip_rules_parse(text, origin, &rules, &err) != CM_OK) {
        cm_err_print(stderr, "paprun: ", &err);
        free(file_text);
        return 2;
    }
    ip_rules_free(rules);
    if (setenv("PAPTREE_ALGO", text, 1) != 0) {
        fprintf(stderr, "paprun: cannot set PAPTREE_ALGO: %s\n", strerror(errno));
        free(file_text);
        return 2;
    }
    free(file_text);
    return 0;
}

/* ---- the trace directory -------------------------------------------------- */

/* dir's parent ("." for a bare name) into buf, and its last part into *base_p. */
static void split_dir(const char *dir, char *buf, size_t size, const char **base_p)
{
    const char *slash = strrchr(dir, '/');

    if (slash == NULL) {
        snprintf(buf, size, ".");
        *base_p = dir;
    } else {
        snprintf(buf, size, "%.*s", slash == dir ? 1 : (int)(slash - dir), dir);
        *base_p = slash + 1;
    }
}

/* Checks the trace directory and exports its absolute path; 0 or 2. */
static int check_trace(const paprun_opts_t *o)
{
    char dir[PATH_MAX], parent[PATH_MAX], real[PATH_MAX], abs[PATH_MAX + 2], anchor[PATH_MAX + 16];
    const char *opt = o->trace_opt, *base;
    size_t len;
    struct stat st;

    if (o->trace == NULL)
        return 0;
    len = strlen(o->trace);
    if (len == 0 || len >= sizeof(dir)) {
        fprintf(stderr, "paprun: %s: '%s' is no directory name\n", opt, o->trace);
        return 2;
    }
    memcpy(dir, o->trace, len + 1);
    while (len > 1 && dir[len - 1] == '/')      /* out/app/ is out/app */
        dir[--len] = '\0';
    split_dir(dir, parent, sizeof(parent), &base);
    if (realpath(parent, real) == NULL) {
        fprintf(stderr, "paprun: %s: the directory '%s' (for '%s') does not exist: %s\n", opt,
                parent, o->trace, strerror(errno));
        return 2;
    }
    if (access(real, W_OK | X_OK) != 0) {
        fprintf(stderr, "paprun: %s: cannot write in '%s' (for '%s'): %s\n", opt, parent,
                o->trace, strerror(errno));
        return 2;
    }
    if (stat(dir, &st) == 0) {
        snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
        if (!S_ISDIR(st.st_mode) || access(anchor, F_OK) != 0) {
            fprintf(stderr, "paprun: %s: '%s' exists and is not a trace (%s), expected a "
                    "new directory or a trace to replace\n", opt, o->trace,
                    S_ISDIR(st.st_mode) ? "no traces.otf2 in it" : "not a directory");
            return 2;
        }
        if (!o->force) {
            fprintf(stderr, "paprun: %s: '%s' holds a trace already; --force (or "
                    "PAPTREE_FORCE=1) replaces it\n", opt, o->trace);
            return 2;
        }
    } else if (errno != ENOENT) {
        fprintf(stderr, "paprun: %s: '%s': %s\n", opt, o->trace, strerror(errno));
        return 2;
    }
    /* The absolute path: the ranks may chdir before MPI_Init. */
    if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || base[0] == '\0')
        len = (size_t)snprintf(abs, sizeof(abs), "%s", realpath(dir, parent) ? parent : dir);
    else
        len = (size_t)snprintf(abs, sizeof(abs), "%s%s%s", real,
                               strcmp(real, "/") == 0 ? "" : "/", base);
    if (len >= sizeof(abs) || setenv("PAPTREE_TRACE", abs, 1) != 0) {
        fprintf(stderr, "paprun: %s: cannot pass '%s' on\n", opt, o->trace);
        return 2;
    }
    return 0;
}

/* ---- the library and the program ---------------------------------------- */

/* The library's absolute path into lib; 0 or 1 with the message printed. */
static int find_library(char *lib, size_t size)
{
    const char *env = getenv("PAPTREE_LIB");
    char exe[PATH_MAX], root[PATH_MAX], path[PATH_MAX + 64];
    struct stat st;
    ssize_t n;

    if (env != NULL && *env != '\0') {
        snprintf(path, sizeof(path), "%s", env);
    } else {
        if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0) {
            fprintf(stderr, "paprun: cannot find paprun's own directory (/proc/self/exe: "
                    "%s); set PAPTREE_LIB to the library\n", strerror(errno));
            return 1;
        }
        exe[n] = '\0';
        /* The kernel's path is absolute and has no links: bin/paprun. */
        snprintf(strrchr(exe, '/'), sizeof(exe) - (size_t)(strrchr(exe, '/') - exe), "/..");
        snprintf(path, sizeof(path), "%s/lib/%s", realpath(exe, root) ? root : exe,
                 PAPRUN_LIB_NAME);
    }
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || realpath(path, lib) == NULL) {
        if (env != NULL && *env != '\0')
            fprintf(stderr, "paprun: PAPTREE_LIB: '%s' is no library file\n", env);
        else
            fprintf(stderr, "paprun: the profiling library '%s' does not exist; `make` "
                    "builds it (or set PAPTREE_LIB)\n", path);
        return 1;
    }
    if (strpbrk(lib, " :") != NULL || strlen(lib) + 1 > size) {
        fprintf(stderr, "paprun: the library path '%s' holds a space or ':', which "
                "LD_PRELOAD cannot carry\n", lib);
        return 1;
    }
    return 0;
}

/* 0 when `path` can be run, 126 when it exists but cannot, 127 when not. */
static int runnable(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return 127;
    return S_ISREG(st.st_mode) && access(path, X_OK) == 0 ? 0 : 126;
}

/* As execvp searches: PROGRAM with a '/' as it is, else along PATH.
   0, or 126 / 127 with the message printed. */
static int check_program(const char *prog)
{
    const char *path = getenv("PATH"), *p;
    char cand[PATH_MAX];
    int best = 127;

    if (prog[0] == '\0') {
        fprintf(stderr, "paprun: the program's name is empty\n");
        return 127;
    }
    if (strchr(prog, '/') != NULL) {
        best = runnable(prog);
        if (best == 127)
            fprintf(stderr, "paprun: '%s': no such file\n", prog);
        else if (best == 126)
            fprintf(stderr, "paprun: '%s': not an executable file\n", prog);
        return best;
    }
    if (path == NULL)
        path = "/bin:/usr/bin";                 /* execvp's default */
    for (p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int r;

        /* An empty element is the current directory. */
        snprintf(cand, sizeof(cand), "%.*s%s%s", (int)len, p, len ? "/" : "", prog);
        if ((r = runnable(cand)) == 0)
            return 0;
        if (r == 126)
            best = 126;
        if (end == NULL)
            break;
        p = end;
    }
    if (best == 126)
        fprintf(stderr, "paprun: '%s': found in PATH but not an executable file\n", prog);
    else
        fprintf(stderr, "paprun: '%s': command not found in PATH\n", prog);
    return best;
}

/*
 * A sanitizer's runtime that this paprun runs with (the test suite's ASan
 * and TSan builds: paprun and the library are built alike), or NULL.  The
 * runtime must come first in the program's library list, before the
 * library that needs it, or it refuses to start.
 */
static int find_sanitizer(struct dl_phdr_info *info, size_t size, void *data)
{
    const char *base = strrchr(info->dlpi_name, '/');

    (void)size;
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libasan.so", 10) == 0 || strncmp(base, "libtsan.so", 10) == 0) {
        *(const char **)data = info->dlpi_name;
        return 1;
    }
    return 0;
}

/* PAPTREE_COMMAND, LD_PRELOAD, PAPTREE_REPORT, PAPTREE_FORCE, PAPTREE_TRACE_MEM. */
static int export_env(const paprun_opts_t *o, int argc, char **argv, const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    char cmd[PAPRUN_COMMAND_MAX + 4];
    char *preload;
    size_t len = 0;
    int rc = 0;

    cmd[0] = '\0';
    for (int i = o->prog; i < argc && len < PAPRUN_COMMAND_MAX; i++)
        len += (size_t)snprintf(cmd + len, PAPRUN_COMMAND_MAX + 1 - len, "%s%s",
                                i > o->prog ? " " : "", argv[i]);
    if (len >= PAPRUN_COMMAND_MAX)
        strcpy(cmd + PAPRUN_COMMAND_MAX - 3, "...");
    const char *san = NULL;
    dl_iterate_phdr(find_sanitizer, &san);
    if (asprintf(&preload, "%s%s%s%s%s", san ? san : "", san ? ":" : "", lib,
                 old && *old ? ":" : "", old && *old ? old : "") < 0)
        preload = NULL;
    if (preload == NULL || setenv("LD_PRELOAD", preload, 1) != 0 ||
        setenv("PAPTREE_COMMAND", cmd, 1) != 0 ||
        (o->report && setenv("PAPTREE_REPORT", "1", 1) != 0) ||
        (o->force && setenv("PAPTREE_FORCE", "1", 1) != 0) ||
        (o->trace_mem && setenv("PAPTREE_TRACE_MEM", o->trace_mem, 1) != 0)) {
        fprintf(stderr, "paprun: cannot set the environment: %s\n", strerror(errno));
        rc = 2;
    }
    free(preload);
    return rc;
}

int main(int argc, char **argv)
{
    paprun_opts_t o = { 0 };
    char lib[PATH_MAX];
    int help = 0, rc;
    cm_opt_t ctx;

    cm_opt_init(&ctx, "paprun");
    if (parse_args(&ctx, argc, argv, &o, &help) == CM_OK && help) {
        usage(stdout);
        return 0;
    }
    if (ctx.status == CM_OK)
        from_env(&ctx, &o);
    if (ctx.status != CM_OK) {
        cm_opt_print(&ctx, stderr);
        return 2;
    }
    if ((rc = check_rules(&o)) != 0 || (rc = check_trace(&o)) != 0 ||
        (rc = find_library(lib, sizeof(lib))) != 0 || (rc = check_program(argv[o.prog])) != 0 ||
        (rc = export_env(&o, argc, argv, lib)) != 0)
        return rc;
    execvp(argv[o.prog], argv + o.prog);
    fprintf(stderr, "paprun: cannot run '%s': %s\n", argv[o.prog], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
