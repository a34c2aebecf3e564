/*
 * t_clv_vectors.h - expected Clairvoyant schedules for t_clv.c, produced by
 * clairvoyant.py, an independent literal Python implementation of the rules
 * (docs/algorithms.md, Reference implementations), with this script,
 * `python3 gen_vectors.py 2024` (a record; the C code never computed them):
 *
 *   # Test vectors for tests/unit/algo/t_clv.c from clairvoyant.py.
 *   # The function is used as written except for three textual changes, each
 *   # checked to apply exactly once: the |G| = 1 branch advances one idle round
 *   # per iteration (k = 1: the plain loop, no skipping), and the schedule
 *   # records the iteration counter (the round number) instead of the round's
 *   # start time t0.
 *   import random, sys
 *   src = open('clairvoyant.py').read()
 *   subs = [("k = max(1, int((nxt - t0) // d))", "k = 1"),
 *           ("    while not done():\n", "    it = -1\n    while not done():\n        it += 1\n"),
 *           ("R = t0", "R = it")]
 *   for a, b in subs:
 *       assert src.count(a) == 1, a
 *       src = src.replace(a, b)
 *   ns = {}
 *   exec(compile(src.split('if __name__')[0], 'clairvoyant.py', 'exec'), ns)
 *   clv = ns['clairvoyant']
 *   rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 2024)
 *   for t in range(12):
 *       P = rng.randint(2, 7); N = rng.randint(1, 5); d = rng.randint(1, 10)
 *       span = rng.choice([1, 2, 4, 8, 20])
 *       # integer arrivals; half of them on multiples of d (ties, exactly d apart)
 *       a = [rng.randint(0, span * d) if rng.random() < 0.5 else d * rng.randint(0, span) for _ in range(P)]
 *       root = rng.randrange(P)
 *       s = clv(a, root, N, d)
 *       print("    /" "* P %d root %d N %d d %d *" "/" % (P, root, N, d))
 *       print("    { %d, %d, %d, %d, { %s }, %d, {" % (P, root, N, d, ", ".join(map(str, a)), len(s)))
 *       line = "       "
 *       for (r, z, i, j) in s:
 *           item = " {%d,%d,%d,%d}," % (r, z, i, j)
 *           if len(line) + len(item) > 78:
 *               print(line); line = "       "
 *           line += item
 *       print(line + " } },")
 */
#ifndef T_CLV_VECTORS_H
#define T_CLV_VECTORS_H

/* One instance: P, root, N, d (ticks), arrivals, and the transfers in the
   reference's order (sink first in each round): {round, src, dst, seg}.
   P in 2..7, N in 1..5, d in 1..10, integer arrivals in [0, span*d] for
   span in {1,2,4,8,20}, half on multiples of d (ties, exactly d apart);
   four of them have idle rounds. */
typedef struct clv_vec {
    int32_t np, root, nseg;
    int64_t d;
    int64_t arrival[8];
    int32_t nsteps;
    xfer_t  steps[32];
} clv_vec_t;

