/*
 * randtree - prints the random pathmap of a seed (tests/randtree/randtree.h).
 *
 *   build/tests/randtree SEED [--hosts N] [--max-hosts N] [--algo PCT] [--count N]
 *
 * The same text that build/tests/exec_random runs for that seed (with the
 * same options), for debugging one seed by hand: pipe it into a file and
 * run bin/pathmap-check or bin/gsum on it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/randtree/randtree.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: randtree SEED [--hosts N] [--max-hosts N] [--algo PCT] [--count N]\n"
            "  prints the random pathmap of SEED (a number) on stdout\n"
            "  --hosts N      exactly N hosts (1..%d)\n"
            "  --max-hosts N  1..N hosts (default 4)\n"
            "  --algo PCT     chance in %% of an algorithm node root (default 20)\n"
            "  --count N      smallest element count the trees run with (default 1)\n",
            RANDTREE_HOSTS_MAX);
}

static int number(const char *s, unsigned long long max, unsigned long long *v)
{
    char *end;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno != 0 || *end != '\0' || *v > max ? -1 : 0;
}

int main(int argc, char **argv)
{
    randtree_limits_t lim;
    unsigned long long seed = 0, v;
    int have_seed = 0;
    char *buf;
    long n;

    randtree_limits_default(&lim);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--hosts") == 0 || strcmp(a, "--max-hosts") == 0) {
            if (number(argv[++i], RANDTREE_HOSTS_MAX, &v) != 0 || v < 1) {
                fprintf(stderr, "randtree: %s takes 1..%d\n", a, RANDTREE_HOSTS_MAX);
                return 2;
            }
            lim.max_hosts = (unsigned)v;
            lim.min_hosts = strcmp(a, "--hosts") == 0 ? (unsigned)v : 1;
        } else if (strcmp(a, "--algo") == 0) {
            if (number(argv[++i], 100, &v) != 0) {
                fprintf(stderr, "randtree: --algo takes 0..100\n");
                return 2;
            }
            lim.algo_percent = (unsigned)v;
        } else if (strcmp(a, "--count") == 0) {
            if (number(argv[++i], 1u << 30, &v) != 0 || v < 1) {
                fprintf(stderr, "randtree: --count takes a positive number\n");
                return 2;
            }
            lim.min_count = (unsigned)v;
        } else if (!have_seed && number(a, UINT64_MAX, &seed) == 0) {
            have_seed = 1;
        } else {
            fprintf(stderr, "randtree: unexpected argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!have_seed) {
        usage(stderr);
        return 2;
    }
    n = randtree_make(seed, &lim, NULL, 0);
    if (n < 0 || (buf = malloc((size_t)n + 1)) == NULL ||
        randtree_make(seed, &lim, buf, (size_t)n + 1) != n) {
        fprintf(stderr, "randtree: cannot generate seed %llu\n", seed);
        return 1;
    }
    fputs(buf, stdout);
    free(buf);
    return 0;
}
