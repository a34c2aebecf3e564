/*
 * randtree.h - random valid pathmaps for the tests (docs/testing.md,
 * "Random trees").
 *
 * randtree_make(seed, limits, buf, cap) writes the text of a pathmap
 * (docs/pathmap.md) that the parser accepts, the same text for the same
 * seed and limits on every machine (its own 64-bit generator, no libc
 * rand).  What it draws: 1..H hosts, some of them gateways without
 * threads; per tree a random spanning tree of the hosts joined by proxies,
 * each host's contributions (its threads and the proxies of the hosts
 * below it) combined by a random tree of greds of random fan-in and depth,
 * or fed straight into a proxy or the root; chains of proxies through
 * gateways (relays); greds fed only by links; threads entering the core,
 * a gred or a proxy directly; sometimes an algorithm node as the root, and
 * sometimes several trees in one file (later trees on subsets of the
 * threads and hosts).  Types int32, int64, double; ops sum, min, max.
 *
 * Pure C, no MPI, no parser: the tests parse what it writes.
 */
#ifndef RANDTREE_H
#define RANDTREE_H

#include <stddef.h>
#include <stdint.h>

#define RANDTREE_HOSTS_MAX   64
#define RANDTREE_THREADS_MAX 16      /* per host */
#define RANDTREE_TREES_MAX   4

typedef struct randtree_limits {
    unsigned min_hosts, max_hosts;   /* 1 <= min <= max <= RANDTREE_HOSTS_MAX */
    unsigned max_threads;            /* per host with threads: 1..max, <= RANDTREE_THREADS_MAX */
    unsigned max_trees;              /* trees per file: 1..max, <= RANDTREE_TREES_MAX */
    unsigned algo_percent;           /* chance (0..100) that a tree spanning >= 2 hosts
                                        has an algorithm node as its root */
    unsigned min_count;              /* the smallest element count the trees will run
                                        with: bounds segments= and allows rabenseifner */
} randtree_limits_t;

/* 1..4 hosts, 1..3 threads per host, 1..3 trees, 20 % algorithm roots, count 1. */
void randtree_limits_default(randtree_limits_t *lim);

/*
 * Writes the pathmap of `seed` into buf (NUL-terminated) and returns its
 * length; returns -1 for invalid limits, and the length it would have
 * needed (>= cap) when cap is too small, like snprintf.
 */
long randtree_make(uint64_t seed, const randtree_limits_t *lim, char *buf, size_t cap);

#endif /* RANDTREE_H */