static const clv_vec_t vectors[] = {
    /* P 5 root 2 N 2 d 10 */
    { 5, 2, 2, 10, { 26, 20, 30, 33, 10 }, 9, {
        {0,1,4,0}, {0,4,1,1}, {1,4,2,0}, {1,1,0,1}, {2,3,2,0}, {2,0,3,1},
        {3,0,2,0}, {3,2,3,1}, {4,3,2,1}, } },
    /* P 6 root 0 N 3 d 9 */
    { 6, 0, 3, 9, { 0, 9, 0, 9, 9, 9 }, 17, {
        {0,2,0,0}, {0,0,2,1}, {0,3,1,0}, {0,1,3,1}, {0,5,4,0}, {0,4,5,1},
        {1,1,0,0}, {1,3,2,1}, {1,0,1,2}, {1,2,3,2}, {1,5,4,2}, {2,4,0,0},
        {2,5,2,1}, {2,3,1,2}, {3,2,0,1}, {3,4,1,2}, {4,1,0,2}, } },
    /* P 7 root 6 N 2 d 6 */
    { 7, 6, 2, 6, { 12, 26, 13, 36, 2, 0, 24 }, 13, {
        {0,4,5,0}, {0,5,4,1}, {1,0,5,0}, {1,4,0,1}, {2,2,5,0}, {2,0,2,1},
        {3,5,6,0}, {3,6,2,1}, {4,1,6,0}, {4,2,1,1}, {5,3,6,0}, {5,1,3,1},
        {6,3,6,1}, } },
    /* P 6 root 2 N 3 d 10 */
    { 6, 2, 3, 10, { 50, 30, 59, 25, 76, 20 }, 17, {
        {0,3,5,0}, {0,5,3,1}, {1,1,5,0}, {1,5,3,2}, {1,3,1,1}, {2,0,5,0},
        {2,1,3,2}, {3,5,2,0}, {3,2,3,2}, {3,1,0,1}, {4,0,2,1}, {4,3,0,2},
        {5,4,2,0}, {5,2,4,1}, {6,4,2,1}, {6,0,4,2}, {7,4,2,2}, } },
    /* P 5 root 0 N 5 d 6 */
    { 5, 0, 5, 6, { 18, 6, 6, 0, 5 }, 23, {
        {0,4,3,0}, {0,3,4,1}, {0,2,1,0}, {0,1,2,1}, {1,1,3,0}, {1,2,4,1},
        {1,3,1,2}, {1,4,2,2}, {2,3,0,0}, {2,4,3,3}, {2,0,4,1}, {2,2,1,2},
        {2,1,2,3}, {3,4,0,1}, {3,0,3,3}, {3,3,4,4}, {3,2,1,4}, {4,1,0,2},
        {4,2,3,3}, {4,0,4,4}, {5,3,0,3}, {5,1,4,4}, {6,4,0,4}, } },
    /* P 3 root 1 N 4 d 4 */
    { 3, 1, 4, 4, { 6, 4, 16 }, 11, {
        {0,0,1,0}, {0,1,0,1}, {1,0,1,1}, {1,1,0,2}, {2,2,1,0}, {2,1,0,3},
        {2,0,2,2}, {3,2,1,1}, {3,0,2,3}, {4,2,1,2}, {5,2,1,3}, } },
    /* P 5 root 1 N 5 d 7 */
    { 5, 1, 5, 7, { 4, 17, 42, 56, 13 }, 27, {
        {1,0,1,0}, {1,4,0,1}, {1,1,4,2}, {2,4,1,0}, {2,1,0,1}, {2,0,4,2},
        {3,0,1,1}, {3,4,0,3}, {3,1,4,4}, {4,4,1,2}, {4,1,0,3}, {4,0,4,4},
        {5,2,1,0}, {5,1,2,1}, {6,2,1,1}, {6,1,2,2}, {7,3,1,0}, {7,2,0,3},
        {7,4,2,4}, {7,1,3,1}, {8,3,1,1}, {8,2,3,2}, {9,3,1,2}, {9,0,3,3},
        {10,3,1,3}, {10,2,3,4}, {11,3,1,4}, } },
    /* P 5 root 0 N 2 d 9 */
    { 5, 0, 2, 9, { 1, 18, 18, 18, 7 }, 9, {
        {0,4,0,0}, {0,0,4,1}, {1,1,0,0}, {1,2,4,1}, {1,3,1,1}, {2,2,0,0},
        {2,1,4,1}, {3,3,0,0}, {4,4,0,1}, } },
    /* P 6 root 5 N 2 d 4 */
    { 6, 5, 2, 4, { 64, 62, 20, 16, 76, 76 }, 13, {
        {0,2,3,0}, {0,3,2,1}, {1,2,3,1}, {11,1,3,0}, {11,3,1,1}, {12,0,3,0},
        {12,1,0,1}, {13,0,3,1}, {14,3,5,0}, {14,4,3,1}, {15,4,5,0},
        {15,5,3,1}, {16,3,5,1}, } },
    /* P 2 root 0 N 5 d 2 */
    { 2, 0, 5, 2, { 20, 17 }, 9, {
        {1,1,0,0}, {1,0,1,1}, {2,1,0,1}, {2,0,1,2}, {3,1,0,2}, {3,0,1,3},
        {4,1,0,3}, {4,0,1,4}, {5,1,0,4}, } },
    /* P 3 root 1 N 1 d 2 */
    { 3, 1, 1, 2, { 12, 40, 11 }, 2, {
        {0,0,2,0}, {14,2,1,0}, } },
    /* P 4 root 2 N 3 d 8 */
    { 4, 2, 3, 8, { 24, 57, 16, 16 }, 13, {
        {0,3,2,0}, {0,2,3,1}, {1,0,2,0}, {1,2,3,2}, {1,3,0,1}, {2,0,2,1},
        {2,3,0,2}, {3,0,2,2}, {5,1,2,0}, {5,2,1,1}, {6,1,2,1}, {6,2,1,2},
        {7,1,2,2}, } },
};

#endif /* T_CLV_VECTORS_H */
